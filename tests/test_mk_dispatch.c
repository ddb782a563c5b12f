/*
 * test_mk_dispatch.c: MultiKueue's dispatchers (core/mk_dispatch.c), as
 * Kueue's incrementaldispatcher.go runs its rounds: a table of calls in time.
 */
#include <stdint.h>

#include "mk_dispatch.h"
#include "test.h"

#define MIN (60 * 1000)

/* One call: at now, with evictions, step and n workers, expect that many nominated. */
struct step_row {
    int64_t now;
    int64_t evictions;
    size_t step, n, want;
};

static void run_rows(const char *what, struct gq_mk_round *r, bool incremental,
                     const struct step_row *rows, size_t nrows)
{
    size_t i, got;

    for (i = 0; i < nrows; i++) {
        got = gq__mk_nominate(r, incremental, rows[i].step, rows[i].n, rows[i].evictions,
                              rows[i].now);
        CHECKF(got == rows[i].want, "%s row %zu: %zu nominated, want %zu", what, i, got,
               rows[i].want);
    }
}

static void incremental_rounds(void)
{
    /* 7 workers, Kueue's step of 3: 3, then 6 after 5 minutes, then 7; no more after. */
    static const struct step_row rows[] = {
        {0, 0, 3, 7, 3},
        {1 * MIN, 0, 3, 7, 3},
        {5 * MIN, 0, 3, 7, 3},     /* the round lasts while now - start <= 5m */
        {5 * MIN + 1, 0, 3, 7, 6}, /* then stepSize more */
        {10 * MIN + 1, 0, 3, 7, 6},
        {10 * MIN + 2, 0, 3, 7, 7}, /* fewer left than a step: all of them */
        {60 * MIN, 0, 3, 7, 7},
        /* Evicted: round one again, now. */
        {61 * MIN, 1, 3, 7, 3},
        {62 * MIN, 1, 3, 7, 3},
        /* The config shrank to 2 workers: both, no more. */
        {70 * MIN, 1, 3, 2, 2},
    };
    struct gq_mk_round r = {0};

    run_rows("incremental", &r, true, rows, sizeof(rows) / sizeof(rows[0]));
}

static void step_one_and_restart(void)
{
    /* stepSize 1: one worker per round. */
    static const struct step_row one[] = {
        {0, 2, 1, 3, 1}, {5 * MIN + 1, 2, 1, 3, 2}, {10 * MIN + 2, 2, 1, 3, 3},
    };
    /* A manager restarted after nominating 2 (its copies say so): a new round at once. */
    static const struct step_row restarted[] = {{0, 0, 1, 3, 3}, {1 * MIN, 0, 1, 3, 3}};
    /* A step of 0 (not allowed by the schema) is Kueue's default of 3. */
    static const struct step_row zero[] = {{0, 0, 0, 5, 3}};
    struct gq_mk_round r = {0};

    run_rows("step one", &r, true, one, sizeof(one) / sizeof(one[0]));
    r = (struct gq_mk_round){0};
    r.nominated = 2;
    run_rows("restarted", &r, true, restarted, sizeof(restarted) / sizeof(restarted[0]));
    r = (struct gq_mk_round){0};
    run_rows("step zero", &r, true, zero, 1);
}

static void all_at_once(void)
{
    static const struct step_row rows[] = {{0, 0, 3, 7, 7}, {0, 0, 1, 2, 2}, {9 * MIN, 4, 3, 0, 0}};
    struct gq_mk_round r = {0};

    run_rows("all at once", &r, false, rows, sizeof(rows) / sizeof(rows[0]));
    CHECK(!r.started && r.nominated == 0);
}

int main(void)
{
    TEST_RUN(incremental_rounds);
    TEST_RUN(step_one_and_restart);
    TEST_RUN(all_at_once);
    return TEST_DONE();
}
