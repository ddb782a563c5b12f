/*
 * admit.c: the scheduling cycle (kueue-semantics.md §2.1, §2.2, §2.6, §2.8;
 * Kueue's pkg/scheduler/scheduler.go and pkg/cache/queue). Pure.
 *
 * Every active ClusterQueue has a heap of pending workloads (priority, then
 * queue-order time, then submission order) and, for BestEffortFIFO, a set of
 * inadmissible ones put aside until something frees quota in its cohort
 * tree. A cycle pops one head per active queue, assigns flavors to each,
 * orders the entries (non-borrowing first, then priority, then age) and
 * admits or preempts in that order, each admission using capacity the next
 * entry then lacks. Heads that were not admitted go back as Kueue's
 * RequeueIfNotPresent sends them.
 */
#include "sort.h"
#include "admit_int.h"
#include "afs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- lists */

int gq__uses_add(struct gq_uses *u, int fr, int64_t v)
{
    size_t i;

    for (i = 0; i < u->n; i++) {
        if (u->v[i].fr == fr) {
            u->v[i].v = gq__sat_add(u->v[i].v, v);
            return 0;
        }
    }
    if (gq__grow(&u->v, &u->cap, u->n, sizeof(*u->v)) < 0)
        return -1;
    u->v[u->n].fr = fr;
    u->v[u->n].v = v;
    u->n++;
    return 0;
}

void gq__uses_apply(struct gq_snapshot *s, int cq, const struct gq_uses *u, int sign)
{
    size_t i;

    if (cq < 0)
        return;
    for (i = 0; i < u->n; i++) {
        if (sign > 0)
            gq__qtree_add(&s->tree, s->cqs[cq].node, (size_t)u->v[i].fr, u->v[i].v);
        else
            gq__qtree_remove(&s->tree, s->cqs[cq].node, (size_t)u->v[i].fr, u->v[i].v);
    }
}

static uint64_t cols_mask(const struct gq_uses *u)
{
    uint64_t m = 0;
    size_t i;

    for (i = 0; i < u->n; i++)
        m |= UINT64_C(1) << ((unsigned)u->v[i].fr & 63);
    return m;
}

/* w holds its quota (wl->held) from now on. */
static int holders_add(struct gq_snapshot *s, struct gq_snap_cq *cq, int w)
{
    size_t cap = cq->capholders;
    uint64_t *cols;

    if (gq__grow(&cq->holders, &cq->capholders, cq->nholders, sizeof(int)) < 0)
        return -1;
    if (cq->capholders != cap || !cq->holder_cols) {
        if (!(cols = realloc(cq->holder_cols, cq->capholders * sizeof(*cols))))
            return -1;
        cq->holder_cols = cols;
    }
    cq->holder_cols[cq->nholders] = cols_mask(&s->wls[w].held);
    cq->holders[cq->nholders++] = w;
    return 0;
}

static void holders_remove(struct gq_snap_cq *cq, int w)
{
    size_t i;

    for (i = 0; i < cq->nholders; i++) {
        if (cq->holders[i] == w) {
            cq->nholders--;
            cq->holders[i] = cq->holders[cq->nholders];
            cq->holder_cols[i] = cq->holder_cols[cq->nholders];
            return;
        }
    }
}

/* ---------------------------------------------------------------- heaps */

/*
 * Heap order: with admission fair sharing, the LocalQueue with the lower
 * usage first (afs.h); then the sticky preemptor, priority, queue-order
 * time, submission.
 */
static bool before(const struct gq_snapshot *s, const struct gq_snap_cq *cq, int a, int b)
{
    const struct gq_snap_wl *x = &s->wls[a], *y = &s->wls[b];

    if (cq->afs && x->lq != y->lq && s->lqs[x->lq].afs_usage != s->lqs[y->lq].afs_usage)
        return s->lqs[x->lq].afs_usage < s->lqs[y->lq].afs_usage;
    if ((a == cq->sticky) != (b == cq->sticky))
        return a == cq->sticky;
    if (x->priority != y->priority)
        return x->priority > y->priority;
    if (x->order_ms != y->order_ms)
        return x->order_ms < y->order_ms;
    return x->id < y->id;
}

static int heap_push(struct gq_snapshot *s, struct gq_snap_cq *cq, int w)
{
    size_t i;

    if (gq__grow(&cq->heap, &cq->capheap, cq->nheap, sizeof(int)) < 0)
        return -1;
    i = cq->nheap++;
    while (i > 0 && before(s, cq, w, cq->heap[(i - 1) / 2])) {
        cq->heap[i] = cq->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    cq->heap[i] = w;
    s->wls[w].queued = true;
    s->wls[w].in_inadmissible = false;
    return 0;
}

static int heap_pop(struct gq_snapshot *s, struct gq_snap_cq *cq)
{
    int top = cq->heap[0], last = cq->heap[--cq->nheap];
    size_t i = 0, c;

    while ((c = 2 * i + 1) < cq->nheap) {
        if (c + 1 < cq->nheap && before(s, cq, cq->heap[c + 1], cq->heap[c]))
            c++;
        if (!before(s, cq, cq->heap[c], last))
            break;
        cq->heap[i] = cq->heap[c];
        i = c;
    }
    if (cq->nheap)
        cq->heap[i] = last;
    s->wls[top].queued = false;
    return top;
}

/* The heap again from its first n entries, pushed into the front of the same array. */
static int heap_rebuild(struct gq_snapshot *s, struct gq_snap_cq *cq, size_t n)
{
    size_t i;

    cq->nheap = 0;
    for (i = 0; i < n; i++)
        if (heap_push(s, cq, cq->heap[i]) < 0)
            return -1;
    return 0;
}

static int set_aside(struct gq_snapshot *s, struct gq_snap_cq *cq, int w)
{
    if (gq__grow(&cq->inadmissible, &cq->capinadmissible, cq->ninadmissible, sizeof(int)) < 0)
        return -1;
    cq->inadmissible[cq->ninadmissible++] = w;
    s->wls[w].queued = true;
    s->wls[w].in_inadmissible = true;
    return 0;
}

static int tree_root(const struct gq_snapshot *s, int node)
{
    while (s->tree.parent[node] >= 0)
        node = s->tree.parent[node];
    return node;
}

/*
 * Kueue's SchedulingEquivalenceHashing (beta, on by default): when a head
 * is set aside as inadmissible, every workload of its heap that asks for
 * exactly the same (same scheduling hash) goes with it, since it would fail
 * the same way; it comes back with the head. Saves a cycle per such workload.
 * Those behind it have no higher priority, so none could preempt more.
 * Flavor fallback's counts (wl->failed) are no part of the hash: a workload
 * that carries them skips flavors others may take, so it goes alone.
 */
static int set_aside_alike(struct gq_snapshot *s, struct gq_snap_cq *cq, int w)
{
    size_t i, kept = 0;
    int x;

    for (i = 0; i < cq->nheap; i++) {
        x = cq->heap[i];
        if (s->wls[x].shape == s->wls[w].shape && x != cq->sticky && !s->wls[x].failed &&
            !s->wls[w].failed) {
            if (set_aside(s, cq, x) < 0)
                return -1;
        } else {
            cq->heap[kept++] = x;
        }
    }
    if (kept == cq->nheap)
        return 0;
    return heap_rebuild(s, cq, kept);
}

/* QueueInadmissibleWorkloads for every queue of the tree rooted at root. */
static int requeue_tree(struct gq_snapshot *s, int root)
{
    int k;
    size_t i;

    for (k = 0; k < s->tree_len[root]; k++) {
        struct gq_snap_cq *cq = &s->cqs[s->tree_cqs[s->tree_start[root] + k]];

        if (!cq->ninadmissible)
            continue;
        for (i = 0; i < cq->ninadmissible; i++)
            if (heap_push(s, cq, cq->inadmissible[i]) < 0)
                return -1;
        cq->ninadmissible = 0;
    }
    return 0;
}

/* May w wait in its queue's heap at all? */
static bool queueable(const struct gq_snapshot *s, const struct gq_snap_wl *wl)
{
    return wl->state == GQ_WS_PENDING && wl->cq >= 0 && wl->lq >= 0 &&
           !s->lqs[wl->lq].stopped && wl->requeue_at <= s->now;
}

/* Workloads whose backoff has run out join their heaps. */
static int ungate(struct gq_snapshot *s)
{
    size_t i;

    for (i = 0; s->ngated && i < s->nwls; i++) {
        struct gq_snap_wl *wl = &s->wls[i];

        if (!wl->requeue_at || wl->requeue_at > s->now || wl->state != GQ_WS_PENDING)
            continue;
        wl->requeue_at = 0;
        s->ngated--;
        if (!wl->queued && queueable(s, wl) && heap_push(s, &s->cqs[wl->cq], (int)i) < 0)
            return -1;
    }
    return 0;
}

/* Group the queues by cohort tree, so that preemption looks only at its own tree. */
static int group_trees(struct gq_snapshot *s)
{
    size_t i, n = s->tree.nnodes, pos = 0;
    int *root = malloc((s->ncqs + 1) * sizeof(int));

    s->tree_cqs = malloc((s->ncqs + 1) * sizeof(int));
    s->tree_start = calloc(n + 1, sizeof(int));
    s->tree_len = calloc(n + 1, sizeof(int));
    if (!root || !s->tree_cqs || !s->tree_start || !s->tree_len) {
        free(root);
        return -1;
    }
    for (i = 0; i < s->ncqs; i++) {
        root[i] = tree_root(s, s->cqs[i].node);
        s->tree_len[root[i]]++;
    }
    for (i = 0; i < n; i++) {
        s->tree_start[i] = (int)pos;
        pos += (size_t)s->tree_len[i];
        s->tree_len[i] = 0;
    }
    for (i = 0; i < s->ncqs; i++)
        s->tree_cqs[s->tree_start[root[i]] + s->tree_len[root[i]]++] = (int)i;
    for (i = 0; i < n; i++) { /* every node answers for its root's tree */
        int r = tree_root(s, (int)i);

        s->tree_start[i] = s->tree_start[r];
        s->tree_len[i] = s->tree_len[r];
    }
    free(root);
    for (i = 0; i < s->ncqs; i++)
        s->any_stopped |= s->cqs[i].stopped;
    for (i = 0; i < s->nlqs; i++)
        s->any_stopped |= s->lqs[i].stopped;
    return 0;
}

/*
 * The first 8 bytes of uid as a big-endian number (NUL-padded): a < b
 * implies strcmp < 0. Kept per workload: taken from the string as
 * preemption's candidates are sorted, it cost a cold read of every
 * candidate's UID per search.
 */
static uint64_t uid_key(const char *uid)
{
    uint64_t k = 0;
    int i;

    for (i = 0; i < 8; i++) {
        k = k << 8 | (unsigned char)(uid ? *uid : 0);
        if (uid && *uid)
            uid++;
    }
    return k;
}

int gq__admit_prepare(struct gq_snapshot *s)
{
    size_t i;

    if (group_trees(s) < 0)
        return -1;
    for (i = 0; i < s->ncqs; i++)
        s->cqs[i].sticky = -1;
    if (gq__afs_prepare(s) < 0)
        return -1;
    for (i = 0; i < s->nwls; i++) {
        struct gq_snap_wl *wl = &s->wls[i];

        wl->uid_key = uid_key(wl->uid);
        if ((wl->state == GQ_WS_RESERVED || wl->state == GQ_WS_ADMITTED) && wl->cq >= 0 &&
            holders_add(s, &s->cqs[wl->cq], (int)i) < 0)
            return -1;
        if (wl->state == GQ_WS_PENDING && wl->requeue_at > s->now)
            s->ngated++;
        if (queueable(s, wl) && heap_push(s, &s->cqs[wl->cq], (int)i) < 0)
            return -1;
    }
    return 0;
}

/* ------------------------------------------------------------ decisions */

void gq__decisions_free(struct gq_decisions *d)
{
    free(d->v);
    memset(d, 0, sizeof(*d));
}

static struct gq_decision *decide(struct gq_decisions *d, enum gq_decision_kind kind, int w,
                                  const char *reason, const char *message)
{
    struct gq_decision *x;

    if (gq__grow(&d->v, &d->cap, d->n, sizeof(*d->v)) < 0)
        return NULL;
    x = &d->v[d->n++];
    memset(x, 0, sizeof(*x));
    x->kind = kind;
    x->wl = w;
    x->reason = reason;
    x->by = -1;
    snprintf(x->message, sizeof(x->message), "%s", message ? message : "");
    return x;
}

static bool same_text(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "") == 0;
}

static int set_text(char **dst, const char *v)
{
    char *c = v ? strdup(v) : NULL;

    if (v && !c)
        return -1;
    free(*dst);
    *dst = c;
    return 0;
}

/* Record why w waits, when that changed. */
static int say_pending(struct gq_snapshot *s, struct gq_decisions *d, int w, const char *reason,
                       const char *message)
{
    struct gq_snap_wl *wl = &s->wls[w];

    if (same_text(wl->reason, reason) && same_text(wl->message, message))
        return 0;
    if (set_text(&wl->reason, reason) < 0 || set_text(&wl->message, message) < 0 ||
        !decide(d, GQ_DEC_PENDING, w, reason, message))
        return -1;
    return 0;
}

/* --------------------------------------------------------------- cycle */

/* RQ_ALONE: as RQ_GENERIC, but what keeps it out says nothing of workloads alike. */
enum requeue { RQ_GENERIC, RQ_IMMEDIATE, RQ_NAMESPACE, RQ_ALONE };

struct entry {
    int w;
    struct gq_assignment a;
    struct gq_targets t;
    bool nominated;       /* has an assignment */
    bool assumed;         /* preempted: its usage is assumed for this cycle */
    struct gq_uses reserved; /* held for this cycle without candidates (see below) */
};

/* RequeueIfNotPresent */
static int requeue(struct gq_snapshot *s, struct gq_decisions *d, int w, enum requeue why)
{
    struct gq_snap_cq *cq = &s->cqs[s->wls[w].cq];

    if (why == RQ_NAMESPACE ||
        ((why == RQ_GENERIC || why == RQ_ALONE) && cq->fifo == GQ_BEST_EFFORT_FIFO)) {
        d->set_aside++;
        if (set_aside(s, cq, w) < 0)
            return -1;
        return why == RQ_GENERIC ? set_aside_alike(s, cq, w) : 0;
    }
    return heap_push(s, cq, w);
}

static bool ns_matches(const struct gq_snapshot *s, const struct gq_snap_cq *cq, const char *ns)
{
    static const struct gq_kvs none = {NULL, 0};
    size_t i;

    if (cq->null_selector)
        return false;
    for (i = 0; i < s->nnss; i++)
        if (strcmp(s->nss[i].name, ns) == 0)
            return gq__selector_matches(&cq->ns_selector, &s->nss[i].labels);
    return gq__selector_matches(&cq->ns_selector, &none);
}

static bool partial_allowed(const struct gq_snap_wl *wl)
{
    size_t i;

    for (i = 0; i < wl->nps; i++)
        if (wl->ps[i].has_min && wl->ps[i].min_count < wl->ps[i].count)
            return true;
    return false;
}

/* An assignment that fits, or needs preemption and has targets. 1: found. */
static int try_counts(struct gq_snapshot *s, struct entry *e, const int32_t *counts)
{
    gq__assignment_free(&e->a);
    e->t.n = 0;
    if (gq__assign(s, e->w, counts, &e->a) < 0)
        return -1;
    if (e->a.mode == GQ_AM_FIT)
        return 1;
    if (e->a.mode == GQ_AM_PREEMPT && gq__preempt_targets(s, e->w, &e->a, &e->t) < 0)
        return -1;
    return e->a.mode == GQ_AM_PREEMPT && e->t.n > 0;
}

/* Kueue's PodSetReducer: the smallest reduction (largest counts) that works. */
static int reduce(struct gq_snapshot *s, struct entry *e)
{
    const struct gq_snap_wl *wl = &s->wls[e->w];
    int32_t *counts = calloc(wl->nps, sizeof(*counts));
    int64_t total = 0, lo = 1, hi, mid;
    size_t i;
    int rc = 0, best = -1;

    if (!counts)
        return -1;
    for (i = 0; i < wl->nps; i++)
        total += wl->ps[i].has_min ? wl->ps[i].count - wl->ps[i].min_count : 0;
    hi = total;
    while (lo <= hi) {
        mid = lo + (hi - lo) / 2;
        for (i = 0; i < wl->nps; i++)
            counts[i] = wl->ps[i].count -
                        (int32_t)((wl->ps[i].has_min ? wl->ps[i].count - wl->ps[i].min_count : 0) *
                                  mid / total);
        if ((rc = try_counts(s, e, counts)) < 0)
            break;
        if (rc) {
            best = (int)mid;
            hi = mid - 1;
        } else {
            lo = mid + 1;
        }
    }
    rc = rc < 0 ? -1 : 0;
    if (rc == 0 && best >= 0) {
        for (i = 0; i < wl->nps; i++)
            counts[i] = wl->ps[i].count -
                        (int32_t)((wl->ps[i].has_min ? wl->ps[i].count - wl->ps[i].min_count : 0) *
                                  best / total);
        rc = try_counts(s, e, counts) < 0 ? -1 : 0;
    } else if (rc == 0) {
        rc = try_counts(s, e, NULL) < 0 ? -1 : 0;
    }
    free(counts);
    return rc;
}

/* getAssignments: the full assignment, else a partial one when allowed. */
static int nominate(struct gq_snapshot *s, struct entry *e)
{
    int rc = try_counts(s, e, NULL);

    e->nominated = true;
    if (rc != 0)
        return rc < 0 ? -1 : 0;
    if (partial_allowed(&s->wls[e->w]))
        return reduce(s, e);
    return 0;
}

struct ekey {
    bool preemptor;
    int borrowing;
    int32_t priority;
    int64_t order_ms, id;
    size_t idx;
};

static int ekey_cmp(const void *x, const void *y)
{
    const struct ekey *a = x, *b = y;

    if (a->preemptor != b->preemptor)
        return a->preemptor ? -1 : 1;
    if (a->borrowing != b->borrowing)
        return a->borrowing < b->borrowing ? -1 : 1;
    if (a->priority != b->priority)
        return a->priority > b->priority ? -1 : 1;
    if (a->order_ms != b->order_ms)
        return a->order_ms < b->order_ms ? -1 : 1;
    return a->id < b->id ? -1 : a->id > b->id;
}

/*
 * makeClassicalIterator's order, as an index permutation, with Kueue's
 * PrioritizePreemptorWorkloads (alpha there, always on here): a workload
 * whose victims were just evicted goes first, so the quota they freed is not
 * taken by their own requeued selves or by another queue's head before it.
 * Kueue added it against preemption loops; with gpuq's synchronous evictions
 * such a loop would repeat every other cycle (a preemptor behind another
 * queue's reservation, its victims readmitted, preempted again).
 */
static size_t *order_entries(const struct gq_snapshot *s, const struct entry *e, size_t n)
{
    struct ekey *k = malloc((n ? n : 1) * sizeof(*k));
    size_t *idx = malloc((n ? n : 1) * sizeof(*idx)), i;

    if (!k || !idx) {
        free(k);
        free(idx);
        return NULL;
    }
    for (i = 0; i < n; i++) {
        const struct gq_snap_wl *wl = &s->wls[e[i].w];

        k[i] = (struct ekey){s->cqs[wl->cq].sticky == e[i].w, e[i].a.borrowing, wl->priority,
                             wl->order_ms, wl->id, i};
    }
    gq__qsort(k, n, sizeof(*k), ekey_cmp);
    for (i = 0; i < n; i++)
        idx[i] = k[i].idx;
    free(k);
    return idx;
}

/* Tell waiting workloads what keeps them out of every heap, once per snapshot. */
static int notify(struct gq_snapshot *s, struct gq_decisions *d)
{
    char msg[400];
    size_t i;

    for (i = 0; i < s->nwls; i++) {
        const struct gq_snap_wl *wl = &s->wls[i];
        const struct gq_snap_lq *lq = wl->lq >= 0 ? &s->lqs[wl->lq] : NULL;
        int rc = 0;

        if (wl->state != GQ_WS_PENDING || !lq)
            continue;
        if (lq->cq < 0) {
            snprintf(msg, sizeof(msg), "ClusterQueue %s doesn't exist", lq->cq_name);
            rc = say_pending(s, d, (int)i, "Inadmissible", msg);
        } else if (lq->stopped) {
            snprintf(msg, sizeof(msg), "LocalQueue %s is inactive", lq->name);
            rc = say_pending(s, d, (int)i, "Inadmissible", msg);
        } else if (!s->cqs[lq->cq].active) {
            snprintf(msg, sizeof(msg), "ClusterQueue %s is inactive", s->cqs[lq->cq].name);
            rc = say_pending(s, d, (int)i, "Inadmissible", msg);
        }
        if (rc < 0)
            return -1;
    }
    return 0;
}

/* Do admission checks stand between quota and admission (onFlavors)? */
static bool checks_apply(const struct gq_snapshot *s, const struct gq_snap_cq *cq,
                         const struct gq_snap_wl *wl)
{
    size_t i;

    if (cq->has_checks)
        return true;
    for (i = 0; cq->check_flavors && i < wl->held.n; i++)
        if (cq->check_flavors[wl->held.v[i].fr / (int)s->nres])
            return true;
    return false;
}

static int admit(struct gq_snapshot *s, struct entry *e, int64_t now, struct gq_decisions *d)
{
    struct gq_snap_wl *wl = &s->wls[e->w];
    struct gq_snap_cq *cq = &s->cqs[wl->cq];
    struct gq_uses held = e->a.use;
    size_t i, j;

    for (i = 0; i < wl->nps; i++) {
        wl->ps[i].adm_count = e->a.ps[i].count;
        for (j = 0; j < wl->ps[i].nres; j++)
            wl->ps[i].adm_flavor[j] = e->a.ps[i].flavor[j];
    }
    memset(&e->a.use, 0, sizeof(e->a.use));
    free(wl->held.v);
    wl->held = held;
    gq__uses_apply(s, wl->cq, &wl->held, 1);
    if (holders_add(s, cq, e->w) < 0)
        return -1;
    wl->state = checks_apply(s, cq, wl) ? GQ_WS_RESERVED : GQ_WS_ADMITTED;
    wl->reserved_ms = now;
    gq__afs_reserved(s, e->w, now);
    wl->admitted_ms = wl->state == GQ_WS_ADMITTED ? now : 0;
    wl->pods_ready = GQ_PR_WAIT_START;
    s->nnot_ready += s->wfpr.on;
    wl->evicted = false;
    if (cq->sticky == e->w)
        cq->sticky = -1;
    if (wl->last_tried)
        memset(wl->last_tried, 0xff, wl->nps * cq->ngroups * sizeof(int));
    set_text(&wl->reason, NULL);
    set_text(&wl->message, NULL);
    d->admitted++;
    return decide(d, GQ_DEC_ADMIT, e->w, NULL, NULL) ? 0 : -1;
}

/* Remember where the flavor scan stopped, so the next attempt resumes there. */
static int remember_tried(struct gq_snapshot *s, const struct entry *e)
{
    struct gq_snap_wl *wl = &s->wls[e->w];
    const struct gq_snap_cq *cq = &s->cqs[wl->cq];
    size_t i, j, n = wl->nps * cq->ngroups;

    if (!n)
        return 0;
    if (!wl->last_tried) {
        if (!(wl->last_tried = malloc(n * sizeof(int))))
            return -1;
        memset(wl->last_tried, 0xff, n * sizeof(int));
    }
    for (i = 0; i < e->a.nps; i++)
        for (j = 0; j < wl->ps[i].nres; j++)
            if (e->a.ps[i].flavor[j] >= 0 && cq->group_of_res[wl->ps[i].res[j]] >= 0)
                wl->last_tried[i * cq->ngroups + (size_t)cq->group_of_res[wl->ps[i].res[j]]] =
                    e->a.ps[i].tried[j];
    return 0;
}

struct victims {
    struct gq_target *v;
    size_t n, cap;
    int *by;
};

/* fits(): does the entry still fit once this cycle's victims are gone? */
static bool still_fits(struct gq_snapshot *s, const struct entry *e, const struct victims *vs)
{
    size_t i;
    bool ok;

    for (i = 0; i < vs->n; i++)
        gq__uses_apply(s, s->wls[vs->v[i].wl].cq, &s->wls[vs->v[i].wl].held, -1);
    for (i = 0; i < e->t.n; i++)
        gq__uses_apply(s, s->wls[e->t.v[i].wl].cq, &s->wls[e->t.v[i].wl].held, -1);
    ok = gq__uses_fit(s, s->wls[e->w].cq, &e->a.use, true);
    for (i = 0; i < e->t.n; i++)
        gq__uses_apply(s, s->wls[e->t.v[i].wl].cq, &s->wls[e->t.v[i].wl].held, 1);
    for (i = 0; i < vs->n; i++)
        gq__uses_apply(s, s->wls[vs->v[i].wl].cq, &s->wls[vs->v[i].wl].held, 1);
    return ok;
}

static int add_victim(struct victims *vs, const struct gq_target *t, int by)
{
    if (vs->n == vs->cap) {
        size_t cap = vs->cap ? vs->cap * 2 : 16;
        struct gq_target *v = realloc(vs->v, cap * sizeof(*v));
        int *b;

        if (!v)
            return -1;
        vs->v = v;
        if (!(b = realloc(vs->by, cap * sizeof(*b))))
            return -1;
        vs->by = b;
        vs->cap = cap;
    }
    vs->v[vs->n] = *t;
    vs->by[vs->n++] = by;
    return 0;
}

/* Issue the preemptions: the preemptor keeps its place and its quota is assumed. */
static int preempt(struct gq_snapshot *s, struct entry *e, struct victims *vs,
                   struct gq_decisions *d)
{
    struct gq_snap_cq *cq = &s->cqs[s->wls[e->w].cq];
    char msg[1024];
    size_t i;

    for (i = 0; i < e->t.n; i++) {
        s->wls[e->t.v[i].wl].victim_cycle = s->cycle;
        if (add_victim(vs, &e->t.v[i], e->w) < 0)
            return -1;
    }
    gq__uses_apply(s, s->wls[e->w].cq, &e->a.use, 1);
    e->assumed = true;
    snprintf(msg, sizeof(msg), "%s%sPending the preemption of %zu workload(s)", e->a.msg,
             e->a.msg[0] ? ". " : "", e->t.n);
    cq->sticky = e->w;
    if (s->wls[e->w].last_tried)
        memset(s->wls[e->w].last_tried, 0xff, s->wls[e->w].nps * cq->ngroups * sizeof(int));
    if (say_pending(s, d, e->w, "Pending", msg) < 0)
        return -1;
    return requeue(s, d, e->w, RQ_IMMEDIATE);
}

static bool overlaps(const struct gq_snapshot *s, const struct entry *e)
{
    size_t i;

    for (i = 0; i < e->t.n; i++)
        if (s->wls[e->t.v[i].wl].victim_cycle == s->cycle)
            return true;
    return false;
}

/*
 * reserveCapacityForUnreclaimablePreempt: a head that needs preemption but has
 * no candidates, in a queue that cannot always reclaim its nominal quota
 * later (reclaimWithinCohort other than Any), holds for the rest of the cycle
 * what it could have (up to nominal, or to its borrowing limit when it must
 * borrow), so that a borrower behind it in the cycle cannot take it.
 */
static int reserve_unreclaimable(struct gq_snapshot *s, struct entry *e)
{
    int cq = s->wls[e->w].cq, node = s->cqs[cq].node;
    struct gq_uses *r = &e->reserved;
    size_t i;

    if (s->cqs[cq].reclaim == GQ_POLICY_ANY)
        return 0;
    for (i = 0; i < e->a.use.n; i++) {
        int fr = e->a.use.v[i].fr;
        int64_t v = e->a.use.v[i].v, used = GQ_Q(&s->tree, usage, node, fr);
        int64_t nominal = GQ_Q(&s->tree, nominal, node, fr), bl = GQ_Q(&s->tree, blimit, node, fr);

        if (e->a.borrowing > 0 && bl != GQ_NO_LIMIT)
            v = v < gq__sat_sub(gq__sat_add(nominal, bl), used)
                    ? v
                    : gq__sat_sub(gq__sat_add(nominal, bl), used);
        else if (e->a.borrowing == 0)
            v = v < gq__sat_sub(nominal, used) ? v : gq__sat_sub(nominal, used);
        if (v > 0 && gq__uses_add(r, fr, v) < 0)
            return -1;
    }
    gq__uses_apply(s, cq, r, 1);
    return 0;
}

/* Step 5 of the cycle for one entry. */
static int process(struct gq_snapshot *s, struct entry *e, struct victims *vs, int64_t now,
                   struct gq_decisions *d)
{
    if (e->a.mode == GQ_AM_PREEMPT && e->t.n == 0 && reserve_unreclaimable(s, e) < 0)
        return -1;
    if (e->a.mode == GQ_AM_NOFIT || (e->a.mode == GQ_AM_PREEMPT && e->t.n == 0)) {
        if (say_pending(s, d, e->w, "Pending", e->a.msg) < 0 || remember_tried(s, e) < 0)
            return -1;
        return requeue(s, d, e->w, RQ_GENERIC);
    }
    if (overlaps(s, e)) {
        if (say_pending(s, d, e->w, "Pending",
                        "Workload has overlapping preemption targets with another workload") < 0)
            return -1;
        return requeue(s, d, e->w, RQ_IMMEDIATE);
    }
    if (!still_fits(s, e, vs)) {
        if (say_pending(s, d, e->w, "Pending",
                        "Workload no longer fits after processing another workload") < 0)
            return -1;
        return requeue(s, d, e->w, RQ_IMMEDIATE);
    }
    if (e->a.mode == GQ_AM_PREEMPT)
        return preempt(s, e, vs, d);
    /* blockAdmission: Kueue's waitForPodsReadyIfNeeded holds every admission, in every queue. */
    if (s->wfpr.block && s->nnot_ready) {
        if (say_pending(s, d, e->w, "WaitingForPodsReady",
                        "waiting for all admitted workloads to be in PodsReady condition") < 0)
            return -1;
        return requeue(s, d, e->w, RQ_IMMEDIATE);
    }
    return admit(s, e, now, d);
}

static const char *preempt_words(const char *reason)
{
    if (strcmp(reason, "InClusterQueue") == 0)
        return "prioritization in the ClusterQueue";
    if (strcmp(reason, "InCohortReclamation") == 0)
        return "reclamation within the cohort";
    if (strcmp(reason, "InCohortFairSharing") == 0)
        return "fair sharing within the cohort";
    return "reclamation within the cohort while borrowing";
}

/* Take a workload's quota back and requeue it (or leave it out of the heap). */
static int evict(struct gq_snapshot *s, int w, const char *reason, const char *preempted,
                 int by, const char *message, struct gq_decisions *d)
{
    struct gq_snap_wl *wl = &s->wls[w];
    struct gq_decision *x;

    if (wl->state == GQ_WS_RESERVED)
        gq__afs_unreserved(s, w);
    gq__uses_apply(s, wl->cq, &wl->held, -1);
    wl->held.n = 0;
    holders_remove(&s->cqs[wl->cq], w);
    wl->state = GQ_WS_PENDING;
    wl->evicted = true;
    if (wl->pods_ready != GQ_PR_NONE)
        wl->pods_ready = GQ_PR_WAIT_START; /* not admitted: WaitForStart again */
    if (set_text(&wl->reason, reason) < 0 || set_text(&wl->message, message) < 0 ||
        !(x = decide(d, GQ_DEC_EVICT, w, reason, message)))
        return -1;
    x->preempted_reason = preempted;
    x->by = by;
    d->evicted++;
    if (queueable(s, wl) && heap_push(s, &s->cqs[wl->cq], w) < 0)
        return -1;
    return requeue_tree(s, tree_root(s, s->cqs[wl->cq].node));
}

static int evict_victims(struct gq_snapshot *s, struct victims *vs, struct gq_decisions *d)
{
    char msg[400];
    size_t i;

    for (i = 0; i < vs->n; i++) {
        snprintf(msg, sizeof(msg), "Preempted to accommodate a workload (UID: %s) due to %s",
                 s->wls[vs->by[i]].uid, preempt_words(vs->v[i].reason));
        if (evict(s, vs->v[i].wl, "Preempted", vs->v[i].reason, vs->by[i], msg, d) < 0)
            return -1;
    }
    return 0;
}

static void entries_free(struct entry *e, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++) {
        gq__assignment_free(&e[i].a);
        gq__targets_free(&e[i].t);
        free(e[i].reserved.v);
    }
    free(e);
}

/* Pop one head per active queue and nominate it. */
static int heads(struct gq_snapshot *s, struct entry *e, size_t *n, struct gq_decisions *d)
{
    size_t q;

    *n = 0;
    for (q = 0; q < s->ncqs; q++) {
        struct gq_snap_cq *cq = &s->cqs[q];
        struct entry *x;

        if (!cq->active || !cq->nheap)
            continue;
        if (cq->afs_stale && heap_rebuild(s, cq, cq->nheap) < 0)
            return -1;
        cq->afs_stale = false;
        x = &e[(*n)++];
        x->w = heap_pop(s, cq);
        if (!ns_matches(s, cq, s->wls[x->w].ns)) {
            if (say_pending(s, d, x->w, "Inadmissible",
                            "Workload namespace doesn't match ClusterQueue selector") < 0 ||
                requeue(s, d, x->w, RQ_NAMESPACE) < 0)
                return -1;
            continue;
        }
        /*
         * Requests outside the namespace's LimitRanges (or above their
         * limits): Kueue's nominate refuses it with ValidateAdmissibility's
         * message (QuotaReserved reason Misconfigured) and requeues it as
         * any other that does not fit.
         */
        if (s->wls[x->w].inadmissible) {
            if (say_pending(s, d, x->w, "Inadmissible", s->wls[x->w].inadmissible) < 0 ||
                requeue(s, d, x->w, RQ_ALONE) < 0)
                return -1;
            continue;
        }
        if (nominate(s, x) < 0)
            return -1;
    }
    return 0;
}

/* The entries in the fair sharing iterator's order, each processed as popped. */
static int fair_loop(struct gq_snapshot *s, struct entry *e, size_t n, struct victims *vs,
                     int64_t now, struct gq_decisions *d)
{
    struct gq_fair_entry *fe = calloc(n ? n : 1, sizeof(*fe));
    size_t i;
    int k, rc = 0;

    if (!fe)
        return -1;
    for (i = 0; i < n; i++) {
        fe[i].w = e[i].w;
        fe[i].use = &e[i].a.use;
        fe[i].done = !e[i].nominated;
    }
    while (rc == 0 && (k = gq__fair_next(s, fe, n)) >= 0) {
        fe[k].done = true;
        rc = process(s, &e[k], vs, now, d);
    }
    free(fe);
    return rc;
}

int gq__admit_cycle(struct gq_snapshot *s, int64_t now, struct gq_decisions *d)
{
    struct entry *e = calloc(s->ncqs ? s->ncqs : 1, sizeof(*e));
    struct victims vs = {NULL, 0, 0, NULL};
    size_t n = 0, i, *order = NULL;
    int rc = -1;

    s->cycle++;
    s->now = now;
    gq__afs_sample(s, now);
    if (!e || ungate(s) < 0 || (s->cycle == 1 && notify(s, d) < 0) || heads(s, e, &n, d) < 0 ||
        !(order = order_entries(s, e, n)))
        goto out;
    if (s->fair_sharing) {
        if (fair_loop(s, e, n, &vs, now, d) < 0)
            goto out;
    } else {
        for (i = 0; i < n; i++)
            if (e[order[i]].nominated && process(s, &e[order[i]], &vs, now, d) < 0)
                goto out;
    }
    for (i = 0; i < n; i++) /* the preemptors' assumed quota is not theirs yet */
        if (e[i].assumed)
            gq__uses_apply(s, s->wls[e[i].w].cq, &e[i].a.use, -1);
    for (i = 0; i < n; i++)
        if (e[i].reserved.n)
            gq__uses_apply(s, s->wls[e[i].w].cq, &e[i].reserved, -1);
    rc = evict_victims(s, &vs, d);
out:
    free(order);
    free(vs.v);
    free(vs.by);
    if (e)
        entries_free(e, s->ncqs);
    return rc;
}

int gq__snapshot_find(const struct gq_snapshot *s, int64_t id)
{
    size_t lo = 0, hi = s->nwls;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (s->wls[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->nwls && s->wls[lo].id == id ? (int)lo : -1;
}

int gq__admit_checks_ready(struct gq_snapshot *s, int w, int64_t now, struct gq_decisions *d)
{
    struct gq_snap_wl *wl = &s->wls[w];

    if (wl->state != GQ_WS_RESERVED)
        return 0;
    wl->state = GQ_WS_ADMITTED;
    gq__afs_admitted(s, w, now);
    wl->admitted_ms = s->now;
    set_text(&wl->reason, NULL);
    set_text(&wl->message, NULL);
    return decide(d, GQ_DEC_READY, w, NULL, NULL) ? 0 : -1;
}

int gq__admit_check_retry(struct gq_snapshot *s, int w, int64_t requeue_at, const char *message,
                          struct gq_decisions *d)
{
    struct gq_snap_wl *wl = &s->wls[w];
    char msg[600];

    if (wl->state != GQ_WS_RESERVED && wl->state != GQ_WS_ADMITTED)
        return 0;
    wl->requeue_at = requeue_at > s->now ? requeue_at : 0;
    s->ngated += wl->requeue_at != 0;
    snprintf(msg, sizeof(msg), "Evicted due to AdmissionCheck in Retry state: %s", message);
    if (evict(s, w, "AdmissionCheck", NULL, -1, msg, d) < 0)
        return -1;
    d->v[d->n - 1].requeue_at = wl->requeue_at;
    return 0;
}

/* Quota released and the workload made inactive (spec.active false), with Kueue's reason. */
static int deactivate(struct gq_snapshot *s, int w, const char *reason, const char *message,
                      struct gq_decisions *d)
{
    struct gq_snap_wl *wl = &s->wls[w];

    if (wl->state != GQ_WS_RESERVED && wl->state != GQ_WS_ADMITTED)
        return 0;
    if (wl->state == GQ_WS_RESERVED)
        gq__afs_unreserved(s, w);
    gq__uses_apply(s, wl->cq, &wl->held, -1);
    wl->held.n = 0;
    holders_remove(&s->cqs[wl->cq], w);
    wl->state = GQ_WS_GONE;
    if (set_text(&wl->reason, reason) < 0 || set_text(&wl->message, message) < 0 ||
        !decide(d, GQ_DEC_DEACTIVATE, w, reason, message))
        return -1;
    d->evicted++;
    return requeue_tree(s, tree_root(s, s->cqs[wl->cq].node));
}

int gq__admit_check_reject(struct gq_snapshot *s, int w, const char *message,
                           struct gq_decisions *d)
{
    const struct gq_snap_wl *wl = &s->wls[w];

    if (wl->state != GQ_WS_RESERVED && wl->state != GQ_WS_ADMITTED)
        return 0;
    return deactivate(s, w, "DeactivatedDueToAdmissionCheck", message, d);
}

int64_t gq__wfpr_backoff_ms(const struct gq_wfpr *c, int32_t n)
{
    int64_t s = c->base_s;

    while (--n > 0 && s < c->max_s)
        s *= 2;
    return (s < c->max_s ? s : c->max_s) * 1000;
}

int64_t gq__wfpr_due(const struct gq_wfpr *c, const struct gq_snap_wl *wl)
{
    if (!c->on || wl->state != GQ_WS_ADMITTED || wl->pods_ready == GQ_PR_READY)
        return 0;
    if (wl->pods_ready == GQ_PR_WAIT_RECOVERY)
        return c->recovery_ms ? wl->ready_ms + c->recovery_ms : 0;
    return wl->admitted_ms + c->timeout_ms;
}

/* Kueue's reconcileNotReadyTimeout: deactivate past the limit, else evict with the backoff. */
static int pods_ready_timeout(struct gq_snapshot *s, int w, int64_t now, struct gq_decisions *d)
{
    const struct gq_wfpr *c = &s->wfpr;
    struct gq_snap_wl *wl = &s->wls[w];
    char msg[600];

    if (c->has_limit && wl->requeues + 1 > c->limit) {
        wl->requeues = 0; /* the deactivation clears status.requeueState */
        return deactivate(s, w, "DeactivatedDueToRequeuingLimitExceeded",
                          "The workload is deactivated due to exceeding the maximum number of "
                          "re-queuing retries",
                          d);
    }
    wl->requeues++;
    wl->requeue_at = now + gq__wfpr_backoff_ms(c, wl->requeues);
    s->ngated++;
    if (!c->creation)
        wl->order_ms = now; /* GetQueueOrderTimestamp: the eviction's time */
    snprintf(msg, sizeof(msg), "Exceeded the PodsReady timeout %s/%s", wl->ns, wl->name);
    if (evict(s, w, "PodsReadyTimeout", NULL, -1, msg, d) < 0)
        return -1;
    d->v[d->n - 1].requeue_at = wl->requeue_at;
    return 0;
}

int gq__admit_pods_ready(struct gq_snapshot *s, int64_t now, struct gq_decisions *d)
{
    size_t q, i;

    s->nnot_ready = 0;
    if (!s->wfpr.on)
        return 0;
    /*
     * Only holders can time out or block. Backwards: an eviction moves the
     * last holder into the evicted one's place, and that one was seen.
     */
    for (q = 0; q < s->ncqs; q++)
        for (i = s->cqs[q].nholders; i-- > 0;) {
            int w = s->cqs[q].holders[i];
            int64_t due = gq__wfpr_due(&s->wfpr, &s->wls[w]);

            if (due && due <= now) {
                if (pods_ready_timeout(s, w, now, d) < 0)
                    return -1;
            } else if (s->wls[w].pods_ready != GQ_PR_READY) {
                s->nnot_ready++;
            }
        }
    return 0;
}

int gq__admit_drain(struct gq_snapshot *s, int64_t now, struct gq_decisions *d)
{
    char msg[400];
    size_t q;

    (void)now;
    for (q = 0; s->any_stopped && q < s->ncqs; q++) {
        struct gq_snap_cq *cq = &s->cqs[q];
        size_t i = 0;

        while (i < cq->nholders) {
            int w = cq->holders[i];
            const struct gq_snap_wl *wl = &s->wls[w];
            const struct gq_snap_lq *lq = wl->lq >= 0 ? &s->lqs[wl->lq] : NULL;
            bool reserved = wl->state == GQ_WS_RESERVED;

            if (cq->stopped && (cq->drain || reserved)) {
                snprintf(msg, sizeof(msg), "The ClusterQueue is stopped");
                if (evict(s, w, "ClusterQueueStopped", NULL, -1, msg, d) < 0)
                    return -1;
            } else if (lq && lq->stopped && (lq->drain || reserved)) {
                snprintf(msg, sizeof(msg), "The LocalQueue is stopped");
                if (evict(s, w, "LocalQueueStopped", NULL, -1, msg, d) < 0)
                    return -1;
            } else {
                i++;
            }
        }
    }
    return 0;
}

static void ps_free(struct gq_snap_ps *ps)
{
    size_t i;

    free(ps->name);
    free(ps->res);
    free(ps->per_pod);
    free(ps->adm_flavor);
    gq__kvs_clear(&ps->node_selector);
    for (i = 0; i < ps->ntols; i++) {
        free(ps->tols[i].key);
        free(ps->tols[i].op);
        free(ps->tols[i].value);
        free(ps->tols[i].effect);
    }
    free(ps->tols);
    for (i = 0; i < ps->nterms; i++)
        gq__selector_clear(&ps->terms[i]);
    free(ps->terms);
}

static void wl_free(struct gq_snap_wl *wl)
{
    size_t i;

    free(wl->uid); /* ns, name and job_name live in uid's block */
    for (i = 0; i < wl->nps; i++)
        ps_free(&wl->ps[i]);
    free(wl->ps);
    free(wl->last_tried);
    free(wl->failed);
    free(wl->held.v);
    free(wl->reason);
    free(wl->message);
    free(wl->inadmissible);
}

static void cq_free(struct gq_snap_cq *cq, bool borrowed)
{
    size_t i, j;

    free(cq->name);
    gq__selector_clear(&cq->ns_selector);
    for (i = 0; i < cq->ngroups; i++) {
        free(cq->groups[i].res);
        free(cq->groups[i].flavors);
    }
    free(cq->groups);
    free(cq->group_of_res);
    free(cq->fallback_after);
    free(cq->check_flavors);
    for (i = 0; !borrowed && i < cq->nchecks; i++) {
        free(cq->checks[i].name);
        for (j = 0; j < cq->checks[i].on_flavors.n; j++)
            free(cq->checks[i].on_flavors.v[j]);
        free(cq->checks[i].on_flavors.v);
    }
    if (!borrowed)
        free(cq->checks);
    free(cq->heap);
    free(cq->inadmissible);
    free(cq->holders);
    free(cq->holder_cols);
}

void gq__snapshot_free(struct gq_snapshot *s)
{
    struct gq_object o;
    size_t i;

    for (i = 0; i < s->nflavors; i++) {
        free(s->flavors[i].name);
        if (s->borrowed)
            continue;
        memset(&o, 0, sizeof(o));
        o.kind = GQ_KIND_RESOURCE_FLAVOR;
        o.u.flavor = s->flavors[i].spec;
        gq__object_clear(&o);
    }
    free(s->flavors);
    for (i = 0; i < s->ncqs; i++)
        cq_free(&s->cqs[i], s->borrowed);
    free(s->cqs);
    for (i = 0; i < s->ncohorts; i++)
        free(s->cohort_names[i]);
    free(s->cohort_names);
    for (i = 0; i < s->nlqs; i++) {
        free(s->lqs[i].ns);
        free(s->lqs[i].name);
        free(s->lqs[i].cq_name);
        free(s->lqs[i].consumed);
        free(s->lqs[i].penalty);
    }
    free(s->lqs);
    free(s->afs_weights);
    free(s->afs_scratch);
    for (i = 0; i < s->nwls; i++)
        wl_free(&s->wls[i]);
    free(s->wls);
    for (i = 0; i < s->nnss; i++) {
        free(s->nss[i].name);
        if (!s->borrowed)
            gq__kvs_clear(&s->nss[i].labels);
    }
    free(s->nss);
    free(s->heights);
    free(s->weights);
    free(s->tree_cqs);
    free(s->tree_start);
    free(s->tree_len);
    gq__qtree_free(&s->tree);
    gq__intern_free(&s->flavor_names);
    gq__intern_free(&s->res_names);
    memset(s, 0, sizeof(*s));
}
