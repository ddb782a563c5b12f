/*
 * test_sim.c: the simulated cluster's provisioning against GKE's
 * queued-provisioning behaviour (kueue-semantics.md §4.3, §4.4): all or
 * nothing per request, in creation order, the booking window, the maximum
 * run duration, stockouts, and determinism for a seed.
 */
#include <string.h>

#include "sim.h"
#include "test.h"

#pragma GCC diagnostic ignored "-Wdiscarded-qualifiers"

#define MIN (60 * 1000)

static struct gq_kv a100_labels[] = {{"cloud.google.com/gke-nodepool", "a100"}};
static struct gq_kv h100_labels[] = {{"cloud.google.com/gke-nodepool", "h100"}};
static struct gq_kv sel_a100[] = {{"cloud.google.com/gke-nodepool", "a100"}};
static struct gq_kv sel_h100[] = {{"cloud.google.com/gke-nodepool", "h100"}};
static struct gq_kv sel_t4[] = {{"cloud.google.com/gke-nodepool", "t4"}};

static void setup(struct gq_sim *s, uint64_t seed)
{
    struct gq_sim_pool pools[] = {
        {"a100", {a100_labels, 1}, 8, 0, 2, 5 * MIN, 10 * MIN, false, 0},
        {"h100", {h100_labels, 1}, 8, 0, 4, 5 * MIN, 10 * MIN, true, 30 * MIN}, /* never has capacity */
    };

    CHECK(gq__sim_init(s, pools, 2, seed) == 0);
}

static void all_or_nothing(void)
{
    struct gq_kvs a100 = {sel_a100, 1};
    struct gq_sim s;
    int r1, r2, r3;

    setup(&s, 1);
    r1 = gq__sim_request(&s, "r1", &a100, 16, 0, 0);  /* 2 nodes: the whole pool */
    r2 = gq__sim_request(&s, "r2", &a100, 8, 0, 0);   /* 1 node: must wait for r1's */
    gq__sim_advance(&s, 0);
    CHECK(s.reqs[r1].state == GQ_SIM_ACCEPTED && s.reqs[r1].nodes == 2 && s.used[0] == 2);
    CHECK(s.reqs[r2].state == GQ_SIM_ACCEPTED && !s.reqs[r2].ready_ms);
    gq__sim_advance(&s, 8 * MIN); /* past the longest delay (3/2 x 5 min) */
    CHECK(s.reqs[r1].state == GQ_SIM_PROVISIONED);
    CHECK(s.reqs[r2].state == GQ_SIM_ACCEPTED && !s.reqs[r2].ready_ms);
    gq__sim_consume(&s, r1);
    gq__sim_delete(&s, r1); /* the job finished: the nodes go back */
    CHECK(s.used[0] == 0);
    gq__sim_advance(&s, 9 * MIN);
    CHECK(s.reqs[r2].ready_ms && s.used[0] == 1);
    r3 = gq__sim_request(&s, "r3", &a100, 24, 0, 9 * MIN); /* 3 nodes > max 2: waits forever */
    gq__sim_advance(&s, 100 * MIN);
    CHECK(s.reqs[r3].state == GQ_SIM_ACCEPTED && !s.reqs[r3].ready_ms);
    gq__sim_free(&s);
}

static void booking_and_revocation(void)
{
    struct gq_kvs a100 = {sel_a100, 1};
    struct gq_sim s;
    int unused, used;
    int64_t t;

    setup(&s, 2);
    unused = gq__sim_request(&s, "unused", &a100, 8, 0, 0);
    used = gq__sim_request(&s, "used", &a100, 8, 20 * MIN, 0);
    gq__sim_advance(&s, 0);
    gq__sim_advance(&s, 8 * MIN);
    CHECK(s.reqs[unused].state == GQ_SIM_PROVISIONED && s.reqs[used].state == GQ_SIM_PROVISIONED);
    gq__sim_consume(&s, used);
    t = s.reqs[unused].provisioned_ms;
    gq__sim_advance(&s, t + GQ_SIM_BOOKING_MS - 1);
    CHECK(s.reqs[unused].state == GQ_SIM_PROVISIONED);
    gq__sim_advance(&s, t + GQ_SIM_BOOKING_MS);
    CHECK(s.reqs[unused].state == GQ_SIM_BOOKING_EXPIRED && s.used[0] == 1);
    CHECK(s.reqs[used].state == GQ_SIM_PROVISIONED); /* consumed: the booking holds */
    gq__sim_advance(&s, s.reqs[used].provisioned_ms + 20 * MIN);
    CHECK(s.reqs[used].state == GQ_SIM_REVOKED && s.used[0] == 0);
    CHECK(strstr(s.reqs[used].message, "1200 s") != NULL);
    gq__sim_free(&s);
}

static void stockouts(void)
{
    struct gq_kvs h100 = {sel_h100, 1}, t4 = {sel_t4, 1};
    struct gq_sim s;
    int r, none;

    setup(&s, 3);
    r = gq__sim_request(&s, "h", &h100, 8, 0, 0);
    none = gq__sim_request(&s, "t4", &t4, 1, 0, 0);
    CHECK(s.reqs[none].state == GQ_SIM_FAILED); /* no pool has these nodes */
    gq__sim_advance(&s, 29 * MIN);
    CHECK(s.reqs[r].state == GQ_SIM_ACCEPTED);
    CHECK(gq__sim_advance(&s, 30 * MIN) == 1);
    CHECK(s.reqs[r].state == GQ_SIM_FAILED && strstr(s.reqs[r].message, "h100"));
    gq__sim_free(&s);
}

static void determinism(void)
{
    struct gq_kvs a100 = {sel_a100, 1};
    struct gq_sim a, b;

    setup(&a, 42);
    setup(&b, 42);
    gq__sim_request(&a, "x", &a100, 8, 0, 0);
    gq__sim_request(&b, "x", &a100, 8, 0, 0);
    gq__sim_advance(&a, 0);
    gq__sim_advance(&b, 0);
    CHECK(a.reqs[0].ready_ms == b.reqs[0].ready_ms);
    CHECK(a.reqs[0].ready_ms >= 5 * MIN / 2 && a.reqs[0].ready_ms < 15 * MIN / 2);
    gq__sim_free(&a);
    gq__sim_free(&b);
}

int main(void)
{
    TEST_RUN(all_or_nothing);
    TEST_RUN(booking_and_revocation);
    TEST_RUN(stockouts);
    TEST_RUN(determinism);
    return TEST_DONE();
}
