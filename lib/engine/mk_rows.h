/*
 * mk_rows.h: the workloads MultiKueue's manager acts on, as both managers
 * read them (sync_multikueue.c against API servers, run_multikueue.c against
 * simulated clusters): a page of gq__store_mk_rows grouped by workload, with
 * its live copies, owned. Internal.
 */
#ifndef GQ_MK_ROWS_H
#define GQ_MK_ROWS_H

#include <stdbool.h>
#include <stdint.h>

#include "gpuqueue/common.h"
#include "mk_dispatch.h"

struct gq_store;
struct gq_integration;

#define GQ_MK_LOST_TIMEOUT_MS (15 * 60 * 1000) /* Kueue's workerLostTimeout default */

/* A workload's copy on one worker. */
struct mk_copy {
    char *cluster, *uid;    /* uid: NULL until the worker answered */
    int64_t evictions;      /* the workload's when the copy was sent */
    bool send;              /* to send this turn, its intent recorded first */
};

/* One workload's row and its live copies. */
struct mk_wl {
    int64_t id, evictions;
    char *ns, *name, *job, *uid, *state, *check, *check_state, *config, *winner, *kind;
    const struct gq_integration *row; /* its kind's row, when the reader sets it (borrowed) */
    struct mk_copy *copies;
    size_t ncopies;
};

struct mk_wls {
    struct mk_wl *v;
    size_t n, cap;
    int64_t after;          /* the page: workloads of ids above this */
};

/* The next page (ids above l->after, at most max workloads) into l, in the caller's transaction. */
int gq__mk_wls_load(struct gq_store *st, struct mk_wls *l, size_t max, gq_error *err);
void gq__mk_wls_free(struct mk_wls *l);

/* w's copy on cluster, or NULL. */
struct mk_copy *gq__mk_copy_on(struct mk_wl *w, const char *cluster);

/* A copy of w planned on cluster (send set, no uid yet). GQ_ENOMEM. */
int gq__mk_copy_add(struct mk_wl *w, const char *cluster, gq_error *err);

/* Workloads' Incremental dispatch rounds (Kueue keeps them in memory too). */
struct mk_round {
    int64_t id;
    size_t workers;         /* of its config, as the last dispatch read it */
    struct gq_mk_round r;
};
struct mk_rounds {
    struct mk_round *v;
    size_t n, cap;
};

/* The rounds of workload id, zeroed when new; NULL when out of memory. */
struct mk_round *gq__mk_round_of(struct mk_rounds *l, int64_t id);
/* Forget them (the workload no longer holds quota). */
void gq__mk_round_forget(struct mk_rounds *l, int64_t id);

/* Whether w's state holds quota (reserved, admitted, running). */
bool gq__mk_holds_quota(const struct mk_wl *w);

#endif
