/*
 * engine.h: the reconcile step that joins the admission core, the store and
 * (later) a backend. Internal.
 */
#ifndef GQ_ENGINE_H
#define GQ_ENGINE_H

#include <signal.h>

#include "admit.h"
#include "gpuqueue/common.h"
#include "gpuqueue/schedule.h"
#include "manifest_load.h"
#include "store.h"

/*
 * gq_schedule without its housekeeping, for a caller that runs it again and
 * again (the simulated cluster's loop): that caller holds the WAL with
 * gq__engine_hold_wal(st, true) for its whole run (a raised checkpoint limit
 * and a small page cache) and lets go once at the end, which truncates it.
 */
int gq__engine_schedule(gq_db *db, const gq_schedule_options *opts, gq_schedule_fn fn,
                        void *payload, gq_schedule_stats *stats, gq_error *err);
void gq__engine_hold_wal(struct gq_store *st, bool hold);

/*
 * gq__engine_schedule that gives up early once *stop is non-zero (a signal
 * handler's flag; NULL: never). It is looked at before each cycle, and
 * while a cycle builds its snapshot from the store (the one part of a cycle
 * that grows with the pending set: seconds for 100,000 workloads), where
 * it interrupts the read and the cycle's transaction rolls back whole. A
 * cycle's decisions, once made, are always committed and reported. Giving
 * up is no error: GQ_OK, with *stopped set (may be NULL).
 */
int gq__engine_schedule_until(gq_db *db, const gq_schedule_options *opts,
                              volatile sig_atomic_t *stop, bool *stopped, gq_schedule_fn fn,
                              void *payload, gq_schedule_stats *stats, gq_error *err);


/*
 * Each LocalQueue whose admission fair sharing status the cycles changed
 * (afs.h) into the store, inside the cycle's transaction (engine_afs.c).
 */
int gq__engine_afs_persist(struct gq_store *st, struct gq_snapshot *s, gq_error *err);

/*
 * Build the admission snapshot from the store, inside the caller's
 * transaction. Its flavors' specs, queues' checks and namespaces' labels
 * are borrowed from the decoded specs the store keeps (engine_specs.c):
 * free it with gq__specs_unload.
 */
int gq__engine_load(struct gq_snapshot *s, struct gq_store *st, gq_error *err);

/*
 * A stored spec (canonical JSON gpuq wrote) decoded, from what the store
 * keeps when the same text was decoded before (engine_specs.c). *out
 * belongs to the store: read it, never clear it or take its parts. It
 * stays until gq__specs_sweep runs after a build that did not ask for it.
 */
int gq__specs_decode(struct gq_store *st, const char *spec, const struct gq_object **out,
                     gq_error *err);
/*
 * A workload's podsets column into wl->ps (gq__manifest_podsets), parsed
 * once per text while live workloads have it; hash: the text's, as
 * gq_snap_wl.shape has it.
 */
int gq__specs_podsets(struct gq_store *st, struct gq_snapshot *s, struct gq_snap_wl *wl,
                      const char *podsets, uint64_t hash, gq_error *err);
/*
 * The end of a build (built: a snapshot now borrows from them): the specs
 * and pod sets it did not ask for go, unless another snapshot lives.
 */
void gq__specs_sweep(struct gq_store *st, bool built);
/* A snapshot gq__engine_load built, freed: what it borrowed may go at the next build. */
void gq__specs_unload(struct gq_store *st, struct gq_snapshot *s);

/*
 * At a quota reservation with admission checks: record each check that
 * applies and create the ProvisioningRequests (engine_provision.c). note
 * gets "waiting for capacity: ..." when a request was created.
 */
int gq__engine_checks_on_reserve(struct gq_store *st, const struct gq_snapshot *s,
                                 const struct gq_snap_wl *wl, int64_t now, char *note,
                                 size_t notelen, gq_error *err);

/*
 * Each live ProvisioningRequest's new status into its check (Kueue's
 * syncCheckStates), then the requests that timed out
 * (gpuq.dev/provisioning-timeout) as failed attempts; a reserved workload
 * whose checks all turn Ready gets a GQ_DEC_READY decision, Retry a
 * GQ_DEC_EVICT with its backoff, Rejected a GQ_DEC_DEACTIVATE; failed
 * attempts are counted for flavor fallback (engine_provision.c).
 */
int gq__engine_sync_checks(struct gq_store *st, struct gq_snapshot *s, int64_t now,
                           struct gq_decisions *d, gq_error *err);

/*
 * The checks of the multikueue controller that its manager (sync_multikueue.c)
 * moved: a reserved workload whose checks are now all Ready is admitted, one
 * holding quota whose multikueue check went Retry is evicted and may queue
 * again at once (engine_multikueue.c). Run by gq__engine_sync_checks.
 */
int gq__engine_sync_multikueue(struct gq_store *st, struct gq_snapshot *s, int64_t now,
                               struct gq_decisions *d, gq_error *err);

/*
 * For a runner that jumps its virtual clock from event to event: the
 * earliest moment after now at which a ProvisioningRequest times out
 * (gpuq.dev/provisioning-timeout; the sync above acts on it once now has
 * reached it), *next 0 when none will. Inside the caller's transaction.
 * GQ_EIO from the store, GQ_ENOMEM.
 */
int gq__engine_provision_deadline(struct gq_store *st, int64_t now, int64_t *next, gq_error *err);

/*
 * waitForPodsReady (engine_ready.c): the Configuration's setting as the core
 * takes it; read from the store (all zero when there is none, or it is off);
 * and for a runner that jumps its clock, the next PodsReady deadline after
 * now (*next 0 when none), inside the caller's transaction.
 */
void gq__engine_wfpr(const struct gq_configuration *cfg, struct gq_wfpr *out);
int gq__engine_wfpr_load(struct gq_store *st, struct gq_wfpr *out, gq_error *err);
int gq__engine_pods_ready_deadline(struct gq_store *st, int64_t now, int64_t *next, gq_error *err);

struct gq_sim_pool;

/*
 * The NodePools (sim.gpuq.dev) from the store, inside the caller's
 * transaction, ordered by name, as the simulator takes them (sim.h); free
 * with gq__sim_pools_free. *out is NULL and *n 0 when there are none
 * (engine_pools.c). GQ_ENOMEM; GQ_EIO for a stored spec that no longer
 * decodes, naming it.
 */
int gq__engine_load_pools(struct gq_store *st, struct gq_sim_pool **out, size_t *n, gq_error *err);

/*
 * What gq_simulate feeds the simulated cluster's loop (run.c): before each
 * step, feed() submits whatever arrives at now and returns how many jobs
 * it submitted (< 0: a gq error code); next() is the next arrival's time
 * after now, 0 when none is known yet (a stage waits for its predecessor).
 */
struct gq__run_feed {
    int (*feed)(gq_db *db, int64_t now, void *payload, gq_error *err);
    int64_t (*next)(void *payload, int64_t now);
    void *payload;
};

struct gq_run_options;
struct gq_run_stats;
struct gq_event;
int gq__run(gq_db *db, const struct gq_run_options *opts,
            int (*fn)(const struct gq_event *, void *), void *payload,
            struct gq_run_stats *stats, const struct gq__run_feed *feed, gq_error *err);

#endif
