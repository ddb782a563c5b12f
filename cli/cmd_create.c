/*
 * cmd_create.c: `gpuq create localqueue|resourceflavor NAME`, kueuectl's
 * create verbs for the two objects made from a name and a few flags
 * (issue 16). The object is built as a manifest and applied through the
 * same decoder `gpuq apply` uses; as kubectl create, an object that exists
 * is an error (a dry run first tells), and the line is
 * "localqueue.kueue.x-k8s.io/NAME created".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

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

/* text applied as kubectl create would: refused when it exists; dry run first. */
static int create(struct global *g, gq_db *db, const char *resource, const char *plural,
                  const char *name, const char *text, bool dry_run)
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
        fprintf(stderr, "Error from server (AlreadyExists): %s.kueue.x-k8s.io \"%s\" already "
                        "exists\n", plural, name);
        return EXIT_FAILURE;
    }
    if (!dry_run) {
        o.dry_run = false;
        if (gq_apply_buffer(db, text, strlen(text), "gpuq create", &o, on_item, &out, &err) !=
            GQ_OK)
            return cli_fail(&err);
    }
    if (g->output && strcmp(g->output, "name") == 0)
        printf("%s.kueue.x-k8s.io/%s\n", resource, name);
    else
        printf("%s.kueue.x-k8s.io/%s created%s\n", resource, name, dry_run ? " (dry run)" : "");
    return EXIT_SUCCESS;
}

/* "k=v,k2=v2" as YAML map entries, each quoted as JSON (YAML reads it). */
static int labels_yaml(const char *spec, char *out, size_t size)
{
    size_t n = 0;
    const char *p = spec;

    while (p && *p) {
        const char *comma = strchr(p, ','), *eq = strchr(p, '=');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        int w;

        char key[320], value[80];
        gq_error err = {0, ""};

        if (!eq || eq >= p + len || eq == p || (size_t)(eq - p) >= sizeof(key) ||
            (size_t)(p + len - eq - 1) >= sizeof(value))
            return cli_usage_error("invalid --node-labels \"%s\": want KEY=VALUE[,KEY=VALUE]",
                                   spec);
        snprintf(key, sizeof(key), "%.*s", (int)(eq - p), p);
        snprintf(value, sizeof(value), "%.*s", (int)(p + len - eq - 1), eq + 1);
        if (gq_validate_label_key(key, &err) != GQ_OK ||
            gq_validate_label_value(value, &err) != GQ_OK)
            return cli_usage_error("--node-labels: %s", err.msg);
        w = snprintf(out + n, size - n, "%s\"%.*s\": \"%.*s\"", n ? ", " : "", (int)(eq - p), p,
                     (int)(p + len - eq - 1), eq + 1);
        if (w < 0 || (size_t)w >= size - n)
            return cli_usage_error("--node-labels is too long");
        n += (size_t)w;
        p = comma ? comma + 1 : NULL;
    }
    return EXIT_SUCCESS;
}

int cmd_create(struct global *g, int argc, char **argv)
{
    static const char *cq, *labels;
    static bool ignore_unknown, dry_run;
    static const struct flag flags[] = {
        {"clusterqueue", 'c', FLAG_STRING, &cq, "NAME",
         "localqueue: the ClusterQueue it feeds (required)"},
        {"ignore-unknown-cq", 'i', FLAG_BOOL, &ignore_unknown, NULL,
         "localqueue: create it even when the ClusterQueue does not exist"},
        {"node-labels", 0, FLAG_STRING, &labels, "KEY=VALUE,...",
         "resourceflavor: the node labels it selects"},
        {"dry-run", 0, FLAG_BOOL, &dry_run, NULL, "check, print, change nothing"},
        {NULL, 0, FLAG_BOOL, NULL, NULL, NULL},
    };
    const struct command *self = cli_command("create");
    char text[4096], map[2048] = "";
    const char *resource;
    struct find f = {NULL, false};
    gq_error err = {0, ""};
    gq_db *db;
    int nargs, rc;

    if ((rc = cli_parse(g, self, flags, argc, argv, &nargs)) != EXIT_SUCCESS)
        return rc;
    if (g->help) {
        cli_help(self, flags);
        return EXIT_SUCCESS;
    }
    cli_type_name(&nargs, argv);
    if (nargs != 2)
        return cli_usage_error("create needs localqueue|resourceflavor NAME");
    if (!(resource = gq_resource_name(argv[0])))
        return cli_unknown_resource(argv[0]);
    /* Checked before they go into the manifest's text. */
    if (gq_validate_dns1123_subdomain(argv[1], &err) != GQ_OK ||
        (cq && gq_validate_dns1123_subdomain(cq, &err) != GQ_OK))
        return cli_usage_error("%s", err.msg);
    if (strcmp(resource, "localqueue") == 0) {
        if (!cq || !*cq)
            return cli_usage_error("clusterqueue must be specified (-c NAME)");
        if (labels)
            return cli_usage_error("--node-labels is for resourceflavor");
        snprintf(text, sizeof(text),
                 "{\"apiVersion\": \"kueue.x-k8s.io/v1beta2\", \"kind\": \"LocalQueue\", "
                 "\"metadata\": {\"name\": \"%s\", \"namespace\": \"%s\"}, "
                 "\"spec\": {\"clusterQueue\": \"%s\"}}",
                 argv[1], cli_namespace(g), cq);
    } else if (strcmp(resource, "resourceflavor") == 0) {
        if (cq || ignore_unknown)
            return cli_usage_error("-c and -i are for localqueue");
        if (labels && (rc = labels_yaml(labels, map, sizeof(map))) != EXIT_SUCCESS)
            return rc;
        snprintf(text, sizeof(text),
                 "{\"apiVersion\": \"kueue.x-k8s.io/v1beta2\", \"kind\": \"ResourceFlavor\", "
                 "\"metadata\": {\"name\": \"%s\"}, \"spec\": {\"nodeLabels\": {%s}}}",
                 argv[1], map);
    } else {
        return cli_usage_error("create takes localqueue or resourceflavor, not \"%s\"",
                               argv[0]);
    }
    if (!(db = cli_open(g)))
        return EXIT_FAILURE;
    if (strcmp(resource, "localqueue") == 0 && !ignore_unknown) {
        f.name = cq;
        if (gq_object_list(db, "clusterqueue", NULL, find_row, &f, &err) != GQ_OK) {
            gq_db_close(db);
            return cli_fail(&err);
        }
        if (!f.found) {
            gq_db_close(db);
            fprintf(stderr, "error: clusterqueue \"%s\" not found (-i creates the LocalQueue "
                            "anyway)\n", cq);
            return EXIT_FAILURE;
        }
    }
    rc = create(g, db, resource, strcmp(resource, "localqueue") == 0 ? "localqueues"
                                                                      : "resourceflavors",
                argv[1], text, dry_run);
    gq_db_close(db);
    return rc;
}
