/*
 * manifest_integration.c: any kind of the integration table (integration.h)
 * into struct gq_workload, by its row: the suspend switch, then each pod-set
 * entry (one object, each element of a list, or each known key of a map),
 * each with its pod template, its count expression and its name as Kueue
 * gives them. A Job keeps its own decoder (manifest_workload.c), which its
 * row describes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "error.h"
#include "gpuqueue/quantity.h"
#include "gpuqueue/validate.h"
#include "integration.h"
#include "manifest_fields.h"
#include "manifest_release.h"
#include "util.h"

#define MAX_PODSETS 18 /* Kueue's MaxPodSets */

static json_object *at_path(json_object *v, const char *path, size_t len)
{
    return gq__mf_path(v, path, len, false);
}

/* The object at a dotted path below v, made (with every step) when create and absent. */
static json_object *reach(json_object *v, const char *path, bool create)
{
    return gq__mf_path(v, path, strlen(path), create);
}

/* at_path of a NUL-terminated path. */
static json_object *at(json_object *v, const char *path)
{
    return reach(v, path, false);
}

/* Push a dotted path of len bytes onto the field path. */
static size_t push_path(struct gq__mf_ctx *c, const char *path, size_t len)
{
    char buf[256];

    if (len >= sizeof(buf))
        len = sizeof(buf) - 1;
    memcpy(buf, path, len);
    buf[len] = '\0';
    return gq__mf_push(c, buf);
}

/* The lookup of a count expression: integers of one element, errors at their path. */
struct lookup {
    struct gq__mf_ctx *c;
    json_object *el;
};

static int lookup_int(void *payload, const char *path, size_t len, int64_t *v)
{
    struct lookup *l = payload;
    json_object *x = at_path(l->el, path, len);

    size_t mark;

    if (!x)
        return 0;
    mark = push_path(l->c, path, len);
    if (gq__mf_int(l->c, x, 0, INT32_MAX, v) != GQ_OK)
        return -1;
    gq__mf_pop(l->c, mark);
    return 1;
}

static int count(struct gq__mf_ctx *c, json_object *el, const char *expr, int32_t *out)
{
    struct lookup l = {c, el};
    size_t mark = c->len;
    int64_t v = 1;
    int rc;

    if (expr && (rc = gq__integration_eval(expr, lookup_int, &l, &v)) != 0) {
        if (rc == -1)
            return c->err ? c->err->code : GQ_EINVALID;
        gq__mf_pop(c, mark);
        return gq__mf_fail(c, rc == -3 ? "the pod count (%s) passes 2147483647"
                                       : "the pod count expression \"%s\" does not read",
                           expr);
    }
    *out = (int32_t)v;
    return GQ_OK;
}

/* "PATH=V1|V2|": PATH's string value (absent: "") is one of the values. */
static bool when_holds(json_object *root, const char *when)
{
    const char *eq = strchr(when, '='), *list, *have = "";
    json_object *v;
    char item[64];

    if (!eq)
        return true;
    v = at_path(root, when, (size_t)(eq - when));
    if (v && json_object_is_type(v, json_type_string))
        have = json_object_get_string(v);
    else if (v)
        return false;
    for (list = eq + 1; gq__integration_next(&list, '|', item, sizeof(item));)
        if (!strcmp(item, have))
            return true;
    return false;
}

/* s lower-cased (ASCII), cut to size: a replica type as Kueue names its pod set. */
static void lower(char *out, size_t size, const char *s)
{
    size_t j;

    for (j = 0; s[j] && j + 1 < size; j++)
        out[j] = (char)(s[j] >= 'A' && s[j] <= 'Z' ? s[j] - 'A' + 'a' : s[j]);
    out[j] = '\0';
}

/*
 * RayJob in K8sJobMode without a submitterPodTemplate: the one Kueue
 * assumes (getSubmitterTemplate, after KubeRay's default submitter): the
 * head's image, 500m CPU and 200Mi requested, 1 CPU and 1Gi as limits.
 */
static json_object *ray_submitter(json_object *root)
{
    json_object *t = json_tokener_parse(
        "{\"spec\": {\"containers\": [{\"name\": \"ray-job-submitter\", \"resources\": "
        "{\"limits\": {\"cpu\": \"1\", \"memory\": \"1Gi\"}, \"requests\": {\"cpu\": \"500m\", "
        "\"memory\": \"200Mi\"}}}], \"restartPolicy\": \"Never\"}}");
    json_object *heads = at(root, "spec.rayClusterSpec.headGroupSpec.template.spec.containers");
    json_object *img = json_object_is_type(heads, json_type_array)
                           ? gq__mf_get(json_object_array_get_idx(heads, 0), "image")
                           : NULL;

    if (t && json_object_is_type(img, json_type_string))
        json_object_object_add(json_object_array_get_idx(at(t, "spec.containers"), 0), "image",
                               json_object_get(img));
    return t;
}

/* requests[name] raised to at least min (a quantity), as KubeRay's MergeResourceListKeepMax. */
static void request_at_least(json_object *requests, const char *name, const char *min)
{
    json_object *v = gq__mf_get(requests, name);
    char buf[GQ_MF_TEXT_BUFSIZE];
    const char *text = v ? gq__mf_text(v, buf) : NULL; /* "2" or 2 alike */
    gq_quantity have, want;

    if (gq_quantity_parse(&want, min, strlen(min), NULL) != GQ_OK)
        return;
    if (text && gq_quantity_parse(&have, text, strlen(text), NULL) == GQ_OK &&
        gq_quantity_cmp(&have, &want) >= 0)
        return;
    json_object_object_add(requests, name, json_object_new_string(min));
}

/*
 * A Ray head's pod set as Kueue counts it (raycluster/common.go BuildPodSets):
 * with GCS fault tolerance (spec.gcsFaultToleranceOptions or the annotation
 * ray.io/ft-enabled: "true"), the Ray container's requests raised to at
 * least 200m CPU and 256Mi (KubeRay's Redis cleanup Job); with in-tree
 * autoscaling, KubeRay's autoscaler sidecar added (autoscalerOptions.resources,
 * else 500m and 512Mi). A copy, or NULL when neither applies.
 */
static json_object *ray_head(json_object *root, const struct gq_integ_podset *e, json_object *tmpl)
{
    const char *dot = strrchr(e->at, '.');
    json_object *cs = at_path(root, e->at, dot ? (size_t)(dot - e->at) : 0), *copy = NULL;
    json_object *ft = at(root, "metadata.annotations");
    json_object *as = gq__mf_get(cs, "enableInTreeAutoscaling"), *ctrs;
    json_object *mode = at(root, "spec.submissionMode");
    bool has_ft, autoscale, sidecar_submitter;

    ft = gq__mf_get(ft, "ray.io/ft-enabled");
    has_ft = (json_object_is_type(ft, json_type_string) &&
              !strcasecmp(json_object_get_string(ft), "true")) ||
             gq__mf_get(cs, "gcsFaultToleranceOptions") != NULL;
    autoscale = json_object_is_type(as, json_type_boolean) && json_object_get_boolean(as);
    /* A RayJob in SidecarMode: the submitter runs in the head pod (addSidecarSubmitterToHeadPodSet). */
    sidecar_submitter = json_object_is_type(mode, json_type_string) &&
                        !strcmp(json_object_get_string(mode), "SidecarMode");
    if ((!has_ft && !autoscale && !sidecar_submitter) || !tmpl ||
        json_object_deep_copy(tmpl, &copy, NULL) != 0)
        return NULL;
    ctrs = at(copy, "spec.containers");
    if (!json_object_is_type(ctrs, json_type_array)) {
        json_object_put(copy);
        return NULL;
    }
    if (has_ft && json_object_array_length(ctrs) > 0) {
        json_object *ray = json_object_array_get_idx(ctrs, 0), *res, *req;

        if (!json_object_object_get_ex(ray, "resources", &res) || !res) {
            res = json_object_new_object();
            json_object_object_add(ray, "resources", res);
        }
        if (!json_object_object_get_ex(res, "requests", &req) || !req) {
            req = json_object_new_object();
            json_object_object_add(res, "requests", req);
        }
        request_at_least(req, "cpu", "200m");
        request_at_least(req, "memory", "256Mi");
    }
    if (autoscale) {
        json_object *sidecar = json_object_new_object(), *res = NULL;
        json_object *opts = at(gq__mf_get(cs, "autoscalerOptions"), "resources");

        json_object_object_add(sidecar, "name", json_object_new_string("autoscaler"));
        if (opts && json_object_deep_copy(opts, &res, NULL) != 0)
            res = NULL;
        if (!res)
            res = json_tokener_parse("{\"requests\": {\"cpu\": \"500m\", \"memory\": \"512Mi\"}, "
                                     "\"limits\": {\"cpu\": \"500m\", \"memory\": \"512Mi\"}}");
        json_object_object_add(sidecar, "resources", res);
        json_object_array_add(ctrs, sidecar);
    }
    if (sidecar_submitter) {
        json_object *sub = ray_submitter(root), *c0;

        c0 = json_object_array_get_idx(at(sub, "spec.containers"), 0);
        if (c0) {
            json_object_object_del(c0, "image");
            json_object_array_add(ctrs, json_object_get(c0));
        }
        json_object_put(sub);
    }
    return copy;
}

/* One pod set from element el (its path already pushed), named name. */
static int podset(struct gq__mf_ctx *c, json_object *root, json_object *el,
                  const struct gq_integ_podset *e, const char *name, struct gq_workload *wl)
{
    struct gq_podset *ps;
    json_object *tmpl, *made = NULL;
    size_t mark;
    int rc;

    if (wl->npodsets == MAX_PODSETS)
        return gq__mf_fail(c, "gives more than %d pod sets, Kueue's limit", MAX_PODSETS);
    ps = &wl->podsets[wl->npodsets++];
    if (!(ps->name = strdup(name)))
        return gq__mf_nomem(c);
    if ((rc = count(c, el, e->count, &ps->count)) != GQ_OK)
        return rc;
    if (e->min_count) {
        int32_t min = 0;

        if ((rc = count(c, el, e->min_count, &min)) != GQ_OK)
            return rc;
        if (min < ps->count) {
            ps->has_min_count = true;
            ps->min_count = min < 1 ? 1 : min;
        }
    }
    mark = push_path(c, e->template, strlen(e->template));
    tmpl = at(el, e->template);
    if (!tmpl && e->hook == GQ_INTEG_HOOK_RAY_SUBMITTER && !(tmpl = made = ray_submitter(root)))
        return gq__mf_nomem(c);
    if (e->hook == GQ_INTEG_HOOK_RAY_HEAD && (made = ray_head(root, e, tmpl)) != NULL)
        tmpl = made;
    rc = gq__mf_pod_template(c, tmpl, ps);
    json_object_put(made);
    if (rc == GQ_OK)
        gq__mf_pop(c, mark);
    return rc;
}

/* A pod set's name from an element's member: a DNS-1123 label, as Kueue's PodSetReference. */
static int element_name(struct gq__mf_ctx *c, json_object *el, const char *member,
                        const char **out)
{
    json_object *v = gq__mf_get(el, member);
    size_t mark = gq__mf_push(c, member);
    int rc;

    if (!v)
        return gq__mf_required(c);
    if ((rc = gq__mf_string(c, v, out)) != GQ_OK)
        return rc;
    if ((rc = gq_validate_dns1123_label(*out, c->err)) != GQ_OK)
        return gq__mf_wrap(c, rc);
    gq__mf_pop(c, mark);
    return GQ_OK;
}

/* ---------------------------------------------------------- TrainJob */

#define TRAINER_STEP_LABEL "trainer.kubeflow.org/trainjob-ancestor-step"
#define TRAINER_CONTAINER "node" /* kubeflow/trainer's constants.Node */

/* The ClusterTrainingRuntime named name, or NULL. */
static const struct gq_object *runtime_named(const struct gq__mf_ctx *c, const char *name)
{
    size_t i;

    for (i = 0; i < c->nruntimes; i++)
        if (c->runtimes[i].meta.name && !strcmp(c->runtimes[i].meta.name, name))
            return &c->runtimes[i];
    return NULL;
}

/* The TrainJob's trainer overrides on the trainer step's "node" container: image, resources. */
static void trainer_overrides(json_object *tmpl, json_object *trainer)
{
    json_object *ctrs = at(tmpl, "spec.containers");
    json_object *image = gq__mf_get(trainer, "image"), *res = gq__mf_get(trainer, "resourcesPerNode");
    size_t i;

    for (i = 0; json_object_is_type(ctrs, json_type_array) && i < json_object_array_length(ctrs);
         i++) {
        json_object *ctr = json_object_array_get_idx(ctrs, i), *name = gq__mf_get(ctr, "name");

        if (!json_object_is_type(name, json_type_string) ||
            strcmp(json_object_get_string(name), TRAINER_CONTAINER) != 0)
            continue;
        if (image)
            json_object_object_add(ctr, "image", json_object_get(image));
        if (res)
            json_object_object_add(ctr, "resources", json_object_get(res));
    }
}

/*
 * A TrainJob's pod sets, as Kueue builds them (getChildJobSet, then the
 * JobSet's PodSets): one per replicated job of the ClusterTrainingRuntime
 * that spec.runtimeRef names, by name; the trainer step runs numNodes pods
 * (spec.trainer.numNodes, else the runtime's mlPolicy.numNodes, else 1) with
 * the trainer's image and resourcesPerNode on its "node" container; the
 * other steps (initializers) count as a JobSet's replicated jobs do.
 */
static int trainjob(struct gq__mf_ctx *c, json_object *root, struct gq_workload *wl)
{
    static const struct gq_integ_podset step = {GQ_INTEG_ONE, "", NULL, NULL, NULL,
                                                "template.spec.template",
                                                "replicas?1 * min(template.spec.parallelism?1, "
                                                "template.spec.completions?template.spec."
                                                "parallelism?1)",
                                                NULL, false, NULL, GQ_INTEG_HOOK_NONE};
    json_object *ref = at(root, "spec.runtimeRef");
    json_object *trainer = at(root, "spec.trainer");
    json_object *tdoc = NULL, *pdoc = NULL, *jobs, *v;
    const struct gq_object *rt;
    const char *kind = "ClusterTrainingRuntime", *name;
    int64_t nodes = 1;
    size_t mark, i;
    int rc;

    mark = gq__mf_push(c, "spec.runtimeRef");
    if (!ref)
        return gq__mf_required(c);
    if ((v = gq__mf_get(ref, "kind")) && (rc = gq__mf_string(c, v, &kind)) != GQ_OK)
        return rc;
    if (strcmp(kind, "ClusterTrainingRuntime") != 0) {
        gq__mf_push(c, "kind");
        return gq__mf_invalid(c, kind, "gpuq reads ClusterTrainingRuntimes only (not yet "
                                       "namespaced TrainingRuntimes)");
    }
    gq__mf_push(c, "name");
    if (!(v = gq__mf_get(ref, "name")))
        return gq__mf_required(c);
    if ((rc = gq__mf_string(c, v, &name)) != GQ_OK)
        return rc;
    /*
     * Not an error in the TrainJob: its pods are described where gpuq has not
     * looked yet. Skipped, as a kind gpuq cannot queue is (an error with
     * --strict and for submit), like a Job whose LocalQueue is missing waits.
     */
    if (!(rt = runtime_named(c, name)))
        return gq__error(c->err, GQ_EUNSUPPORTED,
                         "kind TrainJob (%s) is not queued by gpuq: its ClusterTrainingRuntime "
                         "\"%s\" is not known; apply the runtime first",
                         json_object_get_string(gq__mf_get(root, "apiVersion")), name);
    gq__mf_pop(c, mark);
    if (rt->u.runtime.ml_policy && (pdoc = json_tokener_parse(rt->u.runtime.ml_policy)) &&
        (v = at(pdoc, "mlPolicy.numNodes")) &&
        json_object_is_type(v, json_type_int))
        nodes = json_object_get_int64(v);
    json_object_put(pdoc);
    if (trainer && (v = gq__mf_get(trainer, "numNodes"))) {
        mark = gq__mf_push(c, "spec.trainer.numNodes");
        if ((rc = gq__mf_int(c, v, 1, INT32_MAX, &nodes)) != GQ_OK)
            return rc;
        gq__mf_pop(c, mark);
    }
    if (!(tdoc = json_tokener_parse(rt->u.runtime.template)))
        return gq__mf_fail(c, "ClusterTrainingRuntime %s: its template does not read", name);
    jobs = at(tdoc, "template.spec.replicatedJobs");
    mark = gq__mf_push(c, "spec.runtimeRef.name");
    if (!json_object_is_type(jobs, json_type_array) || !json_object_array_length(jobs)) {
        json_object_put(tdoc);
        return gq__mf_invalid(c, name, "its template has no replicatedJobs");
    }
    gq__mf_pop(c, mark);
    rc = GQ_OK;
    for (i = 0; rc == GQ_OK && i < json_object_array_length(jobs); i++) {
        json_object *rj = json_object_array_get_idx(jobs, i), *nm = gq__mf_get(rj, "name");
        json_object *labels = at(rj, "template.metadata.labels");
        json_object *stepv = gq__mf_get(labels, TRAINER_STEP_LABEL);
        bool is_trainer = (json_object_is_type(stepv, json_type_string) &&
                           !strcmp(json_object_get_string(stepv), "trainer")) ||
                          (json_object_is_type(nm, json_type_string) &&
                           !strcmp(json_object_get_string(nm), TRAINER_CONTAINER));
        json_object *tmpl = at(rj, "template.spec.template");

        mark = gq__mf_push(c, "spec.runtimeRef.name");
        if (!json_object_is_type(nm, json_type_string) || !tmpl) {
            rc = gq__mf_invalid(c, name, "a replicated job of its template has no name or no "
                                         "pod template");
            break;
        }
        gq__mf_pop(c, mark);
        if (is_trainer && trainer)
            trainer_overrides(tmpl, trainer);
        rc = podset(c, root, rj, &step, json_object_get_string(nm), wl);
        if (rc == GQ_OK && is_trainer)
            wl->podsets[wl->npodsets - 1].count = (int32_t)nodes;
    }
    json_object_put(tdoc);
    return rc;
}

static int entry(struct gq__mf_ctx *c, json_object *root, const struct gq_integ_podset *e,
                 struct gq_workload *wl)
{
    json_object *node;
    size_t mark, i, n, before = wl->npodsets;
    int rc;

    if (e->when && !when_holds(root, e->when))
        return GQ_OK;
    if (e->hook == GQ_INTEG_HOOK_TRAINJOB)
        return trainjob(c, root, wl);
    node = at(root, e->at);
    mark = push_path(c, e->at, strlen(e->at));
    if (!node) {
        if (e->optional)
            goto done;
        return gq__mf_required(c);
    }
    if (e->shape == GQ_INTEG_ONE) {
        if ((rc = gq__mf_object(c, node)) != GQ_OK ||
            (rc = podset(c, root, node, e, e->name, wl)) != GQ_OK)
            return rc;
    } else if (e->shape == GQ_INTEG_LIST) {
        if ((rc = gq__mf_array(c, node)) != GQ_OK)
            return rc;
        n = json_object_array_length(node);
        for (i = 0; i < n; i++) {
            json_object *el = json_object_array_get_idx(node, i);
            size_t imark = gq__mf_push_index(c, i);
            const char *name;

            if ((rc = gq__mf_object(c, el)) != GQ_OK ||
                (rc = element_name(c, el, e->name_from, &name)) != GQ_OK ||
                (rc = podset(c, root, el, e, name, wl)) != GQ_OK)
                return rc;
            gq__mf_pop(c, imark);
        }
    } else {
        const char *keys = e->keys;
        char key[64], name[64];

        if ((rc = gq__mf_object(c, node)) != GQ_OK)
            return rc;
        while (gq__integration_next(&keys, ',', key, sizeof(key))) {
            json_object *el = gq__mf_get(node, key);

            if (!el)
                continue;
            lower(name, sizeof(name), key);
            i = gq__mf_push(c, key);
            if ((rc = gq__mf_object(c, el)) != GQ_OK ||
                (rc = podset(c, root, el, e, name, wl)) != GQ_OK)
                return rc;
            gq__mf_pop(c, i);
        }
        if (wl->npodsets == before)
            return gq__mf_fail(c, "must hold a replica spec of one of the types %s", e->keys);
    }
    /* Two elements naming the same pod set: Kueue's names must be unique. */
    for (i = before; i < wl->npodsets; i++)
        for (n = 0; n < i; n++)
            if (!strcmp(wl->podsets[i].name, wl->podsets[n].name))
                return gq__mf_invalid(c, wl->podsets[i].name, "names a pod set twice");
done:
    gq__mf_pop(c, mark);
    return GQ_OK;
}

int gq__mf_decode_integration(struct gq__mf_ctx *c, json_object *root, struct gq_object *obj)
{
    const struct gq_integration *row = c->integ;
    struct gq_workload *wl = &obj->u.wl;
    json_object *v;
    size_t i, mark;
    int rc;

    if ((rc = gq__mf_job_meta(c, row->kind, obj)) != GQ_OK)
        return rc;
    if (!(wl->job_api_version = strdup(obj->meta.api_version)) ||
        !(wl->podsets = calloc(MAX_PODSETS, sizeof(*wl->podsets))))
        return gq__mf_nomem(c);
    if (row->suspend && (v = at(root, row->suspend))) {
        mark = push_path(c, row->suspend, strlen(row->suspend));
        if ((rc = gq__mf_bool(c, v, &wl->suspend)) != GQ_OK)
            return rc;
        gq__mf_pop(c, mark);
    }
    for (i = 0; i < row->npodsets; i++)
        if ((rc = entry(c, root, &row->podsets[i], wl)) != GQ_OK)
            return rc;
    if (!wl->npodsets)
        return gq__mf_fail(c, "%s %s gives no pod set", row->kind,
                           obj->meta.name ? obj->meta.name : "");
    return gq__mf_job_finish(c, obj);
}

/* ------------------------------------------------- the Integration kind */

static int invalid(gq_error *err, const char *s, const char *why)
{
    char q[GQ_QUOTE_BUFSIZE];

    return gq__error(err, GQ_EINVALID, "invalid value %s: %s", gq__quote(q, s, strlen(s)), why);
}

int gq__mf_check_integ_path(const char *s, gq_error *err)
{
    char why[128];

    return gq__integration_path_ok(s, why, sizeof(why)) ? GQ_OK : invalid(err, s, why);
}

int gq__mf_check_integ_expr(const char *s, gq_error *err)
{
    char why[160], msg[200];

    if (gq__integration_expr_ok(s, why, sizeof(why)))
        return GQ_OK;
    snprintf(msg, sizeof(msg), "not a count expression (%s)", why);
    return invalid(err, s, msg);
}

int gq__mf_check_integ_key(const char *s, gq_error *err)
{
    char why[128];

    if (!gq__integration_path_ok(s, why, sizeof(why)) || strchr(s, '.'))
        return invalid(err, s, "must be one member name of letters, digits, '_' or '-'");
    if (strlen(s) > 63)
        return invalid(err, s, "must be at most 63 characters");
    return GQ_OK;
}

int gq__mf_check_integ_kind(const char *s, gq_error *err)
{
    const char *p;

    if (*s < 'A' || *s > 'Z')
        return invalid(err, s, "a Kind must start with an upper-case letter");
    for (p = s; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
            return invalid(err, s, "a Kind is letters and digits");
    if (p - s > 63)
        return invalid(err, s, "must be at most 63 characters");
    return GQ_OK;
}

/* "Type|Type" (conditions) or "path=Value|Value" (a field). */
int gq__mf_check_integ_finished(const char *s, gq_error *err)
{
    const char *eq = strchr(s, '='), *p = eq ? eq + 1 : s;
    char path[256], why[128];

    if (eq) {
        snprintf(path, sizeof(path), "%.*s", (int)(eq - s), s);
        if (!gq__integration_path_ok(path, why, sizeof(why)))
            return invalid(err, s, why);
    }
    for (; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '|' || *p == '-' || *p == '_' || *p == '.'))
            break;
    if (*p || !*(eq ? eq + 1 : s))
        return invalid(err, s,
                       "must be condition types such as \"Succeeded|Failed\" or a field's "
                       "values such as \"status.phase=Done|Failed\"");
    return GQ_OK;
}

/* One pod-set entry: exactly one of name (one object), nameFrom (a list), keys (a map). */
int gq__mf_integ_podset_check(struct gq__mf_ctx *c, void *base)
{
    const struct gq_integ_podset_spec *p = base;
    int ways = (p->name != NULL) + (p->name_from != NULL) + (p->keys.n > 0);

    if (ways != 1)
        return gq__mf_fail(c, "must have exactly one of name (one object), nameFrom (a list) "
                              "or keys (a map)");
    return GQ_OK;
}

int gq__mf_integration_post(struct gq__mf_ctx *c, json_object *spec, struct gq_object *obj)
{
    struct gq_integration_spec *s = &obj->u.integ;
    const struct gq_integration *b = gq__integration_by_kind(s->kind, NULL);

    (void)spec;
    if (b || gq__mf_kind_find(s->group, s->kind)) {
        gq__mf_push(c, "kind");
        return gq__mf_invalid(c, s->kind, "gpuq already has a row for kind %s (%s)", s->kind,
                              b ? b->group : s->group);
    }
    if (!s->plural) { /* the Kind lower-cased, plus "s", as CRDs mostly name theirs */
        char buf[80];

        lower(buf, sizeof(buf) - 1, s->kind);
        strcat(buf, "s");
        if (!(s->plural = strdup(buf)))
            return gq__mf_nomem(c);
    }
    return GQ_OK;
}

/* ------------------------------------------- a job's templates, in place */


int gq__mf_integration_set(json_object *root, const char *path, json_object *value)
{
    const char *dot = strrchr(path, '.');
    char parent[256];
    json_object *p = root;

    if (dot) {
        if ((size_t)(dot - path) >= sizeof(parent)) {
            json_object_put(value);
            return -1;
        }
        snprintf(parent, sizeof(parent), "%.*s", (int)(dot - path), path);
        p = reach(root, parent, true);
    }
    if (!json_object_is_type(p, json_type_object)) {
        json_object_put(value);
        return -1;
    }
    json_object_object_add(p, dot ? dot + 1 : path, value);
    return 0;
}

json_object *gq__mf_integration_template(json_object *root, const struct gq_integration *row,
                                         const char *podset, bool create)
{
    size_t i, j;

    for (i = 0; i < row->npodsets; i++) {
        const struct gq_integ_podset *e = &row->podsets[i];
        json_object *node;

        if (e->when && !when_holds(root, e->when))
            continue;
        if (!(node = at(root, e->at)))
            continue;
        if (e->shape == GQ_INTEG_ONE && e->name && !strcmp(e->name, podset))
            return reach(node, e->template, create);
        if (e->shape == GQ_INTEG_LIST && json_object_is_type(node, json_type_array)) {
            for (j = 0; j < json_object_array_length(node); j++) {
                json_object *el = json_object_array_get_idx(node, j);
                json_object *name = gq__mf_get(el, e->name_from);

                if (json_object_is_type(name, json_type_string) &&
                    !strcmp(json_object_get_string(name), podset))
                    return reach(el, e->template, false);
            }
        }
        if (e->shape == GQ_INTEG_MAP) {
            const char *keys = e->keys;
            char key[64], name[64];

            while (gq__integration_next(&keys, ',', key, sizeof(key))) {
                lower(name, sizeof(name), key);
                if (!strcmp(name, podset))
                    return reach(gq__mf_get(node, key), e->template, false);
            }
        }
    }
    return NULL;
}
