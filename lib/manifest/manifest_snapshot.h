/*
 * manifest_snapshot.h: reading the JSON the admission snapshot needs into
 * the core's structs (manifest_snapshot.c). Internal.
 */
#ifndef GQ_MANIFEST_SNAPSHOT_H
#define GQ_MANIFEST_SNAPSHOT_H

#include "admit.h"
#include "gpuqueue/common.h"

/* A LabelSelector's JSON into out (cleared first). GQ_EINVALID if unreadable. */
int gq__manifest_selector(const char *json, struct gq_selector *out, gq_error *err);

/*
 * A workload's podsets column into wl->ps (resource names interned in s);
 * every pod set gets one spare resource slot for "pods". GQ_EIO if unreadable.
 */
int gq__manifest_podsets(struct gq_snapshot *s, struct gq_snap_wl *wl, const char *json,
                         gq_error *err);

#endif
