/*
 * store_run.c: the statements behind the simulated cluster's loop
 * (engine/run.c, store_run.h): the ProvisioningRequests the provider step
 * hands the simulator, the workloads the kubelet step starts and finishes and
 * their pod sets, when anything is next due, and the flavors' node labels.
 * Each function binds its parameters, checks each row's shape where the loop
 * checked it before (the shapes of struct gq__query), and hands the row to
 * its caller as a struct.
 *
 * Values are converted as the loop always read them: text as SQLite prints
 * it, and numbers through strtoll of that text, so that a damaged value reads
 * the same as before. Parameters are bound as text, as they always were: the
 * default duration stands in a comparison beside stored integers, and a
 * change of its type would change what that comparison says. Statements are
 * cached by their static text's address (gq__store_cached), and prepared
 * afresh when the cached one is in use or the cache is short of room. Sizes:
 * a step reads every live workload and request once or twice; a simulated
 * week runs these reads a few hundred thousand times.
 */
#include <stdio.h>
#include <stdlib.h>

#include "error.h"
#include "sort.h"
#include "state.h"
#include "store_int.h"
#include "store_run.h"
#include "util.h"

/*
 * When a running workload's job ends (?2: the default duration): NULL, never
 * on its own, when that falls outside 1970..9999. A huge stored duration (a
 * row of an older binary, an annotation no decoder checked) made started_at +
 * duration overflow into a REAL that read back as a moment in 1970, and the
 * clock jumped there.
 */
#define DURATION_SQL "coalesce(duration_ms, ?2)"
#define END_SQL                                                                                   \
    "(CASE WHEN started_at BETWEEN 0 AND " GQ__TIME_MAX_SQL " AND " DURATION_SQL                      \
    " BETWEEN -started_at AND " GQ__TIME_MAX_SQL " - started_at THEN started_at + " DURATION_SQL      \
    " END)"

/* -------------------------------------------------------------- columns */

/* Column i read as text, then as a number the way strtoll reads it; dflt for NULL. */
static int64_t col_num(sqlite3_stmt *s, int i, int64_t dflt)
{
    const char *t = gq__col_text(s, i);

    return t ? strtoll(t, NULL, 10) : dflt;
}

/* now_ms and default_ms as the text ?1 and ?2 are bound to (see the top). */
/*
 * ?1 now (or an id) and ?2 the default duration, as integers: bound as text,
 * ?2 compared above every integer in END_SQL's range check, and a job with
 * no gpuq.dev/duration never finished.
 */
static void bind_params(sqlite3_stmt *stmt, int64_t now_ms, int64_t default_ms, int n)
{
    if (n >= 1)
        sqlite3_bind_int64(stmt, 1, now_ms);
    if (n >= 2)
        sqlite3_bind_int64(stmt, 2, default_ms);
}

/* --------------------------------------------------------------- requests */

struct request_walk {
    gq__run_request_fn fn;
    void *payload;
};

static int request_row(sqlite3_stmt *s, void *payload, gq_error *err)
{
    (void)err;
    struct request_walk *w = payload;
    struct gq_run_request p = {
        col_num(s, 0, 0),  col_num(s, 10, 0), gq__col_text(s, 1), gq__col_text(s, 2),
        gq__col_text(s, 3),    gq__col_text(s, 4),    gq__col_text(s, 5), gq__col_text(s, 6),
        gq__col_text(s, 7),    gq__col_text(s, 8),    gq__col_text(s, 9),
    };

    return w->fn(&p, w->payload);
}

int gq__store_run_requests(struct gq_store *st, gq__run_request_fn fn, void *payload,
                           gq_error *err)
{
    static const char sql[] =
        "SELECT p.id, p.uid, p.name, p.namespace, p.class, p.spec, p.templates, p.status, p.sim, "
        "w.state, w.id FROM provisioning_requests p JOIN workloads w ON w.id = p.workload_id "
        "WHERE p.deleted_at IS NULL ORDER BY p.id";
    struct request_walk w = {fn, payload};
    struct gq__cursor c;
    int rc;

    if ((rc = gq__store_cursor_open(st, sql, &c, err)) != GQ_OK)
        return rc;
    /* A NULL where none can be would reach strtoll or read as out of memory. */
    return gq__store_each_row(st, &c, "provisioning_requests:#TTTTTTttTI", false, 0, request_row, &w, err);
}

/* -------------------------------------------------------------- workloads */

struct workload_walk {
    gq__run_workload_fn fn;
    void *payload;
};

static int workload_row(sqlite3_stmt *s, void *payload, gq_error *err)
{
    (void)err;
    struct workload_walk *w = payload;
    struct gq_run_workload x = {col_num(s, 0, 0), gq__col_text(s, 1), gq__col_text(s, 2),
                                gq__col_text(s, 3),   gq__col_text(s, 4), col_num(s, 5, -1)};

    return w->fn(&x, w->payload);
}

int gq__store_run_workloads(struct gq_store *st, enum gq_run_which which, int64_t now_ms,
                            int64_t default_ms, gq__run_workload_fn fn, void *payload,
                            gq_error *err)
{
    static const char admitted[] =
        "SELECT id, namespace, name, uid, job_name, " DURATION_SQL " FROM workloads "
        "WHERE state = " GQ_SQL_STATE(admitted) " AND cluster_name IS NULL ORDER BY id";
    static const char done[] =
        "SELECT id, namespace, name, uid, job_name, " DURATION_SQL " FROM workloads "
        "WHERE state = " GQ_SQL_STATE(running) " AND cluster_name IS NULL AND " END_SQL
        " <= CAST(?1 AS INTEGER) ORDER BY "
        END_SQL ", id";
    const char *sql = which == GQ_RUN_ADMITTED ? admitted : done;
    struct workload_walk w = {fn, payload};
    struct gq__cursor c;
    int rc;

    if ((rc = gq__store_cursor_open(st, sql, &c, err)) != GQ_OK)
        return rc;
    bind_params(c.stmt, now_ms, default_ms, 2);
    /* duration_ms may be the text ?2 (DURATION_SQL): any type there. */
    return gq__store_each_row(st, &c, "workloads:#TTTT", false, 0, workload_row, &w, err);
}

static int cmp_id(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

    return (x > y) - (x < y);
}

int gq__store_run_live_ids(struct gq_store *st, int64_t **out, size_t *n, gq_error *err)
{
    /*
     * One index seek per state, sorted here: `state IN (...)` and ORDER BY
     * would each build a temporary table at every step.
     */
#define IDS_IN(low) "SELECT id FROM workloads WHERE state = " GQ_SQL_STATE(low)
    static const char sql[] = GQ__SET_ADMITTED(IDS_IN, " UNION ALL ");
#undef IDS_IN
    int rc = gq__store_id_list(st, sql, "workloads:I", out, n, err);

    if (rc == GQ_OK)
        gq__qsort(*out, *n, sizeof(**out), cmp_id);
    return rc;
}

/* --------------------------------------------------------------- pod sets */

struct podset_walk {
    gq__run_podset_fn fn;
    void *payload;
};

static int podset_row(sqlite3_stmt *s, void *payload, gq_error *err)
{
    (void)err;
    struct podset_walk *w = payload;
    struct gq_run_podset ps = {col_num(s, 0, 0),  gq__col_text(s, 1), col_num(s, 2, 1),
                               col_num(s, 3, 0),  gq__col_text(s, 4), gq__col_text(s, 5),
                               gq__col_text(s, 6), col_num(s, 7, 0)};

    return w->fn(&ps, w->payload);
}

int gq__store_run_podsets(struct gq_store *st, int64_t id, gq__run_podset_fn fn, void *payload,
                          gq_error *err)
{
    static const char sql[] =
        "SELECT w.id, ps.value ->> 'name', coalesce(a.value ->> 'count', ps.value ->> 'count'), "
        "(SELECT sum(j.value) FROM json_each(ps.value, '$.amounts') j "
        "  WHERE gq_gpu_resource(j.key)), "
        "(SELECT f.value FROM json_each(a.value, '$.flavors') f WHERE gq_gpu_resource(f.key) "
        "  ORDER BY f.key LIKE '%/gpu' DESC, f.id LIMIT 1), "
        "(SELECT group_concat(s.key || '=' || s.value, char(10)) "
        "  FROM json_each(ps.value, '$.match.nodeSelector') s), "
        "(SELECT group_concat(fv, char(10)) FROM (SELECT f.value AS fv "
        "  FROM json_each(a.value, '$.flavors') f GROUP BY f.value ORDER BY min(f.id))), w.pods "
        "FROM workloads w, json_each(w.podsets) ps LEFT JOIN "
        "json_each(w.admission, '$.podSetAssignments') a ON a.value ->> 'name' = ps.value ->> 'name' "
        "WHERE w.id = CAST(?1 AS INTEGER) ORDER BY ps.key";
    struct podset_walk w = {fn, payload};
    struct gq__cursor c;
    int rc;

    if ((rc = gq__store_cursor_open(st, sql, &c, err)) != GQ_OK)
        return rc;
    bind_params(c.stmt, id, 0, 1);
    return gq__store_each_row(st, &c, "workloads:#.......I", false, 0, podset_row, &w, err);
}

/* -------------------------------------------------------------- what's due */

/* The one value of the row, read as text then through strtoll; 0 for NULL. */
static int min_row(sqlite3_stmt *s, void *payload, gq_error *err)
{
    (void)err;
    *(int64_t *)payload = col_num(s, 0, 0);
    return 0;
}

/* The one value sql (?1 now_ms, ?2 default_ms, n of them bound) yields into out; 0 for NULL. */
static int min_of(struct gq_store *st, const char *sql, int64_t now_ms, int64_t default_ms, int n,
                  int64_t *out, gq_error *err)
{
    struct gq__cursor c;
    int rc;

    *out = 0;
    if ((rc = gq__store_cursor_open(st, sql, &c, err)) != GQ_OK)
        return rc;
    bind_params(c.stmt, now_ms, default_ms, n);
    return gq__store_each_row(st, &c, NULL, false, 0, min_row, out, err);
}

int gq__store_run_due(struct gq_store *st, int64_t now_ms, int64_t default_ms,
                      int64_t *finish_out, int64_t *requeue_out, gq_error *err)
{
    static const char finish[] = "SELECT min(" END_SQL ") FROM workloads WHERE state = "
                                 GQ_SQL_STATE(running) " AND cluster_name IS NULL";
    static const char requeue[] = "SELECT min(requeue_at) FROM workloads "
                                  "WHERE state = " GQ_SQL_STATE(pending)
                                  " AND requeue_at > CAST(?1 AS INTEGER)";
    int rc = min_of(st, finish, now_ms, default_ms, 2, finish_out, err);

    *requeue_out = 0;
    return rc == GQ_OK ? min_of(st, requeue, now_ms, default_ms, 1, requeue_out, err) : rc;
}

/* ---------------------------------------------------------------- flavors */

struct flavor_walk {
    gq__run_flavor_fn fn;
    void *payload;
};

static int flavor_row(sqlite3_stmt *s, void *payload, gq_error *err)
{
    (void)err;
    struct flavor_walk *w = payload;

    return w->fn(gq__col_text(s, 0), gq__col_text(s, 1), w->payload);
}

int gq__store_run_flavors(struct gq_store *st, gq__run_flavor_fn fn, void *payload, gq_error *err)
{
    static const char sql[] =
        "SELECT f.name, group_concat(l.key || '=' || l.value, char(10)) FROM resource_flavors f, "
        "json_each(f.spec, '$.spec.nodeLabels') l GROUP BY f.name ORDER BY f.name";
    struct flavor_walk w = {fn, payload};
    struct gq__cursor c;
    int rc;

    if ((rc = gq__store_cursor_open(st, sql, &c, err)) != GQ_OK)
        return rc;
    return gq__store_each_row(st, &c, "resource_flavors:TT", false, 0, flavor_row, &w, err);
}
