/*
 * sync.c: cluster mode (gq_cluster_run; the shape is in sync.h): the
 * Kubernetes backend of the one loop (loop.c, backend.h). Its observe is
 * the informers' poll and the Lease, its gate the Lease's renew deadline,
 * its act the outbox (sync_outbox.c), which makes each effect with calls
 * to the API server. The ProvisioningRequests gpuq owns are watched here
 * too: their status lands in provisioning_requests.status, where the
 * engine's check sync reads it exactly as it reads the simulated cluster's.
 */
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "engine.h"
#include "error.h"
#include "event.h"
#include "os.h"
#include "store.h"
#include "sync.h"
#include "util.h"

#define POLL_SYNCED_MS 200    /* how long one poll waits for watch events */
#define SCHEDULE_EVERY_MS 1000 /* cycles and the outbox also run this often: backoffs, retries */
#define KUEUE "kueue.x-k8s.io/v1beta1"
#define CYCLES_PER_TURN 64     /* admission cycles between two looks at the cluster */

/* --------------------------------------------------------------- helpers */

json_object *gq__js_get(json_object *o, const char *path)
{
    char key[128];
    const char *dot;
    size_t n;

    while (o && path && *path) {
        dot = strchr(path, '.');
        n = dot ? (size_t)(dot - path) : strlen(path);
        if (n >= sizeof(key) || !json_object_is_type(o, json_type_object))
            return NULL;
        memcpy(key, path, n);
        key[n] = '\0';
        if (!json_object_object_get_ex(o, key, &o))
            return NULL;
        path = dot ? dot + 1 : NULL;
    }
    return o;
}

/* A string at path; for a map with dotted keys (labels), pass the map and the key. */
const char *gq__js_str(json_object *o, const char *path)
{
    json_object *v = NULL;

    if (o && json_object_is_type(o, json_type_object) && json_object_object_get_ex(o, path, &v))
        return json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
    v = gq__js_get(o, path);
    return json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

json_object *gq__js_condition_true(json_object *o, const char *type)
{
    json_object *conds = gq__js_get(o, "status.conditions");
    size_t i, n = json_object_is_type(conds, json_type_array) ? json_object_array_length(conds) : 0;

    for (i = 0; i < n; i++) {
        json_object *c = json_object_array_get_idx(conds, i);
        const char *t = gq__js_str(c, "type"), *st = gq__js_str(c, "status");

        if (t && st && strcmp(t, type) == 0 && strcmp(st, "True") == 0)
            return c;
    }
    return NULL;
}

bool gq__js_condition(json_object *o, const char *type)
{
    return gq__js_condition_true(o, type) != NULL;
}

void gq__cluster_logv(gq_cluster_log_fn fn, void *payload, gq_event *e, const char *fmt,
                      va_list ap)
{
    char msg[512];

    if (!fn)
        return;
    vsnprintf(msg, sizeof(msg), fmt, ap);
    e->at_ms = gq__now_ms();
    e->elapsed_ms = 0;
    e->job_name = NULL;
    e->message = msg[0] ? msg : NULL;
    gq__event_words(e);
    fn(e, payload);
}

/* An event with the words the caller gives; the rest of its members zero. */
static gq_event log_event(gq_event_level level, gq_event_kind kind, const char *ns,
                          const char *name, gq_event_what what_id, const char *what)
{
    gq_event e;

    memset(&e, 0, sizeof(e));
    e.level_id = level;
    e.kind_id = kind;
    e.namespace = ns;
    e.name = name;
    e.what_id = what_id;
    e.what = what;
    return e;
}

void gq__sync_log(struct gq_sync *s, gq_event_level level, gq_event_kind kind, const char *ns,
                  const char *name, const char *what, const char *fmt, ...)
{
    gq_event e = log_event(level, kind, ns, name, GQ_EVENT_WHAT_OTHER, what);
    va_list ap;

    va_start(ap, fmt);
    gq__cluster_logv(s->o.log, s->o.log_payload, &e, fmt, ap);
    va_end(ap);
}

void gq__sync_log_job(struct gq_sync *s, gq_event_level level, const struct gq_integration *row,
                      const char *ns, const char *name, const char *what, const char *fmt, ...)
{
    gq_event e = log_event(level, GQ_EVENT_KIND_JOB, ns, name, GQ_EVENT_WHAT_OTHER, what);
    va_list ap;

    e.kind = row ? row->kind : NULL; /* "JobSet ns/name unsuspended", not "Job" for every kind */
    va_start(ap, fmt);
    gq__cluster_logv(s->o.log, s->o.log_payload, &e, fmt, ap);
    va_end(ap);
}

void gq__sync_log_transition(struct gq_sync *s, gq_event_level level, gq_event_kind kind,
                             const char *ns, const char *name, gq_event_what what,
                             const char *fmt, ...)
{
    gq_event e = log_event(level, kind, ns, name, what, NULL);
    va_list ap;

    va_start(ap, fmt);
    gq__cluster_logv(s->o.log, s->o.log_payload, &e, fmt, ap);
    va_end(ap);
}

/* ------------------------------------------------- ProvisioningRequests */

static int provreq_status(struct gq_sync *s, json_object *pr)
{
    const char *ns = gq__js_str(pr, "metadata.namespace"), *name = gq__js_str(pr, "metadata.name");
    const char *uid = gq__js_str(pr, "metadata.uid");
    json_object *status = gq__js_get(pr, "status");

    if (!ns || !name || !uid || !status)
        return GQ_OK;
    s->changes++;
    return gq__store_kube_provreq_status(s->st, ns, name, uid,
                                         json_object_to_json_string_ext(status,
                                                                        JSON_C_TO_STRING_PLAIN),
                                         &s->callback_err);
}

struct pr_batch {
    struct gq_sync *s;
    json_object *items;
};

static int provreqs_txn(struct gq_store *st, void *payload, gq_error *err)
{
    struct pr_batch *b = payload;
    size_t i, n = json_object_array_length(b->items);
    int rc = GQ_OK;

    (void)st;
    (void)err;
    for (i = 0; rc == GQ_OK && i < n; i++)
        rc = provreq_status(b->s, json_object_array_get_idx(b->items, i));
    return rc;
}

static int provreqs_replace(json_object *items, void *payload)
{
    struct gq_sync_feed *f = payload;
    struct pr_batch b = {f->s, items};

    return gq__store_write(f->s->st, provreqs_txn, &b, &f->s->callback_err);
}

static int provreqs_event(const char *type, json_object *obj, void *payload)
{
    struct gq_sync_feed *f = payload;
    struct pr_batch b = {f->s, json_object_new_array()};
    int rc;

    if (strcmp(type, "DELETED") == 0) {
        json_object_put(b.items);
        return GQ_OK; /* a deletion the outbox made, or someone's: nothing to read */
    }
    json_object_array_add(b.items, json_object_get(obj));
    rc = gq__store_write(f->s->st, provreqs_txn, &b, &f->s->callback_err);
    json_object_put(b.items);
    return rc;
}

/* ------------------------------------------------------------- informers */

struct collection {
    const char *path;
    const char *selector;
    bool optional;     /* a CRD the cluster may not have: its absence does not block */
    const char *api_version, *kind;
};

static const struct collection collections[GQ_INF_COUNT] = {
    [GQ_INF_NAMESPACES] = {"/api/v1/namespaces", NULL, false, "v1", "Namespace"},
    [GQ_INF_JOBS] = {"/apis/batch/v1/jobs", GQ_SYNC_QUEUE_LABEL, false, "batch/v1", "Job"},
    [GQ_INF_PROVREQS] = {"/apis/autoscaling.x-k8s.io/v1/provisioningrequests",
                         GQ_SYNC_MANAGED_LABEL "=true", true, "autoscaling.x-k8s.io/v1",
                         "ProvisioningRequest"},
    [GQ_INF_FLAVORS] = {"/apis/kueue.x-k8s.io/v1beta1/resourceflavors", NULL, true, KUEUE,
                        "ResourceFlavor"},
    [GQ_INF_COHORTS] = {"/apis/kueue.x-k8s.io/v1beta1/cohorts", NULL, true, KUEUE, "Cohort"},
    [GQ_INF_CLUSTERQUEUES] = {"/apis/kueue.x-k8s.io/v1beta1/clusterqueues", NULL, true, KUEUE,
                              "ClusterQueue"},
    [GQ_INF_LOCALQUEUES] = {"/apis/kueue.x-k8s.io/v1beta1/localqueues", NULL, true, KUEUE,
                            "LocalQueue"},
    [GQ_INF_PRIORITIES] = {"/apis/kueue.x-k8s.io/v1beta1/workloadpriorityclasses", NULL, true,
                           KUEUE, "WorkloadPriorityClass"},
    [GQ_INF_CHECKS] = {"/apis/kueue.x-k8s.io/v1beta1/admissionchecks", NULL, true, KUEUE,
                       "AdmissionCheck"},
    [GQ_INF_CONFIGS] = {"/apis/kueue.x-k8s.io/v1beta1/provisioningrequestconfigs", NULL, true,
                        KUEUE, "ProvisioningRequestConfig"},
    /* Optional: gpuqd may not be allowed to read them; jobs are then counted as written. */
    [GQ_INF_LIMITRANGES] = {"/api/v1/limitranges", NULL, true, "v1", "LimitRange"},
    [GQ_INF_RUNTIMECLASSES] = {"/apis/node.k8s.io/v1/runtimeclasses", NULL, true, "node.k8s.io/v1",
                               "RuntimeClass"},
    [GQ_INF_CRDS] = {"/apis/apiextensions.k8s.io/v1/customresourcedefinitions", NULL, true,
                     "apiextensions.k8s.io/v1", "CustomResourceDefinition"},
    [GQ_INF_MK_CLUSTERS] = {"/apis/kueue.x-k8s.io/v1beta1/multikueueclusters", NULL, true, KUEUE,
                            "MultiKueueCluster"},
    [GQ_INF_MK_CONFIGS] = {"/apis/kueue.x-k8s.io/v1beta1/multikueueconfigs", NULL, true, KUEUE,
                           "MultiKueueConfig"},
};

/*
 * A list's items carry no apiVersion or kind for built-in types (the List
 * says them once); the decoders need both, so each item gets them back.
 */
void gq__sync_typed(const struct gq_sync_feed *f, json_object *items)
{
    const struct collection *c = &collections[f->which];
    const char *kind = f->row ? f->row->kind : c->kind;
    char api_version[256];
    size_t i, n = json_object_array_length(items);

    if (f->row && *f->row->group)
        snprintf(api_version, sizeof(api_version), "%s/%s", f->row->group, f->row->versions[0]);
    else
        snprintf(api_version, sizeof(api_version), "%s",
                 f->row ? f->row->versions[0] : c->api_version);
    for (i = 0; i < n; i++) {
        json_object *o = json_object_array_get_idx(items, i);

        if (!json_object_object_get_ex(o, "apiVersion", NULL))
            json_object_object_add(o, "apiVersion", json_object_new_string(api_version));
        if (!json_object_object_get_ex(o, "kind", NULL))
            json_object_object_add(o, "kind", json_object_new_string(kind));
    }
}

const struct gq_integration *gq__sync_row(const struct gq_sync *s, const char *kind)
{
    const struct gq_integration *row =
        kind ? gq__integration_by_kind(kind, s->rows ? &s->rows->set : NULL) : NULL;

    return row ? row : gq__integration_job();
}

void gq__sync_job_path(char *buf, size_t size, const struct gq_integration *row,
                       const char *api_version, const char *ns, const char *name)
{
    const char *slash = api_version ? strchr(api_version, '/') : NULL;
    char gv[256];

    /* The version the job was written in (the server converts), else the row's first. */
    if (slash && slash[1])
        snprintf(gv, sizeof(gv), "%s", api_version);
    else if (*row->group)
        snprintf(gv, sizeof(gv), "%s/%s", row->group, row->versions[0]);
    else
        snprintf(gv, sizeof(gv), "%s", row->versions[0]);
    snprintf(buf, size, "%s/%s%s%s/%s%s%s", *row->group ? "/apis" : "/api", gv, ns ? "/namespaces/" : "",
             ns ? ns : "", row->plural, name ? "/" : "", name ? name : "");
}

/*
 * CustomResourceDefinitions: when one of a kind of job is installed (or
 * changes), that kind's informer, waiting out its CRD's absence, lists at
 * once instead of at its next retry.
 */
static void crd_seen(struct gq_sync *s, json_object *crd)
{
    const char *group = gq__js_str(crd, "spec.group"), *plural = gq__js_str(crd, "spec.names.plural");
    size_t i;

    for (i = 0; group && plural && i < s->nkinds; i++)
        if (!strcmp(s->kfeed[i].row->group, group) && !strcmp(s->kfeed[i].row->plural, plural) &&
            gq__kube_informer_problem(s->kinf[i])) {
            gq__sync_log(s, GQ_EVENT_LEVEL_INFO, GQ_EVENT_KIND_SYNC, NULL, s->kfeed[i].row->kind,
                         "crd-installed", "%s.%s is served: listing", plural, group);
            gq__kube_informer_retry(s->kinf[i]);
        }
}

static int crds_replace(json_object *items, void *payload)
{
    struct gq_sync_feed *f = payload;
    size_t i, n = json_object_array_length(items);

    for (i = 0; i < n; i++)
        crd_seen(f->s, json_object_array_get_idx(items, i));
    return GQ_OK;
}

static int crds_event(const char *type, json_object *obj, void *payload)
{
    struct gq_sync_feed *f = payload;

    if (strcmp(type, "DELETED") != 0)
        crd_seen(f->s, obj);
    return GQ_OK;
}

static const struct gq_kube_informer_ops jobs_ops = {gq__sync_jobs_replace,
                                                     gq__sync_jobs_event};

static int informers_new(struct gq_sync *s, gq_error *err)
{
    static const struct gq_kube_informer_ops prs = {provreqs_replace, provreqs_event};
    static const struct gq_kube_informer_ops crds = {crds_replace, crds_event};
    static const struct gq_kube_informer_ops objects = {gq__sync_objects_replace,
                                                        gq__sync_objects_event};
    int i, rc;

    for (i = 0; i < GQ_INF_COUNT; i++) {
        const struct gq_kube_informer_ops *ops = i == GQ_INF_JOBS      ? &jobs_ops
                                                 : i == GQ_INF_PROVREQS ? &prs
                                                 : i == GQ_INF_CRDS     ? &crds
                                                                        : &objects;

        s->feed[i].s = s;
        s->feed[i].which = (enum gq_sync_informer)i;
        s->feed[i].row = i == GQ_INF_JOBS ? gq__integration_job() : NULL;
        if ((rc = gq__kube_informer_new(&s->inf[i], s->k, collections[i].path,
                                        collections[i].selector, ops, &s->feed[i], err)) != GQ_OK)
            return rc;
    }
    return GQ_OK;
}

/* One informer for a kind of job the cluster may serve (its CRD may be absent). */
static int kind_informer(struct gq_sync *s, const struct gq_integration *row, gq_error *err)
{
    char path[512];
    size_t i = s->nkinds;
    int rc;

    /*
     * A TrainJob is released by Kueue through spec.runtimePatches, not into
     * templates of its own: not watched until that release is written.
     */
    if (row->refused || !row->suspend || row == gq__integration_job() ||
        (row->npodsets && row->podsets[0].hook == GQ_INTEG_HOOK_TRAINJOB))
        return GQ_OK;
    if (i == GQ_SYNC_MAX_KINDS)
        return gq__error(err, GQ_EINVALID, "more than %d kinds of job to watch",
                         GQ_SYNC_MAX_KINDS);
    gq__sync_job_path(path, sizeof(path), row, NULL, NULL, NULL);
    s->kfeed[i].s = s;
    s->kfeed[i].which = GQ_INF_JOBS;
    s->kfeed[i].row = row;
    if ((rc = gq__kube_informer_new(&s->kinf[i], s->k, path, GQ_SYNC_QUEUE_LABEL, &jobs_ops,
                                    &s->kfeed[i], err)) != GQ_OK)
        return rc;
    s->nkinds++;
    return GQ_OK;
}

static int rows_txn(struct gq_store *st, void *payload, gq_error *err)
{
    struct gq_sync *s = payload;

    gq__user_rows_free(&s->gens[s->ngens]); /* a retried transaction starts over */
    return gq__engine_load_integrations(st, &s->gens[s->ngens], err);
}

/* Whether a kind of job is watched already. */
static bool watched(const struct gq_sync *s, const char *kind)
{
    size_t i;

    for (i = 0; i < s->nkinds; i++)
        if (!strcmp(s->kfeed[i].row->kind, kind))
            return true;
    return false;
}

/*
 * The user's Integrations read again (gpuqd's start, and each reload of
 * --config): a new generation of rows, and an informer for each kind not
 * watched yet. A kind already watched keeps its informer and the row it
 * started with; decoding takes the latest.
 */
static int rows_reload(struct gq_sync *s, gq_error *err)
{
    size_t i;
    int rc;

    if (s->ngens == GQ_SYNC_ROW_GENERATIONS) {
        gq__sync_log(s, GQ_EVENT_LEVEL_WARNING, GQ_EVENT_KIND_SYNC, NULL, NULL, "integrations",
                     "Integrations read %d times: restart gpuqd to read them again",
                     GQ_SYNC_ROW_GENERATIONS);
        return GQ_OK;
    }
    if ((rc = gq__store_read(s->st, rows_txn, s, err)) != GQ_OK)
        return rc;
    s->rows = &s->gens[s->ngens++];
    for (i = 0; i < s->rows->set.n; i++)
        if (!watched(s, s->rows->set.v[i]->kind) &&
            (rc = kind_informer(s, s->rows->set.v[i], err)) != GQ_OK)
            return rc;
    return GQ_OK;
}

/*
 * The informers of every kind of the integration table but Job: the
 * built-in rows, then the user's (the Integration objects as gpuqd starts,
 * after --config is applied).
 */
static int kinds_new(struct gq_sync *s, gq_error *err)
{
    const struct gq_integration *row;
    size_t i;
    int rc;

    for (i = 0; (row = gq__integration_builtin(i)) != NULL; i++)
        if ((rc = kind_informer(s, row, err)) != GQ_OK)
            return rc;
    return rows_reload(s, err);
}

/* Every collection listed once; an absent CRD counts as listed (nothing to list). */
static bool all_synced(struct gq_sync *s)
{
    size_t k;
    int i;

    for (i = 0; i < GQ_INF_COUNT; i++)
        if (!gq__kube_informer_synced(s->inf[i]) &&
            !(collections[i].optional && gq__kube_informer_problem(s->inf[i])))
            return false;
    for (k = 0; k < s->nkinds; k++)
        if (!gq__kube_informer_synced(s->kinf[k]) && !gq__kube_informer_problem(s->kinf[k]))
            return false;
    return true;
}

/*
 * Not listed yet: why, in one line, as soon as a collection gpuqd cannot do
 * without has a problem (the API server unreachable, a 403, ...), again
 * when the reason changes, and every UNSYNCED_SAY_MS while it lasts (it was
 * silent until the first list, however long that took).
 */
#define UNSYNCED_SAY_MS 30000

static void say_unsynced(struct gq_sync *s)
{
    const char *why = NULL;
    int64_t now = gq__mono_us() / 1000;
    int i;

    for (i = 0; i < GQ_INF_COUNT; i++)
        if (!collections[i].optional && !gq__kube_informer_synced(s->inf[i]) &&
            (why = gq__kube_informer_problem(s->inf[i])) != NULL)
            break;
    if (!why)
        return;
    if (s->unsynced_said && i == s->unsynced_which && now - s->unsynced_said < UNSYNCED_SAY_MS)
        return;
    s->unsynced_which = i;
    s->unsynced_said = now;
    gq__sync_log(s, GQ_EVENT_LEVEL_WARNING, GQ_EVENT_KIND_SYNC, NULL, NULL, "waiting",
                 "not admitting until the API server answers: %s", why);
}

/* -------------------------------------------------------------- the loop */

static int kube_changed(void *self, const gq_schedule_change *c)
{
    struct gq_sync *s = self;

    if (c->kind != GQ_CHANGE_PENDING)
        gq__sync_log_transition(s, GQ_EVENT_LEVEL_INFO, GQ_EVENT_KIND_WORKLOAD, c->namespace,
                                c->job_name, gq__event_what_of_change(c->kind), "%s%s%s",
                                c->cluster_queue ? c->cluster_queue : "",
                                c->flavors ? " " : (c->message && c->cluster_queue ? ": " : ""),
                                c->flavors ? c->flavors : (c->message ? c->message : ""));
    return 0;
}

static int apply_config(struct gq_sync *s, gq_error *err)
{
    gq_apply_options o = GQ_APPLY_OPTIONS_INIT;
    int rc;

    if (!s->o.config)
        return GQ_OK;
    if ((rc = gq_apply_path(s->db, s->o.config, &o, NULL, NULL, err)) == GQ_OK)
        gq__sync_log(s, GQ_EVENT_LEVEL_INFO, GQ_EVENT_KIND_SYNC, NULL, s->o.config, "configured",
                     "queue objects applied");
    return rc;
}

static bool stopping(const struct gq_sync *s)
{
    return s->o.stop && *s->o.stop;
}

/*
 * The loop's end once leadership is gone: one line saying why. The leader
 * flag goes down first, so that the exit does not release (write) a Lease
 * that may be someone else's by now.
 */
static int lost_lease(struct gq_sync *s, gq_error *err)
{
    const char *holder = s->lease.holder;
    int64_t since = gq__mono_us() / 1000 - s->lease.renewed_mono;

    s->leader = false;
    if (holder && *holder && strcmp(holder, s->identity) != 0)
        return gq__error(err, GQ_ENOTLEADER, "lost the lease %s/%s to %s: stopping all writes",
                         s->lease_ns, s->o.lease_name, holder);
    return gq__error(err, GQ_ENOTLEADER,
                     "lost the lease %s/%s: not renewed for %.1f s (renew deadline %.1f s): "
                     "stopping all writes",
                     s->lease_ns, s->o.lease_name, (double)since / 1000.0,
                     (double)s->o.renew_deadline_ms / 1000.0);
}

/*
 * The gate before admission and the outbox: the Lease is still ours. The
 * poll before may have waited, or the process may have been stopped, past
 * the renew deadline. The kube client's gate checks again before each
 * write (kube_act).
 */
static int kube_gate(void *self, gq_error *err)
{
    struct gq_sync *s = self;

    if (!gq__sync_lease_valid(s, gq__mono_us() / 1000))
        return lost_lease(s, err);
    return GQ_OK;
}

/*
 * After the turn's cycles (CYCLES_PER_TURN at most: between batches the
 * outbox releases what was admitted and the watches are read), the outbox;
 * when the write gate refused a write, the loop ends here whatever the
 * outbox made of that refusal.
 */
static int kube_act(void *self, struct gq__turn *t, gq_error *err)
{
    struct gq_sync *s = self;
    int rc;

    s->more = t->more;
    rc = gq__sync_outbox(s, err);
    if (rc == GQ_OK && !s->deposed)
        rc = gq__sync_multikueue(s, err);
    if (s->deposed)
        return lost_lease(s, err);
    return rc;
}

/*
 * One turn's look at the world: a reload asked for, leadership, the
 * informers (the poll waits for watch events: this backend has no clock
 * for the loop), and whether admission and the outbox have anything to act
 * on: what changed here (a watch event, an admission, an outbox result) or
 * time (backoffs, calls to retry). An idle turn reads nothing.
 */
static int kube_observe(void *self, struct gq__turn *t, gq_error *err)
{
    struct gq_sync *s = self;
    bool was_leader;
    int64_t now;
    int rc;

    if (s->o.reload && *s->o.reload) {
        *s->o.reload = 0;
        if ((rc = apply_config(s, err)) != GQ_OK || (rc = rows_reload(s, err)) != GQ_OK)
            gq__sync_log(s, GQ_EVENT_LEVEL_ERROR, GQ_EVENT_KIND_SYNC, NULL, s->o.config,
                         "reload-failed", "%s", err->msg);
        s->changes++;
    }
    was_leader = s->leader;
    if (s->o.leader_elect && (rc = gq__sync_lease(s, err)) != GQ_OK)
        return rc;
    if (was_leader && !s->leader)
        return lost_lease(s, err);
    s->callback_err.code = 0;
    s->wfpr_read = false; /* a Configuration applied since counts from this turn */
    if ((rc = gq__kube_poll(s->k, s->more ? 0 : s->synced ? POLL_SYNCED_MS : 50, err)) != GQ_OK) {
        if (err && s->callback_err.code)
            *err = s->callback_err;
        return rc;
    }
    if (!s->synced && !all_synced(s))
        say_unsynced(s);
    if (!s->synced && (s->synced = all_synced(s))) {
        size_t k;

        /* A kind of job whose CRD the cluster does not serve: one line each, not an error. */
        for (k = 0; k < s->nkinds; k++)
            if (gq__kube_informer_problem(s->kinf[k]))
                gq__sync_log(s, GQ_EVENT_LEVEL_INFO, GQ_EVENT_KIND_SYNC, NULL,
                             s->kfeed[k].row->plural, "not-watched", "%s",
                             gq__kube_informer_problem(s->kinf[k]));
        gq__sync_log(s, GQ_EVENT_LEVEL_INFO, GQ_EVENT_KIND_SYNC, NULL, NULL, "synced",
                     "first full list of every kind");
        if (s->o.ready)
            __atomic_store_n(s->o.ready, 1, __ATOMIC_RELEASE); /* the HTTP thread reads it */
    }
    if (!s->synced || !s->leader || stopping(s))
        return GQ_OK;
    now = gq__mono_us() / 1000;
    if (!s->more && !s->changes && now - s->last_schedule < SCHEDULE_EVERY_MS)
        return GQ_OK;
    s->changes = 0;
    s->last_schedule = now;
    t->act = true;
    return GQ_OK;
}

static const struct gq__backend_ops kube_ops = {
    kube_observe, kube_gate, kube_changed, kube_act, NULL, NULL,
};

static int loop(struct gq_sync *s, gq_error *err)
{
    struct gq_backend b = {&kube_ops, s, true, CYCLES_PER_TURN, false};

    return gq__loop_run(s->db, &b, NULL, s->o.stop, err);
}

static int sync_open(struct gq_sync *s, gq_db *db, const gq_cluster_options *o, gq_error *err)
{
    struct gq_kube_config_opts co = {o->target.kubeconfig, o->target.context, o->target.ns,
                                     o->target.in_cluster};
    struct gq_kube_config cfg;
    struct gq_kube_limits lim = GQ_KUBE_LIMITS_INIT;
    char host[64] = "gpuqd";
    int rc;

    memset(s, 0, sizeof(*s));
    s->db = db;
    s->st = db->st;
    /* A version 1 caller's struct ends before refusal_timeout_ms. */
    memcpy(&s->o, o, o->version >= 2 ? sizeof(*o) : offsetof(gq_cluster_options, refusal_timeout_ms));
    if (!s->o.lease_name)
        s->o.lease_name = "gpuqd-leader";
    gethostname(host, sizeof(host) - 1);
    snprintf(s->identity, sizeof(s->identity), "%s", o->identity ? o->identity : host);
    if (!o->identity)
        snprintf(s->identity + strlen(s->identity), sizeof(s->identity) - strlen(s->identity),
                 "_%ld", (long)getpid());
    if ((rc = gq__kube_config_load(&cfg, &co, err)) != GQ_OK)
        return rc;
    s->lease_ns = gq__strdup(o->lease_namespace ? o->lease_namespace : cfg.namespace);
    /*
     * The loop is the retry: a call that retried for long inside would hold
     * up the Lease's renewal and the watches. Two quick retries, 10 s at most.
     */
    lim.stop = o->stop;
    lim.max_retries = 2;
    lim.timeout_ms = 10000;
    if ((rc = gq__kube_open(&s->k, &cfg, &lim, err)) != GQ_OK)
        return rc;
    gq__kube_set_identity(s->k, s->identity);
    if (o->leader_elect)
        gq__kube_set_write_gate(s->k, gq__sync_lease_gate, s);
    s->leader = !o->leader_elect;
    return informers_new(s, err);
}

static void sync_close(struct gq_sync *s)
{
    int i;

    if (s->o.leader_elect && s->leader && s->k)
        gq__sync_lease_release(s);
    for (i = 0; i < GQ_INF_COUNT; i++)
        gq__kube_informer_free(s->inf[i]);
    for (i = 0; i < (int)s->nkinds; i++)
        gq__kube_informer_free(s->kinf[i]);
    for (i = 0; i < (int)s->ngens; i++)
        gq__user_rows_free(&s->gens[i]);
    gq__sync_multikueue_free(s);
    gq__kube_close(s->k);
    gq__sync_lease_free(&s->lease);
    free(s->lease_ns);
}

int gq_cluster_run(gq_db *db, const gq_cluster_options *opts, gq_error *err)
{
    struct gq_sync s;
    int rc;

    if (!db || !opts)
        return gq__error(err, GQ_EINVALID, "no database or options");
    if ((rc = gq__version_check(opts->version, GQ_CLUSTER_OPTIONS_VERSION, "gq_cluster_options",
                                err)) != GQ_OK)
        return rc;
    if ((rc = sync_open(&s, db, opts, err)) == GQ_OK && (rc = apply_config(&s, err)) == GQ_OK &&
        (rc = kinds_new(&s, err)) == GQ_OK) {
        gq__sync_log(&s, GQ_EVENT_LEVEL_INFO, GQ_EVENT_KIND_SYNC, NULL, s.identity, "started",
                     "API server %s", gq__kube_config(s.k)->server);
        gq__engine_hold_wal(s.st, true);
        rc = loop(&s, err);
        gq__engine_hold_wal(s.st, false);
    }
    sync_close(&s);
    return rc;
}
