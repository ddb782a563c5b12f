/*
 * store_sim.c: the database's clock (schema 0006), which every gpuq process
 * reads so that a simulation's virtual time is everyone's time.
 *
 * Invariants of the clock row:
 *   - it never moves back: gq__store_clock_set refuses a row whose time at
 *     its own wall instant is before what the stored row says at that
 *     instant (a runner's jump, a hand-back, a claim all move it forward or
 *     keep it), and reading it saturates instead of overflowing;
 *   - a runner that died (kill -9, a crash) does not freeze it: a runner is
 *     recorded with its pid and its process start time (schema 0010,
 *     /proc/<pid>/stat field 22), so that a dead runner, or a live process
 *     that merely reuses its pid, reads as no runner at all, and a clock it
 *     left stepped by hand (speed 0) flows on at speed 1 from its last
 *     moment, as a clock handed back would.
 */
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "nodes.h"
#include "os.h"
#include "state.h"
#include "store_int.h"
#include "util.h"

static int64_t map(const struct gq_clock *c, int64_t wall)
{
    double ahead = ((double)wall - (double)c->wall_ms) * c->speed;

    if (ahead < 0)
        ahead = 0; /* the wall clock stepped back: time stands still, never reverses */
    /* A row from an older binary may hold any value: saturate, never overflow. */
    if (ahead >= (double)INT64_MAX || c->virtual_ms > INT64_MAX - (int64_t)ahead)
        return INT64_MAX;
    return c->virtual_ms + (int64_t)ahead;
}

/* ------------------------------------------------------------- the runner */

/*
 * A process's start time in clock ticks since boot (/proc/<pid>/stat field
 * 22): > 0; -1 when there is no such live process (gone, or a zombie left
 * by kill -9); 0 when this system has no /proc to ask.
 */
static int64_t proc_start(int64_t pid)
{
    char path[64], buf[1024], *p, state;
    unsigned long long start;
    size_t n;
    FILE *f;
    int field;

    if (pid <= 0 || pid > INT_MAX)
        return -1;
    snprintf(path, sizeof(path), "/proc/%lld/stat", (long long)pid);
    if (!(f = fopen(path, "r")))
        return access("/proc/self/stat", R_OK) == 0 ? -1 : 0;
    n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    /* The command name (field 2) may hold spaces and parentheses: fields 3.. follow the last ')'. */
    if (!(p = strrchr(buf, ')')) || sscanf(p + 1, " %c", &state) != 1)
        return 0;
    for (field = 3; field <= 22 && p; field++) /* to the space before each field, up to 22 */
        p = strchr(p + 1, ' ');
    if (!p || sscanf(p, " %llu", &start) != 1)
        return 0;
    if (state == 'Z' || state == 'X')
        return -1;
    return start > 0 && start <= INT64_MAX ? (int64_t)start : 0;
}

/*
 * This process's start time, read once per process (a runner asks at every
 * cycle whether it still holds the clock). Threads may race to fill it in:
 * they write the same value, pid last, so a reader that sees the pid sees it.
 */
static int64_t own_start(void)
{
    static int64_t pid_seen, start_seen;
    int64_t pid = (int64_t)getpid(), start;

    if (__atomic_load_n(&pid_seen, __ATOMIC_ACQUIRE) == pid)
        return __atomic_load_n(&start_seen, __ATOMIC_RELAXED);
    start = proc_start(pid);
    __atomic_store_n(&start_seen, start, __ATOMIC_RELAXED);
    __atomic_store_n(&pid_seen, pid, __ATOMIC_RELEASE);
    return start;
}

/*
 * Whether the runner recorded as pid (started at start, 0 when not known)
 * still runs. Without /proc only the pid can be asked, as before schema 10.
 */
static bool runner_live(int64_t pid, int64_t start)
{
    int64_t now = pid == (int64_t)getpid() ? own_start() : proc_start(pid);

    if (now == 0)
        return pid > 0 && pid <= INT_MAX && (kill((pid_t)pid, 0) == 0 || errno == EPERM);
    return now > 0 && (start <= 0 || now == start);
}

static int64_t runner_start(int64_t pid)
{
    int64_t s = pid == (int64_t)getpid() ? own_start() : proc_start(pid);

    return s > 0 ? s : 0;
}

/* The row as stored, with its runner's start time; false when there is none. */
static bool clock_read(struct gq_store *st, struct gq_clock *c, int64_t *start)
{
    static const char sql[] = "SELECT wall_ms, virtual_ms, speed, rng, runner_pid, "
                              "coalesce(runner_start, 0) FROM clock WHERE id = 1";
    sqlite3_stmt *stmt = gq__store_stmt(st, sql, NULL);
    bool found = false;

    memset(c, 0, sizeof(*c));
    *start = 0;
    if (stmt && sqlite3_step(stmt) == SQLITE_ROW) {
        c->wall_ms = sqlite3_column_int64(stmt, 0);
        c->virtual_ms = sqlite3_column_int64(stmt, 1);
        c->speed = sqlite3_column_double(stmt, 2);
        c->rng = (uint64_t)sqlite3_column_int64(stmt, 3);
        c->runner_pid = sqlite3_column_int64(stmt, 4);
        *start = sqlite3_column_int64(stmt, 5);
        found = true;
    }
    if (stmt)
        sqlite3_reset(stmt);
    if (!(c->speed >= 0 && c->speed <= DBL_MAX))
        c->speed = 1.0; /* NaN, infinite or negative: no gpuq wrote it; let time flow */
    return found;
}

bool gq__store_clock_get(struct gq_store *st, struct gq_clock *c)
{
    int64_t start;
    bool found = clock_read(st, c, &start);

    if (found && c->runner_pid && !runner_live(c->runner_pid, start)) {
        c->runner_pid = 0; /* its runner is gone: nobody holds the clock */
        if (c->speed == 0)
            c->speed = 1.0;
    }
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
        "INSERT OR REPLACE INTO clock(id, wall_ms, virtual_ms, speed, rng, runner_pid, "
        "runner_start) VALUES (1, ?1, ?2, ?3, ?4, nullif(?5, 0), nullif(?6, 0))";
    struct gq_clock old;
    sqlite3_stmt *stmt;
    int64_t was;

    if (gq__store_clock_get(st, &old) && c->virtual_ms < (was = map(&old, c->wall_ms))) {
        char a[GQ_RFC3339_BUFSIZE], b[GQ_RFC3339_BUFSIZE];

        return gq__error(err, GQ_ERANGE, "the clock cannot move back from %s to %s (%lld ms)",
                         gq__rfc3339(a, was), gq__rfc3339(b, c->virtual_ms),
                         (long long)c->virtual_ms);
    }
    if (!(stmt = gq__store_stmt(st, sql, err)))
        return err ? err->code : GQ_EIO;
    sqlite3_bind_int64(stmt, 1, c->wall_ms);
    sqlite3_bind_int64(stmt, 2, c->virtual_ms);
    sqlite3_bind_double(stmt, 3, c->speed);
    sqlite3_bind_int64(stmt, 4, (int64_t)c->rng);
    sqlite3_bind_int64(stmt, 5, c->runner_pid);
    sqlite3_bind_int64(stmt, 6, c->runner_pid ? runner_start(c->runner_pid) : 0);
    return gq__store_step_done(st, stmt, err);
}

/* ------------------------------------------------------ stopping a long read */

/* SQLite's progress handler: a non-zero return interrupts the statement. */
static int stop_requested(void *payload)
{
    const volatile sig_atomic_t *stop = payload;

    return *stop != 0;
}

void gq__store_watch_stop(struct gq_store *st, volatile sig_atomic_t *stop)
{
    /* About every thousand VM steps: a few rows of a big read, microseconds apart. */
    sqlite3_progress_handler(st->db, stop ? 1000 : 0, stop ? stop_requested : NULL,
                             (void *)(uintptr_t)stop);
}

/* ------------------------------------------------------- the simulated kubelet */

int gq__store_start(struct gq_store *st, const struct gq_started *w, int64_t now_ms,
                    gq_error *err)
{
    static const char sql[] = "UPDATE workloads SET state = " GQ_SQL_STATE(running) ", "
                              "started_at = ?2, updated_at = ?2 "
                              "WHERE id = ?1 AND state = " GQ_SQL_STATE(admitted);
    int rc = gq__store_move(st, sql, w->id, now_ms, err);

    if (rc != GQ_OK)
        return rc;
    return gq__store_event(st, "Workload", w->ns, w->name, w->uid, "Normal", "Started",
                           w->message, gq__wl_state_name(GQ_WL_ADMITTED),
                           gq__wl_state_name(GQ_WL_RUNNING), now_ms, err);
}

int gq__store_finish(struct gq_store *st, int64_t id, int64_t now_ms, gq_error *err)
{
    static const char sql[] = "UPDATE workloads SET state = " GQ_SQL_STATE(finished) ", "
                              "finished_at = ?2, updated_at = ?2 "
                              "WHERE id = ?1 AND state = " GQ_SQL_STATE(running);
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
        const char *pool;

        if ((rc = gq__store_row_check(st, stmt, "sim_nodes:#TIII", false, err)) != GQ_OK)
            break;
        pool = (const char *)sqlite3_column_text(stmt, 1);
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

        if ((rc = gq__store_row_check(st, stmt, "sim_pods:#ITItIII", false, err)) != GQ_OK)
            break;
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
