/*
 * sync.h: cluster mode's reconciler (gpuqueue/cluster.h), shared by sync*.c.
 * Internal.
 *
 * One loop, one thread (loop.c, with sync.c's ops as its Kubernetes backend):
 *   1. gq__kube_poll: the informers' lists and watch events land in the
 *      database, each batch in one transaction (sync_jobs.c, sync_objects.c);
 *   2. once every informer has listed: admission cycles (the engine), only
 *      on the leader;
 *   3. the outbox (sync_outbox.c): what the database says should exist in
 *      the cluster and does not yet, done call by call, each result recorded
 *      in its own transaction; never a transaction held across a call;
 *   4. the Lease renewed (sync_lease.c).
 * With leader election, steps 2-3 run only while the Lease is still ours
 * by our own clock, checked after the poll and again by the kube client's
 * write gate before every request but a GET (gq__sync_lease_gate).
 * Informer callbacks never call the API (libcurl forbids a transfer inside
 * another's callback): they record, and step 3 acts.
 */
#ifndef GQ_SYNC_H
#define GQ_SYNC_H

#include <json-c/json.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

#include "gpuqueue/cluster.h"
#include "admit.h" /* struct gq_wfpr */
#include "apply.h"
#include "handle.h"
#include "integration.h"
#include "kube.h"
#include "util.h"

#define GQ_SYNC_QUEUE_LABEL "kueue.x-k8s.io/queue-name"
#define GQ_SYNC_MANAGED_LABEL "kueue.x-k8s.io/managed"
#define GQ_SYNC_ADMISSION_ANNOTATION "gpuq.dev/admission"

enum gq_sync_informer {
    GQ_INF_NAMESPACES,
    GQ_INF_JOBS,
    GQ_INF_PROVREQS,
    GQ_INF_FLAVORS,
    GQ_INF_COHORTS,
    GQ_INF_CLUSTERQUEUES,
    GQ_INF_LOCALQUEUES,
    GQ_INF_PRIORITIES,
    GQ_INF_CHECKS,
    GQ_INF_CONFIGS,
    GQ_INF_LIMITRANGES,     /* LimitRanges and RuntimeClasses adjust the requests of jobs */
    GQ_INF_RUNTIMECLASSES,
    GQ_INF_CRDS,            /* CustomResourceDefinitions: a kind's CRD installed is watched at once */
    GQ_INF_MK_CLUSTERS,     /* MultiKueueClusters: the workers a manager dispatches to */
    GQ_INF_MK_CONFIGS,      /* MultiKueueConfigs */
    GQ_INF_COUNT
};

/* Informers of the integration table's kinds but Job (built-in rows and the user's). */
#define GQ_SYNC_MAX_KINDS 32
/* Reloads of the user's Integrations gpuqd takes before it asks for a restart. */
#define GQ_SYNC_ROW_GENERATIONS 16

struct gq_sync;

/* What one informer's callbacks need: the sync and which collection. */
struct gq_sync_feed {
    struct gq_sync *s;
    enum gq_sync_informer which;   /* GQ_INF_JOBS for every kind of job */
    const struct gq_integration *row; /* a kind of job: its row of the integration table */
};

struct gq_lease {
    char *holder;           /* holderIdentity last seen */
    char *rv;               /* the Lease's resourceVersion last seen */
    char *acquire_time;     /* kept across renewals */
    int64_t transitions;
    int64_t observed_mono;  /* monotonic ms when the record last changed */
    int64_t duration_ms;    /* the holder's leaseDurationSeconds */
    int64_t renewed_mono;   /* monotonic ms of our last successful renewal */
    int64_t next_mono;      /* when to try next */
};

struct gq_sync {
    gq_db *db;
    struct gq_store *st;
    struct gq_kube *k;
    gq_cluster_options o;
    struct gq_kube_informer *inf[GQ_INF_COUNT];
    struct gq_sync_feed feed[GQ_INF_COUNT];
    struct gq_kube_informer *kinf[GQ_SYNC_MAX_KINDS]; /* one per kind of job but Job */
    struct gq_sync_feed kfeed[GQ_SYNC_MAX_KINDS];
    size_t nkinds;
    /*
     * The user's integration rows as read at start and at each reload: the
     * informers of the kinds point into the generation that made them, so
     * every generation lives until the end; rows is the latest.
     */
    struct gq__user_rows gens[GQ_SYNC_ROW_GENERATIONS];
    size_t ngens;
    struct gq__user_rows *rows;
    bool synced;            /* every informer has listed once (or its CRD is absent) */
    bool more;              /* the last admission batch stopped before the queues settled */
    bool leader;
    bool lease_call;        /* a Lease request of our own is in flight: the gate lets it by */
    bool deposed;           /* the write gate refused a write: the loop ends this turn */
    struct gq_lease lease;
    char identity[160];
    char *lease_ns;
    uint64_t changes;       /* database changes made by the informers since the last step */
    int64_t last_schedule;  /* monotonic ms of the last turn that scheduled and acted */
    int64_t unsynced_said;  /* monotonic ms gpuqd last said why it has not listed yet; 0 */
    int unsynced_which;     /* of which collection (the same one is said again after a while) */
    gq_error callback_err;
    struct gq_wfpr wfpr;    /* waitForPodsReady, read once a turn when a Job needs it */
    bool wfpr_read;
    struct gq_mk *mk;       /* MultiKueue's manager (sync_multikueue.c); NULL until its first turn */
};

/* One log line (through the caller's log function); what is a verb of the log. */
void gq__sync_log(struct gq_sync *s, gq_event_level level, gq_event_kind kind, const char *ns,
                  const char *name, const char *what, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));
/* The same for a job of any kind: its kind's word (row->kind) in the line, Job's when NULL. */
void gq__sync_log_job(struct gq_sync *s, gq_event_level level, const struct gq_integration *row,
                      const char *ns, const char *name, const char *what, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));
/* The same for a Workload's or a request's transition: its word is what's. */
void gq__sync_log_transition(struct gq_sync *s, gq_event_level level, gq_event_kind kind,
                             const char *ns, const char *name, gq_event_what what,
                             const char *fmt, ...) __attribute__((format(printf, 7, 8)));

/* JSON helpers for API objects: a dotted path's value, or NULL. */
json_object *gq__js_get(json_object *o, const char *path);
const char *gq__js_str(json_object *o, const char *path);
/* The status.conditions entry of type whose status is "True", or NULL; and as a bool. */
json_object *gq__js_condition_true(json_object *o, const char *type);
bool gq__js_condition(json_object *o, const char *type);

/*
 * One log line through a gq_cluster_log_fn (fn may be NULL): e as the caller
 * filled it (the enums, namespace, name and, for GQ_EVENT_WHAT_OTHER, what),
 * with the time and the words set here and the message fmt makes (none when
 * it comes out empty).
 */
void gq__cluster_logv(gq_cluster_log_fn fn, void *payload, gq_event *e, const char *fmt,
                      va_list ap) __attribute__((format(printf, 4, 0)));

/* Give a list's items the apiVersion and kind the List left out. */
void gq__sync_typed(const struct gq_sync_feed *f, json_object *items);

/* Informer callbacks (payload: struct gq_sync_feed). */
int gq__sync_jobs_replace(json_object *items, void *payload);
int gq__sync_jobs_event(const char *type, json_object *obj, void *payload);
int gq__sync_objects_replace(json_object *items, void *payload);
int gq__sync_objects_event(const char *type, json_object *obj, void *payload);

/* Observe one job of the kind row says (inside the caller's write transaction). */
int gq__sync_job_observe(struct gq_sync *s, const struct gq_integration *row, json_object *job,
                         gq_error *err);

/* The row of the integration table for a workload's job kind (NULL or "Job": the Job's). */
const struct gq_integration *gq__sync_row(const struct gq_sync *s, const char *kind);

/* The API path of a job's collection in ns, or of the job name (NULL: the collection). */
void gq__sync_job_path(char *buf, size_t size, const struct gq_integration *row,
                       const char *api_version, const char *ns, const char *name);

/* Step 3: every side effect the database asks for, each applied as calls to the API server. */
int gq__sync_outbox(struct gq_sync *s, gq_error *err);

/*
 * Step 3b: MultiKueue's manager: the worker clusters' clients and Active
 * condition, the copies of the workloads its checks hold, the winners'
 * status (sync_multikueue.c). Nothing to do without a MultiKueueCluster.
 */
int gq__sync_multikueue(struct gq_sync *s, gq_error *err);
void gq__sync_multikueue_free(struct gq_sync *s);

/* Step 4: try to take or renew the Lease when due; s->leader tells the result. */
int gq__sync_lease(struct gq_sync *s, gq_error *err);
/* Let go of the Lease on a clean exit (so a standby takes over at once). */
void gq__sync_lease_release(struct gq_sync *s);
void gq__sync_lease_free(struct gq_lease *l);

/*
 * Whether we may still write at monotonic time now_ms: always without
 * leader election; else only while leading and less than the renew
 * deadline after the start of our last successful renewal.
 */
bool gq__sync_lease_valid(const struct gq_sync *s, int64_t now_ms);

/*
 * The kube client's write gate (payload: the struct gq_sync): lets through
 * our own Lease requests and any write while gq__sync_lease_valid; refuses
 * the rest with GQ_ENOTLEADER, and a refusal while leading sets s->deposed.
 */
int gq__sync_lease_gate(const char *method, const char *path, void *payload, gq_error *err);


#endif
