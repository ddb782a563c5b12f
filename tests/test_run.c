/*
 * test_run.c: the simulated cluster's loop and the database's clock under
 * hostile values (issue 13): a stored duration whose end int64 cannot hold,
 * a run asked to last longer than time, a clock row near INT64_MAX, a clock
 * asked to move back, a runner that died or whose pid another process now
 * has, and a stop that must not wait for a whole step.
 *
 * Each case opens a fresh ":memory:" database. No case measures speed: a run
 * that would never end on its own is bounded by an alarm that sets its stop
 * flag (DEADLINE_S, generous), which only a broken loop ever reaches.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "api.h"
#include "engine.h"
#include "gpuqueue/run.h"
#include "os.h"
#include "store.h"
#include "store_int.h"
#include "queue_fixture.h"
#include "test.h"
#include "util.h"

#define T0 1700000000000LL /* where the fixture's clock stands (ms) */
#define DEADLINE_S 120     /* an alarm ends a run that never ends on its own */

static volatile sig_atomic_t stop_flag;

static void on_alarm(int sig)
{
    (void)sig;
    stop_flag = 1;
}

/* ------------------------------------------------------------- fixture */

static int no_row(int n, const char *const *v, void *payload)
{
    (void)n, (void)v, (void)payload;
    return 0;
}

static int exec_txn(struct gq_store *st, void *payload, gq_error *err)
{
    return gq__store_query(st, payload, NULL, 0, no_row, NULL, err);
}

static void exec(gq_db *db, const char *sql)
{
    gq_error err = {0, ""};

    CHECKF(gq__store_write(db->st, exec_txn, (void *)(uintptr_t)sql, &err) == GQ_OK, "%s: %s",
           sql, err.msg);
}

static int64_t int_row_value;

static int int_row(int n, const char *const *v, void *payload)
{
    (void)n, (void)payload;
    int_row_value = v[0] ? strtoll(v[0], NULL, 10) : -1;
    return 0;
}

static int query_txn(struct gq_store *st, void *payload, gq_error *err)
{
    return gq__store_query(st, payload, NULL, 0, int_row, NULL, err);
}

/* One integer from a query; -1 for NULL or no row. */
static int64_t query_int(gq_db *db, const char *sql)
{
    gq_error err = {0, ""};

    int_row_value = -1;
    CHECKF(gq__store_read(db->st, query_txn, (void *)(uintptr_t)sql, &err) == GQ_OK, "%s: %s",
           sql, err.msg);
    return int_row_value;
}

struct clock_row {
    int64_t virtual_ms;
    double speed;
    int64_t pid;
};

static int clock_txn(struct gq_store *st, void *payload, gq_error *err)
{
    const struct clock_row *r = payload;
    struct gq_clock c = {gq__now_ms(), r->virtual_ms, r->speed, 0, r->pid};

    return gq__store_clock_set(st, &c, err);
}

static int set_clock(gq_db *db, int64_t virtual_ms, double speed, int64_t pid, gq_error *err)
{
    struct clock_row r = {virtual_ms, speed, pid};

    return gq__store_write(db->st, clock_txn, &r, err);
}

/* The queues, the clock stopped at T0, and n one-GPU jobs of a minute. */
static gq_db *fixture(int n)
{
    gq_job_spec job = GQ_JOB_SPEC_INIT;
    gq_error err = {0, ""};
    gq_db *db = NULL;
    char name[32];
    int i;

    CHECKF(gq_db_open(&db, ":memory:", NULL, &err) == GQ_OK, "%s", err.msg);
    if (!db)
        return NULL;
    CHECKF(set_clock(db, T0, 0, 0, &err) == GQ_OK, "%s", err.msg);
    CHECKF(queue_fixture_apply(db, "default-flavor", 64, &err) == GQ_OK, "%s", err.msg);
    job.queue = "q";
    job.gpus = "1";
    job.duration = "1m";
    for (i = 0; i < n; i++) {
        snprintf(name, sizeof(name), "job-%d", i);
        job.name = name;
        CHECKF(gq_job_submit(db, &job, NULL, NULL, &err) == GQ_OK, "%s", err.msg);
    }
    return db;
}

/* gq_run as fast as possible until idle, bounded by the alarm. */
static int run(gq_db *db, int64_t for_ms, gq_run_fn fn, void *payload, gq_run_stats *st,
               gq_error *err)
{
    gq_run_options o = GQ_RUN_OPTIONS_INIT;
    struct sigaction sa;
    int rc;

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_alarm;
    sigaction(SIGALRM, &sa, NULL);
    stop_flag = 0;
    o.until_idle = true;
    o.for_ms = for_ms;
    o.stop = &stop_flag;
    alarm(DEADLINE_S);
    rc = gq_run(db, &o, fn, payload, st, err);
    alarm(0);
    return rc;
}

/* ------------------------------------------------------------------ F1 */

/*
 * A running job whose stored duration makes started_at + duration overflow
 * (a row of an older binary): it runs until cancelled, with a Warning, and
 * the clock neither jumps to 1970 nor spins there; a job submitted after
 * the run is stamped after the first.
 */
static void huge_duration(void)
{
    gq_db *db = fixture(1);
    gq_error err = {0, ""};
    gq_run_stats st;
    gq_job_spec job = GQ_JOB_SPEC_INIT;

    if (!db)
        return;
    exec(db, "UPDATE workloads SET duration_ms = 9223372036854775000");
    CHECKF(run(db, 0, NULL, NULL, &st, &err) == GQ_OK, "%s", err.msg);
    CHECK(!stop_flag); /* ended by itself: idle, not the alarm */
    CHECK(st.started == 1 && st.finished == 0);
    CHECKF(st.end_ms >= T0, "the run ended at %lld, before it began", (long long)st.end_ms);
    CHECK(query_int(db, "SELECT virtual_ms FROM clock") >= T0);
    CHECK(query_int(db, "SELECT count(*) FROM events WHERE reason = 'DurationOutOfRange' "
                        "AND message LIKE '%9223372036854775000 ms%'") == 1);
    job.queue = "q";
    job.name = "later";
    CHECKF(gq_job_submit(db, &job, NULL, NULL, &err) == GQ_OK, "%s", err.msg);
    CHECK(query_int(db, "SELECT count(*) FROM workloads WHERE job_name = 'later' AND "
                        "created_at >= (SELECT max(created_at) FROM workloads WHERE job_name = "
                        "'job-0')") == 1);
    gq_db_close(db);
}

/* A stored clock near INT64_MAX, moving: now saturates instead of overflowing. */
static void clock_saturates(void)
{
    gq_db *db = fixture(0);

    if (!db)
        return;
    exec(db, "UPDATE clock SET virtual_ms = 9223372036854775000, speed = 1000000, "
             "wall_ms = 1000");
    CHECK(gq__store_now(db->st) == INT64_MAX);
    exec(db, "UPDATE clock SET wall_ms = -9223372036854775000, virtual_ms = 0, speed = 1");
    CHECK(gq__store_now(db->st) > 0);
    gq_db_close(db);
}

/* The store refuses to move the clock back; forward and standing still are fine. */
static void clock_monotonic(void)
{
    static const struct {
        int64_t to;
        double speed;
        int rc;
    } rows[] = {
        {T0, 0, GQ_OK},           /* standing still */
        {T0 + 1000, 0, GQ_OK},    /* forward */
        {T0 + 999, 0, GQ_ERANGE}, /* back by a millisecond */
        {9, 1.0, GQ_ERANGE},      /* back to 1970, as F1's overflow did */
        {T0 + 1000, 1.0, GQ_OK},  /* handed back where it stands */
    };
    gq_db *db = fixture(0);
    size_t i;

    if (!db)
        return;
    for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        gq_error err = {0, ""};
        int rc = set_clock(db, rows[i].to, rows[i].speed, 0, &err);

        CHECKF(rc == rows[i].rc, "row %zu: got %d (%s), want %d", i, rc, err.msg, rows[i].rc);
        if (rows[i].rc != GQ_OK)
            CHECKF(strstr(err.msg, "cannot move back") != NULL, "row %zu: %s", i, err.msg);
    }
    CHECK(gq__store_now(db->st) >= T0 + 1000);
    gq_db_close(db);
}

/* ----------------------------------------------------------------- F17 */

/* A run longer than the clock can count is refused whole, naming its length. */
static void run_too_long(void)
{
    gq_db *db = fixture(1);
    gq_error err = {0, ""};
    gq_run_stats st;

    if (!db)
        return;
    CHECK(run(db, 9223372036854775000LL, NULL, NULL, &st, &err) == GQ_ERANGE);
    CHECKF(strstr(err.msg, "2562047788015h12m55s") && strstr(err.msg, "9999-12-31"), "%s",
           err.msg);
    CHECK(query_int(db, "SELECT coalesce(runner_pid, 0) FROM clock") == 0); /* not claimed */
    CHECK(query_int(db, "SELECT count(*) FROM workloads WHERE state = 'pending'") == 1);
    /* The longest run that fits is still taken: a bound, not a refusal of long runs. */
    CHECKF(run(db, GQ__TIME_MAX_MS - T0 - 60000, NULL, NULL, &st, &err) == GQ_OK, "%s", err.msg);
    CHECK(st.finished == 1);
    gq_db_close(db);
}

/* ------------------------------------------------------------------ F7 */

static int stop_at_first(const gq_run_event *e, void *payload)
{
    (void)e, (void)payload;
    stop_flag = 1;
    return 0;
}

/*
 * A stop raised during a step's scheduling cycles (here, by the first
 * admission's report) ends the step there: one cycle, one admission, not
 * the whole pending set; the database as that cycle left it.
 */
static void stop_between_cycles(void)
{
    gq_db *db = fixture(8);
    gq_error err = {0, ""};
    gq_run_stats st;

    if (!db)
        return;
    CHECKF(run(db, 0, stop_at_first, NULL, &st, &err) == GQ_OK, "%s", err.msg);
    CHECKF(st.admitted == 1, "admitted %llu after the stop", (unsigned long long)st.admitted);
    CHECK(query_int(db, "SELECT count(*) FROM workloads WHERE state = 'pending'") == 7);
    CHECK(query_int(db, "SELECT count(*) FROM usage") == 1);
    CHECK(query_int(db, "SELECT coalesce(runner_pid, 0) FROM clock") == 0); /* handed back */
    gq_db_close(db);
}

/* A stop set before the scheduling starts: no cycle, nothing written. */
static void stop_before_schedule(void)
{
    gq_db *db = fixture(2);
    gq_schedule_options so = GQ_SCHEDULE_OPTIONS_INIT;
    gq_schedule_stats stats;
    gq_error err = {0, ""};
    bool stopped = false;

    if (!db)
        return;
    so.cycles = 0;
    so.until_stable = true;
    stop_flag = 1;
    CHECK(gq__engine_schedule_until(db, &so, &stop_flag, &stopped, NULL, NULL, &stats, &err) ==
          GQ_OK);
    CHECK(stopped && stats.cycles == 0);
    CHECK(query_int(db, "SELECT count(*) FROM workloads WHERE state = 'pending'") == 2);
    /* The watch interrupts any statement while the flag is up, and only then. */
    gq__store_watch_stop(db->st, &stop_flag);
    CHECK(gq__store_read(db->st, query_txn,
                         (void *)(uintptr_t)"WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + "
                                            "1 FROM n WHERE i < 100000) SELECT count(*) FROM n",
                         &err) != GQ_OK);
    gq__store_watch_stop(db->st, NULL);
    CHECK(query_int(db, "SELECT count(*) FROM workloads") == 2);
    stop_flag = 0;
    gq_db_close(db);
}

/* ----------------------------------------------------------------- F14 */

/* A process that exits at once, reaped: its pid is free. */
static pid_t dead_pid(void)
{
    pid_t pid = fork();

    if (pid == 0)
        _exit(0);
    waitpid(pid, NULL, 0);
    return pid;
}

/*
 * A runner killed while stepping the clock by hand (speed 0) froze it for
 * everyone; now its clock flows on from its last moment and nobody holds it.
 * A live process with the runner's pid but another start time is not the
 * runner; the runner's own record (this process, its start time) is.
 */
static void stale_runner(void)
{
    gq_db *db = fixture(0);
    gq_error err = {0, ""};
    struct gq_clock c;
    char sql[160];
    int64_t end;
    pid_t sleeper;

    if (!db)
        return;
    snprintf(sql, sizeof(sql), "UPDATE clock SET runner_pid = %d, speed = 0", (int)dead_pid());
    exec(db, sql);
    CHECK(gq__store_clock_get(db->st, &c) && c.runner_pid == 0);
    end = gq__now_ms() + DEADLINE_S * 1000LL; /* poll: the clock moves within a few ms */
    while (gq__store_now(db->st) <= T0 && gq__now_ms() < end)
        nanosleep(&(struct timespec){0, 10000000L}, NULL);
    CHECK(gq__store_now(db->st) > T0);

    if ((sleeper = fork()) == 0) {
        pause();
        _exit(0);
    }
    snprintf(sql, sizeof(sql), "UPDATE clock SET runner_pid = %d, runner_start = 1", (int)sleeper);
    exec(db, sql);
    CHECK(gq__store_clock_get(db->st, &c) && c.runner_pid == 0); /* a reused pid */
    /* Recorded with its real start time (a minute on, so surely not back): it holds the clock. */
    CHECKF(set_clock(db, gq__store_now(db->st) + 60000, 0, (int64_t)sleeper, &err) == GQ_OK,
           "%s", err.msg);
    CHECK(gq__store_clock_get(db->st, &c) && c.runner_pid == (int64_t)sleeper);
    kill(sleeper, SIGKILL);
    waitpid(sleeper, NULL, 0);
    CHECK(gq__store_clock_get(db->st, &c) && c.runner_pid == 0); /* killed: gone */
    gq_db_close(db);
}

int main(void)
{
    TEST_RUN(huge_duration);
    TEST_RUN(clock_saturates);
    TEST_RUN(clock_monotonic);
    TEST_RUN(run_too_long);
    TEST_RUN(stop_between_cycles);
    TEST_RUN(stop_before_schedule);
    TEST_RUN(stale_runner);
    return TEST_DONE();
}
