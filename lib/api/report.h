/*
 * report.h: what the files behind gq_report share. Internal.
 *
 * store_report.c reads the records of a window into struct gq__report_raw
 * (plain arrays, names interned; store/store_report.h declares them, since
 * the store fills them); report.c turns them into the figures of
 * struct gq__report with stats.c; report_render.c writes the text page,
 * JSON and CSV/TSV; report_html.c the HTML page. All times are ms.
 */
#ifndef GQ_REPORT_H
#define GQ_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuqueue/report.h"
#include "stats.h"
#include "store_report.h"
#include "util.h"

/* ------------------------------------------------------------ the figures */

enum { GQ__W_ADMISSION, GQ__W_RUNNING, GQ__W_QUOTA, GQ__W_CAPACITY, GQ__W_POD, GQ__NWAITS };

#define GQ__BINS_RANGE_MS 600000 /* fixed bins cover 0-600 s, then one overflow */
#define GQ__SERIES_POINTS 120

struct gq__report_wait {
    const char *key;   /* "admission", ... (JSON and CSV) */
    const char *label; /* "submit to admitted" */
    int64_t *v;        /* sorted samples; owned */
    size_t n;
    size_t waiting;    /* not there by the window's end */
    struct gq__stats_summary s;
    size_t under[GQ_REPORT_MAX_UNDER];
    uint64_t buckets[GQ__WAIT_NBUCKETS + 1];
    uint64_t *bins;    /* nbins + 1; owned */
};

/* Waits to admission of one ClusterQueue, LocalQueue or namespace. */
struct gq__report_group {
    const char *kind;  /* "ClusterQueue", "LocalQueue", "Namespace" */
    const char *name;  /* borrowed from raw.names */
    size_t jobs, admitted;
    struct gq__stats_summary s;
};

/* GPU-ms provisioned and used by one pool or flavor. */
struct gq__report_cost {
    const char *name;
    size_t nodes;
    double provisioned, used;
};

struct gq__report_prov {
    const char *flavor; /* NULL in the per-attempt rows */
    int64_t attempt;    /* 0 in the per-flavor rows */
    size_t requests, retries, provisioned, failed, expired, revoked;
    struct gq__stats_summary to_provisioned;
};

struct gq__report {
    const gq_report_options *opts;
    int64_t under[GQ_REPORT_MAX_UNDER];
    size_t nunder;
    int64_t bin_ms;
    size_t nbins;
    struct gq__report_raw raw;
    size_t submitted, admitted, running, finished;
    struct gq__report_wait waits[GQ__NWAITS];
    GQ__VEC(struct gq__report_group) groups;
    GQ__VEC(struct gq__report_cost) pools;
    GQ__VEC(struct gq__report_cost) flavors;
    struct gq__report_cost total;
    int64_t step;   /* series: npoints bins of step ms from raw.since, covering the window */
    size_t npoints; /* at most GQ__SERIES_POINTS */
    double avail[GQ__SERIES_POINTS], used[GQ__SERIES_POINTS], pending[GQ__SERIES_POINTS];
    GQ__VEC(struct gq__report_prov) prov;     /* per flavor, then per attempt */
    size_t nprov_flavors;
};

/* Render (report_render.c, report_html.c) into s; s->failed on out of memory. */
void gq__report_text(struct gq__str *s, const struct gq__report *r);
void gq__report_json(struct gq__str *s, const struct gq__report *r);
void gq__report_table(struct gq__str *s, const struct gq__report *r, char sep);
void gq__report_html(struct gq__str *s, const struct gq__report *r);

/* Shared by the renderers: seconds with 3 decimals, trailing zeros dropped ("2.5", "22"). */
void gq__report_secs(char *buf, size_t size, double ms);
/* A wait as a person reads it: "0.1s", "22.3s", "5m26s", "1h2m". */
void gq__report_dur(char *buf, size_t size, double ms);

/* v as a JSON string, quoted and escaped. */
void gq__report_jstr(struct gq__str *s, const char *v);

/* The figures of db, unrendered (gq_simulate_compare); free with gq__report_destroy. */
struct gq_db;
int gq__report_build(struct gq__report **out, struct gq_db *db, const gq_report_options *opts,
                     gq_error *err);
void gq__report_destroy(struct gq__report *r);

#endif
