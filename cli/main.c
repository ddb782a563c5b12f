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
     "Create or update queues, flavors and jobs from manifests"},
    {"submit", NULL, cmd_submit,
     "gpuq submit -f FILE|DIR|- | --queue QUEUE [flags] [-- COMMAND [ARG...]]",
     "Submit jobs to a queue (always suspended until admitted)"},
    {"list", "get", cmd_list,
     "gpuq list [workloads|clusterqueues|localqueues|flavors|cohorts|...] [flags]",
     "List workloads or queue objects"},
    {"describe", NULL, cmd_describe, "gpuq describe RESOURCE NAME [flags]",
     "Show one object in detail, with its events"},
    {"cancel", NULL, cmd_cancel, "gpuq cancel NAME... [flags]",
     "Cancel pending or admitted workloads (by workload or job name)"},
    {"delete", NULL, cmd_delete, "gpuq delete RESOURCE NAME... | -f FILE|DIR|- [flags]",
     "Delete objects by name or by the manifests that created them"},
    {"version", NULL, cmd_version, "gpuq version", "Print the version"},
    {"help", NULL, cmd_help, "gpuq help [COMMAND]", "Show help for gpuq or a command"},
    {NULL, NULL, NULL, NULL, NULL},
};

static const struct command *find_command(const char *name)
{
    const struct command *c;

    for (c = commands; c->name; c++)
        if (strcmp(c->name, name) == 0 || (c->alias && strcmp(c->alias, name) == 0))
            return c;
    return NULL;
}

static void usage_all(FILE *out)
{
    const struct command *c;

    fputs("gpuq: queued-provisioning admission for GPU batch work\n\n"
          "Usage: gpuq COMMAND [flags]\n\nCommands:\n",
          out);
    for (c = commands; c->name; c++)
        fprintf(out, "  %-10s %s\n", c->name, c->summary);
    fputs("\nGlobal flags:\n"
          "      --db PATH        database file (default: $GPUQ_DB, else "
          "$XDG_STATE_HOME/gpuq/gpuq.db)\n"
          "  -n, --namespace NS   namespace (default \"default\")\n"
          "  -A, --all-namespaces all namespaces\n"
          "  -o, --output FORMAT  table|wide|json|yaml|name\n"
          "      --color WHEN     auto|always|never (NO_COLOR is honoured)\n"
          "  -h, --help           help for a command\n\n"
          "Exit status: 0 success, 1 failure, 2 usage error.\n"
          "Run 'gpuq help COMMAND' for a command's flags.\n",
          out);
}

int cmd_help(struct global *g, int argc, char **argv)
{
    static const struct command self = {"help", NULL, cmd_help, "gpuq help [COMMAND]", ""};
    static const struct flag flags[] = {{NULL, 0, FLAG_BOOL, NULL, NULL, NULL}};
    const struct command *c;
    static char help_flag[] = "--help";
    char *help_argv[] = {help_flag, NULL};
    int nargs, rc;

    if ((rc = cli_parse(g, &self, flags, argc, argv, &nargs)) != EXIT_SUCCESS)
        return rc;
    if (nargs == 0) {
        usage_all(stdout);
        return EXIT_SUCCESS;
    }
    if (!(c = find_command(argv[0])))
        return cli_usage_error("unknown command \"%s\" for \"gpuq\"", argv[0]);
    return c->run(g, 1, help_argv);
}

int cmd_version(struct global *g, int argc, char **argv)
{
    static const struct flag flags[] = {{NULL, 0, FLAG_BOOL, NULL, NULL, NULL}};
    int nargs, rc;

    if ((rc = cli_parse(g, &commands[6], flags, argc, argv, &nargs)) != EXIT_SUCCESS)
        return rc;
    if (g->help) {
        cli_help(&commands[6], flags);
        return EXIT_SUCCESS;
    }
    printf("gpuq version %s (libgpuqueue %s)\n", GQ_VERSION, gq_version());
    return EXIT_SUCCESS;
}

int main(int argc, char **argv)
{
    static char stdout_buf[1 << 16];
    struct global g;
    const struct command *c;
    int rc;

    setvbuf(stdout, stdout_buf, _IOFBF, sizeof(stdout_buf));
    memset(&g, 0, sizeof(g));
    if (argc < 2) {
        usage_all(stderr);
        return EXIT_USAGE;
    }
    if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
        usage_all(stdout);
        return EXIT_SUCCESS;
    }
    if (strcmp(argv[1], "--version") == 0)
        return cmd_version(&g, 0, argv + 2);
    if (!(c = find_command(argv[1]))) {
        fprintf(stderr, "error: unknown command \"%s\" for \"gpuq\"\n"
                        "Run 'gpuq --help' for usage.\n", argv[1]);
        return EXIT_USAGE;
    }
    rc = c->run(&g, argc - 2, argv + 2);
    if (fflush(stdout) != 0 && rc == EXIT_SUCCESS) {
        perror("error: writing output");
        rc = EXIT_FAILURE;
    }
    return rc;
}
