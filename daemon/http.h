/*
 * http.h: gpuqd's own HTTP endpoints (daemon-internal): /healthz, /readyz,
 * /metrics (Prometheus), Kueue's visibility API for pending workloads, and
 * /api/v1/workloads (what `gpuq list -A -o json` prints), read-only, served
 * by libmicrohttpd on threads of its own with their own read-only database
 * handle.
 */
#ifndef GQD_HTTP_H
#define GQD_HTTP_H

#include <stddef.h>

#include <gpuqueue.h>

struct gqd_http;

/*
 * Listen on `listen` ("127.0.0.1:8080", ":8080" for every address,
 * "[::1]:0" for any free port; host names are resolved) and serve the
 * database at db_path. *ready (the caller's, read on every /readyz and
 * /metrics) says whether the daemon has finished its first full sync; the
 * serving thread reads it with __atomic_load_n, so set it with
 * __atomic_store_n(ready, 1, __ATOMIC_RELEASE). metrics (copied; NULL:
 * defaults) is what /metrics exports.
 * Returns 0, or -1 with one line in errbuf.
 */
int gqd_http_start(struct gqd_http **out,
                   const char *listen,
                   const char *db_path,
                   volatile int *ready,
                   const gq_metrics_options *metrics,
                   char *errbuf,
                   size_t errlen);

/* The port bound (the one the system chose for port 0). */
int gqd_http_port(const struct gqd_http *h);

/* The address bound, as "127.0.0.1:8080" or "[::1]:8080"; valid until gqd_http_stop. */
const char *gqd_http_address(const struct gqd_http *h);

/* Stop serving (finishing the requests in hand) and free h. NULL is a no-op. */
void gqd_http_stop(struct gqd_http *h);

#endif
