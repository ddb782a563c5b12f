/*
 * run_multikueue.h: MultiKueue on the simulated cluster (run_multikueue.c),
 * as gq_run (run.c) drives it. Internal.
 */
#ifndef GQ_RUN_MULTIKUEUE_H
#define GQ_RUN_MULTIKUEUE_H

#include <stdint.h>

#include "gpuqueue/db.h"
#include "gpuqueue/event.h"

struct gq_mks;

/* What run.c does for run_multikueue.c with a worker's runner and with the manager's events. */
struct gq__mks_ops {
    /* A runner of the worker database db, its events carrying name; NULL with err set. */
    void *(*start)(void *manager, gq_db *db, const char *name, gq_error *err);
    /* One turn of the worker at now (its provider, cycles, kubelet); *moved: its transitions. */
    int (*step)(void *worker, int64_t now, uint64_t *moved, gq_error *err);
    /* The next moment anything is due on the worker after its now; 0: nothing. */
    int (*next)(void *worker, int64_t *due, gq_error *err);
    /* Its clock handed back, the runner freed. */
    void (*stop)(void *worker);
    /* A transition of the dispatch: the manager's job's (cluster NULL) or a worker's copy's. */
    int (*event)(void *manager, const char *cluster, gq_event_what what, const char *ns,
                 const char *job, const char *message);
};

/*
 * The simulated workers of the manager database db: *out NULL when db has no
 * MultiKueueCluster (or is in memory), so a run without MultiKueue pays
 * nothing. Workers are the databases gq_db_cluster_path names; one that does
 * not exist is a cluster that is not Active.
 */
int gq__mks_open(struct gq_mks **out, gq_db *db, const struct gq__mks_ops *ops, void *manager,
                 gq_error *err);

/*
 * One step of the dispatch at now, inside the manager's step and before its
 * scheduling cycles: copies sent to the workers for workloads that reserved
 * quota, each worker stepped, the first to admit a copy made the winner (its
 * check Ready, the other copies deleted at once), the winner's copy mirrored
 * (started, finished), copies no longer wanted deleted. *moved counts the
 * transitions, the workers' included.
 */
int gq__mks_step(struct gq_mks *m, int64_t now, uint64_t *moved, gq_error *err);

/* The sooner of *due (0: none) and the next moment anything is due on a worker. */
int gq__mks_next(struct gq_mks *m, int64_t *due, gq_error *err);

/* Every worker's runner stopped and its database closed. NULL is a no-op. */
void gq__mks_close(struct gq_mks *m);

#endif
