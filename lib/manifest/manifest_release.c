/*
 * manifest_release.c: the JSON edge of the release rule (core/release.h).
 * Kueue's startJob is one pure function of typed structs; both places that
 * apply it, the render's status.gpuq.release and the cluster outbox's
 * unsuspend patch, hold the workload, its flavor and its
 * ProvisioningRequests as stored JSON. This file is the one reading of
 * that JSON into the rule's inputs, so the two cannot drift apart.
 *
 * Invariants: the JSON is the store's canonical text, but it is read
 * defensively all the same: a member of the wrong type counts as absent,
 * never as an error, and only running out of memory fails. Whatever a
 * failed call had already copied stays in its struct for the clear.
 * Sizes: a template carries a few labels and tolerations, a workload one
 * or two requests; the render calls this once per admitted workload shown.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "admit.h" /* gq__grow */
#include "manifest_fields.h"
#include "manifest_release.h"

/* A copy of v's text when it is a JSON string, else NULL; *bad set when the copy fails. */
static char *str_of(json_object *v, bool *bad)
{
    char *s;

    if (!json_object_is_type(v, json_type_string))
        return NULL;
    if (!(s = strdup(json_object_get_string(v))))
        *bad = true;
    return s;
}

/* A JSON object's string members as kvs (copies; other members skipped). -1 on ENOMEM. */
static int kvs_of(json_object *obj, struct gq_kvs *out)
{
    size_t cap = 0;
    bool bad = false;

    memset(out, 0, sizeof(*out));
    if (!json_object_is_type(obj, json_type_object))
        return 0;
    json_object_object_foreach(obj, k, v) {
        if (!json_object_is_type(v, json_type_string))
            continue;
        if (gq__grow(&out->v, &cap, out->n, sizeof(*out->v)) < 0)
            return -1;
        out->v[out->n].key = strdup(k);
        out->v[out->n].value = str_of(v, &bad);
        if (!out->v[out->n++].key || bad)
            return -1;
    }
    return 0;
}

/* A JSON array of tolerations as structs (copies; non-objects skipped). -1 on ENOMEM. */
static int tolerations_of(json_object *arr, struct gq_toleration **out, size_t *n)
{
    size_t i, cap = 0;
    bool bad = false;

    *out = NULL;
    *n = 0;
    for (i = 0; json_object_is_type(arr, json_type_array) && i < json_object_array_length(arr);
         i++) {
        json_object *o = json_object_array_get_idx(arr, i);
        json_object *secs = gq__mf_get(o, "tolerationSeconds");
        struct gq_toleration *t;

        if (!json_object_is_type(o, json_type_object))
            continue;
        if (gq__grow(out, &cap, *n, sizeof(**out)) < 0)
            return -1;
        t = &(*out)[(*n)++];
        t->key = str_of(gq__mf_get(o, "key"), &bad);
        t->op = str_of(gq__mf_get(o, "operator"), &bad);
        t->value = str_of(gq__mf_get(o, "value"), &bad);
        t->effect = str_of(gq__mf_get(o, "effect"), &bad);
        t->has_seconds = json_object_is_type(secs, json_type_int);
        t->seconds = t->has_seconds ? json_object_get_int64(secs) : 0;
        if (bad)
            return -1;
    }
    return 0;
}

/* v's text when it is a JSON string, else NULL (borrowed). */
static const char *str_in(json_object *v)
{
    return json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

/* --------------------------------------------------------------- pod set */

int gq__mf_release_podset_read(struct gq__mf_release_podset *out, json_object *tmpl,
                               json_object *flavor_spec)
{
    json_object *meta = gq__mf_get(tmpl, "metadata"), *spec = gq__mf_get(tmpl, "spec");

    memset(out, 0, sizeof(*out));
    if (kvs_of(gq__mf_get(meta, "labels"), &out->labels) < 0 ||
        kvs_of(gq__mf_get(meta, "annotations"), &out->annotations) < 0 ||
        kvs_of(gq__mf_get(spec, "nodeSelector"), &out->node_selector) < 0 ||
        tolerations_of(gq__mf_get(spec, "tolerations"), &out->tolerations,
                       &out->ntolerations) < 0 ||
        kvs_of(gq__mf_get(flavor_spec, "nodeLabels"), &out->flavor.node_labels) < 0 ||
        tolerations_of(gq__mf_get(flavor_spec, "tolerations"), &out->flavor.tolerations,
                       &out->flavor.ntolerations) < 0)
        return -1;
    return 0;
}

void gq__mf_release_podset_clear(struct gq__mf_release_podset *ps)
{
    gq__kvs_clear(&ps->labels);
    gq__kvs_clear(&ps->annotations);
    gq__kvs_clear(&ps->node_selector);
    gq__tolerations_free(ps->tolerations, ps->ntolerations);
    gq__kvs_clear(&ps->flavor.node_labels);
    gq__tolerations_free(ps->flavor.tolerations, ps->flavor.ntolerations);
    memset(ps, 0, sizeof(*ps));
}

/* -------------------------------------------------------------- requests */

int gq__mf_release_reqs_init(struct gq__mf_release_reqs *q, size_t cap)
{
    memset(q, 0, sizeof(*q));
    if (!cap)
        return 0;
    if (!(q->v = calloc(cap, sizeof(*q->v))) || !(q->details = calloc(cap, sizeof(*q->details))) ||
        !(q->sels = calloc(cap, sizeof(*q->sels))))
        return -1;
    q->cap = cap;
    return 0;
}

int gq__mf_release_reqs_add(struct gq__mf_release_reqs *q, json_object *pr, json_object *status,
                            json_object *ups)
{
    size_t i = q->n, j, n;
    struct gq_release_request *r;
    bool bad = false;

    if (i >= q->cap)
        return -1;
    n = json_object_is_type(ups, json_type_array) ? json_object_array_length(ups) : 0;
    r = &q->v[q->n++]; /* counted at once: the clear frees what a failure leaves */
    r->name = str_in(gq__mf_get(gq__mf_get(pr, "metadata"), "name"));
    r->class_name = str_in(gq__mf_get(gq__mf_get(pr, "spec"), "provisioningClassName"));
    r->details = &q->details[i];
    if (kvs_of(gq__mf_get(status, "provisioningClassDetails"), &q->details[i]) < 0 ||
        (n && !(q->sels[i] = calloc(n, sizeof(*q->sels[i])))))
        return -1;
    r->selectors = q->sels[i];
    for (j = 0; j < n && !bad; j++, r->nselectors++) {
        json_object *u = json_object_array_get_idx(ups, j);

        q->sels[i][j].key = str_of(gq__mf_get(u, "key"), &bad);
        q->sels[i][j].value_from_detail =
            str_of(gq__mf_get(u, "valueFromProvisioningClassDetail"), &bad);
    }
    return bad ? -1 : 0;
}

void gq__mf_release_reqs_clear(struct gq__mf_release_reqs *q)
{
    size_t i, j;

    for (i = 0; i < q->n; i++) {
        gq__kvs_clear(&q->details[i]);
        for (j = 0; q->sels[i] && j < q->v[i].nselectors; j++) {
            free(q->sels[i][j].key);
            free(q->sels[i][j].value_from_detail);
        }
        free(q->sels[i]);
    }
    free(q->v);
    free(q->details);
    free(q->sels);
    memset(q, 0, sizeof(*q));
}

/* --------------------------------------------------------------- release */

int gq__mf_release(struct gq_released *out, const char *podset,
                   const struct gq__mf_release_podset *ps, const struct gq__mf_release_reqs *q)
{
    const struct gq_flavor *fl[1] = {&ps->flavor};
    struct gq_release_podset in = {podset, fl, 1, &ps->labels, &ps->annotations,
                                   &ps->node_selector, ps->tolerations, ps->ntolerations};

    return gq__release(out, &in, q ? q->v : NULL, q ? q->n : 0);
}

json_object *gq__mf_release_pristine(json_object *workload, const char *podset)
{
    json_object *sets = gq__mf_get(gq__mf_get(workload, "spec"), "podSets");
    size_t i;

    for (i = 0; json_object_is_type(sets, json_type_array) && i < json_object_array_length(sets);
         i++) {
        json_object *ps = json_object_array_get_idx(sets, i);
        const char *name = str_in(gq__mf_get(ps, "name"));

        if (name && strcmp(name, podset) == 0)
            return gq__mf_get(ps, "template");
    }
    return NULL;
}

const char *gq__mf_release_flavor(json_object *assignment)
{
    json_object *fls = gq__mf_get(assignment, "flavors");
    const char *flavor = NULL;

    if (json_object_is_type(fls, json_type_object)) {
        json_object_object_foreach(fls, res, fl) {
            (void)res;
            flavor = flavor ? flavor : json_object_get_string(fl);
        }
    }
    return flavor;
}

json_object *gq__mf_toleration_json(const struct gq_toleration *t)
{
    json_object *o = json_object_new_object();

    if (t->key)
        json_object_object_add(o, "key", json_object_new_string(t->key));
    if (t->op)
        json_object_object_add(o, "operator", json_object_new_string(t->op));
    if (t->value)
        json_object_object_add(o, "value", json_object_new_string(t->value));
    if (t->effect)
        json_object_object_add(o, "effect", json_object_new_string(t->effect));
    if (t->has_seconds)
        json_object_object_add(o, "tolerationSeconds", json_object_new_int64(t->seconds));
    return o;
}
