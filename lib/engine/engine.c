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
#include "state.h"
#include "store_load.h"
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
    bool journal;            /* decisions go to the store's journal where they may */
};

/*
 * Cycles share a transaction (a group) until the group has run for
 * GROUP_BUDGET_US, then commit together: one fsync and one write of each
 * page the group changed, instead of one of each per cycle (of 543 cycles
 * deciding 100,000 workloads, 500 change a few rows each). Nothing is
 * reported before the commit, so a decision is still durable before anyone
 * hears of it, and a kill still leaves every cycle of a group undone or
 * done. Other writers wait for the lock at most a budget and a cycle. A
 * cycle with changes for the caller's callback ends its group: the callback
 * hears of them before the next cycle runs, as it may stop the call.
 */
#define GROUP_BUDGET_US 20000

/* A cycle of the group in progress, reported once the group commits. */
struct cycle_rec {
    size_t admitted, evicted;
    int64_t us;          /* the cycle's own time; the commit's is added to the last */
    size_t first, count; /* its changes in group.changes */
};

struct group {
    struct engine *e;
    uint64_t base, limit;  /* cycles committed before the group; the call's limit */
    bool until_stable, want_changes, stable;
    struct cycle_rec *cycles;
    size_t n, cap;
    gq_schedule_change *changes;
    char **blocks;         /* blocks[i] holds changes[i]'s strings */
    size_t nchanges, capchanges;
    bool failed;           /* out of memory keeping changes: reported as GQ_ENOMEM */
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

/*
 * Before a decision written in place: the journal's rows first, so that each
 * workload's changes keep their order.
 */
static int fold_first(struct gq_store *st, gq_error *err)
{
    return gq__store_journal_rows(st) ? gq__store_journal_fold(st, err) : GQ_OK;
}

/* gq_schedule_change.what: the word of the state its kind names. */
static const char *change_word(gq_change_kind kind)
{
    static const enum gq_wl_state state[] = {
        [GQ_CHANGE_PENDING] = GQ_WL_PENDING,         [GQ_CHANGE_RESERVED] = GQ_WL_RESERVED,
        [GQ_CHANGE_ADMITTED] = GQ_WL_ADMITTED,       [GQ_CHANGE_EVICTED] = GQ_WL_EVICTED,
        [GQ_CHANGE_DEACTIVATED] = GQ_WL_DEACTIVATED,
    };

    return gq__wl_state_name(state[kind]);
}

/* What an admission leaves a workload in: reserved while its checks run, else admitted. */
static const char *held_state(const struct gq_snap_wl *wl)
{
    return gq__wl_state_name(wl->state == GQ_WS_RESERVED ? GQ_WL_RESERVED : GQ_WL_ADMITTED);
}

static int persist_admit(struct gq_store *st, struct engine *e, const struct gq_decision *x,
                         gq_error *err)
{
    struct gq_snapshot *s = &e->s;
    struct gq_snap_wl *wl = &s->wls[x->wl];
    struct gq_reserve_use *use = calloc(wl->held.n + 1, sizeof(*use));
    struct gq_reserve r = {wl->id, held_state(wl), s->cqs[wl->cq].name, NULL, use, wl->held.n,
                           e->now};
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
    if (wl->state == GQ_WS_RESERVED) { /* admission checks: their rows and requests too */
        if ((rc = fold_first(st, err)) == GQ_OK)
            rc = gq__store_reserve(st, &r, err);
        wl->has_checks = true;
    } else {
        rc = e->journal ? gq__store_journal_reserve(st, &r, err) : gq__store_reserve(st, &r, err);
    }
    if (rc == GQ_OK)
        rc = gq__store_event(st, "Workload", wl->ns, wl->name, wl->uid, "Normal", "QuotaReserved",
                             msg, gq__wl_state_name(GQ_WL_PENDING), r.state, e->now, err);
    if (rc == GQ_OK && wl->state == GQ_WS_RESERVED &&
        (rc = gq__engine_checks_on_reserve(st, s, wl, e->now, note, sizeof(note), err)) ==
            GQ_OK &&
        note[0])
        rc = gq__store_set_note(st, wl->id, "UnsatisfiedAdmissionChecks", note, err);
    free(adm);
    free(use);
    return rc;
}

/*
 * A PodsReady timeout also writes the requeue count and queue-order time,
 * so it is written in place, not journaled.
 */
static bool pods_ready_timeout(const struct gq_decision *x)
{
    return strcmp(x->reason, "PodsReadyTimeout") == 0;
}

/* A deactivation by a rejected admission check (else: the requeuing limit). */
static bool by_check(const struct gq_decision *x)
{
    return strcmp(x->reason, "DeactivatedDueToAdmissionCheck") == 0;
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
            if (e->journal && !wl->has_checks && !pods_ready_timeout(x))
                rc = gq__store_journal_evict(st, wl->id, x->reason, x->message,
                                             x->preempted_reason, x->requeue_at, e->now, err);
            else if ((rc = fold_first(st, err)) == GQ_OK)
                rc = gq__store_evict(st, wl->id, x->reason, x->message, x->preempted_reason,
                                     x->requeue_at, e->now, err);
            if (rc == GQ_OK && pods_ready_timeout(x))
                rc = gq__store_requeue_state(st, wl->id, wl->requeues, wl->order_ms, err);
            if (rc == GQ_OK)
                rc = gq__store_event(st, "Workload", wl->ns, wl->name, wl->uid, "Normal", x->reason,
                                     x->message, gq__wl_state_name(GQ_WL_ADMITTED),
                                     gq__wl_state_name(GQ_WL_PENDING), e->now, err);
            break;
        case GQ_DEC_PENDING:
            rc = e->journal
                     ? gq__store_journal_reason(st, wl->id, x->reason, x->message, e->now, err)
                     : gq__store_set_reason(st, wl->id, x->reason, x->message, err);
            break;
        case GQ_DEC_DEACTIVATE:
            if ((rc = fold_first(st, err)) == GQ_OK)
                rc = gq__store_deactivate(st, wl->id, x->reason, x->message, e->now, err);
            if (rc == GQ_OK && !by_check(x))
                rc = gq__store_requeue_state(st, wl->id, 0, wl->order_ms, err);
            if (rc == GQ_OK)
                rc = gq__store_event(st, "Workload", wl->ns, wl->name, wl->uid, "Warning",
                                     by_check(x) ? "AdmissionCheckRejected" : x->reason,
                                     x->message,
                                     gq__wl_state_name(by_check(x) ? GQ_WL_RESERVED
                                                                   : GQ_WL_ADMITTED),
                                     gq__wl_state_name(GQ_WL_DEACTIVATED), e->now, err);
            break;
        case GQ_DEC_READY:
            if ((rc = fold_first(st, err)) == GQ_OK)
                rc = gq__store_checks_ready(st, wl->id, e->now, err);
            if (rc == GQ_OK)
                rc = gq__store_event(st, "Workload", wl->ns, wl->name, wl->uid, "Normal",
                                     "Admitted", "The workload is admitted",
                                     gq__wl_state_name(GQ_WL_RESERVED),
                                     gq__wl_state_name(GQ_WL_ADMITTED), e->now, err);
            break;
        }
    }
    return rc == GQ_OK ? gq__engine_afs_persist(st, &e->s, err) : rc;
}

/* Build the snapshot when it may differ from the database: at a group's start. */
static int ensure_loaded(struct gq_store *st, struct engine *e, gq_error *err)
{
    int64_t v = gq__store_data_version(st);
    int rc;

    if (!e->loaded || e->dirty || v != e->version) {
        if (e->loaded)
            gq__specs_unload(st, &e->s);
        e->loaded = false;
        e->load_us = gq__mono_us();
        /* The one long read of a cycle: a stop interrupts it, and the cycle rolls back. */
        gq__store_watch_stop(st, e->stop);
        rc = gq__store_journal_fold(st, err); /* the tables as the decisions left them */
        if (rc == GQ_OK)
            rc = gq__engine_load(&e->s, st, err);
        gq__store_watch_stop(st, NULL);
        if (rc != GQ_OK)
            return rc;
        e->load_us = gq__mono_us() - e->load_us;
        e->loaded = true;
        e->version = v;
    }
    e->dirty = true;
    return GQ_OK;
}

/* One cycle, inside the group's BEGIN IMMEDIATE. */
static int cycle_run(struct gq_store *st, struct engine *e, gq_error *err)
{
    int rc;

    e->d.n = e->d.admitted = e->d.evicted = e->d.set_aside = 0;
    e->now = gq__store_now(st);
    if ((rc = gq__engine_sync_checks(st, &e->s, e->now, &e->d, err)) != GQ_OK)
        return rc;
    if (gq__admit_pods_ready(&e->s, e->now, &e->d) < 0 ||
        gq__admit_drain(&e->s, e->now, &e->d) < 0 || gq__admit_cycle(&e->s, e->now, &e->d) < 0)
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

/* c's strings copied into one malloc'd block that c then points into; NULL on ENOMEM. */
static char *change_copy(gq_schedule_change *c)
{
    const char **f[] = {&c->namespace, &c->name, &c->job_name, &c->cluster_queue,
                        &c->flavors, &c->reason, &c->message};
    size_t i, len = 0, off = 0;
    char *block;

    for (i = 0; i < sizeof(f) / sizeof(f[0]); i++)
        len += *f[i] ? strlen(*f[i]) + 1 : 0;
    if (!(block = malloc(len + 1)))
        return NULL;
    block[0] = '\0';
    for (i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
        if (!*f[i])
            continue;
        size_t n = strlen(*f[i]) + 1;

        memcpy(block + off, *f[i], n);
        *f[i] = block + off;
        off += n;
    }
    return block;
}

/* The last cycle's changes, kept for the report that follows the commit. */
static int keep(struct group *g, uint64_t cycle)
{
    struct engine *e = g->e;
    char flavors[512];
    size_t i;

    for (i = 0; g->want_changes && i < e->d.n; i++) {
        const struct gq_decision *x = &e->d.v[i];
        const struct gq_snap_wl *wl = &e->s.wls[x->wl];
        gq_schedule_change c = {cycle, NULL, wl->ns, wl->name, wl->job_name, NULL, NULL,
                                x->reason, x->message[0] ? x->message : NULL, GQ_CHANGE_PENDING};

        if (wl->cq >= 0)
            c.cluster_queue = e->s.cqs[wl->cq].name;
        if (x->kind == GQ_DEC_READY) {
            c.kind = GQ_CHANGE_ADMITTED;
            c.reason = "Admitted";
            c.message = "every admission check is Ready";
        } else if (x->kind == GQ_DEC_ADMIT) {
            c.kind = wl->state == GQ_WS_RESERVED ? GQ_CHANGE_RESERVED : GQ_CHANGE_ADMITTED;
            flavors_text(&e->s, wl, flavors, sizeof(flavors));
            c.flavors = flavors;
        } else {
            c.kind = x->kind == GQ_DEC_EVICT         ? GQ_CHANGE_EVICTED
                     : x->kind == GQ_DEC_DEACTIVATE ? GQ_CHANGE_DEACTIVATED
                                                    : GQ_CHANGE_PENDING;
        }
        c.what = change_word(c.kind);
        if (g->nchanges == g->capchanges) {
            size_t cap = g->capchanges ? g->capchanges * 2 : 256;
            gq_schedule_change *v = realloc(g->changes, cap * sizeof(*v));
            char **b = v ? realloc(g->blocks, cap * sizeof(*b)) : NULL;

            if (v)
                g->changes = v;
            if (!b)
                return -1;
            g->blocks = b;
            g->capchanges = cap;
        }
        if (!(g->blocks[g->nchanges] = change_copy(&c)))
            return -1;
        g->changes[g->nchanges++] = c;
    }
    return 0;
}

static void group_forget(struct group *g)
{
    size_t i;

    for (i = 0; i < g->nchanges; i++)
        free(g->blocks[i]);
    g->nchanges = 0;
    g->n = 0;
    g->stable = false;
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

static int schedule(gq_db *db, const gq_schedule_options *opts, volatile sig_atomic_t *stop,
                    bool *stopped, gq_schedule_fn fn, void *payload, gq_schedule_stats *stats,
                    bool journal, gq_error *err);

int gq_schedule(gq_db *db, const gq_schedule_options *opts, gq_schedule_fn fn, void *payload,
                gq_schedule_stats *stats, gq_error *err)
{
    int rc;

    if (!db)
        return gq__error(err, GQ_EINVALID, "no database");
    gq__engine_hold_wal(db->st, true);
    rc = schedule(db, opts, NULL, NULL, fn, payload, stats, true, err);
    /*
     * The decisions into their tables before the caller reads them any other
     * way (the small page cache kept: a larger one made the fold no faster
     * and the process 28 MB larger).
     */
    if (rc == GQ_OK)
        rc = gq__store_journal_flush(db->st, err);
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

/*
 * Cycles inside one BEGIN IMMEDIATE (a group), until GROUP_BUDGET_US is spent,
 * the call's cycles are done, a cycle changes nothing under --until-stable or
 * the stop flag is up. Run again whole when the transaction is retried.
 */
static int group_txn(struct gq_store *st, void *payload, gq_error *err)
{
    struct group *g = payload;
    struct engine *e = g->e;
    int64_t start, t0;
    size_t told;
    int rc;

    group_forget(g);
    e->load_us = 0;
    if ((rc = ensure_loaded(st, e, err)) != GQ_OK)
        return rc;
    start = gq__mono_us();
    do {
        struct cycle_rec *r;

        t0 = gq__mono_us();
        if ((rc = cycle_run(st, e, err)) != GQ_OK)
            return rc;
        if (g->n == g->cap) {
            size_t cap = g->cap ? g->cap * 2 : 16;
            struct cycle_rec *v = realloc(g->cycles, cap * sizeof(*v));

            if (!v)
                return gq__error(err, GQ_ENOMEM, "out of memory in a scheduling cycle");
            g->cycles = v;
            g->cap = cap;
        }
        r = &g->cycles[g->n++];
        r->admitted = e->d.admitted;
        r->evicted = e->d.evicted;
        r->first = g->nchanges;
        if (keep(g, g->base + g->n) < 0)
            return gq__error(err, GQ_ENOMEM, "out of memory keeping a cycle's changes");
        told = r->count = g->nchanges - r->first;
        r->us = gq__mono_us() - t0;
        g->stable = g->until_stable && stable(&e->d);
    } while (!g->stable && g->base + g->n < g->limit && !stop_set(e->stop) &&
             told == 0 && gq__mono_us() - start < GROUP_BUDGET_US);
    return GQ_OK;
}

/*
 * A committed group's cycles into stats and to fn, in order. overhead_us
 * (BEGIN, the commit) goes to the group's last cycle, so that the cycles'
 * times add up to the wall time spent deciding.
 */
static int report_group(struct group *g, gq_schedule_stats *stats, struct timing *tm,
                        int64_t overhead_us, gq_schedule_fn fn, void *payload)
{
    size_t i, j;
    int rc;

    for (i = 0; i < g->n; i++) {
        const struct cycle_rec *r = &g->cycles[i];

        timing_add(tm, r->us + (i + 1 == g->n ? overhead_us : 0));
        stats->cycles = g->base + i + 1;
        stats->admitted += r->admitted;
        stats->evicted += r->evicted;
        if (r->admitted) {
            stats->last_admission_ms = (double)(gq__mono_us() - tm->start) / 1000.0;
            if (stats->first_admission_ms < 0)
                stats->first_admission_ms = stats->last_admission_ms;
        }
        for (j = 0; fn && j < r->count; j++)
            if ((rc = fn(&g->changes[r->first + j], payload)) != 0)
                return rc;
    }
    return 0;
}

int gq__engine_schedule_until(gq_db *db, const gq_schedule_options *opts,
                              volatile sig_atomic_t *stop, bool *stopped, gq_schedule_fn fn,
                              void *payload, gq_schedule_stats *stats, gq_error *err)
{
    return schedule(db, opts, stop, stopped, fn, payload, stats, false, err);
}

/*
 * journal: the call's decisions go to the store's journal where they may
 * (gq_schedule, which folds it before it returns); the loops that run on
 * (gq_run, cluster mode) write each decision in place, so that whoever reads
 * the tables in any way sees it as soon as its cycle commits.
 */
static int schedule(gq_db *db, const gq_schedule_options *opts, volatile sig_atomic_t *stop,
                    bool *stopped, gq_schedule_fn fn, void *payload, gq_schedule_stats *stats,
                    bool journal, gq_error *err)
{
    gq_schedule_options o = GQ_SCHEDULE_OPTIONS_INIT;
    gq_schedule_stats ignored;
    struct timing tm = {gq__mono_us(), NULL, 0, 0};
    struct engine e;
    struct group g;
    uint64_t n = 0, limit;
    int64_t t0, spent;
    size_t i;
    int rc = GQ_OK, conflicts = 0;

    if (!db)
        return gq__error(err, GQ_EINVALID, "no database");
    if (opts && (rc = gq__version_check(opts->version, GQ_SCHEDULE_OPTIONS_VERSION,
                                        "gq_schedule_options", err)) != GQ_OK)
        return rc;
    if (opts)
        o = *opts;
    if (!stats)
        stats = &ignored;
    limit = o.cycles ? o.cycles : (o.until_stable ? UINT64_MAX : 1);
    memset(&e, 0, sizeof(e));
    memset(&g, 0, sizeof(g));
    memset(stats, 0, sizeof(*stats));
    stats->first_admission_ms = stats->last_admission_ms = -1;
    e.stop = stop;
    e.journal = journal;
    g.e = &e;
    g.limit = limit;
    g.until_stable = o.until_stable;
    g.want_changes = fn != NULL;
    while (n < limit && !stop_set(stop)) {
        t0 = gq__mono_us();
        g.base = n;
        rc = gq__store_write_journaled(db->st, group_txn, &g, err);
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
        stats->load_ms += (double)e.load_us / 1000.0;
        spent = gq__mono_us() - t0 - e.load_us;
        for (i = 0; i < g.n; i++)
            spent -= g.cycles[i].us;
        n += g.n;
        if ((rc = report_group(&g, stats, &tm, spent > 0 ? spent : 0, fn, payload)) != 0 ||
            g.stable)
            break;
    }
    if (stopped)
        *stopped = stop_set(stop);
    timing_report(&tm, stats);
    free(tm.cycles_us);
    group_forget(&g);
    free(g.cycles);
    free(g.changes);
    free(g.blocks);
    if (e.loaded)
        gq__specs_unload(db->st, &e.s);
    gq__decisions_free(&e.d);
    return rc;
}

/* ------------------------------------------------------------ stop policy */

struct stop_ctx {
    enum gq_kind kind;
    const char *ns, *name, *policy;
    char *spec;
};

static int stop_txn(struct gq_store *st, void *payload, gq_error *err)
{
    struct stop_ctx *c = payload;
    struct gq_object obj;
    enum gq_put_result res;
    char *spec = NULL, **slot;
    int rc;

    free(c->spec);
    c->spec = NULL;
    rc = c->kind == GQ_KIND_CLUSTER_QUEUE ? gq__store_cluster_queue_spec(st, c->name, &c->spec, err)
                                          : gq__store_local_queue_spec(st, c->ns, c->name,
                                                                       &c->spec, err);
    if (rc != GQ_OK)
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
