/*
 * stats.h: the arithmetic of `gpuq report`, pure: no I/O, no clock, no
 * allocation (callers pass the arrays). Internal to libgpuqueue.
 *
 * Samples are int64_t milliseconds. Percentiles use linear interpolation
 * between the closest ranks, numpy.percentile's default ("linear", Hyndman
 * and Fan's definition 7): for n sorted values x[0..n-1] and p in [0, 100],
 * h = (n - 1) p / 100 and the percentile is x[floor h] + (h - floor h)
 * (x[floor h + 1] - x[floor h]). So p50 of {1, 2, 3, 4} is 2.5, and p0 and
 * p100 are the minimum and the maximum.
 */
#ifndef GQ_STATS_H
#define GQ_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Kueue's generateExponentialBuckets(14) for its wait-time histograms
 * (kueue_admission_wait_time_seconds and friends): 1 s, then 2.5 s doubling,
 * in ms. The upper bounds ("le") of the Prometheus buckets; +Inf follows.
 * The same list as gq_metrics_text's histograms (api_metrics.c), so that the
 * report and a Grafana panel over /metrics agree.
 */
#define GQ__WAIT_NBUCKETS 14
extern const int64_t gq__wait_buckets_ms[GQ__WAIT_NBUCKETS];

/* Sort ascending, in place. */
void gq__stats_sort(int64_t *v, size_t n);

/* The p-th percentile (0..100) of n sorted values, linear interpolation; 0 when n is 0. */
double gq__stats_percentile(const int64_t *sorted, size_t n, double p);

/* What the report shows of one set of samples, in ms. */
struct gq__stats_summary {
    size_t n;
    double p50, mean, p90, p99, max;
};

void gq__stats_summarize(struct gq__stats_summary *out, const int64_t *sorted, size_t n);

/* How many of the n sorted values are at most limit ("under 5 s" is "<= 5 s", as Prometheus' le). */
size_t gq__stats_count_le(const int64_t *sorted, size_t n, int64_t limit);

/*
 * Per-bucket (not cumulative) counts of values into buckets with upper
 * bounds le[0..nb-1] (ascending): bucket i holds le[i-1] < v <= le[i];
 * counts[nb] holds the values above le[nb-1] (+Inf). counts has nb + 1
 * entries and is overwritten.
 */
void gq__stats_hist_le(uint64_t *counts, const int64_t *le, size_t nb, const int64_t *v, size_t n);

/*
 * Counts into fixed bins of width ms from 0: bin i holds i w <= v < (i+1) w
 * for i < nbins; counts[nbins] holds the rest (v >= nbins w). Negative values
 * count in bin 0. counts has nbins + 1 entries and is overwritten.
 */
void gq__stats_hist_bins(uint64_t *counts, size_t nbins, int64_t width, const int64_t *v,
                         size_t n);

/*
 * A step series sampled on a grid as time-weighted means: bin i covers
 * [t0 + i step, t0 + (i+1) step); adding "value v from a to b" adds
 * v x (overlap with the bin) to the bin's area. The mean of bin i is its
 * area / step, so the sum of means x step is the integral (GPU-ms) exactly.
 * area and full are the caller's arrays of n doubles, zeroed by _init.
 */
struct gq__stats_grid {
    int64_t t0, step; /* step > 0 */
    size_t n;
    double *area; /* partial-bin areas */
    double *full; /* difference array of values held over whole bins */
};

void gq__stats_grid_init(struct gq__stats_grid *g, int64_t t0, int64_t step, size_t n,
                         double *area, double *full);
/* Value v held over [from, to), clipped to the grid; to < 0 means to the grid's end. */
void gq__stats_grid_add(struct gq__stats_grid *g, int64_t from, int64_t to, double v);
/* The means, one per bin, into out (n doubles). */
void gq__stats_grid_means(const struct gq__stats_grid *g, double *out);

/* ms of [from, to) inside [lo, hi); 0 when they do not overlap. */
int64_t gq__stats_overlap_ms(int64_t from, int64_t to, int64_t lo, int64_t hi);

/* used / provisioned in %, and 100 - that; both 0 when nothing was provisioned. */
double gq__stats_utilization(double used, double provisioned);
double gq__stats_overhead(double used, double provisioned);

#endif
