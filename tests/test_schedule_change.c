/*
 * test_schedule_change.c: each change gq_schedule reports carries its kind
 * as an enum (gq_schedule_change.kind) that says what its words say: quota
 * reserved with admission checks to come, admitted, evicted by a
 * preemption, still pending; and each workload gq_workload_list walks
 * carries its state as an enum (gq_workload_info.state_code) that names
 * the same word. Through the public API only, on a database built with
 * gq_apply_buffer and gq_job_submit.
 */
#include <gpuqueue.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"

static const char queues[] =
    "apiVersion: kueue.x-k8s.io/v1beta1\n"
    "kind: ResourceFlavor\n"
    "metadata: {name: gpu}\n"
    "---\n"
    "apiVersion: kueue.x-k8s.io/v1beta1\n"
    "kind: WorkloadPriorityClass\n"
    "metadata: {name: high}\n"
    "value: 100\n"
    "---\n"
    "apiVersion: kueue.x-k8s.io/v1beta1\n"
    "kind: ClusterQueue\n"
    "metadata: {name: plain}\n"
    "spec:\n"
    "  namespaceSelector: {}\n"
    "  preemption: {withinClusterQueue: LowerPriority}\n"
    "  resourceGroups:\n"
    "  - coveredResources: [cpu, nvidia.com/gpu]\n"
    "    flavors:\n"
    "    - name: gpu\n"
    "      resources:\n"
    "      - {name: cpu, nominalQuota: 100}\n"
    "      - {name: nvidia.com/gpu, nominalQuota: 4}\n"
    "---\n"
    "apiVersion: kueue.x-k8s.io/v1beta1\n"
    "kind: LocalQueue\n"
    "metadata: {namespace: default, name: plain}\n"
    "spec: {clusterQueue: plain}\n";

struct seen {
    int n[5];
    int mismatched;
};

static int on_change(const gq_schedule_change *c, void *payload)
{
    static const char *const words[] = {"pending", "reserved", "admitted", "evicted",
                                        "deactivated"};
    struct seen *s = payload;

    if ((int)c->kind < 0 || (int)c->kind > 4 || strcmp(words[c->kind], c->what) != 0) {
        fprintf(stderr, "change of %s: kind %d, what %s\n", c->name, (int)c->kind, c->what);
        s->mismatched++;
        return 0;
    }
    s->n[c->kind]++;
    if (getenv("TEST_VERBOSE"))
        fprintf(stderr, "cycle %llu: %s %s\n", (unsigned long long)c->cycle, c->name, c->what);
    return 0;
}

struct states {
    int n, mismatched;
};

static int on_workload(const gq_workload_info *wl, void *payload)
{
    struct states *st = payload;
    const char *word = gq_workload_state_name(wl->state_code);

    st->n++;
    if (!word || strcmp(word, wl->state) != 0) {
        fprintf(stderr, "%s: state %s, state_code %d\n", wl->name, wl->state, (int)wl->state_code);
        st->mismatched++;
    }
    return 0;
}

static void submit(gq_db *db, const char *name, const char *queue, const char *gpus,
                   const char *priority_class)
{
    gq_job_spec job = GQ_JOB_SPEC_INIT;
    gq_error err = {0, ""};

    job.name = name;
    job.queue = queue;
    job.gpus = gpus;
    job.cpu = "1";
    job.priority_class = priority_class;
    CHECKF(gq_job_submit(db, &job, NULL, NULL, &err) == GQ_OK, "%s: %s", name, err.msg);
}

static void kinds(void)
{
    gq_schedule_options o = GQ_SCHEDULE_OPTIONS_INIT;
    gq_error err = {0, ""};
    struct seen s;
    char path[1024];
    const char *data = getenv("GQ_TEST_DATA");
    gq_db *db = NULL;

    CHECKF(gq_db_open(&db, ":memory:", NULL, &err) == GQ_OK, "%s", err.msg);
    if (!db)
        return;
    snprintf(path, sizeof(path), "%s/dws-extensions.yaml", data ? data : "tests/data");
    CHECKF(gq_apply_path(db, path, NULL, NULL, NULL, &err) == GQ_OK, "%s", err.msg);
    CHECKF(gq_apply_buffer(db, queues, sizeof(queues) - 1, "queues", NULL, NULL, NULL, &err) ==
               GQ_OK,
           "%s", err.msg);
    o.cycles = 0;
    o.until_stable = true;

    /* Admitted at once; reserved behind a ProvisioningRequest; pending: too big. */
    memset(&s, 0, sizeof(s));
    submit(db, "low", "plain", "4", NULL);
    submit(db, "dws", "timeout-queue", "1", NULL);
    submit(db, "huge", "plain", "8", NULL);
    CHECKF(gq_schedule(db, &o, on_change, &s, NULL, &err) == GQ_OK, "%s", err.msg);
    CHECK(s.mismatched == 0);
    CHECK(s.n[GQ_CHANGE_ADMITTED] == 1);
    CHECK(s.n[GQ_CHANGE_RESERVED] == 1);
    CHECK(s.n[GQ_CHANGE_PENDING] >= 1);

    /* A higher priority takes low's place: low evicted, then high admitted. */
    memset(&s, 0, sizeof(s));
    submit(db, "high", "plain", "4", "high");
    CHECKF(gq_schedule(db, &o, on_change, &s, NULL, &err) == GQ_OK, "%s", err.msg);
    CHECK(s.mismatched == 0);
    CHECK(s.n[GQ_CHANGE_EVICTED] == 1);
    CHECK(s.n[GQ_CHANGE_ADMITTED] == 1);

    /* Every workload, cancelled ones too, says its state as an enum as well. */
    {
        gq_workload_filter f = GQ_WORKLOAD_FILTER_INIT;
        struct states st = {0, 0};

        CHECKF(gq_workload_cancel(db, "default", "huge", NULL, &err) == GQ_OK, "%s", err.msg);
        f.state = "all";
        CHECKF(gq_workload_list(db, &f, on_workload, &st, &err) == GQ_OK, "%s", err.msg);
        CHECK(st.n == 4);
        CHECK(st.mismatched == 0);
    }
    CHECK(gq_workload_state_name(GQ_WORKLOAD_STATE_UNKNOWN) == NULL);
    CHECK_STR(gq_workload_state_name(GQ_WORKLOAD_CANCELLED), "cancelled");
    gq_db_close(db);
}

int main(void)
{
    TEST_RUN(kinds);
    return TEST_DONE();
}
