/*
 * admit_flavor.c: flavor assignment (kueue-semantics.md §2.3; Kueue's
 * pkg/scheduler/flavorassigner/flavorassigner.go). For each pod set and each
 * resource group it touches, flavors are tried in the ClusterQueue's order
 * from the resume index; a flavor the pod set cannot use (taints, node
 * affinity) is skipped; the quota check gives a mode (fit, preempt, reclaim,
 * no candidates, no fit) and a borrowing level; fungibility decides whether
 * to look further, and the best flavor seen is kept. Pure.
 *
 * Flavor fallback (gpuq's extension, off by default; kueue-semantics.md §6,
 * #2560): a flavor in which the workload failed provisioning as often as
 * its queue's fallback_after says is skipped like an untolerated one, so
 * that the next flavor of the group is tried instead of the same one
 * forever. The counts come in with the snapshot (wl->failed).
 */
#include "sort.h"
#include "admit_int.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct gmode {
    enum gq_pmode pm;
    int borrow;
};

/* Reasons of one pod set, sorted and joined as Kueue's Status.Message(). */
struct reasons {
    char *v[64];
    size_t n;
};

static void reason_add(struct reasons *r, const char *text)
{
    size_t i;

    for (i = 0; i < r->n; i++)
        if (strcmp(r->v[i], text) == 0)
            return;
    if (r->n < sizeof(r->v) / sizeof(r->v[0]))
        r->v[r->n] = strdup(text), r->n += r->v[r->n] != NULL;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void reasons_clear(struct reasons *r)
{
    while (r->n)
        free(r->v[--r->n]);
}

/* isPreferred(a, b): a is better than b under the queue's fungibility preference. */
static bool preferred(struct gmode a, struct gmode b, const struct gq_snap_cq *cq)
{
    bool a_nc = a.pm == GQ_PM_NO_CANDIDATES, b_nc = b.pm == GQ_PM_NO_CANDIDATES;

    if (a.pm == GQ_PM_NOFIT)
        return false;
    if (b.pm == GQ_PM_NOFIT)
        return true;
    if (a_nc != b_nc)
        return !a_nc;
    if (cq->preemption_over_borrowing) {
        if (a.borrow != b.borrow)
            return a.borrow < b.borrow;
        return a.pm > b.pm;
    }
    if (a.pm != b.pm)
        return a.pm > b.pm;
    return a.borrow < b.borrow;
}

/* shouldTryNextFlavor */
static bool try_next(struct gmode m, const struct gq_snap_cq *cq)
{
    if (m.pm == GQ_PM_NOFIT || m.pm == GQ_PM_NO_CANDIDATES)
        return true;
    if ((m.pm == GQ_PM_PREEMPT || m.pm == GQ_PM_RECLAIM) && cq->preempt_try_next)
        return true;
    return m.borrow > 0 && cq->borrow_try_next;
}

static enum gq_amode amode(enum gq_pmode pm)
{
    return pm == GQ_PM_FIT ? GQ_AM_FIT : pm == GQ_PM_NOFIT ? GQ_AM_NOFIT : GQ_AM_PREEMPT;
}

static int64_t use_of(const struct gq_uses *u, int fr)
{
    size_t i;

    for (i = 0; i < u->n; i++)
        if (u->v[i].fr == fr)
            return u->v[i].v;
    return 0;
}

static void fmt_amount(char *buf, const struct gq_snapshot *s, int fr, int64_t v)
{
    gq__amount_format(buf, GQ_QUANTITY_BUFSIZE, s->res_names.names[fr % (int)s->nres], v);
}

/* fitsResourceQuota */
static struct gmode fits_quota(struct gq_snapshot *s, int w, const struct gq_snap_cq *cq, int fr,
                               int64_t assumed, int64_t request, struct reasons *rs)
{
    const char *res = s->res_names.names[fr % (int)s->nres];
    const char *flv = s->flavors[fr / (int)s->nres].name;
    int64_t avail = gq__qtree_available(&s->tree, cq->node, (size_t)fr);
    int64_t maxcap = gq__qtree_potential(&s->tree, cq->node, (size_t)fr);
    int64_t val = gq__sat_add(assumed, request);
    char a[GQ_QUANTITY_BUFSIZE], b[GQ_QUANTITY_BUFSIZE], c[GQ_QUANTITY_BUFSIZE], text[400];
    struct gmode m = {GQ_PM_NOFIT, 0};
    bool may_reclaim;

    if (val > maxcap) {
        fmt_amount(a, s, fr, assumed);
        fmt_amount(b, s, fr, request);
        fmt_amount(c, s, fr, maxcap);
        snprintf(text, sizeof(text),
                 "insufficient quota for %s in flavor %s, previously considered podsets "
                 "requests (%s) + current podset request (%s) > maximum capacity (%s)",
                 res, flv, a, b, c);
        reason_add(rs, text);
        return m;
    }
    m.borrow = gq__qtree_fit_height(&s->tree, s->heights, cq->node, (size_t)fr, val,
                                    &may_reclaim);
    if (val <= avail) {
        m.pm = GQ_PM_FIT;
        return m;
    }
    fmt_amount(a, s, fr, gq__sat_sub(val, avail));
    snprintf(text, sizeof(text), "insufficient unused quota for %s in flavor %s, %s more needed",
             res, flv, a);
    reason_add(rs, text);
    if (GQ_Q(&s->tree, nominal, cq->node, fr) >= val || may_reclaim ||
        cq->borrow_within != GQ_POLICY_NEVER ||
        (s->fair_sharing && cq->reclaim != GQ_POLICY_NEVER)) {
        if (gq__preempt_simulate(s, w, fr, val, &m.pm, &m.borrow) < 0)
            m.pm = GQ_PM_NOFIT;
    }
    return m;
}

struct psctx {
    struct gq_snapshot *s;
    int w;
    const struct gq_snap_cq *cq;
    const struct gq_snap_ps *ps;
    size_t psi;
    struct gq_ps_assign *pa;
    const struct gq_uses *use; /* earlier pod sets' usage */
    struct reasons rs;
};

/* Evaluate flavor f for every resource of group g the pod set requests. */
static struct gmode try_flavor(struct psctx *c, int g, int f, enum gq_amode *modes)
{
    struct gmode rep = {GQ_PM_FIT, 0}, m;
    size_t j;

    for (j = 0; j < c->ps->nres; j++) {
        int res = c->ps->res[j], fr;

        if (c->cq->group_of_res[res] != g)
            continue;
        fr = gq__fr(c->s, f, res);
        m = fits_quota(c->s, c->w, c->cq, fr, use_of(c->use, fr), c->pa->amount[j], &c->rs);
        if (preferred(rep, m, c->cq))
            rep = m;
        if (rep.pm == GQ_PM_NOFIT)
            break;
        modes[j] = amode(m.pm);
    }
    return rep;
}

/* ------------------------------------------------------ flavor fallback */

bool gq__check_on_flavor(const struct gq_snapshot *s, const struct gq_admission_check_ref *c, int f)
{
    size_t i;

    for (i = 0; i < c->on_flavors.n; i++)
        if (strcmp(s->flavors[f].name, c->on_flavors.v[i]) == 0)
            return true;
    return c->on_flavors.n == 0;
}

/* Has the workload failed provisioning in flavor f as often as its queue tolerates? */
static bool fallen_back(const struct gq_snap_cq *cq, const struct gq_snap_wl *wl, int f)
{
    return cq->fallback_after && wl->failed && cq->fallback_after[f] > 0 &&
           wl->failed[f] >= cq->fallback_after[f];
}

/*
 * Flavor fallback skips a flavor only while the group keeps another one the
 * pod set can use; when none is left the skips are ignored (it wraps around).
 */
static bool fallback_on(const struct psctx *c, const struct gq_snap_group *grp)
{
    const struct gq_snap_wl *wl = &c->s->wls[c->w];
    bool any = false;
    size_t i;
    char why[256];

    if (!c->cq->fallback_after || !wl->failed)
        return false;
    for (i = 0; i < grp->nflavors; i++)
        any = any || fallen_back(c->cq, wl, grp->flavors[i]);
    for (i = 0; any && i < grp->nflavors; i++)
        if (!fallen_back(c->cq, wl, grp->flavors[i]) &&
            gq__flavor_matches(c->s, grp->flavors[i], c->ps, why, sizeof(why)))
            return true;
    return false;
}

/* May the pod set take flavor f at all? If not, why (one of Kueue's per-flavor reasons). */
static bool usable(struct psctx *c, int f, bool fallback)
{
    const struct gq_snap_wl *wl = &c->s->wls[c->w];
    char why[256];

    if (fallback && fallen_back(c->cq, wl, f)) {
        snprintf(why, sizeof(why), "flavor %s skipped: %d failed provisioning attempts",
                 c->s->flavors[f].name, (int)wl->failed[f]);
        reason_add(&c->rs, why);
        return false;
    }
    if (!gq__flavor_matches(c->s, f, c->ps, why, sizeof(why))) {
        reason_add(&c->rs, why);
        return false;
    }
    return true;
}

/* Forget the counts of every group whose flavors have all reached their limit. */
static void fallback_wrap(const struct gq_snap_cq *cq, struct gq_snap_wl *wl)
{
    size_t g, i;
    bool all;

    for (g = 0; g < cq->ngroups; g++) {
        const struct gq_snap_group *grp = &cq->groups[g];

        for (i = 0, all = grp->nflavors > 0; all && i < grp->nflavors; i++)
            all = fallen_back(cq, wl, grp->flavors[i]);
        for (i = 0; all && i < grp->nflavors; i++)
            wl->failed[grp->flavors[i]] = 0;
    }
}

/* Is held[i] the first of w's held columns in its flavor? */
static bool first_of_flavor(const struct gq_snapshot *s, const struct gq_uses *held, size_t i)
{
    size_t j;

    for (j = 0; j < i; j++)
        if (held->v[j].fr / (int)s->nres == held->v[i].fr / (int)s->nres)
            return false;
    return true;
}

int gq__fallback_count(struct gq_snapshot *s, int w, const struct gq_admission_check_ref *c)
{
    struct gq_snap_wl *wl = &s->wls[w];
    size_t i;
    int f, changed = 0;

    if (wl->cq < 0 || !s->cqs[wl->cq].fallback_after)
        return 0;
    if (!wl->failed && !(wl->failed = calloc(s->nflavors + 1, sizeof(*wl->failed))))
        return -1;
    for (i = 0; i < wl->held.n; i++) {
        f = wl->held.v[i].fr / (int)s->nres;
        if (first_of_flavor(s, &wl->held, i) && gq__check_on_flavor(s, c, f)) {
            wl->failed[f]++;
            changed = 1;
        }
    }
    fallback_wrap(&s->cqs[wl->cq], wl);
    return changed;
}

/* findFlavorForPodSets: the best flavor of group g, or -1. */
static int find_flavor(struct psctx *c, int g, int *tried, enum gq_amode *modes, int *borrow)
{
    const struct gq_snap_group *grp = &c->cq->groups[g];
    struct gq_snap_wl *wl = &c->s->wls[c->w];
    struct gmode best = {GQ_PM_NOFIT, INT_MAX}, rep;
    enum gq_amode *scratch = calloc(c->ps->nres, sizeof(*scratch));
    int start = 0, attempted = -1, chosen = -1;
    size_t idx, j, slot = c->psi * c->cq->ngroups + (size_t)g;
    bool fallback;

    if (!scratch)
        return -2;
    if (wl->last_tried && wl->last_tried[slot] >= 0)
        start = wl->last_tried[slot] + 1;
    fallback = fallback_on(c, grp);
    for (idx = (size_t)start; idx < grp->nflavors; idx++) {
        int f = grp->flavors[idx];

        attempted = (int)idx;
        if (!usable(c, f, fallback))
            continue;
        rep = try_flavor(c, g, f, scratch);
        if (!try_next(rep, c->cq) || preferred(rep, best, c->cq)) {
            best = rep;
            chosen = f;
            for (j = 0; j < c->ps->nres; j++)
                if (c->cq->group_of_res[c->ps->res[j]] == g)
                    modes[j] = scratch[j];
            if (!try_next(rep, c->cq))
                break;
        }
    }
    free(scratch);
    *tried = attempted == (int)grp->nflavors - 1 ? -1 : attempted;
    *borrow = best.borrow == INT_MAX ? 0 : best.borrow;
    if (best.pm == GQ_PM_FIT)
        reasons_clear(&c->rs);
    return chosen;
}

static int ps_alloc(struct gq_ps_assign *pa, size_t n)
{
    size_t j;

    pa->flavor = malloc((n ? n : 1) * sizeof(int));
    pa->mode = calloc(n ? n : 1, sizeof(*pa->mode));
    pa->tried = malloc((n ? n : 1) * sizeof(int));
    pa->amount = calloc(n ? n : 1, sizeof(int64_t));
    if (!pa->flavor || !pa->mode || !pa->tried || !pa->amount)
        return -1;
    for (j = 0; j < n; j++)
        pa->flavor[j] = pa->tried[j] = -1;
    return 0;
}

static void ps_message(struct gq_assignment *a, const char *psname, struct reasons *rs)
{
    size_t len = strlen(a->msg), i;

    if (!rs->n)
        return;
    gq__qsort(rs->v, rs->n, sizeof(rs->v[0]), cmp_str);
    snprintf(a->msg + len, sizeof(a->msg) - len, "%scouldn't assign flavors to pod set %s: ",
             len ? "; " : "", psname);
    for (i = 0; i < rs->n; i++) {
        len = strlen(a->msg);
        snprintf(a->msg + len, sizeof(a->msg) - len, "%s%s", i ? ", " : "", rs->v[i]);
    }
}

/* One pod set: a flavor for every resource group it touches. 1: failed. */
static int assign_ps(struct psctx *c, struct gq_assignment *a)
{
    struct gq_snapshot *s = c->s;
    struct gq_ps_assign *pa = c->pa;
    size_t j, k;
    int borrow, tried;
    char text[200];

    for (j = 0; j < c->ps->nres; j++) {
        int res = c->ps->res[j], g = c->cq->group_of_res[res], f;

        if (pa->flavor[j] >= 0 || (g < 0 && (pa->amount[j] == 0 || res == s->res_pods)))
            continue;
        if (g < 0) {
            snprintf(text, sizeof(text), "resource %s unavailable in ClusterQueue",
                     s->res_names.names[res]);
            reason_add(&c->rs, text);
            return 1;
        }
        f = find_flavor(c, g, &tried, pa->mode, &borrow);
        if (f == -2)
            return -1;
        if (f < 0)
            return 1;
        if (borrow > a->borrowing)
            a->borrowing = borrow;
        for (k = 0; k < c->ps->nres; k++) {
            if (c->cq->group_of_res[c->ps->res[k]] == g) {
                pa->flavor[k] = f;
                pa->tried[k] = tried;
            }
        }
    }
    return 0;
}

static enum gq_amode ps_mode(const struct gq_snap_ps *ps, const struct gq_ps_assign *pa)
{
    enum gq_amode m = GQ_AM_FIT;
    size_t j;

    for (j = 0; j < ps->nres; j++)
        if (pa->flavor[j] >= 0 && pa->mode[j] < m)
            m = pa->mode[j];
    return m;
}

int gq__assign(struct gq_snapshot *s, int w, const int32_t *counts, struct gq_assignment *out)
{
    struct gq_snap_wl *wl = &s->wls[w];
    struct psctx c = {s, w, &s->cqs[wl->cq], NULL, 0, NULL, &out->use, {{0}, 0}};
    size_t i, j;
    int rc = 0;

    memset(out, 0, sizeof(*out));
    out->mode = GQ_AM_FIT;
    if (!(out->ps = calloc(wl->nps, sizeof(*out->ps))))
        return -1;
    out->nps = wl->nps;
    /*
     * Every pod set's arrays first: the scan stops at the first pod set that
     * does not fit, and the callers read each pod set's flavors (unassigned,
     * -1) whatever the outcome.
     */
    for (i = 0; i < wl->nps; i++) {
        const struct gq_snap_ps *ps = &wl->ps[i];
        struct gq_ps_assign *pa = &out->ps[i];

        if (ps_alloc(pa, ps->nres) < 0)
            return -1;
        pa->count = counts ? counts[i] : ps->count;
        for (j = 0; j < ps->nres; j++)
            pa->amount[j] = gq__sat_mul(ps->per_pod[j], pa->count);
    }
    for (i = 0; i < wl->nps && rc == 0; i++) {
        const struct gq_snap_ps *ps = &wl->ps[i];
        struct gq_ps_assign *pa = &out->ps[i];

        c.ps = ps;
        c.psi = i;
        c.pa = pa;
        rc = assign_ps(&c, out);
        if (rc == 0 && ps_mode(ps, pa) < out->mode)
            out->mode = ps_mode(ps, pa);
        ps_message(out, ps->name, &c.rs);
        reasons_clear(&c.rs);
        for (j = 0; rc == 0 && j < ps->nres; j++)
            if (pa->flavor[j] >= 0 &&
                gq__uses_add(&out->use, gq__fr(s, pa->flavor[j], ps->res[j]), pa->amount[j]) < 0)
                rc = -1;
    }
    if (rc > 0)
        out->mode = GQ_AM_NOFIT;
    return rc < 0 ? -1 : 0;
}

void gq__assignment_free(struct gq_assignment *a)
{
    size_t i;

    for (i = 0; i < a->nps; i++) {
        free(a->ps[i].flavor);
        free(a->ps[i].mode);
        free(a->ps[i].tried);
        free(a->ps[i].amount);
    }
    free(a->ps);
    free(a->use.v);
    memset(a, 0, sizeof(*a));
}
