/*
 * store_read.h: the reads behind the read side of the API (describe, the
 * listings, metrics and the run summary), each a named function that returns
 * typed structs or calls a typed per-row callback (store_read.c). Internal to
 * libgpuqueue; no SQLite type crosses this header.
 *
 * Common rules. Row callbacks get a struct whose strings are borrowed for the
 * call; a non-zero return stops the walk and is returned. Rows whose columns
 * cannot have the shape they have (a NULL or a type the schema rules out) are
 * GQ_EIO with gq__store_damaged's message, where the reads checked them
 * before. Other failures are GQ_EIO (or GQ_ENOMEM, GQ_EBUSY) with SQLite's
 * message. Reads run in the caller's transaction when there is one.
 */
#ifndef GQ_STORE_READ_H
#define GQ_STORE_READ_H

#include <stdbool.h>
#include <stdint.h>

#include "gpuqueue/db.h"
#include "gpuqueue/run.h"
#include "model.h"
#include "state.h"
#include "store.h"

/* One line of text a read yields (a label, a name, a formatted list entry). */
typedef int (*gq__text_fn)(const char *text, void *payload);

/* ================================================================ describe */

/* "key=value" of the object's metadata.labels, by key. */
int gq__store_spec_labels(struct gq_store *st, const char *spec, gq__text_fn fn, void *payload,
                          gq_error *err);

/* "key: value" of its metadata.annotations, by key, each value on one line (see below). */
int gq__store_spec_annotations(struct gq_store *st, const char *spec, gq__text_fn fn,
                               void *payload, gq_error *err);

/*
 * Text that describe prints in a cell is made one line by the reads: a
 * newline as "\n", a tab or form feed as a space (the cells' and the
 * tabwriter's marks).
 */

/* How many events the object with this UID has. */
int gq__store_event_count(struct gq_store *st, const char *uid, int64_t *out, gq_error *err);

struct gq_event_row {
    const char *type;    /* Normal | Warning */
    const char *reason;
    int64_t at_ms;
    const char *message; /* trimmed, on one line */
};
typedef int (*gq__event_fn)(const struct gq_event_row *e, void *payload);

/* The events of the object with this UID, oldest first. */
int gq__store_events_of(struct gq_store *st, const char *uid, gq__event_fn fn, void *payload,
                        gq_error *err);

/* One node of a JSON document, depth first (SQLite's json_tree). */
struct gq_json_node {
    const char *key;   /* member name, array index as text; NULL at the top */
    const char *type;  /* object, array, text, integer, real, true, false, null */
    const char *value; /* a scalar as describe prints it ("<nil>" for null), on one line */
    int64_t id;
    bool top;          /* the node at path itself: it has no parent */
    int64_t parent;    /* id of the enclosing node unless top */
};
typedef int (*gq__json_node_fn)(const struct gq_json_node *n, void *payload);

/*
 * The nodes at and below path in json. skip_meta leaves out the top level's
 * apiVersion, kind and metadata.
 */
int gq__store_json_tree(struct gq_store *st, const char *json, const char *path, bool skip_meta,
                        gq__json_node_fn fn, void *payload, gq_error *err);

/* A queue object's row, as describe reads it. Strings are owned (gq__store_detail_clear). */
struct gq_obj_detail {
    bool found;
    char *ns;           /* LocalQueue; NULL for the other kinds */
    char *name;
    char *uid;
    char *spec;         /* canonical JSON */
    bool has_created;
    int64_t created_ms;
    char *cohort;        /* ClusterQueue: its cohort; Cohort: its parent */
    char *strategy;      /* ClusterQueue: queueing strategy */
    char *stop_policy;   /* ClusterQueue, LocalQueue */
    char *ns_selector;   /* ClusterQueue: namespaceSelector as kubectl prints a LabelSelector */
    char *within_cq;     /* ClusterQueue: preemption.withinClusterQueue, Never by default */
    char *reclaim;       /* ClusterQueue: preemption.reclaimWithinCohort */
    char *borrow;        /* ClusterQueue: preemption.borrowWithinCohort.policy */
    char *cluster_queue; /* LocalQueue */
    char *topology;      /* ResourceFlavor: spec.topologyName */
    char *api_version;   /* the other kinds: the object's apiVersion and kind */
    char *kind;
};

/*
 * Read the object of kind (ns for LocalQueues) named name into out; out->found
 * false when there is none. GQ_EINVALID ("cannot describe a ...") for a kind
 * with no table of its own (Job, Workload, ProvisioningRequest, ...).
 */
int gq__store_object_detail(struct gq_store *st, enum gq_kind kind, const char *ns,
                            const char *name, struct gq_obj_detail *out, gq_error *err);
void gq__store_obj_detail_clear(struct gq_obj_detail *d);

/* A LocalQueue's admission fair sharing status (schema/0016). */
struct gq_lq_afs {
    char *consumed; /* "resource=quantity" lines; NULL when it has no status */
    char *weight;   /* spec.fairSharing.weight as written ("1" when absent) */
    int64_t last_ms; /* lastUpdate */
};
int gq__store_lq_afs(struct gq_store *st, const char *ns, const char *name, struct gq_lq_afs *out,
                     gq_error *err);
void gq__store_lq_afs_clear(struct gq_lq_afs *a);

/* One quota row of a ClusterQueue's or Cohort's spec.resourceGroups, as stored (text). */
struct gq_group_row {
    const char *flavor, *resource;
    const char *nominal, *borrowing_limit, *lending_limit; /* NULL when unset */
    int64_t usage; /* the ClusterQueue's usage of it, accounting units; 0 for a Cohort */
};
typedef int (*gq__group_fn)(const struct gq_group_row *g, void *payload);

/* The quotas in spec, in order, with what cluster_queue (NULL: none) uses of each. */
int gq__store_quota_groups(struct gq_store *st, const char *spec, const char *cluster_queue,
                           gq__group_fn fn, void *payload, gq_error *err);

/* A ClusterQueue spec's admission checks: "name" or "name (flavors: a, b)". */
int gq__store_cq_checks(struct gq_store *st, const char *spec, gq__text_fn fn, void *payload,
                        gq_error *err);

/* A ResourceFlavor spec's nodeLabels "k=v", nodeTaints "k=v:Effect" and tolerations, kubectl's way. */
int gq__store_flavor_labels(struct gq_store *st, const char *spec, gq__text_fn fn, void *payload,
                            gq_error *err);
int gq__store_flavor_taints(struct gq_store *st, const char *spec, gq__text_fn fn, void *payload,
                            gq_error *err);
int gq__store_flavor_tolerations(struct gq_store *st, const char *spec, gq__text_fn fn,
                                 void *payload, gq_error *err);

/* The ClusterQueues with quota in a flavor; the members and the child cohorts of a cohort. */
int gq__store_flavor_users(struct gq_store *st, const char *flavor, gq__text_fn fn, void *payload,
                           gq_error *err);
int gq__store_cohort_members(struct gq_store *st, const char *cohort, gq__text_fn fn,
                             void *payload, gq_error *err);
int gq__store_cohort_children(struct gq_store *st, const char *cohort, gq__text_fn fn,
                              void *payload, gq_error *err);

/* What describe shows of a workload beyond its listing. Owned (gq__store_wl_detail_clear). */
struct gq_wl_detail {
    bool found;
    int64_t id;
    char *spec;             /* canonical Workload JSON */
    char *admission;        /* JSON of status.admission; NULL if none */
    int64_t priority;
    int64_t queued_at;      /* queue-order time */
    char *evicted_reason;   /* the last eviction Kueue would still show; NULL if none */
    char *evicted_message;
    char *preempted_reason; /* NULL if it was no preemption */
    int64_t evictions;
    bool has_duration;      /* gpuq.dev/duration given */
    int64_t duration_ms;
    char *pods_ready_reason; /* the PodsReady condition's reason; NULL: none */
    int64_t pods_ready_at;
    int64_t requeue_count;  /* PodsReady timeouts (status.requeueState.count) */
};

/* The workload of this UID; out->found false when there is none. */
int gq__store_workload_detail(struct gq_store *st, const char *uid, struct gq_wl_detail *out,
                              gq_error *err);
void gq__store_wl_detail_clear(struct gq_wl_detail *w);

/* One request of one pod set of a workload, by pod set then resource. */
struct gq_podset_row {
    const char *podset;   /* its name */
    const char *count;    /* its pod count as stored */
    const char *resource; /* NULL: the pod set requests nothing */
    const char *per_pod;  /* the canonical quantity per pod */
    int64_t amount;       /* per pod in accounting units (cpu: milli); 0 without per_pod */
};
typedef int (*gq__podset_fn)(const struct gq_podset_row *p, void *payload);

int gq__store_workload_podsets(struct gq_store *st, const char *uid, gq__podset_fn fn,
                               void *payload, gq_error *err);

/* A pending workload ahead of another in its ClusterQueue. */
struct gq_ahead_row {
    const char *ns, *name;
    int64_t priority, gpus;
    int64_t queued_at;
    const char *reason; /* why it waits; may be NULL */
};
typedef int (*gq__ahead_fn)(const struct gq_ahead_row *a, void *payload);

/*
 * The first ten pending workloads of cluster_queue ahead of w in heap order
 * (priority, queue-order time, submission).
 */
int gq__store_queue_ahead(struct gq_store *st, const char *cluster_queue,
                          const struct gq_wl_detail *w, gq__ahead_fn fn, void *payload,
                          gq_error *err);

/* A ProvisioningRequest's spec.parameters ("key:", value), podSets and status conditions. */
struct gq_param_row {
    const char *label; /* the key and a colon */
    const char *value; /* on one line */
};
struct gq_pr_podset_row {
    const char *template_name, *count;
};
struct gq_condition_row {
    const char *type, *status, *reason, *message; /* message on one line, "" if none */
};
typedef int (*gq__param_fn)(const struct gq_param_row *p, void *payload);
typedef int (*gq__pr_podset_fn)(const struct gq_pr_podset_row *p, void *payload);
typedef int (*gq__condition_fn)(const struct gq_condition_row *c, void *payload);

int gq__store_provreq_parameters(struct gq_store *st, const char *spec, gq__param_fn fn,
                                 void *payload, gq_error *err);
int gq__store_provreq_podsets(struct gq_store *st, const char *spec, gq__pr_podset_fn fn,
                              void *payload, gq_error *err);
int gq__store_provreq_conditions(struct gq_store *st, const char *status, gq__condition_fn fn,
                                 void *payload, gq_error *err);

/* ================================================================= listing */

/* Which states a workload listing selects. */
enum gq_wl_select {
    GQ_WL_SELECT_NOT_CANCELLED, /* every state but cancelled */
    GQ_WL_SELECT_EVERY,
    GQ_WL_SELECT_ADMITTED,      /* admitted or running */
    GQ_WL_SELECT_RESERVED,
    GQ_WL_SELECT_IN_STATE,      /* the state named by state, in any case */
};

/* A workload listing's filter and page, in the order (namespace, created, id). */
struct gq_wl_query {
    const char *ns;            /* NULL: every namespace */
    const char *local_queue;   /* NULL: any */
    const char *cluster_queue; /* NULL: any (the LocalQueue's when none is reserved) */
    const char *name;          /* workload or job name; NULL: any */
    enum gq_wl_select select;
    const char *state;         /* GQ_WL_SELECT_IN_STATE */
    int64_t limit;             /* > 0: at most limit rows; 0: every row */
    bool has_after;            /* rows after this key only */
    const char *after_ns;
    int64_t after_created;
    int64_t after_id;
};

/* A workload's row as listing reads it. */
struct gq_wl_row {
    int64_t id;
    const char *ns, *name, *uid, *job_kind, *job_name;
    const char *local_queue;   /* may be NULL */
    const char *cluster_queue; /* reserved in, else its LocalQueue's; may be NULL */
    const char *state;
    enum gq_wl_state parsed;   /* state's; GQ_WL_NSTATES: text outside state.h's table */
    const char *reason, *message, *priority_class; /* may be NULL */
    int64_t priority, pods, gpus;
    int64_t created_ms;
    int64_t requeue_ms, admitted_ms, finished_ms, started_ms, reserved_ms; /* 0: not yet */
    const char *podset_counts;   /* "launcher:1,worker:2"; NULL in a row older than 0014 */
    const char *job_api_version; /* NULL: batch/v1 Job or Workload */
    const char *cluster_name;    /* the MultiKueue worker that admitted it (0018); NULL */
    const char *pods_ready_reason; /* its PodsReady condition's reason (0015); NULL: none */
    int64_t pods_ready_ms;         /* and that condition's lastTransitionTime; 0 */
};
typedef int (*gq__wl_row_fn)(const struct gq_wl_row *w, void *payload);

int gq__store_workloads(struct gq_store *st, const struct gq_wl_query *q, gq__wl_row_fn fn,
                        void *payload, gq_error *err);

/* A pending workload in queue order: id and the queue it is in. */
struct gq_queue_pos {
    int64_t id;
    const char *ns;    /* LocalQueue order: its namespace; ClusterQueue order: "" */
    const char *queue; /* its LocalQueue, or its ClusterQueue */
};
typedef int (*gq__queue_pos_fn)(const struct gq_queue_pos *p, void *payload);

/* Pending workloads (of ns; NULL: all) in each LocalQueue's order, queue by queue. */
int gq__store_lq_order(struct gq_store *st, const char *ns, gq__queue_pos_fn fn, void *payload,
                       gq_error *err);
/* Pending workloads in each ClusterQueue's heap order, queue by queue. */
int gq__store_cq_order(struct gq_store *st, gq__queue_pos_fn fn, void *payload, gq_error *err);

/* A queue object's row as listing reads it (the fields of gq_object_info the store has). */
struct gq_object_row {
    const char *ns, *name, *cluster_queue, *cohort, *strategy, *stop_policy;
    const char *detail;   /* labels "k=v,..."; a priority class's value; a check's controller */
    const char *inactive; /* ClusterQueue: "Reason: detail" when it cannot admit; NULL */
    int64_t pending, reserving, admitted, created_ms;
    bool pool;            /* a NodePool: the fields below are read */
    int64_t gpus_per_node, min_nodes, max_nodes, stockout;
    const char *provisioning_time; /* as stored; NULL if absent */
};
typedef int (*gq__object_row_fn)(const struct gq_object_row *o, void *payload);

/* Whether gq__store_objects lists kind. */
bool gq__store_object_listable(enum gq_kind kind);

/* Every object of kind by name (LocalQueues: of ns, NULL all); GQ_EINVALID if not listable. */
int gq__store_objects(struct gq_store *st, enum gq_kind kind, const char *ns,
                      gq__object_row_fn fn, void *payload, gq_error *err);

/*
 * The live ProvisioningRequests (of ns, named name; NULL: any), by namespace
 * and name. A status that is not valid JSON reads as none.
 */
int gq__store_provreqs(struct gq_store *st, const char *ns, const char *name, gq_provreq_fn fn,
                       void *payload, gq_error *err);

/* Their PodTemplates likewise; the rows' uid is NULL (a template has none stored). */
int gq__store_podtemplates(struct gq_store *st, const char *ns, const char *name,
                           gq_podtemplate_fn fn, void *payload, gq_error *err);

/* ================================================================= metrics */

/* The metric families read off one query each (api_metrics.c names them). */
enum gq_metric_query {
    GQ_METRIC_PENDING,            /* cluster_queue, status (active | inadmissible) */
    GQ_METRIC_RESERVING,          /* cluster_queue */
    GQ_METRIC_ADMITTED_ACTIVE,    /* cluster_queue */
    GQ_METRIC_QUOTA_RESERVED,     /* cluster_queue: QuotaReserved events */
    GQ_METRIC_ADMITTED,           /* cluster_queue: admissions */
    GQ_METRIC_EVICTED,            /* cluster_queue, reason */
    GQ_METRIC_RESERVATION,        /* cohort, cluster_queue, flavor, resource (cpu in cores) */
    GQ_METRIC_USAGE,              /* the same four */
    GQ_METRIC_NOMINAL,
    GQ_METRIC_BORROWING_LIMIT,
    GQ_METRIC_LENDING_LIMIT,
    GQ_METRIC_PROVREQS,           /* cluster_queue, state */
    GQ_METRIC_RESOURCE_PENDING,   /* cluster_queue, resource: pending workloads' requests */
    /* Per LocalQueue, labelled name and namespace first, as Kueue's local_queue_* families: */
    GQ_METRIC_LQ_PENDING,         /* name, namespace, status */
    GQ_METRIC_LQ_RESERVING,       /* name, namespace */
    GQ_METRIC_LQ_ADMITTED_ACTIVE, /* name, namespace */
    GQ_METRIC_LQ_QUOTA_RESERVED,  /* name, namespace */
    GQ_METRIC_LQ_ADMITTED,        /* name, namespace */
    GQ_METRIC_LQ_EVICTED,         /* name, namespace, reason */
    GQ_METRIC_LQ_STATUS,          /* name, namespace, active (True | False | Unknown) */
    GQ_METRIC_LQ_RESERVATION,     /* name, namespace, flavor, resource */
    GQ_METRIC_LQ_USAGE,           /* the same four */
};

/* One sample: its label values in the family's order, its value as SQLite prints it. */
struct gq_metric_row {
    const char *labels[4]; /* as many as the family has */
    const char *value;     /* NULL: unset (a limit: +Inf) */
};
typedef int (*gq__metric_fn)(const struct gq_metric_row *m, void *payload);

/* The samples of one family, now_ms the database's clock. */
int gq__store_metric(struct gq_store *st, enum gq_metric_query which, int64_t now_ms,
                     gq__metric_fn fn, void *payload, gq_error *err);

/*
 * A quota reservation or admission with the time since its workload last
 * became pending; an admission that waited for admission checks also with
 * the time since its quota reservation.
 */
struct gq_wait_row {
    const char *cluster_queue;
    const char *namespace, *local_queue; /* the workload's LocalQueue; may be NULL */
    bool reserved; /* a QuotaReserved event */
    bool admitted; /* an admission */
    bool checked;  /* an admission after admission checks: checks_ms is set */
    int64_t wait_ms;
    int64_t checks_ms;
    bool ready;          /* PodsReady turned True, Started (waitForPodsReady): wait_ms is set */
    bool admitted_ready; /* and admitted_ready_ms, the time since its admission */
    int64_t admitted_ready_ms;
};
typedef int (*gq__wait_fn)(const struct gq_wait_row *w, void *payload);

/*
 * Every such event, ordered by ClusterQueue; by_local_queue: only those of
 * workloads with a LocalQueue, ordered by namespace and LocalQueue.
 */
int gq__store_waits(struct gq_store *st, bool by_local_queue, gq__wait_fn fn, void *payload,
                    gq_error *err);

/* ================================================================= summary */

/* Each job submitted since since_ms (not cancelled) with its time per state, now now_ms. */
int gq__store_summary_jobs(struct gq_store *st, int64_t since_ms, int64_t now_ms,
                           gq_summary_job_fn fn, void *payload, gq_error *err);
/* The same jobs' outcomes per ClusterQueue. */
int gq__store_summary_queues(struct gq_store *st, int64_t since_ms, int64_t now_ms,
                             gq_summary_queue_fn fn, void *payload, gq_error *err);

/*
 * For tests only (tests/test_metrics_scale.c): the text of a metric's
 * statement, NULL past the last, so that a test can count the VM steps it
 * takes on a large database. ?1, where used, is now in ms.
 */
const char *gq__store_metric_sql(int which);

#endif
