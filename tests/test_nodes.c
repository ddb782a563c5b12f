/*
 * test_nodes.c: the simulated cluster's books (nodes.h), rule by rule:
 * MostAllocated packing (the fullest node that fits), a plain autoscaling
 * pool (pending pods scale it up after provisioningTime, up to maxNodes;
 * idle nodes go after scaleDownAfter, down to minNodes), a queued pool's
 * nodes following the count sim.c holds, and pods with no GPUs or no pool.
 */
#include <string.h>

#include "nodes.h"
#include "test.h"

#pragma GCC diagnostic ignored "-Wdiscarded-qualifiers"

#define MIN (60 * 1000)
#define T0 1767600000000LL /* times are ms since the epoch: 0 means "not yet" in the books */

static struct gq_kv t4_labels[] = {{"cloud.google.com/gke-nodepool", "gpu-pool"}};

/* Story 1's pool: 2 GPUs a node, 1..3 nodes, 5 minutes up, 10 minutes idle. */
static const struct gq_sim_pool pools[] = {
    {"gpu-pool", {t4_labels, 1}, 2, 1, 3, 5 * MIN, 10 * MIN, false, 0, true, 0, 0},
    {"dws-pool", {t4_labels, 1}, 4, 0, 4, 5 * MIN, 10 * MIN, false, 0, false, 0, 0},
};

/* waitForPodsReady's pools: pods ready 30 s after they start; half of them, or all, stuck. */
static const struct gq_sim_pool slow_pools[] = {
    {"slow", {t4_labels, 1}, 8, 1, 1, 5 * MIN, 10 * MIN, false, 0, true, 30 * 1000, 0},
    {"half", {t4_labels, 1}, 8, 1, 1, 5 * MIN, 10 * MIN, false, 0, true, 0, 50},
    {"stuck", {t4_labels, 1}, 8, 1, 1, 5 * MIN, 10 * MIN, false, 0, true, 0, 100},
};

static int32_t live(const struct gq_books *b, int pool)
{
    int32_t k = 0;
    size_t i;

    for (i = 0; i < b->nnodes; i++)
        k += b->nodes[i].pool == pool && !b->nodes[i].down_ms;
    return k;
}

static void setup(struct gq_books *b)
{
    const char *flavors[] = {"t4", NULL};

    CHECK(gq__books_init(b, pools, 2, flavors) == 0);
    CHECK(gq__books_start(b, T0) == 0);
    CHECK(live(b, 0) == 1); /* minNodes up from the start */
    CHECK(live(b, 1) == 0); /* a queued pool has what its requests hold */
}

/* Two one-GPU pods share a node; the third goes to a fuller one first. */
static void most_allocated(void)
{
    struct gq_books b;
    int p1, p2, p3;

    setup(&b);
    CHECK(gq__books_follow(&b, 0, 1, T0) == 0); /* no change: already 1 */
    p1 = gq__books_add_pod(&b, 1, "workers", 0, "t4", 0, 1, T0);
    gq__books_advance(&b, T0);
    CHECK(b.pods[p1].node == 0);
    /* Bring a second node up (pending pods ask for it), then place by fullness. */
    p2 = gq__books_add_pod(&b, 2, "workers", 0, "t4", 0, 2, T0);
    gq__books_advance(&b, T0);
    CHECK(b.pods[p2].node == -1 && b.pods[p2].started_ms == 0); /* 1 free GPU: no fit */
    CHECK(live(&b, 0) == 2);                                    /* scaled up, booting */
    CHECK(gq__books_next(&b, T0) == T0 + 5 * MIN);
    gq__books_advance(&b, T0 + 5 * MIN);
    CHECK(b.pods[p2].node == 1 && b.pods[p2].started_ms == T0 + 5 * MIN);
    /* Node 0 has 1 GPU free, node 1 none: a new one-GPU pod fills node 0. */
    gq__books_end(&b, 2, T0 + 6 * MIN); /* node 1 empties */
    p3 = gq__books_add_pod(&b, 3, "workers", 0, "t4", 0, 1, T0 + 6 * MIN);
    gq__books_advance(&b, T0 + 6 * MIN);
    CHECK(b.pods[p3].node == 0); /* the fullest node that fits, not the empty one */
    CHECK(gq__books_running(&b, 3));
    gq__books_free(&b);
}

/* Idle nodes go after scaleDownAfter, never below minNodes; maxNodes caps scale-up. */
static void scale_down_and_cap(void)
{
    struct gq_books b;
    int i;

    setup(&b);
    for (i = 0; i < 10; i++) /* 10 GPUs wanted, the pool has at most 3 x 2 */
        gq__books_add_pod(&b, 1, "workers", i, "t4", 0, 1, T0);
    gq__books_advance(&b, T0);
    CHECK(live(&b, 0) == 3);
    gq__books_advance(&b, T0 + 5 * MIN);
    CHECK(!gq__books_running(&b, 1)); /* 6 placed, 4 pending for good */
    gq__books_end(&b, 1, T0 + 6 * MIN);
    CHECK(gq__books_next(&b, T0 + 6 * MIN) == T0 + 16 * MIN);
    gq__books_advance(&b, T0 + 16 * MIN - 1);
    CHECK(live(&b, 0) == 3);
    gq__books_advance(&b, T0 + 16 * MIN);
    CHECK(live(&b, 0) == 1); /* down to minNodes */
    CHECK(gq__books_next(&b, T0 + 16 * MIN) == 0);
    gq__books_free(&b);
}

/* A queued pool's nodes follow sim.c's count; the empty ones leave first. */
static void queued_follows(void)
{
    struct gq_books b;
    int p;

    setup(&b);
    CHECK(gq__books_follow(&b, 1, 2, T0) == 0);
    CHECK(live(&b, 1) == 2);
    p = gq__books_add_pod(&b, 7, "main", 0, "t4", 1, 4, T0);
    gq__books_advance(&b, T0);
    CHECK(b.pods[p].node >= 0); /* started at 0, on a node that is up */
    CHECK(gq__books_follow(&b, 1, 1, T0 + MIN) == 0);
    CHECK(live(&b, 1) == 1);
    CHECK(b.pods[p].node >= 0 && !b.nodes[b.pods[p].node].down_ms); /* its node stayed */
    gq__books_free(&b);
}

/* No GPUs, or no pool: the pod starts at once, on no recorded node. */
static void no_gpu_no_pool(void)
{
    struct gq_books b;
    int a, c;

    setup(&b);
    a = gq__books_add_pod(&b, 9, "scheduler", 0, NULL, 0, 0, T0 + 3);
    c = gq__books_add_pod(&b, 9, "main", 0, NULL, -1, 1, T0 + 3);
    gq__books_advance(&b, T0 + 3);
    CHECK(b.pods[a].started_ms == T0 + 3 && b.pods[a].node == -1);
    CHECK(b.pods[c].started_ms == T0 + 3 && b.pods[c].node == -1);
    CHECK(gq__books_running(&b, 9));
    gq__books_end(&b, 9, T0 + 10);
    CHECK(b.pods[a].ended_ms == T0 + 10 && b.pods[c].ended_ms == T0 + 10);
    gq__books_compact(&b); /* still dirty: kept until written */
    CHECK(b.npods == 2);
    b.pods[0].dirty = b.pods[1].dirty = false;
    gq__books_compact(&b);
    CHECK(b.npods == 0);
    gq__books_free(&b);
}

/* A pod is ready its pool's podStartupTime after it starts; stuck pods never, by the seed. */
static void pods_ready(void)
{
    struct gq_books b, again;
    int p, q, n = 0, same = 0, i;

    CHECK(gq__books_init(&b, slow_pools, 3, NULL) == 0);
    b.seed = 7;
    CHECK(gq__books_start(&b, T0) == 0);
    p = gq__books_add_pod(&b, 1, "main", 0, NULL, 0, 1, T0);
    q = gq__books_add_pod(&b, 2, "main", 0, NULL, 2, 1, T0);
    gq__books_advance(&b, T0);
    CHECK(b.pods[p].started_ms == T0 && b.pods[q].started_ms == T0);
    CHECK(gq__books_pod_ready_ms(&b, &b.pods[p]) == T0 + 30 * 1000);
    CHECK(!gq__books_ready(&b, 1, T0) && gq__books_ready(&b, 1, T0 + 30 * 1000));
    CHECK(gq__books_next(&b, T0) == T0 + 30 * 1000); /* the clock stops there */
    CHECK(gq__books_pod_ready_ms(&b, &b.pods[q]) == 0 && !gq__books_ready(&b, 2, T0 + 60 * MIN));
    /* Half stuck: about half of 200 pods, the same ones for the same seed. */
    CHECK(gq__books_init(&again, slow_pools, 3, NULL) == 0);
    again.seed = 7;
    for (i = 0; i < 200; i++) {
        int a = gq__books_add_pod(&b, 10 + i, "w", i, NULL, 1, 0, T0);
        int c = gq__books_add_pod(&again, 10 + i, "w", i, NULL, 1, 0, T0);

        b.pods[a].started_ms = again.pods[c].started_ms = T0;
        n += gq__books_pod_ready_ms(&b, &b.pods[a]) == 0;
        same += gq__books_pod_ready_ms(&b, &b.pods[a]) == gq__books_pod_ready_ms(&again, &again.pods[c]);
    }
    CHECK(n > 60 && n < 140);
    CHECK(same == 200);
    gq__books_free(&again);
    gq__books_free(&b);
}

int main(void)
{
    TEST_RUN(pods_ready);
    TEST_RUN(most_allocated);
    TEST_RUN(scale_down_and_cap);
    TEST_RUN(queued_follows);
    TEST_RUN(no_gpu_no_pool);
    return TEST_DONE();
}
