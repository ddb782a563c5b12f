/*
 * nodes.c: the simulated cluster's books (nodes.h): nodes and pods, the
 * autoscaler of plain pools and the scheduler's MostAllocated placement.
 */
#include "nodes.h"

#include <stdlib.h>
#include <string.h>

#include "admit.h"
#include "util.h"

int gq__books_init(struct gq_books *b, const struct gq_sim_pool *pools, size_t npools,
                   const char *const *flavors)
{
    size_t i;

    memset(b, 0, sizeof(*b));
    b->pools = pools;
    b->npools = npools;
    if (!(b->flavor = calloc(npools + 1, sizeof(*b->flavor))))
        return -1;
    for (i = 0; flavors && i < npools; i++)
        if (flavors[i] && !(b->flavor[i] = gq__strdup(flavors[i])))
            return -1;
    return 0;
}

void gq__books_free(struct gq_books *b)
{
    size_t i;

    for (i = 0; b->flavor && i < b->npools; i++)
        free(b->flavor[i]);
    for (i = 0; i < b->npods; i++) {
        free(b->pods[i].podset);
        free(b->pods[i].flavor);
    }
    free(b->flavor);
    free(b->nodes);
    free(b->pods);
    memset(b, 0, sizeof(*b));
}

static bool live(const struct gq_node *n)
{
    return n->down_ms == 0;
}

static bool up(const struct gq_node *n, int64_t now)
{
    return live(n) && n->up_ms <= now;
}

static int32_t live_nodes(const struct gq_books *b, int pool)
{
    int32_t k = 0;
    size_t i;

    for (i = 0; i < b->nnodes; i++)
        k += b->nodes[i].pool == pool && live(&b->nodes[i]);
    return k;
}

static int add_node(struct gq_books *b, int pool, int64_t requested, int64_t up_at)
{
    struct gq_node *n;

    if (gq__grow(&b->nodes, &b->capnodes, b->nnodes, sizeof(*b->nodes)) < 0)
        return -1;
    n = &b->nodes[b->nnodes++];
    memset(n, 0, sizeof(*n));
    n->pool = pool;
    n->gpus = b->pools[pool].gpus_per_node;
    n->requested_ms = requested;
    n->up_ms = up_at;
    n->idle_since = up_at;
    n->dirty = true;
    return 0;
}

int gq__books_start(struct gq_books *b, int64_t now)
{
    size_t p;

    for (p = 0; p < b->npools; p++) {
        int32_t k = live_nodes(b, (int)p), want = b->pools[p].min_nodes;

        if (!b->pools[p].autoscaling)
            continue;
        if (want > b->pools[p].max_nodes)
            want = b->pools[p].max_nodes;
        for (; k < want; k++)
            if (add_node(b, (int)p, now, now) < 0)
                return -1;
    }
    return 0;
}

int gq__books_load_node(struct gq_books *b, const struct gq_node *n)
{
    if (n->pool < 0 || (size_t)n->pool >= b->npools)
        return 0; /* a pool deleted since: its nodes are history */
    if (gq__grow(&b->nodes, &b->capnodes, b->nnodes, sizeof(*b->nodes)) < 0)
        return -1;
    b->nodes[b->nnodes] = *n;
    b->nodes[b->nnodes].used = 0;
    b->nodes[b->nnodes++].dirty = false;
    return 0;
}

static int node_index(const struct gq_books *b, int64_t id)
{
    size_t i;

    for (i = 0; id && i < b->nnodes; i++)
        if (b->nodes[i].id == id)
            return (int)i;
    return -1;
}

int gq__books_load_pod(struct gq_books *b, const struct gq_pod *p, const char *podset,
                       const char *flavor, int64_t node_id)
{
    int k = gq__books_add_pod(b, p->workload, podset, p->idx, flavor, p->pool, p->gpus,
                              p->created_ms);
    struct gq_pod *q;

    if (k < 0)
        return -1;
    q = &b->pods[k];
    q->id = p->id;
    q->started_ms = p->started_ms;
    q->node = node_index(b, node_id);
    q->dirty = false;
    if (q->node >= 0 && q->pool < 0) /* its readiness is its node's pool's (podStartupTime) */
        q->pool = b->nodes[q->node].pool;
    if (q->node >= 0) {
        b->nodes[q->node].used += q->gpus;
        b->nodes[q->node].idle_since = 0;
    }
    return 0;
}

int gq__books_add_pod(struct gq_books *b, int64_t workload, const char *podset, int32_t idx,
                      const char *flavor, int pool, int32_t gpus, int64_t now)
{
    struct gq_pod *p;

    if (gq__grow(&b->pods, &b->cappods, b->npods, sizeof(*b->pods)) < 0)
        return -1;
    p = &b->pods[b->npods];
    memset(p, 0, sizeof(*p));
    p->podset = gq__strdup(podset ? podset : "main");
    p->flavor = flavor ? gq__strdup(flavor) : NULL;
    if (!p->podset || (flavor && !p->flavor)) {
        free(p->podset);
        free(p->flavor);
        return -1;
    }
    p->workload = workload;
    p->idx = idx;
    p->pool = pool;
    p->gpus = gpus;
    p->node = -1;
    p->created_ms = now;
    p->dirty = true;
    return (int)b->npods++;
}

/* A node loses a pod's GPUs; empty, it starts counting towards scale-down. */
static void unplace(struct gq_books *b, struct gq_pod *p, int64_t now)
{
    struct gq_node *n;

    if (p->node < 0)
        return;
    n = &b->nodes[p->node];
    n->used -= p->gpus;
    if (n->used <= 0) {
        n->used = 0;
        n->idle_since = now;
    }
}

void gq__books_end(struct gq_books *b, int64_t workload, int64_t now)
{
    size_t i;

    for (i = 0; i < b->npods; i++) {
        struct gq_pod *p = &b->pods[i];

        if (p->workload != workload || p->ended_ms)
            continue;
        unplace(b, p, now);
        p->ended_ms = now; /* one that never started keeps started_ms 0 */
        p->dirty = true;
    }
}

bool gq__books_has(const struct gq_books *b, int64_t workload)
{
    size_t i;

    for (i = 0; i < b->npods; i++)
        if (b->pods[i].workload == workload && !b->pods[i].ended_ms)
            return true;
    return false;
}

bool gq__books_running(const struct gq_books *b, int64_t workload)
{
    size_t i;

    for (i = 0; i < b->npods; i++)
        if (b->pods[i].workload == workload && !b->pods[i].ended_ms && !b->pods[i].started_ms)
            return false;
    return true;
}

/* splitmix64's finaliser: a well-mixed 64-bit value of x. */
static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

int64_t gq__books_pod_ready_ms(const struct gq_books *b, const struct gq_pod *p)
{
    const struct gq_sim_pool *sp = p->pool >= 0 ? &b->pools[p->pool] : NULL;
    uint64_t h;
    const char *c;

    if (!p->started_ms || !sp)
        return p->started_ms;
    if (sp->stuck_percent > 0) {
        h = mix(b->seed ^ mix((uint64_t)p->workload) ^ mix((uint64_t)p->created_ms << 1));
        for (c = p->podset ? p->podset : ""; *c; c++)
            h = mix(h ^ (unsigned char)*c);
        if (mix(h ^ (uint64_t)p->idx) % 100 < (uint64_t)sp->stuck_percent)
            return 0;
    }
    return p->started_ms + sp->pod_startup_ms;
}

bool gq__books_ready(const struct gq_books *b, int64_t workload, int64_t now)
{
    size_t i;

    for (i = 0; i < b->npods; i++) {
        const struct gq_pod *p = &b->pods[i];
        int64_t ready;

        if (p->workload != workload || p->ended_ms)
            continue;
        if (!(ready = gq__books_pod_ready_ms(b, p)) || ready > now)
            return false;
    }
    return true;
}

/* Remove a live node: its pods (if any) carry on on no node. */
static void remove_node(struct gq_books *b, int k, int64_t now)
{
    size_t i;

    for (i = 0; i < b->npods; i++)
        if (b->pods[i].node == k) {
            b->pods[i].node = -1;
            b->pods[i].dirty = true;
        }
    b->nodes[k].used = 0;
    b->nodes[k].down_ms = now;
    b->nodes[k].dirty = true;
}

int gq__books_follow(struct gq_books *b, int pool, int32_t count, int64_t now)
{
    int32_t k = live_nodes(b, pool);
    size_t i;

    for (; k < count; k++)
        if (add_node(b, pool, now, now) < 0)
            return -1;
    /* Fewer: the empty ones go first, newest first; then the others. */
    for (i = b->nnodes; k > count && i-- > 0;)
        if (b->nodes[i].pool == pool && live(&b->nodes[i]) && b->nodes[i].used == 0) {
            remove_node(b, (int)i, now);
            k--;
        }
    for (i = b->nnodes; k > count && i-- > 0;)
        if (b->nodes[i].pool == pool && live(&b->nodes[i])) {
            remove_node(b, (int)i, now);
            k--;
        }
    return 0;
}

/* MostAllocated: the up node of the pool with the least room that still fits; -1. */
static int fullest_fit(const struct gq_books *b, int pool, int32_t gpus, int64_t now)
{
    int best = -1;
    size_t i;

    for (i = 0; i < b->nnodes; i++) {
        const struct gq_node *n = &b->nodes[i];

        if (n->pool != pool || !up(n, now) || n->gpus - n->used < gpus)
            continue;
        if (best < 0 || n->gpus - n->used < b->nodes[best].gpus - b->nodes[best].used)
            best = (int)i;
    }
    return best;
}

static size_t place(struct gq_books *b, int64_t now)
{
    size_t i, changed = 0;

    for (i = 0; i < b->npods; i++) {
        struct gq_pod *p = &b->pods[i];
        int k;

        if (p->started_ms || p->ended_ms)
            continue;
        k = p->gpus > 0 && p->pool >= 0 ? fullest_fit(b, p->pool, p->gpus, now) : -1;
        /* Autoscaled GPU pods wait for room; the others start where they can. */
        if (k < 0 && p->gpus > 0 && p->pool >= 0 && b->pools[p->pool].autoscaling)
            continue;
        if (k >= 0) {
            b->nodes[k].used += p->gpus;
            b->nodes[k].idle_since = 0;
        }
        p->node = k;
        p->started_ms = now;
        p->dirty = true;
        changed++;
    }
    return changed;
}

/* Nodes to add to pool so that its pending pods fit beside what already boots. */
static int32_t shortfall(const struct gq_books *b, int pool, int64_t now)
{
    const struct gq_sim_pool *sp = &b->pools[pool];
    int64_t need = 0, booting = 0;
    int32_t per = sp->gpus_per_node;
    size_t i;

    if (per <= 0)
        return 0;
    for (i = 0; i < b->npods; i++) {
        const struct gq_pod *p = &b->pods[i];

        if (p->pool == pool && !p->started_ms && !p->ended_ms && p->gpus > 0 && p->gpus <= per)
            need += p->gpus;
    }
    for (i = 0; i < b->nnodes; i++)
        if (b->nodes[i].pool == pool && live(&b->nodes[i]) && b->nodes[i].up_ms > now)
            booting += b->nodes[i].gpus;
    return need > booting ? (int32_t)((need - booting + per - 1) / per) : 0;
}

static size_t autoscale(struct gq_books *b, int pool, int64_t now)
{
    const struct gq_sim_pool *sp = &b->pools[pool];
    int32_t k = live_nodes(b, pool), add = shortfall(b, pool, now);
    size_t i, changed = 0;

    if (sp->stockout)
        add = 0;
    if (add > sp->max_nodes - k)
        add = sp->max_nodes - k;
    for (; add > 0; add--, k++, changed++)
        if (add_node(b, pool, now, now + sp->provision_ms) < 0)
            return changed;
    for (i = 0; i < b->nnodes && k > sp->min_nodes; i++) {
        struct gq_node *n = &b->nodes[i];

        if (n->pool == pool && up(n, now) && n->used == 0 && n->idle_since &&
            now - n->idle_since >= sp->scale_down_ms) {
            remove_node(b, (int)i, now);
            k--;
            changed++;
        }
    }
    return changed;
}

size_t gq__books_advance(struct gq_books *b, int64_t now)
{
    size_t p, changed = place(b, now);

    for (p = 0; p < b->npools; p++)
        if (b->pools[p].autoscaling)
            changed += autoscale(b, (int)p, now);
    return changed + place(b, now);
}

static void soonest(int64_t *best, int64_t t, int64_t now)
{
    if (t > now && (!*best || t < *best))
        *best = t;
}

int64_t gq__books_next(const struct gq_books *b, int64_t now)
{
    int64_t best = 0;
    size_t i, p;

    for (p = 0; p < b->npools; p++) {
        const struct gq_sim_pool *sp = &b->pools[p];
        bool above_min = live_nodes(b, (int)p) > sp->min_nodes;

        for (i = 0; i < b->nnodes; i++) {
            const struct gq_node *n = &b->nodes[i];

            if (n->pool != (int)p || !live(n))
                continue;
            soonest(&best, n->up_ms, now);
            if (sp->autoscaling && n->used == 0 && n->idle_since && above_min)
                soonest(&best, n->idle_since + sp->scale_down_ms, now);
        }
    }
    for (i = 0; i < b->npods; i++) /* a pod getting ready */
        if (!b->pods[i].ended_ms && b->pods[i].started_ms)
            soonest(&best, gq__books_pod_ready_ms(b, &b->pods[i]), now);
    return best;
}

/* Removed nodes that were written are history: gone from memory, pods renumbered. */
static void compact_nodes(struct gq_books *b)
{
    size_t i, j = 0;
    int *to = malloc((b->nnodes + 1) * sizeof(*to));

    if (!to)
        return; /* keep them: correct, only slower */
    for (i = 0; i < b->nnodes; i++)
        to[i] = 0;
    for (i = 0; i < b->npods; i++) /* a pod still held (unwritten) keeps its node */
        if (b->pods[i].node >= 0)
            to[b->pods[i].node] = 1;
    for (i = 0; i < b->nnodes; i++) {
        bool keep = to[i] || !b->nodes[i].down_ms || b->nodes[i].dirty;

        to[i] = -1;
        if (!keep)
            continue;
        to[i] = (int)j;
        b->nodes[j++] = b->nodes[i];
    }
    for (i = 0; i < b->npods; i++)
        if (b->pods[i].node >= 0)
            b->pods[i].node = to[b->pods[i].node];
    b->nnodes = j;
    free(to);
}

void gq__books_compact(struct gq_books *b)
{
    size_t i, j = 0;

    for (i = 0; i < b->npods; i++) {
        struct gq_pod *p = &b->pods[i];

        if (p->ended_ms && !p->dirty) {
            free(p->podset);
            free(p->flavor);
            continue;
        }
        b->pods[j++] = *p;
    }
    b->npods = j;
    compact_nodes(b);
}
