/*
 * store_cache.c: the rows of the engine's snapshot kept in memory between
 * the turns of a loop (gq_run, gpuqd, cluster mode), so that each turn's
 * snapshot is built from the same rows in the same order as a read of the
 * tables would give, while only the rows that changed since the last turn
 * are read again (store_load.h, gq__store_snapshot_cache).
 *
 * What changed is told by this connection's own triggers, TEMP ones (they
 * live and fire on this connection only): a write to a workload's row, its
 * usage or its admission checks logs the workload's id (temp.gq_touched_log,
 * moved into the keyed temp.gq_touched when the rows are brought up to
 * date); a write to any queue object's table logs 0, and the objects are
 * read again whole. Another process's commit (PRAGMA data_version) and a
 * transaction rolled back after the cache was brought up to date inside it
 * drop everything: the next snapshot reads the tables.
 *
 * The rows served are those the table reads serve, copied: the caller's
 * callbacks see the same values in the same order, so the snapshot is the
 * one a fresh read builds, by construction. Nothing of the schema changes:
 * the triggers and the temp tables go with the connection.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "store_int.h"
#include "store_load.h"
#include "util.h"

/* A copy of a row's strings in one block; the row's pointers point into it. */
static char *pack(const char **f[], size_t n)
{
    size_t i, len = 1, off = 0;
    char *block;

    for (i = 0; i < n; i++)
        len += *f[i] ? strlen(*f[i]) + 1 : 0;
    if (!(block = malloc(len)))
        return NULL;
    for (i = 0; i < n; i++) {
        size_t k;

        if (!*f[i])
            continue;
        k = strlen(*f[i]) + 1;
        memcpy(block + off, *f[i], k);
        *f[i] = block + off;
        off += k;
    }
    return block;
}

/* Rows of one kind (size bytes each), each with its strings in a block of its own. */
struct rows {
    void *v;
    char **blocks;
    size_t n, cap;
};

struct usage_row {
    struct gq_load_usage u;
    char *block;
};

struct failed_row {
    struct gq_load_failed f;
    char *block;
};

/* One live workload and the rows of it the snapshot reads. */
struct cwl {
    struct gq_load_workload w;
    char *block;
    struct usage_row *u;
    size_t nu, capu;
    struct failed_row *f;
    size_t nf, capf;
    bool checked;
};

struct cwls {
    struct cwl *v;
    size_t n, cap;
};

enum { S_FLAVORS, S_COHORTS, S_CQS, S_PRCS, S_CHECKS, S_NSS, S_CONFIGS, S_N };

struct gq__snap_cache {
    bool triggers;        /* the temp tables and the triggers exist */
    bool held;            /* the rows are held (read whole since the last forget) */
    int64_t version;      /* data_version when they were read */
    struct rows specs[S_N];  /* struct gq_load_spec */
    struct rows quotas;      /* struct gq_load_quota */
    struct rows lqs;         /* struct gq_load_local_queue */
    struct cwls wls;
};

/* ------------------------------------------------------------- freeing */

static void rows_free(struct rows *r)
{
    size_t i;

    for (i = 0; i < r->n; i++)
        free(r->blocks[i]);
    free(r->v);
    free(r->blocks);
    memset(r, 0, sizeof(*r));
}

static void objects_free(struct gq__snap_cache *c)
{
    size_t i;

    for (i = 0; i < S_N; i++)
        rows_free(&c->specs[i]);
    rows_free(&c->quotas);
    rows_free(&c->lqs);
}

static void cwl_free(struct cwl *w)
{
    size_t i;

    free(w->block);
    for (i = 0; i < w->nu; i++)
        free(w->u[i].block);
    free(w->u);
    for (i = 0; i < w->nf; i++)
        free(w->f[i].block);
    free(w->f);
}

static void cwls_free(struct cwls *l)
{
    size_t i;

    for (i = 0; i < l->n; i++)
        cwl_free(&l->v[i]);
    free(l->v);
    memset(l, 0, sizeof(*l));
}

void gq__store_cache_forget(struct gq_store *st)
{
    struct gq__snap_cache *c = st->cache;

    if (!c)
        return;
    objects_free(c);
    cwls_free(&c->wls);
    c->held = false;
}

/* ---------------------------------------------------------- collecting */

struct collect {
    void *rows;
    bool nomem;
};

static int nomem(struct collect *k)
{
    k->nomem = true;
    return GQ_ENOMEM;
}

/* A copy of row (size bytes) into k's rows, its strings at offs (nf of them) packed. */
static int take(struct collect *k, const void *row, size_t size, const size_t *offs, size_t nf)
{
    struct rows *r = k->rows;
    const char **f[8];
    char *slot, **blocks;
    size_t i, cap = r->cap;

    if (gq__grow(&r->v, &r->cap, r->n, size) < 0)
        return nomem(k);
    if (r->cap != cap) {
        if (!(blocks = realloc(r->blocks, r->cap * sizeof(*blocks))))
            return nomem(k);
        r->blocks = blocks;
    }
    slot = (char *)r->v + r->n * size;
    memcpy(slot, row, size);
    for (i = 0; i < nf; i++)
        f[i] = (const char **)(void *)(slot + offs[i]);
    if (!(r->blocks[r->n] = pack(f, nf)))
        return nomem(k);
    r->n++;
    return 0;
}

static int spec_take(const struct gq_load_spec *row, void *payload)
{
    static const size_t offs[] = {offsetof(struct gq_load_spec, name),
                                  offsetof(struct gq_load_spec, parent),
                                  offsetof(struct gq_load_spec, spec)};

    return take(payload, row, sizeof(*row), offs, sizeof(offs) / sizeof(offs[0]));
}

static int quota_take(const struct gq_load_quota *row, void *payload)
{
    static const size_t offs[] = {
        offsetof(struct gq_load_quota, owner_kind), offsetof(struct gq_load_quota, owner),
        offsetof(struct gq_load_quota, flavor), offsetof(struct gq_load_quota, resource)};

    return take(payload, row, sizeof(*row), offs, sizeof(offs) / sizeof(offs[0]));
}

static int lq_take(const struct gq_load_local_queue *row, void *payload)
{
    static const size_t offs[] = {offsetof(struct gq_load_local_queue, ns),
                                  offsetof(struct gq_load_local_queue, name),
                                  offsetof(struct gq_load_local_queue, cluster_queue),
                                  offsetof(struct gq_load_local_queue, stop_policy),
                                  offsetof(struct gq_load_local_queue, weight),
                                  offsetof(struct gq_load_local_queue, consumed)};

    return take(payload, row, sizeof(*row), offs, sizeof(offs) / sizeof(offs[0]));
}

static int wl_take(const struct gq_load_workload *row, void *payload)
{
    struct collect *k = payload;
    struct cwls *l = k->rows;
    struct cwl *w;

    if (gq__grow(&l->v, &l->cap, l->n, sizeof(*l->v)) < 0)
        return nomem(k);
    w = &l->v[l->n];
    memset(w, 0, sizeof(*w));
    w->w = *row;
    {
        const char **f[] = {&w->w.uid,     &w->w.ns,           &w->w.name,
                            &w->w.job_name, &w->w.local_queue,  &w->w.cluster_queue,
                            &w->w.state,   &w->w.reason,       &w->w.message,
                            &w->w.podsets, &w->w.inadmissible, &w->w.pods_ready_reason};

        if (!(w->block = pack(f, sizeof(f) / sizeof(f[0]))))
            return nomem(k);
    }
    l->n++;
    return 0;
}

static struct cwl *cwl_find(const struct cwls *l, int64_t id)
{
    size_t lo = 0, hi = l->n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (l->v[mid].w.id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < l->n && l->v[lo].w.id == id ? &l->v[lo] : NULL;
}

/* Rows of workloads the list does not hold are of no live workload: the readers skip them. */
static int usage_take(const struct gq_load_usage *row, void *payload)
{
    struct collect *k = payload;
    struct cwl *w = cwl_find(k->rows, row->workload_id);
    struct usage_row *u;

    if (!w)
        return 0;
    if (gq__grow(&w->u, &w->capu, w->nu, sizeof(*w->u)) < 0)
        return nomem(k);
    u = &w->u[w->nu];
    u->u = *row;
    {
        const char **f[] = {&u->u.flavor, &u->u.resource};

        if (!(u->block = pack(f, 2)))
            return nomem(k);
    }
    w->nu++;
    return 0;
}

static int failed_take(const struct gq_load_failed *row, void *payload)
{
    struct collect *k = payload;
    struct cwl *w = cwl_find(k->rows, row->workload_id);
    struct failed_row *x;

    if (!w)
        return 0;
    if (gq__grow(&w->f, &w->capf, w->nf, sizeof(*w->f)) < 0)
        return nomem(k);
    x = &w->f[w->nf];
    x->f = *row;
    {
        const char **f[] = {&x->f.flavor};

        if (!(x->block = pack(f, 1)))
            return nomem(k);
    }
    w->nf++;
    return 0;
}

static int checked_take(int64_t id, void *payload)
{
    struct collect *k = payload;
    struct cwl *w = cwl_find(k->rows, id);

    if (w)
        w->checked = true;
    return 0;
}

/* The store's error, or ENOMEM when a collecting callback ran out. */
static int collected(int rc, const struct collect *k, gq_error *err)
{
    if (k->nomem)
        return gq__error(err, GQ_ENOMEM, "out of memory keeping the snapshot's rows");
    return rc;
}

static int read_objects(struct gq_store *st, struct gq__snap_cache *c, gq_error *err)
{
    static int (*const spec_reads[S_N])(struct gq_store *, gq__load_spec_fn, void *,
                                        gq_error *) = {
        gq__store_load_flavors,        gq__store_load_cohorts,
        gq__store_load_cluster_queues, gq__store_load_provisioning_configs,
        gq__store_load_admission_checks, gq__store_load_namespaces,
        gq__store_load_configurations};
    struct collect k = {NULL, false};
    size_t i;
    int rc = GQ_OK;

    objects_free(c);
    for (i = 0; rc == GQ_OK && i < S_N; i++) {
        k.rows = &c->specs[i];
        rc = collected(spec_reads[i](st, spec_take, &k, err), &k, err);
    }
    if (rc == GQ_OK) {
        k.rows = &c->quotas;
        rc = collected(gq__store_load_quotas(st, quota_take, &k, err), &k, err);
    }
    if (rc == GQ_OK) {
        k.rows = &c->lqs;
        rc = collected(gq__store_load_local_queues(st, lq_take, &k, err), &k, err);
    }
    if (rc != GQ_OK)
        objects_free(c);
    return rc;
}

/* The live workloads' rows (touched: only those gq_touched names) into l. */
static int read_workloads(struct gq_store *st, struct cwls *l, bool touched, gq_error *err)
{
    struct collect k = {l, false};
    int rc;

    rc = touched ? gq__store_touched_workloads(st, wl_take, &k, err)
                 : gq__store_load_workloads(st, wl_take, &k, err);
    if ((rc = collected(rc, &k, err)) != GQ_OK)
        return rc;
    rc = touched ? gq__store_touched_usage(st, usage_take, &k, err)
                 : gq__store_load_usage(st, usage_take, &k, err);
    if ((rc = collected(rc, &k, err)) != GQ_OK)
        return rc;
    rc = touched ? gq__store_touched_failed_flavors(st, failed_take, &k, err)
                 : gq__store_load_failed_flavors(st, failed_take, &k, err);
    if ((rc = collected(rc, &k, err)) != GQ_OK)
        return rc;
    rc = touched ? gq__store_touched_checked(st, checked_take, &k, err)
                 : gq__store_load_checked_workloads(st, checked_take, &k, err);
    return collected(rc, &k, err);
}

/* ------------------------------------------------------------ triggers */

/*
 * x into gq_touched_log, which has no key: an outer statement's own
 * conflict clause (an upsert's) overrides a trigger's OR IGNORE, and a NOT
 * EXISTS on the table being inserted into makes SQLite copy that table at
 * every write. The refresh moves the log's ids into gq_touched, keyed.
 */
#define TOUCH(x) "INSERT INTO gq_touched_log(id) VALUES (" x ");"
/* The tables of the queue objects the snapshot reads: a write to one logs 0. */
#define OBJECT_TRIGGERS(t)                                                                      \
    "CREATE TEMP TRIGGER IF NOT EXISTS gq_touch_" #t "_i AFTER INSERT ON main." #t               \
    " BEGIN " TOUCH("0") " END;"                                                                \
    "CREATE TEMP TRIGGER IF NOT EXISTS gq_touch_" #t "_u AFTER UPDATE ON main." #t               \
    " BEGIN " TOUCH("0") " END;"                                                                \
    "CREATE TEMP TRIGGER IF NOT EXISTS gq_touch_" #t "_d AFTER DELETE ON main." #t               \
    " BEGIN " TOUCH("0") " END;"
/* A workload's own tables: a write logs its id. */
#define WORKLOAD_TRIGGERS(t, col)                                                               \
    "CREATE TEMP TRIGGER IF NOT EXISTS gq_touch_" #t "_i AFTER INSERT ON main." #t               \
    " BEGIN " TOUCH("new." #col) " END;"                                                        \
    "CREATE TEMP TRIGGER IF NOT EXISTS gq_touch_" #t "_u AFTER UPDATE ON main." #t               \
    " BEGIN INSERT INTO gq_touched_log(id) VALUES (old." #col "), (new." #col "); END;"         \
    "CREATE TEMP TRIGGER IF NOT EXISTS gq_touch_" #t "_d AFTER DELETE ON main." #t               \
    " BEGIN " TOUCH("old." #col) " END;"

static const char *const triggers_sql[] = {
    "CREATE TEMP TABLE IF NOT EXISTS gq_touched_log (id INTEGER NOT NULL)",
    "CREATE TEMP TABLE IF NOT EXISTS gq_touched (id INTEGER PRIMARY KEY)",
    OBJECT_TRIGGERS(resource_flavors),
    OBJECT_TRIGGERS(cohorts),
    OBJECT_TRIGGERS(cluster_queues),
    OBJECT_TRIGGERS(provisioning_configs),
    OBJECT_TRIGGERS(admission_checks),
    OBJECT_TRIGGERS(namespaces),
    OBJECT_TRIGGERS(configurations),
    OBJECT_TRIGGERS(quotas),
    OBJECT_TRIGGERS(local_queues),
    OBJECT_TRIGGERS(lq_afs_usage),
    WORKLOAD_TRIGGERS(workloads, id),
    WORKLOAD_TRIGGERS(usage, workload_id),
    WORKLOAD_TRIGGERS(workload_checks, workload_id),
};

static int make_triggers(struct gq_store *st, gq_error *err)
{
    size_t i;
    int rc = GQ_OK;

    for (i = 0; rc == GQ_OK && i < sizeof(triggers_sql) / sizeof(triggers_sql[0]); i++)
        rc = gq__store_exec(st, triggers_sql[i], err);
    return rc;
}

/* ----------------------------------------------------------- the cache */

int gq__store_snapshot_cache(struct gq_store *st, bool on, gq_error *err)
{
    if (!on) {
        gq__store_cache_forget(st);
        free(st->cache);
        st->cache = NULL;
        return GQ_OK; /* the triggers stay until the connection closes: they cost a row each */
    }
    if (st->cache || st->readonly)
        return GQ_OK;
    if (!(st->cache = calloc(1, sizeof(*st->cache))))
        return gq__error(err, GQ_ENOMEM, "out of memory keeping the snapshot's rows");
    return GQ_OK;
}

void gq__store_cache_temp_reset(struct gq_store *st)
{
    if (st->cache) {
        gq__store_cache_forget(st);
        st->cache->triggers = false;
    }
}

/* Ids in gq_touched, ascending. */
struct ids {
    int64_t *v;
    size_t n;
};

static bool has_id(const struct ids *t, int64_t id)
{
    size_t lo = 0, hi = t->n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (t->v[mid] < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < t->n && t->v[lo] == id;
}

/* The held workloads that were not touched, merged by id with the touched ones read again. */
static int merge(struct gq__snap_cache *c, const struct ids *t, struct cwls *fresh, gq_error *err)
{
    struct cwls out = {NULL, 0, 0};
    size_t i = 0, j = 0, n = c->wls.n + fresh->n;

    if (n && !(out.v = malloc(n * sizeof(*out.v))))
        return gq__error(err, GQ_ENOMEM, "out of memory keeping the snapshot's rows");
    out.cap = n;
    while (i < c->wls.n || j < fresh->n) {
        if (i < c->wls.n && has_id(t, c->wls.v[i].w.id)) {
            cwl_free(&c->wls.v[i++]);
            continue;
        }
        if (j >= fresh->n || (i < c->wls.n && c->wls.v[i].w.id < fresh->v[j].w.id))
            out.v[out.n++] = c->wls.v[i++];
        else
            out.v[out.n++] = fresh->v[j++];
    }
    free(c->wls.v);
    free(fresh->v);
    memset(fresh, 0, sizeof(*fresh));
    c->wls = out;
    return GQ_OK;
}

static int refresh(struct gq_store *st, struct gq__snap_cache *c, gq_error *err)
{
    static const char clear[] = "DELETE FROM gq_touched";
    static const char clear_log[] = "DELETE FROM gq_touched_log";
    static const char keyed[] = "INSERT OR IGNORE INTO gq_touched SELECT id FROM gq_touched_log";
    int64_t v = gq__store_data_version(st);
    struct ids t = {NULL, 0};
    struct cwls fresh = {NULL, 0, 0};
    int rc;

    if (!c->triggers) {
        if ((rc = make_triggers(st, err)) != GQ_OK)
            return rc;
        c->triggers = true;
        c->held = false;
    }
    if (!c->held || v != c->version) { /* read whole; what the log holds is in it */
        gq__store_cache_forget(st);
        if ((rc = gq__store_exec_cached(st, clear_log, err)) != GQ_OK ||
            (rc = gq__store_exec_cached(st, clear, err)) != GQ_OK ||
            (rc = read_objects(st, c, err)) != GQ_OK ||
            (rc = read_workloads(st, &c->wls, false, err)) != GQ_OK) {
            gq__store_cache_forget(st);
            return rc;
        }
        c->held = true;
        c->version = v;
        return GQ_OK;
    }
    /* The log into the keyed table (empty: the last refresh cleared it) */
    if ((rc = gq__store_exec_cached(st, keyed, err)) == GQ_OK &&
        (rc = gq__store_exec_cached(st, clear_log, err)) == GQ_OK)
        rc = gq__store_touched_ids(st, &t.v, &t.n, err);
    if (rc == GQ_OK && t.n && t.v[0] == 0)
        rc = read_objects(st, c, err);
    if (rc == GQ_OK && t.n && t.v[t.n - 1] > 0)
        rc = read_workloads(st, &fresh, true, err);
    if (rc == GQ_OK && t.n && t.v[t.n - 1] > 0)
        rc = merge(c, &t, &fresh, err);
    if (rc == GQ_OK && t.n)
        rc = gq__store_exec_cached(st, clear, err);
    cwls_free(&fresh);
    free(t.v);
    if (rc != GQ_OK)
        gq__store_cache_forget(st);
    return rc;
}

/* ------------------------------------------------------------- serving */

static int serve_specs(const struct rows *r, gq__load_spec_fn fn, void *payload)
{
    const struct gq_load_spec *v = r->v;
    size_t i;
    int rc;

    for (i = 0; i < r->n; i++)
        if ((rc = fn(&v[i], payload)) != 0)
            return rc;
    return 0;
}

#define SERVE(name, call)                                                                       \
    do {                                                                                       \
        if (r->table)                                                                          \
            snprintf(r->table, r->table_size, "%s", name);                                    \
        if ((rc = (call)) != 0)                                                                \
            return rc;                                                                         \
    } while (0)

static int serve(const struct gq__snap_cache *c, const struct gq_snapshot_readers *r)
{
    const struct cwls *l = &c->wls;
    void *p = r->payload;
    size_t i, j;
    int rc;

    SERVE("resource_flavors", serve_specs(&c->specs[S_FLAVORS], r->flavor, p));
    SERVE("cohorts", serve_specs(&c->specs[S_COHORTS], r->cohort, p));
    SERVE("cluster_queues", serve_specs(&c->specs[S_CQS], r->cluster_queue, p));
    SERVE("provisioning_configs", serve_specs(&c->specs[S_PRCS], r->provisioning_config, p));
    SERVE("admission_checks", serve_specs(&c->specs[S_CHECKS], r->admission_check, p));
    for (i = 0; i < c->quotas.n; i++)
        SERVE("quotas", r->quota((const struct gq_load_quota *)c->quotas.v + i, p));
    for (i = 0; i < c->lqs.n; i++)
        SERVE("local_queues", r->local_queue((const struct gq_load_local_queue *)c->lqs.v + i, p));
    SERVE("namespaces", serve_specs(&c->specs[S_NSS], r->namespace_, p));
    SERVE("configurations", serve_specs(&c->specs[S_CONFIGS], r->configuration, p));
    for (i = 0; i < l->n; i++)
        SERVE("workloads", r->workload(&l->v[i].w, p));
    for (i = 0; i < l->n; i++)
        for (j = 0; j < l->v[i].nu; j++)
            SERVE("usage", r->usage(&l->v[i].u[j].u, p));
    for (i = 0; i < l->n; i++)
        for (j = 0; j < l->v[i].nf; j++)
            SERVE("workloads", r->failed(&l->v[i].f[j].f, p));
    for (i = 0; i < l->n; i++)
        if (l->v[i].checked)
            SERVE("workload_checks", r->checked(l->v[i].w.id, p));
    return 0;
}

static int read_tables(struct gq_store *st, const struct gq_snapshot_readers *r, gq_error *err)
{
    void *p = r->payload;
    int rc;

    SERVE("resource_flavors", gq__store_load_flavors(st, r->flavor, p, err));
    SERVE("cohorts", gq__store_load_cohorts(st, r->cohort, p, err));
    SERVE("cluster_queues", gq__store_load_cluster_queues(st, r->cluster_queue, p, err));
    SERVE("provisioning_configs",
          gq__store_load_provisioning_configs(st, r->provisioning_config, p, err));
    SERVE("admission_checks", gq__store_load_admission_checks(st, r->admission_check, p, err));
    SERVE("quotas", gq__store_load_quotas(st, r->quota, p, err));
    SERVE("local_queues", gq__store_load_local_queues(st, r->local_queue, p, err));
    SERVE("namespaces", gq__store_load_namespaces(st, r->namespace_, p, err));
    SERVE("configurations", gq__store_load_configurations(st, r->configuration, p, err));
    SERVE("workloads", gq__store_load_workloads(st, r->workload, p, err));
    SERVE("usage", gq__store_load_usage(st, r->usage, p, err));
    SERVE("workloads", gq__store_load_failed_flavors(st, r->failed, p, err));
    SERVE("workload_checks", gq__store_load_checked_workloads(st, r->checked, p, err));
    return GQ_OK;
}
#undef SERVE

int gq__store_load_snapshot(struct gq_store *st, const struct gq_snapshot_readers *r,
                            gq_error *err)
{
    int rc;

    if (!st->cache)
        return read_tables(st, r, err);
    if ((rc = refresh(st, st->cache, err)) != GQ_OK)
        return rc;
    return serve(st->cache, r);
}
