/*
 * gpuqueue/cluster.h: cluster mode (issue 5). The API server is the truth
 * for Jobs, PodTemplates and ProvisioningRequests; the database is the
 * daemon's durable memory (queues, workload records, attempts, history).
 *
 * gq_cluster_run() is gpuqd's whole loop, in the library so that other
 * tools can embed it: watch Namespaces, labelled Jobs, the
 * ProvisioningRequests and PodTemplates gpuq owns, and the kueue.x-k8s.io
 * queue objects when their CRDs exist; admit after the first full list;
 * create the PodTemplates and ProvisioningRequests as Kueue names and fills
 * them; unsuspend each admitted Job in one conditional merge patch; release
 * quota once when a Job finishes, fails, is deleted or leaves its queue.
 * With leader election only the holder of the Lease writes.
 *
 * The gq_kube_* calls are what `gpuq` does in cluster mode with the user's
 * own credentials: create a suspended Job, delete one, read Jobs.
 */
#ifndef GPUQUEUE_CLUSTER_H
#define GPUQUEUE_CLUSTER_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "common.h"
#include "db.h"
#include "event.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where the API server is, as kubectl finds it. Every field may be NULL. */
typedef struct gq_kube_target {
    const char *kubeconfig; /* --kubeconfig: this file only */
    const char *context;    /* --context */
    const char *ns;         /* -n: instead of the context's namespace */
    bool in_cluster;        /* the service account only */
} gq_kube_target;

/** Whether cluster mode is asked for: a kubeconfig or context named, KUBECONFIG set, or
 * running in a pod (KUBERNETES_SERVICE_HOST and _PORT). */
GQ_EXTERN bool gq_kube_wanted(const gq_kube_target *t);

/*
 * One line of the daemon's log: what happened, to what, with which words. A gq_event
 * (event.h) with level and level_id set, job_name NULL, elapsed_ms 0, at_ms on the wall clock;
 * what_id names a Workload's or a ProvisioningRequest's transition, else it is
 * GQ_EVENT_WHAT_OTHER and what is a verb of the log (created, unsuspended, released, ...).
 */
typedef gq_event gq_cluster_event;

typedef void (*gq_cluster_log_fn)(const gq_cluster_event *e, void *payload);

typedef struct gq_cluster_options {
    unsigned int version;            /* GQ_CLUSTER_OPTIONS_VERSION */
    gq_kube_target target;
    bool leader_elect;               /* hold a coordination.k8s.io/v1 Lease to write */
    const char *lease_namespace;     /* default: the target's namespace */
    const char *lease_name;          /* default "gpuqd-leader" */
    const char *identity;            /* default: hostname "_" pid */
    int64_t lease_duration_ms;       /* 15 s */
    int64_t renew_deadline_ms;       /* 10 s */
    int64_t retry_period_ms;         /* 2 s */
    bool suspend_unadmitted;         /* a labelled Job running without admission is
                                        suspended (true, default) or only reported */
    const char *config;              /* queue objects applied at start and on *reload
                                        (--config FILE); may be NULL */
    volatile sig_atomic_t *stop;     /* set by a signal handler: finish the step, exit */
    volatile sig_atomic_t *reload;   /* set by SIGHUP: apply config again (may be NULL) */
    volatile int *ready;             /* set to 1 after the first full sync (may be NULL) */
    gq_cluster_log_fn log;           /* may be NULL */
    void *log_payload;
    /* version 2 */
    int64_t refusal_timeout_ms;      /* 10 min: a workload holding quota whose writes the
                                        API server refuses this long (retried with backoff
                                        meanwhile) gives the quota back; <= 0: default */
} gq_cluster_options;

/*
 * Version rule, for every struct of this header: a version from 1 to the struct's current
 * GQ_*_VERSION is accepted, an older version's struct read only up to the members it had (the
 * rest take their defaults); any other version is GQ_EINVALID.
 */
#define GQ_CLUSTER_OPTIONS_VERSION 2 /* 2: refusal_timeout_ms */
#define GQ_CLUSTER_OPTIONS_INIT                                                                    \
    {GQ_CLUSTER_OPTIONS_VERSION, {NULL, NULL, NULL, false}, false, NULL, NULL, NULL, 15000,       \
     10000, 2000, true, NULL, NULL, NULL, NULL, NULL, NULL, 600000}

/**
 * Run cluster mode on db until *stop is set (GQ_OK) or leadership is lost
 * (GQ_ECONFLICT: the caller should exit, as controller-runtime does).
 * @return GQ_OK; GQ_ENOTFOUND when there is no configuration; GQ_EK8S when
 *         the API server refuses the configuration (authentication, TLS).
 */
GQ_EXTERN int gq_cluster_run(gq_db *db, const gq_cluster_options *opts, gq_error *err);

/**
 * Create a Job in the cluster, suspended (as Kueue's webhook forces), from
 * a manifest (YAML or JSON, one Job) or from gq_job_build's output. The
 * namespace is the manifest's, else the target's. *name_out gets the Job's
 * name (generateName resolved by the server); gq_free it.
 */
GQ_EXTERN int gq_kube_submit(const gq_kube_target *t, const char *manifest, size_t len,
                             char **name_out, gq_error *err);

/** Delete a Job (propagationPolicy Background, UID precondition). GQ_ENOTFOUND if absent. */
GQ_EXTERN int gq_kube_cancel(const gq_kube_target *t, const char *name, gq_error *err);

/**
 * GET a path of the API server (e.g. a Job list, or gpuqd's status API
 * through the service proxy) as JSON text; *status_out gets the HTTP status.
 */
GQ_EXTERN int gq_kube_get(const gq_kube_target *t, const char *path, long *status_out,
                          char **out, gq_error *err);

/**
 * The namespace commands act in, as kubectl picks it: t->ns, else the
 * context's, else "default" (gq_free it).
 * @return GQ_OK; GQ_ENOTFOUND when there is no configuration; GQ_EINVALID.
 */
GQ_EXTERN int gq_kube_namespace(const gq_kube_target *t, char **out, gq_error *err);

/*
 * The simulated cluster playing the autoscaler against an API server
 * (gpuqd --sim-provisioner), so that the DWS flow can be tried on any
 * cluster without GPUs: every ProvisioningRequest (autoscaling.x-k8s.io/v1)
 * of a class the simulator models (queued-provisioning.gke.io,
 * best-effort-atomic-scale-up.autoscaling.x-k8s.io,
 * check-capacity.autoscaling.x-k8s.io) is answered from the NodePools in
 * the database, on the wall clock, through the status subresource.
 */
typedef struct gq_sim_provisioner_options {
    unsigned int version;            /* GQ_SIM_PROVISIONER_OPTIONS_VERSION */
    gq_kube_target target;
    double speed;                    /* simulated seconds per second, > 0 (default 1) */
    uint64_t seed;                   /* the simulator's random seed; 0: a fixed default */
    volatile sig_atomic_t *stop;     /* set by a signal handler: finish the turn, return */
    gq_cluster_log_fn log;           /* may be NULL */
    void *log_payload;
} gq_sim_provisioner_options;

#define GQ_SIM_PROVISIONER_OPTIONS_VERSION 1
#define GQ_SIM_PROVISIONER_OPTIONS_INIT                                                            \
    {GQ_SIM_PROVISIONER_OPTIONS_VERSION, {NULL, NULL, NULL, false}, 1.0, 0, NULL, NULL, NULL}

/**
 * Answer ProvisioningRequests from db's NodePools until *stop is set:
 * Accepted, then Provisioned when the pool can create every node, or a
 * wait and Failed when it is stocked out; BookingExpired for capacity no
 * Job consumes within 10 minutes (a request is consumed once a Job whose
 * pod template carries autoscaling.x-k8s.io/consume-provisioning-request
 * naming it is unsuspended); CapacityRevoked at maxRunDurationSeconds. A
 * request deleted in the cluster gives its nodes back.
 * @return GQ_OK when stopped; GQ_ENOTFOUND when db has no NodePools or
 *         there is no cluster configuration; GQ_EINVALID for bad options;
 *         GQ_EK8S when the API server refuses the configuration.
 */
GQ_EXTERN int gq_sim_provisioner_run(gq_db *db, const gq_sim_provisioner_options *o,
                                     gq_error *err);

#ifdef __cplusplus
}
#endif

#endif
