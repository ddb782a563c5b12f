/*
 * test_manifest_provreq.c: the ProvisioningRequest and PodTemplate JSON
 * Kueue writes for GKE's sample job (kueue-semantics.md §3.4, §8 step 4);
 * the flavor is merged into the template by the release rule (release.c).
 */
#include <stdlib.h>
#include <string.h>

#include "manifest_load.h"
#include "test.h"

#pragma GCC diagnostic ignored "-Wdiscarded-qualifiers"

static const char spec[] =
    "{\"apiVersion\":\"kueue.x-k8s.io/v1beta2\",\"kind\":\"Workload\","
    "\"metadata\":{\"name\":\"job-sample-job-7f173\",\"namespace\":\"default\","
    "\"annotations\":{\"provreq.kueue.x-k8s.io/maxRunDurationSeconds\":\"600\"}},"
    "\"spec\":{\"podSets\":[{\"name\":\"main\",\"count\":1,\"template\":{\"spec\":{"
    "\"nodeSelector\":{\"cloud.google.com/gke-nodepool\":\"dws\"},"
    "\"tolerations\":[{\"key\":\"nvidia.com/gpu\",\"operator\":\"Exists\",\"effect\":\"NoSchedule\"}],"
    "\"containers\":[{\"name\":\"c\",\"image\":\"i\",\"resources\":{"
    "\"requests\":{\"cpu\":\"100m\"},\"limits\":{\"cpu\":\"100m\",\"nvidia.com/gpu\":\"1\"}}}]}}}]}}";

static void sample_job(void)
{
    struct gq_kv params_v[] = {{"maxRunDurationSeconds", "600"}};
    struct gq_kvs params = {params_v, 1};
    struct gq_kv labels_v[] = {{"zone", "us-central1-a"}};
    struct gq_kvs labels = {labels_v, 1};
    struct gq_toleration tols[] = {{"nvidia.com/gpu", "Exists", NULL, "NoSchedule", false, 0},
                                   {"spot", "Equal", "true", "NoSchedule", false, 0},
                                   {"burst", NULL, NULL, "NoExecute", true, 300}};
    struct gq_provreq_podset ps = {"main", "ppt-job-sample-job-7f173-dws-prov-1-main", 1,
                                   &labels, tols, 3};
    struct gq_provreq_doc d = {"job-sample-job-7f173-dws-prov-1", "default",
                               "job-sample-job-7f173", "uid-1", "queued-provisioning.gke.io",
                               &params, &ps, 1};
    struct gq_kvs ann;
    char *pr = NULL, *pts = NULL;
    gq_error err = {0, ""};

    CHECK(gq__manifest_provreq(spec, &d, &pr, &pts, &err) == GQ_OK);
    CHECK(pr && strstr(pr, "\"apiVersion\":\"autoscaling.x-k8s.io/v1\""));
    CHECK(pr && strstr(pr, "\"kind\":\"ProvisioningRequest\""));
    CHECK(pr && strstr(pr, "\"labels\":{\"kueue.x-k8s.io/managed\":\"true\"}"));
    CHECK(pr && strstr(pr, "\"kind\":\"Workload\",\"name\":\"job-sample-job-7f173\""));
    CHECK(pr && strstr(pr, "\"provisioningClassName\":\"queued-provisioning.gke.io\""));
    CHECK(pr && strstr(pr, "\"parameters\":{\"maxRunDurationSeconds\":\"600\"}"));
    CHECK(pr && strstr(pr, "\"podSets\":[{\"podTemplateRef\":{\"name\":"
                           "\"ppt-job-sample-job-7f173-dws-prov-1-main\"},\"count\":1}]"));
    CHECK(pts && strstr(pts, "\"kind\":\"PodTemplate\""));
    CHECK(pts && strstr(pts, "\"kind\":\"ProvisioningRequest\",\"name\":"
                             "\"job-sample-job-7f173-dws-prov-1\""));
    /* The flavor's label joins the job's own; its tolerations are added once. */
    CHECK(pts && strstr(pts, "\"cloud.google.com/gke-nodepool\":\"dws\",\"zone\":\"us-central1-a\""));
    CHECK(pts && strstr(pts, "{\"key\":\"spot\",\"operator\":\"Equal\",\"value\":\"true\","
                             "\"effect\":\"NoSchedule\"}"));
    CHECK(pts && !strstr(strstr(pts, "nvidia.com/gpu\",\"operator") + 1,
                         "nvidia.com/gpu\",\"operator"));
    /* Copied as Kueue copies the struct: no operator made up, tolerationSeconds kept. */
    CHECK(pts && strstr(pts, "{\"key\":\"burst\",\"effect\":\"NoExecute\","
                             "\"tolerationSeconds\":300}"));
    /* A limit without a request becomes the request. */
    CHECK(pts && strstr(pts, "\"requests\":{\"cpu\":\"100m\",\"nvidia.com/gpu\":\"1\"}"));
    free(pr);
    free(pts);
    CHECK(gq__manifest_annotations(spec, &ann, &err) == GQ_OK && ann.n == 1);
    CHECK(ann.n == 1 && strcmp(ann.v[0].value, "600") == 0);
    gq__kvs_clear(&ann);
    CHECK(gq__manifest_provreq("{not json", &d, &pr, &pts, &err) == GQ_EIO);
}

int main(void)
{
    TEST_RUN(sample_job);
    return TEST_DONE();
}
