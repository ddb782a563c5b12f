/*
 * report_csv.c: one table or series of the report as CSV (RFC 4180: a
 * header row, fields quoted when they hold the separator, a quote or a
 * line break) or TSV, for a spreadsheet, pandas or gnuplot. Times are
 * seconds, GPU figures GPU-hours, shares fractions. The tables:
 *
 *   waits         wait,n,waiting,p50_s,mean_s,p90_s,p99_s,max_s,under_<T>s...
 *   queues        kind,name,jobs,admitted,p50_s,mean_s,p90_s,p99_s,max_s
 *   pools         pool,nodes,gpu_hours_provisioned,gpu_hours_used,utilization_pct,overhead_pct
 *   flavors       the same per flavor
 *   series        offset_s,gpus_available,gpus_used,jobs_waiting (means over each step)
 *   histogram     wait,kind,from_s,to_s,count (kind bucket: Prometheus, bin: fixed)
 *   provisioning  flavor,attempt,requests,retries,provisioned,failed,booking_expired,
 *                 capacity_revoked,p50_s,mean_s,max_s (to Provisioned; "all" totals)
 */
#include <stdio.h>
#include <string.h>

#include "report.h"

#define MS_PER_HOUR 3600000.0

static void field(struct gq__str *s, char sep, const char *v, bool first)
{
    if (!first)
        gq__str_add(s, &sep, 1);
    if (!strchr(v, sep) && !strpbrk(v, "\"\r\n")) {
        gq__str_puts(s, v);
        return;
    }
    gq__str_puts(s, "\"");
    for (; *v; v++)
        gq__str_puts(s, *v == '"' ? "\"\"" : (char[2]){*v, '\0'});
    gq__str_puts(s, "\"");
}

/* A row of n fields given as strings. */
static void row(struct gq__str *s, char sep, const char *const *v, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        field(s, sep, v[i], i == 0);
    gq__str_puts(s, "\n");
}

static void summary_fields(char buf[][48], const struct gq__stats_summary *st)
{
    gq__report_secs(buf[0], 48, st->p50);
    gq__report_secs(buf[1], 48, st->mean);
    gq__report_secs(buf[2], 48, st->p90);
    gq__report_secs(buf[3], 48, st->p99);
    gq__report_secs(buf[4], 48, st->max);
}

static void csv_waits(struct gq__str *s, const struct gq__report *r, char sep)
{
    static const char *const head[] = {"wait", "n", "waiting", "p50_s", "mean_s",
                                       "p90_s", "p99_s", "max_s"};
    char buf[16][48];
    const char *v[16];
    size_t w, i;

    for (i = 0; i < 8; i++)
        v[i] = head[i];
    for (i = 0; i < r->nunder; i++) {
        char t[32];

        gq__report_secs(t, sizeof(t), (double)r->under[i]);
        snprintf(buf[8 + i], sizeof(buf[0]), "under_%ss", t);
        v[8 + i] = buf[8 + i];
    }
    row(s, sep, v, 8 + r->nunder);
    for (w = 0; w < GQ__NWAITS; w++) {
        const struct gq__report_wait *wt = &r->waits[w];

        snprintf(buf[1], sizeof(buf[1]), "%zu", wt->n);
        snprintf(buf[2], sizeof(buf[2]), "%zu", wt->waiting);
        summary_fields(buf + 3, &wt->s);
        for (i = 0; i < r->nunder; i++)
            snprintf(buf[8 + i], sizeof(buf[0]), "%.4f",
                     wt->n ? (double)wt->under[i] / (double)wt->n : 0.0);
        v[0] = wt->key;
        for (i = 1; i < 8 + r->nunder; i++)
            v[i] = buf[i];
        row(s, sep, v, 8 + r->nunder);
    }
}

static void csv_queues(struct gq__str *s, const struct gq__report *r, char sep)
{
    static const char *const head[] = {"kind", "name",  "jobs",  "admitted", "p50_s",
                                       "mean_s", "p90_s", "p99_s", "max_s"};
    char buf[9][48];
    const char *v[9];
    size_t g, i;

    row(s, sep, head, 9);
    for (g = 0; g < r->groups.n; g++) {
        const struct gq__report_group *gr = &r->groups.v[g];

        snprintf(buf[2], sizeof(buf[2]), "%zu", gr->jobs);
        snprintf(buf[3], sizeof(buf[3]), "%zu", gr->admitted);
        summary_fields(buf + 4, &gr->s);
        v[0] = gr->kind;
        v[1] = gr->name;
        for (i = 2; i < 9; i++)
            v[i] = buf[i];
        row(s, sep, v, 9);
    }
}

static void csv_cost(struct gq__str *s, const struct gq__report *r, char sep, bool pools)
{
    const char *head[] = {pools ? "pool" : "flavor", "nodes", "gpu_hours_provisioned",
                          "gpu_hours_used", "utilization_pct", "overhead_pct"};
    const struct gq__report_cost *c = pools ? r->pools.v : r->flavors.v;
    size_t i, k, n = pools ? r->pools.n : r->flavors.n;
    char buf[6][48];
    const char *v[6];

    row(s, sep, head, 6);
    for (i = 0; i < n; i++) {
        snprintf(buf[1], sizeof(buf[1]), "%zu", c[i].nodes);
        snprintf(buf[2], sizeof(buf[2]), "%.3f", c[i].provisioned / MS_PER_HOUR);
        snprintf(buf[3], sizeof(buf[3]), "%.3f", c[i].used / MS_PER_HOUR);
        snprintf(buf[4], sizeof(buf[4]), "%.1f",
                 gq__stats_utilization(c[i].used, c[i].provisioned));
        snprintf(buf[5], sizeof(buf[5]), "%.1f", gq__stats_overhead(c[i].used, c[i].provisioned));
        v[0] = c[i].name;
        for (k = 1; k < 6; k++)
            v[k] = buf[k];
        row(s, sep, v, 6);
    }
}

static void csv_series(struct gq__str *s, const struct gq__report *r, char sep)
{
    static const char *const head[] = {"offset_s", "gpus_available", "gpus_used",
                                       "jobs_waiting"};
    char buf[4][48];
    const char *v[4] = {buf[0], buf[1], buf[2], buf[3]};
    size_t i;

    row(s, sep, head, 4);
    for (i = 0; i < r->npoints; i++) {
        gq__report_secs(buf[0], sizeof(buf[0]), (double)((int64_t)i * r->step));
        snprintf(buf[1], sizeof(buf[1]), "%.3f", r->avail[i]);
        snprintf(buf[2], sizeof(buf[2]), "%.3f", r->used[i]);
        snprintf(buf[3], sizeof(buf[3]), "%.3f", r->pending[i]);
        row(s, sep, v, 4);
    }
}

static void hist_row(struct gq__str *s, char sep, const char *wait, const char *kind,
                     double from, double to, uint64_t count)
{
    char buf[3][48];
    const char *v[5] = {wait, kind, buf[0], buf[1], buf[2]};

    gq__report_secs(buf[0], sizeof(buf[0]), from);
    if (to < 0)
        snprintf(buf[1], sizeof(buf[1]), "+Inf");
    else
        gq__report_secs(buf[1], sizeof(buf[1]), to);
    snprintf(buf[2], sizeof(buf[2]), "%llu", (unsigned long long)count);
    row(s, sep, v, 5);
}

static void csv_histogram(struct gq__str *s, const struct gq__report *r, char sep)
{
    static const char *const head[] = {"wait", "kind", "from_s", "to_s", "count"};
    size_t w, b;

    row(s, sep, head, 5);
    for (w = 0; w < GQ__NWAITS; w++) {
        const struct gq__report_wait *wt = &r->waits[w];

        for (b = 0; b <= GQ__WAIT_NBUCKETS; b++)
            hist_row(s, sep, wt->key, "bucket", b ? (double)gq__wait_buckets_ms[b - 1] : 0,
                     b < GQ__WAIT_NBUCKETS ? (double)gq__wait_buckets_ms[b] : -1,
                     wt->buckets[b]);
        for (b = 0; b <= r->nbins; b++)
            hist_row(s, sep, wt->key, "bin", (double)((int64_t)b * r->bin_ms),
                     b < r->nbins ? (double)((int64_t)(b + 1) * r->bin_ms) : -1, wt->bins[b]);
    }
}

static void csv_provisioning(struct gq__str *s, const struct gq__report *r, char sep)
{
    static const char *const head[] = {"flavor",  "attempt",         "requests",
                                       "retries", "provisioned",     "failed",
                                       "booking_expired", "capacity_revoked", "p50_s",
                                       "mean_s",  "max_s"};
    char buf[11][48];
    const char *v[11];
    size_t i, k;

    row(s, sep, head, 11);
    for (i = 0; i < r->prov.n; i++) {
        const struct gq__report_prov *p = &r->prov.v[i];

        snprintf(buf[1], sizeof(buf[1]), "%lld", (long long)p->attempt);
        snprintf(buf[2], sizeof(buf[2]), "%zu", p->requests);
        snprintf(buf[3], sizeof(buf[3]), "%zu", p->retries);
        snprintf(buf[4], sizeof(buf[4]), "%zu", p->provisioned);
        snprintf(buf[5], sizeof(buf[5]), "%zu", p->failed);
        snprintf(buf[6], sizeof(buf[6]), "%zu", p->expired);
        snprintf(buf[7], sizeof(buf[7]), "%zu", p->revoked);
        gq__report_secs(buf[8], 48, p->to_provisioned.p50);
        gq__report_secs(buf[9], 48, p->to_provisioned.mean);
        gq__report_secs(buf[10], 48, p->to_provisioned.max);
        for (k = 1; k < 11; k++)
            v[k] = buf[k];
        v[0] = p->flavor ? p->flavor : "all";
        v[1] = p->attempt ? buf[1] : "all";
        row(s, sep, v, 11);
    }
}

void gq__report_table(struct gq__str *s, const struct gq__report *r, char sep)
{
    const char *t = r->opts->table ? r->opts->table : "waits";

    if (strcmp(t, "queues") == 0)
        csv_queues(s, r, sep);
    else if (strcmp(t, "pools") == 0 || strcmp(t, "flavors") == 0)
        csv_cost(s, r, sep, strcmp(t, "pools") == 0);
    else if (strcmp(t, "series") == 0)
        csv_series(s, r, sep);
    else if (strcmp(t, "histogram") == 0)
        csv_histogram(s, r, sep);
    else if (strcmp(t, "provisioning") == 0)
        csv_provisioning(s, r, sep);
    else
        csv_waits(s, r, sep);
}
