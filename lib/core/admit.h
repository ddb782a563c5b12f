/*
 * admit.h: the scheduling cycle (kueue-semantics.md §2; Kueue's
 * pkg/scheduler). Pure: no I/O, no clock; `now` is an argument. The engine
 * (engine.c) builds a snapshot from the store, runs cycles on it, and
 * persists the decisions each cycle returns; the snapshot stays in memory
 * between cycles and is changed by the cycle exactly as the decisions say,
 * as Kueue's cache is.
 *
 * Names are interned: every flavor and resource has a small index, and a
 * (flavor, resource) pair is the column fr = flavor * nres + res of the
 * quota tree.
 */
#ifndef GQ_ADMIT_H
#define GQ_ADMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"
#include "util.h"
#include "quota.h"

/* ------------------------------------------------------------ interning */

struct gq_intern {
    char **names;
    size_t n, cap;
    uint32_t *slots; /* open addressing: index + 1, 0 = empty */
    size_t nslots;
};

/* The index of name, adding it when absent; -1 on ENOMEM. */
int gq__intern(struct gq_intern *in, const char *name);
/* The index of name, or -1. */
int gq__intern_find(const struct gq_intern *in, const char *name);
void gq__intern_free(struct gq_intern *in);

/* An amount of one (flavor, resource) column; a list of them. */
struct gq_use {
    int fr;
    int64_t v;
};

struct gq_uses {
    struct gq_use *v;
    size_t n, cap;
};

/* ------------------------------------------------------------ selectors */

enum gq_sel_op { GQ_SEL_IN, GQ_SEL_NOT_IN, GQ_SEL_EXISTS, GQ_SEL_DOES_NOT_EXIST, GQ_SEL_GT,
                 GQ_SEL_LT };

struct gq_sel_req {
    char *key;
    enum gq_sel_op op;
    struct gq_strs values;
};

/* A label selector (matchLabels AND matchExpressions) or one node selector term. */
struct gq_selector {
    struct gq_kvs match_labels;
    struct gq_sel_req *reqs;
    size_t nreqs;
};

void gq__selector_clear(struct gq_selector *s);
bool gq__selector_matches(const struct gq_selector *s, const struct gq_kvs *labels);

/* ------------------------------------------------------------- snapshot */

struct gq_snap_flavor {
    char *name;
    bool exists;                  /* a ResourceFlavor object of that name exists */
    struct gq_flavor spec;        /* node labels, taints, tolerations */
};

struct gq_snap_group {
    int *res;                     /* covered resources */
    size_t nres;
    int *flavors;                 /* in preference order */
    size_t nflavors;
};

enum gq_fifo { GQ_BEST_EFFORT_FIFO, GQ_STRICT_FIFO };
enum gq_policy { GQ_POLICY_NEVER, GQ_POLICY_LOWER, GQ_POLICY_LOWER_OR_NEWER_EQUAL,
                 GQ_POLICY_ANY };

struct gq_snap_cq {
    char *name;
    int node;                     /* in the quota tree */
    int cohort;                   /* root-to-leaf: the parent node, -1 without cohort */
    bool active;
    char inactive_reason[160];    /* Kueue's Active=False message when !active */
    bool stopped;                 /* stopPolicy Hold or HoldAndDrain */
    bool drain;                   /* HoldAndDrain */
    bool has_checks;              /* an admission check applies to every flavor */
    bool *check_flavors;          /* per flavor: a check applies (onFlavors), or NULL */
    struct gq_admission_check_ref *checks; /* admissionChecksStrategy, in order */
    size_t nchecks;
    enum gq_fifo fifo;
    enum gq_policy within_cq, reclaim, borrow_within;
    bool has_threshold;
    int32_t threshold;            /* borrowWithinCohort.maxPriorityThreshold */
    bool borrow_try_next;         /* whenCanBorrow: TryNextFlavor */
    bool preempt_try_next;        /* whenCanPreempt: TryNextFlavor */
    bool preemption_over_borrowing;
    int64_t weight_milli;         /* fairSharing.weight, milli-units */
    bool null_selector;           /* namespaceSelector absent: no namespace matches */
    struct gq_selector ns_selector;
    struct gq_snap_group *groups;
    size_t ngroups;
    int *group_of_res;            /* per resource index: group or -1 */
    int32_t *fallback_after;      /* per flavor: skipped by a workload that failed provisioning
                                     this often there (gpuq.dev/flavor-fallback-after); NULL */
    /* the queue */
    int *heap;                    /* workload indices */
    size_t nheap, capheap;
    int *inadmissible;
    size_t ninadmissible, capinadmissible;
    int sticky;                   /* a preemptor that keeps its place, or -1 */
    int *holders;                 /* workloads holding quota here */
    uint64_t *holder_cols;        /* per holder: bit (fr % 64) set for each column it holds,
                                     so that preemption passes over most holders unread */
    size_t nholders, capholders;
    bool told_inactive;           /* its waiting workloads were told why */
    bool afs;                     /* admissionScope UsageBasedAdmissionFairSharing, with the
                                     Configuration's admissionFairSharing (afs.h) */
    bool afs_stale;               /* a LocalQueue's usage changed: reorder the heap */
};

struct gq_snap_lq {
    char *ns, *name;
    int cq;                       /* -1 when its ClusterQueue does not exist */
    char *cq_name;
    bool stopped, drain;
    /* admission fair sharing (afs.h), when the snapshot's afs is on */
    bool afs_known;               /* it has a status: consumed as of afs_last */
    bool afs_changed;             /* consumed or afs_last changed: to be stored */
    double weight;                /* spec.fairSharing.weight */
    double *consumed;             /* per resource: decayed usage, Kueue's units */
    double *penalty;              /* per resource: entry penalties not yet settled */
    int64_t afs_last;             /* lastUpdate (ms) */
    double afs_usage;             /* (consumed + penalty) weighted, over weight */
};

struct gq_snap_ps {
    char *name;
    int32_t count;
    bool has_min;
    int32_t min_count;
    int *res;                     /* resource indices */
    int64_t *per_pod;             /* accounting units per pod */
    size_t nres;
    struct gq_kvs node_selector;
    struct gq_toleration *tols;
    size_t ntols;
    struct gq_selector *terms;    /* required node affinity, ORed; none = any */
    size_t nterms;
    /* when quota is held: the admitted count and flavor per resource */
    int32_t adm_count;
    int *adm_flavor;              /* per res entry; -1 none */
};

enum gq_wstate { GQ_WS_PENDING, GQ_WS_RESERVED, GQ_WS_ADMITTED, GQ_WS_GONE };

/* A workload's PodsReady condition (Kueue's reasons): none yet, False, or True. */
enum gq_pods_ready { GQ_PR_NONE, GQ_PR_WAIT_START, GQ_PR_WAIT_RECOVERY, GQ_PR_READY };

/*
 * The Configuration's waitForPodsReady as the cycle enforces it (Kueue's
 * waitForPodsReadyConfig, pkg/controller/core/core.go); all zero when off.
 */
struct gq_wfpr {
    int64_t timeout_ms;
    int64_t recovery_ms;          /* 0: no recovery timeout */
    int32_t limit;                /* backoffLimitCount when has_limit */
    int32_t base_s, max_s;        /* backoffBaseSeconds, backoffMaxSeconds */
    bool on, block;
    bool creation;                /* requeuingStrategy.timestamp Creation (else Eviction) */
    bool has_limit;
};

/*
 * Members ordered by size, so that 100,000 of them carry no padding (the
 * admission benchmark's peak memory is counted against a target).
 */
struct gq_snap_wl {
    int64_t id;                   /* the store's row id */
    char *uid, *ns, *name, *job_name; /* one block, uid's: ns, name and job_name point into it */
    uint64_t uid_key;             /* uid's first 8 bytes, big-endian: orders as strcmp does
                                     unless equal (gq__admit_prepare) */
    int64_t order_ms;             /* queue-order timestamp */
    int64_t reserved_ms;          /* when quota was reserved */
    struct gq_snap_ps *ps;
    size_t nps;
    int *last_tried;              /* resume index per (pod set, resource), -1 */
    struct gq_uses held;          /* quota held, per fr (reserved or admitted) */
    char *reason, *message;       /* what the store has now */
    char *inadmissible;           /* Kueue's ValidateAdmissibility message for its adjusted
                                     requests (LimitRange bounds); NULL: admissible */
    uint64_t victim_cycle;        /* the cycle that chose it as a victim, 0 */
    uint64_t shape;               /* scheduling hash: equal for workloads that ask alike */
    int64_t requeue_at;           /* may not queue before this (ms); 0: now */
    int64_t admitted_ms;          /* when Admitted turned True; 0 */
    int64_t ready_ms;             /* the PodsReady condition's lastTransitionTime; 0 */
    int32_t *failed;              /* per flavor: failed provisioning attempts (flavor
                                     fallback, workloads.failed_flavors); NULL: none */
    int lq;                       /* -1: no such LocalQueue */
    int cq;                       /* the queue it waits in or holds quota in; -1 */
    int32_t priority;
    int32_t requeues;             /* status.requeueState.count: PodsReady timeouts so far */
    enum gq_wstate state;
    enum gq_pods_ready pods_ready;
    bool queued;                  /* in a heap or an inadmissible set */
    bool in_inadmissible;
    bool evicted;                 /* requeued after an eviction (Evicted=True) */
    bool has_checks;              /* has admission-check rows (the engine's journal
                                     takes none of its decisions) */
};

struct gq_snapshot {
    struct gq_intern flavor_names, res_names;
    struct gq_snap_flavor *flavors;
    size_t nflavors;
    size_t nres;
    struct gq_qtree tree;
    int *heights;                 /* per node */
    int64_t *weights;             /* per node: fairSharing.weight in milli-units */
    int *tree_cqs;                /* the queues of each cohort tree, grouped by root */
    int *tree_start;              /* per node: where its root's group starts in tree_cqs */
    int *tree_len;                /* per node: how many queues its root's tree has */
    bool any_stopped;             /* a stopped ClusterQueue or LocalQueue exists */
    struct gq_snap_cq *cqs;
    size_t ncqs;
    char **cohort_names;          /* per tree node >= ncqs */
    size_t ncohorts;
    struct gq_snap_lq *lqs;
    size_t nlqs;
    struct gq_snap_wl *wls;
    size_t nwls;
    struct gq_snap_ns { char *name; struct gq_kvs labels; } *nss;
    size_t nnss;
    bool fair_sharing;
    bool fs_final_share, fs_initial_share; /* preemption strategies */
    bool afs;                     /* the Configuration sets admissionFairSharing */
    int64_t afs_half_life_ms;     /* usageHalfLifeTime */
    int64_t afs_sampling_ms;      /* usageSamplingInterval */
    double *afs_weights;          /* per resource: resourceWeights, default 1 */
    double *afs_scratch;          /* 3 x (nres + 1), for afs.c's sums */
    int res_pods;                 /* index of "pods", or -1 */
    uint64_t cycle;               /* cycles run */
    int64_t now;                  /* the time of the cycle in hand (ms) */
    size_t ngated;                /* pending workloads waiting for their requeue_at */
    struct gq_wfpr wfpr;          /* waitForPodsReady */
    size_t nnot_ready;            /* workloads holding quota whose pods are not ready */
    bool borrowed;                /* flavors[].spec, cqs[].checks and nss[].labels belong to
                                     the decoded specs the engine keeps: not freed here */
};

/* ------------------------------------------------------------ decisions */

enum gq_decision_kind {
    GQ_DEC_ADMIT,      /* quota reserved (admitted unless checks apply) */
    GQ_DEC_EVICT,      /* preempted or drained: quota released, requeued */
    GQ_DEC_PENDING,    /* still waiting: reason and message changed */
    GQ_DEC_READY,      /* quota was reserved; every admission check is Ready: admitted */
    GQ_DEC_DEACTIVATE, /* an admission check rejected it: quota released, inactive */
};

struct gq_decision {
    enum gq_decision_kind kind;
    int wl;                       /* workload index */
    const char *reason;           /* static: Pending, Inadmissible, Preempted ... */
    char message[512];
    const char *preempted_reason; /* InClusterQueue ... for an eviction, else NULL */
    int by;                       /* the preemptor for an eviction, else -1 */
    int64_t requeue_at;           /* an eviction that waits before queueing again, else 0 */
};

struct gq_decisions {
    struct gq_decision *v;
    size_t n, cap;
    size_t admitted, evicted;
    size_t set_aside;             /* heads newly moved to an inadmissible set */
};

void gq__decisions_free(struct gq_decisions *d);

/*
 * Set up the queues after the snapshot's objects, workloads and usage are in
 * place: every pending workload of an active queue goes into its heap.
 * -1 on ENOMEM.
 */
int gq__admit_prepare(struct gq_snapshot *s);

/*
 * Run one scheduling cycle at time now: pick heads, assign flavors, order,
 * admit or preempt, requeue. The snapshot is updated (usage, states, queues)
 * and the decisions appended to out in the order they were taken.
 * -1 on ENOMEM (the snapshot is then unusable).
 */
int gq__admit_cycle(struct gq_snapshot *s, int64_t now, struct gq_decisions *out);

/* Index of the workload with store id `id` (the snapshot is in id order), or -1. */
int gq__snapshot_find(const struct gq_snapshot *s, int64_t id);

/* A reserved workload whose checks are all Ready becomes admitted at now. -1 on ENOMEM. */
int gq__admit_checks_ready(struct gq_snapshot *s, int w, int64_t now, struct gq_decisions *d);

/*
 * An admission check in Retry: the workload is evicted (reason AdmissionCheck)
 * and may queue again at requeue_at. In Rejected: it is deactivated, its
 * quota released. -1 on ENOMEM.
 */
int gq__admit_check_retry(struct gq_snapshot *s, int w, int64_t requeue_at, const char *message,
                          struct gq_decisions *d);
int gq__admit_check_reject(struct gq_snapshot *s, int w, const char *message,
                           struct gq_decisions *d);

/*
 * Flavor fallback (kueue-semantics.md §6, #2560; off unless a check's config
 * sets gpuq.dev/flavor-fallback-after): a failed provisioning attempt of
 * check c counts against every flavor w holds quota in that c applies to. A
 * resource group whose flavors have all reached their fallback_after forgets
 * its counts, so the next attempt starts again at its first flavor.
 * 1: wl->failed changed; 0: not; -1 on ENOMEM.
 */
int gq__fallback_count(struct gq_snapshot *s, int w, const struct gq_admission_check_ref *c);

/* Does check c apply to flavor f (its onFlavors name f, or it has none)? */
bool gq__check_on_flavor(const struct gq_snapshot *s, const struct gq_admission_check_ref *c,
                         int f);

/*
 * waitForPodsReady (kueue-semantics.md §2.9; Kueue's reconcileNotReadyTimeout):
 * an admitted workload whose PodsReady is not True past its deadline
 * (gq__wfpr_due) is evicted with reason PodsReadyTimeout and may queue again
 * after the backoff (gq__wfpr_backoff_ms), its queue-order time the eviction
 * when requeuingStrategy.timestamp is Eviction; once its count would pass
 * backoffLimitCount it is deactivated (RequeuingLimitExceeded) instead. Then
 * counts the holders whose pods are not ready, for blockAdmission. Nothing
 * when waitForPodsReady is off. -1 on ENOMEM.
 */
int gq__admit_pods_ready(struct gq_snapshot *s, int64_t now, struct gq_decisions *d);

/* When an admitted workload's PodsReady times out; 0: never (ready, not admitted, off). */
int64_t gq__wfpr_due(const struct gq_wfpr *c, const struct gq_snap_wl *wl);

/*
 * The backoff before the n-th requeue (n >= 1): backoffBaseSeconds x 2^(n-1),
 * at most backoffMaxSeconds, in ms. Kueue adds a jitter of at most 0.01 %;
 * gpuq adds none, so that the same run gives the same times.
 */
int64_t gq__wfpr_backoff_ms(const struct gq_wfpr *c, int32_t n);

/* Evict everything a HoldAndDrain queue holds; decisions appended. */
int gq__admit_drain(struct gq_snapshot *s, int64_t now, struct gq_decisions *out);

void gq__snapshot_free(struct gq_snapshot *s);

/* Internal to admit*.c */
struct gq_assignment;
bool gq__flavor_matches(const struct gq_snapshot *s, int flavor, const struct gq_snap_ps *ps,
                        char *why, size_t whylen);

#endif
