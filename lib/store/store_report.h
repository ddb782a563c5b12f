/*
 * store_report.h: the records behind gq_report, as store_report.c reads
 * them. Internal to libgpuqueue; no SQLite type crosses this header.
 *
 * The store reads the records of a window into struct gq__report_raw:
 * plain arrays, one element per job, node, pod or ProvisioningRequest, with
 * every name interned once (a report over 100,000 jobs names a few dozen
 * queues). api/report.c turns them into figures. The types are declared
 * here, not with the report (api/report.h), because the store fills them
 * and sits below api/. All times are ms.
 */
#ifndef GQ_STORE_REPORT_H
#define GQ_STORE_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuqueue/common.h"

struct gq_store;

/* Interned strings: the same text always gets the same index. */
struct gq__names {
    char **v;       /* owned */
    size_t n, cap;
    int32_t *slots; /* open addressing: index + 1, 0 empty; owned */
    size_t nslots;  /* a power of two, at least 2 n */
};

/* Index of s (NULL is "-"), added if new; -1 on out of memory. */
int32_t gq__names_intern(struct gq__names *names, const char *s);
void gq__names_free(struct gq__names *names);

/* One job submitted in the window. Times are -1 when not (yet) reached. */
struct gq__report_job {
    int32_t cq, lq, ns; /* names: ClusterQueue, namespace/LocalQueue, namespace */
    int64_t created, reserved, admitted, started;
};

/* A node (up_at to down_at) or a pod (started to ended) holding GPUs; to -1: still. */
struct gq__report_span {
    int64_t from, to;
    int64_t gpus;
    int32_t pool, flavor; /* names; a pod's are its node's */
};

/* One ProvisioningRequest created in the window. */
struct gq__report_provreq {
    int32_t flavor;      /* names */
    int64_t attempt;
    int64_t created;
    int64_t provisioned; /* -1: never */
    bool failed, expired, revoked;
};

#define GQ__VEC(T)                                                                                 \
    struct {                                                                                       \
        T *v;                                                                                      \
        size_t n, cap;                                                                             \
    }

struct gq__report_raw {
    int64_t since, until;          /* the window, resolved */
    struct gq__names names;
    GQ__VEC(struct gq__report_job) jobs;
    GQ__VEC(struct gq__report_span) nodes;
    GQ__VEC(struct gq__report_span) pods;   /* started pods */
    GQ__VEC(int64_t) pod_waits;              /* started - created, pods created in the window */
    size_t pods_waiting;                     /* created in the window, not started by its end */
    GQ__VEC(struct gq__report_provreq) provreqs;
    size_t nodes_total;                      /* rows in sim_nodes, any time */
};

/*
 * Read the window's records. since/until 0 mean the first and last record.
 * GQ_EIO from the database, GQ_ENOMEM.
 */
int gq__store_report_load(struct gq_store *st, int64_t since, int64_t until,
                          struct gq__report_raw *raw, gq_error *err);
void gq__report_raw_free(struct gq__report_raw *raw);

#endif
