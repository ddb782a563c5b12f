/*
 * manifest_release.h: the release rule's typed inputs (release.h) read out
 * of stored JSON, and its tolerations written back (manifest_release.c).
 * Its callers are the render (status.gpuq.release in -o json|yaml), the
 * cluster outbox (the unsuspend patch) and the ProvisioningRequest's
 * PodTemplates (manifest_provreq.c: the flavor merged into the pristine
 * template); each reads the JSON its own way and hands the objects here.
 * Internal.
 *
 * Ownership: every string in the structs below is a copy the struct owns,
 * but a request's name and class, which point into the ProvisioningRequest
 * object given to gq__mf_release_reqs_add; the caller keeps that object
 * until it has released.
 */
#ifndef GQ_MANIFEST_RELEASE_H
#define GQ_MANIFEST_RELEASE_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

#include "release.h"

/* One pod set's inputs: its pristine template's parts and its assigned flavor. */
struct gq__mf_release_podset {
    struct gq_kvs labels;              /* metadata.labels (string values only) */
    struct gq_kvs annotations;         /* metadata.annotations */
    struct gq_kvs node_selector;       /* spec.nodeSelector */
    struct gq_toleration *tolerations; /* spec.tolerations (objects only), owned */
    size_t ntolerations;
    struct gq_flavor flavor; /* the assigned one: node_labels and tolerations only */
};

/* A workload's ProvisioningRequests as the release reads them, with what they own. */
struct gq__mf_release_reqs {
    struct gq_release_request *v; /* n used, cap allocated */
    size_t n, cap;
    struct gq_kvs *details;             /* per request: its provisioningClassDetails */
    struct gq_psu_node_selector **sels; /* per request: its config's selectors, owned */
};

/*
 * Decode one pod set into out (overwritten): tmpl is its pristine template
 * ({metadata, spec}), flavor_spec the assigned ResourceFlavor's spec
 * ({nodeLabels, tolerations}); either may be NULL (empty). Members of the
 * wrong type are skipped. 0, or -1 when out of memory; clear out either way.
 */
int gq__mf_release_podset_read(struct gq__mf_release_podset *out, json_object *tmpl,
                               json_object *flavor_spec);
void gq__mf_release_podset_clear(struct gq__mf_release_podset *ps);

/*
 * Room for cap requests in q (overwritten), then each request added in
 * turn: pr the ProvisioningRequest (name and class borrowed from it),
 * status its status (provisioningClassDetails), ups its config's
 * podSetUpdates.nodeSelector (an array, or NULL). 0, or -1 when out of
 * memory or q is full; clear q either way.
 */
int gq__mf_release_reqs_init(struct gq__mf_release_reqs *q, size_t cap);
int gq__mf_release_reqs_add(struct gq__mf_release_reqs *q, json_object *pr, json_object *status,
                            json_object *ups);
void gq__mf_release_reqs_clear(struct gq__mf_release_reqs *q);

/* gq__release of the pod set named podset, decoded in ps, with the requests q (may be NULL). */
int gq__mf_release(struct gq_released *out, const char *podset,
                   const struct gq__mf_release_podset *ps, const struct gq__mf_release_reqs *q);

/* The pristine template of pod set podset in a stored Workload ({spec: {podSets}}), or NULL. */
json_object *gq__mf_release_pristine(json_object *workload, const char *podset);

/* The first flavor of a podSetAssignment's flavors map (borrowed), or NULL. */
const char *gq__mf_release_flavor(json_object *assignment);

/*
 * A job of a kind of the integration table, edited in place (cluster mode's
 * release and eviction of kinds other than Job): the pod template of pod
 * set podset in root, by the row (with create, a one-object entry's missing
 * template is made, as for a RayJob's default submitter); NULL when the
 * object has no such pod set.
 */
struct gq_integration;
json_object *gq__mf_integration_template(json_object *root, const struct gq_integration *row,
                                         const char *podset, bool create);
/* root's member at a dotted path set to value (taken), the steps made; -1 when it cannot be. */
int gq__mf_integration_set(json_object *root, const char *path, json_object *value);

/* A toleration as the canonical encoder writes one (key order of manifest_schema.c). */
json_object *gq__mf_toleration_json(const struct gq_toleration *t);

#endif
