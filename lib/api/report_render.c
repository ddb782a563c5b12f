/*
 * report_render.c: the report as a terminal page, JSON, and CSV/TSV.
 *
 * Every number is printed with a fixed format (seconds to the millisecond,
 * percentages to one decimal, shares to four) and every list in a fixed
 * order, so that the same database gives byte-identical output. The page's
 * sparklines and bars use U+2581..U+2588 when opts->unicode, else _.-=#.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

#define MS_PER_HOUR 3600000.0

void gq__report_secs(char *buf, size_t size, double ms)
{
    size_t n;

    snprintf(buf, size, "%.3f", ms / 1000.0);
    n = strlen(buf);
    while (n > 1 && buf[n - 1] == '0')
        buf[--n] = '\0';
    if (n > 1 && buf[n - 1] == '.')
        buf[--n] = '\0';
    if (strcmp(buf, "-0") == 0)
        snprintf(buf, size, "0");
}

void gq__report_dur(char *buf, size_t size, double ms)
{
    if (ms < 59950)
        snprintf(buf, size, "%.1fs", ms / 1000.0);
    else
        gq__format_duration_ms(buf, size, (int64_t)llround(ms / 1000.0) * 1000, true);
}

/* ------------------------------------------------------------ text tables */

#define TAB_COLS 12
#define TAB_ROWS 512 /* the page shows at most this many rows of a table */

struct tab {
    size_t ncols, nrows;
    char *cells[TAB_ROWS][TAB_COLS]; /* owned */
    bool failed;
};

static void tab_row(struct tab *t, const char *const *cells)
{
    size_t c;

    if (t->nrows == TAB_ROWS)
        return;
    for (c = 0; c < t->ncols; c++)
        if (!(t->cells[t->nrows][c] = gq__strdup(cells[c] ? cells[c] : "")))
            t->failed = true;
    t->nrows++;
}

/* Display columns of UTF-8 text (names are ASCII; labels may not be). */
static size_t cols(const char *s)
{
    size_t n = 0;

    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

/* Print and free: the first column left-aligned, the others right-aligned. */
static void tab_print(struct gq__str *s, struct tab *t)
{
    size_t w[TAB_COLS] = {0}, r, c, k;

    for (r = 0; r < t->nrows; r++)
        for (c = 0; c < t->ncols; c++)
            if (t->cells[r][c] && cols(t->cells[r][c]) > w[c])
                w[c] = cols(t->cells[r][c]);
    for (r = 0; r < t->nrows; r++) {
        for (c = 0; c < t->ncols; c++) {
            const char *v = t->cells[r][c] ? t->cells[r][c] : "";
            size_t pad = w[c] - cols(v);

            if (c > 0)
                gq__str_puts(s, "  ");
            for (k = 0; c > 0 && k < pad; k++)
                gq__str_puts(s, " ");
            gq__str_puts(s, v);
            for (k = 0; c == 0 && c + 1 < t->ncols && k < pad; k++)
                gq__str_puts(s, " ");
            free(t->cells[r][c]);
        }
        gq__str_puts(s, "\n");
    }
    if (t->failed)
        s->failed = true;
    t->nrows = 0;
}

/* ------------------------------------------------------------ sparklines */

static const char *const blocks_utf8[] = {"\u2581", "\u2582", "\u2583", "\u2584",
                                          "\u2585", "\u2586", "\u2587", "\u2588"};
static const char *const blocks_ascii[] = {"_", ".", "-", "=", "#"};

static void spark(struct gq__str *s, const double *v, size_t n, size_t width, bool unicode)
{
    size_t levels = unicode ? 8 : 5, i, k, m, per = (n + width - 1) / width;
    double max = 0, mean;

    for (i = 0; i < n; i++)
        if (v[i] > max)
            max = v[i];
    for (i = 0; i < n; i += per) {
        for (mean = 0, m = 0; m < per && i + m < n; m++)
            mean += v[i + m];
        mean /= (double)m;
        k = max > 0 ? (size_t)llround(mean / max * (double)(levels - 1)) : 0;
        gq__str_puts(s, unicode ? blocks_utf8[k] : blocks_ascii[k]);
    }
}

/* A horizontal bar of count out of max, at most width cells. */
static void bar(struct gq__str *s, uint64_t count, uint64_t max, size_t width, bool unicode)
{
    size_t n = max ? (size_t)((count * width + max - 1) / max) : 0, i;

    for (i = 0; i < n; i++)
        gq__str_puts(s, unicode ? "\u2588" : "#");
    for (; i < width; i++)
        gq__str_puts(s, " ");
}

/* ------------------------------------------------------------- the page */

static void text_header(struct gq__str *s, const struct gq__report *r)
{
    char since[GQ_RFC3339_BUFSIZE], until[GQ_RFC3339_BUFSIZE], span[GQ_DURATION_BUFSIZE];

    gq__format_duration_ms(span, sizeof(span), (r->raw.until - r->raw.since + 500) / 1000 * 1000, true);
    gq__str_printf(s, "Report %s to %s (%s)\n", gq__rfc3339(since, r->raw.since),
                   gq__rfc3339(until, r->raw.until), span);
    gq__str_printf(s, "Jobs: %zu submitted, %zu admitted, %zu started, %zu not admitted yet\n",
                   r->submitted, r->admitted, r->running, r->submitted - r->admitted);
}

static void text_waits(struct gq__str *s, const struct gq__report *r)
{
    struct tab t = {.ncols = 0};
    const char *cells[TAB_COLS];
    char buf[TAB_COLS][48];
    size_t w, i;

    t.ncols = 8 + r->nunder;
    cells[0] = "WAIT", cells[1] = "N", cells[2] = "WAITING", cells[3] = "P50", cells[4] = "MEAN";
    cells[5] = "P90", cells[6] = "P99", cells[7] = "MAX";
    for (i = 0; i < r->nunder; i++) {
        char d[GQ_DURATION_BUFSIZE];

        gq__format_duration_ms(d, sizeof(d), r->under[i], true);
        snprintf(buf[8 + i], sizeof(buf[0]), "<=%s", d);
        cells[8 + i] = buf[8 + i];
    }
    tab_row(&t, cells);
    for (w = 0; w < GQ__NWAITS; w++) {
        const struct gq__report_wait *wt = &r->waits[w];

        if (w == GQ__W_POD && wt->n == 0 && wt->waiting == 0)
            continue;
        cells[0] = wt->label;
        snprintf(buf[1], sizeof(buf[1]), "%zu", wt->n);
        snprintf(buf[2], sizeof(buf[2]), "%zu", wt->waiting);
        gq__report_dur(buf[3], sizeof(buf[3]), wt->s.p50);
        gq__report_dur(buf[4], sizeof(buf[4]), wt->s.mean);
        gq__report_dur(buf[5], sizeof(buf[5]), wt->s.p90);
        gq__report_dur(buf[6], sizeof(buf[6]), wt->s.p99);
        gq__report_dur(buf[7], sizeof(buf[7]), wt->s.max);
        for (i = 0; i < r->nunder; i++)
            snprintf(buf[8 + i], sizeof(buf[0]), "%.1f%%",
                     wt->n ? 100.0 * (double)wt->under[i] / (double)wt->n : 0.0);
        for (i = 1; i < t.ncols; i++)
            cells[i] = wt->n || i < 3 ? buf[i] : "-";
        tab_row(&t, cells);
    }
    gq__str_puts(s, "\nWaits (jobs submitted in the window; pods created in it)\n");
    tab_print(s, &t);
}

static void text_histogram(struct gq__str *s, const struct gq__report *r, int w)
{
    const struct gq__report_wait *wt = &r->waits[w];
    uint64_t max = 0;
    char le[GQ_DURATION_BUFSIZE], width[GQ_DURATION_BUFSIZE];
    double bins[1024];
    size_t b;

    for (b = 0; b <= GQ__WAIT_NBUCKETS; b++)
        if (wt->buckets[b] > max)
            max = wt->buckets[b];
    gq__str_printf(s, "\nHistogram, %s (Prometheus buckets)\n", wt->label);
    for (b = 0; b <= GQ__WAIT_NBUCKETS; b++) {
        if (b < GQ__WAIT_NBUCKETS)
            gq__format_duration_ms(le, sizeof(le), gq__wait_buckets_ms[b], true);
        gq__str_printf(s, "  <= %-9s ", b < GQ__WAIT_NBUCKETS ? le : "+Inf");
        bar(s, wt->buckets[b], max, 30, r->opts->unicode);
        gq__str_printf(s, " %llu\n", (unsigned long long)wt->buckets[b]);
    }
    for (b = 0; b < r->nbins && b < 1024; b++)
        bins[b] = (double)wt->bins[b];
    gq__format_duration_ms(width, sizeof(width), r->bin_ms, true);
    gq__str_printf(s, "  %s bins over 0-10m: ", width);
    spark(s, bins, b, 60, r->opts->unicode);
    gq__str_printf(s, " (%llu above 10m)\n", (unsigned long long)wt->bins[r->nbins]);
}

static void text_groups(struct gq__str *s, const struct gq__report *r)
{
    struct tab t = {.ncols = 0};
    static const char *const head[] = {"KIND", "NAME", "JOBS", "ADMITTED", "P50",
                                       "MEAN", "P90",  "P99",  "MAX"};
    const char *cells[9];
    char buf[9][40];
    size_t g, i;

    t.ncols = 9;
    tab_row(&t, head);
    for (g = 0; g < r->groups.n; g++) {
        const struct gq__report_group *gr = &r->groups.v[g];

        snprintf(buf[2], sizeof(buf[2]), "%zu", gr->jobs);
        snprintf(buf[3], sizeof(buf[3]), "%zu", gr->admitted);
        gq__report_dur(buf[4], sizeof(buf[4]), gr->s.p50);
        gq__report_dur(buf[5], sizeof(buf[5]), gr->s.mean);
        gq__report_dur(buf[6], sizeof(buf[6]), gr->s.p90);
        gq__report_dur(buf[7], sizeof(buf[7]), gr->s.p99);
        gq__report_dur(buf[8], sizeof(buf[8]), gr->s.max);
        cells[0] = gr->kind;
        cells[1] = gr->name;
        for (i = 2; i < 9; i++)
            cells[i] = gr->admitted || i < 4 ? buf[i] : "-";
        tab_row(&t, cells);
    }
    gq__str_puts(s, "\nBy queue: submit to admitted\n");
    tab_print(s, &t);
}

static void cost_rows(struct tab *t, const struct gq__report_cost *c, size_t n)
{
    char buf[6][40];
    const char *cells[6];
    size_t i, k;

    for (i = 0; i < n; i++) {
        snprintf(buf[1], sizeof(buf[1]), "%zu", c[i].nodes);
        snprintf(buf[2], sizeof(buf[2]), "%.2f", c[i].provisioned / MS_PER_HOUR);
        snprintf(buf[3], sizeof(buf[3]), "%.2f", c[i].used / MS_PER_HOUR);
        snprintf(buf[4], sizeof(buf[4]), "%.1f%%",
                 gq__stats_utilization(c[i].used, c[i].provisioned));
        snprintf(buf[5], sizeof(buf[5]), "%.1f%%",
                 gq__stats_overhead(c[i].used, c[i].provisioned));
        cells[0] = c[i].name;
        for (k = 1; k < 6; k++)
            cells[k] = buf[k];
        tab_row(t, cells);
    }
}

static void text_cost(struct gq__str *s, const struct gq__report *r)
{
    struct tab t = {.ncols = 0};
    static const char *const head[] = {"POOL", "NODES", "GPU-H PROVISIONED", "GPU-H USED",
                                       "UTILIZATION", "OVERHEAD"};
    const char *fhead[6];
    struct gq__report_cost total = r->total;

    gq__str_puts(s, "\nGPU cost\n");
    if (r->raw.nodes_total == 0) {
        gq__str_puts(s, "  no node records (the simulated cluster keeps them; a real cluster's "
                        "nodes are not recorded)\n");
        return;
    }
    t.ncols = 6;
    tab_row(&t, head);
    cost_rows(&t, r->pools.v, r->pools.n);
    total.name = "total";
    cost_rows(&t, &total, 1);
    tab_print(s, &t);
    memcpy(fhead, head, sizeof(fhead));
    fhead[0] = "FLAVOR";
    tab_row(&t, fhead);
    cost_rows(&t, r->flavors.v, r->flavors.n);
    gq__str_puts(s, "\n");
    tab_print(s, &t);
}

static void text_series(struct gq__str *s, const struct gq__report *r)
{
    static const char *const names[] = {"GPUs available", "GPUs used", "jobs waiting"};
    const double *v[] = {r->avail, r->used, r->pending};
    char step[GQ_DURATION_BUFSIZE];
    double max;
    size_t k, i;

    gq__format_duration_ms(step, sizeof(step), r->step * (int64_t)((r->npoints + 59) / 60), true);
    gq__str_printf(s, "\nOver time (%s per mark, mean of each)\n", step);
    for (k = 0; k < 3; k++) {
        if (k < 2 && r->raw.nodes_total == 0)
            continue;
        for (max = 0, i = 0; i < r->npoints; i++)
            if (v[k][i] > max)
                max = v[k][i];
        gq__str_printf(s, "  %-15s ", names[k]);
        spark(s, v[k], r->npoints, 60, r->opts->unicode);
        gq__str_printf(s, " max %.1f\n", max);
    }
}

static void text_provisioning(struct gq__str *s, const struct gq__report *r)
{
    struct tab t = {.ncols = 0};
    static const char *const head[] = {"FLAVOR",  "ATTEMPT", "REQUESTS", "PROVISIONED",
                                       "FAILED",  "EXPIRED", "REVOKED",  "P50 TO PROVISIONED",
                                       "MAX"};
    const char *cells[9];
    char buf[9][40];
    size_t i, k;

    gq__str_puts(s, "\nProvisioning requests\n");
    if (r->prov.n == 0) {
        gq__str_puts(s, "  none\n");
        return;
    }
    t.ncols = 9;
    tab_row(&t, head);
    for (i = 0; i < r->prov.n; i++) {
        const struct gq__report_prov *p = &r->prov.v[i];

        snprintf(buf[1], sizeof(buf[1]), "%lld", (long long)p->attempt);
        snprintf(buf[2], sizeof(buf[2]), "%zu", p->requests);
        snprintf(buf[3], sizeof(buf[3]), "%zu", p->provisioned);
        snprintf(buf[4], sizeof(buf[4]), "%zu", p->failed);
        snprintf(buf[5], sizeof(buf[5]), "%zu", p->expired);
        snprintf(buf[6], sizeof(buf[6]), "%zu", p->revoked);
        gq__report_dur(buf[7], sizeof(buf[7]), p->to_provisioned.p50);
        gq__report_dur(buf[8], sizeof(buf[8]), p->to_provisioned.max);
        cells[0] = p->flavor ? p->flavor : "all";
        cells[1] = p->attempt ? buf[1] : "all";
        for (k = 2; k < 9; k++)
            cells[k] = k < 7 || p->provisioned ? buf[k] : "-";
        tab_row(&t, cells);
    }
    tab_print(s, &t);
}

void gq__report_text(struct gq__str *s, const struct gq__report *r)
{
    text_header(s, r);
    text_waits(s, r);
    text_histogram(s, r, GQ__W_ADMISSION);
    if (r->waits[GQ__W_POD].n)
        text_histogram(s, r, GQ__W_POD);
    text_groups(s, r);
    text_cost(s, r);
    text_series(s, r);
    text_provisioning(s, r);
}
