/*
 * kube_informer.c: informers, client-go's Reflector in C (reference §1.1 to
 * §1.4). Each informer keeps a receiver in step with one collection: it
 * lists the collection in pages of 500 (resourceVersion="" for a consistent
 * read, continue tokens for the next pages), hands the whole list to
 * replace(), then watches from the list's resourceVersion and hands every
 * ADDED, MODIFIED and DELETED event to event(), moving its stored RV with
 * every event, bookmarks included.
 *
 * Everything runs inside gq__kube_poll on the caller's thread: one curl
 * multi handle carries every informer's current request (a list page or a
 * watch; one easy handle per informer), and the watch bytes go straight
 * from curl's write callback into the stream decoder, whose events reach
 * the receiver from there. So callbacks run inside curl_multi_perform: they
 * may make calls (gq__kube_call uses another handle) but must not poll or
 * free an informer.
 *
 * Invariants:
 *  - replace() only ever sees a complete list: pages accumulate in items and
 *    a 410 on a continue token throws them away and starts again;
 *  - the stored RV moves only after the receiver accepted the event, so an
 *    event whose callback failed is delivered again by the next watch;
 *  - nothing loops hot: every failure goes through the backoff (800 ms
 *    doubling to 30 s, jittered, forgotten after 2 min without failures);
 *    the only immediate retries are a clean end of a watch that lived (the
 *    server's timeoutSeconds), the first relist after an expired watch, the
 *    next list page, and one repeat after a 401 with a fresh credential.
 *
 * Sizes: gpuqd runs a handful of informers (Jobs, ProvisioningRequests,
 * PodTemplates, the queue kinds); each watch sees a few events per second.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "error.h"
#include "kube.h"
#include "kube_stream.h"
#include "util.h"

#define PAGE_SIZE 500
#define GQ_XSTR(x) #x
#define GQ_STR(x) GQ_XSTR(x)
#define BACKOFF_FIRST_MS 800
#define BACKOFF_MAX_MS 30000
#define BACKOFF_RESET_MS 120000
#define SHORT_WATCH_MS 1000
#define WATCH_MIN_S 300
#define WATCH_MAX_S 600
#define IDLE_GRACE_MS 30000
/* Longest sleep in gq__kube_poll between looks at the stop flag. */
#define POLL_SLICE_MS 250
/* A positive value the event callback returns to make the decoder stop (GQ codes are < 0). */
#define STOP_STREAM 1

enum phase {
    PHASE_IDLE,  /* no request in flight: the next one starts at due_ms */
    PHASE_LIST,  /* a list page in flight */
    PHASE_WATCH, /* a watch in flight */
};

/* Why a watch stopped before the server ended it, as found by the callbacks. */
enum watch_end {
    END_NONE,
    END_EXPIRED, /* ERROR event: 410, Expired or Gone: relist */
    END_ERROR,   /* another ERROR event: back off and watch again */
    END_BROKEN,  /* the stream could not be decoded */
    END_CALLBACK /* the receiver returned an error */
};

struct gq_kube_informer {
    struct gq_kube *k;            /* borrowed; NULL once the client is closed */
    struct gq_kube_informer *next; /* the client's list of informers */
    char *path;                   /* the collection, owned */
    char *selector;               /* label selector, URL-escaped (curl_free), or NULL */
    struct gq_kube_informer_ops ops;
    void *payload;
    CURL *easy;                   /* owned; carries list pages and watches in turn */
    struct curl_slist *hdrs;      /* the request in flight's headers (hold the token) */
    enum phase phase;
    bool want_list;               /* the next request is a list (from scratch or a next page) */
    bool reserved;                /* a rate-limit token is taken for the next request */
    bool invalidate;              /* the next request asks for a fresh credential (after a 401) */
    bool reauthed;                /* the last answer was a 401 already retried at once */
    int64_t due_ms;               /* when the next request may start (monotonic) */
    char *rv;                     /* the last resourceVersion seen, "" before the first list */
    char *cont;                   /* the continue token of the list in progress, or NULL */
    json_object *items;           /* the list in progress: every page's items so far */
    struct gq_kube_body body;     /* a list page, or the body of a failed watch */
    struct gq_kube_stream *stream; /* the watch in flight's decoder */
    bool is_stream;               /* the watch answered 200: its bytes go to the decoder */
    bool status_seen;             /* the watch's first bytes arrived (is_stream is known) */
    enum watch_end end;
    int cb_rc;                    /* the receiver's error, returned by gq__kube_poll */
    int64_t started_ms;           /* when the watch in flight started */
    int64_t last_byte_ms;         /* when the watch in flight last received bytes */
    int64_t idle_ms;              /* silence after which the watch is given up */
    int64_t idle_override_ms;     /* GQ_KUBE_WATCH_IDLE_MS, or 0 */
    uint64_t events;              /* events (bookmarks included) of the watch in flight */
    uint64_t delivered;           /* callbacks made (replace and events), ever */
    int level;                    /* backoff steps taken since the last reset */
    int64_t last_fail_ms;         /* when the backoff was last used */
    bool synced;
    uint64_t lists, watches;
    bool has_problem;
    char problem[256];            /* why the collection is not watched right now */
    char errbuf[CURL_ERROR_SIZE];
};

/* ---------------------------------------------------------------- health */

/* The next backoff delay; *first says that no failure happened in the last 2 min. */
static int64_t backoff_next(struct gq_kube_informer *inf, bool *first)
{
    int64_t now = gq__kube_now_ms(), d = BACKOFF_FIRST_MS;

    if (inf->level > 0 && now - inf->last_fail_ms > BACKOFF_RESET_MS)
        inf->level = 0;
    if (first)
        *first = inf->level == 0;
    for (int i = 0; i < inf->level && d < BACKOFF_MAX_MS; i++)
        d *= 2;
    if (d > BACKOFF_MAX_MS)
        d = BACKOFF_MAX_MS;
    d += (int64_t)(gq__kube_random(inf->k) * (double)d);
    if (d > BACKOFF_MAX_MS)
        d = BACKOFF_MAX_MS;
    if (inf->level < 16)
        inf->level++;
    inf->last_fail_ms = now;
    return d;
}

static void set_problem(struct gq_kube_informer *inf, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void set_problem(struct gq_kube_informer *inf, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(inf->problem, sizeof(inf->problem), fmt, ap);
    va_end(ap);
    inf->has_problem = true;
}

/* A failure: say why and try the same step again after the backoff. */
static void fail(struct gq_kube_informer *inf, const char *what, const char *why)
{
    set_problem(inf, "%s %s: %s", what, inf->path, why);
    inf->due_ms = gq__kube_now_ms() + backoff_next(inf, NULL);
}

/* The stored RV is too old: list again, at once unless this keeps happening. */
static void relist(struct gq_kube_informer *inf)
{
    bool first;
    int64_t d = backoff_next(inf, &first);

    inf->want_list = true;
    free(inf->cont);
    inf->cont = NULL;
    json_object_put(inf->items);
    inf->items = NULL;
    inf->due_ms = gq__kube_now_ms() + (first ? 0 : d);
}

/* ------------------------------------------------------------- requests */

/* path?query with the selector in front when there is one. NULL: out of memory. */
static char *request_path(const struct gq_kube_informer *inf, const char *query)
{
    size_t n = strlen(inf->path) + strlen(query) + 32 + (inf->selector ? strlen(inf->selector) : 0);
    char *p = malloc(n);

    if (!p)
        return NULL;
    if (inf->selector)
        snprintf(p, n, "%s?labelSelector=%s&%s", inf->path, inf->selector, query);
    else
        snprintf(p, n, "%s?%s", inf->path, query);
    return p;
}

static char *list_path(struct gq_kube_informer *inf)
{
    char *esc, *q, *p = NULL;
    size_t n;

    if (!inf->cont)
        return request_path(inf, "limit=" GQ_STR(PAGE_SIZE) "&resourceVersion=");
    esc = curl_easy_escape(inf->easy, inf->cont, 0);
    if (!esc)
        return NULL;
    n = strlen(esc) + 32;
    q = malloc(n);
    if (q) {
        /* A continue token carries its own RV: the server refuses both together. */
        snprintf(q, n, "limit=%d&continue=%s", PAGE_SIZE, esc);
        p = request_path(inf, q);
        free(q);
    }
    curl_free(esc);
    return p;
}

static char *watch_path(struct gq_kube_informer *inf, int timeout_s)
{
    char *esc = curl_easy_escape(inf->easy, inf->rv, 0), *q, *p = NULL;
    size_t n;

    if (!esc)
        return NULL;
    n = strlen(esc) + 96;
    q = malloc(n);
    if (q) {
        snprintf(q, n, "watch=1&allowWatchBookmarks=true&resourceVersion=%s&timeoutSeconds=%d",
                 esc, timeout_s);
        p = request_path(inf, q);
        free(q);
    }
    curl_free(esc);
    return p;
}

static size_t watch_write(char *data, size_t size, size_t n, void *payload);
static void stop_transfer(struct gq_kube_informer *inf);

/* Put a prepared GET of path on the multi handle. */
static int send_get(struct gq_kube_informer *inf, const char *path, int64_t timeout_ms,
                    gq_error *err)
{
    struct gq_kube_auth auth;
    bool watch = inf->phase == PHASE_WATCH;
    int rc;

    rc = gq__kube_credential(inf->k, inf->invalidate, &auth, err);
    inf->invalidate = false;
    if (rc == GQ_OK)
        rc = gq__kube_prepare(inf->k, inf->easy, "GET", path, NULL, NULL, &auth, timeout_ms,
                              inf->errbuf, &inf->hdrs, err);
    if (rc != GQ_OK)
        return rc;
    if (curl_easy_setopt(inf->easy, CURLOPT_WRITEFUNCTION,
                         watch ? watch_write : gq__kube_body_write) ||
        curl_easy_setopt(inf->easy, CURLOPT_WRITEDATA, watch ? (void *)inf : &inf->body) ||
        curl_easy_setopt(inf->easy, CURLOPT_PRIVATE, inf) ||
        curl_multi_add_handle(gq__kube_multi(inf->k), inf->easy) != CURLM_OK)
        return gq__error(err, GQ_EK8S, "cannot start a request for %s", inf->path);
    return GQ_OK;
}

static int start_list(struct gq_kube_informer *inf, gq_error *err)
{
    char *path = list_path(inf);
    int rc;

    if (!path)
        return gq__error(err, GQ_ENOMEM, "out of memory");
    gq__kube_body_free(&inf->body);
    inf->phase = PHASE_LIST;
    rc = send_get(inf, path, gq__kube_limits(inf->k)->timeout_ms, err);
    free(path);
    return rc;
}

static int on_event(const char *type, json_object *object, void *payload);

static int start_watch(struct gq_kube_informer *inf, gq_error *err)
{
    int timeout_s = WATCH_MIN_S + (int)(gq__kube_random(inf->k) * (WATCH_MAX_S - WATCH_MIN_S + 1));
    char *path = NULL;
    int rc;

    gq__kube_stream_free(inf->stream);
    inf->stream = NULL;
    rc = gq__kube_stream_new(&inf->stream, 0, on_event, inf, err);
    if (rc == GQ_OK && !(path = watch_path(inf, timeout_s)))
        rc = gq__error(err, GQ_ENOMEM, "out of memory");
    if (rc != GQ_OK)
        return rc;
    gq__kube_body_free(&inf->body);
    inf->phase = PHASE_WATCH;
    inf->is_stream = inf->status_seen = false;
    inf->end = END_NONE;
    inf->events = 0;
    inf->started_ms = inf->last_byte_ms = gq__kube_now_ms();
    inf->idle_ms = inf->idle_override_ms ? inf->idle_override_ms
                                         : (int64_t)timeout_s * 1000 + IDLE_GRACE_MS;
    inf->watches++;
    rc = send_get(inf, path, 0, err);
    free(path);
    return rc;
}

/* Start the next request if its time has come and the rate limit lets it. */
static int start_due(struct gq_kube_informer *inf, int64_t now, gq_error *err)
{
    int64_t wait;
    gq_error e = {0};
    int rc;

    if (inf->phase != PHASE_IDLE || now < inf->due_ms)
        return GQ_OK;
    if (!inf->reserved) {
        inf->reserved = true;
        wait = gq__kube_reserve(inf->k);
        if (wait > 0) {
            inf->due_ms = now + wait;
            return GQ_OK;
        }
    }
    inf->reserved = false;
    rc = inf->want_list ? start_list(inf, &e) : start_watch(inf, &e);
    if (rc == GQ_OK)
        return GQ_OK;
    stop_transfer(inf);
    if (rc == GQ_ENOMEM)
        return gq__error(err, rc, "%s", e.msg);
    /* A request that never left (a failing exec plugin, say) is retried after the backoff. */
    fail(inf, inf->want_list ? "list" : "watch", e.msg);
    return GQ_OK;
}

/* Take the transfer off the multi handle and wipe its headers. */
static void stop_transfer(struct gq_kube_informer *inf)
{
    if (inf->phase != PHASE_IDLE && inf->k)
        curl_multi_remove_handle(gq__kube_multi(inf->k), inf->easy);
    inf->phase = PHASE_IDLE;
    curl_easy_setopt(inf->easy, CURLOPT_HTTPHEADER, NULL);
    gq__kube_headers_free(inf->hdrs);
    inf->hdrs = NULL;
}

/* --------------------------------------------------------------- answers */

/* A non-200 answer to a list page or a watch. */
static void on_status(struct gq_kube_informer *inf, const char *what,
                      const struct gq_kube_resp *r)
{
    int64_t now = gq__kube_now_ms();
    char line[GQ_KUBE_STATUS_LINE];

    if (r->status == 401) {
        /* Fetch a fresh credential; repeat at once the first time only. */
        inf->invalidate = true;
        fail(inf, what, "unauthorized (401)");
        if (!inf->reauthed)
            inf->due_ms = now;
        inf->reauthed = true;
        return;
    }
    inf->reauthed = false;
    if (r->status == 404) {
        set_problem(inf, "%s is not served (404): is its CustomResourceDefinition installed?",
                    inf->path);
        inf->due_ms = now + BACKOFF_MAX_MS;
        return;
    }
    gq__kube_status_line(line, sizeof(line), r);
    fail(inf, what, line);
    if (r->retry_after_s > 0 && now + (int64_t)(r->retry_after_s * 1000) > inf->due_ms)
        inf->due_ms = now + (int64_t)(r->retry_after_s * 1000);
}

static const char *json_str(json_object *o, const char *key)
{
    json_object *v;

    if (o && json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string))
        return json_object_get_string(v);
    return NULL;
}

static int set_rv(struct gq_kube_informer *inf, const char *rv)
{
    char *copy = strdup(rv);

    if (!copy)
        return GQ_ENOMEM;
    free(inf->rv);
    inf->rv = copy;
    return GQ_OK;
}

/* The last page arrived: the whole list goes to replace, then the watch starts. */
static int list_done(struct gq_kube_informer *inf, const char *rv)
{
    int rc = set_rv(inf, rv);

    if (rc == GQ_OK && inf->ops.replace) {
        inf->delivered++;
        rc = inf->ops.replace(inf->items, inf->payload);
    }
    json_object_put(inf->items);
    inf->items = NULL;
    if (rc != GQ_OK) {
        relist(inf);
        return rc;
    }
    inf->synced = true;
    inf->lists++;
    inf->want_list = false;
    inf->has_problem = false;
    inf->due_ms = gq__kube_now_ms();
    return GQ_OK;
}

/* Append a page's items (borrowed) to the list in progress. */
/*
 * metadata.managedFields is the largest part of most objects a real server
 * lists and nobody here reads it: dropped as each page arrives (client-go's
 * informers are given the same transform), so a first list of 10,000 Jobs
 * is held at its useful size until replace.
 */
static void trim(json_object *item)
{
    json_object *meta = NULL;

    if (json_object_object_get_ex(item, "metadata", &meta) &&
        json_object_is_type(meta, json_type_object))
        json_object_object_del(meta, "managedFields");
}

static int keep_items(struct gq_kube_informer *inf, json_object *items)
{
    json_object *item;

    if (!inf->items && !(inf->items = json_object_new_array()))
        return GQ_ENOMEM;
    for (size_t i = 0; items && i < json_object_array_length(items); i++) {
        trim(json_object_array_get_idx(items, i));
        item = json_object_get(json_object_array_get_idx(items, i));
        if (json_object_array_add(inf->items, item) != 0) {
            json_object_put(item);
            return GQ_ENOMEM;
        }
    }
    return GQ_OK;
}

/* A 200 list page: keep its items; fetch the next page or finish. */
static int add_page(struct gq_kube_informer *inf, json_object *page)
{
    json_object *items = NULL, *meta = NULL;
    const char *cont, *rv;

    if (!page || !json_object_object_get_ex(page, "items", &items) ||
        !json_object_object_get_ex(page, "metadata", &meta) ||
        (items && !json_object_is_type(items, json_type_array))) {
        fail(inf, "list", "the answer is not a list");
        return GQ_OK;
    }
    if (keep_items(inf, items) != GQ_OK)
        return GQ_ENOMEM;
    cont = json_str(meta, "continue");
    rv = json_str(meta, "resourceVersion");
    free(inf->cont);
    inf->cont = NULL;
    if (cont && *cont) {
        inf->cont = strdup(cont);
        inf->due_ms = gq__kube_now_ms();
        return inf->cont ? GQ_OK : GQ_ENOMEM;
    }
    if (!rv || !*rv) {
        relist(inf);
        fail(inf, "list", "the list has no resourceVersion");
        return GQ_OK;
    }
    return list_done(inf, rv);
}

static int list_finished(struct gq_kube_informer *inf, CURLcode c)
{
    struct gq_kube_resp r;
    int rc = GQ_OK;

    if (c != CURLE_OK) {
        fail(inf, "list", inf->body.too_big ? "a page is larger than the cap"
                          : inf->errbuf[0]       ? inf->errbuf
                                                 : curl_easy_strerror(c));
        gq__kube_body_free(&inf->body);
        return GQ_OK;
    }
    if (gq__kube_resp_take(&r, inf->easy, &inf->body) != GQ_OK)
        return GQ_ENOMEM;
    if (r.status == 200) {
        inf->reauthed = false;
        rc = add_page(inf, r.json);
    } else if (r.status == 410 && inf->cont) {
        /* The continue token expired: the pages so far are worthless; start over. */
        relist(inf);
    } else {
        on_status(inf, "list", &r);
    }
    gq__kube_resp_free(&r);
    return rc;
}

/* --------------------------------------------------------------- watches */

/* An ERROR event's Status: expired (410, Expired, Gone, too large RV) or not. */
static bool expired(json_object *status)
{
    json_object *code;
    const char *reason = json_str(status, "reason"), *msg = json_str(status, "message");

    if (json_object_object_get_ex(status, "code", &code) &&
        json_object_is_type(code, json_type_int) && json_object_get_int64(code) == 410)
        return true;
    if (reason && (strcmp(reason, "Expired") == 0 || strcmp(reason, "Gone") == 0))
        return true;
    return msg && strstr(msg, "oo large resource version");
}

static int on_error_event(struct gq_kube_informer *inf, json_object *status)
{
    const char *msg = json_str(status, "message");

    if (expired(status)) {
        inf->end = END_EXPIRED;
    } else {
        inf->end = END_ERROR;
        set_problem(inf, "watch %s: %s", inf->path, msg ? msg : "error event");
    }
    return STOP_STREAM;
}

static int on_event(const char *type, json_object *object, void *payload)
{
    struct gq_kube_informer *inf = payload;
    json_object *meta;
    int rc;

    if (strcmp(type, "ERROR") == 0)
        return on_error_event(inf, object);
    /* The decoder guarantees metadata.resourceVersion for every other event. */
    json_object_object_get_ex(object, "metadata", &meta);
    if (strcmp(type, "BOOKMARK") != 0 && inf->ops.event) {
        inf->delivered++;
        rc = inf->ops.event(type, object, inf->payload);
        if (rc != GQ_OK) {
            inf->end = END_CALLBACK;
            inf->cb_rc = rc;
            return STOP_STREAM;
        }
    }
    rc = set_rv(inf, json_str(meta, "resourceVersion"));
    if (rc != GQ_OK) {
        inf->end = END_CALLBACK;
        inf->cb_rc = rc;
        return STOP_STREAM;
    }
    inf->events++;
    return GQ_OK;
}

/* Watch bytes: a 200 answer goes to the decoder, anything else is a body to read at the end. */
static size_t watch_write(char *data, size_t size, size_t n, void *payload)
{
    struct gq_kube_informer *inf = payload;
    long status = 0;
    gq_error e;

    inf->last_byte_ms = gq__kube_now_ms();
    if (!inf->status_seen) {
        curl_easy_getinfo(inf->easy, CURLINFO_RESPONSE_CODE, &status);
        inf->is_stream = status == 200;
        inf->status_seen = true;
    }
    if (!inf->is_stream)
        return gq__kube_body_write(data, size, n, &inf->body);
    if (gq__kube_stream_feed(inf->stream, data, size * n, &e) == GQ_OK)
        return size * n;
    if (inf->end == END_NONE) {
        inf->end = END_BROKEN;
        set_problem(inf, "watch %s: %s", inf->path, e.msg);
    }
    return 0;
}

/* The watch answered 200 and ended: decide between re-watch, relist and backoff. */
static int stream_ended(struct gq_kube_informer *inf, CURLcode c)
{
    int64_t lived = gq__kube_now_ms() - inf->started_ms;
    int rc;

    switch (inf->end) {
    case END_CALLBACK:
        rc = inf->cb_rc;
        inf->cb_rc = GQ_OK;
        inf->due_ms = gq__kube_now_ms();
        return rc;
    case END_EXPIRED:
        relist(inf);
        return GQ_OK;
    case END_ERROR:
    case END_BROKEN:
        inf->due_ms = gq__kube_now_ms() + backoff_next(inf, NULL);
        return GQ_OK;
    case END_NONE:
        break;
    }
    if (c != CURLE_OK)
        fail(inf, "watch", inf->errbuf[0] ? inf->errbuf : curl_easy_strerror(c));
    else if (gq__kube_stream_partial(inf->stream))
        fail(inf, "watch", "the stream ended inside an event");
    else if (inf->events == 0 && lived < SHORT_WATCH_MS)
        fail(inf, "watch", "the watch ended at once with no events");
    else
        inf->due_ms = gq__kube_now_ms(); /* the server's timeoutSeconds: watch on */
    return GQ_OK;
}

static int watch_finished(struct gq_kube_informer *inf, CURLcode c)
{
    struct gq_kube_resp r;
    long status = 0;

    curl_easy_getinfo(inf->easy, CURLINFO_RESPONSE_CODE, &status);
    /* A 200 whose body was empty never reached watch_write: it is a stream all the same. */
    if (inf->is_stream || (status == 200 && inf->body.len == 0)) {
        inf->reauthed = false;
        return stream_ended(inf, c);
    }
    if (c != CURLE_OK && status == 0) {
        fail(inf, "watch", inf->errbuf[0] ? inf->errbuf : curl_easy_strerror(c));
        return GQ_OK;
    }
    if (gq__kube_resp_take(&r, inf->easy, &inf->body) != GQ_OK)
        return GQ_ENOMEM;
    if (r.status == 410)
        relist(inf);
    else
        on_status(inf, "watch", &r);
    gq__kube_resp_free(&r);
    return GQ_OK;
}

/* A transfer completed (or failed): read its answer and choose the next step. */
static int finished(struct gq_kube_informer *inf, CURLcode c)
{
    enum phase was = inf->phase;

    stop_transfer(inf);
    if (was == PHASE_LIST)
        return list_finished(inf, c);
    return watch_finished(inf, c);
}

/* ------------------------------------------------------------------ poll */

static int reap(struct gq_kube *k)
{
    struct gq_kube_informer *inf;
    CURLMsg *m;
    int left, rc;

    while ((m = curl_multi_info_read(gq__kube_multi(k), &left))) {
        if (m->msg != CURLMSG_DONE)
            continue;
        inf = NULL;
        curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&inf);
        if (!inf)
            continue;
        rc = finished(inf, m->data.result);
        if (rc != GQ_OK)
            return rc;
    }
    return GQ_OK;
}

/*
 * A watch in flight: once the server has accepted it (200, whether or not an
 * event came yet) the collection is watched again and the last problem is
 * over; one silent past its limit is half-open (no FIN ever comes): give it up.
 */
static void check_watch(struct gq_kube_informer *inf, int64_t now)
{
    long status = 0;
    char why[64];

    if (inf->phase != PHASE_WATCH)
        return;
    if (inf->has_problem && inf->end == END_NONE &&
        curl_easy_getinfo(inf->easy, CURLINFO_RESPONSE_CODE, &status) == CURLE_OK && status == 200)
        inf->has_problem = false;
    if (now - inf->last_byte_ms < inf->idle_ms)
        return;
    stop_transfer(inf);
    snprintf(why, sizeof(why), "no bytes for %lld ms", (long long)(now - inf->last_byte_ms));
    fail(inf, "watch", why);
}

/* The longest gq__kube_poll may sleep: until the next due request or idle limit. */
static int64_t next_wakeup(struct gq_kube *k, int64_t now, int64_t deadline)
{
    int64_t w = deadline - now, t;

    if (w > POLL_SLICE_MS)
        w = POLL_SLICE_MS;
    for (struct gq_kube_informer *inf = *gq__kube_informer_head(k); inf; inf = inf->next) {
        t = inf->phase == PHASE_IDLE    ? inf->due_ms - now
            : inf->phase == PHASE_WATCH ? inf->last_byte_ms + inf->idle_ms - now
                                        : w;
        if (t < w)
            w = t;
    }
    return w < 0 ? 0 : w;
}

static int step(struct gq_kube *k, gq_error *err)
{
    int64_t now = gq__kube_now_ms();
    int running, rc = GQ_OK;

    for (struct gq_kube_informer *inf = *gq__kube_informer_head(k); inf && !rc; inf = inf->next)
        rc = start_due(inf, now, err);
    if (rc == GQ_OK && curl_multi_perform(gq__kube_multi(k), &running) != CURLM_OK)
        rc = gq__error(err, GQ_EK8S, "libcurl multi handle failed");
    if (rc == GQ_OK)
        rc = reap(k);
    now = gq__kube_now_ms();
    for (struct gq_kube_informer *inf = *gq__kube_informer_head(k); inf; inf = inf->next)
        check_watch(inf, now);
    return rc;
}

static uint64_t delivered(struct gq_kube *k)
{
    uint64_t n = 0;

    for (struct gq_kube_informer *inf = *gq__kube_informer_head(k); inf; inf = inf->next)
        n += inf->delivered;
    return n;
}

int gq__kube_poll(struct gq_kube *k, int64_t timeout_ms, gq_error *err)
{
    volatile sig_atomic_t *stop = gq__kube_limits(k)->stop;
    int64_t deadline = gq__kube_now_ms() + (timeout_ms > 0 ? timeout_ms : 0), now;
    int rc;

    if (err)
        err->code = GQ_OK;
    for (;;) {
        uint64_t before = delivered(k);

        rc = step(k, err);
        if (rc != GQ_OK) {
            /* A receiver's code comes without a message: name where it came from. */
            if (err && err->code != rc)
                gq__error(err, rc, "an informer's receiver failed: %s", gq_strerror(rc));
            return rc;
        }
        now = gq__kube_now_ms();
        /* Something arrived: hand back at once, so the caller reacts within milliseconds. */
        if (now >= deadline || (stop && *stop) || delivered(k) != before)
            return GQ_OK;
        curl_multi_poll(gq__kube_multi(k), NULL, 0, (int)next_wakeup(k, now, deadline), NULL);
    }
}

/* -------------------------------------------------------------- lifecycle */

static int64_t idle_override(void)
{
    /*
     * Test-only: GQ_KUBE_WATCH_IDLE_MS shortens the silence after which a
     * watch is given up (normally timeoutSeconds + 30 s), so that the
     * integration tests can exercise the half-open case in seconds.
     */
#ifdef GQ_TEST_HOOKS
    const char *s = getenv("GQ_KUBE_WATCH_IDLE_MS");
    char *end;
    long long v;

    if (!s || !*s)
        return 0;
    v = strtoll(s, &end, 10);
    return *end == '\0' && v > 0 ? v : 0;
#else
    return 0; /* test builds only (GQ_TEST_HOOKS), as GQ_CRASH_AT */
#endif
}

static int informer_init(struct gq_kube_informer *inf, const char *path, const char *selector,
                         gq_error *err)
{
    inf->easy = curl_easy_init();
    inf->path = strdup(path);
    inf->rv = strdup("");
    if (!inf->easy || !inf->path || !inf->rv)
        return gq__error(err, GQ_ENOMEM, "out of memory");
    if (selector && *selector && !(inf->selector = curl_easy_escape(inf->easy, selector, 0)))
        return gq__error(err, GQ_ENOMEM, "out of memory");
    inf->want_list = true;
    inf->idle_override_ms = idle_override();
    return GQ_OK;
}

int gq__kube_informer_new(struct gq_kube_informer **out, struct gq_kube *k, const char *path,
                          const char *label_selector, const struct gq_kube_informer_ops *ops,
                          void *payload, gq_error *err)
{
    struct gq_kube_informer *inf, **tail;
    int rc;

    *out = NULL;
    if (!path || path[0] != '/' || strchr(path, '?'))
        return gq__error(err, GQ_EINVALID, "informer path must start with / and have no query");
    inf = calloc(1, sizeof(*inf));
    if (!inf)
        return gq__error(err, GQ_ENOMEM, "out of memory");
    inf->k = k;
    inf->ops = *ops;
    inf->payload = payload;
    rc = informer_init(inf, path, label_selector, err);
    if (rc != GQ_OK) {
        gq__kube_informer_free(inf);
        return rc;
    }
    /* Appended, so that informers start in the order they were made. */
    for (tail = gq__kube_informer_head(k); *tail; tail = &(*tail)->next)
        ;
    *tail = inf;
    *out = inf;
    return GQ_OK;
}

static void unlink_informer(struct gq_kube_informer *inf)
{
    struct gq_kube_informer **p;

    if (!inf->k)
        return;
    for (p = gq__kube_informer_head(inf->k); *p; p = &(*p)->next) {
        if (*p == inf) {
            *p = inf->next;
            break;
        }
    }
}

void gq__kube_informer_free(struct gq_kube_informer *inf)
{
    if (!inf)
        return;
    if (inf->easy)
        stop_transfer(inf);
    unlink_informer(inf);
    if (inf->easy)
        curl_easy_cleanup(inf->easy);
    curl_free(inf->selector);
    free(inf->path);
    free(inf->rv);
    free(inf->cont);
    json_object_put(inf->items);
    gq__kube_body_free(&inf->body);
    gq__kube_stream_free(inf->stream);
    free(inf);
}

void gq__kube_informers_detach(struct gq_kube *k)
{
    struct gq_kube_informer *inf = *gq__kube_informer_head(k), *next;

    for (; inf; inf = next) {
        next = inf->next;
        stop_transfer(inf);
        /* The share is about to go; a handle still using it would keep it alive. */
        curl_easy_setopt(inf->easy, CURLOPT_SHARE, NULL);
        inf->k = NULL;
        inf->next = NULL;
    }
    *gq__kube_informer_head(k) = NULL;
}

bool gq__kube_informer_synced(const struct gq_kube_informer *inf)
{
    return inf->synced;
}

const char *gq__kube_informer_rv(const struct gq_kube_informer *inf)
{
    return inf->rv;
}

uint64_t gq__kube_informer_lists(const struct gq_kube_informer *inf)
{
    return inf->lists;
}

uint64_t gq__kube_informer_watches(const struct gq_kube_informer *inf)
{
    return inf->watches;
}

void gq__kube_informer_retry(struct gq_kube_informer *inf)
{
    if (inf->has_problem && inf->due_ms > gq__kube_now_ms())
        inf->due_ms = gq__kube_now_ms();
}

const char *gq__kube_informer_problem(const struct gq_kube_informer *inf)
{
    return inf->has_problem ? inf->problem : NULL;
}
