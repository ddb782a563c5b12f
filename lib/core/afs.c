/*
 * afs.c: admission fair sharing (afs.h; Kueue's pkg/util/admissionfairsharing,
 * the LocalQueue controller's reconcileConsumedUsage, the workload
 * controller's updateAfsConsumedUsage, the scheduler's updateEntryPenalty and
 * cluster_queue.go's queueOrderingFunc). Pure.
 *
 * A LocalQueue's usage changes only here: at a sample, when a workload of an
 * AFS ClusterQueue reserves quota (its entry penalty), when it is admitted
 * (the penalty settles), and when it loses a reservation it was not admitted
 * with. Each change marks the queue's ClusterQueue stale, and admit.c orders
 * that heap again before it pops a head. The snapshot holds a few hundred
 * LocalQueues at most; a sample walks the workloads once.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "admit.h"
#include "afs.h"

/* Below this a sum of penalties taken back is zero (float residue). */
#define AFS_EPSILON 1e-12

double gq__afs_alpha(int64_t elapsed_ms, int64_t half_life_ms)
{
    if (half_life_ms <= 0)
        return 0.0;
    return 1.0 - pow(0.5, (double)elapsed_ms / (double)half_life_ms);
}

/*
 * Kueue multiplies exact decimals; in binary floating point a product that
 * is exactly on the 10^-9 grid may come out a few ulps below it, so the
 * product is nudged up by a relative 10^-12 before it is rounded down.
 */
double gq__afs_scale(double v, double f)
{
    double x = v * f, nano;

    if (!(x > 0))
        return 0.0;
    nano = x * 1e9 * (1.0 + 1e-12);
    if (nano < 9e18)
        return floor(nano) / 1e9;
    return floor(x);
}

void gq__afs_decay(double *consumed, const double *current, size_t n, int64_t elapsed_ms,
                   int64_t half_life_ms)
{
    double a = gq__afs_alpha(elapsed_ms > 0 ? elapsed_ms : 0, half_life_ms);
    size_t i;

    for (i = 0; i < n; i++)
        consumed[i] = gq__afs_scale(consumed[i], 1.0 - a) + gq__afs_scale(current[i], a);
}

double gq__afs_usage(const double *consumed, const double *penalty, const double *weight,
                     size_t n, double lq_weight)
{
    double u = 0.0;
    size_t i;

    for (i = 0; i < n; i++)
        u += (weight ? weight[i] : 1.0) * (consumed[i] + (penalty ? penalty[i] : 0.0));
    if (!(lq_weight > 0)) /* 0/0 would be NaN, which sorts first instead of last */
        return INFINITY;
    return u / lq_weight;
}

double gq__afs_units(const char *resource, int64_t amount)
{
    return strcmp(resource, "cpu") == 0 ? (double)amount / 1000.0 : (double)amount;
}

gq_quantity gq__afs_quantity(double v)
{
    gq_quantity q = {0, 0, GQ_QTY_DECIMAL_SI};
    double nano = v * 1e9;

    if (!(v > 0))
        return q;
    if (nano < 9e18) {
        q.mantissa = (int64_t)llround(nano);
        q.scale = -9;
    } else {
        q.mantissa = v < 9e18 ? (int64_t)floor(v) : INT64_MAX;
    }
    while (q.mantissa && q.mantissa % 10 == 0 && q.scale < 0) {
        q.mantissa /= 10;
        q.scale++;
    }
    if (!q.mantissa)
        q.scale = 0;
    return q;
}

/* ------------------------------------------------ on the admission snapshot */

static bool afs_queue(const struct gq_snapshot *s, const struct gq_snap_wl *wl)
{
    return s->afs && wl->lq >= 0 && wl->cq >= 0 && s->cqs[wl->cq].afs;
}

static void usage_update(struct gq_snapshot *s, struct gq_snap_lq *lq)
{
    lq->afs_usage = gq__afs_usage(lq->consumed, lq->penalty, s->afs_weights, s->nres, lq->weight);
    if (lq->cq >= 0 && s->cqs[lq->cq].afs)
        s->cqs[lq->cq].afs_stale = true;
}

/* Workload w's quota per resource in Kueue's units, into out (nres). */
static void requests(const struct gq_snapshot *s, const struct gq_snap_wl *wl, double *out)
{
    size_t i;

    memset(out, 0, s->nres * sizeof(*out));
    for (i = 0; i < wl->held.n; i++) {
        int r = wl->held.v[i].fr % (int)s->nres;

        out[r] += gq__afs_units(s->res_names.names[r], wl->held.v[i].v);
    }
}

/* Kueue's CalculateEntryPenalty: the requests scaled by alpha(sampling interval). */
static void entry_penalty(const struct gq_snapshot *s, const struct gq_snap_wl *wl, double *out)
{
    double a = gq__afs_alpha(s->afs_sampling_ms, s->afs_half_life_ms);
    size_t r;

    requests(s, wl, out);
    for (r = 0; r < s->nres; r++)
        out[r] = gq__afs_scale(out[r], a);
}

/* A LocalQueue's admitted usage (the cache's GetAdmittedUsage), into out (nres). */
static void admitted_usage(const struct gq_snapshot *s, int lq, double *out, double *tmp)
{
    const struct gq_snap_cq *cq;
    size_t i, r;

    memset(out, 0, s->nres * sizeof(*out));
    if (s->lqs[lq].cq < 0)
        return;
    cq = &s->cqs[s->lqs[lq].cq];
    for (i = 0; i < cq->nholders; i++) {
        const struct gq_snap_wl *wl = &s->wls[cq->holders[i]];

        if (wl->lq != lq || wl->state != GQ_WS_ADMITTED)
            continue;
        requests(s, wl, tmp);
        for (r = 0; r < s->nres; r++)
            out[r] += tmp[r];
    }
}

int gq__afs_prepare(struct gq_snapshot *s)
{
    double *pen;
    size_t i, r;

    if (!s->afs)
        return 0;
    if (!(s->afs_scratch = calloc(3 * (s->nres + 1), sizeof(double))))
        return -1;
    pen = s->afs_scratch;
    for (i = 0; i < s->nlqs; i++) {
        struct gq_snap_lq *lq = &s->lqs[i];

        if ((!lq->consumed && !(lq->consumed = calloc(s->nres + 1, sizeof(double)))) ||
            !(lq->penalty = calloc(s->nres + 1, sizeof(double))))
            return -1;
    }
    for (i = 0; i < s->nwls; i++) {
        const struct gq_snap_wl *wl = &s->wls[i];

        if (wl->state != GQ_WS_RESERVED || !afs_queue(s, wl))
            continue;
        entry_penalty(s, wl, pen);
        for (r = 0; r < s->nres; r++)
            s->lqs[wl->lq].penalty[r] += pen[r];
    }
    for (i = 0; i < s->nlqs; i++)
        usage_update(s, &s->lqs[i]);
    return 0;
}

void gq__afs_sample(struct gq_snapshot *s, int64_t now)
{
    double *cur, *tmp;
    size_t i;

    if (!s->afs)
        return;
    cur = s->afs_scratch;
    tmp = cur + s->nres + 1;
    for (i = 0; i < s->nlqs; i++) {
        struct gq_snap_lq *lq = &s->lqs[i];

        if (lq->afs_known && now - lq->afs_last < s->afs_sampling_ms)
            continue;
        if (!lq->afs_known) { /* a new status: nothing consumed yet, as of now */
            lq->afs_known = true;
        } else if (s->afs_half_life_ms <= 0) { /* a half-life of 0 forgets at once */
            memset(lq->consumed, 0, s->nres * sizeof(double));
        } else {
            admitted_usage(s, (int)i, cur, tmp);
            gq__afs_decay(lq->consumed, cur, s->nres, now - lq->afs_last, s->afs_half_life_ms);
        }
        lq->afs_last = now;
        lq->afs_changed = true;
        usage_update(s, lq);
    }
}

void gq__afs_reserved(struct gq_snapshot *s, int w, int64_t now)
{
    const struct gq_snap_wl *wl = &s->wls[w];
    struct gq_snap_lq *lq;
    size_t r;

    if (!afs_queue(s, wl))
        return;
    lq = &s->lqs[wl->lq];
    entry_penalty(s, wl, s->afs_scratch);
    for (r = 0; r < s->nres; r++)
        lq->penalty[r] += s->afs_scratch[r];
    usage_update(s, lq);
    if (wl->state == GQ_WS_ADMITTED) /* no admission checks: admitted at once */
        gq__afs_admitted(s, w, now);
}

/* Take workload w's entry penalty back from its LocalQueue's pending ones. */
static void penalty_remove(struct gq_snapshot *s, const struct gq_snap_wl *wl, double *pen)
{
    struct gq_snap_lq *lq = &s->lqs[wl->lq];
    size_t r;

    entry_penalty(s, wl, pen);
    for (r = 0; r < s->nres; r++) {
        lq->penalty[r] -= pen[r];
        if (lq->penalty[r] < AFS_EPSILON)
            lq->penalty[r] = 0.0;
    }
}

void gq__afs_admitted(struct gq_snapshot *s, int w, int64_t now)
{
    const struct gq_snap_wl *wl = &s->wls[w];
    double *pen, *cur, *tmp;
    struct gq_snap_lq *lq;
    size_t r;

    if (!afs_queue(s, wl))
        return;
    pen = s->afs_scratch;
    cur = pen + s->nres + 1;
    tmp = cur + s->nres + 1;
    lq = &s->lqs[wl->lq];
    penalty_remove(s, wl, pen);
    if (!lq->afs_known) {
        lq->afs_known = true;
        lq->afs_last = now;
    }
    if (now > lq->afs_last) { /* no time passed, nothing decays: spare the walk of holders */
        admitted_usage(s, wl->lq, cur, tmp);
        gq__afs_decay(lq->consumed, cur, s->nres, now - lq->afs_last, s->afs_half_life_ms);
    }
    for (r = 0; r < s->nres; r++)
        lq->consumed[r] += pen[r];
    if (now > lq->afs_last)
        lq->afs_last = now;
    lq->afs_changed = true;
    usage_update(s, lq);
}

void gq__afs_unreserved(struct gq_snapshot *s, int w)
{
    const struct gq_snap_wl *wl = &s->wls[w];

    if (!afs_queue(s, wl))
        return;
    penalty_remove(s, wl, s->afs_scratch);
    usage_update(s, &s->lqs[wl->lq]);
}
