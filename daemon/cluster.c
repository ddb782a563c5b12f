/*
 * cluster.c: gpuqd in cluster mode: the library's sync loop
 * (gq_cluster_run) with the daemon's endpoints beside it and one log line
 * per event. Signals only set flags: SIGTERM and SIGINT finish the step in
 * hand (every transaction commits or rolls back whole), release the Lease
 * and exit 0; SIGHUP applies --config again. Losing the Lease exits 1 at
 * once, as controller-runtime does: a process that may no longer write
 * must not linger.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gpuqueue.h>

#include "daemon.h"
#include "http.h"





int gqd_cluster(const char *db_path, gq_cluster_options *o, const char *listen,
                const gq_metrics_options *metrics, bool json)
{
    gq_open_options oo = GQ_OPEN_OPTIONS_INIT;
    gq_error err = {0, ""};
    struct gqd_http *http = NULL;
    volatile int ready = 0; /* set by the sync, read by the HTTP thread (atomically) */
    char errbuf[256];
    gq_db *db = NULL;
    int rc;

    gqd_signals(true);
    o->stop = &gqd_stop_requested;
    o->reload = &gqd_reload_requested;
    o->ready = &ready;
    o->log = gqd_cluster_log;
    o->log_payload = &json;
    if ((rc = gq_db_open(&db, db_path, &oo, &err)) != GQ_OK)
        goto out;
    if (listen && gqd_http_start(&http, listen, db_path, &ready, metrics, errbuf,
                                 sizeof(errbuf)) != 0) {
        snprintf(err.msg, sizeof(err.msg), "--listen %s: %s", listen, errbuf);
        rc = GQ_EINVALID;
        goto out;
    }
    if (http)
        fprintf(stderr, "gpuqd: listening on %s\n", gqd_http_address(http));
    rc = gq_cluster_run(db, o, &err);
out:
    gqd_http_stop(http);
    gq_db_close(db);
    if (rc != GQ_OK) {
        fprintf(stderr, "gpuqd: error: %s\n", err.msg);
        return EXIT_FAILURE;
    }
    fprintf(stderr, "gpuqd: stopped\n");
    return EXIT_SUCCESS;
}
