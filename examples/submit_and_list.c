/*
 * submit_and_list.c: the smallest useful program on libgpuqueue, through
 * <gpuqueue.h> only: open a database, apply a queue setup, submit a GPU job
 * built from flags, and list what waits. Built with the project and, by the
 * install test, against an installed copy (find_package and pkg-config).
 *
 *   submit_and_list DATABASE
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpuqueue.h>

static const char queues[] = "apiVersion: kueue.x-k8s.io/v1beta2\n"
                             "kind: ResourceFlavor\n"
                             "metadata: {name: a100}\n"
                             "---\n"
                             "apiVersion: kueue.x-k8s.io/v1beta2\n"
                             "kind: ClusterQueue\n"
                             "metadata: {name: research}\n"
                             "spec:\n"
                             "  namespaceSelector: {}\n"
                             "  resourceGroups:\n"
                             "  - coveredResources: [nvidia.com/gpu]\n"
                             "    flavors:\n"
                             "    - name: a100\n"
                             "      resources: [{name: nvidia.com/gpu, nominalQuota: 8}]\n"
                             "---\n"
                             "apiVersion: kueue.x-k8s.io/v1beta2\n"
                             "kind: LocalQueue\n"
                             "metadata: {name: research, namespace: default}\n"
                             "spec: {clusterQueue: research}\n";

static void on_applied(const gq_apply_item *item, void *payload)
{
    (void)payload;
    printf("%s/%s applied\n", item->resource, item->name);
}

static int on_workload(const gq_workload_info *wl, void *payload)
{
    (void)payload;
    printf("%s %s %s gpus=%lld position=%lld\n", wl->name, wl->local_queue, wl->state,
           (long long)wl->gpus, (long long)wl->position);
    return 0;
}

int main(int argc, char **argv)
{
    gq_job_spec job = GQ_JOB_SPEC_INIT;
    gq_error err = {0, ""};
    char *name = NULL;
    gq_db *db = NULL;
    int rc;

    if (argc != 2) {
        fprintf(stderr, "usage: %s DATABASE\n", argv[0]);
        return 2;
    }
    if ((rc = gq_db_open(&db, argv[1], NULL, &err)) != GQ_OK)
        goto fail;
    if ((rc = gq_apply_buffer(db, queues, strlen(queues), "queues", NULL, on_applied, NULL,
                              &err)) != GQ_OK)
        goto fail;
    job.queue = "research";
    job.name = "train";
    job.gpus = "4";
    if ((rc = gq_job_submit(db, &job, NULL, &name, &err)) != GQ_OK)
        goto fail;
    printf("submitted %s\n", name);
    gq_free(name);
    if ((rc = gq_workload_list(db, NULL, on_workload, NULL, &err)) != GQ_OK)
        goto fail;
    gq_db_close(db);
    return 0;
fail:
    fprintf(stderr, "error: %s (%s)\n", err.msg, gq_errname(rc));
    gq_db_close(db);
    return 1;
}
