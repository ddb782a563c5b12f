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
        {"a100", {a100_labels, 1}, 8, 0, 2, 5 * MIN, 10 * MIN, false, 0, false, 0, 0},
        {"h100", {h100_labels, 1}, 8, 0, 4, 5 * MIN, 10 * MIN, true, 30 * MIN, false, 0, 0}, /* never has capacity */
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
    gq__sim_delete(&s, r1, 8 * MIN); /* the job finished: the nodes go back */
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

/* The runner jumps its clock to the next moment something is due. */
static void next_event(void)
{
    struct gq_kvs a100 = {sel_a100, 1}, h100 = {sel_h100, 1};
    struct gq_sim s;
    int r, h;

    setup(&s, 5);
    CHECK(gq__sim_next(&s, 0) == 0); /* nothing asked, nothing due */
    r = gq__sim_request(&s, "r", &a100, 8, 40 * MIN, 0);
    h = gq__sim_request(&s, "h", &h100, 8, 0, 0);
    gq__sim_advance(&s, 0);
    CHECK(gq__sim_next(&s, 0) == s.reqs[r].ready_ms); /* before h's failure at 30 min */
    gq__sim_advance(&s, s.reqs[r].ready_ms);
    CHECK(s.reqs[r].state == GQ_SIM_PROVISIONED);
    CHECK(gq__sim_next(&s, s.reqs[r].ready_ms) == s.reqs[r].provisioned_ms + GQ_SIM_BOOKING_MS);
    gq__sim_consume(&s, r);
    CHECK(gq__sim_next(&s, s.reqs[r].ready_ms) == 30 * MIN); /* h fails before r is revoked */
    gq__sim_advance(&s, 30 * MIN);
    CHECK(s.reqs[h].state == GQ_SIM_FAILED && s.reqs[h].ended_ms == 30 * MIN);
    CHECK(gq__sim_next(&s, 30 * MIN) == s.reqs[r].provisioned_ms + 40 * MIN);
    gq__sim_free(&s);
}

/* A restarted runner carries on from the records: same holdings, same futures. */
static void record_and_restore(void)
{
    struct gq_kvs a100 = {sel_a100, 1};
    struct gq_sim a, b;
    char rec[GQ_SIM_RECORD_SIZE];
    int r, back;

    setup(&a, 9);
    setup(&b, 9);
    r = gq__sim_request(&a, "r", &a100, 16, 0, 0);
    gq__sim_advance(&a, 0);
    gq__sim_record(&a, r, rec);
    back = gq__sim_restore(&b, "r", rec);
    CHECK(back == 0 && b.used[0] == 2 && b.reqs[back].ready_ms == a.reqs[r].ready_ms);
    CHECK(strcmp(b.reqs[back].message, a.reqs[r].message) == 0);
    CHECK(strstr(a.reqs[r].message, "ETA 1970-01-01T00:") != NULL);
    gq__sim_advance(&b, a.reqs[r].ready_ms);
    CHECK(b.reqs[back].state == GQ_SIM_PROVISIONED);
    CHECK(gq__sim_restore(&b, "bad", "v0 nonsense") == -1);
    CHECK(gq__sim_restore(&b, "bad", "v1 9 1 0 0 0 0 0 0 0 0 a100|x") == -1); /* no such state */
    gq__sim_free(&a);
    gq__sim_free(&b);
}

/* check-capacity: books nodes that are up at once, never scales up. */
static void check_capacity(void)
{
    struct gq_kvs a100 = {sel_a100, 1};
    struct gq_sim s;
    int first, r, full;

    setup(&s, 4);
    first = gq__sim_request(&s, "first", &a100, 16, 0, 0);
    gq__sim_advance(&s, 0);
    gq__sim_advance(&s, 8 * MIN);
    gq__sim_delete(&s, first, 8 * MIN); /* its 2 nodes stay up, idle, for scaleDownAfter */
    r = gq__sim_request(&s, "r", &a100, 8, 0, 9 * MIN);
    s.reqs[r].check_capacity = true;
    full = gq__sim_request(&s, "full", &a100, 16, 0, 9 * MIN);
    s.reqs[full].check_capacity = true;
    gq__sim_advance(&s, 9 * MIN);
    CHECK(s.reqs[r].state == GQ_SIM_PROVISIONED && s.reqs[r].provisioned_ms == 9 * MIN);
    CHECK(s.reqs[full].state == GQ_SIM_ACCEPTED && !s.reqs[full].holds); /* 1 idle node left */
    gq__sim_free(&s);
}

/* Idle nodes are reused at once until scaleDownAfter; then new ones take the delay. */
static void scale_down(void)
{
    struct gq_kvs a100 = {sel_a100, 1};
    struct gq_sim s;
    int a, b, c;

    setup(&s, 6);
    a = gq__sim_request(&s, "a", &a100, 8, 0, 0);
    gq__sim_advance(&s, 0);
    gq__sim_advance(&s, 8 * MIN);
    gq__sim_delete(&s, a, 8 * MIN);
    CHECK(s.idle[0] == 1 && s.used[0] == 0);
    CHECK(gq__sim_next(&s, 8 * MIN) == 18 * MIN); /* the scale-down is due */
    b = gq__sim_request(&s, "b", &a100, 8, 0, 10 * MIN);
    gq__sim_advance(&s, 10 * MIN);
    CHECK(s.reqs[b].state == GQ_SIM_PROVISIONED && s.reqs[b].provisioned_ms == 10 * MIN);
    gq__sim_delete(&s, b, 11 * MIN);
    gq__sim_advance(&s, 21 * MIN); /* 10 min after the last release: gone */
    CHECK(s.idle[0] == 0);
    c = gq__sim_request(&s, "c", &a100, 8, 0, 22 * MIN);
    gq__sim_advance(&s, 22 * MIN);
    CHECK(s.reqs[c].state == GQ_SIM_ACCEPTED && s.reqs[c].ready_ms > 22 * MIN);
    gq__sim_free(&s);
}

/*
 * A request deleted while its nodes boot (a MultiKueue loser's, a job
 * cancelled): the nodes come up all the same and only then join the idle
 * ones. The next request reuses them when they are up, not at once.
 */
static void deleted_while_booting(void)
{
    struct gq_kvs a100 = {sel_a100, 1};
    struct gq_sim s;
    int first, next;
    int64_t ready;

    setup(&s, 5);
    first = gq__sim_request(&s, "first", &a100, 16, 0, 0);
    gq__sim_advance(&s, 0);
    ready = s.reqs[first].ready_ms;
    CHECK(ready >= 2 * MIN + 30 * 1000 && s.used[0] == 2);
    gq__sim_delete(&s, first, MIN); /* booting: the pool is full until they are up */
    gq__sim_delete(&s, first, MIN); /* deleting again changes nothing */
    next = gq__sim_request(&s, "next", &a100, 16, 0, MIN);
    gq__sim_advance(&s, MIN);
    CHECK(s.reqs[next].state == GQ_SIM_ACCEPTED && !s.reqs[next].holds);
    CHECK(s.used[0] == 2 && s.idle[0] == 0);
    CHECK(gq__sim_next(&s, MIN) == ready);
    gq__sim_advance(&s, ready);
    gq__sim_advance(&s, ready); /* freed nodes serve the next request at that moment */
    CHECK(s.reqs[next].state == GQ_SIM_PROVISIONED && s.reqs[next].provisioned_ms == ready);
    CHECK(s.used[0] == 2 && s.idle[0] == 0);
    gq__sim_free(&s);
}

int main(void)
{
    TEST_RUN(all_or_nothing);
    TEST_RUN(booking_and_revocation);
    TEST_RUN(stockouts);
    TEST_RUN(determinism);
    TEST_RUN(next_event);
    TEST_RUN(record_and_restore);
    TEST_RUN(check_capacity);
    TEST_RUN(scale_down);
    TEST_RUN(deleted_while_booting);
    return TEST_DONE();
}
