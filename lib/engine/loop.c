/*
 * loop.c: the one loop of DESIGN.md's engine (observe, schedule, act, wait
 * until the next thing is due), run with a backend (backend.h): gq_run and
 * gq_simulate with the sim backend (run.c), gq_cluster_run with the
 * Kubernetes backend (sync.c), gq_sim_provisioner_run with the provisioner
 * (sim_provisioner.c).
 *
 * A turn: observe; when the world is known and ours (t.act), the gate, the
 * scheduling cycles, act; then, for a backend with a clock, the wait until
 * the next thing is due or another process commits. A backend without one
 * waits in observe (a watch's poll) and turns again at once.
 *
 * A stop (*stop, a signal handler's flag) is honoured between turns, while
 * waiting, and, for a backend that asks (stop_cycles), between scheduling
 * cycles: 100,000 pending workloads do not keep a signal waiting, and an
 * interrupted cycle rolls back whole. Such a backend's first turn runs
 * even when the stop is already set, as gq_run's did: it looks at the stop
 * only once its turn has begun.
 */
#include <string.h>
#include <time.h>

#include "backend.h"
#include "engine.h"
#include "handle.h"
#include "store.h"
#include "store_load.h"

#define POLL_MS 200 /* how often an idle clocked loop looks for other processes' commits */

struct loop {
    gq_db *db;
    const struct gq_backend *b;
    const struct gq__loop_clock *clock; /* NULL: the backend waits in observe */
    volatile sig_atomic_t *stop;
};

static bool stopping(const struct loop *l)
{
    return l->stop && *l->stop;
}

static int changed(const gq_schedule_change *c, void *payload)
{
    const struct gq_backend *b = ((struct loop *)payload)->b;

    return b->ops->changed(b->self, c);
}

/*
 * Scheduling cycles: until stable, or b->cycles of them (a cycle admits one
 * head per ClusterQueue, so a queue of 10,000 needs as many cycles; a
 * backend that must look at its world between batches sets a budget, and
 * t->more says it ran out).
 */
static int schedule(struct loop *l, struct gq__turn *t, gq_error *err)
{
    const struct gq_backend *b = l->b;
    gq_schedule_options so = GQ_SCHEDULE_OPTIONS_INIT;
    gq_schedule_stats stats;
    int rc;

    so.cycles = b->cycles;
    so.until_stable = true;
    memset(&stats, 0, sizeof(stats));
    rc = gq__engine_schedule_until(l->db, &so, b->stop_cycles ? l->stop : NULL, NULL,
                                   b->ops->changed ? changed : NULL, l, &stats, err);
    t->more = rc == GQ_OK && b->cycles && stats.cycles >= b->cycles;
    return rc;
}

static void sleep_ms(int64_t ms)
{
    struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};

    nanosleep(&ts, NULL); /* a signal ends it early: the loop looks at its stop flag */
}

/*
 * Wait until the next turn is due on the backend's clock: 1 to turn at
 * *c->now, 0 to stop. As fast as possible (speed <= 0) the clock jumps to
 * what is due; with a speed it follows the stored clock, which follows the
 * wall clock, scaled. Others' commits (a submit, a cancel) wake it at once.
 */
static int wait_due(struct loop *l, int64_t next, int64_t version)
{
    const struct gq__loop_clock *c = l->clock;
    bool fast = c->speed <= 0;
    int64_t end = c->end;

    for (;;) {
        int64_t now = fast ? *c->now : gq__store_now(c->st), until;

        if (stopping(l) || (end && now >= end))
            return 0;
        if (fast && (next || end)) { /* jump: to what is due, or to the end; never back */
            int64_t to = end && (!next || next > end) ? end : next;

            *c->now = to > *c->now ? to : *c->now;
            return 1;
        }
        if (!fast && next && now >= next) {
            *c->now = now;
            return 1;
        }
        if (c->until_idle && !next)
            return 0;
        if (gq__store_data_version(c->st) != version) {
            *c->now = now;
            return 1;
        }
        until = POLL_MS;
        if (!fast && next && (double)(next - now) / c->speed < POLL_MS)
            until = (int64_t)((double)(next - now) / c->speed) + 1;
        if (!fast && end && (double)(end - now) / c->speed < (double)until)
            until = (int64_t)((double)(end - now) / c->speed) + 1;
        sleep_ms(until);
    }
}

/*
 * After a turn: 1 to turn again, 0 to end the loop (GQ_OK), or an error.
 * A backend without a clock waits in its observe.
 */
static int after_turn(struct loop *l, struct gq__turn *t, gq_error *err)
{
    const struct gq_backend *b = l->b;
    const struct gq__loop_clock *c = l->clock;
    int64_t version;
    int rc;

    if (!b->ops->next)
        return 1;
    if ((rc = b->ops->next(b->self, t, err)) != 0)
        return rc > 0 ? 1 : rc;
    if (c->until_idle && !t->moved && !t->due)
        return 0;
    if (c->end && *c->now >= c->end)
        return 0;
    version = gq__store_data_version(c->st);
    if (!wait_due(l, t->due, version))
        return 0;
    if (b->ops->tick && (rc = b->ops->tick(b->self, *c->now, err)) != GQ_OK)
        return rc;
    return 1;
}

static int turn(struct loop *l, struct gq__turn *t, gq_error *err)
{
    const struct gq_backend *b = l->b;
    const struct gq__backend_ops *ops = b->ops;
    int rc;

    memset(t, 0, sizeof(*t));
    if (l->clock && l->clock->speed > 0)
        *l->clock->now = gq__store_now(l->clock->st);
    if ((rc = ops->observe(b->self, t, err)) != GQ_OK || !t->act)
        return rc;
    if (ops->gate && (rc = ops->gate(b->self, err)) != GQ_OK)
        return rc;
    if (b->schedules) {
        if ((rc = schedule(l, t, err)) != GQ_OK)
            return rc;
        if (b->stop_cycles && stopping(l))
            return GQ_OK; /* a long turn ends between cycles, skipping act */
    }
    return ops->act(b->self, t, err);
}

int gq__loop_run(gq_db *db, const struct gq_backend *b, const struct gq__loop_clock *clock,
                 volatile sig_atomic_t *stop, gq_error *err)
{
    struct loop l = {db, b, b->ops->next ? clock : NULL, stop};
    struct gq__turn t;
    int rc;

    if (!b->stop_cycles && stopping(&l))
        return GQ_OK;
    /* Each turn's snapshot from the rows of the last, read again only where they changed. */
    if (b->schedules && (rc = gq__store_snapshot_cache(db->st, true, err)) != GQ_OK)
        return rc;
    for (;;) {
        if ((rc = turn(&l, &t, err)) != GQ_OK)
            break;
        if (stopping(&l))
            break;
        if ((rc = after_turn(&l, &t, err)) <= 0)
            break;
    }
    if (b->schedules)
        gq__store_snapshot_cache(db->st, false, NULL);
    return rc;
}
