/*
 * manifest_rules.c: the rules a field table cannot state on its own, run by
 * the decoder after (or, for pre hooks, before) a kind's table: Kueue's
 * webhook and CEL validations that relate several fields, version-dependent
 * defaults, and the label selector that ClusterQueues keep as text.
 *
 * Messages follow the decoder's form, "PATH: invalid value "V": WHY"; the
 * context's path is at "spec" (or the root for Configuration) when a kind
 * hook runs and at the element when an element hook runs.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "gpuqueue/validate.h"
#include "manifest_fields.h"
#include "quota.h"
#include "util.h"

#define MAX_FLAVORS_TOTAL 256 /* Kueue: flavors across all resource groups */
#define MAX_COVERED_TOTAL 256 /* Kueue: covered resources across all resource groups */
#define MAX_COMBINATIONS 512  /* Kueue: flavor-resource pairs in one resource group */

/* ---------------------------------------------------------- resource groups */

/* The first place before (i, j) where resource name r is covered, as "[a].coveredResources[b]". */
static bool covered_before(
    const struct gq_resource_group *g, size_t i, size_t j, const char *r, char *where, size_t size)
{
    size_t a, b;

    for (a = 0; a <= i; a++)
        for (b = 0; b < (a == i ? j : g[a].covered.n); b++)
            if (!strcmp(g[a].covered.v[b], r)) {
                snprintf(where, size, "resourceGroups[%zu].coveredResources[%zu]", a, b);
                return true;
            }
    return false;
}

static bool flavor_before(
    const struct gq_resource_group *g, size_t i, size_t j, const char *f, char *where, size_t size)
{
    size_t a, b;

    for (a = 0; a <= i; a++)
        for (b = 0; b < (a == i ? j : g[a].nflavors); b++)
            if (!strcmp(g[a].flavors[b].name, f)) {
                snprintf(where, size, "resourceGroups[%zu].flavors[%zu]", a, b);
                return true;
            }
    return false;
}

/* A flavor lists exactly the group's covered resources, in the same order. */
static int check_flavor_resources(struct gq__mf_ctx *c,
                                  const struct gq_resource_group *g,
                                  const struct gq_flavor_quotas *fq)
{
    char n[32];
    size_t k;

    if (fq->nresources != g->covered.n) {
        snprintf(n, sizeof(n), "%zu items", fq->nresources);
        gq__mf_push(c, "resources");
        return gq__mf_invalid(c, n, "must list the %zu coveredResources of its group, in order",
                              g->covered.n);
    }
    for (k = 0; k < fq->nresources; k++) {
        if (strcmp(fq->resources[k].name, g->covered.v[k])) {
            gq__mf_push(c, "resources");
            gq__mf_push_index(c, k);
            gq__mf_push(c, "name");
            return gq__mf_invalid(c, fq->resources[k].name,
                                  "must match coveredResources[%zu] (\"%s\")", k, g->covered.v[k]);
        }
    }
    return GQ_OK;
}

static int check_group(struct gq__mf_ctx *c, const struct gq_resource_group *g, size_t i)
{
    char where[96];
    size_t j, mark;
    int rc;

    for (j = 0; j < g[i].covered.n; j++) {
        if (covered_before(g, i, j, g[i].covered.v[j], where, sizeof(where))) {
            gq__mf_push(c, "coveredResources");
            gq__mf_push_index(c, j);
            return gq__mf_invalid(c, g[i].covered.v[j], "duplicate resource (also %s)", where);
        }
    }
    for (j = 0; j < g[i].nflavors; j++) {
        mark = gq__mf_push(c, "flavors");
        gq__mf_push_index(c, j);
        if (flavor_before(g, i, j, g[i].flavors[j].name, where, sizeof(where))) {
            gq__mf_push(c, "name");
            return gq__mf_invalid(c, g[i].flavors[j].name, "duplicate flavor (also %s)", where);
        }
        if ((rc = check_flavor_resources(c, &g[i], &g[i].flavors[j])) != GQ_OK)
            return rc;
        gq__mf_pop(c, mark);
    }
    return GQ_OK;
}

/*
 * Kueue's validateResourceGroups and its CEL rules: a resource is covered by
 * one group only, a flavor appears in one group only, each flavor lists the
 * covered resources in order, at most 256 flavors in all; and borrowing and
 * lending limits exist only where there is someone to borrow from or lend to.
 */
static int check_groups(struct gq__mf_ctx *c, const struct gq_resource_group *g, size_t ng)
{
    size_t i, flavors = 0, covered = 0, mark = gq__mf_push(c, "resourceGroups"), imark;
    int rc;

    for (i = 0; i < ng; i++) {
        flavors += g[i].nflavors;
        covered += g[i].covered.n;
    }
    if (flavors > MAX_FLAVORS_TOTAL)
        return gq__mf_fail(c, "too many flavors: %zu: must have at most %d in all groups", flavors,
                           MAX_FLAVORS_TOTAL);
    if (covered > MAX_COVERED_TOTAL)
        return gq__mf_fail(c, "too many covered resources: %zu: must have at most %d in all groups",
                           covered, MAX_COVERED_TOTAL);
    for (i = 0; i < ng; i++) {
        imark = gq__mf_push_index(c, i);
        if (g[i].nflavors * g[i].covered.n > MAX_COMBINATIONS)
            return gq__mf_fail(c,
                               "too many flavor-resource combinations: %zu: must have at most %d",
                               g[i].nflavors * g[i].covered.n, MAX_COMBINATIONS);
        if ((rc = check_group(c, g, i)) != GQ_OK)
            return rc;
        gq__mf_pop(c, imark);
    }
    gq__mf_pop(c, mark);
    return GQ_OK;
}

static int limit_error(struct gq__mf_ctx *c,
                       size_t i,
                       size_t j,
                       size_t k,
                       const char *field,
                       const gq_quantity *q,
                       const char *why)
{
    char text[GQ_QUANTITY_BUFSIZE];

    gq_quantity_format(text, sizeof(text), q);
    gq__mf_push(c, "resourceGroups");
    gq__mf_push_index(c, i);
    gq__mf_push(c, "flavors");
    gq__mf_push_index(c, j);
    gq__mf_push(c, "resources");
    gq__mf_push_index(c, k);
    gq__mf_push(c, field);
    return gq__mf_invalid(c, text, "%s", why);
}

/* One quota value: it must be countable in gpuq's int64 accounting units. */
static int check_amount(struct gq__mf_ctx *c, size_t i, size_t j, size_t k, const char *field,
                        const char *resource, const gq_quantity *q)
{
    char max[GQ_QUANTITY_BUFSIZE], why[128];
    int64_t v;

    if (gq_quantity_resource_value(&v, resource, q) == GQ_OK)
        return GQ_OK;
    gq__amount_format(max, sizeof(max), resource, INT64_MAX);
    snprintf(why, sizeof(why), "must be at most %s, the largest %s amount gpuq accounts", max,
             resource);
    return limit_error(c, i, j, k, field, q, why);
}

/*
 * Quotas are counted in int64 units (milli-units for cpu), as Kueue counts
 * them. A value past that range used to be saturated, and sums saturated at
 * the same bound compared equal to it: a quota of "9223372036854775807" cpus
 * admitted a job asking three times as much. Such values are refused here.
 */
static int check_amounts(struct gq__mf_ctx *c, const struct gq_resource_group *g, size_t ng)
{
    size_t i, j, k;
    int rc;

    for (i = 0; i < ng; i++) {
        for (j = 0; j < g[i].nflavors; j++) {
            for (k = 0; k < g[i].flavors[j].nresources; k++) {
                const struct gq_resource_quota *r = &g[i].flavors[j].resources[k];

                if ((rc = check_amount(c, i, j, k, "nominalQuota", r->name, &r->nominal)) ||
                    (r->has_borrowing_limit && (rc = check_amount(c, i, j, k, "borrowingLimit",
                                                                  r->name, &r->borrowing_limit))) ||
                    (r->has_lending_limit && (rc = check_amount(c, i, j, k, "lendingLimit",
                                                                r->name, &r->lending_limit))))
                    return rc;
            }
        }
    }
    return GQ_OK;
}

/*
 * Limits need someone to borrow from or lend to (`allowed`); a cluster queue
 * may not lend more than its nominal quota (Kueue does not check that for a
 * cohort, whose nominal quota is only what it adds to its children's).
 */
static int check_limits(struct gq__mf_ctx *c,
                        const struct gq_resource_group *g,
                        size_t ng,
                        bool allowed,
                        bool lend_within_nominal,
                        const char *why)
{
    size_t i, j, k;

    for (i = 0; i < ng; i++) {
        for (j = 0; j < g[i].nflavors; j++) {
            for (k = 0; k < g[i].flavors[j].nresources; k++) {
                const struct gq_resource_quota *r = &g[i].flavors[j].resources[k];

                if (r->has_borrowing_limit && !allowed)
                    return limit_error(c, i, j, k, "borrowingLimit", &r->borrowing_limit, why);
                if (r->has_lending_limit && !allowed)
                    return limit_error(c, i, j, k, "lendingLimit", &r->lending_limit, why);
                if (r->has_lending_limit && lend_within_nominal &&
                    gq_quantity_cmp(&r->lending_limit, &r->nominal) > 0)
                    return limit_error(c, i, j, k, "lendingLimit", &r->lending_limit,
                                       "must be less than or equal to the nominalQuota");
            }
        }
    }
    return GQ_OK;
}

/* Kueue's validateFairSharing: a weight of 0 < w <= 1n would collapse to zero shares. */
static int check_weight(struct gq__mf_ctx *c, const gq_quantity *w)
{
    static const gq_quantity nano = {1, -9, GQ_QTY_DECIMAL_SI};
    char text[GQ_QUANTITY_BUFSIZE];

    if (gq_quantity_sign(w) <= 0 || gq_quantity_cmp(w, &nano) > 0)
        return GQ_OK;
    gq_quantity_format(text, sizeof(text), w);
    gq__mf_push(c, "fairSharing.weight");
    return gq__mf_invalid(c, text, "must be 0 or more than 1n");
}

/* ---------------------------------------------------------- ClusterQueue */

int gq__mf_cq_pre(struct gq__mf_ctx *c, json_object *spec, struct gq_object *obj)
{
    (void)obj;
    if (gq__mf_get(spec, "admissionChecks") && gq__mf_get(spec, "admissionChecksStrategy") &&
        c->version == GQ_MF_V1BETA1) {
        gq__mf_push(c, "admissionChecks");
        return gq__mf_fail(c, "may not be set together with spec.admissionChecksStrategy");
    }
    return GQ_OK;
}

static int check_policies(struct gq__mf_ctx *c, const struct gq_cluster_queue *cq)
{
    if (cq->fungibility_preference && (strcmp(cq->when_can_borrow, "TryNextFlavor") ||
                                       strcmp(cq->when_can_preempt, "TryNextFlavor"))) {
        gq__mf_push(c, "flavorFungibility.preference");
        return gq__mf_invalid(c, cq->fungibility_preference,
                              "only allowed when whenCanBorrow and whenCanPreempt are both "
                              "TryNextFlavor");
    }
    if (strcmp(cq->borrow_within_cohort, "Never") && !strcmp(cq->reclaim_within_cohort, "Never")) {
        gq__mf_push(c, "preemption.borrowWithinCohort.policy");
        return gq__mf_invalid(c, cq->borrow_within_cohort,
                              "not allowed when reclaimWithinCohort is Never");
    }
    return GQ_OK;
}

static int check_check_names(struct gq__mf_ctx *c, const struct gq_cluster_queue *cq)
{
    size_t i, j;

    for (i = 0; i < cq->nchecks; i++) {
        for (j = 0; j < i; j++) {
            if (!strcmp(cq->checks[i].name, cq->checks[j].name)) {
                gq__mf_push(c, "admissionChecksStrategy.admissionChecks");
                gq__mf_push_index(c, i);
                gq__mf_push(c, "name");
                return gq__mf_invalid(c, cq->checks[i].name, "duplicate admission check");
            }
        }
    }
    return GQ_OK;
}

int gq__mf_cq_post(struct gq__mf_ctx *c, json_object *spec, struct gq_object *obj)
{
    const struct gq_cluster_queue *cq = &obj->u.cq;
    int rc;

    (void)spec;
    if ((rc = check_policies(c, cq)) != GQ_OK || (rc = check_check_names(c, cq)) != GQ_OK ||
        (rc = check_weight(c, &cq->fair_weight)) != GQ_OK ||
        (rc = check_groups(c, cq->groups, cq->ngroups)) != GQ_OK ||
        (rc = check_amounts(c, cq->groups, cq->ngroups)) != GQ_OK)
        return rc;
    return check_limits(c, cq->groups, cq->ngroups, cq->cohort != NULL, true,
                        "must be absent when the cluster queue has no cohort");
}

/* ----------------------------------------------------- Cohort, flavors */

int gq__mf_cohort_post(struct gq__mf_ctx *c, json_object *spec, struct gq_object *obj)
{
    const struct gq_cohort *co = &obj->u.cohort;
    int rc;

    (void)spec;
    if ((rc = check_weight(c, &co->fair_weight)) != GQ_OK ||
        (rc = check_groups(c, co->groups, co->ngroups)) != GQ_OK ||
        (rc = check_amounts(c, co->groups, co->ngroups)) != GQ_OK)
        return rc;
    return check_limits(c, co->groups, co->ngroups, co->parent != NULL, false,
                        "must be absent when the cohort has no parent");
}

int gq__mf_flavor_post(struct gq__mf_ctx *c, json_object *spec, struct gq_object *obj)
{
    (void)spec;
    if (obj->u.flavor.topology_name && !obj->u.flavor.node_labels.n) {
        gq__mf_push(c, "topologyName");
        return gq__mf_invalid(c, obj->u.flavor.topology_name,
                              "requires at least one entry in nodeLabels");
    }
    return GQ_OK;
}

int gq__mf_node_pool_post(struct gq__mf_ctx *c, json_object *spec, struct gq_object *obj)
{
    char buf[GQ_MF_TEXT_BUFSIZE];

    if (obj->u.pool.max_nodes < obj->u.pool.min_nodes) {
        gq__mf_push(c, "maxNodes");
        return gq__mf_invalid(c, gq__mf_text(gq__mf_get(spec, "maxNodes"), buf),
                              "must be greater than or equal to minNodes (%d)",
                              (int)obj->u.pool.min_nodes);
    }
    if (obj->u.pool.stuck_pod_percent > 100) {
        gq__mf_push(c, "stuckPodPercent");
        return gq__mf_invalid(c, gq__mf_text(gq__mf_get(spec, "stuckPodPercent"), buf),
                              "must be between 0 and 100");
    }
    return GQ_OK;
}

/* Kubernetes' ValidateTolerations. */
int gq__mf_toleration_check(struct gq__mf_ctx *c, void *base)
{
    const struct gq_toleration *t = base;
    int rc;

    if (!t->key && strcmp(t->op, "Exists")) {
        gq__mf_push(c, "operator");
        return gq__mf_invalid(c, t->op, "must be Exists when key is empty");
    }
    if (t->has_seconds && (!t->effect || strcmp(t->effect, "NoExecute"))) {
        gq__mf_push(c, "effect");
        return gq__mf_invalid(c, t->effect ? t->effect : "",
                              "must be NoExecute when tolerationSeconds is set");
    }
    if (!strcmp(t->op, "Exists") && t->value && *t->value) {
        gq__mf_push(c, "value");
        return gq__mf_invalid(c, t->value, "must be empty when operator is Exists");
    }
    if (!strcmp(t->op, "Equal") && t->value && (rc = gq_validate_label_value(t->value, c->err))) {
        gq__mf_push(c, "value");
        return gq__mf_wrap(c, rc);
    }
    return GQ_OK;
}

/* ------------------------------------------------- ProvisioningRequestConfig */

int gq__mf_check_param_value(const char *s, gq_error *err)
{
    if (strlen(s) > 255)
        return gq__error(err, GQ_EINVALID,
                         "invalid value \"%.64s...\": must be no more than 255 "
                         "characters",
                         s);
    return GQ_OK;
}

static const char *annotation(const struct gq_meta *m, const char *key)
{
    size_t i;

    for (i = 0; i < m->annotations.n; i++)
        if (!strcmp(m->annotations.v[i].key, key))
            return m->annotations.v[i].value;
    return NULL;
}

/* A bad annotation is reported at its own path, not under spec. */
static int bad_annotation(struct gq__mf_ctx *c, const char *key, const char *value,
                          const char *why)
{
    gq__mf_pop(c, 0);
    gq__mf_push(c, "metadata.annotations");
    gq__mf_push(c, key);
    return gq__mf_invalid(c, value, "%s", why);
}

/*
 * gpuq's extensions of the config, off unless annotated, so that the same
 * YAML still applies to a real Kueue (kueue-semantics.md §6, #3245, #2560).
 */
int gq__mf_prc_post(struct gq__mf_ctx *c, json_object *spec, struct gq_object *obj)
{
    struct gq_provisioning_config *p = &obj->u.prc;
    const char *t = annotation(&obj->meta, GQ_PROVISIONING_TIMEOUT_ANNOTATION);
    const char *f = annotation(&obj->meta, GQ_FLAVOR_FALLBACK_ANNOTATION), *d;
    int64_t n = 0;

    (void)spec;
    if (t && (gq__parse_duration_ms(t, &p->timeout_ms) < 0 || p->timeout_ms <= 0))
        return bad_annotation(c, GQ_PROVISIONING_TIMEOUT_ANNOTATION, t,
                              "must be a positive duration such as \"30m\" or \"1h30m\"");
    if (!f)
        return GQ_OK;
    for (d = f; *d >= '0' && *d <= '9' && n <= INT32_MAX; d++)
        n = n * 10 + (*d - '0');
    if (d == f || *d || n < 1 || n > INT32_MAX)
        return bad_annotation(c, GQ_FLAVOR_FALLBACK_ANNOTATION, f,
                              "must be an integer of at least 1");
    p->fallback_after = (int32_t)n;
    return GQ_OK;
}

/* --------------------------------------------------------- Configuration */

static int config_strategies(struct gq__mf_ctx *c, struct gq_configuration *cfg)
{
    static const char *const def[] = {"LessThanOrEqualToFinalShare", "LessThanInitialShare"};
    struct gq_strs *s = &cfg->preemption_strategies;
    size_t i;

    if (s->n == 2 && strcmp(s->v[0], def[0])) {
        gq__mf_push(c, "fairSharing.preemptionStrategies");
        return gq__mf_invalid(c, s->v[0],
                              "must be [LessThanOrEqualToFinalShare], "
                              "[LessThanInitialShare] or "
                              "[LessThanOrEqualToFinalShare, LessThanInitialShare]");
    }
    if (s->n)
        return GQ_OK;
    if (!(s->v = calloc(2, sizeof(*s->v))))
        return gq__mf_nomem(c);
    for (i = 0; i < 2; i++) {
        if (!(s->v[i] = strdup(def[i])))
            return gq__mf_nomem(c);
        s->n++;
    }
    return GQ_OK;
}

/*
 * admissionFairSharing: a positive sampling interval, and resourceWeights a
 * map of resource names to numbers not negative (Kueue's
 * validateAdmissionFairSharing), kept as text for the engine.
 */
static int config_afs(struct gq__mf_ctx *c, json_object *root, struct gq_configuration *cfg)
{
    json_object *w = gq__mf_get(gq__mf_get(root, "admissionFairSharing"), "resourceWeights");
    struct json_object_iterator it, end;
    char text[40];
    size_t n = 0;

    if (!cfg->admission_fair_sharing)
        return GQ_OK;
    if (cfg->afs_sampling_ms <= 0) {
        gq__mf_push(c, "admissionFairSharing.usageSamplingInterval");
        return gq__mf_fail(c, "must be greater than 0");
    }
    if (!w)
        return GQ_OK;
    gq__mf_push(c, "admissionFairSharing.resourceWeights");
    if (!json_object_is_type(w, json_type_object))
        return gq__mf_fail(c, "must be a map of resource names to weights");
    if (!(cfg->afs_weights.v = calloc((size_t)json_object_object_length(w) + 1,
                                      sizeof(*cfg->afs_weights.v))))
        return gq__mf_nomem(c);
    it = json_object_iter_begin(w);
    end = json_object_iter_end(w);
    for (; !json_object_iter_equal(&it, &end); json_object_iter_next(&it), n++) {
        const char *name = json_object_iter_peek_name(&it);
        json_object *v = json_object_iter_peek_value(&it);
        double x = json_object_get_double(v);

        if ((!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int)) ||
            !(x >= 0)) {
            gq__mf_push(c, name);
            return gq__mf_invalid(c, json_object_get_string(v), "must be a number, not negative");
        }
        snprintf(text, sizeof(text), "%.17g", x);
        cfg->afs_weights.v[n].key = strdup(name);
        cfg->afs_weights.v[n].value = strdup(text);
        cfg->afs_weights.n = n + 1;
        if (!cfg->afs_weights.v[n].key || !cfg->afs_weights.v[n].value)
            return gq__mf_nomem(c);
    }
    return GQ_OK;
}

/* Version-dependent defaults that one row cannot express. */
int gq__mf_config_post(struct gq__mf_ctx *c, json_object *root, struct gq_object *obj)
{
    struct gq_configuration *cfg = &obj->u.config;
    json_object *wfpr = gq__mf_get(root, "waitForPodsReady");
    int rc;

    /* v1beta1: blockAdmission defaults to enable; v1beta2: to false (the row's default). */
    if (c->version == GQ_MF_V1BETA1 && !gq__mf_get(wfpr, "blockAdmission"))
        cfg->block_admission = cfg->wait_for_pods_ready;
    if (cfg->recovery_timeout_s < 0)
        cfg->recovery_timeout_s = cfg->pods_ready_timeout_s;
    if ((rc = gq__mf_transformations_check(c, root)) != GQ_OK)
        return rc;
    if (cfg->requeue_max_s < cfg->requeue_base_s) {
        gq__mf_push(c, "waitForPodsReady.requeuingStrategy.backoffMaxSeconds");
        return gq__mf_fail(c, "must not be less than backoffBaseSeconds (%d)",
                           (int)cfg->requeue_base_s);
    }
    if ((rc = config_afs(c, root, cfg)) != GQ_OK)
        return rc;
    return config_strategies(c, cfg);
}

/* ------------------------------------------------------------ selectors */

/* A metav1.LabelSelector while it is checked; only the canonical text is kept. */
struct selector_expr {
    char *key;
    char *op;
    struct gq_strs values;
};
struct selector {
    struct gq_kvs labels;
    struct selector_expr *exprs;
    size_t nexprs;
};

static const struct gq__mf_enum selector_ops[] = {{"In", NULL, GQ_MF_ANY},
                                                  {"NotIn", NULL, GQ_MF_ANY},
                                                  {"Exists", NULL, GQ_MF_ANY},
                                                  {"DoesNotExist", NULL, GQ_MF_ANY},
                                                  {NULL, NULL, 0}};

/* In and NotIn need values; Exists and DoesNotExist take none. */
static int selector_expr_check(struct gq__mf_ctx *c, void *base)
{
    const struct selector_expr *e = base;
    bool set_op = !strcmp(e->op, "In") || !strcmp(e->op, "NotIn");

    if (set_op == (e->values.n > 0))
        return GQ_OK;
    gq__mf_push(c, "values");
    return gq__mf_fail(c, set_op ? "must be specified when operator is In or NotIn"
                                 : "may not be specified when operator is Exists or DoesNotExist");
}

#define SE(m) offsetof(struct selector_expr, m)
static const struct gq__mf_field selector_expr_fields[] = {
    {.name = "key",
     .vers = GQ_MF_ANY,
     .type = GQ_MF_STRING,
     .flags = GQ_MF_REQUIRED,
     .off = SE(key),
     .check = gq_validate_label_key},
    {.name = "operator",
     .vers = GQ_MF_ANY,
     .type = GQ_MF_ENUM,
     .flags = GQ_MF_REQUIRED,
     .off = SE(op),
     .enums = selector_ops},
    {.name = "values",
     .vers = GQ_MF_ANY,
     .type = GQ_MF_STRS,
     .off = SE(values),
     .check = gq_validate_label_value},
};
static const struct gq__mf_schema selector_expr_schema = {
    selector_expr_fields, sizeof(selector_expr_fields) / sizeof(selector_expr_fields[0]),
    sizeof(struct selector_expr), selector_expr_check};

#define SEL(m) offsetof(struct selector, m)
static const struct gq__mf_field selector_fields[] = {
    {.name = "matchLabels",
     .vers = GQ_MF_ANY,
     .type = GQ_MF_KVS,
     .off = SEL(labels),
     .check = gq_validate_label_key,
     .check_value = gq_validate_label_value},
    {.name = "matchExpressions",
     .vers = GQ_MF_ANY,
     .type = GQ_MF_LIST,
     .off = SEL(exprs),
     .aux = SEL(nexprs),
     .sub = &selector_expr_schema},
};
static const struct gq__mf_schema selector_schema = {
    selector_fields, sizeof(selector_fields) / sizeof(selector_fields[0]), sizeof(struct selector),
    NULL};

static void selector_free(struct selector *s)
{
    size_t i, j;

    for (i = 0; i < s->labels.n; i++) {
        free(s->labels.v[i].key);
        free(s->labels.v[i].value);
    }
    free(s->labels.v);
    for (i = 0; i < s->nexprs; i++) {
        free(s->exprs[i].key);
        free(s->exprs[i].op);
        for (j = 0; j < s->exprs[i].values.n; j++)
            free(s->exprs[i].values.v[j]);
        free(s->exprs[i].values.v);
    }
    free(s->exprs);
}

/* The canonical text: matchLabels by key, then matchExpressions; empty parts omitted. */
static char *selector_text(const struct selector *s)
{
    json_object *sel = json_object_new_object(), *labels, *list, *e, *vals;
    const char *text;
    char *out = NULL;
    size_t i, j;

    if (!sel)
        return NULL;
    if (s->labels.n) {
        labels = gq__mf_encode_kvs(&s->labels);
        json_object_object_add(sel, "matchLabels", labels);
    }
    if (s->nexprs && (list = json_object_new_array()))
        json_object_object_add(sel, "matchExpressions", list);
    for (i = 0; i < s->nexprs && list; i++) {
        if (!(e = json_object_new_object()))
            break;
        json_object_object_add(e, "key", json_object_new_string(s->exprs[i].key));
        json_object_object_add(e, "operator", json_object_new_string(s->exprs[i].op));
        if (s->exprs[i].values.n && (vals = json_object_new_array())) {
            for (j = 0; j < s->exprs[i].values.n; j++)
                json_object_array_add(vals, json_object_new_string(s->exprs[i].values.v[j]));
            json_object_object_add(e, "values", vals);
        }
        json_object_array_add(list, e);
    }
    text = json_object_to_json_string_ext(sel,
                                          JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
    if (text)
        out = strdup(text);
    json_object_put(sel);
    return out;
}

/*
 * A metav1.LabelSelector (ClusterQueue namespaceSelector), checked with
 * Kubernetes' rules and kept as canonical text, so `{}` and
 * `{matchLabels: {}}` are the same "{}" (every namespace).
 */
int gq__mf_selector(struct gq__mf_ctx *c, json_object *v, char **out)
{
    struct selector sel;
    int rc;

    memset(&sel, 0, sizeof(sel));
    if ((rc = gq__mf_object(c, v)) == GQ_OK &&
        (rc = gq__mf_decode_fields(c, &selector_schema, v, &sel)) == GQ_OK) {
        free(*out);
        if (!(*out = selector_text(&sel)))
            rc = gq__mf_nomem(c);
    }
    selector_free(&sel);
    return rc;
}
