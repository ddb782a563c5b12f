/*
 * test_engine_provision.c: gpuq's two extensions of the ProvisioningRequest
 * check as the engine sees them, in a fresh ":memory:" database with
 * tests/data/dws-extensions.yaml applied and the clock stopped (speed 0):
 * the annotations that switch them on, the provisioning timeout's next
 * deadline for a simulation runner and its firing, and flavor fallback's
 * counts going through the snapshot into flavor assignment (skipped flavor,
 * wrap-around) and back (gq__fallback_count).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "admit_int.h"
#include "api.h"
#include "engine.h"
#include "gpuqueue/schedule.h"
#include "store.h"
#include "store_int.h"
#include "test.h"

#define T0 1700000000000LL /* the stopped clock (ms) */
#define MIN (60 * 1000LL)

/* ------------------------------------------------------------- fixture */

static int stop_clock(struct gq_store *st, void *payload, gq_error *err)
{
    struct gq_clock c = {T0, *(const int64_t *)payload, 0.0, 0, 0};

    return gq__store_clock_set(st, &c, err);
}

static void set_clock(gq_db *db, int64_t at)
{
    gq_error err = {0, ""};

    CHECKF(gq__store_write(db->st, stop_clock, &at, &err) == GQ_OK, "%s", err.msg);
}

static int no_row(int n, const char *const *v, void *payload)
{
    (void)n, (void)v, (void)payload;
    return 0;
}

/* One statement with one text parameter, in its own transaction. */
struct stmt {
    const char *sql, *param;
};

static int exec_txn(struct gq_store *st, void *payload, gq_error *err)
{
    const struct stmt *s = payload;

    return gq__store_query(st, s->sql, &s->param, s->param ? 1 : 0, no_row, NULL, err);
}

static void exec(gq_db *db, const char *sql, const char *param)
{
    struct stmt s = {sql, param};
    gq_error err = {0, ""};

    CHECKF(gq__store_write(db->st, exec_txn, &s, &err) == GQ_OK, "%s: %s", sql, err.msg);
}

/* The queues of dws-extensions.yaml and one 1-GPU job in queue, at T0. */
static gq_db *fixture(const char *queue)
{
    gq_job_spec job = GQ_JOB_SPEC_INIT;
    gq_error err = {0, ""};
    char path[1024];
    const char *data = getenv("GQ_TEST_DATA");
    gq_db *db = NULL;

    CHECKF(gq_db_open(&db, ":memory:", NULL, &err) == GQ_OK, "%s", err.msg);
    if (!db)
        return NULL;
    set_clock(db, T0);
    snprintf(path, sizeof(path), "%s/dws-extensions.yaml", data ? data : "tests/data");
    CHECKF(gq_apply_path(db, path, NULL, NULL, NULL, &err) == GQ_OK, "%s", err.msg);
    job.name = "train";
    job.queue = queue;
    job.gpus = "1";
    job.cpu = "1";
    CHECKF(gq_job_submit(db, &job, NULL, NULL, &err) == GQ_OK, "%s", err.msg);
    return db;
}

static void schedule_once(gq_db *db)
{
    gq_error err = {0, ""};

    CHECKF(gq_schedule(db, NULL, NULL, NULL, NULL, &err) == GQ_OK, "%s", err.msg);
}

/* ---------------------------------------------------------- annotations */

static void annotations(void)
{
    static const struct {
        const char *timeout, *fallback; /* annotation values, NULL: absent */
        int64_t timeout_ms;
        int32_t fallback_after;
        const char *error; /* a part of the message, NULL: valid */
    } rows[] = {
        {NULL, NULL, 0, 0, NULL}, /* off by default */
        {"30m", NULL, 30 * MIN, 0, NULL},
        {"1h30m", "3", 90 * MIN, 3, NULL},
        {"600", "1", 600000, 1, NULL}, /* a bare number is seconds */
        {"soon", NULL, 0, 0, "gpuq.dev/provisioning-timeout: invalid value \"soon\""},
        {"0s", NULL, 0, 0, "must be a positive duration"},
        {NULL, "0", 0, 0, "gpuq.dev/flavor-fallback-after: invalid value \"0\""},
        {NULL, "2x", 0, 0, "must be an integer of at least 1"},
        {NULL, "99999999999", 0, 0, "must be an integer of at least 1"},
    };
    char doc[512], ann[200];
    struct gq_object o;
    gq_error err;
    size_t i;
    int rc;

    for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        snprintf(ann, sizeof(ann), "%s%s%s%s%s%s", rows[i].timeout ? "\"" : "",
                 rows[i].timeout ? GQ_PROVISIONING_TIMEOUT_ANNOTATION "\":\"" : "",
                 rows[i].timeout ? rows[i].timeout : "",
                 rows[i].timeout ? (rows[i].fallback ? "\"," : "\"") : "",
                 rows[i].fallback ? "\"" GQ_FLAVOR_FALLBACK_ANNOTATION "\":\"" : "",
                 rows[i].fallback ? rows[i].fallback : "");
        snprintf(doc, sizeof(doc),
                 "{\"apiVersion\":\"kueue.x-k8s.io/v1beta1\",\"kind\":"
                 "\"ProvisioningRequestConfig\",\"metadata\":{\"name\":\"c\","
                 "\"annotations\":{%s%s}},\"spec\":{\"provisioningClassName\":\"x.y\"}}",
                 ann, rows[i].fallback ? "\"" : "");
        memset(&o, 0, sizeof(o));
        memset(&err, 0, sizeof(err));
        rc = gq__manifest_load(NULL, doc, strlen(doc), "t", NULL, NULL, gq__take_object, &o, &err);
        if (rows[i].error) {
            CHECKF(rc == GQ_EINVALID && strstr(err.msg, rows[i].error), "row %zu: %s", i, err.msg);
        } else {
            CHECKF(rc == GQ_OK, "row %zu: %s", i, err.msg);
            CHECKF(o.u.prc.timeout_ms == rows[i].timeout_ms, "row %zu", i);
            CHECKF(o.u.prc.fallback_after == rows[i].fallback_after, "row %zu", i);
        }
        gq__object_clear(&o);
    }
}

/* ------------------------------------------------------------- timeout */

struct deadline {
    int64_t now, next;
};

static int deadline_txn(struct gq_store *st, void *payload, gq_error *err)
{
    struct deadline *d = payload;

    return gq__engine_provision_deadline(st, d->now, &d->next, err);
}

static int64_t deadline(gq_db *db, int64_t now)
{
    struct deadline d = {now, -1};
    gq_error err = {0, ""};

    CHECKF(gq__store_read(db->st, deadline_txn, &d, &err) == GQ_OK, "%s", err.msg);
    return d.next;
}

static void timeout_deadline(void)
{
    gq_db *db = fixture("timeout-queue");

    if (!db)
        return;
    CHECK(deadline(db, T0) == 0); /* no request yet */
    schedule_once(db);            /* reserved at T0: attempt 1 created at T0 */
    CHECK(deadline(db, T0) == T0 + 30 * MIN);
    CHECK(deadline(db, T0 + 29 * MIN) == T0 + 30 * MIN);
    CHECK(deadline(db, T0 + 30 * MIN) == 0); /* due now: the next cycle acts, nothing later */
    /* Accepted, Provisioned=False still times out; Provisioned never does. */
    exec(db, "UPDATE provisioning_requests SET status = ?1",
         "{\"conditions\":["
         "{\"type\":\"Accepted\",\"status\":\"True\"},"
         "{\"type\":\"Provisioned\",\"status\":\"False\",\"message\":\"ETA 2h\"}]}");
    CHECK(deadline(db, T0) == T0 + 30 * MIN);
    exec(db, "UPDATE provisioning_requests SET status = ?1",
         "{\"conditions\":[{\"type\":\"Provisioned\",\"status\":\"True\"}]}");
    CHECK(deadline(db, T0) == 0);
    gq_db_close(db);

    /* A queue whose config sets no timeout (the default) has no deadline. */
    if (!(db = fixture("fallback-queue")))
        return;
    exec(db,
         "UPDATE provisioning_configs SET spec = json_remove(spec, "
         "'$.metadata.annotations.\"gpuq.dev/provisioning-timeout\"')",
         NULL);
    schedule_once(db);
    CHECK(deadline(db, T0) == 0);
    gq_db_close(db);
}

static int first_row(int n, const char *const *v, void *payload)
{
    (void)n;
    snprintf(payload, 256, "%s", v[0] ? v[0] : "NULL");
    return 0;
}

static int text_txn(struct gq_store *st, void *payload, gq_error *err)
{
    char *out = payload;
    const char *sql = out + 256;

    return gq__store_query(st, sql, NULL, 0, first_row, out, err);
}

/* The first column of sql's first row, as text. */
static const char *text(gq_db *db, const char *sql)
{
    static char buf[256 + 512];
    gq_error err = {0, ""};

    buf[0] = '\0';
    snprintf(buf + 256, 512, "%s", sql);
    CHECKF(gq__store_read(db->st, text_txn, buf, &err) == GQ_OK, "%s: %s", sql, err.msg);
    return buf;
}

/* The timeout fires in the cycle that reaches it: attempt 1 retried, attempt 2 next. */
static void timeout_fires(void)
{
    static const char live[] = "SELECT group_concat(attempt) FROM provisioning_requests "
                               "WHERE deleted_at IS NULL";
    static const char check[] = "SELECT state || '/' || retry_count || ' ' || message "
                                "FROM workload_checks";
    gq_db *db = fixture("timeout-queue");

    if (!db)
        return;
    schedule_once(db);
    set_clock(db, T0 + 30 * MIN - 1);
    schedule_once(db);
    CHECK(deadline(db, T0 + 30 * MIN - 1) == T0 + 30 * MIN); /* still live */
    set_clock(db, T0 + 30 * MIN);
    CHECK_STR(text(db, live), "1");
    schedule_once(db); /* evicted, backoff 60 s, the request deleted */
    CHECK_STR(text(db, live), "NULL");
    CHECK_STR(text(db, check), "Pending/1 Reset to Pending after eviction. Previously: Retry");
    CHECK_STR(text(db, "SELECT message = 'Evicted due to AdmissionCheck in Retry state: "
                       "Retrying after timeout: ProvisioningRequest ' || name || "
                       "'-timeout-prov-1 not provisioned within 30m' FROM workloads"),
              "1");
    CHECK(deadline(db, T0 + 30 * MIN) == 0);
    set_clock(db, T0 + 31 * MIN);
    schedule_once(db); /* reserved again: attempt 2, created now */
    CHECK_STR(text(db, live), "2");
    CHECK(deadline(db, T0 + 31 * MIN) == T0 + 61 * MIN);
    gq_db_close(db);
}

/* ------------------------------------------------------------ fallback */

struct cycle {
    struct gq_snapshot s;
    struct gq_decisions d;
    bool loaded;
};

static int cycle_txn(struct gq_store *st, void *payload, gq_error *err)
{
    struct cycle *c = payload;
    int rc = gq__engine_load(&c->s, st, err);

    c->loaded = rc == GQ_OK;
    if (rc == GQ_OK && gq__admit_cycle(&c->s, T0, &c->d) < 0)
        rc = GQ_ENOMEM;
    return rc;
}

/* A cycle on the snapshot as loaded: the flavor the workload's GPUs got, or "". */
static const char *assigned(gq_db *db, struct cycle *c)
{
    const struct gq_snap_wl *wl;
    gq_error err = {0, ""};
    size_t j;

    memset(c, 0, sizeof(*c));
    CHECKF(gq__store_read(db->st, cycle_txn, c, &err) == GQ_OK, "%s", err.msg);
    if (!c->loaded || c->s.nwls != 1)
        return "";
    wl = &c->s.wls[0];
    for (j = 0; wl->nps && j < wl->ps[0].nres; j++)
        if (wl->ps[0].adm_flavor[j] >= 0 && wl->state != GQ_WS_PENDING)
            return c->s.flavors[wl->ps[0].adm_flavor[j]].name;
    return "";
}

static void cycle_free(struct cycle *c)
{
    if (c->loaded)
        gq__snapshot_free(&c->s);
    gq__decisions_free(&c->d);
}

static int32_t failed_in(const struct gq_snapshot *s, const char *flavor)
{
    int f = gq__intern_find(&s->flavor_names, flavor);

    return f >= 0 && s->wls[0].failed ? s->wls[0].failed[f] : 0;
}

static void fallback_assign(void)
{
    static const struct {
        const char *failed; /* workloads.failed_flavors */
        const char *want;   /* the flavor assigned */
    } rows[] = {
        {NULL, "dws-a"},
        {"{\"dws-a\":1}", "dws-a"},
        {"{\"dws-a\":2}", "dws-b"}, /* reached fallback-after: skipped */
        {"{\"dws-a\":5}", "dws-b"},
        {"{\"dws-b\":2}", "dws-a"},
        {"{\"dws-a\":2,\"dws-b\":1}", "dws-b"},
        {"{\"dws-a\":2,\"dws-b\":2}", "dws-a"}, /* every flavor skipped: wraps around */
        {"{\"gone\":3,\"dws-a\":2}", "dws-b"},  /* a flavor no queue names is ignored */
    };
    struct cycle c;
    size_t i;

    for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        gq_db *db = fixture("fallback-queue");

        if (!db)
            return;
        exec(db, "UPDATE workloads SET failed_flavors = ?1", rows[i].failed);
        CHECKF(strcmp(assigned(db, &c), rows[i].want) == 0, "row %zu: got %s, want %s", i,
               assigned(db, &c), rows[i].want);
        cycle_free(&c);
        gq_db_close(db);
    }
}

/* The counts the engine keeps: one per failed attempt, per flavor held; forgotten at the end. */
static void fallback_count(void)
{
    gq_db *db = fixture("fallback-queue");
    const struct gq_admission_check_ref *check;
    struct cycle c;
    int a, b;

    if (!db)
        return;
    exec(db, "UPDATE workloads SET failed_flavors = ?1", "{\"dws-a\":2,\"dws-b\":1}");
    CHECK(strcmp(assigned(db, &c), "dws-b") == 0); /* reserved in dws-b in memory */
    if (!c.loaded || c.s.nwls != 1)
        return;
    a = gq__intern_find(&c.s.flavor_names, "dws-a");
    b = gq__intern_find(&c.s.flavor_names, "dws-b");
    CHECK(c.s.cqs[c.s.wls[0].cq].fallback_after[a] == 2);
    CHECK(c.s.cqs[c.s.wls[0].cq].fallback_after[b] == 2);
    check = &c.s.cqs[c.s.wls[0].cq].checks[0];
    CHECK(failed_in(&c.s, "dws-a") == 2 && failed_in(&c.s, "dws-b") == 1);
    /* dws-b reaches 2 too: every flavor of the group is used up, all is forgotten. */
    CHECK(gq__fallback_count(&c.s, 0, check) == 1);
    CHECK(failed_in(&c.s, "dws-a") == 0 && failed_in(&c.s, "dws-b") == 0);
    /* Counted once per flavor, not per resource (cpu and GPU share dws-b). */
    CHECK(gq__fallback_count(&c.s, 0, check) == 1);
    CHECK(failed_in(&c.s, "dws-a") == 0 && failed_in(&c.s, "dws-b") == 1);
    cycle_free(&c);
    gq_db_close(db);

    /* Without the annotation nothing is counted (Kueue's behaviour). */
    if (!(db = fixture("timeout-queue")))
        return;
    CHECK(strcmp(assigned(db, &c), "dws-a") == 0);
    if (c.loaded && c.s.nwls == 1) {
        CHECK(c.s.cqs[c.s.wls[0].cq].fallback_after == NULL);
        CHECK(gq__fallback_count(&c.s, 0, &c.s.cqs[c.s.wls[0].cq].checks[0]) == 0);
        CHECK(c.s.wls[0].failed == NULL);
    }
    cycle_free(&c);
    gq_db_close(db);
}

int main(void)
{
    TEST_RUN(annotations);
    TEST_RUN(timeout_deadline);
    TEST_RUN(timeout_fires);
    TEST_RUN(fallback_assign);
    TEST_RUN(fallback_count);
    return TEST_DONE();
}
