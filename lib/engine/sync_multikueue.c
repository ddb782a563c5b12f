/*
 * sync_multikueue.c: cluster mode's MultiKueue manager (Kueue's
 * pkg/controller/admissionchecks/multikueue: multikueuecluster.go for the
 * clients, workload.go for the dispatch), run after the outbox in each turn
 * that acts (sync.c's kube_act):
 *
 *  - each MultiKueueCluster gets a client of its own, from the kubeconfig
 *    in the Secret its location names in gpuqd's namespace (key
 *    "kubeconfig") or in the file its Path names: the manager reaches a
 *    worker with that worker's credentials only. Its Active condition is
 *    what the last call found: Active, BadConfig (no Secret, no key, a
 *    kubeconfig that does not load) or ClientConnectionFailed (refused,
 *    401/403, unreachable), kept in the database (migration 0018) and
 *    written to the MultiKueueCluster's status on the manager's API server
 *    when it changes, as Kueue's updateStatus does;
 *  - a workload that reserved quota on the manager, with a Pending check of
 *    controller kueue.x-k8s.io/multikueue, is copied to every Active worker
 *    of the check's MultiKueueConfig (AllAtOnce): its job (a Job, or any
 *    kind of the integration table with a suspend switch: kinds_list),
 *    suspended, with spec.managedBy dropped, the origin label
 *    kueue.x-k8s.io/multikueue-origin and the manager Job's UID in
 *    kueue.x-k8s.io/multikueue-origin-uid. The copy is recorded before the
 *    request (multikueue_remotes), so a manager killed after sending finds
 *    it on restart and adopts what the worker has (AlreadyExists with our
 *    origin UID) instead of sending a second;
 *  - the first worker to admit its copy wins (Kueue since #13731 dropped
 *    MultiKueueWaitForWorkloadAdmitted: bestMatchByCondition(Admitted)).
 *    A worker admits a Job by unsuspending it, gpuq and Kueue alike, so the
 *    manager reads that from the copy itself, one LIST per worker per turn
 *    (by the origin label): nothing is asked of the worker's gpuqd, no
 *    extra write on the worker, and it survives either side's restart
 *    because the worker's API server keeps it. The check goes Ready
 *    ("The workload was admitted on ..."), status.clusterName is the
 *    worker, the other copies are deleted (UID precondition); the manager's
 *    Job stays suspended (the outbox does not release a workload with a
 *    clusterName: its spec.managedBy is MultiKueue's) and its status is the
 *    winner's copy's, copied through the status subresource, so the Job
 *    finishes, and its workload with it, when the copy does;
 *  - the Configuration's multiKueue is read each turn: origin (the origin
 *    label's value, "multikueue"), workerLostTimeout (below), gcInterval
 *    (every 1 min, copies with our origin whose manager Job is gone are
 *    deleted: gc_turn) and dispatcherName: AllAtOnce (every worker of the
 *    config) or Incremental (rounds of stepSize workers: mk_dispatch.h);
 *  - a winner's copy gone while its worker answers, or its worker inactive
 *    for longer than the Configuration's multiKueue.workerLostTimeout
 *    (15 min by default), puts the check in Retry (the engine evicts and
 *    requeues: engine_multikueue.c); every copy of a workload that no longer
 *    holds quota, or made before its last eviction, is deleted once its
 *    worker answers, so a lost worker that comes back runs no second copy.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "admit.h" /* gq__grow */
#include "error.h"
#include "integration.h"
#include "manifest_kubeconfig.h"
#include "mk_rows.h"
#include "mk_dispatch.h"
#include "os.h"
#include "state.h"
#include "store.h"
#include "store_multikueue.h"
#include "sync.h"
#include "util.h"

#define ORIGIN_LABEL "kueue.x-k8s.io/multikueue-origin"
#define ORIGIN_UID_ANNOTATION "kueue.x-k8s.io/multikueue-origin-uid"
#define DEFAULT_ORIGIN "multikueue"        /* Kueue's defaults of the Configuration's multiKueue */
#define LOST_TIMEOUT_MS GQ_MK_LOST_TIMEOUT_MS /* workerLostTimeout */
#define GC_INTERVAL_MS (60 * 1000)       /* gcInterval */
#define RECONNECT_MS 3000                /* a cluster that failed is tried again after this */
#define MAX_WORKLOADS 512                /* per turn: the next turn takes the rest */

/* One worker cluster as the manager reaches it. */
struct mk_cluster {
    char *name;
    char *spec;             /* as last connected */
    struct gq_kube *k;      /* NULL: not connected */
    bool seen;              /* still a MultiKueueCluster this turn */
    int active;             /* as stored: 1, 0, -1 unknown */
    char *reason;           /* as stored */
    char *message;          /* as stored */
    char *posted;           /* the Active condition the API server was last found to show */
    int64_t post_mono;      /* monotonic ms before which a failed status write is not retried */
    int64_t inactive_since; /* store ms, as stored */
    int64_t retry_mono;     /* monotonic ms of the next connect attempt */
    json_object *jobs;      /* this turn's copies by kind (kind_key), then by "ns/name";
                               NULL: not answering this turn; a kind absent: not listed */
};

struct mk_queued;

/* The Configuration's multiKueue, read each turn (Kueue's defaults when it has none). */
struct mk_settings {
    int64_t lost_ms;  /* workerLostTimeout */
    int64_t gc_ms;    /* gcInterval; 0: no garbage collection */
    char origin[64];  /* origin: the origin label's value (a label value, <= 63) */
    bool incremental; /* dispatcherName: Incremental, else AllAtOnce */
    size_t step;      /* incrementalDispatcherConfig.stepSize */
};


struct gq_mk {
    struct mk_cluster *v;
    size_t n, cap;
    struct gq_kube *local;  /* the manager's own API server, for this file's calls */
    int64_t after;          /* the next turn's page starts after this workload id */
    json_object *jobs;      /* this turn's manager jobs (queued ones), as a worker's jobs */
    json_object *configs;   /* this turn's MultiKueueConfigs read, by name */
    struct mk_queued *queue; /* writes to make in the turn's next transaction */
    size_t nqueue, capqueue;
    struct mk_settings set;  /* this turn's */
    int64_t gc_mono;         /* monotonic ms of the next garbage collection */
    struct mk_rounds rounds; /* Incremental's, by workload; forgotten once it holds no quota */
};

/* ------------------------------------------------------------ the store */

/* One write of this file; a turn's are queued and made in one transaction (mk_flush). */
struct mk_write {
    enum { W_ACTIVE, W_INTENT, W_CREATED, W_DELETED, W_WON, W_RETRY } op;
    int64_t id, evictions;
    const char *a, *b, *c; /* per op: cluster/name, uid/check, reason/message */
    bool active;
};

/* A write queued: its strings copied. */
struct mk_queued {
    struct mk_write w;
    char *a, *b, *c;
};

static int write_one(struct gq_store *st, const struct mk_write *w, int64_t now, gq_error *err)
{
    switch (w->op) {
    case W_ACTIVE: return gq__store_mk_set_active(st, w->a, w->active, w->b, w->c, now, err);
    case W_INTENT: return gq__store_mk_remote_intent(st, w->id, w->a, w->evictions, now, err);
    case W_CREATED: return gq__store_mk_remote_created(st, w->id, w->a, w->b, err);
    case W_DELETED: return gq__store_mk_remote_deleted(st, w->id, w->a, now, err);
    case W_WON: return gq__store_mk_won(st, w->id, w->b, w->a, now, err);
    case W_RETRY: return gq__store_mk_retry(st, w->id, w->b, w->c, now, err);
    }
    return GQ_OK;
}

static int flush_txn(struct gq_store *st, void *payload, gq_error *err)
{
    struct gq_mk *m = payload;
    int64_t now = gq__store_now(st);
    size_t i;
    int rc = GQ_OK;

    for (i = 0; rc == GQ_OK && i < m->nqueue; i++)
        rc = write_one(st, &m->queue[i].w, now, err);
    return rc;
}

static void queue_clear(struct gq_mk *m)
{
    size_t i;

    for (i = 0; i < m->nqueue; i++) {
        free(m->queue[i].a);
        free(m->queue[i].b);
        free(m->queue[i].c);
    }
    m->nqueue = 0;
}

/* The queued writes, in one transaction: what the turn learnt, before what it does next. */
static int mk_flush(struct gq_sync *s, gq_error *err)
{
    int rc;

    if (!s->mk->nqueue)
        return GQ_OK;
    s->changes++;
    rc = gq__store_write(s->st, flush_txn, s->mk, err);
    queue_clear(s->mk);
    return rc;
}

static int mk_write(struct gq_sync *s, struct mk_write w, gq_error *err)
{
    struct gq_mk *m = s->mk;
    struct mk_queued *q;
    bool oom;

    if (gq__grow(&m->queue, &m->capqueue, m->nqueue, sizeof(*m->queue)) < 0)
        return gq__error(err, GQ_ENOMEM, "out of memory");
    q = &m->queue[m->nqueue++];
    q->w = w;
    q->w.a = q->a = w.a ? gq__strdup(w.a) : NULL;
    q->w.b = q->b = w.b ? gq__strdup(w.b) : NULL;
    q->w.c = q->c = w.c ? gq__strdup(w.c) : NULL;
    oom = (w.a && !q->a) || (w.b && !q->b) || (w.c && !q->c);
    return oom ? gq__error(err, GQ_ENOMEM, "out of memory") : GQ_OK;
}

/* ------------------------------------------------------------- clusters */

static struct mk_cluster *cluster_find(struct gq_mk *m, const char *name)
{
    size_t i;

    for (i = 0; i < m->n; i++)
        if (!strcmp(m->v[i].name, name))
            return &m->v[i];
    return NULL;
}

static void cluster_disconnect(struct mk_cluster *c)
{
    gq__kube_close(c->k);
    c->k = NULL;
    json_object_put(c->jobs);
    c->jobs = NULL;
}

static void cluster_free(struct mk_cluster *c)
{
    cluster_disconnect(c);
    free(c->name);
    free(c->spec);
    free(c->reason);
    free(c->message);
    free(c->posted);
}

static int cluster_row(const struct gq_mk_cluster_row *r, void *payload, gq_error *err)
{
    struct gq_mk *m = payload;
    struct mk_cluster *c = cluster_find(m, r->name);

    if (!c) {
        if (gq__grow(&m->v, &m->cap, m->n, sizeof(*m->v)) < 0)
            return gq__error(err, GQ_ENOMEM, "out of memory");
        c = &m->v[m->n++];
        memset(c, 0, sizeof(*c));
        if (!(c->name = gq__strdup(r->name)))
            return gq__error(err, GQ_ENOMEM, "out of memory");
    }
    if (c->spec && strcmp(c->spec, r->spec) != 0) {
        cluster_disconnect(c); /* its kubeconfig moved: connect again */
        c->retry_mono = 0;
    }
    free(c->reason);
    c->reason = r->reason ? gq__strdup(r->reason) : NULL;
    free(c->message);
    c->message = r->message ? gq__strdup(r->message) : NULL;
    c->seen = true;
    c->active = r->active;
    c->inactive_since = r->inactive_since;
    if (!c->spec || strcmp(c->spec, r->spec) != 0) {
        free(c->spec);
        if (!(c->spec = gq__strdup(r->spec)))
            return gq__error(err, GQ_ENOMEM, "out of memory");
    }
    return GQ_OK;
}

static int clusters_txn(struct gq_store *st, void *payload, gq_error *err)
{
    struct gq_mk *m = payload;
    size_t i, j = 0;
    int rc;

    for (i = 0; i < m->n; i++)
        m->v[i].seen = false;
    if ((rc = gq__store_mk_clusters(st, cluster_row, m, err)) != GQ_OK)
        return rc;
    for (i = 0; i < m->n; i++) { /* forget the deleted ones */
        if (m->v[i].seen)
            m->v[j++] = m->v[i];
        else
            cluster_free(&m->v[i]);
    }
    m->n = j;
    return GQ_OK;
}

/* The Active condition, written when it changes. */
static int set_active(struct gq_sync *s, struct mk_cluster *c, bool active, const char *reason,
                      const char *message, gq_error *err)
{
    if (c->active == (active ? 1 : 0) && c->reason && !strcmp(c->reason, reason) && active)
        return GQ_OK;
    if (c->active != (active ? 1 : 0) || !c->reason || strcmp(c->reason, reason) != 0)
        gq__sync_log(s, active ? GQ_EVENT_LEVEL_INFO : GQ_EVENT_LEVEL_WARNING, GQ_EVENT_KIND_SYNC,
                     NULL, c->name, active ? "cluster-active" : "cluster-inactive", "%s: %s",
                     reason, message);
    else if (!active)
        return GQ_OK; /* the same failure again: the condition stands */
    c->active = active ? 1 : 0;
    free(c->reason);
    c->reason = gq__strdup(reason);
    free(c->message);
    c->message = gq__strdup(message);
    return mk_write(s, (struct mk_write){W_ACTIVE, 0, 0, c->name, reason, message, active}, err);
}

/* ------------------------------------ the Active condition on the API server */

/*
 * Kueue writes the condition to the MultiKueueCluster's status
 * (multikueuecluster.go, updateStatus), so `kubectl get multikueueclusters`
 * shows it; so does the manager here, through its own client (the write
 * gate: only the leader writes). The API server is read (one GET) only when
 * the condition differs from what it was last found to show, and written
 * (a merge patch of status carrying the resourceVersion read, so a
 * concurrent change is a 409 and the next turn reads again) only when its
 * Active condition differs in status, reason or message (Kueue's
 * cmpConditionState); other conditions are kept, and so is
 * lastTransitionTime while the status stays.
 */

static json_object *active_condition(json_object *obj)
{
    json_object *conds = gq__js_get(obj, "status.conditions");
    size_t i, n = conds && json_object_is_type(conds, json_type_array)
                      ? json_object_array_length(conds) : 0;

    for (i = 0; i < n; i++) {
        json_object *x = json_object_array_get_idx(conds, i);
        const char *t = gq__js_str(x, "type");

        if (t && !strcmp(t, "Active"))
            return x;
    }
    return NULL;
}

static bool str_is(const char *a, const char *b)
{
    return a && b && !strcmp(a, b);
}

/* The new Active condition of c, for the object obj read from the API server. */
static json_object *condition_new(struct gq_sync *s, const struct mk_cluster *c, json_object *obj,
                                  json_object *old)
{
    const char *status = c->active ? "True" : "False";
    json_object *cond = json_object_new_object(), *gen = gq__js_get(obj, "metadata.generation");
    char when[GQ_RFC3339_BUFSIZE];
    const char *since = old && str_is(gq__js_str(old, "status"), status)
                            ? gq__js_str(old, "lastTransitionTime") : NULL;

    json_object_object_add(cond, "type", json_object_new_string("Active"));
    json_object_object_add(cond, "status", json_object_new_string(status));
    json_object_object_add(cond, "reason", json_object_new_string(c->reason));
    json_object_object_add(cond, "message", json_object_new_string(c->message ? c->message : ""));
    json_object_object_add(cond, "observedGeneration",
                           json_object_new_int64(gen ? json_object_get_int64(gen) : 0));
    json_object_object_add(cond, "lastTransitionTime",
                           json_object_new_string(since ? since
                                                        : gq__rfc3339(when, gq__store_now(s->st))));
    return cond;
}

/* The merge patch that puts cond in obj's conditions, the others kept, guarded by its RV. */
static json_object *condition_patch(json_object *obj, json_object *cond)
{
    json_object *conds = gq__js_get(obj, "status.conditions"), *v = json_object_new_array(),
                *patch = json_object_new_object(), *meta = json_object_new_object(),
                *status = json_object_new_object();
    size_t i, n = conds && json_object_is_type(conds, json_type_array)
                      ? json_object_array_length(conds) : 0;

    for (i = 0; i < n; i++) {
        json_object *x = json_object_array_get_idx(conds, i);

        if (!str_is(gq__js_str(x, "type"), "Active"))
            json_object_array_add(v, json_object_get(x));
    }
    json_object_array_add(v, cond);
    json_object_object_add(meta, "resourceVersion",
                           json_object_new_string(gq__js_str(obj, "metadata.resourceVersion")
                                                      ? gq__js_str(obj, "metadata.resourceVersion")
                                                      : ""));
    json_object_object_add(status, "conditions", v);
    json_object_object_add(patch, "metadata", meta);
    json_object_object_add(patch, "status", status);
    return patch;
}

/* Write c's condition to obj's status; true once the API server shows it. */
static bool condition_write(struct gq_sync *s, const struct mk_cluster *c, const char *path,
                            json_object *obj)
{
    json_object *old = active_condition(obj), *patch;
    struct gq_kube_resp r = {0};
    char url[320], line[256];
    gq_error e = {0};
    bool ok;

    if (old && str_is(gq__js_str(old, "status"), c->active ? "True" : "False") &&
        str_is(gq__js_str(old, "reason"), c->reason) &&
        str_is(gq__js_str(old, "message"), c->message ? c->message : ""))
        return true;
    patch = condition_patch(obj, condition_new(s, c, obj, old));
    snprintf(url, sizeof(url), "%.300s/status", path);
    ok = gq__kube_call(s->mk->local, "PATCH", url, "application/merge-patch+json",
                       json_object_to_json_string_ext(patch, JSON_C_TO_STRING_PLAIN), &r,
                       &e) == GQ_OK && r.status == 200;
    json_object_put(patch);
    if (!ok && e.code != GQ_ENOTLEADER) {
        if (!e.code)
            gq__kube_status_line(line, sizeof(line), &r);
        gq__sync_log(s, GQ_EVENT_LEVEL_WARNING, GQ_EVENT_KIND_SYNC, NULL, c->name,
                     "status-write-failed", "%s", e.code ? e.msg : line);
    }
    gq__kube_resp_free(&r);
    return ok;
}

/* c's Active condition onto its MultiKueueCluster's status, when the API server lacks it. */
static void status_post(struct gq_sync *s, struct mk_cluster *c, int64_t now)
{
    struct gq_kube_resp r = {0};
    char want[1024], path[320];
    gq_error e = {0};
    bool done = false;

    if (c->active < 0 || !c->reason || now < c->post_mono)
        return;
    snprintf(want, sizeof(want), "%d\n%s\n%s", c->active, c->reason, c->message ? c->message : "");
    if (c->posted && !strcmp(c->posted, want))
        return;
    snprintf(path, sizeof(path), "/apis/kueue.x-k8s.io/v1beta1/multikueueclusters/%s", c->name);
    if (gq__kube_call(s->mk->local, "GET", path, NULL, NULL, &r, &e) == GQ_OK)
        done = r.status == 404 || (r.status == 200 && condition_write(s, c, path, r.json));
    gq__kube_resp_free(&r);
    if (!done) {
        c->post_mono = now + RECONNECT_MS; /* a 409, a refusal, no RBAC: again later */
        return;
    }
    free(c->posted);
    c->posted = gq__strdup(want);
}

/* The kubeconfig text of a Secret in gpuqd's namespace (key "kubeconfig"), or why not. */
static char *secret_kubeconfig(struct gq_sync *s, const char *name, size_t *len, char *why,
                               size_t whylen)
{
    struct gq_kube_resp r = {0};
    char path[512];
    const char *data;
    char *out = NULL;
    size_t bad = 0;
    gq_error e = {0};

    snprintf(path, sizeof(path), "/api/v1/namespaces/%s/secrets/%s", s->lease_ns, name);
    if (gq__kube_call(s->k, "GET", path, NULL, NULL, &r, &e) != GQ_OK)
        snprintf(why, whylen, "reading Secret %.63s/%.253s: %.160s", s->lease_ns, name, e.msg);
    else if (r.status != 200)
        snprintf(why, whylen, "reading Secret %s/%s: %ld %s", s->lease_ns, name, r.status,
                 gq__kube_status_message(&r));
    else if (!(data = gq__js_str(r.json, "data.kubeconfig")))
        snprintf(why, whylen, "Secret %s/%s has no key \"kubeconfig\"", s->lease_ns, name);
    else if (gq__manifest_base64_decode(data, &out, len, &bad) != 0)
        snprintf(why, whylen, "Secret %s/%s: key \"kubeconfig\" is not base64 (byte %zu)",
                 s->lease_ns, name, bad);
    gq__kube_resp_free(&r);
    return out;
}

/* The cluster's client from its kubeconfig; false with why (BadConfig) when it cannot be had. */
static bool cluster_connect(struct gq_sync *s, struct mk_cluster *c, char *why, size_t whylen)
{
    json_object *spec = json_tokener_parse(c->spec);
    const char *type = gq__js_str(spec, "spec.clusterSource.kubeConfig.locationType");
    const char *where = gq__js_str(spec, "spec.clusterSource.kubeConfig.location");
    struct gq_kube_config cfg;
    struct gq_kube_limits lim = GQ_KUBE_LIMITS_INIT;
    char what[320], *text;
    size_t len = 0;
    gq_error e = {0};
    int rc = GQ_EINVALID;

    why[0] = '\0';
    if (!where) {
        snprintf(why, whylen, "no kubeconfig location");
    } else if (type && !strcmp(type, "Path")) {
        struct gq_kube_config_opts o = {where, NULL, NULL, false};

        if ((rc = gq__kube_config_load(&cfg, &o, &e)) != GQ_OK)
            snprintf(why, whylen, "%.480s", e.msg);
    } else if ((text = secret_kubeconfig(s, where, &len, why, whylen))) {
        snprintf(what, sizeof(what), "Secret %s/%s", s->lease_ns, where);
        if ((rc = gq__kube_config_from_text(&cfg, text, len, what, &e)) != GQ_OK)
            snprintf(why, whylen, "%.160s: %.300s", what, e.msg);
        free(text);
    }
    json_object_put(spec);
    if (rc != GQ_OK)
        return false;
    /* The loop is the retry, as for gpuqd's own client; many copies per turn. */
    lim.qps = 500;
    lim.burst = 1000;
    /* A worker that stopped answering holds the loop up this long per turn, at most. */
    lim.max_retries = 0;
    lim.timeout_ms = 5000;
    lim.connect_timeout_ms = 2000;
    lim.stop = s->o.stop;
    if (gq__kube_open(&c->k, &cfg, &lim, &e) != GQ_OK) {
        snprintf(why, whylen, "%s", e.msg);
        return false;
    }
    gq__kube_set_identity(c->k, s->identity);
    if (s->o.leader_elect)
        gq__kube_set_write_gate(c->k, gq__sync_lease_gate, s);
    return true;
}

/* Jobs of a list by "ns/name", or NULL. */
static json_object *by_name(json_object *list)
{
    json_object *items = gq__js_get(list, "items"), *out;
    size_t i, n;

    if (!items || !json_object_is_type(items, json_type_array))
        return NULL;
    out = json_object_new_object();
    n = json_object_array_length(items);
    for (i = 0; out && i < n; i++) {
        json_object *j = json_object_array_get_idx(items, i);
        char key[512];

        snprintf(key, sizeof(key), "%s/%s", gq__js_str(j, "metadata.namespace"),
                 gq__js_str(j, "metadata.name"));
        json_object_object_add(out, key, json_object_get(j));
    }
    return out;
}

/*
 * Kinds of job. Any kind of the integration table with a suspend switch is
 * dispatched the same way (Kueue's MultiKueue adapters for Job, JobSet,
 * the Kubeflow jobs, MPIJob, RayJob, RayCluster, TrainJob differ only in
 * these paths): its collection's path, its suspend switch (the row's), and
 * spec.managedBy beside it (spec.runPolicy.managedBy for the Kubeflow jobs).
 * A turn lists each kind it needs once per cluster: Job always (the
 * worker's health), the others that the page's workloads or the garbage
 * collection need.
 */
static void kind_key(char *buf, size_t size, const struct gq_integration *row)
{
    snprintf(buf, size, "%s.%s", row->plural, row->group);
}

/* The objects of row's kind in a listing by kind, by "ns/name"; NULL: not listed this turn. */
static json_object *listing(json_object *all, const struct gq_integration *row)
{
    char key[320];
    json_object *v;

    kind_key(key, sizeof(key), row);
    return all && json_object_object_get_ex(all, key, &v) ? v : NULL;
}

/* row's objects on k with the (URL-encoded) label selector, into all; false with why. */
static bool list_kind(struct gq_kube *k, const struct gq_integration *row, const char *selector,
                      json_object *all, char *why, size_t whylen)
{
    struct gq_kube_resp r = {0};
    char path[640], key[320];
    json_object *objs = NULL;
    gq_error e = {0};

    gq__sync_job_path(path, sizeof(path) - 128, row, NULL, NULL, NULL);
    snprintf(path + strlen(path), sizeof(path) - strlen(path), "?labelSelector=%s", selector);
    if (gq__kube_call(k, "GET", path, NULL, NULL, &r, &e) != GQ_OK)
        snprintf(why, whylen, "%s", e.msg);
    else if (r.status != 200 || !(objs = by_name(r.json)))
        gq__kube_status_line(why, whylen, &r);
    gq__kube_resp_free(&r);
    if (!objs)
        return false;
    kind_key(key, sizeof(key), row);
    json_object_object_add(all, key, objs);
    return true;
}

/* The URL-encoded selector of our copies: the origin label with the configured origin. */
static void origin_selector(struct gq_sync *s, char *buf, size_t size)
{
    snprintf(buf, size, "%s%%3D%s", ORIGIN_LABEL, s->mk->set.origin);
}

/* The path of w's job (NULL name: its namespace's collection) on any cluster. */
static void wl_path(char *buf, size_t size, const struct mk_wl *w, const char *name)
{
    gq__sync_job_path(buf, size, w->row, NULL, w->ns, name);
}

/*
 * The kinds of rows not listed yet this turn, listed: the manager's queued
 * objects (the copies' source, the mirrors' target, the collector's truth)
 * and the copies on each worker that answers. A kind a worker does not
 * serve stays unlisted there: its copies wait, nothing is deleted.
 */
static void kinds_list(struct gq_sync *s, const struct gq_integration *const *rows, size_t n)
{
    char sel[160], why[512];
    size_t i, j;

    origin_selector(s, sel, sizeof(sel));
    for (i = 0; i < n && !s->deposed; i++) {
        if (!listing(s->mk->jobs, rows[i]) &&
            !list_kind(s->mk->local, rows[i], GQ_SYNC_QUEUE_LABEL, s->mk->jobs, why, sizeof(why)))
            gq__sync_log(s, GQ_EVENT_LEVEL_WARNING, GQ_EVENT_KIND_SYNC, NULL, rows[i]->plural,
                         "list-failed", "%s", why);
        for (j = 0; j < s->mk->n; j++) {
            struct mk_cluster *c = &s->mk->v[j];

            if (c->k && c->jobs && !listing(c->jobs, rows[i]))
                list_kind(c->k, rows[i], sel, c->jobs, why, sizeof(why));
        }
    }
}

/* The copies on the worker, listed by our origin label, into c->jobs; false when it failed. */
static bool cluster_list(struct gq_sync *s, struct mk_cluster *c, char *why, size_t whylen)
{
    char sel[160];

    origin_selector(s, sel, sizeof(sel));
    json_object_put(c->jobs);
    c->jobs = json_object_new_object();
    if (c->jobs && list_kind(c->k, gq__integration_job(), sel, c->jobs, why, whylen))
        return true;
    json_object_put(c->jobs);
    c->jobs = NULL;
    return false;
}

/* Connect (when due) and list each cluster; its Active condition from what that found. */
static int clusters_turn(struct gq_sync *s, gq_error *err)
{
    struct gq_mk *m = s->mk;
    int64_t now = gq__mono_us() / 1000;
    char why[512], msg[560];
    size_t i;
    int rc = GQ_OK;

    for (i = 0; rc == GQ_OK && i < m->n; i++) {
        struct mk_cluster *c = &m->v[i];

        json_object_put(c->jobs);
        c->jobs = NULL;
        if (!c->k && now < c->retry_mono)
            continue;
        if (!c->k && !cluster_connect(s, c, why, sizeof(why))) {
            c->retry_mono = now + RECONNECT_MS;
            snprintf(msg, sizeof(msg), "load client config failed: %s", why); /* Kueue's words */
            rc = set_active(s, c, false, "BadConfig", msg, err);
            continue;
        }
        if (!cluster_list(s, c, why, sizeof(why))) {
            cluster_disconnect(c); /* fresh credentials (a rotated Secret) at the next try */
            c->retry_mono = now + RECONNECT_MS;
            rc = set_active(s, c, false, "ClientConnectionFailed", why, err);
            continue;
        }
        rc = set_active(s, c, true, "Active", "Connected", err);
    }
    for (i = 0; rc == GQ_OK && i < m->n && !s->deposed; i++)
        status_post(s, &m->v[i], now);
    return rc;
}

/* ------------------------------------------------------------ workloads */

static int wls_txn(struct gq_store *st, void *payload, gq_error *err)
{
    return gq__mk_wls_load(st, payload, MAX_WORKLOADS, err);
}

/* A Job's annotation or label read by its full key (dots in it are not a path). */
static const char *meta_value(json_object *job, const char *map, const char *key)
{
    json_object *meta = gq__js_get(job, "metadata"), *m, *v;

    if (!meta || !json_object_object_get_ex(meta, map, &m) || !json_object_object_get_ex(m, key, &v))
        return NULL;
    return json_object_get_string(v);
}

static const char *copy_origin_uid(json_object *job)
{
    return meta_value(job, "annotations", ORIGIN_UID_ANNOTATION);
}

/* The copy of w on c as listed (by its full key), or NULL. */
static json_object *listed_copy(const struct mk_cluster *c, const struct mk_wl *w)
{
    char key[512];
    json_object *j;
    const char *o;

    snprintf(key, sizeof(key), "%s/%s", w->ns, w->job);
    if (!c || !json_object_object_get_ex(listing(c->jobs, w->row), key, &j))
        return NULL;
    o = copy_origin_uid(j);
    return o && !strcmp(o, w->uid) ? j : NULL;
}

static bool admitted_copy(const struct mk_wl *w, json_object *job)
{
    json_object *v = gq__js_get(job, w->row->suspend);

    return v && !json_object_get_boolean(v);
}

/* Delete w's copy on c (UID precondition: a newer copy of the same name stays). */
/* DELETE path on k with uid as precondition (a newer object of the same name stays). */
static int remote_delete(struct gq_kube *k, const char *path, const char *uid,
                         struct gq_kube_resp *r, gq_error *e)
{
    char body[256];

    snprintf(body, sizeof(body),
             "{\"kind\":\"DeleteOptions\",\"apiVersion\":\"v1\",\"propagationPolicy\":"
             "\"Background\",\"preconditions\":{\"uid\":\"%s\"}}", uid);
    return gq__kube_call(k, "DELETE", path, NULL, body, r, e);
}

static int copy_delete(struct gq_sync *s, struct mk_cluster *c, struct mk_wl *w,
                       struct mk_copy *cp, gq_error *err)
{
    struct gq_kube_resp r = {0};
    json_object *job = listed_copy(c, w);
    const char *uid = cp->uid ? cp->uid : job ? gq__js_str(job, "metadata.uid") : NULL;
    char path[512], line[256];
    gq_error e = {0};

    if (!c || !c->k || !listing(c->jobs, w->row))
        return GQ_OK; /* its worker does not answer: again once it does */
    if (uid && (job || cp->uid)) {
        wl_path(path, sizeof(path), w, w->job);
        if (remote_delete(c->k, path, uid, &r, &e) != GQ_OK) {
            gq__sync_log_job(s, GQ_EVENT_LEVEL_WARNING, w->row, w->ns, w->job,
                             "remote-delete-failed", "on %s: %s", c->name, e.msg);
            return GQ_OK;
        }
        if (r.status != 200 && r.status != 202 && r.status != 404 && r.status != 409) {
            gq__kube_status_line(line, sizeof(line), &r);
            gq__sync_log_job(s, GQ_EVENT_LEVEL_WARNING, w->row, w->ns, w->job,
                             "remote-delete-failed", "on %s: %s", c->name, line);
            gq__kube_resp_free(&r);
            return GQ_OK;
        }
        gq__kube_resp_free(&r);
        gq__sync_log_job(s, GQ_EVENT_LEVEL_INFO, w->row, w->ns, w->job, "remote-deleted",
                         "copy on %s", c->name);
    }
    return mk_write(s, (struct mk_write){W_DELETED, w->id, 0, cp->cluster, NULL, NULL, false}, err);
}

/* The manager's Job as the worker gets it: suspended, not managed by MultiKueue, ours. */
/* The object at path's parent in o, made on the way; *last is path's last segment. */
static json_object *path_parent(json_object *o, const char *path, char *last, size_t size)
{
    char seg[128];
    const char *dot;
    json_object *next;

    while (o && (dot = strchr(path, '.'))) {
        snprintf(seg, sizeof(seg), "%.*s", (int)(dot - path), path);
        if (!json_object_object_get_ex(o, seg, &next) || !json_object_is_type(next, json_type_object)) {
            next = json_object_new_object();
            json_object_object_add(o, seg, next);
        }
        o = next;
        path = dot + 1;
    }
    snprintf(last, size, "%s", path);
    return o;
}

/*
 * The manager's job as the worker gets it: suspended at its row's switch,
 * not managed by MultiKueue (managedBy beside the switch dropped), ours
 * (the origin label, the manager object's UID). A Job loses what its API
 * server defaulted for its selector, which the worker's would refuse.
 */
static json_object *copy_body(const struct mk_wl *w, json_object *local, const char *origin)
{
    static const char *const drop_labels[] = {"controller-uid", "batch.kubernetes.io/controller-uid",
                                              "job-name", "batch.kubernetes.io/job-name"};
    json_object *job = json_object_new_object(), *meta = json_object_new_object(), *v, *spec,
                *labels, *ann, *tl, *sw;
    char gv[256], last[128];
    size_t i;

    if (*w->row->group)
        snprintf(gv, sizeof(gv), "%s/%s", w->row->group, w->row->versions[0]);
    else
        snprintf(gv, sizeof(gv), "%s", w->row->versions[0]);
    json_object_object_add(job, "apiVersion", json_object_new_string(
                                                  gq__js_str(local, "apiVersion") ? gq__js_str(local, "apiVersion") : gv));
    json_object_object_add(job, "kind", json_object_new_string(w->row->kind));
    json_object_object_add(meta, "name", json_object_new_string(w->job));
    json_object_object_add(meta, "namespace", json_object_new_string(w->ns));
    labels = NULL;
    if ((v = gq__js_get(local, "metadata.labels")))
        json_object_deep_copy(v, &labels, NULL);
    if (!labels)
        labels = json_object_new_object();
    json_object_object_add(labels, ORIGIN_LABEL, json_object_new_string(origin));
    json_object_object_add(meta, "labels", labels);
    ann = NULL;
    if ((v = gq__js_get(local, "metadata.annotations")))
        json_object_deep_copy(v, &ann, NULL);
    if (!ann)
        ann = json_object_new_object();
    json_object_object_del(ann, "kubectl.kubernetes.io/last-applied-configuration");
    json_object_object_del(ann, GQ_SYNC_ADMISSION_ANNOTATION);
    json_object_object_add(ann, ORIGIN_UID_ANNOTATION, json_object_new_string(w->uid));
    json_object_object_add(meta, "annotations", ann);
    json_object_object_add(job, "metadata", meta);
    spec = NULL;
    if ((v = gq__js_get(local, "spec")))
        json_object_deep_copy(v, &spec, NULL);
    if (!spec)
        spec = json_object_new_object();
    json_object_object_add(job, "spec", spec);
    if ((sw = path_parent(job, w->row->suspend, last, sizeof(last)))) {
        json_object_object_del(sw, "managedBy");
        json_object_object_add(sw, last, json_object_new_boolean(1));
    }
    if (w->row == gq__integration_job()) {
        json_object_object_del(spec, "selector");
        json_object_object_del(spec, "manualSelector");
        if ((tl = gq__js_get(spec, "template.metadata.labels")))
            for (i = 0; i < sizeof(drop_labels) / sizeof(drop_labels[0]); i++)
                json_object_object_del(tl, drop_labels[i]);
    }
    return job;
}

/* The manager's own Job as this turn listed it (its spec, its status), or NULL. */
static json_object *local_job(struct gq_sync *s, const struct mk_wl *w)
{
    char key[512];
    json_object *j;
    const char *uid;

    snprintf(key, sizeof(key), "%s/%s", w->ns, w->job);
    if (!json_object_object_get_ex(listing(s->mk->jobs, w->row), key, &j))
        return NULL;
    uid = gq__js_str(j, "metadata.uid");
    return uid && !strcmp(uid, w->uid) ? j : NULL; /* a job re-created is another workload */
}

/* Send w's copy to c (its intent already recorded); the worker's answer recorded. */
static int copy_send(struct gq_sync *s, struct mk_cluster *c, struct mk_wl *w, json_object *local,
                     gq_error *err)
{
    struct gq_kube_resp r = {0};
    json_object *body = copy_body(w, local, s->mk->set.origin);
    const char *uid = NULL;
    char path[512], line[256];
    gq_error e = {0};
    int rc = GQ_OK;

    wl_path(path, sizeof(path), w, NULL);
    if (gq__kube_call(c->k, "POST", path, NULL,
                      json_object_to_json_string_ext(body, JSON_C_TO_STRING_PLAIN), &r,
                      &e) != GQ_OK) {
        gq__sync_log_job(s, GQ_EVENT_LEVEL_WARNING, w->row, w->ns, w->job, "dispatch-failed",
                         "to %s: %s", c->name, e.msg);
        json_object_put(body);
        return GQ_OK; /* the intent stands: sent again next turn */
    }
    json_object_put(body);
    if (r.status == 201 || r.status == 200) {
        uid = gq__js_str(r.json, "metadata.uid");
    } else if (r.status == 409) {
        /* Sent before a crash, or listed late: ours when it carries our origin UID. */
        gq__kube_resp_free(&r);
        wl_path(path, sizeof(path), w, w->job);
        if (gq__kube_call(c->k, "GET", path, NULL, NULL, &r, &e) == GQ_OK && r.status == 200 &&
            copy_origin_uid(r.json) && !strcmp(copy_origin_uid(r.json), w->uid))
            uid = gq__js_str(r.json, "metadata.uid");
        else
            gq__sync_log_job(s, GQ_EVENT_LEVEL_WARNING, w->row, w->ns, w->job,
                             "dispatch-conflict", "%s already has a %s %s/%s not sent for this one",
                             c->name, w->row->kind, w->ns, w->job);
    } else {
        gq__kube_status_line(line, sizeof(line), &r);
        gq__sync_log_job(s, GQ_EVENT_LEVEL_WARNING, w->row, w->ns, w->job, "dispatch-failed",
                         "to %s: %s", c->name, line);
    }
    gq__crash_point("multikueue-sent"); /* the worker has the copy; its UID not recorded */
    if (uid) {
        gq__sync_log_job(s, GQ_EVENT_LEVEL_INFO, w->row, w->ns, w->job, "dispatched",
                         "copy created on %s", c->name);
        rc = mk_write(s, (struct mk_write){W_CREATED, w->id, 0, c->name, uid, NULL, false}, err);
    }
    gq__kube_resp_free(&r);
    return rc;
}

/* The clusters of MultiKueueConfig name (its spec.clusters), read once a turn; borrowed. */
static json_object *config_clusters(struct gq_sync *s, const char *name, gq_error *err, int *rc)
{
    json_object *cfg;
    char *text = NULL;

    if (!s->mk->configs)
        s->mk->configs = json_object_new_object();
    if (!json_object_object_get_ex(s->mk->configs, name, &cfg)) {
        if ((*rc = gq__store_mk_config_spec(s->st, name, &text, err)) != GQ_OK)
            return NULL;
        cfg = text ? json_tokener_parse(text) : NULL;
        free(text);
        json_object_object_add(s->mk->configs, name, cfg);
    }
    return gq__js_get(cfg, "spec.clusters");
}

/*
 * How many of the config's n workers (from its start) w goes to now: all
 * (AllAtOnce) or the Incremental dispatcher's rounds (mk_dispatch.h). A
 * round first seen since start counts the workers the copies went to.
 */
static size_t nominated(struct gq_sync *s, struct mk_wl *w, json_object *clusters, size_t n)
{
    struct mk_round *rd;
    size_t i, j;

    if (!s->mk->set.incremental)
        return n;
    if (!(rd = gq__mk_round_of(&s->mk->rounds, w->id)))
        return 0; /* out of memory: next turn */
    for (i = 0; !rd->r.started && i < n; i++)
        for (j = 0; j < w->ncopies; j++)
            if (w->copies[j].evictions == w->evictions &&
                !strcmp(w->copies[j].cluster,
                        json_object_get_string(json_object_array_get_idx(clusters, i))))
                rd->r.nominated = i + 1;
    return gq__mk_nominate(&rd->r, true, s->mk->set.step, n, w->evictions,
                           gq__mono_us() / 1000);
}

/*
 * A copy planned for every Active worker the dispatcher nominates (all of
 * the config's with AllAtOnce) that has none (its intent queued, sent once
 * the intents are written: send_planned).
 */
static int dispatch(struct gq_sync *s, struct mk_wl *w, gq_error *err)
{
    json_object *clusters;
    size_t i, n;
    int rc = GQ_OK;

    if (!w->config || !local_job(s, w)) /* the Job gone or re-created: its informer will say */
        return GQ_OK;
    clusters = config_clusters(s, w->config, err, &rc);
    n = clusters ? json_object_array_length(clusters) : 0;
    if (rc == GQ_OK && !(n = nominated(s, w, clusters, n)))
        return GQ_OK;
    for (i = 0; rc == GQ_OK && i < n; i++) {
        const char *name = json_object_get_string(json_object_array_get_idx(clusters, i));
        struct mk_cluster *c = cluster_find(s->mk, name);
        struct mk_copy *cp = gq__mk_copy_on(w, name);
        json_object *had;

        if (!c || !c->k || !listing(c->jobs, w->row) || (cp && cp->uid))
            continue;
        if (cp && (had = listed_copy(c, w))) { /* sent before a crash: the worker has it */
            rc = mk_write(s, (struct mk_write){W_CREATED, w->id, 0, name,
                                               gq__js_str(had, "metadata.uid"), NULL, false}, err);
            continue;
        }
        if (cp) { /* recorded before a crash, never sent */
            cp->send = true;
            continue;
        }
        if ((rc = mk_write(s, (struct mk_write){W_INTENT, w->id, w->evictions, name, NULL, NULL,
                                                false}, err)) != GQ_OK)
            break;
        rc = gq__mk_copy_add(w, name, err);
    }
    return rc;
}

/* The copies dispatch planned, their intents written: each sent, its answer queued. */
static int send_planned(struct gq_sync *s, struct mk_wls *wls, gq_error *err)
{
    size_t i, j;
    int rc = GQ_OK;

    for (i = 0; rc == GQ_OK && i < wls->n && !s->deposed; i++) {
        struct mk_wl *w = &wls->v[i];

        for (j = 0; rc == GQ_OK && j < w->ncopies; j++) {
            struct mk_cluster *c = cluster_find(s->mk, w->copies[j].cluster);

            if (!w->copies[j].send || !c || !c->k || !local_job(s, w))
                continue;
            gq__crash_point("multikueue-intent"); /* the copies recorded, not sent */
            rc = copy_send(s, c, w, local_job(s, w), err);
        }
    }
    return rc;
}

/* The winner's copy's status onto the manager's Job, when they differ. */
static int mirror(struct gq_sync *s, struct mk_wl *w, json_object *copy)
{
    json_object *status = gq__js_get(copy, "status"), *local = local_job(s, w), *patch;
    struct gq_kube_resp r = {0};
    char path[512];
    gq_error e = {0};

    if (!status || !local || !json_object_object_length(status) ||
        json_object_equal(status, gq__js_get(local, "status")))
        return GQ_OK;
    patch = json_object_new_object();
    json_object_object_add(patch, "status", json_object_get(status));
    gq__sync_job_path(path, sizeof(path) - 8, w->row, gq__js_str(local, "apiVersion"), w->ns,
                      w->job);
    strcat(path, "/status");
    if (gq__kube_call(s->mk->local, "PATCH", path, "application/merge-patch+json",
                      json_object_to_json_string_ext(patch, JSON_C_TO_STRING_PLAIN), &r,
                      &e) != GQ_OK || r.status != 200)
        gq__sync_log_job(s, GQ_EVENT_LEVEL_WARNING, w->row, w->ns, w->job, "status-copy-failed",
                         "%s", e.code ? e.msg : gq__kube_status_message(&r));
    gq__kube_resp_free(&r);
    json_object_put(patch);
    return GQ_OK;
}

static int retry(struct gq_sync *s, struct mk_wl *w, const char *message, gq_error *err)
{
    gq__sync_log(s, GQ_EVENT_LEVEL_WARNING, GQ_EVENT_KIND_WORKLOAD, w->ns, w->name,
                 "remote-lost", "%s (%s)", message, w->winner);
    return mk_write(s, (struct mk_write){W_RETRY, w->id, 0, NULL, w->check, message, false}, err);
}

/* The worker that admitted w: its copy mirrored, or the check in Retry once it is lost. */
static int follow(struct gq_sync *s, struct mk_wl *w, gq_error *err)
{
    struct mk_cluster *c = cluster_find(s->mk, w->winner);
    json_object *copy;

    if (c && listing(c->jobs, w->row)) {
        if (!(copy = listed_copy(c, w)))
            return retry(s, w, "Admitting remote no longer exists", err);
        return mirror(s, w, copy);
    }
    if (!c || (c->active == 0 && c->inactive_since &&
               gq__store_now(s->st) - c->inactive_since >= s->mk->set.lost_ms))
        return retry(s, w, "Admitting remote lost", err);
    return GQ_OK;
}

/* The first worker (in the config's order of our copies) whose copy was admitted. */
static const char *first_admitted(struct gq_sync *s, struct mk_wl *w)
{
    size_t i;

    for (i = 0; i < w->ncopies; i++) {
        struct mk_cluster *c = cluster_find(s->mk, w->copies[i].cluster);
        json_object *copy = listed_copy(c, w);

        if (copy && w->copies[i].evictions == w->evictions && admitted_copy(w, copy))
            return w->copies[i].cluster;
    }
    return NULL;
}

static int workload_turn(struct gq_sync *s, struct mk_wl *w, gq_error *err)
{
    bool holds = gq__mk_holds_quota(w);
    const char *won;
    size_t i;
    int rc = GQ_OK;

    /* Copies no longer wanted: not holding quota, made before an eviction, or a loser's. */
    for (i = 0; rc == GQ_OK && i < w->ncopies; i++) {
        struct mk_copy *cp = &w->copies[i];

        if (!holds || cp->evictions != w->evictions || (w->winner && strcmp(w->winner, cp->cluster)))
            rc = copy_delete(s, cluster_find(s->mk, cp->cluster), w, cp, err);
    }
    if (!holds)
        gq__mk_round_forget(&s->mk->rounds, w->id);
    if (rc != GQ_OK || !holds || !w->check || !w->check_state || !w->row->suspend ||
        w->row->refused)
        return rc;
    if (w->winner)
        return follow(s, w, err);
    if (strcmp(w->check_state, "Pending") != 0)
        return GQ_OK;
    if ((won = first_admitted(s, w))) {
        gq__sync_log(s, GQ_EVENT_LEVEL_INFO, GQ_EVENT_KIND_WORKLOAD, w->ns, w->name,
                     "remote-admitted", "admitted on %s", won);
        return mk_write(s, (struct mk_write){W_WON, w->id, 0, won, w->check, NULL, false}, err);
    }
    return dispatch(s, w, err);
}

/* A duration of the settings, or its default when absent or unreadable. */
static int64_t setting_ms(json_object *mk, const char *name, int64_t def)
{
    const char *text = gq__js_str(mk, name);
    int64_t ms;

    return text && gq__parse_duration_ms(text, &ms) == 0 ? ms : def;
}

/* The Configuration's multiKueue (as apply checked it), Kueue's defaults without one. */
static void settings_read(struct gq_sync *s)
{
    struct mk_settings *set = &s->mk->set;
    json_object *mk = NULL, *step;
    const char *v;
    char *text = NULL;
    gq_error e = {0};

    if (gq__store_mk_settings(s->st, &text, &e) == GQ_OK && text)
        mk = json_tokener_parse(text);
    free(text);
    set->lost_ms = setting_ms(mk, "workerLostTimeout", LOST_TIMEOUT_MS);
    set->gc_ms = setting_ms(mk, "gcInterval", GC_INTERVAL_MS);
    v = gq__js_str(mk, "origin");
    snprintf(set->origin, sizeof(set->origin), "%s", v && *v ? v : DEFAULT_ORIGIN);
    v = gq__js_str(mk, "dispatcherName");
    set->incremental = v && !strcmp(v, GQ_MK_DISPATCHER_INCREMENTAL);
    step = gq__js_get(mk, "incrementalDispatcherConfig.stepSize");
    set->step = step && json_object_get_int(step) > 0 ? (size_t)json_object_get_int(step)
                                                       : GQ_MK_STEP;
    json_object_put(mk);
}

/* ------------------------------------------------------- garbage collection */

/*
 * Kueue's runGC (multikueuecluster.go), every gcInterval: on each worker
 * that answers, a copy whose origin label is ours but whose manager object
 * is gone (no Job of its name and of the UID its annotation names, among
 * the manager's queued Jobs listed after the copies were) is deleted, with
 * its UID as precondition. The copies the database knows of are deleted by
 * workload_turn as their workloads finish; this finds those it does not (a
 * manager Job deleted while its copies were being sent, a database lost).
 */
static void gc_kind(struct gq_sync *s, struct mk_cluster *c, const struct gq_integration *row)
{
    json_object *copies = listing(c->jobs, row), *ours = listing(s->mk->jobs, row), *mine;
    struct gq_kube_resp r = {0};
    char path[512];
    gq_error e = {0};

    if (!ours)
        return; /* the manager's own were not listed: nothing is known to be gone */
    json_object_object_foreach(copies, key, copy)
    {
        const char *origin = copy_origin_uid(copy), *uid = gq__js_str(copy, "metadata.uid"),
                   *ns = gq__js_str(copy, "metadata.namespace"),
                   *name = gq__js_str(copy, "metadata.name");

        if (!uid || !ns || !name || (json_object_object_get_ex(ours, key, &mine) &&
                                     (!origin || str_is(origin, gq__js_str(mine, "metadata.uid")))))
            continue; /* its manager object is there (by name alone if not made by gpuq) */
        gq__sync_job_path(path, sizeof(path), row, NULL, ns, name);
        if (remote_delete(c->k, path, uid, &r, &e) == GQ_OK && (r.status == 200 || r.status == 202))
            gq__sync_log_job(s, GQ_EVENT_LEVEL_INFO, row, ns, name, "remote-collected",
                             "orphan copy on %s deleted", c->name);
        gq__kube_resp_free(&r);
    }
}

/* Job and every kind the manager watches (its CRD served) that has a suspend switch. */
static size_t gc_rows(struct gq_sync *s, const struct gq_integration **rows, size_t max)
{
    size_t k, n = 0;

    rows[n++] = gq__integration_job();
    for (k = 0; k < s->nkinds && n < max; k++)
        if (s->kfeed[k].row->suspend && !s->kfeed[k].row->refused &&
            !gq__kube_informer_problem(s->kinf[k]))
            rows[n++] = s->kfeed[k].row;
    return n;
}

static void gc_turn(struct gq_sync *s)
{
    const struct gq_integration *rows[GQ_SYNC_MAX_KINDS + 1];
    int64_t now = gq__mono_us() / 1000;
    size_t i, k, n;

    if (!s->mk->set.gc_ms || now < s->mk->gc_mono || !s->mk->gc_mono) {
        if (!s->mk->gc_mono || !s->mk->set.gc_ms)
            s->mk->gc_mono = now + s->mk->set.gc_ms; /* the first after one interval, as Kueue */
        return;
    }
    s->mk->gc_mono = now + s->mk->set.gc_ms;
    n = gc_rows(s, rows, sizeof(rows) / sizeof(rows[0]));
    kinds_list(s, rows, n);
    for (i = 0; i < s->mk->n && !s->deposed; i++)
        for (k = 0; s->mk->v[i].k && s->mk->v[i].jobs && k < n; k++)
            gc_kind(s, &s->mk->v[i], rows[k]);
}

/* The kinds of this turn's workloads (each once), their rows set; how many. */
static size_t wls_rows(struct gq_sync *s, struct mk_wls *wls, const struct gq_integration **rows,
                       size_t max)
{
    size_t i, k, n = 0;

    for (i = 0; i < wls->n; i++) {
        wls->v[i].row = gq__sync_row(s, wls->v[i].kind);
        for (k = 0; k < n && rows[k] != wls->v[i].row; k++)
            ;
        if (k == n && n < max && wls->v[i].row->suspend && !wls->v[i].row->refused)
            rows[n++] = wls->v[i].row;
    }
    return n;
}

/* A client of gpuqd's own API server for this file's calls: its own rate, not the loop's. */
static int local_open(struct gq_sync *s, gq_error *err)
{
    struct gq_kube_config_opts co = {s->o.target.kubeconfig, s->o.target.context, s->o.target.ns,
                                     s->o.target.in_cluster};
    struct gq_kube_limits lim = GQ_KUBE_LIMITS_INIT;
    struct gq_kube_config cfg;
    int rc;

    if ((rc = gq__kube_config_load(&cfg, &co, err)) != GQ_OK)
        return rc;
    lim.qps = 500;
    lim.burst = 1000;
    lim.max_retries = 2;
    lim.timeout_ms = 10000;
    lim.stop = s->o.stop;
    if ((rc = gq__kube_open(&s->mk->local, &cfg, &lim, err)) != GQ_OK)
        return rc;
    gq__kube_set_identity(s->mk->local, s->identity);
    if (s->o.leader_elect)
        gq__kube_set_write_gate(s->mk->local, gq__sync_lease_gate, s);
    return GQ_OK;
}

int gq__sync_multikueue(struct gq_sync *s, gq_error *err)
{
    const struct gq_integration *rows[GQ_SYNC_MAX_KINDS + 1];
    struct mk_wls wls = {NULL, 0, 0, 0};
    size_t i;
    int rc;

    if (!s->mk && !(s->mk = calloc(1, sizeof(*s->mk))))
        return gq__error(err, GQ_ENOMEM, "out of memory");
    if ((rc = gq__store_read(s->st, clusters_txn, s->mk, err)) != GQ_OK || !s->mk->n)
        return rc;
    if (!s->mk->local && (rc = local_open(s, err)) != GQ_OK)
        return rc;
    json_object_put(s->mk->configs);
    s->mk->configs = NULL;
    json_object_put(s->mk->jobs);
    if (!(s->mk->jobs = json_object_new_object()))
        return gq__error(err, GQ_ENOMEM, "out of memory");
    settings_read(s);
    wls.after = s->mk->after;
    if ((rc = clusters_turn(s, err)) != GQ_OK || (rc = mk_flush(s, err)) != GQ_OK ||
        (rc = gq__store_read(s->st, wls_txn, &wls, err)) != GQ_OK) {
        gq__mk_wls_free(&wls);
        return rc;
    }
    /* A full page: the next turn takes the one after it; else it starts again. */
    s->mk->after = wls.n == MAX_WORKLOADS ? wls.v[wls.n - 1].id : 0;
    if (wls.n)
        kinds_list(s, rows, wls_rows(s, &wls, rows, sizeof(rows) / sizeof(rows[0])));
    for (i = 0; rc == GQ_OK && i < wls.n && !s->deposed; i++)
        rc = workload_turn(s, &wls.v[i], err);
    /* What the turn learnt and the copies it will send, recorded before any is sent. */
    if (rc == GQ_OK && (rc = mk_flush(s, err)) == GQ_OK &&
        (rc = send_planned(s, &wls, err)) == GQ_OK)
        rc = mk_flush(s, err);
    if (rc == GQ_OK && !s->deposed)
        gc_turn(s);
    queue_clear(s->mk);
    gq__mk_wls_free(&wls);
    return rc;
}

void gq__sync_multikueue_free(struct gq_sync *s)
{
    size_t i;

    if (!s->mk)
        return;
    for (i = 0; i < s->mk->n; i++)
        cluster_free(&s->mk->v[i]);
    free(s->mk->v);
    queue_clear(s->mk);
    free(s->mk->queue);
    json_object_put(s->mk->jobs);
    json_object_put(s->mk->configs);
    free(s->mk->rounds.v);
    gq__kube_close(s->mk->local);
    free(s->mk);
    s->mk = NULL;
}
