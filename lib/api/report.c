/*
 * report.c: gq_report: the figures of a window, computed from what
 * store_report.c read, then rendered by report_render.c or report_html.c.
 *
 * Everything here is arithmetic on the arrays in struct gq__report_raw:
 * the same records give the same figures, in the same order (names sort by
 * byte, ties never depend on a hash), so a report is byte-identical for the
 * same database. Memory is a few int64 per job and per pod: a report over
 * 100,000 jobs and 300,000 pods holds about 15 MB.
 */
#include <stdlib.h>
#include <string.h>

#include "sort.h"
#include "admit.h" /* gq__grow */
#include "api.h"
#include "error.h"
#include "report.h"
#include "store.h"

/* ----------------------------------------------------------- small parts */

static const char *const tables[] = {"waits",  "queues",    "pools",        "flavors",
                                     "series", "histogram", "provisioning", NULL};

bool gq_report_table_is_valid(const char *name)
{
    size_t i;

    for (i = 0; name && tables[i]; i++)
        if (strcmp(name, tables[i]) == 0)
            return true;
    return false;
}

int gq_report_time_parse(const char *text, int64_t now_ms, int64_t *out, gq_error *err)
{
    int64_t ms;

    if (text && strcmp(text, "now") == 0) {
        *out = now_ms;
        return GQ_OK;
    }
    if (text && gq__parse_rfc3339(text, out))
        return GQ_OK;
    if (text && gq__parse_duration_ms(text, &ms) == 0) {
        *out = now_ms - ms;
        return GQ_OK;
    }
    return gq__error(err, GQ_EINVALID,
                     "invalid time \"%.64s\": want RFC 3339 (2026-01-02T15:04:05Z), now, or a "
                     "duration back from now (90m)",
                     text ? text : "");
}

/* --------------------------------------------------------------- options */

static int resolve_options(struct gq__report *r, const gq_report_options *o, gq_error *err)
{
    static const int64_t defaults[] = {2000, 5000, 60000};
    size_t i;
    int rc;

    if ((rc = gq__version_check(o->version, GQ_REPORT_OPTIONS_VERSION, "gq_report_options",
                                err)) != GQ_OK)
        return rc;
    if (o->nunder > GQ_REPORT_MAX_UNDER)
        return gq__error(err, GQ_EINVALID, "too many --under thresholds (%zu): at most %d",
                         o->nunder, GQ_REPORT_MAX_UNDER);
    r->nunder = o->under_ms ? o->nunder : 3;
    for (i = 0; i < r->nunder; i++) {
        r->under[i] = o->under_ms ? o->under_ms[i] : defaults[i];
        if (r->under[i] < 0 || (i > 0 && r->under[i] <= r->under[i - 1]))
            return gq__error(err, GQ_EINVALID, "invalid --under threshold %lld ms: want "
                             "ascending durations", (long long)r->under[i]);
    }
    r->bin_ms = o->bin_ms ? o->bin_ms : 30000;
    if (r->bin_ms < 1000 || r->bin_ms > GQ__BINS_RANGE_MS)
        return gq__error(err, GQ_EINVALID, "invalid bin width %lld ms: want 1s to 10m",
                         (long long)r->bin_ms);
    r->nbins = (size_t)((GQ__BINS_RANGE_MS + r->bin_ms - 1) / r->bin_ms);
    if ((o->format == GQ_REPORT_CSV || o->format == GQ_REPORT_TSV) && o->table &&
        !gq_report_table_is_valid(o->table))
        return gq__error(err, GQ_EINVALID, "unknown table \"%.64s\": want waits, queues, pools, "
                         "flavors, series, histogram or provisioning", o->table);
    if (o->since_ms && o->until_ms && o->until_ms <= o->since_ms)
        return gq__error(err, GQ_EINVALID, "empty window: until %lld is not after since %lld",
                         (long long)o->until_ms, (long long)o->since_ms);
    return GQ_OK;
}

/* ----------------------------------------------------------------- waits */

static const char *const wait_keys[GQ__NWAITS] = {"admission", "running", "quota", "capacity",
                                                  "pod"};
static const char *const wait_labels[GQ__NWAITS] = {
    "submit to admitted", "submit to running", "waiting for quota", "waiting for capacity",
    "pod pending"};

/* The sample of job j for wait w, or -1 when it has none; *waiting when not there yet. */
static int64_t job_wait(const struct gq__report_job *j, int w, bool *waiting)
{
    int64_t from = j->created, to = -1;

    if (w == GQ__W_ADMISSION)
        to = j->admitted;
    else if (w == GQ__W_RUNNING)
        to = j->started;
    else if (w == GQ__W_QUOTA)
        to = j->reserved;
    else if (w == GQ__W_CAPACITY && j->reserved >= 0)
        from = j->reserved, to = j->admitted;
    else
        return -1; /* capacity: still waiting for quota, counted there */
    *waiting = to < 0;
    return to < 0 ? -1 : (to > from ? to - from : 0);
}

static int fill_wait(struct gq__report *r, int w)
{
    struct gq__report_wait *wt = &r->waits[w];
    const struct gq__report_raw *raw = &r->raw;
    size_t i, n = w == GQ__W_POD ? raw->pod_waits.n : raw->jobs.n;
    bool waiting;
    int64_t v;

    wt->key = wait_keys[w];
    wt->label = wait_labels[w];
    if (!(wt->v = malloc((n ? n : 1) * sizeof(int64_t))) ||
        !(wt->bins = calloc(r->nbins + 1, sizeof(uint64_t))))
        return GQ_ENOMEM;
    if (w == GQ__W_POD) {
        if (n)
            memcpy(wt->v, raw->pod_waits.v, n * sizeof(int64_t));
        wt->n = n;
        wt->waiting = raw->pods_waiting;
    }
    for (i = 0; w != GQ__W_POD && i < n; i++) {
        waiting = false;
        if ((v = job_wait(&raw->jobs.v[i], w, &waiting)) >= 0)
            wt->v[wt->n++] = v;
        wt->waiting += waiting;
    }
    gq__stats_sort(wt->v, wt->n);
    gq__stats_summarize(&wt->s, wt->v, wt->n);
    for (i = 0; i < r->nunder; i++)
        wt->under[i] = gq__stats_count_le(wt->v, wt->n, r->under[i]);
    gq__stats_hist_le(wt->buckets, gq__wait_buckets_ms, GQ__WAIT_NBUCKETS, wt->v, wt->n);
    gq__stats_hist_bins(wt->bins, r->nbins, r->bin_ms, wt->v, wt->n);
    return GQ_OK;
}

/* ---------------------------------------------------------------- groups */

struct keyed {
    const char *name;
    int64_t wait; /* -1: not admitted */
};

static int cmp_keyed(const void *a, const void *b)
{
    const struct keyed *x = a, *y = b;
    int c = strcmp(x->name, y->name);

    return c ? c : (x->wait > y->wait) - (x->wait < y->wait);
}

/* One group: rows [lo, hi) of the sorted array, the not admitted ones (-1) first. */
static int add_group(struct gq__report *r, const char *kind, struct keyed *k, size_t lo,
                     size_t hi, int64_t *scratch)
{
    struct gq__report_group *g;
    size_t i, n = 0;

    if (gq__grow(&r->groups.v, &r->groups.cap, r->groups.n, sizeof(*g)) < 0)
        return GQ_ENOMEM;
    g = &r->groups.v[r->groups.n++];
    for (i = lo; i < hi; i++)
        if (k[i].wait >= 0)
            scratch[n++] = k[i].wait;
    g->kind = kind;
    g->name = k[lo].name;
    g->jobs = hi - lo;
    g->admitted = n;
    gq__stats_summarize(&g->s, scratch, n);
    return GQ_OK;
}

static int fill_groups_of(struct gq__report *r, int dim, struct keyed *k, int64_t *scratch)
{
    static const char *const kinds[] = {"ClusterQueue", "LocalQueue", "Namespace"};
    const struct gq__report_raw *raw = &r->raw;
    size_t i, lo, n = raw->jobs.n;
    int rc = GQ_OK;

    for (i = 0; i < n; i++) {
        const struct gq__report_job *j = &raw->jobs.v[i];
        int32_t id = dim == 0 ? j->cq : dim == 1 ? j->lq : j->ns;

        k[i].name = raw->names.v[id];
        k[i].wait = j->admitted >= 0 ? j->admitted - j->created : -1;
    }
    gq__qsort(k, n, sizeof(*k), cmp_keyed);
    for (lo = 0, i = 1; rc == GQ_OK && i <= n; i++)
        if (i == n || strcmp(k[i].name, k[lo].name) != 0) {
            rc = add_group(r, kinds[dim], k, lo, i, scratch);
            lo = i;
        }
    return rc;
}

static int fill_groups(struct gq__report *r)
{
    size_t n = r->raw.jobs.n ? r->raw.jobs.n : 1;
    struct keyed *k = malloc(n * sizeof(*k));
    int64_t *scratch = malloc(n * sizeof(*scratch));
    int dim, rc = k && scratch ? GQ_OK : GQ_ENOMEM;

    for (dim = 0; rc == GQ_OK && dim < 3; dim++)
        rc = fill_groups_of(r, dim, k, scratch);
    free(k);
    free(scratch);
    return rc;
}

/* ------------------------------------------------------------------ cost */

static int cmp_cost(const void *a, const void *b)
{
    return strcmp(((const struct gq__report_cost *)a)->name,
                  ((const struct gq__report_cost *)b)->name);
}

/* GPU-ms of a span inside the window; a span still open runs to its end. */
static double span_gpu_ms(const struct gq__report_raw *raw, const struct gq__report_span *sp)
{
    int64_t to = sp->to < 0 ? raw->until : sp->to;

    return (double)sp->gpus * (double)gq__stats_overlap_ms(sp->from, to, raw->since, raw->until);
}

/* Sum spans by name (pool or flavor) into acc, indexed by name. */
static void cost_sum(struct gq__report_cost *acc, const struct gq__report_raw *raw, bool by_pool)
{
    size_t i;

    for (i = 0; i < raw->nodes.n; i++) {
        const struct gq__report_span *sp = &raw->nodes.v[i];
        struct gq__report_cost *c = &acc[by_pool ? sp->pool : sp->flavor];

        c->nodes++;
        c->provisioned += span_gpu_ms(raw, sp);
    }
    for (i = 0; i < raw->pods.n; i++) {
        const struct gq__report_span *sp = &raw->pods.v[i];

        acc[by_pool ? sp->pool : sp->flavor].used += span_gpu_ms(raw, sp);
    }
}

static int fill_cost_by(struct gq__report *r, bool by_pool)
{
    const struct gq__report_raw *raw = &r->raw;
    struct gq__report_cost *acc = calloc(raw->names.n + 1, sizeof(*acc)), *out;
    size_t i, n = 0;

    if (!acc)
        return GQ_ENOMEM;
    cost_sum(acc, raw, by_pool);
    for (i = 0; i < raw->names.n; i++)
        if (acc[i].nodes || acc[i].used > 0) {
            acc[i].name = raw->names.v[i];
            acc[n++] = acc[i];
        }
    gq__qsort(acc, n, sizeof(*acc), cmp_cost);
    for (i = 0; i < n && by_pool; i++) {
        r->total.nodes += acc[i].nodes;
        r->total.provisioned += acc[i].provisioned;
        r->total.used += acc[i].used;
    }
    out = acc;
    if (by_pool) {
        r->pools.v = out, r->pools.n = n, r->pools.cap = raw->names.n + 1;
    } else {
        r->flavors.v = out, r->flavors.n = n, r->flavors.cap = raw->names.n + 1;
    }
    return GQ_OK;
}

/* ---------------------------------------------------------------- series */

static void fill_series(struct gq__report *r)
{
    const struct gq__report_raw *raw = &r->raw;
    double area[GQ__SERIES_POINTS], full[GQ__SERIES_POINTS];
    struct gq__stats_grid g;
    size_t i;

    r->step = (raw->until - raw->since + GQ__SERIES_POINTS - 1) / GQ__SERIES_POINTS;
    if (r->step > 1000)
        r->step = (r->step + 999) / 1000 * 1000; /* whole seconds read better */
    if (r->step < 1)
        r->step = 1;
    r->npoints = (size_t)((raw->until - raw->since + r->step - 1) / r->step);
    if (r->npoints > GQ__SERIES_POINTS)
        r->npoints = GQ__SERIES_POINTS;
    gq__stats_grid_init(&g, raw->since, r->step, r->npoints, area, full);
    for (i = 0; i < raw->nodes.n; i++)
        gq__stats_grid_add(&g, raw->nodes.v[i].from, raw->nodes.v[i].to,
                           (double)raw->nodes.v[i].gpus);
    gq__stats_grid_means(&g, r->avail);
    gq__stats_grid_init(&g, raw->since, r->step, r->npoints, area, full);
    for (i = 0; i < raw->pods.n; i++)
        gq__stats_grid_add(&g, raw->pods.v[i].from, raw->pods.v[i].to,
                           (double)raw->pods.v[i].gpus);
    gq__stats_grid_means(&g, r->used);
    gq__stats_grid_init(&g, raw->since, r->step, r->npoints, area, full);
    for (i = 0; i < raw->jobs.n; i++)
        gq__stats_grid_add(&g, raw->jobs.v[i].created, raw->jobs.v[i].admitted, 1.0);
    gq__stats_grid_means(&g, r->pending);
}

/* ---------------------------------------------------------- provisioning */

/* Add every request of flavor (-1: any) and attempt (0: any, else that, or above when last). */
static int prov_row(struct gq__report *r, int32_t flavor, int64_t attempt, int64_t *scratch)
{
    const struct gq__report_raw *raw = &r->raw;
    struct gq__report_prov *p;
    size_t i, n = 0;

    if (gq__grow(&r->prov.v, &r->prov.cap, r->prov.n, sizeof(*p)) < 0)
        return GQ_ENOMEM;
    p = &r->prov.v[r->prov.n++];
    memset(p, 0, sizeof(*p));
    p->flavor = flavor >= 0 ? raw->names.v[flavor] : NULL;
    p->attempt = attempt;
    for (i = 0; i < raw->provreqs.n; i++) {
        const struct gq__report_provreq *q = &raw->provreqs.v[i];

        if ((flavor >= 0 && q->flavor != flavor) || (attempt && q->attempt != attempt))
            continue;
        p->requests++;
        p->retries += q->attempt > 1;
        p->provisioned += q->provisioned >= 0;
        p->failed += q->failed;
        p->expired += q->expired;
        p->revoked += q->revoked;
        if (q->provisioned >= 0)
            scratch[n++] = q->provisioned - q->created;
    }
    gq__stats_sort(scratch, n);
    gq__stats_summarize(&p->to_provisioned, scratch, n);
    return GQ_OK;
}

static int fill_provisioning(struct gq__report *r)
{
    const struct gq__report_raw *raw = &r->raw;
    int64_t *scratch = malloc((raw->provreqs.n + 1) * sizeof(int64_t)), maxatt = 0;
    bool *seen = calloc(raw->names.n + 1, sizeof(bool));
    size_t i;
    int rc = scratch && seen ? GQ_OK : GQ_ENOMEM;

    for (i = 0; rc == GQ_OK && i < raw->provreqs.n; i++) {
        seen[raw->provreqs.v[i].flavor] = true;
        if (raw->provreqs.v[i].attempt > maxatt)
            maxatt = raw->provreqs.v[i].attempt;
    }
    /* Flavors in name order: walk the names sorted (few: a cluster has a handful). */
    for (i = 0; rc == GQ_OK && i < raw->names.n; i++) {
        size_t k, best = SIZE_MAX;

        for (k = 0; k < raw->names.n; k++)
            if (seen[k] && (best == SIZE_MAX || strcmp(raw->names.v[k], raw->names.v[best]) < 0))
                best = k;
        if (best == SIZE_MAX)
            break;
        seen[best] = false;
        rc = prov_row(r, (int32_t)best, 0, scratch);
        r->nprov_flavors++;
    }
    for (i = 1; rc == GQ_OK && (int64_t)i <= maxatt && i <= 64; i++)
        rc = prov_row(r, -1, (int64_t)i, scratch);
    free(scratch);
    free(seen);
    return rc;
}

/* ------------------------------------------------------------ the report */

static void count_jobs(struct gq__report *r)
{
    size_t i;

    r->submitted = r->raw.jobs.n;
    for (i = 0; i < r->raw.jobs.n; i++) {
        r->admitted += r->raw.jobs.v[i].admitted >= 0;
        r->running += r->raw.jobs.v[i].started >= 0;
    }
}

static int compute(struct gq__report *r)
{
    int w, rc = GQ_OK;

    count_jobs(r);
    for (w = 0; rc == GQ_OK && w < GQ__NWAITS; w++)
        rc = fill_wait(r, w);
    if (rc == GQ_OK)
        rc = fill_groups(r);
    if (rc == GQ_OK)
        rc = fill_cost_by(r, true);
    if (rc == GQ_OK)
        rc = fill_cost_by(r, false);
    if (rc == GQ_OK)
        rc = fill_provisioning(r);
    if (rc == GQ_OK)
        fill_series(r);
    return rc;
}

static void report_free(struct gq__report *r)
{
    int w;

    for (w = 0; w < GQ__NWAITS; w++) {
        free(r->waits[w].v);
        free(r->waits[w].bins);
    }
    free(r->groups.v);
    free(r->pools.v);
    free(r->flavors.v);
    free(r->prov.v);
    gq__report_raw_free(&r->raw);
    free(r);
}

static void render(struct gq__str *s, const struct gq__report *r)
{
    switch (r->opts->format) {
    case GQ_REPORT_JSON:
        gq__report_json(s, r);
        break;
    case GQ_REPORT_CSV:
        gq__report_table(s, r, ',');
        break;
    case GQ_REPORT_TSV:
        gq__report_table(s, r, '\t');
        break;
    case GQ_REPORT_HTML:
        gq__report_html(s, r);
        break;
    default:
        gq__report_text(s, r);
    }
}

int gq_report(char **out, gq_db *db, const gq_report_options *opts, gq_error *err)
{
    static const gq_report_options defaults = GQ_REPORT_OPTIONS_INIT;
    struct gq__str s = {NULL, 0, 0, false};
    struct gq__report *r;
    int rc;

    GQ_ASSERT_ARG(out && db);
    *out = NULL;
    if (!opts)
        opts = &defaults;
    if (!(r = calloc(1, sizeof(*r))))
        return gq__error(err, GQ_ENOMEM, "out of memory");
    r->opts = opts;
    if ((rc = resolve_options(r, opts, err)) == GQ_OK &&
        (rc = gq__store_report_load(db->st, opts->since_ms, opts->until_ms, &r->raw, err)) ==
            GQ_OK) {
        if ((rc = compute(r)) == GQ_OK)
            render(&s, r);
        if (rc == GQ_OK && (s.failed || !s.p))
            rc = GQ_ENOMEM;
        if (rc == GQ_ENOMEM)
            gq__error(err, GQ_ENOMEM, "out of memory");
    }
    report_free(r);
    if (rc != GQ_OK) {
        free(s.p);
        return rc;
    }
    *out = s.p;
    return GQ_OK;
}

/* The figures of db without rendering them (gq_simulate_compare). */
int gq__report_build(struct gq__report **out, gq_db *db, const gq_report_options *opts,
                     gq_error *err)
{
    struct gq__report *r;
    int rc;

    *out = NULL;
    if (!(r = calloc(1, sizeof(*r))))
        return gq__error(err, GQ_ENOMEM, "out of memory");
    r->opts = opts;
    if ((rc = resolve_options(r, opts, err)) == GQ_OK &&
        (rc = gq__store_report_load(db->st, opts->since_ms, opts->until_ms, &r->raw, err)) ==
            GQ_OK &&
        (rc = compute(r)) == GQ_ENOMEM)
        gq__error(err, GQ_ENOMEM, "out of memory");
    if (rc != GQ_OK) {
        report_free(r);
        return rc;
    }
    *out = r;
    return GQ_OK;
}

void gq__report_destroy(struct gq__report *r)
{
    if (r)
        report_free(r);
}
