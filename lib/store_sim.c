/*
 * store_sim.c: the database's clock (schema 0006), which every gpuq process
 * reads so that a simulation's virtual time is everyone's time.
 */
#include <string.h>

#include "error.h"
#include "nodes.h"
#include "store_int.h"
#include "util.h"

static int64_t map(const struct gq_clock *c, int64_t wall)
{
    double ahead = (double)(wall - c->wall_ms) * c->speed;

    if (ahead < 0)
        ahead = 0; /* the wall clock stepped back: time stands still, never reverses */
    return c->virtual_ms + (int64_t)ahead;
}

bool gq__store_clock_get(struct gq_store *st, struct gq_clock *c)
{
    static const char sql[] =
        "SELECT wall_ms, virtual_ms, speed, rng, runner_pid FROM clock WHERE id = 1";
    sqlite3_stmt *stmt = gq__store_stmt(st, sql, NULL);
    bool found = false;

    memset(c, 0, sizeof(*c));
    if (stmt && sqlite3_step(stmt) == SQLITE_ROW) {
        c->wall_ms = sqlite3_column_int64(stmt, 0);
        c->virtual_ms = sqlite3_column_int64(stmt, 1);
        c->speed = sqlite3_column_double(stmt, 2);
        c->rng = (uint64_t)sqlite3_column_int64(stmt, 3);
        c->runner_pid = sqlite3_column_int64(stmt, 4);
        found = true;
    }
    if (stmt)
        sqlite3_reset(stmt);
    return found;
}

int64_t gq__store_now(struct gq_store *st)
{
    struct gq_clock c;
    int64_t wall = gq__now_ms();

    return gq__store_clock_get(st, &c) ? map(&c, wall) : wall;
}

int gq__store_clock_set(struct gq_store *st, const struct gq_clock *c, gq_error *err)
{
    static const char sql[] =
        "INSERT OR REPLACE INTO clock(id, wall_ms, virtual_ms, speed, rng, runner_pid) "
        "VALUES (1, ?1, ?2, ?3, ?4, nullif(?5, 0))";
    sqlite3_stmt *stmt = gq__store_stmt(st, sql, err);

    if (!stmt)
        return err ? err->code : GQ_EIO;
    sqlite3_bind_int64(stmt, 1, c->wall_ms);
    sqlite3_bind_int64(stmt, 2, c->virtual_ms);
    sqlite3_bind_double(stmt, 3, c->speed);
    sqlite3_bind_int64(stmt, 4, (int64_t)c->rng);
    sqlite3_bind_int64(stmt, 5, c->runner_pid);
    return gq__store_step_done(st, stmt, err);
}

/* ------------------------------------------------------- the simulated kubelet */

int gq__store_start(struct gq_store *st, const struct gq_started *w, int64_t now_ms,
                    gq_error *err)
{
    static const char sql[] = "UPDATE workloads SET state = 'running', started_at = ?2, "
                              "updated_at = ?2 WHERE id = ?1 AND state = 'admitted'";
    int rc = gq__store_move(st, sql, w->id, now_ms, err);

    if (rc != GQ_OK)
        return rc;
    return gq__store_event(st, "Workload", w->ns, w->name, w->uid, "Normal", "Started",
                           w->message, "admitted", "running", now_ms, err);
}

int gq__store_finish(struct gq_store *st, int64_t id, int64_t now_ms, gq_error *err)
{
    static const char sql[] = "UPDATE workloads SET state = 'finished', finished_at = ?2, "
                              "updated_at = ?2 WHERE id = ?1 AND state = 'running'";
    int rc;

    if ((rc = gq__store_move(st, sql, id, now_ms, err)) != GQ_OK ||
        (rc = gq__store_drop_usage(st, id, err)) != GQ_OK)
        return rc;
    /* The checks stay as they were (Ready); the requests and templates go. */
    return gq__store_release_checks(st, id, GQ_CHECKS_KEEP, now_ms, err);
}

int gq__store_provreq_status(struct gq_store *st, int64_t id, const char *status,
                             const char *record, gq_error *err)
{
    static const char sql[] =
        "UPDATE provisioning_requests SET status = ?2, sim = ?3 WHERE id = ?1";
    sqlite3_stmt *stmt = gq__store_stmt(st, sql, err);

    if (!stmt)
        return err ? err->code : GQ_EIO;
    sqlite3_bind_int64(stmt, 1, id);
    gq__bind_text(stmt, 2, status);
    gq__bind_text(stmt, 3, record);
    return gq__store_step_done(st, stmt, err);
}

/* ------------------------------------------------------------ the books */

int gq__store_node_save(struct gq_store *st, struct gq_node *n, const char *pool,
                        const char *flavor, gq_error *err)
{
    static const char ins[] =
        "INSERT INTO sim_nodes(name, pool, flavor, gpus, requested_at, up_at, down_at) "
        "VALUES (?2 || '-' || (SELECT count(*) + 1 FROM sim_nodes WHERE pool = ?2), ?2, ?3, ?4, "
        "?5, ?6, nullif(?7, 0))";
    static const char upd[] = "UPDATE sim_nodes SET down_at = nullif(?7, 0) WHERE id = ?1";
    sqlite3_stmt *stmt = gq__store_stmt(st, n->id ? upd : ins, err);
    int rc;

    if (!stmt)
        return err ? err->code : GQ_EIO;
    sqlite3_bind_int64(stmt, 1, n->id);
    gq__bind_text(stmt, 2, pool);
    gq__bind_text(stmt, 3, flavor);
    sqlite3_bind_int64(stmt, 4, n->gpus);
    sqlite3_bind_int64(stmt, 5, n->requested_ms);
    sqlite3_bind_int64(stmt, 6, n->up_ms);
    sqlite3_bind_int64(stmt, 7, n->down_ms);
    if ((rc = gq__store_step_done(st, stmt, err)) == GQ_OK && !n->id)
        n->id = sqlite3_last_insert_rowid(st->db);
    return rc;
}

int gq__store_pod_save(struct gq_store *st, struct gq_pod *p, int64_t node_id, gq_error *err)
{
    static const char ins[] =
        "INSERT INTO sim_pods(workload_id, podset, idx, flavor, gpus, node_id, created_at, "
        "started_at, ended_at) VALUES (?2, ?3, ?4, ?5, ?6, nullif(?7, 0), ?8, nullif(?9, 0), "
        "nullif(?10, 0))";
    static const char upd[] = "UPDATE sim_pods SET node_id = nullif(?7, 0), "
                              "started_at = nullif(?9, 0), ended_at = nullif(?10, 0) WHERE id = ?1";
    sqlite3_stmt *stmt = gq__store_stmt(st, p->id ? upd : ins, err);
    int rc;

    if (!stmt)
        return err ? err->code : GQ_EIO;
    sqlite3_bind_int64(stmt, 1, p->id);
    sqlite3_bind_int64(stmt, 2, p->workload);
    gq__bind_text(stmt, 3, p->podset);
    sqlite3_bind_int64(stmt, 4, p->idx);
    gq__bind_text(stmt, 5, p->flavor);
    sqlite3_bind_int64(stmt, 6, p->gpus);
    sqlite3_bind_int64(stmt, 7, node_id);
    sqlite3_bind_int64(stmt, 8, p->created_ms);
    sqlite3_bind_int64(stmt, 9, p->started_ms);
    sqlite3_bind_int64(stmt, 10, p->ended_ms);
    if ((rc = gq__store_step_done(st, stmt, err)) == GQ_OK && !p->id)
        p->id = sqlite3_last_insert_rowid(st->db);
    return rc;
}

int gq__store_books_load(struct gq_store *st, struct gq_books *b, gq_error *err)
{
    static const char nodes[] = "SELECT id, pool, gpus, requested_at, coalesce(up_at, 0) "
                                "FROM sim_nodes WHERE down_at IS NULL ORDER BY id";
    static const char pods[] =
        "SELECT id, workload_id, podset, idx, flavor, gpus, coalesce(node_id, 0), created_at, "
        "coalesce(started_at, 0) FROM sim_pods WHERE ended_at IS NULL ORDER BY id";
    sqlite3_stmt *stmt = gq__store_stmt(st, nodes, err);
    int rc = GQ_OK, s;

    while (stmt && rc == GQ_OK && (s = sqlite3_step(stmt)) == SQLITE_ROW) {
        struct gq_node n;
        const char *pool = (const char *)sqlite3_column_text(stmt, 1);

        memset(&n, 0, sizeof(n));
        n.id = sqlite3_column_int64(stmt, 0);
        n.pool = -1;
        for (size_t i = 0; pool && i < b->npools; i++)
            if (strcmp(b->pools[i].name, pool) == 0)
                n.pool = (int)i;
        n.gpus = (int32_t)sqlite3_column_int64(stmt, 2);
        n.requested_ms = sqlite3_column_int64(stmt, 3);
        n.up_ms = sqlite3_column_int64(stmt, 4);
        n.idle_since = n.up_ms;
        if (gq__books_load_node(b, &n) < 0)
            rc = gq__error(err, GQ_ENOMEM, "out of memory reading the simulated nodes");
    }
    if (stmt)
        sqlite3_reset(stmt);
    if (!stmt || rc != GQ_OK)
        return stmt ? rc : (err ? err->code : GQ_EIO);
    stmt = gq__store_stmt(st, pods, err);
    while (stmt && rc == GQ_OK && (s = sqlite3_step(stmt)) == SQLITE_ROW) {
        struct gq_pod p;

        memset(&p, 0, sizeof(p));
        p.id = sqlite3_column_int64(stmt, 0);
        p.workload = sqlite3_column_int64(stmt, 1);
        p.idx = (int32_t)sqlite3_column_int64(stmt, 3);
        p.gpus = (int32_t)sqlite3_column_int64(stmt, 5);
        p.created_ms = sqlite3_column_int64(stmt, 7);
        p.started_ms = sqlite3_column_int64(stmt, 8);
        p.pool = -1;
        if (gq__books_load_pod(b, &p, (const char *)sqlite3_column_text(stmt, 2),
                               (const char *)sqlite3_column_text(stmt, 4),
                               sqlite3_column_int64(stmt, 6)) < 0)
            rc = gq__error(err, GQ_ENOMEM, "out of memory reading the simulated pods");
    }
    if (stmt)
        sqlite3_reset(stmt);
    return stmt ? rc : (err ? err->code : GQ_EIO);
}

int gq__store_durable(struct gq_store *st, bool durable, gq_error *err)
{
    return gq__store_exec(st, durable ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=OFF", err);
}

bool gq__store_sim_fresh(struct gq_store *st)
{
    static const char sql[] = "SELECT (SELECT count(*) FROM workloads) + "
                              "(SELECT count(*) FROM clock) + (SELECT count(*) FROM sim_nodes)";
    sqlite3_stmt *stmt = gq__store_stmt(st, sql, NULL);
    bool fresh = false;

    if (stmt && sqlite3_step(stmt) == SQLITE_ROW)
        fresh = sqlite3_column_int64(stmt, 0) == 0;
    if (stmt)
        sqlite3_reset(stmt);
    return fresh;
}
