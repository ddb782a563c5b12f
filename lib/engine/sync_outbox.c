/*
 * sync_outbox.c: what the database says should be true in the cluster,
 * made true one call at a time (reference §7 rules 1-3):
 *
 *  - requests recorded at a reservation (the intent) are created: each
 *    PodTemplate, then the ProvisioningRequest, named as Kueue names them and
 *    owned by the Job (gpuq has no Workload object, so deleting the Job
 *    collects them); AlreadyExists is adopted only when the owner's UID is
 *    the Job's (Kueue #13768), else the name collision is reported and the
 *    workload is not admitted;
 *  - requests recorded deleted (finished, evicted, cancelled) are deleted
 *    with a UID precondition and propagationPolicy Background, their
 *    templates after them (Kueue #11677), each read first for the uid of
 *    its precondition and left alone when another owner's;
 *  - admitted workloads are released: one merge patch carrying
 *    metadata.resourceVersion sets suspend false, the flavor's node
 *    selector and tolerations, the podset label, the consume annotations,
 *    and gpuq.dev/admission (the admission, for a successor with an empty
 *    database); a 409 re-reads the Job and retries a bounded number of times;
 *    with no resourceVersion stored yet the Job is read first, as an empty
 *    one would make the patch unconditional;
 *  - evicted workloads whose Job runs are suspended again (their admission
 *    annotation removed; the next release rewrites the template from the
 *    pristine copy), as are labelled Jobs running without admission when
 *    the policy says so;
 *  - Jobs a watch reported gone are confirmed by a GET before anything is
 *    released (a selector DELETED is not a deletion);
 *  - a Job that ran (status.startTime set by the Job controller) gets its
 *    startTime cleared through the status subresource once suspended, as
 *    Kueue's Job.Stop does: the API server lets the pod template change
 *    only while suspend is true and startTime unset;
 *  - a write the API server refuses (4xx but 409 and 429: RBAC, admission,
 *    validation) is retried with a backoff per workload, 1 s doubling to
 *    5 min, and at once when the Job changes; a workload holding quota
 *    whose writes are refused for o.refusal_timeout_ms gives it back
 *    (evicted, reason ReleaseRefused or the like, requeued after 5 min).
 * Each result is recorded in its own transaction after its call returns.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "admit.h" /* gq__grow */
#include "backend.h"
#include "error.h"
#include "manifest_release.h"
#include "os.h"
#include "release.h"
#include "state.h"
#include "store.h"
#include "store_render.h"
#include "sync.h"
#include "util.h"

#define CONFLICT_RETRIES 3
#define MAX_ROWS 256           /* per kind of work per turn: the loop keeps polling */
#define REFUSAL_TIMEOUT_MS 600000 /* gq_cluster_options.refusal_timeout_ms's default */
#define REQUEUE_AFTER_MS 300000   /* a workload that gave its quota back waits this long */

/* ------------------------------------------------------------------ reads */

/* One of the outbox's reads (store_render.h), run in a read transaction of its own. */
struct items_read {
    enum { READ_GIVE_BACK, READ_GONE, READ_DELETE, READ_CREATE, READ_RELEASE, READ_SUSPEND } what;
    int64_t at;      /* now, or for READ_GIVE_BACK the refusal's start (store ms) */
    bool unadmitted; /* gq_cluster_options.suspend_unadmitted */
    struct gq__outbox_items *out;
};

static int items_txn(struct gq_store *st, void *payload, gq_error *err)
{
    struct items_read *q = payload;

    switch (q->what) {
    case READ_GIVE_BACK: return gq__store_outbox_give_back(st, q->at, MAX_ROWS, q->out, err);
    case READ_GONE: return gq__store_outbox_gone(st, MAX_ROWS, q->out, err);
    case READ_DELETE: return gq__store_outbox_delete(st, MAX_ROWS, q->out, err);
    case READ_CREATE: return gq__store_outbox_create(st, q->at, MAX_ROWS, q->out, err);
    case READ_RELEASE: return gq__store_outbox_release(st, q->at, MAX_ROWS, q->out, err);
    case READ_SUSPEND:
        return gq__store_outbox_suspend(st, q->at, q->unadmitted, MAX_ROWS, q->out, err);
    }
    return gq__error(err, GQ_ERROR, "unknown outbox read %d", (int)q->what);
}

/* ---------------------------------------------------------------- answers */

/*
 * An answer a retry of the same call cannot mend soon: RBAC, admission,
 * validation. 409 and 429 are not: each is handled where it occurs.
 */
static bool refused_status(long status)
{
    return status >= 400 && status < 500 && status != 409 && status != 429;
}

/* --------------------------------------------------------------- requests */

/*
 * Owned by the Job as Kueue owns its objects: controller, and
 * blockOwnerDeletion so that a foreground deletion of the Job waits for
 * them (the reason the ClusterRole grants jobs/finalizers).
 */
static json_object *owner_refs(const char *kind, const char *api_version, const char *job,
                               const char *uid)
{
    json_object *refs = json_object_new_array(), *ref = json_object_new_object();

    json_object_object_add(ref, "apiVersion",
                           json_object_new_string(api_version ? api_version : "batch/v1"));
    json_object_object_add(ref, "kind", json_object_new_string(kind ? kind : "Job"));
    json_object_object_add(ref, "name", json_object_new_string(job));
    json_object_object_add(ref, "uid", json_object_new_string(uid));
    json_object_object_add(ref, "controller", json_object_new_boolean(1));
    json_object_object_add(ref, "blockOwnerDeletion", json_object_new_boolean(1));
    json_object_array_add(refs, ref);
    return refs;
}

/* The workload a side effect is for, and its job's kind. */
struct target {
    int64_t id;
    const char *ns, *name, *job, *uid;
    const struct gq_integration *row; /* the job's kind */
    const char *api_version;          /* the job's apiVersion; NULL: the row's */
};

/* The stored object as the cluster gets it: owned by the job, server fields dropped. */
static void own(json_object *obj, const struct target *t)
{
    json_object *meta = gq__js_get(obj, "metadata");

    if (!meta)
        return;
    json_object_object_del(meta, "uid");
    json_object_object_del(meta, "creationTimestamp");
    json_object_object_del(meta, "resourceVersion");
    json_object_object_add(meta, "ownerReferences",
                           owner_refs(t->row->kind, t->api_version, t->job, t->uid));
}

static bool owned_by(json_object *obj, const char *uid)
{
    json_object *refs = gq__js_get(obj, "metadata.ownerReferences");
    size_t i, n = json_object_is_type(refs, json_type_array) ? json_object_array_length(refs) : 0;

    for (i = 0; i < n; i++) {
        const char *u = gq__js_str(json_object_array_get_idx(refs, i), "uid");

        if (u && strcmp(u, uid) == 0)
            return true;
    }
    return false;
}

/*
 * POST obj to collection; AlreadyExists is fine when the existing object is
 * the Job's (adopted: *out gets it, *adopted is true). GQ_EEXISTS for
 * someone else's object.
 */
static int create(struct gq_sync *s, const char *collection, json_object *obj, const char *uid,
                  json_object **out, bool *adopted, gq_error *err)
{
    struct gq_kube_resp r;
    char path[768], line[GQ_KUBE_STATUS_LINE];
    int rc;

    *out = NULL;
    *adopted = false;
    rc = gq__kube_call(s->k, "POST", collection, NULL,
                       json_object_to_json_string_ext(obj, JSON_C_TO_STRING_PLAIN), &r, err);
    if (rc == GQ_OK && r.status == 409) {
        snprintf(path, sizeof(path), "%s/%s", collection, gq__js_str(obj, "metadata.name"));
        gq__kube_resp_free(&r);
        if ((rc = gq__kube_call(s->k, "GET", path, NULL, NULL, &r, err)) == GQ_OK &&
            r.status == 200 && !owned_by(r.json, uid))
            rc = gq__error(err, GQ_EEXISTS, "%s exists and is not owned by Job uid %s", path, uid);
        *adopted = rc == GQ_OK && r.status == 200;
    }
    if (rc == GQ_OK && r.status != 200 && r.status != 201) {
        gq__kube_status_line(line, sizeof(line), &r);
        rc = gq__error(err, refused_status(r.status) ? GQ_EINVALID : GQ_EK8S, "POST %s: %s",
                       collection, line);
    }
    if (rc == GQ_OK)
        *out = json_object_get(r.json);
    gq__kube_resp_free(&r);
    return rc;
}

static int create_templates(struct gq_sync *s, const char *ns, const char *templates,
                            const struct target *t, gq_error *err)
{
    json_object *pts = json_tokener_parse(templates), *got = NULL;
    char collection[320];
    bool adopted;
    size_t i, n = json_object_is_type(pts, json_type_array) ? json_object_array_length(pts) : 0;
    int rc = pts ? GQ_OK : gq__error(err, GQ_EIO, "unreadable stored PodTemplates");

    snprintf(collection, sizeof(collection), "/api/v1/namespaces/%s/podtemplates", ns);
    for (i = 0; rc == GQ_OK && i < n; i++) {
        json_object *pt = json_object_array_get_idx(pts, i);

        own(pt, t);
        rc = create(s, collection, pt, t->uid, &got, &adopted, err);
        json_object_put(got);
        got = NULL;
    }
    json_object_put(pts);
    return rc;
}

struct created {
    int64_t id, wid;          /* the request, its workload */
    const char *ns, *name, *uid, *status;
};

/* Created, or adopted: an adopted request may already have a status (a predecessor's). */
static int created_txn(struct gq_store *st, void *payload, gq_error *err)
{
    struct created *c = payload;
    int rc = gq__store_kube_provreq(st, c->id, "created", c->uid, err);

    if (rc == GQ_OK && c->status)
        rc = gq__store_kube_provreq_status(st, c->ns, c->name, c->uid, c->status, err);
    if (rc == GQ_OK)
        rc = gq__store_kube_cleared(st, c->wid, err);
    return rc;
}

static int refuse(struct gq_sync *s, const struct target *t, const char *reason,
                  const char *message, gq_error *err);

/* The request it->id (it->spec, it->templates) of Job it->job (it->uid), workload it->wid. */
static int create_request(struct gq_sync *s, const struct gq__outbox_item *it, gq_error *err)
{
    const char *ns = it->ns, *name = it->name, *uid = it->uid, *job = it->job;
    json_object *pr = json_tokener_parse(it->spec), *got = NULL;
    struct created c = {it->id, it->wid, ns, name, NULL, NULL};
    struct target t = {c.wid, ns, it->wname, job, uid, gq__sync_row(s, it->job_kind),
                       it->job_api_version};
    char collection[320];
    bool adopted = false;
    int rc;

    if (!pr)
        return gq__error(err, GQ_EIO, "unreadable stored ProvisioningRequest %s/%s", ns, name);
    if ((rc = create_templates(s, ns, it->templates, &t, err)) == GQ_OK) {
        gq__crash_point("after-podtemplates");
        snprintf(collection, sizeof(collection),
                 "/apis/autoscaling.x-k8s.io/v1/namespaces/%s/provisioningrequests", ns);
        own(pr, &t);
        rc = create(s, collection, pr, uid, &got, &adopted, err);
    }
    if (rc == GQ_OK) {
        gq__crash_point("after-provreq");
        c.uid = gq__js_str(got, "metadata.uid");
        if (gq__js_get(got, "status"))
            c.status = json_object_to_json_string_ext(gq__js_get(got, "status"),
                                                      JSON_C_TO_STRING_PLAIN);
        rc = gq__store_write(s->st, created_txn, &c, err);
        s->changes++;
    }
    if (rc == GQ_OK)
        gq__sync_log(s, GQ_EVENT_LEVEL_INFO, GQ_EVENT_KIND_PROVISIONING_REQUEST, ns, name,
                     adopted ? "adopted" : "created", "for %s %s", t.row->kind, job);
    else if (rc == GQ_EEXISTS || rc == GQ_EINVALID)
        rc = refuse(s, &t, "CreateRefused", err->msg, err);
    json_object_put(got);
    json_object_put(pr);
    return rc;
}

/* ------------------------------------------------------------- deletions */

struct gone_pr {
    int64_t id;
};

static int gone_txn(struct gq_store *st, void *payload, gq_error *err)
{
    struct gone_pr *g = payload;

    return gq__store_kube_provreq(st, g->id, "gone", NULL, err);
}

static int delete_object(struct gq_sync *s, const char *path, const char *uid, gq_error *err)
{
    struct gq_kube_resp r;
    char body[256], line[GQ_KUBE_STATUS_LINE];
    int rc;

    if (uid)
        snprintf(body, sizeof(body),
                 "{\"kind\":\"DeleteOptions\",\"apiVersion\":\"v1\",\"propagationPolicy\":"
                 "\"Background\",\"preconditions\":{\"uid\":\"%s\"}}",
                 uid);
    else
        snprintf(body, sizeof(body), "{\"kind\":\"DeleteOptions\",\"apiVersion\":\"v1\","
                                     "\"propagationPolicy\":\"Background\"}");
    rc = gq__kube_call(s->k, "DELETE", path, NULL, body, &r, err);
    /* 404: already gone; 409: the name now holds another object, not ours to delete */
    if (rc == GQ_OK && r.status != 200 && r.status != 202 && r.status != 404 && r.status != 409) {
        gq__kube_status_line(line, sizeof(line), &r);
        rc = gq__error(err, GQ_EK8S, "DELETE %s: %s", path, line);
    }
    gq__kube_resp_free(&r);
    return rc;
}

/*
 * Delete PodTemplate ns/name if it is the Job's, on condition that it is
 * still the object read: its uid is stored nowhere, so it is read first. A
 * template of another owner under the name is left alone; job_uid NULL (the
 * workload's row lost) trusts the name.
 */
static int delete_template(struct gq_sync *s, const char *ns, const char *name,
                           const char *job_uid, gq_error *err)
{
    struct gq_kube_resp r;
    char path[768], line[GQ_KUBE_STATUS_LINE];
    const char *uid;
    int rc;

    if (!name)
        return GQ_OK; /* never created: create() posts no template without a name */
    snprintf(path, sizeof(path), "/api/v1/namespaces/%s/podtemplates/%s", ns, name);
    if ((rc = gq__kube_call(s->k, "GET", path, NULL, NULL, &r, err)) != GQ_OK)
        return rc;
    uid = gq__js_str(r.json, "metadata.uid");
    if (r.status == 200 && uid && (!job_uid || owned_by(r.json, job_uid)))
        rc = delete_object(s, path, uid, err);
    else if (r.status != 200 && r.status != 404) {
        gq__kube_status_line(line, sizeof(line), &r);
        rc = gq__error(err, GQ_EK8S, "GET %s: %s", path, line);
    }
    gq__kube_resp_free(&r);
    return rc;
}

/* The deleted request it->id (it->kube_uid, it->templates) of Job uid it->uid. */
static int delete_request(struct gq_sync *s, const struct gq__outbox_item *it, gq_error *err)
{
    const char *ns = it->ns, *name = it->name;
    json_object *pts = json_tokener_parse(it->templates ? it->templates : "[]");
    struct gone_pr g = {it->id};
    char path[768];
    size_t k, n = json_object_is_type(pts, json_type_array) ? json_object_array_length(pts) : 0;
    int rc;

    snprintf(path, sizeof(path),
             "/apis/autoscaling.x-k8s.io/v1/namespaces/%s/provisioningrequests/%s", ns, name);
    rc = delete_object(s, path, it->kube_uid, err);
    for (k = 0; rc == GQ_OK && k < n; k++)
        rc = delete_template(s, ns, gq__js_str(json_object_array_get_idx(pts, k), "metadata.name"),
                             it->uid, err);
    json_object_put(pts);
    if (rc == GQ_OK && (rc = gq__store_write(s->st, gone_txn, &g, err)) == GQ_OK)
        gq__sync_log(s, GQ_EVENT_LEVEL_INFO, GQ_EVENT_KIND_PROVISIONING_REQUEST, ns, name,
                     "deleted", "%s", "");
    return rc;
}

/* ---------------------------------------------------------------- release */

/*
 * The release's inputs (release.h) from the database: the pristine template
 * of the workload's first pod set and its flavor, and the workload's live
 * ProvisioningRequests with their config's podSetUpdates.nodeSelector.
 */
struct release_req {
    char *spec, *status, *updates; /* as stored (store_render.h) */
};

struct release_rows {
    const char *wuid, *flavor; /* the workload's uid, its first pod set's flavor (or NULL) */
    char *fspec;               /* the flavor's stored spec, or NULL */
    struct release_req *reqs;
    size_t n, cap;
};

static void release_rows_clear(struct release_rows *q)
{
    size_t i;

    for (i = 0; i < q->n; i++) {
        free(q->reqs[i].spec);
        free(q->reqs[i].status);
        free(q->reqs[i].updates);
    }
    free(q->reqs);
    free(q->fspec);
    q->reqs = NULL;
    q->fspec = NULL;
    q->n = q->cap = 0;
}

static char *dup_or_null(const char *v)
{
    return v ? strdup(v) : NULL;
}

static int release_req_row(const struct gq__release_request *r, void *payload, gq_error *err)
{
    struct release_rows *q = payload;
    struct release_req *x;

    if (q->n >= MAX_ROWS)
        return 0;
    if (gq__grow(&q->reqs, &q->cap, q->n + 1, sizeof(*q->reqs)) < 0)
        return gq__error(err, GQ_ENOMEM, "out of memory reading ProvisioningRequests");
    x = &q->reqs[q->n++];
    x->spec = dup_or_null(r->spec);
    x->status = dup_or_null(r->status);
    x->updates = dup_or_null(r->updates);
    if ((r->spec && !x->spec) || (r->status && !x->status) || (r->updates && !x->updates))
        return gq__error(err, GQ_ENOMEM, "out of memory reading ProvisioningRequests");
    return 0;
}

static int release_rows_txn(struct gq_store *st, void *payload, gq_error *err)
{
    struct release_rows *q = payload;
    int rc = GQ_OK;

    release_rows_clear(q);
    if (q->flavor)
        rc = gq__store_flavor_spec(st, q->flavor, &q->fspec, err);
    if (rc == GQ_OK)
        rc = gq__store_release_requests(st, q->wuid, release_req_row, q, err);
    return rc;
}

/* The requests' rows (spec, status, selectors) into q; the parsed JSON goes to keep. */
static int release_requests(struct gq__mf_release_reqs *q, const struct release_rows *r,
                            json_object *keep)
{
    size_t i;

    if (gq__mf_release_reqs_init(q, r->n) < 0)
        return -1;
    for (i = 0; i < r->n; i++) {
        json_object *pr = json_tokener_parse(r->reqs[i].spec);
        json_object *st = r->reqs[i].status ? json_tokener_parse(r->reqs[i].status) : NULL;
        json_object *ups = r->reqs[i].updates ? json_tokener_parse(r->reqs[i].updates) : NULL;

        json_object_array_add(keep, pr);
        json_object_array_add(keep, st);
        json_object_array_add(keep, ups);
        if (pr && gq__mf_release_reqs_add(q, pr, st, ups) < 0)
            return -1;
    }
    return 0;
}

/*
 * The workload's release as the unsuspend patch carries it: the stored spec
 * and admission (parsed), and for its first pod set with a template (a Job
 * has one) the released template (release.h).
 */
struct release_ctx {
    json_object *spec, *adm;     /* owned */
    json_object *tmpl;           /* the first pod set's pristine template (in spec); NULL: none */
    struct gq_released out;      /* its release, when tmpl */
    bool undo;                   /* admitted before: remove what that release added */
};

static void release_ctx_clear(struct release_ctx *c)
{
    if (c->tmpl)
        gq__released_clear(&c->out);
    json_object_put(c->spec);
    json_object_put(c->adm);
}

/* The first pod set with a pristine template, and the first flavor of its assignment. */
static void first_podset(struct release_ctx *c, const char **name, const char **flavor)
{
    json_object *sets = gq__js_get(c->adm, "podSetAssignments");
    size_t i;

    *name = *flavor = NULL;
    for (i = 0; json_object_is_type(sets, json_type_array) && i < json_object_array_length(sets);
         i++) {
        json_object *a = json_object_array_get_idx(sets, i);

        if (!(*name = gq__js_str(a, "name")) ||
            !(c->tmpl = gq__mf_release_pristine(c->spec, *name)))
            continue;
        *flavor = gq__mf_release_flavor(a);
        return;
    }
    *name = NULL;
}

/* Decode the rows and the template, and release. -1 on ENOMEM. */
static int release_compute(struct release_ctx *c, const char *podset,
                           const struct release_rows *q)
{
    json_object *keep = json_object_new_array(), *fspec = NULL;
    struct gq__mf_release_podset ps;
    struct gq__mf_release_reqs reqs = {0};
    int rc = -1;

    if (q->fspec && (fspec = json_tokener_parse(q->fspec)) != NULL)
        json_object_array_add(keep, fspec);
    if (gq__mf_release_podset_read(&ps, c->tmpl, gq__js_get(fspec, "spec")) == 0 &&
        release_requests(&reqs, q, keep) == 0)
        rc = gq__mf_release(&c->out, podset, &ps, &reqs);
    gq__mf_release_podset_clear(&ps);
    gq__mf_release_reqs_clear(&reqs);
    json_object_put(keep);
    return rc;
}

/* The release of workload it: its stored spec and admission. */
static int release_load(struct gq_sync *s, const struct gq__outbox_item *it,
                        struct release_ctx *c, gq_error *err)
{
    struct release_rows q = {it->uid, NULL, NULL, NULL, 0, 0};
    const char *podset;
    int rc;

    c->spec = it->spec ? json_tokener_parse(it->spec) : NULL;
    c->adm = it->admission ? json_tokener_parse(it->admission) : NULL;
    if (!c->spec || !c->adm)
        return gq__error(err, GQ_EIO, "workload %s/%s: its stored spec or admission is not JSON",
                         it->ns, it->name);
    first_podset(c, &podset, &q.flavor);
    if (!podset)
        return GQ_OK;
    rc = gq__store_read(s->st, release_rows_txn, &q, err);
    if (rc == GQ_OK && release_compute(c, podset, &q) < 0) {
        c->tmpl = NULL;
        rc = gq__error(err, GQ_ENOMEM, "out of memory releasing workload %s/%s", it->ns,
                       it->name);
    }
    if (rc != GQ_OK)
        c->tmpl = NULL;
    release_rows_clear(&q);
    return rc;
}

/* Labels the Job controller owns (its selector matches them): never removed. */
static bool controller_owned(const char *key)
{
    return strcmp(key, "controller-uid") == 0 || strcmp(key, "job-name") == 0 ||
           strcmp(key, "batch.kubernetes.io/controller-uid") == 0 ||
           strcmp(key, "batch.kubernetes.io/job-name") == 0;
}

/* A map of the template: the wanted keys, and null for every key the Job has beyond them. */
static json_object *map_patch(const struct gq_kvs *want, json_object *have)
{
    json_object *out = json_object_new_object();
    size_t i;

    for (i = 0; want && i < want->n; i++)
        json_object_object_add(out, want->v[i].key, json_object_new_string(want->v[i].value));
    if (json_object_is_type(have, json_type_object)) {
        json_object_object_foreach(have, k2, v2) {
            (void)v2;
            if (!controller_owned(k2) && !json_object_object_get_ex(out, k2, NULL))
                json_object_object_add(out, k2, NULL);
        }
    }
    return out;
}

/*
 * The template's tolerations as released: the pristine ones as stored, then
 * those the release added; NULL (the field removed) when there are none.
 */
static json_object *tolerations_json(json_object *tmpl, const struct gq_released *rel)
{
    json_object *have = gq__js_get(tmpl, "spec.tolerations"), *out;
    size_t i, n = 0;

    if (!json_object_is_type(have, json_type_array)) {
        have = NULL;
        if (!rel->ntolerations)
            return NULL;
    }
    out = json_object_new_array();
    for (i = 0; have && i < json_object_array_length(have); i++) {
        json_object *t = json_object_array_get_idx(have, i);

        json_object_array_add(out, json_object_get(t));
        n += json_object_is_type(t, json_type_object);
    }
    for (i = n; i < rel->ntolerations; i++)
        json_object_array_add(out, gq__mf_toleration_json(&rel->tolerations[i]));
    return out;
}

static json_object *tolerations_patch(const struct release_ctx *c)
{
    return tolerations_json(c->tmpl, &c->out);
}

static json_object *template_patch(const struct release_ctx *c, json_object *have)
{
    json_object *t = json_object_new_object(), *meta = json_object_new_object();
    json_object *spec = json_object_new_object();
    const struct gq_released *want = c->tmpl ? &c->out : NULL;

    json_object_object_add(meta, "labels", map_patch(want ? &want->labels : NULL,
                                                     gq__js_get(have, "metadata.labels")));
    json_object_object_add(meta, "annotations",
                           map_patch(want ? &want->annotations : NULL,
                                     gq__js_get(have, "metadata.annotations")));
    json_object_object_add(spec, "nodeSelector", map_patch(want ? &want->node_selector : NULL,
                                                           gq__js_get(have, "spec.nodeSelector")));
    json_object_object_add(spec, "tolerations", want ? tolerations_patch(c) : NULL);
    json_object_object_add(t, "metadata", meta);
    json_object_object_add(t, "spec", spec);
    return t;
}

/*
 * The unsuspend patch (Kueue's startJob in one call, KEP-2926): guarded by
 * the Job's resourceVersion; the template as released; the admission.
 * have is the Job's current template when it was admitted before (its old
 * flavor's keys are removed), else NULL.
 */
static json_object *release_patch(const struct release_ctx *c, const char *rv, json_object *have)
{
    json_object *p = json_object_new_object(), *meta = json_object_new_object();
    json_object *ann = json_object_new_object(), *spec = json_object_new_object();

    json_object_object_add(meta, "resourceVersion", json_object_new_string(rv));
    json_object_object_add(ann, GQ_SYNC_ADMISSION_ANNOTATION,
                           json_object_new_string(json_object_to_json_string_ext(
                               c->adm, JSON_C_TO_STRING_PLAIN)));
    json_object_object_add(meta, "annotations", ann);
    json_object_object_add(spec, "suspend", json_object_new_boolean(0));
    json_object_object_add(spec, "template", template_patch(c, have));
    json_object_object_add(p, "metadata", meta);
    json_object_object_add(p, "spec", spec);
    return p;
}

/* The item's workload. */
static struct target target_of(const struct gq_sync *s, const struct gq__outbox_item *it)
{
    struct target t = {it->id,  it->ns, it->name, it->job, it->uid, gq__sync_row(s, it->job_kind),
                       it->job_api_version};

    return t;
}

struct started {
    int64_t id;
    const char *ns, *name, *uid, *rv;
    bool gone;
};

static int started_txn(struct gq_store *st, void *payload, gq_error *err)
{
    struct started *t = payload;
    int64_t now = gq__store_now(st);
    int rc;

    if (t->gone)
        return gq__store_kube_gone(st, t->id, err);
    struct gq_started w = {t->id, t->ns, t->name, t->uid, "Job unsuspended"};

    if ((rc = gq__store_kube_seen(st, t->id, t->rv, false, err)) == GQ_OK &&
        (rc = gq__store_kube_cleared(st, t->id, err)) == GQ_OK)
        rc = gq__store_start(st, &w, now, err);
    return rc == GQ_ECONFLICT ? GQ_OK : rc; /* already running: a watch got there first */
}

/* ------------------------------------------------------------- refusals */

struct refused {
    const struct target *t;
    struct gq_kube_refusal f;
};

static int refused_txn(struct gq_store *st, void *payload, gq_error *err)
{
    struct refused *x = payload;
    const struct target *t = x->t;
    int rc;

    x->f.now_ms = gq__store_now(st);
    rc = gq__store_kube_refused(st, t->id, &x->f, err);
    /* One event for a run of refusals, not one per try. */
    if (rc == GQ_OK && x->f.tries == 1)
        rc = gq__store_event(st, "Workload", t->ns, t->name, t->uid, "Warning", x->f.reason,
                             x->f.message, NULL, NULL, x->f.now_ms, err);
    return rc;
}

/*
 * The API server refused a write for t's workload: recorded with the time
 * of the next try (the outbox leaves the row alone until then), logged.
 */
static int refuse(struct gq_sync *s, const struct target *t, const char *reason,
                  const char *message, gq_error *err)
{
    char msg[sizeof(err->msg)];
    struct refused x = {t, {reason, msg, 0, 0, 0}};
    int rc;

    snprintf(msg, sizeof(msg), "%s", message); /* message may be err->msg */
    if ((rc = gq__store_write(s->st, refused_txn, &x, err)) != GQ_OK)
        return rc;
    gq__sync_log_job(s, GQ_EVENT_LEVEL_ERROR, t->row, t->ns, t->job, "refused",
                 "%s (%d in a row, next try in %llds): %s", reason, x.f.tries,
                 (long long)((x.f.retry_at - x.f.now_ms + 999) / 1000), msg);
    return GQ_OK;
}

struct given_back {
    const struct target *t;
    const char *state, *reason, *message;
    bool done;
};

static int give_back_txn(struct gq_store *st, void *payload, gq_error *err)
{
    struct given_back *g = payload;
    const struct target *t = g->t;
    int64_t now = gq__store_now(st);
    int rc;

    rc = gq__store_evict(st, t->id, g->reason, g->message, NULL, now + REQUEUE_AFTER_MS, now, err);
    g->done = rc == GQ_OK;
    if (rc == GQ_ECONFLICT)
        rc = GQ_OK; /* it let go of its quota meanwhile */
    if (g->done)
        rc = gq__store_event(st, "Workload", t->ns, t->name, t->uid, "Warning", g->reason,
                             g->message, g->state, gq__wl_state_name(GQ_WL_PENDING), now, err);
    return rc == GQ_OK ? gq__store_kube_cleared(st, t->id, err) : rc;
}

/*
 * A workload holding quota whose writes were refused for the refusal
 * timeout gives it back: evicted (the condition Evicted carries the reason
 * and the last answer), requeued after REQUEUE_AFTER_MS.
 */
static int give_back(struct gq_sync *s, const struct gq__outbox_item *it, gq_error *err)
{
    struct target t = target_of(s, it);
    json_object *rec = json_tokener_parse(it->kube_error);
    int64_t tries;
    char msg[sizeof(err->msg)], took[GQ_DURATION_BUFSIZE];
    struct given_back g = {&t, it->state, gq__js_str(rec, "reason"), msg, false};
    int rc;

    tries = json_object_get_int64(gq__js_get(rec, "tries"));
    gq__format_duration_ms(took, sizeof(took), s->o.refusal_timeout_ms, true);
    snprintf(msg, sizeof(msg), "quota given back: the API server refused gpuqd's writes for "
             "over %s (%lld tries): %s", took, (long long)tries, gq__js_str(rec, "message") ?
             gq__js_str(rec, "message") : "");
    if (!g.reason)
        g.reason = "WriteRefused";
    if ((rc = gq__store_write(s->st, give_back_txn, &g, err)) == GQ_OK && g.done) {
        gq__sync_log_transition(s, GQ_EVENT_LEVEL_WARNING, GQ_EVENT_KIND_WORKLOAD, t.ns, t.name,
                                GQ_EVENT_WHAT_EVICTED, "%s: %s", g.reason, msg);
        s->changes++;
    }
    json_object_put(rec);
    return rc;
}

/* ---------------------------------------------------------------- release */

/* GET the Job: *out the object (200), NULL when it is gone or has another UID. */
static int get_job(struct gq_sync *s, const struct target *t, json_object **out, gq_error *err)
{
    const char *uid = t->uid;
    struct gq_kube_resp r;
    char path[768], line[GQ_KUBE_STATUS_LINE];
    int rc;

    *out = NULL;
    gq__sync_job_path(path, sizeof(path), t->row, t->api_version, t->ns, t->job);
    if ((rc = gq__kube_call(s->k, "GET", path, NULL, NULL, &r, err)) != GQ_OK)
        return rc;
    if (r.status == 200) {
        const char *u = gq__js_str(r.json, "metadata.uid");

        if (u && strcmp(u, uid) == 0)
            *out = json_object_get(r.json);
    } else if (r.status != 404) {
        gq__kube_status_line(line, sizeof(line), &r);
        rc = gq__error(err, GQ_EK8S, "GET %s: %s", path, line);
    }
    gq__kube_resp_free(&r);
    return rc;
}

static int patch_job(struct gq_sync *s, const struct target *t, const char *sub,
                     json_object *patch, struct gq_kube_resp *r, gq_error *err)
{
    char path[800];

    gq__sync_job_path(path, sizeof(path) - 16, t->row, t->api_version, t->ns, t->job);
    if (sub)
        snprintf(path + strlen(path), sizeof(path) - strlen(path), "/%s", sub);
    return gq__kube_call(s->k, "PATCH", path, "application/merge-patch+json",
                         json_object_to_json_string_ext(patch, JSON_C_TO_STRING_PLAIN), r, err);
}

/* build(ctx, rv, have) makes a patch against resourceVersion rv, the Job being have. */
typedef json_object *(*patch_fn)(void *ctx, const char *rv, json_object *have);

/* One guarded patch of a job: what it is for, and how it went. */
struct patch_req {
    const struct target *t;
    patch_fn build;
    void *ctx;
    long status;              /* out: the HTTP status of the last answer */
};

/* A Job patch's answer that is neither 200, 404 nor 409, as an error. */
static int patch_failed(const struct patch_req *p, const struct gq_kube_resp *r, gq_error *err)
{
    char line[GQ_KUBE_STATUS_LINE];

    gq__kube_status_line(line, sizeof(line), r);
    return gq__error(err, refused_status(r->status) ? GQ_EINVALID : GQ_EK8S,
                     "PATCH %s %s/%s: %s", p->t->row->kind, p->t->ns, p->t->job, line);
}

/*
 * The resourceVersion to guard a patch with: rv, or when the store has none
 * yet (NULL or ""), the Job's as read now. An empty resourceVersion would
 * make the patch unconditional, and a deposed leader's write must fail on a
 * stale one. *cur: the Job read (its reference replaces *cur's), NULL when
 * it is gone or another Job has the name; *out NULL then too.
 */
static int guard_rv(struct gq_sync *s, const struct patch_req *p, const char *rv,
                    json_object **cur, char **out, gq_error *err)
{
    json_object *now = NULL;
    int rc;

    *out = NULL;
    if (rv && *rv)
        return (*out = gq__strdup(rv)) ? GQ_OK : gq__error(err, GQ_ENOMEM, "out of memory");
    if ((rc = get_job(s, p->t, &now, err)) != GQ_OK)
        return rc;
    json_object_put(*cur);
    *cur = now;
    if (now && !(*out = gq__strdup(gq__js_str(now, "metadata.resourceVersion"))))
        rc = gq__error(err, GQ_EK8S, "%s %s/%s: the answer has no resourceVersion",
                       p->t->row->kind, p->t->ns, p->t->job);
    return rc;
}

/*
 * One conditional patch; on 409 the Job is read again and the patch redone
 * against its new resourceVersion (bounded). *job_out: the Job after the
 * patch, NULL when it is gone. GQ_EINVALID for a refusal (p->status says
 * which).
 */
static int patch_guarded(struct gq_sync *s, struct patch_req *p, const char *rv,
                         json_object *have, json_object **job_out, gq_error *err)
{
    json_object *cur = json_object_get(have), *patch;
    struct gq_kube_resp r;
    char *seen = NULL;
    int rc, attempt;

    *job_out = NULL;
    if ((rc = guard_rv(s, p, rv, &cur, &seen, err)) != GQ_OK || !seen)
        goto out; /* unreadable, or gone: nothing to patch */
    for (attempt = 0; rc == GQ_OK && attempt <= CONFLICT_RETRIES; attempt++) {
        patch = p->build(p->ctx, seen, cur);
        rc = patch_job(s, p->t, NULL, patch, &r, err);
        json_object_put(patch);
        if (rc != GQ_OK)
            break;
        p->status = r.status;
        if (r.status == 200)
            *job_out = json_object_get(r.json);
        else if (r.status != 404 && r.status != 409)
            rc = patch_failed(p, &r, err);
        gq__kube_resp_free(&r);
        if (p->status != 409)
            break; /* done, gone (*job_out stays NULL), or failed */
        free(seen);
        if ((rc = guard_rv(s, p, NULL, &cur, &seen, err)) != GQ_OK || !seen)
            break; /* gone, or another Job now has the name */
    }
    if (rc == GQ_OK && !*job_out && attempt > CONFLICT_RETRIES)
        rc = gq__error(err, GQ_ECONFLICT, "%s %s/%s kept changing: %d conflicts",
                       p->t->row->kind, p->t->ns, p->t->job, CONFLICT_RETRIES + 1);
out:
    json_object_put(cur);
    free(seen);
    return rc;
}

static json_object *build_suspend(void *ctx, const char *rv, json_object *have);

static bool suspended(json_object *job)
{
    json_object *susp = gq__js_get(job, "spec.suspend");

    return susp && json_object_get_boolean(susp);
}

/* The status patch that clears startTime, guarded by the Job's resourceVersion. */
static json_object *unstart_patch(const char *rv)
{
    json_object *p = json_object_new_object(), *meta = json_object_new_object();
    json_object *status = json_object_new_object();

    if (rv)
        json_object_object_add(meta, "resourceVersion", json_object_new_string(rv));
    json_object_object_add(status, "startTime", NULL);
    json_object_object_add(p, "metadata", meta);
    json_object_object_add(p, "status", status);
    return p;
}

/*
 * Kueue's Job.Stop: a suspended Job that ran keeps status.startTime (the
 * Job controller sets it when the Job runs and never clears it), and while
 * it is set the API server refuses any change to the pod template (the
 * Job validation allows one only while suspend is true and startTime nil).
 * Cleared through the status subresource. *out: the Job after, NULL when
 * there was nothing to do or the Job changed meanwhile (read again later).
 */
static int unstart(struct gq_sync *s, json_object *job, json_object **out, gq_error *err)
{
    struct target t = {0, gq__js_str(job, "metadata.namespace"), NULL,
                       gq__js_str(job, "metadata.name"), NULL, gq__integration_job(), NULL};
    struct patch_req p = {&t, NULL, NULL, 0};
    json_object *patch;
    struct gq_kube_resp r;
    int rc;

    *out = NULL;
    if (!t.ns || !t.job || !suspended(job) || !gq__js_get(job, "status.startTime"))
        return GQ_OK;
    patch = unstart_patch(gq__js_str(job, "metadata.resourceVersion"));
    rc = patch_job(s, &t, "status", patch, &r, err);
    json_object_put(patch);
    if (rc != GQ_OK)
        return rc;
    if (r.status == 200)
        *out = json_object_get(r.json);
    else if (r.status != 404 && r.status != 409)
        rc = patch_failed(&p, &r, err);
    gq__kube_resp_free(&r);
    if (*out)
        gq__sync_log_job(s, GQ_EVENT_LEVEL_INFO, t.row, t.ns, t.job, "start-time-cleared",
                     "so that its pod template can change when it is admitted");
    return rc;
}

static json_object *build_release(void *ctx, const char *rv, json_object *have)
{
    const struct release_ctx *c = ctx;

    return release_patch(c, rv, c->undo && have ? gq__js_get(have, "spec.template") : NULL);
}

/*
 * The release was refused 422: the Job ran (startTime set), so its pod
 * template cannot change. Suspended already: clear startTime. Still running
 * without admission (admitted in the turn that first saw it, before the
 * policy's suspend): suspend it first, as the policy would have. Then patch
 * once more. Otherwise the refusal stands, err as it was.
 */
static int release_ran(struct gq_sync *s, struct patch_req *p, json_object **after,
                       gq_error *err)
{
    gq_error refused = *err;
    struct patch_req stop = {p->t, build_suspend, NULL, 0};
    json_object *cur = NULL, *stopped = NULL, *cleared = NULL;
    struct release_ctx *c = p->ctx;
    int rc;

    if ((rc = get_job(s, p->t, &cur, err)) == GQ_OK && cur && !suspended(cur) &&
        s->o.suspend_unadmitted && gq__js_get(cur, "status.startTime"))
        rc = patch_guarded(s, &stop, gq__js_str(cur, "metadata.resourceVersion"), cur, &stopped,
                           err);
    if (rc == GQ_OK && (stopped || cur))
        rc = unstart(s, stopped ? stopped : cur, &cleared, err);
    if (rc == GQ_OK && cleared)
        rc = patch_guarded(s, p, gq__js_str(cleared, "metadata.resourceVersion"),
                           c->undo ? cleared : NULL, after, err);
    else if (rc == GQ_OK) {
        *err = refused;
        rc = refused.code;
    }
    json_object_put(cleared);
    json_object_put(stopped);
    json_object_put(cur);
    return rc;
}

/* ---------------------------------------------- other kinds of job */

/*
 * A job of another kind of the integration table (JobSet, RayJob, a user's
 * CRD...) is released and suspended by one merge patch computed from the
 * object itself: read it, edit a copy (each pod set's template located by
 * the kind's row, its switch flipped, the admission annotation), and send
 * the difference, guarded by the resourceVersion read. Lists are replaced
 * whole by a merge patch, so a JobSet's replicatedJobs go as one list.
 * Suspending restores each template's labels, annotations, nodeSelector
 * and tolerations to the pristine copy (Kueue's RestorePodSetsInfo).
 */

/* RFC 7386: the merge patch that turns have into want (NULL: nothing differs). */
static json_object *merge_diff(json_object *have, json_object *want)
{
    json_object *out;

    if (!json_object_is_type(have, json_type_object) ||
        !json_object_is_type(want, json_type_object))
        return NULL;
    out = json_object_new_object();
    json_object_object_foreach(want, k, w) {
        json_object *h = NULL;
        bool had = json_object_object_get_ex(have, k, &h) && h;

        if (!w) {
            if (had)
                json_object_object_add(out, k, NULL);
        } else if (!had) {
            json_object *copy = NULL;

            json_object_deep_copy(w, &copy, NULL);
            json_object_object_add(out, k, copy);
        } else if (json_object_is_type(h, json_type_object) &&
                   json_object_is_type(w, json_type_object)) {
            json_object *d = merge_diff(h, w);

            if (d)
                json_object_object_add(out, k, d);
        } else if (!json_object_equal(h, w)) {
            json_object *copy = NULL;

            json_object_deep_copy(w, &copy, NULL);
            json_object_object_add(out, k, copy);
        }
    }
    json_object_object_foreach(have, k2, h2) {
        if (h2 && !json_object_object_get_ex(want, k2, NULL))
            json_object_object_add(out, k2, NULL);
    }
    if (!json_object_object_length(out)) {
        json_object_put(out);
        return NULL;
    }
    return out;
}

static json_object *member(json_object *parent, const char *key)
{
    json_object *v = NULL;

    if (!json_object_object_get_ex(parent, key, &v) || !json_object_is_type(v, json_type_object)) {
        v = json_object_new_object();
        json_object_object_add(parent, key, v);
    }
    return v;
}

/* parent[key] = the map (removed when empty). */
static void put_map(json_object *parent, const char *key, const struct gq_kvs *kv)
{
    json_object *m;
    size_t i;

    if (!kv || !kv->n) {
        json_object_object_del(parent, key);
        return;
    }
    m = json_object_new_object();
    for (i = 0; i < kv->n; i++)
        json_object_object_add(m, kv->v[i].key, json_object_new_string(kv->v[i].value));
    json_object_object_add(parent, key, m);
}

/* parent[key] = a copy of from[key] (removed when from has none). */
static void put_copy(json_object *parent, const char *key, json_object *from)
{
    json_object *v = NULL, *copy = NULL;

    if (!json_object_object_get_ex(from, key, &v) || !v ||
        json_object_deep_copy(v, &copy, NULL) != 0) {
        json_object_object_del(parent, key);
        return;
    }
    json_object_object_add(parent, key, copy);
}

/* A template in place: released (rel), or restored to its pristine parts (rel NULL). */
static void set_template(json_object *node, json_object *pristine, const struct gq_released *rel)
{
    json_object *meta = member(node, "metadata"), *spec = member(node, "spec");
    json_object *pmeta = gq__js_get(pristine, "metadata"), *pspec = gq__js_get(pristine, "spec");
    json_object *tol;

    if (!rel) {
        put_copy(meta, "labels", pmeta);
        put_copy(meta, "annotations", pmeta);
        put_copy(spec, "nodeSelector", pspec);
        put_copy(spec, "tolerations", pspec);
        if (!json_object_object_length(meta) && !pmeta)
            json_object_object_del(node, "metadata"); /* as it was: none */
        return;
    }
    put_map(meta, "labels", &rel->labels);
    put_map(meta, "annotations", &rel->annotations);
    put_map(spec, "nodeSelector", &rel->node_selector);
    if ((tol = tolerations_json(pristine, rel)) != NULL)
        json_object_object_add(spec, "tolerations", tol);
    else
        json_object_object_del(spec, "tolerations");
}

/* Every pod set's release of a workload, for a kind other than Job. */
struct kind_release {
    struct gq_sync *s;
    const struct target *t;
    json_object *spec, *adm;     /* owned: the stored Workload and admission */
    struct {
        const char *name;
        json_object *tmpl;       /* its pristine template (in spec) */
        struct gq_released out;
        bool released;
    } ps[18];
    size_t n;
    bool suspend;                /* the eviction: templates restored, the switch on */
    bool broken;                 /* a pod set's template is not in the object */
};

static void kind_release_clear(struct kind_release *k)
{
    size_t i;

    for (i = 0; i < k->n; i++)
        if (k->ps[i].released)
            gq__released_clear(&k->ps[i].out);
    json_object_put(k->spec);
    json_object_put(k->adm);
}

/* The releases of every assigned pod set (release) or the pod sets to restore (suspend). */
/* The rows every pod set's release reads, in one read: the requests once, each flavor's spec. */
struct kind_rows {
    struct release_rows q;      /* the requests (q.flavor NULL) */
    const char *flavor[18];     /* per pod set: its first assigned flavor, or NULL */
    char *fspec[18];            /* its stored spec */
    size_t n;
};

static int kind_rows_txn(struct gq_store *st, void *payload, gq_error *err)
{
    struct kind_rows *r = payload;
    size_t i;
    int rc = release_rows_txn(st, &r->q, err);

    for (i = 0; rc == GQ_OK && i < r->n; i++) {
        free(r->fspec[i]); /* a retried transaction starts over */
        r->fspec[i] = NULL;
        if (r->flavor[i])
            rc = gq__store_flavor_spec(st, r->flavor[i], &r->fspec[i], err);
    }
    return rc;
}

static int kind_release_load(struct gq_sync *s, const struct gq__outbox_item *it,
                             struct kind_release *k, gq_error *err)
{
    struct kind_rows r = {{it->uid, NULL, NULL, NULL, 0, 0}, {NULL}, {NULL}, 0};
    json_object *sets;
    size_t i, n;
    int rc = GQ_OK;

    k->spec = it->spec ? json_tokener_parse(it->spec) : NULL;
    k->adm = it->admission ? json_tokener_parse(it->admission) : NULL;
    if (!k->spec || (!k->suspend && !k->adm))
        return gq__error(err, GQ_EIO, "workload %s/%s: its stored spec or admission is not JSON",
                         it->ns, it->name);
    sets = k->suspend ? gq__js_get(k->spec, "spec.podSets") : gq__js_get(k->adm, "podSetAssignments");
    n = json_object_is_type(sets, json_type_array) ? json_object_array_length(sets) : 0;
    for (i = 0; i < n && k->n < 18; i++) {
        json_object *a = json_object_array_get_idx(sets, i);
        const char *name = gq__js_str(a, "name");
        json_object *tmpl = name ? gq__mf_release_pristine(k->spec, name) : NULL;

        if (!tmpl)
            continue;
        k->ps[k->n].name = name;
        k->ps[k->n].tmpl = tmpl;
        r.flavor[k->n++] = k->suspend ? NULL : gq__mf_release_flavor(a);
    }
    if (k->suspend)
        return GQ_OK; /* restoring needs the pristine templates only */
    r.n = k->n;
    rc = gq__store_read(s->st, kind_rows_txn, &r, err);
    for (i = 0; rc == GQ_OK && i < k->n; i++) {
        struct release_ctx c = {0};

        c.tmpl = k->ps[i].tmpl;
        r.q.fspec = r.fspec[i]; /* release_compute reads the pod set's flavor there */
        if (release_compute(&c, k->ps[i].name, &r.q) < 0)
            rc = gq__error(err, GQ_ENOMEM, "out of memory releasing workload %s/%s", it->ns,
                           it->name);
        else {
            k->ps[i].out = c.out;
            k->ps[i].released = true;
        }
    }
    r.q.fspec = NULL; /* each is freed below, not by release_rows_clear */
    release_rows_clear(&r.q);
    for (i = 0; i < r.n; i++)
        free(r.fspec[i]);
    return rc;
}

/* The patch against have: the copy edited, then the difference (patch_fn). */
static json_object *build_kind(void *ctx, const char *rv, json_object *have)
{
    struct kind_release *k = ctx;
    const struct gq_integration *row = k->t->row;
    json_object *want = NULL, *patch, *ann;
    size_t i;

    if (!have || json_object_deep_copy(have, &want, NULL) != 0)
        return NULL;
    k->broken = false;
    for (i = 0; i < k->n; i++) {
        json_object *node = gq__mf_integration_template(want, row, k->ps[i].name, !k->suspend);

        if (!node) {
            k->broken = true;
            continue;
        }
        if (!json_object_object_length(node)) { /* made just now (a RayJob's submitter) */
            json_object_object_foreach(k->ps[i].tmpl, key, v) {
                json_object *copy = NULL;

                if (json_object_deep_copy(v, &copy, NULL) == 0)
                    json_object_object_add(node, key, copy);
            }
        }
        set_template(node, k->ps[i].tmpl, k->suspend ? NULL : &k->ps[i].out);
    }
    gq__mf_integration_set(want, row->suspend, json_object_new_boolean(k->suspend));
    ann = member(member(want, "metadata"), "annotations");
    if (k->suspend)
        json_object_object_del(ann, GQ_SYNC_ADMISSION_ANNOTATION);
    else
        json_object_object_add(ann, GQ_SYNC_ADMISSION_ANNOTATION,
                               json_object_new_string(json_object_to_json_string_ext(
                                   k->adm, JSON_C_TO_STRING_PLAIN)));
    if (!json_object_object_length(ann))
        json_object_object_del(gq__js_get(want, "metadata"), "annotations");
    if (!(patch = merge_diff(have, want)))
        patch = json_object_new_object();
    json_object_put(want);
    json_object_object_add(member(patch, "metadata"), "resourceVersion",
                           json_object_new_string(rv));
    return patch;
}

/* Release (suspend false) or evict (suspend true) a job of another kind. */
static int kind_patch(struct gq_sync *s, const struct gq__outbox_item *it,
                      const struct target *tg, bool suspend, json_object **after, gq_error *err)
{
    struct kind_release k = {s, tg, NULL, NULL, {{0}}, 0, suspend, false};
    struct patch_req p = {tg, build_kind, &k, 0};
    json_object *have = NULL;
    int rc;

    *after = NULL;
    if ((rc = kind_release_load(s, it, &k, err)) == GQ_OK &&
        (rc = get_job(s, tg, &have, err)) == GQ_OK && have)
        rc = patch_guarded(s, &p, gq__js_str(have, "metadata.resourceVersion"), have, after, err);
    if (rc == GQ_OK && k.broken)
        gq__sync_log_job(s, GQ_EVENT_LEVEL_WARNING, tg->row, tg->ns, tg->job, "podset-missing",
                     "a pod set of the workload is no longer in the %s", tg->row->kind);
    json_object_put(have);
    kind_release_clear(&k);
    return rc;
}

static int release_kind(struct gq_sync *s, const struct gq__outbox_item *it,
                        const struct target *tg, gq_error *err)
{
    struct started t = {tg->id, tg->ns, tg->name, tg->uid, NULL, false};
    json_object *after = NULL;
    int rc = kind_patch(s, it, tg, false, &after, err);

    if (rc == GQ_OK) {
        gq__crash_point("after-unsuspend");
        t.gone = !after;
        t.rv = gq__js_str(after, "metadata.resourceVersion");
        if ((rc = gq__store_write(s->st, started_txn, &t, err)) == GQ_OK && after)
            gq__sync_log_job(s, GQ_EVENT_LEVEL_INFO, tg->row, tg->ns, tg->job,
                         "unsuspended", "%s %s", tg->row->kind, gq__wl_state_name(GQ_WL_ADMITTED));
    } else if (rc == GQ_EINVALID) {
        rc = refuse(s, tg, "ReleaseRefused", err->msg, err);
    }
    json_object_put(after);
    return rc;
}

/* Release the admitted workload it: unsuspend its Job with the released template. */
static int release(struct gq_sync *s, const struct gq__outbox_item *it, gq_error *err)
{
    struct target tg = target_of(s, it);
    struct started t = {tg.id, tg.ns, tg.name, tg.uid, NULL, false};
    struct release_ctx ctx = {.undo = it->evictions != 0};
    struct patch_req p = {&tg, build_release, &ctx, 0};
    json_object *have = NULL, *after = NULL;
    int rc;

    if (tg.row != gq__integration_job())
        return release_kind(s, it, &tg, err);
    rc = release_load(s, it, &ctx, err);
    /* Admitted before: the Job's template still carries that release; read it to undo it. */
    if (rc == GQ_OK && ctx.undo)
        rc = get_job(s, &tg, &have, err);
    if (rc == GQ_OK)
        rc = patch_guarded(s, &p, it->job_rv, have, &after, err);
    if (rc == GQ_EINVALID && p.status == 422)
        rc = release_ran(s, &p, &after, err);
    if (rc == GQ_OK) {
        gq__crash_point("after-unsuspend");
        t.gone = !after;
        t.rv = gq__js_str(after, "metadata.resourceVersion");
        if ((rc = gq__store_write(s->st, started_txn, &t, err)) == GQ_OK && after)
            gq__sync_log_job(s, GQ_EVENT_LEVEL_INFO, tg.row, tg.ns, tg.job, "unsuspended",
                         "%s", gq__wl_state_name(GQ_WL_ADMITTED));
    } else if (rc == GQ_EINVALID) {
        rc = refuse(s, &tg, "ReleaseRefused", err->msg, err);
    }
    json_object_put(after);
    json_object_put(have);
    release_ctx_clear(&ctx);
    return rc;
}

/* ---------------------------------------------------------------- suspend */

static json_object *build_suspend(void *ctx, const char *rv, json_object *have)
{
    json_object *p = json_object_new_object(), *meta = json_object_new_object();
    json_object *ann = json_object_new_object(), *spec = json_object_new_object();

    (void)ctx;
    (void)have;
    json_object_object_add(meta, "resourceVersion", json_object_new_string(rv));
    json_object_object_add(ann, GQ_SYNC_ADMISSION_ANNOTATION, NULL);
    json_object_object_add(meta, "annotations", ann);
    json_object_object_add(spec, "suspend", json_object_new_boolean(1));
    json_object_object_add(p, "metadata", meta);
    json_object_object_add(p, "spec", spec);
    return p;
}

struct suspended {
    int64_t id;
    const char *rv;
    bool gone;
};

static int suspended_txn(struct gq_store *st, void *payload, gq_error *err)
{
    struct suspended *t = payload;
    int rc;

    if (t->gone)
        return gq__store_kube_gone(st, t->id, err);
    if ((rc = gq__store_kube_seen(st, t->id, t->rv, true, err)) == GQ_OK)
        rc = gq__store_kube_cleared(st, t->id, err);
    return rc;
}

/* Suspend a job of another kind, its templates restored. */
static int suspend_kind(struct gq_sync *s, const struct gq__outbox_item *it,
                        const struct target *tg, gq_error *err)
{
    struct suspended t = {tg->id, NULL, false};
    json_object *after = NULL;
    int rc = kind_patch(s, it, tg, true, &after, err);

    if (rc == GQ_EINVALID)
        return refuse(s, tg, "SuspendRefused", err->msg, err);
    if (rc != GQ_OK)
        return rc;
    t.gone = !after;
    t.rv = gq__js_str(after, "metadata.resourceVersion");
    if ((rc = gq__store_write(s->st, suspended_txn, &t, err)) == GQ_OK && after)
        gq__sync_log_job(s, GQ_EVENT_LEVEL_INFO, tg->row, tg->ns, tg->job, "suspended",
                     "%s %s", tg->row->kind,
                     it->evictions != 0 ? gq__wl_state_name(GQ_WL_EVICTED)
                                        : "it ran without admission");
    json_object_put(after);
    return rc;
}

/* Suspend the Job of workload it, which runs without holding quota. */
static int suspend(struct gq_sync *s, const struct gq__outbox_item *it, gq_error *err)
{
    struct target tg = target_of(s, it);
    struct suspended t = {tg.id, NULL, false};
    struct patch_req p = {&tg, build_suspend, NULL, 0};
    json_object *after = NULL, *cleared = NULL;
    int rc;

    if (tg.row != gq__integration_job())
        return suspend_kind(s, it, &tg, err);
    rc = patch_guarded(s, &p, it->job_rv, NULL, &after, err);
    if (rc == GQ_EINVALID)
        return refuse(s, &tg, "SuspendRefused", err->msg, err);
    if (rc != GQ_OK)
        return rc;
    /* Suspended either way; should the clearing fail, the release tries it again. */
    if (after && unstart(s, after, &cleared, err) != GQ_OK)
        gq__sync_log_job(s, GQ_EVENT_LEVEL_WARNING, tg.row, tg.ns, tg.job, "start-time-kept",
                     "%s", err->msg);
    t.gone = !after;
    t.rv = gq__js_str(cleared ? cleared : after, "metadata.resourceVersion");
    if ((rc = gq__store_write(s->st, suspended_txn, &t, err)) == GQ_OK && after)
        gq__sync_log_job(s, GQ_EVENT_LEVEL_INFO, tg.row, tg.ns, tg.job, "suspended",
                     "%s", it->evictions != 0 ? gq__wl_state_name(GQ_WL_EVICTED)
                                              : "it ran without admission");
    json_object_put(cleared);
    json_object_put(after);
    return rc;
}

/* ------------------------------------------------------------ gone Jobs */

struct confirm {
    struct gq_sync *s;
    int64_t id;
    json_object *job;         /* NULL: gone for good */
    const struct gq_integration *row;
};

static int confirm_txn(struct gq_store *st, void *payload, gq_error *err)
{
    struct confirm *c = payload;
    bool closed;

    if (c->job)
        return gq__sync_job_observe(c->s, c->row, c->job, err);
    return gq__store_kube_close(st, c->id, gq__wl_state_name(GQ_WL_CANCELLED), "JobDeleted",
                                "the Job was deleted", gq__store_now(st), &closed, err);
}

/* Confirm with the API server that the Job of workload it is gone. */
static int confirm_gone(struct gq_sync *s, const struct gq__outbox_item *it, gq_error *err)
{
    const char *ns = it->ns, *job = it->job;
    struct target t = target_of(s, it);
    struct confirm c = {s, it->id, NULL, t.row};
    int rc;

    if ((rc = get_job(s, &t, &c.job, err)) != GQ_OK)
        return rc;
    rc = gq__store_write(s->st, confirm_txn, &c, err);
    if (rc == GQ_OK && !c.job)
        gq__sync_log_job(s, GQ_EVENT_LEVEL_INFO, t.row, ns, job, "deleted",
                     "quota released");
    json_object_put(c.job);
    s->changes++;
    return rc;
}

/* ------------------------------------------------------------- the outbox */

/*
 * One effect the outbox read (backend.h), as calls to the API server, its
 * result recorded in a transaction of its own after the call returned.
 * e->row is the struct gq__outbox_item it was read from.
 */
static int apply(struct gq_sync *s, const struct gq__effect *e, gq_error *err)
{
    const struct gq__outbox_item *it = e->row;

    switch (e->kind) {
    case GQ__EFFECT_GIVE_BACK: return give_back(s, it, err);
    case GQ__EFFECT_CONFIRM_GONE: return confirm_gone(s, it, err);
    case GQ__EFFECT_DELETE_REQUEST: return delete_request(s, it, err);
    case GQ__EFFECT_CREATE_REQUEST: return create_request(s, it, err);
    case GQ__EFFECT_UNSUSPEND: return release(s, it, err);
    case GQ__EFFECT_SUSPEND: return suspend(s, it, err);
    }
    return gq__error(err, GQ_ERROR, "unknown effect %d", (int)e->kind);
}

/*
 * Apply an effect of this kind for every item read. A call the API server
 * failed (GQ_EK8S: unreachable, 5xx after retries, a CRD missing) is
 * logged and ends this kind of work for the turn; the next turn tries
 * again, paced by the loop and the client's rate limit. Database failures
 * stop the loop.
 */
static int each(struct gq_sync *s, const struct items_read *q, enum gq__effect_kind kind,
                gq_error *err)
{
    struct gq__outbox_items items = {0};
    struct items_read with = *q;
    size_t i;
    int rc;

    with.out = &items;
    if ((rc = gq__store_read(s->st, items_txn, &with, err)) != GQ_OK) {
        gq__outbox_items_free(&items);
        return rc;
    }
    for (i = 0; rc == GQ_OK && i < items.n && !(s->o.stop && *s->o.stop); i++) {
        const struct gq__outbox_item *it = &items.v[i];
        struct gq__effect e = {kind, it->id, it->ns, it->name, it->job, it->uid, it};

        rc = apply(s, &e, err);
    }
    gq__outbox_items_free(&items);
    if (rc == GQ_EK8S || rc == GQ_ENOTFOUND || rc == GQ_ECONFLICT) {
        gq__sync_log(s, GQ_EVENT_LEVEL_WARNING, GQ_EVENT_KIND_SYNC, NULL, NULL, "retrying", "%s",
                     err ? err->msg : "");
        rc = GQ_OK;
    }
    return rc;
}

int gq__sync_outbox(struct gq_sync *s, gq_error *err)
{
    int64_t now = gq__store_now(s->st);
    bool unadmitted = s->o.suspend_unadmitted;
    struct items_read back = {READ_GIVE_BACK, 0, unadmitted, NULL};
    struct items_read gone = {READ_GONE, now, unadmitted, NULL};
    struct items_read del = {READ_DELETE, now, unadmitted, NULL};
    struct items_read cre = {READ_CREATE, now, unadmitted, NULL};
    struct items_read rel = {READ_RELEASE, now, unadmitted, NULL};
    struct items_read sus = {READ_SUSPEND, now, unadmitted, NULL};
    int rc;

    if (s->o.refusal_timeout_ms <= 0)
        s->o.refusal_timeout_ms = REFUSAL_TIMEOUT_MS;
    /* Quota held while writes were refused since before this. */
    back.at = now - s->o.refusal_timeout_ms;
    if ((rc = each(s, &back, GQ__EFFECT_GIVE_BACK, err)) != GQ_OK ||
        (rc = each(s, &gone, GQ__EFFECT_CONFIRM_GONE, err)) != GQ_OK ||
        (rc = each(s, &del, GQ__EFFECT_DELETE_REQUEST, err)) != GQ_OK ||
        (rc = each(s, &cre, GQ__EFFECT_CREATE_REQUEST, err)) != GQ_OK ||
        (rc = each(s, &rel, GQ__EFFECT_UNSUSPEND, err)) != GQ_OK)
        return rc;
    return each(s, &sus, GQ__EFFECT_SUSPEND, err);
}
