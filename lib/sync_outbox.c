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
 *    templates after them (Kueue #11677);
 *  - admitted workloads are released: one merge patch carrying
 *    metadata.resourceVersion sets suspend false, the flavor's node
 *    selector and tolerations, the podset label, the consume annotations,
 *    and gpuq.dev/admission (the admission, for a successor with an empty
 *    database); a 409 re-reads the Job and retries a bounded number of times;
 *  - evicted workloads whose Job runs are suspended again (their admission
 *    annotation removed; the next release rewrites the template from the
 *    pristine copy), as are labelled Jobs running without admission when
 *    the policy says so;
 *  - Jobs a watch reported gone are confirmed by a GET before anything is
 *    released (a selector DELETED is not a deletion).
 * Each result is recorded in its own transaction after its call returns.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "admit.h" /* gq__grow */
#include "error.h"
#include "store.h"
#include "sync.h"
#include "util.h"

#define CONFLICT_RETRIES 3
#define MAX_ROWS 256           /* per kind of work per turn: the loop keeps polling */

/* ------------------------------------------------------------------- rows */

struct rows {
    char **v;                 /* ncols values per row, row-major */
    size_t n, cap, ncols;
};

static int rows_cb(int n, const char *const *vals, void *payload)
{
    struct rows *r = payload;
    size_t i;

    if (r->n >= MAX_ROWS)
        return 0;
    if (gq__grow(&r->v, &r->cap, (r->n + 1) * (size_t)n, sizeof(*r->v)) < 0)
        return GQ_ENOMEM;
    r->ncols = (size_t)n;
    for (i = 0; i < (size_t)n; i++)
        r->v[r->n * (size_t)n + i] = vals[i] ? strdup(vals[i]) : NULL;
    r->n++;
    return 0;
}

static void rows_free(struct rows *r)
{
    size_t i;

    for (i = 0; i < r->n * r->ncols; i++)
        free(r->v[i]);
    free(r->v);
    memset(r, 0, sizeof(*r));
}

static const char *col(const struct rows *r, size_t row, size_t c)
{
    return r->v[row * r->ncols + c];
}

struct query {
    const char *sql;
    const char *param;        /* ?1, or NULL */
    struct rows *rows;
};

static int query_txn(struct gq_store *st, void *payload, gq_error *err)
{
    struct query *q = payload;

    return gq__store_query(st, q->sql, &q->param, q->param ? 1 : 0, rows_cb, q->rows, err);
}

static int select_rows(struct gq_sync *s, const char *sql, const char *param, struct rows *out,
                       gq_error *err)
{
    struct query q = {sql, param, out};

    memset(out, 0, sizeof(*out));
    return gq__store_read(s->st, query_txn, &q, err);
}


/* --------------------------------------------------------------- requests */

static json_object *owner_refs(const char *job, const char *uid)
{
    json_object *refs = json_object_new_array(), *ref = json_object_new_object();

    json_object_object_add(ref, "apiVersion", json_object_new_string("batch/v1"));
    json_object_object_add(ref, "kind", json_object_new_string("Job"));
    json_object_object_add(ref, "name", json_object_new_string(job));
    json_object_object_add(ref, "uid", json_object_new_string(uid));
    json_object_object_add(ref, "controller", json_object_new_boolean(1));
    json_object_array_add(refs, ref);
    return refs;
}

/* The stored object as the cluster gets it: owned by the Job, server fields dropped. */
static void own(json_object *obj, const char *job, const char *uid)
{
    json_object *meta = gq__js_get(obj, "metadata");

    if (!meta)
        return;
    json_object_object_del(meta, "uid");
    json_object_object_del(meta, "creationTimestamp");
    json_object_object_del(meta, "resourceVersion");
    json_object_object_add(meta, "ownerReferences", owner_refs(job, uid));
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
 * the Job's (adopted: *out gets it). GQ_EEXISTS for someone else's object.
 */
static int create(struct gq_sync *s, const char *collection, json_object *obj, const char *uid,
                  json_object **out, gq_error *err)
{
    struct gq_kube_resp r;
    char path[768];
    int rc;

    *out = NULL;
    rc = gq__kube_call(s->k, "POST", collection, NULL,
                       json_object_to_json_string_ext(obj, JSON_C_TO_STRING_PLAIN), &r, err);
    if (rc == GQ_OK && r.status == 409) {
        snprintf(path, sizeof(path), "%s/%s", collection, gq__js_str(obj, "metadata.name"));
        gq__kube_resp_free(&r);
        if ((rc = gq__kube_call(s->k, "GET", path, NULL, NULL, &r, err)) == GQ_OK &&
            r.status == 200 && !owned_by(r.json, uid))
            rc = gq__error(err, GQ_EEXISTS, "%s exists and is not owned by Job uid %s", path, uid);
    }
    if (rc == GQ_OK && r.status != 200 && r.status != 201)
        rc = gq__error(err, GQ_EK8S, "POST %s: %ld %s", collection, r.status,
                       gq__kube_status_message(&r));
    if (rc == GQ_OK)
        *out = json_object_get(r.json);
    gq__kube_resp_free(&r);
    return rc;
}

static int create_templates(struct gq_sync *s, const char *ns, const char *templates,
                            const char *job, const char *uid, gq_error *err)
{
    json_object *pts = json_tokener_parse(templates), *got = NULL;
    char collection[320];
    size_t i, n = json_object_is_type(pts, json_type_array) ? json_object_array_length(pts) : 0;
    int rc = pts ? GQ_OK : gq__error(err, GQ_EIO, "unreadable stored PodTemplates");

    snprintf(collection, sizeof(collection), "/api/v1/namespaces/%s/podtemplates", ns);
    for (i = 0; rc == GQ_OK && i < n; i++) {
        json_object *pt = json_object_array_get_idx(pts, i);

        own(pt, job, uid);
        rc = create(s, collection, pt, uid, &got, err);
        json_object_put(got);
        got = NULL;
    }
    json_object_put(pts);
    return rc;
}

struct created {
    int64_t id;
    const char *ns, *name, *uid, *status;
};

/* Created, or adopted: an adopted request may already have a status (a predecessor's). */
static int created_txn(struct gq_store *st, void *payload, gq_error *err)
{
    struct created *c = payload;
    int rc = gq__store_kube_provreq(st, c->id, "created", c->uid, err);

    if (rc == GQ_OK && c->status)
        rc = gq__store_kube_provreq_status(st, c->ns, c->name, c->uid, c->status, err);
    return rc;
}

static int refuse(struct gq_sync *s, int64_t id, const char *ns, const char *job,
                  const char *message, gq_error *err);

/* Columns: id, namespace, name, spec, templates, job uid, job name, workload id. */
static int create_request(struct gq_sync *s, const struct rows *r, size_t i, gq_error *err)
{
    const char *ns = col(r, i, 1), *name = col(r, i, 2), *uid = col(r, i, 5), *job = col(r, i, 6);
    json_object *pr = json_tokener_parse(col(r, i, 3)), *got = NULL;
    struct created c = {strtoll(col(r, i, 0), NULL, 10), ns, name, NULL, NULL};
    char collection[320];
    int rc;

    if (!pr)
        return gq__error(err, GQ_EIO, "unreadable stored ProvisioningRequest %s/%s", ns, name);
    if ((rc = create_templates(s, ns, col(r, i, 4), job, uid, err)) == GQ_OK) {
        gq__crash_point("after-podtemplates");
        snprintf(collection, sizeof(collection),
                 "/apis/autoscaling.x-k8s.io/v1/namespaces/%s/provisioningrequests", ns);
        own(pr, job, uid);
        rc = create(s, collection, pr, uid, &got, err);
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
        gq__sync_log(s, "info", "ProvisioningRequest", ns, name, "created", "for Job %s", job);
    else if (rc == GQ_EEXISTS)
        rc = refuse(s, strtoll(col(r, i, 7), NULL, 10), ns, job, err->msg, err);
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
    char body[256];
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
    if (rc == GQ_OK && r.status != 200 && r.status != 202 && r.status != 404 && r.status != 409)
        rc = gq__error(err, GQ_EK8S, "DELETE %s: %ld %s", path, r.status,
                       gq__kube_status_message(&r));
    gq__kube_resp_free(&r);
    return rc;
}

/* Columns: id, namespace, name, kube_uid, templates. */
static int delete_request(struct gq_sync *s, const struct rows *r, size_t i, gq_error *err)
{
    const char *ns = col(r, i, 1), *name = col(r, i, 2);
    json_object *pts = json_tokener_parse(col(r, i, 4) ? col(r, i, 4) : "[]");
    struct gone_pr g = {strtoll(col(r, i, 0), NULL, 10)};
    char path[768];
    size_t k, n = json_object_is_type(pts, json_type_array) ? json_object_array_length(pts) : 0;
    int rc;

    snprintf(path, sizeof(path),
             "/apis/autoscaling.x-k8s.io/v1/namespaces/%s/provisioningrequests/%s", ns, name);
    rc = delete_object(s, path, col(r, i, 3), err);
    for (k = 0; rc == GQ_OK && k < n; k++) {
        snprintf(path, sizeof(path), "/api/v1/namespaces/%s/podtemplates/%s", ns,
                 gq__js_str(json_object_array_get_idx(pts, k), "metadata.name"));
        rc = delete_object(s, path, NULL, err);
    }
    json_object_put(pts);
    if (rc == GQ_OK && (rc = gq__store_write(s->st, gone_txn, &g, err)) == GQ_OK)
        gq__sync_log(s, "info", "ProvisioningRequest", ns, name, "deleted", "%s", "");
    return rc;
}

/* ---------------------------------------------------------------- release */

struct rendered {
    char *text;
    size_t len;
};

static int collect(const char *buf, size_t len, void *payload)
{
    struct rendered *r = payload;
    char *grown = realloc(r->text, r->len + len + 1);

    if (!grown)
        return GQ_ENOMEM;
    memcpy(grown + r->len, buf, len);
    r->len += len;
    grown[r->len] = '\0';
    r->text = grown;
    return 0;
}

/* The workload as gpuq renders it (status.gpuq.release is the Job as admitted). */
static json_object *workload_json(struct gq_sync *s, const char *ns, const char *name,
                                  gq_error *err)
{
    struct rendered r = {NULL, 0};
    json_object *out = NULL;

    if (gq_render(s->db, "workload", ns, name, NULL, GQ_FORMAT_JSON, collect, &r, err) == GQ_OK)
        out = json_tokener_parse(r.text ? r.text : "");
    free(r.text);
    return out;
}

/* Labels the Job controller owns (its selector matches them): never removed. */
static bool controller_owned(const char *key)
{
    return strcmp(key, "controller-uid") == 0 || strcmp(key, "job-name") == 0 ||
           strcmp(key, "batch.kubernetes.io/controller-uid") == 0 ||
           strcmp(key, "batch.kubernetes.io/job-name") == 0;
}

/* A map of the template: the wanted keys, and null for every key the Job has beyond them. */
static json_object *map_patch(json_object *want, json_object *have)
{
    json_object *out = json_object_new_object();

    if (json_object_is_type(want, json_type_object)) {
        json_object_object_foreach(want, k, v) {
            json_object_object_add(out, k, json_object_get(v));
        }
    }
    if (json_object_is_type(have, json_type_object)) {
        json_object_object_foreach(have, k2, v2) {
            (void)v2;
            if (!controller_owned(k2) && (!json_object_is_type(want, json_type_object) ||
                                          !json_object_object_get_ex(want, k2, NULL)))
                json_object_object_add(out, k2, NULL);
        }
    }
    return out;
}

static json_object *template_patch(json_object *want, json_object *have)
{
    json_object *t = json_object_new_object(), *meta = json_object_new_object();
    json_object *spec = json_object_new_object(), *tols = gq__js_get(want, "spec.tolerations");

    json_object_object_add(meta, "labels", map_patch(gq__js_get(want, "metadata.labels"),
                                                     gq__js_get(have, "metadata.labels")));
    json_object_object_add(meta, "annotations",
                           map_patch(gq__js_get(want, "metadata.annotations"),
                                     gq__js_get(have, "metadata.annotations")));
    json_object_object_add(spec, "nodeSelector", map_patch(gq__js_get(want, "spec.nodeSelector"),
                                                           gq__js_get(have, "spec.nodeSelector")));
    json_object_object_add(spec, "tolerations", tols ? json_object_get(tols) : NULL);
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
static json_object *release_patch(json_object *wl, const char *rv, json_object *have)
{
    json_object *p = json_object_new_object(), *meta = json_object_new_object();
    json_object *ann = json_object_new_object(), *spec = json_object_new_object();
    json_object *sets = gq__js_get(wl, "status.gpuq.release.podSets");
    json_object *adm = gq__js_get(wl, "status.admission");
    json_object *want = gq__js_get(json_object_array_get_idx(sets, 0), "template");

    json_object_object_add(meta, "resourceVersion", json_object_new_string(rv));
    json_object_object_add(ann, GQ_SYNC_ADMISSION_ANNOTATION,
                           json_object_new_string(json_object_to_json_string_ext(
                               adm, JSON_C_TO_STRING_PLAIN)));
    json_object_object_add(meta, "annotations", ann);
    json_object_object_add(spec, "suspend", json_object_new_boolean(0));
    json_object_object_add(spec, "template", template_patch(want, have));
    json_object_object_add(p, "metadata", meta);
    json_object_object_add(p, "spec", spec);
    return p;
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

    if ((rc = gq__store_kube_seen(st, t->id, t->rv, false, err)) == GQ_OK)
        rc = gq__store_start(st, &w, now, err);
    return rc == GQ_ECONFLICT ? GQ_OK : rc; /* already running: a watch got there first */
}

struct refused {
    int64_t id;
    const char *message;
};

static int refused_txn(struct gq_store *st, void *payload, gq_error *err)
{
    struct refused *f = payload;

    return gq__store_kube_error(st, f->id, f->message, err);
}

static int refuse(struct gq_sync *s, int64_t id, const char *ns, const char *job,
                  const char *message, gq_error *err)
{
    struct refused f = {id, message};

    gq__sync_log(s, "error", "Job", ns, job, "refused", "%s", message);
    return gq__store_write(s->st, refused_txn, &f, err);
}

/* GET the Job: *out the object (200), NULL when it is gone or has another UID. */
static int get_job(struct gq_sync *s, const char *ns, const char *job, const char *uid,
                   json_object **out, gq_error *err)
{
    struct gq_kube_resp r;
    char path[600];
    int rc;

    *out = NULL;
    snprintf(path, sizeof(path), "/apis/batch/v1/namespaces/%s/jobs/%s", ns, job);
    if ((rc = gq__kube_call(s->k, "GET", path, NULL, NULL, &r, err)) != GQ_OK)
        return rc;
    if (r.status == 200) {
        const char *u = gq__js_str(r.json, "metadata.uid");

        if (u && strcmp(u, uid) == 0)
            *out = json_object_get(r.json);
    } else if (r.status != 404) {
        rc = gq__error(err, GQ_EK8S, "GET %s: %ld %s", path, r.status,
                       gq__kube_status_message(&r));
    }
    gq__kube_resp_free(&r);
    return rc;
}

static int patch_job(struct gq_sync *s, const char *ns, const char *job, json_object *patch,
                     struct gq_kube_resp *r, gq_error *err)
{
    char path[600];

    snprintf(path, sizeof(path), "/apis/batch/v1/namespaces/%s/jobs/%s", ns, job);
    return gq__kube_call(s->k, "PATCH", path, "application/merge-patch+json",
                         json_object_to_json_string_ext(patch, JSON_C_TO_STRING_PLAIN), r, err);
}

/*
 * One conditional patch; on 409 the Job is read again and the patch redone
 * against its new resourceVersion (bounded). *job_out: the Job after the
 * patch, NULL when it is gone. build(rv, have) makes the patch.
 */
typedef json_object *(*patch_fn)(void *ctx, const char *rv, json_object *have);

static int patch_guarded(struct gq_sync *s, const char *ns, const char *job, const char *uid,
                         const char *rv, json_object *have, patch_fn build, void *ctx,
                         json_object **job_out, gq_error *err)
{
    json_object *cur = json_object_get(have), *patch;
    struct gq_kube_resp r;
    char *seen = gq__strdup(rv);
    int rc = GQ_OK, attempt;

    *job_out = NULL;
    for (attempt = 0; rc == GQ_OK && attempt <= CONFLICT_RETRIES; attempt++) {
        patch = build(ctx, seen, cur);
        rc = patch_job(s, ns, job, patch, &r, err);
        json_object_put(patch);
        if (rc != GQ_OK)
            break;
        if (r.status == 200) {
            *job_out = json_object_get(r.json);
            gq__kube_resp_free(&r);
            break;
        }
        if (r.status == 404) {
            gq__kube_resp_free(&r);
            break; /* gone: *job_out stays NULL */
        }
        if (r.status != 409) {
            rc = gq__error(err, r.status >= 500 || r.status == 429 ? GQ_EK8S : GQ_EINVALID,
                           "PATCH job %s/%s: %ld %s", ns, job, r.status,
                           gq__kube_status_message(&r));
            gq__kube_resp_free(&r);
            break;
        }
        gq__kube_resp_free(&r);
        json_object_put(cur);
        if ((rc = get_job(s, ns, job, uid, &cur, err)) != GQ_OK || !cur)
            break; /* gone, or another Job now has the name */
        free(seen);
        seen = gq__strdup(gq__js_str(cur, "metadata.resourceVersion"));
    }
    if (rc == GQ_OK && !*job_out && attempt > CONFLICT_RETRIES)
        rc = gq__error(err, GQ_ECONFLICT, "job %s/%s kept changing: %d conflicts", ns, job,
                       CONFLICT_RETRIES + 1);
    json_object_put(cur);
    free(seen);
    return rc;
}

struct release_ctx {
    json_object *wl;
    bool undo;                /* admitted before: remove what that release added */
};

static json_object *build_release(void *ctx, const char *rv, json_object *have)
{
    struct release_ctx *c = ctx;

    return release_patch(c->wl, rv, c->undo && have ? gq__js_get(have, "spec.template") : NULL);
}

/* Columns: id, namespace, name, job name, uid, job rv, evictions. */
static int release(struct gq_sync *s, const struct rows *r, size_t i, gq_error *err)
{
    const char *ns = col(r, i, 1), *job = col(r, i, 3), *uid = col(r, i, 4);
    struct started t = {strtoll(col(r, i, 0), NULL, 10), ns, col(r, i, 2), uid, NULL, false};
    struct release_ctx ctx = {workload_json(s, ns, col(r, i, 2), err),
                              strcmp(col(r, i, 6), "0") != 0};
    json_object *wl = ctx.wl, *have = NULL, *after = NULL;
    int rc = wl ? GQ_OK : GQ_EIO;

    /* Admitted before: the Job's template still carries that release; read it to undo it. */
    if (rc == GQ_OK && ctx.undo)
        rc = get_job(s, ns, job, uid, &have, err);
    if (rc == GQ_OK)
        rc = patch_guarded(s, ns, job, uid, col(r, i, 5) ? col(r, i, 5) : "", have,
                           build_release, &ctx, &after, err);
    if (rc == GQ_OK) {
        gq__crash_point("after-unsuspend");
        t.gone = !after;
        t.rv = gq__js_str(after, "metadata.resourceVersion");
        if ((rc = gq__store_write(s->st, started_txn, &t, err)) == GQ_OK && after)
            gq__sync_log(s, "info", "Job", ns, job, "unsuspended", "admitted");
    } else if (rc == GQ_EINVALID) {
        rc = refuse(s, t.id, ns, job, err->msg, err);
    }
    json_object_put(after);
    json_object_put(have);
    json_object_put(wl);
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

    if (t->gone)
        return gq__store_kube_gone(st, t->id, err);
    return gq__store_kube_seen(st, t->id, t->rv, true, err);
}

/* Columns: id, namespace, name, job name, uid, job rv, evictions. */
static int suspend(struct gq_sync *s, const struct rows *r, size_t i, gq_error *err)
{
    const char *ns = col(r, i, 1), *job = col(r, i, 3), *uid = col(r, i, 4);
    struct suspended t = {strtoll(col(r, i, 0), NULL, 10), NULL, false};
    json_object *after = NULL;
    int rc;

    rc = patch_guarded(s, ns, job, uid, col(r, i, 5) ? col(r, i, 5) : "", NULL, build_suspend,
                       NULL, &after, err);
    if (rc == GQ_EINVALID)
        return refuse(s, t.id, ns, job, err->msg, err);
    if (rc != GQ_OK)
        return rc;
    t.gone = !after;
    t.rv = gq__js_str(after, "metadata.resourceVersion");
    if ((rc = gq__store_write(s->st, suspended_txn, &t, err)) == GQ_OK && after)
        gq__sync_log(s, "info", "Job", ns, job, "suspended",
                     strcmp(col(r, i, 6), "0") ? "evicted" : "it ran without admission");
    json_object_put(after);
    return rc;
}

/* ------------------------------------------------------------ gone Jobs */

struct confirm {
    struct gq_sync *s;
    int64_t id;
    json_object *job;         /* NULL: gone for good */
};

static int confirm_txn(struct gq_store *st, void *payload, gq_error *err)
{
    struct confirm *c = payload;
    bool closed;

    if (c->job)
        return gq__sync_job_observe(c->s, c->job, err);
    return gq__store_kube_close(st, c->id, "cancelled", "JobDeleted", "the Job was deleted",
                                gq__store_now(st), &closed, err);
}

/* Columns: id, namespace, name, job name, uid. */
static int confirm_gone(struct gq_sync *s, const struct rows *r, size_t i, gq_error *err)
{
    const char *ns = col(r, i, 1), *job = col(r, i, 3);
    struct confirm c = {s, strtoll(col(r, i, 0), NULL, 10), NULL};
    int rc;

    if ((rc = get_job(s, ns, job, col(r, i, 4), &c.job, err)) != GQ_OK)
        return rc;
    rc = gq__store_write(s->st, confirm_txn, &c, err);
    if (rc == GQ_OK && !c.job)
        gq__sync_log(s, "info", "Job", ns, job, "deleted", "quota released");
    json_object_put(c.job);
    s->changes++;
    return rc;
}

/* ------------------------------------------------------------- the outbox */

typedef int (*work_fn)(struct gq_sync *s, const struct rows *r, size_t i, gq_error *err);

#define NOT_REFUSED "(w.kube_error_rv IS NULL OR w.kube_error_rv IS NOT w.job_rv)"

/*
 * Do fn for every row. A call the API server failed (GQ_EK8S: unreachable,
 * 5xx after retries, a CRD missing) is logged and ends this kind of work for
 * the turn; the next turn tries again, paced by the loop and the client's
 * rate limit. Database failures stop the loop.
 */
static int each(struct gq_sync *s, const char *sql, const char *param, work_fn fn,
                gq_error *err)
{
    struct rows r;
    size_t i;
    int rc;

    if ((rc = select_rows(s, sql, param, &r, err)) != GQ_OK)
        return rc;
    for (i = 0; rc == GQ_OK && i < r.n && !(s->o.stop && *s->o.stop); i++)
        rc = fn(s, &r, i, err);
    rows_free(&r);
    if (rc == GQ_EK8S || rc == GQ_ENOTFOUND || rc == GQ_ECONFLICT) {
        gq__sync_log(s, "warning", "Sync", NULL, NULL, "retrying", "%s", err ? err->msg : "");
        rc = GQ_OK;
    }
    return rc;
}

int gq__sync_outbox(struct gq_sync *s, gq_error *err)
{
    static const char gone[] =
        "SELECT w.id, w.namespace, w.name, w.job_name, w.uid FROM workloads w "
        "WHERE w.job_gone = 1 ORDER BY w.id";
    static const char to_create[] =
        "SELECT p.id, p.namespace, p.name, p.spec, p.templates, w.uid, w.job_name, w.id "
        "FROM provisioning_requests p JOIN workloads w ON w.id = p.workload_id "
        "WHERE p.kube IS NULL AND p.deleted_at IS NULL AND w.state = 'reserved' "
        "AND w.job_gone = 0 AND " NOT_REFUSED " ORDER BY p.id";
    static const char to_delete[] =
        "SELECT p.id, p.namespace, p.name, p.kube_uid, p.templates FROM provisioning_requests p "
        "WHERE p.deleted_at IS NOT NULL AND (p.kube IS NULL OR p.kube = 'created') ORDER BY p.id";
    static const char to_release[] =
        "SELECT w.id, w.namespace, w.name, w.job_name, w.uid, w.job_rv, w.evictions "
        "FROM workloads w WHERE w.state = 'admitted' AND w.job_gone = 0 AND " NOT_REFUSED
        " ORDER BY w.id";
    /* Evicted Jobs, and with ?1 = 1 (the policy) Jobs that started without admission. */
    static const char to_suspend[] =
        "SELECT w.id, w.namespace, w.name, w.job_name, w.uid, w.job_rv, w.evictions "
        "FROM workloads w WHERE w.state IN ('pending', 'reserved', 'deactivated') "
        "AND w.job_suspended = 0 AND w.job_gone = 0 AND " NOT_REFUSED
        " AND (w.evictions > 0 OR CAST(?1 AS INTEGER) = 1) ORDER BY w.id";
    int rc;

    if ((rc = each(s, gone, NULL, confirm_gone, err)) != GQ_OK ||
        (rc = each(s, to_delete, NULL, delete_request, err)) != GQ_OK ||
        (rc = each(s, to_create, NULL, create_request, err)) != GQ_OK ||
        (rc = each(s, to_release, NULL, release, err)) != GQ_OK)
        return rc;
    return each(s, to_suspend, s->o.suspend_unadmitted ? "1" : "0", suspend, err);
}
