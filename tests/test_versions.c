/*
 * test_versions.c: the one version rule of the public structs (issue 14,
 * item 6). Every entry point that takes an options struct, a filter or a
 * job spec is called with the struct's version 0, 1, current and current + 1,
 * each on a fresh ":memory:" database holding one flavor, ClusterQueue and
 * LocalQueue: 1 to current must be accepted (the call does what it does for
 * INIT), 0 and current + 1 must be GQ_EINVALID with the one message that
 * names the struct and the version. Two cases check that an older version's
 * struct is read only up to the members that version had.
 *
 * Nothing here talks to a cluster: the cluster calls get a kubeconfig path
 * that does not exist, and an accepted version reaches that error.
 */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpuqueue.h"
#include "gpuqueue/tool.h"
#include "test.h"

#define NROWS(a) (sizeof(a) / sizeof((a)[0]))

static const char queues[] =
    "apiVersion: kueue.x-k8s.io/v1beta1\n"
    "kind: ResourceFlavor\n"
    "metadata: {name: default}\n"
    "---\n"
    "apiVersion: kueue.x-k8s.io/v1beta1\n"
    "kind: ClusterQueue\n"
    "metadata: {name: cq}\n"
    "spec:\n"
    "  namespaceSelector: {}\n"
    "  resourceGroups:\n"
    "  - coveredResources: [cpu, nvidia.com/gpu]\n"
    "    flavors:\n"
    "    - name: default\n"
    "      resources:\n"
    "      - {name: cpu, nominalQuota: 10}\n"
    "      - {name: nvidia.com/gpu, nominalQuota: 4}\n"
    "---\n"
    "apiVersion: kueue.x-k8s.io/v1beta1\n"
    "kind: LocalQueue\n"
    "metadata: {name: lq, namespace: default}\n"
    "spec: {clusterQueue: cq}\n";

static const char empty_list[] = "{\"apiVersion\": \"v1\", \"kind\": \"List\", \"items\": []}";

static char dir[64];          /* a scratch directory for files */
static char queues_path[128]; /* queues, as a file */
static char no_config[128];   /* a kubeconfig that does not exist */

/* ------------------------------------------------------------ the calls */

static int discard(const char *buf, size_t len, void *payload)
{
    (void)buf, (void)len, (void)payload;
    return 0;
}

static int no_workload(const gq_workload_info *wl, void *payload)
{
    (void)wl, (void)payload;
    return 0;
}

static int call_open(gq_db *db, unsigned int v, gq_error *err)
{
    gq_open_options o = GQ_OPEN_OPTIONS_INIT;
    gq_db *other = NULL;
    int rc;

    (void)db;
    o.version = v;
    rc = gq_db_open(&other, ":memory:", &o, err);
    gq_db_close(other);
    return rc;
}

static int call_apply_buffer(gq_db *db, unsigned int v, gq_error *err)
{
    gq_apply_options o = GQ_APPLY_OPTIONS_INIT;

    o.version = v;
    return gq_apply_buffer(db, queues, strlen(queues), "queues", &o, NULL, NULL, err);
}

static int call_apply_path(gq_db *db, unsigned int v, gq_error *err)
{
    gq_apply_options o = GQ_APPLY_OPTIONS_INIT;

    o.version = v;
    return gq_apply_path(db, queues_path, &o, NULL, NULL, err);
}

static int call_submit_spec(gq_db *db, unsigned int v, gq_error *err)
{
    gq_job_spec spec = GQ_JOB_SPEC_INIT;

    spec.version = v;
    spec.queue = "lq";
    spec.gpus = "1";
    return gq_job_submit(db, &spec, NULL, NULL, err);
}

static int call_submit_options(gq_db *db, unsigned int v, gq_error *err)
{
    gq_job_spec spec = GQ_JOB_SPEC_INIT;
    gq_apply_options o = GQ_APPLY_OPTIONS_INIT;

    spec.queue = "lq";
    o.version = v;
    return gq_job_submit(db, &spec, &o, NULL, err);
}

static int call_job_build(gq_db *db, unsigned int v, gq_error *err)
{
    gq_job_spec spec = GQ_JOB_SPEC_INIT;
    char *json = NULL;
    int rc;

    (void)db;
    spec.version = v;
    spec.queue = "lq";
    rc = gq_job_build(&json, &spec, err);
    gq_free(json);
    return rc;
}

static int call_workload_list(gq_db *db, unsigned int v, gq_error *err)
{
    gq_workload_filter f = GQ_WORKLOAD_FILTER_INIT;

    f.version = v;
    return gq_workload_list(db, &f, no_workload, NULL, err);
}

static int call_workload_list_page(gq_db *db, unsigned int v, gq_error *err)
{
    gq_workload_filter f = GQ_WORKLOAD_FILTER_INIT;
    char *next = NULL;
    int rc;

    f.version = v;
    rc = gq_workload_list_page(db, &f, NULL, 10, no_workload, NULL, &next, err);
    gq_free(next);
    return rc;
}

static int call_render_workloads(gq_db *db, unsigned int v, gq_error *err)
{
    gq_workload_filter f = GQ_WORKLOAD_FILTER_INIT;

    f.version = v;
    return gq_render(db, "workload", NULL, NULL, &f, GQ_FORMAT_JSON, discard, NULL, err);
}

/* A filter is checked even where the resource makes no use of it. */
static int call_render_queues(gq_db *db, unsigned int v, gq_error *err)
{
    gq_workload_filter f = GQ_WORKLOAD_FILTER_INIT;

    f.version = v;
    return gq_render(db, "clusterqueue", NULL, NULL, &f, GQ_FORMAT_JSON, discard, NULL, err);
}

static int call_render_pager(gq_db *db, unsigned int v, gq_error *err)
{
    gq_workload_filter f = GQ_WORKLOAD_FILTER_INIT;
    gq_render_pager *p = NULL;
    int rc;

    (void)db;
    f.version = v;
    rc = gq_render_pager_new(&p, &f, NULL, 0, err);
    gq_render_pager_free(p);
    return rc;
}

static int call_kube_workloads(gq_db *db, unsigned int v, gq_error *err)
{
    gq_workload_filter f = GQ_WORKLOAD_FILTER_INIT;

    (void)db;
    f.version = v;
    return gq_kube_workloads(empty_list, &f, no_workload, NULL, err);
}

static int call_kube_list_json(gq_db *db, unsigned int v, gq_error *err)
{
    gq_workload_filter f = GQ_WORKLOAD_FILTER_INIT;
    char *out = NULL;
    int rc;

    (void)db;
    f.version = v;
    rc = gq_kube_list_json(&out, empty_list, &f, err);
    gq_free(out);
    return rc;
}

static int call_report(gq_db *db, unsigned int v, gq_error *err)
{
    gq_report_options o = GQ_REPORT_OPTIONS_INIT;
    char *out = NULL;
    int rc;

    o.version = v;
    rc = gq_report(&out, db, &o, err);
    gq_free(out);
    return rc;
}

static int call_simulate_compare(gq_db *db, unsigned int v, gq_error *err)
{
    gq_report_options o = GQ_REPORT_OPTIONS_INIT;
    const char *names[] = {"one"};
    char *out = NULL;
    int rc;

    o.version = v;
    rc = gq_simulate_compare(&out, &db, names, 1, &o, err);
    gq_free(out);
    return rc;
}

static int call_run(gq_db *db, unsigned int v, gq_error *err)
{
    gq_run_options o = GQ_RUN_OPTIONS_INIT;

    o.version = v;
    o.until_idle = true;
    return gq_run(db, &o, NULL, NULL, NULL, err);
}

static int call_schedule(gq_db *db, unsigned int v, gq_error *err)
{
    gq_schedule_options o = GQ_SCHEDULE_OPTIONS_INIT;

    o.version = v;
    return gq_schedule(db, &o, NULL, NULL, NULL, err);
}

static int call_metrics(gq_db *db, unsigned int v, gq_error *err)
{
    gq_metrics_options o = GQ_METRICS_OPTIONS_INIT;
    char *text = NULL;
    int rc;

    o.version = v;
    o.local_queue_metrics = true;
    rc = gq_metrics_text_ext(&text, db, &o, err);
    gq_free(text);
    return rc;
}

static int call_simulate(gq_db *db, unsigned int v, gq_error *err)
{
    gq_simulate_options o = GQ_SIMULATE_OPTIONS_INIT;

    o.version = v; /* no profile, no trace: the jobs in the database, none */
    return gq_simulate(db, &o, NULL, NULL, NULL, err);
}

static int call_cluster_run(gq_db *db, unsigned int v, gq_error *err)
{
    static volatile sig_atomic_t stop = 1;
    gq_cluster_options o = GQ_CLUSTER_OPTIONS_INIT;

    o.version = v;
    o.target.kubeconfig = no_config;
    o.stop = &stop;
    return gq_cluster_run(db, &o, err);
}

static int call_sim_provisioner(gq_db *db, unsigned int v, gq_error *err)
{
    static volatile sig_atomic_t stop = 1;
    gq_sim_provisioner_options o = GQ_SIM_PROVISIONER_OPTIONS_INIT;

    o.version = v;
    o.target.kubeconfig = no_config;
    o.stop = &stop;
    return gq_sim_provisioner_run(db, &o, err);
}

/* ------------------------------------------------------------ the table */

static const struct row {
    const char *call;     /* the entry point, for messages */
    const char *type;     /* the struct whose version varies */
    unsigned int current; /* its GQ_*_VERSION */
    int (*fn)(gq_db *db, unsigned int version, gq_error *err);
    int accepted;     /* what a supported version gets */
    const char *says; /* in its message then; NULL: no message */
} rows[] = {
    {"gq_db_open", "gq_open_options", GQ_OPEN_OPTIONS_VERSION, call_open, GQ_OK, NULL},
    {"gq_apply_buffer", "gq_apply_options", GQ_APPLY_OPTIONS_VERSION, call_apply_buffer, GQ_OK,
     NULL},
    {"gq_apply_path", "gq_apply_options", GQ_APPLY_OPTIONS_VERSION, call_apply_path, GQ_OK, NULL},
    {"gq_job_submit", "gq_job_spec", GQ_JOB_SPEC_VERSION, call_submit_spec, GQ_OK, NULL},
    {"gq_job_submit", "gq_apply_options", GQ_APPLY_OPTIONS_VERSION, call_submit_options, GQ_OK,
     NULL},
    {"gq_job_build", "gq_job_spec", GQ_JOB_SPEC_VERSION, call_job_build, GQ_OK, NULL},
    {"gq_workload_list", "gq_workload_filter", GQ_WORKLOAD_FILTER_VERSION, call_workload_list,
     GQ_OK, NULL},
    {"gq_workload_list_page", "gq_workload_filter", GQ_WORKLOAD_FILTER_VERSION,
     call_workload_list_page, GQ_OK, NULL},
    {"gq_render workload", "gq_workload_filter", GQ_WORKLOAD_FILTER_VERSION, call_render_workloads,
     GQ_OK, NULL},
    {"gq_render clusterqueue", "gq_workload_filter", GQ_WORKLOAD_FILTER_VERSION, call_render_queues,
     GQ_OK, NULL},
    {"gq_render_pager_new", "gq_workload_filter", GQ_WORKLOAD_FILTER_VERSION, call_render_pager,
     GQ_OK, NULL},
    {"gq_kube_workloads", "gq_workload_filter", GQ_WORKLOAD_FILTER_VERSION, call_kube_workloads,
     GQ_OK, NULL},
    {"gq_kube_list_json", "gq_workload_filter", GQ_WORKLOAD_FILTER_VERSION, call_kube_list_json,
     GQ_OK, NULL},
    {"gq_report", "gq_report_options", GQ_REPORT_OPTIONS_VERSION, call_report, GQ_OK, NULL},
    {"gq_simulate_compare", "gq_report_options", GQ_REPORT_OPTIONS_VERSION, call_simulate_compare,
     GQ_OK, NULL},
    {"gq_run", "gq_run_options", GQ_RUN_OPTIONS_VERSION, call_run, GQ_OK, NULL},
    {"gq_schedule", "gq_schedule_options", GQ_SCHEDULE_OPTIONS_VERSION, call_schedule, GQ_OK, NULL},
    {"gq_metrics_text_ext", "gq_metrics_options", GQ_METRICS_OPTIONS_VERSION, call_metrics, GQ_OK,
     NULL},
    {"gq_simulate", "gq_simulate_options", GQ_SIMULATE_OPTIONS_VERSION, call_simulate, GQ_OK, NULL},
    {"gq_cluster_run", "gq_cluster_options", GQ_CLUSTER_OPTIONS_VERSION, call_cluster_run,
     GQ_EINVALID, "no-such-kubeconfig: no such file"},
    {"gq_sim_provisioner_run", "gq_sim_provisioner_options", GQ_SIM_PROVISIONER_OPTIONS_VERSION,
     call_sim_provisioner, GQ_ENOTFOUND, "NodePool"},
};

static gq_db *fresh(void)
{
    gq_error err = {0, ""};
    gq_db *db = NULL;

    CHECKF(gq_db_open(&db, ":memory:", NULL, &err) == GQ_OK, "%s", err.msg);
    if (db)
        CHECKF(gq_apply_buffer(db, queues, strlen(queues), "queues", NULL, NULL, NULL, &err) ==
                   GQ_OK,
               "%s", err.msg);
    return db;
}

/* The message a refused version gets: the struct, the version, the versions supported. */
static void refusal(char *buf, size_t size, const struct row *r, unsigned int v)
{
    if (r->current == 1)
        snprintf(buf, size, "%s version %u is not supported (only 1)", r->type, v);
    else
        snprintf(buf, size, "%s version %u is not supported (1 to %u)", r->type, v, r->current);
}

static void test_every_entry_point(void)
{
    size_t i, k;

    for (i = 0; i < NROWS(rows); i++) {
        const struct row *r = &rows[i];
        const unsigned int versions[] = {0, 1, r->current, r->current + 1};

        for (k = 0; k < NROWS(versions); k++) {
            unsigned int v = versions[k];
            bool ok = v >= 1 && v <= r->current;
            gq_error err = {0, ""};
            char want[sizeof(err.msg)];
            gq_db *db = fresh();
            int rc;

            if (!db)
                return;
            rc = r->fn(db, v, &err);
            if (ok) {
                CHECKF(rc == r->accepted, "row %zu: %s with %s version %u: got %s (%s), want %s", i,
                       r->call, r->type, v, gq_errname(rc), err.msg, gq_errname(r->accepted));
                CHECKF(r->says ? strstr(err.msg, r->says) != NULL : !err.msg[0],
                       "row %zu: %s with %s version %u: \"%s\"", i, r->call, r->type, v, err.msg);
            } else {
                refusal(want, sizeof(want), r, v);
                CHECKF(rc == GQ_EINVALID && err.code == GQ_EINVALID,
                       "row %zu: %s with %s version %u: got %s, want EINVALID", i, r->call, r->type,
                       v, gq_errname(rc));
                CHECKF(strcmp(err.msg, want) == 0, "row %zu: %s: got \"%s\", want \"%s\"", i,
                       r->call, err.msg, want);
            }
            gq_db_close(db);
        }
    }
}

/* ------------------------------------------------ older versions' fields */

/*
 * A version 1 gq_run_options ends before default_duration_ms: whatever lies
 * there is not read, and the default duration applies. The same bytes under
 * version 2 are read, and refused.
 */
static void test_run_v1_reads_v1_members(void)
{
    gq_run_options o = GQ_RUN_OPTIONS_INIT;
    gq_error err = {0, ""};
    gq_db *db = fresh();
    int rc;

    if (!db)
        return;
    o.version = 1;
    o.until_idle = true;
    o.default_duration_ms = -1; /* past a version 1 struct's end */
    CHECKF((rc = gq_run(db, &o, NULL, NULL, NULL, &err)) == GQ_OK, "v1: %s: %s", gq_errname(rc),
           err.msg);
    o.version = 2;
    CHECKF((rc = gq_run(db, &o, NULL, NULL, NULL, &err)) == GQ_EINVALID, "v2: %s", gq_errname(rc));
    CHECKF(strstr(err.msg, "default duration -1 ms") != NULL, "v2: %s", err.msg);
    gq_db_close(db);
}

/* A version 1 gq_job_spec has no duration: the member is not read. */
static void test_job_spec_v1_reads_v1_members(void)
{
    gq_job_spec spec = GQ_JOB_SPEC_INIT;
    gq_error err = {0, ""};
    char *json = NULL;
    int rc;

    spec.version = 1;
    spec.queue = "lq";
    spec.duration = "not a duration"; /* past a version 1 struct's end */
    CHECKF((rc = gq_job_build(&json, &spec, &err)) == GQ_OK, "v1: %s: %s", gq_errname(rc), err.msg);
    CHECKF(json && !strstr(json, "gpuq.dev/duration"), "v1: %s", json ? json : "(null)");
    gq_free(json);
    json = NULL;
    spec.version = 2;
    CHECKF((rc = gq_job_build(&json, &spec, &err)) == GQ_EINVALID, "v2: %s", gq_errname(rc));
    CHECKF(strstr(err.msg, "not a duration") != NULL, "v2: %s", err.msg);
    gq_free(json);
}

/* ------------------------------------------------------------------ main */

static bool setup(void)
{
    FILE *f;

    snprintf(dir, sizeof(dir), "/tmp/gq-versions-XXXXXX");
    if (!mkdtemp(dir))
        return false;
    snprintf(queues_path, sizeof(queues_path), "%s/queues.yaml", dir);
    snprintf(no_config, sizeof(no_config), "%s/no-such-kubeconfig", dir);
    if (!(f = fopen(queues_path, "w")))
        return false;
    fputs(queues, f);
    return fclose(f) == 0;
}

int main(void)
{
    unsetenv("KUBECONFIG");
    unsetenv("KUBERNETES_SERVICE_HOST");
    unsetenv("KUBERNETES_SERVICE_PORT");
    CHECK(setup());
    TEST_RUN(test_every_entry_point);
    TEST_RUN(test_run_v1_reads_v1_members);
    TEST_RUN(test_job_spec_v1_reads_v1_members);
    unlink(queues_path);
    rmdir(dir);
    return TEST_DONE();
}
