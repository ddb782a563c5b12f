/*
 * gpuqueue/schedule.h: running the admission engine: scheduling cycles as
 * Kueue's scheduler runs them (kueue-semantics.md §2), each cycle's
 * decisions committed in one transaction; and stopping or resuming queues.
 */
#ifndef GPUQUEUE_SCHEDULE_H
#define GPUQUEUE_SCHEDULE_H

#include <stdbool.h>
#include <stdint.h>

#include "common.h"
#include "db.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gq_schedule_options {
    unsigned int version;  /* GQ_SCHEDULE_OPTIONS_VERSION */
    uint64_t cycles;       /* run this many cycles; 0 with until_stable: no limit */
    bool until_stable;     /* stop after a cycle that changes nothing */
} gq_schedule_options;

/*
 * Version rule: a struct whose version is 1 to GQ_SCHEDULE_OPTIONS_VERSION is accepted, an
 * older version's read only up to the members it had (the rest take their defaults); any
 * other version is GQ_EINVALID.
 */
#define GQ_SCHEDULE_OPTIONS_VERSION 1
#define GQ_SCHEDULE_OPTIONS_INIT {GQ_SCHEDULE_OPTIONS_VERSION, 1, false}

/* What a decision did to its workload; gq_schedule_change.what says the same in words. */
typedef enum gq_change_kind {
    GQ_CHANGE_PENDING = 0,     /* still waiting: only its reason or message changed */
    GQ_CHANGE_RESERVED,        /* quota reserved, admission checks to come */
    GQ_CHANGE_ADMITTED,        /* admitted: at its reservation, or every check Ready */
    GQ_CHANGE_EVICTED,         /* quota released, back in its queue */
    GQ_CHANGE_DEACTIVATED      /* quota released, inactive until resumed */
} gq_change_kind;

/* What one decision changed, reported after the transaction holding its cycle committed. */
typedef struct gq_schedule_change {
    uint64_t cycle;            /* 1-based, within this call */
    const char *what;          /* "admitted", "reserved", "evicted", "deactivated", "pending" */
    const char *GQ_NAMESPACE;
    const char *name;          /* the workload */
    const char *job_name;
    const char *cluster_queue; /* may be NULL */
    const char *flavors;       /* "cpu=a,nvidia.com/gpu=b" for an admission, else NULL */
    const char *reason;        /* may be NULL */
    const char *message;       /* may be NULL */
    gq_change_kind kind;       /* what, as an enum (appended: the library fills this struct) */
} gq_schedule_change;

typedef int (*gq_schedule_fn)(const gq_schedule_change *change, void *payload);

typedef struct gq_schedule_stats {
    uint64_t cycles;
    uint64_t admitted;         /* quota reserved, admitted or not */
    uint64_t evicted;
    /*
     * Times in milliseconds. Cycles with nothing to tell fn (every cycle when
     * fn is NULL) share a transaction for up to 20 ms; each cycle counts its
     * own time, and the last of a transaction also its BEGIN and COMMIT, so
     * that the cycles add up to the time spent deciding.
     */
    double load_ms;            /* building the first snapshot */
    double cycle_p50_ms, cycle_p99_ms, cycle_max_ms;
    double first_admission_ms; /* from the call until the first admission committed; -1 */
    double last_admission_ms;  /* until the last one committed; -1 */
    double total_ms;
} gq_schedule_stats;

/**
 * Run scheduling cycles on the database. fn (may be NULL) is called for
 * every change, after the cycle that made it committed.
 * @param stats (may be NULL) what was done
 * @return GQ_OK; GQ_EIO; GQ_EBUSY when the database stayed locked.
 */
GQ_EXTERN int gq_schedule(gq_db *db, const gq_schedule_options *opts, gq_schedule_fn fn,
                          void *payload, gq_schedule_stats *stats, gq_error *err);

/**
 * Set the stopPolicy of a ClusterQueue (namespace NULL) or a LocalQueue:
 * "None", "Hold" or "HoldAndDrain", as kueuectl's stop and resume do.
 * Draining happens in the next scheduling cycle.
 * @return GQ_OK; GQ_ENOTFOUND; GQ_EINVALID for another policy.
 */
GQ_EXTERN int gq_queue_set_stop_policy(gq_db *db, const char *kind, const char *ns,
                                       const char *name, const char *policy, gq_error *err);

#ifdef __cplusplus
}
#endif

#endif
