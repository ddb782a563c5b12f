/*
 * manifest_decode.c: one json-c document to one struct gq_object. This file
 * holds the entry point (kind dispatch on apiVersion and kind), metadata, and
 * the typed readers every kind's decoder uses; the field tables are walked by
 * manifest_table.c, and Jobs and Workloads are decoded by manifest_workload.c.
 *
 * Every reader checks the JSON type strictly (a quoted "8" is not an integer,
 * an unquoted 8 is not a string) and reports errors as
 *   PATH: invalid value "TEXT": WHY        or        PATH: required
 * with PATH in dotted form with [i] indexes and TEXT the scalar as written in
 * the YAML (the reader keeps floats' and big integers' original text).
 *
 * Decoding runs once per document; `gpuq submit -f` of 100,000 Jobs runs it
 * 100,000 times, so the metadata path avoids needless allocations: strings
 * are copied once into the object and nothing is serialized here.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "gpuqueue/validate.h"
#include "manifest.h"
#include "manifest_fields.h"
#include "util.h"

/* apimachinery's TotalAnnotationSizeLimitB. */
#define ANNOTATIONS_MAX_BYTES (256u * 1024)
#define QUOTE_MAX 64 /* bytes of a value shown in a message */

/* ------------------------------------------------------------ field path */

size_t gq__mf_push(struct gq__mf_ctx *c, const char *name)
{
    static const char hex[] = "0123456789abcdef";
    size_t mark = c->len, end = sizeof(c->path) - 1;

    if (c->len && c->len < end)
        c->path[c->len++] = '.';
    /* A map key may hold a newline: escaped, so that messages stay one line (fuzz_manifest). */
    for (; *name && c->len < end; name++) {
        unsigned char ch = (unsigned char)*name;

        if (ch >= 0x20 && ch != 0x7f) {
            c->path[c->len++] = (char)ch;
        } else if (c->len + 4 <= end) {
            memcpy(c->path + c->len, "\\x", 2);
            c->path[c->len + 2] = hex[ch >> 4];
            c->path[c->len + 3] = hex[ch & 0xf];
            c->len += 4;
        } else {
            break;
        }
    }
    c->path[c->len] = '\0';
    return mark;
}

size_t gq__mf_push_index(struct gq__mf_ctx *c, size_t i)
{
    size_t mark = c->len;
    int n = snprintf(c->path + c->len, sizeof(c->path) - c->len, "[%zu]", i);

    if (n > 0)
        c->len += (size_t)n < sizeof(c->path) - c->len ? (size_t)n : sizeof(c->path) - 1 - c->len;
    return mark;
}

void gq__mf_pop(struct gq__mf_ctx *c, size_t mark)
{
    c->len = mark;
    c->path[mark] = '\0';
}

/* ---------------------------------------------------------------- errors */

/* s as a double-quoted, escaped string of at most QUOTE_MAX input bytes. */
static const char *quote(char *buf, size_t size, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    size_t i, n = 0;

    buf[n++] = '"';
    for (i = 0; s[i] && n + 8 < size; i++) {
        unsigned char ch = (unsigned char)s[i];

        if (i == QUOTE_MAX) {
            memcpy(buf + n, "...", 3);
            n += 3;
            break;
        }
        if (ch == '"' || ch == '\\') {
            buf[n++] = '\\';
            buf[n++] = (char)ch;
        } else if (ch < 0x20 || ch == 0x7f) {
            buf[n++] = '\\';
            buf[n++] = 'x';
            buf[n++] = hex[ch >> 4];
            buf[n++] = hex[ch & 15];
        } else {
            buf[n++] = (char)ch;
        }
    }
    buf[n++] = '"';
    buf[n] = '\0';
    return buf;
}

static int vfail(struct gq__mf_ctx *c, const char *value, const char *fmt, va_list ap)
{
    char why[320], q[QUOTE_MAX * 4 + 16];

    if (!c->err)
        return GQ_EINVALID;
    vsnprintf(why, sizeof(why), fmt, ap);
    if (value)
        return gq__error(c->err, GQ_EINVALID, "%s%sinvalid value %s: %s", c->path,
                         c->len ? ": " : "", quote(q, sizeof(q), value), why);
    return gq__error(c->err, GQ_EINVALID, "%s%s%s", c->path, c->len ? ": " : "", why);
}

int gq__mf_fail(struct gq__mf_ctx *c, const char *fmt, ...)
{
    va_list ap;
    int rc;

    va_start(ap, fmt);
    rc = vfail(c, NULL, fmt, ap);
    va_end(ap);
    return rc;
}

int gq__mf_invalid(struct gq__mf_ctx *c, const char *value, const char *fmt, ...)
{
    va_list ap;
    int rc;

    va_start(ap, fmt);
    rc = vfail(c, value, fmt, ap);
    va_end(ap);
    return rc;
}

int gq__mf_required(struct gq__mf_ctx *c)
{
    return gq__mf_fail(c, "required");
}

int gq__mf_nomem(struct gq__mf_ctx *c)
{
    return gq__error(c->err, GQ_ENOMEM, "out of memory");
}

int gq__mf_wrap(struct gq__mf_ctx *c, int rc)
{
    if (rc == GQ_ENOMEM)
        return gq__mf_nomem(c);
    if (!c->err)
        return GQ_EINVALID;
    c->err->code = GQ_EINVALID;
    if (c->len)
        gq__error_prefix(c->err, "%s", c->path);
    return GQ_EINVALID;
}

const char *gq__mf_text(json_object *v, char buf[GQ_MF_TEXT_BUFSIZE])
{
    int64_t i;

    switch (json_object_get_type(v)) {
    case json_type_null:
        return "null";
    case json_type_string:
        return json_object_get_string(v);
    case json_type_object:
        return "{...}";
    case json_type_array:
        return "[...]";
    case json_type_int:
        i = json_object_get_int64(v);
        if (i != INT64_MAX && i != INT64_MIN) {
            snprintf(buf, GQ_MF_TEXT_BUFSIZE, "%" PRId64, i);
            return buf;
        }
        return json_object_get_string(v);
    case json_type_boolean:
        /* A reader may keep a boolean's original text ("on", "yes") as its userdata. */
        if (json_object_get_userdata(v))
            return json_object_get_userdata(v);
        break;
    case json_type_double:
        break;
    }
    /* A float's original text ("1.0") is its serialization (json_object_new_double_s). */
    return json_object_get_string(v);
}

/* ---------------------------------------------------------- typed reads */

json_object *gq__mf_get(json_object *obj, const char *key)
{
    json_object *v = NULL;

    if (!obj || !json_object_object_get_ex(obj, key, &v))
        return NULL;
    return v;
}

/*
 * The member at a dotted path (len bytes of it) below v, or NULL when any
 * step is absent; with create, the absent steps are made (objects).
 */
json_object *gq__mf_path(json_object *v, const char *path, size_t len, bool create)
{
    char seg[256];

    while (v && len) {
        const char *dot = memchr(path, '.', len);
        size_t n = dot ? (size_t)(dot - path) : len;
        json_object *next;

        if (n >= sizeof(seg) || !json_object_is_type(v, json_type_object))
            return NULL;
        memcpy(seg, path, n);
        seg[n] = '\0';
        if (!json_object_object_get_ex(v, seg, &next) || !next) {
            if (!create || !(next = json_object_new_object()))
                return NULL;
            json_object_object_add(v, seg, next);
        }
        v = next;
        path += n + (dot != NULL);
        len -= n + (dot != NULL);
    }
    return v;
}

int gq__mf_object(struct gq__mf_ctx *c, json_object *v)
{
    char buf[GQ_MF_TEXT_BUFSIZE];

    if (json_object_is_type(v, json_type_object))
        return GQ_OK;
    return gq__mf_invalid(c, gq__mf_text(v, buf), "must be an object");
}

int gq__mf_array(struct gq__mf_ctx *c, json_object *v)
{
    char buf[GQ_MF_TEXT_BUFSIZE];

    if (json_object_is_type(v, json_type_array))
        return GQ_OK;
    return gq__mf_invalid(c, gq__mf_text(v, buf), "must be a list");
}

/*
 * A string with a NUL inside ("x\u0000y" in JSON, "x\0y" in YAML) would be
 * cut at the NUL by every C string function after this one, and checked and
 * stored as the part before it: refused instead, as nothing legitimate has one.
 */
static int no_nul(struct gq__mf_ctx *c, json_object *v)
{
    const char *s = json_object_get_string(v);
    size_t len = (size_t)json_object_get_string_len(v);
    char qv[GQ_QUOTE_BUFSIZE];

    if (!memchr(s, '\0', len))
        return GQ_OK;
    return gq__mf_fail(c, "invalid value %s: must not contain a NUL character",
                       gq__quote(qv, s, len));
}

int gq__mf_string(struct gq__mf_ctx *c, json_object *v, const char **out)
{
    char buf[GQ_MF_TEXT_BUFSIZE];
    enum json_type t = json_object_get_type(v);
    int rc;

    if (t == json_type_string) {
        if ((rc = no_nul(c, v)) != GQ_OK)
            return rc;
        *out = json_object_get_string(v);
        return GQ_OK;
    }
    if (t == json_type_object || t == json_type_array)
        return gq__mf_invalid(c, gq__mf_text(v, buf), "must be a string");
    /* An unquoted YAML scalar that was typed as a number or boolean. */
    return gq__mf_invalid(c, gq__mf_text(v, buf), "must be a string, quote it");
}

int gq__mf_strdup(struct gq__mf_ctx *c, json_object *v, gq__mf_check_fn check, char **out)
{
    const char *s = NULL;
    int rc;

    if ((rc = gq__mf_string(c, v, &s)) != GQ_OK)
        return rc;
    if (check && (rc = check(s, c->err)) != GQ_OK)
        return gq__mf_wrap(c, rc);
    free(*out);
    if (!(*out = strdup(s)))
        return gq__mf_nomem(c);
    return GQ_OK;
}

int gq__mf_int(struct gq__mf_ctx *c, json_object *v, int64_t min, int64_t max, int64_t *out)
{
    char buf[GQ_MF_TEXT_BUFSIZE];
    bool narrow = max <= INT32_MAX;
    int64_t i;

    if (!json_object_is_type(v, json_type_int))
        goto wrong;
    i = json_object_get_int64(v);
    /* json-c clamps an unsigned 64-bit value above INT64_MAX to INT64_MAX. */
    if (i == INT64_MAX && json_object_get_uint64(v) != (uint64_t)INT64_MAX)
        goto wrong;
    if (narrow && (i < INT32_MIN || i > INT32_MAX))
        goto wrong;
    if (i < min)
        return gq__mf_invalid(c, gq__mf_text(v, buf), "must be greater than or equal to %" PRId64,
                              min);
    if (i > max)
        return gq__mf_invalid(c, gq__mf_text(v, buf), "must be less than or equal to %" PRId64,
                              max);
    *out = i;
    return GQ_OK;
wrong:
    return gq__mf_invalid(c, gq__mf_text(v, buf), "must be a %s-bit integer", narrow ? "32" : "64");
}

int gq__mf_bool(struct gq__mf_ctx *c, json_object *v, bool *out)
{
    char buf[GQ_MF_TEXT_BUFSIZE];

    if (!json_object_is_type(v, json_type_boolean))
        return gq__mf_invalid(c, gq__mf_text(v, buf), "must be a boolean (true or false)");
    *out = json_object_get_boolean(v);
    return GQ_OK;
}

/*
 * An unquoted integer is the quantity the parser would make of its digits:
 * mantissa without trailing zeros, DecimalSI. Skips printing and parsing on
 * the hot path (`nvidia.com/gpu: 1`). False for the values json-c clamps.
 */
static bool int_quantity(json_object *v, gq_quantity *out)
{
    int64_t i = json_object_get_int64(v);
    int32_t scale = 0;

    if (i == INT64_MAX || i == INT64_MIN)
        return false;
    while (i != 0 && i % 10 == 0) {
        i /= 10;
        scale++;
    }
    out->mantissa = i;
    out->scale = scale;
    out->format = GQ_QTY_DECIMAL_SI;
    return true;
}

int gq__mf_quantity(struct gq__mf_ctx *c, json_object *v, bool nonneg, gq_quantity *out)
{
    char buf[GQ_MF_TEXT_BUFSIZE];
    const char *s;
    int rc;

    switch (json_object_get_type(v)) {
    case json_type_int:
        if (int_quantity(v, out))
            goto parsed;
        s = gq__mf_text(v, buf);
        break;
    case json_type_string:
        if ((rc = no_nul(c, v)) != GQ_OK)
            return rc;
        s = gq__mf_text(v, buf);
        break;
    case json_type_double:
        s = gq__mf_text(v, buf);
        break;
    default:
        return gq__mf_invalid(c, gq__mf_text(v, buf),
                              "must be a quantity such as \"2\", "
                              "\"500m\" or \"16Gi\"");
    }
    if ((rc = gq_quantity_parse(out, s, strlen(s), c->err)) != GQ_OK)
        return gq__mf_wrap(c, rc);
parsed:
    if (nonneg && gq_quantity_sign(out) < 0)
        return gq__mf_invalid(c, gq__mf_text(v, buf), "must be greater than or equal to 0");
    return GQ_OK;
}

/*
 * A map of strings (labels, annotations, nodeLabels, parameters): keys
 * checked by f->check, values by f->check_value, at most f->max entries.
 */
int gq__mf_kvs(struct gq__mf_ctx *c,
               json_object *v,
               const struct gq__mf_field *f,
               struct gq_kvs *out)
{
    struct json_object_iterator it, end;
    size_t n, mark;
    int rc;

    if ((rc = gq__mf_object(c, v)) != GQ_OK)
        return rc;
    n = (size_t)json_object_object_length(v);
    if (f->max && n > f->max)
        return gq__mf_fail(c, "too many: %zu: must have at most %zu items", n, f->max);
    if (!n)
        return GQ_OK;
    if (!(out->v = calloc(n, sizeof(*out->v))))
        return gq__mf_nomem(c);
    it = json_object_iter_begin(v);
    end = json_object_iter_end(v);
    for (; !json_object_iter_equal(&it, &end); json_object_iter_next(&it)) {
        const char *key = json_object_iter_peek_name(&it);
        struct gq_kv *kv = &out->v[out->n];

        mark = gq__mf_push(c, key);
        if (f->check && (rc = f->check(key, c->err)) != GQ_OK)
            return gq__mf_wrap(c, rc);
        if (!(kv->key = strdup(key)))
            return gq__mf_nomem(c);
        out->n++;
        rc = gq__mf_strdup(c, json_object_iter_peek_value(&it), f->check_value, &kv->value);
        if (rc != GQ_OK)
            return rc;
        gq__mf_pop(c, mark);
    }
    return GQ_OK;
}

/* -------------------------------------------------------------- metadata */

/* generateName is a name prefix: Kubernetes masks a trailing '-' before checking it. */
static int check_generate_name(struct gq__mf_ctx *c, const char *s, bool label)
{
    char buf[254];
    size_t n = strlen(s);
    const char *why;
    int rc;

    if (n >= sizeof(buf))
        return gq__mf_invalid(c, s, "must be no more than 253 characters");
    memcpy(buf, s, n + 1);
    if (n && buf[n - 1] == '-')
        buf[n - 1] = 'a';
    rc =
        label ? gq_validate_dns1123_label(buf, c->err) : gq_validate_dns1123_subdomain(buf, c->err);
    if (rc == GQ_OK || !c->err)
        return rc == GQ_OK ? GQ_OK : GQ_EINVALID;
    /* Report the prefix as written, with the validator's reason. */
    why = strstr(c->err->msg, "\": ");
    return gq__mf_invalid(c, s, "%s", why ? why + 3 : "must be a valid name prefix");
}

/*
 * metadata.KEY into *out, kept even when check then rejects it, so that the
 * caller can still name the document ("Job default/Bad_Name") in the message.
 */
static int keep_then_check(
    struct gq__mf_ctx *c, json_object *meta, const char *key, gq__mf_check_fn check, char **out)
{
    json_object *v = gq__mf_get(meta, key);
    size_t mark;
    const char *s = NULL;
    int rc;

    if (!v)
        return GQ_OK;
    mark = gq__mf_push(c, key);
    if ((rc = gq__mf_string(c, v, &s)) != GQ_OK)
        return rc;
    if (!(*out = strdup(s)))
        return gq__mf_nomem(c);
    if (check && (rc = check(s, c->err)) != GQ_OK)
        return gq__mf_wrap(c, rc);
    gq__mf_pop(c, mark);
    return GQ_OK;
}

static int decode_names(struct gq__mf_ctx *c,
                        json_object *meta,
                        const struct gq__mf_kind *k,
                        struct gq_meta *m)
{
    bool label = k->flags & GQ_MF_NAME_LABEL;
    size_t mark;
    int rc;

    rc = keep_then_check(c, meta, "name",
                         label ? gq_validate_dns1123_label : gq_validate_dns1123_subdomain,
                         &m->name);
    if (rc != GQ_OK ||
        (rc = keep_then_check(c, meta, "generateName", NULL, &m->generate_name)) != GQ_OK)
        return rc;
    if (m->generate_name) {
        mark = gq__mf_push(c, "generateName");
        if ((rc = check_generate_name(c, m->generate_name, label)) != GQ_OK)
            return rc;
        gq__mf_pop(c, mark);
    }
    if (!m->name && !m->generate_name && !(k->flags & GQ_MF_NAME_OPTIONAL)) {
        gq__mf_push(c, "name");
        return gq__mf_required(c);
    }
    return GQ_OK;
}

/* Namespaced kinds only: metadata.namespace, or the default one. */
static int decode_namespace(struct gq__mf_ctx *c,
                            json_object *meta,
                            const struct gq__mf_kind *k,
                            const struct gq_decode_options *opts,
                            struct gq_meta *m)
{
    const char *def = opts && opts->default_namespace ? opts->default_namespace : "default";
    size_t mark;
    int rc;

    /* Cluster-scoped kinds ignore metadata.namespace, as the API server does. */
    if (!(k->flags & GQ_MF_NAMESPACED))
        return GQ_OK;
    if (gq__mf_get(meta, "namespace")) {
        rc = keep_then_check(c, meta, "namespace", gq_validate_dns1123_label, &m->namespace);
        /* An explicit -n that disagrees with the document is refused, as kubectl does. */
        if (rc == GQ_OK && opts && opts->default_namespace &&
            strcmp(m->namespace, opts->default_namespace) != 0)
            return gq__error(c->err, GQ_EINVALID,
                             "the namespace from the provided object \"%s\" does not match the "
                             "namespace \"%s\". You must pass '--namespace=%s' to perform this "
                             "operation.",
                             m->namespace, opts->default_namespace, m->namespace);
        return rc;
    }
    if (!(m->namespace = strdup(def)))
        return gq__mf_nomem(c);
    mark = gq__mf_push(c, "namespace");
    if ((rc = gq_validate_dns1123_label(def, c->err)) != GQ_OK)
        return gq__mf_wrap(c, rc);
    gq__mf_pop(c, mark);
    return GQ_OK;
}

static const struct gq__mf_field label_field = {
    .name = "labels", .check = gq_validate_label_key, .check_value = gq_validate_label_value};
static const struct gq__mf_field annotation_field = {.name = "annotations",
                                                     .check = gq_validate_label_key};

/*
 * apimachinery's ValidateAnnotationsSize: keys and values of all of an
 * object's annotations together at most 256 KiB, as the API server refuses
 * more (and every annotation is copied into each event and listing after).
 */
static int check_annotations_size(struct gq__mf_ctx *c, const struct gq_kvs *a)
{
    size_t i, total = 0;

    for (i = 0; i < a->n; i++)
        total += strlen(a->v[i].key) + strlen(a->v[i].value);
    if (total > ANNOTATIONS_MAX_BYTES)
        return gq__mf_fail(c, "Too long: must have at most %u bytes",
                           ANNOTATIONS_MAX_BYTES);
    return GQ_OK;
}

static int decode_meta_rest(struct gq__mf_ctx *c, json_object *meta, struct gq_meta *m)
{
    json_object *v;
    size_t mark;
    int rc = GQ_OK;

    if ((v = gq__mf_get(meta, "uid"))) {
        mark = gq__mf_push(c, "uid");
        if ((rc = gq__mf_strdup(c, v, NULL, &m->uid)) != GQ_OK)
            return rc;
        gq__mf_pop(c, mark);
    }
    if ((v = gq__mf_get(meta, "creationTimestamp"))) {
        const char *s;

        mark = gq__mf_push(c, "creationTimestamp");
        if ((rc = gq__mf_string(c, v, &s)) != GQ_OK)
            return rc;
        if (!gq__parse_rfc3339(s, &m->created_ms))
            return gq__mf_invalid(c, s,
                                  "must be an RFC 3339 time such as "
                                  "\"2024-01-02T03:04:05Z\"");
        gq__mf_pop(c, mark);
    }
    if ((v = gq__mf_get(meta, "labels"))) {
        mark = gq__mf_push(c, "labels");
        if ((rc = gq__mf_kvs(c, v, &label_field, &m->labels)) != GQ_OK)
            return rc;
        gq__mf_pop(c, mark);
    }
    if ((v = gq__mf_get(meta, "annotations"))) {
        mark = gq__mf_push(c, "annotations");
        if ((rc = gq__mf_kvs(c, v, &annotation_field, &m->annotations)) != GQ_OK ||
            (rc = check_annotations_size(c, &m->annotations)) != GQ_OK)
            return rc;
        gq__mf_pop(c, mark);
    }
    return GQ_OK;
}

static int decode_meta(struct gq__mf_ctx *c,
                       json_object *root,
                       const struct gq__mf_kind *k,
                       const struct gq_decode_options *opts,
                       struct gq_meta *m)
{
    json_object *meta = gq__mf_get(root, "metadata");
    size_t mark = gq__mf_push(c, "metadata");
    int rc;

    if (meta && (rc = gq__mf_object(c, meta)) != GQ_OK)
        return rc;
    /* The namespace first, so that a bad name is still reported with it. */
    if ((rc = decode_namespace(c, meta, k, opts, m)) != GQ_OK ||
        (rc = decode_names(c, meta, k, m)) != GQ_OK)
        return rc;
    if ((rc = decode_meta_rest(c, meta, m)) != GQ_OK)
        return rc;
    gq__mf_pop(c, mark);
    return GQ_OK;
}

/* -------------------------------------------------------------- dispatch */

static const struct {
    const char *name;
    unsigned bit;
} versions[] = {
    {"v1", GQ_MF_V1},
    {"v1alpha1", GQ_MF_V1ALPHA1},
    {"v1beta1", GQ_MF_V1BETA1},
    {"v1beta2", GQ_MF_V1BETA2},
};

static unsigned version_bit(const char *v)
{
    size_t i;

    for (i = 0; i < sizeof(versions) / sizeof(versions[0]); i++)
        if (!strcmp(versions[i].name, v))
            return versions[i].bit;
    return 0;
}

static int
required_string(struct gq__mf_ctx *c, json_object *root, const char *key, const char **out)
{
    json_object *v = gq__mf_get(root, key);
    size_t mark = gq__mf_push(c, key);
    int rc;

    if (!v)
        return gq__mf_required(c);
    if ((rc = gq__mf_string(c, v, out)) != GQ_OK)
        return rc;
    if (!**out)
        return gq__mf_required(c);
    gq__mf_pop(c, mark);
    return GQ_OK;
}

/*
 * A kind of the integration table: decoded as a job by its row. A version
 * the row does not name is an error, not a skip: the document is clearly a
 * job meant for the queue, in a form gpuq cannot read.
 */
static int identify_integration(struct gq__mf_ctx *c, const struct gq_integration *row,
                                const char *api_version, const char *version,
                                const struct gq__mf_kind **out)
{
    static const struct gq__mf_kind integrated = {
        GQ_KIND_JOB, "", "", GQ_MF_ANY, GQ_MF_NAMESPACED, "spec", NULL, NULL, NULL, NULL,
        gq__mf_decode_integration};
    char reads[96] = "";
    size_t i;

    if (row->refused)
        return gq__error(c->err, GQ_EUNSUPPORTED, "kind %s (%s) is not queued by gpuq: %s",
                         row->kind, api_version, row->refused);
    if (!gq__integration_accepts(row, version)) {
        for (i = 0; i < GQ_INTEG_MAX_VERSIONS && row->versions[i]; i++)
            snprintf(reads + strlen(reads), sizeof(reads) - strlen(reads), "%s%s/%s",
                     i ? ", " : "", row->group, row->versions[i]);
        return gq__error(c->err, GQ_EINVALID,
                         "apiVersion: invalid value \"%s\": gpuq reads %s as %s", api_version,
                         row->kind, reads);
    }
    c->version = GQ_MF_V1;
    *out = &integrated;
    return GQ_OK;
}

/* Find the kind gpuq models for apiVersion and kind, and the document's version. */
static int identify(struct gq__mf_ctx *c,
                    json_object *root,
                    const struct gq_integrations *integrations,
                    const struct gq__mf_kind **out,
                    const char **api_version)
{
    const char *kind, *slash, *version;
    const struct gq__mf_kind *k = NULL;
    char group[256];
    size_t glen;
    int rc;

    if ((rc = required_string(c, root, "apiVersion", api_version)) != GQ_OK ||
        (rc = required_string(c, root, "kind", &kind)) != GQ_OK)
        return rc;
    slash = strchr(*api_version, '/');
    glen = slash ? (size_t)(slash - *api_version) : 0;
    version = slash ? slash + 1 : *api_version;
    if (glen >= sizeof(group))
        glen = sizeof(group) - 1;
    memcpy(group, *api_version, glen);
    group[glen] = '\0';
    k = gq__mf_kind_find(group, kind);
    if (!k && (c->integ = gq__integration_find(group, kind, integrations)) != NULL)
        return identify_integration(c, c->integ, *api_version, version, out);
    if (!k)
        return gq__error(c->err, GQ_EUNSUPPORTED, "kind %s (%s) is not modelled by gpuq", kind,
                         *api_version);
    if (!(c->version = version_bit(version) & k->vers))
        return gq__error(c->err, GQ_EUNSUPPORTED,
                         "kind %s (%s) is not modelled by gpuq: version %s is not one it reads",
                         kind, *api_version, version);
    *out = k;
    return GQ_OK;
}

/* The body of a table-driven kind: spec (or the root) through its table and hooks. */
static int decode_body(struct gq__mf_ctx *c,
                       json_object *root,
                       const struct gq__mf_kind *k,
                       struct gq_object *obj)
{
    json_object *spec = root, *empty = NULL;
    size_t mark = c->len;
    int rc;

    if (k->spec) {
        spec = gq__mf_get(root, k->spec);
        mark = gq__mf_push(c, k->spec);
        if (spec && (rc = gq__mf_object(c, spec)) != GQ_OK)
            return rc;
        /* An absent spec is an empty one: its required fields are reported. */
        if (!spec && !(spec = empty = json_object_new_object()))
            return gq__mf_nomem(c);
    }
    rc = k->pre ? k->pre(c, spec, obj) : GQ_OK;
    if (rc == GQ_OK)
        rc = gq__mf_decode_fields(c, k->schema, spec, &obj->u);
    if (rc == GQ_OK && k->post)
        rc = k->post(c, spec, obj);
    json_object_put(empty);
    if (rc == GQ_OK)
        gq__mf_pop(c, mark);
    return rc;
}

/*
 * The document's fields its API does not know, noted in obj; with strict,
 * an error naming them as kubectl's --validate=strict does.
 */
static int check_fields(struct gq__mf_ctx *c, json_object *root, const struct gq__mf_kind *k,
                        const char *api_version, struct gq_object *obj, bool strict)
{
    struct gq_strs *u = &obj->unknown_fields;
    char list[400] = "";
    size_t i, n = 0;
    int rc;

    if ((rc = gq__mf_unknown_fields(c, root, k, api_version, u)) != GQ_OK || !strict || !u->n)
        return rc;
    for (i = 0; i < u->n && n < sizeof(list); i++) {
        int w = snprintf(list + n, sizeof(list) - n, "%sunknown field \"%s\"", i ? ", " : "",
                         u->v[i]);
        n += w > 0 ? (size_t)w : 0;
    }
    return gq__error(c->err, GQ_EINVALID, "strict decoding error: %s", list);
}

int gq__manifest_decode(struct gq_object *obj,
                        json_object *root,
                        const struct gq_decode_options *opts,
                        gq_error *err)
{
    struct gq__mf_ctx c;
    const struct gq__mf_kind *k = NULL;
    const char *api_version;
    int rc;

    GQ_ASSERT_ARG(obj && root);
    c.version = 0;
    c.integ = NULL;
    c.runtimes = opts ? opts->runtimes : NULL;
    c.nruntimes = opts ? opts->nruntimes : 0;
    c.err = err;
    c.not_enforced = opts && opts->check_fields ? &obj->not_enforced : NULL;
    c.len = 0;
    c.path[0] = '\0';
    if (!json_object_is_type(root, json_type_object))
        return gq__error(err, GQ_EINVALID, "a document must be a mapping");
    if ((rc = identify(&c, root, opts ? opts->integrations : NULL, &k, &api_version)) != GQ_OK)
        return rc;
    obj->kind = k->kind;
    if (!(obj->meta.api_version = strdup(api_version)) ||
        (c.integ && !(obj->u.wl.job_kind = strdup(c.integ->kind))))
        return gq__mf_nomem(&c);
    if ((rc = decode_meta(&c, root, k, opts, &obj->meta)) != GQ_OK)
        return rc;
    if (opts && opts->check_fields &&
        (rc = check_fields(&c, root, k, api_version, obj, opts->strict_fields)) != GQ_OK)
        return rc;
    if (k->decode) {
        /* A document decoded only to find gpuq cannot queue it: no kind, as identify says. */
        if ((rc = k->decode(&c, root, obj)) == GQ_EUNSUPPORTED) {
            gq__object_clear(obj);
            memset(obj, 0, sizeof(*obj));
        }
        return rc;
    }
    if (k->schema)
        return decode_body(&c, root, k, obj);
    return GQ_OK;
}
