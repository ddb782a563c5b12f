/*
 * store_sync.h: the reads and the write of cluster mode's Job informer
 * (engine/sync_jobs.c), each a named function (store_sync.c). Internal to
 * libgpuqueue; no SQLite type crosses this header. The rest of what the
 * informer writes goes through store.h (gq__store_kube_seen, _kube_gone,
 * _kube_close, _start, _event).
 *
 * Each runs in the caller's transaction when there is one (the informer's
 * batches run in gq__store_write). Failures are GQ_EIO (or GQ_ENOMEM,
 * GQ_EBUSY) with SQLite's message.
 */
#ifndef GQ_STORE_SYNC_H
#define GQ_STORE_SYNC_H

#include <stdint.h>

#include "store.h"

/*
 * A workload as the informer acts on it, copied (truncated to the sizes
 * below, which no Kubernetes name or UID reaches). id 0: there is none.
 */
struct gq_sync_record {
    int64_t id;
    char state[16];
    char name[256]; /* Kueue's workload name */
    char uid[128];  /* the Job's UID */
    int64_t pods;   /* pods admitted (status.admission's counts), else asked for */
};

/* The workload of the Job whose UID is uid, any state, into *out (out->id 0: none). */
int gq__store_sync_by_uid(struct gq_store *st,
                          const char *uid,
                          struct gq_sync_record *out,
                          gq_error *err);

/*
 * A live workload (pending, reserved, admitted, running or deactivated) of
 * the job of kind ns/name under a UID other than uid: the Job was deleted and
 * re-created. Into *out (out->id 0: none; the last row when there were
 * several, which apply's one-live-workload-per-job rule rules out).
 */
int gq__store_sync_replaced(struct gq_store *st,
                            const char *kind,
                            const char *ns,
                            const char *name,
                            const char *uid,
                            struct gq_sync_record *out,
                            gq_error *err);

/*
 * After a full list of one kind: every live workload of a job of that kind
 * whose UID is not among listed_uids (the listed jobs' UIDs as a JSON array
 * of strings) is marked gone, for the outbox to confirm with a GET.
 */
int gq__store_sync_unlisted_gone(struct gq_store *st, const char *kind, const char *listed_uids,
                                 gq_error *err);

#endif
