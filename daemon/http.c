/*
 * http.c: gpuqd's own HTTP endpoints, over libmicrohttpd.
 *
 *   GET /healthz            200 "ok" while the process serves
 *   GET /readyz             503 until the daemon's first full sync, then 200
 *   GET /metrics            Prometheus text 0.0.4: gq_metrics_text, then the process's own
 *   GET /apis/visibility.kueue.x-k8s.io/v1beta1/clusterqueues/CQ/pendingworkloads
 *   GET /apis/visibility.kueue.x-k8s.io/v1beta1/namespaces/NS/localqueues/LQ/pendingworkloads
 *                           Kueue's visibility API (?offset=&limit=)
 *   GET /api/v1/workloads   the List `gpuq list -A -o json` prints (?namespace=NS)
 *   GET /report             `gpuq report --html`'s page; /report.json its -o json
 *                           (?since=&until=, as gpuq report's flags)
 *
 * Anything else is a 404 and any other method a 405, both as Kubernetes
 * Status objects. Nothing here writes: the database is opened read-only.
 *
 * Threads: MHD gives every connection a thread of its own, so that a probe
 * is answered while a long List streams to a slow reader. /healthz and
 * /readyz touch no database. The rest share one read-only gq_db (a SQLite
 * connection must not be shared with the loop's), opened on first use and
 * reopened after a storage error, under a mutex held for one page of a List
 * at most (GQ_RENDER_PAGE workloads, tens of milliseconds).
 *
 * Hostile clients: 64 connections at most, 16 from one address, so that one
 * client cannot take the slots a kubelet's probes need; a request's head must
 * be whole within REQUEST_DEADLINE_S of its first byte's chance (MHD's own
 * timeout is reset by every byte, so a client sending a header line every
 * few seconds would hold its slot for ever): a watchdog thread shuts down
 * the socket of any that is not. MHD's messages (one per refused connection)
 * are rate-limited.
 *
 * Memory: /api/v1/workloads streams its List a page at a time (chunked), so
 * a connection holds one page's JSON (about 0.7 MB at 250 workloads) whatever
 * the List's length; ?limit=&continue= page it as the API server does.
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#include <gpuqueue.h>
#include <gpuqueue/tool.h>

#include "http.h"

#define CONNECTION_LIMIT 64u     /* a scraper, probes and a few clients need far fewer */
#define PER_IP_LIMIT 16u         /* what one address may hold of them */
#define CONNECTION_TIMEOUT_S 10u /* an idle or stalled client gives its slot back */
#define REQUEST_DEADLINE_S 10    /* for a request's whole head, however it trickles in */
#define LOG_BURST 5u             /* MHD messages printed per LOG_WINDOW_S; the rest counted */
#define LOG_WINDOW_S 60
#define SEGMENT_MAX 254          /* a Kubernetes name (253 characters) and its NUL */

#define TEXT "text/plain; charset=utf-8"
#define PROMETHEUS "text/plain; version=0.0.4; charset=utf-8"
#define JSON "application/json"

/* A connection, tracked for the request deadline; under gqd_http.conn_lock. */
struct conn {
    struct conn *prev, *next;
    int fd;                /* MHD's; valid until the CLOSED notification unlinks us */
    struct timespec since; /* when the request now being read could start */
    bool reading;          /* its head is still arriving */
};

struct gqd_http {
    struct MHD_Daemon *mhd; /* the listening socket and its threads */
    char *db_path;          /* owned */
    volatile int *ready;    /* the caller's: set once the first full sync is done */
    pthread_mutex_t lock;   /* guards db */
    gq_db *db;              /* read-only; NULL until first use and after a storage error */
    double started;         /* process_start_time_seconds */
    gq_metrics_options metrics; /* what /metrics exports */
    int port;
    char address[INET6_ADDRSTRLEN + 16]; /* "host:port" or "[host]:port" */
    pthread_mutex_t conn_lock;           /* guards conns, stopping and the log's counts */
    pthread_cond_t wake;                 /* the watchdog's sleep; signalled to stop it */
    struct conn *conns;                  /* open connections, newest first */
    bool stopping;                       /* the watchdog is to return */
    bool watchdog;                       /* the watchdog thread runs */
    pthread_t watchdog_thread;
    struct timespec log_window; /* when the log's current window began */
    unsigned int logged;        /* lines printed in that window */
    unsigned int suppressed;    /* lines not printed in it */
};

/* What a request gets back; body is released with release once MHD has sent it. */
struct reply {
    unsigned int status;
    const char *type;
    char *body;
    size_t len;
    void (*release)(void *);
    struct stream *stream; /* set: the body is this List, streamed; owned */
};

/* A List on its way out: the page being sent and the pager for the rest. */
struct stream {
    struct gqd_http *h;
    gq_render_pager *pager; /* owned */
    char *buf;              /* owned: the current page's bytes */
    size_t len, off, cap;   /* bytes in buf, bytes sent of them, room */
    bool done;              /* the pager has ended the List */
};

/* The caller's flag, written by another thread: read it as an atomic. */
static bool is_ready(const struct gqd_http *h)
{
    return __atomic_load_n(h->ready, __ATOMIC_ACQUIRE) != 0;
}

/* ---------------------------------------------------------------- replies */

static void reply_text(struct reply *r, unsigned int status, const char *type, const char *text)
{
    r->status = status;
    r->type = type;
    r->body = strdup(text);
    r->len = r->body ? strlen(text) : 0;
    r->release = free;
}

/*
 * Bytes in the valid UTF-8 sequence at s (1 to 4), or 0: overlong forms,
 * surrogates and code points past U+10FFFF are invalid, as Go decodes.
 */
static size_t utf8_len(const unsigned char *s)
{
    size_t n = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : 2, i;
    unsigned int lo = 0x80, hi = 0xbf;

    if (s[0] < 0x80)
        return 1;
    if (s[0] < 0xc2 || s[0] > 0xf4)
        return 0;
    if (s[0] == 0xe0)
        lo = 0xa0;
    else if (s[0] == 0xed)
        hi = 0x9f;
    else if (s[0] == 0xf0)
        lo = 0x90;
    else if (s[0] == 0xf4)
        hi = 0x8f;
    if (s[1] < lo || s[1] > hi)
        return 0;
    for (i = 2; i < n; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    return n;
}

/*
 * A JSON string as Go's encoding/json writes one (and so the API server):
 * each byte that is not part of valid UTF-8 becomes U+FFFD, since a URL may
 * carry any bytes (%ff) and messages echo it.
 */
static void json_string(FILE *f, const char *s)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    size_t n;

    fputc('"', f);
    for (; *p; p += n ? n : 1) {
        n = utf8_len(p);
        if (n == 0)
            fputs("\\ufffd", f);
        else if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else
            fwrite(p, 1, n, f);
    }
    fputc('"', f);
}

/* A Kubernetes Status object, as the API server answers a failed request. */
static void reply_status(struct reply *r, unsigned int code, const char *reason, const char *msg)
{
    FILE *f = open_memstream(&r->body, &r->len);

    r->status = code;
    r->type = JSON;
    r->release = free;
    if (!f)
        return;
    fputs("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
          "\"message\":",
          f);
    json_string(f, msg);
    fprintf(f, ",\"reason\":\"%s\",\"code\":%u}\n", reason, code);
    if (fclose(f) != 0) {
        free(r->body);
        r->body = NULL;
    }
}

static void reply_error(struct reply *r, const gq_error *err)
{
    if (err->code == GQ_ENOTFOUND)
        reply_status(r, MHD_HTTP_NOT_FOUND, "NotFound", err->msg);
    else if (err->code == GQ_EINVALID)
        reply_status(r, MHD_HTTP_BAD_REQUEST, "BadRequest", err->msg);
    else if (err->code == GQ_EBUSY)
        reply_status(r, MHD_HTTP_SERVICE_UNAVAILABLE, "ServiceUnavailable", err->msg);
    else
        reply_status(r, MHD_HTTP_INTERNAL_SERVER_ERROR, "InternalError", err->msg);
}

/* Text the library allocated goes out as it is, and back to the library after. */
static void reply_lib(struct reply *r, const char *type, char *text)
{
    r->status = MHD_HTTP_OK;
    r->type = type;
    r->body = text;
    r->len = strlen(text);
    r->release = gq_free;
}

static void stream_free(void *cls)
{
    struct stream *s = cls;

    if (!s)
        return;
    gq_render_pager_free(s->pager);
    free(s->buf);
    free(s);
}

static int stream_write(const char *buf, size_t len, void *payload)
{
    struct stream *s = payload;
    size_t cap = s->cap ? s->cap : 65536;
    char *p;

    while (cap < s->len + len)
        cap *= 2;
    if (cap != s->cap) {
        if (!(p = realloc(s->buf, cap)))
            return GQ_ENOMEM;
        s->buf = p;
        s->cap = cap;
    }
    memcpy(s->buf + s->len, buf, len);
    s->len += len;
    return 0;
}

static int use_db(struct gqd_http *h, gq_error *err);

/* The List's next page into s->buf, under the database's lock. */
static int stream_page(struct stream *s, gq_error *err)
{
    struct gqd_http *h = s->h;
    int rc;

    s->len = s->off = 0;
    pthread_mutex_lock(&h->lock);
    if ((rc = use_db(h, err)) == GQ_OK)
        rc = gq_render_pager_next(s->pager, h->db, stream_write, s, &s->done, err);
    if (rc != GQ_OK && rc != GQ_EINVALID && rc != GQ_ENOMEM) {
        gq_db_close(h->db); /* as serve_db: a storage error may be a replaced file */
        h->db = NULL;
    }
    pthread_mutex_unlock(&h->lock);
    return rc;
}

/* MHD asks for more of the body: what is left of this page, else the next page. */
static ssize_t stream_read(void *cls, uint64_t pos, char *out, size_t max)
{
    struct stream *s = cls;
    gq_error err = {0, ""};
    size_t n;

    (void)pos;
    while (s->off == s->len) {
        if (s->done)
            return MHD_CONTENT_READER_END_OF_STREAM;
        if (stream_page(s, &err) != GQ_OK) {
            /* Half a List is sent: all that is left is to cut it short, as the API server does. */
            fprintf(stderr, "gpuqd: http: /api/v1/workloads cut short: %s\n", err.msg);
            return MHD_CONTENT_READER_END_WITH_ERROR;
        }
    }
    n = s->len - s->off < max ? s->len - s->off : max;
    memcpy(out, s->buf + s->off, n);
    s->off += n;
    return (ssize_t)n;
}

static struct MHD_Response *make_response(struct reply *r)
{
    static char oom[] = "out of memory\n";
    struct MHD_Response *resp;

    if (r->stream) {
        resp = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 65536, stream_read, r->stream,
                                                 stream_free);
        if (!resp)
            stream_free(r->stream);
        return resp;
    }
    if (!r->body) {
        r->status = MHD_HTTP_INTERNAL_SERVER_ERROR;
        r->type = TEXT;
        return MHD_create_response_from_buffer(strlen(oom), oom, MHD_RESPMEM_PERSISTENT);
    }
    resp = MHD_create_response_from_buffer_with_free_callback(r->len, r->body, r->release);
    if (!resp)
        r->release(r->body);
    return resp;
}

static enum MHD_Result send_reply(struct MHD_Connection *c, struct reply *r)
{
    struct MHD_Response *resp = make_response(r);
    enum MHD_Result ok;

    if (!resp)
        return MHD_NO;
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, r->type);
    if (r->status == MHD_HTTP_METHOD_NOT_ALLOWED)
        MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
    ok = MHD_queue_response(c, r->status, resp);
    MHD_destroy_response(resp);
    return ok;
}

/* ---------------------------------------------------------------- routing */

enum route {
    R_HEALTHZ,
    R_READYZ,
    R_METRICS,
    R_CQ_PENDING,
    R_LQ_PENDING,
    R_WORKLOADS,
    R_REPORT,
    R_REPORT_JSON
};

/* "*" matches one non-empty path segment, captured in order. */
static const struct {
    enum route id;
    const char *pattern;
} routes[] = {
    {R_HEALTHZ, "/healthz"},
    {R_READYZ, "/readyz"},
    {R_METRICS, "/metrics"},
    {R_CQ_PENDING, "/apis/visibility.kueue.x-k8s.io/v1beta1/clusterqueues/*/pendingworkloads"},
    {R_LQ_PENDING,
     "/apis/visibility.kueue.x-k8s.io/v1beta1/namespaces/*/localqueues/*/pendingworkloads"},
    {R_WORKLOADS, "/api/v1/workloads"},
    {R_REPORT, "/report"},
    {R_REPORT_JSON, "/report.json"},
};

static bool match(const char *url, const char *pattern, char caps[2][SEGMENT_MAX])
{
    int ncap = 0;

    while (*url == '/' && *pattern == '/') {
        size_t un = strcspn(++url, "/"), pn = strcspn(++pattern, "/");

        if (pn == 1 && *pattern == '*') {
            if (un == 0 || un >= SEGMENT_MAX || ncap == 2)
                return false;
            memcpy(caps[ncap], url, un);
            caps[ncap++][un] = '\0';
        } else if (un != pn || strncmp(url, pattern, un) != 0) {
            return false;
        }
        url += un;
        pattern += pn;
    }
    return *url == '\0' && *pattern == '\0';
}

/* A query argument that must be a whole number of 0 or more; absent is 0. */
static bool query_count(struct MHD_Connection *c, const char *key, int64_t *out, gq_error *err)
{
    const char *v = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, key);
    char *end;
    long long n;

    *out = 0;
    if (!v)
        return true;
    errno = 0;
    n = strtoll(v, &end, 10);
    if (end == v || *end || errno || n < 0) {
        err->code = GQ_EINVALID;
        snprintf(err->msg, sizeof(err->msg),
                 "invalid %s \"%.64s\": want a whole number, 0 or "
                 "more",
                 key, v);
        return false;
    }
    *out = n;
    return true;
}

/* --------------------------------------------------------------- handlers */

/* The process's own gauges, after the library's families. */
static void process_metrics(FILE *f, const struct gqd_http *h)
{
    fputs("# HELP gpuqd_up 1 while gpuqd serves.\n# TYPE gpuqd_up gauge\ngpuqd_up 1\n", f);
    fprintf(f,
            "# HELP gpuqd_ready 1 once gpuqd has finished its first full sync, else 0.\n"
            "# TYPE gpuqd_ready gauge\ngpuqd_ready %d\n",
            is_ready(h) ? 1 : 0);
    fprintf(f,
            "# HELP process_start_time_seconds Start time of the process since unix epoch in "
            "seconds.\n# TYPE process_start_time_seconds gauge\n"
            "process_start_time_seconds %.3f\n",
            h->started);
}

static int serve_metrics(struct gqd_http *h, struct reply *r, gq_error *err)
{
    char *text = NULL;
    FILE *f;
    int rc;

    if ((rc = gq_metrics_text_ext(&text, h->db, &h->metrics, err)) != GQ_OK)
        return rc;
    r->status = MHD_HTTP_OK;
    r->type = PROMETHEUS;
    r->release = free;
    if ((f = open_memstream(&r->body, &r->len)) != NULL) {
        fputs(text, f);
        process_metrics(f, h);
        if (fclose(f) != 0) {
            free(r->body);
            r->body = NULL;
        }
    }
    gq_free(text);
    return GQ_OK;
}

static int serve_pending(struct gqd_http *h,
                         struct MHD_Connection *c,
                         enum route id,
                         char caps[2][SEGMENT_MAX],
                         struct reply *r,
                         gq_error *err)
{
    int64_t offset, limit;
    char *json = NULL;
    int rc;

    if (!query_count(c, "offset", &offset, err) || !query_count(c, "limit", &limit, err))
        return err->code;
    if (id == R_CQ_PENDING)
        rc = gq_pending_json(&json, h->db, caps[0], NULL, NULL, offset, limit, err);
    else
        rc = gq_pending_json(&json, h->db, NULL, caps[0], caps[1], offset, limit, err);
    if (rc == GQ_OK)
        reply_lib(r, JSON, json);
    return rc;
}

/*
 * The List `gpuq list -A -o json` (or `-n NS`) prints, streamed a page at a
 * time; ?limit=N&continue=TOKEN page it as the API server does (limit 0: no
 * limit). The first page is rendered here, so that a bad token or a storage
 * error is still a Status; the rest as MHD asks for them.
 */
static int
serve_workloads(struct gqd_http *h, struct MHD_Connection *c, struct reply *r, gq_error *err)
{
    const char *ns = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "namespace");
    const char *token = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "continue");
    gq_workload_filter f = GQ_WORKLOAD_FILTER_INIT;
    struct stream *s;
    int64_t limit;
    int rc;

    if (!query_count(c, "limit", &limit, err))
        return err->code;
    f.namespace = ns && *ns ? ns : NULL;
    if (!(s = calloc(1, sizeof(*s)))) {
        snprintf(err->msg, sizeof(err->msg), "out of memory");
        return GQ_ENOMEM;
    }
    s->h = h;
    if ((rc = gq_render_pager_new(&s->pager, &f, token && *token ? token : NULL, limit, err)) ==
            GQ_OK &&
        (rc = gq_render_pager_next(s->pager, h->db, stream_write, s, &s->done, err)) == GQ_OK) {
        r->status = MHD_HTTP_OK;
        r->type = JSON;
        r->stream = s;
        return GQ_OK;
    }
    stream_free(s);
    return rc;
}

/* gq_report as the page or JSON; ?since= and ?until= as gpuq report's flags. */
static int
serve_report(struct gqd_http *h, struct MHD_Connection *c, bool json, struct reply *r, gq_error *err)
{
    const char *since = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "since");
    const char *until = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "until");
    gq_report_options o = GQ_REPORT_OPTIONS_INIT;
    int64_t now = gq_db_now_ms(h->db);
    char *text = NULL;
    int rc;

    if (since && (rc = gq_report_time_parse(since, now, &o.since_ms, err)) != GQ_OK)
        return rc;
    if (until && (rc = gq_report_time_parse(until, now, &o.until_ms, err)) != GQ_OK)
        return rc;
    o.format = json ? GQ_REPORT_JSON : GQ_REPORT_HTML;
    if ((rc = gq_report(&text, h->db, &o, err)) == GQ_OK)
        reply_lib(r, json ? JSON : "text/html; charset=utf-8", text);
    return rc;
}

/* The read-only handle, opened on first use (the loop may create the file after we start). */
static int use_db(struct gqd_http *h, gq_error *err)
{
    gq_open_options o = GQ_OPEN_OPTIONS_INIT;

    if (h->db)
        return GQ_OK;
    o.readonly = true;
    return gq_db_open(&h->db, h->db_path, &o, err);
}

static void serve_db(struct gqd_http *h,
                     struct MHD_Connection *c,
                     enum route id,
                     char caps[2][SEGMENT_MAX],
                     struct reply *r)
{
    gq_error err = {0, ""};
    int rc;

    pthread_mutex_lock(&h->lock);
    if ((rc = use_db(h, &err)) == GQ_OK) {
        if (id == R_METRICS)
            rc = serve_metrics(h, r, &err);
        else if (id == R_WORKLOADS)
            rc = serve_workloads(h, c, r, &err);
        else if (id == R_REPORT || id == R_REPORT_JSON)
            rc = serve_report(h, c, id == R_REPORT_JSON, r, &err);
        else
            rc = serve_pending(h, c, id, caps, r, &err);
    }
    /* A storage error may be a replaced or broken file: open it afresh next time. */
    if (rc != GQ_OK && rc != GQ_ENOTFOUND && rc != GQ_EINVALID) {
        gq_db_close(h->db);
        h->db = NULL;
    }
    pthread_mutex_unlock(&h->lock);
    if (rc != GQ_OK) {
        err.code = rc;
        reply_error(r, &err);
    }
}

/* ------------------------------------------------------- hostile clients */

static double since_s(const struct timespec *t, const struct timespec *now)
{
    return (double)(now->tv_sec - t->tv_sec) + (double)(now->tv_nsec - t->tv_nsec) / 1e9;
}

/* The suppressed count, once its window is over; under conn_lock. */
static void log_window_end(struct gqd_http *h, const struct timespec *now)
{
    if (since_s(&h->log_window, now) < LOG_WINDOW_S)
        return;
    if (h->suppressed)
        fprintf(stderr, "gpuqd: http: %u more messages like those suppressed in %d s\n",
                h->suppressed, LOG_WINDOW_S);
    h->log_window = *now;
    h->logged = h->suppressed = 0;
}

/* One line of MHD's, unless LOG_BURST lines were printed in this window already. */
static void log_limited(struct gqd_http *h, const char *msg)
{
    struct timespec now;

    clock_gettime(CLOCK_MONOTONIC, &now);
    pthread_mutex_lock(&h->conn_lock);
    log_window_end(h, &now);
    if (h->logged < LOG_BURST) {
        h->logged++;
        fprintf(stderr, "gpuqd: http: %s\n", msg);
    } else {
        h->suppressed++;
    }
    pthread_mutex_unlock(&h->conn_lock);
}

/*
 * MHD's error log: a burst of refused connections (past the limits) is a
 * line each, and an attacker must not be able to fill the log with them.
 */
__attribute__((format(printf, 2, 0))) static void mhd_log(void *cls, const char *fmt, va_list ap)
{
    char msg[256];
    size_t n;

    vsnprintf(msg, sizeof(msg), fmt, ap);
    n = strlen(msg);
    while (n > 0 && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
        msg[--n] = '\0';
    log_limited(cls, msg);
}

/* MHD opens or closes a connection: track it for the request deadline. */
static void notify_connection(void *cls,
                              struct MHD_Connection *c,
                              void **socket_context,
                              enum MHD_ConnectionNotificationCode code)
{
    struct gqd_http *h = cls;
    const union MHD_ConnectionInfo *fd;
    struct conn *k = *socket_context;

    pthread_mutex_lock(&h->conn_lock);
    if (code == MHD_CONNECTION_NOTIFY_STARTED &&
        (fd = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD)) != NULL &&
        (k = calloc(1, sizeof(*k))) != NULL) {
        k->fd = fd->connect_fd;
        k->reading = true;
        clock_gettime(CLOCK_MONOTONIC, &k->since);
        k->next = h->conns;
        if (h->conns)
            h->conns->prev = k;
        h->conns = k;
        *socket_context = k;
    } else if (code == MHD_CONNECTION_NOTIFY_CLOSED && k) {
        if (k->prev)
            k->prev->next = k->next;
        else
            h->conns = k->next;
        if (k->next)
            k->next->prev = k->prev;
        free(k);
        *socket_context = NULL;
    }
    pthread_mutex_unlock(&h->conn_lock);
}

/* Whether a connection is waiting for a request head; the clock starts again. */
static void set_reading(struct gqd_http *h, struct MHD_Connection *c, bool reading)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    struct conn *k = ci ? ci->socket_context : NULL;

    if (!k)
        return;
    pthread_mutex_lock(&h->conn_lock);
    k->reading = reading;
    clock_gettime(CLOCK_MONOTONIC, &k->since);
    pthread_mutex_unlock(&h->conn_lock);
}

static void head_received(struct gqd_http *h, struct MHD_Connection *c)
{
    set_reading(h, c, false);
}

/* A reply is out: a kept-alive connection has the deadline again for its next request. */
static void request_completed(void *cls,
                              struct MHD_Connection *c,
                              void **req_cls,
                              enum MHD_RequestTerminationCode toe)
{
    (void)req_cls, (void)toe;
    set_reading(cls, c, true);
}

/* Shut the sockets of clients past the deadline; MHD then sees them end and closes them. */
static void cut_slow_heads(struct gqd_http *h, const struct timespec *now)
{
    unsigned int cut = 0;
    struct conn *k;

    for (k = h->conns; k; k = k->next) {
        if (k->reading && since_s(&k->since, now) > REQUEST_DEADLINE_S) {
            shutdown(k->fd, SHUT_RDWR);
            k->reading = false;
            cut++;
        }
    }
    if (cut == 0)
        return;
    if (h->logged < LOG_BURST) {
        h->logged++;
        fprintf(stderr, "gpuqd: http: closed %u connection%s that sent no whole request in %d s\n",
                cut, cut == 1 ? "" : "s", REQUEST_DEADLINE_S);
    } else {
        h->suppressed++;
    }
}

/* Every second: the request deadline, and the log's suppressed count. */
static void *watchdog(void *arg)
{
    struct gqd_http *h = arg;
    struct timespec now, until;

    pthread_mutex_lock(&h->conn_lock);
    while (!h->stopping) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        cut_slow_heads(h, &now);
        log_window_end(h, &now);
        until = now;
        until.tv_sec += 1;
        pthread_cond_timedwait(&h->wake, &h->conn_lock, &until);
    }
    pthread_mutex_unlock(&h->conn_lock);
    return NULL;
}

static enum MHD_Result handle(void *cls,
                              struct MHD_Connection *c,
                              const char *url,
                              const char *method,
                              const char *version,
                              const char *upload,
                              size_t *upload_size,
                              void **req_cls)
{
    struct gqd_http *h = cls;
    struct reply r = {0, TEXT, NULL, 0, free, NULL};
    char caps[2][SEGMENT_MAX], msg[160];
    size_t i;

    (void)version, (void)upload, (void)upload_size, (void)req_cls;
    head_received(h, c);
    /* Every answer is given on the first call: MHD discards an unread body. */
    if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0) {
        snprintf(msg, sizeof(msg), "method %.32s is not allowed: gpuqd's endpoints are read-only",
                 method);
        reply_status(&r, MHD_HTTP_METHOD_NOT_ALLOWED, "MethodNotAllowed", msg);
        return send_reply(c, &r);
    }
    for (i = 0; i < sizeof(routes) / sizeof(routes[0]); i++)
        if (match(url, routes[i].pattern, caps))
            break;
    if (i == sizeof(routes) / sizeof(routes[0]))
        reply_status(&r, MHD_HTTP_NOT_FOUND, "NotFound",
                     "the server could not find the requested resource");
    else if (routes[i].id == R_HEALTHZ)
        reply_text(&r, MHD_HTTP_OK, TEXT, "ok\n");
    else if (routes[i].id == R_READYZ && is_ready(h))
        reply_text(&r, MHD_HTTP_OK, TEXT, "ok\n");
    else if (routes[i].id == R_READYZ)
        reply_text(&r, MHD_HTTP_SERVICE_UNAVAILABLE, TEXT,
                   "not ready: waiting for the first full sync\n");
    else
        serve_db(h, c, routes[i].id, caps, &r);
    return send_reply(c, &r);
}

/* ------------------------------------------------------------- listening */

/*
 * When the process started, in seconds since the epoch, as Prometheus'
 * clients report it: /proc's start time in clock ticks after boot, plus the
 * boot time. Where /proc cannot say, now (we start with the process).
 */
static double process_start(void)
{
    unsigned long long ticks = 0, btime = 0;
    long hz = sysconf(_SC_CLK_TCK);
    char buf[1024], *p;
    FILE *f;
    size_t n = 0;
    int i;

    if ((f = fopen("/proc/self/stat", "r")) != NULL) {
        n = fread(buf, 1, sizeof(buf) - 1, f);
        fclose(f);
    }
    buf[n] = '\0';
    /* Fields after the command (which may hold spaces and parentheses): state is 3, start 22. */
    for (p = strrchr(buf, ')'), i = 2; p && *p && i < 22; p++)
        if (*p == ' ')
            i++;
    if (p && i == 22)
        ticks = strtoull(p, NULL, 10);
    if ((f = fopen("/proc/stat", "r")) != NULL) {
        while (fgets(buf, sizeof(buf), f))
            if (sscanf(buf, "btime %llu", &btime) == 1)
                break;
        fclose(f);
    }
    if (!ticks || !btime || hz <= 0)
        return (double)time(NULL);
    return (double)btime + (double)ticks / (double)hz;
}

/* "host:port", "[v6]:port" or ":port" into host ("" for every address) and port. */
static bool split_listen(const char *listen, char host[256], char port[8])
{
    const char *colon, *h = listen;
    size_t hn;
    char *end;
    long p;

    if (*listen == '[') {
        h = listen + 1;
        if (!(colon = strchr(h, ']')) || colon[1] != ':')
            return false;
        hn = (size_t)(colon - h);
        colon++;
    } else {
        if (!(colon = strrchr(listen, ':')))
            return false;
        hn = (size_t)(colon - listen);
    }
    p = strtol(colon + 1, &end, 10);
    if (hn >= 256 || !colon[1] || *end || p < 0 || p > 65535 || colon[1] == '-' || colon[1] == '+')
        return false;
    memcpy(host, h, hn);
    host[hn] = '\0';
    snprintf(port, 8, "%ld", p);
    return true;
}

/* port is the one in sa: MHD ignores it but names it in its error log. */
static struct MHD_Daemon *
start_mhd(struct gqd_http *h, struct sockaddr *sa, unsigned int family, uint16_t port)
{
    unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION |
                         MHD_USE_ERROR_LOG | family;
    sigset_t all, old;
    struct MHD_Daemon *d;

    /* The serving threads take no signals: SIGTERM must interrupt the loop's sleep. */
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    /* The logger first: MHD prints its own way whatever comes before it. */
    d = MHD_start_daemon(flags, port, NULL, NULL, handle, h, MHD_OPTION_EXTERNAL_LOGGER, mhd_log, h,
                         MHD_OPTION_SOCK_ADDR, sa, MHD_OPTION_CONNECTION_LIMIT, CONNECTION_LIMIT,
                         MHD_OPTION_PER_IP_CONNECTION_LIMIT, PER_IP_LIMIT,
                         MHD_OPTION_CONNECTION_TIMEOUT, CONNECTION_TIMEOUT_S,
                         MHD_OPTION_NOTIFY_CONNECTION, notify_connection, h,
                         MHD_OPTION_NOTIFY_COMPLETED, request_completed, h, MHD_OPTION_END);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return d;
}

/* Every address: IPv6 and IPv4 on one socket where the system has IPv6, else IPv4. */
static struct MHD_Daemon *listen_any(struct gqd_http *h, const char *port)
{
    struct sockaddr_in6 v6;
    struct sockaddr_in v4;
    struct MHD_Daemon *d;

    memset(&v6, 0, sizeof(v6));
    v6.sin6_family = AF_INET6;
    v6.sin6_addr = in6addr_any;
    v6.sin6_port = htons((uint16_t)atoi(port));
    if ((d = start_mhd(h, (struct sockaddr *)&v6, MHD_USE_DUAL_STACK, ntohs(v6.sin6_port))) != NULL)
        return d;
    memset(&v4, 0, sizeof(v4));
    v4.sin_family = AF_INET;
    v4.sin_addr.s_addr = htonl(INADDR_ANY);
    v4.sin_port = v6.sin6_port;
    return start_mhd(h, (struct sockaddr *)&v4, 0, ntohs(v4.sin_port));
}

/* Bind the address listen names; errno or a resolver message in errbuf on failure. */
static int listen_on(struct gqd_http *h, const char *listen, char *errbuf, size_t errlen)
{
    struct addrinfo hints, *res = NULL;
    char host[256], port[8];
    int rc;

    if (!split_listen(listen, host, port)) {
        snprintf(errbuf, errlen, "invalid --listen \"%s\": want HOST:PORT, :PORT or [IPV6]:PORT",
                 listen);
        return -1;
    }
    if (!*host) {
        h->mhd = listen_any(h, port);
    } else {
        memset(&hints, 0, sizeof(hints));
        hints.ai_family = AF_UNSPEC;
        hints.ai_socktype = SOCK_STREAM;
        hints.ai_flags = AI_NUMERICSERV;
        if ((rc = getaddrinfo(host, port, &hints, &res)) != 0) {
            snprintf(errbuf, errlen, "listen on %s: %s", listen, gai_strerror(rc));
            return -1;
        }
        h->mhd = start_mhd(h, res->ai_addr, res->ai_family == AF_INET6 ? MHD_USE_IPv6 : 0,
                           (uint16_t)atoi(port));
        freeaddrinfo(res);
    }
    if (!h->mhd) {
        snprintf(errbuf, errlen, "listen on %s: %s", listen,
                 errno ? strerror(errno) : "cannot start the HTTP server");
        return -1;
    }
    return 0;
}

/* What the socket is bound to, with the port the system chose. */
static void bound_address(struct gqd_http *h)
{
    const union MHD_DaemonInfo *fd = MHD_get_daemon_info(h->mhd, MHD_DAEMON_INFO_LISTEN_FD);
    char host[INET6_ADDRSTRLEN], port[8];
    struct sockaddr_storage ss;
    socklen_t len = sizeof(ss);

    snprintf(h->address, sizeof(h->address), "?");
    if (!fd || getsockname(fd->listen_fd, (struct sockaddr *)&ss, &len) != 0 ||
        getnameinfo((struct sockaddr *)&ss, len, host, sizeof(host), port, sizeof(port),
                    NI_NUMERICHOST | NI_NUMERICSERV) != 0)
        return;
    h->port = atoi(port);
    snprintf(h->address, sizeof(h->address), ss.ss_family == AF_INET6 ? "[%s]:%s" : "%s:%s", host,
             port);
}

/* ------------------------------------------------------------- public */

/* The locks and the watchdog's condition (on the monotonic clock, as its deadlines). */
static int locks_init(struct gqd_http *h)
{
    pthread_condattr_t ca;
    int rc;

    if (pthread_condattr_init(&ca) != 0)
        return -1;
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    rc = pthread_cond_init(&h->wake, &ca);
    pthread_condattr_destroy(&ca);
    if (rc != 0)
        return -1;
    pthread_mutex_init(&h->lock, NULL);
    pthread_mutex_init(&h->conn_lock, NULL);
    clock_gettime(CLOCK_MONOTONIC, &h->log_window);
    return 0;
}

static void http_free(struct gqd_http *h)
{
    pthread_mutex_destroy(&h->lock);
    pthread_mutex_destroy(&h->conn_lock);
    pthread_cond_destroy(&h->wake);
    free(h->db_path);
    free(h);
}

int gqd_http_start(struct gqd_http **out,
                   const char *listen,
                   const char *db_path,
                   volatile int *ready,
                   const gq_metrics_options *metrics,
                   char *errbuf,
                   size_t errlen)
{
    static const gq_metrics_options defaults = GQ_METRICS_OPTIONS_INIT;
    struct gqd_http *h;

    *out = NULL;
    if (!(h = calloc(1, sizeof(*h))) || !(h->db_path = strdup(db_path)) || locks_init(h) != 0) {
        if (h)
            free(h->db_path);
        free(h);
        snprintf(errbuf, errlen, "out of memory");
        return -1;
    }
    h->ready = ready;
    h->metrics = metrics ? *metrics : defaults;
    h->started = process_start();
    errno = 0;
    if (listen_on(h, listen, errbuf, errlen) != 0) {
        http_free(h);
        return -1;
    }
    bound_address(h);
    h->watchdog = pthread_create(&h->watchdog_thread, NULL, watchdog, h) == 0;
    *out = h;
    return 0;
}

int gqd_http_port(const struct gqd_http *h)
{
    return h ? h->port : 0;
}

const char *gqd_http_address(const struct gqd_http *h)
{
    return h ? h->address : "";
}

void gqd_http_stop(struct gqd_http *h)
{
    if (!h)
        return;
    pthread_mutex_lock(&h->conn_lock);
    h->stopping = true;
    pthread_cond_signal(&h->wake);
    pthread_mutex_unlock(&h->conn_lock);
    if (h->watchdog)
        pthread_join(h->watchdog_thread, NULL);
    MHD_stop_daemon(h->mhd);
    gq_db_close(h->db);
    http_free(h);
}
