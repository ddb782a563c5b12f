/*
 * cmd_list.c: `gpuq list [RESOURCE]`, with kueuectl's columns.
 *
 * Workloads: NAME, JOB TYPE, JOB NAME, LOCALQUEUE, CLUSTERQUEUE, STATUS,
 * POSITION IN QUEUE, EXEC TIME, AGE (NAMESPACE first with -A; -o wide adds
 * PRIORITY, PODS, GPUS, POD SETS, POSITION IN CLUSTERQUEUE and REASON). Queue objects have their own tables
 * below; so do the ProvisioningRequests (GKE's CRD columns) and PodTemplates
 * (kubectl's) gpuq created, which also take a NAME. -o json|yaml renders
 * Kubernetes-style objects, -o name one "resource.group/name" per line.
 * Rows are collected into one table so the columns can be sized, then
 * written with one buffered pass: 100,000 rows in well under the 300 ms the
 * command is allowed.
 *
 * In cluster mode the workloads come from gpuqd's status API (cluster.c
 * fetches, the library decodes) and go through the same rows and tables;
 * when gpuqd cannot be reached the labelled Jobs themselves are listed, in
 * a table of their own: NAME, QUEUE, STATUS, ADMITTED BY, AGE.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "cli.h"
#include "list.h"
#include "table.h"
#include "term.h"

static const char *age(char *buf, int64_t from_ms, int64_t to_ms)
{
    human_duration(buf, HUMAN_DURATION_SIZE, (to_ms - from_ms) / 1000);
    return buf;
}

/* The STATUS column in Kueue's words. */
static const char *status_word(gq_workload_state state)
{
    switch (state) {
    case GQ_WORKLOAD_PENDING:
        return "PENDING";
    case GQ_WORKLOAD_RESERVED:
        return "QUOTARESERVED";
    case GQ_WORKLOAD_ADMITTED:
    case GQ_WORKLOAD_RUNNING:
        return "ADMITTED";
    case GQ_WORKLOAD_FINISHED:
        return "FINISHED";
    case GQ_WORKLOAD_CANCELLED:
        return "CANCELLED";
    case GQ_WORKLOAD_EVICTED:
        return "EVICTED";
    default:
        return "DEACTIVATED";
    }
}

/* A --status word: all, quotareserved or a workload state, in any case. */
static bool status_valid(const char *word)
{
    int s;

    if (strcasecmp(word, "all") == 0 || strcasecmp(word, "quotareserved") == 0)
        return true;
    for (s = GQ_WORKLOAD_PENDING; gq_workload_state_name((gq_workload_state)s); s++)
        if (strcasecmp(word, gq_workload_state_name((gq_workload_state)s)) == 0)
            return true;
    return false;
}

static const char *status_color(const char *cell)
{
    if (strcmp(cell, "ADMITTED") == 0 || strcmp(cell, "RUNNING") == 0)
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

static int pick_row(struct lister *l, const char *ns, const char *const *row, int n);
static int fail_named(int rc, const gq_error *err, const char *resource, const char *name);

/* Add a row, NAMESPACE first with -A; cells beyond n are empty. */
static int add_row(struct lister *l, const char *ns, const char *const *cells, int n)
{
    const char *row[MAX_COLS] = {NULL};
    int i, k = 0;

    if (l->all_ns)
        row[k++] = ns;
    for (i = 0; i < n; i++)
        row[k++] = cells[i];
    if (l->pk)
        return pick_row(l, ns, row, k);
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
    char kind[32], pos[INT_TEXT_SIZE], exec[HUMAN_DURATION_SIZE], agebuf[HUMAN_DURATION_SIZE];
    char prio[INT_TEXT_SIZE], pods[INT_TEXT_SIZE], gpus[INT_TEXT_SIZE], cqpos[INT_TEXT_SIZE];
    const char *cells[16];
    int64_t end;
    int n;

    if (l->names_only) {
        l->rows++;
        printf("workload.kueue.x-k8s.io/%s\n", wl->name);
        return 0;
    }
    pos[0] = exec[0] = '\0';
    if (wl->position >= 0)
        int_text(pos, wl->position);
    if (wl->admitted_ms) {
        end = wl->finished_ms ? wl->finished_ms : l->now_ms;
        age(exec, wl->admitted_ms, end);
    }
    cells[0] = wl->name;
    cells[1] = lower_kind(kind, sizeof(kind), wl->job_kind);
    cells[2] = wl->job_name;
    cells[3] = wl->local_queue;
    cells[4] = wl->cluster_queue;
    cells[5] = status_word(wl->state_code);
    cells[6] = pos;
    cells[7] = exec;
    cells[8] = age(agebuf, wl->created_ms, l->now_ms);
    if (!l->wide) {
        cells[9] = wl->cluster_name ? wl->cluster_name : "";
        return add_row(l, wl->namespace, cells, l->clusters ? 10 : 9);
    }
    int_text(prio, wl->priority);
    int_text(pods, wl->pods);
    int_text(gpus, wl->gpus);
    cells[9] = prio;
    cells[10] = pods;
    cells[11] = gpus;
    cells[12] = wl->podsets ? wl->podsets : "";
    cqpos[0] = '\0';
    if (wl->position_cq >= 0)
        int_text(cqpos, wl->position_cq);
    cells[13] = cqpos;
    cells[14] = wl->where && *wl->where ? wl->where : wl->message ? wl->message : wl->reason;
    n = 15;
    if (l->clusters)
        cells[n++] = wl->cluster_name ? wl->cluster_name : "";
    return add_row(l, wl->namespace, cells, n);
}

/* Cluster mode without gpuqd: a Job read as its workload (gq_kube_workloads). */
static int job_row(const gq_workload_info *wl, void *payload)
{
    struct lister *l = payload;
    char agebuf[HUMAN_DURATION_SIZE];
    const char *cells[7];

    if (l->names_only) {
        l->rows++;
        printf("job.batch/%s\n", wl->job_name);
        return 0;
    }
    cells[0] = wl->job_name;
    cells[1] = wl->local_queue;
    cells[2] = wl->state_code == GQ_WORKLOAD_RUNNING ? "RUNNING" : status_word(wl->state_code);
    cells[3] = wl->cluster_queue;
    cells[4] = age(agebuf, wl->created_ms, l->now_ms);
    cells[5] = wl->name;
    cells[6] = *wl->where ? wl->where : wl->reason;
    return add_row(l, wl->namespace, cells, l->wide ? 7 : 5);
}

/* ------------------------------------------------------------------ objects */

struct object_table {
    const char *resource;
    const char *group;
    const char *headers[10]; /* NULL-terminated, wide columns after the "|" entry */
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
    {"nodepool", "sim.gpuq.dev",
     {"NAME", "GPUS/NODE", "MIN", "MAX", "PROVISIONING TIME", "STOCKOUT", "LABELS", "AGE", NULL}},
    {"integration", "gpuq.dev", {"NAME", "KIND", "AGE", NULL}},
    {"clustertrainingruntime", "trainer.kubeflow.org", {"NAME", "AGE", NULL}},
    {"limitrange", "", {"NAME", "AGE", NULL}},
    {"runtimeclass", "node.k8s.io", {"NAME", "HANDLER", "AGE", NULL}},
    {"multikueuecluster", "kueue.x-k8s.io", {"NAME", "CONNECTED", "AGE", NULL}},
    {"multikueueconfig", "kueue.x-k8s.io", {"NAME", "CLUSTERS", "AGE", NULL}},
};

static const struct object_table *object_table(const char *resource)
{
    size_t i;

    for (i = 0; i < sizeof(object_tables) / sizeof(object_tables[0]); i++)
        if (strcmp(object_tables[i].resource, resource) == 0)
            return &object_tables[i];
    return NULL;
}

const char *cli_resource_qualified(const char *resource, char *buf, size_t size)
{
    /* kinds listed elsewhere than in the tables above */
    static const char *const others[][2] = {{"configuration", "config.kueue.x-k8s.io"},
                                            {"trainingruntime", "trainer.kubeflow.org"},
                                            {"workload", "kueue.x-k8s.io"},
                                            {"provisioningrequest", "autoscaling.x-k8s.io"}};
    const struct object_table *ot = object_table(resource);
    const char *group = ot ? ot->group : NULL;
    size_t i;

    for (i = 0; !ot && i < sizeof(others) / sizeof(others[0]); i++)
        if (strcmp(others[i][0], resource) == 0)
            group = others[i][1];
    if (strchr(resource, '.') || !group || !*group)
        return resource; /* already qualified (job.batch), or of the core group */
    snprintf(buf, size, "%s.%s", resource, group);
    return buf;
}

/* A NodePool: its size, how fast it grows, whether it is stocked out, its node labels. */
static int pool_row(struct lister *l, const gq_object_info *o, const char *agebuf)
{
    char gpus[24], min[24], max[24];
    const char *c[8];

    snprintf(gpus, sizeof(gpus), "%lld", (long long)o->gpus_per_node);
    snprintf(min, sizeof(min), "%lld", (long long)o->min_nodes);
    snprintf(max, sizeof(max), "%lld", (long long)o->max_nodes);
    c[0] = o->name;
    c[1] = gpus;
    c[2] = min;
    c[3] = max;
    c[4] = o->provisioning_time;
    c[5] = o->stockout ? "true" : "false";
    c[6] = o->detail;
    c[7] = agebuf;
    return add_row(l, NULL, c, 8);
}

static int object_row(const gq_object_info *o, void *payload)
{
    struct lister *l = payload;
    char pending[24], admitted[24], agebuf[HUMAN_DURATION_SIZE];
    const char *cells[9];
    int n;

    if (l->name && strcmp(o->name, l->name) != 0)
        return 0;
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
    if (strcmp(o->resource, "nodepool") == 0)
        return pool_row(l, o, agebuf);
    if (strcmp(o->resource, "limitrange") == 0) {
        const char *c[] = {o->name, agebuf};
        return add_row(l, o->namespace, c, 2);
    }
    n = 1;
    if (strcmp(o->resource, "namespace") != 0 && strcmp(o->resource, "clustertrainingruntime") != 0)
        cells[n++] = strcmp(o->resource, "cohort") == 0 ? o->cohort : o->detail;
    cells[n++] = agebuf;
    return add_row(l, NULL, cells, n);
}

/* ---------------------------------------------------- provisioning requests */

/* GKE's printer columns for the CRD, then -o wide's. */
static const char *const provreq_cols[] = {"NAME",    "ACCEPTED", "PROVISIONED", "FAILED",
                                           "AGE",     "CLASS",    "WORKLOAD",    "CHECK",
                                           "ATTEMPT", "MESSAGE"};
/* kubectl's columns for PodTemplates, and AGE. */
static const char *const podtemplate_cols[] = {"NAME", "CONTAINERS", "IMAGES", "POD LABELS", "AGE"};

static bool is_provreq_resource(const char *resource)
{
    return strcmp(resource, "provisioningrequest") == 0 || strcmp(resource, "podtemplate") == 0;
}

static int provreq_row(const gq_provreq_info *pr, void *payload)
{
    struct lister *l = payload;
    char agebuf[HUMAN_DURATION_SIZE], attempt[24];
    const char *c[10];

    if (l->names_only) {
        l->rows++;
        printf("provisioningrequest.autoscaling.x-k8s.io/%s\n", pr->name);
        return 0;
    }
    snprintf(attempt, sizeof(attempt), "%lld", (long long)pr->attempt);
    c[0] = pr->name;
    c[1] = pr->accepted;
    c[2] = pr->provisioned;
    c[3] = pr->failed;
    c[4] = age(agebuf, pr->created_ms, l->now_ms);
    c[5] = pr->class_name;
    c[6] = pr->workload;
    c[7] = pr->check;
    c[8] = attempt;
    c[9] = pr->message;
    return add_row(l, pr->namespace, c, l->wide ? 10 : 5);
}

static int podtemplate_row(const gq_podtemplate_info *pt, void *payload)
{
    struct lister *l = payload;
    char agebuf[HUMAN_DURATION_SIZE];
    const char *c[5];

    if (l->names_only) {
        l->rows++;
        printf("podtemplate/%s\n", pt->name);
        return 0;
    }
    c[0] = pt->name;
    c[1] = pt->containers;
    c[2] = pt->images;
    c[3] = pt->pod_labels ? pt->pod_labels : "<none>";
    c[4] = age(agebuf, pt->created_ms, l->now_ms);
    return add_row(l, pt->namespace, c, 5);
}

static int
list_provreqs(gq_db *db, struct lister *l, const char *resource, const char *ns, gq_error *err)
{
    if (strcmp(resource, "provisioningrequest") == 0)
        return gq_provreq_list(db, ns, l->name, provreq_row, l, err);
    return gq_podtemplate_list(db, ns, l->name, podtemplate_row, l, err);
}

/* -------------------------------------------------------------- selection */

static int pick_cmp(const void *a, const void *b)
{
    return strcmp((*(struct pick *const *)a)->key, (*(struct pick *const *)b)->key);
}

static char *pick_key(const char *ns, const char *name)
{
    size_t a = ns ? strlen(ns) : 0, b = strlen(name);
    char *k = malloc(a + b + 2);

    if (k) {
        memcpy(k, ns ? ns : "", a);
        k[a] = '/';
        memcpy(k + a + 1, name, b + 1);
    }
    return k;
}

/* gq_get_items' callback: one object kept, in print order. */
static int collect_pick(const char *ns, const char *name, const char *labels, void *payload)
{
    struct picks *pk = payload;
    struct pick *v = realloc(pk->v, (pk->n + 1) * sizeof(*v));

    if (!v)
        return GQ_ENOMEM;
    pk->v = v;
    v = &pk->v[pk->n];
    memset(v, 0, sizeof(*v));
    v->index = pk->n++;
    v->key = pick_key(ns, name ? name : "");
    v->labels = strdup(labels);
    return v->key && v->labels ? GQ_OK : GQ_ENOMEM;
}

/* A table row, kept (copied) when the selection has its object; else dropped. */
static int pick_row(struct lister *l, const char *ns, const char *const *row, int n)
{
    struct pick probe, *pp = &probe, **hit;
    int i;

    if (!(probe.key = pick_key(l->all_ns ? row[0] : ns, row[l->all_ns] ? row[l->all_ns] : "")))
        return l->failed = 1, -1;
    hit = bsearch(&pp, l->pk->by_key, l->pk->n, sizeof(*hit), pick_cmp);
    free(probe.key);
    if (!hit || (*hit)->cells)
        return 0;
    if (!((*hit)->cells = calloc((size_t)n, sizeof(char *))))
        return l->failed = 1, -1;
    for (i = 0; i < n; i++)
        if (!((*hit)->cells[i] = strdup(row[i] ? row[i] : "")))
            return l->failed = 1, -1;
    l->pk->ncells = n;
    return 0;
}

/* The value of label key in "k=v,k=v" (kubectl's -L cell), or "". */
static void label_value(char *buf, size_t size, const char *labels, const char *key)
{
    size_t n = strlen(key), len;
    const char *p = labels;

    buf[0] = '\0';
    while (*p) {
        len = strcspn(p, ",");
        if (len > n && strncmp(p, key, n) == 0 && p[n] == '=') {
            snprintf(buf, size, "%.*s", (int)(len - n - 1), p + n + 1);
            return;
        }
        p += len + (p[len] == ',');
    }
}

/* Call fn for each -L key (each flag value may hold several, comma-separated). */
static int each_label_col(const struct picks *pk, int (*fn)(const char *key, void *payload),
                          void *payload)
{
    char key[320];
    size_t i, len;
    const char *p;

    for (i = 0; pk->label_cols && i < pk->label_cols->n; i++)
        for (p = pk->label_cols->v[i]; *p; p += len + (p[len] == ',')) {
            len = strcspn(p, ",");
            snprintf(key, sizeof(key), "%.*s", (int)len, p);
            if (len && fn(key, payload) != 0)
                return -1;
        }
    return 0;
}

/* -L's header: the key's last part after "/", upper-cased, as kubectl's. */
static int label_header(const char *key, void *payload)
{
    const char *slash = strrchr(key, '/');
    char h[320];
    size_t i;

    snprintf(h, sizeof(h), "%s", slash ? slash + 1 : key);
    for (i = 0; h[i]; i++)
        h[i] = (char)(h[i] >= 'a' && h[i] <= 'z' ? h[i] - 'a' + 'A' : h[i]);
    return table_add_column(payload, h);
}

static int label_columns(struct lister *l)
{
    if (each_label_col(l->pk, label_header, l->t) != 0 ||
        (l->pk->show_labels && table_add_column(l->t, "LABELS") != 0))
        return -1;
    return 0;
}

struct label_cells {
    const char **row;
    int n;
    const char *labels;
    char vals[MAX_COLS][256];
};

static int label_cell(const char *key, void *payload)
{
    struct label_cells *c = payload;

    if (c->n >= MAX_COLS)
        return -1;
    label_value(c->vals[c->n], sizeof(c->vals[0]), c->labels, key);
    c->row[c->n] = c->vals[c->n];
    c->n++;
    return 0;
}

/* The rows kept, in the selection's order, with their label cells. */
static int flush_picks(struct lister *l)
{
    struct picks *pk = l->pk;
    struct label_cells *c = malloc(sizeof(*c));
    const char *row[2 * MAX_COLS];
    size_t i;
    int k;

    if (!c)
        return -1;
    for (i = 0; i < pk->n; i++) {
        if (!pk->v[i].cells)
            continue;
        for (k = 0; k < pk->ncells; k++)
            row[k] = pk->v[i].cells[k];
        c->row = row + k;
        c->n = 0;
        c->labels = pk->v[i].labels;
        if (each_label_col(pk, label_cell, c) != 0)
            break;
        if (pk->show_labels)
            row[k + c->n++] = *c->labels ? c->labels : "<none>";
        l->rows++;
        if (table_add_row(l->t, row) != 0)
            break;
    }
    free(c);
    return i == pk->n ? 0 : -1;
}

void list_picks_reset(struct picks *pk)
{
    size_t i;
    int k;

    if (!pk)
        return;

    for (i = 0; i < pk->n; i++) {
        free(pk->v[i].key);
        free(pk->v[i].labels);
        for (k = 0; pk->v[i].cells && k < pk->ncells; k++)
            free(pk->v[i].cells[k]);
        free(pk->v[i].cells);
    }
    free(pk->v);
    free(pk->by_key);
    pk->v = NULL;
    pk->by_key = NULL;
    pk->n = 0;
}

/* The objects as JSON text, grown in memory (a gq_write_fn). */
struct text {
    char *s;
    size_t len, cap;
};

static int text_write(const char *buf, size_t len, void *payload)
{
    struct text *t = payload;
    char *p;

    if (t->len + len + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 65536;

        while (cap < t->len + len + 1)
            cap *= 2;
        if (!(p = realloc(t->s, cap)))
            return -1;
        t->s = p;
        t->cap = cap;
    }
    memcpy(t->s + t->len, buf, len);
    t->len += len;
    t->s[t->len] = '\0';
    return 0;
}

/* What -o name prints before "/NAME" for this resource. */
static const char *name_prefix(const struct lister *l, const char *resource)
{
    static char buf[96];

    if (strcmp(resource, "workload") == 0)
        return l->jobs ? "job.batch" : "workload.kueue.x-k8s.io";
    if (strcmp(resource, "provisioningrequest") == 0)
        return "provisioningrequest.autoscaling.x-k8s.io";
    snprintf(buf, sizeof(buf), "%s%s%s", resource, *l->group ? "." : "", l->group);
    return buf;
}

static bool is_template_output(const char *out)
{
    return out && (strncmp(out, "jsonpath", 8) == 0 || strncmp(out, "custom-columns", 14) == 0);
}

int list_pick_print(const struct global *g, const char *json, struct picks *pk, char **kept_out)
{
    const char *out = g->output;
    bool yaml = out && strcmp(out, "yaml") == 0;
    bool printed = yaml || is_template_output(out) || (out && strcmp(out, "json") == 0);
    struct text text = {NULL, 0, 0};
    gq_get_options o = pk->o;
    gq_error err = {0, ""};
    int rc;

    *kept_out = NULL;
    if (!printed) { /* the selection as a List, for the caller's own table */
        o.jsonpath = o.columns = NULL;
        o.columns_file = false;
    }
    rc = gq_get_print(json, &o, yaml ? GQ_FORMAT_YAML : GQ_FORMAT_JSON,
                      printed ? cli_write_stdout : text_write, printed ? NULL : &text, &err);
    if (rc != GQ_OK) {
        free(text.s);
        return cli_fail(&err);
    }
    *kept_out = text.s;
    return EXIT_SUCCESS;
}

/*
 * The selection flags' part of a listing: the objects rendered and selected;
 * printed here for every -o but a table's (EXIT_SUCCESS or a failure), or,
 * for a table, the order kept and -1 returned: the rows come next.
 */
static int pick_objects(struct lister *l, const char *resource, const char *ns,
                        const gq_workload_filter *f, bool namespaced)
{
    const char *out = l->g->output;
    bool yaml = out && strcmp(out, "yaml") == 0;
    struct text text = {NULL, 0, 0};
    gq_error err = {0, ""};
    size_t i;
    int rc;

    if (l->json)
        rc = gq_kube_list_json(&text.s, l->json, f, &err);
    else
        rc = gq_render(l->db, resource, ns, l->name, f, GQ_FORMAT_JSON, text_write, &text, &err);
    if (rc == GQ_OK && (yaml || is_template_output(out) || (out && strcmp(out, "json") == 0)))
        rc = gq_get_print(text.s ? text.s : "{}", &l->pk->o, yaml ? GQ_FORMAT_YAML : GQ_FORMAT_JSON,
                          cli_write_stdout, NULL, &err);
    else if (rc == GQ_OK)
        rc = gq_get_items(text.s ? text.s : "{}", &l->pk->o, collect_pick, l->pk, &err);
    l->json ? gq_free(text.s) : free(text.s);
    if (rc != GQ_OK)
        return fail_named(rc, &err, resource, l->name);
    if (yaml || is_template_output(out) || (out && strcmp(out, "json") == 0))
        return EXIT_SUCCESS;
    if (l->names_only) {
        for (i = 0; i < l->pk->n; i++)
            printf("%s/%s\n", name_prefix(l, resource), strchr(l->pk->v[i].key, '/') + 1);
        if (!l->pk->n)
            list_no_resources(l, namespaced);
        return EXIT_SUCCESS;
    }
    if (!(l->pk->by_key = malloc((l->pk->n ? l->pk->n : 1) * sizeof(*l->pk->by_key))))
        return fputs("error: out of memory\n", stderr), EXIT_FAILURE;
    for (i = 0; i < l->pk->n; i++)
        l->pk->by_key[i] = &l->pk->v[i];
    qsort(l->pk->by_key, l->pk->n, sizeof(*l->pk->by_key), pick_cmp);
    return -1;
}

/* ------------------------------------------------------------------- tables */

/*
 * A table of these columns, NAMESPACE first with -A. NAME is never cut: it is
 * what a user copies into the next command, and kubectl's printers never cut
 * it either; other columns are narrowed first, and a row still too wide
 * wraps as kubectl's does.
 */
static struct table *columns_table(const char *const *cols, int ncols, bool all_ns)
{
    const char *h[MAX_COLS];
    int n = 0, i;

    if (all_ns)
        h[n++] = "NAMESPACE";
    for (i = 0; i < ncols; i++)
        h[n++] = cols[i];
    return table_new(h, n);
}

static struct table *provreq_table(const char *resource, bool wide, bool all_ns)
{
    struct table *t;

    if (strcmp(resource, "podtemplate") == 0) {
        if ((t = columns_table(podtemplate_cols, 5, all_ns)) != NULL) {
            table_set_truncatable(t, all_ns + 2, true); /* IMAGES */
            table_set_truncatable(t, all_ns + 3, true); /* POD LABELS */
        }
        return t;
    }
    if ((t = columns_table(provreq_cols, wide ? 10 : 5, all_ns)) != NULL && wide)
        table_set_truncatable(t, all_ns + 9, true); /* MESSAGE */
    return t;
}

static struct table *workload_table(bool wide, bool all_ns, bool clusters)
{
    static const char *const cols[] = {"NAME",      "JOB TYPE", "JOB NAME",
                                       "LOCALQUEUE", "CLUSTERQUEUE", "STATUS",
                                       "POSITION IN QUEUE", "EXEC TIME", "AGE",
                                       "PRIORITY",  "PODS",     "GPUS",
                                       "POD SETS", "POSITION IN CLUSTERQUEUE", "REASON"};
    struct table *t = columns_table(cols, wide ? 15 : 9, all_ns);

    if (!t)
        return NULL;
    table_set_truncatable(t, all_ns + 2, true); /* JOB NAME */
    if (wide)
        table_set_truncatable(t, all_ns + 14, true);
    table_set_color(t, all_ns + 5, status_color);
    if (clusters && table_add_column(t, "CLUSTER") != 0) {
        table_free(t);
        return NULL;
    }
    return t;
}

static struct table *jobs_table(bool wide, bool all_ns)
{
    static const char *const cols[] = {"NAME", "QUEUE", "STATUS", "ADMITTED BY", "AGE",
                                       "WORKLOAD", "REASON"};
    struct table *t = columns_table(cols, wide ? 7 : 5, all_ns);

    if (!t)
        return NULL;
    if (wide)
        table_set_truncatable(t, all_ns + 6, true);
    table_set_color(t, all_ns + 2, status_color);
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
    /* NAME is never cut (columns_table says why); the detail column before AGE may be. */
    if (n > 2)
        table_set_truncatable(t, n - 1 - (wide && strcmp(ot->resource, "clusterqueue") == 0
                                              ? 0
                                              : 1),
                              true);
    return t;
}

void list_no_resources(const struct lister *l, bool namespaced)
{
    if (!namespaced || l->all_ns)
        fputs("No resources found\n", stderr);
    else
        fprintf(stderr, "No resources found in %s namespace.\n",
                l->ns ? l->ns : cli_namespace(l->g));
}

static int print_table(struct lister *l, bool namespaced)
{
    bool color = term_use_color(1, l->g->color);

    if (l->rows == 0) {
        list_no_resources(l, namespaced);
        return EXIT_SUCCESS;
    }
    if (table_print(l->t, stdout, term_width(1), !l->g->no_headers, color) != 0) {
        fputs("error: writing output failed\n", stderr);
        return EXIT_FAILURE;
    }
    return EXIT_SUCCESS;
}

/* kubectl's line for a NAME that matches nothing; EXIT_FAILURE. */
static int not_found(const char *resource, const char *name)
{
    const struct object_table *ot = object_table(resource);
    const char *group = strcmp(resource, "provisioningrequest") == 0 ? "autoscaling.x-k8s.io"
                        : strcmp(resource, "podtemplate") == 0       ? ""
                        : ot                                         ? ot->group
                                                                     : "kueue.x-k8s.io";

    fprintf(stderr, "Error from server (NotFound): %ss%s%s \"%s\" not found\n", resource,
            *group ? "." : "", group, name);
    return EXIT_FAILURE;
}

/* A library failure; kubectl's NotFound when it is the NAME asked for that is not there. */
static int fail_named(int rc, const gq_error *err, const char *resource, const char *name)
{
    return rc == GQ_ENOTFOUND && name ? not_found(resource, name) : cli_fail(err);
}

/* -o json|yaml: the library renders; we only choose. */
static int render(const struct lister *l, const char *resource, const char *ns, const char *name,
                  const gq_workload_filter *f)
{
    gq_error err = {0, ""};
    char *text = NULL;
    int rc;

    if (l->json) { /* cluster mode: only -o json (cmd_list refuses yaml) */
        if ((rc = gq_kube_list_json(&text, l->json, f, &err)) == GQ_OK)
            fputs(text, stdout);
        gq_free(text);
        return rc == GQ_OK ? EXIT_SUCCESS : cli_fail(&err);
    }
    rc = gq_render(l->db, resource, ns, name, f,
                   strcmp(l->g->output, "yaml") == 0 ? GQ_FORMAT_YAML : GQ_FORMAT_JSON,
                   cli_write_stdout, NULL, &err);
    return rc == GQ_OK ? EXIT_SUCCESS : fail_named(rc, &err, resource, name);
}

/* Workloads from where this listing reads them: the database, or what the cluster answered. */
static int list_workloads(struct lister *l, const gq_workload_filter *f, gq_error *err)
{
    if (l->json)
        return gq_kube_workloads(l->json, f, l->jobs ? job_row : workload_row, l, err);
    return gq_workload_list(l->db, f, workload_row, l, err);
}

static struct table *new_table(const struct lister *l, const char *resource,
                               const struct object_table *ot)
{
    if (is_provreq_resource(resource))
        return provreq_table(resource, l->wide, l->all_ns);
    if (ot)
        return object_table_new(ot, l->wide, l->all_ns);
    return l->jobs ? jobs_table(l->wide, l->all_ns)
                   : workload_table(l->wide, l->all_ns, l->clusters);
}

static int count_object(const gq_object_info *o, void *payload)
{
    (void)o;
    ++*(int *)payload;
    return 0;
}

/* A MultiKueue manager's database (it has MultiKueueClusters): which worker runs what. */
static bool has_clusters(struct lister *l)
{
    gq_error err = {0, ""};
    int n = 0;

    return !l->json && gq_object_list(l->db, "multikueuecluster", NULL, count_object, &n, &err) ==
                           GQ_OK && n > 0;
}

int list_build(struct lister *l, const char *resource, const gq_workload_filter *f,
               bool *namespaced_out)
{
    const struct object_table *ot = object_table(resource);
    bool provreq = is_provreq_resource(resource);
    bool namespaced =
        strcmp(resource, "workload") == 0 || strcmp(resource, "localqueue") == 0 || provreq;
    const char *ns = namespaced && !l->all_ns ? cli_namespace(l->g) : NULL;
    gq_error err = {0, ""};
    int rc;

    *namespaced_out = namespaced;
    if (!l->pk && l->g->output &&
        (!strcmp(l->g->output, "json") || !strcmp(l->g->output, "yaml")))
        return (rc = render(l, resource, ns, l->name, f)) == EXIT_SUCCESS ? LIST_PRINTED : rc;
    if (!namespaced)
        l->all_ns = false;
    l->group = ot ? ot->group : "kueue.x-k8s.io";
    if (l->pk && (rc = pick_objects(l, resource, ns, f, namespaced)) != -1)
        return rc == EXIT_SUCCESS ? LIST_PRINTED : rc;
    l->clusters = !ot && !provreq && has_clusters(l);
    if (!l->names_only &&
        (!(l->t = new_table(l, resource, ot)) || (l->pk && label_columns(l) != 0))) {
        fputs("error: out of memory\n", stderr);
        return EXIT_FAILURE;
    }
    if (provreq)
        rc = list_provreqs(l->db, l, resource, ns, &err);
    else if (ot)
        rc = gq_object_list(l->db, resource, ns, object_row, l, &err);
    else
        rc = list_workloads(l, f, &err);
    if (rc == GQ_OK && l->pk && flush_picks(l) != 0)
        l->failed = 1, rc = GQ_ENOMEM;
    if (rc != GQ_OK)
        return l->failed ? (fputs("error: out of memory\n", stderr), EXIT_FAILURE)
                         : fail_named(rc, &err, resource, l->name);
    return EXIT_SUCCESS;
}

static int list(struct lister *l, const char *resource, const gq_workload_filter *f)
{
    bool namespaced;
    int rc = list_build(l, resource, f, &namespaced);

    if (rc != EXIT_SUCCESS)
        return rc == LIST_PRINTED ? EXIT_SUCCESS : rc;
    if (l->name && !l->rows && !is_provreq_resource(resource))
        return not_found(resource, l->name); /* kubectl: an error, not an empty list */
    if (l->names_only)
        return l->rows ? EXIT_SUCCESS : (list_no_resources(l, namespaced), EXIT_SUCCESS);
    return print_table(l, namespaced);
}

static int64_t wall_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int list_fetch(struct lister *l, gq_workload_filter *f)
{
    char *json = NULL, *ns = NULL;
    int rc;

    if ((rc = cluster_workloads(l->g, &json, &l->jobs, &ns)) != EXIT_SUCCESS)
        return rc;
    gq_free(l->json);
    gq_free(l->ns);
    l->json = json;
    l->ns = ns;
    if (!l->all_ns)
        f->namespace = ns;
    l->now_ms = wall_ms();
    return EXIT_SUCCESS;
}

/* Cluster mode: the workloads gpuqd shows or, without it, the labelled Jobs. */
static int list_cluster(struct lister *l, const char *resource, gq_workload_filter *f)
{
    int rc;

    if (strcmp(resource, "workload") != 0)
        return cli_usage_error("in cluster mode gpuq lists workloads; use kubectl get %s",
                               resource);
    if (l->g->output && strcmp(l->g->output, "yaml") == 0)
        return cli_usage_error("-o yaml is not available in cluster mode yet; use -o json");
    if ((rc = list_fetch(l, f)) == EXIT_SUCCESS)
        rc = l->watch ? list_watch(l, resource, f) : list(l, resource, f);
    gq_free(l->json);
    gq_free(l->ns);
    return rc;
}

static int list_local(struct lister *l, const char *resource, gq_workload_filter *f)
{
    int rc;

    if (!(l->db = cli_open(l->g)))
        return EXIT_FAILURE;
    l->now_ms = gq_db_now_ms(l->db); /* a simulation's virtual time while one runs */
    rc = l->watch ? list_watch(l, resource, f) : list(l, resource, f);
    gq_db_close(l->db);
    return rc;
}

/*
 * The selection flags and -o's template forms into pk->o, checked before
 * anything is read. *file_text gets a -file form's text (free it).
 * EXIT_SUCCESS, or the usage error said.
 */
static int picks_init(struct picks *pk, const struct global *g, const char *resource,
                      const char *selector, const char *field_selector, const char *sort_by,
                      char **file_text)
{
    const gq_get_options init = GQ_GET_OPTIONS_INIT;
    const char *out = g->output;
    gq_error err = {0, ""};
    size_t len;

    *file_text = NULL;
    memset(pk, 0, sizeof(*pk));
    pk->o = init;
    pk->o.resource = resource;
    pk->o.label_selector = selector;
    pk->o.field_selector = field_selector;
    pk->o.sort_by = sort_by;
    pk->o.no_headers = g->no_headers;
    if (out && strncmp(out, "jsonpath=", 9) == 0)
        pk->o.jsonpath = out + 9;
    else if (out && strncmp(out, "custom-columns=", 15) == 0)
        pk->o.columns = out + 15;
    else if (out && (strncmp(out, "jsonpath-file=", 14) == 0 ||
                     strncmp(out, "custom-columns-file=", 20) == 0)) {
        bool cols = out[0] == 'c';

        if (!(*file_text = cli_read_file(strchr(out, '=') + 1, &len)))
            return EXIT_FAILURE;
        if (cols) {
            pk->o.columns = *file_text;
            pk->o.columns_file = true;
        } else {
            pk->o.jsonpath = *file_text;
        }
    }
    if (gq_get_check(&pk->o, &err) != GQ_OK)
        return cli_usage_error("%s", err.msg);
    return EXIT_SUCCESS;
}

/* list pods --for: the selection flags checked, then the pods (list_pods.c). */
static int list_pods_cmd(const struct global *g, int nargs, char **argv, const char *for_spec,
                         const char *selector, const char *field_selector, const char *sort_by,
                         char **file_text)
{
    struct picks pk;
    int rc;

    if (nargs > 1)
        return cli_usage_error("list pods takes no NAME; use --for TYPE/NAME, got \"%s\"",
                               argv[1]);
    if (!for_spec)
        return cli_usage_error("required flag(s) \"for\" not set");
    if ((rc = picks_init(&pk, g, "pod", selector, field_selector, sort_by, file_text)) !=
        EXIT_SUCCESS)
        return rc;
    rc = list_pods(g, for_spec,
                   selector || field_selector || sort_by || (g->output && strcmp(g->output, "wide") &&
                                                             strcmp(g->output, "name") &&
                                                             strcmp(g->output, "table"))
                       ? &pk
                       : NULL);
    free(*file_text);
    *file_text = NULL;
    return rc;
}

int cmd_list(struct global *g, int argc, char **argv)
{
    static const char *status, *lq, *cq, *selector, *field_selector, *sort_by, *for_spec;
    static struct strlist label_cols;
    static bool show_labels, watch, watch_only;
    static const struct flag flags[] = {
        {"status", 0, FLAG_STRING, &status, "STATE",
         "workloads in this state: all|pending|quotareserved|admitted|finished|cancelled"},
        {"localqueue", 'q', FLAG_STRING, &lq, "NAME", "workloads of this LocalQueue"},
        {"clusterqueue", 'c', FLAG_STRING, &cq, "NAME", "workloads of this ClusterQueue"},
        {"selector", 'l', FLAG_STRING, &selector, "SELECTOR",
         "label selector: k=v, k!=v, k in (a,b), k notin (a), k, !k; comma-separated"},
        {"field-selector", 0, FLAG_STRING, &field_selector, "SELECTOR",
         "field selector: metadata.name, metadata.namespace, and for workloads status.state "
         "and spec.queueName (=, ==, !=)"},
        {"sort-by", 0, FLAG_STRING, &sort_by, "JSONPATH",
         "sort by this field of the objects, e.g. .metadata.creationTimestamp"},
        {"label-columns", 'L', FLAG_LIST, &label_cols, "KEY,...",
         "a column for each of these labels"},
        {"show-labels", 0, FLAG_BOOL, &show_labels, NULL, "a last column with all labels"},
        {"watch", 'w', FLAG_BOOL, &watch, NULL,
         "after the listing, a row for each object that changes, until interrupted"},
        {"watch-only", 0, FLAG_BOOL, &watch_only, NULL,
         "a row for each object that changes, without the listing first"},
        {"for", 0, FLAG_STRING, &for_spec, "TYPE/NAME",
         "list pods: the pods of this workload or job (cluster mode)"},
        {NULL, 0, FLAG_BOOL, NULL, NULL, NULL},
    };
    gq_workload_filter f = GQ_WORKLOAD_FILTER_INIT;
    struct picks pk;
    struct lister l;
    const char *resource = "workload";
    char *file_text = NULL;
    int nargs, rc;

    if ((rc = cli_parse(g, &commands[2], flags, argc, argv, &nargs)) != EXIT_SUCCESS)
        return rc;
    if (g->help) {
        cli_help(&commands[2], flags);
        return EXIT_SUCCESS;
    }
    cli_type_name(&nargs, argv);
    if (nargs >= 1 && (!strcmp(argv[0], "pods") || !strcmp(argv[0], "pod") ||
                       !strcmp(argv[0], "po")))
        return list_pods_cmd(g, nargs, argv, for_spec, selector, field_selector, sort_by,
                             &file_text);
    if (for_spec)
        return cli_usage_error("--for is for list pods");
    if (nargs >= 1 && !(resource = gq_resource_name(argv[0])))
        return cli_unknown_resource(argv[0]);
    if (nargs > 2)
        return cli_usage_error("list takes a RESOURCE and at most one NAME, got \"%s\"",
                               argv[2]);
    if (nargs == 2 && g->all_namespaces)
        return cli_usage_error("a resource cannot be retrieved by name across all namespaces");
    if (status && !status_valid(status))
        return cli_usage_error("invalid --status \"%s\": want all, pending, quotareserved, "
                               "admitted, finished or cancelled",
                               status);
    if ((watch || watch_only) && g->output && strcmp(g->output, "wide") != 0 &&
        strcmp(g->output, "table") != 0)
        return cli_usage_error("-w prints table rows; -o %s does not go with it", g->output);
    if ((rc = picks_init(&pk, g, resource, selector, field_selector, sort_by, &file_text)) !=
        EXIT_SUCCESS)
        return rc;
    pk.label_cols = &label_cols;
    pk.show_labels = show_labels;
    memset(&l, 0, sizeof(l));
    l.g = g;
    if (selector || field_selector || sort_by || label_cols.n || show_labels ||
        is_template_output(g->output))
        l.pk = &pk;
    l.wide = g->output && strcmp(g->output, "wide") == 0;
    l.names_only = g->output && strcmp(g->output, "name") == 0;
    l.watch = watch || watch_only;
    l.watch_only = watch_only;
    l.all_ns = g->all_namespaces;
    l.name = nargs == 2 ? argv[1] : NULL;
    if (l.name && !is_provreq_resource(resource))
        f.name = l.name; /* a workload or job name; objects are matched by name as listed */
    f.namespace = g->all_namespaces ? NULL : cli_namespace(g);
    f.state = status;
    f.local_queue = lq;
    f.cluster_queue = cq;
    rc = cli_cluster_mode(g) ? list_cluster(&l, resource, &f) : list_local(&l, resource, &f);
    table_free(l.t);
    list_picks_reset(&pk);
    free(file_text);
    return rc;
}
