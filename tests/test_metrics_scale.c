/*
 * test_metrics_scale.c: the metrics statements (store_read.c) cost in
 * proportion to the database, not to its queues times its workloads. A
 * scratch database gets 100 ClusterQueues (every tenth stopped, the odd ones
 * with a ProvisioningRequest check) and 2,000 jobs, 20 per queue, scheduled
 * until stable: 10 admitted in each even queue that runs, 10 reserved with a
 * live request in each odd one, the rest pending. Each metric statement is then run to its end on a
 * connection of the test's own and its SQLite VM steps counted
 * (sqlite3_stmt_status, SQLITE_STMTSTATUS_VM_STEP): a count, not a time, so
 * the bound holds on any machine. A subquery per ClusterQueue over every
 * pending or live workload, or live request, takes 2.4 * 10^5 to 2.3 * 10^7
 * steps here; one grouped pass at most 70,000. The numbers gq_metrics_text prints for a few
 * queues are checked too, so the bound is not met by counting nothing.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gpuqueue.h>
#include <sqlite3.h>

#include "store_read.h"
#include "test.h"

#define NQUEUES 100
#define PER_QUEUE 20 /* jobs per LocalQueue, 1 GPU each */
#define QUOTA 10     /* GPUs per ClusterQueue */
#define NJOBS (NQUEUES * PER_QUEUE)

/* Steps allowed per row of what a statement reads: queues plus workloads. */
#define STEPS_PER_ROW 60

struct text {
    char *p;
    size_t len, cap;
};

static void addf(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void addf(struct text *t, const char *fmt, ...)
{
    va_list ap;
    int n;

    for (;;) {
        va_start(ap, fmt);
        n = vsnprintf(t->p ? t->p + t->len : NULL, t->p ? t->cap - t->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0)
            abort();
        if (t->p && t->len + (size_t)n < t->cap) {
            t->len += (size_t)n;
            return;
        }
        t->cap = (t->cap + (size_t)n + 1) * 2;
        if (!(t->p = realloc(t->p, t->cap)))
            abort();
    }
}

/*
 * Every tenth ClusterQueue (cq-000, cq-010, ...) is stopped; the odd ones
 * have a ProvisioningRequest check, so their workloads stay reserved, each
 * with a live request (Created: no provider answers here).
 */
static void queues_yaml(struct text *t)
{
    int i;

    addf(t, "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ResourceFlavor\nmetadata: {name: f}\n"
            "---\napiVersion: kueue.x-k8s.io/v1beta1\nkind: AdmissionCheck\n"
            "metadata: {name: prov}\nspec:\n"
            "  controllerName: kueue.x-k8s.io/provisioning-request\n"
            "  parameters: {apiGroup: kueue.x-k8s.io, kind: ProvisioningRequestConfig, "
            "name: prc}\n"
            "---\napiVersion: kueue.x-k8s.io/v1beta1\nkind: ProvisioningRequestConfig\n"
            "metadata: {name: prc}\nspec:\n"
            "  provisioningClassName: queued-provisioning.gke.io\n"
            "  managedResources: [nvidia.com/gpu]\n");
    for (i = 0; i < NQUEUES; i++) {
        addf(t,
             "---\napiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\n"
             "metadata: {name: cq-%03d}\nspec:\n%s%s  namespaceSelector: {}\n"
             "  resourceGroups:\n  - coveredResources: [nvidia.com/gpu]\n    flavors:\n"
             "    - name: f\n      resources:\n      - {name: nvidia.com/gpu, nominalQuota: %d}\n"
             "---\napiVersion: kueue.x-k8s.io/v1beta1\nkind: LocalQueue\n"
             "metadata: {name: lq-%03d, namespace: default}\nspec: {clusterQueue: cq-%03d}\n",
             i, i % 10 == 0 ? "  stopPolicy: Hold\n" : "",
             i % 2 ? "  admissionChecks: [prov]\n" : "", QUOTA, i, i);
    }
}

static void jobs_yaml(struct text *t)
{
    int i;

    for (i = 0; i < NJOBS; i++)
        addf(t,
             "%sapiVersion: batch/v1\nkind: Job\nmetadata:\n  name: job-%05d\n"
             "  namespace: default\n  labels: {kueue.x-k8s.io/queue-name: lq-%03d}\n"
             "spec:\n  parallelism: 1\n  completions: 1\n  suspend: true\n  template:\n"
             "    spec:\n      containers:\n      - name: main\n        image: busybox\n"
             "        resources:\n          requests: {nvidia.com/gpu: 1}\n"
             "          limits: {nvidia.com/gpu: 1}\n      restartPolicy: Never\n",
             i ? "---\n" : "", i, i % NQUEUES);
}

struct fixture {
    char dir[64];
    char path[96];
    gq_db *db;
};

static bool setup(struct fixture *fx)
{
    gq_schedule_options so = GQ_SCHEDULE_OPTIONS_INIT;
    gq_error err = {0, ""};
    struct text q = {0}, j = {0};
    bool ok = false;

    memset(fx, 0, sizeof(*fx));
    snprintf(fx->dir, sizeof(fx->dir), "/tmp/gq-metrics-scale-XXXXXX");
    if (!mkdtemp(fx->dir))
        return false;
    snprintf(fx->path, sizeof(fx->path), "%s/gpuq.db", fx->dir);
    CHECKF(gq_db_open(&fx->db, fx->path, NULL, &err) == GQ_OK, "%s", err.msg);
    if (!fx->db)
        return false;
    queues_yaml(&q);
    jobs_yaml(&j);
    if (gq_apply_buffer(fx->db, q.p, q.len, "queues", NULL, NULL, NULL, &err) != GQ_OK ||
        gq_apply_buffer(fx->db, j.p, j.len, "jobs", NULL, NULL, NULL, &err) != GQ_OK) {
        CHECKF(0, "apply: %s", err.msg);
        goto out;
    }
    so.until_stable = true;
    so.cycles = 0;
    if (gq_schedule(fx->db, &so, NULL, NULL, NULL, &err) != GQ_OK) {
        CHECKF(0, "schedule: %s", err.msg);
        goto out;
    }
    ok = true;
out:
    free(q.p);
    free(j.p);
    return ok;
}

static void teardown(struct fixture *fx)
{
    char side[128];

    gq_db_close(fx->db);
    unlink(fx->path);
    snprintf(side, sizeof(side), "%s-wal", fx->path);
    unlink(side);
    snprintf(side, sizeof(side), "%s-shm", fx->path);
    unlink(side);
    rmdir(fx->dir);
}

static void check_has(const char *text, const char *line)
{
    CHECKF(text && strstr(text, line), "missing line: %s", line);
}

/* What admission left: the numbers gq_metrics_text prints for a stopped queue and a running one. */
static void check_numbers(gq_db *db)
{
    gq_error err = {0, ""};
    char *text = NULL;

    CHECKF(gq_metrics_text(&text, db, &err) == GQ_OK, "%s", err.msg);
    check_has(text, "\nkueue_pending_workloads{cluster_queue=\"cq-000\",status=\"active\"} 0\n");
    check_has(text,
              "\nkueue_pending_workloads{cluster_queue=\"cq-000\",status=\"inadmissible\"} 20\n");
    check_has(text, "\nkueue_pending_workloads{cluster_queue=\"cq-001\",status=\"active\"} 10\n");
    check_has(text,
              "\nkueue_pending_workloads{cluster_queue=\"cq-001\",status=\"inadmissible\"} 0\n");
    check_has(text, "\nkueue_reserving_active_workloads{cluster_queue=\"cq-000\"} 0\n");
    check_has(text, "\nkueue_reserving_active_workloads{cluster_queue=\"cq-098\"} 10\n");
    check_has(text, "\nkueue_reserving_active_workloads{cluster_queue=\"cq-099\"} 10\n");
    check_has(text, "\nkueue_admitted_active_workloads{cluster_queue=\"cq-000\"} 0\n");
    check_has(text, "\nkueue_admitted_active_workloads{cluster_queue=\"cq-098\"} 10\n");
    check_has(text, "\nkueue_admitted_active_workloads{cluster_queue=\"cq-099\"} 0\n");
    check_has(text,
              "\ngpuq_provisioning_requests{cluster_queue=\"cq-098\",state=\"Created\"} 0\n");
    check_has(text,
              "\ngpuq_provisioning_requests{cluster_queue=\"cq-099\",state=\"Created\"} 10\n");
    check_has(text,
              "\ngpuq_provisioning_requests{cluster_queue=\"cq-099\",state=\"Failed\"} 0\n");
    gq_free(text);
}

/* Each metric statement, run to its end: its VM steps within the bound. */
static void check_steps(const char *path, int64_t now_ms)
{
    const int64_t bound = (int64_t)STEPS_PER_ROW * (NQUEUES + NJOBS);
    sqlite3 *conn = NULL;
    const char *sql;
    int which;

    CHECK(sqlite3_open_v2(path, &conn, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
    for (which = 0; (sql = gq__store_metric_sql(which)) != NULL; which++) {
        sqlite3_stmt *s = NULL;
        int64_t steps, rows = 0;
        int rc;

        rc = sqlite3_prepare_v2(conn, sql, -1, &s, NULL);
        CHECKF(rc == SQLITE_OK, "metric %d: %s", which, sqlite3_errmsg(conn));
        if (rc != SQLITE_OK)
            continue;
        if (sqlite3_bind_parameter_count(s) >= 1) {
            char now[24];

            snprintf(now, sizeof(now), "%lld", (long long)now_ms);
            sqlite3_bind_text(s, 1, now, -1, SQLITE_TRANSIENT);
        }
        while ((rc = sqlite3_step(s)) == SQLITE_ROW)
            rows++;
        CHECKF(rc == SQLITE_DONE, "metric %d: %s", which, sqlite3_errmsg(conn));
        steps = sqlite3_stmt_status(s, SQLITE_STMTSTATUS_VM_STEP, 0);
        CHECKF(steps <= bound, "metric %d: %lld VM steps for %lld rows, bound %lld", which,
               (long long)steps, (long long)rows, (long long)bound);
        if (getenv("GQ_TEST_VERBOSE"))
            fprintf(stderr, "metric %d: %lld steps, %lld rows\n", which, (long long)steps,
                    (long long)rows);
        sqlite3_finalize(s);
    }
    CHECKF(which > 2, "%d metric statements", which);
    sqlite3_close(conn);
}

static void metrics_scale(void)
{
    struct fixture fx;

    if (setup(&fx)) {
        check_numbers(fx.db);
        check_steps(fx.path, gq_db_now_ms(fx.db));
    }
    teardown(&fx);
}

int main(void)
{
    TEST_RUN(metrics_scale);
    return TEST_DONE();
}
