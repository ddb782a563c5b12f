/*
 * gpuqueue/report.h: `gpuq report`, the figures of issue 12 read off a
 * database's records (a simulation's, or the history gpuqd keeps in cluster
 * mode): how long jobs and pods waited, what the GPUs cost, how
 * provisioning went, over a time window. Read-only: one read transaction.
 */
#ifndef GPUQUEUE_REPORT_H
#define GPUQUEUE_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common.h"
#include "db.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gq_report_format {
    GQ_REPORT_TEXT = 0, /* the terminal page: tables and sparklines */
    GQ_REPORT_JSON,     /* every figure, stable key order */
    GQ_REPORT_CSV,      /* one table or series (options.table), RFC 4180 */
    GQ_REPORT_TSV,      /* the same, tab-separated */
    GQ_REPORT_HTML      /* one self-contained page with inline SVG charts */
} gq_report_format;

/** The most thresholds options.under_ms may hold. */
#define GQ_REPORT_MAX_UNDER 8

typedef struct gq_report_options {
    unsigned int version;     /* GQ_REPORT_OPTIONS_VERSION */
    gq_report_format format;
    int64_t since_ms;         /* window start (ms since the epoch); 0: the first record */
    int64_t until_ms;         /* window end; 0: the last record (not the clock, so that the
                                 same database always gives the same report) */
    const int64_t *under_ms;  /* share-under thresholds, ascending; NULL: 2 s, 5 s, 60 s */
    size_t nunder;            /* entries in under_ms, at most GQ_REPORT_MAX_UNDER */
    int64_t bin_ms;           /* fixed histogram bin width over 0-600 s, 1 s..600 s; 0: 30 s */
    const char *table;        /* CSV/TSV: waits, queues, pools, flavors, series, histogram or
                                 provisioning; NULL: waits */
    bool unicode;             /* text: Unicode sparklines and bars (U+2581..U+2588), else the
                                 ASCII _.-=# (the caller decides from the locale) */
} gq_report_options;

/*
 * Version rule: a struct whose version is 1 to GQ_REPORT_OPTIONS_VERSION is accepted, an
 * older version's read only up to the members it had (the rest take their defaults); any
 * other version is GQ_EINVALID.
 */
#define GQ_REPORT_OPTIONS_VERSION 1
#define GQ_REPORT_OPTIONS_INIT {GQ_REPORT_OPTIONS_VERSION, GQ_REPORT_TEXT, 0, 0, NULL, 0, 0, NULL, false}

/**
 * The report, rendered in opts->format.
 *
 * Waits are counted for the jobs submitted inside the window: submit to
 * admitted (every admission check Ready, Kueue's Admitted), submit to
 * running, submit to quota reserved (waiting for quota) and reserved to
 * admitted (waiting for capacity), each to the job's latest admission; and
 * per pod, created (released) to running, for the pods created inside the
 * window. A job still waiting at the window's end is counted as waiting,
 * not as a sample. Percentiles interpolate linearly (numpy's default).
 * GPU-hours clip node and pod lifetimes to the window.
 * @param[out] out the document, NUL-terminated; free with gq_free()
 * @return GQ_OK; GQ_EINVALID for a bad option (the message names it);
 *         GQ_ENOMEM; GQ_EIO from the database.
 */
GQ_EXTERN int gq_report(char **out, gq_db *db, const gq_report_options *opts, gq_error *err);

#ifdef __cplusplus
}
#endif

#endif
