/*
 * test_provision.c: the ProvisioningRequest check's rules against
 * kueue-semantics.md §3: names (§3.3), parameters (§3.4), when a request is
 * needed (§3.2), the backoff sequence (§3.7), every row of the condition
 * table (§3.6), and gpuq's provisioning timeout (§6, #3245), table-driven.
 */
#include <stdlib.h>
#include <string.h>

#include "provision.h"
#include "test.h"
#include "util.h"

#pragma GCC diagnostic ignored "-Wdiscarded-qualifiers"

static void names(void)
{
    char long_name[300], *n, hex[41];

    n = gq__provreq_name("job-sample-job-7f173", "dws-prov", 1);
    CHECK_STR(n, "job-sample-job-7f173-dws-prov-1");
    free(n);
    n = gq__podtemplate_name("job-sample-job-7f173-dws-prov-1", "main");
    CHECK_STR(n, "ppt-job-sample-job-7f173-dws-prov-1-main");
    free(n);
    /* Longer than 253: the first 247 characters, "-", five hex digits of its SHA-1. */
    memset(long_name, 'a', 260);
    long_name[260] = '\0';
    n = gq__limit_object_name(long_name);
    gq__sha1_hex(hex, long_name, 260);
    CHECK(strlen(n) == 253 && n[247] == '-' && strncmp(n + 248, hex, 5) == 0 &&
          strncmp(n, long_name, 247) == 0);
    free(n);
    memset(long_name, 'b', 253);
    long_name[253] = '\0';
    n = gq__limit_object_name(long_name);
    CHECK_STR(n, long_name); /* exactly 253 stays */
    free(n);
}

static void parameters(void)
{
    struct gq_kv cfg[] = {{"maxRunDurationSeconds", "86400"}, {"ValidUntilSeconds", "60"}};
    struct gq_kv ann[] = {{"provreq.kueue.x-k8s.io/maxRunDurationSeconds", "600"},
                          {"other.io/x", "y"},
                          {"provreq.kueue.x-k8s.io/noRetry", "true"}};
    struct gq_kvs c = {cfg, 2}, a = {ann, 3}, out;

    CHECK(gq__provreq_parameters(&c, &a, &out) == 0);
    CHECK(out.n == 3);
    CHECK_STR(out.v[0].key, "maxRunDurationSeconds");
    CHECK_STR(out.v[0].value, "600"); /* the annotation wins */
    CHECK_STR(out.v[1].value, "60");
    CHECK_STR(out.v[2].key, "noRetry");
    gq__kvs_clear(&out);
}

static void needed(void)
{
    struct gq_request reqs[] = {{"cpu", {1, 0, GQ_QTY_DECIMAL_SI}},
                                {"nvidia.com/gpu", {1, 0, GQ_QTY_DECIMAL_SI}}};
    struct gq_podset ps = {0};
    char *gpu[] = {"nvidia.com/gpu"}, *tpu[] = {"google.com/tpu"};
    struct gq_strs all = {NULL, 0}, gpus = {gpu, 1}, tpus = {tpu, 1};

    ps.requests = reqs;
    ps.nrequests = 2;
    CHECK(gq__provreq_needed(&ps, 1, &all));
    CHECK(gq__provreq_needed(&ps, 3, &gpus));
    CHECK(!gq__provreq_needed(&ps, 3, &tpus));
    CHECK(!gq__provreq_needed(&ps, 0, &all)); /* no pods, no request */
}

static void backoff(void)
{
    static const int64_t want[] = {60, 120, 240, 480, 960, 1800, 1800};
    int i;

    for (i = 0; i < 7; i++)
        CHECKF(gq__backoff_seconds(i + 1, 60, 1800) == want[i], "n=%d: %lld", i + 1,
               (long long)gq__backoff_seconds(i + 1, 60, 1800));
    CHECK(gq__backoff_seconds(200, 60, 1800) == 1800); /* no overflow */
}

/* A config's retryStrategy with Kueue's defaults (3, 60 s, 1800 s). */
static const struct gq_provisioning_config retry_defaults = {
    .backoff_limit_count = 3, .backoff_base_seconds = 60, .backoff_max_seconds = 1800};

static void conditions(void)
{
    static const struct {
        const char *what;
        struct gq_provreq_status st;
        int32_t attempt, retry_count;
        bool admitted;
        enum gq_check_state want;
        bool unchanged;
        int64_t requeue;
        const char *message;
    } rows[] = {
        {"no conditions", {0}, 1, 0, false, GQ_CHECK_PENDING, false, 0, ""},
        {"accepted, no Provisioned condition", {.accepted = true}, 1, 0, false,
         GQ_CHECK_PENDING, false, 0, ""},
        {"accepted, Provisioned=False with an ETA",
         {.accepted = true, .has_provisioned = true, .provisioned_msg = "ETA 2h"}, 1, 0, false,
         GQ_CHECK_PENDING, false, 0, "ETA 2h"},
        {"provisioned", {.accepted = true, .provisioned = true, .has_provisioned = true,
                         .provisioned_msg = "Provisioned"}, 1, 0, false,
         GQ_CHECK_READY, false, 0, "Provisioned"},
        {"failed, attempt 1 of 3", {.failed = true, .failed_msg = "out of resources"}, 1, 0,
         false, GQ_CHECK_RETRY, false, 60, "Retrying after failure: out of resources"},
        {"failed, attempt 3 of 3", {.failed = true, .failed_msg = "x"}, 3, 2, false,
         GQ_CHECK_RETRY, false, 240, "Retrying after failure: x"},
        {"failed, attempt 4: rejected", {.failed = true, .failed_msg = "x"}, 4, 3, false,
         GQ_CHECK_REJECTED, false, 0, "x"},
        {"failed, already retried", {.failed = true, .failed_msg = "x"}, 2, 2, false,
         GQ_CHECK_PENDING, true, 0, ""},
        {"failed beats provisioned", {.failed = true, .provisioned = true, .failed_msg = "f"}, 1,
         0, false, GQ_CHECK_RETRY, false, 60, "Retrying after failure: f"},
        {"capacity revoked while admitted", {.provisioned = true, .capacity_revoked = true,
                                             .revoked_msg = "maxRunDurationSeconds reached"},
         1, 0, true, GQ_CHECK_REJECTED, false, 0, "maxRunDurationSeconds reached"},
        {"booking expired before admission", {.provisioned = true, .booking_expired = true,
                                              .booking_msg = "10m"},
         1, 0, false, GQ_CHECK_RETRY, false, 60, "Retrying after booking expired: 10m"},
        {"booking expired before admission, limit reached",
         {.provisioned = true, .booking_expired = true, .booking_msg = "10m"}, 4, 3, false,
         GQ_CHECK_REJECTED, false, 0, "10m"},
        {"booking expired after admission: ignored",
         {.provisioned = true, .booking_expired = true, .booking_msg = "10m"}, 1, 0, true,
         GQ_CHECK_PENDING, true, 0, ""},
    };
    struct gq_provisioning_config cfg = retry_defaults;
    struct gq_check_update u;
    size_t i;

    for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        gq__check_from_provreq(&rows[i].st, rows[i].attempt, rows[i].retry_count, &cfg,
                               rows[i].admitted, &u);
        CHECKF(u.unchanged == rows[i].unchanged, "%s: unchanged", rows[i].what);
        if (rows[i].unchanged)
            continue;
        CHECKF(u.state == rows[i].want, "%s: state %s", rows[i].what,
               gq__check_state_name(u.state));
        CHECKF(u.requeue_after_s == rows[i].requeue, "%s: requeue %lld", rows[i].what,
               (long long)u.requeue_after_s);
        CHECKF(strcmp(u.message, rows[i].message) == 0, "%s: message \"%s\"", rows[i].what,
               u.message);
    }
    cfg.backoff_limit_count = 0; /* 0 disables retries: the first failure rejects */
    gq__check_from_provreq(&rows[4].st, 1, 0, &cfg, false, &u);
    CHECK(u.state == GQ_CHECK_REJECTED);
}

/* gpuq's provisioning timeout (#3245) and what flavor fallback counts (#2560). */
static void timeouts(void)
{
    static const struct {
        const char *what;
        struct gq_provreq_status st;
        int64_t want; /* minutes after creation; 0: never */
        bool failed;  /* a failed attempt when Retry/Rejected (not admitted) */
    } rows[] = {
        {"no status yet", {0}, 30, false},
        {"accepted", {.accepted = true}, 30, false},
        {"accepted, Provisioned=False with an ETA",
         {.accepted = true, .has_provisioned = true, .provisioned_msg = "ETA 2h"}, 30, false},
        {"provisioned", {.accepted = true, .provisioned = true, .has_provisioned = true}, 0,
         false},
        {"failed", {.failed = true}, 0, true},
        {"booking expired", {.provisioned = true, .booking_expired = true}, 0, true},
        {"capacity revoked", {.provisioned = true, .capacity_revoked = true}, 0, false},
        {"revoked and expired", {.capacity_revoked = true, .booking_expired = true}, 0, false},
    };
    struct gq_provisioning_config cfg = retry_defaults;
    struct gq_check_update u;
    size_t i;

    for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        cfg.timeout_ms = 30 * 60000;
        CHECKF(gq__provreq_timeout_at(&rows[i].st, 1000, &cfg) ==
                   (rows[i].want ? 1000 + rows[i].want * 60000 : 0),
               "%s", rows[i].what);
        cfg.timeout_ms = 0; /* off: never */
        CHECKF(gq__provreq_timeout_at(&rows[i].st, 1000, &cfg) == 0, "%s: off", rows[i].what);
        CHECKF(gq__provreq_attempt_failed(&rows[i].st, false) == rows[i].failed, "%s",
               rows[i].what);
    }
    /* Booking expiry once admitted is ignored, so it is no failed attempt. */
    CHECK(!gq__provreq_attempt_failed(&rows[5].st, true));

    cfg.timeout_ms = 30 * 60000;
    gq__check_timed_out("wl-dws-prov-1", 1, 0, &cfg, &u);
    CHECK(u.state == GQ_CHECK_RETRY && u.requeue_after_s == 60 && !u.unchanged);
    CHECK_STR(u.message,
              "Retrying after timeout: ProvisioningRequest wl-dws-prov-1 not provisioned within 30m");
    cfg.timeout_ms = 90 * 60000;
    gq__check_timed_out("wl-dws-prov-3", 3, 2, &cfg, &u);
    CHECK(u.state == GQ_CHECK_RETRY && u.requeue_after_s == 240);
    CHECK_STR(u.message, "Retrying after timeout: ProvisioningRequest wl-dws-prov-3 not "
                         "provisioned within 1h30m");
    gq__check_timed_out("wl-dws-prov-4", 4, 3, &cfg, &u); /* past backoffLimitCount */
    CHECK(u.state == GQ_CHECK_REJECTED);
    CHECK_STR(u.message, "ProvisioningRequest wl-dws-prov-4 not provisioned within 1h30m");
    gq__check_timed_out("wl-dws-prov-2", 2, 2, &cfg, &u); /* already a retry */
    CHECK(u.unchanged);
}

int main(void)
{
    TEST_RUN(names);
    TEST_RUN(parameters);
    TEST_RUN(needed);
    TEST_RUN(backoff);
    TEST_RUN(conditions);
    TEST_RUN(timeouts);
    return TEST_DONE();
}
