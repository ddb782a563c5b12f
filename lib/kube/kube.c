/*
 * kube.c: calls to the Kubernetes API server (kube.h "calls"), and the
 * pieces of the call path the informers reuse (kube_stream.h "seams").
 *
 * One client holds one CURL easy handle for calls, reused so that its
 * connection stays alive between calls, and a CURLSH that lets the informers'
 * handles share the DNS cache and TLS sessions with it. Every request, call
 * or watch, passes the same token bucket and goes out prepared by
 * gq__kube_prepare, so the TLS rules (verification always on unless the
 * kubeconfig says insecure-skip-tls-verify, https only, no redirects) and
 * the credential handling hold for all of them. Writes (every method but
 * GET) also pass the caller's write gate, if one is installed: it is how a
 * leader that may have lost its Lease keeps from sending anything.
 *
 * Secrets: the bearer token only ever sits in the header list of the
 * request that carries it, which is wiped before it is freed; it never goes
 * into an error message, and CURLOPT_VERBOSE is never set (it prints headers).
 *
 * Frequencies: gpuq makes a handful of calls per command; gpuqd makes a few
 * per admission plus the informers' lists and watches, tens per second at
 * most, hence the default 20 qps with a burst of 40.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "error.h"
#include "kube.h"
#include "kube_stream.h"
#include "os.h"
#include "util.h"

#define BACKOFF_FIRST_MS 200
#define BACKOFF_MAX_MS 10000
/* A Retry-After beyond this is not waited for inside one call: the caller decides. */
#define RETRY_AFTER_MAX_MS 60000

struct gq_kube {
    struct gq_kube_config cfg;  /* owned, moved in by gq__kube_open */
    struct gq_kube_limits lim;
    CURL *easy;                 /* the calls' handle; reused so its connection stays alive */
    CURLSH *share;              /* DNS cache and TLS sessions, shared with the informers' handles */
    CURLM *multi;               /* the informers' transfers */
    struct gq_kube_informer *informers; /* attached informers (kube_informer.c owns the list) */
    double tokens;              /* token bucket level; negative when future tokens are reserved */
    int64_t bucket_ms;          /* monotonic ms of the bucket's last refill */
    uint64_t requests;          /* every request prepared, retries included */
    uint64_t rng;               /* xorshift state for jitter */
    bool allow_http;            /* the server URL is http:// (a local test server) */
    bool curl_ready;            /* curl_global_init succeeded: close must balance it */
    gq_kube_write_gate_fn gate; /* asked before each write, or NULL */
    void *gate_payload;         /* borrowed */
    char agent[200];            /* the User-Agent */
    char errbuf[CURL_ERROR_SIZE]; /* curl's reason for the last failed call */
};

/* ------------------------------------------------------------- utilities */

int64_t gq__kube_now_ms(void)
{
    return gq__mono_us() / 1000;
}

double gq__kube_random(struct gq_kube *k)
{
    uint64_t x = k->rng;

    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    k->rng = x;
    return (double)((x * 2685821657736338717ULL) >> 11) / 9007199254740992.0;
}

const struct gq_kube_limits *gq__kube_limits(const struct gq_kube *k)
{
    return &k->lim;
}

CURLM *gq__kube_multi(struct gq_kube *k)
{
    return k->multi;
}

struct gq_kube_informer **gq__kube_informer_head(struct gq_kube *k)
{
    return &k->informers;
}

/* Sleep ms in short slices so that a stop request ends the wait. */
static int sleep_ms(struct gq_kube *k, int64_t ms, gq_error *err)
{
    int64_t end = gq__kube_now_ms() + ms, left;
    struct timespec ts;

    while ((left = end - gq__kube_now_ms()) > 0) {
        if (k->lim.stop && *k->lim.stop)
            return gq__error(err, GQ_EK8S, "interrupted");
        if (left > 100)
            left = 100;
        ts.tv_sec = 0;
        ts.tv_nsec = (long)left * 1000000L;
        nanosleep(&ts, NULL);
    }
    if (k->lim.stop && *k->lim.stop)
        return gq__error(err, GQ_EK8S, "interrupted");
    return GQ_OK;
}

int64_t gq__kube_reserve(struct gq_kube *k)
{
    int64_t now = gq__kube_now_ms();
    double burst = k->lim.burst > 0 ? k->lim.burst : 1;

    if (k->lim.qps <= 0)
        return 0;
    k->tokens += (double)(now - k->bucket_ms) * k->lim.qps / 1000.0;
    if (k->tokens > burst)
        k->tokens = burst;
    k->bucket_ms = now;
    k->tokens -= 1.0;
    if (k->tokens >= 0)
        return 0;
    /* Rounded up (without libm, which the static library does not pull in). */
    return (int64_t)(-k->tokens * 1000.0 / k->lim.qps) + 1;
}

int gq__kube_credential(struct gq_kube *k, bool invalidate, struct gq_kube_auth *out,
                        gq_error *err)
{
    memset(out, 0, sizeof(*out));
    return gq__kube_auth(&k->cfg, invalidate, gq__kube_now_ms(), out, err);
}

/* ------------------------------------------------------------ open/close */

static int open_handles(struct gq_kube *k, gq_error *err)
{
    int rc;

    if ((rc = gq__curl_load(err)) != GQ_OK)
        return rc;
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
        return gq__error(err, GQ_EK8S, "cannot initialize libcurl");
    k->curl_ready = true;
    k->easy = curl_easy_init();
    k->share = curl_share_init();
    k->multi = curl_multi_init();
    if (!k->easy || !k->share || !k->multi)
        return gq__error(err, GQ_ENOMEM, "out of memory");
    /* Single-threaded use: no lock functions are needed. */
    if (curl_share_setopt(k->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS) ||
        curl_share_setopt(k->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION))
        return gq__error(err, GQ_EK8S, "cannot set up a libcurl share");
    return GQ_OK;
}

static int check_server(struct gq_kube *k, gq_error *err)
{
    char q[GQ_QUOTE_BUFSIZE];
    const char *s = k->cfg.server;

    if (s && strncmp(s, "https://", 8) == 0 && s[8])
        return GQ_OK;
    if (s && strncmp(s, "http://", 7) == 0 && s[7]) {
        k->allow_http = true;
        return GQ_OK;
    }
    return gq__error(err, GQ_EINVALID, "server %s is not an https:// URL",
                     s ? gq__quote(q, s, strlen(s)) : "(none)");
}

static void warn_insecure(const struct gq_kube_config *cfg)
{
    static volatile sig_atomic_t warned;

    /* Said on stderr, not through a log callback, because it must not go unseen. */
    if (!cfg->insecure || warned)
        return;
    warned = 1;
    fprintf(stderr, "WARNING: insecure-skip-tls-verify is set for %s: the API server's "
                    "certificate is NOT verified and anyone on the path can read the "
                    "credentials\n",
            cfg->server);
}

int gq__kube_open(struct gq_kube **out, struct gq_kube_config *cfg,
                  const struct gq_kube_limits *lim, gq_error *err)
{
    static const struct gq_kube_limits defaults = GQ_KUBE_LIMITS_INIT;
    struct gq_kube *k;
    int rc;

    *out = NULL;
    k = calloc(1, sizeof(*k));
    if (!k) {
        gq__kube_config_free(cfg);
        return gq__error(err, GQ_ENOMEM, "out of memory");
    }
    /* Moved in: the caller's struct is left empty, so freeing it as well is harmless. */
    k->cfg = *cfg;
    memset(cfg, 0, sizeof(*cfg));
    k->lim = lim ? *lim : defaults;
    k->tokens = k->lim.burst > 0 ? k->lim.burst : 1;
    k->bucket_ms = gq__kube_now_ms();
    k->rng = (uint64_t)gq__mono_us() ^ ((uint64_t)getpid() << 32) ^ (uint64_t)(uintptr_t)k;
    k->rng |= 1;
    snprintf(k->agent, sizeof(k->agent), "gpuq/%s", GQ_VERSION);
    rc = check_server(k, err);
    if (rc == GQ_OK)
        rc = open_handles(k, err);
    if (rc != GQ_OK) {
        gq__kube_close(k);
        return rc;
    }
    warn_insecure(&k->cfg);
    *out = k;
    return GQ_OK;
}

void gq__kube_close(struct gq_kube *k)
{
    if (!k)
        return;
    gq__kube_informers_detach(k);
    if (k->multi)
        curl_multi_cleanup(k->multi);
    if (k->easy)
        curl_easy_cleanup(k->easy);
    if (k->share)
        curl_share_cleanup(k->share);
    if (k->curl_ready)
        curl_global_cleanup();
    gq__kube_config_free(&k->cfg);
    free(k);
}

const struct gq_kube_config *gq__kube_config(const struct gq_kube *k)
{
    return &k->cfg;
}

void gq__kube_set_write_gate(struct gq_kube *k, gq_kube_write_gate_fn fn, void *payload)
{
    k->gate = fn;
    k->gate_payload = payload;
}

void gq__kube_set_identity(struct gq_kube *k, const char *identity)
{
    size_t n = (size_t)snprintf(k->agent, sizeof(k->agent), "gpuq/%s (", GQ_VERSION);

    /* A header line must not carry CR/LF, and the parentheses delimit the comment. */
    for (; *identity && n < sizeof(k->agent) - 2; identity++, n++) {
        unsigned char c = (unsigned char)*identity;

        k->agent[n] = c < 0x20 || c > 0x7e || c == '(' || c == ')' || c == '\\' ? '_' : (char)c;
    }
    k->agent[n++] = ')';
    k->agent[n] = '\0';
}

uint64_t gq__kube_requests(const struct gq_kube *k)
{
    return k->requests;
}

/* -------------------------------------------------------------- responses */

size_t gq__kube_body_write(char *data, size_t size, size_t n, void *payload)
{
    struct gq_kube_body *b = payload;
    size_t len = size * n, cap;
    char *p;

    if (len > GQ_KUBE_MAX_BODY - b->len) {
        b->too_big = true;
        return 0;
    }
    if (b->len + len + 1 > b->cap) {
        cap = b->cap ? b->cap : 4096;
        while (cap < b->len + len + 1)
            cap *= 2;
        p = realloc(b->buf, cap);
        if (!p) {
            b->nomem = true;
            return 0;
        }
        b->buf = p;
        b->cap = cap;
    }
    memcpy(b->buf + b->len, data, len);
    b->len += len;
    b->buf[b->len] = '\0';
    return len;
}

void gq__kube_body_free(struct gq_kube_body *b)
{
    free(b->buf);
    memset(b, 0, sizeof(*b));
}

/* application/json, application/json;charset=utf-8, or a +json type such as merge-patch's. */
static bool is_json_type(const char *ct)
{
    size_t n;

    if (!ct)
        return false;
    n = strcspn(ct, ";");
    while (n > 0 && (ct[n - 1] == ' ' || ct[n - 1] == '\t'))
        n--;
    if (n == 16 && strncasecmp(ct, "application/json", 16) == 0)
        return true;
    return n > 17 && strncasecmp(ct, "application/", 12) == 0 &&
           strncasecmp(ct + n - 5, "+json", 5) == 0;
}

/* The whole body as one JSON value within the depth cap, or NULL (truncated, HTML, ...). */
static json_object *parse_json(const char *buf, size_t len)
{
    json_tokener *tok = json_tokener_new_ex(GQ_KUBE_MAX_DEPTH);
    json_object *v = NULL;

    if (!tok || len == 0)
        goto out;
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
    v = json_tokener_parse_ex(tok, buf, (int)len);
    if (json_tokener_get_error(tok) != json_tokener_success ||
        json_tokener_get_parse_end(tok) != len) {
        json_object_put(v);
        v = NULL;
    }
out:
    json_tokener_free(tok);
    return v;
}

int gq__kube_resp_take(struct gq_kube_resp *out, CURL *h, struct gq_kube_body *b)
{
    curl_off_t retry_after = 0;
    char *ct = NULL;

    memset(out, 0, sizeof(*out));
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &out->status);
    /* libcurl reads both forms of Retry-After (seconds and an HTTP date) into seconds. */
    if (curl_easy_getinfo(h, CURLINFO_RETRY_AFTER, &retry_after) == CURLE_OK && retry_after > 0)
        out->retry_after_s = (double)retry_after;
    curl_easy_getinfo(h, CURLINFO_CONTENT_TYPE, &ct);
    if (!b->buf && !(b->buf = calloc(1, 1)))
        return GQ_ENOMEM;
    out->body = b->buf;
    out->len = b->len;
    memset(b, 0, sizeof(*b));
    if (is_json_type(ct))
        out->json = parse_json(out->body, out->len);
    return GQ_OK;
}

void gq__kube_resp_free(struct gq_kube_resp *r)
{
    if (!r)
        return;
    free(r->body);
    json_object_put(r->json);
    memset(r, 0, sizeof(*r));
}

static const char *reason_phrase(long status)
{
    static const struct {
        long status;
        const char *text;
    } phrases[] = {
        {400, "bad request"},        {401, "unauthorized"},
        {403, "forbidden"},          {404, "not found"},
        {405, "method not allowed"}, {409, "conflict"},
        {410, "gone"},               {415, "unsupported media type"},
        {422, "unprocessable entity"}, {429, "too many requests"},
        {500, "internal server error"}, {502, "bad gateway"},
        {503, "service unavailable"}, {504, "gateway timeout"},
    };

    for (size_t i = 0; i < sizeof(phrases) / sizeof(phrases[0]); i++)
        if (phrases[i].status == status)
            return phrases[i].text;
    if (status >= 300 && status < 400)
        return "redirect (not followed)";
    if (status >= 400 && status < 500)
        return "client error";
    if (status >= 500)
        return "server error";
    return "unexpected answer";
}

const char *gq__kube_status_message(const struct gq_kube_resp *r)
{
    json_object *m;

    if (r->json && json_object_is_type(r->json, json_type_object) &&
        json_object_object_get_ex(r->json, "message", &m) &&
        json_object_is_type(m, json_type_string) && json_object_get_string_len(m) > 0)
        return json_object_get_string(m);
    if (r->status >= 200 && r->status < 300)
        return r->json ? "ok" : "the answer is not JSON";
    return reason_phrase(r->status);
}

/*
 * s into buf, its middle replaced by "..." when it does not fit: the head
 * says what was refused, the tail why.
 */
static void cut_middle(char *buf, size_t size, const char *s)
{
    size_t n = strlen(s), head, tail;

    if (n < size) {
        memcpy(buf, s, n + 1);
        return;
    }
    head = (size - 4) / 2;
    tail = size - 4 - head;
    memcpy(buf, s, head);
    memcpy(buf + head, "...", 3);
    memcpy(buf + head + 3, s + n - tail, tail + 1);
}

/* o's string member key, NULL when o is no object or key no string. */
static const char *str_field(json_object *o, const char *key)
{
    json_object *v;

    if (!json_object_is_type(o, json_type_object) || !json_object_object_get_ex(o, key, &v) ||
        !json_object_is_type(v, json_type_string))
        return NULL;
    return json_object_get_string(v);
}

/* A cause's verdict: "Invalid value: <the value>: field is immutable" without the value. */
static const char *verdict(const char *m)
{
    const char *p = strrchr(m, ':');

    if (strncmp(m, "Invalid value: ", 15) != 0 || !p || p[1] != ' ')
        return m;
    return p + 2;
}

/*
 * An answer as one line for an error message: the status code and reason,
 * each cause's field and verdict, then the server's message, its middle cut
 * to fit. A real 422 from ValidateImmutableField prints the whole
 * PodTemplateSpec before "field is immutable"; cut at the end (as the
 * message alone was), the reason was lost.
 */
void gq__kube_status_line(char *buf, size_t size, const struct gq_kube_resp *r)
{
    json_object *details = NULL, *causes = NULL;
    const char *reason = str_field(r->json, "reason");
    size_t i, len, n;

    if (json_object_is_type(r->json, json_type_object) &&
        json_object_object_get_ex(r->json, "details", &details))
        json_object_object_get_ex(details, "causes", &causes);
    n = json_object_is_type(causes, json_type_array) ? json_object_array_length(causes) : 0;
    len = (size_t)snprintf(buf, size, "%ld%s%s", r->status, reason ? " " : "",
                           reason ? reason : "");
    for (i = 0; i < n && len + 8 < size; i++) {
        json_object *c = json_object_array_get_idx(causes, i);
        const char *f = str_field(c, "field"), *m = str_field(c, "message");

        len += (size_t)snprintf(buf + len, size - len, "%s%s%s%s", i ? "; " : ": ",
                                f ? f : "", f && m ? ": " : "", m ? verdict(m) : "");
    }
    if (len + 8 < size) {
        len += (size_t)snprintf(buf + len, size - len, n ? " (" : ": ");
        cut_middle(buf + len, size - len - (n ? 1 : 0), gq__kube_status_message(r));
        if (n)
            strcat(buf, ")");
    }
}

/* ----------------------------------------------------------- preparation */

void gq__kube_headers_free(struct curl_slist *h)
{
    for (struct curl_slist *p = h; p; p = p->next) {
        volatile char *c = p->data;

        while (*c)
            *c++ = '\0';
    }
    curl_slist_free_all(h);
}

static int add_header(struct curl_slist **list, const char *line)
{
    struct curl_slist *l = curl_slist_append(*list, line);

    if (!l)
        return GQ_ENOMEM;
    *list = l;
    return GQ_OK;
}

/* The bearer header, built in a buffer that is wiped once curl has copied it. */
static int add_bearer(struct curl_slist **list, const char *token)
{
    static const char prefix[] = "Authorization: Bearer ";
    size_t n = sizeof(prefix) + strlen(token);
    char *line = malloc(n);
    int rc;

    if (!line)
        return GQ_ENOMEM;
    snprintf(line, n, "%s%s", prefix, token);
    rc = add_header(list, line);
    for (volatile char *c = line; *c; c++)
        *c = '\0';
    free(line);
    return rc;
}

static int build_headers(struct curl_slist **out, const char *content_type, const char *body,
                         const struct gq_kube_auth *auth)
{
    char ct[256];
    int rc;

    *out = NULL;
    rc = add_header(out, "Accept: application/json");
    /* No "Expect: 100-continue": it costs a round trip (or a second) for nothing here. */
    if (rc == GQ_OK)
        rc = add_header(out, "Expect:");
    if (rc == GQ_OK && body) {
        snprintf(ct, sizeof(ct), "Content-Type: %s",
                 content_type ? content_type : "application/json");
        rc = add_header(out, ct);
    }
    if (rc == GQ_OK && auth && auth->token && *auth->token)
        rc = add_bearer(out, auth->token);
    return rc;
}

/*
 * The set_* helpers chain curl_easy_setopt with ||, so each returns true as
 * soon as libcurl refuses an option (CURLE_OK is 0), false when all went in.
 */

/* PEM bytes as a blob that libcurl copies. */
static bool set_blob(CURL *h, CURLoption opt, const char *pem, size_t len)
{
    struct curl_blob blob = {(void *)(uintptr_t)pem, len, CURL_BLOB_COPY};

    return curl_easy_setopt(h, opt, &blob) != CURLE_OK;
}

static bool set_client_cert(CURL *h, const struct gq_kube_config *c,
                                const struct gq_kube_auth *auth)
{
    if (auth && auth->cert_pem && auth->key_pem)
        return set_blob(h, CURLOPT_SSLCERT_BLOB, auth->cert_pem, auth->cert_len) ||
               set_blob(h, CURLOPT_SSLKEY_BLOB, auth->key_pem, auth->key_len);
    if (c->cert_pem && c->key_pem)
        return set_blob(h, CURLOPT_SSLCERT_BLOB, c->cert_pem, c->cert_pem_len) ||
               set_blob(h, CURLOPT_SSLKEY_BLOB, c->key_pem, c->key_pem_len);
    if (c->cert_file && c->key_file)
        return curl_easy_setopt(h, CURLOPT_SSLCERT, c->cert_file) ||
               curl_easy_setopt(h, CURLOPT_SSLKEY, c->key_file);
    return false;
}

static bool set_tls(CURL *h, const struct gq_kube_config *c, const struct gq_kube_auth *auth)
{
    if (c->ca_pem && set_blob(h, CURLOPT_CAINFO_BLOB, c->ca_pem, c->ca_pem_len))
        return true;
    if (!c->ca_pem && c->ca_file && curl_easy_setopt(h, CURLOPT_CAINFO, c->ca_file))
        return true;
    return curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, c->insecure ? 0L : 1L) ||
           curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, c->insecure ? 0L : 2L) ||
           set_client_cert(h, c, auth);
}

static bool set_common(struct gq_kube *k, CURL *h, int64_t timeout_ms)
{
    return curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, k->allow_http ? "http,https" : "https") ||
           curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L) ||
           curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L) ||
           curl_easy_setopt(h, CURLOPT_USERAGENT, k->agent) ||
           curl_easy_setopt(h, CURLOPT_SHARE, k->share) ||
           curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, (long)timeout_ms) ||
           curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, (long)k->lim.connect_timeout_ms) ||
           /* Keepalive probes notice a peer that vanished without a FIN. */
           curl_easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L) ||
           curl_easy_setopt(h, CURLOPT_TCP_KEEPIDLE, 30L) ||
           curl_easy_setopt(h, CURLOPT_TCP_KEEPINTVL, 15L);
}

static bool set_method(CURL *h, const char *method, const char *body)
{
    bool post = strcmp(method, "POST") == 0;

    if (strcmp(method, "GET") == 0 && !body)
        return curl_easy_setopt(h, CURLOPT_HTTPGET, 1L) != CURLE_OK;
    if (!post && curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method))
        return true;
    if (!body && !post)
        return false;
    return curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE,
                            (curl_off_t)(body ? strlen(body) : 0)) ||
           curl_easy_setopt(h, CURLOPT_POSTFIELDS, body ? body : "");
}

static int set_url(struct gq_kube *k, CURL *h, const char *path, gq_error *err)
{
    size_t n = strlen(k->cfg.server) + strlen(path) + 2;
    char *url = malloc(n);
    CURLcode rc;

    if (!url)
        return gq__error(err, GQ_ENOMEM, "out of memory");
    snprintf(url, n, "%s%s%s", k->cfg.server, path[0] == '/' ? "" : "/", path);
    rc = curl_easy_setopt(h, CURLOPT_URL, url);
    free(url);
    if (rc != CURLE_OK)
        return gq__error(err, GQ_EK8S, "bad request path: %s", curl_easy_strerror(rc));
    return GQ_OK;
}

int gq__kube_prepare(struct gq_kube *k, CURL *h, const char *method, const char *path,
                     const char *content_type, const char *body, const struct gq_kube_auth *auth,
                     int64_t timeout_ms, char *errbuf, struct curl_slist **hdrs_out,
                     gq_error *err)
{
    int rc;

    *hdrs_out = NULL;
    /* A reset keeps the handle's live connections, DNS cache and TLS sessions. */
    curl_easy_reset(h);
    rc = set_url(k, h, path, err);
    if (rc != GQ_OK)
        return rc;
    if (errbuf) {
        errbuf[0] = '\0';
        curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
    }
    if (set_common(k, h, timeout_ms) || set_method(h, method, body))
        return gq__error(err, GQ_EK8S, "libcurl refused a request option");
    /* Fail closed: a CA or client certificate libcurl cannot take must not mean "no TLS check". */
    if (set_tls(h, &k->cfg, auth))
        return gq__error(err, GQ_EK8S, "libcurl refused the TLS settings (CA or client certificate)");
    if (build_headers(hdrs_out, content_type, body, auth) != GQ_OK ||
        curl_easy_setopt(h, CURLOPT_HTTPHEADER, *hdrs_out) != CURLE_OK) {
        gq__kube_headers_free(*hdrs_out);
        *hdrs_out = NULL;
        return gq__error(err, GQ_ENOMEM, "out of memory");
    }
    k->requests++;
    return GQ_OK;
}

/* ------------------------------------------------------------------ calls */

/*
 * Whether a failed transfer may be tried again. Connecting failed: the
 * request was never sent, so any method. The connection broke or the answer
 * was cut: the server may have acted, so only a GET. A timeout is final (a
 * server that trickles would otherwise cost max_retries whole timeouts), and
 * so is every TLS verification failure: trying again cannot fix it.
 */
static bool retryable(CURLcode c, const char *method)
{
    switch (c) {
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_CONNECT:
    case CURLE_SSL_CONNECT_ERROR:
        return true;
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
        return strcmp(method, "GET") == 0;
    default:
        return false;
    }
}

/* Backoff before retry n (0-based): 200 ms doubling to 10 s, plus up to 10% jitter. */
static int64_t backoff_ms(struct gq_kube *k, int n)
{
    int64_t d = BACKOFF_FIRST_MS;

    while (n-- > 0 && d < BACKOFF_MAX_MS)
        d *= 2;
    if (d > BACKOFF_MAX_MS)
        d = BACKOFF_MAX_MS;
    return d + (int64_t)(gq__kube_random(k) * (double)d * 0.1);
}

static int transfer_error(struct gq_kube *k, CURLcode c, const struct gq_kube_body *b,
                          const char *method, const char *path, gq_error *err)
{
    if (b->too_big)
        return gq__error(err, GQ_EK8S, "%s %s: the answer is larger than %zu bytes", method,
                         path, GQ_KUBE_MAX_BODY);
    if (b->nomem)
        return gq__error(err, GQ_ENOMEM, "out of memory");
    return gq__error(err, GQ_EK8S, "%s %s: %s", method, path,
                     k->errbuf[0] ? k->errbuf : curl_easy_strerror(c));
}

/* One attempt: credential, rate limit, request. *curl_out gets curl's result. */
static int attempt(struct gq_kube *k, const char *method, const char *path,
                   const char *content_type, const char *body, bool invalidate,
                   struct gq_kube_resp *out, CURLcode *curl_out, gq_error *err)
{
    struct gq_kube_body b = {0};
    struct curl_slist *hdrs = NULL;
    struct gq_kube_auth auth;
    int64_t wait;
    int rc;

    *curl_out = CURLE_OK;
    rc = gq__kube_credential(k, invalidate, &auth, err);
    if (rc == GQ_OK && (wait = gq__kube_reserve(k)) > 0)
        rc = sleep_ms(k, wait, err);
    /* After the waits above: a write decided before them may no longer be ours to send. */
    if (rc == GQ_OK && k->gate && strcmp(method, "GET") != 0)
        rc = k->gate(method, path, k->gate_payload, err);
    if (rc == GQ_OK)
        rc = gq__kube_prepare(k, k->easy, method, path, content_type, body, &auth,
                              k->lim.timeout_ms, k->errbuf, &hdrs, err);
    if (rc != GQ_OK)
        goto out;
    if (curl_easy_setopt(k->easy, CURLOPT_WRITEFUNCTION, gq__kube_body_write) ||
        curl_easy_setopt(k->easy, CURLOPT_WRITEDATA, &b)) {
        rc = gq__error(err, GQ_EK8S, "cannot set up the request");
        goto out;
    }
    *curl_out = curl_easy_perform(k->easy);
    if (*curl_out != CURLE_OK)
        rc = transfer_error(k, *curl_out, &b, method, path, err);
    else if (gq__kube_resp_take(out, k->easy, &b) != GQ_OK)
        rc = gq__error(err, GQ_ENOMEM, "out of memory");
out:
    /* The handle must not keep pointers to the wiped headers or the stack buffer. */
    curl_easy_setopt(k->easy, CURLOPT_HTTPHEADER, NULL);
    curl_easy_setopt(k->easy, CURLOPT_WRITEDATA, NULL);
    gq__kube_headers_free(hdrs);
    gq__kube_body_free(&b);
    return rc;
}

/* How long to wait before another attempt after this answer, or -1: keep the answer. */
static int64_t retry_wait(struct gq_kube *k, const struct gq_kube_resp *r, int retries)
{
    int64_t ms;

    if (retries >= k->lim.max_retries || (r->status != 429 && r->status < 500))
        return -1;
    if (r->retry_after_s <= 0)
        return backoff_ms(k, retries);
    ms = (int64_t)(r->retry_after_s * 1000.0);
    return ms > RETRY_AFTER_MAX_MS ? RETRY_AFTER_MAX_MS : ms;
}

static bool known_method(const char *m)
{
    static const char *const methods[] = {"GET", "POST", "PUT", "PATCH", "DELETE"};

    for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++)
        if (strcmp(m, methods[i]) == 0)
            return true;
    return false;
}

int gq__kube_call(struct gq_kube *k, const char *method, const char *path,
                  const char *content_type, const char *body, struct gq_kube_resp *out,
                  gq_error *err)
{
    bool reauth = false, invalidate = false;
    int retries = 0, rc;
    int64_t wait;
    CURLcode c;

    memset(out, 0, sizeof(*out));
    if (!known_method(method))
        return gq__error(err, GQ_EINVALID, "unsupported method %s", method);
    for (;;) {
        rc = attempt(k, method, path, content_type, body, invalidate, out, &c, err);
        invalidate = false;
        if (rc != GQ_OK) {
            if (c == CURLE_OK || !retryable(c, method) || retries >= k->lim.max_retries)
                return rc;
            wait = backoff_ms(k, retries);
        } else if (out->status == 401 && !reauth) {
            /* The token may have rotated: drop the cached credential and repeat once. */
            reauth = invalidate = true;
            gq__kube_resp_free(out);
            continue;
        } else if ((wait = retry_wait(k, out, retries)) < 0) {
            return GQ_OK;
        } else {
            gq__kube_resp_free(out);
        }
        retries++;
        rc = sleep_ms(k, wait, err);
        if (rc != GQ_OK)
            return rc;
    }
}
