/*
 * report_json.c: the report as JSON (every figure) and as CSV/TSV (one
 * table or series). Keys come in a fixed order, times as seconds (numbers
 * with at most three decimals), shares as fractions, so the same database
 * gives the same bytes. JSON layout (docs: gpuq report --help):
 *
 *   {"kind": "Report", "window": {...}, "jobs": {...}, "waits": [...],
 *    "queues": [...], "cost": {...}, "series": {...}, "provisioning": {...}}
 */
#include <stdio.h>
#include <string.h>

#include "report.h"

#define MS_PER_HOUR 3600000.0

void gq__report_jstr(struct gq__str *s, const char *v)
{
    gq__str_puts(s, "\"");
    for (; *v; v++) {
        if (*v == '"' || *v == '\\')
            gq__str_printf(s, "\\%c", *v);
        else if ((unsigned char)*v < 0x20)
            gq__str_printf(s, "\\u%04x", (unsigned char)*v);
        else
            gq__str_add(s, v, 1);
    }
    gq__str_puts(s, "\"");
}

/* "key": seconds */
static void jsecs(struct gq__str *s, const char *key, double ms)
{
    char buf[48];

    gq__report_secs(buf, sizeof(buf), ms);
    gq__str_printf(s, "\"%s\": %s", key, buf);
}

static void jsummary(struct gq__str *s, const struct gq__stats_summary *st)
{
    jsecs(s, "p50", st->p50);
    gq__str_puts(s, ", ");
    jsecs(s, "mean", st->mean);
    gq__str_puts(s, ", ");
    jsecs(s, "p90", st->p90);
    gq__str_puts(s, ", ");
    jsecs(s, "p99", st->p99);
    gq__str_puts(s, ", ");
    jsecs(s, "max", st->max);
}

static void json_hist(struct gq__str *s, const struct gq__report *r,
                      const struct gq__report_wait *wt)
{
    char le[48];
    size_t b;

    gq__str_puts(s, "\"buckets\": [");
    for (b = 0; b <= GQ__WAIT_NBUCKETS; b++) {
        if (b < GQ__WAIT_NBUCKETS)
            gq__report_secs(le, sizeof(le), (double)gq__wait_buckets_ms[b]);
        gq__str_printf(s, "%s{\"le\": %s%s%s, \"count\": %llu}", b ? ", " : "",
                       b < GQ__WAIT_NBUCKETS ? "" : "\"", b < GQ__WAIT_NBUCKETS ? le : "+Inf",
                       b < GQ__WAIT_NBUCKETS ? "" : "\"", (unsigned long long)wt->buckets[b]);
    }
    gq__report_secs(le, sizeof(le), (double)r->bin_ms);
    gq__str_printf(s, "],\n      \"bins\": {\"width\": %s, \"counts\": [", le);
    for (b = 0; b < r->nbins; b++)
        gq__str_printf(s, "%s%llu", b ? ", " : "", (unsigned long long)wt->bins[b]);
    gq__str_printf(s, "], \"above\": %llu}", (unsigned long long)wt->bins[r->nbins]);
}

static void json_waits(struct gq__str *s, const struct gq__report *r)
{
    char le[48];
    size_t w, i;

    gq__str_puts(s, "  \"waits\": [");
    for (w = 0; w < GQ__NWAITS; w++) {
        const struct gq__report_wait *wt = &r->waits[w];

        gq__str_printf(s, "%s\n    {\"wait\": \"%s\", \"n\": %zu, \"waiting\": %zu, ",
                       w ? "," : "", wt->key, wt->n, wt->waiting);
        jsummary(s, &wt->s);
        gq__str_puts(s, ",\n      \"under\": [");
        for (i = 0; i < r->nunder; i++) {
            gq__report_secs(le, sizeof(le), (double)r->under[i]);
            gq__str_printf(s, "%s{\"le\": %s, \"count\": %zu, \"share\": %.4f}", i ? ", " : "",
                           le, wt->under[i],
                           wt->n ? (double)wt->under[i] / (double)wt->n : 0.0);
        }
        gq__str_puts(s, "],\n      ");
        json_hist(s, r, wt);
        gq__str_puts(s, "}");
    }
    gq__str_puts(s, "\n  ],\n");
}

static void json_groups(struct gq__str *s, const struct gq__report *r)
{
    size_t g;

    gq__str_puts(s, "  \"queues\": [");
    for (g = 0; g < r->groups.n; g++) {
        const struct gq__report_group *gr = &r->groups.v[g];

        gq__str_printf(s, "%s\n    {\"kind\": \"%s\", \"name\": ", g ? "," : "", gr->kind);
        gq__report_jstr(s, gr->name);
        gq__str_printf(s, ", \"jobs\": %zu, \"admitted\": %zu, ", gr->jobs, gr->admitted);
        jsummary(s, &gr->s);
        gq__str_puts(s, "}");
    }
    gq__str_puts(s, r->groups.n ? "\n  ],\n" : "],\n");
}

static void json_cost_one(struct gq__str *s, const char *key, const struct gq__report_cost *c)
{
    if (key) {
        gq__str_printf(s, "\"%s\": ", key);
        gq__report_jstr(s, c->name);
        gq__str_puts(s, ", ");
    }
    gq__str_printf(s,
                   "\"nodes\": %zu, \"gpu_hours_provisioned\": %.3f, \"gpu_hours_used\": %.3f, "
                   "\"utilization\": %.1f, \"overhead\": %.1f",
                   c->nodes, c->provisioned / MS_PER_HOUR, c->used / MS_PER_HOUR,
                   gq__stats_utilization(c->used, c->provisioned),
                   gq__stats_overhead(c->used, c->provisioned));
}

static void json_cost(struct gq__str *s, const struct gq__report *r)
{
    size_t i;

    gq__str_printf(s, "  \"cost\": {\"node_records\": %s, ",
                   r->raw.nodes_total ? "true" : "false");
    json_cost_one(s, NULL, &r->total);
    gq__str_puts(s, ",\n    \"pools\": [");
    for (i = 0; i < r->pools.n; i++) {
        gq__str_puts(s, i ? ",\n      {" : "\n      {");
        json_cost_one(s, "pool", &r->pools.v[i]);
        gq__str_puts(s, "}");
    }
    gq__str_puts(s, "],\n    \"flavors\": [");
    for (i = 0; i < r->flavors.n; i++) {
        gq__str_puts(s, i ? ",\n      {" : "\n      {");
        json_cost_one(s, "flavor", &r->flavors.v[i]);
        gq__str_puts(s, "}");
    }
    gq__str_puts(s, "]},\n");
}

static void json_array(struct gq__str *s, const char *key, const double *v, size_t n)
{
    size_t i;

    gq__str_printf(s, ",\n    \"%s\": [", key);
    for (i = 0; i < n; i++)
        gq__str_printf(s, "%s%.3f", i ? ", " : "", v[i]);
    gq__str_puts(s, "]");
}

static void json_series(struct gq__str *s, const struct gq__report *r)
{
    char step[48];

    gq__report_secs(step, sizeof(step), (double)r->step);
    gq__str_printf(s, "  \"series\": {\"step\": %s, \"points\": %zu", step, r->npoints);
    json_array(s, "gpus_available", r->avail, r->npoints);
    json_array(s, "gpus_used", r->used, r->npoints);
    json_array(s, "jobs_waiting", r->pending, r->npoints);
    gq__str_puts(s, "},\n");
}

static void json_prov_one(struct gq__str *s, const struct gq__report_prov *p)
{
    if (p->flavor) {
        gq__str_puts(s, "{\"flavor\": ");
        gq__report_jstr(s, p->flavor);
    } else {
        gq__str_printf(s, "{\"attempt\": %lld", (long long)p->attempt);
    }
    gq__str_printf(s,
                   ", \"requests\": %zu, \"retries\": %zu, \"provisioned\": %zu, "
                   "\"failed\": %zu, \"booking_expired\": %zu, \"capacity_revoked\": %zu, "
                   "\"to_provisioned\": {",
                   p->requests, p->retries, p->provisioned, p->failed, p->expired, p->revoked);
    jsummary(s, &p->to_provisioned);
    gq__str_puts(s, "}}");
}

static void json_provisioning(struct gq__str *s, const struct gq__report *r)
{
    size_t i;

    gq__str_puts(s, "  \"provisioning\": {\"flavors\": [");
    for (i = 0; i < r->prov.n; i++) {
        if (i == r->nprov_flavors)
            gq__str_puts(s, "],\n    \"attempts\": [");
        gq__str_puts(s, i && i != r->nprov_flavors ? ",\n      " : "\n      ");
        json_prov_one(s, &r->prov.v[i]);
    }
    if (r->nprov_flavors == r->prov.n)
        gq__str_puts(s, "],\n    \"attempts\": [");
    gq__str_puts(s, "]}\n");
}

void gq__report_json(struct gq__str *s, const struct gq__report *r)
{
    char since[GQ_RFC3339_BUFSIZE], until[GQ_RFC3339_BUFSIZE], secs[48];

    gq__report_secs(secs, sizeof(secs), (double)(r->raw.until - r->raw.since));
    gq__str_printf(s,
                   "{\n  \"apiVersion\": \"gpuq.dev/v1alpha1\",\n  \"kind\": \"Report\",\n"
                   "  \"window\": {\"since\": \"%s\", \"until\": \"%s\", \"seconds\": %s},\n",
                   gq__rfc3339(since, r->raw.since), gq__rfc3339(until, r->raw.until), secs);
    gq__str_printf(s,
                   "  \"jobs\": {\"submitted\": %zu, \"admitted\": %zu, \"started\": %zu, "
                   "\"not_admitted\": %zu},\n",
                   r->submitted, r->admitted, r->running, r->submitted - r->admitted);
    json_waits(s, r);
    json_groups(s, r);
    json_cost(s, r);
    json_series(s, r);
    json_provisioning(s, r);
    gq__str_puts(s, "}\n");
}
