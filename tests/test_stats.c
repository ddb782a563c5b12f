/*
 * test_stats.c: the report's arithmetic (lib/core/stats.c) against values
 * computed by hand; the percentiles also agree with numpy.percentile's
 * default (method="linear"), e.g. np.percentile([1, 2, 3, 4, 100], 90)
 * == 61.6.
 */
#include <math.h>
#include <stdint.h>

#include "stats.h"
#include "test.h"

#define NEAR(a, b) (fabs((a) - (b)) < 1e-9)

static void percentiles(void)
{
    static const struct {
        int64_t v[5];
        size_t n;
        double p, want;
    } rows[] = {
        {{1, 2, 3, 4}, 4, 50, 2.5},   {{1, 2, 3, 4}, 4, 90, 3.7},     {{1, 2, 3, 4}, 4, 99, 3.97},
        {{1, 2, 3, 4}, 4, 0, 1},      {{1, 2, 3, 4}, 4, 100, 4},      {{10}, 1, 50, 10},
        {{10}, 1, 99, 10},            {{1, 2, 3, 4, 100}, 5, 90, 61.6}, {{1, 2, 3, 4, 100}, 5, 50, 3},
        {{0}, 0, 50, 0},
    };
    size_t i;

    for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        double got = gq__stats_percentile(rows[i].v, rows[i].n, rows[i].p);

        CHECKF(NEAR(got, rows[i].want), "row %zu: got %g, want %g", i, got, rows[i].want);
    }
}

static void summary(void)
{
    int64_t v[] = {4000, 1000, 2000, 3000, 100000};
    struct gq__stats_summary s;

    gq__stats_sort(v, 5);
    CHECK(v[0] == 1000 && v[4] == 100000);
    gq__stats_summarize(&s, v, 5);
    CHECK(s.n == 5);
    CHECK(NEAR(s.mean, 22000));
    CHECK(NEAR(s.p50, 3000));
    CHECK(NEAR(s.p90, 61600)); /* h = 3.6: 4000 + 0.6 x 96000 */
    CHECK(NEAR(s.p99, 96160)); /* h = 3.96: 4000 + 0.96 x 96000 */
    CHECK(NEAR(s.max, 100000));
    gq__stats_summarize(&s, v, 0);
    CHECK(s.n == 0 && s.mean == 0 && s.max == 0);
}

static void shares(void)
{
    static const int64_t v[] = {1000, 2000, 2000, 5000, 60001};
    static const struct {
        int64_t limit;
        size_t want;
    } rows[] = {{999, 0}, {1000, 1}, {2000, 3}, {4999, 3}, {5000, 4}, {60000, 4}, {60001, 5}};
    size_t i;

    for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
        CHECKF(gq__stats_count_le(v, 5, rows[i].limit) == rows[i].want, "row %zu", i);
    CHECK(gq__stats_count_le(v, 0, 5000) == 0);
}

static void buckets(void)
{
    static const int64_t le[] = {1000, 2500, 5000};
    static const int64_t v[] = {0, 1000, 1001, 2500, 2501, 9999};
    static const uint64_t want[] = {2, 2, 1, 1};
    uint64_t counts[4];
    size_t i;

    gq__stats_hist_le(counts, le, 3, v, 6);
    for (i = 0; i < 4; i++)
        CHECKF(counts[i] == want[i], "bucket %zu: got %llu", i, (unsigned long long)counts[i]);
    /* Kueue's generateExponentialBuckets(14): 1, 2.5, then doubling. */
    CHECK(gq__wait_buckets_ms[0] == 1000 && gq__wait_buckets_ms[1] == 2500);
    for (i = 2; i < GQ__WAIT_NBUCKETS; i++)
        CHECKF(gq__wait_buckets_ms[i] == 2 * gq__wait_buckets_ms[i - 1], "bucket %zu", i);
    CHECK(gq__wait_buckets_ms[GQ__WAIT_NBUCKETS - 1] == 10240000);
}

static void bins(void)
{
    static const int64_t v[] = {0, 29999, 30000, 599999, 600000, -5};
    uint64_t counts[21];

    gq__stats_hist_bins(counts, 20, 30000, v, 6);
    CHECK(counts[0] == 3); /* 0, 29999 and the negative one */
    CHECK(counts[1] == 1);
    CHECK(counts[19] == 1);
    CHECK(counts[20] == 1); /* 600 s and above */
    CHECK(counts[2] == 0 && counts[18] == 0);
}

static void grid(void)
{
    double area[4], full[4], m[4];
    struct gq__stats_grid g;
    static const double want[] = {2, 4, 2, 4.2};
    size_t i;

    gq__stats_grid_init(&g, 0, 10, 4, area, full);
    gq__stats_grid_add(&g, 5, 25, 2);   /* half of bin 0, all of 1, half of 2 */
    gq__stats_grid_add(&g, -5, 100, 1); /* clipped: every bin */
    gq__stats_grid_add(&g, 32, -1, 4);  /* open: to the grid's end, 8 of bin 3 */
    gq__stats_grid_add(&g, 12, 14, 5);  /* inside bin 1: 10 / 10 */
    gq__stats_grid_add(&g, 50, 60, 9);  /* after the grid: nothing */
    gq__stats_grid_means(&g, m);
    for (i = 0; i < 4; i++)
        CHECKF(NEAR(m[i], want[i]), "bin %zu: got %g, want %g", i, m[i], want[i]);
    /* The means times the step are the integral: 40 + 40 + 32 + 10. */
    CHECK(NEAR((m[0] + m[1] + m[2] + m[3]) * 10, 122));
}

static void cost(void)
{
    CHECK(gq__stats_overlap_ms(5, 15, 10, 20) == 5);
    CHECK(gq__stats_overlap_ms(0, 5, 10, 20) == 0);
    CHECK(gq__stats_overlap_ms(0, 50, 10, 20) == 10);
    CHECK(NEAR(gq__stats_utilization(64, 100), 64));
    CHECK(NEAR(gq__stats_overhead(64, 100), 36));
    CHECK(gq__stats_utilization(5, 0) == 0 && gq__stats_overhead(5, 0) == 0);
}

int main(void)
{
    TEST_RUN(percentiles);
    TEST_RUN(summary);
    TEST_RUN(shares);
    TEST_RUN(buckets);
    TEST_RUN(bins);
    TEST_RUN(grid);
    TEST_RUN(cost);
    return TEST_DONE();
}
