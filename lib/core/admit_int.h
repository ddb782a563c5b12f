/*
 * admit_int.h: what admit.c, admit_flavor.c and admit_preempt.c share.
 * Internal to the admission core.
 */
#ifndef GQ_ADMIT_INT_H
#define GQ_ADMIT_INT_H

#include "admit.h"

/* Kueue's preemptionMode: how a flavor could be had, worst to best. */
enum gq_pmode { GQ_PM_NOFIT, GQ_PM_NO_CANDIDATES, GQ_PM_PREEMPT, GQ_PM_RECLAIM, GQ_PM_FIT };

/* Kueue's FlavorAssignmentMode: the representative mode of an assignment. */
enum gq_amode { GQ_AM_NOFIT, GQ_AM_PREEMPT, GQ_AM_FIT };

struct gq_ps_assign {
    int32_t count;
    int *flavor;          /* per resource entry of the pod set, -1 when none */
    enum gq_amode *mode;  /* per resource entry */
    int *tried;           /* the flavor index tried last, -1: start over next time */
    int64_t *amount;      /* per resource entry: per pod x count */
};

struct gq_assignment {
    size_t nps;
    struct gq_ps_assign *ps;
    int borrowing;        /* the highest borrowing level over resources */
    enum gq_amode mode;
    struct gq_uses use;   /* totals per fr */
    char msg[768];        /* "couldn't assign flavors to pod set ..." when not Fit */
};

struct gq_target {
    int wl;
    const char *reason;   /* InClusterQueue, InCohortReclamation, ... */
};

struct gq_targets {
    struct gq_target *v;
    size_t n, cap;
};

int gq__uses_add(struct gq_uses *u, int fr, int64_t v);

/* Add (sign 1) or remove (sign -1) a use list at a ClusterQueue's node. */
void gq__uses_apply(struct gq_snapshot *s, int cq, const struct gq_uses *u, int sign);

/*
 * Assign flavors to every pod set of workload w in its ClusterQueue, with
 * counts (NULL: the full counts), as Kueue's FlavorAssigner.Assign.
 */
int gq__assign(struct gq_snapshot *s, int w, const int32_t *counts, struct gq_assignment *out);
void gq__assignment_free(struct gq_assignment *a);

/* Preemption targets for an assignment in Preempt mode (Kueue's GetTargets). */
int gq__preempt_targets(struct gq_snapshot *s, int w, const struct gq_assignment *a,
                        struct gq_targets *out);

/*
 * The preemption oracle: could val of fr be had for w by preempting?
 * *mode is GQ_PM_NO_CANDIDATES, GQ_PM_PREEMPT or GQ_PM_RECLAIM.
 */
int gq__preempt_simulate(struct gq_snapshot *s, int w, int fr, int64_t val, enum gq_pmode *mode,
                         int *borrow);

/* Every fr of use fits the queue now (without borrowing, unless allowed). */
bool gq__uses_fit(const struct gq_snapshot *s, int cq, const struct gq_uses *u,
                  bool allow_borrowing);

void gq__targets_free(struct gq_targets *t);
int gq__targets_push(struct gq_targets *t, int wl, const char *reason);

/* ------------------------------------------------------------ fair sharing */

#define GQ_FAIR_LEVELS 16

/* An entry of a cycle as the fair sharing iterator sees it. */
struct gq_fair_entry {
    int w;
    const struct gq_uses *use;      /* its assignment's usage */
    bool done;                      /* popped, or not nominated */
    double share[GQ_FAIR_LEVELS];   /* DRS at its queue's ancestors, nearest first */
    bool borrows[GQ_FAIR_LEVELS];   /* that subtree borrows a flavor-resource it requests */
};

/* Dominant resource share of a tree node with req added (sign 1) or removed (-1). */
double gq__drs(const struct gq_snapshot *s, int node, const struct gq_uses *req, int sign);

/* The next entry the fair sharing iterator pops, or -1 when none is left. */
int gq__fair_next(struct gq_snapshot *s, struct gq_fair_entry *fe, size_t n);

static inline int gq__fr(const struct gq_snapshot *s, int flavor, int res)
{
    return flavor * (int)s->nres + res;
}

#endif
