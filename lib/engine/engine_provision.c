/*
 * engine_provision.c: what happens when a workload's quota is reserved in a
 * ClusterQueue with admission checks (kueue-semantics.md §3.2, §3.4): each
 * check that applies to the assigned flavors (onFlavors) is recorded as
 * Pending, and for a check of the provisioning-request controller whose
 * ProvisioningRequestConfig exists, the ProvisioningRequest and its
 * PodTemplates are created, as Kueue names and writes them, in the same
 * transaction as the reservation. A check whose workload uses none of the
 * config's managed resources is Ready at once ("not needed").
 *
 * Each scheduling cycle then turns the requests' new statuses into their
 * checks' states and acts on them (Retry evicts, Rejected deactivates, all
 * Ready admits), and applies gpuq's two extensions, both off unless the
 * config is annotated (kueue-semantics.md §6): a request not provisioned
 * within gpuq.dev/provisioning-timeout fails its attempt (#3245), and a
 * failed attempt is counted against the workload's flavors for
 * gpuq.dev/flavor-fallback-after (#2560; workloads.failed_flavors, read
 * back by engine_load.c). A cycle sees a few live requests per reserved
 * workload; the configs it needs are read once per cycle. What it reads of
 * the database is store_provision.h's; what it writes, store.h's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "admit_int.h"
#include "engine.h"
#include "error.h"
#include "manifest_load.h"
#include "os.h"
#include "provision.h"
#include "store_provision.h"
#include "util.h"

/* How a queue object's stored spec is read: one of store_provision.h's, and its table. */
typedef int (*spec_read_fn)(struct gq_store *st, const char *name, char **out, gq_error *err);

/*
 * The stored spec of a queue object, decoded; table names it in messages
 * ("admission_checks"). A spec that does not decode is a damaged file.
 */
static int load(struct gq_store *st, spec_read_fn read, const char *table, const char *key,
                char **text, struct gq_object *obj, gq_error *err)
{
    int rc;

    *text = NULL;
    memset(obj, 0, sizeof(*obj));
    if ((rc = read(st, key, text, err)) != GQ_OK || !*text)
        return rc;
    rc = gq__manifest_load(NULL, *text, strlen(*text), "stored spec", NULL, NULL, gq__take_object,
                           obj, err);
    if (rc == GQ_OK || rc == GQ_ENOMEM)
        return rc;
    return gq__store_damaged(st, err, "%s %s: spec does not decode", table, key);
}

static bool applies(const struct gq_snapshot *s, const struct gq_admission_check_ref *c,
                    const struct gq_snap_wl *wl)
{
    size_t i;

    if (!c->on_flavors.n)
        return true;
    for (i = 0; i < wl->held.n; i++)
        if (gq__check_on_flavor(s, c, wl->held.v[i].fr / (int)s->nres))
            return true;
    return false;
}

/* reqIsNeeded for one pod set of the snapshot: pods, and a managed resource. */
static bool needed(const struct gq_snapshot *s, const struct gq_snap_ps *ps,
                   const struct gq_strs *managed)
{
    size_t i, j;

    if (ps->adm_count <= 0)
        return false;
    for (i = 0; i < ps->nres; i++) {
        if (ps->res[i] == s->res_pods || ps->per_pod[i] <= 0)
            continue;
        if (!managed->n)
            return true;
        for (j = 0; j < managed->n; j++)
            if (strcmp(s->res_names.names[ps->res[i]], managed->v[j]) == 0)
                return true;
    }
    return false;
}

static int ps_flavor(const struct gq_snap_ps *ps)
{
    size_t i;

    for (i = 0; i < ps->nres; i++)
        if (ps->adm_flavor[i] >= 0)
            return ps->adm_flavor[i];
    return -1;
}

struct request {
    struct gq_provreq_podset sets[32];
    char *names[32];
    size_t n;
    char *name;
};

static void request_free(struct request *r)
{
    while (r->n)
        free(r->names[--r->n]);
    free(r->name);
}

/* The pod sets that need capacity, each with its template name and flavor. */
static int request_sets(const struct gq_snapshot *s, const struct gq_snap_wl *wl,
                        const struct gq_provisioning_config *cfg, struct request *r)
{
    size_t i;

    for (i = 0; i < wl->nps && r->n < 32; i++) {
        const struct gq_snap_ps *ps = &wl->ps[i];
        struct gq_provreq_podset *set = &r->sets[r->n];
        int f = ps_flavor(ps);

        if (!needed(s, ps, &cfg->managed_resources))
            continue;
        memset(set, 0, sizeof(*set));
        if (!(r->names[r->n] = gq__podtemplate_name(r->name, ps->name)))
            return -1;
        set->name = ps->name;
        set->template_name = r->names[r->n++];
        set->count = ps->adm_count;
        if (f >= 0) {
            set->node_labels = &s->flavors[f].spec.node_labels;
            set->tolerations = s->flavors[f].spec.tolerations;
            set->ntolerations = s->flavors[f].spec.ntolerations;
        }
    }
    return 0;
}

/*
 * podSetMergePolicy: a pod set like an earlier one (on the same flavor) is
 * folded into it, counts summed, under the earlier one's template (§3.4).
 */
static void merge_sets(struct request *r, const char *spec, const char *policy)
{
    size_t i, j, k;

    if (!policy)
        return;
    for (j = 1; j < r->n; j++) {
        for (i = 0; i < j; i++) {
            if (r->sets[i].node_labels != r->sets[j].node_labels ||
                !gq__manifest_podsets_mergeable(spec, r->sets[i].name, r->sets[j].name, policy))
                continue;
            r->sets[i].count += r->sets[j].count;
            free(r->names[j]);
            for (k = j; k + 1 < r->n; k++) {
                r->sets[k] = r->sets[k + 1];
                r->names[k] = r->names[k + 1];
            }
            r->n--;
            j--;
            break;
        }
    }
}

/* Create attempt `attempt` of the request for check c. */
static int create(struct gq_store *st, const struct gq_snapshot *s, const struct gq_snap_wl *wl,
                  const char *check, const struct gq_provisioning_config *cfg, int32_t attempt,
                  int64_t now, char *note, size_t notelen, gq_error *err)
{
    struct request r;
    struct gq_kvs ann = {NULL, 0}, params = {NULL, 0};
    char *spec = NULL, *pr = NULL, *pts = NULL, uid[37];
    int rc;

    memset(&r, 0, sizeof(r));
    if (!(r.name = gq__provreq_name(wl->name, check, attempt)) || request_sets(s, wl, cfg, &r) < 0) {
        rc = gq__error(err, GQ_ENOMEM, "out of memory creating a ProvisioningRequest");
        goto out;
    }
    if (!r.n) {
        rc = gq__store_set_check(st, wl->id, check, "Ready",
                                 "the provisioning request is not needed", now, err);
        goto out;
    }
    if ((rc = gq__store_workload_spec(st, wl->id, &spec, err)) != GQ_OK)
        goto out;
    if ((rc = gq__manifest_annotations(spec ? spec : "{}", &ann, err)) == GQ_EIO)
        rc = gq__store_damaged(st, err, "workloads row %lld: spec does not decode",
                               (long long)wl->id);
    if (rc != GQ_OK)
        goto out;
    merge_sets(&r, spec ? spec : "{}", cfg->merge_policy);
    if (gq__provreq_parameters(&cfg->parameters, &ann, &params) < 0) {
        rc = gq__error(err, GQ_ENOMEM, "out of memory creating a ProvisioningRequest");
        goto out;
    }
    {
        struct gq_provreq_doc d = {r.name, wl->ns, wl->name, wl->uid, cfg->class_name,
                                   &params, r.sets, r.n};
        struct gq_provreq_row row = {uid, wl->ns, r.name, wl->id, check, attempt,
                                     cfg->class_name, NULL, NULL, now};

        gq__uid_new(uid);
        if ((rc = gq__manifest_provreq(spec ? spec : "{}", &d, &pr, &pts, err)) != GQ_OK)
            goto out;
        row.spec = pr;
        row.templates = pts;
        if ((rc = gq__store_insert_provreq(st, &row, err)) == GQ_OK)
            rc = gq__store_event(st, "Workload", wl->ns, wl->name, wl->uid, "Normal",
                                 "ProvisioningRequestCreated", r.name, NULL, NULL, now, err);
    }
    snprintf(note, notelen, "waiting for capacity: ProvisioningRequest %s (attempt %d)", r.name,
             (int)attempt);
out:
    free(spec);
    free(pr);
    free(pts);
    gq__kvs_clear(&ann);
    gq__kvs_clear(&params);
    request_free(&r);
    return rc;
}

/*
 * The ProvisioningRequestConfig of a check, when the check belongs to the
 * provisioning-request controller (*mine) and its parameters name a config
 * that exists (*found, prc filled; clear it with gq__object_clear).
 */
static int check_config(struct gq_store *st, const char *check, bool *mine, bool *found,
                        struct gq_object *prc, gq_error *err)
{
    struct gq_object ac;
    char *ac_text = NULL, *prc_text = NULL;
    int rc;

    *mine = *found = false;
    memset(prc, 0, sizeof(*prc));
    rc = load(st, gq__store_admission_check_spec, "admission_checks", check, &ac_text, &ac, err);
    if (rc == GQ_OK && ac_text && ac.u.ac.controller_name &&
        strcmp(ac.u.ac.controller_name, GQ_PROVREQ_CONTROLLER) == 0) {
        *mine = true;
        if (ac.u.ac.params_name &&
            (rc = load(st, gq__store_provisioning_config_spec, "provisioning_configs",
                       ac.u.ac.params_name, &prc_text, prc, err)) == GQ_OK)
            *found = prc_text != NULL;
    }
    free(ac_text);
    free(prc_text);
    gq__object_clear(&ac);
    return rc;
}

/* One check of the workload: recorded, and its request created when it has one. */
static int one_check(struct gq_store *st, const struct gq_snapshot *s, const struct gq_snap_wl *wl,
                     const char *check, int64_t now, char *note, size_t notelen, gq_error *err)
{
    struct gq_object prc;
    bool mine, found;
    int32_t retries;
    int rc;

    if ((rc = gq__store_set_check(st, wl->id, check, "Pending", "", now, err)) != GQ_OK ||
        (rc = check_config(st, check, &mine, &found, &prc, err)) != GQ_OK || !mine)
        goto out; /* another controller's check stays Pending */
    if (!found)
        rc = gq__store_set_check(st, wl->id, check, "Pending", "the check is not active", now,
                                 err);
    else if ((rc = gq__store_check_retries(st, wl->id, check, &retries, err)) == GQ_OK)
        rc = create(st, s, wl, check, &prc.u.prc, retries + 1, now, note, notelen, err);
out:
    gq__object_clear(&prc);
    return rc;
}

int gq__engine_checks_on_reserve(struct gq_store *st, const struct gq_snapshot *s,
                                 const struct gq_snap_wl *wl, int64_t now, char *note,
                                 size_t notelen, gq_error *err)
{
    const struct gq_snap_cq *cq = &s->cqs[wl->cq];
    size_t i;
    int rc = GQ_OK;

    note[0] = '\0';
    for (i = 0; rc == GQ_OK && i < cq->nchecks; i++)
        if (applies(s, &cq->checks[i], wl))
            rc = one_check(st, s, wl, cq->checks[i].name, now, note, notelen, err);
    return rc;
}

/* ------------------------------------------------------------ check sync */

/*
 * What the engine needs of a check's ProvisioningRequestConfig: the retry
 * strategy (Kueue's defaults if none) and gpuq's timeout and fallback.
 */
static int strategy(struct gq_store *st, const char *check, struct gq_provisioning_config *out,
                    gq_error *err)
{
    struct gq_object prc;
    bool mine, found;
    int rc = check_config(st, check, &mine, &found, &prc, err);

    memset(out, 0, sizeof(*out));
    out->backoff_limit_count = found ? prc.u.prc.backoff_limit_count : 3;
    out->backoff_base_seconds = found ? prc.u.prc.backoff_base_seconds : 60;
    out->backoff_max_seconds = found ? prc.u.prc.backoff_max_seconds : 1800;
    out->timeout_ms = found ? prc.u.prc.timeout_ms : 0;
    out->fallback_after = found ? prc.u.prc.fallback_after : 0;
    gq__object_clear(&prc);
    return rc;
}

/* The retry strategies read in one sync, by check name (a handful of checks). */
struct strategies {
    struct {
        char check[254]; /* a DNS subdomain: at most 253 characters */
        struct gq_provisioning_config cfg;
    } v[16];
    size_t n;
};

static int strategy_of(struct gq_store *st, struct strategies *c, const char *check,
                       struct gq_provisioning_config *out, gq_error *err)
{
    size_t i;
    int rc;

    for (i = 0; i < c->n; i++) {
        if (strcmp(c->v[i].check, check) == 0) {
            *out = c->v[i].cfg;
            return GQ_OK;
        }
    }
    if ((rc = strategy(st, check, out, err)) == GQ_OK && c->n < 16 &&
        strlen(check) < sizeof(c->v[0].check)) {
        memcpy(c->v[c->n].check, check, strlen(check) + 1);
        c->v[c->n++].cfg = *out;
    }
    return rc;
}

/* One sync of the checks: the engine's state and the configs read so far. */
struct sync {
    struct gq_store *st;     /* inside the cycle's transaction */
    struct gq_snapshot *s;   /* the engine's, changed as the decisions say */
    int64_t now;             /* the cycle's time, the database's clock */
    struct gq_decisions *d;  /* appended to */
    struct strategies cache; /* configs by check */
    gq_error *err;
};

/* A check's new state on the workload: the row, an event, and a note in plain words. */
static int record(struct sync *c, int w, const struct gq_provreq_sync *r,
                  const struct gq_check_update *u)
{
    const struct gq_snap_wl *wl = &c->s->wls[w];
    const char *state = gq__check_state_name(u->state);
    char note[700];
    int rc;

    if ((rc = gq__store_set_check(c->st, r->workload_id, r->check, state, u->message, c->now,
                                  c->err)) != GQ_OK ||
        (rc = gq__store_event(c->st, "Workload", wl->ns, wl->name, wl->uid, "Normal",
                              "AdmissionCheckUpdated", u->message, r->state, state, c->now,
                              c->err)) != GQ_OK ||
        wl->state != GQ_WS_RESERVED)
        return rc;
    /* Say where it stands in plain words, with the provider's message (GKE's ETA). */
    snprintf(note, sizeof(note), "%s: ProvisioningRequest %s (attempt %d)%s%s",
             u->state == GQ_CHECK_PENDING ? "waiting for capacity"
             : u->state == GQ_CHECK_READY ? "capacity provisioned"
             : u->state == GQ_CHECK_RETRY ? "provisioning failed, will retry"
                                          : "provisioning rejected",
             r->name, (int)r->attempt, u->message[0] ? ": " : "", u->message);
    return gq__store_set_note(c->st, r->workload_id, "UnsatisfiedAdmissionChecks", note, c->err);
}

/* wl->failed as workloads.failed_flavors, {"flavor": attempts}; NULL when none is left. */
static int failed_json(const struct gq_snapshot *s, const struct gq_snap_wl *wl, char **out)
{
    size_t i, len = 1, cap = 3;

    *out = NULL;
    for (i = 0; i < s->nflavors; i++)
        if (wl->failed[i] > 0)
            cap += strlen(s->flavors[i].name) + 16;
    if (cap == 3)
        return 0;
    if (!(*out = malloc(cap)))
        return -1;
    (*out)[0] = '{';
    for (i = 0; i < s->nflavors; i++) /* flavor names are DNS names: nothing to escape */
        if (wl->failed[i] > 0)
            len += (size_t)snprintf(*out + len, cap - len, "%s\"%s\":%d", len > 1 ? "," : "",
                                    s->flavors[i].name, (int)wl->failed[i]);
    snprintf(*out + len, cap - len, "}");
    return 0;
}

/* Flavor fallback: a failed attempt of check counted against w's flavors, and stored. */
static int count_failure(struct sync *c, int w, const char *check)
{
    const struct gq_snap_cq *cq = &c->s->cqs[c->s->wls[w].cq];
    const struct gq_admission_check_ref every = {NULL, {NULL, 0}}, *ref = &every;
    char *json;
    size_t i;
    int rc;

    for (i = 0; i < cq->nchecks; i++)
        if (strcmp(cq->checks[i].name, check) == 0)
            ref = &cq->checks[i];
    if ((rc = gq__fallback_count(c->s, w, ref)) == 0)
        return GQ_OK;
    if (rc < 0 || failed_json(c->s, &c->s->wls[w], &json) < 0)
        return gq__error(c->err, GQ_ENOMEM, "out of memory counting failed flavors");
    rc = gq__store_set_failed_flavors(c->st, c->s->wls[w].id, json, c->err);
    free(json);
    return rc;
}

/*
 * What Kueue's workload controller does with a check's new state: Rejected
 * deactivates, Retry evicts until the backoff has passed, and a workload
 * whose checks are all Ready is admitted.
 */
static int act(struct sync *c, int w, const struct gq_check_update *u)
{
    bool ready;
    int rc, x = 0;

    c->s->now = c->now;
    if (u->state == GQ_CHECK_REJECTED)
        x = gq__admit_check_reject(c->s, w, u->message, c->d);
    else if (u->state == GQ_CHECK_RETRY)
        x = gq__admit_check_retry(c->s, w, c->now + u->requeue_after_s * 1000, u->message, c->d);
    if (x < 0)
        return gq__error(c->err, GQ_ENOMEM, "out of memory");
    if (u->state == GQ_CHECK_REJECTED || u->state == GQ_CHECK_RETRY)
        return GQ_OK;
    rc = gq__store_checks_all_ready(c->st, c->s->wls[w].id, &ready, c->err);
    if (rc == GQ_OK && ready && gq__admit_checks_ready(c->s, w, c->now, c->d) < 0)
        rc = gq__error(c->err, GQ_ENOMEM, "out of memory");
    return rc;
}

/*
 * A check's new state: recorded and acted on. counted: the attempt failed
 * to provision and the check's config asks for flavor fallback.
 */
static int apply(struct sync *c, int w, const struct gq_provreq_sync *r,
                 const struct gq_check_update *u, bool counted)
{
    int rc;

    if (u->unchanged || (strcmp(r->state, gq__check_state_name(u->state)) == 0 &&
                         strcmp(r->message, u->message) == 0))
        return GQ_OK;
    if ((rc = record(c, w, r, u)) != GQ_OK)
        return rc;
    if (counted && (u->state == GQ_CHECK_RETRY || u->state == GQ_CHECK_REJECTED) &&
        (rc = count_failure(c, w, r->check)) != GQ_OK)
        return rc;
    return act(c, w, u);
}

static bool holds_quota(const struct gq_snapshot *s, int w)
{
    return w >= 0 && (s->wls[w].state == GQ_WS_RESERVED || s->wls[w].state == GQ_WS_ADMITTED);
}

/*
 * One request's new status into its check (Kueue's syncCheckStates). The
 * status is marked seen once its workload was there to judge it.
 */
static int sync_one(struct sync *c, const struct gq_provreq_sync *r)
{
    struct gq_provisioning_config cfg;
    struct gq_provreq_status status;
    struct gq_check_update u;
    int w = gq__snapshot_find(c->s, r->workload_id);
    bool admitted, failed;
    void *keep = NULL;
    int rc;

    if (!holds_quota(c->s, w))
        return GQ_OK;
    if ((rc = gq__store_provreq_synced(c->st, r->id, c->err)) != GQ_OK ||
        (rc = strategy_of(c->st, &c->cache, r->check, &cfg, c->err)) != GQ_OK ||
        (rc = gq__manifest_provreq_status(r->status, &status, &keep, c->err)) != GQ_OK)
        return rc;
    admitted = c->s->wls[w].state == GQ_WS_ADMITTED;
    gq__check_from_provreq(&status, r->attempt, r->retry_count, &cfg, admitted, &u);
    failed = gq__provreq_attempt_failed(&status, admitted);
    gq__manifest_release(keep);
    return apply(c, w, r, &u, failed && cfg.fallback_after > 0);
}

/* ------------------------------------------------------ provisioning timeout */

/* A config's spec: the shortest timeout of any config so far (0: none sets one). */
static int timeout_spec(const char *spec, void *payload)
{
    int64_t *min = payload;
    struct gq_object o;
    int rc;

    memset(&o, 0, sizeof(o));
    rc = gq__manifest_load(NULL, spec, strlen(spec), "stored spec", NULL, NULL, gq__take_object,
                           &o, NULL);
    if (rc == GQ_OK && o.u.prc.timeout_ms > 0 && (!*min || o.u.prc.timeout_ms < *min))
        *min = o.u.prc.timeout_ms;
    gq__object_clear(&o);
    return 0;
}

/* Whether any config sets a timeout (the feature is off by default), and the shortest. */
static int min_timeout(struct gq_store *st, int64_t *out, gq_error *err)
{
    *out = 0;
    return gq__store_timeout_configs(st, timeout_spec, out, err);
}

/* When request r times out (0: it cannot), with its check's config in *cfg. */
static int timeout_of(struct gq_store *st, struct strategies *cache,
                      const struct gq_provreq_sync *r, struct gq_provisioning_config *cfg,
                      int64_t *at, gq_error *err)
{
    struct gq_provreq_status status;
    void *keep = NULL;
    int rc;

    *at = 0;
    memset(&status, 0, sizeof(status));
    if ((rc = strategy_of(st, cache, r->check, cfg, err)) != GQ_OK || !cfg->timeout_ms ||
        (r->status && (rc = gq__manifest_provreq_status(r->status, &status, &keep, err)) != GQ_OK))
        return rc;
    *at = gq__provreq_timeout_at(&status, r->created_at, cfg);
    gq__manifest_release(keep);
    return GQ_OK;
}

/* A request not provisioned in time: a failure of its attempt, as Failed is. */
static int timeout_one(struct sync *c, const struct gq_provreq_sync *r)
{
    struct gq_provisioning_config cfg;
    struct gq_check_update u;
    int w = gq__snapshot_find(c->s, r->workload_id);
    int64_t at;
    int rc;

    if (w < 0 || c->s->wls[w].state != GQ_WS_RESERVED) /* e.g. evicted by another check */
        return GQ_OK;
    if ((rc = timeout_of(c->st, &c->cache, r, &cfg, &at, c->err)) != GQ_OK || !at || at > c->now)
        return rc;
    gq__check_timed_out(r->name, r->attempt, r->retry_count, &cfg, &u);
    return apply(c, w, r, &u, cfg.fallback_after > 0);
}

int gq__engine_provision_deadline(struct gq_store *st, int64_t now, int64_t *next, gq_error *err)
{
    struct gq_provreq_syncs rows = {NULL, 0, 0};
    struct strategies cache = {.n = 0};
    struct gq_provisioning_config cfg;
    int64_t min, at;
    size_t i;
    int rc;

    *next = 0;
    if ((rc = min_timeout(st, &min, err)) != GQ_OK || !min)
        return rc;
    rc = gq__store_provreqs_pending(st, INT64_MAX, &rows, err);
    for (i = 0; rc == GQ_OK && i < rows.n; i++)
        if ((rc = timeout_of(st, &cache, &rows.v[i], &cfg, &at, err)) == GQ_OK && at > now &&
            (!*next || at < *next))
            *next = at;
    gq__store_provreq_syncs_clear(&rows);
    return rc;
}

/* ------------------------------------------------------------------ sync */

/*
 * fn for each request read: pending, those created at or before *before
 * that can time out (gq__store_provreqs_pending); else those with a status
 * not yet synced. All are read before the first is acted on.
 */
static int each_request(struct sync *c, const int64_t *before,
                        int (*fn)(struct sync *c, const struct gq_provreq_sync *r))
{
    struct gq_provreq_syncs rows = {NULL, 0, 0};
    size_t i;
    int rc = before ? gq__store_provreqs_pending(c->st, *before, &rows, c->err)
                    : gq__store_provreqs_unsynced(c->st, &rows, c->err);

    for (i = 0; rc == GQ_OK && i < rows.n; i++)
        rc = fn(c, &rows.v[i]);
    gq__store_provreq_syncs_clear(&rows);
    return rc;
}

int gq__engine_sync_checks(struct gq_store *st, struct gq_snapshot *s, int64_t now,
                           struct gq_decisions *d, gq_error *err)
{
    struct sync c = {st, s, now, d, {.n = 0}, err};
    int64_t min, before;
    int rc;

    if ((rc = each_request(&c, NULL, sync_one)) != GQ_OK ||
        (rc = gq__engine_sync_multikueue(st, s, now, d, err)) != GQ_OK ||
        (rc = min_timeout(st, &min, err)) != GQ_OK || !min)
        return rc;
    /* Only requests older than the shortest timeout can have timed out. */
    before = now - min;
    return each_request(&c, &before, timeout_one);
}
