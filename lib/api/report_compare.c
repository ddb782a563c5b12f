/*
 * report_compare.c: gq_simulate_compare, the same arrivals under several
 * sets of manifests, their headline figures side by side: one row per
 * figure, one column per database (text), or one object per database
 * (JSON). The trade-off a platform team could only guess at (user story
 * 1: what if nodes stayed up 10 minutes less?) in one table.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "error.h"
#include "gpuqueue/simulate.h"
#include "report.h"

enum unit { SECONDS, PERCENT, HOURS, COUNT };

struct figure {
    const char *key;     /* JSON */
    const char *label;   /* text */
    enum unit unit;
};

static const struct figure figures[] = {
    {"jobs", "jobs submitted", COUNT},
    {"admissionWaitP50", "wait to admission p50", SECONDS},
    {"admissionWaitMean", "wait to admission mean", SECONDS},
    {"admissionWaitP99", "wait to admission p99", SECONDS},
    {"runningWaitP50", "wait to running p50", SECONDS},
    {"runningWaitMean", "wait to running mean", SECONDS},
    {"runningWaitP99", "wait to running p99", SECONDS},
    {"podWaitP50", "pod pending p50", SECONDS},
    {"podWaitMean", "pod pending mean", SECONDS},
    {"podWaitP99", "pod pending p99", SECONDS},
    {"podsUnder5s", "pods pending <= 5s", PERCENT},
    {"podsUnder60s", "pods pending <= 60s", PERCENT},
    {"gpuHoursUsed", "GPU-hours used", HOURS},
    {"gpuHoursProvisioned", "GPU-hours provisioned", HOURS},
    {"utilization", "utilization", PERCENT},
    {"overhead", "overhead", PERCENT},
    {"nodes", "nodes created", COUNT},
};

#define NFIG (sizeof(figures) / sizeof(figures[0]))

static double share_under(const struct gq__report_wait *w, int64_t limit_ms)
{
    size_t total = w->n + w->waiting;

    return total ? 100.0 * (double)gq__stats_count_le(w->v, w->n, limit_ms) / (double)total : 0;
}

/* Every figure of one report, in the order of figures[]. */
static void values(const struct gq__report *r, double v[NFIG])
{
    const struct gq__report_wait *a = &r->waits[GQ__W_ADMISSION], *run = &r->waits[GQ__W_RUNNING];
    const struct gq__report_wait *pod = &r->waits[GQ__W_POD];
    double prov = r->total.provisioned, used = r->total.used;
    size_t i = 0;

    v[i++] = (double)r->submitted;
    v[i++] = a->s.p50 / 1000.0;
    v[i++] = a->s.mean / 1000.0;
    v[i++] = a->s.p99 / 1000.0;
    v[i++] = run->s.p50 / 1000.0;
    v[i++] = run->s.mean / 1000.0;
    v[i++] = run->s.p99 / 1000.0;
    v[i++] = pod->s.p50 / 1000.0;
    v[i++] = pod->s.mean / 1000.0;
    v[i++] = pod->s.p99 / 1000.0;
    v[i++] = share_under(pod, 5000);
    v[i++] = share_under(pod, 60000);
    v[i++] = used / 3.6e6;
    v[i++] = prov / 3.6e6;
    v[i++] = prov > 0 ? 100.0 * used / prov : 0;
    v[i++] = prov > 0 ? 100.0 * (prov - used) / prov : 0;
    v[i++] = (double)r->total.nodes;
}

static void cell(char *buf, size_t size, enum unit u, double x)
{
    switch (u) {
    case SECONDS:
        snprintf(buf, size, "%.1fs", x);
        break;
    case PERCENT:
        snprintf(buf, size, "%.1f%%", x);
        break;
    case HOURS:
        snprintf(buf, size, "%.2f", x);
        break;
    default:
        snprintf(buf, size, "%.0f", x);
    }
}

/* One line: the first cell padded to 24 columns, the others to w, the last not at all. */
static void line(struct gq__str *s, const char *first, const char *const *cells, size_t n,
                 size_t w)
{
    size_t k;

    gq__str_printf(s, "%-24s", first);
    for (k = 0; k < n; k++)
        gq__str_printf(s, "%-*s", k + 1 < n ? (int)w : 0, cells[k]);
    gq__str_puts(s, "\n");
}

static void render_text(struct gq__str *s, const char *const *names, size_t n, double (*v)[NFIG])
{
    char (*buf)[32] = calloc(n + 1, sizeof(*buf));
    const char **cells = calloc(n + 1, sizeof(*cells));
    size_t f, k, w = 14;

    if (!buf || !cells) {
        s->failed = true;
        goto out;
    }
    for (k = 0; k < n; k++)
        if (strlen(names[k]) + 2 > w)
            w = strlen(names[k]) + 2;
    line(s, "FIGURE", names, n, w);
    for (f = 0; f < NFIG; f++) {
        for (k = 0; k < n; k++) {
            cell(buf[k], sizeof(buf[k]), figures[f].unit, v[k][f]);
            cells[k] = buf[k];
        }
        line(s, figures[f].label, cells, n, w);
    }
out:
    free(buf);
    free(cells);
}

static void render_json(struct gq__str *s, const char *const *names, size_t n, double (*v)[NFIG])
{
    size_t f, k;

    gq__str_puts(s, "{\"runs\": [");
    for (k = 0; k < n; k++) {
        gq__str_puts(s, k ? ",\n  {\"manifests\": " : "\n  {\"manifests\": ");
        gq__report_jstr(s, names[k]);
        for (f = 0; f < NFIG; f++)
            gq__str_printf(s, ", \"%s\": %.3f", figures[f].key, v[k][f]);
        gq__str_puts(s, "}");
    }
    gq__str_puts(s, "\n]}\n");
}

int gq_simulate_compare(char **out, gq_db *const *dbs, const char *const *names, size_t n,
                        const gq_report_options *opts, gq_error *err)
{
    static const gq_report_options defaults = GQ_REPORT_OPTIONS_INIT;
    struct gq__str s = {NULL, 0, 0, false};
    double (*v)[NFIG];
    size_t k;
    int rc = GQ_OK;

    GQ_ASSERT_ARG(out && dbs && names);
    *out = NULL;
    if (!opts)
        opts = &defaults;
    if (!(v = calloc(n + 1, sizeof(*v))))
        return gq__error(err, GQ_ENOMEM, "out of memory");
    for (k = 0; rc == GQ_OK && k < n; k++) {
        struct gq__report *r;

        if ((rc = gq__report_build(&r, dbs[k], opts, err)) == GQ_OK)
            values(r, v[k]);
        gq__report_destroy(rc == GQ_OK ? r : NULL);
    }
    if (rc == GQ_OK) {
        if (opts->format == GQ_REPORT_JSON)
            render_json(&s, names, n, v);
        else
            render_text(&s, names, n, v);
        if (s.failed)
            rc = gq__error(err, GQ_ENOMEM, "out of memory");
    }
    free(v);
    if (rc != GQ_OK) {
        free(s.p);
        return rc;
    }
    *out = s.p;
    return GQ_OK;
}
