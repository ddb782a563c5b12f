/*
 * model.h: the core's structs for every object gpuq models, as Kueue defines
 * them (kueue-semantics.md §1). Internal to libgpuqueue.
 *
 * One struct per kind, always in its v1beta2 meaning: the manifest decoder
 * maps v1beta1 spellings (spec.cohort, spec.admissionChecks, the Borrow and
 * Preempt fungibility aliases, Cohort spec.parent) onto these fields and fills
 * Kueue's defaults, so nothing downstream sees a version difference.
 *
 * Ownership: every pointer in these structs is owned by the struct and freed
 * by gq__object_clear(). Optional scalars have a has_* flag; an absent optional
 * string is NULL. Enumerations are stored as their canonical Kueue string,
 * which the decoder has checked against the allowed values.
 */
#ifndef GQ_MODEL_H
#define GQ_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuqueue/quantity.h"

enum gq_kind {
    GQ_KIND_NONE = 0,
    GQ_KIND_NAMESPACE,
    GQ_KIND_RESOURCE_FLAVOR,
    GQ_KIND_COHORT,
    GQ_KIND_CLUSTER_QUEUE,
    GQ_KIND_LOCAL_QUEUE,
    GQ_KIND_PRIORITY_CLASS, /* kueue WorkloadPriorityClass */
    GQ_KIND_ADMISSION_CHECK,
    GQ_KIND_PROVISIONING_CONFIG, /* ProvisioningRequestConfig */
    GQ_KIND_CONFIGURATION,       /* config.kueue.x-k8s.io Configuration */
    GQ_KIND_JOB,                 /* batch/v1 Job, becomes a workload */
    GQ_KIND_WORKLOAD,            /* kueue Workload, becomes a workload */
    GQ_KIND_PROVISIONING_REQUEST, /* autoscaling.x-k8s.io, created by gpuq; read-only */
    GQ_KIND_POD_TEMPLATE,        /* v1 PodTemplate of a ProvisioningRequest; read-only */
    GQ_KIND_NODE_POOL,           /* sim.gpuq.dev NodePool: the simulated cluster's capacity */
    GQ_KIND_INTEGRATION,         /* gpuq.dev Integration: a user's row of the integration table */
    GQ_KIND_TRAINING_RUNTIME,    /* trainer.kubeflow.org ClusterTrainingRuntime: a TrainJob's pods */
    GQ_KIND_LIMIT_RANGE,         /* v1 LimitRange: a namespace's request defaults and bounds */
    GQ_KIND_RUNTIME_CLASS,       /* node.k8s.io/v1 RuntimeClass: a pod's fixed overhead */
    GQ_KIND_MK_CLUSTER,          /* kueue MultiKueueCluster: a worker cluster and its kubeconfig */
    GQ_KIND_MK_CONFIG,           /* kueue MultiKueueConfig: the workers a MultiKueue check uses */
    GQ_KIND__COUNT
};

/* A string-to-string map in document order (labels, nodeSelector, ...). */
struct gq_kv {
    char *key;
    char *value;
};
struct gq_kvs {
    struct gq_kv *v;
    size_t n;
};

struct gq_strs {
    char **v;
    size_t n;
};

/* metadata, the part of it gpuq keeps. */
struct gq_meta {
    char *name;          /* metadata.name; NULL when only generateName is given */
    char *generate_name; /* metadata.generateName, expanded by the store */
    char *namespace;     /* NULL for cluster-scoped kinds */
    char *uid;           /* metadata.uid if given, else NULL until stored */
    struct gq_kvs labels;
    struct gq_kvs annotations;
    int64_t created_ms;  /* metadata.creationTimestamp in ms, 0 if absent */
    char *api_version;   /* as written in the document */
};

struct gq_taint {
    char *key;
    char *value;  /* may be NULL */
    char *effect; /* NoSchedule | PreferNoSchedule | NoExecute */
};

struct gq_toleration {
    char *key;      /* may be NULL (with Exists: tolerate everything) */
    char *op;       /* Equal (default) | Exists */
    char *value;    /* may be NULL */
    char *effect;   /* may be NULL: all effects */
    bool has_seconds;
    int64_t seconds; /* tolerationSeconds */
};

struct gq_flavor {
    struct gq_kvs node_labels;   /* max 8 */
    struct gq_taint *taints;     /* max 8 */
    size_t ntaints;
    struct gq_toleration *tolerations; /* max 8 */
    size_t ntolerations;
    char *topology_name;         /* may be NULL */
};

struct gq_resource_quota {
    char *name;                  /* resource name, e.g. nvidia.com/gpu */
    gq_quantity nominal;         /* nominalQuota, required */
    bool has_borrowing_limit;
    gq_quantity borrowing_limit; /* null means unlimited */
    bool has_lending_limit;
    gq_quantity lending_limit;   /* null means everything can be lent */
};

struct gq_flavor_quotas {
    char *name;                       /* ResourceFlavor name */
    struct gq_resource_quota *resources; /* one per covered resource */
    size_t nresources;
};

struct gq_resource_group {
    struct gq_strs covered;          /* coveredResources, 1..64 */
    struct gq_flavor_quotas *flavors; /* 1..64, in preference order */
    size_t nflavors;
};

struct gq_admission_check_ref {
    char *name;
    struct gq_strs on_flavors;       /* empty: every flavor of the queue */
};

struct gq_cluster_queue {
    char *cohort;                    /* spec.cohortName (v1beta1: spec.cohort); may be NULL */
    char *namespace_selector;        /* canonical JSON of the LabelSelector; NULL = none match */
    char *queueing_strategy;         /* StrictFIFO | BestEffortFIFO */
    struct gq_resource_group *groups; /* max 16 */
    size_t ngroups;
    char *when_can_borrow;           /* MayStopSearch | TryNextFlavor */
    char *when_can_preempt;          /* TryNextFlavor | MayStopSearch */
    char *fungibility_preference;    /* NULL | BorrowingOverPreemption | PreemptionOverBorrowing */
    char *within_cluster_queue;      /* Never | LowerPriority | LowerOrNewerEqualPriority */
    char *reclaim_within_cohort;     /* Never | LowerPriority | Any */
    char *borrow_within_cohort;      /* Never | LowerPriority */
    bool has_max_priority_threshold;
    int32_t max_priority_threshold;
    struct gq_admission_check_ref *checks; /* admissionChecksStrategy.admissionChecks */
    size_t nchecks;
    char *stop_policy;               /* None | Hold | HoldAndDrain */
    gq_quantity fair_weight;         /* fairSharing.weight, default 1 */
    char *admission_mode;            /* admissionScope.admissionMode, may be NULL */
    char *extra;                     /* canonical JSON of spec fields kept verbatim
                                        (concurrentAdmissionPolicy), may be NULL */
};

struct gq_cohort {
    char *parent;                    /* spec.parentName (v1alpha1: spec.parent); may be NULL */
    struct gq_resource_group *groups;
    size_t ngroups;
    gq_quantity fair_weight;
};

struct gq_local_queue {
    char *cluster_queue;             /* required */
    char *stop_policy;               /* None | Hold | HoldAndDrain */
    gq_quantity fair_weight;
};

struct gq_priority_class {
    int32_t value;
    char *description;               /* may be NULL */
};

struct gq_admission_check {
    char *controller_name;           /* required */
    bool has_retry_delay_minutes;    /* v1beta1 only, deprecated */
    int64_t retry_delay_minutes;
    char *params_api_group;          /* spec.parameters, all NULL when absent */
    char *params_kind;
    char *params_name;
};

struct gq_psu_node_selector {
    char *key;
    char *value_from_detail;         /* valueFromProvisioningClassDetail */
};

struct gq_provisioning_config {
    char *class_name;                /* provisioningClassName, required */
    struct gq_kvs parameters;        /* values <= 255 chars, max 100 */
    struct gq_strs managed_resources; /* empty: every resource is managed */
    int32_t backoff_limit_count;     /* retryStrategy, defaults 3 / 60 / 1800 */
    int32_t backoff_base_seconds;
    int32_t backoff_max_seconds;
    struct gq_psu_node_selector *psu_node_selectors; /* podSetUpdates.nodeSelector, max 8 */
    size_t npsu_node_selectors;
    char *merge_policy;              /* podSetMergePolicy, may be NULL */
    /* gpuq extensions, off by default, from annotations (kueue-semantics.md §6): */
    int64_t timeout_ms;              /* gpuq.dev/provisioning-timeout; 0: none (#3245) */
    int32_t fallback_after;          /* gpuq.dev/flavor-fallback-after; 0: off (#2560) */
};

#define GQ_PROVISIONING_TIMEOUT_ANNOTATION "gpuq.dev/provisioning-timeout"
#define GQ_FLAVOR_FALLBACK_ANNOTATION "gpuq.dev/flavor-fallback-after"

struct gq_configuration {
    bool fair_sharing;               /* enabled (v1beta2: the block is present) */
    struct gq_strs preemption_strategies;
    bool wait_for_pods_ready;        /* enabled */
    int64_t pods_ready_timeout_s;    /* default 1800 */
    bool block_admission;
    int64_t recovery_timeout_s;      /* default = timeout */
    char *requeue_timestamp;         /* Eviction | Creation */
    bool has_requeue_limit;
    int32_t requeue_limit;           /* backoffLimitCount; absent = unlimited */
    int32_t requeue_base_s;          /* 60 */
    int32_t requeue_max_s;           /* 3600 */
    bool manage_jobs_without_queue;
    bool admission_fair_sharing;     /* admissionFairSharing given (afs.h) */
    int64_t afs_half_life_ms;        /* usageHalfLifeTime, default 0 */
    int64_t afs_sampling_ms;         /* usageSamplingInterval, default 5m */
    struct gq_kvs afs_weights;       /* resourceWeights: resource -> weight as "%.17g" text */
    char *afs_weights_raw;           /* resourceWeights as written, canonical JSON */
    char *transformations;           /* resources.transformations, canonical JSON; NULL: none */
    struct gq_strs exclude_prefixes; /* resources.excludeResourcePrefixes */
    char *device_class_mappings;     /* resources.deviceClassMappings, kept, not enforced */
    char *extra;                     /* canonical JSON of the fields kept verbatim, not enforced */
    /* multiKueue (engine/sync_multikueue.c reads them from the stored spec): */
    bool multikueue;                 /* multiKueue given */
    int64_t mk_gc_interval_ms;       /* gcInterval, default 1m; 0: no garbage collection */
    char *mk_origin;                 /* origin, the origin label's value, default "multikueue" */
    int64_t mk_lost_timeout_ms;      /* workerLostTimeout, default 15m */
    char *mk_dispatcher;             /* dispatcherName, default Kueue's AllAtOnce */
    int32_t mk_step_size;            /* incrementalDispatcherConfig.stepSize, default 3 */
    char *mk_external_frameworks;    /* externalFrameworks, kept, not enforced */
    char *mk_cluster_profile;        /* clusterProfile, kept, not enforced */
};

struct gq_namespace {
    int unused;                      /* labels live in gq_meta */
};

/* A NodePool (sim.gpuq.dev/v1alpha1): nodes the simulated cluster can create. */
struct gq_node_pool {
    struct gq_kvs node_labels;       /* every node carries them */
    int32_t gpus_per_node;           /* 0: a CPU-only pool */
    int32_t min_nodes;
    int32_t max_nodes;               /* required, >= min_nodes */
    int64_t provisioning_ms;         /* provisioningTime, default 1m */
    int64_t scale_down_ms;           /* scaleDownAfter, default 10m */
    bool stockout;                   /* never gets capacity */
    bool queued;                     /* queuedProvisioning, default true: capacity comes per
                                        ProvisioningRequest (DWS); false: a plain autoscaling
                                        pool that pending pods scale up */
    bool has_fail_after;
    int64_t fail_after_ms;           /* failAfter; absent: a request waits forever */
    bool has_pod_startup, has_stuck_pods; /* written back only when given */
    int64_t pod_startup_ms;          /* podStartupTime: a pod is ready this long after it
                                        starts on a node (waitForPodsReady); default 0 */
    int32_t stuck_pod_percent;       /* stuckPodPercent, 0 to 100: of its pods, this share
                                        (drawn from the seed) never become ready */
};

/*
 * An Integration (gpuq.dev/v1alpha1): a user's row of the integration table
 * (integration.h), for a kind of job gpuq has no built-in row for.
 */
struct gq_integ_podset_spec {
    char *path;      /* from the object's root: one object, a list or a map */
    char *name;      /* one object: the pod set's name */
    char *name_from; /* a list: each element's member naming its pod set */
    struct gq_strs keys; /* a map: the keys in order, each a pod set named by it lower-cased */
    char *template;  /* path in the element to the pod template */
    char *count;     /* count expression (integration.h); NULL: 1 */
    char *min_count; /* partial admission down to this; NULL: none */
    bool optional;   /* path may be absent */
};

/* A LimitRange (v1): spec.limits as canonical JSON, read by manifest_adjust.c. */
struct gq_limit_range {
    char *limits;
};

/* A RuntimeClass (node.k8s.io/v1): its handler, and overhead and scheduling as JSON. */
struct gq_runtime_class {
    char *handler;
    char *overhead;
    char *scheduling;
};

/*
 * A ClusterTrainingRuntime (kubeflow/trainer): what a TrainJob naming it
 * runs, kept as canonical JSON ({"mlPolicy": ...}, {"template": ...}).
 */
struct gq_training_runtime {
    char *ml_policy;
    char *template;
    char *pod_group_policy;
};

/*
 * MultiKueue (Kueue's apis/kueue/v1beta2/multikueue_types.go): a worker
 * cluster reached with a kubeconfig kept in a Secret of the manager's
 * namespace (key "kubeconfig") or in a file; v1beta1 spells it
 * spec.kubeConfig, v1beta2 spec.clusterSource.kubeConfig.
 */
struct gq_mk_cluster {
    char *location_type;             /* Secret (the default) | Path */
    char *location;                  /* the Secret's name or the file's path */
};

/* The worker clusters of a MultiKueue admission check (its parameters name it). */
struct gq_mk_config {
    struct gq_strs clusters;         /* MultiKueueCluster names, 1..10 */
};

struct gq_integration_spec {
    char *group;
    char *kind;
    struct gq_strs versions;
    char *plural;    /* default: the kind lower-cased plus "s" */
    char *suspend;   /* path of the suspend switch, required */
    char *finished;  /* how a finished object shows (integration.h); NULL: the default */
    struct gq_integ_podset_spec *podsets;
    size_t npodsets;
};

/* One resource request of a pod set: per pod, and the pod set total. */
struct gq_request {
    char *resource;
    gq_quantity per_pod;
};

struct gq_podset {
    char *name;                      /* "main" for a Job */
    int32_t count;
    bool has_min_count;
    int32_t min_count;               /* partial admission */
    struct gq_request *requests;     /* effective per-pod requests */
    size_t nrequests;
    char *template_json;             /* pristine pod template, canonical JSON */
    char *match_json;                /* nodeSelector, tolerations, node affinity terms as
                                        JSON for flavor matching; NULL when none */
};

/* What an imported Kueue Workload's status.admission said. */
struct gq_podset_assignment {
    char *name;
    struct gq_kvs flavors;           /* resource -> flavor */
    struct gq_kvs usage;             /* resource -> canonical quantity, pod set total */
    int32_t count;
};

/* A Job or a Kueue Workload, as gpuq's workload record is built from it. */
struct gq_workload {
    char *job_kind;                  /* "Job", "Workload" or a Kind of the integration table */
    char *job_api_version;           /* a table kind's apiVersion as written ("ray.io/v1");
                                        NULL for a Job (batch/v1) or a Workload */
    char *job_name;                  /* the Job's name (or the Workload's) */
    char *queue;                     /* LocalQueue name; NULL when unlabelled */
    char *priority_class;            /* WorkloadPriorityClass name, may be NULL */
    bool has_priority;
    int32_t priority;                /* spec.priority of an imported Workload */
    bool active;                     /* spec.active, default true */
    bool suspend;                    /* spec.suspend as written (forced true on store) */
    struct gq_podset *podsets;       /* 1..18 */
    size_t npodsets;
    char *admitted_cq;               /* status.admission.clusterQueue, NULL if none */
    struct gq_podset_assignment *assignments;
    size_t nassignments;
    bool finished;                   /* a Finished=True condition was imported */
    int64_t reserved_ms;             /* imported QuotaReserved=True lastTransitionTime; 0 */
    int64_t admitted_ms;             /* imported Admitted=True lastTransitionTime; 0 */
    char *name;                      /* Kueue's workload name, once prepared (engine/apply.c) */
    bool has_duration;
    int64_t duration_ms;             /* annotation gpuq.dev/duration: how long its pods run */
    char *inadmissible;              /* why Kueue's ValidateAdmissibility refuses its adjusted
                                        requests (LimitRange bounds, requests above limits);
                                        NULL: nothing */
};

/* One decoded object: the kind, its metadata, and the kind's struct. */
struct gq_object {
    enum gq_kind kind;
    struct gq_meta meta;
    char *canonical;  /* its canonical JSON once computed (gq__manifest_encode), or NULL */
    struct gq_strs unknown_fields; /* paths of the document's fields its API does not know */
    struct gq_strs not_enforced;   /* paths of fields given that gpuq accepts but does not enforce */
    union {
        struct gq_namespace ns;
        struct gq_flavor flavor;
        struct gq_cohort cohort;
        struct gq_cluster_queue cq;
        struct gq_local_queue lq;
        struct gq_priority_class wpc;
        struct gq_admission_check ac;
        struct gq_provisioning_config prc;
        struct gq_configuration config;
        struct gq_node_pool pool;
        struct gq_workload wl;
        struct gq_integration_spec integ;
        struct gq_training_runtime runtime;
        struct gq_limit_range limit_range;
        struct gq_runtime_class runtime_class;
        struct gq_mk_cluster mkc;
        struct gq_mk_config mkcfg;
    } u;
};

/* Free a map's keys and values and empty it. */
void gq__kvs_clear(struct gq_kvs *kvs);

/* Release everything an object owns (not the object itself). NULL is a no-op. */
void gq__object_clear(struct gq_object *obj);

/* Kind names: "ClusterQueue"; kubectl-style resource names: "clusterqueue". */
const char *gq__kind_name(enum gq_kind kind);
const char *gq__kind_resource(enum gq_kind kind);
bool gq__kind_is_namespaced(enum gq_kind kind);

/*
 * Look a kind up by what a user types on the command line: the resource name,
 * its plural, its short names (cq, lq, rf, flavor, wpc, ac, prc, wl, ns, provreq, np) or
 * the Kind itself, case-insensitively. GQ_KIND_NONE if unknown.
 */
enum gq_kind gq__kind_lookup(const char *word);

/* The resource word (plural or singular) nearest a mistyped one (gq__suggest_distance), or NULL. */
const char *gq__kind_suggest(const char *word);

#endif
