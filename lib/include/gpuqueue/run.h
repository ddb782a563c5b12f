/*
 * gpuqueue/run.h: the embedded default's whole loop on a local database
 * with a simulated cluster (issue 4): admission cycles, admission check
 * states, the simulated provider answering ProvisioningRequests from the
 * NodePools (sim.gpuq.dev/v1alpha1), jobs starting on their nodes, running
 * for their declared duration and finishing. Every transition lands in the
 * events table. What `gpuq run` and `gpuqd --sim` drive.
 */
#ifndef GPUQUEUE_RUN_H
#define GPUQUEUE_RUN_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "common.h"
#include "db.h"
#include "event.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gq_run_options {
    unsigned int version;         /* GQ_RUN_OPTIONS_VERSION */
    uint64_t seed;                /* the simulator's seed; 0: carry on the stored one (else 1) */
    double speed;                 /* virtual seconds per wall second; 0: as fast as possible,
                                     the clock jumping from one due moment to the next */
    int64_t for_ms;               /* stop after this much virtual time; 0: no limit */
    bool until_idle;              /* stop once nothing moved and nothing is due */
    volatile sig_atomic_t *stop;  /* the caller's signal handler sets it; may be NULL. Looked
                                     at between steps and between scheduling cycles, and while
                                     a cycle reads its snapshot (that cycle then rolls back) */
    /* version 2: */
    int64_t default_duration_ms;  /* how long a job with no gpuq.dev/duration runs once its
                                     pods start (GQ_RUN_DEFAULT_DURATION_MS); > 0 */
} gq_run_options;

/** A job that does not say how long it runs runs this long in the simulated cluster. */
#define GQ_RUN_DEFAULT_DURATION_MS (5 * 60 * 1000)

/*
 * Version rule: a struct whose version is 1 to GQ_RUN_OPTIONS_VERSION is accepted, an
 * older version's read only up to the members it had (the rest take their defaults); any
 * other version is GQ_EINVALID.
 */
#define GQ_RUN_OPTIONS_VERSION 2
#define GQ_RUN_OPTIONS_INIT                                                                       \
    {GQ_RUN_OPTIONS_VERSION, 0, 0.0, 0, false, NULL, GQ_RUN_DEFAULT_DURATION_MS}

/*
 * One transition, reported after the transaction that made it committed: a gq_event
 * (event.h) with kind_id GQ_EVENT_KIND_WORKLOAD (job_name set; what reserved, admitted,
 * evicted, deactivated, started, finished) or GQ_EVENT_KIND_PROVISIONING_REQUEST (job_name
 * NULL; what Accepted, Provisioned, Failed, BookingExpired, CapacityRevoked, CapacityFound),
 * what_id saying the same, level NULL and level_id GQ_EVENT_LEVEL_NONE.
 */
typedef gq_event gq_run_event;

typedef int (*gq_run_fn)(const gq_run_event *event, void *payload);

typedef struct gq_run_stats {
    uint64_t steps;
    int64_t start_ms, end_ms; /* on the database's clock */
    double wall_ms;
    uint64_t admitted, started, finished, evicted, requests;
} gq_run_stats;

/**
 * Run the simulated cluster on the database until opts says to stop. The
 * database's clock becomes virtual while it runs (gq_db_now_ms), so other
 * processes see the same time; one runner at a time.
 * @return GQ_OK; GQ_ECONFLICT when another runner holds the clock; GQ_EIO.
 */
GQ_EXTERN int gq_run(gq_db *db, const gq_run_options *opts, gq_run_fn fn, void *payload,
                     gq_run_stats *stats, gq_error *err);

/* Where one job's time went, summed over its whole history. */
typedef struct gq_summary_job {
    const char *GQ_NAMESPACE;
    const char *job_name;
    const char *cluster_queue;   /* where it was admitted, else its LocalQueue's; may be NULL */
    const char *state;           /* pending, reserved, admitted, running, finished, deactivated */
    int64_t waited_quota_ms;     /* pending, including backoffs after a retry */
    int64_t waited_capacity_ms;  /* quota reserved, admission checks not Ready yet */
    int64_t ran_ms;              /* admitted and running */
    int64_t requests;            /* ProvisioningRequests created for it */
} gq_summary_job;

typedef struct gq_summary_queue {
    const char *cluster_queue;
    uint64_t admitted;           /* ever admitted (running or finished) */
    uint64_t finished;
    uint64_t pending;            /* waiting for quota or capacity */
    uint64_t rejected;           /* deactivated by an admission check */
} gq_summary_queue;

typedef int (*gq_summary_job_fn)(const gq_summary_job *job, void *payload);
typedef int (*gq_summary_queue_fn)(const gq_summary_queue *queue, void *payload);

/**
 * The story so far, from the events table: every job submitted at or after
 * since_ms (0: all; cancelled ones left out) in submission order, then
 * every ClusterQueue with a job among them, by name. Either fn may be NULL.
 */
GQ_EXTERN int gq_run_summary(gq_db *db, int64_t since_ms, gq_summary_job_fn jobs,
                             gq_summary_queue_fn queues, void *payload, gq_error *err);

#ifdef __cplusplus
}
#endif

#endif
