/*
 * kube_stream.c: the watch-stream decoder (reference §1.5). A watch answer
 * is a sequence of JSON values {"type": ..., "object": ...}, one per event.
 * The API server writes each with a newline after it, but the official
 * reader does not split on newlines and neither do we: HTTP chunks may hold
 * part of an event or several, and only the JSON grammar says where an event
 * ends. So the bytes are framed here, by a small scanner that tracks
 * brackets and strings, into one buffer per event; each complete event is
 * then parsed by json-c in one call.
 *
 * Why not json-c's incremental tokener, fed each chunk as it comes: its
 * result depended on where the chunks were cut (json-c 0.16, found by
 * tests/fuzz/fuzz_watch.c). With JSON_TOKENER_VALIDATE_UTF8 a chunk ending
 * inside a multi-byte character failed, so an "é" cut in two by HTTP broke
 * the watch; and a number cut after a digit took a '-' as part of it, so
 * "[1" + "-2]" parsed while "[1-2]" did not. Framing first means json-c
 * sees the same bytes however they arrived.
 *
 * Invariants: every event is handed to the callback exactly once, in stream
 * order, whatever the chunking; an event that is well-formed JSON but not a
 * usable event (unknown type, no object, no resourceVersion) is skipped and
 * counted, because one odd event must not cost the whole watch; a syntax
 * error, invalid UTF-8, a NUL byte, an event over the byte cap or nested
 * deeper than GQ_KUBE_MAX_DEPTH breaks the stream for good, because nothing
 * after it can be framed reliably. A value at the top that is not an object
 * or array (a string, true, a number) is framed up to the next whitespace
 * or bracket, parsed, and skipped.
 *
 * Sizes: events are a few KiB (a Job) and a watch carries a handful per
 * second at most; the cap (16 MiB) only bounds memory against a hostile or
 * broken server. The buffer is kept between events unless it grew past
 * KEEP_BYTES.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "kube_stream.h"

#define KEEP_BYTES ((size_t)1 << 20) /* a larger event buffer is freed once the event is done */

/* What the unfinished event is, from its first byte. */
enum frame {
    FRAME_NONE,   /* between events */
    FRAME_NEST,   /* an object or array: ends at its closing bracket */
    FRAME_STRING, /* a string: ends at its closing quote */
    FRAME_SCALAR, /* anything else: ends before whitespace, a bracket, a quote, ',' or ':' */
};

struct gq_kube_stream {
    json_tokener *tok;      /* owned; parses each complete event */
    size_t max_bytes;       /* cap on one event's bytes, leading whitespace excluded */
    char *buf;              /* owned: the unfinished event's bytes, then a NUL */
    size_t len, cap;        /* bytes in buf; bytes allocated */
    enum frame kind;        /* FRAME_NONE exactly when len is 0 */
    int depth;              /* brackets open in the unfinished event */
    bool in_string;         /* the scanner is inside a string ... */
    bool escaped;           /* ... just after its backslash */
    uint64_t events;        /* events handed to fn */
    uint64_t skipped;       /* well-formed values that were not usable events */
    bool broken;            /* a fatal error happened; nothing more is decoded */
    gq_kube_stream_fn fn;
    void *payload;
};

int gq__kube_stream_new(struct gq_kube_stream **out, size_t max_bytes, gq_kube_stream_fn fn,
                        void *payload, gq_error *err)
{
    struct gq_kube_stream *s = calloc(1, sizeof(*s));

    *out = NULL;
    if (!s)
        return gq__error(err, GQ_ENOMEM, "out of memory");
    s->tok = json_tokener_new_ex(GQ_KUBE_MAX_DEPTH);
    if (!s->tok) {
        free(s);
        return gq__error(err, GQ_ENOMEM, "out of memory");
    }
    /*
     * Strict: the API server writes standard JSON, so comments, NaN or single
     * quotes mean the stream is not what we think it is. Each event is parsed
     * whole, so nothing may follow it and UTF-8 can be checked by json-c.
     */
    json_tokener_set_flags(s->tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
    s->max_bytes = max_bytes ? max_bytes : GQ_KUBE_MAX_BODY;
    if (s->max_bytes > INT_MAX - 1)
        s->max_bytes = INT_MAX - 1; /* an event and its NUL go to json-c as an int length */
    s->fn = fn;
    s->payload = payload;
    *out = s;
    return GQ_OK;
}

void gq__kube_stream_free(struct gq_kube_stream *s)
{
    if (!s)
        return;
    json_tokener_free(s->tok);
    free(s->buf);
    free(s);
}

bool gq__kube_stream_partial(const struct gq_kube_stream *s)
{
    return s->len > 0;
}

uint64_t gq__kube_stream_events(const struct gq_kube_stream *s)
{
    return s->events;
}

uint64_t gq__kube_stream_skipped(const struct gq_kube_stream *s)
{
    return s->skipped;
}

static bool known_type(const char *t)
{
    static const char *const types[] = {"ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR"};

    for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
        if (strcmp(t, types[i]) == 0)
            return true;
    return false;
}

static bool has_rv(json_object *object)
{
    json_object *meta, *rv;

    return json_object_object_get_ex(object, "metadata", &meta) &&
           json_object_is_type(meta, json_type_object) &&
           json_object_object_get_ex(meta, "resourceVersion", &rv) &&
           json_object_is_type(rv, json_type_string) && json_object_get_string_len(rv) > 0;
}

/* Hand one decoded value to the callback if it is a usable event, else count it. */
static int dispatch(struct gq_kube_stream *s, json_object *ev)
{
    json_object *t, *object;
    const char *type;

    if (!json_object_is_type(ev, json_type_object) ||
        !json_object_object_get_ex(ev, "type", &t) || !json_object_is_type(t, json_type_string))
        goto skip;
    type = json_object_get_string(t);
    if (!known_type(type))
        goto skip;
    if (!json_object_object_get_ex(ev, "object", &object) ||
        !json_object_is_type(object, json_type_object))
        goto skip;
    /* An ERROR carries a Status, which has no resourceVersion; every other event must. */
    if (strcmp(type, "ERROR") != 0 && !has_rv(object))
        goto skip;
    s->events++;
    return s->fn(type, object, s->payload);
skip:
    s->skipped++;
    return GQ_OK;
}

static int broken(struct gq_kube_stream *s, gq_error *err, const char *why)
{
    s->broken = true;
    return gq__error(err, GQ_EK8S, "watch stream: %s", why);
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/*
 * Scan the len bytes at p: *n gets how many belong to the unfinished event,
 * *done whether they complete it. -1 for a NUL byte (never in JSON text),
 * -2 for nesting deeper than GQ_KUBE_MAX_DEPTH (caught before buffering).
 */
static int scan(struct gq_kube_stream *s, const char *p, size_t len, size_t *n, bool *done)
{
    size_t i;

    for (i = 0; i < len; i++) {
        char c = p[i];

        if (c == '\0')
            return -1;
        if (s->kind == FRAME_SCALAR) {
            if (s->len + i > 0 && (is_space(c) || strchr("{}[]\",:", c)))
                break;
        } else if (s->in_string) {
            if (s->escaped) {
                s->escaped = false;
            } else if (c == '\\') {
                s->escaped = true;
            } else if (c == '"') {
                s->in_string = false;
                if (s->depth == 0)
                    break;
            }
        } else if (c == '"') {
            s->in_string = true;
        } else if (c == '{' || c == '[') {
            if (++s->depth > GQ_KUBE_MAX_DEPTH)
                return -2;
        } else if ((c == '}' || c == ']') && --s->depth == 0) {
            break;
        }
    }
    *done = i < len;
    /* A closing bracket or quote is the event's; the byte that ends a scalar is not. */
    *n = i + (*done && s->kind != FRAME_SCALAR);
    return 0;
}

/* Append n bytes to the event's buffer, which stays NUL-terminated. */
static int append(struct gq_kube_stream *s, const char *p, size_t n, gq_error *err)
{
    size_t cap = s->cap ? s->cap : 4096;
    char *grown;

    if (n > s->max_bytes - s->len)
        return broken(s, err, "an event is larger than the cap");
    while (cap < s->len + n + 1)
        cap *= 2;
    if (cap != s->cap) {
        if (!(grown = realloc(s->buf, cap))) {
            s->broken = true; /* the event's bytes are lost: nothing after can be framed */
            return gq__error(err, GQ_ENOMEM, "out of memory");
        }
        s->buf = grown;
        s->cap = cap;
    }
    memcpy(s->buf + s->len, p, n);
    s->len += n;
    s->buf[s->len] = '\0';
    return GQ_OK;
}

/* Parse the complete event in buf, hand it on, and make ready for the next. */
static int finish(struct gq_kube_stream *s, gq_error *err)
{
    enum json_tokener_error e;
    json_object *v;
    int rc;

    json_tokener_reset(s->tok);
    /* The NUL goes in too: it is what ends a number at the top. */
    v = json_tokener_parse_ex(s->tok, s->buf, (int)s->len + 1);
    e = json_tokener_get_error(s->tok);
    s->len = 0;
    s->kind = FRAME_NONE;
    if (s->cap > KEEP_BYTES) {
        free(s->buf);
        s->buf = NULL;
        s->cap = 0;
    }
    if (e != json_tokener_success) {
        json_object_put(v);
        return broken(s, err, e == json_tokener_error_depth ? "an event is nested too deeply"
                              : e == json_tokener_continue  ? "an event is cut short"
                                                            : json_tokener_error_desc(e));
    }
    rc = dispatch(s, v);
    json_object_put(v);
    return rc;
}

/* The first byte of an event says what it is. */
static void start(struct gq_kube_stream *s, char c)
{
    s->kind = c == '{' || c == '[' ? FRAME_NEST : c == '"' ? FRAME_STRING : FRAME_SCALAR;
    s->depth = 0;
    s->in_string = s->escaped = false;
}

int gq__kube_stream_feed(struct gq_kube_stream *s, const char *buf, size_t len, gq_error *err)
{
    int rc = GQ_OK;
    bool done;
    size_t n;

    if (s->broken)
        return gq__error(err, GQ_EK8S, "watch stream: broken earlier");
    while (len > 0 && rc == GQ_OK) {
        if (s->kind == FRAME_NONE) {
            if (is_space(*buf)) { /* between events: not counted against the cap */
                buf++;
                len--;
                continue;
            }
            start(s, *buf);
        }
        if ((rc = scan(s, buf, len, &n, &done)) != 0)
            return broken(s, err, rc == -1 ? "a NUL byte" : "an event is nested too deeply");
        if ((rc = append(s, buf, n, err)) == GQ_OK && done)
            rc = finish(s, err);
        buf += n;
        len -= n;
    }
    return rc;
}
