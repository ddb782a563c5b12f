/*
 * manifest_provreq.c: the ProvisioningRequest and PodTemplates Kueue writes
 * for a workload whose quota is reserved (kueue-semantics.md §3.4), as
 * JSON; and the annotations of a stored workload, for the request's
 * parameters. Part of the manifest edge (json-c).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "error.h"
#include "manifest_fields.h"
#include "manifest_load.h"
#include "manifest_release.h"
#include "provision.h"

#define JSON_FLAGS (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

static json_object *get(json_object *o, const char *key)
{
    json_object *v = NULL;

    return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

/* metadata {name, namespace, labels {kueue.x-k8s.io/managed}, ownerReferences [owner]} */
static json_object *meta(const char *name, const char *ns, const char *owner_api,
                         const char *owner_kind, const char *owner, const char *owner_uid)
{
    json_object *m = json_object_new_object(), *labels = json_object_new_object();
    json_object *refs = json_object_new_array(), *ref = json_object_new_object();

    json_object_object_add(m, "name", json_object_new_string(name));
    json_object_object_add(m, "namespace", json_object_new_string(ns));
    json_object_object_add(labels, "kueue.x-k8s.io/managed", json_object_new_string("true"));
    json_object_object_add(m, "labels", labels);
    json_object_object_add(ref, "apiVersion", json_object_new_string(owner_api));
    json_object_object_add(ref, "kind", json_object_new_string(owner_kind));
    json_object_object_add(ref, "name", json_object_new_string(owner));
    if (owner_uid)
        json_object_object_add(ref, "uid", json_object_new_string(owner_uid));
    json_object_object_add(ref, "controller", json_object_new_boolean(1));
    json_object_object_add(ref, "blockOwnerDeletion", json_object_new_boolean(1));
    json_object_array_add(refs, ref);
    json_object_object_add(m, "ownerReferences", refs);
    return m;
}

static json_object *child(json_object *parent, const char *key, json_type type)
{
    json_object *v = get(parent, key);

    if (v && json_object_is_type(v, type))
        return v;
    v = type == json_type_array ? json_object_new_array() : json_object_new_object();
    json_object_object_add(parent, key, v);
    return v;
}

/*
 * The flavor's nodeLabels into nodeSelector and its tolerations appended
 * once each, by the release rule (core/release.c: Kueue's merge of a flavor
 * into a pod template, tolerations compared as Go structs), written back
 * into tmpl's spec: the pristine entries stay as they are, the flavor's are
 * set or appended. Returns -1 when out of memory.
 */
static int apply_flavor(json_object *tmpl, json_object *pspec, const struct gq_provreq_podset *ps)
{
    static const struct gq_kvs none = {NULL, 0};
    struct gq__mf_release_podset rp;
    struct gq_flavor fl;
    const struct gq_flavor *fls[1] = {&fl};
    struct gq_release_podset in;
    struct gq_released rel;
    json_object *sel, *have, *tols;
    size_t i;
    int rc;

    if (gq__mf_release_podset_read(&rp, tmpl, NULL) < 0) {
        gq__mf_release_podset_clear(&rp);
        return -1;
    }
    memset(&fl, 0, sizeof(fl));
    fl.node_labels = ps->node_labels ? *ps->node_labels : none;
    fl.tolerations = (struct gq_toleration *)(uintptr_t)ps->tolerations;
    fl.ntolerations = ps->ntolerations;
    in = (struct gq_release_podset){ps->name, fls, 1, &rp.labels, &rp.annotations,
                                    &rp.node_selector, rp.tolerations, rp.ntolerations};
    rc = gq__release(&rel, &in, NULL, 0);
    if (rc == 0) {
        for (i = 0; i < rel.node_selector.n; i++) {
            const struct gq_kv *kv = &rel.node_selector.v[i];

            sel = child(pspec, "nodeSelector", json_type_object);
            have = get(sel, kv->key);
            if (!have || !json_object_is_type(have, json_type_string) ||
                strcmp(json_object_get_string(have), kv->value) != 0)
                json_object_object_add(sel, kv->key, json_object_new_string(kv->value));
        }
        for (i = rp.ntolerations; i < rel.ntolerations; i++) {
            tols = child(pspec, "tolerations", json_type_array);
            json_object_array_add(tols, gq__mf_toleration_json(&rel.tolerations[i]));
        }
        gq__released_clear(&rel);
    }
    gq__mf_release_podset_clear(&rp);
    return rc;
}

/* Container limits copied into missing requests (Kueue does this for the autoscaler). */
static void limits_to_requests(json_object *pspec, const char *which)
{
    json_object *ctrs = get(pspec, which);
    size_t i;

    if (!ctrs || !json_object_is_type(ctrs, json_type_array))
        return;
    for (i = 0; i < json_object_array_length(ctrs); i++) {
        json_object *res = get(json_object_array_get_idx(ctrs, i), "resources");
        json_object *lim = get(res, "limits"), *req;

        if (!lim || !json_object_is_type(lim, json_type_object))
            continue;
        req = child(res, "requests", json_type_object);
        json_object_object_foreach(lim, key, val) {
            if (!get(req, key))
                json_object_object_add(req, key, json_object_get(val));
        }
    }
}

/* The pod set's pristine template in the stored Workload spec, deep-copied. */
static json_object *template_of(json_object *spec, const char *podset)
{
    json_object *sets = get(get(spec, "spec"), "podSets"), *copy = NULL;
    size_t i;

    for (i = 0; sets && i < json_object_array_length(sets); i++) {
        json_object *ps = json_object_array_get_idx(sets, i), *name = get(ps, "name");

        if (name && strcmp(json_object_get_string(name), podset) == 0 &&
            json_object_deep_copy(get(ps, "template"), &copy, NULL) == 0)
            return copy;
    }
    return NULL;
}

static json_object *podtemplate(json_object *spec, const struct gq_provreq_doc *d,
                                const struct gq_provreq_podset *ps)
{
    json_object *pt = json_object_new_object(), *tmpl = template_of(spec, ps->name), *pspec;

    if (!tmpl)
        tmpl = json_object_new_object();
    pspec = child(tmpl, "spec", json_type_object);
    if (apply_flavor(tmpl, pspec, ps) < 0) {
        json_object_put(tmpl);
        json_object_put(pt);
        return NULL;
    }
    limits_to_requests(pspec, "containers");
    limits_to_requests(pspec, "initContainers");
    json_object_object_add(pt, "apiVersion", json_object_new_string("v1"));
    json_object_object_add(pt, "kind", json_object_new_string("PodTemplate"));
    json_object_object_add(pt, "metadata",
                           meta(ps->template_name, d->namespace, "autoscaling.x-k8s.io/v1",
                                "ProvisioningRequest", d->name, NULL));
    json_object_object_add(pt, "template", tmpl);
    return pt;
}

static json_object *request(const struct gq_provreq_doc *d)
{
    json_object *pr = json_object_new_object(), *spec = json_object_new_object();
    json_object *sets = json_object_new_array();
    size_t i;

    json_object_object_add(pr, "apiVersion", json_object_new_string("autoscaling.x-k8s.io/v1"));
    json_object_object_add(pr, "kind", json_object_new_string("ProvisioningRequest"));
    json_object_object_add(pr, "metadata", meta(d->name, d->namespace, "kueue.x-k8s.io/v1beta2",
                                                "Workload", d->workload, d->workload_uid));
    json_object_object_add(spec, "provisioningClassName", json_object_new_string(d->class_name));
    if (d->parameters && d->parameters->n)
        json_object_object_add(spec, "parameters", gq__mf_encode_kvs(d->parameters));
    for (i = 0; i < d->npodsets; i++) {
        json_object *ps = json_object_new_object(), *ref = json_object_new_object();

        json_object_object_add(ref, "name", json_object_new_string(d->podsets[i].template_name));
        json_object_object_add(ps, "podTemplateRef", ref);
        json_object_object_add(ps, "count", json_object_new_int(d->podsets[i].count));
        json_object_array_add(sets, ps);
    }
    json_object_object_add(spec, "podSets", sets);
    json_object_object_add(pr, "spec", spec);
    return pr;
}

static int text_of(json_object *o, char **out, gq_error *err)
{
    const char *s = json_object_to_json_string_ext(o, JSON_FLAGS);

    if (!s || !(*out = strdup(s)))
        return gq__error(err, GQ_ENOMEM, "out of memory writing a ProvisioningRequest");
    return GQ_OK;
}

int gq__manifest_provreq(const char *workload_spec, const struct gq_provreq_doc *d,
                         char **request_out, char **templates_out, gq_error *err)
{
    json_object *spec = json_tokener_parse(workload_spec), *pr, *pts;
    size_t i;
    int rc;

    *request_out = *templates_out = NULL;
    if (!spec)
        return gq__error(err, GQ_EIO, "workload %s/%s: unreadable stored spec", d->namespace,
                         d->workload);
    pr = request(d);
    pts = json_object_new_array();
    rc = GQ_OK;
    for (i = 0; rc == GQ_OK && i < d->npodsets; i++) {
        json_object *pt = podtemplate(spec, d, &d->podsets[i]);

        if (!pt)
            rc = gq__error(err, GQ_ENOMEM, "out of memory building a PodTemplate");
        else
            json_object_array_add(pts, pt);
    }
    if (rc == GQ_OK && (rc = text_of(pr, request_out, err)) == GQ_OK)
        rc = text_of(pts, templates_out, err);
    json_object_put(pr);
    json_object_put(pts);
    json_object_put(spec);
    return rc;
}

int gq__manifest_annotations(const char *spec_json, struct gq_kvs *out, gq_error *err)
{
    json_object *spec = json_tokener_parse(spec_json), *ann;
    size_t n = 0;

    memset(out, 0, sizeof(*out));
    if (!spec)
        return gq__error(err, GQ_EIO, "unreadable stored spec");
    ann = get(get(spec, "metadata"), "annotations");
    if (ann && json_object_is_type(ann, json_type_object) && json_object_object_length(ann)) {
        out->v = calloc((size_t)json_object_object_length(ann), sizeof(*out->v));
        json_object_object_foreach(ann, key, val) {
            if (!out->v)
                break;
            out->v[n].key = strdup(key);
            out->v[n].value = strdup(json_object_get_string(val));
            n++;
        }
        out->n = n;
    }
    json_object_put(spec);
    return out->v || !n ? GQ_OK : gq__error(err, GQ_ENOMEM, "out of memory");
}

/* A condition of a ProvisioningRequest's status by type: true if status "True". */
static bool condition(json_object *conds, const char *type, bool *present, const char **message)
{
    size_t i;

    for (i = 0; conds && i < json_object_array_length(conds); i++) {
        json_object *c = json_object_array_get_idx(conds, i), *t = get(c, "type");
        json_object *st = get(c, "status"), *m = get(c, "message");

        if (!t || strcmp(json_object_get_string(t), type) != 0)
            continue;
        if (present)
            *present = true;
        if (message)
            *message = m ? json_object_get_string(m) : "";
        return st && strcmp(json_object_get_string(st), "True") == 0;
    }
    return false;
}

int gq__manifest_provreq_status(const char *status_json, struct gq_provreq_status *out,
                                void **keep, gq_error *err)
{
    json_object *st = json_tokener_parse(status_json), *conds;

    memset(out, 0, sizeof(*out));
    *keep = NULL;
    if (!st)
        return gq__error(err, GQ_EIO, "unreadable ProvisioningRequest status");
    conds = get(st, "conditions");
    out->accepted = condition(conds, "Accepted", NULL, NULL);
    out->provisioned = condition(conds, "Provisioned", &out->has_provisioned, &out->provisioned_msg);
    out->failed = condition(conds, "Failed", NULL, &out->failed_msg);
    out->booking_expired = condition(conds, "BookingExpired", NULL, &out->booking_msg);
    out->capacity_revoked = condition(conds, "CapacityRevoked", NULL, &out->revoked_msg);
    *keep = st; /* the messages point into it */
    return GQ_OK;
}

void gq__manifest_release(void *keep)
{
    json_object_put(keep);
}

/* The pod set's template in a parsed Workload spec (not copied). */
static json_object *template_in(json_object *spec, const char *podset)
{
    json_object *sets = get(get(spec, "spec"), "podSets");
    size_t i;

    for (i = 0; sets && i < json_object_array_length(sets); i++) {
        json_object *ps = json_object_array_get_idx(sets, i), *name = get(ps, "name");

        if (name && strcmp(json_object_get_string(name), podset) == 0)
            return get(ps, "template");
    }
    return NULL;
}

static bool same(json_object *a, json_object *b)
{
    return (!a && !b) || (a && b && json_object_equal(a, b));
}

/* Containers' resources.requests, by index, and nothing else of them. */
static bool same_requests(json_object *a, json_object *b)
{
    size_t i, n = a ? json_object_array_length(a) : 0;

    if (n != (b ? json_object_array_length(b) : 0))
        return false;
    for (i = 0; i < n; i++)
        if (!same(get(get(json_object_array_get_idx(a, i), "resources"), "requests"),
                  get(get(json_object_array_get_idx(b, i), "resources"), "requests")))
            return false;
    return true;
}

bool gq__manifest_podsets_mergeable(const char *workload_spec, const char *a, const char *b,
                                    const char *policy)
{
    static const char *const fields[] = {"resources",   "nodeSelector",   "tolerations",
                                         "affinity",    "resourceClaims", NULL};
    json_object *spec = json_tokener_parse(workload_spec), *ta, *tb, *sa, *sb;
    bool ok = false;
    size_t i;

    ta = template_in(spec, a);
    tb = template_in(spec, b);
    if (!ta || !tb || !policy) {
        ok = false;
    } else if (strcmp(policy, "IdenticalPodTemplates") == 0) {
        ok = json_object_equal(ta, tb);
    } else if (strcmp(policy, "IdenticalWorkloadSchedulingRequirements") == 0) {
        /* Kueue's arePodSetsSimilar: what scheduling looks at, nothing else */
        sa = get(ta, "spec");
        sb = get(tb, "spec");
        ok = same_requests(get(sa, "containers"), get(sb, "containers")) &&
             same_requests(get(sa, "initContainers"), get(sb, "initContainers"));
        for (i = 0; ok && fields[i]; i++)
            ok = same(get(sa, fields[i]), get(sb, fields[i]));
    }
    json_object_put(spec);
    return ok;
}
