/*
 * test_engine_pools.c: the simulated cluster's NodePools as the engine loads
 * them (engine_pools.c): none at first, then examples/manifests/sim-pools.yaml
 * applied and read back in name order with its defaults, in a fresh
 * ":memory:" database; re-applying it changes nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "engine.h"
#include "sim.h"
#include "store.h"
#include "test.h"

struct loaded {
    struct gq_sim_pool *pools;
    size_t n;
};

static int load_txn(struct gq_store *st, void *payload, gq_error *err)
{
    struct loaded *l = payload;

    return gq__engine_load_pools(st, &l->pools, &l->n, err);
}

static void count_result(const gq_apply_item *item, void *payload)
{
    int *counts = payload;

    counts[item->result]++;
}

static const char *label(const struct gq_kvs *m, const char *key)
{
    size_t i;

    for (i = 0; i < m->n; i++)
        if (!strcmp(m->v[i].key, key))
            return m->v[i].value;
    return "";
}

/* examples/manifests/sim-pools.yaml, beside tests/data. */
static void example_path(char *buf, size_t size)
{
    const char *data = getenv("GQ_TEST_DATA");

    snprintf(buf, size, "%s/../../examples/manifests/sim-pools.yaml", data ? data : "tests/data");
}

static void check_example(const struct loaded *l)
{
    const struct gq_sim_pool *a100 = &l->pools[0], *h100 = &l->pools[1], *t4 = &l->pools[2];
    const char *key = "cloud.google.com/gke-accelerator";

    CHECK_STR(a100->name, "a100");
    CHECK_STR(h100->name, "h100");
    CHECK_STR(t4->name, "t4");
    CHECK_STR(label(&a100->labels, key), "nvidia-tesla-a100");
    CHECK_STR(label(&h100->labels, key), "nvidia-h100-80gb");
    CHECK_STR(label(&t4->labels, key), "nvidia-tesla-t4");
    CHECK(a100->gpus_per_node == 8 && a100->min_nodes == 0 && a100->max_nodes == 4);
    CHECK(a100->provision_ms == 5 * 60000 && a100->scale_down_ms == 10 * 60000);
    CHECK(!a100->stockout && a100->fail_after_ms == 0);
    CHECK(h100->gpus_per_node == 8 && h100->max_nodes == 8 && h100->provision_ms == 10 * 60000);
    CHECK(h100->stockout && h100->fail_after_ms == 15 * 60000);
    CHECK(t4->gpus_per_node == 4 && t4->max_nodes == 6 && t4->provision_ms == 2 * 60000);
    CHECK(!t4->stockout && t4->fail_after_ms == 0);
}

static void load_pools(void)
{
    struct loaded l = {(struct gq_sim_pool *)1, 42};
    int counts[GQ_APPLY_SKIPPED + 1] = {0};
    gq_error err = {0, ""};
    char path[1024];
    gq_db *db = NULL;

    CHECKF(gq_db_open(&db, ":memory:", NULL, &err) == GQ_OK, "%s", err.msg);
    if (!db)
        return;
    CHECKF(gq__store_read(db->st, load_txn, &l, &err) == GQ_OK, "%s", err.msg);
    CHECK(l.pools == NULL && l.n == 0);
    example_path(path, sizeof(path));
    CHECKF(gq_apply_path(db, path, NULL, count_result, counts, &err) == GQ_OK, "%s", err.msg);
    CHECK(counts[GQ_APPLY_CREATED] == 3);
    CHECKF(gq_apply_path(db, path, NULL, count_result, counts, &err) == GQ_OK, "%s", err.msg);
    CHECK(counts[GQ_APPLY_UNCHANGED] == 3 && counts[GQ_APPLY_CONFIGURED] == 0);
    CHECKF(gq__store_read(db->st, load_txn, &l, &err) == GQ_OK, "%s", err.msg);
    CHECKF(l.n == 3, "%zu pools", l.n);
    if (l.n == 3)
        check_example(&l);
    gq__sim_pools_free(l.pools, l.n);
    gq_db_close(db);
}

int main(void)
{
    TEST_RUN(load_pools);
    return TEST_DONE();
}
