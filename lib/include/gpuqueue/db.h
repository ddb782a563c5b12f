/*
 * gpuqueue/db.h: the gpuq database handle, and everything done through it:
 * applying manifests, submitting jobs, listing, describing and cancelling.
 *
 * A gq_db is used by one thread at a time; open one per thread. Every write
 * is one SQLite transaction (BEGIN IMMEDIATE, retried whole when another
 * process holds the lock), durable when the call returns (synchronous=FULL).
 */
#ifndef GPUQUEUE_DB_H
#define GPUQUEUE_DB_H

#include <stdbool.h>

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gq_db gq_db;

typedef struct gq_open_options {
    unsigned int version; /* GQ_OPEN_OPTIONS_VERSION */
    int busy_timeout_ms;  /* how long to wait for another writer; 0: 10 s */
    bool readonly;        /* open for reading only */
} gq_open_options;

/*
 * Version rule, for every struct of this header: a version from 1 to the struct's current
 * GQ_*_VERSION is accepted, an older version's struct read only up to the members it had (the
 * rest take their defaults); any other version is GQ_EINVALID.
 */
#define GQ_OPEN_OPTIONS_VERSION 1
#define GQ_OPEN_OPTIONS_INIT {GQ_OPEN_OPTIONS_VERSION, 0, false}

/**
 * The default database path: $GPUQ_DB, else $XDG_STATE_HOME/gpuq/gpuq.db,
 * else $HOME/.local/state/gpuq/gpuq.db. The directory of the XDG default is
 * created (mode 0700) if missing.
 * @param[out] out the path; free with gq_free()
 * @return GQ_OK; GQ_EINVALID if neither XDG_STATE_HOME nor HOME is set;
 *         GQ_EIO if the directory cannot be created.
 */
GQ_EXTERN int gq_db_default_path(char **out, gq_error *err);

/**
 * Open the database at path (created if missing, file mode 0600), bringing
 * its schema up to date. ":memory:" gives a private in-memory database.
 * @param[out] out the handle; close with gq_db_close()
 * @return GQ_OK; GQ_ESCHEMA if the file was written by a newer gpuq;
 *         GQ_EIO if it cannot be opened.
 */
GQ_EXTERN int gq_db_open(gq_db **out, const char *path, const gq_open_options *opts,
                         gq_error *err);

/**
 * The database of the simulated cluster named cluster beside the database
 * at db_path: db_path ".clusters/" cluster ".db". gq_run on db_path steps
 * it as a MultiKueue worker when a MultiKueueCluster of that name exists
 * (issue 17); `gpuq --cluster NAME` reads and writes it. Nothing is
 * created.
 * @param[out] out the path; free with gq_free()
 * @return GQ_OK; GQ_EINVALID for an in-memory db_path, or a cluster that is
 *         not a DNS-1123 subdomain (naming it).
 */
GQ_EXTERN int gq_db_cluster_path(char **out, const char *db_path, const char *cluster,
                                 gq_error *err);

/** Close a handle. NULL is a no-op. */
GQ_EXTERN void gq_db_close(gq_db *db);

/**
 * Now on the database's clock, in milliseconds since the Unix epoch: the
 * wall clock, or a simulation's virtual time while one runs (and after it,
 * carried on at normal speed). Ages and durations shown to users use it.
 */
GQ_EXTERN int64_t gq_db_now_ms(gq_db *db);

/**
 * A number that changes whenever another connection (another process, or
 * another handle) commits to the database, and stays put otherwise
 * (SQLite's data_version): what a watcher polls, cheaply, before reading.
 * @return GQ_OK; GQ_EIO.
 */
GQ_EXTERN int gq_db_data_version(gq_db *db, int64_t *out, gq_error *err);

/**
 * Check the database file's integrity (SQLite's quick_check) and report its
 * schema version.
 * @return GQ_OK when the file is sound; GQ_EIO with SQLite's first complaint.
 */
GQ_EXTERN int gq_db_check(gq_db *db, int *schema_version, gq_error *err);

/* ------------------------------------------------------------- applying */

/* What happened to one object of an apply, submit or delete. */
typedef enum gq_apply_result {
    GQ_APPLY_CREATED = 0,
    GQ_APPLY_CONFIGURED,
    GQ_APPLY_UNCHANGED,
    GQ_APPLY_DELETED,
    GQ_APPLY_SKIPPED, /* a kind gpuq does not model */
} gq_apply_result;

typedef struct gq_apply_item {
    const char *resource;  /* kubectl-style resource: "clusterqueue", "job.batch", ... */
    const char *GQ_NAMESPACE; /* NULL for cluster-scoped objects */
    const char *name;      /* the object's name (a Job's name for a Job) */
    const char *workload;  /* Jobs and Workloads: Kueue's workload name; else NULL */
    gq_apply_result result;
    const char *note;      /* SKIPPED: why; a pending workload: why it waits; else NULL */
    /*
     * Fields of the document that its API (Kueue's CRDs and Configuration
     * types, the job kind's CRD) does not know, as kubectl's server-side
     * field validation names them ("spec.resourceGroups[0].bogus"); with
     * gq_apply_options.strict they are an error instead. Borrowed, like the
     * strings above.
     */
    const char *const *unknown_fields;
    size_t nunknown_fields;
    /* Fields given that gpuq accepts and keeps but does not enforce ("waitForPodsReady"). */
    const char *const *not_enforced;
    size_t nnot_enforced;
} gq_apply_item;

/* Called once per object, only after the whole input has been committed. */
typedef void (*gq_apply_fn)(const gq_apply_item *item, void *payload);

typedef enum gq_apply_mode {
    GQ_MODE_APPLY = 0, /* create or update anything; a Job for an unknown queue waits */
    GQ_MODE_SUBMIT,    /* Jobs and Workloads only, created new; their queue must exist */
    GQ_MODE_DELETE,    /* delete every object the input names */
    GQ_MODE_CREATE,    /* kubectl create: any kind, created new; one that exists is an error */
} gq_apply_mode;

typedef struct gq_apply_options {
    unsigned int version;          /* GQ_APPLY_OPTIONS_VERSION */
    gq_apply_mode mode;
    bool strict;                   /* kinds gpuq does not model, and fields their API does
                                      not know, are errors (not skips, not warnings) */
    bool dry_run;                  /* validate and report, commit nothing */
    const char *default_namespace; /* for objects without one; NULL: "default" */
    int64_t now_ms;                /* the time of the change; 0: the clock */
} gq_apply_options;

#define GQ_APPLY_OPTIONS_VERSION 1
#define GQ_APPLY_OPTIONS_INIT {GQ_APPLY_OPTIONS_VERSION, GQ_MODE_APPLY, false, false, NULL, 0}

/**
 * Apply every document of the files at path (a file; a directory, meaning
 * its .yaml, .yml and .json files; or "-" for standard input), all in one
 * transaction:
 * either everything is written or nothing is.
 * @return GQ_OK; GQ_EINVALID naming the file, document, field and value;
 *         GQ_ENOTFOUND (a path, or with GQ_MODE_SUBMIT a queue, that does not
 *         exist); GQ_EEXISTS (submit of a job that exists); GQ_EBUSY; GQ_EIO.
 */
GQ_EXTERN int gq_apply_path(gq_db *db, const char *path, const gq_apply_options *opts,
                            gq_apply_fn fn, void *payload, gq_error *err);

/** The same for text already in memory; source names it in messages. */
GQ_EXTERN int gq_apply_buffer(gq_db *db, const char *buf, size_t len, const char *source,
                              const gq_apply_options *opts, gq_apply_fn fn, void *payload,
                              gq_error *err);

/* A job described by flags (gpuq submit --queue ...), built into a batch/v1 Job. */
typedef struct gq_job_spec {
    unsigned int version;       /* GQ_JOB_SPEC_VERSION */
    const char *GQ_NAMESPACE;      /* NULL: "default" */
    const char *name;           /* NULL: generated from "job-" */
    const char *queue;          /* LocalQueue name, required */
    const char *priority_class; /* WorkloadPriorityClass, may be NULL */
    const char *image;          /* NULL: "busybox" */
    const char *gpus;           /* per pod, a quantity; NULL: none */
    const char *cpu;            /* per pod; NULL: none */
    const char *memory;         /* per pod; NULL: none */
    const char *gpu_resource;   /* NULL: "nvidia.com/gpu" */
    int count;                  /* pods; 0: 1 */
    const char *const *command; /* argv of the container, may be NULL */
    size_t ncommand;
    /* Version 2: */
    const char *duration;       /* how long it runs once started ("45m"), annotation
                                   gpuq.dev/duration; NULL: until cancelled */
} gq_job_spec;

/* Version 1 (without duration) is still accepted. */
#define GQ_JOB_SPEC_VERSION 2
#define GQ_JOB_SPEC_INIT                                                                           \
    {GQ_JOB_SPEC_VERSION, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL, 0, NULL}

/**
 * Build the Job a gq_job_spec describes and submit it (GQ_MODE_SUBMIT).
 * @param[out] name_out the workload's name (free with gq_free), may be NULL
 */
GQ_EXTERN int gq_job_submit(gq_db *db, const gq_job_spec *spec, const gq_apply_options *opts,
                            char **name_out, gq_error *err);

/**
 * The batch/v1 Job a gq_job_spec describes, as JSON text (free with gq_free).
 * GQ_EINVALID naming the bad flag value.
 */
GQ_EXTERN int gq_job_build(char **out, const gq_job_spec *spec, gq_error *err);

/* ------------------------------------------------------------ workloads */

/* One workload, as listing shows it. Strings are borrowed for the callback. */
/*
 * A workload's state (gq_workload_info.state_code; .state is its word). The
 * values are only appended to. GQ_WORKLOAD_STATE_UNKNOWN: a word this
 * library does not know (a newer gpuqd's answer read by gq_kube_workloads).
 */
typedef enum gq_workload_state {
    GQ_WORKLOAD_STATE_UNKNOWN = -1,
    GQ_WORKLOAD_PENDING = 0,   /* waiting for quota */
    GQ_WORKLOAD_RESERVED,      /* quota reserved, admission checks not all Ready */
    GQ_WORKLOAD_ADMITTED,      /* admitted: its Job may run */
    GQ_WORKLOAD_RUNNING,       /* admitted, its pods started */
    GQ_WORKLOAD_FINISHED,
    GQ_WORKLOAD_EVICTED,
    GQ_WORKLOAD_DEACTIVATED,   /* inactive until resumed (a rejected check, a deadline) */
    GQ_WORKLOAD_CANCELLED
} gq_workload_state;

/** The word of a state ("pending" ...); NULL for a value outside the enum. */
GQ_EXTERN const char *gq_workload_state_name(gq_workload_state s);

typedef struct gq_workload_info {
    const char *GQ_NAMESPACE;
    const char *name;          /* Kueue's workload name */
    const char *uid;           /* the job's UID */
    const char *job_kind;      /* Job, Workload, or a kind of the integration table (JobSet) */
    const char *job_name;
    const char *local_queue;   /* NULL: the job has no queue label */
    const char *cluster_queue; /* the LocalQueue's, or the one quota is reserved in; may be NULL */
    const char *state;         /* pending, reserved, admitted, running, finished, cancelled, ... */
    const char *reason;        /* why it waits, may be NULL */
    const char *message;       /* may be NULL */
    const char *priority_class;
    int64_t priority;
    int64_t pods;
    int64_t gpus;
    int64_t position;          /* 0-based among pending workloads of its LocalQueue; -1 */
    int64_t position_cq;       /* 0-based among pending workloads of its ClusterQueue; -1 */
    int64_t created_ms;
    int64_t admitted_ms;       /* when every admission check was Ready (Kueue's Admitted); 0 */
    int64_t finished_ms;       /* 0 if not finished */
    int64_t requeue_ms;        /* backing off after a check's Retry until then; 0 */
    int64_t started_ms;        /* when its pods started; 0 */
    const char *where;         /* where it stands, in plain words ("" when nothing to say) */
    int64_t reserved_ms;       /* when quota was reserved (Kueue's QuotaReserved); 0 */
    gq_workload_state state_code; /* state, as an enum (appended: the library fills this) */
    /* Appended with issue 15; NULL when the source does not say (a cluster's List). */
    const char *podsets;          /* its pod sets' names and counts: "launcher:1,worker:2" */
    const char *job_api_version;  /* its job's apiVersion; NULL: batch/v1 Job or Workload */
    /* Appended with issue 17: the MultiKueue worker that admitted it (Kueue's status.clusterName). */
    const char *cluster_name;     /* NULL: none (not MultiKueue's, or not admitted yet) */
} gq_workload_info;

typedef int (*gq_workload_fn)(const gq_workload_info *wl, void *payload);

typedef struct gq_workload_filter {
    unsigned int version;      /* GQ_WORKLOAD_FILTER_VERSION */
    const char *GQ_NAMESPACE;     /* NULL: all namespaces */
    const char *state;         /* NULL: every state but cancelled; "all": every state */
    const char *local_queue;
    const char *cluster_queue;
    const char *name;          /* workload or job name */
} gq_workload_filter;

#define GQ_WORKLOAD_FILTER_VERSION 1
#define GQ_WORKLOAD_FILTER_INIT {GQ_WORKLOAD_FILTER_VERSION, NULL, NULL, NULL, NULL, NULL}

/**
 * Call fn for each workload the filter selects, ordered by namespace, then
 * creation. fn's non-zero return stops the walk and is returned.
 */
GQ_EXTERN int gq_workload_list(gq_db *db, const gq_workload_filter *filter, gq_workload_fn fn,
                               void *payload, gq_error *err);

/**
 * One page of gq_workload_list: at most limit (> 0) workloads, those after the
 * one the continue token after names (NULL: from the first), read in one
 * transaction. A token holds no snapshot: each page is read afresh, and a
 * workload present throughout is listed exactly once over the pages.
 * @param[out] next_out the token of this page's last workload when more
 *             follow, else NULL; gq_free it
 * @return GQ_OK; GQ_EINVALID for a token that is not one of ours (naming it).
 */
GQ_EXTERN int gq_workload_list_page(gq_db *db, const gq_workload_filter *filter, const char *after,
                                    int64_t limit, gq_workload_fn fn, void *payload,
                                    char **next_out, gq_error *err);

/**
 * Cancel a pending or admitted workload, by workload or job name. Its quota,
 * if it held any, is released exactly once.
 * @param[out] name_out the workload's name (gq_free), may be NULL
 * @return GQ_OK; GQ_ENOTFOUND; GQ_ECONFLICT if it has already ended.
 */
GQ_EXTERN int gq_workload_cancel(gq_db *db, const char *ns, const char *name,
                                 char **name_out, gq_error *err);

/**
 * Deactivate a workload (Kueue's spec.active false; kueuectl's stop
 * workload): a pending one stops waiting, one holding quota is evicted and
 * gives its quota back. gq_workload_resume undoes it.
 * @param[out] name_out the workload's name (gq_free), may be NULL
 * @return GQ_OK; GQ_ENOTFOUND; GQ_ECONFLICT if it has ended or is deactivated.
 */
GQ_EXTERN int gq_workload_stop(gq_db *db, const char *ns, const char *name, char **name_out,
                               gq_error *err);

/**
 * Reactivate a workload an admission check rejected, or one stopped (Kueue's resume workload:
 * spec.active back to true); it queues again from scratch.
 * @param[out] name_out the workload's name (gq_free), may be NULL
 * @return GQ_OK; GQ_ENOTFOUND; GQ_ECONFLICT if it is not deactivated.
 */
GQ_EXTERN int gq_workload_resume(gq_db *db, const char *ns, const char *name,
                                 char **name_out, gq_error *err);

/* --------------------------------------------------------------- queues */

/* One queue object, as listing shows it. Strings are borrowed for the callback. */
typedef struct gq_object_info {
    const char *resource;      /* "clusterqueue", "localqueue", "resourceflavor", "cohort", ... */
    const char *GQ_NAMESPACE;     /* LocalQueue only */
    const char *name;
    const char *cluster_queue; /* LocalQueue: its ClusterQueue */
    const char *cohort;        /* ClusterQueue: its cohort; Cohort: its parent */
    const char *strategy;      /* ClusterQueue: queueing strategy */
    const char *stop_policy;
    const char *detail;        /* flavor, NodePool: node labels "k=v,k=v"; others: NULL */
    const char *inactive;      /* ClusterQueue: why it cannot admit, NULL when active */
    int64_t pending;
    int64_t reserving;
    int64_t admitted;
    int64_t created_ms;
    /* NodePool only (0, NULL and false for the other kinds): */
    int64_t gpus_per_node;
    int64_t min_nodes;
    int64_t max_nodes;
    const char *provisioning_time; /* compact: "5m", "1h30m" */
    bool stockout;
} gq_object_info;

typedef int (*gq_object_fn)(const gq_object_info *obj, void *payload);

/**
 * Call fn for each object of a resource ("clusterqueue", "localqueue",
 * "resourceflavor", "cohort", "workloadpriorityclass", "admissioncheck",
 * "provisioningrequestconfig", "namespace", "nodepool"; short names and
 * plurals work).
 * namespace filters LocalQueues (NULL: all).
 * @return GQ_OK; GQ_EINVALID for an unknown resource.
 */
GQ_EXTERN int gq_object_list(gq_db *db, const char *resource, const char *ns,
                             gq_object_fn fn, void *payload, gq_error *err);

/**
 * Delete one object by resource and name (workloads: same as cancel).
 * @return GQ_OK; GQ_ENOTFOUND; GQ_EINVALID for an unknown resource.
 */
GQ_EXTERN int gq_object_delete(gq_db *db, const char *resource, const char *ns,
                               const char *name, gq_error *err);

/* ------------------------------------------------ provisioning requests */

/*
 * One live ProvisioningRequest gpuq created for a workload's admission check
 * (kueue-semantics.md §3.3-§3.4). Strings are borrowed for the callback.
 */
typedef struct gq_provreq_info {
    const char *GQ_NAMESPACE;
    const char *name;        /* <workload>-<check>-<attempt> */
    const char *uid;
    const char *workload;    /* the Workload that owns it */
    const char *check;       /* its AdmissionCheck */
    int64_t attempt;         /* 1, 2, ... */
    const char *class_name;  /* spec.provisioningClassName */
    const char *accepted;    /* status of the Accepted condition ("True"); NULL if absent */
    const char *provisioned; /* status of the Provisioned condition; NULL if absent */
    const char *failed;      /* status of the Failed condition; NULL if absent */
    const char *message;     /* Failed's if Failed is True, else Provisioned's; may be NULL */
    const char *object;      /* the ProvisioningRequest as stored (JSON, without status) */
    const char *templates;   /* its PodTemplates as stored (a JSON array) */
    const char *status;      /* status as its provider wrote it (JSON); NULL if none yet */
    int64_t created_ms;
} gq_provreq_info;

typedef int (*gq_provreq_fn)(const gq_provreq_info *pr, void *payload);

/**
 * Call fn for each live ProvisioningRequest in namespace (NULL: all), or for
 * the one named name (NULL: every one), ordered by namespace, then name. fn's
 * non-zero return stops the walk and is returned.
 * @return GQ_OK; GQ_ENOTFOUND when name is given and there is no such request.
 */
GQ_EXTERN int gq_provreq_list(gq_db *db, const char *ns, const char *name,
                              gq_provreq_fn fn, void *payload, gq_error *err);

/* One PodTemplate of a live ProvisioningRequest. Strings are borrowed for the callback. */
typedef struct gq_podtemplate_info {
    const char *GQ_NAMESPACE;
    const char *name;        /* ppt-<request>-<pod set> */
    const char *uid;         /* derived from the request's UID and the name: stable */
    const char *provreq;     /* the ProvisioningRequest that owns it */
    const char *provreq_uid;
    const char *containers;  /* container names, comma-separated */
    const char *images;      /* container images, comma-separated */
    const char *pod_labels;  /* the pod template's labels, "k=v,k=v" by key; NULL if none */
    const char *object;      /* the PodTemplate as stored (JSON) */
    int64_t created_ms;
} gq_podtemplate_info;

typedef int (*gq_podtemplate_fn)(const gq_podtemplate_info *pt, void *payload);

/**
 * Call fn for each PodTemplate of the live ProvisioningRequests in namespace
 * (NULL: all), or for the one named name (NULL: every one), ordered by
 * namespace, then name. fn's non-zero return stops the walk and is returned.
 * @return GQ_OK; GQ_ENOTFOUND when name is given and there is no such template.
 */
GQ_EXTERN int gq_podtemplate_list(gq_db *db, const char *ns, const char *name,
                                  gq_podtemplate_fn fn, void *payload, gq_error *err);

/* ------------------------------------------------------------ rendering */

typedef enum gq_format {
    GQ_FORMAT_JSON = 0,
    GQ_FORMAT_YAML,
} gq_format;

/* Output sink for rendered text: return non-zero to stop. */
typedef int (*gq_write_fn)(const char *buf, size_t len, void *payload);

/**
 * Render objects as kubectl does for -o json|yaml: one object when name is
 * given, else a List of every object the resource (and namespace; NULL is
 * all) selects. Workloads render as Kueue Workload objects with their status.
 * @return GQ_OK; GQ_ENOTFOUND; GQ_EINVALID for an unknown resource.
 */
GQ_EXTERN int gq_render(gq_db *db, const char *resource, const char *ns, const char *name,
                        const gq_workload_filter *filter, gq_format format, gq_write_fn fn,
                        void *payload, gq_error *err);

/*
 * The workload List of gq_render (-o json) written a page at a time, each page
 * read in its own transaction, so that a List of any length costs the memory
 * of a page: what gpuqd streams to an HTTP client, and its ?limit=&continue=.
 */
typedef struct gq_render_pager gq_render_pager;

/** Workloads rendered per gq_render_pager_next call at most. */
#define GQ_RENDER_PAGE 250

/**
 * A pager over the workloads filter selects (NULL: as gq_render's default),
 * starting after the workload the continue token names (NULL: the first).
 * limit 0: the whole rest, with no metadata.continue (from the first, the
 * bytes gq_render writes when nothing changes meanwhile); limit > 0: a List
 * of at most limit items, with metadata.continue when more follow.
 * @param[out] out free with gq_render_pager_free
 * @return GQ_OK; GQ_EINVALID for a bad filter version or a negative limit;
 *         GQ_ENOMEM. A token that is not one of ours is refused by the first
 *         gq_render_pager_next (GQ_EINVALID, naming it), before it writes.
 */
GQ_EXTERN int gq_render_pager_new(gq_render_pager **out, const gq_workload_filter *filter,
                                  const char *continue_token, int64_t limit, gq_error *err);

/**
 * Write the next page to fn (the first call starts the List, the last ends
 * it). db may differ from call to call (a reopened handle).
 * @param[out] done_out true once the List has been ended
 * @return GQ_OK; GQ_EBUSY before anything of the page was written; GQ_EIO;
 *         GQ_ENOMEM; fn's non-zero return.
 */
GQ_EXTERN int gq_render_pager_next(gq_render_pager *p, gq_db *db, gq_write_fn fn, void *payload,
                                   bool *done_out, gq_error *err);

/** Free p; NULL is a no-op. */
GQ_EXTERN void gq_render_pager_free(gq_render_pager *p);

/**
 * kubectl-describe-style text for one object (gq_free the result).
 * @return GQ_OK; GQ_ENOTFOUND; GQ_EINVALID for an unknown resource.
 */
GQ_EXTERN int gq_describe(gq_db *db, const char *resource, const char *ns,
                          const char *name, char **out, gq_error *err);

#ifdef __cplusplus
}
#endif

#endif
