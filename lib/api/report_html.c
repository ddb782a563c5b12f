/*
 * report_html.c: the report as one self-contained HTML page: inline CSS and
 * inline SVG, no script, no external resource, so it opens offline and
 * mails as one file. Grafana-like dark panels (ecosystem.md section 5).
 *
 * Charts carry data-chart on their <svg> and data-series on the elements
 * that draw a series (the wait histogram's bars, the GPU lines, the
 * waiting-jobs area, the per-queue bars), so a test in a browser can find
 * them. Titles are short: SVG has no font metrics to fit text by.
 */
#include <stdio.h>
#include <string.h>

#include "report.h"

#define MS_PER_HOUR 3600000.0
#define W 560 /* chart width and height, px */
#define H 220
#define PAD_L 48
#define PAD_R 12
#define PAD_T 14
#define PAD_B 30

static void esc(struct gq__str *s, const char *v)
{
    for (; *v; v++) {
        switch (*v) {
        case '<':
            gq__str_puts(s, "&lt;");
            break;
        case '>':
            gq__str_puts(s, "&gt;");
            break;
        case '&':
            gq__str_puts(s, "&amp;");
            break;
        case '"':
            gq__str_puts(s, "&quot;");
            break;
        default:
            gq__str_add(s, v, 1);
        }
    }
}

static const char css[] =
    "body{background:#111217;color:#ccccdc;font:14px/1.4 system-ui,sans-serif;margin:16px}"
    "h1{font-size:18px;margin:0 0 4px}h2{font-size:14px;margin:0 0 8px;color:#d8d9da}"
    ".sub{color:#8e8e9e;margin-bottom:12px}"
    ".grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(580px,1fr));gap:12px}"
    ".panel{background:#181b1f;border:1px solid #2c3235;border-radius:3px;padding:10px}"
    ".stats{display:flex;flex-wrap:wrap;gap:12px;margin-bottom:12px}"
    ".stat{background:#181b1f;border:1px solid #2c3235;border-radius:3px;padding:8px 14px}"
    ".stat b{display:block;font-size:22px;color:#73bf69}.stat span{color:#8e8e9e;font-size:12px}"
    "table{border-collapse:collapse;font-size:13px}th,td{padding:3px 10px;text-align:right}"
    "th{color:#8e8e9e;font-weight:normal;border-bottom:1px solid #2c3235}"
    "td:first-child,th:first-child{text-align:left}"
    "svg text{fill:#8e8e9e;font:11px sans-serif}.none{color:#8e8e9e}";

/* ---------------------------------------------------------------- charts */

static void svg_open(struct gq__str *s, const char *chart, const char *label)
{
    gq__str_printf(s,
                   "<svg data-chart=\"%s\" role=\"img\" aria-label=\"%s\" width=\"%d\" "
                   "height=\"%d\" viewBox=\"0 0 %d %d\" xmlns=\"http://www.w3.org/2000/svg\">\n",
                   chart, label, W, H, W, H);
}

/* Horizontal grid lines and y labels from 0 to ymax. */
static void y_axis(struct gq__str *s, double ymax, const char *unit)
{
    int k;

    for (k = 0; k <= 4; k++) {
        double y = PAD_T + (H - PAD_T - PAD_B) * (1.0 - k / 4.0);

        gq__str_printf(s,
                       "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#2c3235\"/>"
                       "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%.3g%s</text>\n",
                       PAD_L, W - PAD_R, y, y, PAD_L - 4, y + 4, ymax * k / 4.0, unit);
    }
}

static double px_x(size_t i, size_t n)
{
    return PAD_L + (double)(W - PAD_L - PAD_R) * (double)i / (double)(n > 1 ? n - 1 : 1);
}

static double px_y(double v, double ymax)
{
    return PAD_T + (H - PAD_T - PAD_B) * (1.0 - (ymax > 0 ? v / ymax : 0));
}

/* One series as a line (fill NULL) or an area under it. */
static void series_path(struct gq__str *s, const char *name, const double *v, size_t n,
                        double ymax, const char *color, const char *fill)
{
    size_t i;

    gq__str_printf(s, "<path data-series=\"%s\" d=\"", name);
    if (fill)
        gq__str_printf(s, "M%.1f %.1f ", px_x(0, n), px_y(0, ymax));
    for (i = 0; i < n; i++)
        gq__str_printf(s, "%s%.1f %.1f ", i || fill ? "L" : "M", px_x(i, n), px_y(v[i], ymax));
    if (fill)
        gq__str_printf(s, "L%.1f %.1f Z", px_x(n - 1, n), px_y(0, ymax));
    gq__str_printf(s, "\" fill=\"%s\" stroke=\"%s\" stroke-width=\"1.5\"/>\n",
                   fill ? fill : "none", color);
}

/* Time labels under a series chart: the start, the middle and the end of the window. */
static void x_time(struct gq__str *s, const struct gq__report *r)
{
    char d[GQ_DURATION_BUFSIZE];
    int k;

    for (k = 0; k <= 2; k++) {
        int64_t ms = r->step * r->npoints * k / 2;

        gq__format_duration_ms(d, sizeof(d), ms / 1000 * 1000, true);
        gq__str_printf(s, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"%s\">+%s</text>\n",
                       PAD_L + (W - PAD_L - PAD_R) * k / 2.0, H - 10,
                       k == 0 ? "start" : k == 1 ? "middle" : "end", d);
    }
}

static double max_of(const double *v, size_t n, double floor)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (v[i] > floor)
            floor = v[i];
    return floor;
}

static void chart_gpus(struct gq__str *s, const struct gq__report *r)
{
    double ymax = max_of(r->used, r->npoints, max_of(r->avail, r->npoints, 1));

    gq__str_puts(s, "<div class=\"panel\"><h2>GPUs available vs used</h2>\n");
    if (r->raw.nodes_total == 0) {
        gq__str_puts(s, "<p class=\"none\">No node records: the simulated cluster keeps them; "
                        "a real cluster's nodes are not recorded.</p></div>\n");
        return;
    }
    svg_open(s, "gpus", "GPUs available and used over time");
    y_axis(s, ymax, "");
    series_path(s, "gpus_available", r->avail, r->npoints, ymax, "#5794f2",
                "rgba(87,148,242,0.15)");
    series_path(s, "gpus_used", r->used, r->npoints, ymax, "#73bf69",
                "rgba(115,191,105,0.25)");
    x_time(s, r);
    gq__str_puts(s, "</svg>\n<div><span style=\"color:#5794f2\">&#9632; available</span> "
                    "<span style=\"color:#73bf69\">&#9632; used</span></div></div>\n");
}

static void chart_pending(struct gq__str *s, const struct gq__report *r)
{
    double ymax = max_of(r->pending, r->npoints, 1);

    gq__str_puts(s, "<div class=\"panel\"><h2>Jobs waiting for admission</h2>\n");
    svg_open(s, "pending", "Jobs waiting over time");
    y_axis(s, ymax, "");
    series_path(s, "jobs_waiting", r->pending, r->npoints, ymax, "#ff9830",
                "rgba(255,152,48,0.2)");
    x_time(s, r);
    gq__str_puts(s, "</svg></div>\n");
}

/* Bars, one per Prometheus bucket (le), of one wait. */
static void chart_histogram(struct gq__str *s, const struct gq__report_wait *wt)
{
    double bw = (double)(W - PAD_L - PAD_R) / (GQ__WAIT_NBUCKETS + 1), ymax = 1;
    char le[GQ_DURATION_BUFSIZE];
    size_t b;

    for (b = 0; b <= GQ__WAIT_NBUCKETS; b++)
        if ((double)wt->buckets[b] > ymax)
            ymax = (double)wt->buckets[b];
    gq__str_printf(s, "<div class=\"panel\"><h2>Wait histogram: %s</h2>\n", wt->label);
    svg_open(s, "histogram", "Wait histogram, Prometheus buckets");
    y_axis(s, ymax, "");
    for (b = 0; b <= GQ__WAIT_NBUCKETS; b++) {
        double y = px_y((double)wt->buckets[b], ymax), x = PAD_L + bw * (double)b;

        if (b < GQ__WAIT_NBUCKETS)
            gq__format_duration_ms(le, sizeof(le), gq__wait_buckets_ms[b], true);
        else
            snprintf(le, sizeof(le), "+Inf");
        gq__str_printf(s,
                       "<rect data-series=\"%s\" data-le=\"%s\" x=\"%.1f\" y=\"%.1f\" "
                       "width=\"%.1f\" height=\"%.1f\" fill=\"#73bf69\"><title>le %s: %llu"
                       "</title></rect>\n",
                       wt->key, le, x + 1, y, bw - 2, (double)(H - PAD_B) - y, le,
                       (unsigned long long)wt->buckets[b]);
        if (b % 2 == 0)
            gq__str_printf(s, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
                           x + bw / 2, H - 10, le);
    }
    gq__str_puts(s, "</svg></div>\n");
}

/* Horizontal bars: mean wait to admission per ClusterQueue, p99 as a tick. */
static void chart_queues(struct gq__str *s, const struct gq__report *r)
{
    double ymax = 1000, y = PAD_T, bh;
    size_t g, n = 0;
    char d[2][GQ_DURATION_BUFSIZE];

    for (g = 0; g < r->groups.n; g++)
        if (strcmp(r->groups.v[g].kind, "ClusterQueue") == 0) {
            n++;
            ymax = r->groups.v[g].s.p99 > ymax ? r->groups.v[g].s.p99 : ymax;
        }
    gq__str_puts(s, "<div class=\"panel\"><h2>Wait per ClusterQueue (mean, p99)</h2>\n");
    svg_open(s, "queues", "Mean and p99 wait per ClusterQueue");
    bh = n ? (double)(H - PAD_T - PAD_B) / (double)n : 0;
    for (g = 0; g < r->groups.n; g++) {
        const struct gq__report_group *gr = &r->groups.v[g];
        double x = 120, span = W - 120 - PAD_R;

        if (strcmp(gr->kind, "ClusterQueue") != 0)
            continue;
        gq__report_dur(d[0], sizeof(d[0]), gr->s.mean);
        gq__report_dur(d[1], sizeof(d[1]), gr->s.p99);
        gq__str_puts(s, "<text x=\"4\" y=\"");
        gq__str_printf(s, "%.1f\">", y + bh / 2 + 4);
        esc(s, gr->name);
        gq__str_printf(s, "</text>\n<rect data-series=\"queue_mean\" data-name=\"");
        esc(s, gr->name);
        gq__str_printf(s,
                       "\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#5794f2\">"
                       "<title>mean %s, p99 %s</title></rect>\n"
                       "<line data-series=\"queue_p99\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" "
                       "y2=\"%.1f\" stroke=\"#f2495c\" stroke-width=\"2\"/>\n",
                       x, y + 3, span * gr->s.mean / ymax, bh > 6 ? bh - 6 : 1, d[0], d[1],
                       x + span * gr->s.p99 / ymax, x + span * gr->s.p99 / ymax, y + 1,
                       y + bh - 1);
        y += bh;
    }
    gq__report_dur(d[0], sizeof(d[0]), ymax);
    gq__str_printf(s, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>\n", W - PAD_R,
                   H - 10, d[0]);
    gq__str_puts(s, "</svg></div>\n");
}

/* ---------------------------------------------------------------- tables */

static void stat(struct gq__str *s, const char *value, const char *label)
{
    gq__str_printf(s, "<div class=\"stat\"><b>%s</b><span>%s</span></div>\n", value, label);
}

static void stats_row(struct gq__str *s, const struct gq__report *r)
{
    const struct gq__report_wait *wt = &r->waits[GQ__W_ADMISSION];
    char v[64], l[64], d[GQ_DURATION_BUFSIZE];
    size_t i;

    gq__str_puts(s, "<div class=\"stats\">\n");
    gq__report_dur(v, sizeof(v), wt->s.p50);
    stat(s, v, "p50 wait to admission");
    gq__report_dur(v, sizeof(v), wt->s.mean);
    stat(s, v, "mean");
    gq__report_dur(v, sizeof(v), wt->s.p99);
    stat(s, v, "p99");
    for (i = 0; i < r->nunder; i++) {
        gq__format_duration_ms(d, sizeof(d), r->under[i], true);
        snprintf(v, sizeof(v), "%.0f%%",
                 wt->n ? 100.0 * (double)wt->under[i] / (double)wt->n : 0.0);
        snprintf(l, sizeof(l), "admitted within %s", d);
        stat(s, v, l);
    }
    if (r->raw.nodes_total) {
        snprintf(v, sizeof(v), "%.1f%%", gq__stats_utilization(r->total.used, r->total.provisioned));
        stat(s, v, "GPU utilization");
        snprintf(v, sizeof(v), "%.1f%%", gq__stats_overhead(r->total.used, r->total.provisioned));
        stat(s, v, "GPU overhead");
    }
    gq__str_puts(s, "</div>\n");
}

static void waits_table(struct gq__str *s, const struct gq__report *r)
{
    char c[5][GQ_DURATION_BUFSIZE];
    size_t w;

    gq__str_puts(s, "<div class=\"panel\"><h2>Waits</h2><table>\n<tr><th>wait</th><th>n</th>"
                    "<th>waiting</th><th>p50</th><th>mean</th><th>p90</th><th>p99</th>"
                    "<th>max</th></tr>\n");
    for (w = 0; w < GQ__NWAITS; w++) {
        const struct gq__report_wait *wt = &r->waits[w];

        if (w == GQ__W_POD && wt->n == 0)
            continue;
        gq__report_dur(c[0], sizeof(c[0]), wt->s.p50);
        gq__report_dur(c[1], sizeof(c[1]), wt->s.mean);
        gq__report_dur(c[2], sizeof(c[2]), wt->s.p90);
        gq__report_dur(c[3], sizeof(c[3]), wt->s.p99);
        gq__report_dur(c[4], sizeof(c[4]), wt->s.max);
        gq__str_printf(s,
                       "<tr><td>%s</td><td>%zu</td><td>%zu</td><td>%s</td><td>%s</td>"
                       "<td>%s</td><td>%s</td><td>%s</td></tr>\n",
                       wt->label, wt->n, wt->waiting, c[0], c[1], c[2], c[3], c[4]);
    }
    gq__str_puts(s, "</table></div>\n");
}

static void cost_table(struct gq__str *s, const struct gq__report *r)
{
    size_t i;

    gq__str_puts(s, "<div class=\"panel\"><h2>GPU cost per pool</h2>\n");
    if (r->raw.nodes_total == 0) {
        gq__str_puts(s, "<p class=\"none\">No node records.</p></div>\n");
        return;
    }
    gq__str_puts(s, "<table><tr><th>pool</th><th>nodes</th><th>GPU-h provisioned</th>"
                    "<th>GPU-h used</th><th>utilization</th><th>overhead</th></tr>\n");
    for (i = 0; i <= r->pools.n; i++) {
        const struct gq__report_cost *c = i < r->pools.n ? &r->pools.v[i] : &r->total;

        gq__str_puts(s, "<tr><td>");
        esc(s, i < r->pools.n ? c->name : "total");
        gq__str_printf(s,
                       "</td><td>%zu</td><td>%.2f</td><td>%.2f</td><td>%.1f%%</td>"
                       "<td>%.1f%%</td></tr>\n",
                       c->nodes, c->provisioned / MS_PER_HOUR, c->used / MS_PER_HOUR,
                       gq__stats_utilization(c->used, c->provisioned),
                       gq__stats_overhead(c->used, c->provisioned));
    }
    gq__str_puts(s, "</table></div>\n");
}

static void prov_table(struct gq__str *s, const struct gq__report *r)
{
    char d[2][GQ_DURATION_BUFSIZE];
    size_t i;

    gq__str_puts(s, "<div class=\"panel\"><h2>Provisioning requests</h2>\n");
    if (r->prov.n == 0) {
        gq__str_puts(s, "<p class=\"none\">None.</p></div>\n");
        return;
    }
    gq__str_puts(s, "<table><tr><th>flavor</th><th>attempt</th><th>requests</th>"
                    "<th>provisioned</th><th>failed</th><th>p50 to provisioned</th>"
                    "<th>max</th></tr>\n");
    for (i = 0; i < r->prov.n; i++) {
        const struct gq__report_prov *p = &r->prov.v[i];

        gq__report_dur(d[0], sizeof(d[0]), p->to_provisioned.p50);
        gq__report_dur(d[1], sizeof(d[1]), p->to_provisioned.max);
        gq__str_puts(s, "<tr><td>");
        esc(s, p->flavor ? p->flavor : "all");
        if (p->attempt)
            gq__str_printf(s, "</td><td>%lld", (long long)p->attempt);
        else
            gq__str_puts(s, "</td><td>all");
        gq__str_printf(s, "</td><td>%zu</td><td>%zu</td><td>%zu</td><td>%s</td><td>%s</td></tr>\n",
                       p->requests, p->provisioned, p->failed, p->provisioned ? d[0] : "-",
                       p->provisioned ? d[1] : "-");
    }
    gq__str_puts(s, "</table></div>\n");
}

void gq__report_html(struct gq__str *s, const struct gq__report *r)
{
    char since[GQ_RFC3339_BUFSIZE], until[GQ_RFC3339_BUFSIZE];

    gq__str_printf(s,
                   "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
                   "<title>gpuq report</title>\n<style>%s</style></head><body>\n"
                   "<h1>gpuq report</h1>\n<div class=\"sub\">%s to %s: %zu jobs submitted, "
                   "%zu admitted, %zu not admitted yet</div>\n",
                   css, gq__rfc3339(since, r->raw.since), gq__rfc3339(until, r->raw.until),
                   r->submitted, r->admitted, r->submitted - r->admitted);
    stats_row(s, r);
    gq__str_puts(s, "<div class=\"grid\">\n");
    chart_histogram(s, &r->waits[GQ__W_ADMISSION]);
    if (r->waits[GQ__W_POD].n)
        chart_histogram(s, &r->waits[GQ__W_POD]);
    chart_gpus(s, r);
    chart_pending(s, r);
    chart_queues(s, r);
    waits_table(s, r);
    cost_table(s, r);
    prov_table(s, r);
    gq__str_puts(s, "</div>\n</body></html>\n");
}
