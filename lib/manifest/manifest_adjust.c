/*
 * manifest_adjust.c: a workload's requests adjusted as Kueue adjusts them
 * before it counts them against quota (pkg/workload/resources.go
 * AdjustResources, pkg/util/limitrange, pkg/workload/workload.go
 * totalRequestsFromPodSets), and the rules of the kinds that drive it.
 *
 * Per pod set, on a copy of its template (the pristine one is what a release
 * sends back): a pod naming a RuntimeClass and giving no overhead gets the
 * class's overhead.podFixed; the namespace's LimitRanges, summarized (the
 * lowest max, the highest min, the first default and defaultRequest), fill
 * each container's missing limits and requests; limits stand in for missing
 * requests (the decoder's rule), and the pod's requests are counted again.
 * Kueue's ValidateAdmissibility is then worded into wl->inadmissible:
 * requests above limits, or containers and pods outside the LimitRange
 * bounds, with Kueue's field paths and messages. Last, the Configuration's
 * resources.excludeResourcePrefixes drop resources and its transformations
 * turn inputs into outputs (Retain keeps the input, Replace drops it).
 * Kueue does not check maxLimitRequestRatio; neither does gpuq.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "gpuqueue/validate.h"
#include "manifest_fields.h"
#include "manifest_load.h"
#include "util.h"

#define ABOVE_MAX "requests must not be above the limitRange max"
#define BELOW_MIN "requests must not be below the limitRange min"
#define ABOVE_LIMITS "requests must not exceed its limits"

struct gq_adjust {
    char **lr_ns;              /* per LimitRange: its namespace */
    json_object **lr_limits;   /* and its spec.limits */
    size_t nlr;
    char **rc_name;            /* per RuntimeClass: its name */
    json_object **rc_fixed;    /* and its overhead.podFixed, or NULL */
    size_t nrc;
    json_object *transforms;   /* resources.transformations, or NULL */
    char **prefixes;
    size_t nprefixes;
};

/* ------------------------------------------------------------ quantities */

/* The amount Kueue compares (milli-units for cpu); false for a bad value. */
static bool amount(json_object *v, const char *resource, int64_t *out)
{
    struct gq__mf_ctx c;
    gq_error e;
    gq_quantity q;

    memset(&c, 0, sizeof(c));
    c.err = &e;
    if (!v || gq__mf_quantity(&c, v, false, &q) != GQ_OK)
        return false;
    if (gq_quantity_resource_value(out, resource, &q) != GQ_OK)
        *out = gq_quantity_sign(&q) < 0 ? INT64_MIN : INT64_MAX;
    return true;
}

static bool parse_quantity(json_object *v, gq_quantity *q)
{
    struct gq__mf_ctx c;
    gq_error e;

    memset(&c, 0, sizeof(c));
    c.err = &e;
    return v && gq__mf_quantity(&c, v, false, q) == GQ_OK;
}

/* a x b, exact to 10^-9 (rounded away from zero below it); false on overflow. */
static bool quantity_mul(gq_quantity *out, const gq_quantity *a, const gq_quantity *b)
{
    int64_t m, e = (int64_t)a->scale + b->scale;

    if (__builtin_mul_overflow(a->mantissa, b->mantissa, &m))
        return false;
    for (; e < -9; e++) {
        bool rest = m % 10 != 0;

        m /= 10;
        if (rest)
            m += m < 0 || (m == 0 && (a->mantissa < 0) != (b->mantissa < 0)) ? -1 : 1;
    }
    while (m != 0 && m % 10 == 0) {
        m /= 10;
        e++;
    }
    if (m == 0)
        e = 0;
    if (e > 18)
        return false;
    out->mantissa = m;
    out->scale = (int32_t)e;
    out->format = a->format;
    return true;
}

/* ---------------------------------------------------------------- checks */

/* A map of resource name -> quantity at key of obj, when present. */
static int quantity_map(struct gq__mf_ctx *c, json_object *obj, const char *key, bool nonneg)
{
    json_object *map = gq__mf_get(obj, key);
    size_t mark = gq__mf_push(c, key), sub;
    gq_quantity q;
    int rc;

    if (!map)
        goto done;
    if ((rc = gq__mf_object(c, map)) != GQ_OK)
        return rc;
    json_object_object_foreach(map, name, v) {
        sub = gq__mf_push(c, name);
        if ((rc = gq_validate_resource_name(name, c->err)) != GQ_OK)
            return gq__mf_wrap(c, rc);
        if ((rc = gq__mf_quantity(c, v, nonneg, &q)) != GQ_OK)
            return rc;
        gq__mf_pop(c, sub);
    }
done:
    gq__mf_pop(c, mark);
    return GQ_OK;
}

int gq__mf_limit_range_post(struct gq__mf_ctx *c, json_object *spec, struct gq_object *obj)
{
    static const char *const maps[] = {"max", "min", "default", "defaultRequest",
                                       "maxLimitRequestRatio"};
    json_object *limits = gq__mf_get(spec, "limits"), *item, *type;
    size_t i, k, n, mark = gq__mf_push(c, "limits"), imark, tmark;
    int rc;

    (void)obj;
    if ((rc = gq__mf_array(c, limits)) != GQ_OK)
        return rc;
    n = json_object_array_length(limits);
    for (i = 0; i < n; i++) {
        const char *t;

        imark = gq__mf_push_index(c, i);
        item = json_object_array_get_idx(limits, i);
        if ((rc = gq__mf_object(c, item)) != GQ_OK)
            return rc;
        tmark = gq__mf_push(c, "type");
        if (!(type = gq__mf_get(item, "type")))
            return gq__mf_required(c);
        if ((rc = gq__mf_string(c, type, &t)) != GQ_OK)
            return rc;
        if (strcmp(t, "Container") && strcmp(t, "Pod") && strcmp(t, "PersistentVolumeClaim"))
            return gq__mf_invalid(c, t, "supported values: \"Container\", \"Pod\", "
                                        "\"PersistentVolumeClaim\"");
        gq__mf_pop(c, tmark);
        for (k = 0; k < sizeof(maps) / sizeof(maps[0]); k++)
            if ((rc = quantity_map(c, item, maps[k], true)) != GQ_OK)
                return rc;
        gq__mf_pop(c, imark);
    }
    gq__mf_pop(c, mark);
    return GQ_OK;
}

int gq__mf_runtime_class_post(struct gq__mf_ctx *c, json_object *root, struct gq_object *obj)
{
    json_object *overhead = gq__mf_get(root, "overhead");
    size_t mark;
    int rc;

    (void)obj;
    if (!overhead)
        return GQ_OK;
    mark = gq__mf_push(c, "overhead");
    if ((rc = gq__mf_object(c, overhead)) != GQ_OK ||
        (rc = quantity_map(c, overhead, "podFixed", true)) != GQ_OK)
        return rc;
    gq__mf_pop(c, mark);
    return GQ_OK;
}

/* Kueue's validateResourceTransformations, and each field's type. */
int gq__mf_transformations_check(struct gq__mf_ctx *c, json_object *root)
{
    json_object *list = gq__mf_get(gq__mf_get(root, "resources"), "transformations"), *t, *v;
    size_t i, j, n, mark, imark, fmark;
    const char *input, *s, *other;
    int rc;

    if (!list)
        return GQ_OK;
    mark = gq__mf_push(c, "resources.transformations");
    if ((rc = gq__mf_array(c, list)) != GQ_OK)
        return rc;
    n = json_object_array_length(list);
    for (i = 0; i < n; i++) {
        imark = gq__mf_push_index(c, i);
        t = json_object_array_get_idx(list, i);
        if ((rc = gq__mf_object(c, t)) != GQ_OK)
            return rc;
        fmark = gq__mf_push(c, "input");
        if (!(v = gq__mf_get(t, "input")))
            return gq__mf_required(c);
        if ((rc = gq__mf_string(c, v, &input)) != GQ_OK)
            return rc;
        if ((rc = gq_validate_resource_name(input, c->err)) != GQ_OK)
            return gq__mf_wrap(c, rc);
        for (j = 0; j < i; j++) {
            other = json_object_get_string(gq__mf_get(json_object_array_get_idx(list, j), "input"));
            if (other && strcmp(other, input) == 0)
                return gq__mf_fail(c, "Duplicate value: \"%s\"", input);
        }
        gq__mf_pop(c, fmark);
        if ((v = gq__mf_get(t, "strategy"))) {
            fmark = gq__mf_push(c, "strategy");
            if ((rc = gq__mf_string(c, v, &s)) != GQ_OK)
                return rc;
            if (strcmp(s, "Retain") && strcmp(s, "Replace"))
                return gq__mf_invalid(c, s, "supported values: \"Retain\", \"Replace\"");
            gq__mf_pop(c, fmark);
        }
        if ((v = gq__mf_get(t, "multiplyBy"))) {
            fmark = gq__mf_push(c, "multiplyBy");
            if ((rc = gq__mf_string(c, v, &s)) != GQ_OK)
                return rc;
            if ((rc = gq_validate_resource_name(s, c->err)) != GQ_OK)
                return gq__mf_wrap(c, rc);
            gq__mf_pop(c, fmark);
        }
        /* A negative factor is how Kueue writes an allowance. */
        if ((rc = quantity_map(c, t, "outputs", false)) != GQ_OK)
            return rc;
        gq__mf_pop(c, imark);
    }
    gq__mf_pop(c, mark);
    return GQ_OK;
}

/* -------------------------------------------------------------- building */

/* The value of a RAW field's text {"key": value}, parsed; NULL when absent. */
static json_object *raw_value(const char *text, const char *key)
{
    json_object *root = text ? json_tokener_parse(text) : NULL, *v;

    if (!root)
        return NULL;
    v = json_object_get(gq__mf_get(root, key));
    json_object_put(root);
    return v;
}

void gq__manifest_adjust_free(struct gq_adjust *a)
{
    size_t i;

    if (!a)
        return;
    for (i = 0; i < a->nlr; i++) {
        free(a->lr_ns[i]);
        json_object_put(a->lr_limits[i]);
    }
    for (i = 0; i < a->nrc; i++) {
        free(a->rc_name[i]);
        json_object_put(a->rc_fixed[i]);
    }
    free(a->lr_ns);
    free(a->lr_limits);
    free(a->rc_name);
    free(a->rc_fixed);
    for (i = 0; i < a->nprefixes; i++)
        free(a->prefixes[i]);
    free(a->prefixes);
    json_object_put(a->transforms);
    free(a);
}

int gq__manifest_adjust_new(struct gq_adjust **out, const struct gq_object *lrs, size_t nlr,
                            const struct gq_object *rcs, size_t nrc,
                            const struct gq_configuration *cfg, gq_error *err)
{
    struct gq_adjust *a;
    json_object *oh;
    size_t i;

    *out = NULL;
    if (!nlr && !nrc && (!cfg || (!cfg->transformations && !cfg->exclude_prefixes.n)))
        return GQ_OK;
    if (!(a = calloc(1, sizeof(*a))) || !(a->lr_ns = calloc(nlr + 1, sizeof(char *))) ||
        !(a->lr_limits = calloc(nlr + 1, sizeof(json_object *))) ||
        !(a->rc_name = calloc(nrc + 1, sizeof(char *))) ||
        !(a->rc_fixed = calloc(nrc + 1, sizeof(json_object *))))
        goto nomem;
    for (i = 0; i < nlr; i++, a->nlr++)
        if (!(a->lr_ns[i] = strdup(lrs[i].meta.namespace)) ||
            !(a->lr_limits[i] = raw_value(lrs[i].u.limit_range.limits, "limits")))
            goto nomem;
    for (i = 0; i < nrc; i++, a->nrc++) {
        if (!(a->rc_name[i] = strdup(rcs[i].meta.name)))
            goto nomem;
        oh = raw_value(rcs[i].u.runtime_class.overhead, "overhead");
        a->rc_fixed[i] = json_object_get(gq__mf_get(oh, "podFixed"));
        json_object_put(oh);
    }
    if (cfg && cfg->transformations &&
        !(a->transforms = raw_value(cfg->transformations, "transformations")))
        goto nomem;
    if (cfg && cfg->exclude_prefixes.n &&
        !(a->prefixes = calloc(cfg->exclude_prefixes.n, sizeof(char *))))
        goto nomem;
    for (i = 0; cfg && i < cfg->exclude_prefixes.n; i++, a->nprefixes++)
        if (!(a->prefixes[i] = strdup(cfg->exclude_prefixes.v[i])))
            goto nomem;
    *out = a;
    return GQ_OK;
nomem:
    gq__manifest_adjust_free(a);
    return gq__error(err, GQ_ENOMEM, "out of memory");
}

/* --------------------------------------------------------- LimitRanges */

/* A namespace's LimitRanges of one type, summarized (limitrange.Summarize). */
struct summary {
    bool found;
    json_object *max, *min, *def, *def_req; /* resource -> quantity */
};

enum keep { KEEP_FIRST, KEEP_MIN, KEEP_MAX };

/* from's quantities into the map into (resource.MergeResourceListKeep*). */
static void merge_map(json_object *into, json_object *from, enum keep how)
{
    int64_t a, b;

    if (!into || !from || !json_object_is_type(from, json_type_object))
        return;
    json_object_object_foreach(from, k, v) {
        json_object *have = gq__mf_get(into, k);

        if (have && (how == KEEP_FIRST || !amount(have, k, &a) || !amount(v, k, &b) ||
                     (how == KEEP_MIN ? b >= a : b <= a)))
            continue;
        json_object_object_add(into, k, json_object_get(v));
    }
}

/* As merge_map, *into created when from has anything. */
static void merge(json_object **into, json_object *from, enum keep how)
{
    if (!from || !json_object_is_type(from, json_type_object))
        return;
    if (!*into)
        *into = json_object_new_object();
    merge_map(*into, from, how);
}

static void summarize(const struct gq_adjust *a, const char *ns, struct summary *container,
                      struct summary *pod)
{
    size_t i, j, n;

    memset(container, 0, sizeof(*container));
    memset(pod, 0, sizeof(*pod));
    for (i = 0; i < a->nlr; i++) {
        if (strcmp(a->lr_ns[i], ns) != 0)
            continue;
        n = json_object_array_length(a->lr_limits[i]);
        for (j = 0; j < n; j++) {
            json_object *item = json_object_array_get_idx(a->lr_limits[i], j);
            const char *type = json_object_get_string(gq__mf_get(item, "type"));
            struct summary *s = !type                         ? NULL
                                : !strcmp(type, "Container") ? container
                                : !strcmp(type, "Pod")       ? pod
                                                              : NULL;

            if (!s)
                continue;
            s->found = true;
            merge(&s->max, gq__mf_get(item, "max"), KEEP_MIN);
            merge(&s->min, gq__mf_get(item, "min"), KEEP_MAX);
            merge(&s->def, gq__mf_get(item, "default"), KEEP_FIRST);
            merge(&s->def_req, gq__mf_get(item, "defaultRequest"), KEEP_FIRST);
        }
    }
}

static void summary_clear(struct summary *s)
{
    json_object_put(s->max);
    json_object_put(s->min);
    json_object_put(s->def);
    json_object_put(s->def_req);
}

/* obj[key], created as an empty object when absent. */
static json_object *member(json_object *obj, const char *key)
{
    json_object *v = gq__mf_get(obj, key);

    if (!v) {
        v = json_object_new_object();
        json_object_object_add(obj, key, v);
    }
    return v;
}

/* Each container of list: missing limits and requests from the summary's defaults. */
static void fill_defaults(json_object *list, const struct summary *s)
{
    size_t i, n = json_object_is_type(list, json_type_array) ? json_object_array_length(list) : 0;

    for (i = 0; i < n; i++) {
        json_object *res = member(json_object_array_get_idx(list, i), "resources");

        if (s->def)
            merge_map(member(res, "limits"), s->def, KEEP_FIRST);
        if (s->def_req)
            merge_map(member(res, "requests"), s->def_req, KEEP_FIRST);
    }
}

/* ------------------------------------------------------------ validation */

/* Field errors of one kind, worded as field.ErrorList.ToAggregate words them. */
struct errs {
    struct gq__str text;
    size_t n;
};

/* Names a has greater than b (both present), sorted, as JSON: ["cpu","memory"]. */
struct names {
    const char *v[32];
    size_t n;
};

static void greater(struct names *out, json_object *a, json_object *b)
{
    int64_t x, y;

    out->n = 0;
    if (!a || !b)
        return;
    json_object_object_foreach(a, k, v) {
        if (out->n < 32 && amount(v, k, &x) && amount(gq__mf_get(b, k), k, &y) && x > y)
            out->v[out->n++] = k;
    }
    qsort(out->v, out->n, sizeof(out->v[0]), gq__mf_strcmp_ptr);
}

static void add_error(struct errs *e, const char *path, const struct names *keys, const char *msg)
{
    size_t i;

    if (!keys->n)
        return;
    gq__str_printf(&e->text, "%s%s: Invalid value: [", e->n++ ? ", " : "", path);
    for (i = 0; i < keys->n; i++)
        gq__str_printf(&e->text, "%s\"%s\"", i ? "," : "", keys->v[i]);
    gq__str_printf(&e->text, "]: %s", msg);
}

/* requests with limits filling the gaps (handleLimitsToRequests), as a new object. */
static json_object *effective_requests(json_object *res)
{
    json_object *req = NULL;

    merge(&req, gq__mf_get(res, "requests"), KEEP_FIRST);
    merge(&req, gq__mf_get(res, "limits"), KEEP_FIRST);
    return req;
}

/* The per-resource min (or max) of requests and limits. */
static json_object *bound(json_object *req, json_object *lim, enum keep how)
{
    json_object *out = NULL;

    merge(&out, req, KEEP_FIRST);
    merge(&out, lim, how);
    return out;
}

static void check_containers(json_object *pspec, const char *key, const char *base,
                             const struct summary *s, struct errs *res_errs,
                             struct errs *lr_errs)
{
    json_object *list = gq__mf_get(pspec, key);
    size_t i, n = json_object_is_type(list, json_type_array) ? json_object_array_length(list) : 0;
    struct names keys;
    char path[160];

    for (i = 0; i < n; i++) {
        json_object *r = gq__mf_get(json_object_array_get_idx(list, i), "resources");
        json_object *lim = gq__mf_get(r, "limits"), *req = effective_requests(r), *lo, *hi;

        snprintf(path, sizeof(path), "%s.%s[%zu]", base, key, i);
        greater(&keys, req, lim);
        add_error(res_errs, path, &keys, ABOVE_LIMITS);
        if (s->found) {
            hi = bound(req, lim, KEEP_MAX);
            lo = bound(req, lim, KEEP_MIN);
            greater(&keys, hi, s->max);
            add_error(lr_errs, path, &keys, ABOVE_MAX);
            greater(&keys, s->min, lo);
            add_error(lr_errs, path, &keys, BELOW_MIN);
            json_object_put(hi);
            json_object_put(lo);
        }
        json_object_put(req);
    }
}

/* The pod's requests (ps) as a JSON map, for the Pod type's bounds. */
static json_object *pod_total(const struct gq_podset *ps)
{
    json_object *m = json_object_new_object();
    char text[GQ_QUANTITY_BUFSIZE];
    size_t i;

    for (i = 0; m && i < ps->nrequests; i++) {
        gq_quantity_format(text, sizeof(text), &ps->requests[i].per_pod);
        json_object_object_add(m, ps->requests[i].resource, json_object_new_string(text));
    }
    return m;
}

/* ------------------------------------------------------------- pod sets */

static json_object *runtime_overhead(const struct gq_adjust *a, const char *name)
{
    size_t i;

    for (i = 0; i < a->nrc; i++)
        if (strcmp(a->rc_name[i], name) == 0)
            return a->rc_fixed[i];
    return NULL;
}

static void requests_free(struct gq_podset *ps)
{
    size_t i;

    for (i = 0; i < ps->nrequests; i++)
        free(ps->requests[i].resource);
    free(ps->requests);
    ps->requests = NULL;
    ps->nrequests = 0;
}

/*
 * One pod set's template: overhead and LimitRange defaults filled in, its
 * requests counted again, and its errors added to the lists.
 */
static int adjust_podset(struct gq__mf_ctx *c, const struct gq_adjust *a, size_t index,
                         struct gq_podset *ps, const struct summary *container,
                         const struct summary *pod, struct errs *res_errs, struct errs *lr_errs)
{
    json_object *tmpl = json_tokener_parse(ps->template_json), *pspec = gq__mf_get(tmpl, "spec");
    json_object *rcn = gq__mf_get(pspec, "runtimeClassName"), *fixed, *oh, *total;
    char base[80];
    struct names keys;
    int rc;

    if (!pspec) {
        json_object_put(tmpl);
        return tmpl ? GQ_OK : gq__mf_nomem(c);
    }
    oh = gq__mf_get(pspec, "overhead");
    if (json_object_is_type(rcn, json_type_string) &&
        (!oh || (json_object_is_type(oh, json_type_object) && !json_object_object_length(oh))) &&
        (fixed = runtime_overhead(a, json_object_get_string(rcn))))
        json_object_object_add(pspec, "overhead", json_object_get(fixed));
    if (container->found) {
        fill_defaults(gq__mf_get(pspec, "initContainers"), container);
        fill_defaults(gq__mf_get(pspec, "containers"), container);
    }
    requests_free(ps);
    if ((rc = gq__mf_pod_requests(c, pspec, ps)) != GQ_OK) {
        json_object_put(tmpl);
        return rc;
    }
    snprintf(base, sizeof(base), "spec.podSets[%zu].template.spec", index);
    check_containers(pspec, "initContainers", base, container, res_errs, lr_errs);
    check_containers(pspec, "containers", base, container, res_errs, lr_errs);
    if (pod->found) {
        total = pod_total(ps);
        greater(&keys, total, pod->max);
        add_error(lr_errs, base, &keys, ABOVE_MAX);
        greater(&keys, pod->min, total);
        add_error(lr_errs, base, &keys, BELOW_MIN);
        json_object_put(total);
    }
    json_object_put(tmpl);
    return GQ_OK;
}

/* A resource list being rebuilt: names owned. */
struct rlist {
    struct gq_request *v;
    size_t n;
};

static int rl_add(struct rlist *l, const char *name, const gq_quantity *q)
{
    size_t i;

    for (i = 0; i < l->n; i++)
        if (strcmp(l->v[i].resource, name) == 0)
            return gq__mf_quantity_add(&l->v[i].per_pod, q) ? GQ_OK : GQ_ERANGE;
    if (!(l->v[l->n].resource = strdup(name)))
        return GQ_ENOMEM;
    l->v[l->n++].per_pod = *q;
    return GQ_OK;
}

static bool excluded(const struct gq_adjust *a, const char *name)
{
    size_t i;

    for (i = 0; i < a->nprefixes; i++)
        if (strncmp(name, a->prefixes[i], strlen(a->prefixes[i])) == 0)
            return true;
    return false;
}

static json_object *transform_of(const struct gq_adjust *a, const char *name)
{
    size_t i, n = a->transforms ? json_object_array_length(a->transforms) : 0;

    for (i = 0; i < n; i++) {
        json_object *t = json_object_array_get_idx(a->transforms, i);

        if (strcmp(json_object_get_string(gq__mf_get(t, "input")), name) == 0)
            return t;
    }
    return NULL;
}

static const gq_quantity *request_of(const struct gq_podset *ps, const char *name)
{
    size_t i;

    for (i = 0; i < ps->nrequests; i++)
        if (strcmp(ps->requests[i].resource, name) == 0)
            return &ps->requests[i].per_pod;
    return NULL;
}

/* One input's outputs into gen (applyResourceTransformations). */
static int outputs(json_object *t, const struct gq_podset *ps, const struct gq_request *r,
                   struct rlist *gen)
{
    const char *by = json_object_get_string(gq__mf_get(t, "multiplyBy"));
    const gq_quantity *m = by ? request_of(ps, by) : NULL;
    gq_quantity val = r->per_pod, factor, out;
    json_object *outs = gq__mf_get(t, "outputs");
    int rc;

    if (m && !quantity_mul(&val, &r->per_pod, m))
        return GQ_ERANGE;
    if (!outs)
        return GQ_OK;
    json_object_object_foreach(outs, name, v) {
        if (!parse_quantity(v, &factor) || !quantity_mul(&out, &val, &factor))
            return GQ_ERANGE;
        if ((rc = rl_add(gen, name, &out)) != GQ_OK)
            return rc;
    }
    return GQ_OK;
}

/* excludeResourcePrefixes, then transformations, on the pod set's requests. */
static int transform(const struct gq_adjust *a, struct gq_podset *ps, gq_error *err)
{
    size_t i, cap = ps->nrequests;
    struct rlist kept = {NULL, 0}, gen = {NULL, 0};
    json_object *t;
    int rc = GQ_OK;

    for (i = 0; a->transforms && i < ps->nrequests; i++)
        if ((t = transform_of(a, ps->requests[i].resource)))
            cap += json_object_object_length(gq__mf_get(t, "outputs"));
    if (!(kept.v = calloc(cap + 1, sizeof(*kept.v))) || !(gen.v = calloc(cap + 1, sizeof(*gen.v))))
        rc = GQ_ENOMEM;
    for (i = 0; rc == GQ_OK && i < ps->nrequests; i++) {
        const struct gq_request *r = &ps->requests[i];
        const char *strategy;

        if (excluded(a, r->resource))
            continue;
        if (!(t = a->transforms ? transform_of(a, r->resource) : NULL)) {
            rc = rl_add(&kept, r->resource, &r->per_pod);
            continue;
        }
        strategy = json_object_get_string(gq__mf_get(t, "strategy"));
        if ((rc = outputs(t, ps, r, &gen)) == GQ_OK && (!strategy || !strcmp(strategy, "Retain")))
            rc = rl_add(&kept, r->resource, &r->per_pod);
    }
    for (i = 0; rc == GQ_OK && i < gen.n; i++) {
        if (gq_quantity_sign(&gen.v[i].per_pod) < 0)
            memset(&gen.v[i].per_pod, 0, sizeof(gen.v[i].per_pod));
        rc = rl_add(&kept, gen.v[i].resource, &gen.v[i].per_pod);
    }
    for (i = 0; i < gen.n; i++)
        free(gen.v[i].resource);
    free(gen.v);
    if (rc != GQ_OK) {
        for (i = 0; i < kept.n; i++)
            free(kept.v[i].resource);
        free(kept.v);
        return rc == GQ_ENOMEM ? gq__error(err, GQ_ENOMEM, "out of memory")
                               : gq__error(err, GQ_EINVALID,
                                           "a resource transformation of pod set %s does not "
                                           "fit in 64 bits", ps->name);
    }
    requests_free(ps);
    ps->requests = kept.v;
    ps->nrequests = kept.n;
    return GQ_OK;
}

static int refusal(struct gq_workload *wl, const char *prefix, struct errs *e, gq_error *err)
{
    struct gq__str s = {NULL, 0, 0, false};

    gq__str_printf(&s, "%s: %s%s%s", prefix, e->n > 1 ? "[" : "", e->text.p ? e->text.p : "",
                   e->n > 1 ? "]" : "");
    if (s.failed || e->text.failed) {
        free(s.p);
        return gq__error(err, GQ_ENOMEM, "out of memory");
    }
    wl->inadmissible = s.p;
    return GQ_OK;
}

int gq__manifest_adjust(const struct gq_adjust *a, struct gq_object *obj, gq_error *err)
{
    struct gq_workload *wl = &obj->u.wl;
    struct summary container, pod;
    struct errs res_errs = {{NULL, 0, 0, false}, 0}, lr_errs = {{NULL, 0, 0, false}, 0};
    struct gq__mf_ctx c;
    size_t i;
    int rc = GQ_OK;

    if (!a || (obj->kind != GQ_KIND_JOB && obj->kind != GQ_KIND_WORKLOAD))
        return GQ_OK;
    memset(&c, 0, sizeof(c));
    c.err = err;
    summarize(a, obj->meta.namespace ? obj->meta.namespace : "default", &container, &pod);
    free(wl->inadmissible);
    wl->inadmissible = NULL;
    for (i = 0; rc == GQ_OK && i < wl->npodsets; i++) {
        struct gq_podset *ps = &wl->podsets[i];

        if (ps->template_json &&
            (container.found || pod.found ||
             (a->nrc && strstr(ps->template_json, "\"runtimeClassName\""))))
            rc = adjust_podset(&c, a, i, ps, &container, &pod, &res_errs, &lr_errs);
        if (rc == GQ_OK && (a->transforms || a->nprefixes))
            rc = transform(a, ps, err);
    }
    if (rc == GQ_OK && res_errs.n)
        rc = refusal(wl, "resources validation failed", &res_errs, err);
    else if (rc == GQ_OK && lr_errs.n)
        rc = refusal(wl, "resources didn't satisfy LimitRange constraints", &lr_errs, err);
    free(res_errs.text.p);
    free(lr_errs.text.p);
    summary_clear(&container);
    summary_clear(&pod);
    return rc;
}
