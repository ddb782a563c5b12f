/*
 * store_load.h: the reads behind the engine's admission snapshot
 * (engine_load.c), the simulated cluster's NodePools (engine_pools.c) and a
 * queue's stop policy (engine.c), each a named function that returns owned C
 * values or calls a typed per-row callback with a struct (store_load.c).
 * Internal to libgpuqueue; no SQLite type crosses this header.
 *
 * Common rules. A row whose columns cannot have the shape they have (a NULL
 * or a type the schema rules out) is GQ_EIO with gq__store_damaged's
 * message, before the callback sees it. Other failures are GQ_EIO (or
 * GQ_ENOMEM, GQ_EBUSY) with SQLite's message. A callback's non-zero return
 * stops the walk and is returned. The strings in a row are borrowed: they
 * live until the callback returns. Reads run in the caller's transaction
 * when there is one; outside one they first fold the engine's journal, as
 * every read does.
 */
#ifndef GQ_STORE_LOAD_H
#define GQ_STORE_LOAD_H

#include <stdbool.h>
#include <stdint.h>

#include "store.h"

/* An object stored as its canonical spec. parent: the cohorts' column only (else NULL). */
struct gq_load_spec {
    const char *name;   /* never NULL, but for configurations, which have no name */
    const char *parent; /* a Cohort's parentName, or NULL */
    const char *spec;   /* canonical JSON, never NULL */
};
typedef int (*gq__load_spec_fn)(const struct gq_load_spec *row, void *payload);

/* Each table's objects, by name (configurations: in the table's order, no name). */
int gq__store_load_flavors(struct gq_store *st, gq__load_spec_fn fn, void *payload,
                           gq_error *err);
int gq__store_load_cohorts(struct gq_store *st, gq__load_spec_fn fn, void *payload,
                           gq_error *err);
int gq__store_load_cluster_queues(struct gq_store *st, gq__load_spec_fn fn, void *payload,
                                  gq_error *err);
int gq__store_load_provisioning_configs(struct gq_store *st, gq__load_spec_fn fn, void *payload,
                                        gq_error *err);
int gq__store_load_admission_checks(struct gq_store *st, gq__load_spec_fn fn, void *payload,
                                    gq_error *err);
int gq__store_load_namespaces(struct gq_store *st, gq__load_spec_fn fn, void *payload,
                              gq_error *err);
int gq__store_load_configurations(struct gq_store *st, gq__load_spec_fn fn, void *payload,
                                  gq_error *err);
int gq__store_load_node_pools(struct gq_store *st, gq__load_spec_fn fn, void *payload,
                              gq_error *err);
/* The Integration objects (the user's rows of the integration table), by name. */
int gq__store_load_integrations(struct gq_store *st, gq__load_spec_fn fn, void *payload,
                                gq_error *err);
/* The LimitRanges, by namespace and name; the RuntimeClasses, by name. */
int gq__store_load_limit_ranges(struct gq_store *st, gq__load_spec_fn fn, void *payload,
                                gq_error *err);
int gq__store_load_runtime_classes(struct gq_store *st, gq__load_spec_fn fn, void *payload,
                                   gq_error *err);
/* The ClusterTrainingRuntimes, by name. */
int gq__store_load_training_runtimes(struct gq_store *st, gq__load_spec_fn fn, void *payload,
                                     gq_error *err);

/* One quota row, ordered by owner_kind, owner, group_index, flavor_index. */
struct gq_load_quota {
    const char *owner_kind; /* "ClusterQueue" or "Cohort" */
    const char *owner;
    int64_t group_index, flavor_index;
    const char *flavor, *resource;
    int64_t nominal;
    bool has_borrowing_limit, has_lending_limit;
    int64_t borrowing_limit, lending_limit; /* 0 when not has_... */
};
typedef int (*gq__load_quota_fn)(const struct gq_load_quota *row, void *payload);
int gq__store_load_quotas(struct gq_store *st, gq__load_quota_fn fn, void *payload,
                          gq_error *err);

/* One LocalQueue, ordered by namespace, name. */
struct gq_load_local_queue {
    const char *ns, *name, *cluster_queue;
    const char *stop_policy; /* None | Hold | HoldAndDrain, as stored */
    const char *weight;      /* spec.fairSharing.weight as written, or NULL */
    const char *consumed;    /* admission fair sharing: "resource=quantity" lines, or NULL
                                when it has no status yet */
    int64_t last_update;     /* ms, when consumed is not NULL */
};
typedef int (*gq__load_lq_fn)(const struct gq_load_local_queue *row, void *payload);
int gq__store_load_local_queues(struct gq_store *st, gq__load_lq_fn fn, void *payload,
                                gq_error *err);

/*
 * A LocalQueue's admission fair sharing status (schema/0016), written in place
 * inside the engine's transaction: consumed as "resource=quantity" lines.
 */
int gq__store_afs_put(struct gq_store *st, const char *ns, const char *name,
                      const char *consumed, int64_t last_update, gq_error *err);

/* One live workload (pending, reserved, admitted, running), ordered by id. */
struct gq_load_workload {
    int64_t id;
    const char *uid, *ns, *name, *job_name;
    const char *local_queue;   /* or NULL */
    const char *cluster_queue; /* or NULL */
    int64_t priority;
    const char *state;         /* as stored */
    const char *reason, *message; /* or NULL */
    const char *podsets;       /* JSON text, never NULL */
    int64_t queued_at;
    int64_t reserved_at;       /* 0 when NULL */
    bool evicted;              /* evicted_reason is not NULL */
    int64_t requeue_at;        /* 0 when NULL */
    const char *inadmissible;  /* why its requests are refused (Kueue's words), or NULL */
    int64_t admitted_at;       /* 0 when NULL */
    const char *pods_ready_reason; /* the PodsReady condition's reason, or NULL (0015) */
    int64_t pods_ready_at;     /* its lastTransitionTime; 0 when NULL */
    int64_t requeue_count;     /* status.requeueState.count */
};
typedef int (*gq__load_workload_fn)(const struct gq_load_workload *row, void *payload);
int gq__store_load_workloads(struct gq_store *st, gq__load_workload_fn fn, void *payload,
                             gq_error *err);

/*
 * A usage row of a workload holding quota (reserved, admitted, running),
 * ordered by workload_id, flavor, resource.
 */
struct gq_load_usage {
    int64_t workload_id;
    const char *flavor, *resource;
    int64_t amount;
};
typedef int (*gq__load_usage_fn)(const struct gq_load_usage *row, void *payload);
int gq__store_load_usage(struct gq_store *st, gq__load_usage_fn fn, void *payload,
                         gq_error *err);

/*
 * One entry of a live workload's failed_flavors (flavor fallback counts),
 * ordered by workload id. attempts is the entry's value read as an integer
 * (the leading digits of its text; 0 when none).
 */
struct gq_load_failed {
    int64_t workload_id;
    const char *flavor;
    int64_t attempts;
};
typedef int (*gq__load_failed_fn)(const struct gq_load_failed *row, void *payload);
int gq__store_load_failed_flavors(struct gq_store *st, gq__load_failed_fn fn, void *payload,
                                  gq_error *err);

/* Each workload id with admission-check rows, once, ascending. */
typedef int (*gq__load_id_fn)(int64_t workload_id, void *payload);
int gq__store_load_checked_workloads(struct gq_store *st, gq__load_id_fn fn, void *payload,
                                     gq_error *err);

/*
 * The stored spec of the ClusterQueue name, or of the LocalQueue ns/name:
 * *out malloc'd, NULL when there is none. The caller decodes it.
 */
int gq__store_cluster_queue_spec(struct gq_store *st, const char *name, char **out,
                                 gq_error *err);
int gq__store_local_queue_spec(struct gq_store *st, const char *ns, const char *name,
                               char **out, gq_error *err);

/*
 * Every read of the engine's snapshot, in the order it needs them, through
 * the readers' callbacks. With the snapshot cache on (a loop's connection),
 * the rows come from memory: the same rows, in the same order, as the
 * tables give, with only those changed since the last call read again
 * (store_cache.c). *table (when table is not NULL) names the table whose row
 * is being handed over, for the callbacks' messages.
 */
struct gq_snapshot_readers {
    gq__load_spec_fn flavor, cohort, cluster_queue, provisioning_config, admission_check,
        namespace_, configuration;
    gq__load_quota_fn quota;
    gq__load_lq_fn local_queue;
    gq__load_workload_fn workload;
    gq__load_usage_fn usage;
    gq__load_failed_fn failed;
    gq__load_id_fn checked;
    void *payload;
    char *table;
    size_t table_size;
};
int gq__store_load_snapshot(struct gq_store *st, const struct gq_snapshot_readers *r,
                            gq_error *err);
/*
 * Keep the snapshot's rows of this connection in memory between calls (on),
 * or free them (off). For a loop that builds a snapshot each turn; a
 * read-only connection keeps none.
 */
int gq__store_snapshot_cache(struct gq_store *st, bool on, gq_error *err);

#endif
