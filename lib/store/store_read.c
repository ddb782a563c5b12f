/*
 * store_read.c: the statements behind describe, the listings, metrics and the
 * run summary (store_read.h), so that the API reads typed rows and holds no
 * SQL. Each function binds its parameters, checks each row's shape where a
 * damaged file could hand back a NULL or a type the schema rules out (the
 * shapes of struct gq__query), and hands the row to its caller as a struct.
 *
 * Values are converted as the reads always have: text as SQLite prints it;
 * integers the listings read typed as integers; integers that were read as
 * text (JSON fields, sums) through strtoll of that text, so that a damaged
 * value reads the same as before. Statements are cached by their static
 * text's address like gq__store_query's, leaving gq__store_stmt its room, and
 * prepared afresh when the cached one is in use (a row callback that reads
 * again) or the cache is short of room. Sizes: describe reads a few dozen
 * rows; a listing may stream 100,000, one callback per row and no copy.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "state.h"
#include "store_int.h"
#include "store_read.h"
#include "util.h"

/* ------------------------------------------------------------------ cursor */

/* Reads one row of stmt into the caller's struct and hands it on; non-zero stops. */
typedef int (*row_fn)(sqlite3_stmt *stmt, void *payload);

struct row_walk {
    row_fn fn;
    void *payload;
};

static int row_shim(sqlite3_stmt *stmt, void *payload, gq_error *err)
{
    const struct row_walk *w = payload;

    (void)err;
    return w->fn(stmt, w->payload);
}

/* Step c to the end through fn (gq__store_each_row). Closes c. */
static int each_row(struct gq_store *st, struct gq__cursor *c, const char *shape, bool typed,
                    row_fn fn, void *payload, gq_error *err)
{
    struct row_walk w = {fn, payload};

    return gq__store_each_row(st, c, shape, typed, 0, row_shim, &w, err);
}

/* Column i of a typed read as text: NULL for an integer (its value comes through col_int). */
static const char *col_typed_text(sqlite3_stmt *s, int i)
{
    return sqlite3_column_type(s, i) == SQLITE_INTEGER ? NULL : gq__col_text(s, i);
}

/* Column i of a typed read as an integer: 0 for anything else. */
static int64_t col_int(sqlite3_stmt *s, int i)
{
    return sqlite3_column_type(s, i) == SQLITE_INTEGER ? sqlite3_column_int64(s, i) : 0;
}

/* Column i read as text, then as a number the way strtoll reads it (0 for NULL). */
static int64_t col_num(sqlite3_stmt *s, int i)
{
    const char *t = gq__col_text(s, i);

    return t ? strtoll(t, NULL, 10) : 0;
}

/* ---------------------------------------------------------------- one text */

struct text_walk {
    gq__text_fn fn;
    void *payload;
};

static int text_row(sqlite3_stmt *stmt, void *payload)
{
    struct text_walk *w = payload;

    return w->fn(gq__col_text(stmt, 0), w->payload);
}

/* The first column of each row of sql, ?1 bound to p1. */
static int text_rows(struct gq_store *st, const char *sql, const char *p1, gq__text_fn fn,
                     void *payload, gq_error *err)
{
    struct text_walk w = {fn, payload};
    struct gq__cursor c;
    int rc;

    if ((rc = gq__store_cursor_open(st, sql, &c, err)) != GQ_OK)
        return rc;
    gq__bind_text(c.stmt, 1, p1);
    return each_row(st, &c, NULL, false, text_row, &w, err);
}

/* ================================================================ describe */

/*
 * A text column on one line, as a describe cell must be: newlines shown as
 * "\n", tabs and form feeds (describe's column and flush marks) as spaces.
 */
#define ONE_LINE(x) "replace(replace(replace(" x ", char(10), '\\n'), char(9), ' '), char(12), ' ')"

int gq__store_spec_labels(struct gq_store *st, const char *spec, gq__text_fn fn, void *payload,
                          gq_error *err)
{
    static const char sql[] =
        "SELECT key || '=' || value FROM json_each(?1, '$.metadata.labels') ORDER BY key";

    return text_rows(st, sql, spec, fn, payload, err);
}

int gq__store_spec_annotations(struct gq_store *st, const char *spec, gq__text_fn fn,
                               void *payload, gq_error *err)
{
    static const char sql[] =
        "SELECT key || ': ' || " ONE_LINE("value") " FROM json_each(?1, '$.metadata.annotations') "
                                                   "ORDER BY key";

    return text_rows(st, sql, spec, fn, payload, err);
}

static int count_row(sqlite3_stmt *stmt, void *payload)
{
    *(int64_t *)payload = col_num(stmt, 0);
    return 0;
}

int gq__store_event_count(struct gq_store *st, const char *uid, int64_t *out, gq_error *err)
{
    static const char sql[] = "SELECT count(*) FROM events WHERE uid = ?1";
    struct gq__cursor c;
    int rc;

    *out = 0;
    if ((rc = gq__store_cursor_open(st, sql, &c, err)) != GQ_OK)
        return rc;
    gq__bind_text(c.stmt, 1, uid);
    return each_row(st, &c, NULL, false, count_row, out, err);
}

struct event_walk {
    gq__event_fn fn;
    void *payload;
};

static int event_row(sqlite3_stmt *stmt, void *payload)
{
    struct event_walk *w = payload;
    struct gq_event_row e;

    e.type = gq__col_text(stmt, 0);
    e.reason = gq__col_text(stmt, 1);
    e.at_ms = col_num(stmt, 2);
    e.message = gq__col_text(stmt, 3);
    return w->fn(&e, w->payload);
}

int gq__store_events_of(struct gq_store *st, const char *uid, gq__event_fn fn, void *payload,
                        gq_error *err)
{
    static const char sql[] =
        "SELECT type, reason, at, " ONE_LINE("trim(message)") " FROM events WHERE uid = ?1 "
                                                              "ORDER BY at, id";
    struct event_walk w = {fn, payload};
    struct gq__cursor c;
    int rc;

    if ((rc = gq__store_cursor_open(st, sql, &c, err)) != GQ_OK)
        return rc;
    gq__bind_text(c.stmt, 1, uid);
    return each_row(st, &c, NULL, false, event_row, &w, err);
}

struct tree_walk {
    gq__json_node_fn fn;
    void *payload;
};

static int tree_row(sqlite3_stmt *stmt, void *payload)
{
    struct tree_walk *w = payload;
    struct gq_json_node n;

    n.key = gq__col_text(stmt, 0);
    n.type = gq__col_text(stmt, 1);
    n.value = gq__col_text(stmt, 2);
    n.id = col_num(stmt, 3);
    n.top = sqlite3_column_type(stmt, 4) == SQLITE_NULL;
    n.parent = col_num(stmt, 4);
    return w->fn(&n, w->payload);
}

int gq__store_json_tree(struct gq_store *st, const char *json, const char *path, bool skip_meta,
                        gq__json_node_fn fn, void *payload, gq_error *err)
{
    static const char sql[] =
        "SELECT key, type, CASE type WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' "
        "WHEN 'null' THEN '<nil>' ELSE " ONE_LINE(
            "atom") " END, id, parent "
                    "FROM json_tree(?1, ?2) "
                    "WHERE ?3 IS NULL OR NOT (fullkey IN ('$.apiVersion', '$.kind', '$.metadata') "
                    "OR path LIKE '$.metadata%')";
    struct tree_walk w = {fn, payload};
    struct gq__cursor c;
    int rc;

    if ((rc = gq__store_cursor_open(st, sql, &c, err)) != GQ_OK)
        return rc;
    gq__bind_text(c.stmt, 1, json);
    gq__bind_text(c.stmt, 2, path);
    gq__bind_text(c.stmt, 3, skip_meta ? "1" : NULL);
    return each_row(st, &c, NULL, false, tree_row, &w, err);
}

/* ------------------------------------------------------------ object rows */

/* A LabelSelector as kubectl formats one; "<none>" when absent (no namespace matches). */
#define NS_SELECTOR                                                                                \
    "CASE WHEN coalesce(json_type(spec, '$.spec.namespaceSelector'), 'null') = 'null' "            \
    "THEN '<none>' ELSE coalesce((SELECT group_concat(x, ',') FROM ("                              \
    "SELECT key || '=' || value AS x "                                                             \
    "FROM json_each(spec, '$.spec.namespaceSelector.matchLabels') UNION ALL "                      \
    "SELECT CASE e.value ->> 'operator' WHEN 'Exists' THEN e.value ->> 'key' "                     \
    "WHEN 'DoesNotExist' THEN '!' || (e.value ->> 'key') "                                         \
    "ELSE (e.value ->> 'key') || ' ' || lower(e.value ->> 'operator') || ' (' || "                 \
    "(SELECT group_concat(v.value, ',') FROM json_each(e.value, '$.values') v) || ')' END "        \
    "FROM json_each(spec, '$.spec.namespaceSelector.matchExpressions') e)), "                      \
    "'<all namespaces>') END"

/*
 * Per kind, the row describe reads: name, uid, spec, created_at (namespace
 * first for a LocalQueue), then the kind's own columns into the fields named.
 */
enum extra_field { X_NONE, X_COHORT, X_STRATEGY, X_STOP, X_SELECTOR, X_WITHIN, X_RECLAIM,
                   X_BORROW, X_CQ, X_TOPOLOGY, X_API_VERSION, X_KIND };

static const struct detail_query {
    enum gq_kind kind;
    const char *sql; /* ?1 name, ?2 namespace */
    enum extra_field extra[7];
} detail_queries[] = {
    {GQ_KIND_CLUSTER_QUEUE,
     "SELECT name, uid, spec, created_at, cohort, strategy, stop_policy, " NS_SELECTOR ", "
     "coalesce(spec ->> '$.spec.preemption.withinClusterQueue', 'Never'), "
     "coalesce(spec ->> '$.spec.preemption.reclaimWithinCohort', 'Never'), "
     "coalesce(spec ->> '$.spec.preemption.borrowWithinCohort.policy', 'Never') "
     "FROM cluster_queues WHERE name = ?1",
     {X_COHORT, X_STRATEGY, X_STOP, X_SELECTOR, X_WITHIN, X_RECLAIM, X_BORROW}},
    {GQ_KIND_LOCAL_QUEUE,
     "SELECT namespace, name, uid, spec, created_at, cluster_queue, "
     "stop_policy FROM local_queues WHERE name = ?1 AND namespace = ?2",
     {X_CQ, X_STOP}},
    {GQ_KIND_RESOURCE_FLAVOR,
     "SELECT name, uid, spec, created_at, "
     "spec ->> '$.spec.topologyName' FROM resource_flavors WHERE name = ?1",
     {X_TOPOLOGY}},
    {GQ_KIND_COHORT, "SELECT name, uid, spec, created_at, parent FROM cohorts WHERE name = ?1",
     {X_COHORT}},
    {GQ_KIND_NAMESPACE, "SELECT name, uid, spec, created_at, spec ->> 'apiVersion', "
                        "spec ->> 'kind' FROM namespaces WHERE name = ?1",
     {X_API_VERSION, X_KIND}},
    {GQ_KIND_PRIORITY_CLASS, "SELECT name, uid, spec, created_at, spec ->> 'apiVersion', "
                             "spec ->> 'kind' FROM priority_classes WHERE name = ?1",
     {X_API_VERSION, X_KIND}},
    {GQ_KIND_ADMISSION_CHECK, "SELECT name, uid, spec, created_at, spec ->> 'apiVersion', "
                              "spec ->> 'kind' FROM admission_checks WHERE name = ?1",
     {X_API_VERSION, X_KIND}},
    {GQ_KIND_PROVISIONING_CONFIG, "SELECT name, uid, spec, created_at, spec ->> 'apiVersion', "
                                  "spec ->> 'kind' FROM provisioning_configs WHERE name = ?1",
     {X_API_VERSION, X_KIND}},
    {GQ_KIND_CONFIGURATION, "SELECT name, uid, spec, created_at, spec ->> 'apiVersion', "
                            "spec ->> 'kind' FROM configurations WHERE name = ?1",
     {X_API_VERSION, X_KIND}},
    {GQ_KIND_NODE_POOL, "SELECT name, uid, spec, created_at, spec ->> 'apiVersion', "
                        "spec ->> 'kind' FROM node_pools WHERE name = ?1",
     {X_API_VERSION, X_KIND}},
    {GQ_KIND_INTEGRATION, "SELECT name, uid, spec, created_at, spec ->> 'apiVersion', "
                          "spec ->> 'kind' FROM integrations WHERE name = ?1",
     {X_API_VERSION, X_KIND}},
    {GQ_KIND_TRAINING_RUNTIME, "SELECT name, uid, spec, created_at, spec ->> 'apiVersion', "
                               "spec ->> 'kind' FROM training_runtimes WHERE name = ?1",
     {X_API_VERSION, X_KIND}},
    {GQ_KIND_LIMIT_RANGE, "SELECT namespace, name, uid, spec, created_at, spec ->> 'apiVersion', "
                          "spec ->> 'kind' FROM limit_ranges WHERE name = ?1 AND namespace = ?2",
     {X_API_VERSION, X_KIND}},
    {GQ_KIND_RUNTIME_CLASS, "SELECT name, uid, spec, created_at, spec ->> 'apiVersion', "
                            "spec ->> 'kind' FROM runtime_classes WHERE name = ?1",
     {X_API_VERSION, X_KIND}},
    {GQ_KIND_MK_CLUSTER, "SELECT name, uid, " GQ_SQL_MK_CLUSTER_WITH_STATUS ", created_at, "
                         "spec ->> 'apiVersion', "
                         "spec ->> 'kind' FROM multikueue_clusters WHERE name = ?1",
     {X_API_VERSION, X_KIND}},
    {GQ_KIND_MK_CONFIG, "SELECT name, uid, spec, created_at, spec ->> 'apiVersion', "
                        "spec ->> 'kind' FROM multikueue_configs WHERE name = ?1",
     {X_API_VERSION, X_KIND}},
};

static char **extra_slot(struct gq_obj_detail *d, enum extra_field f)
{
    switch (f) {
    case X_COHORT:
        return &d->cohort;
    case X_STRATEGY:
        return &d->strategy;
    case X_STOP:
        return &d->stop_policy;
    case X_SELECTOR:
        return &d->ns_selector;
    case X_WITHIN:
        return &d->within_cq;
    case X_RECLAIM:
        return &d->reclaim;
    case X_BORROW:
        return &d->borrow;
    case X_CQ:
        return &d->cluster_queue;
    case X_TOPOLOGY:
        return &d->topology;
    case X_API_VERSION:
        return &d->api_version;
    case X_KIND:
        return &d->kind;
    default:
        return NULL;
    }
}

/* Column i copied into *slot; false when out of memory. */
static bool copy_col(sqlite3_stmt *stmt, int i, char **slot)
{
    const char *t = gq__col_text(stmt, i);

    *slot = gq__strdup(t);
    return !t || *slot;
}

struct detail_walk {
    const struct detail_query *q;
    struct gq_obj_detail *d;
};

/* The first row is the object: copied, and the walk stops (1). */
static int detail_row(sqlite3_stmt *stmt, void *payload)
{
    struct detail_walk *w = payload;
    struct gq_obj_detail *d = w->d;
    int i = 0, k;
    bool ok = true;

    if (gq__kind_is_namespaced(w->q->kind))
        ok = copy_col(stmt, i++, &d->ns);
    ok = ok && copy_col(stmt, i, &d->name) && copy_col(stmt, i + 1, &d->uid) &&
         copy_col(stmt, i + 2, &d->spec);
    d->has_created = sqlite3_column_type(stmt, i + 3) != SQLITE_NULL;
    d->created_ms = col_num(stmt, i + 3);
    for (k = 0, i += 4; ok && k < 7 && w->q->extra[k] != X_NONE; k++, i++)
        ok = copy_col(stmt, i, extra_slot(d, w->q->extra[k]));
    d->found = true;
    return ok ? 1 : GQ_ENOMEM;
}

void gq__store_obj_detail_clear(struct gq_obj_detail *d)
{
    enum extra_field f;

    free(d->ns);
    free(d->name);
    free(d->uid);
    free(d->spec);
    for (f = X_COHORT; f <= X_KIND; f++)
        free(*extra_slot(d, f));
    memset(d, 0, sizeof(*d));
}

int gq__store_object_detail(struct gq_store *st, enum gq_kind kind, const char *ns,
                            const char *name, struct gq_obj_detail *out, gq_error *err)
{
    struct detail_walk w = {NULL, out};
    struct gq__cursor c;
    size_t i;
    int rc;

    memset(out, 0, sizeof(*out));
    for (i = 0; i < sizeof(detail_queries) / sizeof(detail_queries[0]); i++)
        if (detail_queries[i].kind == kind)
            w.q = &detail_queries[i];
    if (!w.q)
        return gq__error(err, GQ_EINVALID, "cannot describe a %s", gq__kind_resource(kind));
    if ((rc = gq__store_cursor_open(st, w.q->sql, &c, err)) != GQ_OK)
        return rc;
    gq__bind_text(c.stmt, 1, name);
    if (gq__kind_is_namespaced(kind))
        gq__bind_text(c.stmt, 2, ns);
    rc = each_row(st, &c, NULL, false, detail_row, &w, err);
    if (rc == GQ_ENOMEM)
        rc = gq__error(err, GQ_ENOMEM, "out of memory");
    return rc == 1 ? GQ_OK : rc;
}

/* ------------------------------------------------ admission fair sharing */

struct afs_walk {
    struct gq_lq_afs *out;
};

static int afs_row(sqlite3_stmt *stmt, void *payload)
{
    struct gq_lq_afs *a = ((struct afs_walk *)payload)->out;

    a->last_ms = sqlite3_column_int64(stmt, 2);
    return copy_col(stmt, 0, &a->consumed) && copy_col(stmt, 1, &a->weight) ? 1 : GQ_ENOMEM;
}

int gq__store_lq_afs(struct gq_store *st, const char *ns, const char *name, struct gq_lq_afs *out,
                     gq_error *err)
{
    static const char sql[] =
        "SELECT u.consumed, coalesce(q.spec ->> '$.spec.fairSharing.weight', '1'), "
        "u.last_update FROM lq_afs_usage u JOIN local_queues q "
        "ON q.namespace = u.namespace AND q.name = u.name WHERE u.namespace = ?1 AND u.name = ?2";
    struct afs_walk w = {out};
    struct gq__cursor c;
    int rc;

    memset(out, 0, sizeof(*out));
    if ((rc = gq__store_cursor_open(st, sql, &c, err)) != GQ_OK)
        return rc;
    gq__bind_text(c.stmt, 1, ns);
    gq__bind_text(c.stmt, 2, name);
    rc = each_row(st, &c, "lq_afs_usage:TTI", false, afs_row, &w, err);
    if (rc == GQ_ENOMEM)
        rc = gq__error(err, GQ_ENOMEM, "out of memory");
    if (rc != GQ_OK && rc != 1)
        gq__store_lq_afs_clear(out);
    return rc == 1 ? GQ_OK : rc;
}

void gq__store_lq_afs_clear(struct gq_lq_afs *a)
{
    free(a->consumed);
    free(a->weight);
    memset(a, 0, sizeof(*a));
}

/* ------------------------------------------------------------ quota tables */

struct group_walk {
    gq__group_fn fn;
    void *payload;
};

static int group_row(sqlite3_stmt *stmt, void *payload)
{
    struct group_walk *w = payload;
    struct gq_group_row g;

    g.flavor = gq__col_text(stmt, 0);
    g.resource = gq__col_text(stmt, 1);
    g.nominal = gq__col_text(stmt, 2);
    g.borrowing_limit = gq__col_text(stmt, 3);
    g.lending_limit = gq__col_text(stmt, 4);
    g.usage = col_num(stmt, 5);
    return w->fn(&g, w->payload);
}

int gq__store_quota_groups(struct gq_store *st, const char *spec, const char *cluster_queue,
                           gq__group_fn fn, void *payload, gq_error *err)
{
    static const char sql[] =
        "SELECT f.value ->> 'name', r.value ->> 'name', r.value ->> 'nominalQuota', "
        "r.value ->> 'borrowingLimit', r.value ->> 'lendingLimit', "
        "(SELECT coalesce(sum(u.amount), 0) FROM usage u WHERE u.cluster_queue = ?2 "
        "  AND u.flavor = f.value ->> 'name' AND u.resource = r.value ->> 'name') "
        "FROM json_each(?1, '$.spec.resourceGroups') g, json_each(g.value, '$.flavors') f, "
        "json_each(f.value, '$.resources') r ORDER BY g.key, f.key, r.key";
    struct group_walk w = {fn, payload};
    struct gq__cursor c;
    int rc;

    if ((rc = gq__store_cursor_open(st, sql, &c, err)) != GQ_OK)
        return rc;
    gq__bind_text(c.stmt, 1, spec);
    gq__bind_text(c.stmt, 2, cluster_queue);
    return each_row(st, &c, NULL, false, group_row, &w, err);
}

int gq__store_cq_checks(struct gq_store *st, const char *spec, gq__text_fn fn, void *payload,
                        gq_error *err)
{
    static const char sql[] =
        "SELECT (c.value ->> 'name') || coalesce(' (flavors: ' || (SELECT group_concat(f.value, "
        "', ') FROM json_each(c.value, '$.onFlavors') f) || ')', '') "
        "FROM json_each(?1, '$.spec.admissionChecksStrategy.admissionChecks') c ORDER BY c.key";

    return text_rows(st, sql, spec, fn, payload, err);
}

int gq__store_flavor_labels(struct gq_store *st, const char *spec, gq__text_fn fn, void *payload,
                            gq_error *err)
{
    static const char sql[] =
        "SELECT key || '=' || value FROM json_each(?1, '$.spec.nodeLabels') ORDER BY key";

    return text_rows(st, sql, spec, fn, payload, err);
}

int gq__store_flavor_taints(struct gq_store *st, const char *spec, gq__text_fn fn, void *payload,
                            gq_error *err)
{
    static const char sql[] =
        "SELECT (t.value ->> 'key') || coalesce('=' || (t.value ->> 'value'), '') || ':' || "
        "(t.value ->> 'effect') FROM json_each(?1, '$.spec.nodeTaints') t ORDER BY t.key";

    return text_rows(st, sql, spec, fn, payload, err);
}

int gq__store_flavor_tolerations(struct gq_store *st, const char *spec, gq__text_fn fn,
                                 void *payload, gq_error *err)
{
    static const char sql[] =
        "SELECT coalesce(t.value ->> 'key', '') || coalesce('=' || (t.value ->> 'value'), '') || "
        "coalesce(':' || (t.value ->> 'effect'), '') || CASE WHEN t.value ->> 'operator' = "
        "'Exists' AND t.value ->> 'value' IS NULL THEN CASE WHEN coalesce(t.value ->> 'key', "
        "t.value ->> 'effect') IS NULL THEN 'op=Exists' ELSE ' op=Exists' END ELSE '' END || "
        "coalesce(' for ' || (t.value ->> 'tolerationSeconds') || 's', '') "
        "FROM json_each(?1, '$.spec.tolerations') t ORDER BY t.key";

    return text_rows(st, sql, spec, fn, payload, err);
}

int gq__store_flavor_users(struct gq_store *st, const char *flavor, gq__text_fn fn, void *payload,
                           gq_error *err)
{
    static const char sql[] = "SELECT DISTINCT owner FROM quotas WHERE owner_kind = "
                              "'ClusterQueue' AND flavor = ?1 ORDER BY owner";

    return text_rows(st, sql, flavor, fn, payload, err);
}

int gq__store_cohort_members(struct gq_store *st, const char *cohort, gq__text_fn fn,
                             void *payload, gq_error *err)
{
    static const char sql[] = "SELECT name FROM cluster_queues WHERE cohort = ?1 ORDER BY name";

    return text_rows(st, sql, cohort, fn, payload, err);
}

int gq__store_cohort_children(struct gq_store *st, const char *cohort, gq__text_fn fn,
                              void *payload, gq_error *err)
{
    static const char sql[] = "SELECT name FROM cohorts WHERE parent = ?1 ORDER BY name";

    return text_rows(st, sql, cohort, fn, payload, err);
}

/* --------------------------------------------------------------- workloads */

static int wl_detail_row(sqlite3_stmt *stmt, void *payload)
{
    struct gq_wl_detail *w = payload;
    bool ok;

    ok = copy_col(stmt, 0, &w->spec) && copy_col(stmt, 1, &w->admission) &&
         copy_col(stmt, 5, &w->evicted_reason) && copy_col(stmt, 6, &w->evicted_message) &&
         copy_col(stmt, 7, &w->preempted_reason) && copy_col(stmt, 10, &w->pods_ready_reason);
    w->priority = col_num(stmt, 2);
    w->queued_at = col_num(stmt, 3);
    w->id = col_num(stmt, 4);
    w->evictions = col_num(stmt, 8);
    w->has_duration = sqlite3_column_type(stmt, 9) != SQLITE_NULL;
    w->duration_ms = col_num(stmt, 9);
    w->pods_ready_at = col_num(stmt, 11);
    w->requeue_count = col_num(stmt, 12);
    w->found = true;
    return ok ? 1 : GQ_ENOMEM;
}

void gq__store_wl_detail_clear(struct gq_wl_detail *w)
{
    free(w->spec);
    free(w->admission);
    free(w->evicted_reason);
    free(w->evicted_message);
    free(w->preempted_reason);
    free(w->pods_ready_reason);
    memset(w, 0, sizeof(*w));
}

int gq__store_workload_detail(struct gq_store *st, const char *uid, struct gq_wl_detail *out,
                              gq_error *err)
{
    static const char sql[] =
        "SELECT spec, admission, priority, queued_at, id, evicted_reason, evicted_message, "
        "preempted_reason, evictions, duration_ms, pods_ready_reason, pods_ready_at, "
        "requeue_count FROM workloads WHERE uid = ?1";
    struct gq__cursor c;
    int rc;

    memset(out, 0, sizeof(*out));
    if ((rc = gq__store_cursor_open(st, sql, &c, err)) != GQ_OK)
        return rc;
    gq__bind_text(c.stmt, 1, uid);
    rc = each_row(st, &c, NULL, false, wl_detail_row, out, err);
    if (rc == GQ_ENOMEM)
        rc = gq__error(err, GQ_ENOMEM, "out of memory");
    return rc == 1 ? GQ_OK : rc;
}

struct podset_walk {
    gq__podset_fn fn;
    void *payload;
};

static int podset_row(sqlite3_stmt *stmt, void *payload)
{
    struct podset_walk *w = payload;
    struct gq_podset_row p;

    p.podset = gq__col_text(stmt, 0);
    p.count = gq__col_text(stmt, 1);
    p.resource = gq__col_text(stmt, 2);
    p.per_pod = gq__col_text(stmt, 3);
    p.amount = p.per_pod ? col_num(stmt, 4) : 0;
    return w->fn(&p, w->payload);
}

int gq__store_workload_podsets(struct gq_store *st, const char *uid, gq__podset_fn fn,
                               void *payload, gq_error *err)
{
    static const char sql[] =
        "SELECT p.value ->> 'name', p.value ->> 'count', r.key, r.value, a.value "
        "FROM workloads w JOIN json_each(w.podsets) p "
        "LEFT JOIN json_each(p.value, '$.requests') r ON 1 "
        "LEFT JOIN json_each(p.value, '$.amounts') a ON a.key = r.key "
        "WHERE w.uid = ?1 ORDER BY p.key, r.key";
    struct podset_walk w = {fn, payload};
    struct gq__cursor c;
    int rc;

    if ((rc = gq__store_cursor_open(st, sql, &c, err)) != GQ_OK)
        return rc;
    gq__bind_text(c.stmt, 1, uid);
    return each_row(st, &c, NULL, false, podset_row, &w, err);
}

struct ahead_walk {
    gq__ahead_fn fn;
    void *payload;
};

static int ahead_row(sqlite3_stmt *stmt, void *payload)
{
    struct ahead_walk *w = payload;
    struct gq_ahead_row a;

    a.ns = gq__col_text(stmt, 0);
    a.name = gq__col_text(stmt, 1);
    a.priority = col_num(stmt, 2);
    a.gpus = col_num(stmt, 3);
    a.queued_at = col_num(stmt, 4);
    a.reason = gq__col_text(stmt, 5);
    return w->fn(&a, w->payload);
}

int gq__store_queue_ahead(struct gq_store *st, const char *cluster_queue,
                          const struct gq_wl_detail *wl, gq__ahead_fn fn, void *payload,
                          gq_error *err)
{
    static const char sql[] =
        "SELECT w.namespace, w.name, w.priority, w.gpus, w.queued_at, w.reason "
        "FROM workloads w JOIN local_queues lq ON lq.namespace = w.namespace "
        "AND lq.name = w.local_queue WHERE w.state = " GQ_SQL_STATE(pending)
        " AND lq.cluster_queue = ?1 "
        "AND (w.priority > ?2 OR (w.priority = ?2 AND (w.queued_at < ?3 OR "
        "(w.queued_at = ?3 AND w.id < ?4)))) ORDER BY w.priority DESC, w.queued_at, w.id "
        "LIMIT 10";
    struct ahead_walk w = {fn, payload};
    struct gq__cursor c;
    int rc;

    if ((rc = gq__store_cursor_open(st, sql, &c, err)) != GQ_OK)
        return rc;
    gq__bind_text(c.stmt, 1, cluster_queue);
    sqlite3_bind_int64(c.stmt, 2, wl->priority);
    sqlite3_bind_int64(c.stmt, 3, wl->queued_at);
    sqlite3_bind_int64(c.stmt, 4, wl->id);
    return each_row(st, &c, NULL, false, ahead_row, &w, err);
}

/* ------------------------------------------------- provisioning requests */

struct param_walk {
    gq__param_fn fn;
    void *payload;
};

static int param_row(sqlite3_stmt *stmt, void *payload)
{
    struct param_walk *w = payload;
    struct gq_param_row p = {gq__col_text(stmt, 0), gq__col_text(stmt, 1)};

    return w->fn(&p, w->payload);
}

int gq__store_provreq_parameters(struct gq_store *st, const char *spec, gq__param_fn fn,
                                 void *payload, gq_error *err)
{
    static const char sql[] =
        "SELECT key || ':', " ONE_LINE("value") " FROM json_each(?1, '$.spec.parameters') "
                                                "ORDER BY key";
    struct param_walk w = {fn, payload};
    struct gq__cursor c;
    int rc;

    if ((rc = gq__store_cursor_open(st, sql, &c, err)) != GQ_OK)
        return rc;
    gq__bind_text(c.stmt, 1, spec);
    return each_row(st, &c, NULL, false, param_row, &w, err);
}

struct pr_podset_walk {
    gq__pr_podset_fn fn;
    void *payload;
};

static int pr_podset_row(sqlite3_stmt *stmt, void *payload)
{
    struct pr_podset_walk *w = payload;
    struct gq_pr_podset_row p = {gq__col_text(stmt, 0), gq__col_text(stmt, 1)};

    return w->fn(&p, w->payload);
}

int gq__store_provreq_podsets(struct gq_store *st, const char *spec, gq__pr_podset_fn fn,
                              void *payload, gq_error *err)
{
    static const char sql[] =
        "SELECT p.value ->> '$.podTemplateRef.name', p.value ->> 'count' "
        "FROM json_each(?1, '$.spec.podSets') p ORDER BY p.key";
    struct pr_podset_walk w = {fn, payload};
    struct gq__cursor c;
    int rc;

    if ((rc = gq__store_cursor_open(st, sql, &c, err)) != GQ_OK)
        return rc;
    gq__bind_text(c.stmt, 1, spec);
    return each_row(st, &c, NULL, false, pr_podset_row, &w, err);
}

struct condition_walk {
    gq__condition_fn fn;
    void *payload;
};

static int condition_row(sqlite3_stmt *stmt, void *payload)
{
    struct condition_walk *w = payload;
    struct gq_condition_row r = {gq__col_text(stmt, 0), gq__col_text(stmt, 1), gq__col_text(stmt, 2),
                                 gq__col_text(stmt, 3)};

    return w->fn(&r, w->payload);
}

int gq__store_provreq_conditions(struct gq_store *st, const char *status, gq__condition_fn fn,
                                 void *payload, gq_error *err)
{
    static const char sql[] =
        "SELECT c.value ->> 'type', c.value ->> 'status', c.value ->> 'reason', " ONE_LINE(
            "coalesce(c.value ->> 'message', '')") " FROM json_each(?1, '$.conditions') c "
                                                   "ORDER BY c.key";
    struct condition_walk w = {fn, payload};
    struct gq__cursor c;
    int rc;

    if ((rc = gq__store_cursor_open(st, sql, &c, err)) != GQ_OK)
        return rc;
    gq__bind_text(c.stmt, 1, status);
    return each_row(st, &c, NULL, false, condition_row, &w, err);
}

/* ================================================================= listing */

#define WL_SELECT                                                                                  \
    "SELECT w.namespace, w.name, w.uid, w.job_kind, w.job_name, w.local_queue, "                   \
    "coalesce(w.cluster_queue, lq.cluster_queue), w.state, w.reason, w.message, "                  \
    "w.priority_class, w.priority, w.pods, w.gpus, w.requeue_at, w.created_at, w.admitted_at, "    \
    "w.finished_at, w.id, w.started_at, w.reserved_at, w.podset_counts, w.job_api_version, "       \
    "w.cluster_name, w.pods_ready_reason, w.pods_ready_at FROM workloads w "                       \
    "LEFT JOIN local_queues lq ON lq.namespace = w.namespace AND lq.name = w.local_queue "         \
    "WHERE (?1 IS NULL OR w.namespace = ?1) AND (?3 IS NULL OR w.local_queue = ?3) "               \
    "AND (?4 IS NULL OR coalesce(w.cluster_queue, lq.cluster_queue) = ?4) "                        \
    "AND (?5 IS NULL OR w.name = ?5 OR w.job_name = ?5) AND "
#define WL_ORDER " ORDER BY w.namespace, w.created_at, w.id"
/*
 * A page: the rows after ?7..?9 (namespace, created_at, id), at most ?10,
 * read off workloads_list_order in that order, so that a page costs its own
 * rows rather than a sort of the whole table (300 ms of 100,000 rows).
 */
#define WL_PAGE                                                                                    \
    " AND (?7 IS NULL OR (w.namespace, w.created_at, w.id) > "                                     \
    "(?7, CAST(?8 AS INTEGER), CAST(?9 AS INTEGER)))" WL_ORDER " LIMIT CAST(?10 AS INTEGER)"

/* Per enum gq_wl_select, every row or a page. */
static const char *const wl_queries[2][5] = {
    {WL_SELECT "w.state <> " GQ_SQL_STATE(cancelled) WL_ORDER, WL_SELECT "1" WL_ORDER,
     WL_SELECT "w.state IN " GQ_SQL_ADMITTED WL_ORDER,
     WL_SELECT "w.state = " GQ_SQL_STATE(reserved) WL_ORDER,
     WL_SELECT "w.state = lower(?6)" WL_ORDER},
    {WL_SELECT "w.state <> " GQ_SQL_STATE(cancelled) WL_PAGE, WL_SELECT "1" WL_PAGE,
     WL_SELECT "w.state IN " GQ_SQL_ADMITTED WL_PAGE,
     WL_SELECT "w.state = " GQ_SQL_STATE(reserved) WL_PAGE,
     WL_SELECT "w.state = lower(?6)" WL_PAGE}};

struct wl_walk {
    gq__wl_row_fn fn;
    void *payload;
};

/* Read typed (integers as integers): a list of 100,000 spent a tenth of its time printing them. */
static int wl_row(sqlite3_stmt *s, void *payload)
{
    struct wl_walk *walk = payload;
    struct gq_wl_row w;

    w.ns = col_typed_text(s, 0);
    w.name = col_typed_text(s, 1);
    w.uid = col_typed_text(s, 2);
    w.job_kind = col_typed_text(s, 3);
    w.job_name = col_typed_text(s, 4);
    w.local_queue = col_typed_text(s, 5);
    w.cluster_queue = col_typed_text(s, 6);
    w.state = col_typed_text(s, 7);
    if (!gq__wl_state_parse(w.state, &w.parsed))
        w.parsed = GQ_WL_NSTATES;
    w.reason = col_typed_text(s, 8);
    w.message = col_typed_text(s, 9);
    w.priority_class = col_typed_text(s, 10);
    w.priority = col_int(s, 11);
    w.pods = col_int(s, 12);
    w.gpus = col_int(s, 13);
    w.requeue_ms = col_int(s, 14);
    w.created_ms = col_int(s, 15);
    w.admitted_ms = col_int(s, 16);
    w.finished_ms = col_int(s, 17);
    w.id = col_int(s, 18);
    w.started_ms = col_int(s, 19);
    w.reserved_ms = col_int(s, 20);
    w.podset_counts = col_typed_text(s, 21);
    w.job_api_version = col_typed_text(s, 22);
    w.cluster_name = col_typed_text(s, 23);
    w.pods_ready_reason = col_typed_text(s, 24);
    w.pods_ready_ms = col_int(s, 25);
    return walk->fn(&w, walk->payload);
}

int gq__store_workloads(struct gq_store *st, const struct gq_wl_query *q, gq__wl_row_fn fn,
                        void *payload, gq_error *err)
{
    struct wl_walk walk = {fn, payload};
    bool paged = q->limit > 0;
    char created[24], id[24], limit[24];
    struct gq__cursor c;
    int rc;

    if ((unsigned)q->select > GQ_WL_SELECT_IN_STATE)
        return gq__error(err, GQ_EINVALID, "no workload selection %d", (int)q->select);
    if ((rc = gq__store_cursor_open(st, wl_queries[paged][q->select], &c, err)) != GQ_OK)
        return rc;
    gq__bind_text(c.stmt, 1, q->ns);
    gq__bind_text(c.stmt, 3, q->local_queue);
    gq__bind_text(c.stmt, 4, q->cluster_queue);
    gq__bind_text(c.stmt, 5, q->name);
    gq__bind_text(c.stmt, 6, q->state);
    if (paged) {
        snprintf(created, sizeof(created), "%" PRId64, q->after_created);
        snprintf(id, sizeof(id), "%" PRId64, q->after_id);
        snprintf(limit, sizeof(limit), "%" PRId64, q->limit);
        gq__bind_text(c.stmt, 7, q->has_after ? q->after_ns : NULL);
        gq__bind_text(c.stmt, 8, created);
        gq__bind_text(c.stmt, 9, id);
        gq__bind_text(c.stmt, 10, limit);
    }
    /* The NOT NULL columns checked (struct gq__query). */
    return each_row(st, &c, "workloads:TTTTTttTtttIIIiIii#ii", true, wl_row, &walk, err);
}

struct pos_walk {
    gq__queue_pos_fn fn;
    void *payload;
};

static int pos_row(sqlite3_stmt *s, void *payload)
{
    struct pos_walk *walk = payload;
    struct gq_queue_pos p = {col_int(s, 0), col_typed_text(s, 1), col_typed_text(s, 2)};

    return walk->fn(&p, walk->payload);
}

static int pos_rows(struct gq_store *st, const char *sql, const char *ns, gq__queue_pos_fn fn,
                    void *payload, gq_error *err)
{
    struct pos_walk walk = {fn, payload};
    struct gq__cursor c;
    int rc;

    if ((rc = gq__store_cursor_open(st, sql, &c, err)) != GQ_OK)
        return rc;
    if (ns)
        gq__bind_text(c.stmt, 1, ns);
    return each_row(st, &c, NULL, true, pos_row, &walk, err);
}

int gq__store_lq_order(struct gq_store *st, const char *ns, gq__queue_pos_fn fn, void *payload,
                       gq_error *err)
{
    /* Read off the workloads_pending_order index, no sort. */
    static const char sql[] =
        "SELECT id, namespace, local_queue FROM workloads WHERE state = " GQ_SQL_STATE(pending) " "
        "AND (?1 IS NULL OR namespace = ?1) ORDER BY namespace, local_queue, priority DESC, "
        "queued_at, id";

    return pos_rows(st, sql, ns, fn, payload, err);
}

int gq__store_cq_order(struct gq_store *st, gq__queue_pos_fn fn, void *payload, gq_error *err)
{
    /* The ClusterQueue's heap order spans its LocalQueues: this one sorts. */
    static const char sql[] =
        "SELECT w.id, '', lq.cluster_queue FROM workloads w JOIN local_queues lq "
        "ON lq.namespace = w.namespace AND lq.name = w.local_queue WHERE w.state = "
        GQ_SQL_STATE(pending) " "
        "ORDER BY lq.cluster_queue, w.priority DESC, w.queued_at, w.id";

    return pos_rows(st, sql, NULL, fn, payload, err);
}

/* ------------------------------------------------------------------ objects */

struct obj_query {
    enum gq_kind kind;
    const char *sql;   /* ?1 namespace filter (LocalQueue); columns as obj_row reads them */
    const char *shape; /* its columns' types (struct gq__query) */
};

/*
 * Columns: namespace, name, cluster_queue, cohort, strategy, stop_policy,
 * detail, inactive, pending, reserving, admitted, created_at. Status columns
 * are computed from the same tables admission uses.
 *
 * The queues' counts are one pass each over the workloads they count, grouped
 * by queue, not a subquery per queue: with 1,000 ClusterQueues and 100,000
 * pending workloads a subquery per ClusterQueue walked every pending workload
 * through workloads_state and its LocalQueue row (10^8 steps, minutes), and
 * the reserving and admitted ones walked every live workload per queue (28,000
 * admitted: 73 s). A LocalQueue's reserving and admitted subqueries went by
 * workloads_list_order, every workload of the namespace per LocalQueue (15 s).
 * Now the pending ones are counted off workloads_pending_order per LocalQueue
 * (CROSS JOIN keeps the LocalQueue outer, which the planner would not), the
 * live ones in one walk of workloads_state, and each queue finds its counts in
 * the materialized groups: tens of milliseconds. A count found in no group is 0.
 * No index is added for this: the two it reads exist, and one more on workloads
 * would cost every admission's write.
 */
#define CQ_PENDING                                                                                 \
    "pend(q, n) AS MATERIALIZED (SELECT lq.cluster_queue, count(*) FROM local_queues lq "          \
    "CROSS JOIN workloads w ON w.namespace = lq.namespace AND w.local_queue = lq.name "            \
    "WHERE w.state = " GQ_SQL_STATE(pending) " GROUP BY lq.cluster_queue)"
/* Per `by`, of the rows `where` keeps: the workloads reserving quota, then those admitted. */
#define LIVE_COUNTS(by, where)                                                                     \
    "SELECT " by ", count(*), count(*) FILTER (WHERE state IN " GQ_SQL_ADMITTED ") "               \
    "FROM workloads WHERE state IN " GQ_SQL_HOLDS_QUOTA " AND " where                              \
    " GROUP BY " by

/*
 * Why the ClusterQueue cq cannot admit (Kueue's Active condition False: its
 * reason and message), NULL when it can. The LocalQueue status metric reads it too.
 */
#define CQ_INACTIVE                                                                                \
    "CASE WHEN cq.stop_policy <> 'None' THEN 'Stopped: is stopped' "                               \
    "ELSE coalesce((SELECT 'FlavorNotFound: references missing ResourceFlavor ' || q.flavor "     \
    "  FROM quotas q WHERE q.owner_kind = 'ClusterQueue' AND q.owner = cq.name "                   \
    "  AND q.flavor NOT IN (SELECT name FROM resource_flavors) LIMIT 1), "                         \
    " (SELECT 'AdmissionCheckNotFound: references missing AdmissionCheck ' || (c.value ->> 'name') " \
    "  FROM json_each(cq.spec, '$.spec.admissionChecksStrategy.admissionChecks') c "               \
    "  WHERE (c.value ->> 'name') NOT IN (SELECT name FROM admission_checks) LIMIT 1)) END"

static const struct obj_query obj_queries[] = {
    {GQ_KIND_CLUSTER_QUEUE,
     "WITH " CQ_PENDING ", live(q, r, a) AS MATERIALIZED (" LIVE_COUNTS("cluster_queue", "1") ") "
     "SELECT NULL, cq.name, NULL, cq.cohort, cq.strategy, cq.stop_policy, NULL, "
     CQ_INACTIVE ", "
     "coalesce(pend.n, 0), coalesce(live.r, 0), coalesce(live.a, 0), cq.created_at "
     "FROM cluster_queues cq LEFT JOIN pend ON pend.q = cq.name "
     "LEFT JOIN live ON live.q = cq.name ORDER BY cq.name",
     "cluster_queues:.T.tTT.tIIII"},
    {GQ_KIND_LOCAL_QUEUE,
     "WITH live(ns, lq, r, a) AS MATERIALIZED ("
     LIVE_COUNTS("namespace, local_queue", "(?1 IS NULL OR namespace = ?1)") ") "
     "SELECT lq.namespace, lq.name, lq.cluster_queue, NULL, NULL, lq.stop_policy, NULL, NULL, "
     "(SELECT count(*) FROM workloads w WHERE w.namespace = lq.namespace "
     "  AND w.local_queue = lq.name AND w.state = " GQ_SQL_STATE(pending) "), "
     "coalesce(live.r, 0), coalesce(live.a, 0), lq.created_at "
     "FROM local_queues lq LEFT JOIN live ON live.ns = lq.namespace AND live.lq = lq.name "
     "WHERE ?1 IS NULL OR lq.namespace = ?1 ORDER BY lq.namespace, lq.name",
     "local_queues:TTT..T..IIII"},
    {GQ_KIND_RESOURCE_FLAVOR,
     "SELECT NULL, name, NULL, NULL, NULL, NULL, (SELECT group_concat(key || '=' || value, ',') "
     "FROM json_each(spec, '$.spec.nodeLabels')), NULL, 0, 0, 0, created_at "
     "FROM resource_flavors ORDER BY name", "resource_flavors:.T....t....I"},
    {GQ_KIND_COHORT,
     "SELECT NULL, name, NULL, parent, NULL, NULL, NULL, NULL, 0, 0, 0, created_at "
     "FROM cohorts ORDER BY name", "cohorts:.T.t.......I"},
    {GQ_KIND_PRIORITY_CLASS,
     "SELECT NULL, name, NULL, NULL, NULL, NULL, value, NULL, 0, 0, 0, created_at "
     "FROM priority_classes ORDER BY name", "priority_classes:.T....I....I"},
    {GQ_KIND_ADMISSION_CHECK,
     "SELECT NULL, name, NULL, NULL, NULL, NULL, controller_name, NULL, 0, 0, 0, created_at "
     "FROM admission_checks ORDER BY name", "admission_checks:.T....T....I"},
    {GQ_KIND_PROVISIONING_CONFIG,
     "SELECT NULL, name, NULL, NULL, NULL, NULL, spec ->> '$.spec.provisioningClassName', NULL, "
     "0, 0, 0, created_at FROM provisioning_configs ORDER BY name",
     "provisioning_configs:.T.........I"},
    {GQ_KIND_NAMESPACE,
     "SELECT NULL, name, NULL, NULL, NULL, NULL, NULL, NULL, 0, 0, 0, created_at "
     "FROM namespaces ORDER BY name", "namespaces:.T.........I"},
    /* Then: gpusPerNode, minNodes, maxNodes, provisioningTime, stockout. */
    {GQ_KIND_NODE_POOL,
     "SELECT NULL, name, NULL, NULL, NULL, NULL, (SELECT group_concat(key || '=' || value, ',') "
     "FROM json_each(spec, '$.spec.nodeLabels')), NULL, 0, 0, 0, created_at, "
     "spec ->> '$.spec.gpusPerNode', spec ->> '$.spec.minNodes', spec ->> '$.spec.maxNodes', "
     "spec ->> '$.spec.provisioningTime', spec ->> '$.spec.stockout' "
     "FROM node_pools ORDER BY name", "node_pools:.T....t....I"},
    {GQ_KIND_INTEGRATION,
     "SELECT NULL, name, NULL, NULL, NULL, NULL, spec ->> '$.spec.kind', NULL, 0, 0, 0, "
     "created_at FROM integrations ORDER BY name", "integrations:.T....t....I"},
    {GQ_KIND_TRAINING_RUNTIME,
     "SELECT NULL, name, NULL, NULL, NULL, NULL, NULL, NULL, 0, 0, 0, created_at "
     "FROM training_runtimes ORDER BY name", "training_runtimes:.T.........I"},
    /* The detail: the LimitRange's item types; the RuntimeClass's handler. */
    {GQ_KIND_LIMIT_RANGE,
     "SELECT namespace, name, NULL, NULL, NULL, NULL, (SELECT group_concat(l.value ->> 'type', ',') "
     "FROM json_each(spec, '$.spec.limits') l), NULL, 0, 0, 0, created_at FROM limit_ranges "
     "WHERE ?1 IS NULL OR namespace = ?1 ORDER BY namespace, name",
     "limit_ranges:TT....t....I"},
    {GQ_KIND_RUNTIME_CLASS,
     "SELECT NULL, name, NULL, NULL, NULL, NULL, spec ->> '$.handler', NULL, 0, 0, 0, created_at "
     "FROM runtime_classes ORDER BY name", "runtime_classes:.T....t....I"},
    /* The detail: the Active condition's status, as kubectl's CONNECTED column. */
    {GQ_KIND_MK_CLUSTER,
     "SELECT NULL, name, NULL, NULL, NULL, NULL, CASE active WHEN 1 THEN 'True' WHEN 0 THEN "
     "'False' ELSE 'Unknown' END, NULL, 0, 0, 0, created_at FROM multikueue_clusters ORDER BY name",
     "multikueue_clusters:.T....T....I"},
    {GQ_KIND_MK_CONFIG,
     "SELECT NULL, name, NULL, NULL, NULL, NULL, (SELECT group_concat(value, ',') "
     "FROM json_each(spec, '$.spec.clusters')), NULL, 0, 0, 0, created_at "
     "FROM multikueue_configs ORDER BY name", "multikueue_configs:.T....t....I"},
};

static const struct obj_query *obj_query(enum gq_kind kind)
{
    size_t i;

    for (i = 0; i < sizeof(obj_queries) / sizeof(obj_queries[0]); i++)
        if (obj_queries[i].kind == kind)
            return &obj_queries[i];
    return NULL;
}

bool gq__store_object_listable(enum gq_kind kind)
{
    return obj_query(kind) != NULL;
}

struct obj_walk {
    gq__object_row_fn fn;
    void *payload;
};

static int obj_row(sqlite3_stmt *s, void *payload)
{
    struct obj_walk *walk = payload;
    struct gq_object_row o;

    o.ns = gq__col_text(s, 0);
    o.name = gq__col_text(s, 1);
    o.cluster_queue = gq__col_text(s, 2);
    o.cohort = gq__col_text(s, 3);
    o.strategy = gq__col_text(s, 4);
    o.stop_policy = gq__col_text(s, 5);
    o.detail = gq__col_text(s, 6);
    o.inactive = gq__col_text(s, 7);
    o.pending = col_num(s, 8);
    o.reserving = col_num(s, 9);
    o.admitted = col_num(s, 10);
    o.created_ms = col_num(s, 11);
    o.pool = sqlite3_column_count(s) >= 17;
    o.gpus_per_node = o.pool ? col_num(s, 12) : 0;
    o.min_nodes = o.pool ? col_num(s, 13) : 0;
    o.max_nodes = o.pool ? col_num(s, 14) : 0;
    o.provisioning_time = o.pool ? gq__col_text(s, 15) : NULL;
    o.stockout = o.pool ? col_num(s, 16) : 0;
    return walk->fn(&o, walk->payload);
}

int gq__store_objects(struct gq_store *st, enum gq_kind kind, const char *ns,
                      gq__object_row_fn fn, void *payload, gq_error *err)
{
    const struct obj_query *q = obj_query(kind);
    struct obj_walk walk = {fn, payload};
    struct gq__cursor c;
    int rc;

    if (!q)
        return gq__error(err, GQ_EINVALID, "cannot list a %s", gq__kind_resource(kind));
    if ((rc = gq__store_cursor_open(st, q->sql, &c, err)) != GQ_OK)
        return rc;
    gq__bind_text(c.stmt, 1, ns);
    return each_row(st, &c, q->shape, false, obj_row, &walk, err);
}

/* ------------------------------------------------- provisioning requests */

/* A field of the condition of a type in the request's valid status JSON (column st). */
#define PR_COND(field, type)                                                                       \
    "(SELECT c.value ->> '" field "' FROM json_each(pr.st, '$.conditions') c "                     \
    "WHERE c.value ->> 'type' = '" type "' LIMIT 1)"

/*
 * Columns: namespace, name, uid, workload, check, attempt, class, Accepted,
 * Provisioned, Failed, message, spec, templates, status, created_at. A status
 * that is not valid JSON reads as none, so one bad provider write cannot
 * break every listing.
 */
static const char provreq_sql[] =
    "WITH pr AS (SELECT p.*, CASE WHEN json_valid(p.status) THEN p.status END AS st "
    "FROM provisioning_requests p WHERE p.deleted_at IS NULL "
    "AND (?1 IS NULL OR p.namespace = ?1) AND (?2 IS NULL OR p.name = ?2)) "
    "SELECT pr.namespace, pr.name, pr.uid, w.name, pr.check_name, pr.attempt, pr.class, "
    PR_COND("status", "Accepted") ", " PR_COND("status", "Provisioned") ", "
    PR_COND("status", "Failed") ", "
    "CASE WHEN " PR_COND("status", "Failed") " = 'True' THEN " PR_COND("message", "Failed")
    " ELSE " PR_COND("message", "Provisioned") " END, "
    "pr.spec, pr.templates, pr.st, pr.created_at "
    "FROM pr LEFT JOIN workloads w ON w.id = pr.workload_id ORDER BY pr.namespace, pr.name";

struct provreq_walk {
    gq_provreq_fn fn;
    void *payload;
};

static int provreq_row(sqlite3_stmt *s, void *payload)
{
    struct provreq_walk *walk = payload;
    gq_provreq_info pr;

    pr.namespace = gq__col_text(s, 0);
    pr.name = gq__col_text(s, 1);
    pr.uid = gq__col_text(s, 2);
    pr.workload = gq__col_text(s, 3);
    pr.check = gq__col_text(s, 4);
    pr.attempt = col_num(s, 5);
    pr.class_name = gq__col_text(s, 6);
    pr.accepted = gq__col_text(s, 7);
    pr.provisioned = gq__col_text(s, 8);
    pr.failed = gq__col_text(s, 9);
    pr.message = gq__col_text(s, 10);
    pr.object = gq__col_text(s, 11);
    pr.templates = gq__col_text(s, 12);
    pr.status = gq__col_text(s, 13);
    pr.created_ms = col_num(s, 14);
    return walk->fn(&pr, walk->payload);
}

int gq__store_provreqs(struct gq_store *st, const char *ns, const char *name, gq_provreq_fn fn,
                       void *payload, gq_error *err)
{
    struct provreq_walk walk = {fn, payload};
    struct gq__cursor c;
    int rc;

    if ((rc = gq__store_cursor_open(st, provreq_sql, &c, err)) != GQ_OK)
        return rc;
    gq__bind_text(c.stmt, 1, ns);
    gq__bind_text(c.stmt, 2, name);
    return each_row(st, &c, "provisioning_requests:TTTtTIT....TT.I", false, provreq_row, &walk,
                    err);
}

/* A JSON array of the template's containers, as one comma-separated column. */
#define PT_CONTAINERS(field)                                                                       \
    "(SELECT group_concat(c.value ->> '" field "', ',') "                                          \
    "FROM json_each(obj, '$.template.spec.containers') c)"

/*
 * Columns: namespace, name, request, request uid, container names, images,
 * pod labels, object, created_at. A PodTemplate is stored inside its
 * request's row and has no UID of its own.
 */
static const char podtemplate_sql[] =
    "WITH pt AS (SELECT p.namespace AS ns, t.value ->> '$.metadata.name' AS name, p.name AS pr, "
    "p.uid AS pr_uid, t.value AS obj, p.created_at AS created "
    "FROM provisioning_requests p, json_each(p.templates) t WHERE p.deleted_at IS NULL "
    "AND (?1 IS NULL OR p.namespace = ?1)) "
    "SELECT ns, name, pr, pr_uid, " PT_CONTAINERS("name") ", " PT_CONTAINERS("image") ", "
    "(SELECT group_concat(l.key || '=' || l.value, ',') FROM (SELECT key, value "
    "  FROM json_each(obj, '$.template.metadata.labels') ORDER BY key) l), obj, created "
    "FROM pt WHERE ?2 IS NULL OR name = ?2 ORDER BY ns, name";

struct podtemplate_walk {
    gq_podtemplate_fn fn;
    void *payload;
};

static int podtemplate_row(sqlite3_stmt *s, void *payload)
{
    struct podtemplate_walk *walk = payload;
    gq_podtemplate_info pt;

    pt.namespace = gq__col_text(s, 0);
    pt.name = gq__col_text(s, 1);
    pt.uid = NULL;
    pt.provreq = gq__col_text(s, 2);
    pt.provreq_uid = gq__col_text(s, 3);
    pt.containers = gq__col_text(s, 4);
    pt.images = gq__col_text(s, 5);
    pt.pod_labels = gq__col_text(s, 6);
    pt.object = gq__col_text(s, 7);
    pt.created_ms = col_num(s, 8);
    return walk->fn(&pt, walk->payload);
}

int gq__store_podtemplates(struct gq_store *st, const char *ns, const char *name,
                           gq_podtemplate_fn fn, void *payload, gq_error *err)
{
    struct podtemplate_walk walk = {fn, payload};
    struct gq__cursor c;
    int rc;

    if ((rc = gq__store_cursor_open(st, podtemplate_sql, &c, err)) != GQ_OK)
        return rc;
    gq__bind_text(c.stmt, 1, ns);
    gq__bind_text(c.stmt, 2, name);
    return each_row(st, &c, "provisioning_requests:TtTT...TI", false, podtemplate_row, &walk,
                    err);
}

/* ================================================================= metrics */

/* Kueue accounts cpu in milli-units and reports cores; everything else as it is. */
#define UNITS_OF(r, x) "CASE WHEN " r " = 'cpu' THEN (" x ") / 1000.0 ELSE (" x ") END"
#define UNITS(x) UNITS_OF("q.resource", x)

/* One row per ClusterQueue quota (flavor, resource), with the value expression v. */
#define RESOURCE_SQL(v)                                                                            \
    "SELECT coalesce(cq.cohort, ''), q.owner, q.flavor, q.resource, " v " FROM quotas q "          \
    "JOIN cluster_queues cq ON cq.name = q.owner WHERE q.owner_kind = 'ClusterQueue' "             \
    "ORDER BY q.owner, q.flavor, q.resource"

#define USAGE_OF(states)                                                                           \
    "(SELECT coalesce(sum(u.amount), 0) FROM usage u JOIN workloads w ON w.id = u.workload_id "    \
    "WHERE u.cluster_queue = q.owner AND u.flavor = q.flavor AND u.resource = q.resource "         \
    "AND w.state IN " states ")"

/*
 * One row per LocalQueue and quota (flavor, resource) of its ClusterQueue:
 * what its workloads in these states use, summed in one grouped pass.
 */
#define LQ_RESOURCE_SQL(states)                                                                    \
    "WITH u(ns, lq, f, r, n) AS MATERIALIZED (SELECT w.namespace, w.local_queue, u.flavor, "      \
    "u.resource, sum(u.amount) FROM usage u JOIN workloads w ON w.id = u.workload_id "             \
    "WHERE w.state IN " states " AND w.local_queue IS NOT NULL GROUP BY 1, 2, 3, 4) "             \
    "SELECT lq.name, lq.namespace, q.flavor, q.resource, " UNITS("coalesce(u.n, 0)") " "          \
    "FROM local_queues lq JOIN quotas q ON q.owner_kind = 'ClusterQueue' "                        \
    "AND q.owner = lq.cluster_queue LEFT JOIN u ON u.ns = lq.namespace AND u.lq = lq.name "       \
    "AND u.f = q.flavor AND u.r = q.resource ORDER BY lq.namespace, lq.name, q.flavor, q.resource"

/* The workload events the counters count: quota reservations, admissions. */
#define RESERVED_EVENT "e.reason = 'QuotaReserved'"
#define ADMITTED_EVENT                                                                             \
    "e.to_state = " GQ_SQL_STATE(admitted) " AND e.from_state IN " GQ_SQL_AWAITING_ADMISSION

/* Count, per ClusterQueue (every one, 0 included), the workload events matching cond. */
#define EVENT_COUNT(cond)                                                                          \
    "SELECT cq.name, count(x.q) FROM cluster_queues cq LEFT JOIN (SELECT w.cluster_queue AS q "    \
    "FROM events e JOIN workloads w ON w.uid = e.uid WHERE e.kind = 'Workload' AND " cond ") x "   \
    "ON x.q = cq.name GROUP BY cq.name ORDER BY cq.name"

/* The same per LocalQueue (name, namespace), by the workloads' queue. */
#define LQ_EVENT_COUNT(cond)                                                                       \
    "SELECT lq.name, lq.namespace, count(x.q) FROM local_queues lq LEFT JOIN (SELECT "            \
    "w.namespace AS ns, w.local_queue AS q FROM events e JOIN workloads w ON w.uid = e.uid "       \
    "WHERE e.kind = 'Workload' AND " cond ") x ON x.ns = lq.namespace AND x.q = lq.name "         \
    "GROUP BY lq.namespace, lq.name ORDER BY lq.namespace, lq.name"

/*
 * Evictions per queue (the columns `by`, of workloads w) and reason. A
 * rejected check deactivates: Kueue's reason for that eviction is Deactivated.
 */
#define EVICTED(by, n, groups, order)                                                              \
    "SELECT " by ", CASE WHEN e.to_state = " GQ_SQL_STATE(deactivated) " THEN 'Deactivated' "      \
    "ELSE e.reason END AS r, count(*) FROM events e JOIN workloads w ON w.uid = e.uid "            \
    "WHERE e.kind = 'Workload' AND e.from_state IN " GQ_SQL_HOLDS_QUOTA " "                       \
    "AND e.to_state IN " GQ_SQL_LET_GO " AND w." n " IS NOT NULL "                                 \
    "GROUP BY " groups " ORDER BY " order

/*
 * Count, per ClusterQueue (every one, 0 included), the workloads holding quota
 * in these states: one walk of workloads_state grouped by queue, each queue
 * finding its count in the materialized groups (0 when in none). A subquery
 * per ClusterQueue walked every workload in these states once per queue.
 */
#define HOLDING(states)                                                                            \
    "WITH h(q, n) AS MATERIALIZED (SELECT cluster_queue, count(*) FROM workloads "                 \
    "WHERE state IN " states " GROUP BY cluster_queue) "                                           \
    "SELECT cq.name, coalesce(h.n, 0) FROM cluster_queues cq LEFT JOIN h ON h.q = cq.name "        \
    "ORDER BY cq.name"

/* The same per LocalQueue (name, namespace). */
#define LQ_HOLDING(states)                                                                         \
    "WITH h(ns, q, n) AS MATERIALIZED (SELECT namespace, local_queue, count(*) FROM workloads "    \
    "WHERE state IN " states " GROUP BY 1, 2) SELECT lq.name, lq.namespace, coalesce(h.n, 0) "    \
    "FROM local_queues lq LEFT JOIN h ON h.ns = lq.namespace AND h.q = lq.name "                   \
    "ORDER BY lq.namespace, lq.name"

/*
 * Pending workloads are inadmissible, as Kueue's queue manager keeps them
 * apart from its heaps, when admission said so (reason Inadmissible: no
 * LocalQueue or ClusterQueue, an inactive queue, a namespace the selector
 * refuses), when either queue is stopped, or while they wait out a backoff.
 * ?1 is now (text: compared through CAST).
 *
 * One pass over the pending workloads counts every queue's, grouped by queue
 * and status: each LocalQueue's off workloads_pending_order (CROSS JOIN
 * keeps the LocalQueue, then its ClusterQueue, outer, which the planner would
 * not), and each (queue, status) finds its count in the materialized groups,
 * 0 when in none. A subquery per ClusterQueue and status walked every pending
 * workload 2,000 times with 1,000 queues.
 */
#define PENDING_BY(names, cols, groups)                                                             \
    "pend(" names ", status, n) AS MATERIALIZED (SELECT " cols ", CASE WHEN "                      \
    "coalesce(w.reason, '') = 'Inadmissible' OR lq.stop_policy <> 'None' "                         \
    "OR cq.stop_policy <> 'None' OR coalesce(w.requeue_at, 0) > CAST(?1 AS INTEGER) "              \
    "THEN 'inadmissible' ELSE 'active' END, count(*) FROM local_queues lq "                        \
    "CROSS JOIN cluster_queues cq ON cq.name = lq.cluster_queue "                                  \
    "CROSS JOIN workloads w ON w.namespace = lq.namespace AND w.local_queue = lq.name "            \
    "WHERE w.state = " GQ_SQL_STATE(pending) " GROUP BY " groups "), "                              \
    "s(status) AS (VALUES ('active'), ('inadmissible')) "

static const char pending_sql[] =
    "WITH " PENDING_BY("name", "cq.name", "1, 2")
    "SELECT cq.name, s.status, coalesce(pend.n, 0) FROM cluster_queues cq CROSS JOIN s "
    "LEFT JOIN pend ON pend.name = cq.name AND pend.status = s.status ORDER BY cq.name, s.status";

static const char lq_pending_sql[] =
    "WITH " PENDING_BY("namespace, name", "lq.namespace, lq.name", "1, 2, 3")
    "SELECT lq.name, lq.namespace, s.status, coalesce(pend.n, 0) FROM local_queues lq "
    "CROSS JOIN s LEFT JOIN pend ON pend.namespace = lq.namespace AND pend.name = lq.name "
    "AND pend.status = s.status ORDER BY lq.namespace, lq.name, s.status";

/*
 * Kueue's cluster_queue_resource_pending: per ClusterQueue and resource, the
 * total requests (pods times per pod, in accounting units) of its pending
 * workloads, by their LocalQueue: not assigned to a flavor yet, so no flavor
 * label. Every resource of the queue's quotas is there, 0 when nothing
 * pending asks for it, and so is any other resource a pending workload asks
 * for. One pass over the pending workloads, as for pending_sql.
 */
static const char resource_pending_sql[] =
    "WITH p(q, r, n) AS MATERIALIZED (SELECT cq.name, a.key, "
    "sum(CAST(a.value AS INTEGER) * CAST(ps.value ->> 'count' AS INTEGER)) "
    "FROM local_queues lq CROSS JOIN cluster_queues cq ON cq.name = lq.cluster_queue "
    "CROSS JOIN workloads w ON w.namespace = lq.namespace AND w.local_queue = lq.name "
    "CROSS JOIN json_each(w.podsets) ps CROSS JOIN json_each(ps.value, '$.amounts') a "
    "WHERE w.state = " GQ_SQL_STATE(pending) " GROUP BY 1, 2), "
    "res(q, r) AS (SELECT owner, resource FROM quotas WHERE owner_kind = 'ClusterQueue' "
    "UNION SELECT q, r FROM p) "
    "SELECT res.q, res.r, " UNITS_OF("res.r", "coalesce(p.n, 0)") " FROM res "
    "JOIN cluster_queues cq ON cq.name = res.q LEFT JOIN p ON p.q = res.q AND p.r = res.r "
    "ORDER BY res.q, res.r";

/*
 * Kueue's local_queue_status: its Active condition, 1 for one of True, False
 * and Unknown: True when neither it is stopped nor its ClusterQueue missing
 * or inactive (Kueue's LocalQueue reconciler). gpuq always knows: Unknown is 0.
 */
static const char lq_status_sql[] =
    "WITH s(i, v) AS (VALUES (0, 'True'), (1, 'False'), (2, 'Unknown')), "
    "a(ns, name, v) AS MATERIALIZED (SELECT lq.namespace, lq.name, CASE WHEN "
    "lq.stop_policy = 'None' AND cq.name IS NOT NULL AND (" CQ_INACTIVE ") IS NULL "
    "THEN 'True' ELSE 'False' END FROM local_queues lq "
    "LEFT JOIN cluster_queues cq ON cq.name = lq.cluster_queue) "
    "SELECT a.name, a.ns, s.v, a.v = s.v FROM a CROSS JOIN s ORDER BY a.ns, a.name, s.i";

/* The condition of a type in a request's (valid) status. */
#define PR_TRUE(type)                                                                              \
    "EXISTS (SELECT 1 FROM json_each(pr.st, '$.conditions') c WHERE c.value ->> 'type' = '" type   \
    "' AND c.value ->> 'status' = 'True')"

/*
 * Live ProvisioningRequests per ClusterQueue by their condition, in Kueue's
 * precedence (kueue-semantics.md §3.6); Created: the provider has said nothing yet.
 * Each request's state is worked out once and counted in groups by queue and
 * state, each (queue, state) finding its count in them, 0 when in none: a
 * subquery per ClusterQueue and state read every live request's conditions
 * 6,000 times with 1,000 queues (4,600 requests: two minutes).
 */
/* clang-format off */
static const char provreq_states_sql[] =
    "WITH pr AS (SELECT p.workload_id, CASE WHEN json_valid(p.status) THEN p.status END AS st "
    "FROM provisioning_requests p WHERE p.deleted_at IS NULL), "
    "x AS (SELECT w.cluster_queue AS q, CASE WHEN " PR_TRUE("Failed") " THEN 'Failed' "
    "WHEN " PR_TRUE("CapacityRevoked") " THEN 'CapacityRevoked' "
    "WHEN " PR_TRUE("BookingExpired") " THEN 'BookingExpired' "
    "WHEN " PR_TRUE("Provisioned") " THEN 'Provisioned' "
    "WHEN " PR_TRUE("Accepted") " THEN 'Accepted' ELSE 'Created' END AS state "
    "FROM pr JOIN workloads w ON w.id = pr.workload_id), "
    "s(i, state) AS (VALUES (0, 'Created'), (1, 'Accepted'), (2, 'Provisioned'), "
    "(3, 'BookingExpired'), (4, 'CapacityRevoked'), (5, 'Failed')), "
    "n(q, state, c) AS MATERIALIZED (SELECT q, state, count(*) FROM x GROUP BY q, state) "
    "SELECT cq.name, s.state, coalesce(n.c, 0) FROM cluster_queues cq CROSS JOIN s "
    "LEFT JOIN n ON n.q = cq.name AND n.state = s.state ORDER BY cq.name, s.i";
/* clang-format on */

/* Per enum gq_metric_query: the statement and how many label columns precede the value. */
static const struct metric_query {
    const char *sql;
    int nlabels;
} metric_queries[] = {
    [GQ_METRIC_PENDING] = {pending_sql, 2},
    [GQ_METRIC_RESERVING] = {HOLDING(GQ_SQL_HOLDS_QUOTA), 1},
    [GQ_METRIC_ADMITTED_ACTIVE] = {HOLDING(GQ_SQL_ADMITTED), 1},
    [GQ_METRIC_QUOTA_RESERVED] = {EVENT_COUNT(RESERVED_EVENT), 1},
    [GQ_METRIC_ADMITTED] = {EVENT_COUNT(ADMITTED_EVENT), 1},
    [GQ_METRIC_EVICTED] = {EVICTED("w.cluster_queue", "cluster_queue", "1, 2", "1, 2"), 2},
    [GQ_METRIC_RESERVATION] = {RESOURCE_SQL(UNITS(USAGE_OF(GQ_SQL_HOLDS_QUOTA))),
                               4},
    [GQ_METRIC_USAGE] = {RESOURCE_SQL(UNITS(USAGE_OF(GQ_SQL_ADMITTED))), 4},
    [GQ_METRIC_NOMINAL] = {RESOURCE_SQL(UNITS("q.nominal")), 4},
    [GQ_METRIC_BORROWING_LIMIT] = {RESOURCE_SQL(UNITS("q.borrowing_limit")), 4},
    [GQ_METRIC_LENDING_LIMIT] = {RESOURCE_SQL(UNITS("q.lending_limit")), 4},
    [GQ_METRIC_PROVREQS] = {provreq_states_sql, 2},
    [GQ_METRIC_RESOURCE_PENDING] = {resource_pending_sql, 2},
    [GQ_METRIC_LQ_PENDING] = {lq_pending_sql, 3},
    [GQ_METRIC_LQ_RESERVING] = {LQ_HOLDING(GQ_SQL_HOLDS_QUOTA), 2},
    [GQ_METRIC_LQ_ADMITTED_ACTIVE] = {LQ_HOLDING(GQ_SQL_ADMITTED), 2},
    [GQ_METRIC_LQ_QUOTA_RESERVED] = {LQ_EVENT_COUNT(RESERVED_EVENT), 2},
    [GQ_METRIC_LQ_ADMITTED] = {LQ_EVENT_COUNT(ADMITTED_EVENT), 2},
    [GQ_METRIC_LQ_EVICTED] = {EVICTED("w.local_queue, w.namespace", "local_queue", "1, 2, 3", "2, 1, 3"), 3},
    [GQ_METRIC_LQ_STATUS] = {lq_status_sql, 3},
    [GQ_METRIC_LQ_RESERVATION] = {LQ_RESOURCE_SQL(GQ_SQL_HOLDS_QUOTA), 4},
    [GQ_METRIC_LQ_USAGE] = {LQ_RESOURCE_SQL(GQ_SQL_ADMITTED), 4},
};

const char *gq__store_metric_sql(int which)
{
    if (which < 0 || (unsigned)which >= sizeof(metric_queries) / sizeof(metric_queries[0]))
        return NULL;
    return metric_queries[which].sql;
}

struct metric_walk {
    int nlabels;
    gq__metric_fn fn;
    void *payload;
};

static int metric_row(sqlite3_stmt *s, void *payload)
{
    struct metric_walk *w = payload;
    struct gq_metric_row m;
    int i;

    memset(&m, 0, sizeof(m));
    if (sqlite3_column_count(s) <= w->nlabels)
        return 0;
    for (i = 0; i < w->nlabels; i++)
        m.labels[i] = gq__col_text(s, i);
    m.value = gq__col_text(s, w->nlabels);
    return w->fn(&m, w->payload);
}

int gq__store_metric(struct gq_store *st, enum gq_metric_query which, int64_t now_ms,
                     gq__metric_fn fn, void *payload, gq_error *err)
{
    struct metric_walk w = {0, fn, payload};
    char now[24];
    struct gq__cursor c;
    int rc;

    if ((unsigned)which >= sizeof(metric_queries) / sizeof(metric_queries[0]))
        return gq__error(err, GQ_EINVALID, "no metric query %d", (int)which);
    w.nlabels = metric_queries[which].nlabels;
    if ((rc = gq__store_cursor_open(st, metric_queries[which].sql, &c, err)) != GQ_OK)
        return rc;
    snprintf(now, sizeof(now), "%lld", (long long)now_ms);
    if (sqlite3_bind_parameter_count(c.stmt) >= 1)
        gq__bind_text(c.stmt, 1, now);
    return each_row(st, &c, NULL, false, metric_row, &w, err);
}

struct waits_walk {
    gq__wait_fn fn;
    void *payload;
};

static int wait_row(sqlite3_stmt *s, void *payload)
{
    struct waits_walk *walk = payload;
    struct gq_wait_row w;

    w.cluster_queue = gq__col_text(s, 0);
    w.namespace = gq__col_text(s, 1);
    w.local_queue = gq__col_text(s, 2);
    if (!w.cluster_queue || sqlite3_column_type(s, 5) == SQLITE_NULL)
        return 0;
    w.reserved = sqlite3_column_int(s, 3) != 0;
    w.admitted = sqlite3_column_int(s, 4) != 0;
    w.checked = sqlite3_column_type(s, 6) != SQLITE_NULL;
    w.wait_ms = col_num(s, 5);
    w.checks_ms = w.checked ? col_num(s, 6) : 0;
    w.ready = sqlite3_column_int(s, 7) != 0;
    w.admitted_ready = w.ready && sqlite3_column_type(s, 8) != SQLITE_NULL;
    w.admitted_ready_ms = w.admitted_ready ? col_num(s, 8) : 0;
    return walk->fn(&w, walk->payload);
}

/* The time of the workload's last event before e that matches cond (of events p). */
#define LAST_BEFORE(cond)                                                                          \
    "(SELECT max(p.at) FROM events p WHERE p.uid = e.uid AND p.kind = 'Workload' AND " cond        \
    " AND p.id < e.id)"

#define READY_EVENT "e.reason = 'PodsReady'"

/*
 * Each quota reservation and each admission, with the time since the
 * workload last became pending (created, evicted and requeued, or
 * reactivated): Kueue's "created or requeued"; and for an admission that
 * waited for admission checks (from reserved), the time since its quota
 * reservation; and each PodsReady turning True, Started (waitForPodsReady)
 * with the same time and the time since its admission. One indexed lookup
 * per event (events_object): a third of the cost of a window over all the
 * events. by: the grouping the rows come in.
 */
#define WAITS_SQL(where, by)                                                                       \
    "SELECT w.cluster_queue, w.namespace, w.local_queue, " RESERVED_EVENT ", " ADMITTED_EVENT ", "  \
    "e.at - " LAST_BEFORE("p.to_state = " GQ_SQL_STATE(pending)) " AS wait, "                      \
    "CASE WHEN e.to_state = " GQ_SQL_STATE(admitted) " AND e.from_state = "                        \
    GQ_SQL_STATE(reserved) " THEN e.at - " LAST_BEFORE("p.reason = 'QuotaReserved'") " END, "     \
    READY_EVENT ", CASE WHEN " READY_EVENT " THEN e.at - "                                        \
    LAST_BEFORE("p.to_state = " GQ_SQL_STATE(admitted)) " END "                                   \
    "FROM events e JOIN workloads w ON w.uid = e.uid WHERE e.kind = 'Workload' "                   \
    "AND (" RESERVED_EVENT " OR (" ADMITTED_EVENT ") OR " READY_EVENT ") AND " where              \
    " AND wait IS NOT NULL ORDER BY " by

int gq__store_waits(struct gq_store *st, bool by_local_queue, gq__wait_fn fn, void *payload,
                    gq_error *err)
{
    static const char by_cq[] = WAITS_SQL("w.cluster_queue IS NOT NULL", "w.cluster_queue");
    static const char by_lq[] = WAITS_SQL("w.cluster_queue IS NOT NULL AND w.local_queue IS NOT NULL",
                                          "w.namespace, w.local_queue");
    struct waits_walk walk = {fn, payload};
    struct gq__cursor c;
    int rc;

    if ((rc = gq__store_cursor_open(st, by_local_queue ? by_lq : by_cq, &c, err)) != GQ_OK)
        return rc;
    return each_row(st, &c, NULL, false, wait_row, &walk, err);
}

/* ================================================================= summary */

/*
 * Workload state changes carry lower-case states (check updates carry
 * Kueue's capitalised check states and are left out). ?1 since, ?2 now.
 */
#define SPANS                                                                                     \
    "WITH spans AS (SELECT uid, to_state, at, "                                                   \
    "  coalesce(lead(at) OVER (PARTITION BY uid ORDER BY at, id), ?2) - at AS ms "               \
    "  FROM events WHERE kind = 'Workload' AND to_state IN "                                      \
    "  " GQ_SQL_EVENT_TO ") "

#define JOBS                                                                                      \
    "FROM workloads w LEFT JOIN local_queues lq "                                                 \
    "  ON lq.namespace = w.namespace AND lq.name = w.local_queue "                                \
    "WHERE w.state <> " GQ_SQL_STATE(cancelled) " AND w.created_at >= ?1 "

struct summary_walk {
    gq_summary_job_fn jobs;
    gq_summary_queue_fn queues;
    void *payload;
};

/* Columns: namespace, job, cluster queue, state, pending ms, reserved ms, ran ms, requests. */
static int summary_job_row(sqlite3_stmt *s, void *payload)
{
    struct summary_walk *w = payload;
    gq_summary_job j = {gq__col_text(s, 0), gq__col_text(s, 1), gq__col_text(s, 2), gq__col_text(s, 3),
                        col_num(s, 4),  col_num(s, 5),  col_num(s, 6),  col_num(s, 7)};

    return w->jobs(&j, w->payload);
}

/* Columns: cluster queue, admitted, finished, pending, rejected. */
static int summary_queue_row(sqlite3_stmt *s, void *payload)
{
    struct summary_walk *w = payload;
    gq_summary_queue q = {gq__col_text(s, 0), (uint64_t)col_num(s, 1), (uint64_t)col_num(s, 2),
                          (uint64_t)col_num(s, 3), (uint64_t)col_num(s, 4)};

    return w->queues(&q, w->payload);
}

/* Run sql with ?1 since and ?2 now (as text, as the spans compare them); shape checked. */
static int summary_rows(struct gq_store *st, const char *sql, const char *shape, int64_t since_ms,
                        int64_t now_ms, row_fn fn, struct summary_walk *w, gq_error *err)
{
    char since[24], now[24];
    struct gq__cursor c;
    int rc;

    if ((rc = gq__store_cursor_open(st, sql, &c, err)) != GQ_OK)
        return rc;
    snprintf(since, sizeof(since), "%lld", (long long)since_ms);
    snprintf(now, sizeof(now), "%lld", (long long)now_ms);
    gq__bind_text(c.stmt, 1, since);
    gq__bind_text(c.stmt, 2, now);
    return each_row(st, &c, shape, false, fn, w, err);
}

int gq__store_summary_jobs(struct gq_store *st, int64_t since_ms, int64_t now_ms,
                           gq_summary_job_fn fn, void *payload, gq_error *err)
{
    static const char sql[] =
        SPANS "SELECT w.namespace, w.job_name, coalesce(w.cluster_queue, lq.cluster_queue), "
              "w.state, sum(ms) FILTER (WHERE s.to_state = " GQ_SQL_STATE(pending) "), "
              "sum(ms) FILTER (WHERE s.to_state = " GQ_SQL_STATE(reserved) "), "
              "sum(ms) FILTER (WHERE s.to_state IN " GQ_SQL_ADMITTED "), "
              "(SELECT count(*) FROM provisioning_requests p WHERE p.workload_id = w.id) "
              "FROM workloads w LEFT JOIN local_queues lq "
              "ON lq.namespace = w.namespace AND lq.name = w.local_queue "
              "LEFT JOIN spans s ON s.uid = w.uid "
              "WHERE w.state <> " GQ_SQL_STATE(cancelled) " AND w.created_at >= ?1 "
              "GROUP BY w.id ORDER BY w.created_at, w.id";
    struct summary_walk w = {fn, NULL, payload};

    /* The callbacks print the names: a damaged file's NULL stops here instead. */
    return summary_rows(st, sql, "workloads:TTtT", since_ms, now_ms, summary_job_row, &w, err);
}

int gq__store_summary_queues(struct gq_store *st, int64_t since_ms, int64_t now_ms,
                             gq_summary_queue_fn fn, void *payload, gq_error *err)
{
    static const char sql[] =
        "SELECT coalesce(w.cluster_queue, lq.cluster_queue) AS q, "
        "sum(w.state IN " GQ_SQL_WAS_ADMITTED "), sum(w.state = " GQ_SQL_STATE(finished) "), "
        "sum(w.state IN " GQ_SQL_AWAITING_ADMISSION "), "
        "sum(w.state = " GQ_SQL_STATE(deactivated) ") " JOBS
        "AND ?2 IS NOT NULL GROUP BY q HAVING q IS NOT NULL ORDER BY q";
    struct summary_walk w = {NULL, fn, payload};

    return summary_rows(st, sql, "workloads:T", since_ms, now_ms, summary_queue_row, &w, err);
}
