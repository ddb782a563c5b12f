/*
 * workgen.h: the arrivals of a simulated day (issue 12 part 4), from a
 * generator profile (user story 1's stages of Dask clusters; the built-in
 * profile "rapids-day") or from a trace file (CSV or JSON lines). Pure: no
 * I/O but the caller's buffer, no clock, a seeded generator; the same seed
 * and the same profile give the same jobs.
 *
 * A profile's jobs come in stages: every job of stage k+1 arrives when the
 * last job of stage k has finished (the simulator decides when that is); a
 * trace's jobs arrive at fixed offsets from the start.
 */
#ifndef GQ_WORKGEN_H
#define GQ_WORKGEN_H

#include <stddef.h>
#include <stdint.h>

#include "gpuqueue/common.h"

#define GQ_WG_MAX_PODSETS 8      /* pod sets of one job, at most */
#define GQ_WG_MAX_RESOURCES 8    /* resources of one pod set, at most */

/*
 * One pod set: count pods, each requesting the same resources. Owned by its
 * job (see struct gq_wg_job): read only.
 */
struct gq_wg_podset {
    char *name;                  /* "scheduler", "workers", "main" ... */
    int32_t count;               /* pods, >= 1 */
    size_t nres;                 /* 0..GQ_WG_MAX_RESOURCES */
    char **res;                  /* nres resource names: cpu, memory, nvidia.com/gpu ... */
    char **qty;                  /* nres per-pod Kubernetes quantities: "500m", "4Gi", "1" */
};

/*
 * One job. Everything it points to (strings, pod sets, their arrays) lives
 * in one allocation per job, the block podsets points to, so that a 100,000-
 * job trace is 100,000 mallocs and a few MB rather than a million small
 * strings: read only, released with gq__wg_jobs_free() and nothing else.
 */
struct gq_wg_job {
    int64_t at_ms;               /* a trace's arrival, ms after the start; 0 in a stage */
    int32_t stage;               /* -1: arrives at at_ms; else its stage (0-based) */
    char *name;                  /* the Job's name, unique in its namespace */
    char *ns;
    char *queue;                 /* the LocalQueue */
    char *priority_class;        /* NULL: none */
    int64_t run_ms;              /* how long it runs once all its pods run (> 0) */
    size_t npodsets;             /* 1..GQ_WG_MAX_PODSETS */
    struct gq_wg_podset *podsets; /* npodsets; the job's block */
};

struct gq_wg_jobs {
    struct gq_wg_job *v;         /* n jobs, malloc'd */
    size_t n, cap;
    int32_t nstages;             /* 0 for a trace */
};

/* Release every job and the array; jobs is left empty. NULL is a no-op. */
void gq__wg_jobs_free(struct gq_wg_jobs *jobs);

/*
 * The jobs of a generator profile, given as YAML or JSON text (the format
 * documented in workgen.c), or the built-in profile named by `builtin`
 * ("rapids-day") when text is NULL. ns and queue, when not NULL, replace
 * the profile's. GQ_EINVALID naming the field and value (min width above
 * max width, a negative run time, an unknown profile ...), GQ_ENOMEM; nothing
 * in *out on error. source names the text in messages (NULL: "profile").
 */
int gq__wg_profile(struct gq_wg_jobs *out, const char *builtin, const char *text, size_t len,
                   const char *source, uint64_t seed, const char *ns, const char *queue,
                   gq_error *err);

/*
 * The jobs of a trace: CSV with a header line, or JSON lines (one object a
 * line), told apart by the first character outside blanks and '#' comment
 * lines ('{': JSON lines). Sorted by arrival (stable); RFC 3339 arrivals
 * become offsets from the earliest. GQ_EINVALID "<source>:<line>: <key>:
 * invalid value ...", GQ_ENOMEM. Nothing in *out on error.
 */
int gq__wg_trace(struct gq_wg_jobs *out, const char *text, size_t len, const char *source,
                 gq_error *err);

/* ------------------------------------------- between workgen.c and its edge */

/*
 * What follows is shared by workgen.c and manifest_workgen.c only (the one
 * file that turns profile YAML/JSON and JSON-lines traces into plain values,
 * so that workgen.c needs neither libyaml nor json-c). Callers of the two
 * functions above need none of it.
 */

/* An integer field the profile does not set. */
#define GQ_WG_UNSET INT64_MIN

/* One pod set of a profile's job shape, as written. */
struct gq_wg_spec_podset {
    const char *name;                       /* borrowed; NULL when absent */
    int64_t count;                          /* `count`, or GQ_WG_UNSET */
    int64_t count_min, count_max;           /* `countRange`, or GQ_WG_UNSET */
    size_t nres;
    const char *res[GQ_WG_MAX_RESOURCES];   /* borrowed resource names */
    const char *qty[GQ_WG_MAX_RESOURCES];   /* borrowed quantity text */
};

/* One phase: `stages` stages of widths in [min_width, max_width]. */
struct gq_wg_phase {
    const char *name;                       /* borrowed; NULL when absent */
    int64_t stages, min_width, max_width;   /* GQ_WG_UNSET when absent */
    int64_t variation;                      /* GQ_WG_UNSET: the default, 1 */
};

/*
 * A profile as written, not yet checked beyond JSON types and field names:
 * every string borrowed (from the decoder's tree, or static for the
 * built-in), NULL when absent. workgen.c validates and expands it.
 */
struct gq_wg_spec {
    const char *name;                       /* metadata.name */
    const char *ns, *queue, *priority_class, *job_prefix;
    const char *run_min, *run_max;          /* spec.runTime.{min,max}, Go durations */
    size_t npodsets;
    struct gq_wg_spec_podset podsets[GQ_WG_MAX_PODSETS];
    size_t nphases;
    const struct gq_wg_phase *phases;       /* borrowed */
};

typedef int (*gq__wg_spec_fn)(const struct gq_wg_spec *spec, void *payload, gq_error *err);

/*
 * Decode the one SimulationProfile document of text (YAML or JSON) and hand
 * it to cb; spec is valid during the call only. GQ_EINVALID with
 * "<source>: <field path>: ..." for a syntax error, a wrong apiVersion or
 * kind, an unknown field or a value of the wrong JSON type; else cb's code.
 */
int gq__manifest_wg_profile(const char *text, size_t len, const char *source, gq__wg_spec_fn cb,
                            void *payload, gq_error *err);

/* One key of a JSON-lines trace record, its value as text (numbers as written). */
struct gq_wg_field {
    const char *key;                        /* borrowed; a column, or a resource name */
    const char *val;                        /* borrowed, NUL-terminated */
    int resource;                           /* 1: an entry of the `resources` object */
};

typedef int (*gq__wg_record_fn)(const struct gq_wg_field *f, size_t n, long line, void *payload,
                                gq_error *err);

/*
 * Call cb once per non-blank line of a JSON-lines text, in order, with the
 * line's keys (the `resources` object flattened into resource fields).
 * GQ_EINVALID "<source>:<line>: ..." for a line that is not one JSON object
 * of scalars (and that one object); else cb's code.
 */
int gq__manifest_wg_jsonl(const char *text, size_t len, const char *source, gq__wg_record_fn cb,
                          void *payload, gq_error *err);

#endif
