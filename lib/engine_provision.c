/*
 * engine_provision.c: what happens when a workload's quota is reserved in a
 * ClusterQueue with admission checks (kueue-semantics.md §3.2, §3.4): each
 * check that applies to the assigned flavors (onFlavors) is recorded as
 * Pending, and for a check of the provisioning-request controller whose
 * ProvisioningRequestConfig exists, the ProvisioningRequest and its
 * PodTemplates are created, as Kueue names and writes them, in the same
 * transaction as the reservation. A check whose workload uses none of the
 * config's managed resources is Ready at once ("not needed").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "admit_int.h"
#include "engine.h"
#include "error.h"
#include "manifest_load.h"
#include "provision.h"
#include "util.h"

/* Columns: one text. */
static int first_text(int n, const char *const *v, void *payload)
{
    char **out = payload;

    (void)n;
    free(*out);
    *out = v[0] ? strdup(v[0]) : NULL;
    return 0;
}

/* The stored spec of a queue object or a workload, decoded when kind is not NONE. */
static int load(struct gq_store *st, const char *sql, const char *key, char **text,
                struct gq_object *obj, gq_error *err)
{
    int rc;

    *text = NULL;
    memset(obj, 0, sizeof(*obj));
    if ((rc = gq__store_query(st, sql, &key, 1, first_text, text, err)) != GQ_OK || !*text)
        return rc;
    return gq__manifest_load(NULL, *text, strlen(*text), "stored spec", NULL, NULL,
                             gq__take_object, obj, err);
}

static bool applies(const struct gq_snapshot *s, const struct gq_admission_check_ref *c,
                    const struct gq_snap_wl *wl)
{
    size_t i, j;

    if (!c->on_flavors.n)
        return true;
    for (i = 0; i < wl->held.n; i++)
        for (j = 0; j < c->on_flavors.n; j++)
            if (strcmp(s->flavors[wl->held.v[i].fr / (int)s->nres].name, c->on_flavors.v[j]) == 0)
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

/* Create attempt `attempt` of the request for check c. */
static int create(struct gq_store *st, const struct gq_snapshot *s, const struct gq_snap_wl *wl,
                  const char *check, const struct gq_provisioning_config *cfg, int32_t attempt,
                  int64_t now, char *note, size_t notelen, gq_error *err)
{
    static const char wl_sql[] = "SELECT spec FROM workloads WHERE id = ?1";
    struct request r;
    struct gq_kvs ann = {NULL, 0}, params = {NULL, 0};
    char idbuf[24], *spec = NULL, *pr = NULL, *pts = NULL, uid[37];
    const char *id = idbuf;
    int rc;

    memset(&r, 0, sizeof(r));
    snprintf(idbuf, sizeof(idbuf), "%lld", (long long)wl->id);
    if (!(r.name = gq__provreq_name(wl->name, check, attempt)) || request_sets(s, wl, cfg, &r) < 0) {
        rc = gq__error(err, GQ_ENOMEM, "out of memory creating a ProvisioningRequest");
        goto out;
    }
    if (!r.n) {
        rc = gq__store_set_check(st, wl->id, check, "Ready",
                                 "the provisioning request is not needed", now, err);
        goto out;
    }
    if ((rc = gq__store_query(st, wl_sql, &id, 1, first_text, &spec, err)) != GQ_OK ||
        (rc = gq__manifest_annotations(spec ? spec : "{}", &ann, err)) != GQ_OK)
        goto out;
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
    static const char ac_sql[] = "SELECT spec FROM admission_checks WHERE name = ?1";
    static const char prc_sql[] = "SELECT spec FROM provisioning_configs WHERE name = ?1";
    struct gq_object ac;
    char *ac_text = NULL, *prc_text = NULL;
    int rc;

    *mine = *found = false;
    memset(prc, 0, sizeof(*prc));
    if ((rc = load(st, ac_sql, check, &ac_text, &ac, err)) == GQ_OK && ac_text &&
        ac.u.ac.controller_name && strcmp(ac.u.ac.controller_name, GQ_PROVREQ_CONTROLLER) == 0) {
        *mine = true;
        if (ac.u.ac.params_name &&
            (rc = load(st, prc_sql, ac.u.ac.params_name, &prc_text, prc, err)) == GQ_OK)
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

struct sync_row {
    int64_t id, workload_id;
    char *check, *status, *state, *message, *name;
    int32_t attempt, retry_count;
};

struct sync_rows {
    struct sync_row *v;
    size_t n, cap;
    bool failed;
};

/*
 * Columns: workload_id, check_name, attempt, status, state, message,
 * retry_count, name, id.
 */
static int sync_row(int n, const char *const *v, void *payload)
{
    struct sync_rows *rows = payload;
    struct sync_row *r;

    (void)n;
    if (gq__grow(&rows->v, &rows->cap, rows->n, sizeof(*rows->v)) < 0) {
        rows->failed = true;
        return GQ_ENOMEM;
    }
    r = &rows->v[rows->n++];
    r->workload_id = strtoll(v[0], NULL, 10);
    r->check = strdup(v[1]);
    r->attempt = (int32_t)strtol(v[2], NULL, 10);
    r->status = strdup(v[3]);
    r->state = strdup(v[4]);
    r->message = strdup(v[5] ? v[5] : "");
    r->retry_count = (int32_t)strtol(v[6], NULL, 10);
    r->name = strdup(v[7]);
    r->id = strtoll(v[8], NULL, 10);
    if (!r->check || !r->status || !r->state || !r->message || !r->name)
        rows->failed = true;
    return rows->failed ? GQ_ENOMEM : 0;
}

static void rows_free(struct sync_rows *rows)
{
    size_t i;

    for (i = 0; i < rows->n; i++) {
        free(rows->v[i].check);
        free(rows->v[i].status);
        free(rows->v[i].state);
        free(rows->v[i].message);
        free(rows->v[i].name);
    }
    free(rows->v);
}

/* The retry strategy of a check's ProvisioningRequestConfig (Kueue's defaults if none). */
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
    gq__object_clear(&prc);
    return rc;
}

/* The retry strategies read in one sync, by check name (a handful of checks). */
struct strategies {
    struct {
        const char *check;
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
    if ((rc = strategy(st, check, out, err)) == GQ_OK && c->n < 16) {
        c->v[c->n].check = check;
        c->v[c->n++].cfg = *out;
    }
    return rc;
}

/*
 * One request's status into its check (Kueue's syncCheckStates). 1: the
 * check changed. The status is marked seen once its workload was there to
 * judge it.
 */
static int sync_one(struct gq_store *st, const struct gq_snapshot *s, const struct sync_row *r,
                    int64_t now, struct strategies *cache, struct gq_check_update *up,
                    gq_error *err)
{
    struct gq_provisioning_config cfg;
    struct gq_provreq_status status;
    struct gq_check_update u;
    int w = gq__snapshot_find(s, r->workload_id);
    void *keep = NULL;
    int rc;

    if (w < 0 || (s->wls[w].state != GQ_WS_RESERVED && s->wls[w].state != GQ_WS_ADMITTED))
        return 0;
    if ((rc = gq__store_provreq_synced(st, r->id, err)) != GQ_OK ||
        (rc = strategy_of(st, cache, r->check, &cfg, err)) != GQ_OK ||
        (rc = gq__manifest_provreq_status(r->status, &status, &keep, err)) != GQ_OK)
        return rc;
    gq__check_from_provreq(&status, r->attempt, r->retry_count, &cfg,
                           s->wls[w].state == GQ_WS_ADMITTED, &u);
    gq__manifest_release(keep);
    if (u.unchanged || (strcmp(r->state, gq__check_state_name(u.state)) == 0 &&
                        strcmp(r->message, u.message) == 0))
        return 0;
    if ((rc = gq__store_set_check(st, r->workload_id, r->check, gq__check_state_name(u.state),
                                  u.message, now, err)) != GQ_OK)
        return rc;
    rc = gq__store_event(st, "Workload", s->wls[w].ns, s->wls[w].name, s->wls[w].uid, "Normal",
                         "AdmissionCheckUpdated", u.message, r->state,
                         gq__check_state_name(u.state), now, err);
    if (rc == GQ_OK && s->wls[w].state == GQ_WS_RESERVED) {
        /* Say where it stands in plain words, with the provider's message (GKE's ETA). */
        char note[700];

        snprintf(note, sizeof(note), "%s: ProvisioningRequest %s (attempt %d)%s%s",
                 u.state == GQ_CHECK_PENDING ? "waiting for capacity"
                 : u.state == GQ_CHECK_READY ? "capacity provisioned"
                 : u.state == GQ_CHECK_RETRY ? "provisioning failed, will retry"
                                             : "provisioning rejected",
                 r->name, (int)r->attempt, u.message[0] ? ": " : "", u.message);
        rc = gq__store_set_note(st, r->workload_id, "UnsatisfiedAdmissionChecks", note, err);
    }
    *up = u;
    return rc == GQ_OK ? 1 : rc;
}

/* Columns: state. */
static int all_ready_row(int n, const char *const *v, void *payload)
{
    bool *ready = payload;

    (void)n;
    *ready = *ready && strcmp(v[0], "Ready") == 0;
    return 0;
}

int gq__engine_sync_checks(struct gq_store *st, struct gq_snapshot *s, int64_t now,
                           struct gq_decisions *d, gq_error *err)
{
    static const char sql[] =
        "SELECT p.workload_id, p.check_name, p.attempt, p.status, c.state, c.message, "
        "c.retry_count, p.name, p.id FROM provisioning_requests p JOIN workload_checks c "
        "ON c.workload_id = p.workload_id AND c.name = p.check_name "
        "WHERE p.deleted_at IS NULL AND p.status IS NOT NULL "
        "AND p.status IS NOT p.synced_status ORDER BY p.workload_id";
    static const char checks_sql[] = "SELECT state FROM workload_checks WHERE workload_id = ?1";
    struct sync_rows rows = {NULL, 0, 0, false};
    struct strategies cache = {.n = 0};
    char idbuf[24];
    const char *id = idbuf;
    size_t i;
    int rc, w;

    rc = gq__store_query(st, sql, NULL, 0, sync_row, &rows, err);
    if (rows.failed)
        rc = gq__error(err, GQ_ENOMEM, "out of memory reading ProvisioningRequests");
    for (i = 0; rc == GQ_OK && i < rows.n; i++) {
        struct gq_check_update u;
        bool ready = true;

        if ((rc = sync_one(st, s, &rows.v[i], now, &cache, &u, err)) <= 0)
            continue;
        rc = GQ_OK;
        w = gq__snapshot_find(s, rows.v[i].workload_id);
        s->now = now;
        if (u.state == GQ_CHECK_REJECTED) { /* deactivated, as Kueue's workload controller */
            if (gq__admit_check_reject(s, w, u.message, d) < 0)
                rc = gq__error(err, GQ_ENOMEM, "out of memory");
            continue;
        }
        if (u.state == GQ_CHECK_RETRY) { /* evicted, back in the queue after the backoff */
            if (gq__admit_check_retry(s, w, now + u.requeue_after_s * 1000, u.message, d) < 0)
                rc = gq__error(err, GQ_ENOMEM, "out of memory");
            continue;
        }
        /* The check changed: are they all Ready now? */
        snprintf(idbuf, sizeof(idbuf), "%lld", (long long)rows.v[i].workload_id);
        rc = gq__store_query(st, checks_sql, &id, 1, all_ready_row, &ready, err);
        if (rc == GQ_OK && ready && w >= 0 && gq__admit_checks_ready(s, w, d) < 0)
            rc = gq__error(err, GQ_ENOMEM, "out of memory");
    }
    rows_free(&rows);
    return rc;
}
