/*
 * model.c: the parts of the object model that are not data: releasing what an
 * object owns, and the names of the kinds (as Kubernetes spells them, as
 * kubectl lists them, and every word a user may type for one on the command
 * line).
 *
 * Invariant: every pointer in a struct gq_object is either NULL or owned by
 * it, and every array's count covers only initialised (possibly zeroed)
 * elements, so clearing a half-decoded object is always safe. Objects are
 * cleared once per document or per row read from the store.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model.h"
#include "util.h"

/* One row per kind: its Kind, kubectl resource name, plural, and short names. */
static const struct {
    enum gq_kind kind;
    const char *name;     /* Kind as written in manifests */
    const char *resource; /* kubectl resource name, lower case */
    const char *plural;
    const char *shorts[5]; /* short names, NULL-terminated */
    bool namespaced;
} kinds[] = {
    {GQ_KIND_NAMESPACE, "Namespace", "namespace", "namespaces", {"ns"}, false},
    {GQ_KIND_RESOURCE_FLAVOR,
     "ResourceFlavor",
     "resourceflavor",
     "resourceflavors",
     {"flavor", "flavors", "rf"},
     false},
    {GQ_KIND_COHORT, "Cohort", "cohort", "cohorts", {"co"}, false},
    {GQ_KIND_CLUSTER_QUEUE, "ClusterQueue", "clusterqueue", "clusterqueues", {"cq"}, false},
    {GQ_KIND_LOCAL_QUEUE,
     "LocalQueue",
     "localqueue",
     "localqueues",
     {"lq", "queue", "queues"},
     true},
    {GQ_KIND_PRIORITY_CLASS,
     "WorkloadPriorityClass",
     "workloadpriorityclass",
     "workloadpriorityclasses",
     {"wpc"},
     false},
    {GQ_KIND_ADMISSION_CHECK, "AdmissionCheck", "admissioncheck", "admissionchecks", {"ac"}, false},
    {GQ_KIND_PROVISIONING_CONFIG,
     "ProvisioningRequestConfig",
     "provisioningrequestconfig",
     "provisioningrequestconfigs",
     {"prc"},
     false},
    {GQ_KIND_CONFIGURATION, "Configuration", "configuration", "configurations", {NULL}, false},
    {GQ_KIND_JOB, "Job", "job", "jobs", {NULL}, true},
    {GQ_KIND_WORKLOAD, "Workload", "workload", "workloads", {"wl", "kwl"}, true},
    {GQ_KIND_PROVISIONING_REQUEST,
     "ProvisioningRequest",
     "provisioningrequest",
     "provisioningrequests",
     {"provreq", "provreqs"},
     true},
    {GQ_KIND_POD_TEMPLATE, "PodTemplate", "podtemplate", "podtemplates", {NULL}, true},
    {GQ_KIND_NODE_POOL, "NodePool", "nodepool", "nodepools", {"np"}, false},
    {GQ_KIND_INTEGRATION, "Integration", "integration", "integrations", {NULL}, false},
    {GQ_KIND_TRAINING_RUNTIME,
     "ClusterTrainingRuntime",
     "clustertrainingruntime",
     "clustertrainingruntimes",
     {NULL},
     false},
    {GQ_KIND_LIMIT_RANGE, "LimitRange", "limitrange", "limitranges", {"limits"}, true},
    {GQ_KIND_RUNTIME_CLASS, "RuntimeClass", "runtimeclass", "runtimeclasses", {NULL}, false},
    {GQ_KIND_MK_CLUSTER,
     "MultiKueueCluster",
     "multikueuecluster",
     "multikueueclusters",
     {NULL},
     false},
    {GQ_KIND_MK_CONFIG, "MultiKueueConfig", "multikueueconfig", "multikueueconfigs", {NULL}, false},
};

#define NKINDS (sizeof(kinds) / sizeof(kinds[0]))

static void strs_clear(struct gq_strs *s)
{
    size_t i;

    for (i = 0; i < s->n; i++)
        free(s->v[i]);
    free(s->v);
    s->v = NULL;
    s->n = 0;
}

void gq__kvs_clear(struct gq_kvs *m)
{
    size_t i;

    for (i = 0; i < m->n; i++) {
        free(m->v[i].key);
        free(m->v[i].value);
    }
    free(m->v);
    m->v = NULL;
    m->n = 0;
}

static void integration_clear(struct gq_integration_spec *s)
{
    size_t i;

    free(s->group);
    free(s->kind);
    strs_clear(&s->versions);
    free(s->plural);
    free(s->suspend);
    free(s->finished);
    for (i = 0; i < s->npodsets; i++) {
        struct gq_integ_podset_spec *p = &s->podsets[i];

        free(p->path);
        free(p->name);
        free(p->name_from);
        strs_clear(&p->keys);
        free(p->template);
        free(p->count);
        free(p->min_count);
    }
    free(s->podsets);
}

static void meta_clear(struct gq_meta *m)
{
    free(m->name);
    free(m->generate_name);
    free(m->namespace);
    free(m->uid);
    free(m->api_version);
    gq__kvs_clear(&m->labels);
    gq__kvs_clear(&m->annotations);
}

static void flavor_clear(struct gq_flavor *f)
{
    size_t i;

    gq__kvs_clear(&f->node_labels);
    for (i = 0; i < f->ntaints; i++) {
        free(f->taints[i].key);
        free(f->taints[i].value);
        free(f->taints[i].effect);
    }
    free(f->taints);
    for (i = 0; i < f->ntolerations; i++) {
        free(f->tolerations[i].key);
        free(f->tolerations[i].op);
        free(f->tolerations[i].value);
        free(f->tolerations[i].effect);
    }
    free(f->tolerations);
    free(f->topology_name);
}

static void groups_clear(struct gq_resource_group *groups, size_t ngroups)
{
    size_t i, j, k;

    for (i = 0; i < ngroups; i++) {
        struct gq_resource_group *g = &groups[i];

        strs_clear(&g->covered);
        for (j = 0; j < g->nflavors; j++) {
            free(g->flavors[j].name);
            for (k = 0; k < g->flavors[j].nresources; k++)
                free(g->flavors[j].resources[k].name);
            free(g->flavors[j].resources);
        }
        free(g->flavors);
    }
    free(groups);
}

static void cluster_queue_clear(struct gq_cluster_queue *cq)
{
    size_t i;

    free(cq->cohort);
    free(cq->namespace_selector);
    free(cq->queueing_strategy);
    groups_clear(cq->groups, cq->ngroups);
    free(cq->when_can_borrow);
    free(cq->when_can_preempt);
    free(cq->fungibility_preference);
    free(cq->within_cluster_queue);
    free(cq->reclaim_within_cohort);
    free(cq->borrow_within_cohort);
    for (i = 0; i < cq->nchecks; i++) {
        free(cq->checks[i].name);
        strs_clear(&cq->checks[i].on_flavors);
    }
    free(cq->checks);
    free(cq->stop_policy);
    free(cq->admission_mode);
    free(cq->extra);
}

static void provisioning_config_clear(struct gq_provisioning_config *p)
{
    size_t i;

    free(p->class_name);
    gq__kvs_clear(&p->parameters);
    strs_clear(&p->managed_resources);
    for (i = 0; i < p->npsu_node_selectors; i++) {
        free(p->psu_node_selectors[i].key);
        free(p->psu_node_selectors[i].value_from_detail);
    }
    free(p->psu_node_selectors);
    free(p->merge_policy);
}

static void workload_clear(struct gq_workload *wl)
{
    size_t i, j;

    free(wl->job_kind);
    free(wl->job_api_version);
    free(wl->job_name);
    free(wl->queue);
    free(wl->priority_class);
    for (i = 0; i < wl->npodsets; i++) {
        free(wl->podsets[i].name);
        for (j = 0; j < wl->podsets[i].nrequests; j++)
            free(wl->podsets[i].requests[j].resource);
        free(wl->podsets[i].requests);
        free(wl->podsets[i].template_json);
        free(wl->podsets[i].match_json);
    }
    free(wl->podsets);
    free(wl->admitted_cq);
    for (i = 0; i < wl->nassignments; i++) {
        free(wl->assignments[i].name);
        gq__kvs_clear(&wl->assignments[i].flavors);
        gq__kvs_clear(&wl->assignments[i].usage);
    }
    free(wl->assignments);
    free(wl->name);
    free(wl->inadmissible);
}

void gq__object_clear(struct gq_object *obj)
{
    if (!obj)
        return;
    meta_clear(&obj->meta);
    free(obj->canonical);
    strs_clear(&obj->unknown_fields);
    strs_clear(&obj->not_enforced);
    switch (obj->kind) {
    case GQ_KIND_RESOURCE_FLAVOR:
        flavor_clear(&obj->u.flavor);
        break;
    case GQ_KIND_COHORT:
        free(obj->u.cohort.parent);
        groups_clear(obj->u.cohort.groups, obj->u.cohort.ngroups);
        break;
    case GQ_KIND_CLUSTER_QUEUE:
        cluster_queue_clear(&obj->u.cq);
        break;
    case GQ_KIND_LOCAL_QUEUE:
        free(obj->u.lq.cluster_queue);
        free(obj->u.lq.stop_policy);
        break;
    case GQ_KIND_PRIORITY_CLASS:
        free(obj->u.wpc.description);
        break;
    case GQ_KIND_ADMISSION_CHECK:
        free(obj->u.ac.controller_name);
        free(obj->u.ac.params_api_group);
        free(obj->u.ac.params_kind);
        free(obj->u.ac.params_name);
        break;
    case GQ_KIND_PROVISIONING_CONFIG:
        provisioning_config_clear(&obj->u.prc);
        break;
    case GQ_KIND_CONFIGURATION:
        strs_clear(&obj->u.config.preemption_strategies);
        free(obj->u.config.requeue_timestamp);
        free(obj->u.config.transformations);
        strs_clear(&obj->u.config.exclude_prefixes);
        free(obj->u.config.device_class_mappings);
        free(obj->u.config.extra);
        gq__kvs_clear(&obj->u.config.afs_weights);
        free(obj->u.config.afs_weights_raw);
        free(obj->u.config.mk_origin);
        free(obj->u.config.mk_dispatcher);
        free(obj->u.config.mk_external_frameworks);
        free(obj->u.config.mk_cluster_profile);
        break;
    case GQ_KIND_JOB:
    case GQ_KIND_WORKLOAD:
        workload_clear(&obj->u.wl);
        break;
    case GQ_KIND_NODE_POOL:
        gq__kvs_clear(&obj->u.pool.node_labels);
        break;
    case GQ_KIND_INTEGRATION:
        integration_clear(&obj->u.integ);
        break;
    case GQ_KIND_TRAINING_RUNTIME:
        free(obj->u.runtime.ml_policy);
        free(obj->u.runtime.template);
        free(obj->u.runtime.pod_group_policy);
        break;
    case GQ_KIND_LIMIT_RANGE:
        free(obj->u.limit_range.limits);
        break;
    case GQ_KIND_RUNTIME_CLASS:
        free(obj->u.runtime_class.handler);
        free(obj->u.runtime_class.overhead);
        free(obj->u.runtime_class.scheduling);
        break;
    case GQ_KIND_MK_CLUSTER:
        free(obj->u.mkc.location_type);
        free(obj->u.mkc.location);
        break;
    case GQ_KIND_MK_CONFIG:
        strs_clear(&obj->u.mkcfg.clusters);
        break;
    case GQ_KIND_NONE:
    case GQ_KIND_NAMESPACE:
    case GQ_KIND_PROVISIONING_REQUEST: /* never decoded: gpuq writes them */
    case GQ_KIND_POD_TEMPLATE:
    case GQ_KIND__COUNT:
        break;
    }
    memset(obj, 0, sizeof(*obj));
}

static size_t kind_index(enum gq_kind kind)
{
    size_t i;

    for (i = 0; i < NKINDS; i++)
        if (kinds[i].kind == kind)
            return i;
    return NKINDS;
}

const char *gq__kind_name(enum gq_kind kind)
{
    size_t i = kind_index(kind);

    return i < NKINDS ? kinds[i].name : "Unknown";
}

const char *gq__kind_resource(enum gq_kind kind)
{
    size_t i = kind_index(kind);

    return i < NKINDS ? kinds[i].resource : "unknown";
}

bool gq__kind_is_namespaced(enum gq_kind kind)
{
    size_t i = kind_index(kind);

    return i < NKINDS && kinds[i].namespaced;
}

enum gq_kind gq__kind_lookup(const char *word)
{
    size_t i, j;

    if (!word)
        return GQ_KIND_NONE;
    for (i = 0; i < NKINDS; i++) {
        if (!strcasecmp(word, kinds[i].name) || !strcasecmp(word, kinds[i].resource) ||
            !strcasecmp(word, kinds[i].plural))
            return kinds[i].kind;
        for (j = 0; j < 5 && kinds[i].shorts[j]; j++)
            if (!strcasecmp(word, kinds[i].shorts[j]))
                return kinds[i].kind;
    }
    return GQ_KIND_NONE;
}

const char *gq__kind_suggest(const char *word)
{
    const char *best = NULL;
    size_t i, d, bestd = 3;

    for (i = 0; word && i < NKINDS; i++) {
        /* the plural first: kubectl suggests plurals */
        if ((d = gq__suggest_distance(word, kinds[i].plural)) < bestd)
            bestd = d, best = kinds[i].plural;
        if ((d = gq__suggest_distance(word, kinds[i].resource)) < bestd)
            bestd = d, best = kinds[i].resource;
    }
    return best;
}
