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

/* One check of the workload: recorded, and its request created when it has one. */
static int one_check(struct gq_store *st, const struct gq_snapshot *s, const struct gq_snap_wl *wl,
                     const char *check, int64_t now, char *note, size_t notelen, gq_error *err)
{
    static const char ac_sql[] = "SELECT spec FROM admission_checks WHERE name = ?1";
    static const char prc_sql[] = "SELECT spec FROM provisioning_configs WHERE name = ?1";
    struct gq_object ac, prc;
    char *ac_text = NULL, *prc_text = NULL;
    int rc;

    memset(&prc, 0, sizeof(prc));
    if ((rc = gq__store_set_check(st, wl->id, check, "Pending", "", now, err)) != GQ_OK ||
        (rc = load(st, ac_sql, check, &ac_text, &ac, err)) != GQ_OK)
        goto out;
    if (!ac_text || !ac.u.ac.controller_name ||
        strcmp(ac.u.ac.controller_name, GQ_PROVREQ_CONTROLLER) != 0)
        goto out; /* another controller's check: it stays Pending */
    if (!ac.u.ac.params_name ||
        (rc = load(st, prc_sql, ac.u.ac.params_name, &prc_text, &prc, err)) != GQ_OK)
        goto out;
    if (!prc_text) {
        rc = gq__store_set_check(st, wl->id, check, "Pending", "the check is not active", now,
                                 err);
        goto out;
    }
    rc = create(st, s, wl, check, &prc.u.prc, 1, now, note, notelen, err);
out:
    free(ac_text);
    free(prc_text);
    gq__object_clear(&ac);
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
