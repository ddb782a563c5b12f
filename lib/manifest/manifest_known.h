/*
 * manifest_known.h: the fields the API knows, per kind and version, as
 * tests/tools/gen_known_fields.py generates them into manifest_known.c from
 * Kueue's CRDs and Configuration types and the integration CRDs; and the
 * check of a document against them (manifest_unknown.c). Private to the
 * manifest_*.c files.
 *
 * A field list is a run of rows sorted by name, stored once however many
 * kinds share it (a pod template recurs in every job kind). A row's own run
 * (first, n) is the list its value keeps to when GQ_MF_KNOWN_CHECK is set: a
 * value without it (a scalar, x-kubernetes-preserve-unknown-fields, an
 * external type the generator does not expand) is not looked into. With
 * GQ_MF_KNOWN_MAP the value's keys are free and each key's value keeps to the
 * run. Arrays are transparent: each item keeps to its field's run.
 */
#ifndef GQ_MANIFEST_KNOWN_H
#define GQ_MANIFEST_KNOWN_H

#include <stddef.h>
#include <stdint.h>

enum {
    GQ_MF_KNOWN_MAP = 1u << 0,   /* a map: any key, each value checked against the run */
    GQ_MF_KNOWN_CHECK = 1u << 1, /* the value (or each map value) keeps to the run (n may be 0) */
};

struct gq__mf_known {
    const char *name; /* the JSON key */
    uint32_t first;   /* the run its value keeps to: gq__mf_known_fields[first, first + n) */
    uint16_t n;
    uint8_t flags;
};

struct gq__mf_known_kind {
    const char *group; /* "" for the core group */
    const char *kind;
    const char *version;
    uint32_t first; /* the document's root keys */
    uint16_t n;
};

extern const struct gq__mf_known gq__mf_known_fields[];
extern const struct gq__mf_known_kind gq__mf_known_kinds[]; /* sorted by group, kind, version */
extern const size_t gq__mf_known_nkinds;

#endif
