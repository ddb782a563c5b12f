/*
 * stats.c: percentiles, shares, histograms and step series for `gpuq
 * report` (stats.h states the methods). Pure: the same samples always give
 * the same figures, to the bit, so that a report is byte-identical for the
 * same database. Sizes: up to a few hundred thousand samples per call.
 */
#include <stdlib.h>

#include "sort.h"
#include "stats.h"

const int64_t gq__wait_buckets_ms[GQ__WAIT_NBUCKETS] = {
    1000, 2500, 5000, 10000, 20000, 40000, 80000, 160000, 320000, 640000, 1280000, 2560000,
    5120000, 10240000};

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

    return (x > y) - (x < y);
}

void gq__stats_sort(int64_t *v, size_t n)
{
    if (n > 1)
        gq__qsort(v, n, sizeof(*v), cmp_i64);
}

double gq__stats_percentile(const int64_t *sorted, size_t n, double p)
{
    double h, frac;
    size_t lo;

    if (n == 0)
        return 0;
    if (p <= 0)
        return (double)sorted[0];
    if (p >= 100)
        return (double)sorted[n - 1];
    h = (double)(n - 1) * p / 100.0;
    lo = (size_t)h;
    frac = h - (double)lo;
    if (lo + 1 >= n)
        return (double)sorted[n - 1];
    return (double)sorted[lo] + frac * (double)(sorted[lo + 1] - sorted[lo]);
}

void gq__stats_summarize(struct gq__stats_summary *out, const int64_t *sorted, size_t n)
{
    double sum = 0;
    size_t i;

    for (i = 0; i < n; i++)
        sum += (double)sorted[i];
    out->n = n;
    out->mean = n ? sum / (double)n : 0;
    out->p50 = gq__stats_percentile(sorted, n, 50);
    out->p90 = gq__stats_percentile(sorted, n, 90);
    out->p99 = gq__stats_percentile(sorted, n, 99);
    out->max = n ? (double)sorted[n - 1] : 0;
}

size_t gq__stats_count_le(const int64_t *sorted, size_t n, int64_t limit)
{
    size_t lo = 0, hi = n;

    /* The first index whose value is above limit. */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (sorted[mid] <= limit)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

void gq__stats_hist_le(uint64_t *counts, const int64_t *le, size_t nb, const int64_t *v, size_t n)
{
    size_t i, b;

    for (b = 0; b <= nb; b++)
        counts[b] = 0;
    for (i = 0; i < n; i++) {
        for (b = 0; b < nb && v[i] > le[b]; b++)
            ;
        counts[b]++;
    }
}

void gq__stats_hist_bins(uint64_t *counts, size_t nbins, int64_t width, const int64_t *v,
                         size_t n)
{
    size_t i, b;

    for (b = 0; b <= nbins; b++)
        counts[b] = 0;
    for (i = 0; i < n; i++) {
        if (v[i] < 0)
            b = 0;
        else if (width <= 0 || v[i] / width >= (int64_t)nbins)
            b = nbins;
        else
            b = (size_t)(v[i] / width);
        counts[b]++;
    }
}

void gq__stats_grid_init(struct gq__stats_grid *g, int64_t t0, int64_t step, size_t n,
                         double *area, double *full)
{
    size_t i;

    g->t0 = t0;
    g->step = step > 0 ? step : 1;
    g->n = n;
    g->area = area;
    g->full = full;
    for (i = 0; i < n; i++)
        area[i] = full[i] = 0;
}

void gq__stats_grid_add(struct gq__stats_grid *g, int64_t from, int64_t to, double v)
{
    int64_t end = g->t0 + g->step * (int64_t)g->n;
    size_t i, j;

    if (to < 0 || to > end)
        to = end;
    if (from < g->t0)
        from = g->t0;
    if (from >= to)
        return;
    i = (size_t)((from - g->t0) / g->step);
    j = (size_t)((to - g->t0) / g->step); /* the bin `to` falls in; n at the grid's end */
    if (i == j) {
        g->area[i] += v * (double)(to - from);
        return;
    }
    g->area[i] += v * (double)(g->t0 + (int64_t)(i + 1) * g->step - from);
    if (i + 1 < j) {
        g->full[i + 1] += v;
        if (j < g->n)
            g->full[j] -= v;
    }
    if (j < g->n)
        g->area[j] += v * (double)(to - (g->t0 + (int64_t)j * g->step));
}

void gq__stats_grid_means(const struct gq__stats_grid *g, double *out)
{
    double held = 0;
    size_t i;

    for (i = 0; i < g->n; i++) {
        held += g->full[i];
        out[i] = held + g->area[i] / (double)g->step;
    }
}

int64_t gq__stats_overlap_ms(int64_t from, int64_t to, int64_t lo, int64_t hi)
{
    if (from < lo)
        from = lo;
    if (to > hi)
        to = hi;
    return to > from ? to - from : 0;
}

double gq__stats_utilization(double used, double provisioned)
{
    return provisioned > 0 ? 100.0 * used / provisioned : 0;
}

double gq__stats_overhead(double used, double provisioned)
{
    return provisioned > 0 ? 100.0 - 100.0 * used / provisioned : 0;
}
