/*
 * admit_fair.c: fair sharing (kueue-semantics.md §2.7; Kueue's
 * pkg/cache/scheduler/fair_sharing.go, pkg/scheduler/fair_sharing_iterator.go
 * and the fair preemption of pkg/scheduler/preemption). Pure.
 *
 * A node's dominant resource share: for each resource, what it uses above
 * its subtree quota, over what its parent could ever lend of that resource
 * (summed over flavors), times 1000; the largest ratio, divided by the
 * node's weight. A node that borrows with weight 0 has an infinite share.
 */
#include "admit_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* DRS of node with req added (sign 1) or taken away (sign -1). */
double gq__drs(const struct gq_snapshot *s, int node, const struct gq_uses *req, int sign)
{
    const struct gq_qtree *t = &s->tree;
    int p = t->parent[node];
    double best = 0, w = (double)s->weights[node] / 1000.0;
    bool borrowing = false;
    size_t r, f, i;

    if (p < 0)
        return 0;
    for (r = 0; r < s->nres; r++) {
        int64_t borrowed = 0, lendable = 0;

        for (f = 0; f < s->nflavors; f++) {
            size_t fr = f * s->nres + r;
            int64_t v = GQ_Q(t, usage, node, fr);

            for (i = 0; req && i < req->n; i++)
                if ((size_t)req->v[i].fr == fr)
                    v = sign > 0 ? gq__sat_add(v, req->v[i].v) : gq__sat_sub(v, req->v[i].v);
            v = gq__sat_sub(v, GQ_Q(t, subtree, node, fr));
            if (v > 0)
                borrowed = gq__sat_add(borrowed, v);
        }
        if (borrowed <= 0)
            continue;
        borrowing = true;
        for (f = 0; f < s->nflavors; f++)
            lendable = gq__sat_add(lendable, gq__qtree_potential(t, p, f * s->nres + r));
        if (lendable > 0 && (double)borrowed * 1000.0 / (double)lendable > best)
            best = (double)borrowed * 1000.0 / (double)lendable;
    }
    if (!borrowing)
        return 0;
    if (w == 0)
        return INFINITY;
    return best / w;
}

/* ------------------------------------------------------------ tournament */

/* Whether node uses more than its subtree quota of a column in use. */
static bool borrows_any(const struct gq_snapshot *s, int node, const struct gq_uses *use)
{
    size_t i;

    for (i = 0; i < use->n; i++)
        if (use->v[i].v > 0 && GQ_Q(&s->tree, usage, node, use->v[i].fr) >
                                   GQ_Q(&s->tree, subtree, node, use->v[i].fr))
            return true;
    return false;
}

/* The share an entry brings to each ancestor level of its queue. */
static int compute_shares(struct gq_snapshot *s, struct gq_fair_entry *fe, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++) {
        int node = s->cqs[s->wls[fe[i].w].cq].node, lvl = 0;
        double v;

        if (fe[i].done)
            continue;
        gq__uses_apply(s, s->wls[fe[i].w].cq, fe[i].use, 1);
        v = gq__drs(s, node, NULL, 1);
        while (s->tree.parent[node] >= 0 && lvl < GQ_FAIR_LEVELS) {
            fe[i].borrows[lvl] = borrows_any(s, node, fe[i].use);
            fe[i].share[lvl++] = v;
            node = s->tree.parent[node];
            v = gq__drs(s, node, NULL, 1);
        }
        gq__uses_apply(s, s->wls[fe[i].w].cq, fe[i].use, -1);
    }
    return 0;
}

/* entryComparer.less at cohort node c. */
static bool less(const struct gq_snapshot *s, const struct gq_fair_entry *a,
                 const struct gq_fair_entry *b, int c)
{
    const struct gq_snap_wl *x = &s->wls[a->w], *y = &s->wls[b->w];
    int la = s->tree.depth[s->cqs[x->cq].node] - s->tree.depth[c] - 1;
    int lb = s->tree.depth[s->cqs[y->cq].node] - s->tree.depth[c] - 1;
    double da = la >= 0 && la < GQ_FAIR_LEVELS ? a->share[la] : 0;
    double db = lb >= 0 && lb < GQ_FAIR_LEVELS ? b->share[lb] : 0;
    bool ba = la >= 0 && la < GQ_FAIR_LEVELS && a->borrows[la];
    bool bb = lb >= 0 && lb < GQ_FAIR_LEVELS && b->borrows[lb];

    /* FairSharingPrioritizeNonBorrowing (beta, on since Kueue v0.17). */
    if (ba != bb)
        return !ba;
    if (da != db)
        return da < db;
    if (x->priority != y->priority)
        return x->priority > y->priority;
    if (x->order_ms != y->order_ms)
        return x->order_ms < y->order_ms;
    return x->id < y->id;
}

/* runTournament: the winning entry of the subtree of cohort node c, or -1. */
static int tournament(const struct gq_snapshot *s, const struct gq_fair_entry *fe, size_t n,
                      int c)
{
    int best = -1, cand;
    size_t i, node;

    for (node = s->ncqs; node < s->tree.nnodes; node++) {
        if (s->tree.parent[node] != c)
            continue;
        cand = tournament(s, fe, n, (int)node);
        if (cand >= 0 && (best < 0 || less(s, &fe[cand], &fe[best], c)))
            best = cand;
    }
    for (i = 0; i < n; i++) {
        if (fe[i].done || s->tree.parent[s->cqs[s->wls[fe[i].w].cq].node] != c)
            continue;
        if (best < 0 || less(s, &fe[i], &fe[best], c))
            best = (int)i;
    }
    return best;
}

int gq__fair_next(struct gq_snapshot *s, struct gq_fair_entry *fe, size_t n)
{
    size_t i;
    int root;

    for (i = 0; i < n; i++) /* queues without a cohort pass straight through */
        if (!fe[i].done && s->tree.parent[s->cqs[s->wls[fe[i].w].cq].node] < 0)
            return (int)i;
    for (i = 0; i < n; i++) {
        if (fe[i].done)
            continue;
        root = s->cqs[s->wls[fe[i].w].cq].node;
        while (s->tree.parent[root] >= 0)
            root = s->tree.parent[root];
        compute_shares(s, fe, n);
        return tournament(s, fe, n, root);
    }
    return -1;
}
