/*
 * manifest_encode.c: a struct gq_object back to canonical JSON, the v1beta2
 * (config v1beta2, core v1) form with Kueue's defaults written out. Two
 * documents that mean the same thing encode to the same bytes, which is how
 * `gpuq apply` tells "unchanged" from "configured":
 *  - keys come in the fixed order of the field tables (manifest_schema.c), and
 *    only the v1beta2 spelling of each field is written;
 *  - the decoder already mapped aliases and filled defaults, so both spellings
 *    and "default omitted" versus "default written" meet in the same struct;
 *  - maps (labels, annotations, nodeLabels, parameters) are written with
 *    sorted keys, quantities in canonical form, empty optional parts omitted.
 * Jobs and Workloads both encode as a Kueue Workload: metadata plus spec
 * {podSets [{name, count, minCount?, template}], queueName?,
 * priorityClassRef?, priority?, active}; the template is the pristine text
 * kept at decode time.
 *
 * gq__manifest_encode runs once per submitted Job, so it splices each
 * template's text into the output instead of parsing it back.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/printbuf.h>

#include "sort.h"
#include "error.h"
#include "manifest.h"
#include "manifest_fields.h"
#include "util.h"

#define CMEMBER(base, off, type) ((type const *)(const void *)((const char *)(base) + (off)))
#define JSON_FLAGS (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

/* Add v under key; false (and v released) when v is NULL or the add fails. */
static bool put(json_object *obj, const char *key, json_object *v)
{
    if (!v)
        return false;
    if (json_object_object_add(obj, key, v) != 0) {
        json_object_put(v);
        return false;
    }
    return true;
}

static bool put_string(json_object *obj, const char *key, const char *s)
{
    return !s || put(obj, key, json_object_new_string(s));
}

static json_object *encode_quantity(const gq_quantity *q)
{
    char text[GQ_QUANTITY_BUFSIZE];

    gq_quantity_format(text, sizeof(text), q);
    return json_object_new_string(text);
}

static json_object *encode_strs(const struct gq_strs *s)
{
    json_object *a = json_object_new_array_ext((int)s->n);
    size_t i;

    for (i = 0; a && i < s->n; i++) {
        if (json_object_array_add(a, json_object_new_string(s->v[i])) != 0) {
            json_object_put(a);
            return NULL;
        }
    }
    return a;
}

static int kv_cmp(const void *a, const void *b)
{
    return strcmp((*(const struct gq_kv *const *)a)->key, (*(const struct gq_kv *const *)b)->key);
}

json_object *gq__mf_encode_kvs(const struct gq_kvs *kvs)
{
    json_object *m = json_object_new_object();
    const struct gq_kv **sorted = malloc((kvs->n ? kvs->n : 1) * sizeof(*sorted));
    size_t i;

    if (!m || !sorted) {
        json_object_put(m);
        free(sorted);
        return NULL;
    }
    for (i = 0; i < kvs->n; i++)
        sorted[i] = &kvs->v[i];
    gq__qsort(sorted, kvs->n, sizeof(*sorted), kv_cmp);
    for (i = 0; i < kvs->n; i++) {
        if (!put_string(m, sorted[i]->key, sorted[i]->value)) {
            json_object_put(m);
            m = NULL;
            break;
        }
    }
    free(sorted);
    return m;
}

static json_object *encode_list(const struct gq__mf_field *f, const void *base)
{
    const void *elems = *CMEMBER(base, f->off, void *);
    size_t i, n = *CMEMBER(base, f->aux, size_t);
    json_object *a = json_object_new_array_ext((int)n), *e;

    for (i = 0; a && i < n; i++) {
        e = json_object_new_object();
        if (!e ||
            gq__mf_encode_fields(e, f->sub, (const char *)elems + i * f->sub->size) != GQ_OK ||
            json_object_array_add(a, e) != 0) {
            json_object_put(e);
            json_object_put(a);
            return NULL;
        }
    }
    return a;
}

/* A nested struct: written when it has something to say, or when its presence means something. */
static int encode_struct(json_object *out, const struct gq__mf_field *f, const void *base)
{
    json_object *o;

    if ((f->flags & GQ_MF_PRESENCE) && !*CMEMBER(base, f->aux, bool))
        return GQ_OK;
    if (!(o = json_object_new_object()) || gq__mf_encode_fields(o, f->sub, base) != GQ_OK) {
        json_object_put(o);
        return GQ_ENOMEM;
    }
    if (!(f->flags & GQ_MF_PRESENCE) && json_object_object_length(o) == 0) {
        json_object_put(o);
        return GQ_OK;
    }
    return put(out, f->name, o) ? GQ_OK : GQ_ENOMEM;
}

/* Fields kept verbatim ({"name": value} text) are merged into out. */
static int encode_raw(json_object *out, const char *text)
{
    struct json_object_iterator it, end;
    json_object *raw;

    if (!text)
        return GQ_OK;
    if (!(raw = json_tokener_parse(text)))
        return GQ_ENOMEM;
    it = json_object_iter_begin(raw);
    end = json_object_iter_end(raw);
    for (; !json_object_iter_equal(&it, &end); json_object_iter_next(&it))
        json_object_object_add(out, json_object_iter_peek_name(&it),
                               json_object_get(json_object_iter_peek_value(&it)));
    json_object_put(raw);
    return GQ_OK;
}

static json_object *encode_optional_quantity(const struct gq__mf_field *f, const void *base)
{
    if ((f->flags & GQ_MF_HAS) && !*CMEMBER(base, f->aux, bool))
        return NULL;
    return encode_quantity(CMEMBER(base, f->off, gq_quantity));
}

static int encode_row(json_object *out, const struct gq__mf_field *f, const void *base)
{
    bool has = !(f->flags & GQ_MF_HAS) || *CMEMBER(base, f->aux, bool);
    char dur[GQ_DURATION_BUFSIZE];
    const char *s;

    switch (f->type) {
    case GQ_MF_STRING:
    case GQ_MF_ENUM:
        return put_string(out, f->name, *CMEMBER(base, f->off, char *)) ? GQ_OK : GQ_ENOMEM;
    case GQ_MF_BOOL:
        return put(out, f->name, json_object_new_boolean(*CMEMBER(base, f->off, bool))) ? GQ_OK
                                                                                        : GQ_ENOMEM;
    case GQ_MF_INT32:
        return !has || put(out, f->name, json_object_new_int(*CMEMBER(base, f->off, int32_t)))
                   ? GQ_OK
                   : GQ_ENOMEM;
    case GQ_MF_INT64:
        return !has || put(out, f->name, json_object_new_int64(*CMEMBER(base, f->off, int64_t)))
                   ? GQ_OK
                   : GQ_ENOMEM;
    case GQ_MF_QUANTITY:
        return !has || put(out, f->name, encode_optional_quantity(f, base)) ? GQ_OK : GQ_ENOMEM;
    case GQ_MF_DURATION:
        gq__mf_duration_format(dur, sizeof(dur), *CMEMBER(base, f->off, int64_t));
        return put_string(out, f->name, dur) ? GQ_OK : GQ_ENOMEM;
    case GQ_MF_DURATION_MS:
        gq__format_duration_ms(dur, sizeof(dur), *CMEMBER(base, f->off, int64_t), false);
        return !has || put_string(out, f->name, dur) ? GQ_OK : GQ_ENOMEM;
    case GQ_MF_STRS:
        return !CMEMBER(base, f->off, struct gq_strs)->n ||
                       put(out, f->name, encode_strs(CMEMBER(base, f->off, struct gq_strs)))
                   ? GQ_OK
                   : GQ_ENOMEM;
    case GQ_MF_KVS:
        return !CMEMBER(base, f->off, struct gq_kvs)->n ||
                       put(out, f->name, gq__mf_encode_kvs(CMEMBER(base, f->off, struct gq_kvs)))
                   ? GQ_OK
                   : GQ_ENOMEM;
    case GQ_MF_STRUCT:
        return encode_struct(out, f, base);
    case GQ_MF_LIST:
        return !*CMEMBER(base, f->aux, size_t) || put(out, f->name, encode_list(f, base))
                   ? GQ_OK
                   : GQ_ENOMEM;
    case GQ_MF_SELECTOR:
        s = *CMEMBER(base, f->off, char *);
        return !s || put(out, f->name, json_tokener_parse(s)) ? GQ_OK : GQ_ENOMEM;
    case GQ_MF_RAW:
        return encode_raw(out, *CMEMBER(base, f->off, char *));
    }
    return GQ_OK;
}

int gq__mf_encode_fields(json_object *out, const struct gq__mf_schema *s, const void *base)
{
    size_t i;
    int rc;

    for (i = 0; i < s->nfields; i++) {
        if (!(s->fields[i].vers & GQ_MF_V1BETA2))
            continue;
        if ((rc = encode_row(out, &s->fields[i], base)) != GQ_OK)
            return rc;
    }
    return GQ_OK;
}

/* ------------------------------------------------------------- workloads */

/* Writes a template's kept text as is: a node whose serializer is the text. */
static int raw_text_serializer(json_object *jso, struct printbuf *pb, int level, int flags)
{
    const char *text = json_object_get_userdata(jso);

    (void)level;
    (void)flags;
    return printbuf_memappend(pb, text, (int)strlen(text));
}

/*
 * The pristine template, written out as the text decode kept (not parsed
 * back): the node serializes as that text.
 */
static json_object *encode_template(const char *text)
{
    json_object *t;

    if (!text)
        return json_object_new_object();
    if ((t = json_object_new_object()))
        json_object_set_serializer(t, raw_text_serializer, (void *)(uintptr_t)text, NULL);
    return t;
}

static json_object *encode_podset(const struct gq_podset *ps)
{
    json_object *o = json_object_new_object();

    if (!o)
        return NULL;
    if (!put_string(o, "name", ps->name) || !put(o, "count", json_object_new_int(ps->count)) ||
        (ps->has_min_count && !put(o, "minCount", json_object_new_int(ps->min_count))) ||
        !put(o, "template", encode_template(ps->template_json))) {
        json_object_put(o);
        return NULL;
    }
    return o;
}

static json_object *encode_priority_ref(const char *name)
{
    json_object *o = json_object_new_object();

    if (o && put_string(o, "group", "kueue.x-k8s.io") &&
        put_string(o, "kind", "WorkloadPriorityClass") && put_string(o, "name", name))
        return o;
    json_object_put(o);
    return NULL;
}

static json_object *encode_workload_spec(const struct gq_workload *wl)
{
    json_object *spec = json_object_new_object(), *sets = json_object_new_array();
    size_t i;
    bool ok = spec && sets;

    for (i = 0; ok && i < wl->npodsets; i++) {
        json_object *ps = encode_podset(&wl->podsets[i]);

        ok = ps && json_object_array_add(sets, ps) == 0;
        if (!ok)
            json_object_put(ps);
    }
    ok = ok && put(spec, "podSets", sets);
    if (!ok)
        json_object_put(sets);
    ok = ok && put_string(spec, "queueName", wl->queue) &&
         (!wl->priority_class ||
          put(spec, "priorityClassRef", encode_priority_ref(wl->priority_class))) &&
         (!wl->has_priority || put(spec, "priority", json_object_new_int(wl->priority))) &&
         put(spec, "active", json_object_new_boolean(wl->active));
    if (!ok) {
        json_object_put(spec);
        return NULL;
    }
    return spec;
}

/* ------------------------------------------------------------ documents */

static json_object *encode_meta(const struct gq_object *obj)
{
    const struct gq_meta *m = &obj->meta;
    json_object *meta = json_object_new_object();

    if (!meta)
        return NULL;
    if (!put_string(meta, m->name ? "name" : "generateName",
                    m->name ? m->name : m->generate_name) ||
        (gq__kind_is_namespaced(obj->kind) && !put_string(meta, "namespace", m->namespace)) ||
        (m->labels.n && !put(meta, "labels", gq__mf_encode_kvs(&m->labels))) ||
        (m->annotations.n && !put(meta, "annotations", gq__mf_encode_kvs(&m->annotations)))) {
        json_object_put(meta);
        return NULL;
    }
    return meta;
}

/* The body after metadata: spec (or root fields) from the kind's table, or a workload spec. */
static bool encode_body(json_object *root, const struct gq_object *obj, const struct gq__mf_kind *k)
{
    json_object *spec;

    if (obj->kind == GQ_KIND_JOB || obj->kind == GQ_KIND_WORKLOAD)
        return put(root, "spec", encode_workload_spec(&obj->u.wl));
    if (!k->schema)
        return true;
    if (!k->spec)
        return gq__mf_encode_fields(root, k->schema, &obj->u) == GQ_OK;
    if (!(spec = json_object_new_object()))
        return false;
    if (gq__mf_encode_fields(spec, k->schema, &obj->u) != GQ_OK) {
        json_object_put(spec);
        return false;
    }
    return put(root, k->spec, spec);
}

static json_object *encode_tree(const struct gq_object *obj)
{
    const struct gq__mf_kind *k = gq__mf_kind_of(obj->kind);
    bool workload = obj->kind == GQ_KIND_JOB || obj->kind == GQ_KIND_WORKLOAD;
    json_object *root;

    if (!k || !(root = json_object_new_object()))
        return NULL;
    if (!put_string(root, "apiVersion", k->encode_api_version) ||
        !put_string(root, "kind", workload ? "Workload" : k->name) ||
        !put(root, "metadata", encode_meta(obj)) || !encode_body(root, obj, k)) {
        json_object_put(root);
        return NULL;
    }
    return root;
}

int gq__manifest_encode(char **out, const struct gq_object *obj, gq_error *err)
{
    json_object *root;
    const char *text;
    size_t len;

    GQ_ASSERT_ARG(out && obj);
    *out = NULL;
    if (!(root = encode_tree(obj)))
        return gq__error(err, GQ_ENOMEM, "out of memory");
    text = json_object_to_json_string_length(root, JSON_FLAGS, &len);
    if (text && (*out = malloc(len + 1)))
        memcpy(*out, text, len + 1);
    json_object_put(root);
    return *out ? GQ_OK : gq__error(err, GQ_ENOMEM, "out of memory");
}

int gq__manifest_admission(char **out, const struct gq_workload *wl, gq_error *err)
{
    json_object *adm = json_object_new_object(), *list = json_object_new_array(), *ps;
    const char *text;
    size_t i;
    int rc = GQ_OK;

    *out = NULL;
    json_object_object_add(adm, "clusterQueue", json_object_new_string(wl->admitted_cq));
    for (i = 0; i < wl->nassignments; i++) {
        const struct gq_podset_assignment *a = &wl->assignments[i];

        ps = json_object_new_object();
        json_object_object_add(ps, "name", json_object_new_string(a->name));
        json_object_object_add(ps, "flavors", gq__mf_encode_kvs(&a->flavors));
        json_object_object_add(ps, "resourceUsage", gq__mf_encode_kvs(&a->usage));
        json_object_object_add(ps, "count", json_object_new_int(a->count));
        json_object_array_add(list, ps);
    }
    json_object_object_add(adm, "podSetAssignments", list);
    text = json_object_to_json_string_ext(adm, JSON_C_TO_STRING_PLAIN |
                                                   JSON_C_TO_STRING_NOSLASHESCAPE);
    if (!text || !(*out = strdup(text)))
        rc = gq__error(err, GQ_ENOMEM, "out of memory encoding status.admission");
    json_object_put(adm);
    return rc;
}
