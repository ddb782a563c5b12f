/*
 * test_pods_ready.c: waitForPodsReady's pure rules (admit.c: the deadline
 * and the backoff) and the Configuration as the engine takes it
 * (engine_ready.c), both API versions with Kueue's defaults
 * (apis/config/v1beta1 and v1beta2 defaults.go, pkg/controller/core/core.go).
 * The timeouts, requeues and blockAdmission themselves are run end to end
 * by tests/cli/wait_for_pods_ready.t and tests/integration/test_cluster_pods_ready.py.
 */
#include <stdio.h>
#include <string.h>

#include "admit.h"
#include "engine.h"
#include "manifest_load.h"
#include "test.h"

/* Kueue's UpdateRequeueState without jitter: base x 2^(n-1), at most max. */
static void backoff(void)
{
    struct gq_wfpr c = {.on = true, .base_s = 60, .max_s = 3600};
    static const int64_t want[] = {60, 120, 240, 480, 960, 1920, 3600, 3600};
    struct gq_wfpr small = {.on = true, .base_s = 1, .max_s = 3};
    size_t i;

    for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
        CHECKF(gq__wfpr_backoff_ms(&c, (int32_t)i + 1) == want[i] * 1000, "n %zu", i + 1);
    CHECK(gq__wfpr_backoff_ms(&small, 1) == 1000);
    CHECK(gq__wfpr_backoff_ms(&small, 2) == 2000);
    CHECK(gq__wfpr_backoff_ms(&small, 3) == 3000); /* 4 s, capped */
    CHECK(gq__wfpr_backoff_ms(&small, 40) == 3000); /* no overflow however many */
}

/* admittedNotReadyWorkload: from admission, or from WaitForRecovery with recoveryTimeout. */
static void deadline(void)
{
    struct gq_wfpr c = {.on = true, .timeout_ms = 5000, .recovery_ms = 2000};
    struct gq_wfpr off = {0};
    struct gq_snap_wl wl;

    memset(&wl, 0, sizeof(wl));
    wl.state = GQ_WS_ADMITTED;
    wl.admitted_ms = 1000;
    wl.ready_ms = 9000;
    CHECK(gq__wfpr_due(&c, &wl) == 6000); /* no condition yet: WaitForStart */
    wl.pods_ready = GQ_PR_WAIT_START;
    CHECK(gq__wfpr_due(&c, &wl) == 6000);
    wl.pods_ready = GQ_PR_READY;
    CHECK(gq__wfpr_due(&c, &wl) == 0);
    wl.pods_ready = GQ_PR_WAIT_RECOVERY;
    CHECK(gq__wfpr_due(&c, &wl) == 11000);
    c.recovery_ms = 0; /* "0s": no recovery timeout */
    CHECK(gq__wfpr_due(&c, &wl) == 0);
    wl.pods_ready = GQ_PR_WAIT_START;
    wl.state = GQ_WS_RESERVED; /* quota reserved, checks pending: not admitted, no timeout */
    CHECK(gq__wfpr_due(&c, &wl) == 0);
    wl.state = GQ_WS_ADMITTED;
    CHECK(gq__wfpr_due(&off, &wl) == 0);
}

static const struct {
    const char *yaml;
    bool on, block, creation, has_limit;
    int64_t timeout_ms, recovery_ms;
    int32_t limit, base_s, max_s;
} config_rows[] = {
    /* v1beta2: the block's presence enables; 30m, recovery = timeout, no block. */
    {"apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nwaitForPodsReady: {}\n",
     true, false, false, false, 1800000, 1800000, 0, 60, 3600},
    {"apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n", false, false, false,
     false, 0, 0, 0, 0, 0},
    {"apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nwaitForPodsReady:\n"
     "  timeout: 1m\n  requeuingStrategy: {timestamp: Creation, backoffLimitCount: 0,\n"
     "    backoffBaseSeconds: 5, backoffMaxSeconds: 7}\n",
     true, false, true, true, 60000, 60000, 0, 5, 7},
    /* v1beta1: enable; 5m; blockAdmission defaults to enable. */
    {"apiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\n"
     "waitForPodsReady: {enable: true}\n",
     true, true, false, false, 300000, 300000, 0, 60, 3600},
    {"apiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\n"
     "waitForPodsReady: {enable: true, blockAdmission: false, recoveryTimeout: 0s}\n",
     true, false, false, false, 300000, 0, 0, 60, 3600},
    {"apiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\n"
     "waitForPodsReady: {enable: false, timeout: 5m}\n",
     false, false, false, false, 0, 0, 0, 0, 0},
};

static void config(void)
{
    size_t i;

    for (i = 0; i < sizeof(config_rows) / sizeof(config_rows[0]); i++) {
        struct gq_object o;
        struct gq_wfpr c;
        gq_error err;
        int rc;

        memset(&o, 0, sizeof(o));
        memset(&err, 0, sizeof(err));
        rc = gq__manifest_load(NULL, config_rows[i].yaml, strlen(config_rows[i].yaml), "t", NULL,
                               NULL, gq__take_object, &o, &err);
        CHECKF(rc == GQ_OK, "row %zu: %s", i, err.msg);
        gq__engine_wfpr(&o.u.config, &c);
        CHECKF(c.on == config_rows[i].on && c.block == config_rows[i].block &&
                   c.creation == config_rows[i].creation &&
                   c.has_limit == config_rows[i].has_limit &&
                   c.timeout_ms == config_rows[i].timeout_ms &&
                   c.recovery_ms == config_rows[i].recovery_ms &&
                   c.limit == config_rows[i].limit && c.base_s == config_rows[i].base_s &&
                   c.max_s == config_rows[i].max_s,
               "row %zu: on %d block %d creation %d limit %d/%d timeout %lld recovery %lld "
               "base %d max %d",
               i, c.on, c.block, c.creation, c.has_limit, (int)c.limit, (long long)c.timeout_ms,
               (long long)c.recovery_ms, (int)c.base_s, (int)c.max_s);
        gq__object_clear(&o);
    }
}

int main(void)
{
    TEST_RUN(backoff);
    TEST_RUN(deadline);
    TEST_RUN(config);
    return TEST_DONE();
}
