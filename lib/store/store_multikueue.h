/*
 * store_multikueue.h: what MultiKueue's manager (engine/sync_multikueue.c)
 * and the engine's check sync (engine/engine_multikueue.c) read and write
 * of schema/0018: the worker clusters' Active condition, the copies of
 * workloads on the workers, and the workers that won them. Internal to
 * libgpuqueue; no SQLite type crosses this header (store_multikueue.c).
 *
 * Each runs in the caller's transaction when there is one. Failures are
 * GQ_EIO (or GQ_ENOMEM, GQ_EBUSY) with SQLite's message; a row that cannot
 * have the shape it has is GQ_EIO with gq__store_damaged's message.
 */
#ifndef GQ_STORE_MULTIKUEUE_H
#define GQ_STORE_MULTIKUEUE_H

#include <stdbool.h>
#include <stdint.h>

#include "store.h"

#define GQ_MK_CONTROLLER "kueue.x-k8s.io/multikueue"

/* A MultiKueueCluster as the manager connects to it; strings borrowed for the call. */
struct gq_mk_cluster_row {
    const char *name;
    const char *spec;       /* its canonical JSON */
    int active;             /* 1, 0, or -1 before the manager tried */
    const char *reason;     /* the Active condition's reason, NULL before */
    const char *message;
    int64_t inactive_since; /* store ms it stopped answering; 0 when active or never tried */
};
typedef int (*gq__mk_cluster_fn)(const struct gq_mk_cluster_row *c, void *payload, gq_error *err);
int gq__store_mk_clusters(struct gq_store *st, gq__mk_cluster_fn fn, void *payload,
                          gq_error *err);

/*
 * The Active condition found at now: active, with Kueue's reason and
 * message. inactive_since is set when it goes inactive and kept while it
 * stays so; transition_at moves only when the status or the reason does.
 */
int gq__store_mk_set_active(struct gq_store *st, const char *name, bool active,
                            const char *reason, const char *message, int64_t now_ms,
                            gq_error *err);

/* The stored spec of MultiKueueConfig name: *out malloc'd, NULL when there is none. */
int gq__store_mk_config_spec(struct gq_store *st, const char *name, char **out, gq_error *err);

/*
 * A workload with a check of the multikueue controller, as the manager acts
 * on it (strings borrowed for the call). With its copies: one row per live
 * copy (cluster set), or one row with cluster NULL when it has none.
 */
struct gq_mk_row {
    int64_t id;
    const char *ns, *name, *job, *uid; /* the workload, its Job and the Job's UID */
    const char *state;                 /* the workload's state word */
    const char *check;                 /* the multikueue check */
    const char *check_state;           /* Pending | Ready | Retry | Rejected */
    const char *config;                /* the check's parameters.name (a MultiKueueConfig) */
    const char *winner;                /* workloads.cluster_name, NULL while none won */
    int64_t evictions;                 /* the workload's, now */
    const char *cluster;               /* a live copy's worker, or NULL */
    const char *remote_uid;            /* the copy's UID once the worker answered */
    int64_t remote_evictions;          /* the workload's evictions when the copy was sent */
    const char *kind;                  /* the workload's job kind (workloads.job_kind) */
};
typedef int (*gq__mk_row_fn)(const struct gq_mk_row *r, void *payload, gq_error *err);

/*
 * Every workload that holds quota (reserved or admitted) with a check of the
 * multikueue controller, and every workload of any state that still has a
 * live copy, by id then cluster: at most max workloads, those of ids above
 * after (a turn takes the next page).
 */
int gq__store_mk_rows(struct gq_store *st, int64_t after, size_t max, gq__mk_row_fn fn,
                      void *payload, gq_error *err);

/*
 * The intent to send workload id's copy to cluster, written before the
 * request (a copy deleted earlier is sent again: its row is reset).
 */
int gq__store_mk_remote_intent(struct gq_store *st, int64_t id, const char *cluster,
                               int64_t evictions, int64_t now_ms, gq_error *err);
/* The worker's answer: the copy's UID. */
int gq__store_mk_remote_created(struct gq_store *st, int64_t id, const char *cluster,
                                const char *uid, gq_error *err);
/* The copy is gone from the worker. */
int gq__store_mk_remote_deleted(struct gq_store *st, int64_t id, const char *cluster,
                                int64_t now_ms, gq_error *err);

/*
 * cluster admitted workload id's copy first: it is status.clusterName, and
 * the check is Ready with Kueue's message.
 */
int gq__store_mk_won(struct gq_store *st, int64_t id, const char *check, const char *cluster,
                     int64_t now_ms, gq_error *err);
/* The check goes Retry with message (the admitting worker lost); clusterName is cleared. */
int gq__store_mk_retry(struct gq_store *st, int64_t id, const char *check, const char *message,
                       int64_t now_ms, gq_error *err);

/*
 * For the engine's cycle: reserved workloads with a check of the multikueue
 * controller whose checks are now all Ready (*ready), or holding quota with
 * such a check in Retry (*retry, with its message); ids into the caller's
 * arrays, at most max each. Messages are malloc'd (free each).
 */
struct gq_mk_move {
    int64_t id;
    bool retry;
    char *message;
};
int gq__store_mk_moves(struct gq_store *st, struct gq_mk_move *out, size_t max, size_t *n,
                       gq_error *err);

/*
 * What a simulated worker's copy of workload id is made of (run_multikueue.c):
 * its job's kind and apiVersion (NULL for batch/v1), its canonical Workload
 * spec and its duration (-1: none); strings malloc'd (gq__store_mk_source_clear).
 * GQ_ENOTFOUND when there is no such workload.
 */
struct gq_mk_source {
    char *job_kind, *job_api_version, *spec;
    int64_t duration_ms;
};
int gq__store_mk_source(struct gq_store *st, int64_t id, struct gq_mk_source *out, gq_error *err);
void gq__store_mk_source_clear(struct gq_mk_source *s);

/*
 * A copy in a simulated worker's database: the workload whose UID is uid (in
 * any state), or, with uid NULL, the live one (not cancelled) of the job
 * kind ns/job. *found is false when there is none; else its state, and its
 * UID in uid_out (GQ_MK_UID_SIZE bytes).
 */
#define GQ_MK_UID_SIZE 64
int gq__store_mk_copy_state(struct gq_store *st, const char *uid, const char *kind,
                            const char *ns, const char *job, bool *found, char **state,
                            char uid_out[GQ_MK_UID_SIZE], gq_error *err);

/*
 * The Configuration's multiKueue block as stored (canonical JSON, its
 * defaults written out: origin, gcInterval, workerLostTimeout,
 * dispatcherName ...), malloc'd; NULL when the Configuration has none.
 */
int gq__store_mk_settings(struct gq_store *st, char **out, gq_error *err);

/*
 * The same settings as the simulated cluster's manager takes them, each read
 * by SQLite from the stored block (strings malloc'd, NULL when absent; step
 * 0 when absent): origin, dispatcherName, incrementalDispatcherConfig.stepSize,
 * workerLostTimeout.
 */
struct gq_mk_sim_settings {
    char *origin, *dispatcher, *lost_timeout;
    int64_t step;
};
int gq__store_mk_sim_settings(struct gq_store *st, struct gq_mk_sim_settings *out,
                              gq_error *err);

#endif
