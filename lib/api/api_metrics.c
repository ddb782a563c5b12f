/*
 * api_metrics.c: gq_metrics_text, Kueue's Prometheus metrics computed from
 * the database, and gq_pending_json, Kueue's visibility API answer.
 *
 * Kueue keeps its metrics in memory and loses its counters on restart; here
 * every number is derived from the tables admission writes: gauges from
 * workloads, usage and quotas, counters and histograms from the append-only
 * events table (every workload state change with its time and from/to
 * states), each family one typed read of the store (store_read.h). A scrape
 * is therefore one read transaction: about a dozen statements, each one
 * grouped pass over what it counts, never one per queue (store_read.c), the
 * histograms one pass over the workload events (a few per workload: 100,000
 * workloads scan in well under a second). Series are
 * labelled with the ClusterQueue a workload holds or held quota in
 * (workloads.cluster_queue), or for pending ones the ClusterQueue of their
 * LocalQueue, as `gpuq list` counts them.
 *
 * The visibility answer reuses gq_workload_list, whose positions are the
 * ones `gpuq list` prints, so the two can never disagree.
 *
 * Text is built in a growable buffer that turns every append into a no-op
 * after a failed allocation, so the builders need no error paths of their
 * own; the caller checks once at the end.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sort.h"
#include "api.h"
#include "error.h"
#include "gpuqueue/metrics.h"
#include "state.h"
#include "stats.h"
#include "store.h"
#include "store_read.h"
#include "util.h"

/* ------------------------------------------------------------------ buffer */

/*
 * A Prometheus label value (in_help false) or HELP text (true): the format
 * escapes backslash and newline in both, and the double quote in values.
 */
static void buf_prom(struct gq__str *b, const char *s, bool in_help)
{
    for (; s && *s; s++) {
        if (*s == '\\')
            gq__str_puts(b, "\\\\");
        else if (*s == '\n')
            gq__str_puts(b, "\\n");
        else if (*s == '"' && !in_help)
            gq__str_puts(b, "\\\"");
        else
            gq__str_add(b, s, 1);
    }
}

/* A JSON string, quoted; control characters as \u escapes. */
static void buf_json(struct gq__str *b, const char *s)
{
    gq__str_puts(b, "\"");
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;

        if (c == '"' || c == '\\')
            gq__str_printf(b, "\\%c", c);
        else if (c < 0x20)
            gq__str_printf(b, "\\u%04x", c);
        else
            gq__str_add(b, s, 1);
    }
    gq__str_puts(b, "\"");
}

/* Hand the text to the caller, or report the allocation that failed. */
static int buf_finish(struct gq__str *b, char **out, gq_error *err)
{
    if (!b->failed && !b->p)
        gq__str_add(b, "", 0);
    if (b->failed) {
        free(b->p);
        return gq__error(err, GQ_ENOMEM, "out of memory");
    }
    *out = b->p;
    return GQ_OK;
}

/* ----------------------------------------------------------- exposition */

static void family_header(struct gq__str *b, const char *name, const char *type, const char *help)
{
    gq__str_printf(b, "# HELP %s ", name);
    buf_prom(b, help, true);
    gq__str_printf(b, "\n# TYPE %s %s\n", name, type);
}

/* name{l1="v1",...} for n labels; extra (may be NULL) is one more, already formatted. */
static void sample_start(struct gq__str *b,
                         const char *name,
                         const char *const *labels,
                         const char *const *values,
                         int n,
                         const char *extra)
{
    int i;

    gq__str_puts(b, name);
    if (n == 0 && !extra)
        return;
    gq__str_puts(b, "{");
    for (i = 0; i < n; i++) {
        gq__str_printf(b, "%s%s=\"", i ? "," : "", labels[i]);
        buf_prom(b, values[i] ? values[i] : "", false);
        gq__str_puts(b, "\"");
    }
    if (extra)
        gq__str_printf(b, "%s%s", n ? "," : "", extra);
    gq__str_puts(b, "}");
}

/*
 * A metric family read off one store query (enum gq_metric_query): its label
 * names in the query's order, then the value (NULL: +Inf, an unset limit).
 */
struct family {
    const char *name;
    const char *type;
    const char *help;
    const char *labels[5]; /* NULL-terminated */
    enum gq_metric_query query;
};

struct family_walk {
    struct gq__str *b;
    const struct family *f;
    int nlabels;
};

static int family_row(const struct gq_metric_row *m, void *payload)
{
    struct family_walk *w = payload;
    const char *value = m->value ? m->value : "+Inf";
    size_t len = strlen(value);

    /* SQLite writes a whole real as "10.0"; both parse, people read "10". */
    if (len > 2 && strcmp(value + len - 2, ".0") == 0)
        len -= 2;
    sample_start(w->b, w->f->name, w->f->labels, m->labels, w->nlabels, NULL);
    gq__str_printf(w->b, " %.*s\n", (int)len, value);
    return w->b->failed ? GQ_ENOMEM : 0;
}

/* ------------------------------------------------------------- families */

/* clang-format off */
#define RESOURCE_LABELS {"cohort", "cluster_queue", "flavor", "resource", NULL}
/* clang-format on */

/* Metrics before the histograms, in output order. */
static const struct family counts[] = {
    {"kueue_pending_workloads",
     "gauge",
     "The number of pending workloads, per 'cluster_queue' and 'status'.\n'status' can have "
     "the following values:\n- \"active\" means that the workloads are in the admission "
     "queue.\n- \"inadmissible\" means that they wait for something else to change: a missing "
     "or stopped queue, or a backoff.",
     {"cluster_queue", "status", NULL},
     GQ_METRIC_PENDING},
    {"kueue_reserving_active_workloads",
     "gauge",
     "The number of Workloads that are reserving quota, per 'cluster_queue'",
     {"cluster_queue", NULL},
     GQ_METRIC_RESERVING},
    {"kueue_admitted_active_workloads",
     "gauge",
     "The number of admitted Workloads that are active (unsuspended and not finished), per "
     "'cluster_queue'",
     {"cluster_queue", NULL},
     GQ_METRIC_ADMITTED_ACTIVE},
    {"kueue_quota_reserved_workloads_total",
     "counter",
     "The total number of quota reserved workloads per 'cluster_queue'",
     {"cluster_queue", NULL},
     GQ_METRIC_QUOTA_RESERVED},
    {"kueue_admitted_workloads_total",
     "counter",
     "The total number of admitted workloads per 'cluster_queue'",
     {"cluster_queue", NULL},
     GQ_METRIC_ADMITTED},
    /* A rejected check deactivates: Kueue's reason for that eviction is Deactivated. */
    {"kueue_evicted_workloads_total",
     "counter",
     "The number of evicted workloads per 'cluster_queue' and 'reason' (Preempted, "
     "PodsReadyTimeout, AdmissionCheck, ClusterQueueStopped, LocalQueueStopped, Deactivated)",
     {"cluster_queue", "reason", NULL},
     GQ_METRIC_EVICTED},
};

/* Metrics after the histograms and the ClusterQueue status, in output order. */
static const struct family resources[] = {
    {"kueue_cluster_queue_resource_reservation", "gauge",
     "Reports the cluster_queue's total resource reservation within all the flavors",
     RESOURCE_LABELS, GQ_METRIC_RESERVATION},
    {"kueue_cluster_queue_resource_pending", "gauge",
     "Reports the cluster_queue's total pending resource requests. Unlike resource_reservation, "
     "pending workloads have not yet been assigned to flavors.",
     {"cluster_queue", "resource", NULL}, GQ_METRIC_RESOURCE_PENDING},
    {"kueue_cluster_queue_resource_usage", "gauge",
     "Reports the cluster_queue's total resource usage within all the flavors", RESOURCE_LABELS,
     GQ_METRIC_USAGE},
    {"kueue_cluster_queue_nominal_quota", "gauge",
     "Reports the cluster_queue's resource nominal quota within all the flavors", RESOURCE_LABELS,
     GQ_METRIC_NOMINAL},
    {"kueue_cluster_queue_borrowing_limit", "gauge",
     "Reports the cluster_queue's resource borrowing limit within all the flavors", RESOURCE_LABELS,
     GQ_METRIC_BORROWING_LIMIT},
    {"kueue_cluster_queue_lending_limit", "gauge",
     "Reports the cluster_queue's resource lending limit within all the flavors", RESOURCE_LABELS,
     GQ_METRIC_LENDING_LIMIT},
    {"gpuq_provisioning_requests",
     "gauge",
     "Live ProvisioningRequests per 'cluster_queue' and 'state', the strongest condition that "
     "is True (Failed, CapacityRevoked, BookingExpired, Provisioned, Accepted), Created before "
     "any",
     {"cluster_queue", "state", NULL},
     GQ_METRIC_PROVREQS},
};

/* clang-format off */
#define LQ_RESOURCE_LABELS {"name", "namespace", "flavor", "resource", NULL}
/* clang-format on */

/*
 * Kueue's LocalQueue metrics (its LocalQueueMetrics gate), the ClusterQueue
 * families above per LocalQueue, before their histograms, in output order.
 */
static const struct family lq_counts[] = {
    {"kueue_local_queue_pending_workloads",
     "gauge",
     "The number of pending workloads, per 'local_queue' and 'status'.\n'status' can have "
     "the following values:\n- \"active\" means that the workloads are in the admission "
     "queue.\n- \"inadmissible\" means that they wait for something else to change: a missing "
     "or stopped queue, or a backoff.",
     {"name", "namespace", "status", NULL},
     GQ_METRIC_LQ_PENDING},
    {"kueue_local_queue_reserving_active_workloads",
     "gauge",
     "The number of Workloads that are reserving quota, per 'localQueue'",
     {"name", "namespace", NULL},
     GQ_METRIC_LQ_RESERVING},
    {"kueue_local_queue_admitted_active_workloads",
     "gauge",
     "The number of admitted Workloads that are active, per 'localQueue'",
     {"name", "namespace", NULL},
     GQ_METRIC_LQ_ADMITTED_ACTIVE},
    {"kueue_local_queue_quota_reserved_workloads_total",
     "counter",
     "The total number of quota reserved workloads per 'local_queue'",
     {"name", "namespace", NULL},
     GQ_METRIC_LQ_QUOTA_RESERVED},
    {"kueue_local_queue_admitted_workloads_total",
     "counter",
     "The total number of admitted workloads per 'local_queue'",
     {"name", "namespace", NULL},
     GQ_METRIC_LQ_ADMITTED},
    {"kueue_local_queue_evicted_workloads_total",
     "counter",
     "The number of evicted workloads per 'local_queue' and 'reason' (Preempted, "
     "PodsReadyTimeout, AdmissionCheck, ClusterQueueStopped, LocalQueueStopped, Deactivated)",
     {"name", "namespace", "reason", NULL},
     GQ_METRIC_LQ_EVICTED},
};

/* The LocalQueue families after their histograms, in output order. */
static const struct family lq_states[] = {
    {"kueue_local_queue_status",
     "gauge",
     "Reports 'localQueue' with its 'active' status (with possible values 'True', 'False', or "
     "'Unknown').\nFor a LocalQueue, the metric only reports a value of 1 for one of the "
     "statuses.",
     {"name", "namespace", "active", NULL},
     GQ_METRIC_LQ_STATUS},
    {"kueue_local_queue_resource_reservation", "gauge",
     "Reports the localQueue's total resource reservation within all the flavors",
     LQ_RESOURCE_LABELS, GQ_METRIC_LQ_RESERVATION},
    {"kueue_local_queue_resource_usage", "gauge",
     "Reports the localQueue's total resource usage within all the flavors", LQ_RESOURCE_LABELS,
     GQ_METRIC_LQ_USAGE},
};

struct metrics {
    struct gq__str b;
    int64_t now; /* the database's clock, ms */
};

static int
emit_family(struct gq_store *st, struct metrics *m, const struct family *f, gq_error *err)
{
    struct family_walk w = {&m->b, f, 0};

    while (f->labels[w.nlabels])
        w.nlabels++;
    family_header(&m->b, f->name, f->type, f->help);
    return gq__store_metric(st, f->query, m->now, family_row, &w, err);
}

static int emit_families(
    struct gq_store *st, struct metrics *m, const struct family *f, size_t n, gq_error *err)
{
    size_t i;
    int rc = GQ_OK;

    for (i = 0; rc == GQ_OK && i < n; i++)
        rc = emit_family(st, m, &f[i], err);
    return rc;
}

/* ----------------------------------------------------------- histograms */

/* The buckets are Kueue's, the same list gq_report draws (stats.h). */

/* One histogram family: the samples of the queues summed so far, and the queue in hand. */
struct hist {
    const char *name;
    const char *help;
    struct gq__str out;           /* samples of the finished queues, appended after the header */
    int64_t bucket[GQ__WAIT_NBUCKETS]; /* the queue in hand: observations in each bucket alone */
    int64_t count;
    int64_t sum_ms;
};

/* The queue in hand's samples, labelled with its n label values, then a fresh start. */
static void hist_flush(struct hist *h, const char *const *label, const char *const *value, int n)
{
    char le[32], series[128];
    int64_t cum = 0;
    size_t i;

    if (!h->count)
        return;
    snprintf(series, sizeof(series), "%s_bucket", h->name);
    for (i = 0; i < GQ__WAIT_NBUCKETS; i++) {
        cum += h->bucket[i];
        snprintf(le, sizeof(le), "le=\"%g\"", (double)gq__wait_buckets_ms[i] / 1000.0);
        sample_start(&h->out, series, label, value, n, le);
        gq__str_printf(&h->out, " %lld\n", (long long)cum);
    }
    sample_start(&h->out, series, label, value, n, "le=\"+Inf\"");
    gq__str_printf(&h->out, " %lld\n", (long long)h->count);
    snprintf(series, sizeof(series), "%s_sum", h->name);
    sample_start(&h->out, series, label, value, n, NULL);
    gq__str_printf(&h->out, " %lld.%03lld\n", (long long)(h->sum_ms / 1000),
               (long long)(h->sum_ms % 1000));
    snprintf(series, sizeof(series), "%s_count", h->name);
    sample_start(&h->out, series, label, value, n, NULL);
    gq__str_printf(&h->out, " %lld\n", (long long)h->count);
    memset(h->bucket, 0, sizeof(h->bucket));
    h->count = h->sum_ms = 0;
}

static void hist_observe(struct hist *h, int64_t ms)
{
    size_t i;

    if (ms < 0)
        ms = 0; /* a clock set back; a wait is never negative */
    for (i = 0; i < GQ__WAIT_NBUCKETS && ms > gq__wait_buckets_ms[i]; i++)
        ;
    if (i < GQ__WAIT_NBUCKETS)
        h->bucket[i]++;
    h->count++;
    /* A damaged file's time may be anything: saturate, never overflow. */
    h->sum_ms = ms > INT64_MAX - h->sum_ms ? INT64_MAX : h->sum_ms + ms;
}

/*
 * The wait histograms of one grouping, per ClusterQueue or per LocalQueue,
 * filled in one pass over the events ordered by queue.
 */
#define NWAITS 5
struct waits {
    bool by_lq;
    char key[2][256]; /* the queue in hand: ClusterQueue, or LocalQueue and namespace */
    struct hist h[NWAITS]; /* quota reserved, admitted, admission checks, ready, admitted-ready */
};

static void waits_flush(struct waits *w)
{
    static const char *const cq_label[] = {"cluster_queue"};
    static const char *const lq_label[] = {"name", "namespace"};
    const char *value[] = {w->key[0], w->key[1]};
    int k;

    for (k = 0; k < NWAITS; k++)
        hist_flush(&w->h[k], w->by_lq ? lq_label : cq_label, value, w->by_lq ? 2 : 1);
}

static int wait_row(const struct gq_wait_row *r, void *payload)
{
    struct waits *w = payload;
    const char *k0 = w->by_lq ? r->local_queue : r->cluster_queue;
    const char *k1 = w->by_lq && r->namespace ? r->namespace : "";
    int k;

    if (strcmp(k0, w->key[0]) != 0 || strcmp(k1, w->key[1]) != 0) {
        waits_flush(w);
        snprintf(w->key[0], sizeof(w->key[0]), "%s", k0);
        snprintf(w->key[1], sizeof(w->key[1]), "%s", k1);
    }
    if (r->reserved)
        hist_observe(&w->h[0], r->wait_ms);
    if (r->admitted)
        hist_observe(&w->h[1], r->wait_ms);
    if (r->checked)
        hist_observe(&w->h[2], r->checks_ms);
    if (r->ready)
        hist_observe(&w->h[3], r->wait_ms);
    if (r->admitted_ready)
        hist_observe(&w->h[4], r->admitted_ready_ms);
    for (k = 0; k < NWAITS; k++)
        if (w->h[k].out.failed)
            return GQ_ENOMEM;
    return 0;
}

/*
 * Kueue's names and help, per ClusterQueue ([0]) and per LocalQueue ([1]);
 * the last two are waitForPodsReady's, observed when PodsReady turns True,
 * Started (its job reconciler), not on Recovered.
 */
static const struct {
    const char *name[2];
    const char *help;
} wait_families[NWAITS] = {
    {{"kueue_quota_reserved_wait_time_seconds", "kueue_local_queue_quota_reserved_wait_time_seconds"},
     "The time between a workload was created or requeued until it got quota reservation, per "},
    {{"kueue_admission_wait_time_seconds", "kueue_local_queue_admission_wait_time_seconds"},
     "The time between a workload was created or requeued until admission, per "},
    {{"kueue_admission_checks_wait_time_seconds",
      "kueue_local_queue_admission_checks_wait_time_seconds"},
     "The time from when a workload got the quota reservation until admission, per "},
    {{"kueue_ready_wait_time_seconds", "kueue_local_queue_ready_wait_time_seconds"},
     "The time between a workload was created or requeued until ready, per "},
    {{"kueue_admitted_until_ready_wait_time_seconds",
      "kueue_local_queue_admitted_until_ready_wait_time_seconds"},
     "The time between a workload was admitted until ready, per "},
};

static int emit_histograms(struct gq_store *st, struct metrics *m, bool by_lq, gq_error *err)
{
    struct waits w;
    char help[160];
    int k, rc;

    memset(&w, 0, sizeof(w));
    w.by_lq = by_lq;
    for (k = 0; k < NWAITS; k++)
        w.h[k].name = wait_families[k].name[by_lq];
    rc = gq__store_waits(st, by_lq, wait_row, &w, err);
    waits_flush(&w);
    for (k = 0; k < NWAITS; k++) {
        snprintf(help, sizeof(help), "%s'%s'", wait_families[k].help,
                 by_lq ? "local_queue" : "cluster_queue");
        family_header(&m->b, w.h[k].name, "histogram", help);
        if (w.h[k].out.p)
            gq__str_add(&m->b, w.h[k].out.p, w.h[k].out.len);
        if (w.h[k].out.failed)
            m->b.failed = true;
        free(w.h[k].out.p);
    }
    return rc == GQ_OK && m->b.failed ? GQ_ENOMEM : rc;
}

/* ------------------------------------------------- ClusterQueue status */

/* One of Kueue's three statuses is 1: active, or pending when the queue cannot admit. */
static int status_row(const gq_object_info *o, void *payload)
{
    static const char *const labels[] = {"cluster_queue", "status"};
    static const char *const statuses[] = {"pending", "active", "terminating"};
    struct gq__str *b = payload;
    size_t i;

    for (i = 0; i < 3; i++) {
        const char *values[] = {o->name, statuses[i]};

        sample_start(b, "kueue_cluster_queue_status", labels, values, 2, NULL);
        gq__str_printf(b, " %d\n", i == (o->inactive ? 0u : 1u));
    }
    return b->failed ? GQ_ENOMEM : 0;
}

/* Runs inside metrics_txn's snapshot: gq_object_list reads through the same connection. */
static int emit_status(gq_db *db, struct metrics *m, gq_error *err)
{
    family_header(&m->b, "kueue_cluster_queue_status", "gauge",
                  "Reports 'cluster_queue' with its 'status' (with possible values 'pending', "
                  "'active' or 'terminating'). For a ClusterQueue, the metric only reports a "
                  "value of 1 for one of the statuses.");
    return gq_object_list(db, "clusterqueue", NULL, status_row, &m->b, err);
}

/* ---------------------------------------------------------- gq_metrics_text */

#define NFAMILIES(a) (sizeof(a) / sizeof((a)[0]))

struct metrics_args {
    gq_db *db;
    struct metrics *m;
    bool local_queues;
};

/* Kueue's LocalQueue families, after the ClusterQueue ones. */
static int emit_local_queues(struct gq_store *st, struct metrics *m, gq_error *err)
{
    int rc;

    if ((rc = emit_families(st, m, lq_counts, NFAMILIES(lq_counts), err)) != GQ_OK ||
        (rc = emit_histograms(st, m, true, err)) != GQ_OK)
        return rc;
    return emit_families(st, m, lq_states, NFAMILIES(lq_states), err);
}

static int metrics_txn(struct gq_store *st, void *payload, gq_error *err)
{
    struct metrics_args *a = payload;
    struct metrics *m = a->m;
    int rc;

    m->b.len = 0; /* a retried snapshot starts over */
    if (m->b.p)
        m->b.p[0] = '\0';
    m->now = gq__store_now(st);
    if ((rc = emit_families(st, m, counts, NFAMILIES(counts), err)) != GQ_OK ||
        (rc = emit_histograms(st, m, false, err)) != GQ_OK ||
        (rc = emit_status(a->db, m, err)) != GQ_OK ||
        (rc = emit_families(st, m, resources, NFAMILIES(resources), err)) != GQ_OK)
        return rc;
    return a->local_queues ? emit_local_queues(st, m, err) : GQ_OK;
}

int gq_metrics_text_ext(char **out, gq_db *db, const gq_metrics_options *opts, gq_error *err)
{
    struct metrics m;
    struct metrics_args a = {db, &m, false};
    int rc;

    GQ_ASSERT_ARG(out && db);
    *out = NULL;
    if (opts && (rc = gq__version_check(opts->version, GQ_METRICS_OPTIONS_VERSION,
                                        "gq_metrics_options", err)) != GQ_OK)
        return rc;
    a.local_queues = opts && opts->local_queue_metrics;
    memset(&m, 0, sizeof(m));
    rc = gq__store_read(db->st, metrics_txn, &a, err);
    if (rc != GQ_OK) {
        free(m.b.p);
        return m.b.failed ? gq__error(err, GQ_ENOMEM, "out of memory") : rc;
    }
    return buf_finish(&m.b, out, err);
}

int gq_metrics_text(char **out, gq_db *db, gq_error *err)
{
    return gq_metrics_text_ext(out, db, NULL, err);
}

/* ---------------------------------------------------------- gq_pending_json */

/* One pending workload of the page, its strings copied out of the walk. */
struct pending_item {
    char *ns, *name, *lq, *job_kind, *job_name, *uid; /* owned */
    char *job_api_version;                             /* owned; NULL: batch/v1 */
    int64_t priority, pos_cq, pos_lq, created_ms;
};

struct pending {
    gq_db *db;
    const char *cq, *ns, *lq; /* the queue asked about: cq, or ns and lq */
    int64_t offset, limit;
    struct pending_item *v; /* the page, in walk order until sorted */
    size_t n, cap;
    bool failed;
};

static void pending_clear(struct pending *p)
{
    size_t i;

    for (i = 0; i < p->n; i++) {
        free(p->v[i].ns);
        free(p->v[i].name);
        free(p->v[i].lq);
        free(p->v[i].job_kind);
        free(p->v[i].job_api_version);
        free(p->v[i].job_name);
        free(p->v[i].uid);
    }
    p->n = 0;
    p->failed = false;
}

/* The position that orders this page: in the ClusterQueue, or in the LocalQueue. */
static int64_t page_key(const struct pending *p, int64_t pos_cq, int64_t pos_lq)
{
    return p->cq ? pos_cq : pos_lq;
}

static int pending_row(const gq_workload_info *wl, void *payload)
{
    struct pending *p = payload;
    int64_t key = page_key(p, wl->position_cq, wl->position);
    struct pending_item *it;

    if (key < 0 || key < p->offset || key - p->offset >= p->limit)
        return 0;
    if (p->n == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 16;

        if (!(it = realloc(p->v, cap * sizeof(*it)))) {
            p->failed = true;
            return GQ_ENOMEM;
        }
        p->v = it;
        p->cap = cap;
    }
    it = &p->v[p->n++];
    it->ns = gq__strdup(wl->namespace);
    it->name = gq__strdup(wl->name);
    it->lq = gq__strdup(wl->local_queue);
    it->job_kind = gq__strdup(wl->job_kind);
    it->job_api_version = wl->job_api_version ? gq__strdup(wl->job_api_version) : NULL;
    it->job_name = gq__strdup(wl->job_name);
    it->uid = gq__strdup(wl->uid);
    it->priority = wl->priority;
    it->pos_cq = wl->position_cq;
    it->pos_lq = wl->position;
    it->created_ms = wl->created_ms;
    if (!it->ns || !it->name || !it->job_kind || !it->job_name || !it->uid ||
        (wl->local_queue && !it->lq) || (wl->job_api_version && !it->job_api_version))
        p->failed = true;
    return p->failed ? GQ_ENOMEM : 0;
}

static int pending_txn(struct gq_store *st, void *payload, gq_error *err)
{
    struct pending *p = payload;
    gq_workload_filter f = GQ_WORKLOAD_FILTER_INIT;

    pending_clear(p); /* a retried snapshot starts over */
    if (p->cq && !gq__store_object_exists(st, GQ_KIND_CLUSTER_QUEUE, NULL, p->cq))
        return gq__error(err, GQ_ENOTFOUND, "clusterqueues.kueue.x-k8s.io \"%s\" not found", p->cq);
    if (!p->cq && !gq__store_object_exists(st, GQ_KIND_LOCAL_QUEUE, p->ns, p->lq))
        return gq__error(err, GQ_ENOTFOUND, "localqueues.kueue.x-k8s.io \"%s\" not found", p->lq);
    f.state = gq__wl_state_name(GQ_WL_PENDING);
    f.cluster_queue = p->cq;
    f.namespace = p->ns;
    f.local_queue = p->lq;
    return gq_workload_list(p->db, &f, pending_row, p, err);
}

static int by_cq_position(const void *a, const void *b)
{
    const struct pending_item *x = a, *y = b;

    return (x->pos_cq > y->pos_cq) - (x->pos_cq < y->pos_cq);
}

/* Kueue copies the Workload's owner references: the job, of whatever kind. */
static void owner_json(struct gq__str *b, const struct pending_item *it)
{
    if (strcmp(it->job_kind, "Workload") == 0)
        return; /* an imported Workload: no job */
    gq__str_puts(b, ",\"ownerReferences\":[{\"apiVersion\":");
    buf_json(b, it->job_api_version ? it->job_api_version : "batch/v1");
    gq__str_puts(b, ",\"kind\":");
    buf_json(b, it->job_kind);
    gq__str_puts(b, ",\"name\":");
    buf_json(b, it->job_name);
    gq__str_puts(b, ",\"uid\":");
    buf_json(b, it->uid);
    gq__str_puts(b, ",\"controller\":true,\"blockOwnerDeletion\":true}]");
}

static void item_json(struct gq__str *b, const struct pending_item *it)
{
    char created[GQ_RFC3339_BUFSIZE];

    gq__str_puts(b, "{\"metadata\":{\"name\":");
    buf_json(b, it->name);
    gq__str_puts(b, ",\"namespace\":");
    buf_json(b, it->ns);
    gq__str_printf(b, ",\"creationTimestamp\":\"%s\"", gq__rfc3339(created, it->created_ms));
    owner_json(b, it);
    gq__str_printf(b, "},\"priority\":%lld,\"localQueueName\":", (long long)it->priority);
    buf_json(b, it->lq ? it->lq : "");
    gq__str_printf(b, ",\"positionInClusterQueue\":%lld,\"positionInLocalQueue\":%lld}",
               (long long)it->pos_cq, (long long)it->pos_lq);
}

static int pending_render(struct pending *p, char **out, gq_error *err)
{
    struct gq__str b = {NULL, 0, 0, false};
    size_t i;

    /* Within one LocalQueue the ClusterQueue's order is the LocalQueue's order too. */
    gq__qsort(p->v, p->n, sizeof(*p->v), by_cq_position);
    gq__str_puts(&b, "{\"kind\":\"PendingWorkloadsSummary\","
                "\"apiVersion\":\"visibility.kueue.x-k8s.io/v1beta1\",\"metadata\":{},"
                "\"items\":[");
    for (i = 0; i < p->n; i++) {
        if (i)
            gq__str_puts(&b, ",");
        item_json(&b, &p->v[i]);
    }
    gq__str_puts(&b, "]}\n");
    return buf_finish(&b, out, err);
}

int gq_pending_json(char **out,
                    gq_db *db,
                    const char *cluster_queue,
                    const char *namespace,
                    const char *local_queue,
                    int64_t offset,
                    int64_t limit,
                    gq_error *err)
{
    struct pending p;
    int rc;

    GQ_ASSERT_ARG(out && db);
    *out = NULL;
    if (!cluster_queue == !(namespace && local_queue) ||
        (cluster_queue && (namespace || local_queue)))
        return gq__error(err, GQ_EINVALID,
                         "want a cluster queue, or a namespace and a local queue");
    if (offset < 0 || limit < 0)
        return gq__error(err, GQ_EINVALID, "invalid %s %lld: want 0 or more",
                         offset < 0 ? "offset" : "limit", (long long)(offset < 0 ? offset : limit));
    memset(&p, 0, sizeof(p));
    p.db = db;
    p.cq = cluster_queue;
    p.ns = namespace;
    p.lq = local_queue;
    p.offset = offset;
    p.limit = limit ? limit : GQ_PENDING_LIMIT_DEFAULT;
    rc = gq__store_read(db->st, pending_txn, &p, err);
    if (rc != GQ_OK && p.failed)
        rc = gq__error(err, GQ_ENOMEM, "out of memory");
    if (rc == GQ_OK)
        rc = pending_render(&p, out, err);
    pending_clear(&p);
    free(p.v);
    return rc;
}
