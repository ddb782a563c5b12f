/*
 * store_sim.c: the database's clock (schema 0006), which every gpuq process
 * reads so that a simulation's virtual time is everyone's time.
 */
#include <string.h>

#include "error.h"
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

int gq__store_start(struct gq_store *st, int64_t id, int64_t now_ms, gq_error *err)
{
    static const char sql[] = "UPDATE workloads SET state = 'running', started_at = ?2, "
                              "updated_at = ?2 WHERE id = ?1 AND state = 'admitted'";

    return gq__store_move(st, sql, id, now_ms, err);
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
