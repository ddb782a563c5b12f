/*
 * quota.h: the resource tree of ClusterQueues and Cohorts (kueue-semantics.md
 * §2.4, Kueue's pkg/cache/scheduler/resource_node.go). Pure: no I/O.
 *
 * Every ClusterQueue and Cohort is a node; every (flavor, resource) pair is a
 * column "fr". Per node and fr the tree keeps the nominal quota, the optional
 * borrowing and lending limits, the subtree quota and the usage. Amounts are
 * in Kueue's accounting units (milli-units for cpu, whole units otherwise)
 * and all arithmetic saturates at the int64 limits, as Kueue's does, so a
 * huge quantity means "unlimited" rather than wrapping.
 *
 * Invariants, after gq__qtree_finish():
 *   subtree(cq) = nominal(cq)
 *   subtree(cohort) = nominal(cohort) + sum over children (subtree - guaranteed)
 *   guaranteed(n) = max(0, subtree - lendingLimit) with a lending limit, else 0
 *   usage(cohort) = sum over children max(0, usage - guaranteed)
 * and add/remove keep the usage relation true.
 */
#ifndef GQ_QUOTA_H
#define GQ_QUOTA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuqueue/quantity.h"

#define GQ_NO_LIMIT INT64_MIN /* a borrowing or lending limit that is not set */

struct gq_qtree {
    size_t nnodes;
    size_t nfr;
    int *parent;        /* per node: parent node or -1 */
    int *depth;         /* per node: 0 for roots */
    bool *cycle;        /* per node: part of (or under) a parent cycle */
    int64_t *nominal;   /* nnodes x nfr */
    int64_t *blimit;    /* GQ_NO_LIMIT when unset */
    int64_t *llimit;    /* GQ_NO_LIMIT when unset */
    int64_t *subtree;
    int64_t *usage;
    bool *defined;      /* the node's spec lists this fr (a CQ may only use those) */
};

#define GQ_Q(t, field, node, fr) ((t)->field[(size_t)(node) * (t)->nfr + (size_t)(fr)])

int64_t gq__sat_add(int64_t a, int64_t b);
int64_t gq__sat_sub(int64_t a, int64_t b);
int64_t gq__sat_mul(int64_t a, int64_t b);

/* Allocate a tree of nnodes x nfr, all zero, no limits, no parents. -1 on ENOMEM. */
int gq__qtree_init(struct gq_qtree *t, size_t nnodes, size_t nfr);
void gq__qtree_free(struct gq_qtree *t);

/* Set a node's parent (-1 for a root). Call before gq__qtree_finish. */
void gq__qtree_set_parent(struct gq_qtree *t, int node, int parent);

/*
 * Compute depths and subtree quotas bottom-up, marking nodes whose parent
 * chain loops ("cycles disable the whole tree": such nodes get no parent
 * and report cycle = true). Usage must be zero; add it afterwards.
 */
void gq__qtree_finish(struct gq_qtree *t);

int64_t gq__qtree_guaranteed(const struct gq_qtree *t, int node, size_t fr);

/* What node may still take of fr now, and the most it could ever take. */
int64_t gq__qtree_available(const struct gq_qtree *t, int node, size_t fr);
int64_t gq__qtree_potential(const struct gq_qtree *t, int node, size_t fr);

/* Usage above the node's own subtree quota with val more (Kueue's BorrowingWith). */
bool gq__qtree_borrowing_with(const struct gq_qtree *t, int node, size_t fr, int64_t val);

/* Add or remove val of fr at node, bubbling to the parents as Kueue does. */
void gq__qtree_add(struct gq_qtree *t, int node, size_t fr, int64_t val);
void gq__qtree_remove(struct gq_qtree *t, int node, size_t fr, int64_t val);

/*
 * The height of the lowest subtree around node that has room for val more of
 * fr (0: the node itself), and whether that subtree is smaller than the whole
 * tree, so that quota could be reclaimed from outside it (Kueue's
 * FindHeightOfLowestSubtreeThatFits). height_of(n) is the distance from n to
 * its deepest leaf; the caller passes the per-node heights.
 */
int gq__qtree_fit_height(const struct gq_qtree *t, const int *heights, int node, size_t fr,
                         int64_t val, bool *may_reclaim);

/*
 * An amount in accounting units as its canonical quantity text: "500m" for
 * cpu, "2Gi" for memory, "3" for a GPU. size >= GQ_QUANTITY_BUFSIZE.
 */
size_t gq__amount_format(char *buf, size_t size, const char *resource, int64_t v);

/*
 * Whether a resource counts as GPUs (the GPUS column, metrics, the simulated
 * cluster's placement): any ".../gpu" (nvidia.com/gpu, amd.com/gpu), each
 * MIG slice ("nvidia.com/mig-1g.5gb") and each shared GPU
 * ("nvidia.com/gpu.shared"), one per unit.
 */
bool gq__gpu_resource(const char *name);

#endif
