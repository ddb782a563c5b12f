/*
 * store_load.c: the statements behind the engine's admission snapshot, the
 * simulated cluster's NodePools and a queue's stop policy (store_load.h), so
 * that engine_load.c, engine_pools.c and engine.c hold no SQL. Each
 * function checks each row's shape (the shapes of struct gq__query,
 * unchanged from when the engine ran these statements itself), and hands
 * the row on as a struct.
 *
 * Statements are cached by their static text's address (gq__store_cached),
 * leaving gq__store_stmt its room, and prepared afresh when the cached one
 * is in use or the cache is short of room. Sizes: the snapshot reads every
 * live workload, its usage rows and every queue object once per rebuild
 * (a loop's rebuilds read only the rows that changed: store_cache.c, with
 * the gq__store_touched_* reads here); pools and stop policies read a
 * handful of rows.
 */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "state.h"
#include "store_int.h"
#include "store_load.h"
#include "util.h"

/* ------------------------------------------------------------------ walks */

/* A row reader: turns the row stmt stands on into a struct and calls the caller's fn. */
typedef int (*row_fn)(sqlite3_stmt *stmt, const void *fn, void *payload);

struct walk {
    row_fn read;
    const void *fn;
    void *payload;
};

static int walk_row(sqlite3_stmt *stmt, void *payload, gq_error *err)
{
    const struct walk *w = payload;

    (void)err;
    return w->read(stmt, w->fn, w->payload);
}

/* Every row of c, checked against shape, through read. Closes c. */
static int each_row(struct gq_store *st, struct gq__cursor *c, const char *shape, row_fn read,
                    const void *fn, void *payload, gq_error *err)
{
    struct walk w = {read, fn, payload};

    return gq__store_each_row(st, c, shape, false, 0, walk_row, &w, err);
}

/* Every row of sql (no parameters) through read. */
static int walk(struct gq_store *st, const char *sql, const char *shape, row_fn read,
                const void *fn, void *payload, gq_error *err)
{
    struct gq__cursor c;
    int rc;

    if ((rc = gq__store_cursor_open(st, sql, &c, err)) != GQ_OK)
        return rc;
    return each_row(st, &c, shape, read, fn, payload, err);
}

/* ------------------------------------------------------------------ specs */

struct spec_fn {
    gq__load_spec_fn fn;
};

/* Columns: name, spec. */
static int named_spec_row(sqlite3_stmt *stmt, const void *fn, void *payload)
{
    struct gq_load_spec r = {gq__col_text(stmt, 0), NULL, gq__col_text(stmt, 1)};

    return ((const struct spec_fn *)fn)->fn(&r, payload);
}

static int specs(struct gq_store *st, const char *sql, const char *shape, gq__load_spec_fn fn,
                 void *payload, gq_error *err)
{
    const struct spec_fn f = {fn};

    return walk(st, sql, shape, named_spec_row, &f, payload, err);
}

int gq__store_load_flavors(struct gq_store *st, gq__load_spec_fn fn, void *payload,
                           gq_error *err)
{
    static const char sql[] = "SELECT name, spec FROM resource_flavors ORDER BY name";

    return specs(st, sql, "resource_flavors:TT", fn, payload, err);
}

/* Columns: name, parent, spec. */
static int cohort_row(sqlite3_stmt *stmt, const void *fn, void *payload)
{
    struct gq_load_spec r = {gq__col_text(stmt, 0), gq__col_text(stmt, 1), gq__col_text(stmt, 2)};

    return ((const struct spec_fn *)fn)->fn(&r, payload);
}

int gq__store_load_cohorts(struct gq_store *st, gq__load_spec_fn fn, void *payload,
                           gq_error *err)
{
    static const char sql[] = "SELECT name, parent, spec FROM cohorts ORDER BY name";
    const struct spec_fn f = {fn};

    return walk(st, sql, "cohorts:TtT", cohort_row, &f, payload, err);
}

int gq__store_load_cluster_queues(struct gq_store *st, gq__load_spec_fn fn, void *payload,
                                  gq_error *err)
{
    static const char sql[] = "SELECT name, spec FROM cluster_queues ORDER BY name";

    return specs(st, sql, "cluster_queues:TT", fn, payload, err);
}

int gq__store_load_provisioning_configs(struct gq_store *st, gq__load_spec_fn fn, void *payload,
                                        gq_error *err)
{
    static const char sql[] = "SELECT name, spec FROM provisioning_configs ORDER BY name";

    return specs(st, sql, "provisioning_configs:TT", fn, payload, err);
}

int gq__store_load_admission_checks(struct gq_store *st, gq__load_spec_fn fn, void *payload,
                                    gq_error *err)
{
    static const char sql[] = "SELECT name, spec FROM admission_checks ORDER BY name";

    return specs(st, sql, "admission_checks:TT", fn, payload, err);
}

int gq__store_load_namespaces(struct gq_store *st, gq__load_spec_fn fn, void *payload,
                              gq_error *err)
{
    static const char sql[] = "SELECT name, spec FROM namespaces ORDER BY name";

    return specs(st, sql, "namespaces:TT", fn, payload, err);
}

/* Columns: spec. */
static int config_row(sqlite3_stmt *stmt, const void *fn, void *payload)
{
    struct gq_load_spec r = {NULL, NULL, gq__col_text(stmt, 0)};

    return ((const struct spec_fn *)fn)->fn(&r, payload);
}

int gq__store_load_configurations(struct gq_store *st, gq__load_spec_fn fn, void *payload,
                                  gq_error *err)
{
    static const char sql[] = "SELECT spec FROM configurations";
    const struct spec_fn f = {fn};

    return walk(st, sql, "configurations:T", config_row, &f, payload, err);
}

int gq__store_load_node_pools(struct gq_store *st, gq__load_spec_fn fn, void *payload,
                              gq_error *err)
{
    static const char sql[] = "SELECT name, spec FROM node_pools ORDER BY name";

    return specs(st, sql, "node_pools:TT", fn, payload, err); /* a NULL is damage, not a pool */
}

int gq__store_load_integrations(struct gq_store *st, gq__load_spec_fn fn, void *payload,
                                gq_error *err)
{
    static const char sql[] = "SELECT name, spec FROM integrations ORDER BY name";

    return specs(st, sql, "integrations:TT", fn, payload, err);
}

int gq__store_load_training_runtimes(struct gq_store *st, gq__load_spec_fn fn, void *payload,
                                     gq_error *err)
{
    static const char sql[] = "SELECT name, spec FROM training_runtimes ORDER BY name";

    return specs(st, sql, "training_runtimes:TT", fn, payload, err);
}

int gq__store_load_limit_ranges(struct gq_store *st, gq__load_spec_fn fn, void *payload,
                                gq_error *err)
{
    static const char sql[] = "SELECT name, spec FROM limit_ranges ORDER BY namespace, name";

    return specs(st, sql, "limit_ranges:TT", fn, payload, err);
}

int gq__store_load_runtime_classes(struct gq_store *st, gq__load_spec_fn fn, void *payload,
                                   gq_error *err)
{
    static const char sql[] = "SELECT name, spec FROM runtime_classes ORDER BY name";

    return specs(st, sql, "runtime_classes:TT", fn, payload, err);
}

/* ----------------------------------------------------------------- quotas */

struct quota_fn {
    gq__load_quota_fn fn;
};

/* Columns: owner_kind, owner, group_index, flavor_index, flavor, resource, nominal, bl, ll. */
static int quota_row(sqlite3_stmt *stmt, const void *fn, void *payload)
{
    struct gq_load_quota r;

    r.owner_kind = gq__col_text(stmt, 0);
    r.owner = gq__col_text(stmt, 1);
    r.group_index = sqlite3_column_int64(stmt, 2);
    r.flavor_index = sqlite3_column_int64(stmt, 3);
    r.flavor = gq__col_text(stmt, 4);
    r.resource = gq__col_text(stmt, 5);
    r.nominal = sqlite3_column_int64(stmt, 6);
    r.has_borrowing_limit = sqlite3_column_type(stmt, 7) != SQLITE_NULL;
    r.borrowing_limit = sqlite3_column_int64(stmt, 7);
    r.has_lending_limit = sqlite3_column_type(stmt, 8) != SQLITE_NULL;
    r.lending_limit = sqlite3_column_int64(stmt, 8);
    return ((const struct quota_fn *)fn)->fn(&r, payload);
}

int gq__store_load_quotas(struct gq_store *st, gq__load_quota_fn fn, void *payload,
                          gq_error *err)
{
    static const char sql[] =
        "SELECT owner_kind, owner, group_index, flavor_index, flavor, resource, nominal, "
        "borrowing_limit, lending_limit FROM quotas ORDER BY owner_kind, owner, group_index, "
        "flavor_index";
    const struct quota_fn f = {fn};

    return walk(st, sql, "quotas:TTIITTIii", quota_row, &f, payload, err);
}

/* ----------------------------------------------------------- local queues */

struct lq_fn {
    gq__load_lq_fn fn;
};

/*
 * Columns: namespace, name, cluster_queue, stop_policy, fairSharing.weight,
 * and its admission fair sharing status (schema/0016) when it has one.
 */
static int lq_row(sqlite3_stmt *stmt, const void *fn, void *payload)
{
    struct gq_load_local_queue r = {gq__col_text(stmt, 0), gq__col_text(stmt, 1),
                                    gq__col_text(stmt, 2), gq__col_text(stmt, 3),
                                    gq__col_text(stmt, 4), gq__col_text(stmt, 5),
                                    sqlite3_column_int64(stmt, 6)};

    return ((const struct lq_fn *)fn)->fn(&r, payload);
}

int gq__store_load_local_queues(struct gq_store *st, gq__load_lq_fn fn, void *payload,
                                gq_error *err)
{
    static const char sql[] =
        "SELECT q.namespace, q.name, q.cluster_queue, q.stop_policy, "
        "q.spec ->> '$.spec.fairSharing.weight', u.consumed, u.last_update "
        "FROM local_queues q LEFT JOIN lq_afs_usage u "
        "ON u.namespace = q.namespace AND u.name = q.name ORDER BY q.namespace, q.name";
    const struct lq_fn f = {fn};

    return walk(st, sql, "local_queues:TTTTtti", lq_row, &f, payload, err);
}

int gq__store_afs_put(struct gq_store *st, const char *ns, const char *name,
                      const char *consumed, int64_t last_update, gq_error *err)
{
    static const char sql[] = "INSERT OR REPLACE INTO lq_afs_usage(namespace, name, consumed, "
                              "last_update) VALUES (?1, ?2, ?3, ?4)";
    sqlite3_stmt *stmt = gq__store_stmt(st, sql, err);

    if (!stmt)
        return err ? err->code : GQ_EIO;
    gq__bind_text(stmt, 1, ns);
    gq__bind_text(stmt, 2, name);
    gq__bind_text(stmt, 3, consumed);
    sqlite3_bind_int64(stmt, 4, last_update);
    return gq__store_step_done(st, stmt, err);
}

/* -------------------------------------------------------------- workloads */

struct workload_fn {
    gq__load_workload_fn fn;
};

/*
 * Columns: id, uid, namespace, name, job_name, local_queue, cluster_queue,
 * priority, state, reason, message, podsets, queued_at, reserved_at,
 * evicted_reason, requeue_at, inadmissible, admitted_at, pods_ready_reason,
 * pods_ready_at, requeue_count.
 */
static int workload_row(sqlite3_stmt *stmt, const void *fn, void *payload)
{
    struct gq_load_workload r;

    r.id = sqlite3_column_int64(stmt, 0);
    r.uid = gq__col_text(stmt, 1);
    r.ns = gq__col_text(stmt, 2);
    r.name = gq__col_text(stmt, 3);
    r.job_name = gq__col_text(stmt, 4);
    r.local_queue = gq__col_text(stmt, 5);
    r.cluster_queue = gq__col_text(stmt, 6);
    r.priority = sqlite3_column_int64(stmt, 7);
    r.state = gq__col_text(stmt, 8);
    r.reason = gq__col_text(stmt, 9);
    r.message = gq__col_text(stmt, 10);
    r.podsets = gq__col_text(stmt, 11);
    r.queued_at = sqlite3_column_int64(stmt, 12);
    r.reserved_at = sqlite3_column_int64(stmt, 13); /* 0 for NULL */
    r.evicted = sqlite3_column_type(stmt, 14) != SQLITE_NULL;
    r.requeue_at = sqlite3_column_int64(stmt, 15); /* 0 for NULL */
    r.inadmissible = gq__col_text(stmt, 16);
    r.admitted_at = sqlite3_column_int64(stmt, 17);
    r.pods_ready_reason = gq__col_text(stmt, 18);
    r.pods_ready_at = sqlite3_column_int64(stmt, 19);
    r.requeue_count = sqlite3_column_int64(stmt, 20);
    return ((const struct workload_fn *)fn)->fn(&r, payload);
}

#define WORKLOAD_COLUMNS                                                                        \
    "SELECT id, uid, namespace, name, job_name, local_queue, cluster_queue, priority, "        \
    "state, reason, message, podsets, queued_at, reserved_at, evicted_reason, requeue_at, "   \
    "inadmissible, admitted_at, pods_ready_reason, pods_ready_at, requeue_count "             \
    "FROM workloads "
#define WORKLOAD_SHAPE "workloads:#TTTTttITttTIitititiI"

int gq__store_load_workloads(struct gq_store *st, gq__load_workload_fn fn, void *payload,
                             gq_error *err)
{
    static const char sql[] = WORKLOAD_COLUMNS "WHERE state IN " GQ_SQL_IN_ADMISSION
                              " ORDER BY id";
    const struct workload_fn f = {fn};

    return walk(st, sql, WORKLOAD_SHAPE, workload_row, &f, payload, err);
}

int gq__store_touched_workloads(struct gq_store *st, gq__load_workload_fn fn, void *payload,
                                gq_error *err)
{
    static const char sql[] = WORKLOAD_COLUMNS "WHERE id IN (SELECT id FROM gq_touched) "
                              "AND " GQ_SQL_STATE_ANY(GQ__SET_IN_ADMISSION) " ORDER BY id";
    const struct workload_fn f = {fn};

    return walk(st, sql, WORKLOAD_SHAPE, workload_row, &f, payload, err);
}

struct usage_fn {
    gq__load_usage_fn fn;
};

/* Columns: workload_id, flavor, resource, amount. */
static int usage_row(sqlite3_stmt *stmt, const void *fn, void *payload)
{
    struct gq_load_usage r = {sqlite3_column_int64(stmt, 0), gq__col_text(stmt, 1),
                              gq__col_text(stmt, 2), sqlite3_column_int64(stmt, 3)};

    return ((const struct usage_fn *)fn)->fn(&r, payload);
}

int gq__store_load_usage(struct gq_store *st, gq__load_usage_fn fn, void *payload,
                         gq_error *err)
{
    static const char sql[] =
        "SELECT u.workload_id, u.flavor, u.resource, u.amount FROM usage u JOIN workloads w "
        "ON w.id = u.workload_id WHERE w.state IN " GQ_SQL_HOLDS_QUOTA " "
        "ORDER BY u.workload_id, u.flavor, u.resource";
    const struct usage_fn f = {fn};

    return walk(st, sql, "usage:ITTI", usage_row, &f, payload, err);
}

int gq__store_touched_usage(struct gq_store *st, gq__load_usage_fn fn, void *payload,
                            gq_error *err)
{
    static const char sql[] =
        "SELECT u.workload_id, u.flavor, u.resource, u.amount FROM usage u JOIN workloads w "
        "ON w.id = u.workload_id WHERE u.workload_id IN (SELECT id FROM gq_touched) "
        "AND " GQ_SQL_W_STATE_ANY(GQ__SET_HOLDS_QUOTA)
        " ORDER BY u.workload_id, u.flavor, u.resource";
    const struct usage_fn f = {fn};

    return walk(st, sql, "usage:ITTI", usage_row, &f, payload, err);
}

struct failed_fn {
    gq__load_failed_fn fn;
};

/* Columns: workload id, flavor, attempts (json_each of failed_flavors: any type). */
static int failed_row(sqlite3_stmt *stmt, const void *fn, void *payload)
{
    const char *n;
    struct gq_load_failed r;

    r.workload_id = sqlite3_column_int64(stmt, 0);
    r.flavor = gq__col_text(stmt, 1);
    n = gq__col_text(stmt, 2); /* as text, so any JSON value reads as it always has */
    r.attempts = n ? strtoll(n, NULL, 10) : 0;
    return ((const struct failed_fn *)fn)->fn(&r, payload);
}

int gq__store_load_failed_flavors(struct gq_store *st, gq__load_failed_fn fn, void *payload,
                                  gq_error *err)
{
    static const char sql[] =
        "SELECT w.id, f.key, f.value FROM workloads w, json_each(w.failed_flavors) f "
        "WHERE w.failed_flavors IS NOT NULL "
        "AND w.state IN " GQ_SQL_IN_ADMISSION " ORDER BY w.id";
    const struct failed_fn f = {fn};

    return walk(st, sql, "workloads:#T.", failed_row, &f, payload, err);
}

int gq__store_touched_failed_flavors(struct gq_store *st, gq__load_failed_fn fn, void *payload,
                                     gq_error *err)
{
    static const char sql[] =
        "SELECT w.id, f.key, f.value FROM workloads w, json_each(w.failed_flavors) f "
        "WHERE w.id IN (SELECT id FROM gq_touched) AND w.failed_flavors IS NOT NULL "
        "AND " GQ_SQL_W_STATE_ANY(GQ__SET_IN_ADMISSION) " ORDER BY w.id";
    const struct failed_fn f = {fn};

    return walk(st, sql, "workloads:#T.", failed_row, &f, payload, err);
}

struct id_fn {
    gq__load_id_fn fn;
};

/* Columns: workload_id. */
static int id_row(sqlite3_stmt *stmt, const void *fn, void *payload)
{
    return ((const struct id_fn *)fn)->fn(sqlite3_column_int64(stmt, 0), payload);
}

int gq__store_load_checked_workloads(struct gq_store *st, gq__load_id_fn fn, void *payload,
                                     gq_error *err)
{
    static const char sql[] =
        "SELECT DISTINCT workload_id FROM workload_checks ORDER BY workload_id";
    const struct id_fn f = {fn};

    return walk(st, sql, "workload_checks:I", id_row, &f, payload, err);
}

int gq__store_touched_checked(struct gq_store *st, gq__load_id_fn fn, void *payload,
                              gq_error *err)
{
    static const char sql[] = "SELECT DISTINCT workload_id FROM workload_checks "
                              "WHERE workload_id IN (SELECT id FROM gq_touched) "
                              "ORDER BY workload_id";
    const struct id_fn f = {fn};

    return walk(st, sql, "workload_checks:I", id_row, &f, payload, err);
}

struct id_list {
    int64_t *v;
    size_t n, cap;
};

static int id_list_row(sqlite3_stmt *stmt, void *payload, gq_error *err)
{
    struct id_list *l = payload;

    if (gq__grow(&l->v, &l->cap, l->n, sizeof(*l->v)) < 0)
        return gq__error(err, GQ_ENOMEM, "out of memory reading ids");
    l->v[l->n++] = sqlite3_column_int64(stmt, 0);
    return 0;
}

int gq__store_id_list(struct gq_store *st, const char *sql, const char *shape, int64_t **out,
                      size_t *n, gq_error *err)
{
    struct id_list l = {NULL, 0, 0};
    struct gq__cursor c;
    int rc;

    *out = NULL;
    *n = 0;
    if ((rc = gq__store_cursor_open(st, sql, &c, err)) != GQ_OK)
        return rc;
    if ((rc = gq__store_each_row(st, &c, shape, false, 0, id_list_row, &l, err)) != GQ_OK) {
        free(l.v);
        return rc;
    }
    *out = l.v;
    *n = l.n;
    return GQ_OK;
}

int gq__store_touched_ids(struct gq_store *st, int64_t **out, size_t *n, gq_error *err)
{
    static const char sql[] = "SELECT id FROM gq_touched ORDER BY id";

    return gq__store_id_list(st, sql, "gq_touched:I", out, n, err);
}

/* ----------------------------------------------------------- queue specs */

/* Column 0 into *(char **)payload, replacing an earlier row's. */
static int text_row(sqlite3_stmt *stmt, const void *fn, void *payload)
{
    char **out = payload;
    const char *v = gq__col_text(stmt, 0);

    (void)fn;
    free(*out);
    *out = v ? strdup(v) : NULL;
    return v && !*out ? GQ_ENOMEM : 0;
}

/* The one text column of sql's row, ?1 and ?2 bound to p1 and p2 (p2 NULL: none). */
static int one_text(struct gq_store *st, const char *sql, const char *shape, const char *p1,
                    const char *p2, char **out, gq_error *err)
{
    struct gq__cursor c;
    int rc;

    *out = NULL;
    if ((rc = gq__store_cursor_open(st, sql, &c, err)) != GQ_OK)
        return rc;
    gq__bind_text(c.stmt, 1, p1);
    if (p2)
        gq__bind_text(c.stmt, 2, p2);
    rc = each_row(st, &c, shape, text_row, NULL, out, err);
    if (rc == GQ_ENOMEM)
        rc = gq__error(err, GQ_ENOMEM, "out of memory reading a stored spec");
    if (rc != GQ_OK) {
        free(*out);
        *out = NULL;
    }
    return rc;
}

int gq__store_cluster_queue_spec(struct gq_store *st, const char *name, char **out,
                                 gq_error *err)
{
    static const char sql[] = "SELECT spec FROM cluster_queues WHERE name = ?1";

    return one_text(st, sql, "cluster_queues:T", name, NULL, out, err);
}

int gq__store_local_queue_spec(struct gq_store *st, const char *ns, const char *name,
                               char **out, gq_error *err)
{
    static const char sql[] = "SELECT spec FROM local_queues WHERE name = ?1 AND namespace = ?2";

    return one_text(st, sql, "local_queues:T", name, ns, out, err);
}
