/*
 * cmd_cancel.c: `gpuq cancel NAME...` (workload or job names, bare or in
 * kubectl's TYPE NAME and TYPE/NAME forms) and
 * `gpuq describe RESOURCE NAME`; in cluster mode both act on Jobs
 * (cluster.c).
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* Whether word names what cancel acts on: a workload, or the job it was made for. */
static bool cancel_type(const char *word, size_t n)
{
    static const char *const types[] = {"workload", "workloads", "wl",  "workload.kueue.x-k8s.io",
                                        "job",      "jobs",      "job.batch", NULL};

    for (size_t i = 0; types[i]; i++)
        if (strlen(types[i]) == n && strncmp(types[i], word, n) == 0)
            return true;
    return false;
}

/*
 * kubectl's forms, to the names cancel takes: "workload NAME...", "job
 * NAME...", "workload/NAME job/NAME ...", or bare names (a workload's or
 * its job's). argv is rewritten in place.
 */
static int cancel_names(int *nargs, char **argv)
{
    int i, k = 0;

    if (*nargs > 1 && !strchr(argv[0], '/') && cancel_type(argv[0], strlen(argv[0]))) {
        for (i = 1; i < *nargs; i++)
            argv[k++] = argv[i];
        *nargs = k;
        return EXIT_SUCCESS;
    }
    for (i = 0; i < *nargs; i++) {
        char *slash = strchr(argv[i], '/');

        if (!slash)
            continue;
        if (!cancel_type(argv[i], (size_t)(slash - argv[i])) || !slash[1])
            return cli_usage_error("cancel takes workload/NAME or job/NAME, not \"%s\"",
                                   argv[i]);
        argv[i] = slash + 1;
    }
    return EXIT_SUCCESS;
}

int cmd_cancel(struct global *g, int argc, char **argv)
{
    static const struct flag flags[] = {{NULL, 0, FLAG_BOOL, NULL, NULL, NULL}};
    gq_error err = {0, ""};
    char *name;
    gq_db *db;
    int i, nargs, rc, status = EXIT_SUCCESS;

    if ((rc = cli_parse(g, &commands[4], flags, argc, argv, &nargs)) != EXIT_SUCCESS)
        return rc;
    if (g->help) {
        cli_help(&commands[4], flags);
        return EXIT_SUCCESS;
    }
    if (nargs == 0)
        return cli_usage_error("cancel needs at least one workload or job name");
    if ((rc = cancel_names(&nargs, argv)) != EXIT_SUCCESS)
        return rc;
    if (cli_cluster_mode(g))
        return cluster_cancel(g, nargs, argv);
    if (!(db = cli_open(g)))
        return EXIT_FAILURE;
    for (i = 0; i < nargs; i++) {
        if (gq_workload_cancel(db, cli_namespace(g), argv[i], &name, &err) == GQ_OK) {
            printf("workload/%s cancelled\n", name);
            gq_free(name);
        } else {
            status = cli_fail(&err);
        }
    }
    gq_db_close(db);
    return status;
}

int cmd_describe(struct global *g, int argc, char **argv)
{
    static const struct flag flags[] = {{NULL, 0, FLAG_BOOL, NULL, NULL, NULL}};
    gq_error err = {0, ""};
    const char *resource;
    char *text = NULL;
    gq_db *db;
    int nargs, rc;

    if ((rc = cli_parse(g, &commands[3], flags, argc, argv, &nargs)) != EXIT_SUCCESS)
        return rc;
    if (g->help) {
        cli_help(&commands[3], flags);
        return EXIT_SUCCESS;
    }
    cli_type_name(&nargs, argv);
    if (nargs != 2)
        return cli_usage_error("describe needs RESOURCE NAME (or RESOURCE/NAME)");
    /* Not silently ignored: describe prints text, as kubectl's does. */
    if (g->output)
        return cli_usage_error("describe does not take -o %s: use \"gpuq get %s %s -o %s\"",
                               g->output, argv[0], argv[1], g->output);
    if (!(resource = gq_resource_name(argv[0])))
        return cli_unknown_resource(argv[0]);
    if (cli_cluster_mode(g))
        return cluster_describe(g, resource, argv[1]);
    if (!(db = cli_open(g)))
        return EXIT_FAILURE;
    rc = gq_describe(db, resource, cli_namespace(g), argv[1], &text, &err);
    if (rc == GQ_OK)
        fputs(text, stdout);
    gq_free(text);
    gq_db_close(db);
    return rc == GQ_OK ? EXIT_SUCCESS : cli_fail(&err);
}
