/*
 * nodes.h: the simulated cluster's books (issue 12): every node, when it
 * was asked for, up and removed, with its GPUs, and every pod of a released
 * workload, where and when it ran. Nodes are what cost money; the report
 * reads GPU-hours provisioned and used off these records.
 *
 * Two kinds of pool (sim.h):
 *  - a queued-provisioning pool (DWS) gets its capacity per
 *    ProvisioningRequest; sim.c decides how many nodes are up, and the
 *    books follow that count (gq__books_follow);
 *  - an autoscaling pool is the cluster autoscaler's: pods take free GPUs
 *    on nodes that are up at once; while pods are pending the pool scales
 *    up after its provisioningTime (up to maxNodes); a node idle for
 *    scaleDownAfter goes, down to minNodes.
 * Pods are placed as the scheduler's MostAllocated scoring would: on the
 * fullest node that fits, so that small jobs share nodes and whole nodes
 * free up. A pod with no GPUs, or one whose workload no pool serves, starts
 * at once on no node (the cluster's other capacity, not counted).
 *
 * Pure: time is an argument, no I/O; run.c writes the dirty records.
 */
#ifndef GQ_NODES_H
#define GQ_NODES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim.h"

struct gq_node {
    int64_t id;             /* its sim_nodes row; 0 until written */
    int pool;
    int32_t gpus, used;
    int64_t requested_ms;
    int64_t up_ms;          /* > now while it boots */
    int64_t down_ms;        /* 0 while it exists */
    int64_t idle_since;     /* when it last became empty */
    bool dirty;
};

struct gq_pod {
    int64_t id;             /* its sim_pods row; 0 until written */
    int64_t workload;       /* workloads.id */
    char *podset;
    int32_t idx;
    char *flavor;           /* may be NULL */
    int pool;               /* -1: no pool serves it */
    int32_t gpus;
    int node;               /* index in nodes; -1 while pending or on no node */
    int64_t created_ms, started_ms, ended_ms; /* 0: not yet */
    bool dirty;
};

struct gq_books {
    const struct gq_sim_pool *pools; /* borrowed (the simulator's) */
    size_t npools;
    char **flavor;                   /* per pool: the flavor its nodes serve, or NULL */
    struct gq_node *nodes;
    size_t nnodes, capnodes;
    struct gq_pod *pods;             /* live pods, and ended ones until written */
    size_t npods, cappods;
    uint64_t seed;                   /* the run's: which pods are stuck (stuckPodPercent) */
};

/* Books over pools (borrowed); flavors[i] (copied, may be NULL) is pool i's. -1: ENOMEM. */
int gq__books_init(struct gq_books *b, const struct gq_sim_pool *pools, size_t npools,
                   const char *const *flavors);
void gq__books_free(struct gq_books *b);

/* Autoscaling pools without records get their minNodes, up at now. -1: ENOMEM. */
int gq__books_start(struct gq_books *b, int64_t now);

/* A node as stored (a restarted runner); -1: ENOMEM. */
int gq__books_load_node(struct gq_books *b, const struct gq_node *n);
/* A live pod as stored (p's strings ignored); its node by row id (0: none). -1: ENOMEM. */
int gq__books_load_pod(struct gq_books *b, const struct gq_pod *p, const char *podset,
                       const char *flavor, int64_t node_id);

/* A queued pool's nodes become `count` (sim.c's used + idle): up at now, or removed. */
int gq__books_follow(struct gq_books *b, int pool, int32_t count, int64_t now);

/* A pod of a released workload, pending from now. Returns its index, -1: ENOMEM. */
int gq__books_add_pod(struct gq_books *b, int64_t workload, const char *podset, int32_t idx,
                      const char *flavor, int pool, int32_t gpus, int64_t now);

/* The workload's pods end at now (finished, evicted, cancelled): their GPUs free up. */
void gq__books_end(struct gq_books *b, int64_t workload, int64_t now);

/* Whether the workload has pods, and whether every one of them has started. */
bool gq__books_has(const struct gq_books *b, int64_t workload);
bool gq__books_running(const struct gq_books *b, int64_t workload);

/*
 * When a started pod is ready (its pool's podStartupTime after it started;
 * a pod on no pool at once), 0 while it has not started or when it never
 * will be: a stuck pod, one of its pool's stuckPodPercent, drawn from the
 * seed, the pod's workload, pod set, index and creation time, so that the
 * same run draws the same pods and a restarted runner the same again.
 */
int64_t gq__books_pod_ready_ms(const struct gq_books *b, const struct gq_pod *p);

/* Whether every pod of the workload has started and is ready at now. */
bool gq__books_ready(const struct gq_books *b, int64_t workload, int64_t now);

/*
 * Move the books to now: nodes that finished booting are up; pending pods
 * are placed (MostAllocated); autoscaling pools scale up for pods still
 * pending and down for nodes idle past scaleDownAfter. Returns how many
 * records changed.
 */
size_t gq__books_advance(struct gq_books *b, int64_t now);

/* The next moment after now the books change by themselves (a node up, a scale-down); 0. */
int64_t gq__books_next(const struct gq_books *b, int64_t now);

/* Drop ended pods and removed nodes that were written (their rows are final). */
void gq__books_compact(struct gq_books *b);

#endif
