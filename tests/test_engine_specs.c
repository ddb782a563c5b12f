/*
 * test_engine_specs.c: the decoded specs a database handle keeps between
 * snapshot builds (engine_specs.c) never stand for a spec that changed.
 * On one handle, between gq_schedule calls: a ClusterQueue's quota raised,
 * its namespaceSelector narrowed, a Namespace given a label, the selector
 * changed to that label (a text as long as the one before), its flavor
 * deleted and applied again; each time the next call decides as the new
 * spec says. Two snapshots alive at once keep what they borrow. And the
 * same text keeps one decode: two builds of an unchanged configuration ask
 * the store's cache, not the reader (gq__specs_decode gives the same
 * object back).
 */
#include <stdio.h>
#include <string.h>

#include "engine.h"
#include "gpuqueue.h"
#include "handle.h"
#include "store.h"
#include "queue_fixture.h"
#include "test.h"

static const char flavor[] = "apiVersion: kueue.x-k8s.io/v1beta1\n"
                             "kind: ResourceFlavor\n"
                             "metadata: {name: gpu}\n";

static void apply(gq_db *db, const char *yaml)
{
    gq_error err = {0, ""};

    CHECKF(gq_apply_buffer(db, yaml, strlen(yaml), "test", NULL, NULL, NULL, &err) == GQ_OK,
           "%s", err.msg);
}

/* The ClusterQueue with gpus GPUs; selector: its namespaceSelector's YAML. */
static void queue(gq_db *db, int gpus, const char *selector)
{
    char yaml[1024];

    snprintf(yaml, sizeof(yaml),
             "apiVersion: kueue.x-k8s.io/v1beta1\n"
             "kind: ClusterQueue\n"
             "metadata: {name: cq}\n"
             "spec:\n"
             "  namespaceSelector: %s\n"
             "  resourceGroups:\n"
             "  - coveredResources: [nvidia.com/gpu]\n"
             "    flavors:\n"
             "    - name: gpu\n"
             "      resources:\n"
             "      - {name: nvidia.com/gpu, nominalQuota: %d}\n",
             selector, gpus);
    apply(db, yaml);
}

static void submit(gq_db *db, const char *name)
{
    gq_error err = {0, ""};

    CHECKF(queue_fixture_submit(db, name, "2", &err) == GQ_OK, "%s: %s", name, err.msg);
}

/* Workloads admitted by one gq_schedule until stable. */
static size_t schedule(gq_db *db)
{
    gq_schedule_options o = GQ_SCHEDULE_OPTIONS_INIT;
    gq_schedule_stats stats;
    gq_error err = {0, ""};

    o.cycles = 0;
    o.until_stable = true;
    memset(&stats, 0, sizeof(stats));
    CHECKF(gq_schedule(db, &o, NULL, NULL, &stats, &err) == GQ_OK, "%s", err.msg);
    return stats.admitted;
}

static void changed_specs(void)
{
    gq_error err = {0, ""};
    gq_db *db = NULL;

    CHECKF(gq_db_open(&db, ":memory:", NULL, &err) == GQ_OK, "%s", err.msg);
    if (!db)
        return;
    apply(db, flavor);
    queue(db, 4, "{}");
    apply(db, "apiVersion: kueue.x-k8s.io/v1beta1\n"
              "kind: LocalQueue\n"
              "metadata: {namespace: default, name: q}\n"
              "spec: {clusterQueue: cq}\n");
    submit(db, "a");
    submit(db, "b");
    submit(db, "c");
    CHECK(schedule(db) == 2); /* 4 GPUs: two of three */
    CHECK(schedule(db) == 0); /* the same specs, the same answer */

    /* More quota (the quotas table's; the spec's text changes by one digit): c fits. */
    queue(db, 6, "{}");
    CHECK(schedule(db) == 1);

    /*
     * More quota, but only for namespaces labelled team=a: default has no
     * labels yet; then team=b, which default has not; then team=a again (a
     * text of the same length as team=b's).
     */
    submit(db, "d");
    queue(db, 8, "{matchLabels: {team: a}}");
    CHECK(schedule(db) == 0);
    apply(db, "apiVersion: v1\nkind: Namespace\nmetadata: {name: default, labels: {team: b}}\n");
    CHECK(schedule(db) == 0);
    queue(db, 8, "{matchLabels: {team: b}}");
    CHECK(schedule(db) == 1);

    /* The flavor gone: the queue is inactive and admits nothing; back, it admits again. */
    submit(db, "e");
    queue(db, 10, "{}");
    CHECKF(gq_object_delete(db, "resourceflavor", NULL, "gpu", &err) == GQ_OK, "%s", err.msg);
    CHECK(schedule(db) == 0);
    apply(db, flavor);
    CHECK(schedule(db) == 1);
    gq_db_close(db);
}

static int decode_txn(struct gq_store *st, void *payload, gq_error *err)
{
    const struct gq_object **out = payload;
    int rc = gq__specs_decode(st, "{\"apiVersion\":\"kueue.x-k8s.io/v1beta1\","
                                  "\"kind\":\"ResourceFlavor\",\"metadata\":{\"name\":\"x\"}}",
                              out, err);

    gq__specs_sweep(st, false);
    return rc;
}

static void same_text_one_decode(void)
{
    const struct gq_object *first = NULL, *again = NULL;
    gq_error err = {0, ""};
    gq_db *db = NULL;

    CHECKF(gq_db_open(&db, ":memory:", NULL, &err) == GQ_OK, "%s", err.msg);
    if (!db)
        return;
    CHECKF(gq__store_read(db->st, decode_txn, &first, &err) == GQ_OK, "%s", err.msg);
    CHECKF(gq__store_read(db->st, decode_txn, &again, &err) == GQ_OK, "%s", err.msg);
    CHECK(first != NULL && first == again);
    CHECK(first && first->kind == GQ_KIND_RESOURCE_FLAVOR);
    gq_db_close(db);
}

static int load_txn(struct gq_store *st, void *payload, gq_error *err)
{
    return gq__engine_load(payload, st, err);
}

/* The gpu flavor's first node label's value in s, or "" (read through what s borrows). */
static const char *label(const struct gq_snapshot *s)
{
    size_t i;

    for (i = 0; i < s->nflavors; i++)
        if (strcmp(s->flavors[i].name, "gpu") == 0 && s->flavors[i].spec.node_labels.n)
            return s->flavors[i].spec.node_labels.v[0].value;
    return "";
}

/*
 * Two snapshots of one store alive at once (a build inside a callback of a
 * running schedule), the flavor changed between them: the second build
 * must not take away what the first borrows (under ASAN a use after free).
 */
static void two_snapshots(void)
{
    struct gq_snapshot first, second;
    gq_error err = {0, ""};
    gq_db *db = NULL;

    CHECKF(gq_db_open(&db, ":memory:", NULL, &err) == GQ_OK, "%s", err.msg);
    if (!db)
        return;
    apply(db, "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ResourceFlavor\n"
              "metadata: {name: gpu}\nspec: {nodeLabels: {pool: one}}\n");
    queue(db, 4, "{}");
    CHECKF(gq__store_read(db->st, load_txn, &first, &err) == GQ_OK, "%s", err.msg);
    apply(db, "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ResourceFlavor\n"
              "metadata: {name: gpu}\nspec: {nodeLabels: {pool: two}}\n");
    CHECKF(gq__store_read(db->st, load_txn, &second, &err) == GQ_OK, "%s", err.msg);
    CHECK_STR(label(&first), "one");
    CHECK_STR(label(&second), "two");
    gq__specs_unload(db->st, &second);
    CHECK_STR(label(&first), "one");
    gq__specs_unload(db->st, &first);
    /* Alone again: a build sweeps, and still decides as the stored specs say. */
    CHECKF(gq__store_read(db->st, load_txn, &first, &err) == GQ_OK, "%s", err.msg);
    CHECK_STR(label(&first), "two");
    gq__specs_unload(db->st, &first);
    gq_db_close(db);
}

int main(void)
{
    TEST_RUN(changed_specs);
    TEST_RUN(two_snapshots);
    TEST_RUN(same_text_one_decode);
    return TEST_DONE();
}
