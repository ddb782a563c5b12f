/*
 * manifest_render.c: objects out of the database as kubectl prints them with
 * -o json and -o yaml (gq_render). Each object is its stored canonical JSON
 * with what the API server would add: metadata.uid, metadata.creationTimestamp
 * and a status block computed from the tables admission uses (queue counts,
 * the Active condition, flavor usage; for workloads Kueue-style conditions,
 * status.admission and gpuq's own view of the queue). ProvisioningRequests
 * carry the status their provider wrote; their PodTemplates are as stored.
 *
 * Invariants: one call reads one snapshot (a read transaction), and output is
 * written in chunks of OUT_CHUNK bytes, never per line, through the caller's
 * gq_write_fn; nothing reaches it before the first chunk is full, so a read
 * transaction that has to be retried has written nothing yet. JSON is printed
 * by our own serializer because kubectl indents by four spaces
 * (json.MarshalIndent) and json-c can only do two or tabs; YAML goes through
 * libyaml's emitter, with strings that a YAML reader would take for a number,
 * a boolean, null or a time double-quoted, as go-yaml does. Keys keep the
 * order of the JSON object.
 *
 * Sizes: a List of 100,000 workloads is one walk of gq_workload_list plus one
 * indexed lookup of the stored spec per row; every object is built, printed
 * and freed before the next one, so memory stays at one object plus a chunk.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <json-c/json.h>
#include <yaml.h>

#include "sort.h"
#include "api.h"
#include "quota.h"
#include "error.h"
#include "manifest_release.h"
#include "release.h"
#include "store.h"
#include "util.h"

#define OUT_CHUNK 65536

/* ------------------------------------------------------------------- output */

/* Buffered output to the caller's sink. */
struct out {
    gq_write_fn fn; /* the caller's sink */
    void *payload;
    char *buf; /* owned; OUT_CHUNK bytes and more as needed */
    size_t len, cap;
    int rc;     /* first failure: GQ_ENOMEM or the sink's non-zero return */
    bool wrote; /* whether anything has reached the sink */
};

static int out_flush(struct out *o)
{
    int rc;

    if (o->rc == 0 && o->len > 0) {
        o->wrote = true;
        if ((rc = o->fn(o->buf, o->len, o->payload)) != 0)
            o->rc = rc;
    }
    o->len = 0;
    return o->rc;
}

static int out_put(struct out *o, const char *s, size_t n)
{
    /* Nothing to add: no memcpy into a page's buffer that is not allocated yet (NULL). */
    if (o->rc || n == 0)
        return o->rc;
    if (o->len + n > o->cap) {
        size_t cap = o->cap ? o->cap : OUT_CHUNK;
        char *p;

        while (cap < o->len + n)
            cap *= 2;
        if (!(p = realloc(o->buf, cap)))
            return o->rc = GQ_ENOMEM;
        o->buf = p;
        o->cap = cap;
    }
    memcpy(o->buf + o->len, s, n);
    o->len += n;
    return o->len >= OUT_CHUNK ? out_flush(o) : 0;
}

static int out_str(struct out *o, const char *s)
{
    return out_put(o, s, strlen(s));
}

/* --------------------------------------------------------------------- JSON */

/* The escape Go's encoding/json writes for the character at s[i], or NULL; *skip: extra bytes. */
static const char *json_escape(const char *s, size_t i, size_t n, char esc[8], size_t *skip)
{
    static const char hex[] = "0123456789abcdef";
    unsigned char c = (unsigned char)s[i];

    *skip = 0;
    switch (c) {
    case '"':
        return "\\\"";
    case '\\':
        return "\\\\";
    case '\n':
        return "\\n";
    case '\r':
        return "\\r";
    case '\t':
        return "\\t";
    case '<':
    case '>':
    case '&':
        break;
    default:
        /* U+2028 and U+2029 end lines in JavaScript; Go escapes them. */
        if (c == 0xe2 && i + 2 < n && (unsigned char)s[i + 1] == 0x80 &&
            ((unsigned char)s[i + 2] & 0xfe) == 0xa8) {
            *skip = 2;
            return (unsigned char)s[i + 2] == 0xa8 ? "\\u2028" : "\\u2029";
        }
        if (c >= 0x20)
            return NULL;
    }
    snprintf(esc, 8, "\\u00%c%c", hex[c >> 4], hex[c & 15]);
    return esc;
}

/* A JSON string as Go's encoding/json writes it (HTML characters escaped). */
static void json_put_string(struct out *o, const char *s, size_t n)
{
    size_t i, start = 0, skip;
    const char *rep;
    char esc[8];

    out_put(o, "\"", 1);
    for (i = 0; i < n; i++) {
        if ((rep = json_escape(s, i, n, esc, &skip)) != NULL) {
            out_put(o, s + start, i - start);
            out_str(o, rep);
            i += skip;
            start = i + 1;
        }
    }
    out_put(o, s + start, n - start);
    out_put(o, "\"", 1);
}

static void json_put_indent(struct out *o, int depth)
{
    static const char spaces[] = "                                ";

    out_put(o, "\n", 1);
    for (depth *= 4; depth > 0; depth -= 32)
        out_put(o, spaces, depth < 32 ? (size_t)depth : 32);
}

static void json_put_scalar(struct out *o, json_object *v)
{
    char num[32];

    switch (json_object_get_type(v)) {
    case json_type_null:
        out_put(o, "null", 4);
        break;
    case json_type_boolean:
        out_str(o, json_object_get_boolean(v) ? "true" : "false");
        break;
    case json_type_int:
        snprintf(num, sizeof(num), "%" PRId64, json_object_get_int64(v));
        out_str(o, num);
        break;
    case json_type_string:
        json_put_string(o, json_object_get_string(v), (size_t)json_object_get_string_len(v));
        break;
    default:
        out_str(o, json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN));
        break;
    }
}

/* One value as json.MarshalIndent(v, "", "    ") prints it, at the given depth. */
static void json_put_value(struct out *o, json_object *v, int depth)
{
    size_t i, n;
    bool first = true;

    if (json_object_is_type(v, json_type_object)) {
        if (json_object_object_length(v) == 0) {
            out_put(o, "{}", 2);
            return;
        }
        out_put(o, "{", 1);
        json_object_object_foreach(v, key, child)
        {
            if (!first)
                out_put(o, ",", 1);
            first = false;
            json_put_indent(o, depth + 1);
            json_put_string(o, key, strlen(key));
            out_put(o, ": ", 2);
            json_put_value(o, child, depth + 1);
        }
        json_put_indent(o, depth);
        out_put(o, "}", 1);
    } else if (json_object_is_type(v, json_type_array)) {
        if ((n = json_object_array_length(v)) == 0) {
            out_put(o, "[]", 2);
            return;
        }
        out_put(o, "[", 1);
        for (i = 0; i < n; i++) {
            if (i > 0)
                out_put(o, ",", 1);
            json_put_indent(o, depth + 1);
            json_put_value(o, json_object_array_get_idx(v, i), depth + 1);
        }
        json_put_indent(o, depth);
        out_put(o, "]", 1);
    } else {
        json_put_scalar(o, v);
    }
}

/* ------------------------------------------------------------------- render */

/* The render in progress: where output goes and what has been written. */
struct render {
    gq_db *db;
    gq_format format;
    bool list;        /* a List of items, not one object */
    bool begun;       /* the document has been started */
    size_t n;         /* items written */
    struct out out;   /* the caller's sink, buffered */
    yaml_emitter_t y; /* YAML only */
    bool y_ready;     /* y initialised */
    bool stop;        /* one object was asked for and has been written */
    gq_error *err;
    json_object *flavors; /* ResourceFlavor specs read so far, by name (the release) */
    const char *cont;     /* a List's metadata.continue; borrowed, NULL for none */
};

/* --------------------------------------------------------------------- YAML */

static int yaml_write(void *data, unsigned char *buf, size_t size)
{
    struct out *o = data;

    return out_put(o, (const char *)buf, size) == 0;
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static bool in_set(char c, const char *set)
{
    return c != '\0' && strchr(set, c) != NULL;
}

/*
 * Whether s reads as a number in YAML 1.1 or 1.2: an optional sign, then
 * 0x/0o/0b digits, or decimal digits with '_' and ':' (1.1's separators and
 * sexagesimal) and at most one '.', and an optional exponent.
 */
static bool looks_numeric(const char *s, size_t n)
{
    size_t i = 0, start;
    bool digits = false, dot = false;

    if (i < n && (s[i] == '+' || s[i] == '-'))
        i++;
    if (n - i > 2 && s[i] == '0' && in_set(s[i + 1], "xXoObB")) {
        for (i += 2; i < n && (is_digit(s[i]) || in_set(s[i], "abcdefABCDEF_")); i++)
            ;
        return i == n;
    }
    for (; i < n; i++) {
        if (is_digit(s[i]))
            digits = true;
        else if (s[i] == '.' && !dot)
            dot = true;
        else if (s[i] != '_' && s[i] != ':')
            break;
    }
    if (digits && i < n && (s[i] == 'e' || s[i] == 'E')) {
        if (++i < n && (s[i] == '+' || s[i] == '-'))
            i++;
        for (start = i; i < n && is_digit(s[i]); i++)
            ;
        if (i == start)
            return false;
    }
    return digits && i == n;
}

/*
 * Whether a plain scalar s would be read back as something other than a
 * string by YAML 1.1 or 1.2 readers: booleans (yes, on, y...), null, numbers,
 * .inf/.nan, and timestamps ("2026-11-21", "2026-11-21T05:30:00Z"), which
 * go-yaml, and so kubectl, double-quote.
 */
static bool yaml_needs_quotes(const char *s, size_t n)
{
    static const char *const words[] = {"y",    "yes",   "n",     "no",  "on", "off",
                                        "true", "false", "null",  "~",   "<<", "=",
                                        ".inf", "-.inf", "+.inf", ".nan"};
    size_t i;

    if (n == 0)
        return true;
    for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
        if (strlen(words[i]) == n && strncasecmp(s, words[i], n) == 0)
            return true;
    if (looks_numeric(s, n))
        return true;
    return n >= 10 && is_digit(s[0]) && is_digit(s[1]) && is_digit(s[2]) && is_digit(s[3]) &&
           s[4] == '-' && is_digit(s[5]) && s[7] == '-';
}

static int yaml_emit(struct render *r, yaml_event_t *ev)
{
    if (yaml_emitter_emit(&r->y, ev))
        return GQ_OK;
    if (r->out.rc)
        return r->out.rc;
    return gq__error(r->err, GQ_ERROR, "yaml: %s",
                     r->y.problem ? r->y.problem : "cannot emit the document");
}

static int yaml_scalar(struct render *r, const char *s, size_t n, bool is_string)
{
    yaml_scalar_style_t style = YAML_PLAIN_SCALAR_STYLE;
    yaml_event_t ev;

    /* As go-yaml: quoted when it would not read back as a string, a literal block
     * when it has several lines (libyaml falls back to quotes if it cannot). */
    if (is_string && yaml_needs_quotes(s, n))
        style = YAML_DOUBLE_QUOTED_SCALAR_STYLE;
    else if (is_string)
        style = memchr(s, '\n', n) ? YAML_LITERAL_SCALAR_STYLE : YAML_ANY_SCALAR_STYLE;
    if (!yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)(uintptr_t)s, (int)n, 1, 1,
                                      style))
        return gq__error(r->err, GQ_ENOMEM, "out of memory");
    return yaml_emit(r, &ev);
}

static int yaml_value(struct render *r, json_object *v);

static int yaml_mapping(struct render *r, json_object *v)
{
    yaml_event_t ev;
    int rc;

    yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_MAPPING_STYLE);
    if ((rc = yaml_emit(r, &ev)) != GQ_OK)
        return rc;
    json_object_object_foreach(v, key, child)
    {
        if ((rc = yaml_scalar(r, key, strlen(key), true)) != GQ_OK ||
            (rc = yaml_value(r, child)) != GQ_OK)
            return rc;
    }
    yaml_mapping_end_event_initialize(&ev);
    return yaml_emit(r, &ev);
}

static int yaml_value(struct render *r, json_object *v)
{
    const char *text;
    yaml_event_t ev;
    size_t i, n;
    int rc;

    switch (json_object_get_type(v)) {
    case json_type_object:
        return yaml_mapping(r, v);
    case json_type_array:
        yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_SEQUENCE_STYLE);
        if ((rc = yaml_emit(r, &ev)) != GQ_OK)
            return rc;
        n = json_object_array_length(v);
        for (i = 0; i < n; i++)
            if ((rc = yaml_value(r, json_object_array_get_idx(v, i))) != GQ_OK)
                return rc;
        yaml_sequence_end_event_initialize(&ev);
        return yaml_emit(r, &ev);
    case json_type_string:
        return yaml_scalar(r, json_object_get_string(v), (size_t)json_object_get_string_len(v),
                           true);
    case json_type_null:
        return yaml_scalar(r, "null", 4, false);
    default:
        text = json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN);
        return yaml_scalar(r, text, strlen(text), false);
    }
}

/* Stream and document start; for a List, the keys that come before the items. */
static int yaml_begin(struct render *r)
{
    yaml_event_t ev;
    int rc;

    if (!yaml_emitter_initialize(&r->y))
        return gq__error(r->err, GQ_ENOMEM, "out of memory");
    r->y_ready = true;
    yaml_emitter_set_output(&r->y, yaml_write, &r->out);
    yaml_emitter_set_unicode(&r->y, 1);
    yaml_emitter_set_width(&r->y, -1);
    yaml_emitter_set_indent(&r->y, 2);
    yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING);
    if ((rc = yaml_emit(r, &ev)) != GQ_OK)
        return rc;
    yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1);
    if ((rc = yaml_emit(r, &ev)) != GQ_OK || !r->list)
        return rc;
    yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_MAPPING_STYLE);
    if ((rc = yaml_emit(r, &ev)) != GQ_OK || (rc = yaml_scalar(r, "apiVersion", 10, true)) ||
        (rc = yaml_scalar(r, "v1", 2, true)) || (rc = yaml_scalar(r, "items", 5, true)))
        return rc;
    yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_SEQUENCE_STYLE);
    return yaml_emit(r, &ev);
}

static int yaml_end(struct render *r)
{
    yaml_event_t ev;
    int rc;

    if (r->list) {
        yaml_sequence_end_event_initialize(&ev);
        if ((rc = yaml_emit(r, &ev)) != GQ_OK || (rc = yaml_scalar(r, "kind", 4, true)) ||
            (rc = yaml_scalar(r, "List", 4, true)) || (rc = yaml_scalar(r, "metadata", 8, true)))
            return rc;
        yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_MAPPING_STYLE);
        if ((rc = yaml_emit(r, &ev)) != GQ_OK ||
            (rc = yaml_scalar(r, "resourceVersion", 15, true)) ||
            (rc = yaml_scalar(r, "", 0, true)))
            return rc;
        yaml_mapping_end_event_initialize(&ev);
        if ((rc = yaml_emit(r, &ev)) != GQ_OK)
            return rc;
        yaml_mapping_end_event_initialize(&ev);
        if ((rc = yaml_emit(r, &ev)) != GQ_OK)
            return rc;
    }
    yaml_document_end_event_initialize(&ev, 1);
    if ((rc = yaml_emit(r, &ev)) != GQ_OK)
        return rc;
    yaml_stream_end_event_initialize(&ev);
    if ((rc = yaml_emit(r, &ev)) != GQ_OK)
        return rc;
    return yaml_emitter_flush(&r->y) ? GQ_OK : yaml_emit(r, &ev);
}

/* --------------------------------------------------------------------- sink */

static const char json_list_head[] = "{\n    \"apiVersion\": \"v1\",\n    \"items\": ";
#define JSON_LIST_KIND ",\n    \"kind\": \"List\",\n    \"metadata\": {\n        "
static const char json_list_tail[] = JSON_LIST_KIND "\"resourceVersion\": \"\"\n    }\n}\n";
/* Where a List's metadata.continue goes in the tail: first in metadata, in key order. */
#define JSON_LIST_CONTINUE_AT (sizeof(JSON_LIST_KIND) - 1)

static int sink_begin(struct render *r)
{
    r->begun = true;
    if (r->format == GQ_FORMAT_YAML)
        return yaml_begin(r);
    return r->list ? out_str(&r->out, json_list_head) : GQ_OK;
}

/* Write one object: the whole output, or one item of the List. */
static int sink_item(struct render *r, json_object *obj)
{
    int rc;

    if (!r->begun && (rc = sink_begin(r)) != GQ_OK)
        return rc;
    r->n++;
    if (r->format == GQ_FORMAT_YAML)
        return yaml_value(r, obj);
    if (r->list) {
        out_str(&r->out, r->n == 1 ? "[" : ",");
        json_put_indent(&r->out, 2);
    }
    json_put_value(&r->out, obj, r->list ? 2 : 0);
    return r->out.rc;
}

static int sink_end(struct render *r)
{
    int rc;

    if (!r->begun && (rc = sink_begin(r)) != GQ_OK)
        return rc;
    if (r->format == GQ_FORMAT_YAML) {
        if ((rc = yaml_end(r)) != GQ_OK)
            return rc;
    } else if (r->list) {
        out_str(&r->out, r->n == 0 ? "[]" : "\n    ]");
        if (r->cont) {
            out_put(&r->out, json_list_tail, JSON_LIST_CONTINUE_AT);
            out_str(&r->out, "\"continue\": ");
            json_put_string(&r->out, r->cont, strlen(r->cont));
            out_str(&r->out, ",\n        ");
            out_str(&r->out, json_list_tail + JSON_LIST_CONTINUE_AT);
        } else {
            out_str(&r->out, json_list_tail);
        }
    } else {
        out_str(&r->out, "\n");
    }
    return out_flush(&r->out);
}

/* ----------------------------------------------------------------- building */

static int64_t num(const char *s)
{
    return s ? strtoll(s, NULL, 10) : 0;
}

static void add_str(json_object *obj, const char *key, const char *s)
{
    if (s)
        json_object_object_add(obj, key, json_object_new_string(s));
}

static void add_int(json_object *obj, const char *key, int64_t v)
{
    json_object_object_add(obj, key, json_object_new_int64(v));
}

/* RFC 3339 in UTC, second precision, as metav1.Time prints. */
static void add_time(json_object *obj, const char *key, int64_t ms)
{
    char buf[GQ_RFC3339_BUFSIZE];

    if (ms > 0)
        add_str(obj, key, gq__rfc3339(buf, ms));
}

/* An amount in Kueue's accounting units as the canonical quantity (cpu: milli). */
static void add_amount(json_object *obj, const char *key, const char *resource, int64_t v)
{
    char buf[GQ_QUANTITY_BUFSIZE];

    gq__amount_format(buf, sizeof(buf), resource, v);
    add_str(obj, key, buf);
}

static json_object *child(json_object *parent, const char *key, json_type type)
{
    json_object *v;

    if (json_object_object_get_ex(parent, key, &v) && json_object_is_type(v, type))
        return v;
    v = type == json_type_array ? json_object_new_array() : json_object_new_object();
    json_object_object_add(parent, key, v);
    return v;
}

static json_object *
condition(const char *type, bool status, int64_t at_ms, const char *reason, const char *message)
{
    json_object *c = json_object_new_object();

    add_str(c, "type", type);
    add_str(c, "status", status ? "True" : "False");
    add_time(c, "lastTransitionTime", at_ms);
    add_str(c, "reason", reason);
    add_str(c, "message", message ? message : "");
    return c;
}

/* The stored spec with what the API server adds to metadata. NULL if it is not JSON. */
static json_object *object_base(
    struct render *r, const char *spec, const char *name, const char *uid, int64_t created_ms)
{
    json_object *root = json_tokener_parse(spec), *meta;

    if (!root || !json_object_is_type(root, json_type_object)) {
        json_object_put(root);
        gq__store_damaged(r->db->st, r->err, "the spec of \"%.60s\" is not a JSON object", name);
        return NULL;
    }
    meta = child(root, "metadata", json_type_object);
    add_str(meta, "name", name);
    add_str(meta, "uid", uid);
    add_time(meta, "creationTimestamp", created_ms);
    return root;
}

/* ----------------------------------------------------------- queue statuses */

/* A queue's status columns as gq_object_list computes them, kept for lookup. */
struct qstat {
    char *namespace; /* LocalQueue only */
    char *name;
    char *inactive; /* ClusterQueue: "Reason: detail", NULL when active */
    int64_t pending, reserving, admitted;
};

struct qstats {
    struct qstat *v;
    size_t n, cap;
};

static void qstats_clear(struct qstats *s)
{
    size_t i;

    for (i = 0; i < s->n; i++) {
        free(s->v[i].namespace);
        free(s->v[i].name);
        free(s->v[i].inactive);
    }
    free(s->v);
    memset(s, 0, sizeof(*s));
}

static int qstat_row(const gq_object_info *o, void *payload)
{
    struct qstats *s = payload;
    struct qstat *q;

    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 16;

        if (!(q = realloc(s->v, cap * sizeof(*q))))
            return GQ_ENOMEM;
        s->v = q;
        s->cap = cap;
    }
    q = &s->v[s->n++];
    q->namespace = gq__strdup(o->namespace);
    q->name = gq__strdup(o->name);
    q->inactive = gq__strdup(o->inactive);
    q->pending = o->pending;
    q->reserving = o->reserving;
    q->admitted = o->admitted;
    if (!q->name || (o->namespace && !q->namespace) || (o->inactive && !q->inactive))
        return GQ_ENOMEM;
    return 0;
}

static int qstat_cmp(const void *a, const void *b)
{
    const struct qstat *x = a, *y = b;
    int c = strcmp(x->namespace ? x->namespace : "", y->namespace ? y->namespace : "");

    return c ? c : strcmp(x->name, y->name);
}

/* A queue's status by (namespace, name); qstats_load sorted them for this. */
static const struct qstat *qstat_find(const struct qstats *s, const char *ns, const char *name)
{
    struct qstat key = {(char *)(uintptr_t)ns, (char *)(uintptr_t)name, NULL, 0, 0, 0};

    return s->n ? bsearch(&key, s->v, s->n, sizeof(*s->v), qstat_cmp) : NULL;
}

static int qstats_load(struct render *r, const char *resource, struct qstats *s)
{
    int rc = gq_object_list(r->db, resource, NULL, qstat_row, s, r->err);

    if (rc == GQ_ENOMEM)
        return gq__error(r->err, GQ_ENOMEM, "out of memory");
    gq__qsort(s->v, s->n, sizeof(*s->v), qstat_cmp);
    return rc;
}

static void add_counts(json_object *status, const struct qstat *q)
{
    add_int(status, "pendingWorkloads", q ? q->pending : 0);
    add_int(status, "reservingWorkloads", q ? q->reserving : 0);
    add_int(status, "admittedWorkloads", q ? q->admitted : 0);
}

/* Kueue's Active condition of a ClusterQueue from the listing's "Reason: detail". */
static json_object *cq_active(const struct qstat *q, int64_t at_ms)
{
    const char *inactive = q ? q->inactive : NULL, *colon;
    char reason[64], message[400];
    size_t n;

    if (!inactive)
        return condition("Active", true, at_ms, "Ready", "Can admit new workloads");
    colon = strstr(inactive, ": ");
    n = colon ? (size_t)(colon - inactive) : strlen(inactive);
    snprintf(reason, sizeof(reason), "%.*s", (int)(n < 63 ? n : 63), inactive);
    snprintf(message, sizeof(message), "Can't admit new workloads: %s.",
             colon ? colon + 2 : inactive);
    return condition("Active", false, at_ms, reason, message);
}

/* A LocalQueue's Active condition, as Kueue's LocalQueue controller words it. */
static json_object *lq_active(const char *stop_policy, const struct qstat *cq, int64_t at_ms)
{
    if (stop_policy && strcmp(stop_policy, "None") != 0)
        return condition("Active", false, at_ms, "Stopped", "LocalQueue is stopped");
    if (!cq)
        return condition("Active", false, at_ms, "ClusterQueueDoesNotExist",
                         "Can't submit new workloads to clusterQueue");
    if (cq->inactive)
        return condition("Active", false, at_ms, "ClusterQueueIsInactive",
                         "Can't submit new workloads to clusterQueue");
    return condition("Active", true, at_ms, "Ready", "Can submit new workloads to localQueue");
}

/* flavorsReservation and flavorsUsage being built, one row per (flavor, resource). */
struct flavors {
    json_object *reservation;
    json_object *usage;
    bool borrowed; /* ClusterQueue: report what is borrowed beyond nominal */
};

static json_object *flavor_resources(json_object *list, const char *flavor)
{
    size_t n = json_object_array_length(list);
    json_object *last = n ? json_object_array_get_idx(list, n - 1) : NULL, *name;

    if (!last || !json_object_object_get_ex(last, "name", &name) ||
        strcmp(json_object_get_string(name), flavor) != 0) {
        last = json_object_new_object();
        add_str(last, "name", flavor);
        json_object_object_add(last, "resources", json_object_new_array());
        json_object_array_add(list, last);
    }
    return child(last, "resources", json_type_array);
}

static void flavor_add(struct flavors *f, json_object *list, const char *const *v, int64_t total)
{
    json_object *res = json_object_new_object();
    int64_t over = total - num(v[2]);

    add_str(res, "name", v[1]);
    add_amount(res, "total", v[1], total);
    if (f->borrowed)
        add_amount(res, "borrowed", v[1], over > 0 ? over : 0);
    json_object_array_add(flavor_resources(list, v[0]), res);
}

/* Columns: flavor, resource, nominal, reserved total, admitted total. */
static int flavor_row(int n, const char *const *v, void *payload)
{
    struct flavors *f = payload;

    (void)n;
    flavor_add(f, f->reservation, v, num(v[3]));
    flavor_add(f, f->usage, v, num(v[4]));
    return 0;
}

#define FLAVOR_ORDER                                                                               \
    " ORDER BY q.group_index, q.flavor_index, (SELECT c.key FROM cluster_queues cq, "              \
    "json_each(cq.spec, '$.spec.resourceGroups[' || q.group_index || '].coveredResources') c "     \
    "WHERE cq.name = q.owner AND c.value = q.resource), q.resource"

/* Every (flavor, resource) of ClusterQueue ?1 with the quota held in it. */
static const char cq_flavors_sql[] =
    "SELECT q.flavor, q.resource, q.nominal, "
    "(SELECT coalesce(sum(u.amount), 0) FROM usage u WHERE u.cluster_queue = q.owner "
    "  AND u.flavor = q.flavor AND u.resource = q.resource), "
    "(SELECT coalesce(sum(u.amount), 0) FROM usage u JOIN workloads w ON w.id = u.workload_id "
    "  WHERE u.cluster_queue = q.owner AND u.flavor = q.flavor AND u.resource = q.resource "
    "  AND w.state IN ('admitted', 'running')) "
    "FROM quotas q WHERE q.owner_kind = 'ClusterQueue' AND q.owner = ?1" FLAVOR_ORDER;

/* The same for LocalQueue ?3 in namespace ?2 of ClusterQueue ?1: its workloads' share. */
static const char lq_flavors_sql[] =
    "SELECT q.flavor, q.resource, q.nominal, "
    "(SELECT coalesce(sum(u.amount), 0) FROM usage u JOIN workloads w ON w.id = u.workload_id "
    "  WHERE u.cluster_queue = q.owner AND u.flavor = q.flavor AND u.resource = q.resource "
    "  AND w.namespace = ?2 AND w.local_queue = ?3), "
    "(SELECT coalesce(sum(u.amount), 0) FROM usage u JOIN workloads w ON w.id = u.workload_id "
    "  WHERE u.cluster_queue = q.owner AND u.flavor = q.flavor AND u.resource = q.resource "
    "  AND w.namespace = ?2 AND w.local_queue = ?3 AND w.state IN ('admitted', 'running')) "
    "FROM quotas q WHERE q.owner_kind = 'ClusterQueue' AND q.owner = ?1" FLAVOR_ORDER;

static int
add_flavors(struct render *r, json_object *status, const char *cq, const char *ns, const char *lq)
{
    const char *params[3] = {cq, ns, lq};
    struct flavors f = {json_object_new_array(), json_object_new_array(), lq == NULL};
    struct gq__query q = {lq ? lq_flavors_sql : cq_flavors_sql, "quotas:TTIII", params,
                          lq ? 3 : 1};
    int rc = gq__store_rows(r->db->st, &q, flavor_row, &f, r->err);

    json_object_object_add(status, "flavorsReservation", f.reservation);
    json_object_object_add(status, "flavorsUsage", f.usage);
    return rc;
}

/* ------------------------------------------------------------ queue objects */

/* What a queue object render needs besides its rows: the listings' statuses. */
struct objects {
    struct render *r;
    enum gq_kind kind;
    struct qstats cqs; /* ClusterQueue statuses (for ClusterQueues and LocalQueues) */
    struct qstats lqs; /* LocalQueue statuses */
};

/*
 * Columns: namespace, name, uid, spec, created_at, updated_at, and for
 * LocalQueues cluster_queue and stop_policy. ?1 namespace, ?2 name (NULL: all).
 */
#define OBJECT_SHAPE ".TTTII"
static const struct {
    enum gq_kind kind;
    const char *sql;
    const char *shape; /* its columns' types (struct gq__query) */
} object_sql[] = {
    {GQ_KIND_NAMESPACE, "SELECT NULL, name, uid, spec, created_at, updated_at FROM namespaces "
                        "WHERE ?2 IS NULL OR name = ?2 ORDER BY name", OBJECT_SHAPE},
    {GQ_KIND_RESOURCE_FLAVOR, "SELECT NULL, name, uid, spec, created_at, updated_at "
                              "FROM resource_flavors WHERE ?2 IS NULL OR name = ?2 ORDER BY name",
                              OBJECT_SHAPE},
    {GQ_KIND_COHORT, "SELECT NULL, name, uid, spec, created_at, updated_at FROM cohorts "
                     "WHERE ?2 IS NULL OR name = ?2 ORDER BY name", OBJECT_SHAPE},
    {GQ_KIND_CLUSTER_QUEUE, "SELECT NULL, name, uid, spec, created_at, updated_at "
                            "FROM cluster_queues WHERE ?2 IS NULL OR name = ?2 ORDER BY name",
                            OBJECT_SHAPE},
    {GQ_KIND_LOCAL_QUEUE,
     "SELECT namespace, name, uid, spec, created_at, updated_at, cluster_queue, stop_policy "
     "FROM local_queues WHERE (?1 IS NULL OR namespace = ?1) AND (?2 IS NULL OR name = ?2) "
     "ORDER BY namespace, name",
     "local_queues:TTTTIITT"},
    {GQ_KIND_PRIORITY_CLASS, "SELECT NULL, name, uid, spec, created_at, updated_at "
                             "FROM priority_classes WHERE ?2 IS NULL OR name = ?2 ORDER BY name",
                             OBJECT_SHAPE},
    {GQ_KIND_ADMISSION_CHECK, "SELECT NULL, name, uid, spec, created_at, updated_at "
                              "FROM admission_checks WHERE ?2 IS NULL OR name = ?2 ORDER BY name",
                              OBJECT_SHAPE},
    {GQ_KIND_PROVISIONING_CONFIG,
     "SELECT NULL, name, uid, spec, created_at, updated_at FROM provisioning_configs "
     "WHERE ?2 IS NULL OR name = ?2 ORDER BY name", OBJECT_SHAPE},
    {GQ_KIND_CONFIGURATION, "SELECT NULL, name, uid, spec, created_at, updated_at "
                            "FROM configurations WHERE ?2 IS NULL OR name = ?2 ORDER BY name",
                            OBJECT_SHAPE},
    {GQ_KIND_NODE_POOL, "SELECT NULL, name, uid, spec, created_at, updated_at "
                        "FROM node_pools WHERE ?2 IS NULL OR name = ?2 ORDER BY name",
                        OBJECT_SHAPE},
};

static int queue_status(struct objects *q, json_object *root, const char *const *v)
{
    json_object *status = json_object_new_object(), *conds = json_object_new_array();
    struct render *r = q->r;
    int rc = GQ_OK;

    json_object_object_add(status, "conditions", conds);
    json_object_object_add(root, "status", status);
    if (q->kind == GQ_KIND_CLUSTER_QUEUE) {
        const struct qstat *cq = qstat_find(&q->cqs, NULL, v[1]);

        json_object_array_add(conds, cq_active(cq, num(v[5])));
        rc = add_flavors(r, status, v[1], NULL, NULL);
        add_counts(status, cq);
    } else {
        const struct qstat *lq = qstat_find(&q->lqs, v[0], v[1]);

        json_object_array_add(conds, lq_active(v[7], qstat_find(&q->cqs, NULL, v[6]), num(v[5])));
        rc = add_flavors(r, status, v[6], v[0], v[1]);
        add_counts(status, lq);
    }
    return rc;
}

static int object_row(int n, const char *const *v, void *payload)
{
    struct objects *q = payload;
    json_object *root;
    int rc = GQ_OK;

    (void)n;
    if (!(root = object_base(q->r, v[3], v[1], v[2], num(v[4]))))
        return q->r->err ? q->r->err->code : GQ_EIO;
    if (q->kind == GQ_KIND_CLUSTER_QUEUE || q->kind == GQ_KIND_LOCAL_QUEUE)
        rc = queue_status(q, root, v);
    if (rc == GQ_OK)
        rc = sink_item(q->r, root);
    json_object_put(root);
    return rc;
}

static int render_objects(struct render *r, enum gq_kind kind, const char *ns, const char *name)
{
    struct objects q = {r, kind, {NULL, 0, 0}, {NULL, 0, 0}};
    const char *params[2] = {gq__kind_is_namespaced(kind) ? ns : NULL, name};
    size_t i = 0;
    int rc = GQ_OK;

    while (i + 1 < sizeof(object_sql) / sizeof(object_sql[0]) && object_sql[i].kind != kind)
        i++;
    if (object_sql[i].kind != kind)
        return gq__error(r->err, GQ_EINVALID, "cannot render a %s", gq__kind_resource(kind));
    if (kind == GQ_KIND_CLUSTER_QUEUE || kind == GQ_KIND_LOCAL_QUEUE)
        rc = qstats_load(r, "clusterqueue", &q.cqs);
    if (rc == GQ_OK && kind == GQ_KIND_LOCAL_QUEUE)
        rc = qstats_load(r, "localqueue", &q.lqs);
    if (rc == GQ_OK) {
        struct gq__query oq = {object_sql[i].sql, object_sql[i].shape, params, 2};

        rc = gq__store_rows(r->db->st, &oq, object_row, &q, r->err);
    }
    qstats_clear(&q.cqs);
    qstats_clear(&q.lqs);
    if (rc == GQ_OK && name && r->n == 0)
        rc = gq__error(r->err, GQ_ENOTFOUND, "%s \"%s\" not found", gq__kind_resource(kind), name);
    return rc;
}

/* ---------------------------------------------------------------- workloads */

/* How a workload that has left the queue ends up, in Kueue's condition words. */
static const struct {
    const char *state;
    const char *type;
    const char *reason;  /* when the row has none */
    const char *message; /* when the row has none */
} wl_ends[] = {
    {"evicted", "Evicted", "Preempted", NULL},
    {"finished", "Finished", "Succeeded", "Job finished successfully"},
    {"cancelled", "Finished", "Cancelled", "Cancelled by the user"},
};

static const char *or_else(const char *s, const char *fallback)
{
    return s ? s : fallback;
}

/* Kueue's conditions for a workload in each of gpuq's states. */
static void wl_conditions(json_object *conds, const gq_workload_info *wl, int64_t updated_ms)
{
    const char *s = wl->state;
    bool holds = !strcmp(s, "reserved") || !strcmp(s, "admitted") || !strcmp(s, "running") ||
                 !strcmp(s, "finished");
    bool pending = strcmp(s, "pending") == 0;
    char buf[320];
    size_t i;

    if (holds) {
        snprintf(buf, sizeof(buf), "Quota reserved in ClusterQueue %s",
                 or_else(wl->cluster_queue, ""));
        json_object_array_add(conds, condition("QuotaReserved", true,
                                               wl->reserved_ms ? wl->reserved_ms : updated_ms,
                                               "QuotaReserved", buf));
    } else {
        json_object_array_add(conds, condition("QuotaReserved", false, updated_ms,
                                               pending ? or_else(wl->reason, "Pending") : "Pending",
                                               pending ? wl->message : NULL));
    }
    if (!strcmp(s, "reserved"))
        json_object_array_add(conds, condition("Admitted", false, updated_ms,
                                               or_else(wl->reason, "UnsatisfiedAdmissionChecks"),
                                               wl->message));
    else if (holds && wl->admitted_ms)
        json_object_array_add(conds, condition("Admitted", true, wl->admitted_ms, "Admitted",
                                               "The workload is admitted"));
    for (i = 0; i < sizeof(wl_ends) / sizeof(wl_ends[0]); i++)
        if (strcmp(s, wl_ends[i].state) == 0)
            json_object_array_add(conds, condition(wl_ends[i].type, true,
                                                   wl->finished_ms ? wl->finished_ms : updated_ms,
                                                   or_else(wl->reason, wl_ends[i].reason),
                                                   or_else(wl->message, wl_ends[i].message)));
}

/* status: Kueue's conditions and admission, and gpuq's own view of the queue. */
static json_object *wl_status(const gq_workload_info *wl, const char *admission, int64_t updated_ms)
{
    json_object *status = json_object_new_object(), *conds = json_object_new_array();
    json_object *g = json_object_new_object(), *adm;

    wl_conditions(conds, wl, updated_ms);
    json_object_object_add(status, "conditions", conds);
    if (admission && (adm = json_tokener_parse(admission)) != NULL)
        json_object_object_add(status, "admission", adm);
    add_str(g, "state", wl->state);
    add_str(g, "localQueue", wl->local_queue);
    add_str(g, "clusterQueue", wl->cluster_queue);
    if (wl->position >= 0)
        add_int(g, "positionInLocalQueue", wl->position);
    if (wl->position_cq >= 0)
        add_int(g, "positionInClusterQueue", wl->position_cq);
    add_str(g, "reason", wl->reason);
    add_str(g, "message", wl->message);
    if (wl->where && *wl->where)
        add_str(g, "where", wl->where);
    add_int(g, "gpus", wl->gpus);
    add_int(g, "pods", wl->pods);
    json_object_object_add(status, "gpuq", g);
    return status;
}

/* The owner reference Kueue's Job integration puts on a Job's Workload. */
static void wl_owner(json_object *meta, const gq_workload_info *wl)
{
    json_object *refs = json_object_new_array(), *ref = json_object_new_object();

    add_str(ref, "apiVersion", "batch/v1");
    add_str(ref, "kind", "Job");
    add_str(ref, "name", wl->job_name);
    add_str(ref, "uid", wl->uid);
    json_object_object_add(ref, "controller", json_object_new_boolean(1));
    json_object_object_add(ref, "blockOwnerDeletion", json_object_new_boolean(1));
    json_object_array_add(refs, ref);
    json_object_object_add(meta, "ownerReferences", refs);
}

struct wl_render {
    struct render *r;
    const gq_workload_info *wl;
    json_object *root; /* the Workload, built by spec_row */
};

/*
 * An eviction Kueue still shows on a requeued workload: Evicted (and
 * Preempted) stay True until quota is reserved again.
 * Columns 3..7: evicted_reason, evicted_message, preempted_reason, evicted_at,
 * evictions.
 */
static void wl_eviction(json_object *status, const gq_workload_info *wl, const char *const *v)
{
    json_object *conds = child(status, "conditions", json_type_array), *g;
    bool holds = !strcmp(wl->state, "reserved") || !strcmp(wl->state, "admitted") ||
                 !strcmp(wl->state, "running");

    if (v[3] && !holds) {
        json_object_array_add(conds, condition("Evicted", true, num(v[6]), v[3], v[4]));
        if (v[5])
            json_object_array_add(conds, condition("Preempted", true, num(v[6]), v[5], v[4]));
    }
    if (num(v[7]) > 0 && json_object_object_get_ex(status, "gpuq", &g))
        add_int(g, "evictions", num(v[7]));
}

/*
 * status.gpuq.duration: how long the job runs once its pods start, as Go
 * writes a duration ("45m0s", "1h30m0s"); absent when it runs until cancelled.
 */
static void wl_duration(json_object *status, const char *ms)
{
    char buf[GQ_DURATION_BUFSIZE];

    if (!ms)
        return;
    gq__format_duration_ms(buf, sizeof(buf), num(ms), false);
    add_str(child(status, "gpuq", json_type_object), "duration", buf);
}

/* Columns: spec, admission, updated_at, then wl_eviction's (3..7), then duration_ms. */
static int spec_row(int n, const char *const *v, void *payload)
{
    struct wl_render *w = payload;
    const gq_workload_info *wl = w->wl;
    json_object *status;

    (void)n;
    if (!(w->root = object_base(w->r, v[0], wl->name, wl->uid, wl->created_ms)))
        return w->r->err ? w->r->err->code : GQ_EIO;
    if (strcmp(wl->job_kind, "Job") == 0)
        wl_owner(child(w->root, "metadata", json_type_object), wl);
    if (strcmp(wl->state, "deactivated") == 0) /* Kueue sets spec.active false to deactivate */
        json_object_object_add(child(w->root, "spec", json_type_object), "active",
                               json_object_new_boolean(0));
    status = wl_status(wl, v[1], num(v[2]));
    wl_eviction(status, wl, v);
    wl_duration(status, v[8]);
    json_object_object_add(w->root, "status", status);
    return 0;
}

/* Columns: name, state, message, updated_at: status.admissionChecks[]. */
static int check_row(int n, const char *const *v, void *payload)
{
    json_object *c = json_object_new_object();

    (void)n;
    add_str(c, "name", v[0]);
    add_str(c, "state", v[1]);
    add_time(c, "lastTransitionTime", num(v[3]));
    add_str(c, "message", v[2] ? v[2] : "");
    json_object_array_add(payload, c);
    return 0;
}

/* Columns: spec, templates, status: a request and its PodTemplates, as objects. */
/* A workload's requests and templates, and per request its config's podSetUpdates.nodeSelector. */
struct provreqs {
    json_object *objects; /* ProvisioningRequests, each followed by its PodTemplates */
    json_object *updates; /* one entry per request: an array, or null */
};

/* Columns: spec, templates, status, the config's podSetUpdates.nodeSelector (JSON). */
static int provreq_row(int n, const char *const *v, void *payload)
{
    struct provreqs *p = payload;
    json_object *pr = json_tokener_parse(v[0]), *pts = json_tokener_parse(v[1]), *st;
    size_t i;

    if (pr && v[2] && (st = json_tokener_parse(v[2])) != NULL)
        json_object_object_add(pr, "status", st);
    if (pr) {
        json_object_array_add(p->objects, pr);
        json_object_array_add(p->updates, v[3] ? json_tokener_parse(v[3]) : NULL);
    }
    if (!json_object_is_type(pts, json_type_array)) /* damaged: json-c asserts the type */
        n = 0;
    else
        n = (int)json_object_array_length(pts);
    for (i = 0; i < (size_t)n; i++)
        json_object_array_add(p->objects, json_object_get(json_object_array_get_idx(pts, i)));
    json_object_put(pts);
    return 0;
}

/* ------------------------------------------------------------ the release */

static json_object *jget(json_object *o, const char *key)
{
    json_object *v = NULL;

    return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

/* Columns: spec (a ResourceFlavor's canonical JSON). */
static int flavor_spec_row(int n, const char *const *v, void *payload)
{
    json_object **out = payload;

    (void)n;
    json_object_put(*out);
    *out = json_tokener_parse(v[0]);
    return 0;
}

/* The entries of kvs that parent[key] lacks or holds otherwise, set in it (made when missing). */
static void put_kvs(json_object *parent, const char *key, const struct gq_kvs *kvs)
{
    json_object *have = jget(parent, key);
    size_t i;

    for (i = 0; i < kvs->n; i++) {
        json_object *v = json_object_is_type(have, json_type_object)
                             ? jget(have, kvs->v[i].key)
                             : NULL;

        if (json_object_is_type(v, json_type_string) &&
            strcmp(json_object_get_string(v), kvs->v[i].value) == 0)
            continue;
        json_object_object_add(have = child(parent, key, json_type_object), kvs->v[i].key,
                               json_object_new_string(kvs->v[i].value));
    }
}

/* The requests among prs->objects (the PodTemplates between them skipped). -1 on ENOMEM. */
static int rel_reqs_of(const struct provreqs *prs, struct gq__mf_release_reqs *q)
{
    size_t i, n = prs ? json_object_array_length(prs->updates) : 0;

    if (gq__mf_release_reqs_init(q, n) < 0)
        return -1;
    for (i = 0; n && i < json_object_array_length(prs->objects) && q->n < n; i++) {
        json_object *o = json_object_array_get_idx(prs->objects, i);
        const char *kind = json_object_get_string(jget(o, "kind"));

        if (!kind || strcmp(kind, "ProvisioningRequest") != 0)
            continue;
        if (gq__mf_release_reqs_add(q, o, jget(o, "status"),
                                    json_object_array_get_idx(prs->updates, q->n)) < 0)
            return -1;
    }
    return 0;
}

/* The stored spec of flavor, read once per render (a listing has many workloads, few flavors). */
static json_object *flavor_spec(struct render *r, const char *flavor)
{
    static const char sql[] = "SELECT spec FROM resource_flavors WHERE name = ?1";
    json_object *f = NULL;

    if (!flavor)
        return NULL;
    if (!r->flavors)
        r->flavors = json_object_new_object();
    if (!(f = jget(r->flavors, flavor)) &&
        gq__store_query(r->db->st, sql, &flavor, 1, flavor_spec_row, &f, NULL) == 0 && f)
        json_object_object_add(r->flavors, flavor, f);
    return jget(f, "spec");
}

/*
 * One pod set as the Job runs it once admitted: the pristine template with
 * Kueue's startJob rule applied (release.h): the assigned flavor's
 * nodeLabels in its nodeSelector and its tolerations, the label
 * kueue.x-k8s.io/podset, the provisioning requests' podSetUpdates. Only what
 * the release adds or changes is written into the copy, so the pristine
 * text keeps its order and its values.
 */
static json_object *released(struct render *r, json_object *tmpl, const char *podset,
                             const char *flavor, const struct gq__mf_release_reqs *reqs)
{
    struct gq__mf_release_podset k;
    struct gq_released out;
    json_object *t = NULL, *pspec, *meta;
    size_t i;
    int rc;

    if (!tmpl || json_object_deep_copy(tmpl, &t, NULL) != 0)
        return NULL;
    pspec = child(t, "spec", json_type_object);
    meta = child(t, "metadata", json_type_object);
    if ((rc = gq__mf_release_podset_read(&k, t, flavor_spec(r, flavor))) == 0)
        rc = gq__mf_release(&out, podset, &k, reqs);
    if (rc != 0) {
        gq__mf_release_podset_clear(&k);
        json_object_put(t);
        return NULL;
    }
    /* The flavor's selector goes in before its tolerations, the requests' after them. */
    if (k.flavor.node_labels.n)
        put_kvs(pspec, "nodeSelector", &out.node_selector);
    for (i = k.ntolerations; i < out.ntolerations; i++)
        json_object_array_add(child(pspec, "tolerations", json_type_array),
                              gq__mf_toleration_json(&out.tolerations[i]));
    put_kvs(pspec, "nodeSelector", &out.node_selector);
    put_kvs(meta, "labels", &out.labels);
    put_kvs(meta, "annotations", &out.annotations);
    gq__released_clear(&out);
    gq__mf_release_podset_clear(&k);
    return t;
}

/*
 * status.gpuq.release for an admitted workload: suspend false and each pod
 * set's template as the Job gets it. Derived when shown, never stored: an
 * eviction restores the pristine template simply by the workload no longer
 * being admitted.
 */
static void wl_release(struct render *r, json_object *root, const struct provreqs *prs)
{
    json_object *status = jget(root, "status"), *g = jget(status, "gpuq");
    json_object *sets = jget(jget(status, "admission"), "podSetAssignments");
    json_object *rel, *out;
    struct gq__mf_release_reqs reqs;
    size_t i;

    if (!g || !sets || rel_reqs_of(prs, &reqs) < 0) {
        if (g && sets)
            gq__mf_release_reqs_clear(&reqs);
        return;
    }
    rel = json_object_new_object();
    out = json_object_new_array();
    json_object_object_add(rel, "suspend", json_object_new_boolean(0));
    for (i = 0; i < json_object_array_length(sets); i++) {
        json_object *a = json_object_array_get_idx(sets, i), *ps, *t;
        const char *name = json_object_get_string(jget(a, "name"));

        if (!name || !(t = released(r, gq__mf_release_pristine(root, name), name,
                                    gq__mf_release_flavor(a), &reqs)))
            continue;
        ps = json_object_new_object();
        json_object_object_add(ps, "name", json_object_new_string(name));
        json_object_object_add(ps, "template", t);
        json_object_array_add(out, ps);
    }
    json_object_object_add(rel, "podSets", out);
    json_object_object_add(g, "release", rel);
    gq__mf_release_reqs_clear(&reqs);
}

/*
 * A workload holding quota: Kueue's status.admissionChecks, and the
 * ProvisioningRequests and PodTemplates gpuq created for it, as the objects
 * Kueue would write (status.gpuq.provisioningRequests).
 */
static int wl_checks(struct render *r, const gq_workload_info *wl, json_object *root)
{
    static const char checks_sql[] =
        "SELECT c.name, c.state, c.message, c.updated_at FROM workload_checks c "
        "JOIN workloads w ON w.id = c.workload_id WHERE w.uid = ?1 ORDER BY c.name";
    static const char prs_sql[] =
        "SELECT p.spec, p.templates, p.status, (SELECT pc.spec ->> '$.spec.podSetUpdates.nodeSelector' "
        "  FROM admission_checks ac JOIN provisioning_configs pc "
        "  ON pc.name = ac.spec ->> '$.spec.parameters.name' WHERE ac.name = p.check_name) "
        "FROM provisioning_requests p "
        "JOIN workloads w ON w.id = p.workload_id WHERE w.uid = ?1 AND p.deleted_at IS NULL "
        "ORDER BY p.check_name, p.attempt";
    json_object *status = child(root, "status", json_type_object), *g, *checks, *prs;
    struct gq__query checks_q = {checks_sql, "workload_checks:TTtI", &wl->uid, 1};
    struct gq__query prs_q = {prs_sql, "provisioning_requests:TTtt", &wl->uid, 1};
    struct provreqs p;
    int rc;

    if (strcmp(wl->state, "reserved") && strcmp(wl->state, "admitted") &&
        strcmp(wl->state, "running"))
        return GQ_OK;
    checks = json_object_new_array();
    prs = p.objects = json_object_new_array();
    p.updates = json_object_new_array();
    if ((rc = gq__store_rows(r->db->st, &checks_q, check_row, checks, r->err)) == GQ_OK)
        rc = gq__store_rows(r->db->st, &prs_q, provreq_row, &p, r->err);
    if (json_object_array_length(checks))
        json_object_object_add(status, "admissionChecks", json_object_get(checks));
    if (json_object_array_length(prs) && json_object_object_get_ex(status, "gpuq", &g))
        json_object_object_add(g, "provisioningRequests", json_object_get(prs));
    if (rc == GQ_OK && strcmp(wl->state, "reserved") != 0)
        wl_release(r, root, &p);
    json_object_put(checks);
    json_object_put(prs);
    json_object_put(p.updates);
    return rc;
}

/* Returned by an item's callback to end the walk once the one object asked for is written. */
#define WALK_STOP 1

/* rc after writing one item; WALK_STOP once the one object asked for is written. */
static int item_done(struct render *r, int rc)
{
    if (rc == GQ_OK && !r->list) {
        r->stop = true;
        return WALK_STOP;
    }
    return rc;
}

static int wl_row(const gq_workload_info *wl, void *payload)
{
    static const char sql[] =
        "SELECT spec, admission, updated_at, evicted_reason, evicted_message, preempted_reason, "
        "evicted_at, evictions, duration_ms FROM workloads WHERE uid = ?1";
    struct render *r = payload;
    struct wl_render w = {r, wl, NULL};
    struct gq__query q = {sql, "workloads:TtIttti.i", &wl->uid, 1};
    int rc = gq__store_rows(r->db->st, &q, spec_row, &w, r->err);

    if (rc == GQ_OK && w.root)
        rc = wl_checks(r, wl, w.root);
    if (rc == GQ_OK && w.root)
        rc = sink_item(r, w.root);
    json_object_put(w.root);
    return item_done(r, rc);
}

static int render_workloads(struct render *r,
                            const char *ns,
                            const char *name,
                            const gq_workload_filter *filter)
{
    gq_workload_filter f = GQ_WORKLOAD_FILTER_INIT;
    int rc;

    if (filter) /* its version checked by gq_render */
        f = *filter;
    if (ns)
        f.namespace = ns;
    if (name)
        f.name = name;
    rc = gq_workload_list(r->db, &f, wl_row, r, r->err);
    if (rc == WALK_STOP && r->stop)
        rc = GQ_OK;
    if (rc == GQ_OK && name && r->n == 0)
        rc = gq__error(r->err, GQ_ENOTFOUND, "workload \"%s\" not found", name);
    return rc;
}

/* ---------------------------------------------------- provisioning requests */

/* A ProvisioningRequest as stored, with its provider's status when there is one. */
static int provreq_item(const gq_provreq_info *pr, void *payload)
{
    struct render *r = payload;
    json_object *root = object_base(r, pr->object, pr->name, pr->uid, pr->created_ms), *st;
    int rc;

    if (!root)
        return r->err ? r->err->code : GQ_EIO;
    if (pr->status && (st = json_tokener_parse(pr->status)) != NULL)
        json_object_object_add(root, "status", st);
    rc = sink_item(r, root);
    json_object_put(root);
    return item_done(r, rc);
}

/*
 * A PodTemplate as stored. Its owner reference to the request is written
 * before the request has a UID; the API server would show it, so it is added.
 */
static int podtemplate_item(const gq_podtemplate_info *pt, void *payload)
{
    struct render *r = payload;
    json_object *root = object_base(r, pt->object, pt->name, pt->uid, pt->created_ms), *refs;
    size_t i;
    int rc;

    if (!root)
        return r->err ? r->err->code : GQ_EIO;
    refs = jget(jget(root, "metadata"), "ownerReferences");
    for (i = 0;
         refs && json_object_is_type(refs, json_type_array) && i < json_object_array_length(refs);
         i++) {
        json_object *ref = json_object_array_get_idx(refs, i), *owner = jget(ref, "name");

        if (owner && !jget(ref, "uid") && !strcmp(json_object_get_string(owner), pt->provreq))
            add_str(ref, "uid", pt->provreq_uid);
    }
    rc = sink_item(r, root);
    json_object_put(root);
    return item_done(r, rc);
}

/* ---------------------------------------------------------------- gq_render */

struct render_args {
    struct render *r;
    enum gq_kind kind;
    const char *ns;
    const char *name;
    const gq_workload_filter *filter;
};

/* Forget a rolled-back attempt; nothing of it has reached the sink. */
static void render_reset(struct render *r)
{
    if (r->y_ready)
        yaml_emitter_delete(&r->y);
    r->y_ready = false;
    r->begun = false;
    r->stop = false;
    r->n = 0;
    r->out.len = 0;
    r->out.rc = 0;
}

/*
 * The code a render ends with: out of memory said once, and a busy database
 * after output was handed to the caller an I/O error, since what was written
 * cannot be taken back by a retry.
 */
static int render_finish(const struct render *r, int rc, gq_error *err)
{
    if (rc == GQ_ENOMEM && (!err || err->code != GQ_ENOMEM))
        rc = gq__error(err, GQ_ENOMEM, "out of memory");
    if (rc == GQ_EBUSY && r->out.wrote) {
        char msg[sizeof(err->msg)];

        snprintf(msg, sizeof(msg), "%s", err ? err->msg : "database is busy");
        rc = gq__error(err, GQ_EIO, "%s", msg);
    }
    return rc;
}

static int render_txn(struct gq_store *st, void *payload, gq_error *err)
{
    struct render_args *a = payload;
    struct render *r = a->r;
    int rc;

    (void)st;
    render_reset(r);
    if (a->kind == GQ_KIND_WORKLOAD || a->kind == GQ_KIND_JOB)
        rc = render_workloads(r, a->ns, a->name, a->filter);
    else if (a->kind == GQ_KIND_PROVISIONING_REQUEST)
        rc = gq_provreq_list(r->db, a->ns, a->name, provreq_item, r, err);
    else if (a->kind == GQ_KIND_POD_TEMPLATE)
        rc = gq_podtemplate_list(r->db, a->ns, a->name, podtemplate_item, r, err);
    else
        rc = render_objects(r, a->kind, a->ns, a->name);
    if (rc == WALK_STOP && r->stop)
        rc = GQ_OK;
    if (rc == GQ_OK)
        rc = sink_end(r);
    return render_finish(r, rc, err);
}

int gq_render(gq_db *db,
              const char *resource,
              const char *namespace,
              const char *name,
              const gq_workload_filter *filter,
              gq_format format,
              gq_write_fn fn,
              void *payload,
              gq_error *err)
{
    enum gq_kind kind = resource ? gq__kind_lookup(resource) : GQ_KIND_NONE;
    struct render r;
    struct render_args a = {&r, kind, namespace, name, filter};
    int rc;

    GQ_ASSERT_ARG(db && fn);
    if (filter && (rc = gq__version_check(filter->version, GQ_WORKLOAD_FILTER_VERSION,
                                          "gq_workload_filter", err)) != GQ_OK)
        return rc;
    if (kind == GQ_KIND_NONE)
        return gq__error(err, GQ_EINVALID, "the server doesn't have a resource type \"%s\"",
                         resource ? resource : "");
    if (format != GQ_FORMAT_JSON && format != GQ_FORMAT_YAML)
        return gq__error(err, GQ_EINVALID, "unknown output format %d", (int)format);
    memset(&r, 0, sizeof(r));
    r.db = db;
    r.format = format;
    r.list = name == NULL;
    r.out.fn = fn;
    r.out.payload = payload;
    r.err = err;
    rc = gq__store_read(db->st, render_txn, &a, err);
    render_reset(&r);
    json_object_put(r.flavors);
    free(r.out.buf);
    return rc;
}

/* ------------------------------------------------------------ the pager */

struct gq_render_pager {
    gq_workload_filter filter; /* its strings point into strs */
    char *strs[5];             /* owned copies of the filter's strings */
    char *after;               /* owned continue token of the next page; NULL: the first */
    int64_t limit;             /* items in the List at most; 0: every one */
    size_t written;            /* items written by the pages so far */
    bool begun;                /* the List's head has been written */
    bool done;                 /* the List has been ended */
};

struct pager_args {
    struct render *r;
    gq_render_pager *p;
    char *next; /* the page's gq_workload_list_page token; owned */
};

/* The page's items, then the List's end or (mid-List) what the buffer holds. */
static int pager_page(struct pager_args *a, gq_error *err)
{
    struct render *r = a->r;
    gq_render_pager *p = a->p;
    int64_t page = GQ_RENDER_PAGE;
    int rc;

    if (p->limit > 0 && p->limit - (int64_t)p->written < page)
        page = p->limit - (int64_t)p->written;
    rc = gq_workload_list_page(r->db, &p->filter, p->after, page, wl_row, r, &a->next, err);
    if (rc != GQ_OK)
        return rc;
    if (!a->next || (p->limit > 0 && (int64_t)r->n == p->limit)) {
        r->cont = a->next; /* only a List cut at its limit says where to go on */
        return sink_end(r);
    }
    if (!r->begun && (rc = sink_begin(r)) != GQ_OK)
        return rc;
    return out_flush(&r->out);
}

static int pager_txn(struct gq_store *st, void *payload, gq_error *err)
{
    struct pager_args *a = payload;
    struct render *r = a->r;
    int rc;

    (void)st;
    render_reset(r);
    r->n = a->p->written;
    r->begun = a->p->begun;
    r->cont = NULL;
    gq_free(a->next);
    a->next = NULL;
    rc = pager_page(a, err);
    return render_finish(r, rc, err);
}

static bool pager_copy(gq_render_pager *p, const gq_workload_filter *f)
{
    const char *from[5] = {f->namespace, f->state, f->local_queue, f->cluster_queue, f->name};
    size_t i;

    for (i = 0; i < 5; i++)
        if (from[i] && !(p->strs[i] = strdup(from[i])))
            return false;
    p->filter.namespace = p->strs[0];
    p->filter.state = p->strs[1];
    p->filter.local_queue = p->strs[2];
    p->filter.cluster_queue = p->strs[3];
    p->filter.name = p->strs[4];
    return true;
}

int gq_render_pager_new(gq_render_pager **out,
                        const gq_workload_filter *filter,
                        const char *continue_token,
                        int64_t limit,
                        gq_error *err)
{
    gq_workload_filter none = GQ_WORKLOAD_FILTER_INIT;
    gq_render_pager *p;
    int rc;

    GQ_ASSERT_ARG(out);
    *out = NULL;
    if (!filter)
        filter = &none;
    if ((rc = gq__version_check(filter->version, GQ_WORKLOAD_FILTER_VERSION,
                                "gq_workload_filter", err)) != GQ_OK)
        return rc;
    if (limit < 0)
        return gq__error(err, GQ_EINVALID, "invalid limit %" PRId64 ": want 0 or more", limit);
    if (!(p = calloc(1, sizeof(*p))))
        return gq__error(err, GQ_ENOMEM, "out of memory");
    p->filter = none;
    p->limit = limit;
    if (!pager_copy(p, filter) || (continue_token && !(p->after = strdup(continue_token)))) {
        gq_render_pager_free(p);
        return gq__error(err, GQ_ENOMEM, "out of memory");
    }
    *out = p;
    return GQ_OK;
}

int gq_render_pager_next(
    gq_render_pager *p, gq_db *db, gq_write_fn fn, void *payload, bool *done_out, gq_error *err)
{
    struct render r;
    struct pager_args a = {&r, p, NULL};
    int rc = GQ_OK;

    GQ_ASSERT_ARG(p && db && fn && done_out);
    memset(&r, 0, sizeof(r));
    r.db = db;
    r.format = GQ_FORMAT_JSON;
    r.list = true;
    r.out.fn = fn;
    r.out.payload = payload;
    r.err = err;
    if (!p->done && (rc = gq__store_read(db->st, pager_txn, &a, err)) == GQ_OK) {
        p->done = r.cont != NULL || !a.next || (p->limit > 0 && (int64_t)r.n == p->limit);
        p->written = r.n;
        p->begun = true;
        gq_free(p->after);
        p->after = a.next;
        a.next = NULL;
    }
    *done_out = p->done;
    gq_free(a.next);
    render_reset(&r);
    json_object_put(r.flavors);
    free(r.out.buf);
    return rc;
}

void gq_render_pager_free(gq_render_pager *p)
{
    size_t i;

    if (!p)
        return;
    for (i = 0; i < 5; i++)
        free(p->strs[i]);
    gq_free(p->after);
    free(p);
}
