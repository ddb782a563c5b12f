/*
 * manifest_render.c: the printer behind gq_render (manifest_print.h), which
 * builds objects as kubectl prints them with -o json and -o yaml and writes
 * them. It reads nothing: api/render.c reads the store and hands each
 * object's data here as typed values. An object is its stored canonical
 * JSON with what the API server would add: metadata.uid,
 * metadata.creationTimestamp and a status block (queue counts, the Active
 * condition, flavor usage; for workloads Kueue-style conditions,
 * status.admission, gpuq's own view of the queue, the admission checks, the
 * ProvisioningRequests and, once admitted, the release). ProvisioningRequests
 * carry the status their provider wrote; their PodTemplates are as stored.
 *
 * Invariants: output is written in chunks of OUT_CHUNK bytes, never per
 * line, through the caller's gq_write_fn; nothing reaches it before the
 * first chunk is full, so the read transaction around a render can be
 * retried (gq__mf_printer_reset) until then. JSON is printed by our own
 * serializer because kubectl indents by four spaces (json.MarshalIndent)
 * and json-c can only do two or tabs; YAML goes through libyaml's emitter,
 * with strings that a YAML reader would take for a number, a boolean, null
 * or a time double-quoted, as go-yaml does. Keys keep the order of the JSON
 * object.
 *
 * Sizes: every object is built, printed and freed before the next one, so
 * memory stays at one object plus a chunk, and the specs of the flavors the
 * release has asked for (few, kept for the printer's life).
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <json-c/json.h>
#include <yaml.h>

#include "error.h"
#include "manifest_print.h"
#include "manifest_release.h"
#include "manifest_tree.h"
#include "quota.h"
#include "release.h"
#include "state.h"
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

/* ------------------------------------------------------------------ printer */

/* The document in progress: where output goes and what has been written. */
struct gq__mf_printer {
    gq_format format;
    bool list;        /* a List of items, not one object */
    bool begun;       /* the document has been started */
    size_t n;         /* items written */
    struct out out;   /* the caller's sink, buffered */
    yaml_emitter_t y; /* YAML only */
    bool y_ready;     /* y initialised */
    gq_error *err;
    json_object *flavors;       /* ResourceFlavor specs read so far, by name (the release) */
    gq__mf_flavor_fn flavor_fn; /* where the flavors' specs come from */
    void *flavor_payload;
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

static int yaml_emit(struct gq__mf_printer *r, yaml_event_t *ev)
{
    if (yaml_emitter_emit(&r->y, ev))
        return GQ_OK;
    if (r->out.rc)
        return r->out.rc;
    return gq__error(r->err, GQ_ERROR, "yaml: %s",
                     r->y.problem ? r->y.problem : "cannot emit the document");
}

static int yaml_scalar(struct gq__mf_printer *r, const char *s, size_t n, bool is_string)
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

static int yaml_value(struct gq__mf_printer *r, json_object *v);

static int yaml_mapping(struct gq__mf_printer *r, json_object *v)
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

static int yaml_value(struct gq__mf_printer *r, json_object *v)
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
static int yaml_begin(struct gq__mf_printer *r)
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

static int yaml_end(struct gq__mf_printer *r)
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

static int sink_begin(struct gq__mf_printer *r)
{
    r->begun = true;
    if (r->format == GQ_FORMAT_YAML)
        return yaml_begin(r);
    return r->list ? out_str(&r->out, json_list_head) : GQ_OK;
}

/* Write one object: the whole output, or one item of the List. */
static int sink_item(struct gq__mf_printer *r, json_object *obj)
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

int gq__mf_printer_tree(struct gq__mf_printer *p, json_object *obj)
{
    return sink_item(p, obj);
}

static int sink_end(struct gq__mf_printer *r, const char *cont)
{
    int rc;

    if (!r->begun && (rc = sink_begin(r)) != GQ_OK)
        return rc;
    if (r->format == GQ_FORMAT_YAML) {
        if ((rc = yaml_end(r)) != GQ_OK)
            return rc;
    } else if (r->list) {
        out_str(&r->out, r->n == 0 ? "[]" : "\n    ]");
        if (cont) {
            out_put(&r->out, json_list_tail, JSON_LIST_CONTINUE_AT);
            out_str(&r->out, "\"continue\": ");
            json_put_string(&r->out, cont, strlen(cont));
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

/* One object being built: its tree and what its later rows need. */
struct gq__mf_item {
    json_object *root; /* the object, owned */
    /* Queues: */
    json_object *reservation, *usage; /* status.flavorsReservation and flavorsUsage, borrowed */
    bool borrowed;                    /* ClusterQueue: report what is borrowed beyond nominal */
    /* Workloads: */
    const gq_workload_info *wl; /* borrowed until printed */
    json_object *checks;        /* status.admissionChecks being built, owned */
    json_object *prs;           /* requests, each followed by its PodTemplates, owned */
    json_object *updates;       /* per request: its config's podSetUpdates.nodeSelector, owned */
};

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

static json_object *jget(json_object *o, const char *key)
{
    json_object *v = NULL;

    return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
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

/*
 * A new item: the stored spec with what the API server adds to metadata.
 * GQ__MF_NOT_OBJECT if the spec is not a JSON object.
 */
static int item_begin(const char *spec, const char *name, const char *uid, int64_t created_ms,
                      struct gq__mf_item **out)
{
    json_object *root = json_tokener_parse(spec), *meta;
    struct gq__mf_item *it;

    *out = NULL;
    if (!root || !json_object_is_type(root, json_type_object)) {
        json_object_put(root);
        return GQ__MF_NOT_OBJECT;
    }
    if (!(it = calloc(1, sizeof(*it)))) {
        json_object_put(root);
        return GQ_ENOMEM;
    }
    meta = child(root, "metadata", json_type_object);
    add_str(meta, "name", name);
    add_str(meta, "uid", uid);
    add_time(meta, "creationTimestamp", created_ms);
    it->root = root;
    *out = it;
    return GQ_OK;
}

void gq__mf_item_free(struct gq__mf_item *it)
{
    if (!it)
        return;
    json_object_put(it->root);
    json_object_put(it->checks);
    json_object_put(it->prs);
    json_object_put(it->updates);
    free(it);
}

/* ------------------------------------------------------------ queue objects */

int gq__mf_object_begin(struct gq__mf_printer *p, const struct gq__mf_object *o,
                        struct gq__mf_item **out)
{
    (void)p;
    return item_begin(o->spec, o->name, o->uid, o->created_ms, out);
}

static void add_counts(json_object *status, const struct gq__mf_queue *q)
{
    add_int(status, "pendingWorkloads", q ? q->pending : 0);
    add_int(status, "reservingWorkloads", q ? q->reserving : 0);
    add_int(status, "admittedWorkloads", q ? q->admitted : 0);
}

/* Kueue's Active condition of a ClusterQueue from the listing's "Reason: detail". */
static json_object *cq_active(const struct gq__mf_queue *q, int64_t at_ms)
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
static json_object *lq_active(const char *stop_policy, const struct gq__mf_queue *cq,
                              int64_t at_ms)
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

/*
 * The status keys in Kueue's order: conditions, then flavorsReservation and
 * flavorsUsage (filled by the flavor rows that follow), then the counts.
 */
static void queue_status(struct gq__mf_item *it, json_object *active,
                         const struct gq__mf_queue *self)
{
    json_object *status = json_object_new_object(), *conds = json_object_new_array();

    json_object_object_add(status, "conditions", conds);
    json_object_object_add(it->root, "status", status);
    json_object_array_add(conds, active);
    it->reservation = json_object_new_array();
    it->usage = json_object_new_array();
    json_object_object_add(status, "flavorsReservation", it->reservation);
    json_object_object_add(status, "flavorsUsage", it->usage);
    add_counts(status, self);
}

/*
 * A LocalQueue's status.fairSharing as Kueue's LocalQueue controller writes it
 * with admission fair sharing on (initializeAfsIfNeeded, updateAdmissionFsStatus):
 * weightedShare 0, consumedResources from "resource=quantity" lines, lastUpdate.
 */
static void lq_fair_sharing(json_object *status, const struct gq__mf_object *o)
{
    json_object *fs, *afs, *consumed;
    const char *line, *eq, *end;
    char key[256];

    if (!o->afs_consumed)
        return;
    fs = child(status, "fairSharing", json_type_object);
    add_int(fs, "weightedShare", 0);
    afs = child(fs, "admissionFairSharingStatus", json_type_object);
    consumed = child(afs, "consumedResources", json_type_object);
    for (line = o->afs_consumed; *line; line = *end ? end + 1 : end) {
        end = line + strcspn(line, "\n");
        eq = memchr(line, '=', (size_t)(end - line));
        if (!eq || (size_t)(eq - line) >= sizeof(key))
            continue;
        snprintf(key, sizeof(key), "%.*s", (int)(eq - line), line);
        json_object_object_add(consumed, key,
                               json_object_new_string_len(eq + 1, (int)(end - eq - 1)));
    }
    add_time(afs, "lastUpdate", o->afs_last_ms);
}

void gq__mf_queue_status(struct gq__mf_item *it, const struct gq__mf_object *o,
                         const struct gq__mf_queue *self, const struct gq__mf_queue *cq)
{
    if (o->kind == GQ_KIND_CLUSTER_QUEUE) {
        it->borrowed = true;
        queue_status(it, cq_active(self, o->updated_ms), self);
    } else {
        queue_status(it, lq_active(o->stop_policy, cq, o->updated_ms), self);
        lq_fair_sharing(jget(it->root, "status"), o);
    }
}

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

static void flavor_add(const struct gq__mf_item *it, json_object *list,
                       const struct gq__mf_flavor *f, int64_t total)
{
    json_object *res = json_object_new_object();
    int64_t over = total - f->nominal;

    add_str(res, "name", f->resource);
    add_amount(res, "total", f->resource, total);
    if (it->borrowed)
        add_amount(res, "borrowed", f->resource, over > 0 ? over : 0);
    json_object_array_add(flavor_resources(list, f->flavor), res);
}

void gq__mf_queue_flavor(struct gq__mf_item *it, const struct gq__mf_flavor *f)
{
    flavor_add(it, it->reservation, f, f->reserved);
    flavor_add(it, it->usage, f, f->admitted);
}

/* ---------------------------------------------------------------- workloads */

/* How a workload that has left the queue ends up, in Kueue's condition words. */
static const struct {
    enum gq_wl_state state;
    const char *type;
    const char *reason;  /* when the row has none */
    const char *message; /* when the row has none */
} wl_ends[] = {
    {GQ_WL_EVICTED, "Evicted", "Preempted", NULL},
    {GQ_WL_FINISHED, "Finished", "Succeeded", "Job finished successfully"},
    {GQ_WL_CANCELLED, "Finished", "Cancelled", "Cancelled by the user"},
};

/* A workload's state as a set of one (a GQ_WL_* mask); 0 for text outside the table. */
static unsigned state_bit(const char *text)
{
    enum gq_wl_state st;

    return text && gq__wl_state_parse(text, &st) ? 1u << st : 0;
}

static const char *or_else(const char *s, const char *fallback)
{
    return s ? s : fallback;
}

/* Kueue's conditions for a workload in each of gpuq's states. */
static void wl_conditions(json_object *conds, const gq_workload_info *wl, int64_t updated_ms)
{
    unsigned st = state_bit(wl->state);
    bool holds = (st & (GQ_WL_HOLDS_QUOTA | GQ_WL_WAS_ADMITTED)) != 0; /* or held it */
    bool pending = st == 1u << GQ_WL_PENDING;
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
    if (st == 1u << GQ_WL_RESERVED)
        json_object_array_add(conds, condition("Admitted", false, updated_ms,
                                               or_else(wl->reason, "UnsatisfiedAdmissionChecks"),
                                               wl->message));
    else if (holds && wl->admitted_ms)
        json_object_array_add(conds, condition("Admitted", true, wl->admitted_ms, "Admitted",
                                               "The workload is admitted"));
    for (i = 0; i < sizeof(wl_ends) / sizeof(wl_ends[0]); i++)
        if (st == 1u << wl_ends[i].state)
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
    add_str(status, "clusterName", wl->cluster_name); /* MultiKueue's worker, as Kueue's */
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

/* The owner reference Kueue's integrations put on a job's Workload. */
static void wl_owner(json_object *meta, const gq_workload_info *wl)
{
    json_object *refs = json_object_new_array(), *ref = json_object_new_object();

    add_str(ref, "apiVersion", wl->job_api_version ? wl->job_api_version : "batch/v1");
    add_str(ref, "kind", wl->job_kind);
    add_str(ref, "name", wl->job_name);
    add_str(ref, "uid", wl->uid);
    json_object_object_add(ref, "controller", json_object_new_boolean(1));
    json_object_object_add(ref, "blockOwnerDeletion", json_object_new_boolean(1));
    json_object_array_add(refs, ref);
    json_object_object_add(meta, "ownerReferences", refs);
}

/*
 * An eviction Kueue still shows on a requeued workload: Evicted (and
 * Preempted) stay True until quota is reserved again.
 */
static void wl_eviction(json_object *status, const gq_workload_info *wl,
                        const struct gq__mf_workload *row)
{
    json_object *conds = child(status, "conditions", json_type_array), *g;
    bool holds = (state_bit(wl->state) & GQ_WL_HOLDS_QUOTA) != 0;

    if (row->evicted_reason && !holds) {
        json_object_array_add(conds, condition("Evicted", true, row->evicted_ms,
                                               row->evicted_reason, row->evicted_message));
        if (row->preempted_reason)
            json_object_array_add(conds, condition("Preempted", true, row->evicted_ms,
                                                   row->preempted_reason, row->evicted_message));
    }
    if (row->evictions > 0 && json_object_object_get_ex(status, "gpuq", &g))
        add_int(g, "evictions", row->evictions);
}

/*
 * The Requeued condition Kueue leaves after a PodsReady timeout: the job
 * reconciler sets it False with the eviction's reason and message
 * (reconciler.go, "handle eviction"); the workload reconciler sets it True,
 * BackoffFinished, once requeueAt has passed (workload_controller.go), and
 * it stays so through the next admission. A deactivation past
 * backoffLimitCount leaves it False with the deactivation's reason.
 */
static void wl_requeued(json_object *status, const gq_workload_info *wl,
                        const struct gq__mf_workload *row, bool backing_off)
{
    const char *r = row->evicted_reason;
    json_object *c;

    if (!r)
        return;
    if (strcmp(r, "PodsReadyTimeout") == 0 && backing_off)
        c = condition("Requeued", false, row->evicted_ms, r, row->evicted_message);
    else if (strcmp(r, "PodsReadyTimeout") == 0)
        c = condition("Requeued", true, row->requeue_ms > 0 ? row->requeue_ms : row->evicted_ms,
                      "BackoffFinished", "The workload backoff was finished");
    else if (strcmp(r, "DeactivatedDueToRequeuingLimitExceeded") == 0 &&
             state_bit(wl->state) == 1u << GQ_WL_DEACTIVATED)
        c = condition("Requeued", false, row->evicted_ms, r, row->evicted_message);
    else
        return;
    json_object_array_add(child(status, "conditions", json_type_array), c);
}

/*
 * waitForPodsReady: the PodsReady condition (Kueue's job reconciler's
 * reasons and messages), Requeued, and status.requeueState {count,
 * requeueAt}, requeueAt cleared when the backoff is over.
 */
static void wl_pods_ready(json_object *status, const gq_workload_info *wl,
                          const struct gq__mf_workload *row)
{
    const char *r = row->pods_ready_reason, *msg = "Not all pods are ready or succeeded";
    bool ready = r && (strcmp(r, "Started") == 0 || strcmp(r, "Recovered") == 0);
    json_object *rs;
    bool backing_off = state_bit(wl->state) == 1u << GQ_WL_PENDING &&
                       row->requeue_ms > row->now_ms;

    if (r) {
        if (ready)
            msg = "All pods reached readiness and the workload is running";
        else if (strcmp(r, "WaitForRecovery") == 0)
            msg = "At least one pod has failed, waiting for recovery";
        json_object_array_add(child(status, "conditions", json_type_array),
                              condition("PodsReady", ready, row->pods_ready_ms, r, msg));
    }
    wl_requeued(status, wl, row, backing_off);
    if (row->requeue_count > 0 || backing_off) {
        rs = child(status, "requeueState", json_type_object);
        if (row->requeue_count > 0)
            add_int(rs, "count", row->requeue_count);
        if (backing_off) /* cleared once the backoff is over */
            add_time(rs, "requeueAt", row->requeue_ms);
    }
}

/*
 * status.gpuq.duration: how long the job runs once its pods start, as Go
 * writes a duration ("45m0s", "1h30m0s"); absent when it runs until cancelled.
 */
static void wl_duration(json_object *status, const struct gq__mf_workload *row)
{
    char buf[GQ_DURATION_BUFSIZE];

    if (!row->has_duration)
        return;
    gq__format_duration_ms(buf, sizeof(buf), row->duration_ms, false);
    add_str(child(status, "gpuq", json_type_object), "duration", buf);
}

int gq__mf_workload_begin(struct gq__mf_printer *p, const gq_workload_info *wl,
                          const struct gq__mf_workload *row, struct gq__mf_item **out)
{
    json_object *status;
    struct gq__mf_item *it;
    int rc;

    (void)p;
    if ((rc = item_begin(row->spec, wl->name, wl->uid, wl->created_ms, out)) != GQ_OK)
        return rc;
    it = *out;
    it->wl = wl;
    if (strcmp(wl->job_kind, "Workload") != 0) /* a job's (an imported Workload has none) */
        wl_owner(child(it->root, "metadata", json_type_object), wl);
    /* Kueue sets spec.active false to deactivate */
    if (state_bit(wl->state) == 1u << GQ_WL_DEACTIVATED)
        json_object_object_add(child(it->root, "spec", json_type_object), "active",
                               json_object_new_boolean(0));
    status = wl_status(wl, row->admission, row->updated_ms);
    wl_eviction(status, wl, row);
    wl_pods_ready(status, wl, row);
    wl_duration(status, row);
    json_object_object_add(it->root, "status", status);
    return GQ_OK;
}

bool gq__mf_workload_holds(const struct gq__mf_item *it)
{
    return it->wl && (state_bit(it->wl->state) & GQ_WL_HOLDS_QUOTA) != 0;
}

/* status.admissionChecks[]. */
void gq__mf_workload_check(struct gq__mf_item *it, const struct gq__mf_check *ck)
{
    json_object *c = json_object_new_object();

    add_str(c, "name", ck->name);
    add_str(c, "state", ck->state);
    add_time(c, "lastTransitionTime", ck->updated_ms);
    add_str(c, "message", ck->message ? ck->message : "");
    if (!it->checks)
        it->checks = json_object_new_array();
    json_object_array_add(it->checks, c);
}

/* A request and its PodTemplates, as objects, and its config's podSetUpdates.nodeSelector. */
void gq__mf_workload_request(struct gq__mf_item *it, const struct gq__mf_request *r)
{
    json_object *pr = json_tokener_parse(r->spec), *pts = json_tokener_parse(r->templates), *st;
    size_t i, n;

    if (!it->prs) {
        it->prs = json_object_new_array();
        it->updates = json_object_new_array();
    }
    if (pr && r->status && (st = json_tokener_parse(r->status)) != NULL)
        json_object_object_add(pr, "status", st);
    if (pr) {
        json_object_array_add(it->prs, pr);
        json_object_array_add(it->updates, r->updates ? json_tokener_parse(r->updates) : NULL);
    }
    if (!json_object_is_type(pts, json_type_array)) /* damaged: json-c asserts the type */
        n = 0;
    else
        n = json_object_array_length(pts);
    for (i = 0; i < n; i++)
        json_object_array_add(it->prs, json_object_get(json_object_array_get_idx(pts, i)));
    json_object_put(pts);
}

/* ------------------------------------------------------------ the release */

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

/* The requests among the item's objects (the PodTemplates between them skipped). -1 on ENOMEM. */
static int rel_reqs_of(const struct gq__mf_item *it, struct gq__mf_release_reqs *q)
{
    size_t i, n = it->updates ? json_object_array_length(it->updates) : 0;

    if (gq__mf_release_reqs_init(q, n) < 0)
        return -1;
    for (i = 0; n && i < json_object_array_length(it->prs) && q->n < n; i++) {
        json_object *o = json_object_array_get_idx(it->prs, i);
        const char *kind = json_object_get_string(jget(o, "kind"));

        if (!kind || strcmp(kind, "ProvisioningRequest") != 0)
            continue;
        if (gq__mf_release_reqs_add(q, o, jget(o, "status"),
                                    json_object_array_get_idx(it->updates, q->n)) < 0)
            return -1;
    }
    return 0;
}

/* The stored spec of flavor, asked once per printer (a listing has many workloads, few flavors). */
static json_object *flavor_spec(struct gq__mf_printer *r, const char *flavor)
{
    json_object *f = NULL;
    char *text;

    if (!flavor)
        return NULL;
    if (!r->flavors)
        r->flavors = json_object_new_object();
    if (!(f = jget(r->flavors, flavor)) && (text = r->flavor_fn(flavor, r->flavor_payload))) {
        if ((f = json_tokener_parse(text)) != NULL)
            json_object_object_add(r->flavors, flavor, f);
        free(text);
    }
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
static json_object *released(struct gq__mf_printer *r, json_object *tmpl, const char *podset,
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
static void wl_release(struct gq__mf_printer *r, const struct gq__mf_item *it)
{
    json_object *root = it->root;
    json_object *status = jget(root, "status"), *g = jget(status, "gpuq");
    json_object *sets = jget(jget(status, "admission"), "podSetAssignments");
    json_object *rel, *out;
    struct gq__mf_release_reqs reqs;
    size_t i;

    if (!g || !sets || rel_reqs_of(it, &reqs) < 0) {
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
 * Kueue would write (status.gpuq.provisioningRequests); once admitted, the
 * release.
 */
static void wl_checks(struct gq__mf_printer *r, struct gq__mf_item *it)
{
    json_object *status = child(it->root, "status", json_type_object), *g;

    if (it->checks && json_object_array_length(it->checks))
        json_object_object_add(status, "admissionChecks", json_object_get(it->checks));
    if (it->prs && json_object_array_length(it->prs) &&
        json_object_object_get_ex(status, "gpuq", &g))
        json_object_object_add(g, "provisioningRequests", json_object_get(it->prs));
    if (state_bit(it->wl->state) != 1u << GQ_WL_RESERVED)
        wl_release(r, it);
}

/* ---------------------------------------------------- provisioning requests */

/* A ProvisioningRequest as stored, with its provider's status when there is one. */
int gq__mf_provreq_begin(struct gq__mf_printer *p, const gq_provreq_info *pr,
                         struct gq__mf_item **out)
{
    json_object *st;
    int rc;

    (void)p;
    if ((rc = item_begin(pr->object, pr->name, pr->uid, pr->created_ms, out)) != GQ_OK)
        return rc;
    if (pr->status && (st = json_tokener_parse(pr->status)) != NULL)
        json_object_object_add((*out)->root, "status", st);
    return GQ_OK;
}

/*
 * A PodTemplate as stored. Its owner reference to the request is written
 * before the request has a UID; the API server would show it, so it is added.
 */
int gq__mf_podtemplate_begin(struct gq__mf_printer *p, const gq_podtemplate_info *pt,
                             struct gq__mf_item **out)
{
    json_object *refs;
    size_t i;
    int rc;

    (void)p;
    if ((rc = item_begin(pt->object, pt->name, pt->uid, pt->created_ms, out)) != GQ_OK)
        return rc;
    refs = jget(jget((*out)->root, "metadata"), "ownerReferences");
    for (i = 0;
         refs && json_object_is_type(refs, json_type_array) && i < json_object_array_length(refs);
         i++) {
        json_object *ref = json_object_array_get_idx(refs, i), *owner = jget(ref, "name");

        if (owner && !jget(ref, "uid") && !strcmp(json_object_get_string(owner), pt->provreq))
            add_str(ref, "uid", pt->provreq_uid);
    }
    return GQ_OK;
}

/* ------------------------------------------------------------------ printer */

int gq__mf_item_print(struct gq__mf_printer *p, struct gq__mf_item *it)
{
    if (it->wl && gq__mf_workload_holds(it))
        wl_checks(p, it);
    return sink_item(p, it->root);
}

int gq__mf_printer_new(struct gq__mf_printer **out, gq_format format, bool list, gq_write_fn fn,
                       void *payload, gq__mf_flavor_fn flavor_fn, void *flavor_payload,
                       gq_error *err)
{
    struct gq__mf_printer *p;

    if (!(*out = p = calloc(1, sizeof(*p))))
        return gq__error(err, GQ_ENOMEM, "out of memory");
    p->format = format;
    p->list = list;
    p->out.fn = fn;
    p->out.payload = payload;
    p->err = err;
    p->flavor_fn = flavor_fn;
    p->flavor_payload = flavor_payload;
    return GQ_OK;
}

void gq__mf_printer_reset(struct gq__mf_printer *p)
{
    if (p->y_ready)
        yaml_emitter_delete(&p->y);
    p->y_ready = false;
    p->begun = false;
    p->n = 0;
    p->out.len = 0;
    p->out.rc = 0;
}

void gq__mf_printer_free(struct gq__mf_printer *p)
{
    if (!p)
        return;
    gq__mf_printer_reset(p);
    json_object_put(p->flavors);
    free(p->out.buf);
    free(p);
}

void gq__mf_printer_resume(struct gq__mf_printer *p, size_t n, bool begun)
{
    p->n = n;
    p->begun = begun;
}

size_t gq__mf_printer_count(const struct gq__mf_printer *p)
{
    return p->n;
}

bool gq__mf_printer_wrote(const struct gq__mf_printer *p)
{
    return p->out.wrote;
}

int gq__mf_printer_flush(struct gq__mf_printer *p)
{
    int rc;

    if (!p->begun && (rc = sink_begin(p)) != GQ_OK)
        return rc;
    return out_flush(&p->out);
}

int gq__mf_printer_end(struct gq__mf_printer *p, const char *cont)
{
    return sink_end(p, cont);
}
