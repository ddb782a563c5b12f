/*
 * main.c: gpuq's entry point: the command table, global flag parsing, help,
 * and the handful of helpers every command uses. Start-up does nothing a
 * command does not need: the database is opened by the command, after its
 * flags are known to be valid, and only then.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

const struct command commands[] = {
    {"apply", NULL, cmd_apply, "gpuq apply -f FILE|DIR|- [flags]",
     "Create or update queues, flavors and jobs from manifests",
     "gpuq apply works on the local database; use kubectl apply in cluster mode"},
    {"submit", NULL, cmd_submit,
     "gpuq submit -f FILE|DIR|- | --queue QUEUE [flags] [-- COMMAND [ARG...]]",
     "Submit jobs to a queue (always suspended until admitted)", NULL},
    {"list", "get", cmd_list,
     "gpuq list [workloads|clusterqueues|localqueues|flavors|cohorts|...] [flags]\n"
     "       gpuq list provisioningrequests|podtemplates [NAME] [flags]\n"
     "       gpuq list pods --for workload/NAME|job/NAME [flags]  (cluster mode)",
     "List workloads or queue objects", NULL},
    {"describe", NULL, cmd_describe, "gpuq describe RESOURCE NAME [flags]",
     "Show one object in detail, with its events", NULL},
    {"cancel", NULL, cmd_cancel, "gpuq cancel NAME... [flags]",
     "Cancel pending or admitted workloads (by workload or job name)", NULL},
    {"delete", NULL, cmd_delete, "gpuq delete RESOURCE NAME... | -f FILE|DIR|- [flags]",
     "Delete objects by name or by the manifests that created them",
     "gpuq delete works on the local database; use gpuq cancel for jobs, kubectl delete for "
     "queue objects in cluster mode"},
    {"schedule", NULL, cmd_schedule, "gpuq schedule [--cycles N | --until-stable] [flags]",
     "Run admission cycles: reserve quota, preempt, and say why the rest waits",
     "gpuq schedule works on the local database; in cluster mode gpuqd admits"},
    {"run", NULL, cmd_run,
     "gpuq run [--speed X|max] [--for DURATION] [--seed N] [--forever] [--summary] [flags]",
     "Run the simulated cluster on the local database: admission, provisioning, jobs",
     "gpuq run simulates on the local database; in cluster mode gpuqd admits"},
    {"simulate", NULL, cmd_simulate,
     "gpuq simulate --profile NAME|FILE | --trace FILE [-f MANIFESTS] [--compare MANIFESTS] "
     "[--seed N] [--db PATH] [-o table|json] [--no-report] [flags]",
     "Replay a day or a trace on the simulated cluster in virtual time, then report",
     "gpuq simulate runs on a scratch or --db database, never a cluster"},
    {"report", NULL, cmd_report,
     "gpuq report [--since T] [--until T] [--under LIST] [--bins D] [-o json|csv|tsv] "
     "[--table NAME] [--html FILE] [flags]",
     "Waits, GPU cost and provisioning from the records, as tables, files or a page", NULL},
    {"stop", NULL, cmd_stop,
     "gpuq stop clusterqueue|localqueue NAME [--keep-already-running] [flags]\n"
     "       gpuq stop workload NAME [flags]",
     "Stop admitting to a queue (and evict what it runs, unless kept), or deactivate a workload",
     "gpuq stop works on the local database; use kubectl patch in cluster mode"},
    {"resume", NULL, cmd_resume, "gpuq resume clusterqueue|localqueue|workload NAME [flags]",
     "Resume a stopped queue, or a workload stopped or rejected by an admission check",
     "gpuq resume works on the local database; use kubectl patch in cluster mode"},
    {"create", NULL, cmd_create,
     "gpuq create clusterqueue NAME [--cohort COHORT] [--queuing-strategy STRATEGY]\n"
     "         [--namespace-selector K=V,...] [--reclaim-within-cohort POLICY]\n"
     "         [--preemption-within-cluster-queue POLICY]\n"
     "         [--nominal-quota|--borrowing-limit|--lending-limit FLAVOR:RES=QTY;RES=QTY,...]\n"
     "       gpuq create localqueue NAME -c CLUSTERQUEUE [-i]\n"
     "       gpuq create resourceflavor NAME [--node-labels K=V,...]\n"
     "         [--node-taints KEY[=VALUE]:EFFECT,...] [--tolerations KEY[=VALUE][:EFFECT],...]\n"
     "       (each: [--dry-run] [-o json|yaml|name] [flags])",
     "Create a ClusterQueue, LocalQueue or ResourceFlavor from flags, as kueuectl create does",
     "gpuq create works on the local database; use kubectl kueue create in cluster mode"},
    {"completion", NULL, cmd_completion, "gpuq completion bash|zsh|fish",
     "Print the shell completion script for bash, zsh or fish", NULL},
    {"version", NULL, cmd_version, "gpuq version", "Print the version", NULL},
    {"help", NULL, cmd_help, "gpuq help [COMMAND]", "Show help for gpuq or a command", NULL},
    {NULL, NULL, NULL, NULL, NULL, NULL},
};

const struct command *cli_command(const char *name)
{
    const struct command *c;

    for (c = commands; c->name; c++)
        if (strcmp(c->name, name) == 0 || (c->alias && strcmp(c->alias, name) == 0))
            return c;
    return NULL;
}

static void usage_all(FILE *out)
{
    const struct flag *f;
    const struct command *c;

    fputs("gpuq: queued-provisioning admission for GPU batch work\n\n"
          "Usage: gpuq COMMAND [flags]\n\nCommands:\n",
          out);
    for (c = commands; c->name; c++) {
        fprintf(out, "  %-11s %s\n", c->name, c->summary);
        if (c->alias) /* kubectl users type get */
            fprintf(out, "  %-11s The same as %s: one resource by NAME or TYPE/NAME, or all\n",
                    c->alias, c->name);
    }
    fputs("\nGlobal flags:\n", out);
    for (f = cli_global_flags(); f->name; f++)
        cli_print_flag(out, f);
    fputs("\nCluster mode (the API server is the truth, gpuqd admits): --kubeconfig or\n"
          "--context, or $KUBECONFIG set with neither --db nor $GPUQ_DB. There submit,\n"
          "cancel, list and describe act on Jobs with your own credentials.\n\n"
          "Exit status: 0 success, 1 failure, 2 usage error.\n"
          "Run 'gpuq help COMMAND' for a command's flags.\n",
          out);
}

int cmd_help(struct global *g, int argc, char **argv)
{
    static const struct flag flags[] = {{NULL, 0, FLAG_BOOL, NULL, NULL, NULL}};
    const struct command *c;
    static char help_flag[] = "--help";
    char *help_argv[] = {help_flag, NULL};
    int nargs, rc;

    if ((rc = cli_parse(g, cli_command("help"), flags, argc, argv, &nargs)) != EXIT_SUCCESS)
        return rc;
    if (g->help && nargs == 0) {
        cli_help(cli_command("help"), flags);
        return EXIT_SUCCESS;
    }
    if (nargs == 0) {
        usage_all(stdout);
        return EXIT_SUCCESS;
    }
    if (!(c = cli_command(argv[0])))
        return cli_usage_error("unknown command \"%s\" for \"gpuq\"", argv[0]);
    return c->run(g, 1, help_argv);
}

int cmd_version(struct global *g, int argc, char **argv)
{
    static const struct flag flags[] = {{NULL, 0, FLAG_BOOL, NULL, NULL, NULL}};
    int nargs, rc;

    if ((rc = cli_parse(g, cli_command("version"), flags, argc, argv, &nargs)) != EXIT_SUCCESS)
        return rc;
    if (g->help) {
        cli_help(cli_command("version"), flags);
        return EXIT_SUCCESS;
    }
    printf("gpuq version %s (libgpuqueue %s)\n", GQ_VERSION, gq_version());
    return EXIT_SUCCESS;
}

/*
 * Index of the command word, past global flags that may come first
 * ("gpuq --db x -n ns list"), or argc if there is none. Flags that take a
 * value in the next word are skipped with it.
 */
static int command_index(int argc, char **argv)
{
    static const char *const with_value[] = {"--db",     "--kubeconfig", "--context",
                                             "--cluster", "-n",          "--namespace",
                                             "-o",       "--output",     "--color",
                                             NULL};
    int i, k;

    for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1] != '\0'; i++) {
        if (strcmp(argv[i], "--") == 0)
            return argc;
        for (k = 0; with_value[k]; k++)
            if (strcmp(argv[i], with_value[k]) == 0)
                break;
        if (with_value[k])
            i++;
    }
    return i;
}

int main(int argc, char **argv)
{
    static char stdout_buf[1 << 16];
    struct global g;
    const struct command *c;
    int ci, rc;

    setvbuf(stdout, stdout_buf, _IOFBF, sizeof(stdout_buf));
    memset(&g, 0, sizeof(g));
    ci = command_index(argc, argv);
    if (ci >= argc) {
        for (ci = 1; ci < argc; ci++)
            if (strcmp(argv[ci], "-h") == 0 || strcmp(argv[ci], "--help") == 0) {
                usage_all(stdout);
                return EXIT_SUCCESS;
            } else if (strcmp(argv[ci], "--version") == 0) {
                return cmd_version(&g, 0, argv + argc);
            }
        usage_all(stderr);
        return EXIT_USAGE;
    }
    /* The hidden commands the completion scripts and the build run: first, alone. */
    if (ci == 1 && strcmp(argv[1], "__complete") == 0)
        return cli_complete(argc - 2, argv + 2);
    if (ci == 1 && strcmp(argv[1], "__man") == 0)
        return cli_man(argc - 2, argv + 2);
    if (!(c = cli_command(argv[ci]))) {
        const char *names[2 * sizeof(commands) / sizeof(commands[0]) + 1], *near;
        size_t n = 0;

        for (c = commands; c->name; c++) {
            names[n++] = c->name;
            if (c->alias)
                names[n++] = c->alias;
        }
        names[n] = NULL;
        fprintf(stderr, "error: unknown command \"%s\" for \"gpuq\"\n", argv[ci]);
        /* cobra's suggestion, as kubectl prints it */
        if ((near = gq_suggest(argv[ci], names)) != NULL)
            fprintf(stderr, "\nDid you mean this?\n\t%s\n\n", near);
        fputs("Run 'gpuq --help' for usage.\n", stderr);
        return EXIT_USAGE;
    }
    /*
     * Commands that only read never create a database: a mistyped --db is an
     * error naming it, not a new empty file (cli_open).
     */
    g.reads_only = c->run == cmd_list || c->run == cmd_describe || c->run == cmd_report;
    /* The command sees the global flags that came before it, then its own words. */
    memmove(argv + 2, argv + 1, (size_t)(ci - 1) * sizeof(*argv));
    rc = c->run(&g, argc - 2, argv + 2);
    if (fflush(stdout) != 0 && rc == EXIT_SUCCESS) {
        perror("error: writing output");
        rc = EXIT_FAILURE;
    }
    return rc;
}
