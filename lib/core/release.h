/*
 * release.h: Kueue's startJob as a pure rule (kueue-semantics.md §2.11,
 * §3.8): what an admitted workload's pod set looks like once released, from
 * its pristine template, its assigned flavors and its ProvisioningRequests.
 * Typed structs in, typed structs out; no I/O, no JSON. The callers read the
 * inputs (the render for -o json/yaml, the cluster outbox for the unsuspend
 * patch, the ProvisioningRequest's PodTemplates, which take the flavor's
 * part only) and write the result in their own format.
 */
#ifndef GQ_RELEASE_H
#define GQ_RELEASE_H

#include <stddef.h>

#include "model.h"

#define GQ_RELEASE_PODSET_LABEL "kueue.x-k8s.io/podset"
#define GQ_RELEASE_CONSUME_ANNOTATION "autoscaling.x-k8s.io/consume-provisioning-request"
#define GQ_RELEASE_CLASS_ANNOTATION "autoscaling.x-k8s.io/provisioning-class-name"

/* A ProvisioningRequest of the workload, as its provider and its config left it. */
struct gq_release_request {
    const char *name;                             /* metadata.name */
    const char *class_name;                       /* spec.provisioningClassName; NULL: none */
    const struct gq_kvs *details;                 /* status.provisioningClassDetails (the
                                                     string values); NULL: none */
    const struct gq_psu_node_selector *selectors; /* its config's podSetUpdates.nodeSelector */
    size_t nselectors;
};

/* One pod set to release. Everything is borrowed; NULL stands for empty. */
struct gq_release_podset {
    const char *name;                        /* the pod set's name: the podset label's value */
    const struct gq_flavor *const *flavors;  /* the assigned flavors, each once, in order */
    size_t nflavors;
    const struct gq_kvs *labels;             /* the pristine template's metadata.labels */
    const struct gq_kvs *annotations;        /* its metadata.annotations */
    const struct gq_kvs *node_selector;      /* its spec.nodeSelector */
    const struct gq_toleration *tolerations; /* its spec.tolerations */
    size_t ntolerations;
};

/*
 * The released pod set: each map holds the pristine template's entries in
 * their order, then the keys the release adds, each key once; a key set
 * again keeps its place and takes the later value. The owner clears it with
 * gq__released_clear.
 */
struct gq_released {
    struct gq_kvs labels;              /* the pristine's, then the podset label */
    struct gq_kvs annotations;         /* the pristine's, then each request's two */
    struct gq_kvs node_selector;       /* the pristine's, the flavors' nodeLabels, then each
                                          request's podSetUpdates.nodeSelector */
    struct gq_toleration *tolerations; /* the pristine's (ntolerations of the input, in
                                          order), then the flavors' not already there */
    size_t ntolerations;
};

/*
 * Release pod set ps with the workload's requests (reqs, nreqs; every
 * request's updates go to every pod set):
 *  - the flavors' nodeLabels are merged into nodeSelector, the first
 *    flavor's value kept when two flavors name the same key (Kueue's
 *    FromAssignment); their tolerations are appended, each once: a
 *    toleration equal in every field (an absent string field equal to an
 *    empty one, as in Go; tolerationSeconds absent only to absent) to one
 *    already there is not added again;
 *  - the label kueue.x-k8s.io/podset is the pod set's name;
 *  - each request adds the annotations consume-provisioning-request (its
 *    name) and provisioning-class-name (its class, when it has one), and for
 *    each of its config's podSetUpdates.nodeSelector entries the key with
 *    the value of the provisioning class detail it names, skipped when the
 *    request's status has no such detail.
 * Kueue refuses an update whose key the template already sets to another
 * value; here the later value wins. Admission never gives a pod set a
 * flavor whose nodeLabels contradict its nodeSelector, so only a class
 * detail could.
 * out is overwritten (not cleared first). Returns 0, or -1 when out of
 * memory (out then holds nothing).
 */
int gq__release(struct gq_released *out, const struct gq_release_podset *ps,
                const struct gq_release_request *reqs, size_t nreqs);

/* Free what out holds and zero it. */
void gq__released_clear(struct gq_released *out);

/* Free n tolerations (their strings, then the array). */
void gq__tolerations_free(struct gq_toleration *t, size_t n);

/* Whether a and b are the same toleration (every field equal; an absent string is ""). */
bool gq__toleration_equal(const struct gq_toleration *a, const struct gq_toleration *b);

#endif
