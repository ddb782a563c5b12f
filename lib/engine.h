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
 * A gq__object_cb that moves the one decoded object into payload (a struct
 * gq_object), for reading a stored canonical spec back.
 */
int gq__take_object(struct gq_object *obj, const struct gq_doc_loc *loc, int rc, void *payload,
                    gq_error *err);

#endif
