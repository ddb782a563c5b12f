/*
 * sync_jobs.c: labelled Jobs, as the informer sees them, into workload
 * records keyed by the Job's UID (reference §7 rule 4; Kueue #1726).
 *
 *  - a new suspended Job with the queue label queues as Kueue's job
 *    controller would queue it (the same decoding and naming as `gpuq
 *    apply`, with the server's UID);
 *  - a Job carrying gpuq.dev/admission and no longer suspended was admitted
 *    by a gpuqd before this one: it is recorded running, its quota counted
 *    from the annotation (a fresh database rebuilds usage from the cluster);
 *  - a labelled Job running without admission is reported, and suspended by
 *    the outbox unless the policy says only report (Kueue #412);
 *  - a finished or failed Job releases its quota once (terminal states are
 *    never requeued: Kueue #1654); a Job already finished when first seen
 *    reserves nothing;
 *  - a Job that left its queue (label removed: the watch says DELETED while
 *    it exists) gives back a reservation it has not used, and is not
 *    admitted again; a running one keeps its quota until it ends;
 *  - a Job deleted (DELETED with its label, or absent from a relist) is
 *    marked gone and confirmed by a GET before anything is released;
 *  - a Job re-created under the same name (new UID) closes the old record
 *    first (catalogue A22).
 * Objects with a deletionTimestamp are not queued (Kueue #15148).
 */
#include <stdio.h>
#include <string.h>

#include "apply.h" /* gq__apply_workload: the cluster's Jobs applied as gpuq apply does */
#include "engine.h"
#include "error.h"
#include "manifest.h"
#include "manifest_load.h"
#include "state.h"
#include "store.h"
#include "store_sync.h"
#include "sync.h"
#include "util.h"

struct job_view {
    const struct gq_integration *row; /* its kind's row of the integration table */
    json_object *obj;
    const char *uid, *ns, *name, *rv, *queue;
    bool suspended, finished, failed, deleting, admitted;
};

/*
 * Whether obj shows a rule of the integration table: "A|B" are condition
 * types (True in status.conditions), "PATH=A|B" values of a field. *last
 * says whether the alternative met is the last one.
 */
static bool shows(const char *rule, json_object *obj, bool *last)
{
    const char *eq, *have = NULL;
    char path[256], word[64];

    *last = false;
    if (!rule)
        return false;
    if ((eq = strchr(rule, '=')) != NULL) {
        snprintf(path, sizeof(path), "%.*s", (int)(eq - rule), rule);
        if (!(have = gq__js_str(obj, path)))
            return false;
        rule = eq + 1;
    }
    while (gq__integration_next(&rule, '|', word, sizeof(word)))
        if (have ? strcmp(have, word) == 0 : gq__js_condition(obj, word)) {
            *last = !rule;
            return true;
        }
    return false;
}

/* Whether the job is over, by its row's rule; the last alternative is failure. */
static void finished(const struct gq_integration *row, json_object *obj, bool *done, bool *failed)
{
    *done = shows(row->finished, obj, failed);
    *failed = *done && *failed;
}

static void view(const struct gq_integration *row, json_object *obj, struct job_view *v)
{
    json_object *susp = gq__js_get(obj, row->suspend);

    memset(v, 0, sizeof(*v));
    v->row = row;
    v->obj = obj;
    v->uid = gq__js_str(obj, "metadata.uid");
    v->ns = gq__js_str(obj, "metadata.namespace");
    v->name = gq__js_str(obj, "metadata.name");
    v->rv = gq__js_str(obj, "metadata.resourceVersion");
    v->queue = gq__js_str(gq__js_get(obj, "metadata.labels"), GQ_SYNC_QUEUE_LABEL);
    v->suspended = susp && json_object_get_boolean(susp);
    finished(row, obj, &v->finished, &v->failed);
    v->deleting = gq__js_get(obj, "metadata.deletionTimestamp") != NULL;
    v->admitted = gq__js_str(gq__js_get(obj, "metadata.annotations"),
                             GQ_SYNC_ADMISSION_ANNOTATION) != NULL;
}

/*
 * The watch saw an admitted Job running before the outbox heard back from
 * its patch (a lost response, a restart): started now, with the same event
 * the outbox writes, so that history and the report agree.
 */
static int started(struct gq_sync *s, const struct job_view *v, const struct gq_sync_record *r,
                   gq_error *err)
{
    struct gq_started w = {r->id, v->ns, r->name, v->uid, "Job seen running"};
    int rc = gq__store_start(s->st, &w, gq__store_now(s->st), err);

    s->changes += rc == GQ_OK;
    return rc;
}

/* Whether the record's workload is in state st (its text read as the enum). */
static bool in_state(const struct gq_sync_record *r, enum gq_wl_state st)
{
    enum gq_wl_state now;

    return gq__wl_state_parse(r->state, &now) && now == st;
}

static int close_workload(struct gq_sync *s, const struct gq_sync_record *r, const char *ns,
                          enum gq_wl_state to_state, const char *reason, const char *message,
                          gq_error *err)
{
    int64_t now = gq__store_now(s->st);
    const char *to = gq__wl_state_name(to_state);
    bool closed;
    int rc;

    rc = gq__store_kube_close(s->st, r->id, to, reason, message, now, &closed, err);
    if (rc != GQ_OK || !closed)
        return rc;
    s->changes++;
    gq__sync_log(s, GQ_EVENT_LEVEL_INFO, GQ_EVENT_KIND_WORKLOAD, ns, r->name, "released", "%s",
                 message);
    return gq__store_event(s->st, "Workload", ns, r->name, r->uid, "Normal", reason, message,
                           r->state, to, now, err);
}

/*
 * The Job as the workload keeps it: the labels the Job controller adds to
 * its pod template stripped (Kueue does the same), so that the pristine
 * template is the user's. A copy: the informer owns the object.
 */
static json_object *pristine(const struct gq_integration *row, json_object *obj)
{
    static const char *const managed[] = {"controller-uid", "batch.kubernetes.io/controller-uid",
                                          "job-name", "batch.kubernetes.io/job-name"};
    json_object *copy = NULL, *labels, *spec;
    size_t i;

    if (json_object_deep_copy(obj, &copy, NULL) != 0)
        return NULL;
    if (row != gq__integration_job()) { /* other kinds' controllers leave their templates be */
        json_object_object_del(copy, "status");
        return copy;
    }
    labels = gq__js_get(copy, "spec.template.metadata.labels");
    for (i = 0; labels && i < sizeof(managed) / sizeof(*managed); i++)
        json_object_object_del(labels, managed[i]);
    if ((spec = gq__js_get(copy, "spec")))
        json_object_object_del(spec, "selector");
    json_object_object_del(copy, "status");
    return copy;
}

/*
 * Queue a new Job: decoded and named as `gpuq apply` does, keyed by the
 * server's UID. Decoded straight from the informer's tree (no text round
 * trip: a first list of 10,000 Jobs goes through here).
 */
static int queue_job(struct gq_sync *s, const struct job_view *v, gq_error *err)
{
    gq_apply_options opts = GQ_APPLY_OPTIONS_INIT;
    struct gq_decode_options dopts = {NULL, &s->rows->set, s->rows->runtimes, s->rows->nruntimes,
                                      false, false};
    struct gq_object obj;
    json_object *copy = pristine(v->row, v->obj);
    int rc;

    if (!copy)
        return gq__error(err, GQ_ENOMEM, "out of memory");
    memset(&obj, 0, sizeof(obj));
    rc = gq__manifest_decode(&obj, copy, &dopts, err);
    json_object_put(copy);
    if (rc != GQ_OK) {
        gq__object_clear(&obj);
        gq__sync_log_job(s, GQ_EVENT_LEVEL_WARNING, v->row, v->ns, v->name, "invalid",
                     "%s %s", v->row->kind, err ? err->msg : "");
        return GQ_OK; /* a job gpuq cannot read stays suspended and is reported */
    }
    rc = gq__apply_workload(s->db, &opts, &obj, gq__store_now(s->st), NULL, NULL, err);
    gq__object_clear(&obj);
    if (rc == GQ_OK)
        s->changes++;
    return rc;
}

/*
 * A different, live record for the same ns/name: the Job was deleted and
 * re-created.
 */
static int close_replaced(struct gq_sync *s, const struct job_view *v, gq_error *err)
{
    struct gq_sync_record r;
    int rc;

    char msg[160];

    if ((rc = gq__store_sync_replaced(s->st, v->row->kind, v->ns, v->name, v->uid, &r, err)) !=
            GQ_OK ||
        !r.id)
        return rc;
    snprintf(msg, sizeof(msg), "the %s was deleted and re-created with a new UID", v->row->kind);
    return close_workload(s, &r, v->ns, GQ_WL_CANCELLED, "JobReplaced", msg, err);
}

/* The sum of field (def when absent) over the array at path. */
static int64_t sum_of(json_object *obj, const char *path, const char *field, int64_t def)
{
    json_object *a = gq__js_get(obj, path), *f;
    size_t i, n = a && json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;
    int64_t sum = 0;

    for (i = 0; i < n; i++)
        sum += json_object_object_get_ex(json_object_array_get_idx(a, i), field, &f)
                   ? json_object_get_int64(f)
                   : def;
    return sum;
}

/*
 * Whether a job's pods are all ready, as its kind's Kueue controller says
 * (gq__integration_ready): a JobSet's replicated jobs, ready or succeeded,
 * as many as their replicas (JobSet.PodsReady); another kind by its
 * condition or field. A kind with no rule: once it runs.
 */
static bool kind_ready(const struct job_view *v)
{
    const char *rule = gq__integration_ready(v->row);
    bool last;

    if (!rule)
        return true;
    if (strcmp(rule, GQ_INTEG_READY_REPLICATED_JOBS) == 0)
        return sum_of(v->obj, "status.replicatedJobsStatus", "ready", 0) +
                   sum_of(v->obj, "status.replicatedJobsStatus", "succeeded", 0) ==
               sum_of(v->obj, "spec.replicatedJobs", "replicas", 1);
    return shows(rule, v->obj, &last);
}

/*
 * waitForPodsReady: the PodsReady condition of an admitted workload from its
 * job. A batch/v1 Job's pods are ready when status.ready (pods with the
 * Ready condition) and status.succeeded reach the count admitted (Kueue's
 * Job.PodsReady); a job of another kind by its status, as Kueue's
 * controller of that kind reads it (kind_ready). The timeout itself is the
 * scheduling cycle's.
 */
static int pods_ready(struct gq_sync *s, const struct job_view *v, const struct gq_sync_record *r,
                      gq_error *err)
{
    bool ready = !v->suspended, changed;
    int rc;

    if (!in_state(r, GQ_WL_ADMITTED) && !in_state(r, GQ_WL_RUNNING))
        return GQ_OK;
    if (!s->wfpr_read && (rc = gq__engine_wfpr_load(s->st, &s->wfpr, err)) != GQ_OK)
        return rc;
    s->wfpr_read = true;
    if (!s->wfpr.on)
        return GQ_OK;
    if (ready && strcmp(v->row->group, "batch") == 0 && strcmp(v->row->kind, "Job") == 0)
        ready = json_object_get_int64(gq__js_get(v->obj, "status.ready")) +
                    json_object_get_int64(gq__js_get(v->obj, "status.succeeded")) >=
                r->pods;
    else if (ready)
        ready = kind_ready(v);
    rc = gq__store_pods_ready(s->st, r->id, ready, gq__store_now(s->st), &changed, err);
    if (rc == GQ_OK && changed) {
        s->changes++;
        gq__sync_log(s, GQ_EVENT_LEVEL_INFO, GQ_EVENT_KIND_WORKLOAD, v->ns, r->name,
                     ready ? "pods-ready" : "pods-not-ready", "PodsReady %s",
                     ready ? "True" : "False");
    }
    return rc;
}

static int first_seen(struct gq_sync *s, const struct job_view *v, gq_error *err)
{
    struct gq_sync_record r;
    int rc;

    if (!v->queue || v->finished || v->deleting)
        return GQ_OK; /* nothing to account: never queued, or already over */
    if ((rc = close_replaced(s, v, err)) != GQ_OK || (rc = queue_job(s, v, err)) != GQ_OK ||
        (rc = gq__store_sync_by_uid(s->st, v->uid, &r, err)) != GQ_OK || !r.id)
        return rc;
    if ((rc = gq__store_kube_seen(s->st, r.id, v->rv, v->suspended, err)) != GQ_OK)
        return rc;
    if (!v->suspended && v->admitted && in_state(&r, GQ_WL_ADMITTED))
        return (rc = started(s, v, &r, err)) != GQ_OK ? rc : pods_ready(s, v, &r, err);
    if (!v->suspended)
        gq__sync_log_job(s, GQ_EVENT_LEVEL_WARNING, v->row, v->ns, v->name,
                     "unsuspended-without-admission", "a labelled Job runs without admission: %s",
                     s->o.suspend_unadmitted ? "it will be suspended" : "reported only");
    gq__sync_log_job(s, GQ_EVENT_LEVEL_INFO, v->row, v->ns, v->name, "queued",
                 "in LocalQueue %s", v->queue);
    return GQ_OK;
}

static int observed(struct gq_sync *s, const struct job_view *v, const struct gq_sync_record *r,
                    gq_error *err)
{
    int rc;

    if ((rc = gq__store_kube_seen(s->st, r->id, v->rv, v->suspended, err)) != GQ_OK)
        return rc;
    char msg[160];

    if (v->finished) {
        snprintf(msg, sizeof(msg), "the %s finished", v->row->kind);
        return close_workload(s, r, v->ns, GQ_WL_FINISHED, v->failed ? "Failed" : "Succeeded",
                              msg, err);
    }
    if (!v->queue) {
        if (in_state(r, GQ_WL_RUNNING))
            return GQ_OK; /* in use: its quota goes when it ends */
        snprintf(msg, sizeof(msg), "the %s left its queue (label " GQ_SYNC_QUEUE_LABEL " removed)",
                 v->row->kind);
        return close_workload(s, r, v->ns, GQ_WL_CANCELLED, "QueueLabelRemoved", msg, err);
    }
    if (in_state(r, GQ_WL_ADMITTED) && !v->suspended && v->admitted &&
        (rc = started(s, v, r, err)) != GQ_OK)
        return rc;
    return pods_ready(s, v, r, err);
}

static int observe(struct gq_sync *s, const struct gq_integration *row, json_object *obj,
                   gq_error *err)
{
    struct job_view v;
    struct gq_sync_record r;
    int rc;

    view(row, obj, &v);
    if (!v.uid || !v.ns || !v.name)
        return GQ_OK;
    if ((rc = gq__store_sync_by_uid(s->st, v.uid, &r, err)) != GQ_OK)
        return rc;
    return r.id ? observed(s, &v, &r, err) : first_seen(s, &v, err);
}

int gq__sync_job_observe(struct gq_sync *s, const struct gq_integration *row, json_object *job,
                         gq_error *err)
{
    return observe(s, row, job, err);
}

/* A DELETED event: still labelled means really deleted (confirmed later by a GET). */
static int deleted(struct gq_sync *s, const struct gq_integration *row, json_object *obj,
                   gq_error *err)
{
    struct job_view v;
    struct gq_sync_record r;
    int rc;

    view(row, obj, &v);
    if (!v.uid || (rc = gq__store_sync_by_uid(s->st, v.uid, &r, err)) != GQ_OK || !r.id)
        return v.uid ? rc : GQ_OK;
    if (!v.queue)
        return observed(s, &v, &r, err);
    s->changes++;
    return gq__store_kube_gone(s->st, r.id, err);
}

struct batch {
    struct gq_sync *s;
    const struct gq_integration *row; /* the kind */
    json_object *items;   /* replace */
    const char *type;     /* event */
    json_object *obj;
};

static int event_txn(struct gq_store *st, void *payload, gq_error *err)
{
    struct batch *b = payload;

    int rc;

    (void)st;
    rc = strcmp(b->type, "DELETED") == 0 ? deleted(b->s, b->row, b->obj, err)
                                         : observe(b->s, b->row, b->obj, err);
    gq__apply_forget(b->s->db); /* apply's LocalQueue cache lives for one transaction */
    return rc;
}

int gq__sync_jobs_event(const char *type, json_object *obj, void *payload)
{
    struct gq_sync_feed *f = payload;
    struct batch b = {f->s, f->row, NULL, type, obj};

    return gq__store_write(f->s->st, event_txn, &b, &f->s->callback_err);
}

/*
 * A full list: every Job observed, and every live record whose Job is not in
 * it marked gone (it was deleted while the watch was down: catalogue A4).
 */
static int replace_txn(struct gq_store *st, void *payload, gq_error *err)
{
    struct batch *b = payload;
    json_object *uids = json_object_new_array();
    const char *text;
    size_t i, n = json_object_array_length(b->items);
    int rc = GQ_OK;

    for (i = 0; rc == GQ_OK && i < n; i++) {
        json_object *job = json_object_array_get_idx(b->items, i);
        const char *uid = gq__js_str(job, "metadata.uid");

        if (uid)
            json_object_array_add(uids, json_object_new_string(uid));
        rc = observe(b->s, b->row, job, err);
    }
    text = json_object_to_json_string_ext(uids, JSON_C_TO_STRING_PLAIN);
    if (rc == GQ_OK)
        rc = gq__store_sync_unlisted_gone(st, b->row->kind, text, err);
    json_object_put(uids);
    gq__apply_forget(b->s->db); /* apply's LocalQueue cache lives for one transaction */
    return rc;
}

int gq__sync_jobs_replace(json_object *items, void *payload)
{
    struct gq_sync_feed *f = payload;
    struct batch b = {f->s, f->row, items, NULL, NULL};

    gq__sync_typed(f, items);
    gq__sync_log(f->s, GQ_EVENT_LEVEL_INFO, GQ_EVENT_KIND_SYNC, NULL, f->row->plural, "listed",
                 "%zu labelled %s%s", json_object_array_length(items), f->row->kind,
                 json_object_array_length(items) == 1 ? "" : "s");
    return gq__store_write(f->s->st, replace_txn, &b, &f->s->callback_err);
}
