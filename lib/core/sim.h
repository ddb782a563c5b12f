/*
 * sim.h: the simulated cluster's provisioning (DESIGN.md "sim"; issue 4):
 * node pools and a provisioning class that behaves like GKE's
 * queued-provisioning.gke.io (kueue-semantics.md §4.3, §4.4): a request is
 * Accepted, then Provisioned all at once when its pool can create every
 * node it needs, after the pool's delay; a pool that is stocked out leaves
 * it waiting (or fails it after a while); capacity that nothing consumes
 * within 10 minutes of Provisioned is taken back (BookingExpired), and
 * capacity is revoked at maxRunDurationSeconds (CapacityRevoked). Pure: a
 * virtual clock passed in, a seeded random generator, no I/O.
 */
#ifndef GQ_SIM_H
#define GQ_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"

#define GQ_SIM_BOOKING_MS (10 * 60 * 1000)

/* A NodePool (sim.gpuq.dev/v1alpha1), as engine_pools.c loads it. */
struct gq_sim_pool {
    char *name;
    struct gq_kvs labels;       /* node labels; a request's nodeSelector must match them */
    int32_t gpus_per_node;
    int32_t min_nodes;          /* kept up even when idle */
    int32_t max_nodes;
    int64_t provision_ms;       /* mean time from Accepted to Provisioned, capacity permitting */
    int64_t scale_down_ms;      /* an idle node above min_nodes goes after this long */
    bool stockout;              /* never has capacity */
    int64_t fail_after_ms;      /* a request that waits this long fails; 0: it waits forever */
    bool autoscaling;           /* queuedProvisioning false: pods scale it (nodes.h), and
                                   ProvisioningRequests never go to it */
    int64_t pod_startup_ms;     /* a pod on its nodes is ready this long after it started */
    int32_t stuck_percent;      /* of its pods, this share never becomes ready (nodes.h) */
};

/* Every key of selector is a label of the pool, with that value. */
bool gq__sim_selects(const struct gq_sim_pool *p, const struct gq_kvs *selector);

/* Free pools an array of n (their names and labels, then the array). */
void gq__sim_pools_free(struct gq_sim_pool *pools, size_t n);

enum gq_sim_state {
    GQ_SIM_ACCEPTED,            /* waiting for capacity */
    GQ_SIM_PROVISIONED,
    GQ_SIM_FAILED,
    GQ_SIM_BOOKING_EXPIRED,
    GQ_SIM_REVOKED,
};

struct gq_sim_request {
    char *name;
    int pool;                   /* -1: no pool matches */
    int32_t nodes;
    int64_t created_ms;
    int64_t ready_ms;           /* when it will be provisioned, once capacity is held; 0 */
    int64_t provisioned_ms;
    int64_t max_run_ms;         /* maxRunDurationSeconds x 1000; 0: none */
    int64_t ended_ms;           /* when it failed, expired or was revoked */
    bool consumed;              /* pods started on it */
    bool holds;                 /* it holds its nodes in its pool */
    bool check_capacity;        /* class check-capacity.autoscaling.x-k8s.io: no scale-up */
    bool gone;                  /* deleted while its nodes boot: they are idle from ready_ms */
    enum gq_sim_state state;
    char message[240];          /* the Provisioned=False or terminal condition's message */
};

struct gq_sim {
    struct gq_sim_pool *pools;
    size_t npools;
    int32_t *used;              /* nodes held per pool */
    int32_t *idle;              /* nodes up but unused per pool, reused at once */
    int64_t *idle_until;        /* when idle nodes above min_nodes scale down */
    struct gq_sim_request *reqs;
    size_t nreqs, capreqs;
    uint64_t rng;
};

/* A simulator over pools (copied), with a seed. -1 on ENOMEM. */
int gq__sim_init(struct gq_sim *s, const struct gq_sim_pool *pools, size_t npools, uint64_t seed);
void gq__sim_free(struct gq_sim *s);

/*
 * A new request for `gpus` GPUs in pods selecting `selector` (their
 * nodeSelector): it goes to the first pool whose labels satisfy it. Returns
 * its index, or -1 on ENOMEM. A request no pool can serve fails at once.
 */
int gq__sim_request(struct gq_sim *s, const char *name, const struct gq_kvs *selector,
                    int32_t gpus, int64_t max_run_ms, int64_t now);

int gq__sim_find(const struct gq_sim *s, const char *name);

/* Pods started on a provisioned request: its booking will not expire. */
void gq__sim_consume(struct gq_sim *s, int req);

/*
 * A request whose status already says Provisioned (at provisioned_ms), seen
 * again by a provider that restarted: it holds its nodes again, and its
 * booking and maxRunDuration count from then. Only for a request just made
 * with gq__sim_request and still waiting.
 */
void gq__sim_adopt(struct gq_sim *s, int req, int64_t provisioned_ms);

/*
 * The request was deleted at now: its nodes stay up, idle, for the pool's
 * scaleDownAfter (the next request takes them at once), then go.
 */
void gq__sim_delete(struct gq_sim *s, int req, int64_t now);

/*
 * Move the clock to now: requests get capacity in creation order while
 * their pool has room, become Provisioned when their delay has passed,
 * expire unconsumed bookings, revoke capacity past maxRunDuration, and fail
 * stocked-out requests that waited too long. Returns how many changed.
 */
size_t gq__sim_advance(struct gq_sim *s, int64_t now);

/*
 * The earliest moment after now at which gq__sim_advance would change
 * something without new input (a delay ending, a booking expiring, a run
 * reaching maxRunDuration, a wait failing); 0 when nothing is due.
 */
int64_t gq__sim_next(const struct gq_sim *s, int64_t now);

/* The provider's record of request req, as one line of text (for the store). */
#define GQ_SIM_RECORD_SIZE 512
void gq__sim_record(const struct gq_sim *s, int req, char out[GQ_SIM_RECORD_SIZE]);

/*
 * A request back from its record, after a restart: the nodes it held are
 * held again. Returns its index; -1 on ENOMEM or a record that does not
 * parse (the caller then submits it afresh).
 */
int gq__sim_restore(struct gq_sim *s, const char *name, const char *record);

#endif
