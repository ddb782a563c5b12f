/*
 * common.c: the flag parser and the helpers every gpuq command shares.
 *
 * Flags follow kubectl's habits: they may come before or after positional
 * arguments, long flags take "--name=value" or "--name value", short ones
 * "-o json" or "-ojson", and "--" ends flag parsing (submit passes what
 * follows to the container). Global flags are accepted by every command.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

static const char *const output_formats[] = {"table", "wide", "json", "yaml", "name", NULL};

int exit_status(int code)
{
    return code == GQ_OK ? EXIT_SUCCESS : EXIT_FAILURE;
}

int cli_usage_error(const char *fmt, ...)
{
    va_list ap;

    fputs("error: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return EXIT_USAGE;
}

int cli_fail(const gq_error *err)
{
    fprintf(stderr, "error: %s\n", err->msg[0] ? err->msg : gq_strerror(err->code));
    return EXIT_FAILURE;
}

const char *cli_namespace(const struct global *g)
{
    return g->namespace ? g->namespace : "default";
}

int cli_write_stdout(const char *buf, size_t len, void *payload)
{
    (void)payload;
    return fwrite(buf, 1, len, stdout) == len ? 0 : -1;
}

/*
 * How a command that only reads opens path (struct global's reads_only): it
 * never creates the file (a mistyped --db is an error naming it, not a new
 * empty database), and opens it read-only when it may not write there (a
 * copy without write permission, a read-only directory), where a read-write
 * open fails with "attempt to write a readonly database". 0, or -1 with the
 * error printed.
 */
static int read_mode(const char *path, gq_open_options *o)
{
    char dir[4096];
    const char *slash = strrchr(path, '/');
    struct stat sb;

    if (!path[0] || strcmp(path, ":memory:") == 0 || strncmp(path, "file:", 5) == 0)
        return 0; /* the library's checks say what is wrong with these */
    if (stat(path, &sb) != 0) {
        if (errno == ENOENT)
            fprintf(stderr, "error: database %s does not exist\n", path);
        else
            fprintf(stderr, "error: database %s: %s\n", path, strerror(errno));
        return -1;
    }
    if (S_ISREG(sb.st_mode) && sb.st_size == 0) {
        fprintf(stderr, "error: database %s is empty: no gpuq command has written it\n", path);
        return -1;
    }
    snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) + (slash == path) : 1,
             slash ? path : ".");
    o->readonly = access(path, W_OK) != 0 || access(dir, W_OK) != 0;
    return 0;
}

/*
 * --cluster NAME: the simulated cluster's database beside path (freed), its
 * directory made when a command writes; a command that only reads refuses
 * one that does not exist. NULL once the error is printed.
 */
static char *cluster_path(const struct global *g, char *path)
{
    gq_error err = {0, ""};
    char *cpath = NULL, *slash;
    int rc = gq_db_cluster_path(&cpath, path, g->cluster, &err);

    gq_free(path);
    if (rc != GQ_OK) {
        cli_fail(&err);
        return NULL;
    }
    if (g->reads_only && access(cpath, F_OK) != 0) {
        fprintf(stderr, "error: no simulated cluster \"%s\" (%s): gpuq --cluster %s apply -f "
                "FILE makes one\n", g->cluster, cpath, g->cluster);
        gq_free(cpath);
        return NULL;
    }
    slash = strrchr(cpath, '/');
    *slash = '\0';
    if (mkdir(cpath, 0700) != 0 && errno != EEXIST) {
        fprintf(stderr, "error: cannot create directory %s: %s\n", cpath, strerror(errno));
        gq_free(cpath);
        return NULL;
    }
    *slash = '/';
    return cpath;
}

gq_db *cli_open(const struct global *g)
{
    gq_open_options o = GQ_OPEN_OPTIONS_INIT;
    gq_error err = {0, ""};
    char *path = NULL;
    gq_db *db = NULL;
    int rc;

    if (g->db_path)
        path = strdup(g->db_path);
    else if (gq_db_default_path(&path, &err) != GQ_OK) {
        cli_fail(&err);
        return NULL;
    }
    if (!path) {
        fputs("error: out of memory\n", stderr);
        return NULL;
    }
    if (g->cluster && !(path = cluster_path(g, path)))
        return NULL;
    if (g->reads_only && !g->db_path && !g->cluster && access(path, F_OK) != 0 &&
        errno == ENOENT) {
        /* Nothing written yet at the default place: read an empty database, as
         * kubectl lists an empty cluster, and create no file. */
        gq_free(path);
        path = strdup(":memory:");
    } else if (g->reads_only && read_mode(path, &o) != 0) {
        gq_free(path);
        return NULL;
    }
    if (!path) {
        fputs("error: out of memory\n", stderr);
        return NULL;
    }
    rc = gq_db_open(&db, path, &o, &err);
    gq_free(path);
    if (rc != GQ_OK) {
        cli_fail(&err);
        return NULL;
    }
    return db;
}

/* "error: path "P": no such file or directory", as local mode words it. */
void cli_path_error(const char *path)
{
    char why[128];

    snprintf(why, sizeof(why), "%s", strerror(errno));
    if (why[0] >= 'A' && why[0] <= 'Z')
        why[0] = (char)(why[0] - 'A' + 'a');
    fprintf(stderr, "error: path \"%s\": %s\n", path, why);
}

/* The whole of a file, or of standard input for "-" (free it). NULL after printing why. */
char *cli_read_file(const char *path, size_t *len)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    char *buf = NULL;
    size_t cap = 0, n;

    *len = 0;
    if (!f) {
        cli_path_error(path);
        return NULL;
    }
    do {
        if (*len + 4096 > cap) {
            char *grown = realloc(buf, cap = cap ? cap * 2 : 8192);

            if (!grown) {
                fputs("error: out of memory\n", stderr);
                free(buf);
                buf = NULL;
                break;
            }
            buf = grown;
        }
        n = fread(buf + *len, 1, cap - *len - 1, f);
        *len += n;
    } while (n > 0);
    if (buf && ferror(f)) {
        cli_path_error(path);
        free(buf);
        buf = NULL;
    }
    if (f != stdin)
        fclose(f);
    if (buf)
        buf[*len] = '\0';
    return buf;
}

/* ------------------------------------------------------------------ flags */

/* The one list of the global flags: parsing, every --help, completion and gpuq(1). */
static const struct flag global_flags[] = {
    {"db", 0, FLAG_STRING, NULL, "PATH",
     "database file (default: $GPUQ_DB, else $XDG_STATE_HOME/gpuq/gpuq.db)"},
    {"kubeconfig", 0, FLAG_STRING, NULL, "FILE", "cluster mode: this kubeconfig file only"},
    {"context", 0, FLAG_STRING, NULL, "NAME", "cluster mode: this kubeconfig context"},
    {"cluster", 0, FLAG_STRING, NULL, "NAME",
     "the simulated cluster NAME beside the database (a MultiKueue worker of gpuq run)"},
    {"namespace", 'n', FLAG_STRING, NULL, "NS",
     "namespace (default \"default\"; in cluster mode the context's)"},
    {"all-namespaces", 'A', FLAG_BOOL, NULL, NULL, "all namespaces (wins over -n)"},
    {"output", 'o', FLAG_STRING, NULL, "FORMAT",
     "output format: table|wide|json|yaml|name; get also jsonpath=TEMPLATE, "
     "jsonpath-file=FILE, custom-columns=SPEC, custom-columns-file=FILE"},
    {"color", 0, FLAG_STRING, NULL, "WHEN", "auto|always|never (NO_COLOR is honoured)"},
    {"no-headers", 0, FLAG_BOOL, NULL, NULL, "omit the header line of tables"},
    {"help", 'h', FLAG_BOOL, NULL, NULL, "help for this command"},
    {NULL, 0, FLAG_BOOL, NULL, NULL, NULL},
};

const struct flag *cli_global_flags(void)
{
    return global_flags;
}

static void *global_value(struct global *g, size_t i)
{
    void *v[] = {&g->db_path, &g->kubeconfig, &g->context,    &g->cluster, &g->namespace,
                 &g->all_namespaces, &g->output, &g->color,   &g->no_headers, &g->help};

    return v[i];
}

/* Find a flag by long name (len bytes) or short letter in the command's table or the globals. */
static const struct flag *lookup(struct global *g, const struct flag *flags, const char *name,
                                 size_t len, char shortname, void **value)
{
    size_t i;

    for (i = 0; flags[i].name; i++) {
        if ((shortname && flags[i].shortname == shortname) ||
            (!shortname && strlen(flags[i].name) == len && !strncmp(flags[i].name, name, len))) {
            *value = flags[i].value;
            return &flags[i];
        }
    }
    for (i = 0; global_flags[i].name; i++) {
        if ((shortname && global_flags[i].shortname == shortname) ||
            (!shortname && strlen(global_flags[i].name) == len &&
             !strncmp(global_flags[i].name, name, len))) {
            *value = global_value(g, i);
            return &global_flags[i];
        }
    }
    return NULL;
}

static int set_value(const struct flag *f, void *value, const char *arg, const char *shown)
{
    struct strlist *list;
    const char **v;
    char *end;
    long n;

    switch (f->type) {
    case FLAG_BOOL:
        *(bool *)value = true;
        return EXIT_SUCCESS;
    case FLAG_STRING:
        *(const char **)value = arg;
        return EXIT_SUCCESS;
    case FLAG_INT:
        errno = 0;
        n = strtol(arg, &end, 10);
        if (errno || *end || end == arg || n < -2147483647L || n > 2147483647L)
            return cli_usage_error("invalid argument \"%s\" for \"%s\" flag: not an integer",
                                   arg, shown);
        *(int *)value = (int)n;
        return EXIT_SUCCESS;
    case FLAG_LIST:
        list = value;
        if (!(v = realloc(list->v, (list->n + 2) * sizeof(*v)))) {
            fputs("error: out of memory\n", stderr);
            return EXIT_FAILURE;
        }
        v[list->n++] = arg;
        v[list->n] = NULL;
        list->v = v;
        return EXIT_SUCCESS;
    }
    return EXIT_USAGE;
}

/* "unknown flag: --statu (did you mean --status?)": the command's and the global flags. */
static int unknown_flag(const struct flag *flags, const char *shown, char shortname)
{
    const char *names[64], *near = NULL;
    size_t i, n = 0;

    for (i = 0; flags[i].name && n < 32; i++)
        names[n++] = flags[i].name;
    for (i = 0; global_flags[i].name && n < 63; i++)
        names[n++] = global_flags[i].name;
    names[n] = NULL;
    if (!shortname)
        near = gq_suggest(shown + 2, names);
    if (near)
        return cli_usage_error("unknown flag: %s (did you mean --%s?)", shown, near);
    return cli_usage_error("unknown flag: %s", shown);
}

void cli_type_name(int *nargs, char **argv)
{
    char *slash;

    if (*nargs == 1 && (slash = strchr(argv[0], '/')) != NULL && slash[1] && slash != argv[0]) {
        *slash = '\0';
        argv[1] = slash + 1;
        *nargs = 2;
    }
}

/* "the server doesn't have a resource type", as kubectl says it, with the nearest word. */
int cli_unknown_resource(const char *word)
{
    const char *near = gq_resource_suggest(word);

    if (near)
        return cli_usage_error("the server doesn't have a resource type \"%s\" (did you mean "
                               "\"%s\"?)", word, near);
    return cli_usage_error("the server doesn't have a resource type \"%s\"", word);
}

/* Handle argv[*i], a flag; may consume argv[*i + 1] as its value. */
static int parse_flag(struct global *g, const struct flag *flags, int argc, char **argv, int *i)
{
    const char *a = argv[*i], *name, *eq, *arg = NULL;
    const struct flag *f;
    char shortname = 0, shown[64];
    void *value = NULL;
    size_t len;

    if (a[1] == '-') {
        name = a + 2;
        eq = strchr(name, '=');
        len = eq ? (size_t)(eq - name) : strlen(name);
        arg = eq ? eq + 1 : NULL;
    } else {
        name = a + 1;
        shortname = a[1];
        len = 1;
        /* "-ojson" and, as pflag takes it, "-o=json" */
        arg = a[2] == '=' ? a + 3 : a[2] ? a + 2 : NULL;
    }
    snprintf(shown, sizeof(shown), "%s%.*s", shortname ? "-" : "--", (int)len, name);
    if (!(f = lookup(g, flags, name, len, shortname, &value)))
        return unknown_flag(flags, shown, shortname);
    if (f->type == FLAG_BOOL) {
        /* kubectl's --dry-run=client|server|none: gpuq's dry run changes nothing either way */
        bool dry = strcmp(f->name, "dry-run") == 0;

        if (arg && dry && (!strcmp(arg, "client") || !strcmp(arg, "server")))
            arg = NULL;
        else if (arg && dry && !strcmp(arg, "none"))
            arg = "false";
        if (arg && strcmp(arg, "true") != 0 && strcmp(arg, "false") != 0)
            return dry ? cli_usage_error("invalid argument \"%s\" for %s: want client, server "
                                         "or none",
                                         arg, shown)
                       : cli_usage_error("flag %s takes no value", shown);
        if (arg && strcmp(arg, "false") == 0)
            return EXIT_SUCCESS;
        return set_value(f, value, NULL, shown);
    }
    if (!arg) {
        if (*i + 1 >= argc)
            return cli_usage_error("flag needs an argument: %s", shown);
        arg = argv[++*i];
    }
    return set_value(f, value, arg, shown);
}

/*
 * -o FORMAT=ARG: kubectl's template printers. list prints the JSONPath and
 * custom-columns ones; Go templates need Go's text/template, which gpuq
 * does not have, and are refused by name rather than approximated.
 */
static const char *const template_formats[] = {"jsonpath",       "jsonpath-file",
                                               "custom-columns", "custom-columns-file", NULL};
static const char *const go_formats[] = {"go-template", "go-template-file", "template",
                                         "templatefile", "jsonpath-as-json", NULL};

static size_t word_index(const char *const *words, const char *s, size_t n)
{
    size_t i;

    for (i = 0; words[i]; i++)
        if (strlen(words[i]) == n && strncmp(words[i], s, n) == 0)
            return i;
    return i;
}

/* The commands that read -o (cancel and describe refuse it themselves, saying why). */
static const char *const output_commands[] = {"list",     "submit",   "create", "apply",
                                              "simulate", "cancel",   "describe", NULL};

static int check_output(const struct global *g, const struct command *cmd)
{
    const char *out = g->output;
    size_t n = strcspn(out, "=");

    if (cmd && !output_commands[word_index(output_commands, cmd->name, strlen(cmd->name))])
        return cli_usage_error("gpuq %s does not take -o %s: it prints text%s", cmd->name, out,
                               strcmp(cmd->name, "run") == 0
                                   ? " (gpuq report -o json has the run's figures)"
                                   : "");

    if (!out[n] && output_formats[word_index(output_formats, out, n)])
        return EXIT_SUCCESS;
    if (go_formats[word_index(go_formats, out, n)])
        return cli_usage_error("-o %.*s is not supported: gpuq has no Go template engine; use "
                               "-o jsonpath=TEMPLATE or -o custom-columns=SPEC",
                               (int)n, out);
    if (!template_formats[word_index(template_formats, out, n)])
        return cli_usage_error("unable to match a printer suitable for the output format "
                               "\"%s\", allowed formats are: custom-columns,"
                               "custom-columns-file,json,jsonpath,jsonpath-file,name,table,"
                               "wide,yaml",
                               out);
    if (!cmd || cmd->run != cmd_list)
        return cli_usage_error("gpuq %s does not print -o %.*s; gpuq get does",
                               cmd ? cmd->name : "help", (int)n, out);
    if (!out[n] || !out[n + 1])
        return cli_usage_error("%s format specified but no %s given", "template",
                               n >= 14 && strncmp(out, "custom-columns", 14) == 0
                                   ? "custom columns"
                                   : "template");
    return EXIT_SUCCESS;
}

static int check_globals(const struct global *g, const struct command *cmd)
{
    int rc;

    if (g->output && (rc = check_output(g, cmd)) != EXIT_SUCCESS)
        return rc;
    if (g->color && strcmp(g->color, "auto") && strcmp(g->color, "always") &&
        strcmp(g->color, "never"))
        return cli_usage_error("invalid argument \"%s\" for \"--color\" flag: "
                               "want auto, always or never",
                               g->color);
    if ((g->db_path || g->cluster) && (g->kubeconfig || g->context))
        return cli_usage_error("--%s cannot be used with --%s: a command reads either a "
                               "database or a cluster",
                               g->db_path ? "db" : "cluster",
                               g->kubeconfig ? "kubeconfig" : "context");
    return EXIT_SUCCESS;
}

int cli_parse(struct global *g, const struct command *cmd, const struct flag *flags, int argc,
              char **argv, int *nargs)
{
    int i, n = 0, rc;
    bool dashdash = false;

    for (i = 0; i < argc; i++) {
        if (dashdash || argv[i][0] != '-' || argv[i][1] == '\0') {
            argv[n++] = argv[i]; /* positional ("-" alone is one too) */
            continue;
        }
        if (strcmp(argv[i], "--") == 0) {
            dashdash = true;
            argv[n++] = argv[i]; /* kept, so commands can find what follows */
            continue;
        }
        if ((rc = parse_flag(g, flags, argc, argv, &i)) != EXIT_SUCCESS)
            return rc;
    }
    *nargs = n;
    if (g->help)
        return EXIT_SUCCESS;
    /* kubectl: -A wins over -n (the namespace is ignored) */
    if (g->namespace && g->all_namespaces)
        g->namespace = NULL;
    if ((rc = check_globals(g, cmd)) != EXIT_SUCCESS)
        return rc;
    if (cmd && cmd->local_only && cli_cluster_mode(g))
        return cli_usage_error("%s", cmd->local_only);
    return EXIT_SUCCESS;
}

void cli_print_flag(FILE *out, const struct flag *f)
{
    char left[64];

    snprintf(left, sizeof(left), "%c%c%s --%s%s%s", f->shortname ? '-' : ' ',
             f->shortname ? f->shortname : ' ', f->shortname ? "," : " ", f->name,
             f->arg ? " " : "", f->arg ? f->arg : "");
    fprintf(out, "  %-28s %s\n", left, f->help);
}

/* While cli_flags runs a command: who gets its table instead of the text being printed. */
static cli_flags_fn flags_fn;
static void *flags_payload;
static bool flags_seen;

int cli_flags(const struct command *cmd, cli_flags_fn fn, void *payload)
{
    static char help[] = "--help";
    char *argv[] = {help, NULL};
    struct global g;

    memset(&g, 0, sizeof(g));
    flags_fn = fn;
    flags_payload = payload;
    flags_seen = false;
    cmd->run(&g, 1, argv);
    flags_fn = NULL;
    return flags_seen ? 0 : -1;
}

void cli_help(const struct command *cmd, const struct flag *flags)
{
    size_t i;

    if (flags_fn) {
        flags_seen = true;
        flags_fn(cmd, flags, flags_payload);
        return;
    }
    printf("%s\n\nUsage:\n  %s\n", cmd->summary, cmd->usage);
    if (flags[0].name) {
        printf("\nFlags:\n");
        for (i = 0; flags[i].name; i++)
            cli_print_flag(stdout, &flags[i]);
    }
    printf("\nGlobal flags:\n");
    for (i = 0; global_flags[i].name; i++)
        cli_print_flag(stdout, &global_flags[i]);
}
