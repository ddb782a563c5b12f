/*
 * store_render.h: the reads behind -o json|yaml (api/render.c: the stored
 * objects, a queue's flavors, a workload's row and admission checks), the
 * release's inputs (a flavor's spec, a workload's requests), which -o json
 * and cluster mode's outbox share, and the outbox's own reads
 * (engine/sync_outbox.c), each a named function that returns owned C values
 * or calls a typed callback (store_render.c). Internal to libgpuqueue; no
 * SQLite type crosses this header.
 *
 * Common rules. A row whose columns cannot have the shape they have (a NULL
 * or a type the schema rules out) is GQ_EIO with gq__store_damaged's
 * message, where a shape is said below. Other failures are GQ_EIO (or
 * GQ_ENOMEM, GQ_EBUSY) with SQLite's message. Reads run in the caller's
 * transaction when there is one; outside one they first fold the engine's
 * journal, as every read does.
 */
#ifndef GQ_STORE_RENDER_H
#define GQ_STORE_RENDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store.h"

/* ------------------------------------------------------- release's inputs */

/* The stored spec (JSON) of the ResourceFlavor name: *out malloc'd, NULL when there is none. */
int gq__store_flavor_spec(struct gq_store *st, const char *name, char **out, gq_error *err);

/*
 * One live ProvisioningRequest of a workload, as the release reads it: its
 * stored object, its PodTemplates (a JSON array), its status (NULL: none)
 * and its config's podSetUpdates.nodeSelector (JSON; NULL: none). Valid
 * during the callback only.
 */
struct gq__release_request {
    const char *spec, *templates, *status, *updates;
};
typedef int (*gq__release_request_fn)(const struct gq__release_request *r, void *payload,
                                      gq_error *err);
/*
 * fn for each live request of the workload whose uid is wuid, by check name
 * and attempt (shape: spec and templates text, never NULL). A non-zero
 * return of fn stops and is returned.
 */
int gq__store_release_requests(struct gq_store *st, const char *wuid, gq__release_request_fn fn,
                               void *payload, gq_error *err);

/* ---------------------------------------------------------- -o json|yaml */

/*
 * One stored object of a kind that has its own table (every kind but
 * workloads, Jobs, ProvisioningRequests and PodTemplates). Valid during the
 * callback only.
 */
struct gq__render_object {
    const char *ns;               /* LocalQueue's namespace; NULL for the other kinds */
    const char *name, *uid, *spec; /* spec: its canonical JSON */
    int64_t created_ms, updated_ms;
    const char *cluster_queue;    /* LocalQueue: its ClusterQueue; NULL for the other kinds */
    const char *stop_policy;      /* LocalQueue: NULL when it has none */
    const char *afs_consumed;     /* LocalQueue: admission fair sharing's consumed resources,
                                     "resource=quantity" lines; NULL when it has no status */
    int64_t afs_last_ms;          /* LocalQueue: that status's lastUpdate */
};
typedef int (*gq__render_object_fn)(const struct gq__render_object *o, void *payload,
                                    gq_error *err);
/*
 * fn for each object of kind by name (LocalQueues by namespace, then name),
 * of namespace ns (LocalQueues only; NULL: all) and named name (NULL: all).
 * Shape: name, uid and spec never NULL, the times integers. GQ_EINVALID for
 * a kind without a table of its own. A non-zero return of fn stops and is
 * returned.
 */
int gq__store_render_objects(struct gq_store *st, enum gq_kind kind, const char *ns,
                             const char *name, gq__render_object_fn fn, void *payload,
                             gq_error *err);

/*
 * One (flavor, resource) of a ClusterQueue's quotas with what is held in it:
 * reserved counts every workload holding quota, admitted those admitted or
 * running. Valid during the callback only.
 */
struct gq__render_flavor {
    const char *flavor, *resource;
    int64_t nominal, reserved, admitted;
};
typedef int (*gq__render_flavor_fn)(const struct gq__render_flavor *f, void *payload,
                                    gq_error *err);
/*
 * fn for each (flavor, resource) of ClusterQueue cq, in the order of its
 * spec (resource group, flavor, covered resource). With lq, what is held
 * counts only the workloads of LocalQueue lq in namespace ns. Shape: flavor
 * and resource text, the amounts integers.
 */
int gq__store_render_flavors(struct gq_store *st, const char *cq, const char *ns, const char *lq,
                             gq__render_flavor_fn fn, void *payload, gq_error *err);

/* A workload's columns behind its Workload object. Valid during the callback only. */
struct gq__render_workload {
    const char *spec;      /* canonical JSON, never NULL */
    const char *admission; /* status.admission (JSON); NULL when it holds no quota */
    int64_t updated_ms;
    const char *evicted_reason, *evicted_message, *preempted_reason; /* NULL: none */
    int64_t evicted_ms;    /* 0: never */
    int64_t evictions;
    bool has_duration;     /* false: it runs until cancelled */
    int64_t duration_ms;
    const char *pods_ready_reason; /* the PodsReady condition's reason; NULL: none (0015) */
    int64_t pods_ready_ms;
    int64_t requeue_count; /* status.requeueState: count (0: none) */
    int64_t requeue_ms;    /* and requeueAt (0: none) */
};
typedef int (*gq__render_workload_fn)(const struct gq__render_workload *w, void *payload,
                                      gq_error *err);
/* fn once for the workload whose uid is uid, if there is one. */
int gq__store_render_workload(struct gq_store *st, const char *uid, gq__render_workload_fn fn,
                              void *payload, gq_error *err);

/* One admission check of a workload. Valid during the callback only. */
struct gq__render_check {
    const char *name, *state; /* never NULL */
    const char *message;      /* NULL: none */
    int64_t updated_ms;
};
typedef int (*gq__render_check_fn)(const struct gq__render_check *c, void *payload,
                                   gq_error *err);
/* fn for each admission check of the workload whose uid is uid, by name. */
int gq__store_render_checks(struct gq_store *st, const char *uid, gq__render_check_fn fn,
                            void *payload, gq_error *err);

/* ----------------------------------------------------------------- outbox */

/*
 * One row of the outbox's work: a workload (give back, gone, release,
 * suspend) or a ProvisioningRequest (create, delete). Text is malloc'd,
 * NULL for SQL NULL; which members a read fills is said at the read.
 */
struct gq__outbox_item {
    int64_t id;                 /* the workload's, or the request's */
    char *ns, *name;            /* the workload's, or the request's */
    char *job, *uid;            /* the workload's Job and uid */
    char *kube_error, *state;   /* give back */
    char *job_rv;               /* release, suspend */
    int64_t evictions;          /* release, suspend */
    char *spec, *admission;     /* release: the workload's; create: spec is the request's */
    char *templates;            /* create, delete: the request's PodTemplates */
    char *kube_uid;             /* delete: the request's uid in the cluster */
    int64_t wid;                /* create: the request's workload */
    char *wname;                /* create: the workload's name */
    char *job_kind;             /* the workload's job's kind ("Job", "JobSet", ...) */
    char *job_api_version;      /* its apiVersion; NULL: batch/v1 */
};
struct gq__outbox_items {
    struct gq__outbox_item *v;
    size_t n;
};
void gq__outbox_items_free(struct gq__outbox_items *items);

/*
 * The outbox's reads, by id, at most max rows each (the loop polls again);
 * *out is filled (empty on failure). now_ms is the store's clock.
 *
 * give_back: workloads holding quota whose writes were refused since
 *   before since_ms (id, ns, name, job, uid, kube_error, state);
 * gone: workloads whose Job is gone (id, ns, name, job, uid);
 * create: live requests not yet created, of reserved workloads with a
 *   Job, due at now_ms (id, ns, name, spec, templates, uid, job, wid, wname);
 * delete: deleted requests the cluster may still hold (id, ns, name,
 *   kube_uid, templates, uid: NULL when the workload is gone);
 * release: admitted workloads with a Job, due at now_ms (id, ns, name, job,
 *   uid, job_rv, evictions, spec, admission);
 * suspend: pending, reserved or deactivated workloads whose Job runs, due at
 *   now_ms, evicted or (unadmitted) any (id, ns, name, job, uid, job_rv,
 *   evictions).
 *
 * Due: not refused, or the backoff is over, or the Job changed since.
 */
int gq__store_outbox_give_back(struct gq_store *st, int64_t since_ms, size_t max,
                               struct gq__outbox_items *out, gq_error *err);
int gq__store_outbox_gone(struct gq_store *st, size_t max, struct gq__outbox_items *out,
                          gq_error *err);
int gq__store_outbox_create(struct gq_store *st, int64_t now_ms, size_t max,
                            struct gq__outbox_items *out, gq_error *err);
int gq__store_outbox_delete(struct gq_store *st, size_t max, struct gq__outbox_items *out,
                            gq_error *err);
int gq__store_outbox_release(struct gq_store *st, int64_t now_ms, size_t max,
                             struct gq__outbox_items *out, gq_error *err);
int gq__store_outbox_suspend(struct gq_store *st, int64_t now_ms, bool unadmitted, size_t max,
                             struct gq__outbox_items *out, gq_error *err);

#endif
