/*
 * store_run.h: the reads of the simulated cluster's loop (engine/run.c), each
 * a named function that calls a typed per-row callback or fills an integer
 * (store_run.c). Internal to libgpuqueue; no SQLite type crosses this header.
 * What the loop writes goes through store.h (gq__store_start, _finish,
 * _provreq_status, the books of store_sim.c).
 *
 * Common rules, as store_read.h's. Row callbacks get a struct whose strings
 * are borrowed for the call; a non-zero return stops the walk and is
 * returned. A row whose columns cannot have the shape they have (a NULL or a
 * type the schema rules out) is GQ_EIO with gq__store_damaged's message.
 * Other failures are GQ_EIO (or GQ_ENOMEM, GQ_EBUSY) with SQLite's message.
 * Reads run in the caller's transaction when there is one.
 */
#ifndef GQ_STORE_RUN_H
#define GQ_STORE_RUN_H

#include <stdint.h>

#include "store.h"

/* A ProvisioningRequest that is not deleted, with its workload's state. */
struct gq_run_request {
    int64_t id;             /* provisioning_requests.id */
    int64_t workload;       /* its workload's id */
    const char *uid;        /* never NULL */
    const char *name;       /* never NULL */
    const char *ns;         /* never NULL */
    const char *class_name; /* never NULL */
    const char *spec;       /* the stored request's JSON; never NULL */
    const char *templates;  /* its pod templates' JSON; never NULL */
    const char *status;     /* its status as last published, or NULL */
    const char *record;     /* the simulator's record of it, or NULL */
    const char *wstate;     /* its workload's state; never NULL */
};
typedef int (*gq__run_request_fn)(const struct gq_run_request *p, void *payload);

/* Every ProvisioningRequest not deleted, by id. */
int gq__store_run_requests(struct gq_store *st, gq__run_request_fn fn, void *payload,
                           gq_error *err);

/* A workload the loop starts, finishes or keeps the pods of. */
struct gq_run_workload {
    int64_t id;
    const char *ns;   /* never NULL */
    const char *name; /* never NULL */
    const char *uid;  /* never NULL */
    const char *job;  /* its job's name; never NULL */
    int64_t duration_ms; /* as stored, or the default (below); -1 when none */
};
typedef int (*gq__run_workload_fn)(const struct gq_run_workload *w, void *payload);

/* Which workloads gq__store_run_workloads walks. */
enum gq_run_which {
    GQ_RUN_ADMITTED, /* admitted, by id; duration_ms or default_ms */
    GQ_RUN_DONE,     /* running whose job ended at now or before, by end then id; the same */
};

/*
 * The workloads of which, at now_ms. A job's end is started_at + its
 * duration, and none when that falls outside 1970..9999 (it then runs until
 * cancelled). default_ms stands in for a missing duration_ms, bound as text
 * as it always was: in the end's range check a text value compares above
 * every integer, so a job without a duration of its own has no end (it is
 * never among GQ_RUN_DONE, nor in gq__store_run_due's finish_out).
 */
int gq__store_run_workloads(struct gq_store *st, enum gq_run_which which, int64_t now_ms,
                            int64_t default_ms, gq__run_workload_fn fn, void *payload,
                            gq_error *err);

/*
 * The ids of the admitted or running workloads, ascending, into a malloc'd
 * array (*out NULL when there are none; read from an index alone).
 */
int gq__store_run_live_ids(struct gq_store *st, int64_t **out, size_t *n, gq_error *err);

/* One pod set of a released workload, with what its pods need. */
struct gq_run_podset {
    int64_t workload;     /* the workload's id */
    const char *name;     /* the pod set's name, or NULL */
    int64_t count;        /* its pods: the admission's count, else the spec's; 1 without */
    int64_t gpus;         /* GPUs per pod (the sum of its .../gpu requests); 0 without */
    const char *flavor;   /* the flavor assigned its GPUs, or NULL */
    const char *node_selector; /* its template's nodeSelector as "k=v" lines; NULL */
    const char *flavors;  /* its assigned flavors, each once, in assignment order, a line
                             each; NULL */
    int64_t pods;         /* the workload's pods (workloads.pods) */
};
typedef int (*gq__run_podset_fn)(const struct gq_run_podset *ps, void *payload);

/* The pod sets of workload id, in the spec's order. */
int gq__store_run_podsets(struct gq_store *st, int64_t id, gq__run_podset_fn fn, void *payload,
                          gq_error *err);

/*
 * When the next running job ends (finish_out; its end as for
 * gq__store_run_workloads) and the next pending workload's backoff after
 * now_ms ends (requeue_out): each 0 when there is none.
 */
int gq__store_run_due(struct gq_store *st, int64_t now_ms, int64_t default_ms,
                      int64_t *finish_out, int64_t *requeue_out, gq_error *err);

/* Each flavor with nodeLabels, by name, and its labels as "k=v" lines. */
typedef int (*gq__run_flavor_fn)(const char *flavor, const char *labels, void *payload);
int gq__store_run_flavors(struct gq_store *st, gq__run_flavor_fn fn, void *payload, gq_error *err);

#endif
