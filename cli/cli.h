/*
 * cli.h: what gpuq's command files share: the global options, the flag
 * parser, the command table entry, and error reporting with kubectl's exit
 * statuses (cli/exit.h). gpuq uses libgpuqueue only through <gpuqueue.h>.
 */
#ifndef GQ_CLI_H
#define GQ_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <gpuqueue.h>
#include <gpuqueue/tool.h>

#include "exit.h"

/* Options every command accepts. */
struct global {
    const char *db_path;    /* --db, else GPUQ_DB, else the XDG default */
    const char *kubeconfig; /* --kubeconfig: cluster mode, this file only */
    const char *context;    /* --context: cluster mode, this kubeconfig context */
    const char *cluster;    /* --cluster: the simulated cluster NAME beside the database */
    const char *namespace;  /* -n; NULL means "default" (or all with -A); cluster mode: the
                               context's namespace */
    bool all_namespaces;    /* -A */
    const char *output;     /* -o table|wide|json|yaml|name */
    const char *color;      /* --color auto|always|never */
    bool no_headers;        /* --no-headers */
    bool help;              /* -h, --help */
    bool reads_only;        /* the command only reads: it never creates the database (main.c) */
};

enum flag_type { FLAG_BOOL, FLAG_STRING, FLAG_INT, FLAG_LIST };

/* One flag of a command. FLAG_LIST collects repeated values into a NULL-ended array. */
struct flag {
    const char *name;  /* long name without "--" */
    char shortname;    /* 0 if none */
    enum flag_type type;
    void *value;       /* bool *, const char **, int *, or struct strlist * */
    const char *arg;   /* argument name for help, e.g. "FILE" */
    const char *help;
};

struct strlist {
    const char **v;
    size_t n;
};

struct command {
    const char *name;
    const char *alias; /* may be NULL */
    int (*run)(struct global *g, int argc, char **argv);
    const char *usage; /* "gpuq list [RESOURCE] [flags]" */
    const char *summary;
    const char *local_only; /* why it is refused in cluster mode; NULL: it works there */
};

/*
 * Parse argv (after the command name) against the command's flags and the
 * global ones, kubectl style: flags anywhere, --flag=value or --flag value,
 * -o json or -ojson, "--" ends the flags. Positional arguments are moved to
 * the front of argv; *nargs gets their count. On a usage error prints
 * "error: ..." and returns EXIT_USAGE; so it does for a command whose entry
 * says local_only in cluster mode. Else EXIT_SUCCESS.
 */
int cli_parse(struct global *g, const struct command *cmd, const struct flag *flags, int argc,
              char **argv, int *nargs);

/*
 * Print the command's --help text (usage, summary, flags) to stdout; while
 * cli_flags runs the command, hand its table over instead.
 */
void cli_help(const struct command *cmd, const struct flag *flags);

/* One flag's line of --help ("  -o, --output FORMAT   output format..."). */
void cli_print_flag(FILE *out, const struct flag *f);

/* The global flags every command accepts, as --help lists them; ends with a NULL name. */
const struct flag *cli_global_flags(void);

typedef void (*cli_flags_fn)(const struct command *cmd, const struct flag *flags, void *payload);

/*
 * The flag table of a command, the one its --help prints: the command is run
 * with --help and fn is called with its table instead of the text. The
 * completion and the manual pages read the tables this way, never a copy.
 * So every command's first act is cli_parse, and with -h it does nothing but
 * cli_help (as all do). Returns 0, or -1 when the command printed no help
 * through cli_help (the build's gpuq __man then fails, naming the page).
 */
int cli_flags(const struct command *cmd, cli_flags_fn fn, void *payload);

/*
 * Open the database the global options name (read-write even to list: a WAL
 * reader needs the -shm file); prints the error and returns NULL on failure.
 */
gq_db *cli_open(const struct global *g);

/* Print "error: MSG" for a library error and return its exit status. */
int cli_fail(const gq_error *err);

/* Print "error: ..." (printf format) and return EXIT_USAGE. */
int cli_unknown_resource(const char *word);
/* kubectl's TYPE/NAME as TYPE NAME: argv[0] split in two when it is the one argument. */
void cli_type_name(int *nargs, char **argv);
int cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The namespace a command acts in: -n, or "default". */
const char *cli_namespace(const struct global *g);

/* ------------------------------------------------------------ cluster mode */

/*
 * Whether the API server is the truth rather than a database (cli/cluster.c):
 * --kubeconfig or --context given, or KUBECONFIG set with neither --db nor
 * GPUQ_DB, so that a database chosen on purpose is never left by accident.
 */
bool cli_cluster_mode(const struct global *g);

/* The API server the global options name; -n only when given (else the context's). */
void cli_target(const struct global *g, gq_kube_target *t);

/*
 * The workloads `gpuq list` shows in cluster mode, as JSON text (free with
 * gq_free): gpuqd's status API through the API server's service proxy, or,
 * when that cannot be reached, the labelled Jobs themselves (*jobs_out set,
 * and a note on stderr). *ns_out gets the namespace listed (gq_free).
 * Prints the error and returns its exit status on failure.
 */
int cluster_workloads(const struct global *g, char **json_out, bool *jobs_out, char **ns_out);

/* submit, cancel and describe in cluster mode; each returns an exit status. */
int cluster_submit(const struct global *g, const struct strlist *files, gq_job_spec *spec);
int cluster_cancel(const struct global *g, int nargs, char **argv);
int cluster_describe(const struct global *g, const char *resource, const char *name);

/* "error: path "P": no such file or directory" for errno, as local mode words it. */
void cli_path_error(const char *path);

/* The whole of a file, or of standard input for "-", NUL-terminated (free it); NULL after saying why. */
char *cli_read_file(const char *path, size_t *len);

/* Write buf to stdout (a gq_write_fn). */
int cli_write_stdout(const char *buf, size_t len, void *payload);

int cmd_apply(struct global *g, int argc, char **argv);
/*
 * kubectl's name of a resource, as its apply, create and delete print it:
 * "localqueue.kueue.x-k8s.io", "job.batch", "namespace" (the core group);
 * in buf when it is made there.
 */
const char *cli_resource_qualified(const char *resource, char *buf, size_t size);
/* Apply, create or delete (mode) every object of each -f input in turn; an exit status. */
int cli_apply_files(struct global *g, const struct strlist *files, gq_apply_mode mode,
                    bool strict, bool dry_run);
int cmd_create(struct global *g, int argc, char **argv);
int cmd_delete(struct global *g, int argc, char **argv);
int cmd_submit(struct global *g, int argc, char **argv);
int cmd_list(struct global *g, int argc, char **argv);
int cmd_describe(struct global *g, int argc, char **argv);
int cmd_cancel(struct global *g, int argc, char **argv);
int cmd_schedule(struct global *g, int argc, char **argv);
int cmd_run(struct global *g, int argc, char **argv);
int cmd_stop(struct global *g, int argc, char **argv);
int cmd_report(struct global *g, int argc, char **argv);
int cmd_simulate(struct global *g, int argc, char **argv);
int cmd_resume(struct global *g, int argc, char **argv);
int cmd_version(struct global *g, int argc, char **argv);
int cmd_help(struct global *g, int argc, char **argv);
int cmd_completion(struct global *g, int argc, char **argv);

/*
 * gpuq's hidden commands (cmd_completion.c), never listed: `__complete
 * WORD... CURRENT` prints the candidates for the last word the way cobra's
 * __complete does, for the shell scripts `gpuq completion` prints; `__man
 * [COMMAND]` prints a manual page in roff, gpuq(1) or gpuq-COMMAND(1), for the
 * build. Each returns an exit status.
 */
int cli_complete(int argc, char **argv);
int cli_man(int argc, char **argv);

extern const struct command commands[];

/* The command table entry of a command (or alias); NULL if unknown. */
const struct command *cli_command(const char *name);

#endif
