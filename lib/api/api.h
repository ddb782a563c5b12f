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

/*
 * After an object of kind was applied or deleted in a write transaction: a
 * LimitRange (of ns), a RuntimeClass or the Configuration adjusts the pending
 * workloads' requests anew (gq__apply_readjust); other kinds change nothing.
 */
int gq__api_readjust(gq_db *db, enum gq_kind kind, const char *ns, gq_error *err);

/* mkdir -p with the given mode for created directories; 0 or -1 with errno. */
int gq__mkdir_p(const char *path, unsigned int mode);

/*
 * p's control characters as visible text (ESC "^[", CR "\r", C1 "\u009b"),
 * tabs, newlines and form feeds kept, appended to out (describe.c).
 */
struct gq__str;
void gq__describe_escape(struct gq__str *out, const char *p, size_t len);

#endif
