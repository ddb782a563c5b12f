/*
 * run_multikueue.c: MultiKueue on the simulated cluster (issue 17), so that
 * GKE's multi-cluster DWS examples run with no Kubernetes at all. The
 * manager is the database gq_run drives; each of its MultiKueueClusters is
 * a simulated cluster of its own, the gpuq database gq_db_cluster_path
 * names beside it (PATH.clusters/NAME.db: what `gpuq --cluster NAME` reads
 * and writes), with its own queues, admission checks, ProvisioningRequests
 * and node pools. gq_run steps every worker on the manager's virtual clock,
 * inside the manager's step; a worker's database that does not exist is a
 * cluster that is not Active (BadConfig), as a worker whose kubeconfig is
 * missing is in cluster mode.
 *
 * The rules are those of cluster mode (sync_multikueue.c, after Kueue's
 * pkg/controller/admissionchecks/multikueue/workload.go), on databases
 * instead of API servers, with the same rows (migration 0018):
 *
 *  - a workload that reserved quota on the manager with a Pending check of
 *    controller kueue.x-k8s.io/multikueue is copied to every Active worker
 *    of the check's MultiKueueConfig (AllAtOnce): a workload of the same
 *    job (kind, name, namespace, pod sets, priority, duration) submitted
 *    to the worker, labelled with Kueue's origin label and annotated with
 *    the manager job's UID. The copy is recorded before it is submitted,
 *    and a copy found on the worker for a recorded intent is adopted, so a
 *    run killed between the two databases' commits submits no second one;
 *  - the workers are stepped one at a time, in name order, and the first
 *    whose copy is admitted wins: its check goes Ready with Kueue's message,
 *    status.clusterName names it, and the other copies are cancelled before
 *    any other worker is stepped at that moment, so exactly one copy runs;
 *  - the manager's job does not run on the manager (run.c's kubelet leaves
 *    a workload with a clusterName alone): it starts when the winner's copy
 *    starts and finishes when it finishes (Kueue copies the remote status);
 *  - a winner's copy that ends otherwise (cancelled or deactivated on the
 *    worker), or whose worker is not Active for the Configuration's
 *    multiKueue.workerLostTimeout, puts the check in Retry: the engine
 *    evicts and requeues the workload (engine_multikueue.c), and every copy
 *    of a workload that no longer holds quota, or made before its last
 *    eviction, is cancelled.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "admit.h" /* gq__grow */
#include "apply.h"
#include "error.h"
#include "gpuqueue/validate.h"
#include "handle.h"
#include "manifest_load.h"
#include "mk_dispatch.h"
#include "mk_rows.h"
#include "os.h"
#include "run_multikueue.h"
#include "state.h"
#include "store.h"
#include "store_multikueue.h"
#include "util.h"

#define ORIGIN_LABEL "kueue.x-k8s.io/multikueue-origin"
#define ORIGIN_UID_ANNOTATION "kueue.x-k8s.io/multikueue-origin-uid"
#define ORIGIN "multikueue" /* the Configuration's multiKueue.origin by default */
#define PAGE 512 /* workloads read per statement; a step reads every page */

/* One worker: a simulated cluster's database and its runner. */
struct mks_worker {
    char *name;
    gq_db *db;       /* NULL: no such database, not Active */
    void *runner;    /* run.c's, while db is open */
    int active;      /* as stored: 1, 0, -1 before this run looked */
    int64_t inactive_since;
    bool seen;       /* still a MultiKueueCluster at this step */
};

/* A copy a worker refused (its job exists there, its LocalQueue does not): not sent again. */
struct mks_refused {
    int64_t id, evictions;
    char *cluster;
};

struct gq_mks {
    gq_db *db;       /* the manager's */
    const struct gq__mks_ops *ops;
    void *manager;
    struct mks_worker *v;
    size_t n, cap;
    struct mks_refused *refused; /* this run's */
    size_t nrefused, caprefused;
    struct mk_wls wls;           /* the page being acted on */
    struct mk_rounds rounds;     /* Incremental's, by workload; forgotten once it holds no quota */
    char origin[64];             /* the Configuration's multiKueue, read each step */
    bool incremental;
    size_t step;
    int64_t now, lost_ms;
    uint64_t moved;
};

/* ------------------------------------------------------------- paths */

int gq_db_cluster_path(char **out, const char *db_path, const char *cluster, gq_error *err)
{
    gq_error e;
    size_t n;

    *out = NULL;
    if (!db_path || !*db_path || strcmp(db_path, ":memory:") == 0)
        return gq__error(err, GQ_EINVALID, "an in-memory database has no simulated clusters: "
                                           "give --db a file");
    if (!cluster || gq_validate_dns1123_subdomain(cluster, &e) != GQ_OK)
        return gq__error(err, GQ_EINVALID, "invalid cluster name \"%s\": %s",
                         cluster ? cluster : "", cluster ? e.msg : "empty");
    n = strlen(db_path) + strlen(cluster) + sizeof(".clusters/.db");
    if (!(*out = malloc(n)))
        return gq__error(err, GQ_ENOMEM, "out of memory");
    snprintf(*out, n, "%s.clusters/%s.db", db_path, cluster);
    return GQ_OK;
}

/* ------------------------------------------------------------ workers */

static struct mks_worker *worker_find(struct gq_mks *m, const char *name)
{
    size_t i;

    for (i = 0; name && i < m->n; i++)
        if (!strcmp(m->v[i].name, name))
            return &m->v[i];
    return NULL;
}

static void worker_close(struct gq_mks *m, struct mks_worker *w)
{
    if (w->runner)
        m->ops->stop(w->runner);
    w->runner = NULL;
    if (w->db) {
        gq__apply_forget(w->db);
        gq__store_close(w->db->st);
        free(w->db);
    }
    w->db = NULL;
}

/* Open w's database when it exists, and start its runner; why says why not. */
static int worker_open(struct gq_mks *m, struct mks_worker *w, char *why, size_t size,
                       gq_error *err)
{
    struct gq_store_options so = {0, false};
    char *path = NULL;
    gq_error e = {0};
    int rc;

    if ((rc = gq_db_cluster_path(&path, gq__store_path(m->db->st), w->name, &e)) != GQ_OK ||
        access(path, F_OK) != 0) {
        if (rc != GQ_OK)
            snprintf(why, size, "%s", e.msg);
        else
            snprintf(why, size, "no simulated cluster %s (%s): gpuq --cluster %s apply -f "
                     "FILE makes one", w->name, path, w->name);
        free(path);
        return rc == GQ_ENOMEM ? gq__error(err, rc, "%s", e.msg) : GQ_OK;
    }
    if (!(w->db = calloc(1, sizeof(*w->db)))) {
        free(path);
        return gq__error(err, GQ_ENOMEM, "out of memory");
    }
    rc = gq__store_open(&w->db->st, path, &so, &e);
    free(path);
    if (rc != GQ_OK) {
        free(w->db);
        w->db = NULL;
        snprintf(why, size, "%s", e.msg);
        return rc == GQ_ENOMEM ? gq__error(err, rc, "%s", e.msg) : GQ_OK;
    }
    if (!(w->runner = m->ops->start(m->manager, w->db, w->name, err))) {
        worker_close(m, w);
        return err ? err->code : GQ_ERROR;
    }
    return GQ_OK;
}

static int cluster_row(const struct gq_mk_cluster_row *c, void *payload, gq_error *err)
{
    struct gq_mks *m = payload;
    struct mks_worker *w = worker_find(m, c->name);

    if (!w) {
        if (gq__grow(&m->v, &m->cap, m->n, sizeof(*m->v)) < 0)
            return gq__error(err, GQ_ENOMEM, "out of memory");
        w = &m->v[m->n];
        memset(w, 0, sizeof(*w));
        w->active = -1;
        if (!(w->name = gq__strdup(c->name)))
            return gq__error(err, GQ_ENOMEM, "out of memory");
        m->n++;
    }
    if (w->active < 0) { /* as stored when first seen: this run keeps it from then on */
        w->active = c->active;
        w->inactive_since = c->inactive_since;
    }
    w->seen = true;
    return GQ_OK;
}

static int clusters_txn(struct gq_store *st, void *payload, gq_error *err)
{
    return gq__store_mk_clusters(st, cluster_row, payload, err);
}

struct active_write {
    const char *name, *reason, *message;
    bool active;
    int64_t now;
};

static int active_txn(struct gq_store *st, void *payload, gq_error *err)
{
    struct active_write *a = payload;

    return gq__store_mk_set_active(st, a->name, a->active, a->reason, a->message, a->now, err);
}

/*
 * The MultiKueueClusters as they stand: new ones opened, gone ones closed,
 * and each one's Active condition written when it changed.
 */
static int clusters_step(struct gq_mks *m, gq_error *err)
{
    char why[512];
    size_t i;
    int rc;

    for (i = 0; i < m->n; i++)
        m->v[i].seen = false;
    if ((rc = gq__store_read(m->db->st, clusters_txn, m, err)) != GQ_OK)
        return rc;
    for (i = 0; i < m->n; i++) {
        struct mks_worker *w = &m->v[i];
        struct active_write a = {w->name, "Active", "Connected", true, m->now};

        if (!w->seen) {
            worker_close(m, w);
            continue;
        }
        why[0] = '\0';
        if (!w->db && (rc = worker_open(m, w, why, sizeof(why), err)) != GQ_OK)
            return rc;
        if (!w->db) {
            a = (struct active_write){w->name, "BadConfig", why, false, m->now};
            if (w->active != 0)
                w->inactive_since = m->now;
        }
        if (w->active == (int)a.active)
            continue; /* the condition stands as written */
        if ((rc = gq__store_write(m->db->st, active_txn, &a, err)) != GQ_OK)
            return rc;
        w->active = a.active;
    }
    return GQ_OK;
}

/* --------------------------------------------------------------- copies */

struct worker_txn {
    struct gq_mks *m;
    struct mks_worker *w;
    struct mk_wl *wl;
    const struct gq_mk_source *src;
    const char *uid;        /* the copy's, when known; NULL: look for it by its job */
    bool found;
    char *state;            /* the copy's state word, malloc'd */
    char found_uid[GQ_MK_UID_SIZE];
    struct gq_object obj;   /* the copy to submit */
};

static bool state_is(const char *state, enum gq_wl_state s)
{
    return state && strcmp(state, gq__wl_state_name(s)) == 0;
}

/* A key and value added to a map (a label, an annotation) of the copy. */
static int kvs_put(struct gq_kvs *kvs, const char *key, const char *value)
{
    struct gq_kv *v = realloc(kvs->v, (kvs->n + 1) * sizeof(*v));

    if (!v)
        return -1;
    kvs->v = v;
    v[kvs->n].key = gq__strdup(key);
    v[kvs->n].value = gq__strdup(value);
    kvs->n++;
    return v[kvs->n - 1].key && v[kvs->n - 1].value ? 0 : -1;
}

/*
 * The copy of t->wl for the worker, from the manager's canonical Workload:
 * the same job (kind, apiVersion, name) with a UID of the worker's, Kueue's
 * origin label and the manager job's UID, and the manager's duration.
 */
static int copy_build(struct worker_txn *t, gq_error *err)
{
    struct gq_object *obj = &t->obj;
    struct gq_workload *wl = &obj->u.wl;
    const struct gq_mk_source *src = t->src;
    int rc;

    memset(obj, 0, sizeof(*obj));
    rc = gq__manifest_load(NULL, src->spec, strlen(src->spec), "stored spec", NULL, NULL,
                           gq__take_object, obj, err);
    if (rc == GQ_OK && obj->kind != GQ_KIND_WORKLOAD)
        rc = gq__error(err, GQ_EIO, "workload %s/%s: stored spec is not a Workload", t->wl->ns,
                       t->wl->name);
    if (rc != GQ_OK)
        return rc;
    if (strcmp(src->job_kind, "Workload") != 0)
        obj->kind = GQ_KIND_JOB;
    free(wl->job_kind);
    free(wl->job_api_version);
    free(wl->job_name);
    free(wl->name);
    free(obj->meta.name);
    free(obj->meta.uid);
    wl->job_kind = gq__strdup(src->job_kind);
    wl->job_api_version = src->job_api_version ? gq__strdup(src->job_api_version) : NULL;
    wl->job_name = gq__strdup(t->wl->job);
    wl->name = NULL;
    obj->meta.name = gq__strdup(obj->kind == GQ_KIND_JOB ? t->wl->job : t->wl->name);
    obj->meta.uid = NULL; /* the worker's own */
    wl->has_duration = src->duration_ms >= 0;
    wl->duration_ms = src->duration_ms >= 0 ? src->duration_ms : 0;
    if (!wl->job_kind || (src->job_api_version && !wl->job_api_version) || !wl->job_name ||
        !obj->meta.name || kvs_put(&obj->meta.labels, ORIGIN_LABEL, t->m->origin) < 0 ||
        kvs_put(&obj->meta.annotations, ORIGIN_UID_ANNOTATION, t->wl->uid) < 0)
        return gq__error(err, GQ_ENOMEM, "out of memory");
    return GQ_OK;
}

/* The copy's state on the worker: by its UID, or (an intent not answered) by its job. */
static int state_txn(struct gq_store *st, void *payload, gq_error *err)
{
    struct worker_txn *t = payload;

    free(t->state);
    return gq__store_mk_copy_state(st, t->uid, t->src ? t->src->job_kind : NULL, t->wl->ns,
                                   t->wl->job, &t->found, &t->state, t->found_uid, err);
}

/* Submit the copy (as gpuq submit would, on the worker's clock). */
static int submit_txn(struct gq_store *st, void *payload, gq_error *err)
{
    struct worker_txn *t = payload;
    gq_apply_options o = GQ_APPLY_OPTIONS_INIT;
    int rc;

    (void)st;
    gq__object_clear(&t->obj);
    if ((rc = copy_build(t, err)) != GQ_OK)
        return rc;
    o.mode = GQ_MODE_SUBMIT;
    if ((rc = gq__apply_workload(t->w->db, &o, &t->obj, t->m->now, NULL, NULL, err)) == GQ_OK)
        snprintf(t->found_uid, sizeof(t->found_uid), "%s", t->obj.meta.uid);
    return rc;
}

static int cancel_txn(struct gq_store *st, void *payload, gq_error *err)
{
    struct worker_txn *t = payload;
    char *name = NULL, *from = NULL;
    int rc;

    if ((rc = state_txn(st, t, err)) != GQ_OK || !t->found)
        return rc;
    rc = gq__store_cancel_workload(st, t->wl->ns, t->wl->job, t->m->now, &name, &from, err);
    free(name);
    free(from);
    return rc == GQ_ECONFLICT ? GQ_OK : rc; /* it ended on its own meanwhile */
}

struct remote_write {
    enum { R_INTENT, R_CREATED, R_DELETED, R_WON, R_RETRY, R_START, R_FINISH } op;
    const struct mk_wl *wl;
    const char *cluster, *text;
    int64_t now;
};

static int remote_txn(struct gq_store *st, void *payload, gq_error *err)
{
    struct remote_write *r = payload;
    const struct mk_wl *w = r->wl;
    char msg[320];
    int rc;

    switch (r->op) {
    case R_INTENT:
        return gq__store_mk_remote_intent(st, w->id, r->cluster, w->evictions, r->now, err);
    case R_CREATED:
        return gq__store_mk_remote_created(st, w->id, r->cluster, r->text, err);
    case R_DELETED:
        return gq__store_mk_remote_deleted(st, w->id, r->cluster, r->now, err);
    case R_WON:
        return gq__store_mk_won(st, w->id, w->check, r->cluster, r->now, err);
    case R_RETRY:
        return gq__store_mk_retry(st, w->id, w->check, r->text, r->now, err);
    case R_START:
        snprintf(msg, sizeof(msg), "Job running on %s", r->cluster);
        return gq__store_start(st, &(struct gq_started){w->id, w->ns, w->name, w->uid, msg},
                               r->now, err);
    case R_FINISH:
        snprintf(msg, sizeof(msg), "Job finished on %s", r->cluster);
        if ((rc = gq__store_finish(st, w->id, r->now, err)) != GQ_OK)
            return rc;
        return gq__store_event(st, "Workload", w->ns, w->name, w->uid, "Normal", "Finished", msg,
                               gq__wl_state_name(GQ_WL_RUNNING),
                               gq__wl_state_name(GQ_WL_FINISHED), r->now, err);
    }
    return GQ_OK;
}

static int remote(struct gq_mks *m, int op, const struct mk_wl *w, const char *cluster,
                  const char *text, gq_error *err)
{
    struct remote_write r = {op, w, cluster, text, m->now};

    m->moved++;
    return gq__store_write(m->db->st, remote_txn, &r, err);
}

static void worker_txn_clear(struct worker_txn *t)
{
    free(t->state);
    t->state = NULL;
    gq__object_clear(&t->obj);
}

/* t for w's copy on worker k (uid: the copy's, NULL when not known); worker_txn_clear after. */
static void worker_txn_init(struct worker_txn *t, struct gq_mks *m, struct mks_worker *k,
                            struct mk_wl *w, const char *uid)
{
    memset(t, 0, sizeof(*t));
    t->m = m;
    t->w = k;
    t->wl = w;
    t->uid = uid;
}

/* The state word of w's copy on worker k (found false: none); t is cleared by the caller. */
static int copy_state(struct gq_mks *m, struct mks_worker *k, struct mk_wl *w,
                      const struct mk_copy *cp, struct worker_txn *t, gq_error *err)
{
    worker_txn_init(t, m, k, w, cp->uid);
    return k->db ? gq__store_read(k->db->st, state_txn, t, err) : GQ_OK;
}

/* Cancel w's copy on its worker (when the worker is there), and record it gone. */
static int copy_delete(struct gq_mks *m, struct mk_wl *w, struct mk_copy *cp, const char *why,
                       gq_error *err)
{
    struct mks_worker *k = worker_find(m, cp->cluster);
    struct worker_txn t;
    int rc;

    if (!k || !k->db)
        return GQ_OK; /* deleted once its worker is back */
    worker_txn_init(&t, m, k, w, cp->uid);
    rc = cp->uid ? gq__store_write(k->db->st, cancel_txn, &t, err) : GQ_OK;
    if (rc == GQ_OK && t.found && !state_is(t.state, GQ_WL_CANCELLED) &&
        !state_is(t.state, GQ_WL_FINISHED))
        rc = m->ops->event(m->manager, cp->cluster, GQ_EVENT_WHAT_DELETED, w->ns, w->job, why);
    worker_txn_clear(&t);
    return rc == GQ_OK ? remote(m, R_DELETED, w, cp->cluster, NULL, err) : rc;
}

static bool refused(const struct gq_mks *m, const struct mk_wl *w, const char *cluster)
{
    size_t i;

    for (i = 0; i < m->nrefused; i++)
        if (m->refused[i].id == w->id && m->refused[i].evictions == w->evictions &&
            !strcmp(m->refused[i].cluster, cluster))
            return true;
    return false;
}

static int refuse(struct gq_mks *m, const struct mk_wl *w, const char *cluster, gq_error *err)
{
    struct mks_refused *r;

    if (gq__grow(&m->refused, &m->caprefused, m->nrefused, sizeof(*m->refused)) < 0)
        return gq__error(err, GQ_ENOMEM, "out of memory");
    r = &m->refused[m->nrefused];
    r->id = w->id;
    r->evictions = w->evictions;
    if (!(r->cluster = gq__strdup(cluster)))
        return gq__error(err, GQ_ENOMEM, "out of memory");
    m->nrefused++;
    return GQ_OK;
}

struct source_read {
    int64_t id;
    struct gq_mk_source *src;
};

static int source_txn(struct gq_store *st, void *payload, gq_error *err)
{
    struct source_read *r = payload;

    gq__store_mk_source_clear(r->src);
    return gq__store_mk_source(st, r->id, r->src, err);
}

/*
 * Send w's copy to worker k: the intent recorded first, then the copy
 * submitted and its UID recorded. An intent recorded before a crash (cp)
 * adopts the copy the worker already has, if it has one.
 */
static int copy_send(struct gq_mks *m, struct mks_worker *k, struct mk_wl *w,
                     const struct mk_copy *cp, gq_error *err)
{
    struct gq_mk_source src = {NULL, NULL, NULL, -1};
    struct source_read sr = {w->id, &src};
    struct worker_txn t;
    gq_error e = {0};
    char why[sizeof(e.msg) + 64];
    int rc;

    worker_txn_init(&t, m, k, w, NULL);
    t.src = &src;
    if ((rc = gq__store_read(m->db->st, source_txn, &sr, err)) != GQ_OK)
        return rc;
    if (cp) /* recorded, perhaps submitted, not answered: the worker may have it */
        rc = gq__store_read(k->db->st, state_txn, &t, err);
    else
        rc = remote(m, R_INTENT, w, k->name, NULL, err);
    if (rc == GQ_OK && !t.found) {
        gq__crash_point("multikueue-sim-intent"); /* the copy recorded, not submitted */
        rc = gq__store_write(k->db->st, submit_txn, &t, &e);
        if (rc == GQ_EEXISTS || rc == GQ_ENOTFOUND || rc == GQ_EINVALID) {
            snprintf(why, sizeof(why), "by %s: %s", k->name, e.msg);
            if ((rc = refuse(m, w, k->name, err)) == GQ_OK &&
                (rc = m->ops->event(m->manager, NULL, GQ_EVENT_WHAT_REFUSED, w->ns, w->job,
                                    why)) == GQ_OK)
                rc = remote(m, R_DELETED, w, k->name, NULL, err);
            goto out;
        }
        if (rc != GQ_OK) {
            if (err)
                *err = e;
            goto out;
        }
        gq__crash_point("multikueue-sim-submitted"); /* the copy submitted, not recorded */
    }
    if (rc == GQ_OK)
        rc = remote(m, R_CREATED, w, k->name, t.found_uid, err);
out:
    worker_txn_clear(&t);
    gq__store_mk_source_clear(&src);
    return rc;
}

/* The clusters of MultiKueueConfig name (its spec.clusters), decoded from its stored spec. */
struct config_read {
    const char *name;
    struct gq_object obj;
};

static int config_txn(struct gq_store *st, void *payload, gq_error *err)
{
    struct config_read *c = payload;
    char *spec = NULL;
    int rc;

    gq__object_clear(&c->obj);
    memset(&c->obj, 0, sizeof(c->obj));
    if ((rc = gq__store_mk_config_spec(st, c->name, &spec, err)) != GQ_OK || !spec)
        return rc;
    rc = gq__manifest_load(NULL, spec, strlen(spec), "stored spec", NULL, NULL, gq__take_object,
                           &c->obj, err);
    free(spec);
    if (rc == GQ_OK && c->obj.kind != GQ_KIND_MK_CONFIG)
        rc = gq__error(err, GQ_EIO, "stored multikueueconfig \"%s\" is not a MultiKueueConfig",
                       c->name);
    return rc;
}

/*
 * How many of the config's workers (from its start) w goes to now: all
 * (AllAtOnce) or the Incremental round's; a round first seen since this run
 * started counts the workers the copies went to. 0 when out of memory.
 */
static size_t nominated(struct gq_mks *m, struct mk_wl *w, const struct gq_strs *clusters)
{
    struct mk_round *rd;
    size_t i;
    struct mk_copy *cp;

    if (!m->incremental)
        return clusters->n;
    if (!(rd = gq__mk_round_of(&m->rounds, w->id)))
        return 0;
    rd->workers = clusters->n;
    for (i = 0; !rd->r.started && i < clusters->n; i++)
        if ((cp = gq__mk_copy_on(w, clusters->v[i])) && cp->evictions == w->evictions)
            rd->r.nominated = i + 1;
    return gq__mk_nominate(&rd->r, true, m->step, clusters->n, w->evictions, m->now);
}

/*
 * A copy for every Active worker of the check's config that has none and
 * that the dispatcher nominates: all of them (AllAtOnce), or the
 * Incremental round's (the config's first stepSize, more every 5 minutes
 * of virtual time while none admitted it).
 */
static int dispatch(struct gq_mks *m, struct mk_wl *w, gq_error *err)
{
    struct config_read c;
    char sent[512];
    size_t i, len = 0, n = 0;
    int rc;

    memset(&c, 0, sizeof(c));
    c.name = w->config;
    if (!w->config || (rc = gq__store_read(m->db->st, config_txn, &c, err)) != GQ_OK)
        return w->config ? rc : GQ_OK;
    if (c.obj.kind == GQ_KIND_MK_CONFIG)
        n = nominated(m, w, &c.obj.u.mkcfg.clusters);
    sent[0] = '\0';
    for (i = 0; rc == GQ_OK && i < n; i++) {
        const char *name = c.obj.u.mkcfg.clusters.v[i];
        struct mks_worker *k = worker_find(m, name);
        struct mk_copy *cp = gq__mk_copy_on(w, name);

        if (!k || !k->db || (cp && cp->uid) || refused(m, w, name))
            continue;
        if ((rc = copy_send(m, k, w, cp, err)) == GQ_OK && !refused(m, w, name) &&
            len < sizeof(sent))
            len += (size_t)snprintf(sent + len, sizeof(sent) - len, "%s%s", len ? ", " : "",
                                    name);
    }
    if (rc == GQ_OK && len)
        rc = m->ops->event(m->manager, NULL, GQ_EVENT_WHAT_DISPATCHED, w->ns, w->job, sent);
    gq__object_clear(&c.obj);
    return rc;
}

/* ------------------------------------------------------------ the step */


/* Whether a copy in this state was admitted by its worker (and so may win). */
static bool copy_admitted(const char *state)
{
    enum gq_wl_state s;

    return state && gq__wl_state_parse(state, &s) &&
           (gq__wl_is_admitted(s) || s == GQ_WL_FINISHED);
}

/* The winner's copy followed: started, finished, or gone (the check to Retry). */
static int follow(struct gq_mks *m, struct mk_wl *w, struct mk_copy *cp, const char *state,
                  bool found, gq_error *err)
{
    char msg[320];
    int rc = GQ_OK;

    if (!found || state_is(state, GQ_WL_CANCELLED) || state_is(state, GQ_WL_DEACTIVATED)) {
        snprintf(msg, sizeof(msg), "Admitting remote on %s %s", cp->cluster,
                 found ? state : "no longer exists");
        if ((rc = remote(m, R_RETRY, w, NULL, msg, err)) == GQ_OK)
            rc = remote(m, R_DELETED, w, cp->cluster, NULL, err);
        return rc;
    }
    if (state_is(w->state, GQ_WL_ADMITTED) &&
        (state_is(state, GQ_WL_RUNNING) || state_is(state, GQ_WL_FINISHED))) {
        snprintf(msg, sizeof(msg), "on %s", cp->cluster);
        if ((rc = remote(m, R_START, w, cp->cluster, NULL, err)) == GQ_OK)
            rc = m->ops->event(m->manager, NULL, GQ_EVENT_WHAT_STARTED, w->ns, w->job, msg);
        free(w->state);
        if (rc == GQ_OK && !(w->state = gq__strdup(gq__wl_state_name(GQ_WL_RUNNING))))
            rc = gq__error(err, GQ_ENOMEM, "out of memory");
    }
    if (rc == GQ_OK && state_is(w->state, GQ_WL_RUNNING) && state_is(state, GQ_WL_FINISHED)) {
        snprintf(msg, sizeof(msg), "on %s", cp->cluster);
        if ((rc = remote(m, R_FINISH, w, cp->cluster, NULL, err)) == GQ_OK &&
            (rc = m->ops->event(m->manager, NULL, GQ_EVENT_WHAT_FINISHED, w->ns, w->job, msg)) ==
                GQ_OK)
            rc = remote(m, R_DELETED, w, cp->cluster, NULL, err); /* Kueue deletes it then */
    }
    return rc;
}

/*
 * After worker k's turn: each copy there read back. The first admitted one
 * of a workload that has no winner wins, and its other copies are deleted
 * at once, before another worker is stepped; the winner's copy is followed.
 */
static int settle_worker(struct gq_mks *m, struct mks_worker *k, gq_error *err)
{
    struct worker_txn t;
    char why[320];
    size_t i, j;
    int rc = GQ_OK;

    for (i = 0; rc == GQ_OK && i < m->wls.n; i++) {
        struct mk_wl *w = &m->wls.v[i];
        struct mk_copy *cp = gq__mk_copy_on(w, k->name);

        if (!cp || !cp->uid || cp->evictions != w->evictions || !gq__mk_holds_quota(w) ||
            !w->check_state)
            continue;
        if ((rc = copy_state(m, k, w, cp, &t, err)) != GQ_OK)
            break;
        if (w->winner && !strcmp(w->winner, k->name)) {
            rc = follow(m, w, cp, t.state, t.found, err);
        } else if (!w->winner && !strcmp(w->check_state, "Pending") && copy_admitted(t.state)) {
            if ((rc = remote(m, R_WON, w, k->name, NULL, err)) == GQ_OK &&
                !(w->winner = gq__strdup(k->name)))
                rc = gq__error(err, GQ_ENOMEM, "out of memory");
            snprintf(why, sizeof(why), "%s admitted it first", k->name);
            for (j = 0; rc == GQ_OK && j < w->ncopies; j++)
                if (strcmp(w->copies[j].cluster, k->name) != 0)
                    rc = copy_delete(m, w, &w->copies[j], why, err);
        }
        worker_txn_clear(&t);
    }
    return rc;
}

/*
 * Before the workers' turns: copies no longer wanted deleted (the workload
 * no longer holds quota, or was evicted since), the winner's worker judged
 * lost, new copies sent.
 */
static int prepare(struct gq_mks *m, struct mk_wl *w, gq_error *err)
{
    struct mks_worker *k;
    size_t i;
    bool holds = gq__mk_holds_quota(w);
    int rc = GQ_OK;

    for (i = 0; rc == GQ_OK && i < w->ncopies; i++) {
        struct mk_copy *cp = &w->copies[i];

        if (!holds || cp->evictions != w->evictions ||
            (w->winner && strcmp(w->winner, cp->cluster) != 0))
            rc = copy_delete(m, w, cp,
                             holds ? "made before the workload's eviction"
                                   : "the workload no longer holds quota",
                             err);
    }
    if (!holds)
        gq__mk_round_forget(&m->rounds, w->id);
    if (rc != GQ_OK || !holds || !w->check || !w->check_state)
        return rc;
    if (w->winner) {
        k = worker_find(m, w->winner);
        if (!k || (!k->db && k->inactive_since && m->now - k->inactive_since >= m->lost_ms))
            rc = remote(m, R_RETRY, w, NULL, "Admitting remote lost", err);
        return rc;
    }
    return strcmp(w->check_state, "Pending") == 0 ? dispatch(m, w, err) : GQ_OK;
}

/* The Configuration's origin and dispatcher, Kueue's defaults without one. */
static int settings_txn(struct gq_store *st, void *payload, gq_error *err)
{
    struct gq_mks *m = payload;
    struct gq_mk_sim_settings set;
    int rc = gq__store_mk_sim_settings(st, &set, err);

    snprintf(m->origin, sizeof(m->origin), "%s", set.origin && *set.origin ? set.origin : ORIGIN);
    m->incremental = set.dispatcher && !strcmp(set.dispatcher, GQ_MK_DISPATCHER_INCREMENTAL);
    m->step = set.step > 0 ? (size_t)set.step : GQ_MK_STEP;
    if (!set.lost_timeout || gq__parse_duration_ms(set.lost_timeout, &m->lost_ms) != 0)
        m->lost_ms = GQ_MK_LOST_TIMEOUT_MS;
    free(set.lost_timeout);
    free(set.origin);
    free(set.dispatcher);
    return rc;
}

static int wls_txn(struct gq_store *st, void *payload, gq_error *err)
{
    return gq__mk_wls_load(st, payload, PAGE, err);
}

int gq__mks_step(struct gq_mks *m, int64_t now, uint64_t *moved, gq_error *err)
{
    size_t i, k;
    uint64_t wmoved;
    int rc;

    m->now = now;
    m->moved = 0;
    if ((rc = clusters_step(m, err)) != GQ_OK)
        return rc;
    if ((rc = gq__store_read(m->db->st, settings_txn, m, err)) != GQ_OK)
        return rc;
    /*
     * Each page: prepared (and dispatched) against the workers as they stand,
     * then every worker's turn, each followed by reading its copies back.
     * The workers turn once per step whatever the number of pages: a page
     * after the first is only prepared and settled.
     */
    m->wls.after = 0;
    for (k = 0;; k++) {
        if ((rc = gq__store_read(m->db->st, wls_txn, &m->wls, err)) != GQ_OK)
            return rc;
        for (i = 0; rc == GQ_OK && i < m->wls.n; i++)
            rc = prepare(m, &m->wls.v[i], err);
        if (rc == GQ_OK && (rc = gq__store_read(m->db->st, wls_txn, &m->wls, err)) != GQ_OK)
            return rc;
        for (i = 0; rc == GQ_OK && i < m->n; i++) {
            struct mks_worker *w = &m->v[i];

            if (!w->runner)
                continue;
            if (k == 0 && (rc = m->ops->step(w->runner, now, &wmoved, err)) == GQ_OK)
                m->moved += wmoved;
            if (rc == GQ_OK)
                rc = settle_worker(m, w, err);
        }
        if (rc != GQ_OK || m->wls.n < PAGE)
            break;
        m->wls.after = m->wls.v[m->wls.n - 1].id;
    }
    *moved = m->moved;
    return rc;
}

int gq__mks_next(struct gq_mks *m, int64_t *due, gq_error *err)
{
    int64_t t;
    size_t i;
    int rc;

    for (i = 0; i < m->n; i++) {
        if (!m->v[i].runner)
            continue;
        if ((rc = m->ops->next(m->v[i].runner, &t, err)) != GQ_OK)
            return rc;
        if (t > 0 && (!*due || t < *due))
            *due = t;
    }
    for (i = 0; m->incremental && i < m->rounds.n; i++) { /* the next Incremental round */
        const struct mk_round *r = &m->rounds.v[i];

        t = r->r.started_ms + GQ_MK_ROUND_MS + 1; /* a round is over once it lasted longer */
        if (r->r.started && r->r.nominated < r->workers && t > m->now && (!*due || t < *due))
            *due = t;
    }
    for (i = 0; i < m->n; i++) /* a winner's worker gone: judged lost when the timeout ends */
        if (!m->v[i].db && m->v[i].inactive_since > 0) {
            t = m->v[i].inactive_since + m->lost_ms;
            if (t > m->now && (!*due || t < *due))
                *due = t;
        }
    return GQ_OK;
}

struct count {
    int64_t n;
};

static int count_row(const struct gq_mk_cluster_row *c, void *payload, gq_error *err)
{
    (void)c;
    (void)err;
    ((struct count *)payload)->n++;
    return GQ_OK;
}

static int count_txn(struct gq_store *st, void *payload, gq_error *err)
{
    return gq__store_mk_clusters(st, count_row, payload, err);
}

int gq__mks_open(struct gq_mks **out, gq_db *db, const struct gq__mks_ops *ops, void *manager,
                 gq_error *err)
{
    struct count c = {0};
    const char *path = gq__store_path(db->st);
    int rc;

    *out = NULL;
    if (!path || strcmp(path, ":memory:") == 0)
        return GQ_OK;
    if ((rc = gq__store_read(db->st, count_txn, &c, err)) != GQ_OK || !c.n)
        return rc;
    if (!(*out = calloc(1, sizeof(**out))))
        return gq__error(err, GQ_ENOMEM, "out of memory");
    (*out)->db = db;
    (*out)->ops = ops;
    (*out)->manager = manager;
    (*out)->lost_ms = GQ_MK_LOST_TIMEOUT_MS;
    return GQ_OK;
}

void gq__mks_close(struct gq_mks *m)
{
    size_t i;

    if (!m)
        return;
    for (i = 0; i < m->n; i++) {
        worker_close(m, &m->v[i]);
        free(m->v[i].name);
    }
    for (i = 0; i < m->nrefused; i++)
        free(m->refused[i].cluster);
    free(m->refused);
    free(m->rounds.v);
    gq__mk_wls_free(&m->wls);
    free(m->v);
    free(m);
}
