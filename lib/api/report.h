/*
 * report.h: what the files behind gq_report share. Internal.
 *
 * store_report.c reads the records of a window into struct gq__report_raw
 * (plain arrays, names interned); report.c turns them into the figures of
 * struct gq__report with stats.c; report_render.c writes the text page,
 * JSON and CSV/TSV; report_html.c the HTML page. All times are ms.
 */
#ifndef GQ_REPORT_H
#define GQ_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuqueue/report.h"
#include "stats.h"
#include "util.h"

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

/* Grow a GQ__VEC to hold one more; false on out of memory. */
bool gq__vec_grow(void **v, size_t *cap, size_t n, size_t size);

/*
 * Read the window's records (store_report.c). since/until 0 mean the first
 * and last record. GQ_EIO from the database, GQ_ENOMEM.
 */
int gq__store_report_load(struct gq_store *st, int64_t since, int64_t until,
                          struct gq__report_raw *raw, gq_error *err);
void gq__report_raw_free(struct gq__report_raw *raw);

/* ------------------------------------------------------------ the figures */

enum { GQ__W_ADMISSION, GQ__W_RUNNING, GQ__W_QUOTA, GQ__W_CAPACITY, GQ__W_POD, GQ__NWAITS };

#define GQ__BINS_RANGE_MS 600000 /* fixed bins cover 0-600 s, then one overflow */
#define GQ__SERIES_POINTS 120

struct gq__report_wait {
    const char *key;   /* "admission", ... (JSON and CSV) */
    const char *label; /* "submit to admitted" */
    int64_t *v;        /* sorted samples; owned */
    size_t n;
    size_t waiting;    /* not there by the window's end */
    struct gq__stats_summary s;
    size_t under[GQ_REPORT_MAX_UNDER];
    uint64_t buckets[GQ__WAIT_NBUCKETS + 1];
    uint64_t *bins;    /* nbins + 1; owned */
};

/* Waits to admission of one ClusterQueue, LocalQueue or namespace. */
struct gq__report_group {
    const char *kind;  /* "ClusterQueue", "LocalQueue", "Namespace" */
    const char *name;  /* borrowed from raw.names */
    size_t jobs, admitted;
    struct gq__stats_summary s;
};

/* GPU-ms provisioned and used by one pool or flavor. */
struct gq__report_cost {
    const char *name;
    size_t nodes;
    double provisioned, used;
};

struct gq__report_prov {
    const char *flavor; /* NULL in the per-attempt rows */
    int64_t attempt;    /* 0 in the per-flavor rows */
    size_t requests, retries, provisioned, failed, expired, revoked;
    struct gq__stats_summary to_provisioned;
};

struct gq__report {
    const gq_report_options *opts;
    int64_t under[GQ_REPORT_MAX_UNDER];
    size_t nunder;
    int64_t bin_ms;
    size_t nbins;
    struct gq__report_raw raw;
    size_t submitted, admitted, running, finished;
    struct gq__report_wait waits[GQ__NWAITS];
    GQ__VEC(struct gq__report_group) groups;
    GQ__VEC(struct gq__report_cost) pools;
    GQ__VEC(struct gq__report_cost) flavors;
    struct gq__report_cost total;
    int64_t step;   /* series: npoints bins of step ms from raw.since, covering the window */
    size_t npoints; /* at most GQ__SERIES_POINTS */
    double avail[GQ__SERIES_POINTS], used[GQ__SERIES_POINTS], pending[GQ__SERIES_POINTS];
    GQ__VEC(struct gq__report_prov) prov;     /* per flavor, then per attempt */
    size_t nprov_flavors;
};

/* Render (report_render.c, report_html.c) into s; s->failed on out of memory. */
void gq__report_text(struct gq__str *s, const struct gq__report *r);
void gq__report_json(struct gq__str *s, const struct gq__report *r);
void gq__report_table(struct gq__str *s, const struct gq__report *r, char sep);
void gq__report_html(struct gq__str *s, const struct gq__report *r);

/* Shared by the renderers: seconds with 3 decimals, trailing zeros dropped ("2.5", "22"). */
void gq__report_secs(char *buf, size_t size, double ms);
/* A wait as a person reads it: "0.1s", "22.3s", "5m26s", "1h2m". */
void gq__report_dur(char *buf, size_t size, double ms);

/* v as a JSON string, quoted and escaped. */
void gq__report_jstr(struct gq__str *s, const char *v);

/* The figures of db, unrendered (gq_simulate_compare); free with gq__report_destroy. */
struct gq_db;
int gq__report_build(struct gq__report **out, struct gq_db *db, const gq_report_options *opts,
                     gq_error *err);
void gq__report_destroy(struct gq__report *r);

#endif
