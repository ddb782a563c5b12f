/*
 * table_bench.c: times the table printer on `gpuq list -A`'s worst case,
 * 100,000 rows of 8 columns, written to /dev/null. Cell strings are made
 * before the clock starts, so the numbers are table_add_row and table_print
 * alone: the budget for the whole command is 300 ms, this part should stay
 * well under 50 ms. Reports the first run (what one gpuq invocation pays,
 * page faults included) and the best of several, in milliseconds.
 *
 * Built by tests/bench/CMakeLists.txt and run by tests/bench/run.sh.
 */
#include "../../cli/table.c"
#include "../../cli/term.c"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define ROWS 100000
#define COLS 8
#define RUNS 5
#define CELL_SIZE 48

static const char *const headers[COLS] = {"NAMESPACE", "NAME", "QUEUE", "USER",
                                          "STATUS",    "GPUS", "AGE",   "REASON"};

static double now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Fill row i's cells with values shaped like real ones (names, states, ages). */
static void make_row(char (*cell)[CELL_SIZE], int i)
{
    static const char *const states[] = {"Pending", "Admitted", "Running", "Finished"};

    snprintf(cell[0], CELL_SIZE, "team-%d", i % 40);
    snprintf(cell[1], CELL_SIZE, "train-llama-%06d", i);
    snprintf(cell[2], CELL_SIZE, "a100-queue-%d", i % 7);
    snprintf(cell[3], CELL_SIZE, "user%d", i % 300);
    snprintf(cell[4], CELL_SIZE, "%s", states[i % 4]);
    snprintf(cell[5], CELL_SIZE, "%d", 1 << (i % 4));
    human_duration(cell[6], CELL_SIZE, (int64_t)i * 37);
    snprintf(cell[7], CELL_SIZE, "%s", i % 4 ? "-" : "waiting for quota in flavor a100");
}

/* One build-and-print; adds the two phases' times to add_ms and print_ms. */
static int run(char (*cells)[COLS][CELL_SIZE], FILE *out, double *add_ms, double *print_ms)
{
    struct table *t = table_new(headers, COLS);
    const char *row[COLS];
    double t0 = now_ms(), t1;
    int rc = t == NULL ? -1 : 0;

    for (int i = 0; rc == 0 && i < ROWS; i++) {
        for (int c = 0; c < COLS; c++)
            row[c] = cells[i][c];
        rc = table_add_row(t, row);
    }
    t1 = now_ms();
    if (rc == 0)
        rc = table_print(t, out, 0, true, false);
    if (rc == 0)
        rc = fflush(out);
    *add_ms = t1 - t0;
    *print_ms = now_ms() - t1;
    table_free(t);
    return rc;
}

int main(void)
{
    char(*cells)[COLS][CELL_SIZE] = malloc(sizeof *cells * ROWS);
    FILE *out = fopen("/dev/null", "w");
    double best_add = 1e9, best_print = 1e9, first = 0;

    if (cells == NULL || out == NULL)
        return 1;
    for (int i = 0; i < ROWS; i++)
        make_row(cells[i], i);
    for (int r = 0; r < RUNS; r++) {
        double add, print;

        if (run(cells, out, &add, &print) != 0)
            return 1;
        first = r == 0 ? add + print : first;
        best_add = add < best_add ? add : best_add;
        best_print = print < best_print ? print : best_print;
    }
    printf("%d rows x %d cols: first run %.2f ms; best of %d: add %.2f ms, print %.2f ms\n", ROWS,
           COLS, first, RUNS, best_add, best_print);
    fclose(out);
    free(cells);
    return 0;
}
