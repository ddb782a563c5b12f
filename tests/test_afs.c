/*
 * test_afs.c: admission fair sharing's arithmetic (lib/core/afs.c) against
 * Kueue's pkg/util/admissionfairsharing: the decay rate, the rounding down to
 * 10^-9 of resource.MulByFloat, usage over a LocalQueue's weight, the status
 * quantities; then a LocalQueue's usage on a small hand-built snapshot
 * through an admission, its settlement and samples, halving after each
 * half-life with nothing running.
 */
#include <math.h>
#include <stdlib.h>

#include "admit.h"
#include "afs.h"
#include "test.h"

#define MIN_MS (60 * 1000)

static void test_alpha(void)
{
    static const struct {
        int64_t elapsed, half_life;
        double want;
    } rows[] = {
        {10 * MIN_MS, 10 * MIN_MS, 0.5},  /* one half-life: half the old, half the new */
        {20 * MIN_MS, 10 * MIN_MS, 0.75}, /* two */
        {0, 10 * MIN_MS, 0.0},            /* no time, no change */
        {5 * MIN_MS, 0, 0.0},             /* calculateAlphaRate: half-life 0 is rate 0 */
        {MIN_MS, 10 * MIN_MS, 0.066967008463192},
    };
    size_t i;

    for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        double a = gq__afs_alpha(rows[i].elapsed, rows[i].half_life);

        CHECKF(fabs(a - rows[i].want) < 1e-12, "row %zu: alpha %.15f", i, a);
    }
}

static void test_scale_and_decay(void)
{
    double c[3] = {10.0, 0.3, 4.0}, cur[3] = {0.0, 0.0, 4.0};

    /* Rounded down to 10^-9, as MulByFloat: 1/3 of 1 is 0.333333333, not ...334. */
    CHECK(gq__afs_scale(1.0, 1.0 / 3.0) == 0.333333333);
    CHECK(gq__afs_scale(0.3, 1.0) == 0.3); /* a product on the grid stays on it */
    CHECK(gq__afs_scale(7.0, 0.0) == 0.0);
    CHECK(gq__afs_scale(1e-10, 1.0) == 0.0); /* below a nano-unit: gone */
    /* One half-life with nothing admitted halves; with a constant usage, moves half way. */
    gq__afs_decay(c, cur, 3, 10 * MIN_MS, 10 * MIN_MS);
    CHECKF(c[0] == 5.0 && c[1] == 0.15 && c[2] == 4.0, "%.12g %.12g %.12g", c[0], c[1], c[2]);
    /* A negative elapsed (a clock stamped later) changes nothing. */
    gq__afs_decay(c, cur, 3, -5 * MIN_MS, 10 * MIN_MS);
    CHECK(c[0] == 5.0);
}

static void test_usage(void)
{
    double consumed[2] = {2.0, 8.0}, penalty[2] = {1.0, 0.0}, weights[2] = {2.5, 0.0};

    CHECK(gq__afs_usage(consumed, penalty, NULL, 2, 1.0) == 11.0);
    CHECK(gq__afs_usage(consumed, penalty, weights, 2, 1.0) == 7.5);
    CHECK(gq__afs_usage(consumed, NULL, weights, 2, 0.5) == 10.0);
    CHECK(isinf(gq__afs_usage(consumed, penalty, NULL, 2, 0.0))); /* weight 0: last */
    CHECK(gq__afs_units("cpu", 1500) == 1.5 && gq__afs_units("nvidia.com/gpu", 8) == 8.0);
}

static void test_quantity(void)
{
    static const struct {
        double v;
        const char *want;
    } rows[] = {
        {0.0, "0"},     {4.0, "4"},           {0.5, "500m"},         {1.25, "1250m"},
        {0.15, "150m"}, {0.066967008, "66967008n"}, {5.334835042, "5334835042n"},
        {-1.0, "0"},
    };
    char buf[GQ_QUANTITY_BUFSIZE];
    size_t i;

    for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        gq_quantity q = gq__afs_quantity(rows[i].v);

        gq_quantity_format(buf, sizeof(buf), &q);
        CHECKF(strcmp(buf, rows[i].want) == 0, "row %zu: %s, want %s", i, buf, rows[i].want);
    }
}

/*
 * One ClusterQueue in UsageBasedAdmissionFairSharing mode, one LocalQueue,
 * one workload of 10 GPUs; half-life 10m, sampling every minute.
 */
struct fixture {
    struct gq_snapshot s;
    struct gq_snap_cq cq;
    struct gq_snap_lq lq;
    struct gq_snap_wl wl;
    struct gq_use use;
    int holder;
};

static void fixture_init(struct fixture *f)
{
    memset(f, 0, sizeof(*f));
    CHECK(gq__intern(&f->s.res_names, "nvidia.com/gpu") == 0);
    f->s.nres = 1;
    f->s.afs = true;
    f->s.afs_half_life_ms = 10 * MIN_MS;
    f->s.afs_sampling_ms = MIN_MS;
    f->s.afs_weights = calloc(1, sizeof(double));
    f->s.afs_weights[0] = 1.0;
    f->cq.afs = true;
    f->cq.holders = &f->holder;
    f->s.cqs = &f->cq;
    f->s.ncqs = 1;
    f->lq.weight = 1.0;
    f->lq.cq = 0;
    f->s.lqs = &f->lq;
    f->s.nlqs = 1;
    f->use = (struct gq_use){0, 10};
    f->wl.held = (struct gq_uses){&f->use, 1, 1};
    f->wl.lq = 0;
    f->wl.cq = 0;
    f->wl.state = GQ_WS_PENDING;
    f->s.wls = &f->wl;
    f->s.nwls = 1;
    CHECK(gq__afs_prepare(&f->s) == 0);
}

static void fixture_free(struct fixture *f)
{
    free(f->s.afs_weights);
    free(f->s.afs_scratch);
    free(f->lq.consumed);
    free(f->lq.penalty);
    gq__intern_free(&f->s.res_names);
}

static void test_queue_usage(void)
{
    struct fixture f;
    double pen = gq__afs_scale(10.0, gq__afs_alpha(MIN_MS, 10 * MIN_MS)), c;

    fixture_init(&f);
    gq__afs_sample(&f.s, 0); /* a new status, nothing consumed, as of 0 */
    CHECK(f.lq.afs_known && f.lq.afs_last == 0 && f.lq.consumed[0] == 0.0);
    /* Reserved with checks: the entry penalty waits, counted in the usage. */
    f.wl.state = GQ_WS_RESERVED;
    f.holder = 0;
    f.cq.nholders = 1;
    f.cq.afs_stale = false;
    gq__afs_reserved(&f.s, 0, 0);
    CHECKF(f.lq.penalty[0] == pen && f.lq.afs_usage == pen, "%.12g", f.lq.afs_usage);
    CHECK(f.cq.afs_stale);
    /* Admitted: the penalty settles into consumed. */
    f.wl.state = GQ_WS_ADMITTED;
    gq__afs_admitted(&f.s, 0, 0);
    CHECK(f.lq.penalty[0] == 0.0 && f.lq.consumed[0] == pen && f.lq.afs_usage == pen);
    /* Samples only once the interval has passed; then half way to 10 after a half-life. */
    gq__afs_sample(&f.s, MIN_MS - 1);
    CHECK(f.lq.consumed[0] == pen && f.lq.afs_last == 0);
    gq__afs_sample(&f.s, 10 * MIN_MS);
    c = gq__afs_scale(pen, 0.5) + 5.0;
    CHECKF(f.lq.consumed[0] == c && f.lq.afs_last == 10 * MIN_MS, "%.12g", f.lq.consumed[0]);
    /* It finishes; each half-life after, the usage halves. */
    f.cq.nholders = 0;
    gq__afs_sample(&f.s, 20 * MIN_MS);
    CHECKF(f.lq.consumed[0] == gq__afs_scale(c, 0.5), "%.12g", f.lq.consumed[0]);
    gq__afs_sample(&f.s, 30 * MIN_MS);
    CHECKF(f.lq.consumed[0] == gq__afs_scale(gq__afs_scale(c, 0.5), 0.5), "%.12g",
           f.lq.consumed[0]);
    CHECK(f.lq.afs_changed);
    fixture_free(&f);
}

/* A reservation that never reaches admission takes its penalty back. */
static void test_unreserved(void)
{
    struct fixture f;

    fixture_init(&f);
    f.wl.state = GQ_WS_RESERVED;
    gq__afs_reserved(&f.s, 0, 0);
    CHECK(f.lq.penalty[0] > 0.0);
    gq__afs_unreserved(&f.s, 0);
    CHECK(f.lq.penalty[0] == 0.0 && f.lq.afs_usage == 0.0);
    fixture_free(&f);
}

int main(void)
{
    TEST_RUN(test_alpha);
    TEST_RUN(test_scale_and_decay);
    TEST_RUN(test_usage);
    TEST_RUN(test_quantity);
    TEST_RUN(test_queue_usage);
    TEST_RUN(test_unreserved);
    return TEST_DONE();
}
