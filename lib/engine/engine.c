/*
 * engine.c: the reconcile step (DESIGN.md "Layers"): scheduling cycles on a
 * snapshot of the store, each cycle's decisions persisted in the same
 * transaction the cycle ran in.
 *
 * The snapshot lives across cycles, as Kueue's cache does, and each cycle
 * changes it exactly as its decisions say. It is rebuilt when another
 * process has committed since (PRAGMA data_version), and after any attempt
 * that did not commit, so it never drifts from the database. A cycle runs
 * under BEGIN IMMEDIATE: nobody can change quota or workloads between the
 * decision and its commit, and a killed `gpuq schedule` leaves each workload
 * either as it was or fully decided.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "handle.h"
#include "os.h"
#include "sort.h"
#include "admit_int.h"
#include "engine.h"
#include "error.h"
#include "gpuqueue/schedule.h"
#include "manifest_load.h"
#include "util.h"

struct engine {
    struct gq_snapshot s;
    bool loaded;
    bool dirty;              /* the snapshot may differ from the database */
    int64_t version;         /* data_version the snapshot was built at */
    struct gq_decisions d;
    int64_t now;
    int64_t load_us;         /* time the last snapshot build took */
    volatile sig_atomic_t *stop; /* the caller's stop flag, watched while loading; NULL */
};

/*
 * status.admission as Kueue writes it. Names are validated DNS names and
 * qualified names: none needs JSON escaping.
 */
static char *admission_json(const struct gq_snapshot *s, const struct gq_snap_wl *wl)
{
    struct gq__str t = {NULL, 0, 0, false};
    char q[GQ_QUANTITY_BUFSIZE];
    size_t i, j;

    gq__str_printf(&t, "{\"clusterQueue\":\"%s\",\"podSetAssignments\":[", s->cqs[wl->cq].name);
    for (i = 0; i < wl->nps; i++) {
        const struct gq_snap_ps *ps = &wl->ps[i];
        bool first = true;

        gq__str_printf(&t, "%s{\"name\":\"%s\",\"flavors\":{", i ? "," : "", ps->name);
        for (j = 0; j < ps->nres; j++) {
            if (ps->adm_flavor[j] < 0)
                continue;
            gq__str_printf(&t, "%s\"%s\":\"%s\"", first ? "" : ",", s->res_names.names[ps->res[j]],
                s->flavors[ps->adm_flavor[j]].name);
            first = false;
        }
        gq__str_printf(&t, "},\"resourceUsage\":{");
        first = true;
        for (j = 0; j < ps->nres; j++) {
            if (ps->adm_flavor[j] < 0)
                continue;
            gq__amount_format(q, sizeof(q), s->res_names.names[ps->res[j]],
                              gq__sat_mul(ps->per_pod[j], ps->adm_count));
            gq__str_printf(&t, "%s\"%s\":\"%s\"", first ? "" : ",", s->res_names.names[ps->res[j]], q);
            first = false;
        }
        gq__str_printf(&t, "},\"count\":%d}", (int)ps->adm_count);
    }
    gq__str_printf(&t, "]}");
    if (t.failed) {
        free(t.p);
        return NULL;
    }
    return t.p;
}

static int persist_admit(struct gq_store *st, struct engine *e, const struct gq_decision *x,
                         gq_error *err)
{
    const struct gq_snapshot *s = &e->s;
    const struct gq_snap_wl *wl = &s->wls[x->wl];
    struct gq_reserve_use *use = calloc(wl->held.n + 1, sizeof(*use));
    struct gq_reserve r = {wl->id, wl->state == GQ_WS_RESERVED ? "reserved" : "admitted",
                           s->cqs[wl->cq].name, NULL, use, wl->held.n, e->now};
    char msg[300], note[400], *adm = NULL;
    size_t i;
    int rc;

    if (!use || !(r.admission = adm = admission_json(s, wl))) {
        free(use);
        return gq__error(err, GQ_ENOMEM, "out of memory recording an admission");
    }
    for (i = 0; i < wl->held.n; i++) {
        use[i].flavor = s->flavors[wl->held.v[i].fr / (int)s->nres].name;
        use[i].resource = s->res_names.names[wl->held.v[i].fr % (int)s->nres];
        use[i].amount = wl->held.v[i].v;
    }
    snprintf(msg, sizeof(msg), "Quota reserved in ClusterQueue %s", r.cluster_queue);
    if ((rc = gq__store_reserve(st, &r, err)) == GQ_OK)
        rc = gq__store_event(st, "Workload", wl->ns, wl->name, wl->uid, "Normal", "QuotaReserved",
                             msg, "pending", r.state, e->now, err);
    if (rc == GQ_OK && wl->state == GQ_WS_RESERVED &&
        (rc = gq__engine_checks_on_reserve(st, s, wl, e->now, note, sizeof(note), err)) ==
            GQ_OK &&
        note[0])
        rc = gq__store_set_note(st, wl->id, "UnsatisfiedAdmissionChecks", note, err);
    free(adm);
    free(use);
    return rc;
}

static int persist(struct gq_store *st, struct engine *e, gq_error *err)
{
    size_t i;
    int rc = GQ_OK;

    for (i = 0; rc == GQ_OK && i < e->d.n; i++) {
        const struct gq_decision *x = &e->d.v[i];
        const struct gq_snap_wl *wl = &e->s.wls[x->wl];

        switch (x->kind) {
        case GQ_DEC_ADMIT:
            rc = persist_admit(st, e, x, err);
            break;
        case GQ_DEC_EVICT:
            rc = gq__store_evict(st, wl->id, x->reason, x->message, x->preempted_reason,
                                 x->requeue_at, e->now, err);
            if (rc == GQ_OK)
                rc = gq__store_event(st, "Workload", wl->ns, wl->name, wl->uid, "Normal",
                                     x->reason, x->message, "admitted", "pending", e->now, err);
            break;
        case GQ_DEC_PENDING:
            rc = gq__store_set_reason(st, wl->id, x->reason, x->message, err);
            break;
        case GQ_DEC_DEACTIVATE:
            rc = gq__store_deactivate(st, wl->id, x->reason, x->message, e->now, err);
            if (rc == GQ_OK)
                rc = gq__store_event(st, "Workload", wl->ns, wl->name, wl->uid, "Warning",
                                     "AdmissionCheckRejected", x->message, "reserved",
                                     "deactivated", e->now, err);
            break;
        case GQ_DEC_READY:
            rc = gq__store_checks_ready(st, wl->id, e->now, err);
            if (rc == GQ_OK)
                rc = gq__store_event(st, "Workload", wl->ns, wl->name, wl->uid, "Normal",
                                     "Admitted", "The workload is admitted", "reserved",
                                     "admitted", e->now, err);
            break;
        }
    }
    return rc;
}

/* One cycle, inside BEGIN IMMEDIATE. */
static int cycle_txn(struct gq_store *st, void *payload, gq_error *err)
{
    struct engine *e = payload;
    int64_t v = gq__store_data_version(st);
    int rc;

    if (!e->loaded || e->dirty || v != e->version) {
        if (e->loaded)
            gq__snapshot_free(&e->s);
        e->loaded = false;
        e->load_us = gq__mono_us();
        /* The one long read of a cycle: a stop interrupts it, and the cycle rolls back. */
        gq__store_watch_stop(st, e->stop);
        rc = gq__engine_load(&e->s, st, err);
        gq__store_watch_stop(st, NULL);
        if (rc != GQ_OK)
            return rc;
        e->load_us = gq__mono_us() - e->load_us;
        e->loaded = true;
        e->version = v;
    }
    e->dirty = true;
    e->d.n = e->d.admitted = e->d.evicted = e->d.set_aside = 0;
    e->now = gq__store_now(st);
    if ((rc = gq__engine_sync_checks(st, &e->s, e->now, &e->d, err)) != GQ_OK)
        return rc;
    if (gq__admit_drain(&e->s, e->now, &e->d) < 0 || gq__admit_cycle(&e->s, e->now, &e->d) < 0)
        return gq__error(err, GQ_ENOMEM, "out of memory in a scheduling cycle");
    return persist(st, e, err);
}

static void flavors_text(const struct gq_snapshot *s, const struct gq_snap_wl *wl, char *buf,
                         size_t size)
{
    size_t i, j, len = 0;

    buf[0] = '\0';
    for (i = 0; i < wl->nps; i++)
        for (j = 0; j < wl->ps[i].nres && len < size; j++)
            if (wl->ps[i].adm_flavor[j] >= 0)
                len += (size_t)snprintf(buf + len, size - len, "%s%s=%s", len ? "," : "",
                                        s->res_names.names[wl->ps[i].res[j]],
                                        s->flavors[wl->ps[i].adm_flavor[j]].name);
}

static int report(struct engine *e, uint64_t cycle, gq_schedule_fn fn, void *payload)
{
    char flavors[512];
    size_t i;
    int rc;

    for (i = 0; fn && i < e->d.n; i++) {
        const struct gq_decision *x = &e->d.v[i];
        const struct gq_snap_wl *wl = &e->s.wls[x->wl];
        gq_schedule_change c = {cycle, NULL, wl->ns, wl->name, wl->job_name, NULL, NULL,
                                x->reason, x->message[0] ? x->message : NULL};

        if (wl->cq >= 0)
            c.cluster_queue = e->s.cqs[wl->cq].name;
        if (x->kind == GQ_DEC_READY) {
            c.what = "admitted";
            c.reason = "Admitted";
            c.message = "every admission check is Ready";
        } else if (x->kind == GQ_DEC_ADMIT) {
            c.what = wl->state == GQ_WS_RESERVED ? "reserved" : "admitted";
            flavors_text(&e->s, wl, flavors, sizeof(flavors));
            c.flavors = flavors;
        } else {
            c.what = x->kind == GQ_DEC_EVICT         ? "evicted"
                     : x->kind == GQ_DEC_DEACTIVATE ? "deactivated"
                                                    : "pending";
        }
        if ((rc = fn(&c, payload)) != 0)
            return rc;
    }
    return 0;
}

/* Kueue keeps cycling while anything moves; so does --until-stable. */
static bool stable(const struct gq_decisions *d)
{
    size_t i;

    for (i = 0; i < d->n; i++)
        if (d->v[i].kind == GQ_DEC_READY)
            return false;
    return d->admitted == 0 && d->evicted == 0 && d->set_aside == 0;
}

struct timing {
    int64_t start, *cycles_us;
    size_t n, cap;
};

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

    return (x > y) - (x < y);
}

static void timing_add(struct timing *t, int64_t us)
{
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 64;
        int64_t *v = realloc(t->cycles_us, cap * sizeof(*v));

        if (!v)
            return; /* statistics only: lose the sample, not the schedule */
        t->cycles_us = v;
        t->cap = cap;
    }
    t->cycles_us[t->n++] = us;
}

static void timing_report(struct timing *t, gq_schedule_stats *st)
{
    st->total_ms = (double)(gq__mono_us() - t->start) / 1000.0;
    if (!t->n)
        return;
    gq__qsort(t->cycles_us, t->n, sizeof(int64_t), cmp_i64);
    st->cycle_p50_ms = (double)t->cycles_us[t->n / 2] / 1000.0;
    st->cycle_p99_ms = (double)t->cycles_us[(t->n * 99) / 100] / 1000.0;
    st->cycle_max_ms = (double)t->cycles_us[t->n - 1] / 1000.0;
}

int gq_schedule(gq_db *db, const gq_schedule_options *opts, gq_schedule_fn fn, void *payload,
                gq_schedule_stats *stats, gq_error *err)
{
    int rc;

    if (!db)
        return gq__error(err, GQ_EINVALID, "no database");
    gq__engine_hold_wal(db->st, true);
    rc = gq__engine_schedule(db, opts, fn, payload, stats, err);
    gq__engine_hold_wal(db->st, false);
    return rc;
}

void gq__engine_hold_wal(struct gq_store *st, bool hold)
{
    gq__store_set_wal_limit(st, hold ? 1 << 16 : 0);
    gq__store_set_cache_kib(st, hold ? 8192 : 0);
    if (!hold)
        gq__store_checkpoint(st);
}

int gq__engine_schedule(gq_db *db, const gq_schedule_options *opts, gq_schedule_fn fn,
                        void *payload, gq_schedule_stats *stats, gq_error *err)
{
    return gq__engine_schedule_until(db, opts, NULL, NULL, fn, payload, stats, err);
}

static bool stop_set(const volatile sig_atomic_t *stop)
{
    return stop && *stop;
}

/* One cycle's figures into stats, after it committed. */
static void count_cycle(gq_schedule_stats *stats, const struct engine *e, struct timing *tm,
                        uint64_t n, int64_t t0)
{
    timing_add(tm, gq__mono_us() - t0 - e->load_us);
    stats->load_ms += (double)e->load_us / 1000.0;
    stats->cycles = n;
    stats->admitted += e->d.admitted;
    stats->evicted += e->d.evicted;
    if (e->d.admitted) {
        stats->last_admission_ms = (double)(gq__mono_us() - tm->start) / 1000.0;
        if (stats->first_admission_ms < 0)
            stats->first_admission_ms = stats->last_admission_ms;
    }
}

int gq__engine_schedule_until(gq_db *db, const gq_schedule_options *opts,
                              volatile sig_atomic_t *stop, bool *stopped, gq_schedule_fn fn,
                              void *payload, gq_schedule_stats *stats, gq_error *err)
{
    gq_schedule_options o = GQ_SCHEDULE_OPTIONS_INIT;
    gq_schedule_stats ignored;
    struct timing tm = {gq__mono_us(), NULL, 0, 0};
    struct engine e;
    uint64_t n = 0, limit;
    int64_t t0;
    int rc = GQ_OK, conflicts = 0;

    if (!db)
        return gq__error(err, GQ_EINVALID, "no database");
    if (opts)
        o = *opts;
    if (!stats)
        stats = &ignored;
    limit = o.cycles ? o.cycles : (o.until_stable ? UINT64_MAX : 1);
    memset(&e, 0, sizeof(e));
    memset(stats, 0, sizeof(*stats));
    stats->first_admission_ms = stats->last_admission_ms = -1;
    e.stop = stop;
    while (n < limit && !stop_set(stop)) {
        t0 = gq__mono_us();
        e.load_us = 0;
        rc = gq__store_write(db->st, cycle_txn, &e, err);
        if (rc != GQ_OK && stop_set(stop)) {
            rc = GQ_OK; /* interrupted: rolled back whole, as if never begun */
            if (err)
                memset(err, 0, sizeof(*err));
            break;
        }
        if (rc == GQ_ECONFLICT && ++conflicts < 20)
            continue; /* rebuilt from the database on the next attempt */
        if (rc != GQ_OK)
            break;
        e.dirty = false;
        count_cycle(stats, &e, &tm, ++n, t0);
        if ((rc = report(&e, n, fn, payload)) != 0 || (o.until_stable && stable(&e.d)))
            break;
    }
    if (stopped)
        *stopped = stop_set(stop);
    timing_report(&tm, stats);
    free(tm.cycles_us);
    if (e.loaded)
        gq__snapshot_free(&e.s);
    gq__decisions_free(&e.d);
    return rc;
}

/* ------------------------------------------------------------ stop policy */

struct stop_ctx {
    enum gq_kind kind;
    const char *ns, *name, *policy;
    char *spec;
};

static int spec_row(int n, const char *const *v, void *payload)
{
    struct stop_ctx *c = payload;

    (void)n;
    c->spec = v[0] ? strdup(v[0]) : NULL;
    return 0;
}

static int stop_txn(struct gq_store *st, void *payload, gq_error *err)
{
    struct stop_ctx *c = payload;
    const char *sql = c->kind == GQ_KIND_CLUSTER_QUEUE
                          ? "SELECT spec FROM cluster_queues WHERE name = ?1"
                          : "SELECT spec FROM local_queues WHERE name = ?1 AND namespace = ?2";
    const char *params[2] = {c->name, c->ns};
    const struct gq__query q = {sql, c->kind == GQ_KIND_CLUSTER_QUEUE ? "cluster_queues:T"
                                                                      : "local_queues:T",
                                params, c->kind == GQ_KIND_CLUSTER_QUEUE ? 1 : 2};
    struct gq_object obj;
    enum gq_put_result res;
    char *spec = NULL, **slot;
    int rc;

    free(c->spec);
    c->spec = NULL;
    if ((rc = gq__store_rows(st, &q, spec_row, c, err)) != GQ_OK)
        return rc;
    if (!c->spec)
        return gq__error(err, GQ_ENOTFOUND, "%s \"%s\" not found", gq__kind_resource(c->kind),
                         c->name);
    memset(&obj, 0, sizeof(obj));
    rc = gq__manifest_load(NULL, c->spec, strlen(c->spec), "stored spec", NULL, NULL,
                           gq__take_object, &obj, err);
    if (rc != GQ_OK) /* gpuq wrote the spec: one that does not decode is damage */
        return rc == GQ_ENOMEM ? rc
                               : gq__store_damaged(st, err, "%s %s: spec does not decode",
                                                   gq__kind_resource(c->kind), c->name);
    slot = c->kind == GQ_KIND_CLUSTER_QUEUE ? &obj.u.cq.stop_policy : &obj.u.lq.stop_policy;
    free(*slot);
    free(obj.canonical);
    obj.canonical = NULL;
    if (!(*slot = strdup(c->policy)) || (rc = gq__manifest_encode(&spec, &obj, err)) != GQ_OK)
        rc = rc ? rc : gq__error(err, GQ_ENOMEM, "out of memory");
    else
        rc = gq__store_put_object(st, &obj, spec, gq__store_now(st), &res, err);
    free(spec);
    gq__object_clear(&obj);
    return rc;
}

int gq_queue_set_stop_policy(gq_db *db, const char *kind, const char *namespace,
                             const char *name, const char *policy, gq_error *err)
{
    struct stop_ctx c = {gq__kind_lookup(kind ? kind : ""), namespace ? namespace : "default",
                         name, policy, NULL};
    int rc;

    if (!db || !name || !policy)
        return gq__error(err, GQ_EINVALID, "stop policy: missing argument");
    if (c.kind != GQ_KIND_CLUSTER_QUEUE && c.kind != GQ_KIND_LOCAL_QUEUE)
        return gq__error(err, GQ_EINVALID, "cannot stop a %s: only clusterqueue and localqueue",
                         kind ? kind : "(null)");
    if (strcmp(policy, "None") && strcmp(policy, "Hold") && strcmp(policy, "HoldAndDrain"))
        return gq__error(err, GQ_EINVALID, "invalid stop policy \"%s\"", policy);
    rc = gq__store_write(db->st, stop_txn, &c, err);
    free(c.spec);
    return rc;
}
