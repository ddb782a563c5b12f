/*
 * kube.h: the Kubernetes API client (DESIGN.md "edges: kube"). Internal to
 * libgpuqueue. kube*.c are the only files that include <curl/curl.h>; the
 * API's JSON reaches the caller as json-c trees (the API speaks JSON, so the
 * kube edge owns that use of json-c, as manifest*.c own the manifests').
 *
 * Three layers, each usable alone:
 *  - configuration: kubeconfig resolved exactly as kubectl resolves it, or
 *    the in-cluster service account (kube_config.c, manifest_kubeconfig.c);
 *    credentials from a static token, a token file re-read on rotation, a
 *    client certificate, or an exec plugin with its cache and expiry;
 *  - calls: one request, TLS always verified unless the kubeconfig itself
 *    says insecure-skip-tls-verify, client-side rate limit, 429 and
 *    Retry-After, 5xx backoff, one credential refresh on 401, never a retry
 *    on other 4xx, never a redirect followed, tokens never logged (kube.c);
 *  - informers: list (paginated) then watch from the list's
 *    resourceVersion with bookmarks, the stream decoded incrementally, relist
 *    on 410 whether it comes as the HTTP status or as an ERROR event (a relist
 *    replaces local state), reconnect with backoff (kube_informer.c,
 *    kube_stream.c). See reference/k8s-client-and-reliability.md §1.
 *
 * Time: the client uses CLOCK_MONOTONIC for its timers; nothing here reads
 * the database.
 */
#ifndef GQ_KUBE_H
#define GQ_KUBE_H

#include <json-c/json.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuqueue/common.h"
#include "manifest_kubeconfig.h" /* struct gq_kube_exec, filled by the decoder */

/* ------------------------------------------------------------ configuration */

/*
 * A resolved connection: what one context of a kubeconfig (or the in-cluster
 * service account) says. Every string is malloc'd and owned; NULL when absent.
 */
struct gq_kube_config {
    char *context;          /* the context's name; "in-cluster" for the service account */
    char *server;           /* "https://host:port" (IPv6 bracketed), no trailing '/' */
    char *ca_file;          /* certificate-authority, absolute */
    char *ca_pem;           /* certificate-authority-data, base64-decoded; ca_pem_len bytes */
    size_t ca_pem_len;
    bool insecure;          /* insecure-skip-tls-verify: true, explicitly */
    char *cert_file, *key_file;  /* client-certificate, client-key, absolute */
    char *cert_pem, *key_pem;    /* client-certificate-data, client-key-data, decoded */
    size_t cert_pem_len, key_pem_len;
    char *token;            /* a static bearer token */
    char *token_file;       /* tokenFile, or the service account's token (re-read) */
    struct gq_kube_exec *exec;
    char *namespace;        /* the context's namespace, POD_NAMESPACE, the service
                               account's namespace file, else "default" */
    /* Credential cache (filled by gq__kube_auth). */
    char *cached_token;
    char *cached_cert_pem, *cached_key_pem;
    size_t cached_cert_len, cached_key_len;
    int64_t cached_at_ms;   /* monotonic ms when read or exec'd */
    int64_t expires_ms;     /* monotonic ms of the exec credential's expiry; 0: none */
};

/* Where the configuration comes from; every field may be NULL. */
struct gq_kube_config_opts {
    const char *kubeconfig; /* --kubeconfig: this file only, must exist */
    const char *context;    /* --context: instead of current-context */
    const char *ns;         /* -n overrides the context's namespace */
    bool in_cluster;        /* only the service account, never a kubeconfig */
};

/*
 * Resolve the configuration as kubectl does: --kubeconfig alone; else the
 * KUBECONFIG list (':'-separated, de-duplicated, empty entries and missing
 * files skipped, an unreadable or unparsable file an error; for clusters,
 * users and contexts the first file that defines a name wins entirely; the
 * first current-context wins; relative paths resolve against the defining
 * file's directory); else $HOME/.kube/config if it exists; else the
 * in-cluster service account when KUBERNETES_SERVICE_HOST and _PORT are both
 * set. Errors follow client-go's validation wording (no current context, a
 * context naming a missing cluster or user, invalid base64, two auth
 * methods, insecure together with a CA, ...). GQ_ENOTFOUND when there is no
 * configuration at all.
 */
int gq__kube_config_load(struct gq_kube_config *out, const struct gq_kube_config_opts *o,
                         gq_error *err);

/*
 * One kubeconfig's text (a MultiKueueCluster's, from its Secret), its
 * current context selected and checked as gq__kube_config_load does; what
 * names it in messages. Relative paths in it resolve against the current
 * directory.
 */
int gq__kube_config_from_text(struct gq_kube_config *out, const char *text, size_t len,
                              const char *what, gq_error *err);

/* The in-cluster service account (reference §1.13); GQ_ENOTFOUND when not in a cluster. */
int gq__kube_config_in_cluster(struct gq_kube_config *out, gq_error *err);

void gq__kube_config_free(struct gq_kube_config *cfg);

/* The credential to send now, borrowed from cfg's cache until the next call. */
struct gq_kube_auth {
    const char *token;      /* bearer token, or NULL */
    const char *cert_pem, *key_pem;  /* client certificate from the exec plugin, or NULL */
    size_t cert_len, key_len;
};

/*
 * The current credential: a token file is re-read when its cached copy is a
 * minute old; an exec plugin runs when nothing is cached or the cached
 * credential expired (with KUBERNETES_EXEC_INFO in its environment, no
 * terminal, a 30 s timeout, its stdout never printed). invalidate (after a
 * 401) drops the cache first. now_ms is the monotonic clock.
 */
int gq__kube_auth(struct gq_kube_config *cfg, bool invalidate, int64_t now_ms,
                  struct gq_kube_auth *out, gq_error *err);

/* ------------------------------------------------------------------- calls */

struct gq_kube;

struct gq_kube_limits {
    double qps;             /* client-side token bucket; <= 0: no limit. Default 20 */
    int burst;              /* default 40 */
    int max_retries;        /* 429 and 5xx, per call; default 5 */
    int64_t timeout_ms;     /* a whole non-watch request; default 30 s */
    int64_t connect_timeout_ms; /* default 10 s */
    volatile sig_atomic_t *stop; /* set by a signal handler: waits end early (may be NULL) */
};

#define GQ_KUBE_LIMITS_INIT {20.0, 40, 5, 30000, 10000, NULL}

/*
 * A client for one API server. cfg is moved in (the client frees it); lim
 * may be NULL for the defaults. The identity (for request logs and leases)
 * is the caller's business.
 */
int gq__kube_open(struct gq_kube **out, struct gq_kube_config *cfg,
                  const struct gq_kube_limits *lim, gq_error *err);
void gq__kube_close(struct gq_kube *k);
const struct gq_kube_config *gq__kube_config(const struct gq_kube *k);

struct gq_kube_resp {
    long status;            /* the HTTP status */
    char *body;             /* NUL-terminated, len bytes */
    size_t len;
    json_object *json;      /* the body parsed when it is JSON, else NULL */
    double retry_after_s;   /* Retry-After of the last answer, 0 if none */
};

void gq__kube_resp_free(struct gq_kube_resp *r);

/*
 * One request: method GET, POST, PUT, PATCH or DELETE; path from the
 * server's root, query included ("/apis/batch/v1/namespaces/x/jobs/y");
 * body NULL or JSON text with its content type (NULL: application/json; a
 * patch names its own, e.g. application/merge-patch+json). Sends
 * Accept: application/json.
 *
 * Retries inside: 429 and 5xx up to max_retries, waiting Retry-After when
 * given, else exponential backoff from 200 ms (capped at 10 s); a 401
 * refreshes the credential once and repeats. Any answer is GQ_OK with
 * out->status set (the caller judges 404, 409, 410 ...). Transport failures
 * (refused, TLS verification, timeout) are GQ_EK8S with curl's reason, once
 * retries are spent; GQ_ECONFLICT never comes from here. A write the gate
 * refuses (gq__kube_set_write_gate) is the gate's code, nothing sent.
 */
int gq__kube_call(struct gq_kube *k, const char *method, const char *path,
                  const char *content_type, const char *body, struct gq_kube_resp *out,
                  gq_error *err);

/*
 * The write gate: asked before every request that is not a GET (POST, PUT,
 * PATCH, DELETE), each attempt, after any wait for the rate limit, so as
 * late before the send as the client can ask. GQ_OK lets the request go;
 * any other code (err filled) is what gq__kube_call returns at once, with
 * nothing sent and nothing retried. A leader installs one that refuses once
 * its Lease may have lapsed (sync_lease.c), because a write decided before
 * a long stall (a stopped process, a slow call) must not go out after it.
 */
typedef int (*gq_kube_write_gate_fn)(const char *method, const char *path, void *payload,
                                     gq_error *err);

/* Install fn (NULL: every write goes, the default); payload is borrowed. */
void gq__kube_set_write_gate(struct gq_kube *k, gq_kube_write_gate_fn fn, void *payload);

/*
 * Name the client in its User-Agent, "gpuq/<version> (<identity>)": on a
 * real API server the replicas of gpuqd share one service account, and the
 * audit log tells them apart only by this. Bytes outside printable ASCII,
 * parentheses and backslashes become '_'; a long identity is cut.
 */
void gq__kube_set_identity(struct gq_kube *k, const char *identity);

/* Requests sent so far (every attempt, retries included), for the benchmarks. */
uint64_t gq__kube_requests(const struct gq_kube *k);

/* The "message" of a Kubernetes Status body, or a short summary of any other answer. */
const char *gq__kube_status_message(const struct gq_kube_resp *r);

/* Bytes for gq__kube_status_line: a log line holding one fits 512 bytes. */
#define GQ_KUBE_STATUS_LINE 300

/*
 * An answer as one line for an error message into buf: the status code and
 * reason first, each cause's field and verdict, then the server's message
 * with its middle cut to fit, so neither what was refused nor why is lost.
 */
void gq__kube_status_line(char *buf, size_t size, const struct gq_kube_resp *r);

/* ----------------------------------------------------------------- informers */

/*
 * What an informer keeps in step with one collection. Callbacks return 0,
 * or a GQ_E* code that stops gq__kube_poll and is returned by it.
 *
 * replace:  after every full list (the first one, and every relist): the
 *           whole collection as listed (a JSON array of objects, borrowed);
 *           the receiver treats objects it had but that are absent as
 *           deleted (client-go's Store.Replace).
 * event:    ADDED, MODIFIED or DELETED, one object (borrowed), in order.
 *           BOOKMARK and ERROR never reach it.
 */
struct gq_kube_informer_ops {
    int (*replace)(json_object *items, void *payload);
    int (*event)(const char *type, json_object *object, void *payload);
};

struct gq_kube_informer;

/*
 * Watch the collection at path (no query, e.g. "/apis/batch/v1/jobs") with
 * an optional label selector (unescaped, "kueue.x-k8s.io/queue-name"). The
 * informer does nothing until gq__kube_poll runs.
 */
int gq__kube_informer_new(struct gq_kube_informer **out, struct gq_kube *k, const char *path,
                          const char *label_selector, const struct gq_kube_informer_ops *ops,
                          void *payload, gq_error *err);
void gq__kube_informer_free(struct gq_kube_informer *inf);

/* True once a full list has been handed to replace (and stays true across relists). */
bool gq__kube_informer_synced(const struct gq_kube_informer *inf);

/* The collection's last resourceVersion seen (opaque), "" before the first list. */
const char *gq__kube_informer_rv(const struct gq_kube_informer *inf);

/* Lists and relists so far; watch requests so far (for the tests). */
uint64_t gq__kube_informer_lists(const struct gq_kube_informer *inf);
uint64_t gq__kube_informer_watches(const struct gq_kube_informer *inf);

/* Why a collection is not being watched right now, or NULL (e.g. the CRD is absent: 404). */
const char *gq__kube_informer_problem(const struct gq_kube_informer *inf);

/* Waiting out a problem (an absent CRD, a backoff): try again at the next poll. */
void gq__kube_informer_retry(struct gq_kube_informer *inf);

/*
 * Drive every informer of k for at most timeout_ms (0: only what is ready
 * now): first lists with limit=500 pages (a 410 on a continue token restarts
 * the list without it; no partial list is ever handed to replace), then
 * watches (watch=1, allowWatchBookmarks=true, resourceVersion = the last seen,
 * timeoutSeconds random in [300, 600]); events decoded from the stream
 * however it is chunked; the stored RV moves with every event, bookmarks
 * included; an ERROR event or HTTP status 410 (reason Expired or Gone)
 * relists with resourceVersion="" ; a clean end re-watches from the last RV
 * with no list; other errors, a watch ending under 1 s with no events, and a
 * connection silent for timeoutSeconds + 30 s reconnect after a backoff of
 * 800 ms doubling to 30 s with jitter (reset after 2 min of health). A 404 on
 * the collection is reported by gq__kube_informer_problem and retried at the
 * backoff's cap. Returns as soon as a step delivered anything (so the caller
 * reacts at once), else at the timeout: GQ_OK, the first callback's error,
 * or GQ_EK8S for a failure the informers cannot carry on from. Callbacks run
 * inside curl_multi_perform: they may make calls, but must not poll or free
 * an informer.
 */
int gq__kube_poll(struct gq_kube *k, int64_t timeout_ms, gq_error *err);

#endif
