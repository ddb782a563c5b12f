/*
 * manifest_workload.c: batch/v1 Jobs and Kueue Workloads into struct
 * gq_workload (kueue-semantics.md §1.7 and §2.11).
 *
 * A Job becomes one pod set "main" whose count is parallelism (default 1)
 * capped by completions, with the queue and priority class taken from its
 * labels. A Workload brings its pod sets, queue, priority and, when imported
 * from a cluster, its admission. Each pod set keeps its template as pristine
 * canonical JSON and the per-pod requests Kubernetes computes for it
 * (resourcehelpers.PodRequests): the sum over containers, raised to the
 * largest init container (sidecars, restartPolicy Always, add up alongside),
 * plus the pod overhead; a container's limit stands in for a missing request.
 *
 * This is the hot path of `gpuq submit -f` (100,000 Jobs in a couple of
 * seconds): each template is walked once and serialized once, and the
 * running totals borrow resource names from the JSON tree until the final
 * list is copied out.
 */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "gpuqueue/validate.h"
#include "manifest_fields.h"
#include "quota.h"
#include "util.h"

#define QUEUE_LABEL "kueue.x-k8s.io/queue-name"
#define PRIORITY_LABEL "kueue.x-k8s.io/priority-class"
#define MIN_PARALLELISM_ANNOTATION "kueue.x-k8s.io/job-min-parallelism"
#define DURATION_ANNOTATION "gpuq.dev/duration"
#define ADMISSION_ANNOTATION "gpuq.dev/admission"
#define MAX_PODSETS 18

/* ------------------------------------------------------------- totals */

/* A resource total being added up; the name borrows the JSON tree. */
struct rentry {
    const char *name;
    gq_quantity q;
};

struct rlist {
    struct rentry *v;
    size_t n, cap;
};

static struct rentry *rlist_slot(struct rlist *l, const char *name, bool *fresh)
{
    struct rentry *grown;
    size_t i;

    for (i = 0; i < l->n; i++)
        if (!strcmp(l->v[i].name, name)) {
            *fresh = false;
            return &l->v[i];
        }
    if (l->n == l->cap) {
        if (!(grown = realloc(l->v, (l->cap ? l->cap * 2 : 8) * sizeof(*grown))))
            return NULL;
        l->v = grown;
        l->cap = l->cap ? l->cap * 2 : 8;
    }
    *fresh = true;
    l->v[l->n].name = name;
    memset(&l->v[l->n].q, 0, sizeof(l->v[l->n].q));
    return &l->v[l->n++];
}

static int rlist_add(struct gq__mf_ctx *c, struct rlist *l, const char *name, const gq_quantity *q)
{
    bool fresh;
    struct rentry *e = rlist_slot(l, name, &fresh);

    if (!e)
        return gq__mf_nomem(c);
    if (fresh)
        e->q = *q;
    else if (!gq__mf_quantity_add(&e->q, q))
        return gq__mf_fail(c, "the total request of %s does not fit in 64 bits", name);
    return GQ_OK;
}

static int rlist_add_all(struct gq__mf_ctx *c, struct rlist *dst, const struct rlist *src)
{
    size_t i;
    int rc;

    for (i = 0; i < src->n; i++)
        if ((rc = rlist_add(c, dst, src->v[i].name, &src->v[i].q)) != GQ_OK)
            return rc;
    return GQ_OK;
}

static int rlist_max_all(struct gq__mf_ctx *c, struct rlist *dst, const struct rlist *src)
{
    struct rentry *e;
    bool fresh;
    size_t i;

    for (i = 0; i < src->n; i++) {
        if (!(e = rlist_slot(dst, src->v[i].name, &fresh)))
            return gq__mf_nomem(c);
        if (fresh || gq_quantity_cmp(&src->v[i].q, &e->q) > 0)
            e->q = src->v[i].q;
    }
    return GQ_OK;
}

/* ----------------------------------------------------------- pod specs */

/*
 * Write q back into map[name] as the string apimachinery's Quantity.String
 * prints ("1.5Gi" -> "1536Mi", "1000m" -> "1", 2 -> "2"), so that the kept
 * template reads back as the API server would return it. Replacing the value
 * of an existing key keeps its hash entry, so the caller's iterator stays valid.
 */
static int
canonicalize(struct gq__mf_ctx *c, json_object *map, const char *name, json_object *v,
             const gq_quantity *q)
{
    char text[GQ_QUANTITY_BUFSIZE];
    json_object *s;

    gq_quantity_format(text, sizeof(text), q);
    if (json_object_is_type(v, json_type_string) && strcmp(json_object_get_string(v), text) == 0)
        return GQ_OK;
    if (!(s = json_object_new_string(text)) || json_object_object_add(map, name, s) != 0) {
        json_object_put(s);
        return gq__mf_nomem(c);
    }
    return GQ_OK;
}

/* A map of resource name -> quantity (requests, limits, overhead), each checked. */
static int
resource_map(struct gq__mf_ctx *c, json_object *map, json_object *skip, struct rlist *out)
{
    struct json_object_iterator it, end;
    gq_quantity q;
    size_t mark;
    int rc;

    if ((rc = gq__mf_object(c, map)) != GQ_OK)
        return rc;
    it = json_object_iter_begin(map);
    end = json_object_iter_end(map);
    for (; !json_object_iter_equal(&it, &end); json_object_iter_next(&it)) {
        const char *name = json_object_iter_peek_name(&it);

        mark = gq__mf_push(c, name);
        if ((rc = gq_validate_resource_name(name, c->err)) != GQ_OK)
            return gq__mf_wrap(c, rc);
        if ((rc = gq__mf_quantity(c, json_object_iter_peek_value(&it), true, &q)) != GQ_OK ||
            (rc = canonicalize(c, map, name, json_object_iter_peek_value(&it), &q)) != GQ_OK)
            return rc;
        if (!gq__mf_get(skip, name) && (rc = rlist_add(c, out, name, &q)) != GQ_OK)
            return rc;
        gq__mf_pop(c, mark);
    }
    return GQ_OK;
}

/* A container's name: a DNS-1123 label, as the API server requires. */
static int container_name(struct gq__mf_ctx *c, json_object *ctr)
{
    json_object *v = gq__mf_get(ctr, "name");
    size_t mark = gq__mf_push(c, "name");
    const char *name;
    int rc;

    if (!v)
        return gq__mf_required(c);
    if ((rc = gq__mf_string(c, v, &name)) != GQ_OK)
        return rc;
    if ((rc = gq_validate_dns1123_label(name, c->err)) != GQ_OK)
        return gq__mf_wrap(c, rc);
    gq__mf_pop(c, mark);
    return GQ_OK;
}

/* One container: its name, and its requests with limits filling the gaps, into out. */
static int container(struct gq__mf_ctx *c, json_object *ctr, struct rlist *out)
{
    json_object *res, *req, *lim;
    size_t mark, sub;
    int rc;

    out->n = 0;
    if ((rc = gq__mf_object(c, ctr)) != GQ_OK || (rc = container_name(c, ctr)) != GQ_OK)
        return rc;
    if (!(res = gq__mf_get(ctr, "resources")))
        return GQ_OK;
    mark = gq__mf_push(c, "resources");
    if ((rc = gq__mf_object(c, res)) != GQ_OK)
        return rc;
    req = gq__mf_get(res, "requests");
    lim = gq__mf_get(res, "limits");
    sub = gq__mf_push(c, "requests");
    if (req && (rc = resource_map(c, req, NULL, out)) != GQ_OK)
        return rc;
    gq__mf_pop(c, sub);
    gq__mf_push(c, "limits");
    if (lim && (rc = resource_map(c, lim, req, out)) != GQ_OK)
        return rc;
    gq__mf_pop(c, mark);
    return GQ_OK;
}

/* Regular containers: each one's requests added into sum. */
static int
containers(struct gq__mf_ctx *c, json_object *pspec, struct rlist *sum, struct rlist *cur)
{
    json_object *list = gq__mf_get(pspec, "containers"), *ctr;
    size_t i, n, mark = gq__mf_push(c, "containers"), imark;
    int rc;

    if (!list)
        return gq__mf_required(c);
    if ((rc = gq__mf_array(c, list)) != GQ_OK)
        return rc;
    if (!(n = json_object_array_length(list)))
        return gq__mf_fail(c, "must have at least 1 item");
    for (i = 0; i < n; i++) {
        imark = gq__mf_push_index(c, i);
        ctr = json_object_array_get_idx(list, i);
        if ((rc = container(c, ctr, cur)) != GQ_OK || (rc = rlist_add_all(c, sum, cur)) != GQ_OK)
            return rc;
        gq__mf_pop(c, imark);
    }
    gq__mf_pop(c, mark);
    return GQ_OK;
}

static bool is_sidecar(json_object *ctr)
{
    json_object *p = gq__mf_get(ctr, "restartPolicy");

    return json_object_is_type(p, json_type_string) && !strcmp(json_object_get_string(p), "Always");
}

/*
 * Init containers run one at a time before the regular ones, so the pod needs
 * the largest of them; sidecars keep running, so each adds to the regular sum
 * and to every init container that starts after it.
 */
static int
init_containers(struct gq__mf_ctx *c, json_object *pspec, struct rlist *sum, struct rlist *cur)
{
    json_object *list = gq__mf_get(pspec, "initContainers"), *ctr;
    struct rlist side = {NULL, 0, 0}, peak = {NULL, 0, 0};
    size_t i, n, mark = gq__mf_push(c, "initContainers"), imark;
    int rc = list ? gq__mf_array(c, list) : GQ_OK;

    n = rc == GQ_OK && list ? json_object_array_length(list) : 0;
    for (i = 0; i < n && rc == GQ_OK; i++) {
        imark = gq__mf_push_index(c, i);
        ctr = json_object_array_get_idx(list, i);
        if ((rc = container(c, ctr, cur)) != GQ_OK)
            break;
        if (is_sidecar(ctr)) {
            if ((rc = rlist_add_all(c, sum, cur)) != GQ_OK ||
                (rc = rlist_add_all(c, &side, cur)) != GQ_OK)
                break;
            rc = rlist_max_all(c, &peak, &side);
        } else if ((rc = rlist_add_all(c, cur, &side)) == GQ_OK) {
            rc = rlist_max_all(c, &peak, cur);
        }
        gq__mf_pop(c, imark);
    }
    if (rc == GQ_OK && (rc = rlist_max_all(c, sum, &peak)) == GQ_OK)
        gq__mf_pop(c, mark);
    free(side.v);
    free(peak.v);
    return rc;
}

/* The per-pod requests of a pod spec, copied out of the JSON tree into ps. */
int gq__mf_pod_requests(struct gq__mf_ctx *c, json_object *pspec, struct gq_podset *ps)
{
    struct rlist sum = {NULL, 0, 0}, cur = {NULL, 0, 0};
    json_object *overhead = gq__mf_get(pspec, "overhead");
    size_t i, mark;
    int rc;

    if ((rc = containers(c, pspec, &sum, &cur)) == GQ_OK &&
        (rc = init_containers(c, pspec, &sum, &cur)) == GQ_OK && overhead) {
        mark = gq__mf_push(c, "overhead");
        if ((rc = resource_map(c, overhead, NULL, &sum)) == GQ_OK)
            gq__mf_pop(c, mark);
    }
    if (rc == GQ_OK && sum.n && !(ps->requests = calloc(sum.n, sizeof(*ps->requests))))
        rc = gq__mf_nomem(c);
    for (i = 0; rc == GQ_OK && i < sum.n; i++) {
        if (!(ps->requests[i].resource = strdup(sum.v[i].name)))
            rc = gq__mf_nomem(c);
        ps->requests[i].per_pod = sum.v[i].q;
        ps->nrequests++;
    }
    free(sum.v);
    free(cur.v);
    return rc;
}

/* v[key] when it is a non-empty object or array, else NULL. */
static json_object *nonempty(json_object *v, const char *key)
{
    json_object *x = v ? gq__mf_get(v, key) : NULL;

    if (x && json_object_is_type(x, json_type_object) && json_object_object_length(x))
        return x;
    if (x && json_object_is_type(x, json_type_array) && json_object_array_length(x))
        return x;
    return NULL;
}

/*
 * What flavor assignment matches against (kueue-semantics.md §2.3): the pod
 * spec's nodeSelector, tolerations and required node affinity terms, as
 * JSON {"nodeSelector", "tolerations", "terms"}; NULL when it has none.
 */
static int pod_match(struct gq__mf_ctx *c, json_object *pspec, struct gq_podset *ps)
{
    json_object *m, *v, *aff = nonempty(nonempty(pspec, "affinity"), "nodeAffinity");
    const char *text;
    int rc = GQ_OK;

    aff = nonempty(aff, "requiredDuringSchedulingIgnoredDuringExecution");
    if (!nonempty(pspec, "nodeSelector") && !nonempty(pspec, "tolerations") &&
        !nonempty(aff, "nodeSelectorTerms"))
        return GQ_OK;
    if (!(m = json_object_new_object()))
        return gq__mf_nomem(c);
    if ((v = nonempty(pspec, "nodeSelector")))
        json_object_object_add(m, "nodeSelector", json_object_get(v));
    if ((v = nonempty(pspec, "tolerations")))
        json_object_object_add(m, "tolerations", json_object_get(v));
    if ((v = nonempty(aff, "nodeSelectorTerms")))
        json_object_object_add(m, "terms", json_object_get(v));
    text = json_object_to_json_string_ext(m, JSON_C_TO_STRING_PLAIN |
                                                 JSON_C_TO_STRING_NOSLASHESCAPE);
    if (!text || !(ps->match_json = strdup(text)))
        rc = gq__mf_nomem(c);
    json_object_put(m);
    return rc;
}

/* A pod template: its requests, and the template itself as canonical JSON. */
int gq__mf_pod_template(struct gq__mf_ctx *c, json_object *tmpl, struct gq_podset *ps)
{
    json_object *pspec;
    const char *text;
    size_t len, mark;
    int rc;

    if (!tmpl)
        return gq__mf_required(c);
    if ((rc = gq__mf_object(c, tmpl)) != GQ_OK)
        return rc;
    mark = gq__mf_push(c, "spec");
    if (!(pspec = gq__mf_get(tmpl, "spec")))
        return gq__mf_required(c);
    if ((rc = gq__mf_object(c, pspec)) != GQ_OK || (rc = gq__mf_pod_requests(c, pspec, ps)) != GQ_OK ||
        (rc = pod_match(c, pspec, ps)) != GQ_OK)
        return rc;
    gq__mf_pop(c, mark);
    text = json_object_to_json_string_length(
        tmpl, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &len);
    if (!text || !(ps->template_json = malloc(len + 1)))
        return gq__mf_nomem(c);
    memcpy(ps->template_json, text, len + 1);
    return GQ_OK;
}

/* ------------------------------------------------------------- totals */

/* The amount of resource r that all pod sets of wl request, or false past int64. */
static bool total_amount(const struct gq_workload *wl, const char *r, size_t *worst)
{
    int64_t sum = 0, v;
    size_t p, k;

    for (p = 0; p < wl->npodsets; p++) {
        for (k = 0; k < wl->podsets[p].nrequests; k++) {
            const struct gq_request *rq = &wl->podsets[p].requests[k];

            if (strcmp(rq->resource, r) != 0)
                continue;
            *worst = p;
            if (gq_quantity_resource_value(&v, r, &rq->per_pod) != GQ_OK ||
                __builtin_mul_overflow(v, (int64_t)wl->podsets[p].count, &v) ||
                __builtin_add_overflow(sum, v, &sum))
                return false;
        }
    }
    return true;
}

/*
 * Every resource's total over the workload's pods must be countable in
 * gpuq's int64 accounting units (milli-units for cpu), as quotas are: a total
 * past that used to saturate and then fit a quota at the same bound.
 */
static int check_totals(struct gq__mf_ctx *c, const struct gq_workload *wl)
{
    char max[GQ_QUANTITY_BUFSIZE], per[GQ_QUANTITY_BUFSIZE];
    size_t p, k, worst = 0;

    for (p = 0; p < wl->npodsets; p++) {
        for (k = 0; k < wl->podsets[p].nrequests; k++) {
            const struct gq_request *rq = &wl->podsets[p].requests[k];

            if (total_amount(wl, rq->resource, &worst))
                continue;
            gq__amount_format(max, sizeof(max), rq->resource, INT64_MAX);
            gq_quantity_format(per, sizeof(per), &rq->per_pod);
            return gq__mf_fail(c,
                               "%s: %d pods of %s (pod set \"%s\") take the total over %s, the "
                               "largest %s amount gpuq accounts",
                               rq->resource, (int)wl->podsets[worst].count, per,
                               wl->podsets[worst].name, max, rq->resource);
        }
    }
    return GQ_OK;
}

/* ------------------------------------------------------------------ Job */

static int podsets_unique(struct gq__mf_ctx *c, const struct gq_workload *wl);

static const char *kvs_find(const struct gq_kvs *m, const char *key)
{
    size_t i;

    for (i = 0; i < m->n; i++)
        if (!strcmp(m->v[i].key, key))
            return m->v[i].value;
    return NULL;
}

/* An optional int32 member of obj at key, at least min, into *out (left alone when absent). */
static int opt_count(
    struct gq__mf_ctx *c, json_object *obj, const char *key, int64_t min, int32_t *out, bool *has)
{
    json_object *v = gq__mf_get(obj, key);
    size_t mark;
    int64_t x;
    int rc;

    if (!v)
        return GQ_OK;
    mark = gq__mf_push(c, key);
    if ((rc = gq__mf_int(c, v, min, INT32_MAX, &x)) != GQ_OK)
        return rc;
    gq__mf_pop(c, mark);
    *out = (int32_t)x;
    if (has)
        *has = true;
    return GQ_OK;
}

/* kueue.x-k8s.io/job-min-parallelism: partial admission down to this many pods. */
static int job_min_count(struct gq__mf_ctx *c, const struct gq_meta *m, struct gq_podset *ps)
{
    const char *s = kvs_find(&m->annotations, MIN_PARALLELISM_ANNOTATION), *p;
    int64_t v = 0;

    if (!s)
        return GQ_OK;
    for (p = s; *p >= '0' && *p <= '9' && v <= INT32_MAX; p++)
        v = v * 10 + (*p - '0');
    if (p == s || *p || v < 1 || v > ps->count) {
        gq__mf_push(c, "metadata.annotations." MIN_PARALLELISM_ANNOTATION);
        return gq__mf_invalid(c, s, "must be an integer from 1 to the pod count (%d)",
                              (int)ps->count);
    }
    ps->has_min_count = true;
    ps->min_count = (int32_t)v;
    return GQ_OK;
}

/* gpuq.dev/duration: how long the job runs once its pods start (the simulated cluster). */
static int run_duration(struct gq__mf_ctx *c, const struct gq_meta *m, struct gq_workload *wl)
{
    const char *s = kvs_find(&m->annotations, DURATION_ANNOTATION);

    if (!s)
        return GQ_OK;
    if (gq__parse_duration_ms(s, &wl->duration_ms) != 0) {
        gq__mf_push(c, "metadata.annotations." DURATION_ANNOTATION);
        return gq__mf_invalid(c, s, "must be a duration such as \"45m\", \"1h30m\" or \"90s\"");
    }
    if (wl->duration_ms > GQ_MF_DURATION_MAX_MS) {
        gq__mf_push(c, "metadata.annotations." DURATION_ANNOTATION);
        return gq__mf_invalid(c, s, "must be at most " GQ_MF_DURATION_MAX_TEXT);
    }
    wl->has_duration = true;
    return GQ_OK;
}

static int dup_or_null(struct gq__mf_ctx *c, const char *s, char **out)
{
    if (s && *s && !(*out = strdup(s)))
        return gq__mf_nomem(c);
    return GQ_OK;
}

static int job_spec(struct gq__mf_ctx *c, json_object *spec, struct gq_workload *wl)
{
    struct gq_podset *ps = wl->podsets;
    int32_t parallelism = 1, completions = 0;
    bool has_completions = false;
    json_object *v;
    size_t mark;
    int rc;

    if ((rc = opt_count(c, spec, "parallelism", 0, &parallelism, NULL)) != GQ_OK ||
        (rc = opt_count(c, spec, "completions", 0, &completions, &has_completions)) != GQ_OK)
        return rc;
    ps->count = has_completions && completions < parallelism ? completions : parallelism;
    if ((v = gq__mf_get(spec, "suspend"))) {
        mark = gq__mf_push(c, "suspend");
        if ((rc = gq__mf_bool(c, v, &wl->suspend)) != GQ_OK)
            return rc;
        gq__mf_pop(c, mark);
    }
    mark = gq__mf_push(c, "template");
    if ((rc = gq__mf_pod_template(c, gq__mf_get(spec, "template"), ps)) != GQ_OK)
        return rc;
    gq__mf_pop(c, mark);
    return GQ_OK;
}

static int admission(struct gq__mf_ctx *c, json_object *adm, struct gq_workload *wl);

/*
 * gpuq.dev/admission: in cluster mode gpuqd writes the admission onto the
 * Job (status.admission's JSON: cluster queue and flavors) in the patch that
 * unsuspends it, so that a fresh gpuqd with an empty database rebuilds quota
 * usage from the cluster alone (DESIGN.md "Where the truth lives").
 */
static int job_admission(struct gq__mf_ctx *c, const struct gq_meta *m, struct gq_workload *wl)
{
    const char *s = kvs_find(&m->annotations, ADMISSION_ANNOTATION);
    json_object *adm;
    size_t mark;
    int rc;

    if (!s)
        return GQ_OK;
    mark = gq__mf_push(c, "metadata.annotations." ADMISSION_ANNOTATION);
    if (!(adm = json_tokener_parse(s)))
        return gq__mf_invalid(c, s, "must be the JSON of a Workload's status.admission");
    rc = admission(c, adm, wl);
    json_object_put(adm);
    if (rc == GQ_OK)
        gq__mf_pop(c, mark);
    return rc;
}

/* What every kind of job takes from its metadata: its kind, name, queue and priority class. */
int gq__mf_job_meta(struct gq__mf_ctx *c, const char *kind, struct gq_object *obj)
{
    struct gq_workload *wl = &obj->u.wl;
    int rc;

    wl->active = true;
    if (!wl->job_kind && !(wl->job_kind = strdup(kind)))
        return gq__mf_nomem(c);
    if ((rc = dup_or_null(c, obj->meta.name, &wl->job_name)) != GQ_OK ||
        (rc = dup_or_null(c, kvs_find(&obj->meta.labels, QUEUE_LABEL), &wl->queue)) != GQ_OK ||
        (rc = dup_or_null(c, kvs_find(&obj->meta.labels, PRIORITY_LABEL), &wl->priority_class)))
        return rc;
    return GQ_OK;
}

/* What every kind of job checks once its pod sets are read; its gpuq annotations. */
int gq__mf_job_finish(struct gq__mf_ctx *c, struct gq_object *obj)
{
    int rc;

    if ((rc = podsets_unique(c, &obj->u.wl)) != GQ_OK || (rc = check_totals(c, &obj->u.wl)) ||
        (rc = run_duration(c, &obj->meta, &obj->u.wl)) != GQ_OK)
        return rc;
    return job_admission(c, &obj->meta, &obj->u.wl);
}

int gq__mf_decode_job(struct gq__mf_ctx *c, json_object *root, struct gq_object *obj)
{
    struct gq_workload *wl = &obj->u.wl;
    json_object *spec = gq__mf_get(root, "spec");
    size_t mark;
    int rc;

    if ((rc = gq__mf_job_meta(c, "Job", obj)) != GQ_OK)
        return rc;
    if (!(wl->podsets = calloc(1, sizeof(*wl->podsets))))
        return gq__mf_nomem(c);
    wl->npodsets = 1;
    if (!(wl->podsets[0].name = strdup("main")))
        return gq__mf_nomem(c);
    mark = gq__mf_push(c, "spec");
    if (!spec)
        return gq__mf_required(c);
    if ((rc = gq__mf_object(c, spec)) != GQ_OK || (rc = job_spec(c, spec, wl)) != GQ_OK ||
        (rc = check_totals(c, wl)) != GQ_OK)
        return rc;
    gq__mf_pop(c, mark);
    if ((rc = job_min_count(c, &obj->meta, &wl->podsets[0])) != GQ_OK ||
        (rc = run_duration(c, &obj->meta, wl)) != GQ_OK)
        return rc;
    return job_admission(c, &obj->meta, wl);
}

/* ------------------------------------------------------------- Workload */

static int podset(struct gq__mf_ctx *c, json_object *v, struct gq_podset *ps)
{
    json_object *name = gq__mf_get(v, "name");
    size_t mark;
    int rc;

    if ((rc = gq__mf_object(c, v)) != GQ_OK)
        return rc;
    mark = gq__mf_push(c, "name");
    if (name && (rc = gq__mf_strdup(c, name, gq_validate_dns1123_label, &ps->name)) != GQ_OK)
        return rc;
    if (!name && !(ps->name = strdup("main")))
        return gq__mf_nomem(c);
    gq__mf_pop(c, mark);
    ps->count = 1;
    if ((rc = opt_count(c, v, "count", 0, &ps->count, NULL)) != GQ_OK ||
        (rc = opt_count(c, v, "minCount", 1, &ps->min_count, &ps->has_min_count)) != GQ_OK)
        return rc;
    if (ps->has_min_count && ps->min_count > ps->count) {
        gq__mf_push(c, "minCount");
        return gq__mf_fail(c, "must be less than or equal to count (%d)", (int)ps->count);
    }
    mark = gq__mf_push(c, "template");
    if ((rc = gq__mf_pod_template(c, gq__mf_get(v, "template"), ps)) != GQ_OK)
        return rc;
    gq__mf_pop(c, mark);
    return GQ_OK;
}

/* Pod set names are unique (a list-map keyed by name); one pod set at most has minCount. */
static int podsets_unique(struct gq__mf_ctx *c, const struct gq_workload *wl)
{
    size_t i, j, with_min = 0;

    for (i = 0; i < wl->npodsets; i++) {
        with_min += wl->podsets[i].has_min_count;
        for (j = 0; j < i; j++) {
            if (!strcmp(wl->podsets[i].name, wl->podsets[j].name)) {
                gq__mf_push_index(c, i);
                gq__mf_push(c, "name");
                return gq__mf_invalid(c, wl->podsets[i].name, "duplicate pod set name");
            }
        }
        if (with_min > 1) {
            gq__mf_push_index(c, i);
            gq__mf_push(c, "minCount");
            return gq__mf_fail(c, "only one pod set may set minCount");
        }
    }
    return GQ_OK;
}

static int podsets(struct gq__mf_ctx *c, json_object *spec, struct gq_workload *wl)
{
    json_object *list = gq__mf_get(spec, "podSets");
    size_t i, n, mark = gq__mf_push(c, "podSets"), imark;
    int rc;

    if (!list)
        return gq__mf_required(c);
    if ((rc = gq__mf_array(c, list)) != GQ_OK)
        return rc;
    n = json_object_array_length(list);
    if (n < 1 || n > MAX_PODSETS)
        return gq__mf_fail(c, "must have 1 to %d items, not %zu", MAX_PODSETS, n);
    if (!(wl->podsets = calloc(n, sizeof(*wl->podsets))))
        return gq__mf_nomem(c);
    wl->npodsets = n;
    for (i = 0; i < n; i++) {
        imark = gq__mf_push_index(c, i);
        if ((rc = podset(c, json_object_array_get_idx(list, i), &wl->podsets[i])) != GQ_OK)
            return rc;
        gq__mf_pop(c, imark);
    }
    if ((rc = podsets_unique(c, wl)) != GQ_OK)
        return rc;
    gq__mf_pop(c, mark);
    return GQ_OK;
}

/* An optional string member, checked, into *out. */
static int opt_string(
    struct gq__mf_ctx *c, json_object *obj, const char *key, gq__mf_check_fn check, char **out)
{
    json_object *v = gq__mf_get(obj, key);
    size_t mark;
    int rc;

    if (!v)
        return GQ_OK;
    mark = gq__mf_push(c, key);
    if ((rc = gq__mf_strdup(c, v, check, out)) != GQ_OK)
        return rc;
    gq__mf_pop(c, mark);
    return GQ_OK;
}

/* v1beta2 priorityClassRef {group, kind, name}: *name, and whether it is a WorkloadPriorityClass.
 */
static int priority_ref(struct gq__mf_ctx *c, json_object *ref, char **name, bool *wpc)
{
    char *group = NULL, *kind = NULL;
    size_t mark = gq__mf_push(c, "priorityClassRef");
    int rc;

    if ((rc = gq__mf_object(c, ref)) != GQ_OK)
        return rc;
    if (!gq__mf_get(ref, "name")) {
        gq__mf_push(c, "name");
        return gq__mf_required(c);
    }
    if ((rc = opt_string(c, ref, "name", gq_validate_dns1123_subdomain, name)) == GQ_OK &&
        (rc = opt_string(c, ref, "group", NULL, &group)) == GQ_OK &&
        (rc = opt_string(c, ref, "kind", NULL, &kind)) == GQ_OK) {
        *wpc = (!group || !strcmp(group, "kueue.x-k8s.io")) &&
               (!kind || !strcmp(kind, "WorkloadPriorityClass"));
        gq__mf_pop(c, mark);
    }
    free(group);
    free(kind);
    return rc;
}

/*
 * The WorkloadPriorityClass a Workload names: v1beta1 priorityClassName with
 * priorityClassSource, v1beta2 priorityClassRef. A pod PriorityClass
 * (scheduling.k8s.io) only contributes spec.priority.
 */
static int workload_priority_class(struct gq__mf_ctx *c, json_object *spec, struct gq_workload *wl)
{
    json_object *ref = gq__mf_get(spec, "priorityClassRef");
    char *name = NULL, *src = NULL;
    bool wpc = false;
    int rc = GQ_OK;

    if (c->version == GQ_MF_V1BETA1) {
        rc = opt_string(c, spec, "priorityClassName", gq_validate_dns1123_subdomain, &name);
        if (rc == GQ_OK)
            rc = opt_string(c, spec, "priorityClassSource", NULL, &src);
        wpc = src && !strcmp(src, "kueue.x-k8s.io/workloadpriorityclass");
    } else if (ref) {
        rc = priority_ref(c, ref, &name, &wpc);
    }
    if (rc == GQ_OK && wpc) {
        wl->priority_class = name;
        name = NULL;
    }
    free(name);
    free(src);
    return rc;
}

static int workload_spec(struct gq__mf_ctx *c, json_object *spec, struct gq_workload *wl)
{
    json_object *v;
    size_t mark;
    int rc;

    if ((rc = podsets(c, spec, wl)) != GQ_OK ||
        (rc = opt_string(c, spec, "queueName", gq_validate_dns1123_subdomain, &wl->queue)) ||
        (rc = workload_priority_class(c, spec, wl)) != GQ_OK ||
        (rc = opt_count(c, spec, "priority", INT32_MIN, &wl->priority, &wl->has_priority)))
        return rc;
    wl->active = true;
    if ((v = gq__mf_get(spec, "active"))) {
        mark = gq__mf_push(c, "active");
        if ((rc = gq__mf_bool(c, v, &wl->active)) != GQ_OK)
            return rc;
        gq__mf_pop(c, mark);
    }
    return GQ_OK;
}

/* resourceUsage: resource -> quantity, kept as canonical quantity text. */
static int usage_map(struct gq__mf_ctx *c, json_object *map, struct gq_kvs *out)
{
    struct rlist l = {NULL, 0, 0};
    char text[GQ_QUANTITY_BUFSIZE];
    size_t i;
    int rc = resource_map(c, map, NULL, &l);

    if (rc == GQ_OK && l.n && !(out->v = calloc(l.n, sizeof(*out->v))))
        rc = gq__mf_nomem(c);
    for (i = 0; rc == GQ_OK && i < l.n; i++) {
        gq_quantity_format(text, sizeof(text), &l.v[i].q);
        out->v[i].key = strdup(l.v[i].name);
        out->v[i].value = strdup(text);
        out->n++;
        if (!out->v[i].key || !out->v[i].value)
            rc = gq__mf_nomem(c);
    }
    free(l.v);
    return rc;
}

static const struct gq__mf_field flavors_field = {.name = "flavors",
                                                  .check = gq_validate_resource_name,
                                                  .check_value = gq_validate_dns1123_subdomain};

static int assignment(struct gq__mf_ctx *c,
                      json_object *v,
                      const struct gq_workload *wl,
                      struct gq_podset_assignment *a)
{
    json_object *x;
    size_t i, mark;
    int rc;

    if ((rc = gq__mf_object(c, v)) != GQ_OK)
        return rc;
    mark = gq__mf_push(c, "name");
    if (!gq__mf_get(v, "name"))
        return gq__mf_required(c);
    gq__mf_pop(c, mark);
    if ((rc = opt_string(c, v, "name", gq_validate_dns1123_label, &a->name)) != GQ_OK)
        return rc;
    for (i = 0; i < wl->npodsets; i++)
        if (!strcmp(wl->podsets[i].name, a->name))
            a->count = wl->podsets[i].count;
    if ((rc = opt_count(c, v, "count", 0, &a->count, NULL)) != GQ_OK)
        return rc;
    mark = gq__mf_push(c, "flavors");
    if ((x = gq__mf_get(v, "flavors")) && (rc = gq__mf_kvs(c, x, &flavors_field, &a->flavors)))
        return rc;
    gq__mf_pop(c, mark);
    mark = gq__mf_push(c, "resourceUsage");
    if ((x = gq__mf_get(v, "resourceUsage")) && (rc = usage_map(c, x, &a->usage)) != GQ_OK)
        return rc;
    gq__mf_pop(c, mark);
    return GQ_OK;
}

static int admission(struct gq__mf_ctx *c, json_object *adm, struct gq_workload *wl)
{
    json_object *list;
    size_t i, n, mark;
    int rc;

    if ((rc = gq__mf_object(c, adm)) != GQ_OK)
        return rc;
    mark = gq__mf_push(c, "clusterQueue");
    if (!gq__mf_get(adm, "clusterQueue"))
        return gq__mf_required(c);
    gq__mf_pop(c, mark);
    rc = opt_string(c, adm, "clusterQueue", gq_validate_dns1123_subdomain, &wl->admitted_cq);
    if (rc != GQ_OK || !(list = gq__mf_get(adm, "podSetAssignments")))
        return rc;
    mark = gq__mf_push(c, "podSetAssignments");
    if ((rc = gq__mf_array(c, list)) != GQ_OK)
        return rc;
    if ((n = json_object_array_length(list)) > MAX_PODSETS)
        return gq__mf_fail(c, "too many: %zu: must have at most %d items", n, MAX_PODSETS);
    if (n && !(wl->assignments = calloc(n, sizeof(*wl->assignments))))
        return gq__mf_nomem(c);
    wl->nassignments = n;
    for (i = 0; i < n; i++) {
        size_t imark = gq__mf_push_index(c, i);

        if ((rc = assignment(c, json_object_array_get_idx(list, i), wl, &wl->assignments[i])))
            return rc;
        gq__mf_pop(c, imark);
    }
    gq__mf_pop(c, mark);
    return GQ_OK;
}

/*
 * The condition of that type with status "True": its lastTransitionTime in
 * *ms (0 when it has none or it does not parse). False when there is none.
 */
static bool condition_true(json_object *conditions, const char *want, int64_t *ms)
{
    json_object *cond, *type, *status, *at;
    size_t i, n;

    *ms = 0;
    if (!json_object_is_type(conditions, json_type_array))
        return false;
    n = json_object_array_length(conditions);
    for (i = 0; i < n; i++) {
        cond = json_object_array_get_idx(conditions, i);
        type = gq__mf_get(cond, "type");
        status = gq__mf_get(cond, "status");
        if (!json_object_is_type(type, json_type_string) ||
            !json_object_is_type(status, json_type_string) ||
            strcmp(json_object_get_string(type), want) ||
            strcmp(json_object_get_string(status), "True"))
            continue;
        at = gq__mf_get(cond, "lastTransitionTime");
        if (!json_object_is_type(at, json_type_string) ||
            !gq__parse_rfc3339(json_object_get_string(at), ms))
            *ms = 0;
        return true;
    }
    return false;
}

/*
 * A Finished condition marks an imported workload as done; QuotaReserved's
 * and Admitted's times are kept, since Kueue orders preemption victims by
 * when their quota was reserved.
 */
static void conditions(json_object *conds, struct gq_workload *wl)
{
    int64_t ms;

    wl->finished = condition_true(conds, "Finished", &ms);
    if (condition_true(conds, "QuotaReserved", &ms))
        wl->reserved_ms = ms;
    if (condition_true(conds, "Admitted", &ms))
        wl->admitted_ms = ms;
}

static int workload_status(struct gq__mf_ctx *c, json_object *status, struct gq_workload *wl)
{
    json_object *adm;
    size_t mark = gq__mf_push(c, "status");
    int rc;

    if ((rc = gq__mf_object(c, status)) != GQ_OK)
        return rc;
    if ((adm = gq__mf_get(status, "admission"))) {
        size_t amark = gq__mf_push(c, "admission");

        if ((rc = admission(c, adm, wl)) != GQ_OK)
            return rc;
        gq__mf_pop(c, amark);
    }
    conditions(gq__mf_get(status, "conditions"), wl);
    gq__mf_pop(c, mark);
    return GQ_OK;
}

int gq__mf_decode_workload(struct gq__mf_ctx *c, json_object *root, struct gq_object *obj)
{
    struct gq_workload *wl = &obj->u.wl;
    json_object *spec = gq__mf_get(root, "spec"), *status = gq__mf_get(root, "status");
    size_t mark;
    int rc;

    if (!(wl->job_kind = strdup("Workload")))
        return gq__mf_nomem(c);
    if ((rc = dup_or_null(c, obj->meta.name, &wl->job_name)) != GQ_OK ||
        (rc = run_duration(c, &obj->meta, wl)) != GQ_OK)
        return rc;
    mark = gq__mf_push(c, "spec");
    if (!spec)
        return gq__mf_required(c);
    if ((rc = gq__mf_object(c, spec)) != GQ_OK || (rc = workload_spec(c, spec, wl)) != GQ_OK ||
        (rc = check_totals(c, wl)) != GQ_OK)
        return rc;
    gq__mf_pop(c, mark);
    return status ? workload_status(c, status, wl) : GQ_OK;
}
