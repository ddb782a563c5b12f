/*
 * store_report.c: the reads behind gq_report, in one read transaction.
 *
 * Only what the figures need is read, row by row into plain arrays: the
 * jobs submitted in the window (one row per workload, not its events: the
 * workloads table carries each one's reservation, admission and start
 * times), the nodes and pods of the simulated cluster's books that overlap
 * the window, and the ProvisioningRequests created in it (their outcomes
 * through events_object, the index on events.uid). The events table itself
 * is read once, for its last row (the window's default end), so a report
 * over a million events reads about a tenth as many rows.
 *
 * The arrays, their growth and the interning of names are here too
 * (store_report.h): the store fills them, and api/report.c, which computes
 * the figures from them, sits above it.
 */
#include <stdlib.h>
#include <string.h>

#include "admit.h" /* gq__grow */
#include "error.h"
#include "state.h"
#include "store_int.h"
#include "store_report.h"
#include "util.h"

/* ------------------------------------------- the arrays and their names */

static uint64_t fnv(const char *s)
{
    uint64_t h = 1469598103934665603ULL;

    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

static bool names_rehash(struct gq__names *nm)
{
    size_t ns = nm->nslots ? nm->nslots * 2 : 64, i, k;
    int32_t *slots = calloc(ns, sizeof(*slots));

    if (!slots)
        return false;
    for (i = 0; i < nm->n; i++) {
        for (k = fnv(nm->v[i]) & (ns - 1); slots[k]; k = (k + 1) & (ns - 1))
            ;
        slots[k] = (int32_t)i + 1;
    }
    free(nm->slots);
    nm->slots = slots;
    nm->nslots = ns;
    return true;
}

int32_t gq__names_intern(struct gq__names *nm, const char *s)
{
    size_t k;
    char *copy;

    if (!s)
        s = "-";
    if ((nm->n + 1) * 2 > nm->nslots && !names_rehash(nm))
        return -1;
    for (k = fnv(s) & (nm->nslots - 1); nm->slots[k]; k = (k + 1) & (nm->nslots - 1))
        if (strcmp(nm->v[nm->slots[k] - 1], s) == 0)
            return nm->slots[k] - 1;
    if (gq__grow(&nm->v, &nm->cap, nm->n, sizeof(char *)) < 0 ||
        !(copy = gq__strdup(s)))
        return -1;
    nm->v[nm->n] = copy;
    nm->slots[k] = (int32_t)++nm->n;
    return (int32_t)nm->n - 1;
}

void gq__names_free(struct gq__names *nm)
{
    size_t i;

    for (i = 0; i < nm->n; i++)
        free(nm->v[i]);
    free(nm->v);
    free(nm->slots);
    memset(nm, 0, sizeof(*nm));
}

void gq__report_raw_free(struct gq__report_raw *raw)
{
    gq__names_free(&raw->names);
    free(raw->jobs.v);
    free(raw->nodes.v);
    free(raw->pods.v);
    free(raw->pod_waits.v);
    free(raw->provreqs.v);
    memset(raw, 0, sizeof(*raw));
}

/* ----------------------------------------------------------------- reads */

struct load {
    int64_t since, until; /* as asked; 0: from the records */
    struct gq__report_raw *raw;
};

static int64_t col_time(sqlite3_stmt *s, int i)
{
    return sqlite3_column_type(s, i) == SQLITE_NULL ? -1 : sqlite3_column_int64(s, i);
}

static const char *col_text(sqlite3_stmt *s, int i)
{
    return (const char *)sqlite3_column_text(s, i);
}

/* Prepare sql and bind ?1 since, ?2 until. */
static sqlite3_stmt *prepare(struct gq_store *st, const char *sql, const struct gq__report_raw *raw,
                             gq_error *err)
{
    sqlite3_stmt *stmt = NULL;
    int rc = sqlite3_prepare_v2(st->db, sql, -1, &stmt, NULL);

    if (rc != SQLITE_OK) {
        gq__store_sqlerr(st, rc, err, "report");
        return NULL;
    }
    if (sqlite3_bind_parameter_count(stmt) >= 2) {
        sqlite3_bind_int64(stmt, 1, raw->since);
        sqlite3_bind_int64(stmt, 2, raw->until);
    }
    return stmt;
}

/*
 * Whether the current row has the shape the loop reads (see struct
 * gq__query): a damaged file's NULL or text would otherwise be read as 0.
 */
static bool row_ok(struct gq_store *st, sqlite3_stmt *stmt, const char *shape, gq_error *err)
{
    return gq__store_row_check(st, stmt, shape, false, err) == GQ_OK;
}

/* Finish a statement's loop: GQ_OK at SQLITE_DONE, else the error. */
static int finish(struct gq_store *st, sqlite3_stmt *stmt, int rc, gq_error *err)
{
    sqlite3_finalize(stmt);
    if (rc == GQ_ENOMEM)
        return gq__error(err, GQ_ENOMEM, "out of memory");
    if (rc == GQ_EIO) /* a damaged row: row_ok said so */
        return rc;
    if (rc != SQLITE_DONE)
        return gq__store_sqlerr(st, rc, err, "report");
    return GQ_OK;
}

/* The window's default ends: the first and the last thing the records saw. */
static int window(struct gq_store *st, struct load *l, gq_error *err)
{
    /*
     * One pass over workloads for both ends (their rows are wide: a pass is
     * most of a report's reading). Pods are not read: a pod starts or ends
     * only at a moment that has an event (its workload admitted, started or
     * finished) or a node's change, so they never reach past those.
     */
    static const char sql[] =
        "WITH w AS (SELECT min(created_at) AS lo, max(created_at) AS hi FROM workloads), "
        "n AS (SELECT min(requested_at) AS lo, "
        "  max(max(requested_at, coalesce(up_at, 0), coalesce(down_at, 0))) AS hi, "
        "  count(*) AS k FROM sim_nodes) "
        "SELECT min(coalesce(w.lo, n.lo), coalesce(n.lo, w.lo)), "
        "max(coalesce((SELECT at FROM events ORDER BY id DESC LIMIT 1), 0), "
        "  coalesce(w.hi, 0), coalesce(n.hi, 0)), n.k FROM w, n";
    struct gq__report_raw *raw = l->raw;
    sqlite3_stmt *stmt = prepare(st, sql, raw, err);
    int rc;

    if (!stmt)
        return err ? err->code : GQ_EIO;
    if ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        raw->since = l->since ? l->since : col_time(stmt, 0);
        raw->until = l->until ? l->until : col_time(stmt, 1) + 1; /* the end is exclusive */
        raw->nodes_total = (size_t)sqlite3_column_int64(stmt, 2);
        if (raw->since < 0)
            raw->since = 0;
        if (raw->until <= raw->since)
            raw->until = raw->since + 1;
        rc = SQLITE_DONE;
    }
    return finish(st, stmt, rc, err);
}

/* A time after the window's end was not reached inside it. */
static int64_t by(const struct gq__report_raw *raw, int64_t t)
{
    return t >= raw->until ? -1 : t;
}

static int jobs(struct gq_store *st, struct gq__report_raw *raw, gq_error *err)
{
    static const char sql[] =
        "SELECT coalesce(w.cluster_queue, lq.cluster_queue), "
        "w.namespace || '/' || coalesce(w.local_queue, '-'), w.namespace, "
        "w.created_at, w.reserved_at, w.admitted_at, w.started_at "
        "FROM workloads w LEFT JOIN local_queues lq "
        "ON lq.namespace = w.namespace AND lq.name = w.local_queue "
        "WHERE w.created_at >= ?1 AND w.created_at < ?2 AND w.state <> " GQ_SQL_STATE(cancelled) " "
        "ORDER BY w.id";
    sqlite3_stmt *stmt = prepare(st, sql, raw, err);
    struct gq__report_job *j;
    int rc;

    if (!stmt)
        return err ? err->code : GQ_EIO;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        if (!row_ok(st, stmt, "workloads:tTTIiii", err)) {
            rc = GQ_EIO;
            break;
        }
        if (gq__grow(&raw->jobs.v, &raw->jobs.cap, raw->jobs.n, sizeof(*j)) < 0) {
            rc = GQ_ENOMEM;
            break;
        }
        j = &raw->jobs.v[raw->jobs.n++];
        j->cq = gq__names_intern(&raw->names, col_text(stmt, 0));
        j->lq = gq__names_intern(&raw->names, col_text(stmt, 1));
        j->ns = gq__names_intern(&raw->names, col_text(stmt, 2));
        j->created = col_time(stmt, 3);
        j->reserved = by(raw, col_time(stmt, 4));
        j->admitted = by(raw, col_time(stmt, 5));
        j->started = by(raw, col_time(stmt, 6));
        if (j->cq < 0 || j->lq < 0 || j->ns < 0) {
            rc = GQ_ENOMEM;
            break;
        }
    }
    return finish(st, stmt, rc, err);
}

/* Append a span; false on out of memory. */
static bool add_span(struct gq__report_raw *raw, bool node, int64_t from, int64_t to,
                     int64_t gpus, const char *pool, const char *flavor)
{
    struct gq__report_span *sp;

    if (node ? gq__grow(&raw->nodes.v, &raw->nodes.cap, raw->nodes.n, sizeof(*sp)) < 0
             : gq__grow(&raw->pods.v, &raw->pods.cap, raw->pods.n, sizeof(*sp)) < 0)
        return false;
    sp = node ? &raw->nodes.v[raw->nodes.n++] : &raw->pods.v[raw->pods.n++];
    sp->from = from;
    sp->to = to;
    sp->gpus = gpus;
    sp->pool = gq__names_intern(&raw->names, pool);
    sp->flavor = gq__names_intern(&raw->names, flavor);
    return sp->pool >= 0 && sp->flavor >= 0;
}

static int nodes(struct gq_store *st, struct gq__report_raw *raw, gq_error *err)
{
    static const char sql[] =
        "SELECT up_at, down_at, gpus, pool, flavor FROM sim_nodes "
        "WHERE up_at IS NOT NULL AND up_at < ?2 AND (down_at IS NULL OR down_at > ?1) "
        "ORDER BY id";
    sqlite3_stmt *stmt = prepare(st, sql, raw, err);
    int rc;

    if (!stmt)
        return err ? err->code : GQ_EIO;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        if (!row_ok(st, stmt, "sim_nodes:IiITt", err)) {
            rc = GQ_EIO;
            break;
        }
        if (!add_span(raw, true, col_time(stmt, 0), by(raw, col_time(stmt, 1)),
                      sqlite3_column_int64(stmt, 2), col_text(stmt, 3), col_text(stmt, 4))) {
            rc = GQ_ENOMEM;
            break;
        }
    }
    return finish(st, stmt, rc, err);
}

/* One pod row: its wait if created in the window, its GPUs while it ran. */
static bool pod_row(sqlite3_stmt *stmt, struct gq__report_raw *raw)
{
    int64_t created = col_time(stmt, 0), started = by(raw, col_time(stmt, 1));
    int64_t ended = by(raw, col_time(stmt, 2));

    if (created >= raw->since && started >= 0) {
        if (gq__grow(&raw->pod_waits.v, &raw->pod_waits.cap, raw->pod_waits.n,
                          sizeof(int64_t)) < 0)
            return false;
        raw->pod_waits.v[raw->pod_waits.n++] = started - created;
    } else if (created >= raw->since && ended < 0) {
        raw->pods_waiting++;
    }
    if (started < 0 || sqlite3_column_int64(stmt, 3) <= 0)
        return true;
    return add_span(raw, false, started, ended, sqlite3_column_int64(stmt, 3),
                    col_text(stmt, 4), col_text(stmt, 5));
}

static int pods(struct gq_store *st, struct gq__report_raw *raw, gq_error *err)
{
    static const char sql[] =
        "SELECT p.created_at, p.started_at, p.ended_at, p.gpus, n.pool, "
        "coalesce(n.flavor, p.flavor) FROM sim_pods p LEFT JOIN sim_nodes n ON n.id = p.node_id "
        "WHERE p.created_at < ?2 AND (p.ended_at IS NULL OR p.ended_at > ?1) ORDER BY p.id";
    sqlite3_stmt *stmt = prepare(st, sql, raw, err);
    int rc;

    if (!stmt)
        return err ? err->code : GQ_EIO;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        if (!row_ok(st, stmt, "sim_pods:IiiItt", err)) {
            rc = GQ_EIO;
            break;
        }
        if (!pod_row(stmt, raw)) {
            rc = GQ_ENOMEM;
            break;
        }
    }
    return finish(st, stmt, rc, err);
}

/*
 * A request's flavor: the GPU flavor its workload was admitted with, else
 * the first GPU flavor of its ClusterQueue's quotas (a workload that was
 * never admitted keeps no assignment). A GPU is what gq_gpu_resource says
 * (store.c): a MIG slice or a shared GPU too, as in the GPUS column.
 */
#define PROV_FLAVOR                                                                                \
    "coalesce((SELECT value FROM json_each(w.admission, '$.podSetAssignments[0].flavors') "       \
    "  ORDER BY gq_gpu_resource(key) DESC, key LIMIT 1), "                                        \
    " (SELECT q.flavor FROM quotas q WHERE q.owner_kind = 'ClusterQueue' "                         \
    "  AND q.owner = coalesce(w.cluster_queue, lq.cluster_queue) AND gq_gpu_resource(q.resource) " \
    "  ORDER BY q.group_index, q.flavor_index LIMIT 1))"

#define PROV_HAS(reason)                                                                           \
    "EXISTS (SELECT 1 FROM events e WHERE e.uid = p.uid AND e.reason = '" reason "' "             \
    "AND e.at < ?2)"

static int provreqs(struct gq_store *st, struct gq__report_raw *raw, gq_error *err)
{
    static const char sql[] =
        "SELECT " PROV_FLAVOR ", p.attempt, p.created_at, "
        "(SELECT min(e.at) FROM events e WHERE e.uid = p.uid AND e.reason = 'Provisioned' "
        "AND e.at < ?2), " PROV_HAS("Failed") ", " PROV_HAS("BookingExpired") ", "
        PROV_HAS("CapacityRevoked") " FROM provisioning_requests p "
        "JOIN workloads w ON w.id = p.workload_id LEFT JOIN local_queues lq "
        "ON lq.namespace = w.namespace AND lq.name = w.local_queue "
        "WHERE p.created_at >= ?1 AND p.created_at < ?2 ORDER BY p.id";
    sqlite3_stmt *stmt = prepare(st, sql, raw, err);
    struct gq__report_provreq *p;
    int rc;

    if (!stmt)
        return err ? err->code : GQ_EIO;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        if (!row_ok(st, stmt, "provisioning_requests:tIIi", err)) {
            rc = GQ_EIO;
            break;
        }
        if (gq__grow(&raw->provreqs.v, &raw->provreqs.cap, raw->provreqs.n,
                          sizeof(*p)) < 0) {
            rc = GQ_ENOMEM;
            break;
        }
        p = &raw->provreqs.v[raw->provreqs.n++];
        p->flavor = gq__names_intern(&raw->names, col_text(stmt, 0));
        p->attempt = sqlite3_column_int64(stmt, 1);
        p->created = col_time(stmt, 2);
        p->provisioned = col_time(stmt, 3);
        p->failed = sqlite3_column_int(stmt, 4) != 0;
        p->expired = sqlite3_column_int(stmt, 5) != 0;
        p->revoked = sqlite3_column_int(stmt, 6) != 0;
        if (p->flavor < 0) {
            rc = GQ_ENOMEM;
            break;
        }
    }
    return finish(st, stmt, rc, err);
}

static int load_txn(struct gq_store *st, void *payload, gq_error *err)
{
    struct load *l = payload;
    struct gq__report_raw *raw = l->raw;
    int rc;

    /* A retried transaction starts over (the interned names may stay). */
    raw->jobs.n = raw->nodes.n = raw->pods.n = raw->pod_waits.n = raw->provreqs.n = 0;
    raw->pods_waiting = 0;
    if ((rc = window(st, l, err)) != GQ_OK || (rc = jobs(st, raw, err)) != GQ_OK ||
        (rc = nodes(st, raw, err)) != GQ_OK || (rc = pods(st, raw, err)) != GQ_OK)
        return rc;
    return provreqs(st, raw, err);
}

int gq__store_report_load(struct gq_store *st, int64_t since, int64_t until,
                          struct gq__report_raw *raw, gq_error *err)
{
    struct load l = {since, until, raw};
    int rc;

    /*
     * One pass over each table: a page is read once and never again, so a
     * small page cache does (the default 64 MiB made a report of a million
     * events 110 MB resident, for nothing).
     */
    gq__store_set_cache_kib(st, 2048);
    rc = gq__store_read(st, load_txn, &l, err);
    gq__store_set_cache_kib(st, 0);
    return rc;
}
