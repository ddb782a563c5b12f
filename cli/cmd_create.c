/*
 * cmd_create.c: `gpuq create clusterqueue|localqueue|resourceflavor NAME`,
 * kueuectl's create verbs, with its flags and defaults (issue 16). The
 * object is built as a manifest (JSON text, every value checked first so
 * that none needs escaping) and applied through the same decoder `gpuq
 * apply` uses, so it is what applying the equivalent YAML gives. As kubectl
 * create, an object that exists is an error (a dry run first tells), and
 * the line is "clusterqueue.kueue.x-k8s.io/NAME created"; -o name prints
 * the name, -o json|yaml the object (with --dry-run, as built).
 *
 * This file has the command, its flags and the spec of each kind; the
 * list flags are read by create_lists.c, the quota flags by create_quota.c,
 * the taints and tolerations by create_taints.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "create.h"

/* The flags, each kept for the kind its help names first ("localqueue: ..."). */
static struct {
    const char *cq; /* localqueue */
    bool ignore_unknown;
    struct strlist node_labels, node_taints, tolerations; /* resourceflavor */
    const char *cohort, *queuing, *reclaim, *within;      /* clusterqueue */
    struct strlist ns_selector, nominal, borrowing, lending;
    bool dry_run;
    struct strlist files;
} fl;

static const struct flag flags[] = {
    {"filename", 'f', FLAG_LIST, &fl.files, "PATH",
     "create every object of the file, directory, or - for stdin, as kubectl create -f: one "
     "that exists is an error and nothing is written"},
    {"cohort", 0, FLAG_STRING, &fl.cohort, "COHORT",
     "clusterqueue: the cohort it borrows and lends in"},
    {"queuing-strategy", 0, FLAG_STRING, &fl.queuing, "STRATEGY",
     "clusterqueue: BestEffortFIFO (default) or StrictFIFO"},
    {"namespace-selector", 0, FLAG_LIST, &fl.ns_selector, "K=V,...",
     "clusterqueue: the namespaces it admits from (default: all)"},
    {"reclaim-within-cohort", 0, FLAG_STRING, &fl.reclaim, "P",
     "clusterqueue: Never (default), LowerPriority or Any"},
    {"preemption-within-cluster-queue", 0, FLAG_STRING, &fl.within, "P",
     "clusterqueue: Never (default), LowerPriority or LowerOrNewerEqualPriority"},
    {"nominal-quota", 0, FLAG_LIST, &fl.nominal, "QUOTAS",
     "clusterqueue: each flavor's quota, FLAVOR:RES=QTY;RES=QTY,FLAVOR2:..."},
    {"borrowing-limit", 0, FLAG_LIST, &fl.borrowing, "QUOTAS",
     "clusterqueue: what it may borrow, in the same form"},
    {"lending-limit", 0, FLAG_LIST, &fl.lending, "QUOTAS",
     "clusterqueue: what it may lend, in the same form"},
    {"clusterqueue", 'c', FLAG_STRING, &fl.cq, "NAME",
     "localqueue: the ClusterQueue it feeds (required)"},
    {"ignore-unknown-cq", 'i', FLAG_BOOL, &fl.ignore_unknown, NULL,
     "localqueue: create it even when the ClusterQueue does not exist"},
    {"node-labels", 0, FLAG_LIST, &fl.node_labels, "K=V,...",
     "resourceflavor: the node labels it selects"},
    {"node-taints", 0, FLAG_LIST, &fl.node_taints, "TAINTS",
     "resourceflavor: its nodes' taints, KEY[=VALUE]:EFFECT,..."},
    {"tolerations", 0, FLAG_LIST, &fl.tolerations, "TOLERATIONS",
     "resourceflavor: added to the pods it admits, KEY[=VALUE][:EFFECT],..."},
    {"dry-run", 0, FLAG_BOOL, &fl.dry_run, NULL, "check, print, change nothing"},
    {NULL, 0, FLAG_BOOL, NULL, NULL, NULL},
};

/* ------------------------------------------------------------ the kinds */

/* A flag given for another kind than the one created, by the kind its help names. */
static int foreign_flag(const char *resource)
{
    const void *v;
    size_t i, n;
    bool set;

    for (i = 0; flags[i].name; i++) {
        v = flags[i].value;
        set = flags[i].type == FLAG_BOOL     ? *(const bool *)v
              : flags[i].type == FLAG_STRING ? *(const char *const *)v != NULL
                                             : ((const struct strlist *)v)->n > 0;
        n = strcspn(flags[i].help, ":");
        if (set && flags[i].help[n] &&
            (strlen(resource) != n || strncmp(flags[i].help, resource, n)))
            return cli_usage_error("--%s is for %.*s", flags[i].name, (int)n, flags[i].help);
    }
    return EXIT_SUCCESS;
}

/* value, when given, one of words; its flag names it otherwise. */
static int check_enum(const char *value, const char *flag, const char *const *words)
{
    char want[128] = "";
    size_t i;

    if (!value)
        return EXIT_SUCCESS;
    for (i = 0; words[i]; i++) {
        if (!strcmp(value, words[i]))
            return EXIT_SUCCESS;
        if (i)
            strcat(want, words[i + 1] ? ", " : " or ");
        strcat(want, words[i]); /* the words are ours, and short */
    }
    return cli_usage_error("invalid --%s \"%s\": want %s", flag, value, want);
}

static int cq_spec(FILE *out)
{
    static const char *const strategies[] = {"BestEffortFIFO", "StrictFIFO", NULL};
    static const char *const reclaim[] = {"Never", "LowerPriority", "Any", NULL};
    static const char *const within[] = {"Never", "LowerPriority", "LowerOrNewerEqualPriority",
                                         NULL};
    gq_error err = {0, ""};
    int rc;

    if ((rc = check_enum(fl.queuing, "queuing-strategy", strategies)) != EXIT_SUCCESS ||
        (rc = check_enum(fl.reclaim, "reclaim-within-cohort", reclaim)) != EXIT_SUCCESS ||
        (rc = check_enum(fl.within, "preemption-within-cluster-queue", within)) != EXIT_SUCCESS)
        return rc;
    if (fl.cohort && *fl.cohort && gq_validate_dns1123_subdomain(fl.cohort, &err) != GQ_OK)
        return cli_usage_error("--cohort: %s", err.msg);
    /* kueuectl always sends a selector; an empty one admits from every namespace. */
    fputs(", \"namespaceSelector\": {", out);
    if ((rc = create_map(out, "\"matchLabels\": ", &fl.ns_selector, "namespace-selector")) !=
        EXIT_SUCCESS)
        return rc;
    fputc('}', out);
    if (fl.cohort && *fl.cohort)
        fprintf(out, ", \"cohortName\": \"%s\"", fl.cohort);
    fprintf(out, ", \"queueingStrategy\": \"%s\"", fl.queuing ? fl.queuing : strategies[0]);
    fprintf(out,
            ", \"preemption\": {\"reclaimWithinCohort\": \"%s\", \"withinClusterQueue\": "
            "\"%s\"}",
            fl.reclaim ? fl.reclaim : "Never", fl.within ? fl.within : "Never");
    return create_resource_groups(out, &fl.nominal, &fl.borrowing, &fl.lending);
}

static int lq_spec(FILE *out)
{
    gq_error err = {0, ""};

    if (!fl.cq || !*fl.cq)
        return cli_usage_error("clusterqueue must be specified (-c NAME)");
    if (gq_validate_dns1123_subdomain(fl.cq, &err) != GQ_OK)
        return cli_usage_error("%s", err.msg);
    fprintf(out, ", \"clusterQueue\": \"%s\"", fl.cq);
    return EXIT_SUCCESS;
}

static int rf_spec(FILE *out)
{
    int rc;

    if ((rc = create_map(out, ", \"nodeLabels\": ", &fl.node_labels, "node-labels")) !=
            EXIT_SUCCESS ||
        (rc = create_taints(out, &fl.node_taints)) != EXIT_SUCCESS)
        return rc;
    return create_tolerations(out, &fl.tolerations);
}

/*
 * What is created: the kind, its names, and how its spec is written: each
 * field of it with a leading ", " (the first one's is dropped), a field
 * left empty not at all, as kueuectl's Go structs are marshalled.
 */
struct kind {
    const char *resource; /* gq_resource_name's word */
    const char *kind;
    const char *plural;
    bool namespaced;
    int (*spec)(FILE *out);
};

static const struct kind kinds[] = {
    {"clusterqueue", "ClusterQueue", "clusterqueues", false, cq_spec},
    {"localqueue", "LocalQueue", "localqueues", true, lq_spec},
    {"resourceflavor", "ResourceFlavor", "resourceflavors", false, rf_spec},
};

/* The manifest of NAME (checked) as JSON text in *out (free), or an exit status. */
static int manifest(const struct global *g, const struct kind *k, const char *name, char **out)
{
    char *fields = NULL;
    size_t len;
    FILE *f;
    int rc;

    if (!(f = open_memstream(&fields, &len)))
        goto nomem;
    rc = k->spec(f);
    if (fclose(f) != 0)
        goto nomem;
    if (rc != EXIT_SUCCESS)
        goto out;
    if (!(f = open_memstream(out, &len)))
        goto nomem;
    fprintf(f,
            "{\"apiVersion\": \"kueue.x-k8s.io/v1beta2\", \"kind\": \"%s\", "
            "\"metadata\": {\"name\": \"%s\"",
            k->kind, name);
    if (k->namespaced)
        fprintf(f, ", \"namespace\": \"%s\"", cli_namespace(g));
    fprintf(f, "}, \"spec\": {%s}}", fields[0] ? fields + 2 : "");
    if (fclose(f) == 0)
        goto out;
nomem:
    fputs("error: out of memory\n", stderr);
    rc = EXIT_FAILURE;
out:
    free(fields);
    return rc;
}

/* ------------------------------------------------------------ creating */

struct outcome {
    gq_apply_result result;
    bool seen;
};

static void on_item(const gq_apply_item *item, void *payload)
{
    struct outcome *o = payload;

    o->result = item->result;
    o->seen = true;
}

/* Whether ClusterQueue name exists. */
struct find {
    const char *name;
    bool found;
};

static int find_row(const gq_object_info *o, void *payload)
{
    struct find *f = payload;

    if (strcmp(o->name, f->name) == 0)
        f->found = true;
    return 0;
}

/* A LocalQueue's ClusterQueue must exist, unless -i. */
static int check_cq(gq_db *db)
{
    struct find f = {fl.cq, false};
    gq_error err = {0, ""};

    if (fl.ignore_unknown)
        return EXIT_SUCCESS;
    if (gq_object_list(db, "clusterqueue", NULL, find_row, &f, &err) != GQ_OK)
        return cli_fail(&err);
    if (!f.found) {
        fprintf(stderr,
                "error: clusterqueue \"%s\" not found (-i creates the LocalQueue "
                "anyway)\n",
                fl.cq);
        return EXIT_FAILURE;
    }
    return EXIT_SUCCESS;
}

/* The result, as -o asks: the line, the name, or the object (as built, in a dry run). */
static int
print(const struct global *g, gq_db *db, const struct kind *k, const char *name, const char *text)
{
    gq_get_options o = GQ_GET_OPTIONS_INIT;
    gq_format format = GQ_FORMAT_JSON;
    gq_error err = {0, ""};
    int rc;

    if (!g->output || !strcmp(g->output, "table")) {
        printf("%s.kueue.x-k8s.io/%s created%s\n", k->resource, name,
               fl.dry_run ? " (dry run)" : "");
        return EXIT_SUCCESS;
    }
    if (!strcmp(g->output, "name")) {
        printf("%s.kueue.x-k8s.io/%s\n", k->resource, name);
        return EXIT_SUCCESS;
    }
    if (!strcmp(g->output, "yaml"))
        format = GQ_FORMAT_YAML;
    if (fl.dry_run)
        rc = gq_get_print(text, &o, format, cli_write_stdout, NULL, &err);
    else
        rc = gq_render(db, k->resource, k->namespaced ? cli_namespace(g) : NULL, name, NULL, format,
                       cli_write_stdout, NULL, &err);
    return rc == GQ_OK ? EXIT_SUCCESS : cli_fail(&err);
}

/* text applied as kubectl create would: refused when it exists; dry run first. */
static int
create(const struct global *g, gq_db *db, const struct kind *k, const char *name, const char *text)
{
    gq_apply_options o = GQ_APPLY_OPTIONS_INIT;
    struct outcome out = {GQ_APPLY_CREATED, false};
    gq_error err = {0, ""};

    o.dry_run = true;
    o.strict = true;
    o.default_namespace = g->namespace;
    if (gq_apply_buffer(db, text, strlen(text), "gpuq create", &o, on_item, &out, &err) != GQ_OK)
        return cli_fail(&err);
    if (!out.seen || out.result != GQ_APPLY_CREATED) {
        fprintf(stderr,
                "Error from server (AlreadyExists): %s.kueue.x-k8s.io \"%s\" already "
                "exists\n",
                k->plural, name);
        return EXIT_FAILURE;
    }
    if (!fl.dry_run) {
        o.dry_run = false;
        if (gq_apply_buffer(db, text, strlen(text), "gpuq create", &o, on_item, &out, &err) !=
            GQ_OK)
            return cli_fail(&err);
    }
    return print(g, db, k, name, text);
}

/* The kind argv[0] names, checked with NAME and the flags given; NULL after an error. */
static const struct kind *choose(const struct global *g, int nargs, char **argv, int *rc)
{
    const char *resource;
    gq_error err = {0, ""};
    size_t i;

    *rc = EXIT_USAGE;
    if (nargs != 2) {
        cli_usage_error("create needs clusterqueue|localqueue|resourceflavor NAME");
        return NULL;
    }
    if (!(resource = gq_resource_name(argv[0]))) {
        *rc = cli_unknown_resource(argv[0]);
        return NULL;
    }
    for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
        if (strcmp(kinds[i].resource, resource))
            continue;
        if (gq_validate_dns1123_subdomain(argv[1], &err) != GQ_OK ||
            (kinds[i].namespaced && gq_validate_dns1123_label(cli_namespace(g), &err) != GQ_OK))
            cli_usage_error("%s", err.msg);
        else if ((*rc = foreign_flag(resource)) == EXIT_SUCCESS)
            return &kinds[i];
        return NULL;
    }
    cli_usage_error("create takes clusterqueue, localqueue or resourceflavor, not \"%s\"", argv[0]);
    return NULL;
}

static int check_output(const struct global *g)
{
    if (g->output && strcmp(g->output, "table") && strcmp(g->output, "name") &&
        strcmp(g->output, "json") && strcmp(g->output, "yaml"))
        return cli_usage_error("gpuq create prints -o json, yaml or name, not \"%s\"", g->output);
    return EXIT_SUCCESS;
}

int cmd_create(struct global *g, int argc, char **argv)
{
    const struct command *self = cli_command("create");
    const struct kind *k;
    char *text = NULL;
    gq_db *db;
    int nargs, rc;

    if ((rc = cli_parse(g, self, flags, argc, argv, &nargs)) != EXIT_SUCCESS)
        goto out;
    if (g->help) {
        cli_help(self, flags);
        goto out;
    }
    if (fl.files.n) {
        rc = nargs ? cli_usage_error("unexpected argument \"%s\": create -f takes no NAME",
                                     argv[0])
                   : cli_apply_files(g, &fl.files, GQ_MODE_CREATE, false, fl.dry_run);
        goto out;
    }
    cli_type_name(&nargs, argv);
    if ((rc = check_output(g)) != EXIT_SUCCESS || !(k = choose(g, nargs, argv, &rc)) ||
        (rc = manifest(g, k, argv[1], &text)) != EXIT_SUCCESS)
        goto out;
    if (!(db = cli_open(g))) {
        rc = EXIT_FAILURE;
        goto out;
    }
    if (strcmp(k->resource, "localqueue") || (rc = check_cq(db)) == EXIT_SUCCESS)
        rc = create(g, db, k, argv[1], text);
    gq_db_close(db);
out:
    free(text);
    free(fl.node_labels.v);
    free(fl.node_taints.v);
    free(fl.tolerations.v);
    free(fl.ns_selector.v);
    free(fl.nominal.v);
    free(fl.borrowing.v);
    free(fl.lending.v);
    free(fl.files.v);
    return rc;
}
