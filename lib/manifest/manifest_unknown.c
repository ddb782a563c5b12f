/*
 * manifest_unknown.c: the fields of a document that the API does not know,
 * found as kubectl's server-side field validation finds them, so that
 * `gpuq apply` warns of them (or, with --strict, refuses the document).
 *
 * A kind with a row in the generated table (manifest_known.h: Kueue's kinds
 * and Configuration, Job, Namespace and the integration kinds that ship a
 * CRD) is walked against it; gpuq's own kinds (Integration, NodePool), whose
 * API is gpuq's field tables, are walked against those. Any other kind (a
 * user's Integration, a version no CRD here serves) is not checked.
 *
 * The walk runs once per decoded document and visits each key once, a
 * binary search in a run of a few dozen names: small beside decoding.
 * Paths are written as the API server writes them:
 * "spec.resourceGroups[0].flavors[0].bogus".
 */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "integration.h"
#include "manifest.h"
#include "manifest_fields.h"
#include "manifest_known.h"

int gq__mf_strs_add(struct gq__mf_ctx *c, struct gq_strs *s, const char *text)
{
    char **v = realloc(s->v, (s->n + 1) * sizeof(*v));

    if (!v)
        return gq__mf_nomem(c);
    s->v = v;
    if (!(s->v[s->n] = strdup(text)))
        return gq__mf_nomem(c);
    s->n++;
    return GQ_OK;
}

static const struct gq__mf_known *find(uint32_t first, uint16_t n, const char *name)
{
    size_t lo = 0, hi = n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int cmp = strcmp(name, gq__mf_known_fields[first + mid].name);

        if (cmp == 0)
            return &gq__mf_known_fields[first + mid];
        if (cmp < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}

static const struct gq__mf_known_kind *known_kind(const char *group, const char *kind,
                                                  const char *version)
{
    size_t lo = 0, hi = gq__mf_known_nkinds;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const struct gq__mf_known_kind *k = &gq__mf_known_kinds[mid];
        int cmp = strcmp(group, k->group);

        if (!cmp)
            cmp = strcmp(kind, k->kind);
        if (!cmp)
            cmp = strcmp(version, k->version);
        if (cmp == 0)
            return k;
        if (cmp < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}

/* ------------------------------------------------------------- the walk */

/* What to do with one key of an object: its value is v, its path is c->path. */
typedef int (*visit_fn)(struct gq__mf_ctx *c, const char *key, json_object *v, const void *where,
                        struct gq_strs *out);

/* visit on every key of v, or of every item of v when v is a list (lists are transparent). */
static int each_key(struct gq__mf_ctx *c, json_object *v, visit_fn visit, const void *where,
                    struct gq_strs *out)
{
    struct json_object_iterator it, end;
    size_t i, mark;
    int rc = GQ_OK;

    if (json_object_is_type(v, json_type_array)) {
        for (i = 0; rc == GQ_OK && i < json_object_array_length(v); i++) {
            mark = gq__mf_push_index(c, i);
            rc = each_key(c, json_object_array_get_idx(v, i), visit, where, out);
            gq__mf_pop(c, mark);
        }
        return rc;
    }
    if (!json_object_is_type(v, json_type_object))
        return GQ_OK;
    it = json_object_iter_begin(v);
    end = json_object_iter_end(v);
    for (; rc == GQ_OK && !json_object_iter_equal(&it, &end); json_object_iter_next(&it)) {
        mark = gq__mf_push(c, json_object_iter_peek_name(&it));
        rc = visit(c, json_object_iter_peek_name(&it), json_object_iter_peek_value(&it), where,
                   out);
        gq__mf_pop(c, mark);
    }
    return rc;
}

/* ------------------------------------------------------ the generated table */

static int known_key(struct gq__mf_ctx *c, const char *key, json_object *v, const void *where,
                     struct gq_strs *out);

/* A map's value: its keys are the map's, free; their values keep to the run. */
static int map_value(struct gq__mf_ctx *c, const char *key, json_object *v, const void *where,
                     struct gq_strs *out)
{
    (void)key;
    return each_key(c, v, known_key, where, out);
}

/* A key of an object whose fields are the run of the row `where`. */
static int known_key(struct gq__mf_ctx *c, const char *key, json_object *v, const void *where,
                     struct gq_strs *out)
{
    const struct gq__mf_known *in = where;
    const struct gq__mf_known *f = find(in->first, in->n, key);

    if (!f)
        return gq__mf_strs_add(c, out, c->path);
    if (!(f->flags & GQ_MF_KNOWN_CHECK))
        return GQ_OK;
    return each_key(c, v, f->flags & GQ_MF_KNOWN_MAP ? map_value : known_key, f, out);
}

/* ------------------------------------------------------ gpuq's own kinds */

static const struct gq__mf_field *schema_row(struct gq__mf_ctx *c, const struct gq__mf_schema *s,
                                             const char *name)
{
    size_t i;

    for (i = 0; i < s->nfields; i++)
        if ((s->fields[i].vers & c->version) && !strcmp(s->fields[i].name, name))
            return &s->fields[i];
    return NULL;
}

/* A key of an object that the field table `where` describes. */
static int schema_key(struct gq__mf_ctx *c, const char *key, json_object *v, const void *where,
                      struct gq_strs *out)
{
    const struct gq__mf_field *f = schema_row(c, where, key);

    if (!f)
        return gq__mf_strs_add(c, out, c->path);
    if (f->type == GQ_MF_STRUCT || (f->type == GQ_MF_LIST && !(f->flags & GQ_MF_SCALAR)))
        return each_key(c, v, schema_key, f->sub, out);
    return GQ_OK;
}

/* metadata is ObjectMeta in every kind: the core Namespace's metadata row says what it holds. */
static const struct gq__mf_known *object_meta(void)
{
    const struct gq__mf_known_kind *ns = known_kind("", "Namespace", "v1");

    return ns ? find(ns->first, ns->n, "metadata") : NULL;
}

/* A root key of gpuq's own kind `where`: apiVersion, kind, metadata and its spec. */
static int own_key(struct gq__mf_ctx *c, const char *key, json_object *v, const void *where,
                   struct gq_strs *out)
{
    const struct gq__mf_kind *k = where;
    const struct gq__mf_known *meta = object_meta();

    if (!strcmp(key, "apiVersion") || !strcmp(key, "kind"))
        return GQ_OK;
    if (!strcmp(key, "metadata") && meta)
        return each_key(c, v, known_key, meta, out);
    if (!strcmp(key, k->spec))
        return each_key(c, v, schema_key, k->schema, out);
    return gq__mf_strs_add(c, out, c->path);
}

/* ------------------------------------------------------------ the check */

int gq__mf_unknown_fields(struct gq__mf_ctx *c, json_object *root, const struct gq__mf_kind *k,
                          const char *api_version, struct gq_strs *out)
{
    const char *slash = strchr(api_version, '/');
    const char *kind = c->integ ? c->integ->kind : k->name;
    const struct gq__mf_known_kind *known;
    char group[256];
    size_t glen = slash ? (size_t)(slash - api_version) : 0;

    if (glen >= sizeof(group))
        return GQ_OK;
    memcpy(group, api_version, glen);
    group[glen] = '\0';
    known = known_kind(group, kind, slash ? slash + 1 : api_version);
    if (known) {
        struct gq__mf_known top = {"", known->first, known->n, GQ_MF_KNOWN_CHECK};

        return each_key(c, root, known_key, &top, out);
    }
    if (k->schema && k->spec && strstr(k->group, "gpuq.dev"))
        return each_key(c, root, own_key, k, out);
    return GQ_OK; /* a kind no schema here describes (a user's kind of job, TFJob ...) */
}

/* ------------------------------------------------------ stored objects */

int gq__manifest_not_enforced(const char *spec_json, struct gq_strs *out, gq_error *err)
{
    struct gq_decode_options o = {NULL, NULL, NULL, 0, true, false};
    json_object *root = json_tokener_parse(spec_json);
    struct gq_object obj;
    int rc;

    memset(out, 0, sizeof(*out));
    if (!root)
        return gq__error(err, GQ_EIO, "unreadable stored spec");
    memset(&obj, 0, sizeof(obj));
    rc = gq__manifest_decode(&obj, root, &o, err);
    if (rc == GQ_OK) {
        *out = obj.not_enforced;
        memset(&obj.not_enforced, 0, sizeof(obj.not_enforced));
    }
    gq__object_clear(&obj);
    json_object_put(root);
    return rc;
}
