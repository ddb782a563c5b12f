/*
 * engine_load.c: the admission snapshot built from the store (DESIGN.md,
 * "engine"). Queue objects come back from their canonical JSON through the
 * manifest decoder, once per text (engine_specs.c: the snapshot borrows
 * their parts); quotas from the quotas table; workloads from their
 * podsets column; usage from the usage rows. Runs inside the engine's
 * transaction, so the snapshot is one consistent view.
 *
 * Tree nodes: ClusterQueues first (node i is cqs[i]), then cohorts, named
 * ones and the implicit ones a ClusterQueue or a Cohort's parentName names.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "admit_int.h"
#include "engine.h"
#include "error.h"
#include "manifest_load.h"
#include "manifest_snapshot.h"
#include "provision.h"
#include "state.h"
#include "store.h"
#include "store_load.h"

struct qrow {
    int owner;      /* tree node */
    int group, findex, flavor, res;
    int64_t nominal, bl, ll;
};

struct loader {
    struct gq_snapshot *s;
    struct gq_store *st;
    gq_error *err;
    char table[32];            /* the table being read, for messages */
    const struct gq_object **flavors; /* decoded ResourceFlavors, by interned index */
    size_t nflavor_objs;
    struct qrow *q;
    size_t nq, capq;
    struct gq_intern cohorts;
    char **cohort_parent;      /* per cohort index: parentName or NULL */
    size_t ncohort_parent, capparent;
    int64_t *cohort_weight;    /* per cohort index: weight in milli-units + 1, 0 if none */
    size_t capweight;
    const struct gq_object **cqobjs; /* decoded ClusterQueues */
    size_t capcq;
    struct gq_intern cqnames;
    struct gq_intern checks;
    int32_t *check_fallback;   /* per check: its config's flavor-fallback-after, 0: off */
    size_t capcheckfb;
    struct gq_intern prcs;     /* ProvisioningRequestConfigs that set a fallback */
    int32_t *prc_fallback;     /* parallel to prcs */
    size_t capprcfb;
    int64_t *ids;              /* workload ids, ascending, parallel to s->wls */
    size_t capwls, capids, caplqs, capnss;
    struct gq_intern lqkeys;   /* "namespace/name", index = s->lqs index */
    struct urow {
        int w, flavor, res;
        int64_t amount;
    } *u;                      /* usage rows, resolved once the name tables are complete */
    size_t nu, capu;
    struct frow {
        int w, flavor;
        int32_t n;
    } *failed;                 /* flavor fallback counts, resolved with the usage rows */
    size_t nfailed, capfailed;
    struct arow {
        int lq, res;           /* lq -1: the Configuration's resourceWeights */
        double v;
    } *afs;                    /* admission fair sharing: consumed amounts and weights */
    size_t nafs, capafs;
};

static int nomem(struct loader *l)
{
    return gq__error(l->err, GQ_ENOMEM, "out of memory building the admission snapshot");
}

/* ------------------------------------------------------- decoding specs */

/*
 * A stored canonical spec back into an object (the store's to keep: see
 * gq__specs_decode). It is text this program wrote, so one that does not
 * decode means the file is damaged.
 */
static int decode_spec(struct loader *l, const char *spec, const struct gq_object **out)
{
    gq_error why = {0, ""};
    int rc = gq__specs_decode(l->st, spec, out, &why);

    if (rc == GQ_ENOMEM)
        return gq__error(l->err, rc, "%s", why.msg);
    if (rc != GQ_OK)
        return gq__store_damaged(l->st, l->err, "%s: %.100s", l->table, why.msg);
    return GQ_OK;
}

/* ----------------------------------------------------------------- rows */

static int flavor_row(const struct gq_load_spec *v, void *p)
{
    struct loader *l = p;
    int f = gq__intern(&l->s->flavor_names, v->name);
    size_t cap = l->nflavor_objs;

    if (f < 0 || gq__grow(&l->flavors, &cap, (size_t)f, sizeof(*l->flavors)) < 0)
        return nomem(l);
    l->nflavor_objs = cap;
    return decode_spec(l, v->spec, &l->flavors[f]);
}

static int quota_row(const struct gq_load_quota *v, void *p)
{
    struct loader *l = p;
    struct qrow *r;
    int owner;

    if (strcmp(v->owner_kind, "ClusterQueue") == 0) {
        if ((owner = gq__intern_find(&l->cqnames, v->owner)) < 0)
            return 0;
    } else if ((owner = gq__intern(&l->cohorts, v->owner)) >= 0) {
        owner = -2 - owner; /* a cohort: a node once the queues are counted */
    } else {
        return nomem(l);
    }
    if (gq__grow(&l->q, &l->capq, l->nq, sizeof(*l->q)) < 0)
        return nomem(l);
    r = &l->q[l->nq++];
    r->owner = owner;
    r->group = (int)v->group_index;
    r->findex = (int)v->flavor_index;
    r->flavor = gq__intern(&l->s->flavor_names, v->flavor);
    r->res = gq__intern(&l->s->res_names, v->resource);
    r->nominal = v->nominal;
    r->bl = v->has_borrowing_limit ? v->borrowing_limit : GQ_NO_LIMIT;
    r->ll = v->has_lending_limit ? v->lending_limit : GQ_NO_LIMIT;
    return r->flavor < 0 || r->res < 0 ? nomem(l) : 0;
}

static int cohort_row(const struct gq_load_spec *v, void *p)
{
    struct loader *l = p;
    int c = gq__intern(&l->cohorts, v->name);
    const struct gq_object *o;
    int64_t w;

    if (c < 0 || gq__grow(&l->cohort_parent, &l->capparent, (size_t)c, sizeof(char *)) < 0)
        return nomem(l);
    if ((size_t)c >= l->ncohort_parent)
        l->ncohort_parent = (size_t)c + 1;
    if (gq__grow(&l->cohort_weight, &l->capweight, (size_t)c, sizeof(int64_t)) < 0)
        return nomem(l);
    if (decode_spec(l, v->spec, &o) == GQ_OK) {
        if (gq_quantity_milli_value(&w, &o->u.cohort.fair_weight) != GQ_OK)
            w = 1000;
        l->cohort_weight[c] = w + 1; /* 0: not given */
    }
    if (v->parent && !(l->cohort_parent[c] = strdup(v->parent)))
        return nomem(l);
    return 0;
}

static int cq_row(const struct gq_load_spec *v, void *p)
{
    struct loader *l = p;
    int q = gq__intern(&l->cqnames, v->name);
    int rc;

    if (q < 0 || gq__grow(&l->cqobjs, &l->capcq, (size_t)q, sizeof(*l->cqobjs)) < 0)
        return nomem(l);
    if ((rc = decode_spec(l, v->spec, &l->cqobjs[q])) != GQ_OK)
        return rc;
    if (l->cqobjs[q]->u.cq.cohort && gq__intern(&l->cohorts, l->cqobjs[q]->u.cq.cohort) < 0)
        return nomem(l);
    return 0;
}

/* Only a config that sets a flavor fallback is remembered. */
static int prc_row(const struct gq_load_spec *v, void *p)
{
    struct loader *l = p;
    const struct gq_object *o;
    int c, rc;

    if ((rc = decode_spec(l, v->spec, &o)) == GQ_OK && o->u.prc.fallback_after > 0) {
        if ((c = gq__intern(&l->prcs, v->name)) < 0 ||
            gq__grow(&l->prc_fallback, &l->capprcfb, (size_t)c, sizeof(int32_t)) < 0)
            rc = nomem(l);
        else
            l->prc_fallback[c] = o->u.prc.fallback_after;
    }
    return rc;
}

/* A check of the provisioning controller takes its config's fallback. */
static int check_row(const struct gq_load_spec *v, void *p)
{
    struct loader *l = p;
    int c = gq__intern(&l->checks, v->name), f;
    const struct gq_object *o;
    int rc;

    if (c < 0 || gq__grow(&l->check_fallback, &l->capcheckfb, (size_t)c, sizeof(int32_t)) < 0)
        return nomem(l);
    if ((rc = decode_spec(l, v->spec, &o)) == GQ_OK && o->u.ac.controller_name &&
        strcmp(o->u.ac.controller_name, GQ_PROVREQ_CONTROLLER) == 0 && o->u.ac.params_name &&
        (f = gq__intern_find(&l->prcs, o->u.ac.params_name)) >= 0)
        l->check_fallback[c] = l->prc_fallback[f];
    return rc;
}

static int afs_add(struct loader *l, int lq, const char *res, double v)
{
    int r = gq__intern(&l->s->res_names, res);

    if (r < 0 || gq__grow(&l->afs, &l->capafs, l->nafs, sizeof(*l->afs)) < 0)
        return nomem(l);
    l->afs[l->nafs++] = (struct arow){lq, r, v};
    return 0;
}

/* A LocalQueue's stored consumed resources, "resource=quantity" lines (schema/0016). */
static int afs_consumed(struct loader *l, int lq, const char *text)
{
    const char *line = text, *eq, *end;
    char res[256];
    gq_quantity q;
    int rc;

    for (; *line; line = *end ? end + 1 : end) {
        end = line + strcspn(line, "\n");
        eq = memchr(line, '=', (size_t)(end - line));
        if (!eq || (size_t)(eq - line) >= sizeof(res) ||
            gq_quantity_parse(&q, eq + 1, (size_t)(end - eq - 1), NULL) != GQ_OK)
            return gq__store_damaged(l->st, l->err, "lq_afs_usage: bad line in %.100s", text);
        snprintf(res, sizeof(res), "%.*s", (int)(eq - line), line);
        if ((rc = afs_add(l, lq, res, (double)q.mantissa * pow(10.0, q.scale))) != 0)
            return rc;
    }
    return 0;
}

static double weight_of(const char *text)
{
    gq_quantity q;
    int64_t milli;

    if (!text || gq_quantity_parse(&q, text, strlen(text), NULL) != GQ_OK ||
        gq_quantity_milli_value(&milli, &q) != GQ_OK)
        return 1.0;
    return (double)milli / 1000.0;
}

static int lq_row(const struct gq_load_local_queue *v, void *p)
{
    struct loader *l = p;
    struct gq_snapshot *s = l->s;
    struct gq_snap_lq *lq;
    char key[600];

    if (gq__grow(&s->lqs, &l->caplqs, s->nlqs, sizeof(*s->lqs)) < 0)
        return nomem(l);
    lq = &s->lqs[s->nlqs++];
    lq->ns = strdup(v->ns);
    lq->name = strdup(v->name);
    lq->cq_name = strdup(v->cluster_queue);
    lq->cq = gq__intern_find(&l->cqnames, v->cluster_queue);
    lq->stopped = strcmp(v->stop_policy, "None") != 0;
    snprintf(key, sizeof(key), "%s/%s", v->ns, v->name);
    if (gq__intern(&l->lqkeys, key) != (int)s->nlqs - 1)
        return nomem(l);
    lq->drain = strcmp(v->stop_policy, "HoldAndDrain") == 0;
    lq->weight = weight_of(v->weight);
    if (!lq->ns || !lq->name || !lq->cq_name)
        return nomem(l);
    if (!v->consumed)
        return 0;
    lq->afs_known = true;
    lq->afs_last = v->last_update;
    return afs_consumed(l, (int)s->nlqs - 1, v->consumed);
}

static int ns_row(const struct gq_load_spec *v, void *p)
{
    struct loader *l = p;
    struct gq_snapshot *s = l->s;
    const struct gq_object *o;
    int rc;

    if (gq__grow(&s->nss, &l->capnss, s->nnss, sizeof(*s->nss)) < 0)
        return nomem(l);
    if ((rc = decode_spec(l, v->spec, &o)) != GQ_OK)
        return rc;
    s->nss[s->nnss].name = strdup(v->name);
    s->nss[s->nnss++].labels = o->meta.labels; /* borrowed */
    return 0;
}

static int config_row(const struct gq_load_spec *v, void *p)
{
    struct loader *l = p;
    const struct gq_object *o;
    size_t i;
    int rc;

    if ((rc = decode_spec(l, v->spec, &o)) != GQ_OK)
        return rc;
    l->s->fair_sharing = o->u.config.fair_sharing;
    for (i = 0; i < o->u.config.preemption_strategies.n; i++) {
        const char *st = o->u.config.preemption_strategies.v[i];

        l->s->fs_final_share |= strcmp(st, "LessThanOrEqualToFinalShare") == 0;
        l->s->fs_initial_share |= strcmp(st, "LessThanInitialShare") == 0;
    }
    if (!o->u.config.preemption_strategies.n)
        l->s->fs_final_share = l->s->fs_initial_share = true;
    l->s->afs = o->u.config.admission_fair_sharing;
    l->s->afs_half_life_ms = o->u.config.afs_half_life_ms;
    l->s->afs_sampling_ms = o->u.config.afs_sampling_ms;
    for (i = 0; rc == 0 && i < o->u.config.afs_weights.n; i++)
        rc = afs_add(l, -1, o->u.config.afs_weights.v[i].key,
                     strtod(o->u.config.afs_weights.v[i].value, NULL));
    gq__engine_wfpr(&o->u.config, &l->s->wfpr);
    return rc;
}

static enum gq_wstate wstate(const char *state)
{
    enum gq_wl_state s;

    if (!gq__wl_state_parse(state, &s))
        return GQ_WS_ADMITTED; /* the snapshot reads GQ_SQL_IN_ADMISSION's states only */
    if (s == GQ_WL_PENDING)
        return GQ_WS_PENDING;
    if (s == GQ_WL_RESERVED)
        return GQ_WS_RESERVED;
    return GQ_WS_ADMITTED; /* admitted, running */
}

static char *dup_or_null(const char *v)
{
    return v ? strdup(v) : NULL;
}

/*
 * The scheduling hash (Kueue's SchedulingEquivalenceHashing): the podsets
 * column holds everything flavor assignment looks at (counts, requests,
 * nodeSelector, tolerations, affinity), so equal text means equal fate.
 */
static uint64_t shape_of(const char *podsets)
{
    uint64_t h = 14695981039346656037ull;

    while (*podsets)
        h = (h ^ (unsigned char)*podsets++) * 1099511628211ull;
    return h;
}

/* The PodsReady condition's reason as the snapshot's enum. */
static enum gq_pods_ready pods_ready_of(const char *reason)
{
    if (!reason)
        return GQ_PR_NONE;
    if (strcmp(reason, "Started") == 0 || strcmp(reason, "Recovered") == 0)
        return GQ_PR_READY;
    return strcmp(reason, "WaitForRecovery") == 0 ? GQ_PR_WAIT_RECOVERY : GQ_PR_WAIT_START;
}

/*
 * uid, namespace, name and job name in one block, uid's (100,000 workloads:
 * 300,000 fewer allocations and their headers; gq__snapshot_free frees uid).
 */
static int names(struct gq_snap_wl *wl, const struct gq_load_workload *v)
{
    size_t nu = strlen(v->uid) + 1, nn = strlen(v->ns) + 1, nm = strlen(v->name) + 1;
    size_t nj = strlen(v->job_name) + 1;
    char *b = malloc(nu + nn + nm + nj);

    if (!b)
        return GQ_ENOMEM;
    wl->uid = memcpy(b, v->uid, nu);
    wl->ns = memcpy(b + nu, v->ns, nn);
    wl->name = memcpy(b + nu + nn, v->name, nm);
    wl->job_name = memcpy(b + nu + nn + nm, v->job_name, nj);
    return GQ_OK;
}

static int wl_row(const struct gq_load_workload *v, void *p)
{
    struct loader *l = p;
    struct gq_snapshot *s = l->s;
    struct gq_snap_wl *wl;
    int rc;

    if (gq__grow(&s->wls, &l->capwls, s->nwls, sizeof(*s->wls)) < 0 ||
        gq__grow(&l->ids, &l->capids, s->nwls, sizeof(*l->ids)) < 0)
        return nomem(l);
    wl = &s->wls[s->nwls];
    l->ids[s->nwls++] = wl->id = v->id;
    if ((rc = names(wl, v)) != GQ_OK)
        return nomem(l);
    wl->lq = -1;
    wl->cq = -1;
    wl->priority = (int32_t)v->priority;
    wl->state = wstate(v->state);
    wl->reason = dup_or_null(v->reason);
    wl->message = dup_or_null(v->message);
    wl->inadmissible = dup_or_null(v->inadmissible);
    wl->order_ms = v->queued_at;
    wl->reserved_ms = v->reserved_at;
    wl->evicted = v->evicted;
    wl->shape = shape_of(v->podsets);
    wl->requeue_at = v->requeue_at;
    wl->admitted_ms = v->admitted_at;
    wl->ready_ms = v->pods_ready_at;
    wl->pods_ready = pods_ready_of(v->pods_ready_reason);
    wl->requeues = (int32_t)v->requeue_count;
    if (v->local_queue) {
        char key[600];

        snprintf(key, sizeof(key), "%s/%s", v->ns, v->local_queue);
        wl->lq = gq__intern_find(&l->lqkeys, key);
    }
    if (wl->state != GQ_WS_PENDING && v->cluster_queue)
        wl->cq = gq__intern_find(&l->cqnames, v->cluster_queue);
    else if (wl->lq >= 0)
        wl->cq = s->lqs[wl->lq].cq;
    rc = gq__specs_podsets(l->st, s, wl, v->podsets, wl->shape, l->err);
    if (rc == GQ_EIO) /* text this program wrote: it parsed once */
        return gq__store_damaged(l->st, l->err,
                                 "workloads row %" PRId64 ": podsets is not valid JSON", wl->id);
    return rc;
}

static int find_wl(const struct loader *l, int64_t id)
{
    size_t lo = 0, hi = l->s->nwls;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (l->ids[mid] < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < l->s->nwls && l->ids[lo] == id ? (int)lo : -1;
}

static int usage_row(const struct gq_load_usage *v, void *p)
{
    struct loader *l = p;
    int w = find_wl(l, v->workload_id);
    int f = gq__intern(&l->s->flavor_names, v->flavor);
    int r = gq__intern(&l->s->res_names, v->resource);

    if (w < 0)
        return 0;
    if (f < 0 || r < 0 || gq__grow(&l->u, &l->capu, l->nu, sizeof(*l->u)) < 0)
        return nomem(l);
    l->u[l->nu++] = (struct urow){w, f, r, v->amount};
    return 0;
}

static int failed_row(const struct gq_load_failed *v, void *p)
{
    struct loader *l = p;
    int w = find_wl(l, v->workload_id);
    int f = gq__intern_find(&l->s->flavor_names, v->flavor);

    if (w < 0 || f < 0 || v->attempts <= 0) /* a flavor no queue names any more */
        return 0;
    if (gq__grow(&l->failed, &l->capfailed, l->nfailed, sizeof(*l->failed)) < 0)
        return nomem(l);
    l->failed[l->nfailed++] = (struct frow){w, f, (int32_t)v->attempts};
    return 0;
}

/*
 * A workload with admission-check rows: its decisions touch more than its
 * own row, and never go to the journal.
 */
static int checks_row(int64_t workload_id, void *p)
{
    struct loader *l = p;
    int w = find_wl(l, workload_id);

    if (w >= 0)
        l->s->wls[w].has_checks = true;
    return 0;
}

/* ---------------------------------------------------------------- reads */

/* The tables in the order the snapshot needs them (names first, then what refers to them). */
static int read_all(struct loader *l)
{
    const struct gq_snapshot_readers r = {
        flavor_row, cohort_row, cq_row,    prc_row,     check_row,  ns_row,
        config_row, quota_row,  lq_row,    wl_row,      usage_row,  failed_row,
        checks_row, l,          l->table,  sizeof(l->table)};

    return gq__store_load_snapshot(l->st, &r, l->err);
}

/* ----------------------------------------------------------- assembling */

/* Cohort nodes: one per cohort name, parents included (implicit roots). */
static int cohort_nodes(struct loader *l)
{
    struct gq_snapshot *s = l->s;
    size_t i, ncq = l->cqnames.n;
    int parent;

    for (i = 0; i < l->cohorts.n; i++) /* parents may add names as we go */
        if (i < l->ncohort_parent && l->cohort_parent[i] &&
            gq__intern(&l->cohorts, l->cohort_parent[i]) < 0)
            return nomem(l);
    s->ncqs = ncq;
    s->ncohorts = l->cohorts.n;
    if (!(s->cohort_names = calloc(s->ncohorts + 1, sizeof(char *))))
        return nomem(l);
    for (i = 0; i < s->ncohorts; i++)
        if (!(s->cohort_names[i] = strdup(l->cohorts.names[i])))
            return nomem(l);
    if (gq__qtree_init(&s->tree, ncq + s->ncohorts, s->flavor_names.n * s->nres) < 0)
        return nomem(l);
    for (i = 0; i < s->ncohorts; i++) {
        if (i >= l->ncohort_parent || !l->cohort_parent[i])
            continue;
        parent = gq__intern_find(&l->cohorts, l->cohort_parent[i]);
        gq__qtree_set_parent(&s->tree, (int)(ncq + i), (int)ncq + parent);
    }
    return GQ_OK;
}

static int flavors(struct loader *l)
{
    struct gq_snapshot *s = l->s;
    size_t i;

    s->nflavors = s->flavor_names.n;
    if (!(s->flavors = calloc(s->nflavors + 1, sizeof(*s->flavors))))
        return nomem(l);
    for (i = 0; i < s->nflavors; i++) {
        if (!(s->flavors[i].name = strdup(s->flavor_names.names[i])))
            return nomem(l);
        if (i < l->nflavor_objs && l->flavors[i] &&
            l->flavors[i]->kind == GQ_KIND_RESOURCE_FLAVOR) {
            s->flavors[i].exists = true;
            s->flavors[i].spec = l->flavors[i]->u.flavor; /* borrowed */
        }
    }
    return GQ_OK;
}

static int node_of(const struct loader *l, int owner)
{
    return owner >= 0 ? owner : (int)l->cqnames.n + (-2 - owner);
}

/* Quota rows into the tree; a ClusterQueue's rows also give its resource groups. */
static int quotas(struct loader *l)
{
    struct gq_snapshot *s = l->s;
    struct gq_qtree *t = &s->tree;
    size_t i;

    for (i = 0; i < l->nq; i++) {
        const struct qrow *r = &l->q[i];
        int node = node_of(l, r->owner), fr = r->flavor * (int)s->nres + r->res;

        GQ_Q(t, nominal, node, fr) = r->nominal;
        GQ_Q(t, blimit, node, fr) = r->bl;
        GQ_Q(t, llimit, node, fr) = r->ll;
        GQ_Q(t, defined, node, fr) = true;
    }
    return GQ_OK;
}

static int push_int(int **v, size_t *n, int x)
{
    size_t i;
    int *nv;

    for (i = 0; i < *n; i++)
        if ((*v)[i] == x)
            return 0;
    if (!(nv = realloc(*v, (*n + 1) * sizeof(int))))
        return -1;
    nv[(*n)++] = x;
    *v = nv;
    return 0;
}

/* A queue's resource groups, from its quota rows (ordered by group, flavor index). */
static int groups(struct loader *l, int q, struct gq_snap_cq *cq)
{
    struct gq_snapshot *s = l->s;
    size_t i;

    if (!(cq->group_of_res = malloc((s->nres ? s->nres : 1) * sizeof(int))))
        return nomem(l);
    for (i = 0; i < s->nres; i++)
        cq->group_of_res[i] = -1;
    for (i = 0; i < l->nq; i++) {
        const struct qrow *r = &l->q[i];
        struct gq_snap_group *g;

        if (r->owner != q)
            continue;
        if ((size_t)r->group >= cq->ngroups) {
            struct gq_snap_group *ng = realloc(cq->groups, (size_t)(r->group + 1) * sizeof(*ng));

            if (!ng)
                return nomem(l);
            memset(ng + cq->ngroups, 0, ((size_t)r->group + 1 - cq->ngroups) * sizeof(*ng));
            cq->groups = ng;
            cq->ngroups = (size_t)r->group + 1;
        }
        g = &cq->groups[r->group];
        if (push_int(&g->flavors, &g->nflavors, r->flavor) < 0 ||
            push_int(&g->res, &g->nres, r->res) < 0)
            return nomem(l);
        cq->group_of_res[r->res] = r->group;
    }
    return GQ_OK;
}

static enum gq_policy policy(const char *p)
{
    if (!p || strcmp(p, "Never") == 0)
        return GQ_POLICY_NEVER;
    if (strcmp(p, "LowerPriority") == 0)
        return GQ_POLICY_LOWER;
    if (strcmp(p, "LowerOrNewerEqualPriority") == 0)
        return GQ_POLICY_LOWER_OR_NEWER_EQUAL;
    return GQ_POLICY_ANY;
}

/* Kueue's Active condition: missing flavors or checks, stopped, a cohort cycle. */
static void activity(struct loader *l, struct gq_snap_cq *cq)
{
    struct gq_snapshot *s = l->s;
    size_t g, f;

    cq->active = true;
    for (g = 0; g < cq->ngroups && cq->active; g++) {
        for (f = 0; f < cq->groups[g].nflavors && cq->active; f++) {
            if (!s->flavors[cq->groups[g].flavors[f]].exists) {
                cq->active = false;
                snprintf(cq->inactive_reason, sizeof(cq->inactive_reason),
                         "FlavorNotFound: Can't admit new workloads; flavor %s not found",
                         s->flavors[cq->groups[g].flavors[f]].name);
            }
        }
    }
    for (g = 0; g < cq->nchecks && cq->active; g++) {
        if (gq__intern_find(&l->checks, cq->checks[g].name) < 0) {
            cq->active = false;
            snprintf(cq->inactive_reason, sizeof(cq->inactive_reason),
                     "AdmissionCheckNotFound: Can't admit new workloads; admission check %s "
                     "not found", cq->checks[g].name);
        }
    }
    if (cq->active && cq->stopped) {
        cq->active = false;
        snprintf(cq->inactive_reason, sizeof(cq->inactive_reason), "Stopped");
    }
    if (cq->active && s->tree.cycle[cq->cohort >= 0 ? cq->cohort : cq->node]) {
        cq->active = false;
        snprintf(cq->inactive_reason, sizeof(cq->inactive_reason), "cohort cycle");
    }
}

/* admissionChecksStrategy: a check with no onFlavors applies to every flavor. */
static int check_flavors(struct loader *l, struct gq_snap_cq *cq, const struct gq_cluster_queue *spec)
{
    struct gq_snapshot *s = l->s;
    size_t i, j;
    int f;

    for (i = 0; i < spec->nchecks; i++) {
        if (!spec->checks[i].on_flavors.n) {
            cq->has_checks = true;
            continue;
        }
        if (!cq->check_flavors && !(cq->check_flavors = calloc(s->nflavors + 1, sizeof(bool))))
            return nomem(l);
        for (j = 0; j < spec->checks[i].on_flavors.n; j++)
            if ((f = gq__intern_find(&s->flavor_names, spec->checks[i].on_flavors.v[j])) >= 0)
                cq->check_flavors[f] = true;
    }
    return GQ_OK;
}

/*
 * Flavor fallback: per flavor of the queue, the smallest limit among its
 * checks that apply to that flavor and whose config sets one.
 */
static int fallback_limits(struct loader *l, struct gq_snap_cq *cq)
{
    struct gq_snapshot *s = l->s;
    size_t i, g, k;
    int32_t n;
    int c, f;

    for (i = 0; i < cq->nchecks; i++) {
        c = gq__intern_find(&l->checks, cq->checks[i].name);
        if (c < 0 || (size_t)c >= l->capcheckfb || !(n = l->check_fallback[c]))
            continue;
        if (!cq->fallback_after &&
            !(cq->fallback_after = calloc(s->nflavors + 1, sizeof(*cq->fallback_after))))
            return nomem(l);
        for (g = 0; g < cq->ngroups; g++) {
            for (k = 0; k < cq->groups[g].nflavors; k++) {
                f = cq->groups[g].flavors[k];
                if (gq__check_on_flavor(s, &cq->checks[i], f) &&
                    (!cq->fallback_after[f] || n < cq->fallback_after[f]))
                    cq->fallback_after[f] = n;
            }
        }
    }
    return GQ_OK;
}

static int cluster_queue(struct loader *l, int q)
{
    struct gq_snapshot *s = l->s;
    struct gq_snap_cq *cq = &s->cqs[q];
    const struct gq_cluster_queue *spec = &l->cqobjs[q]->u.cq;
    int64_t w;
    int rc;

    if (!(cq->name = strdup(l->cqnames.names[q])))
        return nomem(l);
    cq->node = q;
    cq->sticky = -1;
    cq->cohort = spec->cohort ? (int)l->cqnames.n + gq__intern_find(&l->cohorts, spec->cohort)
                              : -1;
    if (cq->cohort >= 0)
        gq__qtree_set_parent(&s->tree, q, cq->cohort);
    cq->stopped = spec->stop_policy && strcmp(spec->stop_policy, "None") != 0;
    cq->drain = spec->stop_policy && strcmp(spec->stop_policy, "HoldAndDrain") == 0;
    if ((rc = check_flavors(l, cq, spec)) != GQ_OK)
        return rc;
    /* The check list, borrowed by the snapshot (the engine reads it at reservation). */
    cq->checks = spec->checks;
    cq->nchecks = spec->nchecks;
    cq->fifo = spec->queueing_strategy && strcmp(spec->queueing_strategy, "StrictFIFO") == 0
                   ? GQ_STRICT_FIFO
                   : GQ_BEST_EFFORT_FIFO;
    cq->within_cq = policy(spec->within_cluster_queue);
    cq->reclaim = policy(spec->reclaim_within_cohort);
    cq->borrow_within = policy(spec->borrow_within_cohort);
    cq->has_threshold = spec->has_max_priority_threshold;
    cq->threshold = spec->max_priority_threshold;
    cq->borrow_try_next = spec->when_can_borrow && !strcmp(spec->when_can_borrow, "TryNextFlavor");
    cq->preempt_try_next =
        !spec->when_can_preempt || !strcmp(spec->when_can_preempt, "TryNextFlavor");
    cq->preemption_over_borrowing = spec->fungibility_preference &&
                                    !strcmp(spec->fungibility_preference, "PreemptionOverBorrowing");
    cq->weight_milli = gq_quantity_milli_value(&w, &spec->fair_weight) == GQ_OK ? w : 1000;
    cq->afs = s->afs && spec->admission_mode &&
              strcmp(spec->admission_mode, "UsageBasedAdmissionFairSharing") == 0;
    cq->null_selector = spec->namespace_selector == NULL;
    if (spec->namespace_selector &&
        (rc = gq__manifest_selector(spec->namespace_selector, &cq->ns_selector, l->err)) != GQ_OK)
        return rc;
    if ((rc = groups(l, q, cq)) != GQ_OK)
        return rc;
    return fallback_limits(l, cq);
}

/* Each pod set of a queue that accounts pods requests one pod per pod. */
static int pods_entries(struct gq_snapshot *s)
{
    size_t i, j, k;

    if ((s->res_pods = gq__intern_find(&s->res_names, "pods")) < 0)
        return 0;
    for (i = 0; i < s->nwls; i++) {
        for (j = 0; j < s->wls[i].nps; j++) {
            struct gq_snap_ps *ps = &s->wls[i].ps[j];
            bool has = false;

            for (k = 0; k < ps->nres; k++)
                has = has || ps->res[k] == s->res_pods;
            if (has)
                continue;
            ps->res[ps->nres] = s->res_pods;
            ps->per_pod[ps->nres] = 1;
            ps->adm_flavor[ps->nres++] = -1;
        }
    }
    return 0;
}

static void heights(struct gq_snapshot *s)
{
    int maxd = 0, d;
    size_t i;

    for (i = 0; i < s->tree.nnodes; i++)
        maxd = s->tree.depth[i] > maxd ? s->tree.depth[i] : maxd;
    for (d = maxd; d > 0; d--) {
        for (i = 0; i < s->tree.nnodes; i++) {
            int p = s->tree.parent[i], h;

            if (s->tree.depth[i] != d || p < 0)
                continue;
            h = i < s->ncqs ? 1 : s->heights[i] + 1;
            if (h > s->heights[p])
                s->heights[p] = h;
        }
    }
}

/*
 * Admission fair sharing (afs.h): per resource, the Configuration's weights
 * (default 1) and each LocalQueue's stored consumed amounts.
 */
static int afs_rows(struct loader *l)
{
    struct gq_snapshot *s = l->s;
    size_t i;

    if (!s->afs)
        return GQ_OK;
    if (!(s->afs_weights = malloc((s->nres + 1) * sizeof(double))))
        return nomem(l);
    for (i = 0; i < s->nres; i++)
        s->afs_weights[i] = 1.0;
    for (i = 0; i < l->nafs; i++) {
        const struct arow *a = &l->afs[i];
        struct gq_snap_lq *lq = a->lq >= 0 ? &s->lqs[a->lq] : NULL;

        if (!lq) {
            s->afs_weights[a->res] = a->v;
            continue;
        }
        if (!lq->consumed && !(lq->consumed = calloc(s->nres + 1, sizeof(double))))
            return nomem(l);
        lq->consumed[a->res] = a->v;
    }
    return GQ_OK;
}

/* Usage rows into each workload's held quota; fallback counts into each workload. */
static int workload_rows(struct loader *l)
{
    struct gq_snapshot *s = l->s;
    size_t i;

    for (i = 0; i < l->nu; i++) {
        const struct urow *u = &l->u[i];

        if (gq__uses_add(&s->wls[u->w].held, gq__fr(s, u->flavor, u->res), u->amount) < 0)
            return nomem(l);
    }
    for (i = 0; i < l->nfailed; i++) {
        struct gq_snap_wl *wl = &s->wls[l->failed[i].w];

        if (!wl->failed && !(wl->failed = calloc(s->nflavors + 1, sizeof(*wl->failed))))
            return nomem(l);
        wl->failed[l->failed[i].flavor] = l->failed[i].n;
    }
    return GQ_OK;
}

static int assemble(struct loader *l)
{
    struct gq_snapshot *s = l->s;
    size_t i;
    int rc;

    if (pods_entries(s) < 0)
        return nomem(l);
    s->nres = s->res_names.n;
    if ((rc = flavors(l)) != GQ_OK || (rc = cohort_nodes(l)) != GQ_OK ||
        (rc = quotas(l)) != GQ_OK)
        return rc;
    if (!(s->cqs = calloc(s->ncqs + 1, sizeof(*s->cqs))) ||
        !(s->heights = calloc(s->tree.nnodes + 1, sizeof(int))) ||
        !(s->weights = calloc(s->tree.nnodes + 1, sizeof(int64_t))))
        return nomem(l);
    for (i = 0; i < s->ncqs; i++) {
        if ((rc = cluster_queue(l, (int)i)) != GQ_OK)
            return rc;
        s->weights[i] = s->cqs[i].weight_milli;
    }
    for (i = 0; i < s->ncohorts; i++)
        s->weights[s->ncqs + i] =
            i < l->capweight && l->cohort_weight[i] ? l->cohort_weight[i] - 1 : 1000;
    gq__qtree_finish(&s->tree);
    heights(s);
    for (i = 0; i < s->ncqs; i++)
        activity(l, &s->cqs[i]);
    if ((rc = workload_rows(l)) != GQ_OK || (rc = afs_rows(l)) != GQ_OK)
        return rc;
    for (i = 0; i < s->nwls; i++)
        if (s->wls[i].state != GQ_WS_PENDING)
            gq__uses_apply(s, s->wls[i].cq, &s->wls[i].held, 1);
    return gq__admit_prepare(s) < 0 ? nomem(l) : GQ_OK;
}

static void loader_free(struct loader *l)
{
    size_t i;

    free(l->flavors);
    free(l->q);
    gq__intern_free(&l->cohorts);
    for (i = 0; i < l->ncohort_parent; i++)
        free(l->cohort_parent[i]);
    free(l->cohort_parent);
    free(l->cohort_weight);
    free(l->cqobjs);
    gq__intern_free(&l->cqnames);
    gq__intern_free(&l->checks);
    free(l->check_fallback);
    gq__intern_free(&l->prcs);
    free(l->prc_fallback);
    gq__intern_free(&l->lqkeys);
    free(l->ids);
    free(l->u);
    free(l->failed);
    free(l->afs);
}

int gq__engine_load(struct gq_snapshot *s, struct gq_store *st, gq_error *err)
{
    struct loader l;
    int rc;

    memset(s, 0, sizeof(*s));
    memset(&l, 0, sizeof(l));
    l.s = s;
    l.st = st;
    l.err = err;
    s->res_pods = -1;
    s->borrowed = true;
    if ((rc = read_all(&l)) == GQ_OK) {
        /* The array's doubling left up to half of it unused: 6.7 MB of 100,000 workloads. */
        if (s->nwls && s->nwls < l.capwls) {
            struct gq_snap_wl *v = realloc(s->wls, s->nwls * sizeof(*v));

            if (v) {
                s->wls = v;
                l.capwls = s->nwls;
            }
        }
        rc = assemble(&l);
    }
    loader_free(&l);
    if (rc != GQ_OK)
        gq__snapshot_free(s);
    gq__specs_sweep(st, rc == GQ_OK);
    return rc;
}
