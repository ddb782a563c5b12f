/*
 * integration.h: the integration table (issue 15): per kind of suspendable
 * job, where its suspend switch is, where its pod templates and counts are,
 * and how its pod sets are named, so that every kind goes through one
 * decoder (manifest_integration.c) instead of a controller each, as in
 * Kueue's pkg/controller/jobs/<kind>. Pure data and a small expression
 * evaluator; the JSON is read through a callback. Internal.
 *
 * The built-in rows give the pod sets Kueue gives the same object: names,
 * order and counts (compat/integrations/README.md says per kind where Kueue
 * defines them).
 */
#ifndef GQ_INTEGRATION_H
#define GQ_INTEGRATION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"

/* How a row's pod-set entry finds its pod sets below `at`. */
enum gq_integ_shape {
    GQ_INTEG_ONE,  /* `at` is one object: one pod set, named `name` */
    GQ_INTEG_LIST, /* `at` is a list: one pod set per element, named by its member `name_from` */
    GQ_INTEG_MAP,  /* `at` is a map: one pod set per key of `keys` present, named by the key
                      lower-cased (Kueue's NewPodSetReference) */
};

/* Extra work a built-in row needs that a path cannot say. */
enum gq_integ_hook {
    GQ_INTEG_HOOK_NONE,
    GQ_INTEG_HOOK_RAY_SUBMITTER, /* RayJob: without a submitterPodTemplate, Kueue's default one */
    GQ_INTEG_HOOK_TRAINJOB,      /* TrainJob: the pod sets of the runtime it names */
    GQ_INTEG_HOOK_RAY_HEAD,      /* a Ray head: KubeRay's autoscaler sidecar and GCS fault
                                    tolerance's cleanup requests counted, as Kueue counts them */
};

#define GQ_INTEG_MAX_PODSET_ENTRIES 6
#define GQ_INTEG_MAX_VERSIONS 4

/* One entry of a row: one pod set, or one per element of a list or map. */
struct gq_integ_podset {
    enum gq_integ_shape shape;
    const char *at;        /* path from the object's root: "spec.replicatedJobs" */
    const char *name;      /* ONE: the pod set's name */
    const char *name_from; /* LIST: the element's member that names it ("name") */
    const char *keys;      /* MAP: the keys, comma-separated, in Kueue's order */
    const char *template;  /* path in the element to the pod template ("template") */
    const char *count;     /* count expression in the element (NULL: 1) */
    const char *min_count; /* partial admission: expression in the element, NULL: none */
    bool optional;         /* `at` may be absent (no pod set then) */
    const char *when;      /* "PATH=V1|V2|" from the root: only when PATH's value is one of
                              the values (an empty one stands for absent); NULL: always */
    enum gq_integ_hook hook;
};

/* One row: one kind. Built-in rows are static; a user's row points into its object. */
struct gq_integration {
    const char *group;     /* "jobset.x-k8s.io" ("batch" for Job) */
    const char *kind;      /* "JobSet" */
    const char *versions[GQ_INTEG_MAX_VERSIONS]; /* accepted, NULL-terminated; [0] is served */
    const char *plural;    /* "jobsets": the API path */
    const char *suspend;   /* path of the suspend switch; NULL: the kind has none */
    struct gq_integ_podset podsets[GQ_INTEG_MAX_PODSET_ENTRIES];
    size_t npodsets;
    const char *finished;  /* how a finished object shows: "Complete|Failed" (condition types
                              True in status.conditions) or "PATH=V1|V2" (a field's value); the
                              last alternative is failure; NULL: it never finishes */
    const char *refused;   /* non-NULL: the kind is known but not queued, and why (no suspend
                              switch, or pod sets gpuq cannot read yet) */
};

/* A list of rows (the user's), searched after the built-in ones. */
struct gq_integrations {
    const struct gq_integration *const *v;
    size_t n;
};

/* A user's row, built from its Integration's spec, which it points into. */
struct gq_integ_user {
    struct gq_integration row;
    char *keys[GQ_INTEG_MAX_PODSET_ENTRIES]; /* owned: each map entry's keys, comma-joined */
};

/* A user's row that says nothing of finishing: the condition types the common kinds use. */
#define GQ_INTEG_FINISHED_DEFAULT "Complete|Completed|Succeeded|Failed"

/* The Job's row (batch/v1), which the cluster's Jobs informer uses. */
const struct gq_integration *gq__integration_job(void);

/* Fill u from s (a decoded, checked Integration); -1 when out of memory (u then cleared). */
int gq__integration_user_init(struct gq_integ_user *u, const struct gq_integration_spec *s);
void gq__integration_user_clear(struct gq_integ_user *u);

/* The row for group/kind: a built-in one first, then users' (may be NULL); NULL if none. */
const struct gq_integration *gq__integration_find(const char *group, const char *kind,
                                                  const struct gq_integrations *user);

/* The row whose Kind is kind (Kinds are unique in the table); NULL if none. */
const struct gq_integration *gq__integration_by_kind(const char *kind,
                                                     const struct gq_integrations *user);

/* The built-in rows, for tests and listings. */
const struct gq_integration *gq__integration_builtin(size_t i);

/*
 * waitForPodsReady in cluster mode: when a kind's pods are all ready, as the
 * kind's Kueue controller says (its PodsReady): "A|B", a condition type True
 * in status.conditions, or "PATH=V", a field's value, as in `finished`; or
 * GQ_INTEG_READY_REPLICATED_JOBS, JobSet's sum of its replicated jobs' ready
 * and succeeded Jobs reaching the sum of their replicas. NULL: no rule known
 * (a batch/v1 Job's is status.ready, read by count; a user's kind, ready
 * once it runs).
 */
#define GQ_INTEG_READY_REPLICATED_JOBS "#replicatedJobs"
const char *gq__integration_ready(const struct gq_integration *row);

/*
 * The next item of a list separated by sep ("Master,Worker", "Complete|Failed",
 * "K8sJobMode|": its last item is empty) into buf, cut to size; *list moves
 * past it, to NULL after the last. False once the list is done.
 */
bool gq__integration_next(const char **list, char sep, char *buf, size_t size);

/* True when version is one the row accepts. */
bool gq__integration_accepts(const struct gq_integration *row, const char *version);

/*
 * Count expressions, over the members of a pod-set element:
 *     expr := atom ('*' atom)*
 *     atom := INTEGER | min(expr, expr) | max(expr, expr) | PATH ['?' atom]
 * PATH is dotted member names ("template.spec.parallelism"); "PATH?atom" is
 * the atom when PATH is absent, and a PATH absent with no default counts 0.
 * Values are non-negative and stay within int32 (a larger product is an
 * error).
 *
 * The lookup callback reads PATH's integer: returns 1 with *v set when it is
 * there, 0 when absent, -1 when it is there but not a non-negative integer
 * (the callback has then recorded the error), and the evaluation stops.
 */
typedef int (*gq_integ_lookup_fn)(void *ctx, const char *path, size_t len, int64_t *v);

/*
 * Evaluate expr; 0 with *out set, -1 when lookup failed, -2 when expr does not
 * parse (a row that passed gq__integration_check never does), -3 when the
 * value passes int32.
 */
int gq__integration_eval(const char *expr, gq_integ_lookup_fn lookup, void *ctx, int64_t *out);

/*
 * A path is one or more dotted member names of [A-Za-z0-9_-]. On a bad path
 * or expression: false, with what is wrong in why (at least 96 bytes).
 */
bool gq__integration_path_ok(const char *path, char *why, size_t size);
bool gq__integration_expr_ok(const char *expr, char *why, size_t size);

#endif
