/*
 * test_api_metrics.c: gq_metrics_text and gq_pending_json on a database
 * built through the public API in a scratch file: two ClusterQueues (one
 * with room for two 1-GPU jobs, one stopped), five jobs, scheduling cycles,
 * then a drain. The numbers are checked against what admission did and
 * against gq_workload_list's positions; the text against the exposition
 * format's rules (every family announced once, before its samples, and
 * every line a comment or a sample). The LocalQueue families come only when
 * asked for; the admission checks' wait is measured on a queue with a
 * ProvisioningRequest check whose provider this test plays through SQLite;
 * waitForPodsReady's waits and evictions on a run of the simulated cluster.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gpuqueue.h>
#include <sqlite3.h>

#include "test.h"

static const char queues[] = "apiVersion: kueue.x-k8s.io/v1beta2\n"
                             "kind: ResourceFlavor\n"
                             "metadata: {name: f}\n"
                             "---\n"
                             "apiVersion: kueue.x-k8s.io/v1beta2\n"
                             "kind: WorkloadPriorityClass\n"
                             "metadata: {name: high}\n"
                             "value: 100\n"
                             "---\n"
                             "apiVersion: kueue.x-k8s.io/v1beta2\n"
                             "kind: ClusterQueue\n"
                             "metadata: {name: cq}\n"
                             "spec:\n"
                             "  cohortName: team\n"
                             "  namespaceSelector: {}\n"
                             "  resourceGroups:\n"
                             "  - coveredResources: [cpu, nvidia.com/gpu]\n"
                             "    flavors:\n"
                             "    - name: f\n"
                             "      resources:\n"
                             "      - {name: cpu, nominalQuota: 1500m, borrowingLimit: 2}\n"
                             "      - {name: nvidia.com/gpu, nominalQuota: 2}\n"
                             "---\n"
                             "apiVersion: kueue.x-k8s.io/v1beta2\n"
                             "kind: ClusterQueue\n"
                             "metadata: {name: held}\n"
                             "spec:\n"
                             "  stopPolicy: Hold\n"
                             "  namespaceSelector: {}\n"
                             "  resourceGroups:\n"
                             "  - coveredResources: [nvidia.com/gpu]\n"
                             "    flavors:\n"
                             "    - name: f\n"
                             "      resources:\n"
                             "      - {name: nvidia.com/gpu, nominalQuota: 8}\n"
                             "---\n"
                             "apiVersion: kueue.x-k8s.io/v1beta2\n"
                             "kind: LocalQueue\n"
                             "metadata: {name: q, namespace: default}\n"
                             "spec: {clusterQueue: cq}\n"
                             "---\n"
                             "apiVersion: kueue.x-k8s.io/v1beta2\n"
                             "kind: LocalQueue\n"
                             "metadata: {name: hq, namespace: default}\n"
                             "spec: {clusterQueue: held}\n";

struct fixture {
    char dir[64];
    char path[96];
    gq_db *db;
    char *wl[5]; /* workload names: j1, j2, j3 (queue q), j4 (q, high), j5 (hq) */
};

static int submit(struct fixture *fx, int i, const char *queue, const char *prio)
{
    gq_job_spec job = GQ_JOB_SPEC_INIT;
    gq_error err = {0, ""};
    char name[16];
    int rc;

    snprintf(name, sizeof(name), "j%d", i + 1);
    job.name = name;
    job.queue = queue;
    job.priority_class = prio;
    job.gpus = "1";
    job.cpu = "500m";
    rc = gq_job_submit(fx->db, &job, NULL, &fx->wl[i], &err);
    CHECKF(rc == GQ_OK, "submit %s: %s", name, err.msg);
    return rc;
}

/* j4 outranks j1..j3, so cq admits j4 and j1; j2 and j3 wait in that order; j5 is held. */
static bool setup(struct fixture *fx)
{
    gq_schedule_options so = GQ_SCHEDULE_OPTIONS_INIT;
    gq_error err = {0, ""};

    memset(fx, 0, sizeof(*fx));
    snprintf(fx->dir, sizeof(fx->dir), "/tmp/gq-metrics-XXXXXX");
    if (!mkdtemp(fx->dir))
        return false;
    snprintf(fx->path, sizeof(fx->path), "%s/gpuq.db", fx->dir);
    CHECKF(gq_db_open(&fx->db, fx->path, NULL, &err) == GQ_OK, "%s", err.msg);
    if (!fx->db)
        return false;
    CHECKF(gq_apply_buffer(fx->db, queues, strlen(queues), "queues", NULL, NULL, NULL, &err) ==
               GQ_OK,
           "%s", err.msg);
    if (submit(fx, 0, "q", NULL) || submit(fx, 1, "q", NULL) || submit(fx, 2, "q", NULL) ||
        submit(fx, 3, "q", "high") || submit(fx, 4, "hq", NULL))
        return false;
    so.until_stable = true;
    so.cycles = 0;
    CHECKF(gq_schedule(fx->db, &so, NULL, NULL, NULL, &err) == GQ_OK, "%s", err.msg);
    return true;
}

static void teardown(struct fixture *fx)
{
    char side[128];
    int i;

    for (i = 0; i < 5; i++)
        gq_free(fx->wl[i]);
    gq_db_close(fx->db);
    unlink(fx->path);
    snprintf(side, sizeof(side), "%s-wal", fx->path);
    unlink(side);
    snprintf(side, sizeof(side), "%s-shm", fx->path);
    unlink(side);
    rmdir(fx->dir);
}

/* ------------------------------------------------------------- format */

/* The family a sample line belongs to: its name, less a histogram's suffix. */
static bool in_family(const char *line, size_t namelen, const char *family, const char *type)
{
    static const char *const suffixes[] = {"_bucket", "_sum", "_count"};
    size_t flen = strlen(family), i;

    if (namelen == flen && strncmp(line, family, flen) == 0)
        return strcmp(type, "histogram") != 0;
    if (strcmp(type, "histogram") != 0 || strncmp(line, family, flen) != 0)
        return false;
    for (i = 0; i < 3; i++)
        if (namelen == flen + strlen(suffixes[i]) &&
            strncmp(line + flen, suffixes[i], strlen(suffixes[i])) == 0)
            return true;
    return false;
}

/* Every family announced once (HELP then TYPE), then only its own samples, each with a value. */
static void check_format(const char *text)
{
    char family[128] = "", type[16] = "", seen[4096] = " ";
    const char *line = text, *end;
    int n = 0;

    for (; *line; line = end + 1, n++) {
        size_t namelen = strcspn(line, "{ \n");

        end = strchr(line, '\n');
        CHECKF(end != NULL, "line %d is not terminated", n);
        if (!end)
            return;
        if (strncmp(line, "# HELP ", 7) == 0) {
            int len = (int)strcspn(line + 7, " \n");
            char key[140];

            snprintf(family, sizeof(family), "%.*s", len, line + 7);
            snprintf(key, sizeof(key), " %s ", family);
            CHECKF(strstr(seen, key) == NULL, "family %s announced twice", family);
            strncat(seen, key + 1, sizeof(seen) - strlen(seen) - 1);
            CHECKF(strncmp(end + 1, "# TYPE ", 7) == 0, "no TYPE after HELP %s", family);
            continue;
        }
        if (strncmp(line, "# TYPE ", 7) == 0) {
            sscanf(line + 7 + strlen(family), " %15s", type);
            continue;
        }
        CHECKF(in_family(line, namelen, family, type), "line %d outside family %s: %.*s", n, family,
               (int)(end - line), line);
        CHECKF(end[-1] != ' ' && memchr(line, ' ', (size_t)(end - line)), "line %d: no value", n);
    }
    CHECK(n > 40);
}

/* ------------------------------------------------------------- values */

static void check_has(const char *text, const char *line)
{
    char want[512];

    snprintf(want, sizeof(want), "\n%s\n", line);
    CHECKF(strstr(text, want) != NULL, "missing line: %s", line);
}

#define NLINES(a) (sizeof(a) / sizeof((a)[0]))

/* The scrape (LocalQueue families or not), with every line of want, in the format; NULL if none. */
static char *scrape(gq_db *db, bool local_queues, const char *const *want, size_t n)
{
    gq_metrics_options mo = GQ_METRICS_OPTIONS_INIT;
    gq_error err = {0, ""};
    char *text = NULL;
    size_t i;

    mo.local_queue_metrics = local_queues;
    CHECKF(gq_metrics_text_ext(&text, db, &mo, &err) == GQ_OK, "%s", err.msg);
    for (i = 0; text && i < n; i++)
        check_has(text, want[i]);
    if (text)
        check_format(text);
    return text;
}

static void metrics_after_schedule(void)
{
    static const char *const lines[] = {
        "kueue_pending_workloads{cluster_queue=\"cq\",status=\"active\"} 2",
        "kueue_pending_workloads{cluster_queue=\"cq\",status=\"inadmissible\"} 0",
        "kueue_pending_workloads{cluster_queue=\"held\",status=\"active\"} 0",
        "kueue_pending_workloads{cluster_queue=\"held\",status=\"inadmissible\"} 1",
        "kueue_reserving_active_workloads{cluster_queue=\"cq\"} 2",
        "kueue_admitted_active_workloads{cluster_queue=\"cq\"} 2",
        "kueue_admitted_active_workloads{cluster_queue=\"held\"} 0",
        "kueue_quota_reserved_workloads_total{cluster_queue=\"cq\"} 2",
        "kueue_admitted_workloads_total{cluster_queue=\"cq\"} 2",
        "kueue_admitted_workloads_total{cluster_queue=\"held\"} 0",
        "kueue_quota_reserved_wait_time_seconds_bucket{cluster_queue=\"cq\",le=\"1\"} 2",
        "kueue_quota_reserved_wait_time_seconds_bucket{cluster_queue=\"cq\",le=\"+Inf\"} 2",
        "kueue_admission_wait_time_seconds_bucket{cluster_queue=\"cq\",le=\"10240\"} 2",
        "kueue_admission_wait_time_seconds_count{cluster_queue=\"cq\"} 2",
        "kueue_cluster_queue_status{cluster_queue=\"cq\",status=\"active\"} 1",
        "kueue_cluster_queue_status{cluster_queue=\"cq\",status=\"pending\"} 0",
        "kueue_cluster_queue_status{cluster_queue=\"held\",status=\"pending\"} 1",
        "kueue_cluster_queue_status{cluster_queue=\"held\",status=\"terminating\"} 0",
        "kueue_cluster_queue_resource_usage{cohort=\"team\",cluster_queue=\"cq\",flavor=\"f\","
        "resource=\"nvidia.com/gpu\"} 2",
        "kueue_cluster_queue_resource_reservation{cohort=\"team\",cluster_queue=\"cq\","
        "flavor=\"f\",resource=\"cpu\"} 1",
        "kueue_cluster_queue_nominal_quota{cohort=\"team\",cluster_queue=\"cq\",flavor=\"f\","
        "resource=\"cpu\"} 1.5",
        "kueue_cluster_queue_nominal_quota{cohort=\"\",cluster_queue=\"held\",flavor=\"f\","
        "resource=\"nvidia.com/gpu\"} 8",
        "kueue_cluster_queue_borrowing_limit{cohort=\"team\",cluster_queue=\"cq\",flavor=\"f\","
        "resource=\"cpu\"} 2",
        "kueue_cluster_queue_lending_limit{cohort=\"team\",cluster_queue=\"cq\",flavor=\"f\","
        "resource=\"cpu\"} +Inf",
        "gpuq_provisioning_requests{cluster_queue=\"cq\",state=\"Created\"} 0",
        /* j2 and j3 wait in cq, j5 in held; cpu in cores, asked for even where no quota is. */
        "kueue_cluster_queue_resource_pending{cluster_queue=\"cq\",resource=\"cpu\"} 1",
        "kueue_cluster_queue_resource_pending{cluster_queue=\"cq\",resource=\"nvidia.com/gpu\"} 2",
        "kueue_cluster_queue_resource_pending{cluster_queue=\"held\",resource=\"cpu\"} 0.5",
        "kueue_cluster_queue_resource_pending{cluster_queue=\"held\",resource=\"nvidia.com/gpu\"} 1",
        "# TYPE kueue_cluster_queue_resource_pending gauge",
        "# TYPE kueue_admission_checks_wait_time_seconds histogram",
        "# TYPE kueue_admission_wait_time_seconds histogram",
        "# TYPE kueue_evicted_workloads_total counter",
    };
    struct fixture fx;
    char *text = NULL;

    if (setup(&fx)) {
        text = scrape(fx.db, false, lines, NLINES(lines));
        if (text) {
            /* Nothing was evicted: the family is announced, with no samples. */
            CHECK(strstr(text, "\nkueue_evicted_workloads_total{") == NULL);
            /* No queue has admission checks: Kueue observes no wait for them. */
            CHECK(strstr(text, "\nkueue_admission_checks_wait_time_seconds_") == NULL);
            /* LocalQueue metrics are asked for, as Kueue's gate is turned on. */
            CHECK(strstr(text, "kueue_local_queue_") == NULL);
            CHECK(strstr(text, "\\n- \"active\"") != NULL);     /* HELP keeps its quotes */
            CHECK(strstr(text, "status'.\\n'status'") != NULL); /* and escapes newlines */
        }
        gq_free(text);
    }
    teardown(&fx);
}

/* Draining cq evicts both admitted jobs: counted once each, with Kueue's reason. */
static void metrics_after_drain(void)
{
    static const char *const lines[] = {
        "kueue_evicted_workloads_total{cluster_queue=\"cq\",reason=\"ClusterQueueStopped\"} 2",
        "kueue_pending_workloads{cluster_queue=\"cq\",status=\"inadmissible\"} 4",
        "kueue_admitted_active_workloads{cluster_queue=\"cq\"} 0",
        "kueue_admitted_workloads_total{cluster_queue=\"cq\"} 2",
        "kueue_cluster_queue_status{cluster_queue=\"cq\",status=\"pending\"} 1",
        "kueue_cluster_queue_resource_usage{cohort=\"team\",cluster_queue=\"cq\",flavor=\"f\","
        "resource=\"nvidia.com/gpu\"} 0",
        "kueue_cluster_queue_resource_pending{cluster_queue=\"cq\",resource=\"nvidia.com/gpu\"} 4",
        "kueue_local_queue_evicted_workloads_total{name=\"q\",namespace=\"default\","
        "reason=\"ClusterQueueStopped\"} 2",
        "kueue_local_queue_status{name=\"q\",namespace=\"default\",active=\"False\"} 1",
    };
    gq_schedule_options so = GQ_SCHEDULE_OPTIONS_INIT;
    struct fixture fx;
    gq_error err = {0, ""};

    if (setup(&fx)) {
        CHECKF(gq_queue_set_stop_policy(fx.db, "clusterqueue", NULL, "cq", "HoldAndDrain", &err) ==
                   GQ_OK,
               "%s", err.msg);
        so.until_stable = true;
        so.cycles = 0;
        CHECKF(gq_schedule(fx.db, &so, NULL, NULL, NULL, &err) == GQ_OK, "%s", err.msg);
        gq_free(scrape(fx.db, true, lines, NLINES(lines)));
    }
    teardown(&fx);
}

/* The same schedule per LocalQueue: q (cq) admits two and holds two, hq (held) holds j5. */
static void local_queue_metrics(void)
{
    static const char *const lines[] = {
        "kueue_local_queue_pending_workloads{name=\"q\",namespace=\"default\",status=\"active\"} 2",
        "kueue_local_queue_pending_workloads{name=\"hq\",namespace=\"default\","
        "status=\"inadmissible\"} 1",
        "kueue_local_queue_reserving_active_workloads{name=\"q\",namespace=\"default\"} 2",
        "kueue_local_queue_admitted_active_workloads{name=\"q\",namespace=\"default\"} 2",
        "kueue_local_queue_admitted_active_workloads{name=\"hq\",namespace=\"default\"} 0",
        "kueue_local_queue_quota_reserved_workloads_total{name=\"q\",namespace=\"default\"} 2",
        "kueue_local_queue_admitted_workloads_total{name=\"q\",namespace=\"default\"} 2",
        "kueue_local_queue_quota_reserved_wait_time_seconds_bucket{name=\"q\","
        "namespace=\"default\",le=\"+Inf\"} 2",
        "kueue_local_queue_admission_wait_time_seconds_count{name=\"q\",namespace=\"default\"} 2",
        "kueue_local_queue_status{name=\"q\",namespace=\"default\",active=\"True\"} 1",
        "kueue_local_queue_status{name=\"q\",namespace=\"default\",active=\"Unknown\"} 0",
        "kueue_local_queue_status{name=\"hq\",namespace=\"default\",active=\"False\"} 1",
        "kueue_local_queue_resource_reservation{name=\"q\",namespace=\"default\",flavor=\"f\","
        "resource=\"cpu\"} 1",
        "kueue_local_queue_resource_usage{name=\"q\",namespace=\"default\",flavor=\"f\","
        "resource=\"nvidia.com/gpu\"} 2",
        "kueue_local_queue_resource_usage{name=\"hq\",namespace=\"default\",flavor=\"f\","
        "resource=\"nvidia.com/gpu\"} 0",
        "# TYPE kueue_local_queue_evicted_workloads_total counter",
        "# TYPE kueue_local_queue_admission_checks_wait_time_seconds histogram",
    };
    gq_metrics_options mo = GQ_METRICS_OPTIONS_INIT;
    struct fixture fx;
    gq_error err = {0, ""};
    char *text = NULL;

    if (setup(&fx)) {
        text = scrape(fx.db, true, lines, NLINES(lines));
        CHECK(text && strstr(text, "\nkueue_pending_workloads{cluster_queue=\"cq\"")); /* still */
        gq_free(text);
        text = NULL;
        mo.version = GQ_METRICS_OPTIONS_VERSION + 1;
        CHECK(gq_metrics_text_ext(&text, fx.db, &mo, &err) == GQ_EINVALID && text == NULL);
    }
    teardown(&fx);
}

/* ------------------------------------------------------ admission checks */

static const char dws[] = "apiVersion: kueue.x-k8s.io/v1beta2\n"
                          "kind: ProvisioningRequestConfig\n"
                          "metadata: {name: dws-config}\n"
                          "spec:\n"
                          "  provisioningClassName: queued-provisioning.gke.io\n"
                          "  managedResources: [nvidia.com/gpu]\n"
                          "---\n"
                          "apiVersion: kueue.x-k8s.io/v1beta2\n"
                          "kind: AdmissionCheck\n"
                          "metadata: {name: dws-prov}\n"
                          "spec:\n"
                          "  controllerName: kueue.x-k8s.io/provisioning-request\n"
                          "  parameters: {apiGroup: kueue.x-k8s.io, kind: ProvisioningRequestConfig, "
                          "name: dws-config}\n"
                          "---\n"
                          "apiVersion: kueue.x-k8s.io/v1beta2\n"
                          "kind: ClusterQueue\n"
                          "metadata: {name: dws}\n"
                          "spec:\n"
                          "  namespaceSelector: {}\n"
                          "  resourceGroups: [{coveredResources: [nvidia.com/gpu], flavors: [{name: "
                          "f, resources: [{name: nvidia.com/gpu, nominalQuota: 8}]}]}]\n"
                          "  admissionChecksStrategy:\n"
                          "    admissionChecks: [{name: dws-prov}]\n"
                          "---\n"
                          "apiVersion: kueue.x-k8s.io/v1beta2\n"
                          "kind: LocalQueue\n"
                          "metadata: {name: dq, namespace: default}\n"
                          "spec: {clusterQueue: dws}\n";

/* SQL on the fixture's file through a connection of the test's own: the provider's part. */
static void provider(const struct fixture *fx, const char *sql)
{
    sqlite3 *db = NULL;
    char *msg = NULL;

    CHECK(sqlite3_open(fx->path, &db) == SQLITE_OK);
    sqlite3_busy_timeout(db, 60000);
    CHECKF(sqlite3_exec(db, sql, NULL, NULL, &msg) == SQLITE_OK, "%s: %s", sql, msg);
    sqlite3_free(msg);
    sqlite3_close(db);
}

/*
 * The database's clock stands still (speed 0) while j6 reserves quota in dws
 * and waits for its ProvisioningRequest; it is moved 30 s on, the provider
 * says Provisioned and the next cycle admits j6: one observation of 30 s,
 * whatever the machine's speed.
 */
static void admission_checks_wait(void)
{
    gq_schedule_options so = GQ_SCHEDULE_OPTIONS_INIT;
    gq_job_spec job = GQ_JOB_SPEC_INIT;
    struct fixture fx;
    gq_error err = {0, ""};
    char *text = NULL, *name = NULL;

    so.until_stable = true;
    so.cycles = 0;
    if (!setup(&fx))
        goto out;
    provider(&fx, "INSERT OR REPLACE INTO clock(id, wall_ms, virtual_ms, speed) "
                  "VALUES (1, 1767225600000, 1767225600000, 0)");
    CHECKF(gq_apply_buffer(fx.db, dws, strlen(dws), "dws", NULL, NULL, NULL, &err) == GQ_OK,
           "%s", err.msg);
    job.name = "j6";
    job.queue = "dq";
    job.gpus = "1";
    CHECKF(gq_job_submit(fx.db, &job, NULL, &name, &err) == GQ_OK, "%s", err.msg);
    CHECKF(gq_schedule(fx.db, &so, NULL, NULL, NULL, &err) == GQ_OK, "%s", err.msg);
    provider(&fx, "UPDATE clock SET virtual_ms = virtual_ms + 30000;"
                  "UPDATE provisioning_requests SET status = '{\"conditions\":[{\"type\":"
                  "\"Provisioned\",\"status\":\"True\"}]}' WHERE deleted_at IS NULL");
    CHECKF(gq_schedule(fx.db, &so, NULL, NULL, NULL, &err) == GQ_OK, "%s", err.msg);
    CHECKF(gq_metrics_text(&text, fx.db, &err) == GQ_OK, "%s", err.msg);
    check_has(text, "kueue_admission_checks_wait_time_seconds_count{cluster_queue=\"dws\"} 1");
    check_has(text, "kueue_admission_checks_wait_time_seconds_bucket{cluster_queue=\"dws\","
                    "le=\"20\"} 0");
    check_has(text, "kueue_admission_checks_wait_time_seconds_bucket{cluster_queue=\"dws\","
                    "le=\"40\"} 1");
    check_has(text, "kueue_admission_checks_wait_time_seconds_sum{cluster_queue=\"dws\"} 30.000");
    check_has(text, "kueue_admitted_workloads_total{cluster_queue=\"dws\"} 1");
    /* Reserved and admitted at once, as cq's were: no observation there. */
    CHECK(text && !strstr(text, "kueue_admission_checks_wait_time_seconds_count{cluster_queue=\"cq\""));
    if (text)
        check_format(text);
out:
    gq_free(text);
    gq_free(name);
    teardown(&fx);
}

/* ------------------------------------------------- waitForPodsReady */

/*
 * waitForPodsReady in the simulated cluster: rq's pool makes pods ready 20 s
 * after they start, sq's never. The clock stands still at T0 while r1, r2
 * (rq, 8 GPUs each, one at a time, running 10 s once ready) and s1 (sq) are
 * submitted; gq_run then runs 60 s of virtual time from T0.
 */
static const char pods_ready_queues[] =
    "apiVersion: config.kueue.x-k8s.io/v1beta2\n"
    "kind: Configuration\n"
    "waitForPodsReady:\n"
    "  timeout: 30s\n"
    "  requeuingStrategy: {backoffBaseSeconds: 1}\n"
    "---\n"
    "apiVersion: sim.gpuq.dev/v1alpha1\n"
    "kind: NodePool\n"
    "metadata: {name: slow}\n"
    "spec: {nodeLabels: {pool: slow}, gpusPerNode: 8, minNodes: 1, maxNodes: 1,\n"
    "       queuedProvisioning: false, podStartupTime: 20s}\n"
    "---\n"
    "apiVersion: sim.gpuq.dev/v1alpha1\n"
    "kind: NodePool\n"
    "metadata: {name: broken}\n"
    "spec: {nodeLabels: {pool: broken}, gpusPerNode: 8, minNodes: 1, maxNodes: 1,\n"
    "       queuedProvisioning: false, stuckPodPercent: 100}\n"
    "---\n"
    "apiVersion: kueue.x-k8s.io/v1beta2\n"
    "kind: ResourceFlavor\n"
    "metadata: {name: slow}\n"
    "spec: {nodeLabels: {pool: slow}}\n"
    "---\n"
    "apiVersion: kueue.x-k8s.io/v1beta2\n"
    "kind: ResourceFlavor\n"
    "metadata: {name: broken}\n"
    "spec: {nodeLabels: {pool: broken}}\n"
    "---\n"
    "apiVersion: kueue.x-k8s.io/v1beta2\n"
    "kind: ClusterQueue\n"
    "metadata: {name: rq}\n"
    "spec:\n"
    "  namespaceSelector: {}\n"
    "  resourceGroups:\n"
    "  - coveredResources: [nvidia.com/gpu]\n"
    "    flavors: [{name: slow, resources: [{name: nvidia.com/gpu, nominalQuota: 8}]}]\n"
    "---\n"
    "apiVersion: kueue.x-k8s.io/v1beta2\n"
    "kind: ClusterQueue\n"
    "metadata: {name: sq}\n"
    "spec:\n"
    "  namespaceSelector: {}\n"
    "  resourceGroups:\n"
    "  - coveredResources: [nvidia.com/gpu]\n"
    "    flavors: [{name: broken, resources: [{name: nvidia.com/gpu, nominalQuota: 8}]}]\n"
    "---\n"
    "apiVersion: kueue.x-k8s.io/v1beta2\n"
    "kind: LocalQueue\n"
    "metadata: {name: r, namespace: default}\n"
    "spec: {clusterQueue: rq}\n"
    "---\n"
    "apiVersion: kueue.x-k8s.io/v1beta2\n"
    "kind: LocalQueue\n"
    "metadata: {name: s, namespace: default}\n"
    "spec: {clusterQueue: sq}\n";

static void pods_ready_submit(gq_db *db, const char *name, const char *queue)
{
    gq_job_spec job = GQ_JOB_SPEC_INIT;
    gq_error err = {0, ""};

    job.name = name;
    job.queue = queue;
    job.gpus = "8";
    job.duration = "10s";
    CHECKF(gq_job_submit(db, &job, NULL, NULL, &err) == GQ_OK, "submit %s: %s", name, err.msg);
}

/*
 * Kueue's job reconciler observes ready_wait_time_seconds (since created or
 * requeued) and admitted_until_ready_wait_time_seconds when PodsReady turns
 * True, Started. r1: admitted at 0, ready at 20 (20 s, 20 s), finished at
 * 30; r2: admitted at 30, ready at 50 (50 s, 20 s). s1 never gets ready: at
 * 30 it is evicted with PodsReadyTimeout (evicted_workloads_total), admitted
 * again at 31, and observes nothing.
 */
static void pods_ready_waits(void)
{
    static const char *const lines[] = {
        "kueue_ready_wait_time_seconds_bucket{cluster_queue=\"rq\",le=\"10\"} 0",
        "kueue_ready_wait_time_seconds_bucket{cluster_queue=\"rq\",le=\"20\"} 1",
        "kueue_ready_wait_time_seconds_bucket{cluster_queue=\"rq\",le=\"40\"} 1",
        "kueue_ready_wait_time_seconds_bucket{cluster_queue=\"rq\",le=\"80\"} 2",
        "kueue_ready_wait_time_seconds_bucket{cluster_queue=\"rq\",le=\"+Inf\"} 2",
        "kueue_ready_wait_time_seconds_sum{cluster_queue=\"rq\"} 70.000",
        "kueue_ready_wait_time_seconds_count{cluster_queue=\"rq\"} 2",
        "kueue_admitted_until_ready_wait_time_seconds_bucket{cluster_queue=\"rq\",le=\"10\"} 0",
        "kueue_admitted_until_ready_wait_time_seconds_bucket{cluster_queue=\"rq\",le=\"20\"} 2",
        "kueue_admitted_until_ready_wait_time_seconds_sum{cluster_queue=\"rq\"} 40.000",
        "kueue_admitted_until_ready_wait_time_seconds_count{cluster_queue=\"rq\"} 2",
        "kueue_evicted_workloads_total{cluster_queue=\"sq\",reason=\"PodsReadyTimeout\"} 1",
        "kueue_local_queue_ready_wait_time_seconds_sum{name=\"r\",namespace=\"default\"} 70.000",
        "kueue_local_queue_admitted_until_ready_wait_time_seconds_count{name=\"r\","
        "namespace=\"default\"} 2",
        "kueue_local_queue_evicted_workloads_total{name=\"s\",namespace=\"default\","
        "reason=\"PodsReadyTimeout\"} 1",
    };
    gq_run_options ro = GQ_RUN_OPTIONS_INIT;
    struct fixture fx;
    gq_error err = {0, ""};
    char *text = NULL;

    memset(&fx, 0, sizeof(fx));
    snprintf(fx.dir, sizeof(fx.dir), "/tmp/gq-metrics-XXXXXX");
    if (!mkdtemp(fx.dir))
        return;
    snprintf(fx.path, sizeof(fx.path), "%s/gpuq.db", fx.dir);
    CHECKF(gq_db_open(&fx.db, fx.path, NULL, &err) == GQ_OK, "%s", err.msg);
    if (!fx.db)
        goto out;
    CHECKF(gq_apply_buffer(fx.db, pods_ready_queues, strlen(pods_ready_queues), "pods-ready",
                           NULL, NULL, NULL, &err) == GQ_OK,
           "%s", err.msg);
    provider(&fx, "INSERT OR REPLACE INTO clock(id, wall_ms, virtual_ms, speed) "
                  "VALUES (1, 1767225600000, 1767225600000, 0)");
    pods_ready_submit(fx.db, "r1", "r");
    pods_ready_submit(fx.db, "r2", "r");
    pods_ready_submit(fx.db, "s1", "s");
    ro.for_ms = 60 * 1000;
    CHECKF(gq_run(fx.db, &ro, NULL, NULL, NULL, &err) == GQ_OK, "%s", err.msg);
    text = scrape(fx.db, true, lines, NLINES(lines));
    /* s1's pods were never ready: no observation in sq. */
    CHECK(text && !strstr(text, "kueue_ready_wait_time_seconds_count{cluster_queue=\"sq\""));
    CHECK(text && !strstr(text, "kueue_admitted_until_ready_wait_time_seconds_count{"
                                "cluster_queue=\"sq\""));
out:
    gq_free(text);
    teardown(&fx);
}

/* ------------------------------------------------------------- pending */

/* The positions gq_workload_list gives (what `gpuq list` prints), by workload. */
struct listed {
    const struct fixture *fx;
    int64_t pos_cq[5], pos_lq[5];
};

static int listed_row(const gq_workload_info *wl, void *payload)
{
    struct listed *l = payload;
    int i;

    for (i = 0; i < 5; i++) {
        if (strcmp(wl->name, l->fx->wl[i]) == 0) {
            l->pos_cq[i] = wl->position_cq;
            l->pos_lq[i] = wl->position;
        }
    }
    return 0;
}

/* The item of the workload, as its JSON object's text up to the next item. */
static const char *item(const char *json, const char *name)
{
    char key[128];

    snprintf(key, sizeof(key), "\"name\":\"%s\"", name);
    return json ? strstr(json, key) : NULL;
}

static void check_position(const char *json, const char *name, int64_t cq, int64_t lq)
{
    const char *it = item(json, name), *next, *at;
    char want[128];

    snprintf(want, sizeof(want), "\"positionInClusterQueue\":%lld,\"positionInLocalQueue\":%lld}",
             (long long)cq, (long long)lq);
    next = it ? strstr(it, "{\"metadata\"") : NULL;
    at = it ? strstr(it, want) : NULL;
    CHECKF(at && (!next || at < next), "%s: want %s in %s", name, want, json ? json : "(null)");
}

static void pending_pages(void)
{
    struct fixture fx;
    struct listed l;
    gq_error err = {0, ""};
    char *json = NULL;

    if (!setup(&fx)) {
        teardown(&fx);
        return;
    }
    memset(&l, 0, sizeof(l));
    l.fx = &fx;
    CHECKF(gq_workload_list(fx.db, NULL, listed_row, &l, &err) == GQ_OK, "%s", err.msg);
    CHECK(l.pos_cq[1] == 0 && l.pos_cq[2] == 1 && l.pos_lq[1] == 0 && l.pos_lq[2] == 1);

    CHECKF(gq_pending_json(&json, fx.db, "cq", NULL, NULL, 0, 0, &err) == GQ_OK, "%s", err.msg);
    CHECK(json && strncmp(json,
                          "{\"kind\":\"PendingWorkloadsSummary\",\"apiVersion\":"
                          "\"visibility.kueue.x-k8s.io/v1beta1\"",
                          70) == 0);
    CHECK(item(json, fx.wl[1]) && item(json, fx.wl[2]) &&
          item(json, fx.wl[1]) < item(json, fx.wl[2])); /* queue order */
    CHECK(!item(json, fx.wl[0]) && !item(json, fx.wl[3]) && !item(json, fx.wl[4]));
    check_position(json, fx.wl[1], l.pos_cq[1], l.pos_lq[1]);
    check_position(json, fx.wl[2], l.pos_cq[2], l.pos_lq[2]);
    CHECK(json && strstr(json, "\"ownerReferences\":[{\"apiVersion\":\"batch/v1\",\"kind\":"
                               "\"Job\",\"name\":\"j2\""));
    CHECK(json && strstr(json, "\"localQueueName\":\"q\""));
    gq_free(json);
    json = NULL;

    /* A page: the second only, positions unchanged. */
    CHECKF(gq_pending_json(&json, fx.db, NULL, "default", "q", 1, 1, &err) == GQ_OK, "%s", err.msg);
    CHECK(!item(json, fx.wl[1]) && item(json, fx.wl[2]));
    check_position(json, fx.wl[2], 1, 1);
    gq_free(json);
    json = NULL;

    CHECKF(gq_pending_json(&json, fx.db, "held", NULL, NULL, 0, 0, &err) == GQ_OK, "%s", err.msg);
    CHECK(item(json, fx.wl[4]) != NULL);
    gq_free(json);
    teardown(&fx);
}

static void pending_errors(void)
{
    struct fixture fx;
    gq_error err = {0, ""};
    char *json = NULL;

    if (setup(&fx)) {
        CHECK(gq_pending_json(&json, fx.db, "nope", NULL, NULL, 0, 0, &err) == GQ_ENOTFOUND);
        CHECK_STR(err.msg, "clusterqueues.kueue.x-k8s.io \"nope\" not found");
        CHECK(gq_pending_json(&json, fx.db, NULL, "other", "q", 0, 0, &err) == GQ_ENOTFOUND);
        CHECK(gq_pending_json(&json, fx.db, NULL, NULL, NULL, 0, 0, &err) == GQ_EINVALID);
        CHECK(gq_pending_json(&json, fx.db, "cq", "default", "q", 0, 0, &err) == GQ_EINVALID);
        CHECK(gq_pending_json(&json, fx.db, NULL, "default", NULL, 0, 0, &err) == GQ_EINVALID);
        CHECK(gq_pending_json(&json, fx.db, "cq", NULL, NULL, -1, 0, &err) == GQ_EINVALID);
        CHECK(gq_pending_json(&json, fx.db, "cq", NULL, NULL, 0, -5, &err) == GQ_EINVALID);
        CHECK(json == NULL);
    }
    teardown(&fx);
}

/* An empty database still answers: every family announced, no samples. */
static void empty_database(void)
{
    gq_error err = {0, ""};
    gq_db *db = NULL;
    char *text = NULL;

    CHECKF(gq_db_open(&db, ":memory:", NULL, &err) == GQ_OK, "%s", err.msg);
    if (!db)
        return;
    CHECKF(gq_metrics_text(&text, db, &err) == GQ_OK, "%s", err.msg);
    CHECK(text && strstr(text, "# TYPE kueue_pending_workloads gauge\n"));
    CHECK(text && strstr(text, "# TYPE gpuq_provisioning_requests gauge\n"));
    CHECK(text && !strstr(text, "\nkueue_"));
    gq_free(text);
    gq_db_close(db);
}

int main(void)
{
    TEST_RUN(metrics_after_schedule);
    TEST_RUN(metrics_after_drain);
    TEST_RUN(local_queue_metrics);
    TEST_RUN(admission_checks_wait);
    TEST_RUN(pods_ready_waits);
    TEST_RUN(pending_pages);
    TEST_RUN(pending_errors);
    TEST_RUN(empty_database);
    return TEST_DONE();
}
