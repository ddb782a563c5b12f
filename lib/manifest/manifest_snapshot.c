/*
 * manifest_snapshot.c: the JSON the admission snapshot is built from, read
 * into the core's structs: the podsets column of a workload (schema
 * 0001_init.sql) and label selectors (a ClusterQueue's namespaceSelector).
 * Part of the manifest edge, the only place json-c is included.
 */
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "admit.h"
#include "error.h"
#include "manifest_snapshot.h"

static char *dup_str(json_object *v)
{
    const char *s = json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;

    return s ? strdup(s) : NULL;
}

static int kvs(json_object *obj, struct gq_kvs *out)
{
    size_t n = 0;

    if (!json_object_is_type(obj, json_type_object))
        return 0;
    if (!(out->v = calloc((size_t)json_object_object_length(obj) + 1, sizeof(*out->v))))
        return -1;
    json_object_object_foreach(obj, key, val) {
        if (!json_object_is_type(val, json_type_string))
            continue;
        if (!(out->v[n].key = strdup(key)) || !(out->v[n].value = dup_str(val))) {
            out->n = n + 1;
            return -1;
        }
        n++;
    }
    out->n = n;
    return 0;
}

static const struct {
    const char *name;
    enum gq_sel_op op;
} ops[] = {{"In", GQ_SEL_IN}, {"NotIn", GQ_SEL_NOT_IN}, {"Exists", GQ_SEL_EXISTS},
           {"DoesNotExist", GQ_SEL_DOES_NOT_EXIST}, {"Gt", GQ_SEL_GT}, {"Lt", GQ_SEL_LT}};

static int requirement(json_object *v, struct gq_sel_req *r)
{
    json_object *key, *op, *values;
    const char *o;
    size_t i, n;

    if (!json_object_object_get_ex(v, "key", &key) || !(r->key = dup_str(key)))
        return -1;
    o = json_object_object_get_ex(v, "operator", &op) ? json_object_get_string(op) : "";
    r->op = GQ_SEL_IN;
    for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
        if (o && strcmp(o, ops[i].name) == 0)
            r->op = ops[i].op;
    if (!json_object_object_get_ex(v, "values", &values) ||
        !json_object_is_type(values, json_type_array))
        return 0;
    n = json_object_array_length(values);
    if (!(r->values.v = calloc(n + 1, sizeof(char *))))
        return -1;
    for (i = 0; i < n; i++)
        if ((r->values.v[r->values.n] = dup_str(json_object_array_get_idx(values, i))))
            r->values.n++;
    return 0;
}

/* {matchLabels, matchExpressions} or a node selector term {matchExpressions}. */
static int selector(json_object *v, struct gq_selector *out)
{
    json_object *ml, *me;
    size_t i, n;

    if (json_object_object_get_ex(v, "matchLabels", &ml) && kvs(ml, &out->match_labels) < 0)
        return -1;
    if (!json_object_object_get_ex(v, "matchExpressions", &me) ||
        !json_object_is_type(me, json_type_array))
        return 0;
    n = json_object_array_length(me);
    if (!(out->reqs = calloc(n + 1, sizeof(*out->reqs))))
        return -1;
    for (i = 0; i < n; i++) {
        out->nreqs++;
        if (requirement(json_object_array_get_idx(me, i), &out->reqs[i]) < 0)
            return -1;
    }
    return 0;
}

int gq__manifest_selector(const char *json, struct gq_selector *out, gq_error *err)
{
    json_object *root = json_tokener_parse(json);
    int rc = 0;

    memset(out, 0, sizeof(*out));
    if (!root || !json_object_is_type(root, json_type_object))
        rc = -1;
    else
        rc = selector(root, out);
    json_object_put(root);
    if (rc < 0)
        return gq__error(err, GQ_EINVALID, "invalid label selector %s", json);
    return GQ_OK;
}

static int tolerations(json_object *arr, struct gq_snap_ps *ps)
{
    size_t i, n = json_object_array_length(arr);
    json_object *v;

    if (!(ps->tols = calloc(n + 1, sizeof(*ps->tols))))
        return -1;
    for (i = 0; i < n; i++) {
        json_object *t = json_object_array_get_idx(arr, i);
        struct gq_toleration *tol = &ps->tols[ps->ntols++];

        if (json_object_object_get_ex(t, "key", &v))
            tol->key = dup_str(v);
        if (json_object_object_get_ex(t, "operator", &v))
            tol->op = dup_str(v);
        if (json_object_object_get_ex(t, "value", &v))
            tol->value = dup_str(v);
        if (json_object_object_get_ex(t, "effect", &v))
            tol->effect = dup_str(v);
    }
    return 0;
}

static int match(json_object *m, struct gq_snap_ps *ps)
{
    json_object *v;
    size_t i, n;

    if (json_object_object_get_ex(m, "nodeSelector", &v) && kvs(v, &ps->node_selector) < 0)
        return -1;
    if (json_object_object_get_ex(m, "tolerations", &v) &&
        json_object_is_type(v, json_type_array) && tolerations(v, ps) < 0)
        return -1;
    if (!json_object_object_get_ex(m, "terms", &v) || !json_object_is_type(v, json_type_array))
        return 0;
    n = json_object_array_length(v);
    if (!(ps->terms = calloc(n + 1, sizeof(*ps->terms))))
        return -1;
    for (i = 0; i < n; i++) {
        ps->nterms++;
        if (selector(json_object_array_get_idx(v, i), &ps->terms[i]) < 0)
            return -1;
    }
    return 0;
}

static int podset(struct gq_snapshot *s, json_object *v, struct gq_snap_ps *ps)
{
    json_object *x, *amounts;
    size_t n;

    if (json_object_object_get_ex(v, "name", &x))
        ps->name = dup_str(x);
    if (!ps->name)
        return -1;
    if (json_object_object_get_ex(v, "count", &x))
        ps->count = json_object_get_int(x);
    if (json_object_object_get_ex(v, "minCount", &x) && !json_object_is_type(x, json_type_null)) {
        ps->has_min = true;
        ps->min_count = json_object_get_int(x);
    }
    if (!json_object_object_get_ex(v, "amounts", &amounts) ||
        !json_object_is_type(amounts, json_type_object))
        return -1;
    n = (size_t)json_object_object_length(amounts) + 1; /* room for "pods" */
    ps->res = calloc(n, sizeof(int));
    ps->per_pod = calloc(n, sizeof(int64_t));
    ps->adm_flavor = malloc(n * sizeof(int));
    if (!ps->res || !ps->per_pod || !ps->adm_flavor)
        return -1;
    json_object_object_foreach(amounts, key, val) {
        int r = gq__intern(&s->res_names, key);

        if (r < 0)
            return -1;
        ps->res[ps->nres] = r;
        ps->adm_flavor[ps->nres] = -1;
        ps->per_pod[ps->nres++] = json_object_get_int64(val);
    }
    if (json_object_object_get_ex(v, "match", &x) && match(x, ps) < 0)
        return -1;
    return 0;
}

struct gq__podsets_doc *gq__manifest_podsets_parse(const char *json)
{
    json_object *root = json_tokener_parse(json);

    if (root && json_object_is_type(root, json_type_array))
        return (struct gq__podsets_doc *)root;
    json_object_put(root);
    return NULL;
}

void gq__manifest_podsets_doc_free(struct gq__podsets_doc *doc)
{
    json_object_put((json_object *)doc);
}

int gq__manifest_podsets_fill(struct gq_snapshot *s, struct gq_snap_wl *wl,
                              const struct gq__podsets_doc *doc, gq_error *err)
{
    const json_object *root = (const json_object *)doc;
    size_t i, n = json_object_array_length(root);
    int rc = 0;

    if (!(wl->ps = calloc(n ? n : 1, sizeof(*wl->ps))))
        rc = -1;
    for (i = 0; rc == 0 && i < n; i++) {
        wl->nps++;
        rc = podset(s, json_object_array_get_idx(root, i), &wl->ps[i]);
    }
    if (rc < 0)
        return gq__error(err, GQ_ENOMEM, "out of memory reading workload %s/%s", wl->ns,
                         wl->name);
    return GQ_OK;
}

int gq__manifest_podsets(struct gq_snapshot *s, struct gq_snap_wl *wl, const char *json,
                         gq_error *err)
{
    struct gq__podsets_doc *doc = gq__manifest_podsets_parse(json);
    int rc;

    if (!doc)
        return gq__error(err, GQ_EIO, "workload %s/%s: unreadable podsets column", wl->ns,
                         wl->name);
    rc = gq__manifest_podsets_fill(s, wl, doc, err);
    gq__manifest_podsets_doc_free(doc);
    return rc;
}
