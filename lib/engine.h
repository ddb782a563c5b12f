/*
 * engine.h: the reconcile step that joins the admission core, the store and
 * (later) a backend. Internal.
 */
#ifndef GQ_ENGINE_H
#define GQ_ENGINE_H

#include "admit.h"
#include "gpuqueue/common.h"
#include "store.h"

/* Build the admission snapshot from the store, inside the caller's transaction. */
int gq__engine_load(struct gq_snapshot *s, struct gq_store *st, gq_error *err);

#endif
