/*
 * kube_stream.c: the watch-stream decoder (reference §1.5). A watch answer
 * is a sequence of JSON values {"type": ..., "object": ...}, one per event.
 * The API server writes each with a newline after it, but the official
 * reader does not split on newlines and neither do we: HTTP chunks may hold
 * part of an event or several, and only the JSON grammar says where an event
 * ends. So one json_tokener is fed every byte as it arrives; when it returns
 * a complete value, the bytes after json_tokener_get_parse_end() are fed
 * again (the tokener keeps no copy of them and resets itself after each
 * complete value).
 *
 * Invariants: every event is handed to the callback exactly once, in stream
 * order; an event that is well-formed JSON but not a usable event (unknown
 * type, no object, no resourceVersion) is skipped and counted, because one
 * odd event must not cost the whole watch; a syntax error, an event over the
 * byte cap or nested deeper than GQ_KUBE_MAX_DEPTH breaks the stream for
 * good, because nothing after it can be framed reliably.
 *
 * Sizes: events are a few KiB (a Job) and a watch carries a handful per
 * second at most; the cap (16 MiB) only bounds memory against a hostile or
 * broken server.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "kube_stream.h"

struct gq_kube_stream {
    json_tokener *tok;      /* owned; holds the unfinished event's parse state */
    size_t max_bytes;       /* cap on one event's bytes, leading whitespace excluded */
    size_t pending;         /* bytes of the unfinished event fed so far; 0 between events */
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
     * quotes mean the stream is not what we think it is. Trailing characters
     * are allowed because the next event follows the current one.
     */
    json_tokener_set_flags(s->tok, JSON_TOKENER_STRICT | JSON_TOKENER_ALLOW_TRAILING_CHARS |
                                       JSON_TOKENER_VALIDATE_UTF8);
    s->max_bytes = max_bytes ? max_bytes : GQ_KUBE_MAX_BODY;
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
    free(s);
}

bool gq__kube_stream_partial(const struct gq_kube_stream *s)
{
    return s->pending > 0;
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

/*
 * Feed up to len bytes into the tokener: as far as the end of one value, or
 * all of them when the value is still unfinished. *used gets the bytes
 * consumed.
 */
static int feed_value(struct gq_kube_stream *s, const char *buf, size_t len, size_t *used,
                      gq_error *err)
{
    size_t n = s->max_bytes - s->pending;
    enum json_tokener_error e;
    json_object *v;
    int rc;

    if (n > len)
        n = len;
    if (n > INT_MAX)
        n = INT_MAX;
    v = json_tokener_parse_ex(s->tok, buf, (int)n);
    e = json_tokener_get_error(s->tok);
    if (e == json_tokener_continue) {
        *used = n;
        s->pending += n;
        if (s->pending >= s->max_bytes)
            return broken(s, err, "an event is larger than the cap");
        return GQ_OK;
    }
    if (e != json_tokener_success) {
        json_object_put(v);
        return broken(s, err, e == json_tokener_error_depth ? "an event is nested too deeply"
                                                             : json_tokener_error_desc(e));
    }
    *used = json_tokener_get_parse_end(s->tok);
    s->pending = 0;
    rc = dispatch(s, v);
    json_object_put(v);
    return rc;
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

int gq__kube_stream_feed(struct gq_kube_stream *s, const char *buf, size_t len, gq_error *err)
{
    int rc = GQ_OK;
    size_t used;

    if (s->broken)
        return gq__error(err, GQ_EK8S, "watch stream: broken earlier");
    while (len > 0 && rc == GQ_OK) {
        /* Whitespace between events is skipped here, so pending counts only an event's bytes. */
        if (s->pending == 0 && is_space(*buf)) {
            buf++;
            len--;
            continue;
        }
        used = 0;
        rc = feed_value(s, buf, len, &used, err);
        buf += used;
        len -= used;
    }
    return rc;
}
