/*
 * api.h: what the files behind the public API (api*.c) share. Internal.
 */
#ifndef GQ_API_H
#define GQ_API_H

#include "gpuqueue/db.h"
#include "gpuqueue/tool.h"
#include "handle.h"
#include "model.h"

/* A transaction function's "roll back, but it went well" answer for dry runs. */
#define GQ__DRY_RUN 1

/* Apply, submit or delete one decoded Job or Workload (api_workload.c). */
int gq__apply_workload(gq_db *db, const gq_apply_options *opts, struct gq_object *obj,
                       int64_t now_ms, gq_error *err);

/*
 * Compute what an object needs before it is stored and that does not need
 * the database (its canonical JSON; for jobs also name, UID and workload
 * name), caching it in the object. Thread-safe for distinct objects.
 */
int gq__object_prepare(struct gq_object *obj, gq_error *err);

/* Record one result of the apply in progress (reported after COMMIT). */
int gq__apply_report(gq_db *db, const char *resource, const char *ns, const char *name,
                     const char *workload, gq_apply_result what, const char *note,
                     gq_error *err);

/* Forget what one apply cached (db->lq); run when its transaction ends. */
void gq__apply_forget(gq_db *db);

/* mkdir -p with the given mode for created directories; 0 or -1 with errno. */
int gq__mkdir_p(const char *path, unsigned int mode);

/*
 * p's control characters as visible text (ESC "^[", CR "\r", C1 "\u009b"),
 * tabs, newlines and form feeds kept, appended to out (describe.c).
 */
struct gq__str;
void gq__describe_escape(struct gq__str *out, const char *p, size_t len);

#endif
