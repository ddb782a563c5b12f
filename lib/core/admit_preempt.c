/*
 * admit_preempt.c: choosing preemption victims (kueue-semantics.md §2.5;
 * Kueue's pkg/scheduler/preemption/preemption.go, classical policy).
 *
 * Candidates are the workloads holding quota in the preemptor's queue that
 * withinClusterQueue allows, and those of other queues of the cohort tree
 * that are borrowing a resource the preemptor needs, as reclaimWithinCohort
 * allows. They are ordered (other queues first, lower priority first, most
 * recently admitted first, UID), removed from the snapshot one by one until
 * the preemptor fits, and then added back in reverse wherever the preemptor
 * still fits without them: the minimal set. Pure.
 */
#include "sort.h"
#include "admit_int.h"

#include <stdlib.h>
#include <string.h>

int gq__targets_push(struct gq_targets *t, int wl, const char *reason)
{
    if (gq__grow(&t->v, &t->cap, t->n, sizeof(*t->v)) < 0)
        return -1;
    t->v[t->n].wl = wl;
    t->v[t->n].reason = reason;
    t->n++;
    return 0;
}

void gq__targets_free(struct gq_targets *t)
{
    free(t->v);
    memset(t, 0, sizeof(*t));
}

bool gq__uses_fit(const struct gq_snapshot *s, int cq, const struct gq_uses *u,
                  bool allow_borrowing)
{
    int node = s->cqs[cq].node;
    size_t i;

    for (i = 0; i < u->n; i++) {
        if (!allow_borrowing && gq__qtree_borrowing_with(&s->tree, node, (size_t)u->v[i].fr,
                                                         u->v[i].v))
            return false;
        if (u->v[i].v > gq__qtree_available(&s->tree, node, (size_t)u->v[i].fr))
            return false;
    }
    return true;
}

/* The (flavor, resource) columns that need preemption. */
struct frset {
    int *v;
    size_t n;
};

static bool uses_any(const struct gq_snap_wl *wl, const struct frset *frs)
{
    size_t i, j;

    for (i = 0; i < wl->held.n; i++)
        for (j = 0; j < frs->n; j++)
            if (wl->held.v[i].fr == frs->v[j])
                return true;
    return false;
}

/* cqIsBorrowing: usage above nominal in one of the columns. */
static bool cq_borrowing(const struct gq_snapshot *s, int cq, const struct frset *frs)
{
    size_t j;

    if (s->cqs[cq].cohort < 0)
        return false;
    for (j = 0; j < frs->n; j++)
        if (GQ_Q(&s->tree, usage, s->cqs[cq].node, frs->v[j]) >
            GQ_Q(&s->tree, subtree, s->cqs[cq].node, frs->v[j]))
            return true;
    return false;
}

static bool under_nominal(const struct gq_snapshot *s, int cq, const struct frset *frs)
{
    size_t j;

    for (j = 0; j < frs->n; j++)
        if (GQ_Q(&s->tree, usage, s->cqs[cq].node, frs->v[j]) >=
            GQ_Q(&s->tree, nominal, s->cqs[cq].node, frs->v[j]))
            return false;
    return true;
}

struct cands {
    int *v;
    size_t n, cap;
};

static int cands_push(struct cands *c, int w)
{
    if (gq__grow(&c->v, &c->cap, c->n, sizeof(*c->v)) < 0)
        return -1;
    c->v[c->n++] = w;
    return 0;
}

/* withinClusterQueue: may the preemptor p take the place of candidate c? */
static bool within_allows(const struct gq_snapshot *s, enum gq_policy pol, int p, int c)
{
    const struct gq_snap_wl *a = &s->wls[p], *b = &s->wls[c];

    if (pol == GQ_POLICY_NEVER || b->priority > a->priority)
        return false;
    if (b->priority < a->priority)
        return true;
    return pol == GQ_POLICY_LOWER_OR_NEWER_EQUAL && a->order_ms < b->order_ms;
}

/* findCandidates */
static int find_candidates(const struct gq_snapshot *s, int w, const struct frset *frs,
                           struct cands *out)
{
    const struct gq_snap_wl *wl = &s->wls[w];
    const struct gq_snap_cq *cq = &s->cqs[wl->cq];
    int start = s->tree_start[cq->node], len = s->tree_len[cq->node], k;
    uint64_t want = 0;
    size_t i;

    for (i = 0; i < frs->n; i++)
        want |= UINT64_C(1) << ((unsigned)frs->v[i] & 63);
    for (k = 0; k < len; k++) {
        int q = s->tree_cqs[start + k];
        const struct gq_snap_cq *other = &s->cqs[q];
        bool same = q == wl->cq;

        if (!same && (cq->cohort < 0 || cq->reclaim == GQ_POLICY_NEVER ||
                      !cq_borrowing(s, q, frs)))
            continue;
        if (same && cq->within_cq == GQ_POLICY_NEVER)
            continue;
        for (i = 0; i < other->nholders; i++) {
            int c = other->holders[i];

            if (!(other->holder_cols[i] & want))
                continue; /* holds none of the columns: uses_any would say no */
            if (same ? !within_allows(s, cq->within_cq, w, c)
                     : cq->reclaim == GQ_POLICY_LOWER && s->wls[c].priority >= wl->priority)
                continue;
            if (uses_any(&s->wls[c], frs) && cands_push(out, c) < 0)
                return -1;
        }
    }
    return 0;
}

/* A candidate with its sort keys, so that ordering needs no global state. */
struct ckey {
    bool in_cq;
    bool has_usage;      /* in a ClusterQueue ordered by admission fair sharing */
    int32_t priority;
    int cq;
    const char *lq;      /* its LocalQueue's name (Kueue compares spec.queueName) */
    double usage;        /* that LocalQueue's usage (afs.h) */
    int64_t reserved_ms;
    uint64_t uid_key;
    const char *uid;
    int w;
};

/*
 * candidatesOrdering; with admission fair sharing, between two workloads of
 * one ClusterQueue and two LocalQueues, the higher LocalQueue usage first
 * (pkg/scheduler/preemption/common/ordering.go).
 */
static int cand_cmp(const void *x, const void *y)
{
    const struct ckey *a = x, *b = y;

    if (a->in_cq != b->in_cq)
        return a->in_cq ? 1 : -1;
    if (a->has_usage && b->has_usage && a->cq == b->cq && strcmp(a->lq, b->lq) != 0 &&
        a->usage != b->usage)
        return a->usage > b->usage ? -1 : 1;
    if (a->priority != b->priority)
        return a->priority < b->priority ? -1 : 1;
    if (a->reserved_ms != b->reserved_ms)
        return a->reserved_ms > b->reserved_ms ? -1 : 1;
    if (a->uid_key != b->uid_key) /* the UIDs' order without reading them */
        return a->uid_key < b->uid_key ? -1 : 1;
    return strcmp(a->uid, b->uid);
}

static int sort_candidates(const struct gq_snapshot *s, int cq, struct cands *c)
{
    struct ckey *k = malloc((c->n ? c->n : 1) * sizeof(*k));
    size_t i;

    if (!k)
        return -1;
    for (i = 0; i < c->n; i++) {
        const struct gq_snap_wl *wl = &s->wls[c->v[i]];

        bool afs = s->afs && wl->lq >= 0 && s->cqs[wl->cq].afs;

        k[i] = (struct ckey){wl->cq == cq,       afs,
                             wl->priority,       wl->cq,
                             afs ? s->lqs[wl->lq].name : NULL,
                             afs ? s->lqs[wl->lq].afs_usage : 0.0,
                             wl->reserved_ms,    wl->uid_key,
                             wl->uid,            c->v[i]};
    }
    gq__qsort(k, c->n, sizeof(*k), cand_cmp);
    for (i = 0; i < c->n; i++)
        c->v[i] = k[i].w;
    free(k);
    return 0;
}

static void hold(struct gq_snapshot *s, int c, int sign)
{
    gq__uses_apply(s, s->wls[c].cq, &s->wls[c].held, sign);
}

/*
 * The second half of minimalPreemptions: with the targets removed and the
 * preemptor fitting, add them back in reverse wherever it still fits; then
 * restore the snapshot. No targets when it never fit.
 */
static int fill_back(struct gq_snapshot *s, int w, const struct gq_uses *req,
                     struct gq_targets *out, bool fits, bool allow_borrowing)
{
    int cq = s->wls[w].cq;
    size_t i, k;

    if (!fits) {
        for (k = 0; k < out->n; k++)
            hold(s, out->v[k].wl, 1);
        out->n = 0;
        return 0;
    }
    for (i = out->n - 1; i-- > 0;) {
        hold(s, out->v[i].wl, 1);
        if (gq__uses_fit(s, cq, req, allow_borrowing)) {
            out->v[i] = out->v[out->n - 1];
            out->n--;
        } else {
            hold(s, out->v[i].wl, -1);
        }
    }
    for (k = 0; k < out->n; k++)
        hold(s, out->v[k].wl, 1);
    return 0;
}

/* minimalPreemptions */
static int minimal(struct gq_snapshot *s, int w, const struct gq_uses *req,
                   const struct frset *frs, const int *cands, size_t n, bool allow_borrowing,
                   const int32_t *threshold, struct gq_targets *out)
{
    int cq = s->wls[w].cq;
    bool fits = false;
    size_t i;

    out->n = 0;
    for (i = 0; i < n && !fits; i++) {
        int c = cands[i];
        bool same = s->wls[c].cq == cq;
        const char *reason = "InClusterQueue";

        if (!same && !cq_borrowing(s, s->wls[c].cq, frs))
            continue;
        if (!same) {
            reason = "InCohortReclamation";
            if (threshold && s->wls[c].priority >= *threshold)
                allow_borrowing = false;
            else if (threshold)
                reason = "InCohortReclaimWhileBorrowing";
        }
        hold(s, c, -1);
        if (gq__targets_push(out, c, reason) < 0)
            return -1;
        fits = gq__uses_fit(s, cq, req, allow_borrowing);
    }
    return fill_back(s, w, req, out, fits, allow_borrowing);
}

/* ---------------------------------------------------------- fair sharing */

/* A candidate queue of fair preemption: its share and its candidates in order. */
struct fq {
    int cq;
    double share;
    int *w;
    size_t n;
};

/* The queue with the highest share (the heap of Kueue's fairPreemptions). */
static int fq_pop(struct fq *q, size_t nq)
{
    int best = -1;
    size_t i;

    for (i = 0; i < nq; i++)
        if (q[i].n && (best < 0 || q[i].share > q[best].share ||
                       (q[i].share == q[best].share && q[i].cq < q[best].cq)))
            best = (int)i;
    return best;
}

/* Group ordered candidates by queue (first_only: each queue's first candidate). */
static struct fq *fq_build(struct gq_snapshot *s, const int *c, size_t n, bool first_only,
                           size_t *nq)
{
    struct fq *q = calloc(n ? n : 1, sizeof(*q));
    size_t i, j;

    *nq = 0;
    for (i = 0; q && i < n; i++) {
        int cq = s->wls[c[i]].cq;

        for (j = 0; j < *nq && q[j].cq != cq; j++)
            ;
        if (j == *nq) {
            q[j].cq = cq;
            q[j].share = gq__drs(s, s->cqs[cq].node, NULL, 1);
            if (!(q[j].w = malloc(n * sizeof(int)))) {
                q[j].n = 0;
                break;
            }
            (*nq)++;
        } else if (first_only) {
            continue;
        }
        q[j].w[q[j].n++] = c[i];
    }
    return q;
}

static void fq_free(struct fq *q, size_t nq)
{
    size_t i;

    for (i = 0; q && i < nq; i++)
        free(q[i].w);
    free(q);
}

static bool strategy(const struct gq_snapshot *s, int which, double preemptor_new,
                     double target_old, double target_new)
{
    bool final_share = s->fs_final_share && (which == 0 || !s->fs_initial_share);

    if (which == 0 && !s->fs_final_share)
        final_share = false;
    return final_share ? preemptor_new <= target_new : preemptor_new < target_old;
}

/* queueWithinNominalInResourcesNeedingPreemption, with the preemptor's request. */
static bool within_nominal(const struct gq_snapshot *s, int cq, const struct gq_uses *req,
                           const struct frset *frs)
{
    int node = s->cqs[cq].node;
    size_t i, j;

    for (j = 0; j < frs->n; j++) {
        int64_t v = GQ_Q(&s->tree, usage, node, frs->v[j]);

        for (i = 0; i < req->n; i++)
            if (req->v[i].fr == frs->v[j])
                v = gq__sat_add(v, req->v[i].v);
        if (v > GQ_Q(&s->tree, nominal, node, frs->v[j]))
            return false;
    }
    return true;
}

/* fairPreemptions */
static int fair(struct gq_snapshot *s, int w, const struct gq_uses *req, const struct frset *frs,
                const int *cands, size_t n, const int32_t *threshold, struct gq_targets *out)
{
    int cq = s->wls[w].cq, k;
    double mine = gq__drs(s, s->cqs[cq].node, req, 1);
    struct fq *q;
    size_t nq, i, *retry, nretry = 0;
    bool fits = false, took;

    bool within = within_nominal(s, cq, req, frs);

    out->n = 0;
    if (!(q = fq_build(s, cands, n, false, &nq)) || !(retry = malloc((n + 1) * sizeof(size_t)))) {
        fq_free(q, nq);
        return -1;
    }
    while (!fits && (k = fq_pop(q, nq)) >= 0) {
        struct fq *c = &q[k];

        if (c->cq == cq || within) {
            /* FairSharingPreemptWithinNominal (beta, on since Kueue v0.17): a
             * preemptor within its nominal quota reclaims regardless of shares. */
            hold(s, c->w[0], -1);
            if (gq__targets_push(out, c->w[0],
                                 c->cq == cq ? "InClusterQueue" : "InCohortReclamation") < 0)
                goto fail;
            fits = gq__uses_fit(s, cq, req, true);
            mine = gq__drs(s, s->cqs[cq].node, req, 1);
            memmove(c->w, c->w + 1, --c->n * sizeof(int));
            c->share = gq__drs(s, s->cqs[c->cq].node, NULL, 1);
            continue;
        }
        took = false;
        for (i = 0; i < c->n; i++) {
            int v = c->w[i];
            bool below = threshold && s->wls[v].priority < *threshold;
            double after = gq__drs(s, s->cqs[c->cq].node, &s->wls[v].held, -1);
            bool ok = strategy(s, 0, mine, c->share, after);

            if (below || ok) {
                hold(s, v, -1);
                if (gq__targets_push(out, v, ok ? "InCohortFairSharing"
                                                : "InCohortReclaimWhileBorrowing") < 0)
                    goto fail;
                fits = gq__uses_fit(s, cq, req, true);
                memmove(c->w, c->w + i + 1, (c->n - i - 1) * sizeof(int));
                c->n -= i + 1;
                c->share = after;
                if (!cq_borrowing(s, c->cq, frs))
                    c->n = 0;
                took = true;
                break;
            }
            retry[nretry++] = (size_t)v;
        }
        if (!took)
            c->n = 0; /* nothing to take from this queue under the first strategy */
    }
    if (!fits && s->fs_final_share && s->fs_initial_share) {
        int *rv = malloc((nretry + 1) * sizeof(int));
        struct fq *q2;
        size_t nq2;

        if (!rv)
            goto fail;
        for (i = 0; i < nretry; i++)
            rv[i] = (int)retry[i];
        q2 = fq_build(s, rv, nretry, true, &nq2);
        free(rv);
        while (q2 && !fits && (k = fq_pop(q2, nq2)) >= 0) {
            if (strategy(s, 1, mine, q2[k].share, 0)) {
                hold(s, q2[k].w[0], -1);
                if (gq__targets_push(out, q2[k].w[0], "InCohortFairSharing") < 0)
                    break;
                fits = gq__uses_fit(s, cq, req, true);
            }
            q2[k].n = 0;
        }
        fq_free(q2, nq2);
    }
    free(retry);
    fq_free(q, nq);
    return fill_back(s, w, req, out, fits, true);
fail:
    free(retry);
    fq_free(q, nq);
    return -1;
}

/* GetTargets, for the columns frs and the request req. */
static int targets(struct gq_snapshot *s, int w, const struct gq_uses *req,
                   const struct frset *frs, struct gq_targets *out)
{
    struct gq_snap_cq *cq = &s->cqs[s->wls[w].cq];
    struct cands c = {NULL, 0, 0};
    size_t i, nsame = 0, k = 0;
    int32_t threshold;
    int rc;

    out->n = 0;
    if (find_candidates(s, w, frs, &c) < 0 || sort_candidates(s, s->wls[w].cq, &c) < 0) {
        free(c.v);
        return -1;
    }
    for (i = 0; i < c.n; i++)
        nsame += s->wls[c.v[i]].cq == s->wls[w].cq;
    if (c.n == 0) {
        rc = 0;
    } else if (nsame == c.n) {
        rc = minimal(s, w, req, frs, c.v, c.n, true, NULL, out);
    } else if (s->fair_sharing) {
        threshold = s->wls[w].priority;
        if (cq->has_threshold && cq->threshold < threshold)
            threshold = cq->threshold + 1;
        rc = fair(s, w, req, frs, c.v, c.n,
                  cq->borrow_within != GQ_POLICY_NEVER ? &threshold : NULL, out);
    } else if (cq->borrow_within != GQ_POLICY_NEVER) {
        threshold = s->wls[w].priority;
        if (cq->has_threshold && cq->threshold < threshold)
            threshold = cq->threshold + 1;
        if (!under_nominal(s, s->wls[w].cq, frs)) {
            for (i = 0; i < c.n; i++)
                if (s->wls[c.v[i]].cq == s->wls[w].cq || s->wls[c.v[i]].priority < threshold)
                    c.v[k++] = c.v[i];
            c.n = k;
        }
        rc = minimal(s, w, req, frs, c.v, c.n, true, &threshold, out);
    } else {
        rc = 0;
        if (under_nominal(s, s->wls[w].cq, frs))
            rc = minimal(s, w, req, frs, c.v, c.n, false, NULL, out);
        if (rc == 0 && out->n == 0) {
            for (i = 0; i < c.n; i++)
                if (s->wls[c.v[i]].cq == s->wls[w].cq)
                    c.v[k++] = c.v[i];
            rc = minimal(s, w, req, frs, c.v, k, true, NULL, out);
        }
    }
    free(c.v);
    return rc;
}

int gq__preempt_targets(struct gq_snapshot *s, int w, const struct gq_assignment *a,
                        struct gq_targets *out)
{
    struct frset frs = {NULL, 0};
    size_t i, j, n = 0;
    int rc;

    for (i = 0; i < a->nps; i++)
        n += s->wls[w].ps[i].nres;
    if (!(frs.v = malloc((n ? n : 1) * sizeof(int))))
        return -1;
    for (i = 0; i < a->nps; i++)
        for (j = 0; j < s->wls[w].ps[i].nres; j++)
            if (a->ps[i].flavor[j] >= 0 && a->ps[i].mode[j] == GQ_AM_PREEMPT)
                frs.v[frs.n++] = gq__fr(s, a->ps[i].flavor[j], s->wls[w].ps[i].res[j]);
    rc = targets(s, w, &a->use, &frs, out);
    free(frs.v);
    return rc;
}

int gq__preempt_simulate(struct gq_snapshot *s, int w, int fr, int64_t val, enum gq_pmode *mode,
                         int *borrow)
{
    struct gq_use one = {fr, val};
    struct gq_uses req = {&one, 1, 1};
    struct frset frs = {&fr, 1};
    struct gq_targets t = {NULL, 0, 0};
    int cq = s->wls[w].cq;
    bool may_reclaim, own = false;
    size_t i;

    if (targets(s, w, &req, &frs, &t) < 0)
        return -1;
    *mode = GQ_PM_NO_CANDIDATES;
    *borrow = 0;
    if (t.n) {
        for (i = 0; i < t.n; i++) {
            hold(s, t.v[i].wl, -1);
            own = own || s->wls[t.v[i].wl].cq == cq;
        }
        *borrow = gq__qtree_fit_height(&s->tree, s->heights, s->cqs[cq].node, (size_t)fr, val,
                                       &may_reclaim);
        for (i = 0; i < t.n; i++)
            hold(s, t.v[i].wl, 1);
        *mode = own ? GQ_PM_PREEMPT : GQ_PM_RECLAIM;
    }
    gq__targets_free(&t);
    return 0;
}
