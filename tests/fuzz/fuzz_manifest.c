/*
 * fuzz_manifest.c: manifests, YAML or JSON, through the apply path that
 * `gpuq apply -f` and gpuqd's config take: gq_apply_buffer reads every
 * document (manifest_reader.c), decodes it (manifest_decode.c and the field
 * tables), prepares its canonical JSON and writes it to the store, in a dry
 * run so that each input meets the same database. That database is opened
 * once, in memory, with a small queue configuration applied for real, so
 * that Jobs and Workloads find a LocalQueue, a ClusterQueue and a flavor.
 */
#include <stdbool.h>

#include <gpuqueue.h>

#include "fuzz.h"

#define NOW_MS INT64_C(1767225600000) /* 2026-01-01T00:00:00Z: runs do not depend on the clock */

static const char base[] =
    "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ResourceFlavor\nmetadata: {name: default}\n"
    "---\n"
    "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\nmetadata: {name: cq}\n"
    "spec:\n  namespaceSelector: {}\n  resourceGroups:\n"
    "  - coveredResources: [cpu, memory, nvidia.com/gpu]\n    flavors:\n    - name: default\n"
    "      resources:\n      - {name: cpu, nominalQuota: 64}\n"
    "      - {name: memory, nominalQuota: 256Gi}\n      - {name: nvidia.com/gpu, nominalQuota: 8}\n"
    "---\n"
    "apiVersion: kueue.x-k8s.io/v1beta1\nkind: LocalQueue\n"
    "metadata: {name: lq, namespace: default}\nspec: {clusterQueue: cq}\n";

static gq_db *db; /* opened on the first input, kept for the process */

static void close_db(void)
{
    gq_db_close(db);
}

static bool set_up(void)
{
    gq_apply_options o = GQ_APPLY_OPTIONS_INIT;
    gq_error err = {0, ""};

    if (db)
        return true;
    o.now_ms = NOW_MS;
    if (gq_db_open(&db, ":memory:", NULL, &err) != GQ_OK ||
        gq_apply_buffer(db, base, sizeof(base) - 1, "base", &o, NULL, NULL, &err) != GQ_OK) {
        fprintf(stderr, "fuzz_manifest: set-up failed: %s\n", err.msg);
        abort();
    }
    atexit(close_db);
    return true;
}

static void on_item(const gq_apply_item *item, void *payload)
{
    (void)payload;
    FUZZ_ASSERT(item->resource != NULL, "an item without a resource");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gq_apply_options o = GQ_APPLY_OPTIONS_INIT;
    gq_error err = {0, ""};
    char *buf = malloc(size ? size : 1);
    int rc;

    if (!buf || !set_up()) {
        free(buf);
        return 0;
    }
    if (size)
        memcpy(buf, data, size);
    o.dry_run = true;
    o.now_ms = NOW_MS;
    rc = gq_apply_buffer(db, buf, size, "fuzz.yaml", &o, on_item, NULL, &err);
    FUZZ_ASSERT(rc == GQ_OK || (err.msg[0] && !strchr(err.msg, '\n')), "rc %d, message \"%s\"",
                rc, err.msg);
    free(buf);
    return 0;
}
