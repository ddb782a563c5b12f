/*
 * sim_provisioner.c: the simulated cluster (sim.c) as the autoscaler of an
 * API server (gq_sim_provisioner_run; gpuqd --sim-provisioner), so that the
 * DWS flow can be tried on any cluster, GPUs or not.
 *
 * Two informers feed a table kept in memory: every ProvisioningRequest
 * (autoscaling.x-k8s.io/v1, all namespaces, any labels), and the Jobs
 * labelled kueue.x-k8s.io/queue-name. Consumption is approximated: a request
 * is consumed once a Job whose pod template carries
 * autoscaling.x-k8s.io/consume-provisioning-request naming it (in its own
 * namespace) is unsuspended; GKE counts pods scheduled on the nodes, but
 * that needs a scheduler this cluster may not have. The callbacks only
 * record (libcurl forbids a call from inside another's callback). It runs
 * as a backend of the one loop (loop.c, backend.h): observe is the poll,
 * act the rest of each turn, in this order:
 *   1. requests deleted in the cluster give their nodes back;
 *   2. new requests go to the simulator, their PodTemplates read with one
 *      GET each; a class the simulator does not model is left alone
 *      (logged once), and so is a request already terminal;
 *   3. consumed requests are marked, and the simulator moves to now;
 *   4. each status that changed is written through the status subresource,
 *      one merge patch carrying metadata.resourceVersion (409: read again
 *      and retry, bounded). A call that fails for one request is logged once
 *      and tried again RETRY_MS later; only running out of memory stops.
 *
 * Time: the simulator runs on virtual time t0 + (wall - t0) x speed, and
 * the times written (the ETA in a message too) are mapped back to the
 * wall clock; at speed 1 (the default) the two are the same.
 *
 * The simulator lives in memory only. After a restart each request is
 * rebuilt from what its status says: Provisioned holds its nodes again from
 * that condition's lastTransitionTime; Failed, BookingExpired or
 * CapacityRevoked is left as it is; anything else waits again from its
 * creationTimestamp. NodePools are read once, at start.
 *
 * Sizes: a dev cluster's handful to a few hundred requests; scans are linear.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "admit.h" /* gq__grow */
#include "backend.h"
#include "engine.h"
#include "error.h"
#include "gpuqueue/cluster.h"
#include "handle.h"
#include "kube.h"
#include "manifest_load.h"
#include "os.h"
#include "sim.h"
#include "store.h"
#include "sync.h" /* gq__js_get, gq__js_str, gq__js_condition */
#include "util.h"

#define POLL_MS 200   /* how long one poll waits for watch events */
#define RETRY_MS 2000 /* a failed call for one request waits this long */
#define CONFLICT_RETRIES 3
#define ADVANCE_ROUNDS 4 /* capacity one request frees may serve the next at once */
#define PR_API "/apis/autoscaling.x-k8s.io/v1"
#define CONSUME_ANNOTATION "autoscaling.x-k8s.io/consume-provisioning-request"
#define CHECK_CAPACITY "check-capacity.autoscaling.x-k8s.io"
#define JSON_FLAGS JSON_C_TO_STRING_PLAIN

static const char *const modelled[] = {"queued-provisioning.gke.io",
                                       "best-effort-atomic-scale-up.autoscaling.x-k8s.io",
                                       CHECK_CAPACITY};

/* What each state of a request (enum gq_sim_state) is as a transition. */
static const gq_event_what state_whats[] = {GQ_EVENT_WHAT_ACCEPTED, GQ_EVENT_WHAT_PROVISIONED,
                                            GQ_EVENT_WHAT_FAILED, GQ_EVENT_WHAT_BOOKING_EXPIRED,
                                            GQ_EVENT_WHAT_CAPACITY_REVOKED};

enum preq_state {
    PREQ_NEW,       /* seen, not yet given to the simulator */
    PREQ_SIMULATED, /* in the simulator, at index sim */
    PREQ_LEFT,      /* not ours: a class not modelled, or terminal at start */
};

/* One ProvisioningRequest in the cluster, keyed by UID. */
struct preq {
    char *uid, *ns, *name; /* owned */
    json_object *obj;      /* the latest object seen; a reference held */
    enum preq_state state;
    int sim;          /* index in the simulator; -1 before */
    bool listed;      /* in the list being replaced */
    bool gone;        /* deleted in the cluster: swept at the next turn */
    char *written;    /* the status last written, or found already there; owned */
    int64_t retry_ms; /* monotonic ms before which a failed call is not retried */
    bool warned;      /* the current problem has been logged */
};

/* An unsuspended Job whose pods consume request pr in namespace ns. */
struct use {
    char *uid, *ns, *job, *pr; /* owned */
};

/* The whole provisioner; one thread. */
struct prov {
    struct gq_kube *k;
    gq_sim_provisioner_options o;
    struct gq_kube_informer *prs, *jobs;
    struct gq_sim sim;
    int64_t t0;     /* wall ms at start: where virtual time begins */
    struct preq *v; /* n requests */
    size_t n, cap;
    struct use *uses; /* nuses uses */
    size_t nuses, capuses;
    bool synced;         /* both informers have listed once */
    bool problem_logged; /* why they have not, said once */
};

static void plog(struct prov *p, gq_event_level level, const char *ns, const char *name,
                 const char *what, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static void plog_transition(struct prov *p, gq_event_level level, const char *ns,
                            const char *name, gq_event_what what, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

/* One log line about a ProvisioningRequest (or, without a name, the provisioner). */
static void plogv(struct prov *p, gq_event_level level, const char *ns, const char *name,
                  gq_event_what what_id, const char *what, const char *fmt, va_list ap)
{
    gq_event e;

    memset(&e, 0, sizeof(e));
    e.level_id = level;
    e.kind_id = name ? GQ_EVENT_KIND_PROVISIONING_REQUEST : GQ_EVENT_KIND_SIM_PROVISIONER;
    e.namespace = ns;
    e.name = name;
    e.what_id = what_id;
    e.what = what;
    gq__cluster_logv(p->o.log, p->o.log_payload, &e, fmt, ap);
}

/* A verb of the log (submitted, deleted, synced, ...). */
static void plog(struct prov *p, gq_event_level level, const char *ns, const char *name,
                 const char *what, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    plogv(p, level, ns, name, GQ_EVENT_WHAT_OTHER, what, fmt, ap);
    va_end(ap);
}

/* A request's new state, as the transition it is. */
static void plog_transition(struct prov *p, gq_event_level level, const char *ns,
                            const char *name, gq_event_what what, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    plogv(p, level, ns, name, what, NULL, fmt, ap);
    va_end(ap);
}

/* ------------------------------------------------------------------ time */

static int64_t mono_ms(void)
{
    return gq__mono_us() / 1000;
}

static int64_t to_virtual(const struct prov *p, int64_t wall)
{
    return p->t0 + (int64_t)((double)(wall - p->t0) * p->o.speed);
}

/* A simulator time back on the wall clock; 0 (unset) stays 0. */
static int64_t to_wall(const struct prov *p, int64_t v)
{
    return v ? p->t0 + (int64_t)((double)(v - p->t0) / p->o.speed) : 0;
}

/* A Kubernetes time in ms since the epoch; 0 when absent or malformed. */
static int64_t parse_time(const char *s)
{
    int64_t ms;

    return s && gq__parse_rfc3339(s, &ms) ? ms : 0;
}

/* The lastTransitionTime of condition type, in ms; 0 without one. */
static int64_t condition_time(json_object *obj, const char *type)
{
    json_object *conds = gq__js_get(obj, "status.conditions");
    size_t i, n = json_object_is_type(conds, json_type_array) ? json_object_array_length(conds) : 0;

    for (i = 0; i < n; i++) {
        json_object *c = json_object_array_get_idx(conds, i);
        const char *t = gq__js_str(c, "type");

        if (t && strcmp(t, type) == 0)
            return parse_time(gq__js_str(c, "lastTransitionTime"));
    }
    return 0;
}

/* ----------------------------------------------------------- the table */

static void preq_clear(struct preq *q)
{
    free(q->uid);
    free(q->ns);
    free(q->name);
    free(q->written);
    json_object_put(q->obj);
}

/* Drop entry i; the last one takes its place. */
static void preq_remove(struct prov *p, size_t i)
{
    preq_clear(&p->v[i]);
    p->v[i] = p->v[--p->n];
}

static struct preq *preq_find(struct prov *p, const char *uid)
{
    size_t i;

    for (i = 0; i < p->n; i++)
        if (strcmp(p->v[i].uid, uid) == 0)
            return &p->v[i];
    return NULL;
}

/* Record one request seen (ADDED, MODIFIED, or in a list). */
static int pr_seen(struct prov *p, json_object *obj)
{
    const char *uid = gq__js_str(obj, "metadata.uid"), *ns = gq__js_str(obj, "metadata.namespace");
    const char *name = gq__js_str(obj, "metadata.name");
    struct preq *q;

    if (!uid || !ns || !name)
        return GQ_OK;
    if (!(q = preq_find(p, uid))) {
        if (gq__grow(&p->v, &p->cap, p->n, sizeof(*p->v)) < 0)
            return GQ_ENOMEM;
        q = &p->v[p->n++];
        memset(q, 0, sizeof(*q));
        q->sim = -1;
        q->uid = strdup(uid);
        q->ns = strdup(ns);
        q->name = strdup(name);
        if (!q->uid || !q->ns || !q->name)
            return GQ_ENOMEM;
    }
    json_object_put(q->obj);
    q->obj = json_object_get(obj);
    q->listed = true;
    return GQ_OK;
}

static int prs_replace(json_object *items, void *payload)
{
    struct prov *p = payload;
    size_t i, n = json_object_array_length(items);
    int rc = GQ_OK;

    for (i = 0; i < p->n; i++)
        p->v[i].listed = false;
    for (i = 0; rc == GQ_OK && i < n; i++)
        rc = pr_seen(p, json_object_array_get_idx(items, i));
    for (i = 0; rc == GQ_OK && i < p->n; i++)
        if (!p->v[i].listed)
            p->v[i].gone = true; /* absent from a relist: deleted while the watch was down */
    return rc;
}

static int prs_event(const char *type, json_object *obj, void *payload)
{
    struct prov *p = payload;
    const char *uid = gq__js_str(obj, "metadata.uid");
    struct preq *q;

    if (strcmp(type, "DELETED") != 0)
        return pr_seen(p, obj);
    if (uid && (q = preq_find(p, uid)))
        q->gone = true;
    return GQ_OK;
}

/* ------------------------------------------------------------------ Jobs */

static void use_clear(struct use *u)
{
    free(u->uid);
    free(u->ns);
    free(u->job);
    free(u->pr);
}

/* Forget Job uid's use, if it had one. */
static void use_drop(struct prov *p, const char *uid)
{
    size_t i;

    for (i = 0; i < p->nuses; i++)
        if (strcmp(p->uses[i].uid, uid) == 0) {
            use_clear(&p->uses[i]);
            p->uses[i] = p->uses[--p->nuses];
            return;
        }
}

/* A Job seen: it consumes a request while it is unsuspended and names one. */
static int job_seen(struct prov *p, const char *type, json_object *job)
{
    json_object *ann = gq__js_get(job, "spec.template.metadata.annotations");
    json_object *suspend = gq__js_get(job, "spec.suspend");
    const char *uid = gq__js_str(job, "metadata.uid"), *ns = gq__js_str(job, "metadata.namespace");
    const char *name = gq__js_str(job, "metadata.name"), *pr = gq__js_str(ann, CONSUME_ANNOTATION);
    struct use *u;

    if (!uid || !ns || !name)
        return GQ_OK;
    use_drop(p, uid);
    if (strcmp(type, "DELETED") == 0 || !pr || json_object_get_boolean(suspend))
        return GQ_OK;
    if (gq__grow(&p->uses, &p->capuses, p->nuses, sizeof(*p->uses)) < 0)
        return GQ_ENOMEM;
    u = &p->uses[p->nuses++];
    u->uid = strdup(uid);
    u->ns = strdup(ns);
    u->job = strdup(name);
    u->pr = strdup(pr);
    return u->uid && u->ns && u->job && u->pr ? GQ_OK : GQ_ENOMEM;
}

static int jobs_replace(json_object *items, void *payload)
{
    struct prov *p = payload;
    size_t i, n = json_object_array_length(items);
    int rc = GQ_OK;

    while (p->nuses)
        use_clear(&p->uses[--p->nuses]);
    for (i = 0; rc == GQ_OK && i < n; i++)
        rc = job_seen(p, "ADDED", json_object_array_get_idx(items, i));
    return rc;
}

static int jobs_event(const char *type, json_object *obj, void *payload)
{
    return job_seen(payload, type, obj);
}

/* ------------------------------------------------------------ API calls */

/* An answer no caller expects, as GQ_EK8S: "GET <path>: 500 InternalError: ...". */
static int answer_error(const struct gq_kube_resp *r, const char *method, const char *path,
                        gq_error *err)
{
    char line[GQ_KUBE_STATUS_LINE];

    gq__kube_status_line(line, sizeof(line), r);
    return gq__error(err, GQ_EK8S, "%s %s: %s", method, path, line);
}

/* Append PodTemplate ns/name to into: GQ_ENOTFOUND while it does not exist. */
static int
template_get(struct prov *p, const char *ns, const char *name, json_object *into, gq_error *err)
{
    struct gq_kube_resp r;
    char path[600];
    int rc;

    if (!name)
        return gq__error(err, GQ_EINVALID, "a pod set without podTemplateRef.name");
    snprintf(path, sizeof(path), "/api/v1/namespaces/%s/podtemplates/%s", ns, name);
    if ((rc = gq__kube_call(p->k, "GET", path, NULL, NULL, &r, err)) != GQ_OK)
        return rc;
    if (r.status == 200 && r.json)
        json_object_array_add(into, json_object_get(r.json));
    else if (r.status == 404)
        rc = gq__error(err, GQ_ENOTFOUND, "waiting for PodTemplate %s/%s", ns, name);
    else
        rc = answer_error(&r, "GET", path, err);
    gq__kube_resp_free(&r);
    return rc;
}

/* The PodTemplates of q's pod sets, as a JSON array (*out, owned by the caller). */
static int templates_get(struct prov *p, struct preq *q, json_object **out, gq_error *err)
{
    json_object *sets = gq__js_get(q->obj, "spec.podSets");
    size_t i, n = json_object_is_type(sets, json_type_array) ? json_object_array_length(sets) : 0;
    int rc = GQ_OK;

    if (!(*out = json_object_new_array()))
        return gq__error(err, GQ_ENOMEM, "out of memory reading PodTemplates");
    for (i = 0; rc == GQ_OK && i < n; i++)
        rc = template_get(p, q->ns,
                          gq__js_str(json_object_array_get_idx(sets, i), "podTemplateRef.name"),
                          *out, err);
    if (rc != GQ_OK) {
        json_object_put(*out);
        *out = NULL;
    }
    return rc;
}

/* GET q again (after a 409); a request gone, or now another object, is marked gone. */
static int pr_reread(struct prov *p, struct preq *q, gq_error *err)
{
    struct gq_kube_resp r;
    char path[600];
    const char *uid;
    int rc;

    snprintf(path, sizeof(path), PR_API "/namespaces/%s/provisioningrequests/%s", q->ns, q->name);
    if ((rc = gq__kube_call(p->k, "GET", path, NULL, NULL, &r, err)) != GQ_OK)
        return rc;
    uid = gq__js_str(r.json, "metadata.uid");
    if (r.status == 200 && uid && strcmp(uid, q->uid) == 0) {
        json_object_put(q->obj);
        q->obj = json_object_get(r.json);
    } else if (r.status == 200 || r.status == 404) {
        q->gone = true;
    } else {
        rc = answer_error(&r, "GET", path, err);
    }
    gq__kube_resp_free(&r);
    return rc;
}

/* Whether q's conditions already are those of status (JSON text {conditions: [...]}). */
static bool status_shown(const struct preq *q, const char *status)
{
    json_object *want = json_tokener_parse(status);
    json_object *have = gq__js_get(q->obj, "status.conditions");
    bool same = want && have && json_object_equal(gq__js_get(want, "conditions"), have);

    json_object_put(want);
    return same;
}

/* One merge patch of q's status, conditional on the resourceVersion last seen. */
static int patch_once(struct prov *p, struct preq *q, const char *status, long *code, gq_error *err)
{
    json_object *body = json_object_new_object(), *meta = json_object_new_object();
    json_object *st = json_tokener_parse(status);
    const char *rv = gq__js_str(q->obj, "metadata.resourceVersion");
    struct gq_kube_resp r;
    char path[600];
    int rc;

    memset(&r, 0, sizeof(r));
    if (!body || !meta || !st) {
        rc = gq__error(err, GQ_ENOMEM, "out of memory writing a status");
        goto out;
    }
    if (rv)
        json_object_object_add(meta, "resourceVersion", json_object_new_string(rv));
    json_object_object_add(body, "metadata", json_object_get(meta));
    json_object_object_add(body, "status", json_object_get(st));
    snprintf(path, sizeof(path), PR_API "/namespaces/%s/provisioningrequests/%s/status", q->ns,
             q->name);
    if ((rc = gq__kube_call(p->k, "PATCH", path, "application/merge-patch+json",
                            json_object_to_json_string_ext(body, JSON_FLAGS), &r, err)) != GQ_OK)
        goto out;
    *code = r.status;
    if (r.status == 200 && r.json) {
        json_object_put(q->obj);
        q->obj = json_object_get(r.json);
    } else if (r.status == 404) {
        q->gone = true;
    } else if (r.status != 409) {
        rc = answer_error(&r, "PATCH", path, err);
    }
out:
    gq__kube_resp_free(&r);
    json_object_put(body);
    json_object_put(meta);
    json_object_put(st);
    return rc;
}

/*
 * Write status on q: on 409 read q again; done when it is gone or already
 * shows it, else patch again, CONFLICT_RETRIES times at most.
 */
static int patch_status(struct prov *p, struct preq *q, const char *status, gq_error *err)
{
    long code = 0;
    int attempt, rc;

    for (attempt = 0;; attempt++) {
        if ((rc = patch_once(p, q, status, &code, err)) != GQ_OK || code != 409)
            return rc;
        if (attempt == CONFLICT_RETRIES)
            return gq__error(err, GQ_ECONFLICT, "%s/%s kept changing: %d conflicts", q->ns, q->name,
                             attempt + 1);
        if ((rc = pr_reread(p, q, err)) != GQ_OK || q->gone || status_shown(q, status))
            return rc;
    }
}

/* --------------------------------------------------------------- a turn */

static bool terminal(json_object *obj)
{
    return gq__js_condition(obj, "Failed") || gq__js_condition(obj, "BookingExpired") ||
           gq__js_condition(obj, "CapacityRevoked");
}

static bool is_modelled(const char *cls)
{
    size_t i;

    for (i = 0; cls && i < sizeof(modelled) / sizeof(*modelled); i++)
        if (strcmp(cls, modelled[i]) == 0)
            return true;
    return false;
}

/* Hand q to the simulator, created when its creationTimestamp says (now at the latest). */
static int submit(struct prov *p, struct preq *q, json_object *tmpl, gq_error *err)
{
    struct gq_kvs sel = {NULL, 0};
    int64_t now = to_virtual(p, gq__now_ms()), max_run, born, provisioned;
    int32_t gpus;
    int rc;

    rc = gq__manifest_provreq_needs(json_object_to_json_string_ext(q->obj, JSON_FLAGS),
                                    json_object_to_json_string_ext(tmpl, JSON_FLAGS), &sel, &gpus,
                                    &max_run, err);
    born = parse_time(gq__js_str(q->obj, "metadata.creationTimestamp"));
    born = born ? to_virtual(p, born) : now;
    if (rc == GQ_OK && (q->sim = gq__sim_request(&p->sim, q->uid, &sel, gpus, max_run,
                                                 born < now ? born : now)) < 0)
        rc = gq__error(err, GQ_ENOMEM, "out of memory in the simulated cluster");
    gq__kvs_clear(&sel);
    if (rc != GQ_OK)
        return rc;
    p->sim.reqs[q->sim].check_capacity =
        strcmp(gq__js_str(q->obj, "spec.provisioningClassName"), CHECK_CAPACITY) == 0;
    /* Provisioned before a restart: the same nodes, the same booking window. */
    if (gq__js_condition(q->obj, "Provisioned")) {
        provisioned = condition_time(q->obj, "Provisioned");
        gq__sim_adopt(&p->sim, q->sim, provisioned ? to_virtual(p, provisioned) : now);
    }
    q->state = PREQ_SIMULATED;
    plog(p, GQ_EVENT_LEVEL_INFO, q->ns, q->name, "submitted", "%d GPU%s, node pool %s", (int)gpus,
         gpus == 1 ? "" : "s",
         p->sim.reqs[q->sim].pool >= 0 ? p->sim.pools[p->sim.reqs[q->sim].pool].name : "(none)");
    return GQ_OK;
}

/* A request seen for the first time: the simulator's, or left alone (said once). */
static int admit(struct prov *p, struct preq *q, gq_error *err)
{
    const char *cls = gq__js_str(q->obj, "spec.provisioningClassName");
    json_object *tmpl = NULL;
    int rc;

    if (!is_modelled(cls)) {
        q->state = PREQ_LEFT;
        plog(p, GQ_EVENT_LEVEL_INFO, q->ns, q->name, "skipped",
             "class %s is not one the simulator models: left alone", cls ? cls : "(none)");
        return GQ_OK;
    }
    if (terminal(q->obj)) {
        q->state = PREQ_LEFT;
        plog(p, GQ_EVENT_LEVEL_INFO, q->ns, q->name, "skipped", "already finished: left as it is");
        return GQ_OK;
    }
    if ((rc = templates_get(p, q, &tmpl, err)) == GQ_OK)
        rc = submit(p, q, tmpl, err);
    json_object_put(tmpl);
    return rc;
}

/* Requests deleted in the cluster: their nodes go back (idle until scaleDownAfter). */
static void sweep(struct prov *p)
{
    size_t i = p->n;

    while (i-- > 0) {
        struct preq *q = &p->v[i];
        const struct gq_sim_request *r = q->sim >= 0 ? &p->sim.reqs[q->sim] : NULL;

        if (!q->gone)
            continue;
        if (r && r->holds)
            plog(p, GQ_EVENT_LEVEL_INFO, q->ns, q->name, "deleted", "%d node%s back to pool %s",
                 (int)r->nodes, r->nodes == 1 ? "" : "s", p->sim.pools[r->pool].name);
        else
            plog(p, GQ_EVENT_LEVEL_INFO, q->ns, q->name, "deleted", "it held no nodes");
        if (q->state == PREQ_SIMULATED)
            gq__sim_delete(&p->sim, q->sim, to_virtual(p, gq__now_ms()));
        preq_remove(p, i);
    }
}

/* Mark requests whose Job runs: their booking will not expire. */
static void consume(struct prov *p)
{
    size_t i, j;

    for (i = 0; i < p->n; i++) {
        struct preq *q = &p->v[i];

        if (q->state != PREQ_SIMULATED || p->sim.reqs[q->sim].consumed)
            continue;
        for (j = 0; j < p->nuses; j++)
            if (strcmp(p->uses[j].ns, q->ns) == 0 && strcmp(p->uses[j].pr, q->name) == 0) {
                gq__sim_consume(&p->sim, q->sim);
                plog(p, GQ_EVENT_LEVEL_INFO, q->ns, q->name, "consumed", "by Job %s",
                     p->uses[j].job);
                break;
            }
    }
}

/* The simulator's "Capacity found ..., ETA <time>" is on virtual time: put it on the wall clock. */
static void eta_on_wall(struct gq_sim_request *r)
{
    char *eta = strstr(r->message, ", ETA "), when[GQ_RFC3339_BUFSIZE];

    if (eta && r->ready_ms)
        snprintf(eta, sizeof(r->message) - (size_t)(eta - r->message), ", ETA %s",
                 gq__rfc3339(when, r->ready_ms));
}

/* Write q's status if it changed; the times go back on the wall clock. */
static int publish(struct prov *p, struct preq *q, gq_error *err)
{
    struct gq_sim_request r = p->sim.reqs[q->sim]; /* a shallow copy, for its times */
    char *status = NULL;
    int rc;

    r.created_ms = to_wall(p, r.created_ms);
    r.ready_ms = to_wall(p, r.ready_ms);
    r.provisioned_ms = to_wall(p, r.provisioned_ms);
    r.ended_ms = to_wall(p, r.ended_ms);
    eta_on_wall(&r);
    if ((rc = gq__manifest_sim_status(&r, &status, err)) != GQ_OK)
        return rc;
    if (q->written && strcmp(q->written, status) == 0)
        goto out;
    /* Not written by this process yet: the status there may be ours from before a restart. */
    if (!q->written && status_shown(q, status))
        goto keep;
    if ((rc = patch_status(p, q, status, err)) != GQ_OK || q->gone)
        goto out;
    plog_transition(p,
                    r.state == GQ_SIM_ACCEPTED || r.state == GQ_SIM_PROVISIONED
                        ? GQ_EVENT_LEVEL_INFO
                        : GQ_EVENT_LEVEL_WARNING,
                    q->ns, q->name, state_whats[r.state], "%s", r.message);
keep:
    free(q->written);
    q->written = status;
    status = NULL;
out:
    free(status);
    return rc;
}

/*
 * The outcome of one request's calls: a failure is logged once and the
 * request left until RETRY_MS from now; only GQ_ENOMEM goes on to stop the
 * loop (copied to err).
 */
static int settle(struct prov *p, struct preq *q, int rc, const gq_error *e, gq_error *err)
{
    if (rc == GQ_OK) {
        q->warned = false;
        return GQ_OK;
    }
    if (rc == GQ_ENOMEM) {
        if (err)
            *err = *e;
        return rc;
    }
    if (!q->warned)
        plog(p, GQ_EVENT_LEVEL_WARNING, q->ns, q->name, "retrying", "%s", e->msg);
    q->warned = true;
    q->retry_ms = mono_ms() + RETRY_MS;
    return GQ_OK;
}

/* Steps 2 to 4 of a turn, request by request. */
static int answer(struct prov *p, gq_error *err)
{
    int64_t now = mono_ms();
    gq_error e = {0, ""};
    size_t i;
    int rc = GQ_OK;

    for (i = 0; rc == GQ_OK && i < p->n; i++)
        if (p->v[i].state == PREQ_NEW && !p->v[i].gone && now >= p->v[i].retry_ms)
            rc = settle(p, &p->v[i], admit(p, &p->v[i], &e), &e, err);
    consume(p);
    for (i = 0; rc == GQ_OK && i < ADVANCE_ROUNDS; i++)
        if (!gq__sim_advance(&p->sim, to_virtual(p, gq__now_ms())))
            break;
    for (i = 0; rc == GQ_OK && i < p->n; i++)
        if (p->v[i].state == PREQ_SIMULATED && !p->v[i].gone && now >= p->v[i].retry_ms)
            rc = settle(p, &p->v[i], publish(p, &p->v[i], &e), &e, err);
    return rc;
}

/* Both informers have listed once; why not yet is said once. */
static bool synced(struct prov *p)
{
    const char *why = gq__kube_informer_problem(p->prs);

    if (p->synced)
        return true;
    if (!why)
        why = gq__kube_informer_problem(p->jobs);
    if (!gq__kube_informer_synced(p->prs) || !gq__kube_informer_synced(p->jobs)) {
        if (why && !p->problem_logged)
            plog(p, GQ_EVENT_LEVEL_WARNING, NULL, NULL, "waiting", "%s", why);
        p->problem_logged = why != NULL;
        return false;
    }
    p->synced = true;
    plog(p, GQ_EVENT_LEVEL_INFO, NULL, NULL, "synced", "%zu ProvisioningRequest%s", p->n,
         p->n == 1 ? "" : "s");
    return true;
}

/*
 * The loop's backend (backend.h). The provisioner makes no admission
 * decision, so the loop runs no cycle for it; its world is the API server,
 * whose watches its observe waits on, so it needs no clock either.
 */
static int prov_observe(void *self, struct gq__turn *t, gq_error *err)
{
    struct prov *p = self;
    int rc;

    if ((rc = gq__kube_poll(p->k, POLL_MS, err)) == GQ_OK)
        t->act = synced(p);
    return rc;
}

static int prov_act(void *self, struct gq__turn *t, gq_error *err)
{
    struct prov *p = self;

    (void)t;
    sweep(p);
    return answer(p, err);
}

static const struct gq__backend_ops prov_ops = {
    prov_observe, NULL, NULL, prov_act, NULL, NULL,
};

static int loop(struct prov *p, gq_error *err)
{
    struct gq_backend b = {&prov_ops, p, false, 0, false};

    return gq__loop_run(NULL, &b, NULL, p->o.stop, err);
}

/* ---------------------------------------------------------- start, stop */

struct pools {
    struct gq_sim_pool *v;
    size_t n;
};

static int pools_txn(struct gq_store *st, void *payload, gq_error *err)
{
    struct pools *pl = payload;

    return gq__engine_load_pools(st, &pl->v, &pl->n, err);
}

/* The simulator over db's NodePools: GQ_ENOTFOUND when there are none. */
static int sim_open(struct prov *p, gq_db *db, gq_error *err)
{
    struct pools pl = {NULL, 0};
    int rc;

    if ((rc = gq__store_read(db->st, pools_txn, &pl, err)) != GQ_OK)
        goto out;
    if (pl.n == 0) {
        rc = gq__error(err, GQ_ENOTFOUND,
                       "no NodePools in the database: apply some, e.g. "
                       "gpuq apply -f examples/manifests/sim-pools.yaml");
        goto out;
    }
    if (gq__sim_init(&p->sim, pl.v, pl.n, p->o.seed) < 0)
        rc = gq__error(err, GQ_ENOMEM, "out of memory starting the simulated cluster");
out:
    gq__sim_pools_free(pl.v, pl.n);
    return rc;
}

static int prov_open(struct prov *p, gq_db *db, const gq_sim_provisioner_options *o, gq_error *err)
{
    static const struct gq_kube_informer_ops prs = {prs_replace, prs_event};
    static const struct gq_kube_informer_ops jobs = {jobs_replace, jobs_event};
    struct gq_kube_config_opts co = {o->target.kubeconfig, o->target.context, o->target.ns,
                                     o->target.in_cluster};
    struct gq_kube_limits lim = GQ_KUBE_LIMITS_INIT;
    struct gq_kube_config cfg;
    int rc;

    memset(p, 0, sizeof(*p));
    p->o = *o;
    p->t0 = gq__now_ms();
    lim.stop = o->stop;
    if ((rc = sim_open(p, db, err)) != GQ_OK ||
        (rc = gq__kube_config_load(&cfg, &co, err)) != GQ_OK)
        return rc;
    if ((rc = gq__kube_open(&p->k, &cfg, &lim, err)) != GQ_OK)
        return rc;
    if ((rc = gq__kube_informer_new(&p->prs, p->k, PR_API "/provisioningrequests", NULL, &prs, p,
                                    err)) != GQ_OK)
        return rc;
    return gq__kube_informer_new(&p->jobs, p->k, "/apis/batch/v1/jobs", GQ_SYNC_QUEUE_LABEL, &jobs,
                                 p, err);
}

static void prov_close(struct prov *p)
{
    gq__kube_informer_free(p->prs);
    gq__kube_informer_free(p->jobs);
    gq__kube_close(p->k);
    while (p->n)
        preq_clear(&p->v[--p->n]);
    free(p->v);
    while (p->nuses)
        use_clear(&p->uses[--p->nuses]);
    free(p->uses);
    gq__sim_free(&p->sim);
}

int gq_sim_provisioner_run(gq_db *db, const gq_sim_provisioner_options *o, gq_error *err)
{
    struct prov p;
    int rc;

    if (!db || !o)
        return gq__error(err, GQ_EINVALID, "no database or options");
    if ((rc = gq__version_check(o->version, GQ_SIM_PROVISIONER_OPTIONS_VERSION,
                                "gq_sim_provisioner_options", err)) != GQ_OK)
        return rc;
    if (!(o->speed > 0) || o->speed > 1e6)
        return gq__error(err, GQ_EINVALID, "invalid speed %g: want a number above 0", o->speed);
    if ((rc = prov_open(&p, db, o, err)) == GQ_OK) {
        plog(&p, GQ_EVENT_LEVEL_INFO, NULL, NULL, "started",
             "API server %s, %zu NodePool%s, speed %g", gq__kube_config(p.k)->server, p.sim.npools,
             p.sim.npools == 1 ? "" : "s", p.o.speed);
        rc = loop(&p, err);
    }
    prov_close(&p);
    return rc;
}
