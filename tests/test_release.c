/*
 * test_release.c: Kueue's startJob rule (release.h), one rule per case,
 * written from kueue-semantics.md §2.11 and §3.8: the flavors' nodeLabels
 * merged into nodeSelector (the first flavor's value kept), their
 * tolerations appended without duplicates, the label kueue.x-k8s.io/podset,
 * and each ProvisioningRequest's annotations and podSetUpdates.nodeSelector
 * (key = the class detail it names, skipped when absent). The pristine
 * template's entries come first and keep their order.
 */
#include <stdio.h>
#include <string.h>

#include "release.h"
#include "test.h"

#pragma GCC diagnostic ignored "-Wdiscarded-qualifiers"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* "k=v,k=v" of a map, in its order. */
static const char *kvs_text(const struct gq_kvs *kvs)
{
    static char buf[1024];
    size_t i, len = 0;

    buf[0] = '\0';
    for (i = 0; i < kvs->n && len < sizeof(buf); i++)
        len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s=%s", i ? "," : "",
                                kvs->v[i].key, kvs->v[i].value);
    return buf;
}

/* "key/op/value/effect/seconds;..." with "-" for an absent field. */
static const char *tols_text(const struct gq_toleration *t, size_t n)
{
    static char buf[1024];
    size_t i, len = 0;

    buf[0] = '\0';
    for (i = 0; i < n && len < sizeof(buf); i++) {
        char secs[24] = "-";

        if (t[i].has_seconds)
            snprintf(secs, sizeof(secs), "%lld", (long long)t[i].seconds);
        len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s/%s/%s/%s/%s", i ? ";" : "",
                                t[i].key ? t[i].key : "-", t[i].op ? t[i].op : "-",
                                t[i].value ? t[i].value : "-", t[i].effect ? t[i].effect : "-",
                                secs);
    }
    return buf;
}

static struct gq_kv pool_labels[] = {{"cloud.google.com/gke-nodepool", "gpu-pool"},
                                     {"gpu", "t4"}};
static struct gq_toleration gpu_tols[] = {
    {"nvidia.com/gpu", "Exists", NULL, "NoSchedule", false, 0},
    {"spot", "Equal", "true", "NoExecute", true, 300},
};
static const struct gq_flavor t4 = {{pool_labels, 2}, NULL, 0, gpu_tols, 2, NULL};
static const struct gq_flavor empty_flavor = {{NULL, 0}, NULL, 0, NULL, 0, NULL};

/* A pristine template with no nodeSelector, labels or tolerations, on a labelled flavor. */
static void flavor_into_empty_template(void)
{
    const struct gq_flavor *fl[] = {&t4};
    struct gq_release_podset ps = {"main", fl, 1, NULL, NULL, NULL, NULL, 0};
    struct gq_released out;

    CHECK(gq__release(&out, &ps, NULL, 0) == 0);
    CHECK_STR(kvs_text(&out.node_selector), "cloud.google.com/gke-nodepool=gpu-pool,gpu=t4");
    CHECK_STR(kvs_text(&out.labels), "kueue.x-k8s.io/podset=main");
    CHECK(out.annotations.n == 0); /* no request: no annotations */
    CHECK_STR(tols_text(out.tolerations, out.ntolerations),
              "nvidia.com/gpu/Exists/-/NoSchedule/-;spot/Equal/true/NoExecute/300");
    gq__released_clear(&out);
    CHECK(out.labels.n == 0 && out.tolerations == NULL);
}

/* An empty flavor (DWS's default-flavor) adds only the podset label. */
static void empty_flavor_adds_label_only(void)
{
    const struct gq_flavor *fl[] = {&empty_flavor};
    struct gq_kv sel[] = {{"zone", "a"}};
    struct gq_kvs sel_kvs = {sel, 1};
    struct gq_release_podset ps = {"workers", fl, 1, NULL, NULL, &sel_kvs, NULL, 0};
    struct gq_released out;

    CHECK(gq__release(&out, &ps, NULL, 0) == 0);
    CHECK_STR(kvs_text(&out.node_selector), "zone=a");
    CHECK_STR(kvs_text(&out.labels), "kueue.x-k8s.io/podset=workers");
    CHECK(out.ntolerations == 0);
    gq__released_clear(&out);
}

/* The pristine entries first, in their order; a key set again keeps its place. */
static void pristine_first_in_order(void)
{
    const struct gq_flavor *fl[] = {&t4};
    struct gq_kv sel[] = {{"gpu", "t4"}, {"zone", "a"}};
    struct gq_kv labels[] = {{"app", "train"}, {"kueue.x-k8s.io/podset", "old"}, {"team", "x"}};
    struct gq_kv ann[] = {{"note", "keep"}};
    struct gq_kvs sel_kvs = {sel, 2}, label_kvs = {labels, 3}, ann_kvs = {ann, 1};
    struct gq_release_podset ps = {"main", fl, 1, &label_kvs, &ann_kvs, &sel_kvs, NULL, 0};
    struct gq_released out;

    CHECK(gq__release(&out, &ps, NULL, 0) == 0);
    CHECK_STR(kvs_text(&out.node_selector), "gpu=t4,zone=a,cloud.google.com/gke-nodepool=gpu-pool");
    CHECK_STR(kvs_text(&out.labels), "app=train,kueue.x-k8s.io/podset=main,team=x");
    CHECK_STR(kvs_text(&out.annotations), "note=keep");
    gq__released_clear(&out);
}

/*
 * Tolerations: the template's kept, the flavor's appended once each. Equal
 * means every field equal: a toleration without operator is not the same
 * as one with operator Equal, nor one with tolerationSeconds as one without;
 * an absent value is the empty one (Go's zero value), so the template's
 * value "" and the flavor's absent value are one toleration.
 */
static void tolerations_deduplicated(void)
{
    static const struct {
        struct gq_toleration have;
        const char *want;
    } rows[] = {
        {{"nvidia.com/gpu", "Exists", NULL, "NoSchedule", false, 0},
         "nvidia.com/gpu/Exists/-/NoSchedule/-;spot/Equal/true/NoExecute/300"},
        {{"spot", "Equal", "true", "NoExecute", true, 300},
         "spot/Equal/true/NoExecute/300;nvidia.com/gpu/Exists/-/NoSchedule/-"},
        {{"spot", NULL, "true", "NoExecute", true, 300},
         "spot/-/true/NoExecute/300;nvidia.com/gpu/Exists/-/NoSchedule/-;"
         "spot/Equal/true/NoExecute/300"},
        {{"spot", "Equal", "true", "NoExecute", false, 0},
         "spot/Equal/true/NoExecute/-;nvidia.com/gpu/Exists/-/NoSchedule/-;"
         "spot/Equal/true/NoExecute/300"},
        {{"nvidia.com/gpu", "Exists", NULL, NULL, false, 0},
         "nvidia.com/gpu/Exists/-/-/-;nvidia.com/gpu/Exists/-/NoSchedule/-;"
         "spot/Equal/true/NoExecute/300"},
        {{"nvidia.com/gpu", "Exists", "", "NoSchedule", false, 0},
         "nvidia.com/gpu/Exists//NoSchedule/-;spot/Equal/true/NoExecute/300"},
    };
    const struct gq_flavor *fl[] = {&t4};
    size_t i;

    for (i = 0; i < N(rows); i++) {
        struct gq_release_podset ps = {"main", fl, 1, NULL, NULL, NULL, &rows[i].have, 1};
        struct gq_released out;

        CHECKF(gq__release(&out, &ps, NULL, 0) == 0, "row %zu", i);
        CHECKF(strcmp(tols_text(out.tolerations, out.ntolerations), rows[i].want) == 0,
               "row %zu: got %s", i, tols_text(out.tolerations, out.ntolerations));
        gq__released_clear(&out);
    }
}

/* A flavor repeating its own toleration, or a second flavor repeating the first's: once. */
static void tolerations_once_across_flavors(void)
{
    struct gq_toleration twice[] = {{"a", "Exists", NULL, NULL, false, 0},
                                    {"a", "Exists", NULL, NULL, false, 0}};
    const struct gq_flavor f1 = {{NULL, 0}, NULL, 0, twice, 2, NULL};
    const struct gq_flavor f2 = {{NULL, 0}, NULL, 0, twice, 1, NULL};
    const struct gq_flavor *fl[] = {&f1, &f2};
    struct gq_release_podset ps = {"main", fl, 2, NULL, NULL, NULL, NULL, 0};
    struct gq_released out;

    CHECK(gq__release(&out, &ps, NULL, 0) == 0);
    CHECK_STR(tols_text(out.tolerations, out.ntolerations), "a/Exists/-/-/-");
    gq__released_clear(&out);
}

/* Several flavors (one per resource group): every one's labels, the first's value kept. */
static void flavors_merge_keep_first(void)
{
    struct gq_kv a[] = {{"pool", "gpu"}, {"zone", "a"}};
    struct gq_kv b[] = {{"zone", "b"}, {"cpu", "big"}};
    const struct gq_flavor fa = {{a, 2}, NULL, 0, NULL, 0, NULL};
    const struct gq_flavor fb = {{b, 2}, NULL, 0, NULL, 0, NULL};
    const struct gq_flavor *fl[] = {&fa, &fb};
    struct gq_release_podset ps = {"main", fl, 2, NULL, NULL, NULL, NULL, 0};
    struct gq_released out;

    CHECK(gq__release(&out, &ps, NULL, 0) == 0);
    CHECK_STR(kvs_text(&out.node_selector), "pool=gpu,zone=a,cpu=big");
    gq__released_clear(&out);
}

/*
 * ProvisioningRequests (§3.8): consume-provisioning-request and
 * provisioning-class-name per request, and per podSetUpdates.nodeSelector
 * entry the key with the detail's value, skipped when the detail is absent.
 */
static void requests_annotate_and_select(void)
{
    const struct gq_flavor *fl[] = {&empty_flavor};
    struct gq_kv details[] = {{"ResizeRequestName", "gke-default-job-x-f5a955"}};
    struct gq_kvs details_kvs = {details, 1};
    struct gq_psu_node_selector sels[] = {
        {"autoscaling.gke.io/provisioning-request", "ResizeRequestName"},
        {"absent.example.com/key", "NoSuchDetail"},
    };
    struct gq_release_request reqs[] = {
        {"job-x-dws-prov-1", "queued-provisioning.gke.io", &details_kvs, sels, 2},
    };
    struct gq_release_podset ps = {"main", fl, 1, NULL, NULL, NULL, NULL, 0};
    struct gq_released out;

    CHECK(gq__release(&out, &ps, reqs, 1) == 0);
    CHECK_STR(kvs_text(&out.annotations),
              "autoscaling.x-k8s.io/consume-provisioning-request=job-x-dws-prov-1,"
              "autoscaling.x-k8s.io/provisioning-class-name=queued-provisioning.gke.io");
    CHECK_STR(kvs_text(&out.node_selector),
              "autoscaling.gke.io/provisioning-request=gke-default-job-x-f5a955");
    gq__released_clear(&out);
}

/*
 * Two requests (two checks): each adds its pair, the later one's value in
 * the place of the earlier; a request without details or class adds only
 * its name; the flavor's selector comes before the requests'.
 */
static void requests_in_order(void)
{
    const struct gq_flavor *fl[] = {&t4};
    struct gq_psu_node_selector sels[] = {{"gpu", "Model"}};
    struct gq_kv details[] = {{"Model", "l4"}};
    struct gq_kvs details_kvs = {details, 1};
    struct gq_release_request reqs[] = {
        {"job-x-a-1", "check-capacity.autoscaling.x-k8s.io", NULL, sels, 1},
        {"job-x-b-2", NULL, &details_kvs, sels, 1},
    };
    struct gq_kv ann[] = {{"autoscaling.x-k8s.io/consume-provisioning-request", "stale"}};
    struct gq_kvs ann_kvs = {ann, 1};
    struct gq_release_podset ps = {"main", fl, 1, NULL, &ann_kvs, NULL, NULL, 0};
    struct gq_released out;

    CHECK(gq__release(&out, &ps, reqs, 2) == 0);
    CHECK_STR(kvs_text(&out.annotations),
              "autoscaling.x-k8s.io/consume-provisioning-request=job-x-b-2,"
              "autoscaling.x-k8s.io/provisioning-class-name=check-capacity.autoscaling.x-k8s.io");
    CHECK_STR(kvs_text(&out.node_selector), "cloud.google.com/gke-nodepool=gpu-pool,gpu=l4");
    gq__released_clear(&out);
}

/* The input is borrowed: the result owns copies and outlives it. */
static void result_owns_its_strings(void)
{
    char name[] = "main";
    struct gq_kv labels[1];
    char key[] = "app", value[] = "train";
    struct gq_kvs label_kvs = {labels, 1};
    const struct gq_flavor *fl[] = {&t4};
    struct gq_release_podset ps = {name, fl, 1, &label_kvs, NULL, NULL, NULL, 0};
    struct gq_released out;

    labels[0].key = key;
    labels[0].value = value;
    CHECK(gq__release(&out, &ps, NULL, 0) == 0);
    memset(name, 'x', 4);
    memset(value, 'y', 5);
    CHECK_STR(kvs_text(&out.labels), "app=train,kueue.x-k8s.io/podset=main");
    CHECK(out.tolerations != gpu_tols && out.tolerations[0].key != gpu_tols[0].key);
    gq__released_clear(&out);
}

int main(void)
{
    TEST_RUN(flavor_into_empty_template);
    TEST_RUN(empty_flavor_adds_label_only);
    TEST_RUN(pristine_first_in_order);
    TEST_RUN(tolerations_deduplicated);
    TEST_RUN(tolerations_once_across_flavors);
    TEST_RUN(flavors_merge_keep_first);
    TEST_RUN(requests_annotate_and_select);
    TEST_RUN(requests_in_order);
    TEST_RUN(result_owns_its_strings);
    return TEST_DONE();
}
