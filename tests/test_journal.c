/*
 * test_journal.c: the admission engine's journal (store_journal.c,
 * schema/0012_journal.sql) on a real database file. Rows appended as the
 * engine appends them (gq__store_write_journaled) change nothing in
 * workloads or usage until folded; gq__store_read, gq__store_write and a
 * read outside a transaction fold them first; a workload's rows apply in
 * order (a reason after a reason keeps the last, a reason for a workload that
 * no longer waits is passed over); a reserve that no longer applies and usage
 * text that does not read are damage, and the fold rolls back whole; a
 * read-only connection reads the tables as the last fold left them.
 *
 * "Raw" reads look at the tables inside a transaction of the engine's kind,
 * where nothing folds, so they see what is on disk, journal included.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store.h"
#include "store_int.h"
#include "test.h"
#include "wl_fixture.h"

static const char ADM[] =
    "{\"clusterQueue\":\"research\",\"podSetAssignments\":[{\"name\":\"main\","
    "\"flavors\":{\"nvidia.com/gpu\":\"a100\"},\"resourceUsage\":"
    "{\"nvidia.com/gpu\":\"6\",\"cpu\":\"3\"},\"count\":3}]}";

/* ------------------------------------------------------------- the file */

struct scratch {
    char dir[32], path[96];
    struct gq_store *st;
};

static void scratch_open(struct scratch *s)
{
    gq_error err = {0, ""};

    snprintf(s->dir, sizeof(s->dir), "/tmp/gq_journal_XXXXXX");
    s->st = NULL;
    CHECK(mkdtemp(s->dir) != NULL);
    snprintf(s->path, sizeof(s->path), "%s/g.db", s->dir);
    CHECKF(gq__store_open(&s->st, s->path, NULL, &err) == GQ_OK, "%s", err.msg);
}

static void scratch_close(struct scratch *s)
{
    char f[128];

    gq__store_close(s->st);
    unlink(s->path);
    snprintf(f, sizeof(f), "%s-wal", s->path);
    unlink(f);
    snprintf(f, sizeof(f), "%s-shm", s->path);
    unlink(f);
    rmdir(s->dir);
}

/* ---------------------------------------------------------------- reads */

/* Every row of a query: columns joined by '|', rows by ';', NULL as "NULL". */
struct rows {
    char text[1024];
};

static int cat_row(int n, const char *const *v, void *payload)
{
    struct rows *r = payload;
    size_t len = strlen(r->text);
    int i;

    for (i = 0; i < n; i++)
        len += (size_t)snprintf(r->text + len, sizeof(r->text) - len, "%s%s",
                                i ? "|" : (len ? ";" : ""), v[i] ? v[i] : "NULL");
    return 0;
}

struct read_args {
    const char *sql, *param;
    struct rows out;
};

static int read_txn(struct gq_store *st, void *payload, gq_error *err)
{
    struct read_args *a = payload;

    a->out.text[0] = '\0';
    return gq__store_query(st, a->sql, &a->param, a->param ? 1 : 0, cat_row, &a->out, err);
}

/* What is on disk: read inside a transaction that does not fold. */
static const char *raw(struct gq_store *st, const char *sql, const char *param)
{
    static struct read_args a;
    gq_error err = {0, ""};

    a.sql = sql;
    a.param = param;
    CHECKF(gq__store_write_journaled(st, read_txn, &a, &err) == GQ_OK, "%s: %s", sql, err.msg);
    return a.out.text;
}

/* A query as any reader runs it, outside a transaction. */
static const char *query(struct gq_store *st, const char *sql, const char *param)
{
    static struct read_args a;
    gq_error err = {0, ""};

    a.sql = sql;
    a.param = param;
    CHECKF(read_txn(st, &a, &err) == GQ_OK, "%s: %s", sql, err.msg);
    return a.out.text;
}

static const char *journal_count(struct gq_store *st)
{
    return raw(st, "SELECT count(*) FROM journal", NULL);
}

static const char *state_of(struct gq_store *st, const char *id)
{
    return raw(st, "SELECT state || '|' || coalesce(reason, 'NULL') FROM workloads WHERE id = ?1",
               id);
}

static const char *usage_of(struct gq_store *st, const char *id)
{
    return raw(st,
               "SELECT cluster_queue, flavor, resource, amount FROM usage "
               "WHERE workload_id = ?1 ORDER BY resource",
               id);
}

static int nothing(struct gq_store *st, void *payload, gq_error *err)
{
    (void)st;
    (void)payload;
    (void)err;
    return GQ_OK;
}

/* ------------------------------------------------------------ workloads */

static int insert_txn(struct gq_store *st, void *payload, gq_error *err)
{
    return gq__store_insert_workload(st, payload, err);
}

/*
 * A workload of job `name` in state pending, or admitted to "research" when
 * imported so; its id as text into id (and as a number, returned).
 */
static int64_t workload(struct gq_store *st, const char *name, bool admitted, char *id, size_t size)
{
    struct wl_fixture f;
    struct gq_wl_write w;
    gq_error err = {0, ""};
    char uid[64], wname[64];

    job(&f, name, admitted ? "research" : NULL);
    snprintf(uid, sizeof(uid), "uid-%s", name);
    snprintf(wname, sizeof(wname), "job-%s-bcdfg", name);
    memset(&w, 0, sizeof(w));
    w.obj = &f.obj;
    w.uid = uid;
    w.name = wname;
    w.spec = "{}";
    w.state = admitted ? "admitted" : "pending";
    w.now_ms = 1000;
    CHECKF(gq__store_write(st, insert_txn, &w, &err) == GQ_OK, "%s", err.msg);
    snprintf(id, size, "%s", raw(st, "SELECT id FROM workloads WHERE uid = ?1", uid));
    return strtoll(id, NULL, 10);
}

/* ------------------------------------------------------ the engine's rows */

enum { RESERVE, EVICT, REASON };

struct jop {
    int op;
    int64_t id;
    const char *reason, *message;
    int64_t at;
};

static const struct gq_reserve_use USE[] = {
    {"a100", "nvidia.com/gpu", 6},
    {"a100", "cpu", 3000},
};

static int append_txn(struct gq_store *st, void *payload, gq_error *err)
{
    const struct jop *j = payload;
    struct gq_reserve r = {j->id, "admitted", "research", ADM, USE, 2, j->at};

    switch (j->op) {
    case RESERVE:
        return gq__store_journal_reserve(st, &r, err);
    case EVICT:
        return gq__store_journal_evict(st, j->id, j->reason, j->message, "InClusterQueue", 5000,
                                       j->at, err);
    default:
        return gq__store_journal_reason(st, j->id, j->reason, j->message, j->at, err);
    }
}

/* One decision appended in a cycle's transaction of its own, as the engine does. */
static void
append(struct gq_store *st, int op, int64_t id, const char *reason, const char *message, int64_t at)
{
    struct jop j = {op, id, reason, message, at};
    gq_error err = {0, ""};

    CHECKF(gq__store_write_journaled(st, append_txn, &j, &err) == GQ_OK, "%s", err.msg);
}

/* ----------------------------------------------------------------- tests */

static int state_in_read(struct gq_store *st, void *payload, gq_error *err)
{
    struct read_args *a = payload;

    a->sql = "SELECT state FROM workloads WHERE id = ?1";
    return read_txn(st, a, err);
}

/* Nothing changes until a fold; every reader and writer folds first. */
static void folded_before_reads_and_writes(void)
{
    struct scratch s;
    struct read_args in_read;
    char a[24], b[24];
    gq_error err = {0, ""};
    int64_t ia, ib;

    scratch_open(&s);
    ia = workload(s.st, "a", false, a, sizeof(a));
    ib = workload(s.st, "b", false, b, sizeof(b));
    append(s.st, RESERVE, ia, NULL, NULL, 2000);
    append(s.st, REASON, ib, "Pending", "waits for quota", 2000);
    CHECK_STR(journal_count(s.st), "2");
    CHECK_STR(state_of(s.st, a), "pending|NULL");
    CHECK_STR(usage_of(s.st, a), "");
    CHECK_STR(state_of(s.st, b), "pending|NULL");

    /* gq__store_read: its function already sees the decisions. */
    in_read.param = a;
    CHECKF(gq__store_read(s.st, state_in_read, &in_read, &err) == GQ_OK, "%s", err.msg);
    CHECK_STR(in_read.out.text, "admitted");
    CHECK_STR(journal_count(s.st), "0");
    CHECK_STR(state_of(s.st, a), "admitted|NULL");
    CHECK_STR(usage_of(s.st, a), "research|a100|cpu|3000;research|a100|nvidia.com/gpu|6");
    CHECK_STR(state_of(s.st, b), "pending|Pending");

    /* gq__store_write folds before its function runs. */
    append(s.st, REASON, ib, "Later", "still waits", 3000);
    CHECK_STR(state_of(s.st, b), "pending|Pending");
    CHECKF(gq__store_write(s.st, nothing, NULL, &err) == GQ_OK, "%s", err.msg);
    CHECK_STR(journal_count(s.st), "0");
    CHECK_STR(state_of(s.st, b), "pending|Later");

    /* A query outside any transaction folds too (gq__store_fold_before_read). */
    append(s.st, REASON, ib, "Third", "waits again", 4000);
    CHECK_STR(state_of(s.st, b), "pending|Later");
    CHECK_STR(query(s.st, "SELECT reason FROM workloads WHERE id = ?1", b), "Third");
    CHECK_STR(journal_count(s.st), "0");
    scratch_close(&s);
}

/* A workload's rows apply in the order they were written, workloads interleaved. */
static void order_per_workload(void)
{
    struct scratch s;
    char a[24], b[24], c[24], d[24], e[24];
    gq_error err = {0, ""};
    int64_t ia, ib, ic, id, ie;

    scratch_open(&s);
    ia = workload(s.st, "a", false, a, sizeof(a));
    ib = workload(s.st, "b", false, b, sizeof(b));
    ic = workload(s.st, "c", false, c, sizeof(c));
    id = workload(s.st, "d", false, d, sizeof(d));
    ie = workload(s.st, "e", true, e, sizeof(e));
    append(s.st, RESERVE, ia, NULL, NULL, 2000);
    append(s.st, REASON, ic, "First", "one", 2000);
    append(s.st, RESERVE, ib, NULL, NULL, 2100);
    append(s.st, EVICT, ia, "Preempted", "made room", 3000);
    append(s.st, REASON, ic, "Second", "two", 3000);
    append(s.st, RESERVE, id, NULL, NULL, 3000);
    append(s.st, REASON, ia, "Waiting", "after its eviction", 3500);
    append(s.st, REASON, id, "Late", "no longer waits", 3600); /* d holds quota by now */
    append(s.st, REASON, ie, "Stray", "e never waited", 3600); /* e was admitted all along */
    CHECK_STR(journal_count(s.st), "9");
    CHECK_STR(raw(s.st, "SELECT count(*) FROM workloads WHERE state = 'pending'", NULL), "4");
    CHECK_STR(raw(s.st, "SELECT count(*) FROM usage", NULL), "1"); /* e's, imported */

    CHECKF(gq__store_read(s.st, nothing, NULL, &err) == GQ_OK, "%s", err.msg);
    CHECK_STR(journal_count(s.st), "0");
    /* reserve, evict, reason: pending again with the last reason, no usage. */
    CHECK_STR(raw(s.st,
                  "SELECT state, reason, message, evicted_reason, evicted_message, "
                  "preempted_reason, evictions, evicted_at, requeue_at, "
                  "coalesce(admission, 'NULL'), coalesce(reserved_at, 'NULL') "
                  "FROM workloads WHERE id = ?1",
                  a),
              "pending|Waiting|after its eviction|Preempted|made room|InClusterQueue|1|3000|5000|"
              "NULL|NULL");
    CHECK_STR(usage_of(s.st, a), "");
    /* reserve: the admission, the queue, usage equal to the amounts reserved. */
    CHECK_STR(raw(s.st,
                  "SELECT state, cluster_queue, coalesce(reason, 'NULL'), reserved_at, admitted_at "
                  "FROM workloads WHERE id = ?1",
                  b),
              "admitted|research|NULL|2100|2100");
    CHECK_STR(raw(s.st, "SELECT admission FROM workloads WHERE id = ?1", b), ADM);
    CHECK_STR(usage_of(s.st, b), "research|a100|cpu|3000;research|a100|nvidia.com/gpu|6");
    /* reason, reason: the last one. */
    CHECK_STR(raw(s.st, "SELECT state, reason, message FROM workloads WHERE id = ?1", c),
              "pending|Second|two");
    /* A reason for a workload no longer pending when folded is passed over. */
    CHECK_STR(state_of(s.st, d), "admitted|NULL");
    CHECK_STR(usage_of(s.st, d), "research|a100|cpu|3000;research|a100|nvidia.com/gpu|6");
    CHECK_STR(state_of(s.st, e), "admitted|NULL");
    CHECK_STR(usage_of(s.st, e), "research|a100|nvidia.com/gpu|6");
    CHECK_STR(raw(s.st, "SELECT count(*) FROM usage", NULL), "5");
    scratch_close(&s);
}

/* A reserve for a workload that no longer waits: damage, and nothing of the fold stays. */
static void reserve_not_pending(void)
{
    struct scratch s;
    char a[24], e[24];
    gq_error err = {0, ""};
    int64_t ia, ie;
    int rc;

    scratch_open(&s);
    ia = workload(s.st, "a", false, a, sizeof(a));
    ie = workload(s.st, "e", true, e, sizeof(e));
    append(s.st, REASON, ia, "Pending", "folded first, then rolled back", 2000);
    append(s.st, RESERVE, ie, NULL, NULL, 2000);
    rc = gq__store_read(s.st, nothing, NULL, &err);
    CHECKF(rc == GQ_EIO, "rc %d: %s", rc, err.msg);
    CHECKF(strncmp(err.msg, "database ", 9) == 0 && strstr(err.msg, s.path) &&
               strstr(err.msg, "is damaged (the journal does not apply: workload ") &&
               strstr(err.msg, " changed while it was being scheduled); run gpuqd --check"),
           "%s", err.msg);
    /* The fold's transaction rolled back: a's reason is not applied, the journal is whole. */
    CHECK_STR(journal_count(s.st), "2");
    CHECK_STR(state_of(s.st, a), "pending|NULL");
    CHECK_STR(usage_of(s.st, e), "research|a100|nvidia.com/gpu|6");
    /* A writer meets the same damage and writes nothing. */
    err.msg[0] = '\0';
    CHECK(gq__store_write(s.st, nothing, NULL, &err) == GQ_EIO);
    CHECKF(strstr(err.msg, "the journal does not apply") != NULL, "%s", err.msg);
    CHECK_STR(journal_count(s.st), "2");
    scratch_close(&s);
}

/* Usage text a reserve row cannot have been written with: damage naming the row. */
static const char *const bad_usage[] = {
    "a100\tnvidia.com/gpu\t6",     /* no newline */
    "a100\tnvidia.com/gpu\tsix\n", /* not a number */
    "a100\tnvidia.com/gpu\t\n",    /* no number */
    "a100 nvidia.com/gpu 6\n",     /* no tabs */
    "a100\tnvidia.com/gpu\n",      /* one tab */
    "a100\tnvidia.com/gpu\t6x\n",  /* trailing text */
};

struct bad_row {
    const char *params[2];
};

static int bad_txn(struct gq_store *st, void *payload, gq_error *err)
{
    struct bad_row *b = payload;
    struct rows ignored = {""};

    return gq__store_query(st,
                           "INSERT INTO journal(workload_id, op, at, state, cluster_queue, "
                           "admission, usage) VALUES (?1, 1, 2000, 'admitted', 'research', "
                           "'{}', ?2)",
                           b->params, 2, cat_row, &ignored, err);
}

static int clear_txn(struct gq_store *st, void *payload, gq_error *err)
{
    struct rows ignored = {""};

    (void)payload;
    return gq__store_query(st, "DELETE FROM journal", NULL, 0, cat_row, &ignored, err);
}

static void unreadable_usage(void)
{
    struct scratch s;
    char a[24], want[64];
    gq_error err = {0, ""};
    size_t i;
    int rc;

    scratch_open(&s);
    workload(s.st, "a", false, a, sizeof(a));
    for (i = 0; i < sizeof(bad_usage) / sizeof(bad_usage[0]); i++) {
        struct bad_row b = {{a, bad_usage[i]}};

        CHECKF(gq__store_write_journaled(s.st, bad_txn, &b, &err) == GQ_OK, "%s", err.msg);
        snprintf(want, sizeof(want), "is damaged (journal row %s: usage does not read)",
                 raw(s.st, "SELECT seq FROM journal", NULL));
        err.msg[0] = '\0';
        rc = gq__store_read(s.st, nothing, NULL, &err);
        CHECKF(rc == GQ_EIO && strstr(err.msg, want), "row %zu: rc %d: %s", i, rc, err.msg);
        CHECKF(strcmp(journal_count(s.st), "1") == 0, "row %zu", i);
        CHECKF(strcmp(state_of(s.st, a), "pending|NULL") == 0, "row %zu", i);
        CHECKF(strcmp(usage_of(s.st, a), "") == 0, "row %zu", i);
        CHECKF(gq__store_write_journaled(s.st, clear_txn, NULL, &err) == GQ_OK, "%s", err.msg);
    }
    /* The same row, readable, folds. */
    {
        struct bad_row b = {{a, "a100\tnvidia.com/gpu\t6\n"}};

        CHECKF(gq__store_write_journaled(s.st, bad_txn, &b, &err) == GQ_OK, "%s", err.msg);
        CHECKF(gq__store_read(s.st, nothing, NULL, &err) == GQ_OK, "%s", err.msg);
        CHECK_STR(usage_of(s.st, a), "research|a100|nvidia.com/gpu|6");
        CHECK_STR(journal_count(s.st), "0");
    }
    scratch_close(&s);
}

/* A read-only connection cannot fold: it reads the tables as the last fold left them. */
static void readonly_reader(void)
{
    struct gq_store_options ro = {0, true};
    struct gq_store *r = NULL;
    struct read_args in_read;
    struct scratch s;
    char a[24], b[24];
    gq_error err = {0, ""};
    int64_t ia, ib;

    scratch_open(&s);
    ia = workload(s.st, "a", false, a, sizeof(a));
    ib = workload(s.st, "b", false, b, sizeof(b));
    append(s.st, RESERVE, ib, NULL, NULL, 1500);
    CHECKF(gq__store_read(s.st, nothing, NULL, &err) == GQ_OK, "%s", err.msg); /* b folded */
    append(s.st, RESERVE, ia, NULL, NULL, 2000);
    append(s.st, REASON, ia, "Stray", "after the reserve", 2000);
    CHECK_STR(journal_count(s.st), "2");

    CHECKF(gq__store_open(&r, s.path, &ro, &err) == GQ_OK, "%s", err.msg);
    if (r) {
        in_read.param = a;
        CHECKF(gq__store_read(r, state_in_read, &in_read, &err) == GQ_OK, "%s", err.msg);
        CHECK_STR(in_read.out.text, "pending");
        in_read.param = b;
        CHECKF(gq__store_read(r, state_in_read, &in_read, &err) == GQ_OK, "%s", err.msg);
        CHECK_STR(in_read.out.text, "admitted");
        CHECK_STR(query(r, "SELECT count(*) FROM usage WHERE workload_id = ?1", a), "0");
        CHECK_STR(query(r, "SELECT count(*) FROM journal", NULL), "2");
        /* Once a writer folds, the reader sees the decisions. */
        CHECKF(gq__store_write(s.st, nothing, NULL, &err) == GQ_OK, "%s", err.msg);
        CHECK_STR(query(r, "SELECT state FROM workloads WHERE id = ?1", a), "admitted");
        CHECK_STR(query(r, "SELECT count(*) FROM usage WHERE workload_id = ?1", a), "2");
        CHECK_STR(query(r, "SELECT count(*) FROM journal", NULL), "0");
        gq__store_close(r);
    }
    scratch_close(&s);
}

int main(void)
{
    TEST_RUN(folded_before_reads_and_writes);
    TEST_RUN(order_per_workload);
    TEST_RUN(reserve_not_pending);
    TEST_RUN(unreadable_usage);
    TEST_RUN(readonly_reader);
    return TEST_DONE();
}
