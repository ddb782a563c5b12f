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

/* ms since the epoch as "2026-11-21T08:00:00Z". */
void gqd_iso_time(char buf[32], int64_t ms);

/* A JSON string: quotes, backslashes and control characters escaped. */
void gqd_json_string(FILE *out, const char *s);

/* `,"key":"value"` for one field of a JSON log line; nothing when value is NULL. */
void gqd_json_field(FILE *out, const char *key, const char *value);

/*
 * One line per event of the library's cluster loops (cluster mode, the
 * simulated provisioner): payload is a const bool *, true for JSON lines.
 */
void gqd_cluster_log(const gq_cluster_event *e, void *payload);

/* Cluster mode (cluster.c): run until SIGTERM; the exit status. */
int gqd_cluster(const char *db_path, gq_cluster_options *o, const char *listen, bool json);

/*
 * The simulated cluster as the API server's autoscaler (provisioner.c):
 * answer ProvisioningRequests from db_path's NodePools (after applying
 * c->config, if any) until SIGTERM; the exit status.
 */
int gqd_sim_provisioner(const char *db_path, gq_cluster_options *c, double speed, uint64_t seed,
                        bool json);

#endif
