/*
 * test_lease.c: the write gate that keeps a deposed leader from writing
 * (issue 13 item 2). Three layers: when the Lease still lets us write
 * (gq__sync_lease_valid, a pure function of the state and the time); the
 * gate the cluster loop installs (gq__sync_lease_gate: our own Lease
 * requests pass, other writes only while valid, a refusal while leading
 * marks the leader deposed); and the kube client asking the gate before
 * every request but a GET, sending nothing it refuses. The client points at
 * a port nothing listens on: a refused write must not even try to connect.
 */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "kube.h"
#include "os.h"
#include "sync.h"
#include "test.h"
#include "util.h"

static const struct {
    bool elect, leader;
    int64_t renewed, now, deadline;
    bool valid;
} valid_rows[] = {
    {false, false, 0, 999999, 10000, true},   /* no election: always */
    {true, false, 1000, 1000, 10000, false},  /* a standby never */
    {true, true, 1000, 1000, 10000, true},    /* just renewed */
    {true, true, 1000, 10999, 10000, true},   /* a millisecond before the deadline */
    {true, true, 1000, 11000, 10000, false},  /* at the deadline: may have lapsed */
    {true, true, 1000, 600000, 10000, false}, /* thawed long after */
};

static void sync_init(struct gq_sync *s, char *ns)
{
    memset(s, 0, sizeof(*s));
    s->o.leader_elect = true;
    s->o.lease_name = "gpuqd-leader";
    s->o.renew_deadline_ms = 10000;
    s->lease_ns = ns;
    snprintf(s->identity, sizeof(s->identity), "bob");
}

static void test_valid(void)
{
    char ns[] = "default";
    struct gq_sync s;
    size_t i;

    for (i = 0; i < sizeof(valid_rows) / sizeof(valid_rows[0]); i++) {
        sync_init(&s, ns);
        s.o.leader_elect = valid_rows[i].elect;
        s.leader = valid_rows[i].leader;
        s.lease.renewed_mono = valid_rows[i].renewed;
        s.o.renew_deadline_ms = valid_rows[i].deadline;
        CHECKF(gq__sync_lease_valid(&s, valid_rows[i].now) == valid_rows[i].valid, "row %zu", i);
    }
}

static void test_sync_gate(void)
{
    char ns[] = "default";
    int64_t now = gq__mono_us() / 1000;
    struct gq_sync s;
    gq_error err = {0, ""};

    /* Renewed an hour ago: every write but the Lease's own is refused, and the leader is deposed. */
    sync_init(&s, ns);
    s.leader = true;
    s.lease.renewed_mono = now - 3600 * 1000;
    CHECK(gq__sync_lease_gate("POST", "/api/v1/namespaces/default/podtemplates", &s, &err) ==
          GQ_ENOTLEADER);
    CHECK(s.deposed);
    CHECKF(strstr(err.msg, "POST /api/v1/namespaces/default/podtemplates not sent: bob has not "
                           "renewed its lease for ") == err.msg,
           "%s", err.msg);
    s.deposed = false;
    s.lease_call = true;
    CHECK(gq__sync_lease_gate("PUT", "/apis/coordination.k8s.io/v1/namespaces/default/leases/x",
                              &s, &err) == GQ_OK);
    CHECK(!s.deposed);

    /* Within a (day-long, so never a matter of speed) deadline: writes go. */
    sync_init(&s, ns);
    s.leader = true;
    s.o.renew_deadline_ms = 24 * 3600 * 1000;
    s.lease.renewed_mono = now;
    CHECK(gq__sync_lease_gate("PATCH", "/apis/batch/v1/namespaces/default/jobs/j", &s, &err) ==
          GQ_OK);

    /* A standby is refused without being called deposed (it never led). */
    sync_init(&s, ns);
    CHECK(gq__sync_lease_gate("DELETE", "/x", &s, &err) == GQ_ENOTLEADER);
    CHECK(!s.deposed);
    CHECK_STR(err.msg, "DELETE /x not sent: bob does not lead");
}

struct asked {
    int n;
    int answer;
    char last[128];
};

static int record_gate(const char *method, const char *path, void *payload, gq_error *err)
{
    struct asked *a = payload;

    a->n++;
    snprintf(a->last, sizeof(a->last), "%s %s", method, path);
    if (a->answer == GQ_OK)
        return GQ_OK;
    return gq__error(err, a->answer, "refused %s %s", method, path);
}

static struct gq_kube *client(void)
{
    struct gq_kube_limits lim = GQ_KUBE_LIMITS_INIT;
    struct gq_kube_config cfg;
    struct gq_kube *k = NULL;
    gq_error err = {0, ""};

    memset(&cfg, 0, sizeof(cfg));
    cfg.server = gq__strdup("http://127.0.0.1:1"); /* nothing listens on port 1 */
    lim.max_retries = 0;
    lim.qps = 0;
    CHECKF(gq__kube_open(&k, &cfg, &lim, &err) == GQ_OK, "%s", err.msg);
    return k;
}

static void test_kube_gate(void)
{
    static const char *const writes[] = {"POST", "PUT", "PATCH", "DELETE"};
    struct asked a = {0, GQ_ENOTLEADER, ""};
    struct gq_kube *k = client();
    struct gq_kube_resp r;
    gq_error err = {0, ""};
    size_t i;

    if (!k)
        return;
    gq__kube_set_write_gate(k, record_gate, &a);
    for (i = 0; i < sizeof(writes) / sizeof(writes[0]); i++) {
        CHECKF(gq__kube_call(k, writes[i], "/api/v1/namespaces/default/podtemplates", NULL, "{}",
                             &r, &err) == GQ_ENOTLEADER,
               "%s", writes[i]);
        CHECKF(a.n == (int)i + 1 && strncmp(a.last, writes[i], strlen(writes[i])) == 0, "%s",
               a.last);
    }
    CHECK_STR(err.msg, "refused DELETE /api/v1/namespaces/default/podtemplates");
    CHECK(gq__kube_requests(k) == 0); /* nothing prepared, nothing sent */

    /* A GET never asks; a write the gate lets by is sent (and meets the closed port). */
    CHECK(gq__kube_call(k, "GET", "/api/v1/namespaces", NULL, NULL, &r, &err) == GQ_EK8S);
    CHECK(a.n == 4 && gq__kube_requests(k) == 1);
    a.answer = GQ_OK;
    CHECK(gq__kube_call(k, "PATCH", "/apis/batch/v1/namespaces/default/jobs/j",
                        "application/merge-patch+json", "{}", &r, &err) == GQ_EK8S);
    CHECK(a.n == 5 && gq__kube_requests(k) == 2);
    CHECK_STR(a.last, "PATCH /apis/batch/v1/namespaces/default/jobs/j");
    gq__kube_close(k);
}

int main(void)
{
    TEST_RUN(test_valid);
    TEST_RUN(test_sync_gate);
    TEST_RUN(test_kube_gate);
    return TEST_DONE();
}
