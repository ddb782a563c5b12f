/*
 * test.h: the smallest harness that does the job. Each tests/test_<module>.c
 * is one executable run by ctest; CHECK records a failure with its location
 * and keeps going, so one run reports every failing row of a table.
 * TEST_MAIN prints the closing line "N passed, M failed".
 */
#ifndef GQ_TEST_H
#define GQ_TEST_H

#include <stdio.h>
#include <string.h>

static int test_passed_;
static int test_failed_;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (cond) {                                                                                \
            test_passed_++;                                                                        \
        } else {                                                                                   \
            test_failed_++;                                                                        \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);               \
        }                                                                                          \
    } while (0)

/* CHECK with a printf-style note, for table rows: CHECKF(x == y, "row %d", i). */
#define CHECKF(cond, ...)                                                                          \
    do {                                                                                           \
        if (cond) {                                                                                \
            test_passed_++;                                                                        \
        } else {                                                                                   \
            test_failed_++;                                                                        \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);              \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
        }                                                                                          \
    } while (0)

#define CHECK_STR(a, b)                                                                            \
    CHECKF(strcmp((a), (b)) == 0, "got \"%s\", want \"%s\"", (a), (b))

#define TEST_RUN(fn)                                                                               \
    do {                                                                                           \
        int before_ = test_failed_;                                                                \
        fn();                                                                                      \
        if (test_failed_ != before_)                                                               \
            fprintf(stderr, "FAIL %s\n", #fn);                                                     \
    } while (0)

#define TEST_DONE()                                                                                \
    (printf("%d passed, %d failed\n", test_passed_, test_failed_), test_failed_ ? 1 : 0)

#endif
