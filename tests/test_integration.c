/*
 * test_integration.c: the integration table's pure parts (core/integration.c):
 * count expressions over a table of paths, their syntax and overflow, paths,
 * and the built-in rows' lookups.
 */
#include <stdint.h>
#include <string.h>

#include "integration.h"
#include "test.h"

/* The lookup: a few paths with values; "bad" is there but not a count. */
struct vars {
    const char *names[6];
    int64_t values[6];
};

static int lookup(void *ctx, const char *path, size_t len, int64_t *v)
{
    const struct vars *vs = ctx;
    size_t i;

    for (i = 0; i < 6 && vs->names[i]; i++) {
        if (strlen(vs->names[i]) == len && !strncmp(vs->names[i], path, len)) {
            if (!strcmp(vs->names[i], "bad"))
                return -1;
            *v = vs->values[i];
            return 1;
        }
    }
    return 0;
}

static void expressions(void)
{
    static struct vars job = {{"parallelism", "completions", NULL}, {8, 3}};
    static struct vars only_par = {{"parallelism", NULL}, {5}};
    static struct vars jobset = {{"replicas", "template.spec.parallelism", NULL}, {2, 4}};
    static struct vars ray = {{"replicas", "numOfHosts", NULL}, {3, 4}};
    static struct vars none = {{NULL}, {0}};
    static struct vars bad = {{"bad", NULL}, {0}};
    static struct vars big = {{"a", "b", NULL}, {65536, 65536}};
    static const struct {
        const char *expr;
        struct vars *vars;
        int rc;
        int64_t want;
    } rows[] = {
        {"min(parallelism?1, completions?parallelism?1)", &job, 0, 3},
        {"min(parallelism?1, completions?parallelism?1)", &only_par, 0, 5},
        {"min(parallelism?1, completions?parallelism?1)", &none, 0, 1},
        {"replicas?1 * min(template.spec.parallelism?1, "
         "template.spec.completions?template.spec.parallelism?1)",
         &jobset, 0, 8},
        {"replicas?1 * max(numOfHosts?1, 1)", &ray, 0, 12},
        {"replicas?1 * max(numOfHosts?1, 1)", &none, 0, 1},
        {"count", &none, 0, 0}, /* absent, no default: nothing */
        {"7", &none, 0, 7},
        {" 2 * 3 ", &none, 0, 6},
        {"bad?1", &bad, -1, 0},
        {"a * b", &big, -3, 0},
        {"2147483648", &none, -3, 0},
        {"min(1 2)", &none, -2, 0},
        {"count +", &none, -2, 0},
        {"(2)", &none, -2, 0},
    };
    size_t i;

    for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        int64_t v = -1;
        int rc = gq__integration_eval(rows[i].expr, lookup, rows[i].vars, &v);

        CHECKF(rc == rows[i].rc, "%s: rc %d", rows[i].expr, rc);
        if (rc == 0)
            CHECKF(v == rows[i].want, "%s: %lld", rows[i].expr, (long long)v);
    }
}

static void syntax(void)
{
    char why[128];

    CHECK(gq__integration_expr_ok("replicas?1 * min(a.b?2, c)", why, sizeof(why)));
    CHECK(!gq__integration_expr_ok("", why, sizeof(why)));
    CHECK(!gq__integration_expr_ok("count * (2", why, sizeof(why)));
    CHECKF(strstr(why, "(2") != NULL, "%s", why);
    CHECK(gq__integration_path_ok("spec.workers", why, sizeof(why)));
    CHECK(gq__integration_path_ok("spec.run_policy-x.y0", why, sizeof(why)));
    CHECK(!gq__integration_path_ok("spec..workers", why, sizeof(why)));
    CHECK(!gq__integration_path_ok("spec.workers[0]", why, sizeof(why)));
    CHECK(!gq__integration_path_ok(".spec", why, sizeof(why)));
    CHECK(!gq__integration_path_ok("", why, sizeof(why)));
}

static void rows_found(void)
{
    const struct gq_integration *r;
    size_t i;

    CHECK(gq__integration_find("batch", "Job", NULL) == gq__integration_job());
    r = gq__integration_find("jobset.x-k8s.io", "JobSet", NULL);
    CHECK(r && gq__integration_accepts(r, "v1alpha2") && !gq__integration_accepts(r, "v1"));
    CHECK(gq__integration_find("ray.io", "JobSet", NULL) == NULL);
    r = gq__integration_by_kind("MPIJob", NULL);
    CHECK(r && !strcmp(r->group, "kubeflow.org") && !strcmp(r->versions[0], "v2beta1"));
    r = gq__integration_find("kubernetes.dask.org", "DaskCluster", NULL);
    CHECK(r && r->refused && !r->suspend);
    /* Every built-in row that is not refused has a switch, a plural and its pod sets. */
    for (i = 0; (r = gq__integration_builtin(i)) != NULL; i++) {
        size_t j;

        if (r->refused)
            continue;
        CHECKF(r->suspend && r->plural && r->npodsets > 0, "%s", r->kind);
        for (j = 0; j < r->npodsets; j++) {
            char why[128];

            CHECKF(gq__integration_path_ok(r->podsets[j].at, why, sizeof(why)), "%s %s",
                   r->kind, r->podsets[j].at);
            if (r->podsets[j].count)
                CHECKF(gq__integration_expr_ok(r->podsets[j].count, why, sizeof(why)), "%s %s",
                       r->kind, why);
        }
    }
}

/* waitForPodsReady: each kind's PodsReady as Kueue's controller of the kind reads it. */
static void ready_rules(void)
{
    static const struct {
        const char *kind, *rule;
    } v[] = {
        {"Job", NULL}, /* read by count: status.ready + status.succeeded */
        {"JobSet", GQ_INTEG_READY_REPLICATED_JOBS},
        {"PyTorchJob", "Running"},
        {"TFJob", "Running"},
        {"MPIJob", "Running"},
        {"RayCluster", "status.state=ready"},
        {"RayJob", "status.rayClusterStatus.state=ready"},
    };
    struct gq_integration user = {"kubeflow.org", "MyJob", {"v1"}, "myjobs", "spec.suspend",
                                  {{0}}, 0, NULL, NULL};
    size_t i;

    for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
        const char *got = gq__integration_ready(gq__integration_by_kind(v[i].kind, NULL));

        CHECKF(v[i].rule ? got && !strcmp(got, v[i].rule) : !got, "%s: %s", v[i].kind,
               got ? got : "(none)");
    }
    /* A user's kind, even in a group Kueue knows: none (ready once it runs). */
    CHECK(gq__integration_ready(&user) == NULL);
}

int main(void)
{
    TEST_RUN(expressions);
    TEST_RUN(syntax);
    TEST_RUN(rows_found);
    TEST_RUN(ready_rules);
    return TEST_DONE();
}
