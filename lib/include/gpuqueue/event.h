/*
 * gpuqueue/event.h: what the library's long calls report as they go, as one
 * type. gq_run and gq_simulate report each transition of the simulated
 * cluster through a gq_run_fn; gq_cluster_run and gq_sim_provisioner_run
 * report each line of their log through a gq_cluster_log_fn. Both hand over
 * a gq_event: gq_run_event (run.h) and gq_cluster_event (cluster.h) are
 * other names for it.
 *
 * The words (kind, what, level) are what gpuq and gpuqd print; the enums
 * beside them say the same for a program that branches on them, so that it
 * never compares the words. The words are filled from the enums, so the two
 * always agree, except `what` beside GQ_EVENT_WHAT_OTHER (see there).
 */
#ifndef GPUQUEUE_EVENT_H
#define GPUQUEUE_EVENT_H

#include <stdint.h>

#include "gpuqueue/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How much a line of cluster mode's log matters; level says the same in a word. */
typedef enum gq_event_level {
    GQ_EVENT_LEVEL_NONE = 0,  /* a transition of gq_run or gq_simulate: level is NULL */
    GQ_EVENT_LEVEL_INFO,      /* "info": the loop doing its work */
    GQ_EVENT_LEVEL_WARNING,   /* "warning": something refused or retried; the loop goes on */
    GQ_EVENT_LEVEL_ERROR      /* "error": a write or a reload that failed for good */
} gq_event_level;

/* What the event is about; kind says the same in a word (the Kubernetes kind, mostly). */
typedef enum gq_event_kind {
    GQ_EVENT_KIND_WORKLOAD = 0,          /* "Workload": a Job's admission record */
    GQ_EVENT_KIND_JOB,                   /* "Job": a batch/v1 Job in the cluster */
    GQ_EVENT_KIND_PROVISIONING_REQUEST,  /* "ProvisioningRequest" */
    GQ_EVENT_KIND_LEASE,                 /* "Lease": cluster mode's leader election */
    GQ_EVENT_KIND_SYNC,                  /* "Sync": cluster mode itself (lists, config, retries) */
    GQ_EVENT_KIND_SIM_PROVISIONER        /* "SimProvisioner": gq_sim_provisioner_run itself */
} gq_event_kind;

/*
 * What happened, when it is a Workload's or a ProvisioningRequest's
 * transition: a closed set, Kueue's workload steps and the conditions of a
 * ProvisioningRequest. Cluster mode's other lines (a Job created, a Lease
 * acquired, a list synced...) are GQ_EVENT_WHAT_OTHER: their word is in what
 * and the set of words grows with the log.
 */
typedef enum gq_event_what {
    GQ_EVENT_WHAT_OTHER = 0,          /* a log line: read what */
    GQ_EVENT_WHAT_RESERVED,           /* "reserved": quota reserved, admission checks to come */
    GQ_EVENT_WHAT_ADMITTED,           /* "admitted" */
    GQ_EVENT_WHAT_EVICTED,            /* "evicted": quota released, back in its queue */
    GQ_EVENT_WHAT_DEACTIVATED,        /* "deactivated": quota released, inactive */
    GQ_EVENT_WHAT_STARTED,            /* "started": the Job's pods run (simulated cluster) */
    GQ_EVENT_WHAT_FINISHED,           /* "finished": the Job ran its duration */
    GQ_EVENT_WHAT_ACCEPTED,           /* "Accepted": a request waits for capacity */
    GQ_EVENT_WHAT_PROVISIONED,        /* "Provisioned": its capacity is there */
    GQ_EVENT_WHAT_FAILED,             /* "Failed" */
    GQ_EVENT_WHAT_BOOKING_EXPIRED,    /* "BookingExpired": capacity not consumed in time */
    GQ_EVENT_WHAT_CAPACITY_REVOKED,   /* "CapacityRevoked": its maximum run time passed */
    GQ_EVENT_WHAT_CAPACITY_FOUND,     /* "CapacityFound": an Accepted request got its nodes */
    GQ_EVENT_WHAT_DISPATCHED,         /* "dispatched": MultiKueue copied the job to workers */
    GQ_EVENT_WHAT_DELETED,            /* "deleted": a MultiKueue copy deleted from its worker */
    GQ_EVENT_WHAT_REFUSED             /* "refused": a worker refused a MultiKueue copy */
} gq_event_what;

/*
 * One event. Strings are borrowed for the callback. The first eight members
 * are gq_run_event's as they always were; level and the enums were added
 * when gq_cluster_event became the same type.
 */
typedef struct gq_event {
    int64_t at_ms;           /* when: the database's clock (gq_run, gq_simulate), else the
                                wall clock */
    int64_t elapsed_ms;      /* since the run started (gq_run, gq_simulate); else 0 */
    const char *kind;        /* kind_id's word: "Workload", "Job", "ProvisioningRequest", ... */
    const char *GQ_NAMESPACE;   /* may be NULL (cluster mode's lines) */
    const char *name;        /* the object's name; may be NULL (cluster mode's lines) */
    const char *job_name;    /* gq_run and gq_simulate: a workload's job, NULL for a request;
                                always NULL in cluster mode's lines */
    const char *what;        /* a short word: what_id's, or a verb of the log (created,
                                unsuspended, acquired, synced, ...) */
    const char *message;     /* may be NULL */
    const char *level;       /* level_id's word: "info", "warning", "error"; NULL for a
                                transition of gq_run or gq_simulate */
    gq_event_level level_id;
    gq_event_kind kind_id;
    gq_event_what what_id;
    /* Appended with issue 17: the simulated MultiKueue worker it happened on; NULL: here. */
    const char *cluster;
} gq_event;

#ifdef __cplusplus
}
#endif

#endif
