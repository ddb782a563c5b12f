/*
 * cmd_list.c: `gpuq list [RESOURCE]`, with kueuectl's columns.
 *
 * Workloads: NAME, JOB TYPE, JOB NAME, LOCALQUEUE, CLUSTERQUEUE, STATUS,
 * POSITION IN QUEUE, EXEC TIME, AGE (NAMESPACE first with -A; -o wide adds
 * PRIORITY, PODS, GPUS and REASON). Queue objects have their own tables
 * below. -o json|yaml renders Kubernetes-style objects, -o name one
 * "resource.group/name" per line. Rows are collected into one table so the
 * columns can be sized, then written with one buffered pass: 100,000 rows in
 * well under the 300 ms the command is allowed.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "cli.h"
#include "table.h"
#include "term.h"

#define MAX_COLS 16

struct lister {
    const struct global *g;
    struct table *t;
    int64_t now_ms;
    bool wide;
    bool all_ns;
    bool names_only;
    const char *group; /* API group for -o name */
    int rows;
    int failed;
};

static const char *age(char *buf, int64_t from_ms, int64_t to_ms)
{
    human_duration(buf, HUMAN_DURATION_SIZE, (to_ms - from_ms) / 1000);
    return buf;
}

static const char *status_word(const char *state)
{
    if (strcmp(state, "pending") == 0)
        return "PENDING";
    if (strcmp(state, "reserved") == 0)
        return "QUOTARESERVED";
    if (strcmp(state, "admitted") == 0 || strcmp(state, "running") == 0)
        return "ADMITTED";
    if (strcmp(state, "finished") == 0)
        return "FINISHED";
    if (strcmp(state, "cancelled") == 0)
        return "CANCELLED";
    if (strcmp(state, "evicted") == 0)
        return "EVICTED";
    return "DEACTIVATED";
}

static const char *status_color(const char *cell)
{
    if (strcmp(cell, "ADMITTED") == 0)
        return "\033[32m";
    if (strcmp(cell, "PENDING") == 0 || strcmp(cell, "QUOTARESERVED") == 0)
        return "\033[33m";
    if (strcmp(cell, "EVICTED") == 0 || strcmp(cell, "DEACTIVATED") == 0)
        return "\033[31m";
    return NULL;
}

static const char *lower_kind(char *buf, size_t size, const char *kind)
{
    size_t i;

    for (i = 0; kind[i] && i + 1 < size; i++)
        buf[i] = (char)(kind[i] >= 'A' && kind[i] <= 'Z' ? kind[i] - 'A' + 'a' : kind[i]);
    buf[i] = '\0';
    return buf;
}

/* Add a row, NAMESPACE first with -A; cells beyond n are empty. */
static int add_row(struct lister *l, const char *ns, const char *const *cells, int n)
{
    const char *row[MAX_COLS];
    int i, k = 0;

    if (l->all_ns)
        row[k++] = ns;
    for (i = 0; i < n; i++)
        row[k++] = cells[i];
    l->rows++;
    if (table_add_row(l->t, row) != 0) {
        l->failed = 1;
        return -1;
    }
    return 0;
}

/* ---------------------------------------------------------------- workloads */

static int workload_row(const gq_workload_info *wl, void *payload)
{
    struct lister *l = payload;
    char kind[32], pos[24], exec[HUMAN_DURATION_SIZE], agebuf[HUMAN_DURATION_SIZE];
    char prio[24], pods[24], gpus[24], cqpos[24];
    const char *cells[14];
    int64_t end;

    if (l->names_only) {
        l->rows++;
        printf("workload.kueue.x-k8s.io/%s\n", wl->name);
        return 0;
    }
    pos[0] = exec[0] = '\0';
    if (wl->position >= 0)
        snprintf(pos, sizeof(pos), "%lld", (long long)wl->position);
    if (wl->admitted_ms) {
        end = wl->finished_ms ? wl->finished_ms : l->now_ms;
        age(exec, wl->admitted_ms, end);
    }
    cells[0] = wl->name;
    cells[1] = lower_kind(kind, sizeof(kind), wl->job_kind);
    cells[2] = wl->job_name;
    cells[3] = wl->local_queue;
    cells[4] = wl->cluster_queue;
    cells[5] = status_word(wl->state);
    cells[6] = pos;
    cells[7] = exec;
    cells[8] = age(agebuf, wl->created_ms, l->now_ms);
    snprintf(prio, sizeof(prio), "%lld", (long long)wl->priority);
    snprintf(pods, sizeof(pods), "%lld", (long long)wl->pods);
    snprintf(gpus, sizeof(gpus), "%lld", (long long)wl->gpus);
    cells[9] = prio;
    cells[10] = pods;
    cells[11] = gpus;
    cqpos[0] = '\0';
    if (wl->position_cq >= 0)
        snprintf(cqpos, sizeof(cqpos), "%lld", (long long)wl->position_cq);
    cells[12] = cqpos;
    cells[13] = wl->message ? wl->message : wl->reason;
    return add_row(l, wl->namespace, cells, l->wide ? 14 : 9);
}

/* ------------------------------------------------------------------ objects */

struct object_table {
    const char *resource;
    const char *group;
    const char *headers[8]; /* NULL-terminated, wide columns after the "|" entry */
};

static const struct object_table object_tables[] = {
    {"clusterqueue", "kueue.x-k8s.io",
     {"NAME", "COHORT", "PENDING WORKLOADS", "ADMITTED WORKLOADS", "ACTIVE", "AGE", "|", NULL}},
    {"localqueue", "kueue.x-k8s.io",
     {"NAME", "CLUSTERQUEUE", "PENDING WORKLOADS", "ADMITTED WORKLOADS", "AGE", NULL}},
    {"resourceflavor", "kueue.x-k8s.io", {"NAME", "NODE LABELS", "AGE", NULL}},
    {"cohort", "kueue.x-k8s.io", {"NAME", "PARENT", "AGE", NULL}},
    {"workloadpriorityclass", "kueue.x-k8s.io", {"NAME", "VALUE", "AGE", NULL}},
    {"admissioncheck", "kueue.x-k8s.io", {"NAME", "CONTROLLER", "AGE", NULL}},
    {"provisioningrequestconfig", "kueue.x-k8s.io", {"NAME", "CLASS", "AGE", NULL}},
    {"namespace", "", {"NAME", "AGE", NULL}},
};

static const struct object_table *object_table(const char *resource)
{
    size_t i;

    for (i = 0; i < sizeof(object_tables) / sizeof(object_tables[0]); i++)
        if (strcmp(object_tables[i].resource, resource) == 0)
            return &object_tables[i];
    return NULL;
}

static int object_row(const gq_object_info *o, void *payload)
{
    struct lister *l = payload;
    char pending[24], admitted[24], agebuf[HUMAN_DURATION_SIZE];
    const char *cells[9];
    int n;

    if (l->names_only) {
        l->rows++;
        printf("%s%s%s/%s\n", o->resource, *l->group ? "." : "", l->group, o->name);
        return 0;
    }
    snprintf(pending, sizeof(pending), "%lld", (long long)o->pending);
    snprintf(admitted, sizeof(admitted), "%lld", (long long)o->admitted);
    age(agebuf, o->created_ms, l->now_ms);
    cells[0] = o->name;
    if (strcmp(o->resource, "clusterqueue") == 0) {
        const char *c[] = {o->name, o->cohort, pending, admitted,
                           o->inactive ? "False" : "True", agebuf, o->strategy,
                           o->stop_policy, o->inactive};
        return add_row(l, NULL, c, l->wide ? 9 : 6);
    }
    if (strcmp(o->resource, "localqueue") == 0) {
        const char *c[] = {o->name, o->cluster_queue, pending, admitted, agebuf};
        return add_row(l, o->namespace, c, 5);
    }
    n = 1;
    if (strcmp(o->resource, "namespace") != 0)
        cells[n++] = strcmp(o->resource, "cohort") == 0 ? o->cohort : o->detail;
    cells[n++] = agebuf;
    return add_row(l, NULL, cells, n);
}

/* ------------------------------------------------------------------- tables */

static struct table *workload_table(bool wide, bool all_ns)
{
    static const char *const cols[] = {"NAME",      "JOB TYPE", "JOB NAME",
                                       "LOCALQUEUE", "CLUSTERQUEUE", "STATUS",
                                       "POSITION IN QUEUE", "EXEC TIME", "AGE",
                                       "PRIORITY",  "PODS",     "GPUS",
                                       "POSITION IN CLUSTERQUEUE", "REASON"};
    const char *h[MAX_COLS];
    int n = 0, i, ncols = wide ? 14 : 9;
    struct table *t;

    if (all_ns)
        h[n++] = "NAMESPACE";
    for (i = 0; i < ncols; i++)
        h[n++] = cols[i];
    if (!(t = table_new(h, n)))
        return NULL;
    table_set_truncatable(t, all_ns + 0, true); /* NAME */
    table_set_truncatable(t, all_ns + 2, true); /* JOB NAME */
    if (wide)
        table_set_truncatable(t, all_ns + 13, true);
    table_set_color(t, all_ns + 5, status_color);
    return t;
}

static struct table *object_table_new(const struct object_table *ot, bool wide, bool all_ns)
{
    static const char *const cq_wide[] = {"STRATEGY", "STOP POLICY", "REASON"};
    const char *h[MAX_COLS];
    int n = 0, i;
    struct table *t;

    if (all_ns)
        h[n++] = "NAMESPACE";
    for (i = 0; ot->headers[i]; i++) {
        if (strcmp(ot->headers[i], "|") == 0) {
            if (wide)
                for (size_t k = 0; k < 3; k++)
                    h[n++] = cq_wide[k];
            continue;
        }
        h[n++] = ot->headers[i];
    }
    if (!(t = table_new(h, n)))
        return NULL;
    table_set_truncatable(t, all_ns, true);
    if (n > 2)
        table_set_truncatable(t, n - 1 - (wide && strcmp(ot->resource, "clusterqueue") == 0
                                              ? 0
                                              : 1),
                              true);
    return t;
}

static void no_resources(const struct lister *l, bool namespaced)
{
    if (!namespaced || l->all_ns)
        fputs("No resources found\n", stderr);
    else
        fprintf(stderr, "No resources found in %s namespace.\n", cli_namespace(l->g));
}

static int print_table(struct lister *l, bool namespaced)
{
    bool color = term_use_color(1, l->g->color);

    if (l->rows == 0) {
        no_resources(l, namespaced);
        return EXIT_SUCCESS;
    }
    if (table_print(l->t, stdout, term_width(1), !l->g->no_headers, color) != 0) {
        fputs("error: writing output failed\n", stderr);
        return EXIT_FAILURE;
    }
    return EXIT_SUCCESS;
}

/* -o json|yaml: the library renders; we only choose. */
static int render(gq_db *db, const struct global *g, const char *resource, const char *ns,
                  const gq_workload_filter *f)
{
    gq_error err = {0, ""};
    int rc = gq_render(db, resource, ns, NULL, f,
                       strcmp(g->output, "yaml") == 0 ? GQ_FORMAT_YAML : GQ_FORMAT_JSON,
                       cli_write_stdout, NULL, &err);

    return rc == GQ_OK ? EXIT_SUCCESS : cli_fail(&err);
}

static int list(gq_db *db, struct lister *l, const char *resource, const gq_workload_filter *f)
{
    const struct object_table *ot = object_table(resource);
    bool namespaced = strcmp(resource, "workload") == 0 || strcmp(resource, "localqueue") == 0;
    const char *ns = namespaced && !l->all_ns ? cli_namespace(l->g) : NULL;
    gq_error err = {0, ""};
    int rc;

    if (l->g->output && (!strcmp(l->g->output, "json") || !strcmp(l->g->output, "yaml")))
        return render(db, l->g, resource, ns, f);
    if (!namespaced)
        l->all_ns = false;
    if (!l->names_only) {
        l->t = ot ? object_table_new(ot, l->wide, l->all_ns) : workload_table(l->wide, l->all_ns);
        if (!l->t) {
            fputs("error: out of memory\n", stderr);
            return EXIT_FAILURE;
        }
    }
    l->group = ot ? ot->group : "kueue.x-k8s.io";
    if (ot)
        rc = gq_object_list(db, resource, ns, object_row, l, &err);
    else
        rc = gq_workload_list(db, f, workload_row, l, &err);
    if (rc != GQ_OK)
        return l->failed ? (fputs("error: out of memory\n", stderr), EXIT_FAILURE)
                         : cli_fail(&err);
    if (l->names_only)
        return l->rows ? EXIT_SUCCESS : (no_resources(l, namespaced), EXIT_SUCCESS);
    return print_table(l, namespaced);
}

int cmd_list(struct global *g, int argc, char **argv)
{
    static const char *status, *lq, *cq;
    static const struct flag flags[] = {
        {"status", 0, FLAG_STRING, &status, "STATE",
         "workloads in this state: all|pending|quotareserved|admitted|finished|cancelled"},
        {"localqueue", 'q', FLAG_STRING, &lq, "NAME", "workloads of this LocalQueue"},
        {"clusterqueue", 'c', FLAG_STRING, &cq, "NAME", "workloads of this ClusterQueue"},
        {NULL, 0, FLAG_BOOL, NULL, NULL, NULL},
    };
    static const char *const states[] = {"all",      "pending",   "quotareserved", "reserved",
                                         "admitted", "finished",  "cancelled",     "evicted",
                                         "running",  "deactivated", NULL};
    gq_workload_filter f = GQ_WORKLOAD_FILTER_INIT;
    struct lister l;
    const char *resource = "workload";
    gq_db *db;
    int nargs, rc, i;

    if ((rc = cli_parse(g, &commands[2], flags, argc, argv, &nargs)) != EXIT_SUCCESS)
        return rc;
    if (g->help) {
        cli_help(&commands[2], flags);
        return EXIT_SUCCESS;
    }
    if (nargs > 1)
        return cli_usage_error("list takes at most one RESOURCE, got \"%s\"", argv[1]);
    if (nargs == 1 && !(resource = gq_resource_name(argv[0])))
        return cli_usage_error("the server doesn't have a resource type \"%s\"", argv[0]);
    for (i = 0; status && states[i] && strcasecmp(status, states[i]); i++)
        ;
    if (status && !states[i])
        return cli_usage_error("invalid --status \"%s\": want all, pending, quotareserved, "
                               "admitted, finished or cancelled",
                               status);
    memset(&l, 0, sizeof(l));
    l.g = g;
    l.wide = g->output && strcmp(g->output, "wide") == 0;
    l.names_only = g->output && strcmp(g->output, "name") == 0;
    l.all_ns = g->all_namespaces;
    f.namespace = g->all_namespaces ? NULL : cli_namespace(g);
    f.state = status;
    f.local_queue = lq;
    f.cluster_queue = cq;
    if (!(db = cli_open(g)))
        return EXIT_FAILURE;
    l.now_ms = gq_db_now_ms(db); /* a simulation's virtual time while one runs */
    rc = list(db, &l, resource, &f);
    table_free(l.t);
    gq_db_close(db);
    return rc;
}
