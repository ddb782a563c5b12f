/*
 * manifest_print.h: the -o json|yaml printer (manifest_render.c), as
 * gq_render (api/render.c) drives it. The API reads the store and hands
 * each object's data here as typed values; this side builds the object as
 * kubectl shows it (a json-c tree that never leaves lib/manifest/) and
 * prints it: JSON with kubectl's four-space indent, or YAML through
 * libyaml. Internal to libgpuqueue.
 *
 * A printer writes one document (one object, or a List) through the
 * caller's gq_write_fn, in chunks: nothing reaches the sink before the
 * first chunk is full or the document ends, so a read transaction retried
 * before then is undone by gq__mf_printer_reset alone.
 *
 * An object is built in steps, in the order of its keys: begin (its stored
 * spec with the metadata the API server adds, and the start of its status),
 * then its rows (a queue's flavors; a workload's checks and requests), then
 * print, which writes it; free forgets it either way. Strings handed in are
 * borrowed for the call only.
 *
 * Returns: the begin calls GQ_OK, or GQ__MF_NOT_OBJECT when the stored spec
 * (or object) is not a JSON object, with err untouched and *out NULL: the
 * caller says which database is damaged (gq__store_damaged). Print and the
 * printer's own calls: GQ_OK, the sink's non-zero return, GQ_ENOMEM, or
 * GQ_ERROR with libyaml's complaint.
 */
#ifndef GQ_MANIFEST_PRINT_H
#define GQ_MANIFEST_PRINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuqueue/db.h"
#include "model.h"

/* A stored spec that is not a JSON object (above): positive, unlike the codes. */
#define GQ__MF_NOT_OBJECT 1

/*
 * The stored spec of ResourceFlavor name, malloc'd (the printer frees it),
 * or NULL when there is none or it cannot be read: the release then leaves
 * the flavor's labels and tolerations out, as it always has.
 */
typedef char *(*gq__mf_flavor_fn)(const char *name, void *payload);

struct gq__mf_printer;
struct gq__mf_item; /* one object being built */

/*
 * A printer of one document in format: a List when list, else one object.
 * flavor_fn gives the flavors' specs the release reads (each asked once
 * per printer and kept).
 */
int gq__mf_printer_new(struct gq__mf_printer **out,
                       gq_format format,
                       bool list,
                       gq_write_fn fn,
                       void *payload,
                       gq__mf_flavor_fn flavor_fn,
                       void *flavor_payload,
                       gq_error *err);
void gq__mf_printer_free(struct gq__mf_printer *p);
/* Forget a rolled-back attempt (nothing of it has reached the sink); flavors stay known. */
void gq__mf_printer_reset(struct gq__mf_printer *p);
/* A pager's next page: n items written before, and whether the List's head was. */
void gq__mf_printer_resume(struct gq__mf_printer *p, size_t n, bool begun);
/* Items written so far (with the resumed ones). */
size_t gq__mf_printer_count(const struct gq__mf_printer *p);
/* Whether anything has reached the sink: a busy database can no longer be retried. */
bool gq__mf_printer_wrote(const struct gq__mf_printer *p);
/* Start the document if it is not, and hand the sink what the buffer holds (a page's end). */
int gq__mf_printer_flush(struct gq__mf_printer *p);
/* End the document (a List's metadata.continue cont, NULL for none) and flush. */
int gq__mf_printer_end(struct gq__mf_printer *p, const char *cont);

/* ------------------------------------------------- objects with a table */

/* One stored object (store_render.h's gq__render_object, as gq_render reads it). */
struct gq__mf_object {
    enum gq_kind kind;
    const char *ns; /* LocalQueue only */
    const char *name, *uid, *spec;
    int64_t created_ms, updated_ms;
    const char *cluster_queue; /* LocalQueue: its ClusterQueue */
    const char *stop_policy;   /* LocalQueue: NULL when none */
    const char *afs_consumed;  /* LocalQueue: admission fair sharing's consumedResources as
                                  "resource=quantity" lines; NULL: no such status */
    int64_t afs_last_ms;       /* LocalQueue: its lastUpdate */
};

/* A queue's counts and state as gq_object_list gives them; NULL where a queue is missing. */
struct gq__mf_queue {
    const char *inactive; /* ClusterQueue: "Reason: detail", NULL when active */
    int64_t pending, reserving, admitted;
};

/* One (flavor, resource) of a queue's ClusterQueue with what is held in it. */
struct gq__mf_flavor {
    const char *flavor, *resource;
    int64_t nominal, reserved, admitted;
};

int gq__mf_object_begin(struct gq__mf_printer *p,
                        const struct gq__mf_object *o,
                        struct gq__mf_item **out);
/*
 * The status of o, a ClusterQueue or a LocalQueue: the Active condition and
 * the counts. self is the queue's own listing, cq (LocalQueues) its
 * ClusterQueue's. Its flavors follow, one gq__mf_queue_flavor each.
 */
void gq__mf_queue_status(struct gq__mf_item *it,
                         const struct gq__mf_object *o,
                         const struct gq__mf_queue *self,
                         const struct gq__mf_queue *cq);
void gq__mf_queue_flavor(struct gq__mf_item *it, const struct gq__mf_flavor *f);

/* -------------------------------------------------------------- workloads */

/* A workload's row (store_render.h's gq__render_workload). */
struct gq__mf_workload {
    const char *spec, *admission;
    int64_t updated_ms;
    const char *evicted_reason, *evicted_message, *preempted_reason;
    int64_t evicted_ms, evictions;
    bool has_duration;
    int64_t duration_ms;
    const char *pods_ready_reason; /* NULL: no PodsReady condition */
    int64_t pods_ready_ms;
    int64_t requeue_count, requeue_ms; /* status.requeueState; 0: none */
    int64_t now_ms; /* the database's clock: whether the backoff is over */
};

/* One admission check of a workload. */
struct gq__mf_check {
    const char *name, *state, *message;
    int64_t updated_ms;
};

/* One live ProvisioningRequest of a workload, as stored (text JSON; status, updates: NULL). */
struct gq__mf_request {
    const char *spec, *templates, *status, *updates;
};

/* wl stays the caller's until the item is printed or freed. */
int gq__mf_workload_begin(struct gq__mf_printer *p,
                          const gq_workload_info *wl,
                          const struct gq__mf_workload *row,
                          struct gq__mf_item **out);
/* Whether the workload holds quota, so that its checks and requests are shown. */
bool gq__mf_workload_holds(const struct gq__mf_item *it);
void gq__mf_workload_check(struct gq__mf_item *it, const struct gq__mf_check *c);
void gq__mf_workload_request(struct gq__mf_item *it, const struct gq__mf_request *r);

/* Write the item (a workload: with its checks, requests and release) as the next item. */
int gq__mf_item_print(struct gq__mf_printer *p, struct gq__mf_item *it);
void gq__mf_item_free(struct gq__mf_item *it);

/* ------------------------------------------- requests and their templates */

/* One ProvisioningRequest, or one PodTemplate, as stored: pr and pt are borrowed until print. */
int gq__mf_provreq_begin(struct gq__mf_printer *p,
                         const gq_provreq_info *pr,
                         struct gq__mf_item **out);
int gq__mf_podtemplate_begin(struct gq__mf_printer *p,
                             const gq_podtemplate_info *pt,
                             struct gq__mf_item **out);

#endif
