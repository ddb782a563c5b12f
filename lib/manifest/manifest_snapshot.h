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

/*
 * The same in two halves, for a caller that keeps the parsed column: a
 * podsets column parsed (NULL if unreadable or out of memory), read only
 * by gq__manifest_podsets_fill, which may read it again and again.
 */
struct gq__podsets_doc;
struct gq__podsets_doc *gq__manifest_podsets_parse(const char *json);
int gq__manifest_podsets_fill(struct gq_snapshot *s, struct gq_snap_wl *wl,
                              const struct gq__podsets_doc *doc, gq_error *err);
void gq__manifest_podsets_doc_free(struct gq__podsets_doc *doc);

#endif
