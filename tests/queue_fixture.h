/*
 * queue_fixture.h: the smallest queue setup the C tests run jobs on, applied
 * through the public API: ResourceFlavor `flavor`, ClusterQueue cq (every
 * namespace) with `gpus` nvidia.com/gpu on that flavor, LocalQueue q in
 * namespace default.
 */
#ifndef GQ_TEST_QUEUE_FIXTURE_H
#define GQ_TEST_QUEUE_FIXTURE_H

#include <stdio.h>
#include <string.h>

#include <gpuqueue.h>

static inline int queue_fixture_apply(gq_db *db, const char *flavor, int gpus, gq_error *err)
{
    char yaml[1024];

    snprintf(yaml, sizeof(yaml),
             "apiVersion: kueue.x-k8s.io/v1beta2\n"
             "kind: ResourceFlavor\n"
             "metadata: {name: %s}\n"
             "---\n"
             "apiVersion: kueue.x-k8s.io/v1beta2\n"
             "kind: ClusterQueue\n"
             "metadata: {name: cq}\n"
             "spec:\n"
             "  namespaceSelector: {}\n"
             "  resourceGroups:\n"
             "  - coveredResources: [nvidia.com/gpu]\n"
             "    flavors:\n"
             "    - name: %s\n"
             "      resources:\n"
             "      - {name: nvidia.com/gpu, nominalQuota: %d}\n"
             "---\n"
             "apiVersion: kueue.x-k8s.io/v1beta2\n"
             "kind: LocalQueue\n"
             "metadata: {name: q, namespace: default}\n"
             "spec: {clusterQueue: cq}\n",
             flavor, flavor, gpus);
    return gq_apply_buffer(db, yaml, strlen(yaml), "queues", NULL, NULL, NULL, err);
}

/* A Job called name asking for gpus nvidia.com/gpu, submitted to LocalQueue q. */
static inline int queue_fixture_submit(gq_db *db, const char *name, const char *gpus,
                                       gq_error *err)
{
    gq_job_spec job = GQ_JOB_SPEC_INIT;

    job.name = name;
    job.queue = "q";
    job.gpus = gpus;
    return gq_job_submit(db, &job, NULL, NULL, err);
}

#endif
