/*
 * quota.c: the resource tree (see quota.h). Each function follows the
 * function of the same meaning in Kueue's resource_node.go; the comments say
 * which.
 */
#include "quota.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int64_t gq__sat_add(int64_t a, int64_t b)
{
    int64_t r;

    if (__builtin_add_overflow(a, b, &r))
        return a > 0 ? INT64_MAX : INT64_MIN;
    return r;
}

int64_t gq__sat_sub(int64_t a, int64_t b)
{
    int64_t r;

    if (__builtin_sub_overflow(a, b, &r))
        return a >= 0 ? INT64_MAX : INT64_MIN;
    return r;
}

int64_t gq__sat_mul(int64_t a, int64_t b)
{
    int64_t r;

    if (__builtin_mul_overflow(a, b, &r))
        return (a < 0) != (b < 0) ? INT64_MIN : INT64_MAX;
    return r;
}

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

static int64_t min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

int gq__qtree_init(struct gq_qtree *t, size_t nnodes, size_t nfr)
{
    size_t cells = nnodes * nfr, i;

    memset(t, 0, sizeof(*t));
    t->nnodes = nnodes;
    t->nfr = nfr;
    t->parent = malloc((nnodes ? nnodes : 1) * sizeof(int));
    t->depth = calloc(nnodes ? nnodes : 1, sizeof(int));
    t->cycle = calloc(nnodes ? nnodes : 1, sizeof(bool));
    t->nominal = calloc(cells ? cells : 1, sizeof(int64_t));
    t->blimit = malloc((cells ? cells : 1) * sizeof(int64_t));
    t->llimit = malloc((cells ? cells : 1) * sizeof(int64_t));
    t->subtree = calloc(cells ? cells : 1, sizeof(int64_t));
    t->usage = calloc(cells ? cells : 1, sizeof(int64_t));
    t->defined = calloc(cells ? cells : 1, sizeof(bool));
    if (!t->parent || !t->depth || !t->cycle || !t->nominal || !t->blimit || !t->llimit ||
        !t->subtree || !t->usage || !t->defined) {
        gq__qtree_free(t);
        return -1;
    }
    for (i = 0; i < nnodes; i++)
        t->parent[i] = -1;
    for (i = 0; i < cells; i++)
        t->blimit[i] = t->llimit[i] = GQ_NO_LIMIT;
    return 0;
}

void gq__qtree_free(struct gq_qtree *t)
{
    free(t->parent);
    free(t->depth);
    free(t->cycle);
    free(t->nominal);
    free(t->blimit);
    free(t->llimit);
    free(t->subtree);
    free(t->usage);
    free(t->defined);
    memset(t, 0, sizeof(*t));
}

void gq__qtree_set_parent(struct gq_qtree *t, int node, int parent)
{
    t->parent[node] = parent;
}

/* Depth of node, or -1 when its parent chain loops. */
static int chain_depth(const struct gq_qtree *t, int node)
{
    int d = 0, n = node;

    while (t->parent[n] >= 0) {
        n = t->parent[n];
        if (++d > (int)t->nnodes)
            return -1;
    }
    return d;
}

/* Cut every node whose chain loops off the tree, as Kueue disables such a tree. */
static int mark_cycles(struct gq_qtree *t)
{
    int maxd = 0, d;
    size_t i;

    for (i = 0; i < t->nnodes; i++)
        t->depth[i] = chain_depth(t, (int)i);
    for (i = 0; i < t->nnodes; i++)
        if (t->depth[i] < 0)
            t->cycle[i] = true;
    for (i = 0; i < t->nnodes; i++) {
        if (t->cycle[i]) {
            t->parent[i] = -1;
            t->depth[i] = 0;
        }
    }
    for (i = 0; i < t->nnodes; i++) {
        d = chain_depth(t, (int)i);
        t->depth[i] = d;
        maxd = d > maxd ? d : maxd;
    }
    return maxd;
}

void gq__qtree_finish(struct gq_qtree *t)
{
    int maxd = mark_cycles(t), d;
    size_t i, fr;

    for (i = 0; i < t->nnodes * t->nfr; i++)
        t->subtree[i] = t->nominal[i];
    /* Deepest first, so that every child is complete before its parent adds it. */
    for (d = maxd; d > 0; d--) {
        for (i = 0; i < t->nnodes; i++) {
            int p = t->parent[i];

            if (t->depth[i] != d || p < 0)
                continue;
            for (fr = 0; fr < t->nfr; fr++) {
                int64_t share = gq__sat_sub(GQ_Q(t, subtree, i, fr),
                                            gq__qtree_guaranteed(t, (int)i, fr));
                GQ_Q(t, subtree, p, fr) = gq__sat_add(GQ_Q(t, subtree, p, fr), share);
            }
        }
    }
}

/* guaranteedQuota: the part of the subtree quota never lent to the parent. */
int64_t gq__qtree_guaranteed(const struct gq_qtree *t, int node, size_t fr)
{
    int64_t ll = GQ_Q(t, llimit, node, fr);

    if (ll == GQ_NO_LIMIT)
        return 0;
    return max64(0, gq__sat_sub(GQ_Q(t, subtree, node, fr), ll));
}

/* available(): local room plus what the parent can give, capped by the borrowing limit. */
int64_t gq__qtree_available(const struct gq_qtree *t, int node, size_t fr)
{
    int p = t->parent[node];
    int64_t sub = GQ_Q(t, subtree, node, fr), use = GQ_Q(t, usage, node, fr);
    int64_t g, local, from_parent, bl;

    if (p < 0)
        return gq__sat_sub(sub, use);
    g = gq__qtree_guaranteed(t, node, fr);
    local = max64(0, gq__sat_sub(g, use));
    from_parent = gq__qtree_available(t, p, fr);
    bl = GQ_Q(t, blimit, node, fr);
    if (bl != GQ_NO_LIMIT) {
        int64_t stored = gq__sat_sub(sub, g);
        int64_t used = max64(0, gq__sat_sub(use, g));

        from_parent = min64(gq__sat_add(gq__sat_sub(stored, used), bl), from_parent);
    }
    return gq__sat_add(local, from_parent);
}

/* potentialAvailable(): the same, ignoring every usage. */
int64_t gq__qtree_potential(const struct gq_qtree *t, int node, size_t fr)
{
    int p = t->parent[node];
    int64_t v, bl;

    if (p < 0)
        return GQ_Q(t, subtree, node, fr);
    v = gq__sat_add(gq__qtree_guaranteed(t, node, fr), gq__qtree_potential(t, p, fr));
    bl = GQ_Q(t, blimit, node, fr);
    if (bl != GQ_NO_LIMIT)
        v = min64(v, gq__sat_add(GQ_Q(t, subtree, node, fr), bl));
    return v;
}

bool gq__qtree_borrowing_with(const struct gq_qtree *t, int node, size_t fr, int64_t val)
{
    int64_t sum;

    /* Exact: a sum past int64 exceeds any quota, even one saturated at INT64_MAX. */
    if (__builtin_add_overflow(GQ_Q(t, usage, node, fr), val, &sum))
        return val > 0;
    return sum > GQ_Q(t, subtree, node, fr);
}

/* addUsage(): what exceeds the node's guaranteed room is also the parent's usage. */
void gq__qtree_add(struct gq_qtree *t, int node, size_t fr, int64_t val)
{
    while (node >= 0) {
        int64_t local = max64(0, gq__sat_sub(gq__qtree_guaranteed(t, node, fr),
                                             GQ_Q(t, usage, node, fr)));

        GQ_Q(t, usage, node, fr) = gq__sat_add(GQ_Q(t, usage, node, fr), val);
        if (t->parent[node] < 0 || val <= local)
            return;
        val = gq__sat_sub(val, local);
        node = t->parent[node];
    }
}

/* removeUsage(): the parent gives back at most what was stored in it. */
void gq__qtree_remove(struct gq_qtree *t, int node, size_t fr, int64_t val)
{
    while (node >= 0) {
        int64_t stored = gq__sat_sub(GQ_Q(t, usage, node, fr),
                                     gq__qtree_guaranteed(t, node, fr));

        GQ_Q(t, usage, node, fr) = gq__sat_sub(GQ_Q(t, usage, node, fr), val);
        if (stored <= 0 || t->parent[node] < 0)
            return;
        val = min64(val, stored);
        node = t->parent[node];
    }
}

/* LocalAvailable() in the sense FindHeightOfLowestSubtreeThatFits uses it. */
static int64_t local_room(const struct gq_qtree *t, int node, size_t fr)
{
    return max64(0, gq__sat_sub(GQ_Q(t, subtree, node, fr), GQ_Q(t, usage, node, fr)));
}

int gq__qtree_fit_height(const struct gq_qtree *t, const int *heights, int node, size_t fr,
                         int64_t val, bool *may_reclaim)
{
    int n = t->parent[node];
    int64_t remaining;

    if (n < 0 || !gq__qtree_borrowing_with(t, node, fr, val)) {
        *may_reclaim = n >= 0;
        return 0;
    }
    remaining = gq__sat_sub(val, local_room(t, node, fr));
    for (;;) {
        if (!gq__qtree_borrowing_with(t, n, fr, remaining) || t->parent[n] < 0) {
            *may_reclaim = t->parent[n] >= 0;
            return heights[n];
        }
        remaining = gq__sat_sub(remaining, local_room(t, n, fr));
        n = t->parent[n];
    }
}

size_t gq__amount_format(char *buf, size_t size, const char *resource, int64_t v)
{
    gq_quantity q = {v, strcmp(resource, "cpu") == 0 ? -3 : 0, GQ_QTY_DECIMAL_SI};

    if (strcmp(resource, "memory") == 0 || strcmp(resource, "ephemeral-storage") == 0 ||
        strncmp(resource, "hugepages-", 10) == 0)
        q.format = GQ_QTY_BINARY_SI;
    while (q.mantissa != 0 && q.mantissa % 10 == 0) {
        q.mantissa /= 10;
        q.scale++;
    }
    return gq_quantity_format(buf, size, &q);
}

bool gq__gpu_resource(const char *name)
{
    size_t n = strlen(name);

    return (n >= 4 && strcmp(name + n - 4, "/gpu") == 0) ||
           strncmp(name, "nvidia.com/mig-", 15) == 0 || strcmp(name, "nvidia.com/gpu.shared") == 0;
}
