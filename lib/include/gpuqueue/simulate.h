/*
 * gpuqueue/simulate.h: a day (or a week) in a second (issue 12): the
 * simulated cluster of gq_run, fed with arrivals from a generator profile
 * (user story 1's stages of Dask clusters; the built-in "rapids-day") or a
 * trace of past jobs, in virtual time, seeded and deterministic. Every
 * record lands in the database, for gq_report.
 */
#ifndef GPUQUEUE_SIMULATE_H
#define GPUQUEUE_SIMULATE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common.h"
#include "db.h"
#include "report.h"
#include "run.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gq_simulate_options {
    unsigned int version;        /* GQ_SIMULATE_OPTIONS_VERSION */
    const char *profile;         /* a built-in profile ("rapids-day") or a profile file's path */
    const char *trace;           /* a trace file (CSV or JSON lines); else NULL */
    const char *const *manifests;/* files or directories applied first (queues, flavors,
                                    NodePools); none: the database's, or for a built-in
                                    profile on an empty database, user story 1's cluster */
    size_t nmanifests;
    uint64_t seed;               /* the generator's and the simulator's; 0: 1 */
    const char *GQ_NAMESPACE;       /* replaces the profile's; NULL: keep */
    const char *queue;           /* replaces the profile's LocalQueue; NULL: keep */
    int64_t start_ms;            /* virtual time the arrivals count from on an empty database;
                                    0: a trace's week from Monday 2026-01-05T00:00:00Z, a
                                    profile's day from 08:00 that morning */
    bool durable;                /* fsync every step (as gq_run does); false: only at the
                                    end, which is what makes a week take seconds */
    volatile sig_atomic_t *stop; /* the caller's signal handler sets it; may be NULL */
} gq_simulate_options;

/*
 * Version rule: a struct whose version is 1 to GQ_SIMULATE_OPTIONS_VERSION is accepted, an
 * older version's read only up to the members it had (the rest take their defaults); any
 * other version is GQ_EINVALID.
 */
#define GQ_SIMULATE_OPTIONS_VERSION 1
#define GQ_SIMULATE_OPTIONS_INIT                                                                  \
    {GQ_SIMULATE_OPTIONS_VERSION, NULL, NULL, NULL, 0, 0, NULL, NULL, 0, false, NULL}

typedef struct gq_simulate_stats {
    size_t jobs;                 /* arrivals submitted */
    size_t stages;               /* a profile's stages; 0 for a trace */
    gq_run_stats run;
} gq_simulate_stats;

/**
 * Run the simulation on db until every arrival is submitted and nothing is
 * due. fn (may be NULL) sees every transition, as with gq_run.
 * @return GQ_OK; GQ_EINVALID naming the bad profile field, trace line or
 *         unknown queue (nothing is submitted then); GQ_ENOTFOUND for a
 *         missing file; GQ_ECONFLICT when a runner holds the database; GQ_EIO.
 */
GQ_EXTERN int gq_simulate(gq_db *db, const gq_simulate_options *opts, gq_run_fn fn,
                          void *payload, gq_simulate_stats *stats, gq_error *err);

/**
 * The headline figures of several simulated databases side by side (the
 * same arrivals under different manifests): waits, pods' waits, GPU-hours
 * used and provisioned, utilization and overhead, one column per database,
 * named by names[i]. opts->format GQ_REPORT_JSON gives JSON, else a table.
 * @param[out] out NUL-terminated; free with gq_free()
 */
GQ_EXTERN int gq_simulate_compare(char **out, gq_db *const *dbs, const char *const *names,
                                  size_t n, const gq_report_options *opts, gq_error *err);

#ifdef __cplusplus
}
#endif

#endif
