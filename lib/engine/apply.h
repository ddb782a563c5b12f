/*
 * apply.h: one decoded Job or Kueue Workload into gpuq's workload record,
 * as `gpuq apply`, `submit` and `delete -f` write it (api/api.c) and as
 * cluster mode queues the cluster's labelled Jobs (sync_jobs.c). Internal.
 *
 * Both callers are inside a write transaction of their own; nothing here
 * starts one. The decoding is the manifest layer's and the writes the
 * store's: this file decides between them (the initial state, the name,
 * the UID), which is why it sits in engine/, the lowest layer that sees
 * both and the handle.
 */
#ifndef GQ_APPLY_H
#define GQ_APPLY_H

#include <stdint.h>

#include "gpuqueue/db.h"
#include "handle.h"
#include "integration.h"
#include "model.h"

/*
 * Told what an apply did to one object, inside the transaction, in order:
 * api.c keeps it to report after COMMIT. item and its strings are borrowed
 * for the call. A non-zero return fails the apply with that code.
 */
typedef int (*gq__apply_report_fn)(const gq_apply_item *item, void *payload, gq_error *err);

/*
 * Apply, submit or delete (opts->mode) one decoded Job or Workload at
 * now_ms, and tell report (NULL: nobody; cluster mode) what it did.
 * GQ_EINVALID or GQ_ENOTFOUND where submit is strict, GQ_EEXISTS (submit of
 * a job that exists), GQ_EIO, GQ_ENOMEM.
 */
int gq__apply_workload(gq_db *db, const gq_apply_options *opts, struct gq_object *obj,
                       int64_t now_ms, gq__apply_report_fn report, void *payload,
                       gq_error *err);

/*
 * Compute what an object needs before it is stored and that does not need
 * the database (its canonical JSON; for jobs also name, UID and workload
 * name), caching it in the object. Thread-safe for distinct objects.
 */
int gq__object_prepare(struct gq_object *obj, gq_error *err);

/*
 * After a LimitRange (of namespace ns), a RuntimeClass or the Configuration
 * changed (ns NULL): every pending workload's requests adjusted anew from its
 * stored spec, as Kueue's resourceUpdatesHandler does for pending workloads;
 * *changed counts those whose requests or message changed. Inside the
 * caller's write transaction.
 */
int gq__apply_readjust(gq_db *db, const char *ns, size_t *changed, gq_error *err);

/* Point item's unknown_fields and not_enforced at obj's (borrowed). */
void gq__apply_item_fields(gq_apply_item *item, const struct gq_object *obj);

/* Forget what one apply cached (db->lq); run when its transaction ends. */
void gq__apply_forget(gq_db *db);

/*
 * The user's rows of the integration table, from the stored Integration
 * objects, and the ClusterTrainingRuntimes a TrainJob may name.
 */
struct gq__user_rows {
    struct gq_object *objs;           /* the Integrations, decoded; the rows point into them */
    struct gq_integ_user *users;
    const struct gq_integration **ptrs;
    size_t n;
    struct gq_integrations set;       /* what gq_decode_options.integrations takes */
    struct gq_object *runtimes;       /* the ClusterTrainingRuntimes, decoded */
    size_t nruntimes;
};
int gq__engine_load_integrations(struct gq_store *st, struct gq__user_rows *out, gq_error *err);
void gq__user_rows_free(struct gq__user_rows *r);

/*
 * What adjusts requests as Kueue does (manifest_load.h), from the stored
 * LimitRanges, RuntimeClasses and Configuration; *out NULL when none does.
 */
struct gq_adjust;
int gq__engine_load_adjust(struct gq_store *st, struct gq_adjust **out, gq_error *err);

#endif
