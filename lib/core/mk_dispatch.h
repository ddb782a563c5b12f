/*
 * mk_dispatch.h: MultiKueue's dispatchers, which workers of a
 * MultiKueueConfig a workload's copies go to (Kueue's Configuration
 * multiKueue.dispatcherName). Pure: time is an argument.
 *
 *  - AllAtOnce, the default: every worker of the config at once.
 *  - Incremental (pkg/controller/workloaddispatcher/incrementaldispatcher.go):
 *    rounds. The first nominates stepSize workers (3 by default,
 *    incrementalDispatcherConfig.stepSize) in the config's order (the
 *    MultiKueueIncrementalDispatcherRespectConfigOrder gate, on by default);
 *    each round that ends with no worker having admitted the workload, 5
 *    minutes after it began, nominates stepSize more, until none is left.
 *    The nominated workers are always a prefix of the config's list, so a
 *    count says which. Kueue keeps a round's start in memory only: a
 *    restarted manager begins a new round at once, and so does gpuq's.
 *    An eviction clears the nomination (Kueue unsets nominatedClusterNames
 *    with the quota reservation): the next reservation starts at round one.
 */
#ifndef GQ_MK_DISPATCH_H
#define GQ_MK_DISPATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GQ_MK_DISPATCHER_ALL_AT_ONCE "kueue.x-k8s.io/multikueue-dispatcher-all-at-once"
#define GQ_MK_DISPATCHER_INCREMENTAL "kueue.x-k8s.io/multikueue-dispatcher-incremental"
#define GQ_MK_ROUND_MS (5 * 60 * 1000) /* incrementalDispatcherRoundTimeout */
#define GQ_MK_STEP 3                   /* DefaultStepSize */

/* One workload's rounds, caller-owned; zeroed before its first. */
struct gq_mk_round {
    bool started;       /* a round began since this manager started */
    int64_t evictions;  /* the workload's when the rounds began */
    int64_t started_ms; /* the current round's start */
    size_t nominated;   /* how many of the config's workers, from its start */
};

/*
 * How many workers of the config's n (a prefix, in its order) a workload
 * with evictions is dispatched to at now_ms. Incremental: r is advanced (a
 * new round when none began, when the evictions changed or when the round
 * is over); r->nominated may be set before the first call to what an
 * earlier run nominated (the copies it sent). AllAtOnce: n, r untouched.
 */
size_t gq__mk_nominate(struct gq_mk_round *r, bool incremental, size_t step, size_t n,
                       int64_t evictions, int64_t now_ms);

#endif
