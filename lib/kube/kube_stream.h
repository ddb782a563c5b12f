/*
 * kube_stream.h: private to kube*.c. Two things live here:
 *
 *  - the watch-stream decoder (kube_stream.c): bytes in, however they are
 *    chunked; one callback per complete watch event out;
 *  - the seams kube.c offers kube_informer.c (preparing an easy handle, the
 *    shared rate limiter, the credential, the response body buffer), so that
 *    the informers reuse the call path's TLS, headers and limits instead of
 *    repeating them. Only kube*.c include this file and <curl/curl.h>.
 */
#ifndef GQ_KUBE_STREAM_H
#define GQ_KUBE_STREAM_H

#include <curl/curl.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kube.h"
#include "kube_curl.h" /* after <curl/curl.h>: curl_* go through the loaded table */

/* Largest single watch event and largest response body: 16 MiB (etcd caps objects at 1.5 MiB). */
#define GQ_KUBE_MAX_BODY ((size_t)16 << 20)

/* Deepest JSON nesting accepted from the API server (a Job nests about 15 levels). */
#define GQ_KUBE_MAX_DEPTH 64

/* --------------------------------------------------------- stream decoder */

/*
 * Called once per decoded event whose type is ADDED, MODIFIED, DELETED,
 * BOOKMARK or ERROR and which carries an "object" (with a non-empty
 * metadata.resourceVersion unless it is an ERROR). Both are borrowed for the
 * call. Return 0 to go on; anything else stops gq__kube_stream_feed, which
 * returns that value.
 */
typedef int (*gq_kube_stream_fn)(const char *type, json_object *object, void *payload);

struct gq_kube_stream;

/* A decoder; max_bytes caps one event (0: GQ_KUBE_MAX_BODY). GQ_ENOMEM. */
int gq__kube_stream_new(struct gq_kube_stream **out, size_t max_bytes, gq_kube_stream_fn fn,
                        void *payload, gq_error *err);
void gq__kube_stream_free(struct gq_kube_stream *s);

/*
 * Decode len more bytes. Returns GQ_OK, the callback's non-zero value, or
 * GQ_EK8S when the stream is broken (invalid JSON, an event over the byte
 * cap or nested deeper than GQ_KUBE_MAX_DEPTH); a broken stream stays broken.
 */
int gq__kube_stream_feed(struct gq_kube_stream *s, const char *buf, size_t len, gq_error *err);

/* True when bytes of an unfinished event are pending (a stream that ends now was cut). */
bool gq__kube_stream_partial(const struct gq_kube_stream *s);

/* Events handed to the callback; events skipped (unknown type, no object, no RV). */
uint64_t gq__kube_stream_events(const struct gq_kube_stream *s);
uint64_t gq__kube_stream_skipped(const struct gq_kube_stream *s);

/* ------------------------------------------------ seams for the informers */

/* A response body being received, capped at GQ_KUBE_MAX_BODY. */
struct gq_kube_body {
    char *buf;              /* malloc'd, NUL-terminated when len > 0 */
    size_t len, cap;
    bool too_big;           /* the body passed the cap; the transfer was aborted */
    bool nomem;
};

/* CURLOPT_WRITEFUNCTION for a struct gq_kube_body (the CURLOPT_WRITEDATA). */
size_t gq__kube_body_write(char *data, size_t size, size_t n, void *payload);
void gq__kube_body_free(struct gq_kube_body *b);

/*
 * Fill out from a finished transfer on h: the status, the Retry-After, the
 * body (moved out of b) and its JSON when the content type says JSON and it
 * parses completely within the depth cap. GQ_ENOMEM.
 */
int gq__kube_resp_take(struct gq_kube_resp *out, CURL *h, struct gq_kube_body *b);

/* Monotonic milliseconds. */
int64_t gq__kube_now_ms(void);

/* A uniform random number in [0, 1) from the client's generator, for jitter. */
double gq__kube_random(struct gq_kube *k);

/*
 * Take one token from the client's bucket. Returns 0 when the request may go
 * now, else the milliseconds to wait for the token, which is already taken.
 */
int64_t gq__kube_reserve(struct gq_kube *k);

/* The credential for the next request; invalidate after a 401. */
int gq__kube_credential(struct gq_kube *k, bool invalidate, struct gq_kube_auth *out,
                        gq_error *err);

/*
 * Reset h and prepare a request for path (from the server's root, query
 * included) with the client's TLS, protocols, headers and the credential;
 * body (NULL: none) must outlive the transfer. timeout_ms 0 means no overall
 * limit (a watch). errbuf (CURL_ERROR_SIZE bytes, may be NULL) receives
 * curl's reason for a failure. *hdrs_out receives the header list that must
 * outlive the transfer; free it with gq__kube_headers_free. Counts the
 * request. GQ_ENOMEM, GQ_EK8S.
 */
int gq__kube_prepare(struct gq_kube *k, CURL *h, const char *method, const char *path,
                     const char *content_type, const char *body, const struct gq_kube_auth *auth,
                     int64_t timeout_ms, char *errbuf, struct curl_slist **hdrs_out,
                     gq_error *err);

/* Free a header list, wiping it first: it holds the bearer token. */
void gq__kube_headers_free(struct curl_slist *h);

/* The multi handle for the informers' transfers, and the head of the informer list. */
CURLM *gq__kube_multi(struct gq_kube *k);
struct gq_kube_informer **gq__kube_informer_head(struct gq_kube *k);

/* The client's limits (timeouts, the stop flag). */
const struct gq_kube_limits *gq__kube_limits(const struct gq_kube *k);

/* Called by gq__kube_close: stop every informer still attached to k and cut it loose. */
void gq__kube_informers_detach(struct gq_kube *k);

#endif
