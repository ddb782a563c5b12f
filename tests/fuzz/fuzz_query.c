/*
 * fuzz_query.c: what gpuqd's HTTP endpoints (daemon/http.c) do with a
 * request's query string. The daemon's own parsing is two lines around
 * libmicrohttpd (which splits and %-decodes the query) and strtoll; every
 * value then goes to a library call, and those are what this harness
 * fuzzes, on the same kind of read of an in-memory database that holds a
 * small queue configuration and a pending Job:
 *
 *   ?since=&until=        gq_report_time_parse, then gq_report (JSON and HTML)
 *   ?namespace=           gq_render of workloads, as /api/v1/workloads
 *   ?offset=&limit=       gq_pending_json, with cq= or lq= (the path's names)
 *
 * The input is the query as sent, "since=1h&until=now&cq=cq"; it is split
 * on '&' and %-decoded here as libmicrohttpd would, so that seeds read as
 * URLs. offset and limit are read with query_count's rule (a whole number,
 * 0 or more; anything else is the endpoint's 400 and is not passed on).
 */
#include <errno.h>
#include <stdbool.h>

#include <gpuqueue.h>
#include <gpuqueue/tool.h>

#include "fuzz.h"

#define NOW_MS INT64_C(1767225600000) /* 2026-01-01T00:00:00Z */

static const char base[] =
    "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ResourceFlavor\nmetadata: {name: default}\n"
    "---\n"
    "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\nmetadata: {name: cq}\n"
    "spec:\n  namespaceSelector: {}\n  resourceGroups:\n"
    "  - coveredResources: [nvidia.com/gpu]\n    flavors:\n    - name: default\n"
    "      resources:\n      - {name: nvidia.com/gpu, nominalQuota: 8}\n"
    "---\n"
    "apiVersion: kueue.x-k8s.io/v1beta1\nkind: LocalQueue\n"
    "metadata: {name: lq, namespace: default}\nspec: {clusterQueue: cq}\n"
    "---\n"
    "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: train\n  namespace: default\n"
    "  labels: {kueue.x-k8s.io/queue-name: lq}\n"
    "spec:\n  suspend: true\n  template:\n    spec:\n      restartPolicy: Never\n"
    "      containers:\n      - name: c\n        image: busybox\n"
    "        resources: {requests: {nvidia.com/gpu: 16}}\n";

/* The arguments a request may carry; NULL when absent (the last one given wins). */
struct query {
    char *since, *until, *ns, *cq, *lq, *offset, *limit;
};

static gq_db *db; /* opened on the first input, kept for the process */

static void close_db(void)
{
    gq_db_close(db);
}

static void set_up(void)
{
    gq_apply_options o = GQ_APPLY_OPTIONS_INIT;
    gq_error err = {0, ""};

    if (db)
        return;
    o.now_ms = NOW_MS;
    if (gq_db_open(&db, ":memory:", NULL, &err) != GQ_OK ||
        gq_apply_buffer(db, base, sizeof(base) - 1, "base", &o, NULL, NULL, &err) != GQ_OK) {
        fprintf(stderr, "fuzz_query: set-up failed: %s\n", err.msg);
        abort();
    }
    atexit(close_db);
}

static int hex(char c)
{
    return c >= '0' && c <= '9' ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

/* %-decode s in place ('+' is a space), as libmicrohttpd does for arguments. */
static void unescape(char *s)
{
    char *out = s;

    for (; *s; s++) {
        if (*s == '%' && hex(s[1]) >= 0 && hex(s[2]) >= 0) {
            *out++ = (char)(hex(s[1]) * 16 + hex(s[2]));
            s += 2;
        } else {
            *out++ = *s == '+' ? ' ' : *s;
        }
    }
    *out = '\0';
}

/* Point q's fields into text, which is split in place. */
static void split(struct query *q, char *text)
{
    static const char *const keys[] = {"since", "until", "namespace", "cq", "lq", "offset",
                                       "limit"};
    char **slots[] = {&q->since, &q->until, &q->ns, &q->cq, &q->lq, &q->offset, &q->limit};
    char *arg, *next, *eq;
    size_t i;

    memset(q, 0, sizeof(*q));
    for (arg = text; arg; arg = next) {
        if ((next = strchr(arg, '&')))
            *next++ = '\0';
        if ((eq = strchr(arg, '=')))
            *eq++ = '\0';
        unescape(arg);
        if (eq)
            unescape(eq);
        for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
            if (strcmp(arg, keys[i]) == 0)
                *slots[i] = eq ? eq : arg + strlen(arg);
    }
}

/* query_count's rule: absent is 0, else a whole number of 0 or more. */
static bool count(const char *v, int64_t *out)
{
    char *end;
    long long n;

    *out = 0;
    if (!v)
        return true;
    errno = 0;
    n = strtoll(v, &end, 10);
    if (end == v || *end || errno || n < 0)
        return false;
    *out = n;
    return true;
}

/* /report and /report.json. */
static void report(const struct query *q)
{
    gq_report_options o = GQ_REPORT_OPTIONS_INIT;
    gq_error err = {0, ""};
    char *text = NULL;

    if (q->since && gq_report_time_parse(q->since, NOW_MS, &o.since_ms, &err) != GQ_OK)
        return;
    if (q->until && gq_report_time_parse(q->until, NOW_MS, &o.until_ms, &err) != GQ_OK)
        return;
    o.format = GQ_REPORT_JSON;
    if (gq_report(&text, db, &o, &err) == GQ_OK)
        gq_free(text);
    o.format = GQ_REPORT_HTML;
    text = NULL;
    if (gq_report(&text, db, &o, &err) == GQ_OK)
        gq_free(text);
}

static int discard(const char *buf, size_t len, void *payload)
{
    (void)buf, (void)len, (void)payload;
    return 0;
}

/* A name the route's pattern captures: one path segment of 1..253 bytes. */
static bool segment(const char *s)
{
    size_t n = s ? strlen(s) : 0;

    return n > 0 && n < 254 && !strchr(s, '/');
}

/* /api/v1/workloads?namespace= and the two pendingworkloads routes. */
static void lists(const struct query *q)
{
    gq_workload_filter f = GQ_WORKLOAD_FILTER_INIT;
    gq_error err = {0, ""};
    int64_t offset, limit;
    char *json = NULL;

    f.namespace = q->ns && *q->ns ? q->ns : NULL;
    (void)gq_render(db, "workload", f.namespace, NULL, &f, GQ_FORMAT_JSON, discard, NULL, &err);
    if (!count(q->offset, &offset) || !count(q->limit, &limit))
        return;
    if (segment(q->cq) &&
        gq_pending_json(&json, db, q->cq, NULL, NULL, offset, limit, &err) == GQ_OK)
        gq_free(json);
    json = NULL;
    if (segment(q->lq) && gq_pending_json(&json, db, NULL, segment(q->ns) ? q->ns : "default",
                                          q->lq, offset, limit, &err) == GQ_OK)
        gq_free(json);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_cstr(data, size);
    struct query q;

    if (!text)
        return 0;
    set_up();
    split(&q, text);
    if (q.since || q.until)
        report(&q);
    if (q.ns || q.cq || q.lq)
        lists(&q);
    free(text);
    return 0;
}
