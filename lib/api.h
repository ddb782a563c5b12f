/*
 * api.h: what the files behind the public API (api*.c) share. Internal.
 */
#ifndef GQ_API_H
#define GQ_API_H

#include "gpuqueue/db.h"
#include "model.h"

/* A transaction function's "roll back, but it went well" answer for dry runs. */
#define GQ__DRY_RUN 1

struct apply_ctx;

struct gq_db {
    struct gq_store *st;     /* the database */
    struct apply_ctx *apply; /* the apply in progress, for gq__apply_report */
};

/* Apply, submit or delete one decoded Job or Workload (api_workload.c). */
int gq__apply_workload(gq_db *db, const gq_apply_options *opts, struct gq_object *obj,
                       int64_t now_ms, gq_error *err);

/* Record one result of the apply in progress (reported after COMMIT). */
int gq__apply_report(gq_db *db, const char *resource, const char *ns, const char *name,
                     const char *workload, gq_apply_result what, const char *note,
                     gq_error *err);

/* mkdir -p with the given mode for created directories; 0 or -1 with errno. */
int gq__mkdir_p(const char *path, unsigned int mode);

#endif
