/*
 * provisioner.c: gpuqd --sim-provisioner, the simulated cluster playing the
 * autoscaler against an API server (gq_sim_provisioner_run), with one log
 * line per event in cluster mode's format. Its database holds only the
 * NodePools (from `gpuq apply -f` beforehand, or --config applied at
 * start); it is not the database of a gpuqd in cluster mode, though it may
 * be. Signals only set a flag: SIGTERM and SIGINT finish the turn in hand
 * and exit 0.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpuqueue.h>

#include "daemon.h"




/* --config: the NodePools (and anything else gpuq apply takes) into the database. */
static int apply_config(gq_db *db, const char *path, gq_error *err)
{
    gq_apply_options o = GQ_APPLY_OPTIONS_INIT;

    return path ? gq_apply_path(db, path, &o, NULL, NULL, err) : GQ_OK;
}

int gqd_sim_provisioner(
    const char *db_path, gq_cluster_options *c, double speed, uint64_t seed, bool json)
{
    gq_sim_provisioner_options o = GQ_SIM_PROVISIONER_OPTIONS_INIT;
    gq_open_options oo = GQ_OPEN_OPTIONS_INIT;
    gq_error err = {0, ""};
    gq_db *db = NULL;
    int rc;

    gqd_signals(false); /* pools are read once, at start: nothing to reload */
    o.target = c->target;
    o.speed = speed;
    o.seed = seed;
    o.stop = &gqd_stop_requested;
    o.log = gqd_cluster_log;
    o.log_payload = &json;
    if ((rc = gq_db_open(&db, db_path, &oo, &err)) == GQ_OK &&
        (rc = apply_config(db, c->config, &err)) == GQ_OK)
        rc = gq_sim_provisioner_run(db, &o, &err);
    gq_db_close(db);
    if (rc != GQ_OK) {
        fprintf(stderr, "gpuqd: error: %s\n", err.msg);
        return EXIT_FAILURE;
    }
    fprintf(stderr, "gpuqd: stopped\n");
    return EXIT_SUCCESS;
}
