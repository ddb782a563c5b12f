/*
 * test_state.c: the workload states (lib/core/state.h) and the column that
 * stores them. The text table and its parser; every named set's SQL list is
 * its mask's members, in the enum's order; and schema/0013_state_check.sql
 * on a real file: a database at version 12 with a row in every state, and
 * rows that refer to them, migrates to the CHECK with its rows, columns,
 * indexes and references as they were, after which a state outside the
 * table is refused on INSERT and on UPDATE.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "state.h"
#include "store.h"
#include "store_int.h"
#include "store_migrations.h"
#include "test.h"

/* ---------------------------------------------------------------- table */

static void names(void)
{
    static const char *const want[] = {"pending",  "reserved", "admitted",    "running",
                                       "finished", "evicted",  "deactivated", "cancelled"};
    enum gq_wl_state s;
    int i;

    CHECK(GQ_WL_NSTATES == 8);
    for (i = 0; i < GQ_WL_NSTATES; i++) {
        CHECK_STR(gq__wl_state_name((enum gq_wl_state)i), want[i]);
        s = GQ_WL_NSTATES;
        CHECKF(gq__wl_state_parse(want[i], &s) && s == (enum gq_wl_state)i, "%s", want[i]);
    }
    CHECK(gq__wl_state_name(GQ_WL_NSTATES) == NULL);
    s = GQ_WL_RUNNING;
    CHECK(!gq__wl_state_parse("Pending", &s) && s == GQ_WL_RUNNING); /* case matters */
    CHECK(!gq__wl_state_parse("pendin", &s) && !gq__wl_state_parse("pendings", &s));
    CHECK(!gq__wl_state_parse("", &s) && !gq__wl_state_parse(NULL, &s));
    CHECK(!gq__wl_state_parse("quotareserved", &s) && s == GQ_WL_RUNNING);
    CHECK_STR(GQ_SQL_STATE(pending), "'pending'");
    CHECK_STR("state = " GQ_SQL_STATE(deactivated), "state = 'deactivated'");
}

/* "('a', 'b')" for the members of mask, in the enum's order. */
static const char *sql_of(unsigned mask)
{
    static char buf[256];
    size_t n = 0;
    int i;

    buf[n++] = '(';
    for (i = 0; i < GQ_WL_NSTATES; i++)
        if (mask & (1u << i))
            n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s'%s'", n > 1 ? ", " : "",
                                  gq__wl_state_name((enum gq_wl_state)i));
    snprintf(buf + n, sizeof(buf) - n, ")");
    return buf;
}

static void sets(void)
{
    static const struct {
        const char *name;
        unsigned mask;
        const char *sql;
        const char *want; /* as the statements spelt it before state.h */
    } rows[] = {
        {"holds quota", GQ_WL_HOLDS_QUOTA, GQ_SQL_HOLDS_QUOTA,
         "('reserved', 'admitted', 'running')"},
        {"admitted", GQ_WL_ADMITTED_SET, GQ_SQL_ADMITTED, "('admitted', 'running')"},
        {"in admission", GQ_WL_IN_ADMISSION, GQ_SQL_IN_ADMISSION,
         "('pending', 'reserved', 'admitted', 'running')"},
        {"awaiting admission", GQ_WL_AWAITING_ADMISSION, GQ_SQL_AWAITING_ADMISSION,
         "('pending', 'reserved')"},
        {"let go", GQ_WL_LET_GO, GQ_SQL_LET_GO, "('pending', 'deactivated')"},
        {"was admitted", GQ_WL_WAS_ADMITTED, GQ_SQL_WAS_ADMITTED,
         "('admitted', 'running', 'finished')"},
        {"job live", GQ_WL_JOB_LIVE, GQ_SQL_JOB_LIVE,
         "('pending', 'reserved', 'admitted', 'running', 'deactivated')"},
        {"cancellable", GQ_WL_CANCELLABLE, GQ_SQL_CANCELLABLE,
         "('pending', 'reserved', 'admitted', 'running', 'evicted', 'deactivated')"},
        {"event to", GQ_WL_EVENT_TO, GQ_SQL_EVENT_TO,
         "('pending', 'reserved', 'admitted', 'running', 'finished', 'deactivated', 'cancelled')"},
    };
    size_t i;

    for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        CHECKF(strcmp(rows[i].sql, sql_of(rows[i].mask)) == 0, "%s: %s against its mask %s",
               rows[i].name, rows[i].sql, sql_of(rows[i].mask));
        CHECKF(strcmp(rows[i].sql, rows[i].want) == 0, "%s: %s", rows[i].name, rows[i].sql);
    }
    CHECK(gq__wl_holds_quota(GQ_WL_RESERVED) && gq__wl_holds_quota(GQ_WL_RUNNING));
    CHECK(!gq__wl_holds_quota(GQ_WL_PENDING) && !gq__wl_holds_quota(GQ_WL_FINISHED));
    CHECK(gq__wl_is_admitted(GQ_WL_ADMITTED) && gq__wl_is_admitted(GQ_WL_RUNNING));
    CHECK(!gq__wl_is_admitted(GQ_WL_RESERVED));
}

/* ------------------------------------------------------------ migration */

struct text {
    char buf[65536];
    size_t len;
};

/* Every row of sql, every column as text ("NULL" for NULL), one line a row. */
static const char *dump(sqlite3 *db, const char *sql, struct text *t)
{
    sqlite3_stmt *stmt = NULL;
    int i, rc;

    t->len = 0;
    t->buf[0] = '\0';
    CHECKF(sqlite3_prepare_v2(db, sql, -1, &stmt, NULL) == SQLITE_OK, "%s: %s", sql,
           sqlite3_errmsg(db));
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        for (i = 0; i < sqlite3_column_count(stmt); i++) {
            const char *v = (const char *)sqlite3_column_text(stmt, i);

            t->len += (size_t)snprintf(t->buf + t->len, sizeof(t->buf) - t->len, "%s%s",
                                       i ? "|" : "", v ? v : "NULL");
        }
        t->len += (size_t)snprintf(t->buf + t->len, sizeof(t->buf) - t->len, "\n");
        CHECK(t->len < sizeof(t->buf) - 1);
    }
    CHECKF(rc == SQLITE_DONE, "%s: %s", sql, sqlite3_errmsg(db));
    sqlite3_finalize(stmt);
    return t->buf;
}

static void exec(sqlite3 *db, const char *sql)
{
    char *msg = NULL;

    CHECKF(sqlite3_exec(db, sql, NULL, NULL, &msg) == SQLITE_OK, "%s: %s", sql,
           msg ? msg : "");
    sqlite3_free(msg);
}

/* A workload row in state (id i + 1): every NOT NULL column, and some others. */
static void put_workload(sqlite3 *db, int i, const char *state)
{
    char sql[1024];

    snprintf(sql, sizeof(sql),
             "INSERT INTO workloads(id, uid, namespace, name, job_kind, job_name, local_queue, "
             "cluster_queue, priority, state, reason, pods, podsets, gpus, spec, queued_at, "
             "created_at, updated_at, admitted_at, evictions, requeue_at, job_gone, reserved_at) "
             "VALUES (%d, 'uid-%d', 'ns', 'job-%s', 'Job', '%s', 'lq', "
             "CASE WHEN '%s' = 'pending' THEN NULL ELSE 'cq' END, %d, '%s', 'Why', 2, '[]', %d, "
             "'{}', %d, %d, %d, NULL, %d, NULL, 0, NULL)",
             i + 1, i, state, state, state, i * 10, state, i, 1000 + i, 1000 + i, 2000 + i, i);
    exec(db, sql);
}

/* A database file at schema version 12: a workload in every state, rows that refer to them. */
static void make_v12(const char *path)
{
    sqlite3 *db = NULL;
    char sql[64];
    int i;

    CHECK(gq__migration_count >= 12);
    CHECK(sqlite3_open(path, &db) == SQLITE_OK);
    exec(db, "PRAGMA foreign_keys=ON; BEGIN");
    for (i = 0; i < 12; i++)
        exec(db, gq__migrations[i].sql);
    for (i = 0; i < GQ_WL_NSTATES; i++)
        put_workload(db, i, gq__wl_state_name((enum gq_wl_state)i));
    exec(db, "INSERT INTO usage VALUES (2, 'cq', 'a100', 'nvidia.com/gpu', 2), "
             "(3, 'cq', 'a100', 'nvidia.com/gpu', 4), (4, 'cq', 'a100', 'cpu', 8000), "
             "(4, 'cq', 'a100', 'nvidia.com/gpu', 8)");
    exec(db, "INSERT INTO workload_checks(workload_id, name, state, updated_at) "
             "VALUES (2, 'prov', 'Pending', 1)");
    exec(db, "INSERT INTO provisioning_requests(id, uid, namespace, name, workload_id, "
             "check_name, attempt, class, spec, templates, created_at) "
             "VALUES (1, 'pr-uid', 'ns', 'job-reserved-prov-1', 2, 'prov', 1, 'c', '{}', '[]', 1)");
    exec(db, "INSERT INTO sim_pods(workload_id, podset, idx, gpus, created_at) "
             "VALUES (4, 'main', 0, 4, 1), (4, 'main', 1, 4, 1)");
    snprintf(sql, sizeof(sql), "COMMIT; PRAGMA user_version = %d", 12);
    exec(db, sql);
    sqlite3_close(db);
}

#define INDEXES                                                                                    \
    "SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'workloads' "        \
    "ORDER BY name"
#define COLUMNS_V12 "SELECT * FROM pragma_table_info('workloads') WHERE cid < 39 ORDER BY cid"
#define REFERRING                                                                                  \
    "SELECT (SELECT count(*) || '/' || sum(amount) FROM usage), "                                  \
    "(SELECT count(*) FROM workload_checks), (SELECT count(*) FROM provisioning_requests), "      \
    "(SELECT count(*) FROM sim_pods)"

static void migration(void)
{
    static struct text rows, indexes, columns, referring, t;
    static char rows_sql[1024], indexes_sql[1024];
    char dir[] = "/tmp/gq_state_XXXXXX", path[128], f[160];
    struct gq_store *st = NULL;
    gq_error err = {0, ""};
    sqlite3 *db = NULL;
    int i;

    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof(path), "%s/v12.db", dir);
    make_v12(path);

    CHECK(sqlite3_open(path, &db) == SQLITE_OK);
    /* Version 12's columns: later migrations (14) add columns, which this does not compare. */
    dump(db, "SELECT group_concat(name, ', ') FROM pragma_table_info('workloads')", &t);
    t.buf[strcspn(t.buf, "\n")] = '\0';
    CHECK(strlen(t.buf) < sizeof(rows_sql) - 40);
    snprintf(rows_sql, sizeof(rows_sql), "SELECT %.960s FROM workloads ORDER BY id", t.buf);
    dump(db, rows_sql, &rows);
    dump(db, INDEXES, &indexes);
    dump(db, "SELECT group_concat(quote(name), ', ') FROM sqlite_schema WHERE type = 'index' "
             "AND tbl_name = 'workloads'", &t);
    t.buf[strcspn(t.buf, "\n")] = '\0';
    CHECK(strlen(t.buf) < sizeof(indexes_sql) - 200);
    snprintf(indexes_sql, sizeof(indexes_sql),
             "SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'workloads' "
             "AND name IN (%.700s) ORDER BY name", t.buf);
    dump(db, COLUMNS_V12, &columns);
    dump(db, REFERRING, &referring);
    CHECK_STR(dump(db, "SELECT count(*) FROM workloads", &t), "8\n");
    CHECK_STR(referring.buf, "4/8014|1|1|2\n");
    sqlite3_close(db);

    /* The library's open migrates it. */
    CHECKF(gq__store_open(&st, path, NULL, &err) == GQ_OK, "%s", err.msg);
    if (!st)
        return;
    CHECK(gq__store_schema_version(st) == gq__store_schema_latest());
    CHECK(gq__store_schema_latest() >= 13);
    CHECKF(gq__store_check(st, &err) == GQ_OK, "%s", err.msg);
    gq__store_close(st);

    CHECK(sqlite3_open(path, &db) == SQLITE_OK);
    exec(db, "PRAGMA foreign_keys=ON");
    CHECK_STR(dump(db, rows_sql, &t), rows.buf);
    /* Version 12's indexes, rebuilt as they were (later migrations add others: 0018). */
    CHECK_STR(dump(db, indexes_sql, &t), indexes.buf);
    CHECK_STR(dump(db, COLUMNS_V12, &t), columns.buf);
    CHECK_STR(dump(db, REFERRING, &t), referring.buf);
    CHECK_STR(dump(db, "PRAGMA foreign_key_check", &t), "");
    CHECK_STR(dump(db, "SELECT count(*) FROM sqlite_schema WHERE name = 'new_workloads'", &t),
              "0\n");
    CHECK(strstr(dump(db, "SELECT sql FROM sqlite_schema WHERE name = 'workloads'", &t),
                 ") STRICT") != NULL);

    /* The CHECK: a state outside the table is refused, whichever statement writes it. */
    CHECK(sqlite3_exec(db,
                       "INSERT INTO workloads(uid, namespace, name, job_kind, job_name, state, "
                       "pods, podsets, spec, queued_at, created_at, updated_at) VALUES "
                       "('u-x', 'ns', 'x', 'Job', 'x', 'queued', 1, '[]', '{}', 1, 1, 1)",
                       NULL, NULL, NULL) == SQLITE_CONSTRAINT);
    CHECK(sqlite3_extended_errcode(db) == SQLITE_CONSTRAINT_CHECK);
    CHECK(sqlite3_exec(db, "UPDATE workloads SET state = 'Pending' WHERE id = 1", NULL, NULL,
                       NULL) == SQLITE_CONSTRAINT);
    CHECK(sqlite3_extended_errcode(db) == SQLITE_CONSTRAINT_CHECK);
    CHECK_STR(dump(db, "SELECT state FROM workloads WHERE id = 1", &t), "pending\n");
    /* Every state of the table passes it; the indexes still hold (a live name is unique). */
    for (i = 0; i < GQ_WL_NSTATES; i++) {
        char sql[160];

        snprintf(sql, sizeof(sql), "UPDATE workloads SET state = '%s' WHERE id = 1",
                 gq__wl_state_name((enum gq_wl_state)i));
        exec(db, sql);
    }
    CHECK(sqlite3_exec(db,
                       "INSERT INTO workloads(uid, namespace, name, job_kind, job_name, state, "
                       "pods, podsets, spec, queued_at, created_at, updated_at) VALUES "
                       "('u-y', 'ns', 'job-reserved', 'Job', 'y', 'pending', 1, '[]', '{}', 1, 1, "
                       "1)",
                       NULL, NULL, NULL) == SQLITE_CONSTRAINT);
    CHECK(sqlite3_extended_errcode(db) == SQLITE_CONSTRAINT_UNIQUE);
    /* And the references: a workload with usage rows still cascades them away. */
    exec(db, "DELETE FROM sim_pods WHERE workload_id = 4; DELETE FROM workloads WHERE id = 4");
    CHECK_STR(dump(db, "SELECT count(*) FROM usage WHERE workload_id = 4", &t), "0\n");
    sqlite3_close(db);

    snprintf(f, sizeof(f), "%s-wal", path);
    unlink(f);
    snprintf(f, sizeof(f), "%s-shm", path);
    unlink(f);
    unlink(path);
    rmdir(dir);
}

/* A new database has the CHECK too (the migrations run from 1). */
static void fresh(void)
{
    struct gq_store *st = NULL;
    gq_error err = {0, ""};

    CHECKF(gq__store_open(&st, ":memory:", NULL, &err) == GQ_OK, "%s", err.msg);
    CHECK(gq__store_query(st,
                          "INSERT INTO workloads(uid, namespace, name, job_kind, job_name, state, "
                          "pods, podsets, spec, queued_at, created_at, updated_at) VALUES "
                          "('u-x', 'ns', 'x', 'Job', 'x', 'bogus', 1, '[]', '{}', 1, 1, 1)",
                          NULL, 0, NULL, NULL, &err) != GQ_OK);
    CHECKF(strstr(err.msg, "CHECK constraint failed") != NULL, "%s", err.msg);
    gq__store_close(st);
}

int main(void)
{
    TEST_RUN(names);
    TEST_RUN(sets);
    TEST_RUN(migration);
    TEST_RUN(fresh);
    return TEST_DONE();
}
