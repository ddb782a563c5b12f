/*
 * test_store_cache.c: the snapshot's rows kept between a loop's turns
 * (store_cache.c) are always the rows the tables give. After each kind of
 * change (a job submitted, admitted by a schedule, cancelled, deactivated;
 * a queue's quota changed; admission-check rows written; a write rolled
 * back after the cache read it; another connection's commit; PRAGMA
 * temp_store dropping the triggers), every row a snapshot build is handed,
 * in order, is the same through the cache as through a second connection
 * that reads the tables.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "gpuqueue.h"
#include "handle.h"
#include "store_int.h"
#include "store_load.h"
#include "queue_fixture.h"
#include "test.h"
#include "util.h"

static void queue(gq_db *db, int gpus)
{
    gq_error err = {0, ""};

    CHECKF(queue_fixture_apply(db, "gpu", gpus, &err) == GQ_OK, "%s", err.msg);
}

static void submit(gq_db *db, const char *name)
{
    gq_error err = {0, ""};

    CHECKF(queue_fixture_submit(db, name, "2", &err) == GQ_OK, "%s: %s", name, err.msg);
}

static void schedule(gq_db *db)
{
    gq_schedule_options o = GQ_SCHEDULE_OPTIONS_INIT;
    gq_error err = {0, ""};

    o.until_stable = true;
    CHECKF(gq_schedule(db, &o, NULL, NULL, NULL, &err) == GQ_OK, "%s", err.msg);
}

/* ------------------------------------------------- every row, as text */

static int spec_row(const struct gq_load_spec *r, void *p)
{
    gq__str_printf(p, "spec %s|%s|%s\n", r->name ? r->name : "-", r->parent ? r->parent : "-",
                   r->spec);
    return 0;
}

static int quota_row(const struct gq_load_quota *r, void *p)
{
    gq__str_printf(p, "quota %s|%s|%lld|%lld|%s|%s|%lld|%d%lld|%d%lld\n", r->owner_kind,
                   r->owner, (long long)r->group_index, (long long)r->flavor_index, r->flavor,
                   r->resource, (long long)r->nominal, r->has_borrowing_limit,
                   (long long)r->borrowing_limit, r->has_lending_limit,
                   (long long)r->lending_limit);
    return 0;
}

static const char *or_dash(const char *s)
{
    return s ? s : "-";
}

static int lq_row(const struct gq_load_local_queue *r, void *p)
{
    gq__str_printf(p, "lq %s|%s|%s|%s|%s|%s|%lld\n", r->ns, r->name, r->cluster_queue,
                   or_dash(r->stop_policy), or_dash(r->weight), or_dash(r->consumed),
                   (long long)r->last_update);
    return 0;
}

static int wl_row(const struct gq_load_workload *r, void *p)
{
    gq__str_printf(p, "wl %lld|%s|%s|%s|%s|%s|%s|%lld|%s|%s|%s|%s|%lld|%lld|%d|%lld|%s|%lld|%s|"
                      "%lld|%lld\n",
                   (long long)r->id, r->uid, r->ns, r->name, r->job_name, or_dash(r->local_queue),
                   or_dash(r->cluster_queue), (long long)r->priority, r->state,
                   or_dash(r->reason), or_dash(r->message), r->podsets, (long long)r->queued_at,
                   (long long)r->reserved_at, r->evicted, (long long)r->requeue_at,
                   or_dash(r->inadmissible), (long long)r->admitted_at,
                   or_dash(r->pods_ready_reason), (long long)r->pods_ready_at,
                   (long long)r->requeue_count);
    return 0;
}

static int usage_row(const struct gq_load_usage *r, void *p)
{
    gq__str_printf(p, "usage %lld|%s|%s|%lld\n", (long long)r->workload_id, r->flavor,
                   r->resource, (long long)r->amount);
    return 0;
}

static int failed_row(const struct gq_load_failed *r, void *p)
{
    gq__str_printf(p, "failed %lld|%s|%lld\n", (long long)r->workload_id, r->flavor,
                   (long long)r->attempts);
    return 0;
}

static int checked_row(int64_t id, void *p)
{
    gq__str_printf(p, "checked %lld\n", (long long)id);
    return 0;
}

static int read_txn(struct gq_store *st, void *payload, gq_error *err)
{
    struct gq__str *out = payload;
    const struct gq_snapshot_readers r = {spec_row, spec_row, spec_row,  spec_row,   spec_row,
                                          spec_row, spec_row, quota_row, lq_row,     wl_row,
                                          usage_row, failed_row, checked_row, out, NULL, 0};

    free(out->p);
    memset(out, 0, sizeof(*out));
    return gq__store_load_snapshot(st, &r, err);
}

/* Every row a snapshot build on st is handed, as lines (malloc'd). */
static char *rows(struct gq_store *st)
{
    struct gq__str out = {NULL, 0, 0, false};
    gq_error err = {0, ""};

    CHECKF(gq__store_write(st, read_txn, &out, &err) == GQ_OK, "%s", err.msg);
    return out.p ? out.p : strdup("");
}

/* The cached rows of a (its cache on) against the tables as b reads them. */
static void same(gq_db *a, gq_db *b, const char *after)
{
    char *cached = rows(a->st), *tables = rows(b->st);

    CHECKF(strcmp(cached, tables) == 0, "after %s:\ncached:\n%s\ntables:\n%s", after, cached,
           tables);
    free(cached);
    free(tables);
}

/* A write on the cache's own connection (outside the API: a status the tests set). */
static void exec(gq_db *db, const char *sql)
{
    char *msg = NULL;

    CHECKF(sqlite3_exec(db->st->db, sql, NULL, NULL, &msg) == SQLITE_OK, "%s: %s", sql,
           msg ? msg : "");
    sqlite3_free(msg);
}

static int write_then_fail(struct gq_store *st, void *payload, gq_error *err)
{
    struct gq__str out = {NULL, 0, 0, false};
    int rc;

    (void)payload;
    if (sqlite3_exec(st->db, "UPDATE workloads SET priority = priority + 7", NULL, NULL,
                     NULL) != SQLITE_OK)
        return gq__error(err, GQ_EIO, "update failed");
    rc = read_txn(st, &out, err); /* the cache reads the rows this transaction changed */
    free(out.p);
    return rc != GQ_OK ? rc : gq__error(err, GQ_EINVALID, "undo it");
}

static void cache_is_the_tables(void)
{
    char path[] = "/tmp/gpuq-test-cache-XXXXXX";
    char db_path[64];
    gq_error err = {0, ""};
    gq_db *a = NULL, *b = NULL;
    char *name = NULL;
    int fd = mkstemp(path);

    CHECK(fd >= 0);
    if (fd < 0)
        return;
    close(fd);
    unlink(path);
    CHECK(mkdir(path, 0700) == 0);
    snprintf(db_path, sizeof(db_path), "%s/gpuq.db", path);
    CHECKF(gq_db_open(&a, db_path, NULL, &err) == GQ_OK, "%s", err.msg);
    CHECKF(gq_db_open(&b, db_path, NULL, &err) == GQ_OK, "%s", err.msg);
    if (!a || !b)
        return;
    queue(a, 4);
    submit(a, "one");
    submit(a, "two");
    submit(a, "three");
    CHECKF(gq__store_snapshot_cache(a->st, true, &err) == GQ_OK, "%s", err.msg);
    same(a, b, "the first read");
    same(a, b, "nothing");
    submit(a, "four");
    same(a, b, "a submit");
    schedule(a);
    same(a, b, "a schedule admitting two");
    CHECKF(gq_workload_cancel(a, "default", "one", &name, &err) == GQ_OK, "%s", err.msg);
    gq_free(name);
    same(a, b, "a cancel");
    queue(a, 8);
    same(a, b, "the quota raised");
    schedule(a);
    same(a, b, "a schedule admitting the rest");
    exec(a, "INSERT INTO workload_checks(workload_id, name, state, updated_at) "
            "SELECT max(id), 'prov', 'Pending', 0 FROM workloads");
    same(a, b, "an admission check row");
    exec(a, "UPDATE workloads SET failed_flavors = '{\"gpu\": 2}' "
            "WHERE id = (SELECT min(id) FROM workloads WHERE state = 'admitted')");
    same(a, b, "failed flavors");
    CHECK(gq__store_write(a->st, write_then_fail, NULL, &err) == GQ_EINVALID);
    same(a, b, "a write rolled back after the cache read it");
    submit(b, "five"); /* another connection's commit */
    same(a, b, "another connection's submit");
    CHECKF(gq__store_group(a->st, 4, &err) == GQ_OK, "%s", err.msg);
    submit(a, "six"); /* the pragma took the triggers: no row of six is in gq_touched */
    CHECKF(gq__store_group(a->st, 0, &err) == GQ_OK, "%s", err.msg);
    same(a, b, "temp_store changed twice and a submit between");
    CHECKF(gq__store_snapshot_cache(a->st, false, &err) == GQ_OK, "%s", err.msg);
    same(a, b, "the cache off");
    gq_db_close(a);
    gq_db_close(b);
    unlink(db_path);
    snprintf(db_path, sizeof(db_path), "%s/gpuq.db-wal", path);
    unlink(db_path);
    snprintf(db_path, sizeof(db_path), "%s/gpuq.db-shm", path);
    unlink(db_path);
    rmdir(path);
}

int main(void)
{
    TEST_RUN(cache_is_the_tables);
    return TEST_DONE();
}
