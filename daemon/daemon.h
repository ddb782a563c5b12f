/*
 * daemon.h: what gpuqd's files share. Daemon-internal.
 */
#ifndef GQD_DAEMON_H
#define GQD_DAEMON_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <gpuqueue.h>

/* Set by the signal handlers (signals.c); the loops read them between steps. */
extern volatile sig_atomic_t gqd_stop_requested, gqd_reload_requested;

/* SIGTERM/SIGINT stop, SIGHUP reloads (when reload) or is ignored, SIGPIPE ignored. */
void gqd_signals(bool reload);

/* One event as one line on stdout (gq_event_format): JSON when json, else text. */
void gqd_log_event(const gq_event *e, bool json);

/*
 * One line per event of the library's cluster loops (cluster mode, the
 * simulated provisioner): payload is a const bool *, true for JSON lines.
 */
void gqd_cluster_log(const gq_cluster_event *e, void *payload);

/* Cluster mode (cluster.c): run until SIGTERM; the exit status. */
int gqd_cluster(const char *db_path, gq_cluster_options *o, const char *listen,
                const gq_metrics_options *metrics, bool json);

/*
 * The simulated cluster as the API server's autoscaler (provisioner.c):
 * answer ProvisioningRequests from db_path's NodePools (after applying
 * c->config, if any) until SIGTERM; the exit status.
 */
int gqd_sim_provisioner(const char *db_path, gq_cluster_options *c, double speed, uint64_t seed,
                        bool json);

#endif
