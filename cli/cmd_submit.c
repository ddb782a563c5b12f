/*
 * cmd_submit.c: `gpuq submit`. Either -f (Job or Workload manifests, created
 * new, their queues required to exist) or flags that build the same Job.
 * Prints each workload's name, one per line, like `sbatch --parsable` (-o name: as
 * `gpuq list -o name` prints it, workload.kueue.x-k8s.io/NAME); with
 * -o json|yaml prints the workload's record instead. In cluster mode the Job
 * is created in the cluster instead (cluster.c).
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

struct submitted {
    char **names; /* workload names, for -o json|yaml */
    size_t n;
    bool print;  /* print names as they come, rather than keep them for records */
    bool failed; /* a name could not be kept (out of memory) */
    bool qualified; /* -o name: resource.group/NAME */
    size_t items; /* objects seen in -f inputs */
};

/* A submitted workload: print its name, or keep it to print its record. */
static void add_name(struct submitted *s, const char *name)
{
    char **v;

    if (s->print) {
        /* -o name: the form `gpuq list -o name` prints; else the bare name (sbatch --parsable) */
        printf("%s%s\n", s->qualified ? "workload.kueue.x-k8s.io/" : "", name);
        return;
    }
    if (!(v = realloc(s->names, (s->n + 1) * sizeof(*v))) || !(v[s->n] = strdup(name))) {
        if (v)
            s->names = v;
        s->failed = true;
        return;
    }
    s->names = v;
    s->n++;
}

static void on_item(const gq_apply_item *item, void *payload)
{
    ((struct submitted *)payload)->items++;
    if (item->workload)
        add_name(payload, item->workload);
}

static int print_records(gq_db *db, const struct global *g, const struct submitted *s)
{
    gq_error err = {0, ""};
    size_t i;
    int rc = GQ_OK;
    gq_format f = strcmp(g->output, "yaml") == 0 ? GQ_FORMAT_YAML : GQ_FORMAT_JSON;

    for (i = 0; i < s->n && rc == GQ_OK; i++) {
        if (i > 0 && f == GQ_FORMAT_YAML)
            fputs("---\n", stdout);
        rc = gq_render(db, "workload", cli_namespace(g), s->names[i], NULL, f, cli_write_stdout,
                       NULL, &err);
    }
    return rc == GQ_OK ? EXIT_SUCCESS : cli_fail(&err);
}

/* The container's command: what follows "--". */
static void set_command(gq_job_spec *spec, int nargs, char **argv)
{
    int i;

    for (i = 0; i < nargs && strcmp(argv[i], "--") != 0; i++)
        ;
    if (i < nargs - 1) {
        spec->command = (const char *const *)&argv[i + 1];
        spec->ncommand = (size_t)(nargs - i - 1);
    }
}

static int submit_flags(
    gq_db *db, const struct global *g, gq_job_spec *spec, struct submitted *s, gq_error *err)
{
    char *name = NULL;
    int rc;

    spec->namespace = g->namespace;
    if ((rc = gq_job_submit(db, spec, NULL, &name, err)) != GQ_OK)
        return rc;
    add_name(s, name);
    gq_free(name);
    return GQ_OK;
}

/* --count before it is checked: the spec's 0 means "one pod", so a 0 typed is caught here. */
#define COUNT_UNSET INT_MIN

static int check_count(int count, gq_job_spec *spec)
{
    gq_error err = {GQ_EINVALID, ""};

    if (count == COUNT_UNSET)
        return EXIT_SUCCESS;
    if (count < 1) {
        snprintf(err.msg, sizeof(err.msg),
                 "--count: invalid value \"%d\": must be greater than or equal to 1", count);
        return cli_fail(&err);
    }
    spec->count = count;
    return EXIT_SUCCESS;
}

int cmd_submit(struct global *g, int argc, char **argv)
{
    static int count = COUNT_UNSET;
    static struct strlist files;
    static gq_job_spec spec = GQ_JOB_SPEC_INIT;
    static const struct flag flags[] = {
        {"filename", 'f', FLAG_LIST, &files, "PATH", "Job or Workload manifests"},
        {"queue", 'q', FLAG_STRING, &spec.queue, "QUEUE", "LocalQueue to submit to"},
        {"name", 0, FLAG_STRING, &spec.name, "NAME", "job name (default: generated)"},
        {"gpus", 0, FLAG_STRING, &spec.gpus, "N", "GPUs per pod"},
        {"gpu-resource", 0, FLAG_STRING, &spec.gpu_resource, "NAME",
         "GPU resource name (default nvidia.com/gpu)"},
        {"cpu", 0, FLAG_STRING, &spec.cpu, "Q", "CPU per pod, e.g. 500m"},
        {"memory", 0, FLAG_STRING, &spec.memory, "Q", "memory per pod, e.g. 4Gi"},
        {"count", 0, FLAG_INT, &count, "K", "pods (parallelism and completions)"},
        {"priority-class", 0, FLAG_STRING, &spec.priority_class, "P", "WorkloadPriorityClass"},
        {"image", 0, FLAG_STRING, &spec.image, "IMAGE", "container image (default busybox)"},
        {"duration", 0, FLAG_STRING, &spec.duration, "D",
         "how long it runs once started, e.g. 45m or 1h30m (default: until cancelled)"},
        {NULL, 0, FLAG_BOOL, NULL, NULL, NULL},
    };
    gq_apply_options o = GQ_APPLY_OPTIONS_INIT;
    struct submitted s = {NULL, 0, true, false, false, 0};
    gq_error err = {0, ""};
    size_t i;
    gq_db *db;
    int nargs, rc;

    if ((rc = cli_parse(g, &commands[1], flags, argc, argv, &nargs)) != EXIT_SUCCESS)
        return rc;
    if (g->help) {
        cli_help(&commands[1], flags);
        return EXIT_SUCCESS;
    }
    if ((rc = check_count(count, &spec)) != EXIT_SUCCESS)
        return rc;
    if (files.n > 0 && (spec.queue || nargs > 0))
        return cli_usage_error("-f cannot be combined with --queue or a command");
    if (files.n == 0 && !spec.queue)
        return cli_usage_error("submit needs -f FILE or --queue QUEUE");
    if (nargs > 0 && strcmp(argv[0], "--") != 0)
        return cli_usage_error("unexpected argument \"%s\" (put the command after --)", argv[0]);
    if (g->output && strcmp(g->output, "name") && strcmp(g->output, "json") &&
        strcmp(g->output, "yaml"))
        return cli_usage_error("submit prints names, json or yaml, not \"%s\"", g->output);
    set_command(&spec, nargs, argv);
    if (cli_cluster_mode(g))
        return cluster_submit(g, &files, &spec);
    s.print = !g->output || strcmp(g->output, "name") == 0;
    s.qualified = g->output && strcmp(g->output, "name") == 0;
    if (!(db = cli_open(g)))
        return EXIT_FAILURE;
    o.mode = GQ_MODE_SUBMIT;
    o.default_namespace = g->namespace;
    if (files.n > 0) {
        for (i = 0, rc = GQ_OK; i < files.n && rc == GQ_OK; i++)
            rc = gq_apply_path(db, files.v[i], &o, on_item, &s, &err);
    } else {
        rc = submit_flags(db, g, &spec, &s, &err);
    }
    if (rc == GQ_OK && files.n > 0 && s.items == 0) {
        /* As kubectl create: inputs with no object at all are an error. */
        fputs("error: no objects passed to submit\n", stderr);
        rc = GQ_EINVALID;
    } else if (rc == GQ_OK && s.failed) {
        /* The jobs are stored; only their records cannot be printed. */
        fputs("error: out of memory printing the submitted records\n", stderr);
        rc = GQ_ENOMEM;
    } else if (rc == GQ_OK && !s.print)
        rc = print_records(db, g, &s) == EXIT_SUCCESS ? GQ_OK : GQ_ERROR;
    else if (rc != GQ_OK)
        cli_fail(&err);
    for (i = 0; i < s.n; i++)
        free(s.names[i]);
    free(s.names);
    gq_db_close(db);
    return exit_status(rc);
}
