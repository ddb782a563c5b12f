/*
 * manifest_schema.c: the field tables of every kind gpuq models, in the shape
 * manifest_fields.h describes, and the table of kinds itself.
 *
 * Each row is one JSON key in one or more API versions (kueue-semantics.md
 * §1). Rows are listed in the order the encoder writes them, so this file also
 * fixes the canonical key order. Defaults are Kueue's CRD and webhook
 * defaults; limits are its CRD limits (max items, enums). Rules that involve
 * more than one field are the hooks named in the tables (manifest_rules.c).
 * Everything here is const data, read a few times per decoded document.
 */
#include <stddef.h>
#include <string.h>

#include "gpuqueue/validate.h"
#include "manifest_fields.h"

#define B1 GQ_MF_B1
#define B2 GQ_MF_B2
#define ANY GQ_MF_ANY
#define NELEM(a) (sizeof(a) / sizeof((a)[0]))
#define SCHEMA(rows, type, hook)                                                                   \
    {                                                                                              \
        rows, NELEM(rows), sizeof(type), hook                                                      \
    }

/* ------------------------------------------------------------------ enums */

static const struct gq__mf_enum queueing_strategies[] = {
    {"StrictFIFO", NULL, ANY}, {"BestEffortFIFO", NULL, ANY}, {NULL, NULL, 0}};

/* v1beta1 spelt MayStopSearch "Borrow" (whenCanBorrow) and "Preempt" (whenCanPreempt). */
static const struct gq__mf_enum when_can_borrow[] = {{"MayStopSearch", NULL, ANY},
                                                     {"TryNextFlavor", NULL, ANY},
                                                     {"Borrow", "MayStopSearch", B1},
                                                     {NULL, NULL, 0}};

static const struct gq__mf_enum when_can_preempt[] = {{"TryNextFlavor", NULL, ANY},
                                                      {"MayStopSearch", NULL, ANY},
                                                      {"Preempt", "MayStopSearch", B1},
                                                      {NULL, NULL, 0}};

static const struct gq__mf_enum fungibility_preferences[] = {{"BorrowingOverPreemption", NULL, ANY},
                                                             {"PreemptionOverBorrowing", NULL, ANY},
                                                             {NULL, NULL, 0}};

static const struct gq__mf_enum within_cluster_queue[] = {{"Never", NULL, ANY},
                                                          {"LowerPriority", NULL, ANY},
                                                          {"LowerOrNewerEqualPriority", NULL, ANY},
                                                          {NULL, NULL, 0}};

static const struct gq__mf_enum reclaim_within_cohort[] = {
    {"Never", NULL, ANY}, {"LowerPriority", NULL, ANY}, {"Any", NULL, ANY}, {NULL, NULL, 0}};

static const struct gq__mf_enum borrow_within_cohort[] = {
    {"Never", NULL, ANY}, {"LowerPriority", NULL, ANY}, {NULL, NULL, 0}};

static const struct gq__mf_enum stop_policies[] = {
    {"None", NULL, ANY}, {"Hold", NULL, ANY}, {"HoldAndDrain", NULL, ANY}, {NULL, NULL, 0}};

static const struct gq__mf_enum admission_modes[] = {{"UsageBasedAdmissionFairSharing", NULL, ANY},
                                                     {"NoAdmissionFairSharing", NULL, ANY},
                                                     {NULL, NULL, 0}};

static const struct gq__mf_enum taint_effects[] = {{"NoSchedule", NULL, ANY},
                                                   {"PreferNoSchedule", NULL, ANY},
                                                   {"NoExecute", NULL, ANY},
                                                   {NULL, NULL, 0}};

static const struct gq__mf_enum toleration_operators[] = {
    {"Equal", NULL, ANY}, {"Exists", NULL, ANY}, {NULL, NULL, 0}};

static const struct gq__mf_enum merge_policies[] = {
    {"IdenticalPodTemplates", NULL, ANY},
    {"IdenticalWorkloadSchedulingRequirements", NULL, ANY},
    {NULL, NULL, 0}};

static const struct gq__mf_enum requeue_timestamps[] = {
    {"Eviction", NULL, ANY}, {"Creation", NULL, ANY}, {NULL, NULL, 0}};

static const struct gq__mf_enum preemption_strategies[] = {
    {"LessThanOrEqualToFinalShare", NULL, ANY},
    {"LessThanInitialShare", NULL, ANY},
    {NULL, NULL, 0}};

/* -------------------------------------------------------- ResourceFlavor */

#define TAINT(m) offsetof(struct gq_taint, m)
static const struct gq__mf_field taint_fields[] = {
    {.name = "key",
     .vers = ANY,
     .type = GQ_MF_STRING,
     .flags = GQ_MF_REQUIRED,
     .off = TAINT(key),
     .check = gq_validate_label_key},
    {.name = "value",
     .vers = ANY,
     .type = GQ_MF_STRING,
     .off = TAINT(value),
     .check = gq_validate_label_value},
    {.name = "effect",
     .vers = ANY,
     .type = GQ_MF_ENUM,
     .flags = GQ_MF_REQUIRED,
     .off = TAINT(effect),
     .enums = taint_effects},
};
static const struct gq__mf_schema taint_schema = SCHEMA(taint_fields, struct gq_taint, NULL);

#define TOL(m) offsetof(struct gq_toleration, m)
static const struct gq__mf_field toleration_fields[] = {
    {.name = "key",
     .vers = ANY,
     .type = GQ_MF_STRING,
     .off = TOL(key),
     .check = gq_validate_label_key},
    {.name = "operator",
     .vers = ANY,
     .type = GQ_MF_ENUM,
     .off = TOL(op),
     .sdef = "Equal",
     .enums = toleration_operators},
    {.name = "value", .vers = ANY, .type = GQ_MF_STRING, .off = TOL(value)},
    {.name = "effect", .vers = ANY, .type = GQ_MF_ENUM, .off = TOL(effect), .enums = taint_effects},
    {.name = "tolerationSeconds",
     .vers = ANY,
     .type = GQ_MF_INT64,
     .flags = GQ_MF_HAS,
     .off = TOL(seconds),
     .aux = TOL(has_seconds)},
};
static const struct gq__mf_schema toleration_schema =
    SCHEMA(toleration_fields, struct gq_toleration, gq__mf_toleration_check);

#define FL(m) offsetof(struct gq_flavor, m)
static const struct gq__mf_field flavor_fields[] = {
    {.name = "nodeLabels",
     .vers = ANY,
     .type = GQ_MF_KVS,
     .off = FL(node_labels),
     .max = 8,
     .check = gq_validate_label_key,
     .check_value = gq_validate_label_value},
    {.name = "nodeTaints",
     .vers = ANY,
     .type = GQ_MF_LIST,
     .off = FL(taints),
     .aux = FL(ntaints),
     .max = 8,
     .sub = &taint_schema},
    {.name = "tolerations",
     .vers = ANY,
     .type = GQ_MF_LIST,
     .off = FL(tolerations),
     .aux = FL(ntolerations),
     .max = 8,
     .sub = &toleration_schema},
    {.name = "topologyName",
     .vers = ANY,
     .type = GQ_MF_STRING,
     .flags = GQ_MF_NOT_ENFORCED, /* no Topology Aware Scheduling */
     .off = FL(topology_name),
     .check = gq_validate_dns1123_subdomain},
};
static const struct gq__mf_schema flavor_schema = SCHEMA(flavor_fields, struct gq_flavor, NULL);

/* ------------------------------------------------- resource groups (CQ, Cohort) */

#define RQ(m) offsetof(struct gq_resource_quota, m)
static const struct gq__mf_field quota_fields[] = {
    {.name = "name",
     .vers = ANY,
     .type = GQ_MF_STRING,
     .flags = GQ_MF_REQUIRED,
     .off = RQ(name),
     .check = gq_validate_resource_name},
    {.name = "nominalQuota",
     .vers = ANY,
     .type = GQ_MF_QUANTITY,
     .flags = GQ_MF_REQUIRED | GQ_MF_NONNEG,
     .off = RQ(nominal)},
    {.name = "borrowingLimit",
     .vers = ANY,
     .type = GQ_MF_QUANTITY,
     .flags = GQ_MF_HAS | GQ_MF_NONNEG,
     .off = RQ(borrowing_limit),
     .aux = RQ(has_borrowing_limit)},
    {.name = "lendingLimit",
     .vers = ANY,
     .type = GQ_MF_QUANTITY,
     .flags = GQ_MF_HAS | GQ_MF_NONNEG,
     .off = RQ(lending_limit),
     .aux = RQ(has_lending_limit)},
};
static const struct gq__mf_schema quota_schema =
    SCHEMA(quota_fields, struct gq_resource_quota, NULL);

#define FQ(m) offsetof(struct gq_flavor_quotas, m)
static const struct gq__mf_field flavor_quota_fields[] = {
    {.name = "name",
     .vers = ANY,
     .type = GQ_MF_STRING,
     .flags = GQ_MF_REQUIRED,
     .off = FQ(name),
     .check = gq_validate_dns1123_subdomain},
    {.name = "resources",
     .vers = ANY,
     .type = GQ_MF_LIST,
     .flags = GQ_MF_REQUIRED,
     .off = FQ(resources),
     .aux = FQ(nresources),
     .min = 1,
     .max = 64,
     .sub = &quota_schema},
};
static const struct gq__mf_schema flavor_quota_schema =
    SCHEMA(flavor_quota_fields, struct gq_flavor_quotas, NULL);

#define RG(m) offsetof(struct gq_resource_group, m)
static const struct gq__mf_field group_fields[] = {
    {.name = "coveredResources",
     .vers = ANY,
     .type = GQ_MF_STRS,
     .flags = GQ_MF_REQUIRED,
     .off = RG(covered),
     .min = 1,
     .max = 64,
     .check = gq_validate_resource_name},
    {.name = "flavors",
     .vers = ANY,
     .type = GQ_MF_LIST,
     .flags = GQ_MF_REQUIRED,
     .off = RG(flavors),
     .aux = RG(nflavors),
     .min = 1,
     .max = 64,
     .sub = &flavor_quota_schema},
};
static const struct gq__mf_schema group_schema =
    SCHEMA(group_fields, struct gq_resource_group, NULL);

/* ---------------------------------------------------------- ClusterQueue */

#define CQ(m) offsetof(struct gq_cluster_queue, m)
#define ACR(m) offsetof(struct gq_admission_check_ref, m)
static const struct gq__mf_field check_ref_fields[] = {
    {.name = "name",
     .vers = ANY,
     .type = GQ_MF_STRING,
     .flags = GQ_MF_REQUIRED,
     .off = ACR(name),
     .check = gq_validate_dns1123_subdomain},
    {.name = "onFlavors",
     .vers = ANY,
     .type = GQ_MF_STRS,
     .flags = GQ_MF_UNIQUE,
     .off = ACR(on_flavors),
     .max = 64,
     .check = gq_validate_dns1123_subdomain},
};
static const struct gq__mf_schema check_ref_schema =
    SCHEMA(check_ref_fields, struct gq_admission_check_ref, NULL);

static const struct gq__mf_field fungibility_fields[] = {
    {.name = "whenCanBorrow",
     .vers = ANY,
     .type = GQ_MF_ENUM,
     .off = CQ(when_can_borrow),
     .sdef = "MayStopSearch",
     .enums = when_can_borrow},
    {.name = "whenCanPreempt",
     .vers = ANY,
     .type = GQ_MF_ENUM,
     .off = CQ(when_can_preempt),
     .sdef = "TryNextFlavor",
     .enums = when_can_preempt},
    {.name = "preference",
     .vers = ANY,
     .type = GQ_MF_ENUM,
     .off = CQ(fungibility_preference),
     .enums = fungibility_preferences},
};
static const struct gq__mf_schema fungibility_schema =
    SCHEMA(fungibility_fields, struct gq_cluster_queue, NULL);

static const struct gq__mf_field borrow_within_fields[] = {
    {.name = "policy",
     .vers = ANY,
     .type = GQ_MF_ENUM,
     .off = CQ(borrow_within_cohort),
     .sdef = "Never",
     .enums = borrow_within_cohort},
    {.name = "maxPriorityThreshold",
     .vers = ANY,
     .type = GQ_MF_INT32,
     .flags = GQ_MF_HAS,
     .off = CQ(max_priority_threshold),
     .aux = CQ(has_max_priority_threshold)},
};
static const struct gq__mf_schema borrow_within_schema =
    SCHEMA(borrow_within_fields, struct gq_cluster_queue, NULL);

static const struct gq__mf_field preemption_fields[] = {
    {.name = "withinClusterQueue",
     .vers = ANY,
     .type = GQ_MF_ENUM,
     .off = CQ(within_cluster_queue),
     .sdef = "Never",
     .enums = within_cluster_queue},
    {.name = "reclaimWithinCohort",
     .vers = ANY,
     .type = GQ_MF_ENUM,
     .off = CQ(reclaim_within_cohort),
     .sdef = "Never",
     .enums = reclaim_within_cohort},
    {.name = "borrowWithinCohort", .vers = ANY, .type = GQ_MF_STRUCT, .sub = &borrow_within_schema},
};
static const struct gq__mf_schema preemption_schema =
    SCHEMA(preemption_fields, struct gq_cluster_queue, NULL);

static const struct gq__mf_field checks_strategy_fields[] = {
    {.name = "admissionChecks",
     .vers = ANY,
     .type = GQ_MF_LIST,
     .off = CQ(checks),
     .aux = CQ(nchecks),
     .max = 64,
     .sub = &check_ref_schema},
};
static const struct gq__mf_schema checks_strategy_schema =
    SCHEMA(checks_strategy_fields, struct gq_cluster_queue, NULL);

static const struct gq__mf_field cq_fair_fields[] = {
    {.name = "weight",
     .vers = ANY,
     .type = GQ_MF_QUANTITY,
     .flags = GQ_MF_NONNEG,
     .off = CQ(fair_weight),
     .sdef = "1"},
};
static const struct gq__mf_schema cq_fair_schema =
    SCHEMA(cq_fair_fields, struct gq_cluster_queue, NULL);

static const struct gq__mf_field admission_scope_fields[] = {
    {.name = "admissionMode",
     .vers = ANY,
     .type = GQ_MF_ENUM,
     .flags = GQ_MF_REQUIRED,
     .off = CQ(admission_mode),
     .enums = admission_modes},
};
static const struct gq__mf_schema admission_scope_schema =
    SCHEMA(admission_scope_fields, struct gq_cluster_queue, NULL);

static const struct gq__mf_field cq_fields[] = {
    {.name = "namespaceSelector",
     .vers = ANY,
     .type = GQ_MF_SELECTOR,
     .off = CQ(namespace_selector)},
    {.name = "cohort",
     .vers = B1,
     .type = GQ_MF_STRING,
     .off = CQ(cohort),
     .check = gq_validate_dns1123_subdomain},
    {.name = "cohortName",
     .vers = B2,
     .type = GQ_MF_STRING,
     .off = CQ(cohort),
     .check = gq_validate_dns1123_subdomain},
    {.name = "queueingStrategy",
     .vers = ANY,
     .type = GQ_MF_ENUM,
     .off = CQ(queueing_strategy),
     .sdef = "BestEffortFIFO",
     .enums = queueing_strategies},
    {.name = "resourceGroups",
     .vers = ANY,
     .type = GQ_MF_LIST,
     .off = CQ(groups),
     .aux = CQ(ngroups),
     .max = 16,
     .sub = &group_schema},
    {.name = "flavorFungibility", .vers = ANY, .type = GQ_MF_STRUCT, .sub = &fungibility_schema},
    {.name = "preemption", .vers = ANY, .type = GQ_MF_STRUCT, .sub = &preemption_schema},
    /* v1beta1's list of names becomes admissionChecksStrategy with every flavor. */
    {.name = "admissionChecks",
     .vers = B1,
     .type = GQ_MF_LIST,
     .flags = GQ_MF_SCALAR,
     .off = CQ(checks),
     .aux = CQ(nchecks),
     .max = 64,
     .sub = &check_ref_schema},
    {.name = "admissionChecksStrategy",
     .vers = ANY,
     .type = GQ_MF_STRUCT,
     .sub = &checks_strategy_schema},
    {.name = "stopPolicy",
     .vers = ANY,
     .type = GQ_MF_ENUM,
     .off = CQ(stop_policy),
     .sdef = "None",
     .enums = stop_policies},
    {.name = "fairSharing", .vers = ANY, .type = GQ_MF_STRUCT, .sub = &cq_fair_schema},
    /* Admission fair sharing: usage-based ordering of the queue's workloads (afs.h). */
    {.name = "admissionScope", .vers = ANY, .type = GQ_MF_STRUCT, .sub = &admission_scope_schema},
    {.name = "concurrentAdmissionPolicy",
     .vers = B2,
     .type = GQ_MF_RAW,
     .flags = GQ_MF_NOT_ENFORCED,
     .off = CQ(extra)},
};
static const struct gq__mf_schema cq_schema = SCHEMA(cq_fields, struct gq_cluster_queue, NULL);

/* ---------------------------------------------------------------- Cohort */

#define CO(m) offsetof(struct gq_cohort, m)
static const struct gq__mf_field cohort_fair_fields[] = {
    {.name = "weight",
     .vers = ANY,
     .type = GQ_MF_QUANTITY,
     .flags = GQ_MF_NONNEG,
     .off = CO(fair_weight),
     .sdef = "1"},
};
static const struct gq__mf_schema cohort_fair_schema =
    SCHEMA(cohort_fair_fields, struct gq_cohort, NULL);

static const struct gq__mf_field cohort_fields[] = {
    {.name = "parent",
     .vers = GQ_MF_V1ALPHA1,
     .type = GQ_MF_STRING,
     .off = CO(parent),
     .check = gq_validate_dns1123_subdomain},
    {.name = "parentName",
     .vers = B1 | B2,
     .type = GQ_MF_STRING,
     .off = CO(parent),
     .check = gq_validate_dns1123_subdomain},
    {.name = "resourceGroups",
     .vers = ANY,
     .type = GQ_MF_LIST,
     .off = CO(groups),
     .aux = CO(ngroups),
     .max = 16,
     .sub = &group_schema},
    {.name = "fairSharing", .vers = ANY, .type = GQ_MF_STRUCT, .sub = &cohort_fair_schema},
};
static const struct gq__mf_schema cohort_schema = SCHEMA(cohort_fields, struct gq_cohort, NULL);

/* ------------------------------------------------------------ LocalQueue */

#define LQ(m) offsetof(struct gq_local_queue, m)
static const struct gq__mf_field lq_fair_fields[] = {
    {.name = "weight",
     .vers = ANY,
     .type = GQ_MF_QUANTITY,
     .flags = GQ_MF_NONNEG,
     .off = LQ(fair_weight),
     .sdef = "1"},
};
static const struct gq__mf_schema lq_fair_schema =
    SCHEMA(lq_fair_fields, struct gq_local_queue, NULL);

static const struct gq__mf_field lq_fields[] = {
    {.name = "clusterQueue",
     .vers = ANY,
     .type = GQ_MF_STRING,
     .flags = GQ_MF_REQUIRED,
     .off = LQ(cluster_queue),
     .check = gq_validate_dns1123_subdomain},
    {.name = "stopPolicy",
     .vers = ANY,
     .type = GQ_MF_ENUM,
     .off = LQ(stop_policy),
     .sdef = "None",
     .enums = stop_policies},
    /* A LocalQueue's weight counts only in admission fair sharing (afs.h). */
    {.name = "fairSharing", .vers = ANY, .type = GQ_MF_STRUCT, .sub = &lq_fair_schema},
};
static const struct gq__mf_schema lq_schema = SCHEMA(lq_fields, struct gq_local_queue, NULL);

/* ------------------------------------------------- WorkloadPriorityClass */

#define WPC(m) offsetof(struct gq_priority_class, m)
static const struct gq__mf_field wpc_fields[] = {
    {.name = "value", .vers = ANY, .type = GQ_MF_INT32, .flags = GQ_MF_REQUIRED, .off = WPC(value)},
    {.name = "description",
     .vers = ANY,
     .type = GQ_MF_STRING,
     .off = WPC(description),
     .max = 2048},
};
static const struct gq__mf_schema wpc_schema = SCHEMA(wpc_fields, struct gq_priority_class, NULL);

/* -------------------------------------------------------- AdmissionCheck */

#define AC(m) offsetof(struct gq_admission_check, m)
static const struct gq__mf_field ac_params_fields[] = {
    {.name = "apiGroup",
     .vers = ANY,
     .type = GQ_MF_STRING,
     .flags = GQ_MF_REQUIRED,
     .off = AC(params_api_group),
     .max = 253},
    {.name = "kind",
     .vers = ANY,
     .type = GQ_MF_STRING,
     .flags = GQ_MF_REQUIRED,
     .off = AC(params_kind),
     .max = 63},
    {.name = "name",
     .vers = ANY,
     .type = GQ_MF_STRING,
     .flags = GQ_MF_REQUIRED,
     .off = AC(params_name),
     .check = gq_validate_dns1123_subdomain},
};
static const struct gq__mf_schema ac_params_schema =
    SCHEMA(ac_params_fields, struct gq_admission_check, NULL);

static const struct gq__mf_field ac_fields[] = {
    {.name = "controllerName",
     .vers = ANY,
     .type = GQ_MF_STRING,
     .flags = GQ_MF_REQUIRED,
     .off = AC(controller_name),
     .max = 253},
    {.name = "retryDelayMinutes",
     .vers = B1,
     .type = GQ_MF_INT64,
     .flags = GQ_MF_HAS | GQ_MF_NONNEG | GQ_MF_NOT_ENFORCED,
     .off = AC(retry_delay_minutes),
     .aux = AC(has_retry_delay_minutes)},
    {.name = "parameters", .vers = ANY, .type = GQ_MF_STRUCT, .sub = &ac_params_schema},
};
static const struct gq__mf_schema ac_schema = SCHEMA(ac_fields, struct gq_admission_check, NULL);

/* --------------------------------------------- ProvisioningRequestConfig */

#define PRC(m) offsetof(struct gq_provisioning_config, m)
#define PNS(m) offsetof(struct gq_psu_node_selector, m)
static const struct gq__mf_field retry_fields[] = {
    {.name = "backoffLimitCount",
     .vers = ANY,
     .type = GQ_MF_INT32,
     .flags = GQ_MF_NONNEG,
     .off = PRC(backoff_limit_count),
     .idef = 3},
    {.name = "backoffBaseSeconds",
     .vers = ANY,
     .type = GQ_MF_INT32,
     .flags = GQ_MF_NONNEG,
     .off = PRC(backoff_base_seconds),
     .idef = 60},
    {.name = "backoffMaxSeconds",
     .vers = ANY,
     .type = GQ_MF_INT32,
     .flags = GQ_MF_NONNEG,
     .off = PRC(backoff_max_seconds),
     .idef = 1800},
};
static const struct gq__mf_schema retry_schema =
    SCHEMA(retry_fields, struct gq_provisioning_config, NULL);

static const struct gq__mf_field psu_node_selector_fields[] = {
    {.name = "key",
     .vers = ANY,
     .type = GQ_MF_STRING,
     .flags = GQ_MF_REQUIRED,
     .off = PNS(key),
     .check = gq_validate_label_key},
    {.name = "valueFromProvisioningClassDetail",
     .vers = ANY,
     .type = GQ_MF_STRING,
     .flags = GQ_MF_REQUIRED,
     .off = PNS(value_from_detail),
     .max = 32768},
};
static const struct gq__mf_schema psu_node_selector_schema =
    SCHEMA(psu_node_selector_fields, struct gq_psu_node_selector, NULL);

static const struct gq__mf_field psu_fields[] = {
    {.name = "nodeSelector",
     .vers = ANY,
     .type = GQ_MF_LIST,
     .off = PRC(psu_node_selectors),
     .aux = PRC(npsu_node_selectors),
     .max = 8,
     .sub = &psu_node_selector_schema},
};
static const struct gq__mf_schema psu_schema =
    SCHEMA(psu_fields, struct gq_provisioning_config, NULL);

static const struct gq__mf_field prc_fields[] = {
    {.name = "provisioningClassName",
     .vers = ANY,
     .type = GQ_MF_STRING,
     .flags = GQ_MF_REQUIRED,
     .off = PRC(class_name),
     .check = gq_validate_dns1123_subdomain},
    {.name = "parameters",
     .vers = ANY,
     .type = GQ_MF_KVS,
     .off = PRC(parameters),
     .max = 100,
     .check_value = gq__mf_check_param_value},
    {.name = "managedResources",
     .vers = ANY,
     .type = GQ_MF_STRS,
     .flags = GQ_MF_UNIQUE,
     .off = PRC(managed_resources),
     .max = 100,
     .check = gq_validate_resource_name},
    {.name = "retryStrategy", .vers = ANY, .type = GQ_MF_STRUCT, .sub = &retry_schema},
    {.name = "podSetUpdates", .vers = ANY, .type = GQ_MF_STRUCT, .sub = &psu_schema},
    {.name = "podSetMergePolicy",
     .vers = ANY,
     .type = GQ_MF_ENUM,
     .off = PRC(merge_policy),
     .enums = merge_policies},
};
static const struct gq__mf_schema prc_schema =
    SCHEMA(prc_fields, struct gq_provisioning_config, NULL);

/* --------------------------------------------------------- Configuration */

/*
 * v1beta1 switches waitForPodsReady and fairSharing on with `enable`; v1beta2
 * by the block's presence. Timeouts default to 5m in v1beta1 and 30m in
 * v1beta2; recoveryTimeout (-1 here) defaults to the timeout in the hook.
 */
#define CFG(m) offsetof(struct gq_configuration, m)
#define CONFIG_KEPT(name_)                                                                         \
    {                                                                                              \
        .name = name_, .vers = ANY, .type = GQ_MF_RAW, .flags = GQ_MF_NOT_ENFORCED,                \
        .off = CFG(extra)                                                                          \
    }
static const struct gq__mf_field requeue_fields[] = {
    {.name = "timestamp",
     .vers = ANY,
     .type = GQ_MF_ENUM,
     .off = CFG(requeue_timestamp),
     .sdef = "Eviction",
     .enums = requeue_timestamps},
    {.name = "backoffLimitCount",
     .vers = ANY,
     .type = GQ_MF_INT32,
     .flags = GQ_MF_HAS | GQ_MF_NONNEG,
     .off = CFG(requeue_limit),
     .aux = CFG(has_requeue_limit)},
    {.name = "backoffBaseSeconds",
     .vers = ANY,
     .type = GQ_MF_INT32,
     .flags = GQ_MF_NONNEG,
     .off = CFG(requeue_base_s),
     .idef = 60},
    {.name = "backoffMaxSeconds",
     .vers = ANY,
     .type = GQ_MF_INT32,
     .flags = GQ_MF_NONNEG,
     .off = CFG(requeue_max_s),
     .idef = 3600},
};
static const struct gq__mf_schema requeue_schema =
    SCHEMA(requeue_fields, struct gq_configuration, NULL);

static const struct gq__mf_field pods_ready_fields[] = {
    {.name = "enable", .vers = B1, .type = GQ_MF_BOOL, .off = CFG(wait_for_pods_ready)},
    {.name = "timeout",
     .vers = B1,
     .type = GQ_MF_DURATION,
     .off = CFG(pods_ready_timeout_s),
     .idef = 300},
    {.name = "timeout",
     .vers = B2,
     .type = GQ_MF_DURATION,
     .off = CFG(pods_ready_timeout_s),
     .idef = 1800},
    {.name = "blockAdmission", .vers = ANY, .type = GQ_MF_BOOL, .off = CFG(block_admission)},
    {.name = "recoveryTimeout",
     .vers = ANY,
     .type = GQ_MF_DURATION,
     .off = CFG(recovery_timeout_s),
     .idef = -1},
    {.name = "requeuingStrategy", .vers = ANY, .type = GQ_MF_STRUCT, .sub = &requeue_schema},
};
static const struct gq__mf_schema pods_ready_schema =
    SCHEMA(pods_ready_fields, struct gq_configuration, NULL);

static const struct gq__mf_field fair_sharing_fields[] = {
    {.name = "enable", .vers = B1, .type = GQ_MF_BOOL, .off = CFG(fair_sharing)},
    {.name = "preemptionStrategies",
     .vers = ANY,
     .type = GQ_MF_STRS,
     .flags = GQ_MF_UNIQUE,
     .off = CFG(preemption_strategies),
     .max = 2,
     .enums = preemption_strategies},
};
static const struct gq__mf_schema fair_sharing_schema =
    SCHEMA(fair_sharing_fields, struct gq_configuration, NULL);

/* Admission fair sharing (afs.h); resourceWeights are checked by gq__mf_config_post. */
static const struct gq__mf_field afs_fields[] = {
    {.name = "usageHalfLifeTime",
     .vers = ANY,
     .type = GQ_MF_DURATION_MS,
     .off = CFG(afs_half_life_ms),
     .idef = 0},
    {.name = "usageSamplingInterval",
     .vers = ANY,
     .type = GQ_MF_DURATION_MS,
     .off = CFG(afs_sampling_ms),
     .idef = 5 * 60 * 1000},
    {.name = "resourceWeights", .vers = ANY, .type = GQ_MF_RAW, .off = CFG(afs_weights_raw)},
};
static const struct gq__mf_schema afs_schema = SCHEMA(afs_fields, struct gq_configuration, NULL);

/*
 * Of a Configuration, the engine reads fairSharing, admissionFairSharing,
 * waitForPodsReady (engine_ready.c), resources and multiKueue. The other settings that
 * change what Kueue admits, and when, are kept but not enforced: they are
 * flagged so, and the ones gpuq does not model are kept verbatim (RAW, in
 * `extra`), so that -o yaml and describe still show them. The settings of
 * Kueue's own process (controller, webhook, metrics, health, leaderElection,
 * clientConnection, internalCertManagement, tls, namespace, pprofBindAddress,
 * queueVisibility, visibilityServer) mean nothing to gpuq and are dropped.
 */
/*
 * resources: transformations and excludeResourcePrefixes change what a
 * workload's record counts against quota (manifest_adjust.c); Kueue's DRA
 * deviceClassMappings are kept, not enforced.
 */
static const struct gq__mf_field resources_fields[] = {
    {.name = "excludeResourcePrefixes",
     .vers = ANY,
     .type = GQ_MF_STRS,
     .off = CFG(exclude_prefixes)},
    {.name = "transformations", .vers = ANY, .type = GQ_MF_RAW, .off = CFG(transformations)},
    {.name = "deviceClassMappings",
     .vers = ANY,
     .type = GQ_MF_RAW,
     .flags = GQ_MF_NOT_ENFORCED,
     .off = CFG(device_class_mappings)},
};
static const struct gq__mf_schema resources_schema =
    SCHEMA(resources_fields, struct gq_configuration, NULL);

/*
 * multiKueue: the manager's settings (engine/sync_multikueue.c): the origin
 * label's value, the garbage collection of orphan copies, the worker lost
 * timeout and the dispatcher; Kueue's external frameworks and ClusterProfile
 * API are kept, not enforced.
 */
static const struct gq__mf_enum mk_dispatchers[] = {
    {"kueue.x-k8s.io/multikueue-dispatcher-all-at-once", NULL, ANY},
    {"kueue.x-k8s.io/multikueue-dispatcher-incremental", NULL, ANY},
    {NULL, NULL, 0}};
static const struct gq__mf_field mk_incremental_fields[] = {
    {.name = "stepSize",
     .vers = ANY,
     .type = GQ_MF_INT32,
     .flags = GQ_MF_POSITIVE,
     .off = CFG(mk_step_size),
     .idef = 3},
};
static const struct gq__mf_schema mk_incremental_schema =
    SCHEMA(mk_incremental_fields, struct gq_configuration, NULL);
static const struct gq__mf_field mk_fields[] = {
    {.name = "gcInterval",
     .vers = ANY,
     .type = GQ_MF_DURATION_MS,
     .off = CFG(mk_gc_interval_ms),
     .idef = 60 * 1000},
    {.name = "origin",
     .vers = ANY,
     .type = GQ_MF_STRING,
     .off = CFG(mk_origin),
     .sdef = "multikueue",
     .check = gq_validate_label_value},
    {.name = "workerLostTimeout",
     .vers = ANY,
     .type = GQ_MF_DURATION_MS,
     .off = CFG(mk_lost_timeout_ms),
     .idef = 15 * 60 * 1000},
    {.name = "dispatcherName",
     .vers = ANY,
     .type = GQ_MF_ENUM,
     .off = CFG(mk_dispatcher),
     .sdef = "kueue.x-k8s.io/multikueue-dispatcher-all-at-once",
     .enums = mk_dispatchers},
    /*
     * v1beta2's; taken in v1beta1 too, so that its default (stepSize 3) is in
     * every stored spec: the stored spec is v1beta2 and is decoded again.
     */
    {.name = "incrementalDispatcherConfig",
     .vers = ANY,
     .type = GQ_MF_STRUCT,
     .sub = &mk_incremental_schema},
    {.name = "externalFrameworks",
     .vers = ANY,
     .type = GQ_MF_RAW,
     .flags = GQ_MF_NOT_ENFORCED,
     .off = CFG(mk_external_frameworks)},
    {.name = "clusterProfile",
     .vers = B2,
     .type = GQ_MF_RAW,
     .flags = GQ_MF_NOT_ENFORCED,
     .off = CFG(mk_cluster_profile)},
};
static const struct gq__mf_schema mk_schema = SCHEMA(mk_fields, struct gq_configuration, NULL);

static const struct gq__mf_field config_fields[] = {
    {.name = "manageJobsWithoutQueueName",
     .vers = ANY,
     .type = GQ_MF_BOOL,
     .flags = GQ_MF_NOT_ENFORCED,
     .off = CFG(manage_jobs_without_queue)},
    {.name = "waitForPodsReady", .vers = B1, .type = GQ_MF_STRUCT, .sub = &pods_ready_schema},
    {.name = "waitForPodsReady",
     .vers = B2,
     .type = GQ_MF_STRUCT,
     .flags = GQ_MF_PRESENCE,
     .aux = CFG(wait_for_pods_ready),
     .sub = &pods_ready_schema},
    {.name = "fairSharing", .vers = B1, .type = GQ_MF_STRUCT, .sub = &fair_sharing_schema},
    {.name = "fairSharing",
     .vers = B2,
     .type = GQ_MF_STRUCT,
     .flags = GQ_MF_PRESENCE,
     .aux = CFG(fair_sharing),
     .sub = &fair_sharing_schema},
    CONFIG_KEPT("managedJobsNamespaceSelector"),
    {.name = "admissionFairSharing",
     .vers = ANY,
     .type = GQ_MF_STRUCT,
     .flags = GQ_MF_PRESENCE,
     .aux = CFG(admission_fair_sharing),
     .sub = &afs_schema},
    {.name = "resources", .vers = ANY, .type = GQ_MF_STRUCT, .sub = &resources_schema},
    CONFIG_KEPT("objectRetentionPolicies"),
    CONFIG_KEPT("integrations"),
    {.name = "multiKueue",
     .vers = ANY,
     .type = GQ_MF_STRUCT,
     .flags = GQ_MF_PRESENCE,
     .aux = CFG(multikueue),
     .sub = &mk_schema},
    CONFIG_KEPT("featureGates"),
};
static const struct gq__mf_schema config_schema =
    SCHEMA(config_fields, struct gq_configuration, NULL);

/* ------------------------------------------------------ NodePool (sim) */

/* gpuq's own kind: the simulated cluster's node pools (sim.h). */
#define NP(m) offsetof(struct gq_node_pool, m)
static const struct gq__mf_field node_pool_fields[] = {
    {.name = "nodeLabels",
     .vers = ANY,
     .type = GQ_MF_KVS,
     .off = NP(node_labels),
     .check = gq_validate_label_key,
     .check_value = gq_validate_label_value},
    {.name = "gpusPerNode",
     .vers = ANY,
     .type = GQ_MF_INT32,
     .flags = GQ_MF_NONNEG,
     .off = NP(gpus_per_node)},
    {.name = "minNodes",
     .vers = ANY,
     .type = GQ_MF_INT32,
     .flags = GQ_MF_NONNEG,
     .off = NP(min_nodes)},
    {.name = "maxNodes",
     .vers = ANY,
     .type = GQ_MF_INT32,
     .flags = GQ_MF_REQUIRED | GQ_MF_NONNEG,
     .off = NP(max_nodes)},
    {.name = "provisioningTime",
     .vers = ANY,
     .type = GQ_MF_DURATION_MS,
     .off = NP(provisioning_ms),
     .idef = 60 * 1000},
    {.name = "scaleDownAfter",
     .vers = ANY,
     .type = GQ_MF_DURATION_MS,
     .off = NP(scale_down_ms),
     .idef = 10 * 60 * 1000},
    {.name = "stockout", .vers = ANY, .type = GQ_MF_BOOL, .off = NP(stockout)},
    {.name = "queuedProvisioning", .vers = ANY, .type = GQ_MF_BOOL, .off = NP(queued), .idef = 1},
    {.name = "failAfter",
     .vers = ANY,
     .type = GQ_MF_DURATION_MS,
     .flags = GQ_MF_HAS,
     .off = NP(fail_after_ms),
     .aux = NP(has_fail_after)},
    {.name = "podStartupTime",
     .vers = ANY,
     .type = GQ_MF_DURATION_MS,
     .flags = GQ_MF_HAS,
     .off = NP(pod_startup_ms),
     .aux = NP(has_pod_startup)},
    {.name = "stuckPodPercent",
     .vers = ANY,
     .type = GQ_MF_INT32,
     .flags = GQ_MF_HAS | GQ_MF_NONNEG,
     .off = NP(stuck_pod_percent),
     .aux = NP(has_stuck_pods)},
};
static const struct gq__mf_schema node_pool_schema =
    SCHEMA(node_pool_fields, struct gq_node_pool, NULL);

/* ---------------------------------------------------- Integration (gpuq) */

/* A user's row of the integration table (integration.h, manifest_integration.c). */
#define IP(m) offsetof(struct gq_integ_podset_spec, m)
static const struct gq__mf_field integ_podset_fields[] = {
    {.name = "path",
     .vers = ANY,
     .type = GQ_MF_STRING,
     .flags = GQ_MF_REQUIRED,
     .off = IP(path),
     .check = gq__mf_check_integ_path},
    {.name = "name", .vers = ANY, .type = GQ_MF_STRING, .off = IP(name),
     .check = gq_validate_dns1123_label},
    {.name = "nameFrom", .vers = ANY, .type = GQ_MF_STRING, .off = IP(name_from),
     .check = gq__mf_check_integ_path},
    {.name = "keys",
     .vers = ANY,
     .type = GQ_MF_STRS,
     .flags = GQ_MF_UNIQUE,
     .off = IP(keys),
     .max = 18,
     .check = gq__mf_check_integ_key},
    {.name = "template",
     .vers = ANY,
     .type = GQ_MF_STRING,
     .flags = GQ_MF_REQUIRED,
     .off = IP(template),
     .check = gq__mf_check_integ_path},
    {.name = "count", .vers = ANY, .type = GQ_MF_STRING, .off = IP(count),
     .check = gq__mf_check_integ_expr},
    {.name = "minCount", .vers = ANY, .type = GQ_MF_STRING, .off = IP(min_count),
     .check = gq__mf_check_integ_expr},
    {.name = "optional", .vers = ANY, .type = GQ_MF_BOOL, .off = IP(optional)},
};
static const struct gq__mf_schema integ_podset_schema =
    SCHEMA(integ_podset_fields, struct gq_integ_podset_spec, gq__mf_integ_podset_check);

#define IS(m) offsetof(struct gq_integration_spec, m)
static const struct gq__mf_field integ_fields[] = {
    {.name = "group",
     .vers = ANY,
     .type = GQ_MF_STRING,
     .flags = GQ_MF_REQUIRED,
     .off = IS(group),
     .check = gq_validate_dns1123_subdomain},
    {.name = "kind",
     .vers = ANY,
     .type = GQ_MF_STRING,
     .flags = GQ_MF_REQUIRED,
     .off = IS(kind),
     .check = gq__mf_check_integ_kind},
    {.name = "versions",
     .vers = ANY,
     .type = GQ_MF_STRS,
     .flags = GQ_MF_REQUIRED | GQ_MF_UNIQUE,
     .off = IS(versions),
     .min = 1,
     .max = 4,
     .check = gq_validate_dns1123_label},
    {.name = "plural", .vers = ANY, .type = GQ_MF_STRING, .off = IS(plural),
     .check = gq_validate_dns1123_label},
    {.name = "suspend",
     .vers = ANY,
     .type = GQ_MF_STRING,
     .flags = GQ_MF_REQUIRED,
     .off = IS(suspend),
     .check = gq__mf_check_integ_path},
    {.name = "finishedWhen", .vers = ANY, .type = GQ_MF_STRING, .off = IS(finished),
     .check = gq__mf_check_integ_finished},
    {.name = "podSets",
     .vers = ANY,
     .type = GQ_MF_LIST,
     .flags = GQ_MF_REQUIRED,
     .off = IS(podsets),
     .aux = IS(npodsets),
     .min = 1,
     .max = 6,
     .sub = &integ_podset_schema},
};
static const struct gq__mf_schema integ_schema =
    SCHEMA(integ_fields, struct gq_integration_spec, NULL);

/* ------------------------------------ ClusterTrainingRuntime (trainer) */

/* Kept as the runtime says it: a TrainJob's pod sets are read from it (manifest_integration.c). */
#define TR(m) offsetof(struct gq_training_runtime, m)
static const struct gq__mf_field runtime_fields[] = {
    {.name = "mlPolicy", .vers = ANY, .type = GQ_MF_RAW, .off = TR(ml_policy)},
    {.name = "podGroupPolicy", .vers = ANY, .type = GQ_MF_RAW, .off = TR(pod_group_policy)},
    {.name = "template", .vers = ANY, .type = GQ_MF_RAW, .flags = GQ_MF_REQUIRED,
     .off = TR(template)},
};
static const struct gq__mf_schema runtime_schema =
    SCHEMA(runtime_fields, struct gq_training_runtime, NULL);

/* ------------------------------------------- LimitRange, RuntimeClass (v1) */

/* Kept as written, checked and read by manifest_adjust.c. */
static const struct gq__mf_field limit_range_fields[] = {
    {.name = "limits",
     .vers = ANY,
     .type = GQ_MF_RAW,
     .flags = GQ_MF_REQUIRED,
     .off = offsetof(struct gq_limit_range, limits)},
};
static const struct gq__mf_schema limit_range_schema =
    SCHEMA(limit_range_fields, struct gq_limit_range, NULL);

#define RC(m) offsetof(struct gq_runtime_class, m)
static const struct gq__mf_field runtime_class_fields[] = {
    {.name = "handler", .vers = ANY, .type = GQ_MF_STRING, .flags = GQ_MF_REQUIRED,
     .off = RC(handler), .check = gq_validate_dns1123_label},
    {.name = "overhead", .vers = ANY, .type = GQ_MF_RAW, .off = RC(overhead)},
    {.name = "scheduling", .vers = ANY, .type = GQ_MF_RAW, .off = RC(scheduling)},
};
static const struct gq__mf_schema runtime_class_schema =
    SCHEMA(runtime_class_fields, struct gq_runtime_class, NULL);
/* ------------------------------------------ MultiKueueCluster, MultiKueueConfig */

static const struct gq__mf_enum mk_location_types[] = {
    {"Secret", NULL, ANY},
    {"Path", NULL, ANY},
    {NULL, NULL, 0},
};

#define MKC(m) offsetof(struct gq_mk_cluster, m)
static const struct gq__mf_field mk_kubeconfig_fields[] = {
    {.name = "location", .vers = ANY, .type = GQ_MF_STRING, .flags = GQ_MF_REQUIRED,
     .off = MKC(location), .max = 4096},
    {.name = "locationType", .vers = ANY, .type = GQ_MF_ENUM, .off = MKC(location_type),
     .sdef = "Secret", .enums = mk_location_types},
};
static const struct gq__mf_schema mk_kubeconfig_schema =
    SCHEMA(mk_kubeconfig_fields, struct gq_mk_cluster, NULL);

/* v1beta2 moved kubeConfig under clusterSource (clusterProfileRef, its other source, is refused). */
static const struct gq__mf_field mk_source_fields[] = {
    {.name = "kubeConfig", .vers = ANY, .type = GQ_MF_STRUCT, .flags = GQ_MF_REQUIRED,
     .sub = &mk_kubeconfig_schema},
};
static const struct gq__mf_schema mk_source_schema =
    SCHEMA(mk_source_fields, struct gq_mk_cluster, NULL);

/*
 * v1beta1 reads clusterSource too: gpuq's own CRDs (examples/deploy/crds) serve
 * both versions from one storage with no conversion, so a v1beta2 object
 * comes back under v1beta1 as written. One of the two is required (post hook).
 */
static const struct gq__mf_field mk_cluster_fields[] = {
    {.name = "kubeConfig", .vers = B1, .type = GQ_MF_STRUCT, .sub = &mk_kubeconfig_schema},
    {.name = "clusterSource", .vers = ANY, .type = GQ_MF_STRUCT, .sub = &mk_source_schema},
};
static const struct gq__mf_schema mk_cluster_schema =
    SCHEMA(mk_cluster_fields, struct gq_mk_cluster, NULL);

#define MKF(m) offsetof(struct gq_mk_config, m)
static const struct gq__mf_field mk_config_fields[] = {
    {.name = "clusters",
     .vers = ANY,
     .type = GQ_MF_STRS,
     .flags = GQ_MF_REQUIRED | GQ_MF_UNIQUE,
     .off = MKF(clusters),
     .min = 1,
     .max = 10,
     .check = gq_validate_dns1123_subdomain},
};
static const struct gq__mf_schema mk_config_schema =
    SCHEMA(mk_config_fields, struct gq_mk_config, NULL);

/* ----------------------------------------------------------------- kinds */

#define KUEUE "kueue.x-k8s.io"
#define KUEUE_V2 KUEUE "/v1beta2"

static const struct gq__mf_kind kinds[] = {
    {GQ_KIND_RESOURCE_FLAVOR, KUEUE, "ResourceFlavor", B1 | B2, 0, "spec", KUEUE_V2, &flavor_schema,
     NULL, gq__mf_flavor_post, NULL},
    {GQ_KIND_CLUSTER_QUEUE, KUEUE, "ClusterQueue", B1 | B2, 0, "spec", KUEUE_V2, &cq_schema,
     gq__mf_cq_pre, gq__mf_cq_post, NULL},
    {GQ_KIND_COHORT, KUEUE, "Cohort", GQ_MF_V1ALPHA1 | B1 | B2, 0, "spec", KUEUE_V2, &cohort_schema,
     NULL, gq__mf_cohort_post, NULL},
    {GQ_KIND_LOCAL_QUEUE, KUEUE, "LocalQueue", B1 | B2, GQ_MF_NAMESPACED, "spec", KUEUE_V2,
     &lq_schema, NULL, NULL, NULL},
    {GQ_KIND_PRIORITY_CLASS, KUEUE, "WorkloadPriorityClass", B1 | B2, 0, NULL, KUEUE_V2,
     &wpc_schema, NULL, NULL, NULL},
    {GQ_KIND_ADMISSION_CHECK, KUEUE, "AdmissionCheck", B1 | B2, 0, "spec", KUEUE_V2, &ac_schema,
     NULL, NULL, NULL},
    {GQ_KIND_PROVISIONING_CONFIG, KUEUE, "ProvisioningRequestConfig", B1 | B2, 0, "spec", KUEUE_V2,
     &prc_schema, NULL, gq__mf_prc_post, NULL},
    {GQ_KIND_MK_CLUSTER, KUEUE, "MultiKueueCluster", B1 | B2, 0, "spec", KUEUE_V2,
     &mk_cluster_schema, NULL, gq__mf_mk_cluster_post, NULL},
    {GQ_KIND_MK_CONFIG, KUEUE, "MultiKueueConfig", B1 | B2, 0, "spec", KUEUE_V2, &mk_config_schema,
     NULL, NULL, NULL},
    {GQ_KIND_WORKLOAD, KUEUE, "Workload", B1 | B2, GQ_MF_NAMESPACED, "spec", KUEUE_V2, NULL, NULL,
     NULL, gq__mf_decode_workload},
    {GQ_KIND_CONFIGURATION, "config." KUEUE, "Configuration", B1 | B2, GQ_MF_NAME_OPTIONAL, NULL,
     "config." KUEUE_V2, &config_schema, NULL, gq__mf_config_post, NULL},
    {GQ_KIND_NAMESPACE, "", "Namespace", GQ_MF_V1, GQ_MF_NAME_LABEL, NULL, "v1", NULL, NULL, NULL,
     NULL},
    {GQ_KIND_JOB, "batch", "Job", GQ_MF_V1, GQ_MF_NAMESPACED, "spec", KUEUE_V2, NULL, NULL, NULL,
     gq__mf_decode_job},
    {GQ_KIND_TRAINING_RUNTIME, "trainer.kubeflow.org", "ClusterTrainingRuntime", GQ_MF_V1ALPHA1,
     0, "spec", "trainer.kubeflow.org/v1alpha1", &runtime_schema, NULL, NULL, NULL},
    {GQ_KIND_LIMIT_RANGE, "", "LimitRange", GQ_MF_V1, GQ_MF_NAMESPACED, "spec", "v1",
     &limit_range_schema, NULL, gq__mf_limit_range_post, NULL},
    {GQ_KIND_RUNTIME_CLASS, "node.k8s.io", "RuntimeClass", GQ_MF_V1, 0, NULL, "node.k8s.io/v1",
     &runtime_class_schema, NULL, gq__mf_runtime_class_post, NULL},
    {GQ_KIND_INTEGRATION, "gpuq.dev", "Integration", GQ_MF_V1ALPHA1, 0, "spec",
     "gpuq.dev/v1alpha1", &integ_schema, NULL, gq__mf_integration_post, NULL},
    {GQ_KIND_NODE_POOL, "sim.gpuq.dev", "NodePool", GQ_MF_V1ALPHA1, 0, "spec",
     "sim.gpuq.dev/v1alpha1", &node_pool_schema, NULL, gq__mf_node_pool_post, NULL},
};

const struct gq__mf_kind *gq__mf_kind_find(const char *group, const char *kind)
{
    size_t i;

    for (i = 0; i < NELEM(kinds); i++)
        if (!strcmp(kinds[i].group, group) && !strcmp(kinds[i].name, kind))
            return &kinds[i];
    return NULL;
}

const struct gq__mf_kind *gq__mf_kind_of(enum gq_kind kind)
{
    size_t i;

    for (i = 0; i < NELEM(kinds); i++)
        if (kinds[i].kind == kind)
            return &kinds[i];
    return NULL;
}
