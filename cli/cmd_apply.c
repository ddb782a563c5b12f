/*
 * cmd_apply.c: `gpuq apply -f` and `gpuq delete`. Each -f input is applied in
 * one transaction; lines are printed only for what was committed, in the
 * kubectl form "clusterqueue/x created|configured|unchanged|deleted".
 * Documents of kinds gpuq does not model are named on stderr and skipped
 * (with --strict they are an error and nothing is written). Before an
 * object's line, stderr names each of its fields that the API does not know,
 * in kubectl's words (`Warning: unknown field "spec.x"`; with --strict an
 * error, as kubectl's --validate=strict), and each field given that gpuq
 * accepts but does not enforce. The latter stays a warning under --strict:
 * strict is about the schema, and such a field is valid Kueue.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char *const result_words[] = {"created", "configured", "unchanged", "deleted",
                                           "skipped"};

struct report {
    bool dry_run;
    bool name_only; /* -o name */
    size_t items;   /* objects seen, skipped ones included */
};

static void print_warnings(const gq_apply_item *item)
{
    size_t i;

    if (!item->nunknown_fields && !item->nnot_enforced)
        return;
    fflush(stdout); /* each warning before its object's line */
    for (i = 0; i < item->nunknown_fields; i++)
        fprintf(stderr, "Warning: unknown field \"%s\"\n", item->unknown_fields[i]);
    for (i = 0; i < item->nnot_enforced; i++)
        fprintf(stderr, "Warning: field \"%s\" is accepted but not enforced by gpuq\n",
                item->not_enforced[i]);
}

static void print_item(const gq_apply_item *item, void *payload)
{
    struct report *r = payload;
    const char *resource;
    char buf[128];

    r->items++;
    print_warnings(item);
    if (item->result == GQ_APPLY_SKIPPED) {
        fprintf(stderr, "skipped: %s\n", item->note);
        return;
    }
    resource = cli_resource_qualified(item->resource, buf, sizeof(buf));
    if (r->name_only) {
        printf("%s/%s\n", resource, item->name);
        return;
    }
    if (item->result == GQ_APPLY_DELETED) /* kubectl delete's words */
        printf("%s \"%s\" deleted", resource, item->name);
    else
        printf("%s/%s %s", resource, item->name, result_words[item->result]);
    printf("%s", r->dry_run ? " (dry run)" : "");
    if (item->note && item->result != GQ_APPLY_DELETED)
        printf(" (pending: %s)", item->note);
    putchar('\n');
}

/* Apply (create, delete) every -f input in turn; stops at the first that fails. */
int cli_apply_files(struct global *g, const struct strlist *files, gq_apply_mode mode,
                    bool strict, bool dry_run)
{
    gq_apply_options o = GQ_APPLY_OPTIONS_INIT;
    struct report r = {dry_run, g->output && strcmp(g->output, "name") == 0, 0};
    gq_error err = {0, ""};
    gq_db *db;
    size_t i;
    int rc = GQ_OK;

    if (!(db = cli_open(g)))
        return EXIT_FAILURE;
    o.mode = mode;
    o.strict = strict;
    o.dry_run = dry_run;
    o.default_namespace = g->namespace;
    for (i = 0; i < files->n && rc == GQ_OK; i++)
        rc = gq_apply_path(db, files->v[i], &o, print_item, &r, &err);
    gq_db_close(db);
    if (rc != GQ_OK)
        return cli_fail(&err);
    /* As kubectl: inputs with no object at all (an empty file, only comments) are an error. */
    if (r.items == 0) {
        fprintf(stderr, "error: no objects passed to %s\n",
                mode == GQ_MODE_DELETE ? "delete" : mode == GQ_MODE_CREATE ? "create" : "apply");
        return EXIT_FAILURE;
    }
    return EXIT_SUCCESS;
}

int cmd_apply(struct global *g, int argc, char **argv)
{
    static struct strlist files;
    static bool strict, dry_run;
    static const struct flag flags[] = {
        {"filename", 'f', FLAG_LIST, &files, "PATH", "manifest file, directory, or - for stdin"},
        {"strict", 0, FLAG_BOOL, &strict, NULL,
         "fail on kinds gpuq does not model and on unknown fields"},
        {"dry-run", 0, FLAG_BOOL, &dry_run, NULL, "validate and report, write nothing"},
        {NULL, 0, FLAG_BOOL, NULL, NULL, NULL},
    };
    int nargs, rc;

    if ((rc = cli_parse(g, &commands[0], flags, argc, argv, &nargs)) != EXIT_SUCCESS)
        return rc;
    if (g->help) {
        cli_help(&commands[0], flags);
        return EXIT_SUCCESS;
    }
    if (nargs > 0)
        return cli_usage_error("unexpected argument \"%s\": apply takes -f FILE", argv[0]);
    if (files.n == 0)
        return cli_usage_error("must specify one of -f and -k");
    return cli_apply_files(g, &files, GQ_MODE_APPLY, strict, dry_run);
}

/*
 * One word of delete: "TYPE" (names follow) or, when typed, "TYPE/NAME",
 * into its resource and name. EXIT_SUCCESS, or the usage error said.
 */
static int delete_target(const char *type_word, const char *typed, const char **resource_out,
                         const char **name_out)
{
    const char *slash = typed ? strchr(typed, '/') : NULL;
    char type[128];

    if (typed && (!slash || !slash[1] || (size_t)(slash - typed) >= sizeof(type)))
        return cli_usage_error("there is no need to specify a resource type as a separate "
                               "argument when passing arguments in resource/name form: \"%s\"",
                               typed);
    snprintf(type, sizeof(type), "%.*s", typed ? (int)(slash - typed) : (int)strlen(type_word),
             typed ? typed : type_word);
    if (!(*resource_out = gq_resource_name(type)))
        return cli_unknown_resource(type);
    *name_out = typed ? slash + 1 : NULL;
    return EXIT_SUCCESS;
}

int cmd_delete(struct global *g, int argc, char **argv)
{
    static struct strlist files;
    static const struct flag flags[] = {
        {"filename", 'f', FLAG_LIST, &files, "PATH", "delete what these manifests define"},
        {NULL, 0, FLAG_BOOL, NULL, NULL, NULL},
    };
    const char *resource, *name = NULL;
    char qual[128];
    gq_error err = {0, ""};
    bool typed;
    gq_db *db;
    int i, nargs, rc, status = EXIT_SUCCESS;

    if ((rc = cli_parse(g, &commands[5], flags, argc, argv, &nargs)) != EXIT_SUCCESS)
        return rc;
    if (g->help) {
        cli_help(&commands[5], flags);
        return EXIT_SUCCESS;
    }
    if (files.n > 0)
        return nargs > 0 ? cli_usage_error("cannot give both -f and names")
                         : cli_apply_files(g, &files, GQ_MODE_DELETE, false, false);
    typed = nargs > 0 && strchr(argv[0], '/') != NULL;
    if (nargs < (typed ? 1 : 2))
        return cli_usage_error("delete needs RESOURCE NAME..., RESOURCE/NAME... or -f FILE");
    /* Every word is checked before anything is deleted. */
    for (i = typed ? 0 : 1; i < nargs; i++)
        if ((rc = delete_target(argv[typed ? i : 0], typed ? argv[i] : NULL, &resource, &name)) !=
            EXIT_SUCCESS)
            return rc;
    if (!(db = cli_open(g)))
        return EXIT_FAILURE;
    for (i = typed ? 0 : 1; i < nargs; i++) {
        delete_target(typed ? argv[i] : argv[0], typed ? argv[i] : NULL, &resource, &name);
        if (!typed)
            name = argv[i];
        if (gq_object_delete(db, resource, cli_namespace(g), name, &err) == GQ_OK)
            printf("%s \"%s\" deleted\n", cli_resource_qualified(resource, qual, sizeof(qual)),
                   name);
        else
            status = cli_fail(&err);
    }
    gq_db_close(db);
    return status;
}
