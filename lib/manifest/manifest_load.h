/*
 * manifest_load.h: the json-free face of the manifest module: read a path or
 * a buffer and get decoded objects, or encode an object to canonical JSON
 * text. Internal. Everything json-c and libyaml stays behind manifest*.c.
 */
#ifndef GQ_MANIFEST_LOAD_H
#define GQ_MANIFEST_LOAD_H

#include "gpuqueue/common.h"
#include "integration.h"
#include "model.h"

struct gq_decode_options {
    /*
     * The namespace given with -n, or NULL: namespaced kinds without
     * metadata.namespace get it ("default" when NULL), and a document naming
     * another one is refused, as kubectl refuses it.
     */
    const char *default_namespace;
    /* The user's rows of the integration table (Integration objects); NULL: none. */
    const struct gq_integrations *integrations;
    /* The ClusterTrainingRuntimes a TrainJob may name (decoded objects), nruntimes of them. */
    const struct gq_object *runtimes;
    size_t nruntimes;
    /*
     * Note in each object the fields its API does not know (unknown_fields)
     * and those given that gpuq does not enforce (not_enforced); with
     * strict_fields an unknown field is an error instead. Off for documents
     * gpuq wrote itself.
     */
    bool check_fields;
    bool strict_fields;
};

/*
 * What adjusts a workload's requests before quota counts them, as Kueue's
 * AdjustResources and ValidateAdmissibility do (manifest_adjust.c): the
 * LimitRanges (nlr decoded objects), the RuntimeClasses (nrc) and the
 * Configuration's resources block (cfg, may be NULL), all copied. *out is
 * NULL when nothing would change a request.
 */
struct gq_adjust;
int gq__manifest_adjust_new(struct gq_adjust **out, const struct gq_object *lrs, size_t nlr,
                            const struct gq_object *rcs, size_t nrc,
                            const struct gq_configuration *cfg, gq_error *err);
void gq__manifest_adjust_free(struct gq_adjust *a);
/*
 * A decoded Job or Workload's pod set requests adjusted (its templates stay
 * as written), and wl->inadmissible set to Kueue's message when the adjusted
 * requests break a LimitRange or exceed their limits. a NULL: nothing to do.
 */
int gq__manifest_adjust(const struct gq_adjust *a, struct gq_object *obj, gq_error *err);

/* Where a document came from, for messages. */
struct gq_doc_loc {
    const char *source; /* file name, "-" for standard input */
    int index;          /* 1-based document number */
    int item;           /* 1-based item of a List document, else 0 */
};

/*
 * Called once per document with the decoded object. decode_rc is GQ_OK, or
 * GQ_EUNSUPPORTED for a kind gpuq does not model (obj->kind is GQ_KIND_NONE
 * and err->msg names the kind). The object is cleared after the call; the
 * callback may take pointers out of it by setting them to NULL. A non-zero
 * return stops the load and is returned; its message gets the document's
 * location in front.
 */
typedef int (*gq__object_cb)(struct gq_object *obj, const struct gq_doc_loc *loc, int decode_rc,
                             void *payload, gq_error *err);

/*
 * Called on each successfully decoded object before cb, possibly on another
 * thread: it may compute and cache what needs no database (see
 * gq__object_prepare). A non-zero return stops the load like a decoding error.
 */
typedef int (*gq__prepare_fn)(struct gq_object *obj, gq_error *err);

/*
 * Read path (when buf is NULL) or buf/len (named source), decode every
 * document, prepare it (when prepare is not NULL) and hand it to cb, in
 * document order and always on the calling thread. A large file is read and
 * decoded on a worker thread while cb runs (see manifest_load.c). Decoding
 * errors stop the load with the location in front:
 * "job.yaml: document 2 (Job default/x): spec...: ...".
 */
int gq__manifest_load(const char *path, const char *buf, size_t len, const char *source,
                      const struct gq_decode_options *opts, gq__prepare_fn prepare,
                      gq__object_cb cb, void *payload, gq_error *err);

/*
 * The canonical JSON text of an object (see manifest.h for what it holds).
 * Caller frees *out with free(). GQ_ENOMEM on failure.
 */
int gq__manifest_encode(char **out, const struct gq_object *obj, gq_error *err);

/*
 * The JSON of an imported Workload's status.admission (wl->admitted_cq set),
 * as the workloads table keeps it. Caller frees *out with free().
 */
int gq__manifest_admission(char **out, const struct gq_workload *wl, gq_error *err);

/* One pod set of a ProvisioningRequest (kueue-semantics.md §3.4). */
struct gq_provreq_podset {
    const char *name;                   /* the workload's pod set */
    const char *template_name;          /* ppt-<request>-<podset> */
    int32_t count;
    const struct gq_kvs *node_labels;   /* the assigned flavor's, may be NULL */
    const struct gq_toleration *tolerations; /* the flavor's */
    size_t ntolerations;
};

struct gq_provreq_doc {
    const char *name, *namespace;
    const char *workload, *workload_uid; /* the owner */
    const char *class_name;
    const struct gq_kvs *parameters;
    const struct gq_provreq_podset *podsets;
    size_t npodsets;
};

/*
 * The ProvisioningRequest (autoscaling.x-k8s.io/v1) and its PodTemplates (a
 * JSON array), built from the stored Workload spec (its pristine pod
 * templates) as Kueue builds them: flavor node labels and tolerations
 * applied, container limits copied into missing requests, managed label and
 * owner references. Caller frees both.
 */
int gq__manifest_provreq(const char *workload_spec, const struct gq_provreq_doc *d,
                         char **request_out, char **templates_out, gq_error *err);

/*
 * A ProvisioningRequest's status JSON ({conditions: [...]}) read into out;
 * its messages point into *keep, released with gq__manifest_release().
 */
struct gq_provreq_status;
int gq__manifest_provreq_status(const char *status_json, struct gq_provreq_status *out,
                                void **keep, gq_error *err);
void gq__manifest_release(void *keep);

/*
 * podSetMergePolicy (kueue-semantics.md §1.9, §3.4): may pod sets a and b of
 * the stored Workload spec share one pod set of a ProvisioningRequest?
 * IdenticalPodTemplates: equal templates; IdenticalWorkloadSchedulingRequirements:
 * equal requests per container, pod resources, nodeSelector, tolerations,
 * affinity and resourceClaims (Kueue's arePodSetsSimilar). Any other policy: no.
 */
bool gq__manifest_podsets_mergeable(const char *workload_spec, const char *a, const char *b,
                                    const char *policy);

/*
 * The paths of the fields of a stored canonical spec that gpuq accepts but
 * does not enforce, into out (caller clears it). GQ_OK, GQ_EINVALID, GQ_ENOMEM.
 */
int gq__manifest_not_enforced(const char *spec_json, struct gq_strs *out, gq_error *err);

/* metadata.annotations of a stored canonical spec. */
int gq__manifest_annotations(const char *spec_json, struct gq_kvs *out, gq_error *err);

/*
 * What the simulated cluster reads of a stored ProvisioningRequest and its
 * PodTemplates (manifest_sim.c): the pods' nodeSelector (caller clears it),
 * the GPUs over all pods, and parameters.maxRunDurationSeconds (0: none).
 */
int gq__manifest_provreq_needs(const char *spec, const char *templates, struct gq_kvs *selector,
                               int32_t *gpus, int64_t *max_run_ms, gq_error *err);

/* The status JSON a simulated request shows ({conditions: [...]}); caller frees. */
struct gq_sim_request;
int gq__manifest_sim_status(const struct gq_sim_request *r, char **out, gq_error *err);

/*
 * One Job manifest made ready for the API server (cluster-mode submit):
 * checked by the decoder, namespace filled from ns when absent,
 * spec.suspend forced true. *json_out and *ns_out are malloc'd.
 */
int gq__manifest_kube_job(const char *buf, size_t len, const char *ns, char **json_out,
                          char **ns_out, gq_error *err);

/*
 * A gq__object_cb that moves the one decoded object into payload (a struct
 * gq_object), for reading a stored canonical spec back.
 */
int gq__take_object(struct gq_object *obj, const struct gq_doc_loc *loc, int rc, void *payload,
                    gq_error *err);

#endif
