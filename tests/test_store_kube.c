/*
 * test_store_kube.c: the record of writes the API server refused, against a
 * real ":memory:" database and virtual time (now_ms is an argument): the
 * backoff doubles from 1 s to 5 min, the first refusal of a run stays its
 * start, a success forgets the run, and a bare-text record of an older gpuqd
 * counts as none.
 */
#include <stdio.h>
#include <string.h>

#include "store.h"
#include "store_int.h"
#include "test.h"

static struct gq_store *open_mem(void)
{
    struct gq_store *st = NULL;
    gq_error err = {0, ""};

    CHECKF(gq__store_open(&st, ":memory:", NULL, &err) == GQ_OK, "%s", err.msg);
    return st;
}

static void exec(struct gq_store *st, const char *sql)
{
    gq_error err = {0, ""};

    CHECKF(gq__store_query(st, sql, NULL, 0, NULL, NULL, &err) == GQ_OK, "%s: %s", sql, err.msg);
}

static int text_cb(int n, const char *const *v, void *payload)
{
    (void)n;
    snprintf(payload, 256, "%s", v[0] ? v[0] : "NULL");
    return 0;
}

static const char *query1(struct gq_store *st, const char *sql)
{
    static char out[256];
    gq_error err = {0, ""};

    out[0] = '\0';
    CHECKF(gq__store_query(st, sql, NULL, 0, text_cb, out, &err) == GQ_OK, "%s", err.msg);
    return out;
}

static struct gq_store *one_workload(void)
{
    struct gq_store *st = open_mem();

    exec(st, "INSERT INTO workloads (id, uid, namespace, name, job_kind, job_name, state, pods, "
             "podsets, spec, queued_at, created_at, updated_at, job_rv) VALUES (1, 'u1', "
             "'default', 'job-a-12345', 'Job', 'a', 'admitted', 1, '[]', '{}', 0, 0, 0, '7')");
    return st;
}

static struct gq_kube_refusal refuse(struct gq_store *st, int64_t now_ms)
{
    struct gq_kube_refusal f = {"ReleaseRefused", "PATCH job default/a: 403 Forbidden", now_ms, 0,
                                0};
    gq_error err = {0, ""};

    CHECKF(gq__store_kube_refused(st, 1, &f, &err) == GQ_OK, "%s", err.msg);
    return f;
}

/* The wait after each refusal in a row, refused the moment each wait ends. */
static void backoff_doubles_to_a_cap(void)
{
    static const int64_t waits_s[] = {1, 2, 4, 8, 16, 32, 64, 128, 256, 300, 300, 300};
    struct gq_store *st = one_workload();
    int64_t now = 1000000;
    size_t i;

    for (i = 0; i < sizeof(waits_s) / sizeof(*waits_s); i++) {
        struct gq_kube_refusal f = refuse(st, now);

        CHECKF(f.tries == (int)i + 1, "row %zu: tries %d", i, f.tries);
        CHECKF(f.retry_at - now == waits_s[i] * 1000, "row %zu: waits %lld ms", i,
               (long long)(f.retry_at - now));
        now = f.retry_at;
    }
    /* The run started at the first refusal; the Job's resourceVersion is kept for the outbox. */
    CHECK_STR(query1(st, "SELECT json_extract(kube_error, '$.since') FROM workloads"), "1000000");
    CHECK_STR(query1(st, "SELECT json_extract(kube_error, '$.reason') || ' ' || kube_error_rv "
                         "FROM workloads"),
              "ReleaseRefused 7");
    gq__store_close(st);
}

static void success_forgets_the_run(void)
{
    struct gq_store *st = one_workload();
    gq_error err = {0, ""};
    struct gq_kube_refusal f;

    refuse(st, 5000);
    refuse(st, 6000);
    CHECK(gq__store_kube_cleared(st, 1, &err) == GQ_OK);
    CHECK_STR(query1(st, "SELECT coalesce(kube_error, 'none') FROM workloads"), "none");
    f = refuse(st, 90000);
    CHECK(f.tries == 1 && f.retry_at == 91000);
    CHECK_STR(query1(st, "SELECT json_extract(kube_error, '$.since') FROM workloads"), "90000");
    gq__store_close(st);
}

/* An older gpuqd parked the row with a bare message: read as no record, a fresh run. */
static void bare_text_is_no_record(void)
{
    struct gq_store *st = one_workload();
    struct gq_kube_refusal f;

    exec(st, "UPDATE workloads SET kube_error = 'PATCH job default/a: 422 Invalid', "
             "kube_error_rv = '7'");
    f = refuse(st, 2000);
    CHECK(f.tries == 1 && f.retry_at == 3000);
    gq__store_close(st);
}

int main(void)
{
    TEST_RUN(backoff_doubles_to_a_cap);
    TEST_RUN(success_forgets_the_run);
    TEST_RUN(bare_text_is_no_record);
    return TEST_DONE();
}
