/*
 * apply.c: turning a decoded Job or Kueue Workload into gpuq's workload
 * record, as Kueue's job controller does when a labelled Job appears: a
 * workload named job-<job>-<hash>, keyed by the job's UID, pending in its
 * LocalQueue (or admitted, when an imported Workload says so). `gpuq apply`
 * (api/api.c) and cluster mode (sync_jobs.c, with the server's UID) share
 * it, so a Job queues the same way from a file and from a cluster.
 *
 * `submit` is strict where Kueue is lenient: the queue must exist and the
 * job must be new. `apply` mirrors Kueue: a Job for a missing LocalQueue is
 * accepted and waits, with Kueue's reason, until the queue appears.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "admit.h"
#include "apply.h"
#include "error.h"
#include "manifest_load.h"
#include "os.h"
#include "state.h"
#include "store.h"
#include "util.h"

#define GENERATE_NAME_SUFFIX 5

struct wl_plan {
    enum gq_wl_state state;
    const char *reason;
    char message[256];
    int32_t priority;
};

/* Whether LocalQueue ns/name exists, remembering the last answer (see lq_seen). */
static bool local_queue_exists(gq_db *db, const char *ns, const char *name)
{
    struct lq_seen *s = &db->lq;

    if (s->ns && strcmp(s->ns, ns) == 0 && strcmp(s->name, name) == 0)
        return s->exists;
    free(s->ns);
    free(s->name);
    s->ns = strdup(ns);
    s->name = strdup(name);
    s->exists = gq__store_object_exists(db->st, GQ_KIND_LOCAL_QUEUE, ns, name);
    if (!s->ns || !s->name) {
        free(s->ns);
        free(s->name);
        s->ns = s->name = NULL;
    }
    return s->exists;
}

void gq__apply_forget(gq_db *db)
{
    free(db->lq.ns);
    free(db->lq.name);
    memset(&db->lq, 0, sizeof(db->lq));
    gq__manifest_adjust_free(db->adjust);
    db->adjust = NULL;
    db->adjust_loaded = false;
}

/* The requests quota counts: adjusted as Kueue adjusts them (manifest_adjust.c). */
static int adjust_requests(gq_db *db, struct gq_object *obj, gq_error *err)
{
    int rc;

    if (!db->adjust_loaded) {
        if ((rc = gq__engine_load_adjust(db->st, &db->adjust, err)) != GQ_OK)
            return rc;
        db->adjust_loaded = true;
    }
    return gq__manifest_adjust(db->adjust, obj, err);
}

/* ------------------------------------------- requests adjusted anew */

struct pending_spec {
    int64_t id;
    char *spec;
};

struct pending_specs {
    struct pending_spec *v;
    size_t n, cap;
};

static int collect_spec(int64_t id, const char *spec, void *payload)
{
    struct pending_specs *p = payload;

    if (gq__grow(&p->v, &p->cap, p->n, sizeof(*p->v)) < 0 || !(p->v[p->n].spec = strdup(spec)))
        return GQ_ENOMEM;
    p->v[p->n++].id = id;
    return GQ_OK;
}

/* One pending workload's stored spec decoded, adjusted and its requests written. */
static int readjust_one(gq_db *db, const struct pending_spec *p, size_t *changed, gq_error *err)
{
    struct gq_object obj;
    bool did = false;
    int rc;

    memset(&obj, 0, sizeof(obj));
    rc = gq__manifest_load(NULL, p->spec, strlen(p->spec), "stored spec", NULL, NULL,
                           gq__take_object, &obj, err);
    if (rc != GQ_OK) /* gpuq wrote the spec: one that does not decode is damage */
        return rc == GQ_ENOMEM ? rc
                               : gq__store_damaged(db->st, err,
                                                   "workloads row %lld: spec does not decode",
                                                   (long long)p->id);
    if ((rc = gq__manifest_adjust(db->adjust, &obj, err)) == GQ_OK &&
        (rc = gq__store_set_requests(db->st, p->id, &obj.u.wl, &did, err)) == GQ_OK)
        *changed += did;
    gq__object_clear(&obj);
    return rc;
}

int gq__apply_readjust(gq_db *db, const char *ns, size_t *changed, gq_error *err)
{
    struct pending_specs p = {NULL, 0, 0};
    size_t i;
    int rc;

    *changed = 0;
    gq__apply_forget(db);
    if ((rc = gq__engine_load_adjust(db->st, &db->adjust, err)) != GQ_OK)
        return rc;
    db->adjust_loaded = true;
    rc = gq__store_pending_specs(db->st, ns, collect_spec, &p, err);
    if (rc == GQ_ENOMEM)
        rc = gq__error(err, GQ_ENOMEM, "out of memory");
    for (i = 0; rc == GQ_OK && i < p.n; i++)
        rc = readjust_one(db, &p.v[i], changed, err);
    for (i = 0; i < p.n; i++)
        free(p.v[i].spec);
    free(p.v);
    return rc;
}

/* Decide the initial state and why it waits; checks what submit requires. */
static int plan(gq_db *db, const gq_apply_options *opts, const struct gq_object *obj,
                struct wl_plan *p, gq_error *err)
{
    const struct gq_workload *wl = &obj->u.wl;
    const char *ns = obj->meta.namespace;
    int rc;

    memset(p, 0, sizeof(*p));
    p->state = wl->admitted_cq ? (wl->finished ? GQ_WL_FINISHED : GQ_WL_ADMITTED) : GQ_WL_PENDING;
    if (!wl->queue && !wl->admitted_cq) {
        if (opts->mode == GQ_MODE_SUBMIT)
            return gq__error(err, GQ_EINVALID,
                             "metadata.labels: the job has no kueue.x-k8s.io/queue-name label");
        p->reason = "Inadmissible";
        snprintf(p->message, sizeof(p->message),
                 "the job has no kueue.x-k8s.io/queue-name label");
    } else if (wl->queue && !local_queue_exists(db, ns, wl->queue)) {
        if (opts->mode == GQ_MODE_SUBMIT)
            return gq__error(err, GQ_ENOTFOUND, "localqueue \"%s\" not found in namespace \"%s\"",
                             wl->queue, ns);
        if (!wl->admitted_cq) {
            p->reason = "Inadmissible";
            snprintf(p->message, sizeof(p->message), "LocalQueue %s doesn't exist", wl->queue);
        }
    }
    if (wl->has_priority) {
        p->priority = wl->priority;
    } else if (wl->priority_class) {
        rc = gq__store_priority_value(db->st, wl->priority_class, &p->priority, err);
        if (rc == GQ_ENOTFOUND)
            return gq__error(err, GQ_ENOTFOUND,
                             "workloadpriorityclass \"%s\" not found (label "
                             "kueue.x-k8s.io/priority-class)",
                             wl->priority_class);
        if (rc != GQ_OK)
            return rc;
    }
    return GQ_OK;
}

/* Give a generateName'd job its name, as the API server would. */
static int resolve_name(struct gq_object *obj, gq_error *err)
{
    size_t n;
    char *name;

    if (!obj->meta.name) {
        n = strlen(obj->meta.generate_name);
        if (!(name = malloc(n + GENERATE_NAME_SUFFIX + 1)))
            return gq__error(err, GQ_ENOMEM, "out of memory");
        memcpy(name, obj->meta.generate_name, n);
        gq__random_suffix(name + n, GENERATE_NAME_SUFFIX);
        obj->meta.name = name;
    }
    if (!obj->u.wl.job_name && !(obj->u.wl.job_name = strdup(obj->meta.name)))
        return gq__error(err, GQ_ENOMEM, "out of memory");
    return GQ_OK;
}

/* The API group of a job's kind ("batch" for a Job), for Kueue's workload name. */
static void group_of(const struct gq_workload *wl, char *buf, size_t size)
{
    const char *av = wl->job_api_version, *slash;

    if (!av || !(slash = strchr(av, '/')))
        snprintf(buf, size, "batch");
    else
        snprintf(buf, size, "%.*s", (int)(slash - av), av);
}

/* kubectl's word for the object: "job.batch", "jobset.jobset.x-k8s.io", ... */
static const char *resource_of(const struct gq_object *obj, char *buf, size_t size)
{
    char group[256];
    size_t i;

    if (obj->kind != GQ_KIND_JOB)
        return "workload.kueue.x-k8s.io";
    group_of(&obj->u.wl, group, sizeof(group));
    for (i = 0; obj->u.wl.job_kind[i] && i + 1 < size; i++)
        buf[i] = (char)tolower((unsigned char)obj->u.wl.job_kind[i]);
    snprintf(buf + i, size - i, ".%s", group);
    return buf;
}

/*
 * Everything about a job that does not need the database: its name (when
 * generated), suspend forced (Kueue's webhook suspends every queued job),
 * its UID, Kueue's workload name and its canonical JSON. Safe to run on the
 * reading thread of a bulk apply.
 */
static int prepare_workload(struct gq_object *obj, gq_error *err)
{
    struct gq_workload *wl = &obj->u.wl;
    char uid[37], group[256];
    int rc;

    if ((rc = resolve_name(obj, err)) != GQ_OK)
        return rc;
    wl->suspend = true;
    if (!obj->meta.uid) {
        gq__uid_new(uid);
        if (!(obj->meta.uid = strdup(uid)))
            return gq__error(err, GQ_ENOMEM, "out of memory");
    }
    group_of(wl, group, sizeof(group));
    wl->name = obj->kind == GQ_KIND_JOB
                   ? gq__workload_name(wl->job_kind, group, wl->job_name, obj->meta.uid)
                   : gq__strdup(obj->meta.name);
    if (!wl->name)
        return gq__error(err, GQ_ENOMEM, "out of memory");
    return gq__manifest_encode(&obj->canonical, obj, err);
}

int gq__object_prepare(struct gq_object *obj, gq_error *err)
{
    if (obj->canonical)
        return GQ_OK;
    if (obj->kind == GQ_KIND_JOB || obj->kind == GQ_KIND_WORKLOAD)
        return prepare_workload(obj, err);
    return gq__manifest_encode(&obj->canonical, obj, err);
}

void gq__apply_item_fields(gq_apply_item *item, const struct gq_object *obj)
{
    item->unknown_fields = (const char *const *)obj->unknown_fields.v;
    item->nunknown_fields = obj->unknown_fields.n;
    item->not_enforced = (const char *const *)obj->not_enforced.v;
    item->nnot_enforced = obj->not_enforced.n;
}

/* Whom to tell what became of the object: nobody when fn is NULL (cluster mode). */
struct reporter {
    gq__apply_report_fn fn;
    void *payload;
};

static int tell(const struct reporter *rep, const struct gq_object *obj, const char *workload,
                gq_apply_result what, const char *note, gq_error *err)
{
    gq_apply_item item;
    char buf[300];

    if (!rep->fn)
        return GQ_OK;
    item.resource = resource_of(obj, buf, sizeof(buf));
    item.namespace = obj->meta.namespace;
    item.name = obj->u.wl.job_name;
    item.workload = workload;
    item.result = what;
    item.note = note;
    gq__apply_item_fields(&item, obj);
    return rep->fn(&item, rep->payload, err);
}

static int create(gq_db *db, const struct gq_object *obj, struct gq_wl_write *w,
                  const struct reporter *rep, gq_error *err)
{
    int rc;

    w->uid = obj->meta.uid;
    w->name = obj->u.wl.name;
    rc = gq__store_insert_workload(db->st, w, err);
    if (rc == GQ_OK)
        rc = tell(rep, obj, w->name, GQ_APPLY_CREATED, w->message, err);
    return rc;
}

static int remove_workload(gq_db *db, const struct gq_object *obj, int64_t now_ms,
                           const struct reporter *rep, gq_error *err)
{
    char *name = NULL, *from = NULL;
    int rc;

    rc = gq__store_cancel_workload(db->st, obj->meta.namespace, obj->u.wl.job_name, now_ms, &name,
                                   &from, err);
    if (rc == GQ_OK)
        rc = tell(rep, obj, name, GQ_APPLY_DELETED, NULL, err);
    free(name);
    free(from);
    return rc;
}

int gq__apply_workload(gq_db *db, const gq_apply_options *opts, struct gq_object *obj,
                       int64_t now_ms, gq__apply_report_fn report, void *payload,
                       gq_error *err)
{
    struct reporter rep = {report, payload};
    struct gq_wl_write w;
    struct wl_plan p;
    enum gq_put_result put;
    char *existing = NULL, *admission = NULL;
    int rc;

    if (opts->mode == GQ_MODE_DELETE)
        return (rc = resolve_name(obj, err)) != GQ_OK ? rc
                                                      : remove_workload(db, obj, now_ms, &rep, err);
    if ((rc = gq__object_prepare(obj, err)) != GQ_OK ||
        (rc = adjust_requests(db, obj, err)) != GQ_OK)
        return rc;
    if ((rc = plan(db, opts, obj, &p, err)) != GQ_OK)
        return rc;
    memset(&w, 0, sizeof(w));
    w.obj = obj;
    w.spec = obj->canonical;
    w.state = gq__wl_state_name(p.state);
    w.reason = p.reason;
    w.message = p.message[0] ? p.message : NULL;
    w.priority = p.priority;
    w.now_ms = now_ms;
    if (obj->u.wl.admitted_cq &&
        (rc = gq__manifest_admission(&admission, &obj->u.wl, err)) != GQ_OK)
        return rc;
    w.admission = admission;
    /* Submit creates: the insert itself refuses a job that exists. */
    rc = opts->mode == GQ_MODE_SUBMIT || opts->mode == GQ_MODE_CREATE
             ? GQ_ENOTFOUND
             : gq__store_find_job(db->st, obj->u.wl.job_kind, obj->meta.namespace,
                                  obj->u.wl.job_name, &existing, NULL, err);
    if (rc == GQ_ENOTFOUND) {
        rc = create(db, obj, &w, &rep, err);
    } else if (rc == GQ_OK) {
        rc = gq__store_update_workload(db->st, &w, &put, err);
        if (rc == GQ_OK)
            rc = tell(&rep, obj, existing,
                      put == GQ_PUT_UNCHANGED ? GQ_APPLY_UNCHANGED : GQ_APPLY_CONFIGURED,
                      w.message, err);
    }
    free(existing);
    free(admission);
    return rc;
}
