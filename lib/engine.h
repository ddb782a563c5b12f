/*
 * engine.h: the reconcile step that joins the admission core, the store and
 * (later) a backend. Internal.
 */
#ifndef GQ_ENGINE_H
#define GQ_ENGINE_H

#include "admit.h"
#include "gpuqueue/common.h"
#include "manifest_load.h"
#include "store.h"

/* Build the admission snapshot from the store, inside the caller's transaction. */
int gq__engine_load(struct gq_snapshot *s, struct gq_store *st, gq_error *err);

/*
 * At a quota reservation with admission checks: record each check that
 * applies and create the ProvisioningRequests (engine_provision.c). note
 * gets "waiting for capacity: ..." when a request was created.
 */
int gq__engine_checks_on_reserve(struct gq_store *st, const struct gq_snapshot *s,
                                 const struct gq_snap_wl *wl, int64_t now, char *note,
                                 size_t notelen, gq_error *err);

/*
 * Each live ProvisioningRequest's status into its check (Kueue's
 * syncCheckStates); a reserved workload whose checks all turn Ready gets a
 * GQ_DEC_READY decision (engine_provision.c). Retry and Rejected are
 * recorded on the check; acting on them is still to come.
 */
int gq__engine_sync_checks(struct gq_store *st, struct gq_snapshot *s, int64_t now,
                           struct gq_decisions *d, gq_error *err);

/*
 * A gq__object_cb that moves the one decoded object into payload (a struct
 * gq_object), for reading a stored canonical spec back.
 */
int gq__take_object(struct gq_object *obj, const struct gq_doc_loc *loc, int rc, void *payload,
                    gq_error *err);

#endif
