/*
 * gpuqueue/tool.h: gpuq's and gpuqd's own helpers for the command line:
 * parsing and printing durations and times as their flags take them, the
 * words kubectl accepts for a resource, the names of report tables and
 * simulation profiles, and reading and printing a cluster's answers the way
 * `gpuq list` and `gpuq describe` show them.
 *
 * UNSTABLE. Unlike the rest of the public API (lib/README.md, "API
 * stability"), anything here may change or go in any release, with no
 * change of SONAME: it is exported because gpuq and gpuqd link the shared
 * library and include nothing but public headers. <gpuqueue.h> does not
 * include this header; a program that does so takes that risk knowingly.
 */
#ifndef GPUQUEUE_TOOL_H
#define GPUQUEUE_TOOL_H

#include <stdio.h>

#include "gpuqueue/common.h"
#include "gpuqueue/db.h"
#include "gpuqueue/cluster.h"
#include "gpuqueue/event.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ----------------------------------------------------------- durations */

/**
 * A duration as Go writes them ("90s", "1h30m", "2.5m") or a bare number of
 * seconds, in milliseconds.
 * @return GQ_OK; GQ_EINVALID naming the text.
 */
GQ_EXTERN int gq_duration_parse(const char *text, int64_t *ms, gq_error *err);

/** Bytes that always hold a gq_duration_format() result. */
#define GQ_DURATION_SIZE 40

/** ms the way a person writes it: "45m", "1h30m", "1m30s", "500ms". */
GQ_EXTERN void gq_duration_format(char *buf, size_t size, int64_t ms);

/* ------------------------------------------------------ words and names */

/** Canonical resource name for what a user typed ("cq" -> "clusterqueue"), or NULL. */
GQ_EXTERN const char *gq_resource_name(const char *word);

/**
 * The candidate closest to word, for a "did you mean" (cobra's rule: a
 * candidate within 2 edits, the case ignored, or one word starts with the
 * other), or NULL. candidates is NULL-terminated.
 */
GQ_EXTERN const char *gq_suggest(const char *word, const char *const *candidates);

/** The resource name closest to a mistyped one ("clusterqueu" -> "clusterqueues"), or NULL. */
GQ_EXTERN const char *gq_resource_suggest(const char *word);

/** Whether name is a table gq_report renders as CSV/TSV. */
GQ_EXTERN bool gq_report_table_is_valid(const char *name);

/**
 * A --since/--until value: an RFC 3339 time ("2026-01-02T03:04:05Z"), "now",
 * or a duration back from now_ms ("90m", "1h30m").
 * @return GQ_OK; GQ_EINVALID naming the text.
 */
GQ_EXTERN int gq_report_time_parse(const char *text, int64_t now_ms, int64_t *out, gq_error *err);

/** Whether name is a built-in profile. */
GQ_EXTERN bool gq_simulate_profile_is_builtin(const char *name);

/* --------------------------------------------- kubectl get: select, sort, print */

/**
 * What `gpuq get` selects and how it prints, as kubectl's flags say it. The
 * objects come as the text of a List (or of one object) that gq_render or
 * gq_kube_list_json wrote; the same code serves the database and a cluster.
 */
typedef struct gq_get_options {
    unsigned int version;       /* GQ_GET_OPTIONS_VERSION */
    const char *resource;       /* singular resource ("workload"): the fields a field
                                   selector may name besides metadata.name|namespace */
    const char *label_selector; /* -l: "k=v,k!=v,k in (a,b),k notin (c),k,!k,k>1"; NULL: all */
    const char *field_selector; /* --field-selector: "metadata.name=x,status.state!=pending" */
    const char *sort_by;        /* --sort-by: a JSONPath, "{.a.b}" or ".a.b" */
    const char *jsonpath;       /* -o jsonpath=TEMPLATE: print this template */
    const char *columns;        /* -o custom-columns=SPEC, or a custom-columns file's text */
    bool columns_file;          /* columns is a file's text: a line of headers, one of paths */
    bool no_headers;            /* custom-columns without its header line */
} gq_get_options;

#define GQ_GET_OPTIONS_VERSION 1
#define GQ_GET_OPTIONS_INIT {GQ_GET_OPTIONS_VERSION, NULL, NULL, NULL, NULL, NULL, NULL, false, false}

/**
 * Check every selector, path and column of o, before anything is read.
 * @return GQ_OK; GQ_EINVALID naming what is wrong ("invalid label selector
 *         \"a in b\": ...", "field label not supported: spec.x", "error parsing
 *         jsonpath {.a[, unterminated array").
 */
GQ_EXTERN int gq_get_check(const gq_get_options *o, gq_error *err);

/**
 * Print what o selects from json, sorted as o says: the jsonpath template's
 * output, the custom columns, else the objects as format (a List when json
 * is one), as kubectl prints them.
 * @return GQ_OK; GQ_EINVALID for bad options or an evaluation error (an index
 *         out of range, a sort path no object has); fn's failure as GQ_EIO.
 */
GQ_EXTERN int gq_get_print(const char *json, const gq_get_options *o, gq_format format,
                           gq_write_fn fn, void *payload, gq_error *err);

/** An object gq_get_items keeps: labels "k=v,k=v" in key order, "" when none. */
typedef int (*gq_get_item_fn)(const char *ns, const char *name, const char *labels,
                              void *payload);

/**
 * Call fn for each object o selects from json, in o's order (ns NULL for a
 * cluster-scoped object), so a table printer can print its own rows in it.
 * fn's non-zero return stops the walk and is returned.
 */
GQ_EXTERN int gq_get_items(const char *json, const gq_get_options *o, gq_get_item_fn fn,
                           void *payload, gq_error *err);

/* ---------------------------------------------------------------- events */

/* How gq_event_format writes an event: the lines gpuq and gpuqd print. */
typedef enum gq_event_style {
    GQ_EVENT_STYLE_TEXT = 0, /* gpuqd's log: "2026-11-21T08:00:00Z job ns/name admitted: ..."
                                for a transition, "... info Job ns/name unsuspended: ..." for a
                                line of cluster mode's log (UTC, to the second) */
    GQ_EVENT_STYLE_JSON,     /* gpuqd --log json: {"time":...,"level":...,"kind":...,
                                "namespace":...,"name":...,"job":...,"event":...,
                                "message":...}, members that are NULL left out */
    GQ_EVENT_STYLE_ELAPSED   /* gpuq run: "+1m30s     job ns/name admitted (flavors)", the
                                time since the run started, to the second */
} gq_event_style;

/**
 * One event as one line, without a newline, into buf (always NUL-terminated
 * when size > 0, cut at size - 1 bytes).
 * @return the length of the whole line, as snprintf returns it: when it is
 *         size or more, the line was cut; a buffer of that length + 1 holds it.
 */
GQ_EXTERN size_t gq_event_format(char *buf, size_t size, const gq_event *e,
                                 gq_event_style style);

/**
 * The same line, whole however long, and a newline, written to out and
 * flushed (a line that does not fit memory is written cut rather than not
 * at all).
 * @return 0, or EOF when writing failed.
 */
GQ_EXTERN int gq_event_print(FILE *out, const gq_event *e, gq_event_style style);

/* ------------------------------------------------- a cluster's answers */

/**
 * Walk a List the cluster answered (JSON text) as workloads, calling fn for
 * each item filter selects (NULL: all but cancelled), in the List's order.
 * Kueue Workloads (gpuqd's /api/v1/workloads, `gpuq list -o json`) give what
 * gq_workload_list gives. batch/v1 Jobs are read as their workloads:
 * job_kind "Job", name Kueue's workload name, local_queue the queue label;
 * state "finished" with a Complete or Failed condition, else "pending" while
 * suspended, else "admitted" ("running" with active pods), cluster_queue from
 * the gpuq.dev/admission annotation. Other kinds are skipped. Strings are
 * borrowed for the callback; fn's non-zero return stops the walk.
 * @return GQ_OK; GQ_EINVALID when json is not a JSON object; fn's return.
 */
GQ_EXTERN int gq_kube_workloads(const char *json, const gq_workload_filter *filter,
                                gq_workload_fn fn, void *payload, gq_error *err);

/**
 * The items of such a List that filter selects, as a List in kubectl's JSON
 * layout (Jobs get back the kind and apiVersion a JobList leaves out).
 * @param[out] out the text; gq_free it
 */
GQ_EXTERN int gq_kube_list_json(char **out, const char *json, const gq_workload_filter *filter,
                                gq_error *err);

/** A Pod as `kubectl get pods` shows it (gq_kube_pods); strings borrowed for the call. */
typedef struct gq_pod_info {
    const char *GQ_NAMESPACE;
    const char *name;
    size_t ready_containers; /* READY: ready_containers/containers */
    size_t containers;
    const char *status;      /* kubectl's STATUS: Running, Pending, Completed, ErrImagePull ... */
    int64_t restarts;
    int64_t created_ms;      /* 0 if unknown */
    const char *node;        /* -o wide: NODE, IP; NULL when not yet */
    const char *ip;
} gq_pod_info;

typedef int (*gq_pod_fn)(const gq_pod_info *pod, void *payload);

/**
 * Call fn for each Pod of a PodList the API server answered, as kubectl's pod
 * printer reads it. fn's non-zero return stops the walk and is returned.
 * @return GQ_OK; GQ_EK8S when json is not a List.
 */
GQ_EXTERN int gq_kube_pods(const char *json, gq_pod_fn fn, void *payload, gq_error *err);

/**
 * kubectl-describe-style text for a Job in the target's namespace, read as
 * gq_kube_workloads reads it, with its admission and the ProvisioningRequests
 * it owns (label kueue.x-k8s.io/managed=true) and their conditions.
 * @param[out] out the text; gq_free it
 * @return GQ_OK; GQ_ENOTFOUND naming the Job; GQ_EINVALID for a bad name; GQ_EK8S.
 */
GQ_EXTERN int gq_kube_describe(const gq_kube_target *t, const char *name, char **out,
                               gq_error *err);

#ifdef __cplusplus
}
#endif

#endif
