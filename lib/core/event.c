/*
 * event.c: the words of an event's enums, and gq_event_format, the one
 * printer of events: gpuq run's lines, gpuqd's text log and its JSON lines.
 * Pure: the time printed is the event's own, and the text goes to the
 * caller's buffer.
 *
 * The lines are the ones gpuq and gpuqd printed before they shared this
 * printer, byte for byte, and scripts read them: a transition of the
 * simulated cluster (no level) prints as "job ns/job what" or
 * "provisioningrequest ns/name what", a line of cluster mode's log as
 * "level Kind ns/name what". JSON strings escape quotes, backslashes and
 * every control character (as \u00XX, a newline too), nothing else.
 */
#include "event.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "gpuqueue/tool.h"
#include "state.h"
#include "util.h"

static const char *const level_words[] = {NULL, "info", "warning", "error"};

static const char *const kind_words[] = {"Workload", "Job",  "ProvisioningRequest",
                                         "Lease",    "Sync", "SimProvisioner"};

/* Kueue's workload steps in lower case, a request's conditions as Kubernetes spells them. */
static const char *const what_words[] = {
    NULL,
    GQ_WL_TEXT(reserved),
    GQ_WL_TEXT(admitted),
    GQ_WL_TEXT(evicted),
    GQ_WL_TEXT(deactivated),
    "started",
    GQ_WL_TEXT(finished),
    "Accepted",
    "Provisioned",
    "Failed",
    "BookingExpired",
    "CapacityRevoked",
    "CapacityFound",
    "dispatched",
    "deleted",
    "refused"};

#define WORD(table, i) ((size_t)(i) < sizeof(table) / sizeof(table[0]) ? table[i] : NULL)

const char *gq__event_level_word(gq_event_level level)
{
    return WORD(level_words, level);
}

const char *gq__event_kind_word(gq_event_kind kind)
{
    return WORD(kind_words, kind);
}

const char *gq__event_what_word(gq_event_what what)
{
    return WORD(what_words, what);
}

gq_event_what gq__event_what_of_change(gq_change_kind kind)
{
    switch (kind) {
    case GQ_CHANGE_RESERVED:
        return GQ_EVENT_WHAT_RESERVED;
    case GQ_CHANGE_ADMITTED:
        return GQ_EVENT_WHAT_ADMITTED;
    case GQ_CHANGE_EVICTED:
        return GQ_EVENT_WHAT_EVICTED;
    case GQ_CHANGE_DEACTIVATED:
        return GQ_EVENT_WHAT_DEACTIVATED;
    case GQ_CHANGE_PENDING:
    default:
        return GQ_EVENT_WHAT_OTHER;
    }
}

void gq__event_words(gq_event *e)
{
    e->level = gq__event_level_word(e->level_id);
    if (!e->kind) /* a job's own kind ("JobSet") may be set already */
        e->kind = gq__event_kind_word(e->kind_id);
    if (e->what_id != GQ_EVENT_WHAT_OTHER)
        e->what = gq__event_what_word(e->what_id);
}

/* ----------------------------------------------------------------- the line */

/* The caller's buffer, filled as far as it goes; len counts the whole line, as snprintf does. */
struct line {
    char *buf;
    size_t size;
    size_t len;
};

static void add(struct line *l, const char *s, size_t n)
{
    if (l->len < l->size) {
        size_t room = l->size - 1 - l->len;

        memcpy(l->buf + l->len, s, n < room ? n : room);
        l->buf[l->len + (n < room ? n : room)] = '\0';
    }
    l->len += n;
}

/* A string; NULL adds nothing (the lines never print one: each form tests first). */
static void put(struct line *l, const char *s)
{
    if (s)
        add(l, s, strlen(s));
}

static void putf(struct line *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void putf(struct line *l, const char *fmt, ...)
{
    char b[64];
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(b, sizeof(b), fmt, ap);
    va_end(ap);
    if (n > 0)
        add(l, b, (size_t)n < sizeof(b) ? (size_t)n : sizeof(b) - 1);
}

/* A JSON string: quotes and backslashes escaped, control characters as \u00XX. */
static void json_string(struct line *l, const char *s)
{
    const char *run = s;

    add(l, "\"", 1);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;

        if (c != '"' && c != '\\' && c >= 0x20)
            continue;
        add(l, run, (size_t)(s - run));
        if (c == '"' || c == '\\')
            putf(l, "\\%c", c);
        else
            putf(l, "\\u%04x", c);
        run = s + 1;
    }
    add(l, run, (size_t)(s - run));
    add(l, "\"", 1);
}

/* `,"key":"value"`; nothing when value is NULL. */
static void json_field(struct line *l, const char *key, const char *value)
{
    if (!value)
        return;
    putf(l, ",\"%s\":", key);
    json_string(l, value);
}

/* ms since the epoch as "2026-11-21T08:00:00Z" (the number itself if it has no date). */
static void iso_time(struct line *l, int64_t ms)
{
    time_t t = (time_t)(ms / 1000);
    char b[32];
    struct tm tm;

    if (!gmtime_r(&t, &tm) || !strftime(b, sizeof(b), "%Y-%m-%dT%H:%M:%SZ", &tm))
        snprintf(b, sizeof(b), "%lld", (long long)ms);
    put(l, b);
}

/*
 * After the time, a transition's words: "job ns/job what" or
 * "provisioningrequest ns/name what", after "[cluster]" when it happened on
 * a simulated MultiKueue worker.
 */
static void transition(struct line *l, const gq_event *e)
{
    if (e->cluster) {
        put(l, " [");
        put(l, e->cluster);
        put(l, "]");
    }
    put(l, e->job_name ? " job " : " provisioningrequest ");
    put(l, e->namespace);
    put(l, "/");
    put(l, e->job_name ? e->job_name : e->name);
    put(l, " ");
    put(l, e->what);
}

/* After the time, a log line's words: " level Kind ns/name what: message". */
static void log_words(struct line *l, const gq_event *e)
{
    put(l, " ");
    put(l, e->level);
    put(l, " ");
    put(l, e->kind);
    if (e->namespace || e->name) {
        put(l, " ");
        if (e->namespace) {
            put(l, e->namespace);
            put(l, "/");
        }
        put(l, e->name);
    }
    put(l, " ");
    put(l, e->what);
    if (e->message) {
        put(l, ": ");
        put(l, e->message);
    }
}

static void text(struct line *l, const gq_event *e)
{
    iso_time(l, e->at_ms);
    if (e->level_id != GQ_EVENT_LEVEL_NONE) {
        log_words(l, e);
        return;
    }
    transition(l, e);
    if (e->message) {
        put(l, ": ");
        put(l, e->message);
    }
}

/* gpuq run's line: the time since the start to the second, padded so the words line up. */
static void elapsed(struct line *l, const gq_event *e)
{
    char at[GQ_DURATION_BUFSIZE];

    gq__format_duration_ms(at, sizeof(at), e->elapsed_ms - e->elapsed_ms % 1000, true);
    putf(l, "+%-9s", at);
    if (e->level_id != GQ_EVENT_LEVEL_NONE) {
        log_words(l, e);
        return;
    }
    transition(l, e);
    if (!e->message || !*e->message)
        return;
    /* An admission's message is its flavors, an aside; other messages say why. */
    if (e->what_id == GQ_EVENT_WHAT_RESERVED || e->what_id == GQ_EVENT_WHAT_ADMITTED) {
        put(l, " (");
        put(l, e->message);
        put(l, ")");
    } else {
        put(l, ": ");
        put(l, e->message);
    }
}

static void json(struct line *l, const gq_event *e)
{
    put(l, "{\"time\":\"");
    iso_time(l, e->at_ms);
    put(l, "\"");
    json_field(l, "level", e->level);
    json_field(l, "cluster", e->cluster);
    json_field(l, "kind", e->kind);
    json_field(l, "namespace", e->namespace);
    json_field(l, "name", e->name);
    json_field(l, "job", e->job_name);
    json_field(l, "event", e->what);
    json_field(l, "message", e->message);
    put(l, "}");
}

size_t gq_event_format(char *buf, size_t size, const gq_event *e, gq_event_style style)
{
    struct line l = {buf, size, 0};

    if (size > 0)
        buf[0] = '\0';
    switch (style) {
    case GQ_EVENT_STYLE_JSON:
        json(&l, e);
        break;
    case GQ_EVENT_STYLE_ELAPSED:
        elapsed(&l, e);
        break;
    case GQ_EVENT_STYLE_TEXT:
    default:
        text(&l, e);
        break;
    }
    return l.len;
}
