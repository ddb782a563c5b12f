/*
 * backend.h: what the one loop (loop.c) asks of the world it runs against.
 * Internal.
 *
 * DESIGN.md's engine reads a snapshot, runs the pure core, persists its
 * decisions and hands the side effects to whichever backend is attached.
 * gpuq has three loops over one shape, each a backend of loop.c:
 *
 *   sim          gq_run and gq_simulate (run.c): the simulated cluster
 *                against the local database; the world is the database;
 *   kubernetes   gq_cluster_run (sync*.c): informers against an API server,
 *                the outbox, and the Lease when leader election is on;
 *   provisioner  gq_sim_provisioner_run (sim_provisioner.c): the simulated
 *                DWS provider against an API server; it makes no admission
 *                decision, so the loop runs no scheduling cycle for it.
 *
 * A turn of the loop is: observe, then (when observe says the world is
 * known and ours to change) gate, scheduling cycles, act; then wait until
 * the next thing is due. The ops are called on the loop's thread, one at a
 * time, never from inside another op and never inside a transaction of the
 * loop's: each op opens the transactions it needs on the store.
 */
#ifndef GQ_BACKEND_H
#define GQ_BACKEND_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "gpuqueue/common.h"
#include "gpuqueue/schedule.h"

/*
 * The side effects a backend makes true in the world. Each backend applies
 * the kinds its world has: the sim backend UNSUSPEND as a store change (the
 * Job's pods run on the simulated nodes), the Kubernetes backend every kind
 * as calls to the API server (UNSUSPEND as one merge patch carrying
 * metadata.resourceVersion). A backend's act applies them one at a time
 * with its own function: run.c's sim_apply inside the kubelet's write
 * transaction (so it runs again from the start when the store retries
 * that transaction), sync_outbox.c's apply outside any
 * transaction, once per effect read.
 */
enum gq__effect_kind {
    GQ__EFFECT_UNSUSPEND,      /* release an admitted workload: its Job runs */
    GQ__EFFECT_SUSPEND,        /* a Job runs without holding quota: stop it */
    GQ__EFFECT_CREATE_REQUEST, /* a ProvisioningRequest recorded at a reservation */
    GQ__EFFECT_DELETE_REQUEST, /* a ProvisioningRequest recorded deleted */
    GQ__EFFECT_CONFIRM_GONE,   /* a Job a watch reported gone: make sure */
    GQ__EFFECT_GIVE_BACK,      /* quota held while writes were refused too long */
};

struct gq__effect {
    enum gq__effect_kind kind;
    int64_t workload;       /* workloads.id; a request effect's: provisioning_requests.id */
    const char *ns, *name;  /* the workload, or the request */
    const char *job, *uid;  /* its Job and the Job's UID */
    const void *row;        /* the backend's own row it was read from; borrowed */
};

/*
 * One turn's findings, zeroed by the loop before observe; the ops fill in
 * what they know.
 */
struct gq__turn {
    bool act;       /* observe: the world is known and ours to change: schedule and act */
    bool moved;     /* any op: something changed (a transition, a submission) */
    bool more;      /* the loop: the cycle budget ran out before the queues were stable */
    int64_t due;    /* next: the next moment anything is due after now, 0 when nothing is */
};

struct gq__backend_ops {
    /*
     * Bring what happened in the world into the store (or the backend's
     * memory), waiting for it when the backend waits on the world itself
     * (a watch's poll); set t->act when the loop may schedule and act.
     * Runs first in every turn, outside any transaction; writes in its own
     * transactions, which the store runs again whole when busy, so it must
     * not keep anything from an attempt that rolled back. GQ_OK or an error
     * that ends the loop.
     */
    int (*observe)(void *self, struct gq__turn *t, gq_error *err);

    /*
     * Whether the world is still ours to change, checked after observe and
     * before any decision (the Lease: the poll may have waited past the
     * renew deadline). NULL: always. An error ends the loop.
     */
    int (*gate)(void *self, gq_error *err);

    /*
     * One engine change (c->kind says what it is), after the transaction
     * of its cycle committed and in cycle order; never called again for the same change (gq_schedule's
     * contract). It may write through the store; the engine does not see
     * those writes before its next rebuild. Non-zero ends the loop.
     */
    int (*changed)(void *self, const gq_schedule_change *c);

    /*
     * Make true in the world what the store says should be (the effects
     * above), after the turn's cycles committed. The store's
     * record of an effect is written after the effect is made (the sim: in
     * the same transaction; Kubernetes: in a transaction of its own after
     * the call returned), and reading the store again finds what is still
     * to do, so an act cut short by a crash is replayed from the store and
     * each effect must be idempotent. Never holds a transaction across a
     * call to the API server. An error ends the loop.
     */
    int (*act)(void *self, struct gq__turn *t, gq_error *err);

    /*
     * When the next thing is due (t->due, on the backend's clock; 0:
     * nothing), read in a transaction of its own. Return 1 to turn again
     * at once without waiting (things still move at this moment), 0 to
     * wait, or a gq error. NULL: observe waits itself (a watch's poll).
     */
    int (*next)(void *self, struct gq__turn *t, gq_error *err);

    /*
     * Move the backend's clock to the moment the loop waited for; called
     * after each wait that ends in a turn. NULL: nothing to move.
     */
    int (*tick)(void *self, int64_t now, gq_error *err);
};

struct gq_backend {
    const struct gq__backend_ops *ops;
    void *self;                       /* the backend's state; owned by its entry point */
    bool schedules;                   /* whether the loop runs scheduling cycles */
    uint64_t cycles;                  /* cycles per turn; 0: until stable */
    bool stop_cycles;                 /* a stop interrupts a cycle (rolled back) and skips act */
};

/*
 * How a backend whose world is the database waits (run.c): on its clock,
 * at speed (<= 0: the clock jumps to whatever is due), until end (0:
 * none); until_idle ends the loop once nothing is due. Backends with a
 * next op need one.
 */
struct gq__loop_clock {
    struct gq_store *st;     /* whose data_version tells of other processes' commits */
    int64_t *now;            /* the backend's clock (store ms); the loop moves it */
    double speed;
    int64_t end;
    bool until_idle;
};

/*
 * The one loop: turns until *stop is set (NULL: never), an op fails, or the
 * clock says the run is over. db is the database the cycles run on.
 */
int gq__loop_run(gq_db *db, const struct gq_backend *b, const struct gq__loop_clock *clock,
                 volatile sig_atomic_t *stop, gq_error *err);

#endif
