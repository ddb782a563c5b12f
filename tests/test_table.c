/*
 * test_table.c: the CLI's table printer and terminal helpers (cli/table.c,
 * cli/term.c). Those files belong to the gpuq executable, not the library,
 * so they are compiled into this test by #include. Tables are printed into
 * memory with open_memstream and compared byte for byte; terminal behaviour
 * is checked on a pseudo-terminal, and skipped (with a note) where none can
 * be opened.
 */
#define _XOPEN_SOURCE 700 /* posix_openpt, grantpt, unlockpt, ptsname */

#include "../cli/table.c"
#include "../cli/term.c"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test.h"

/* Seven code points in eleven bytes; \u escapes cannot swallow the letters after them. */
#define UNICODE_NAME "\u00fcn\u00efc\u00f8d\u00e9" /* ünïcødé */
#define ELLIPSIS "\u2026"
#define E2 "\u00e9\u00e9"
#define E5 E2 E2 "\u00e9"

#define DAY (24 * 3600)
#define YEAR (365 * (int64_t)DAY)

/* Print t into a string the caller frees; NULL when table_print failed. */
static char *render(const struct table *t, int width, bool headers, bool color)
{
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    int rc;

    if (f == NULL)
        return NULL;
    rc = table_print(t, f, width, headers, color);
    fclose(f);
    if (rc != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* The widest line of s, in code points. */
static size_t max_line_width(const char *s)
{
    size_t max = 0, cur = 0;

    for (; *s != '\0'; s++) {
        if (*s == '\n') {
            max = cur > max ? cur : max;
            cur = 0;
        } else if (((unsigned char)*s & 0xc0) != 0x80) {
            cur++;
        }
    }
    return cur > max ? cur : max;
}

static void test_human_duration(void)
{
    static const struct {
        int64_t seconds;
        const char *want;
    } rows[] = {
        {-3, "<invalid>"},
        {-2, "<invalid>"},
        {-1, "0s"},
        {0, "0s"},
        {1, "1s"},
        {59, "59s"},
        {70, "70s"},
        {119, "119s"},
        {120, "2m"},
        {121, "2m1s"},
        {190, "3m10s"},
        {599, "9m59s"},
        {600, "10m"},
        {601, "10m"},
        {70 * 60, "70m"},
        {10799, "179m"},
        {10800, "3h"},
        {10800 + 60, "3h1m"},
        {28799, "7h59m"},
        {28800, "8h"},
        {8 * 3600 + 59 * 60, "8h"},
        {172799, "47h"},
        {172800, "2d"},
        {49 * 3600, "2d1h"},
        {8 * DAY - 1, "7d23h"},
        {8 * DAY, "8d"},
        {8 * DAY + 23 * 3600, "8d"},
        {367 * DAY, "367d"},
        {2 * YEAR - 1, "729d"},
        {2 * YEAR, "2y"},
        {2 * YEAR + DAY - 1, "2y"},
        {2 * YEAR + DAY, "2y1d"},
        {2 * YEAR + 25 * 3600, "2y1d"},
        {3 * YEAR, "3y"},
        {8 * YEAR - 1, "7y364d"},
        {8 * YEAR, "8y"},
        {8 * YEAR + 364 * DAY, "8y"},
        {9 * YEAR, "9y"},
        {INT64_MAX, "292471208677y"},
    };
    char buf[HUMAN_DURATION_SIZE];

    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        human_duration(buf, sizeof buf, rows[i].seconds);
        CHECKF(strcmp(buf, rows[i].want) == 0, "row %zu: %lld gave \"%s\", want \"%s\"", i,
               (long long)rows[i].seconds, buf, rows[i].want);
    }
    human_duration(buf, 4, -5);
    CHECK_STR(buf, "<in");
}

static void test_alignment(void)
{
    static const char *const head[] = {"NAME", "STATUS", "AGE"};
    static const char *const r1[] = {"job-a", "Running", "5m"};
    static const char *const r2[] = {"training-long", "Pending", "10s"};
    struct table *t = table_new(head, 3);
    char *s;

    CHECK(t != NULL && table_add_row(t, r1) == 0 && table_add_row(t, r2) == 0);
    s = render(t, 0, true, false);
    CHECK(s != NULL);
    CHECK_STR(s, "NAME            STATUS    AGE\n"
                 "job-a           Running   5m\n"
                 "training-long   Pending   10s\n");
    free(s);
    /* Without headers, a header wider than the data does not widen the column. */
    s = render(t, 0, false, false);
    CHECK_STR(s, "job-a           Running   5m\n"
                 "training-long   Pending   10s\n");
    free(s);
    table_free(t);
}

static void test_no_headers_width(void)
{
    static const char *const head[] = {"NAME", "X"};
    static const char *const r1[] = {"a", "x"};
    static const char *const r2[] = {"bb", "y"};
    struct table *t = table_new(head, 2);
    char *s;

    table_add_row(t, r1);
    table_add_row(t, r2);
    s = render(t, 0, false, false);
    CHECK_STR(s, "a    x\nbb   y\n");
    free(s);
    s = render(t, 0, true, false);
    CHECK_STR(s, "NAME   X\na      x\nbb     y\n");
    free(s);
    table_free(t);

    /* A header-only table prints just the header line. */
    t = table_new(head, 2);
    s = render(t, 0, true, false);
    CHECK_STR(s, "NAME   X\n");
    free(s);
    s = render(t, 0, false, false);
    CHECK_STR(s, "");
    free(s);
    table_free(t);
}

static void test_utf8_width(void)
{
    static const char *const head[] = {"NAME", "X"};
    static const char *const r1[] = {UNICODE_NAME, "ok"};
    static const char *const r2[] = {"plain", "ok"};
    struct table *t = table_new(head, 2);
    char *s;

    table_add_row(t, r1);
    table_add_row(t, r2);
    s = render(t, 0, true, false);
    CHECK_STR(s, "NAME      X\n" UNICODE_NAME "   ok\n"
                 "plain     ok\n");
    free(s);
    table_free(t);
}

static void test_no_trailing_spaces(void)
{
    static const char *const head[] = {"NAME", "MID", "LAST"};
    static const char *const r1[] = {"a", "", ""};
    static const char *const r2[] = {"b", "x", NULL};
    static const char *const r3[] = {"c", NULL, "z"};
    static const char *const r4[] = {"", "", "w"};
    struct table *t = table_new(head, 3);
    char *s;

    table_add_row(t, r1);
    table_add_row(t, r2);
    table_add_row(t, r3);
    table_add_row(t, r4);
    s = render(t, 0, true, false);
    CHECK_STR(s, "NAME   MID   LAST\n"
                 "a\n"
                 "b      x\n"
                 "c            z\n"
                 "             w\n");
    CHECK(strstr(s, " \n") == NULL);
    free(s);
    table_free(t);
}

static void test_truncation(void)
{
    static const char *const head[] = {"NAME", "STATUS", "REASON"};
    static const char *const r1[] = {"a-very-long-workload-name", "Pending",
                                     "waiting for quota in flavor a100, 4 more needed"};
    static const char *const r2[] = {"b", "Admitted", "-"};
    struct table *t = table_new(head, 3);
    char *s;

    table_add_row(t, r1);
    table_add_row(t, r2);
    table_set_truncatable(t, 0, true);
    table_set_truncatable(t, 2, true);

    /* Natural width 86 (25+3+8+3+47): no limit, or a wide one, cuts nothing. */
    s = render(t, 0, true, false);
    CHECK(s != NULL && strstr(s, r1[2]) != NULL && strstr(s, r1[0]) != NULL);
    CHECK(max_line_width(s) == 86);
    free(s);
    s = render(t, 86, true, false);
    CHECK(strstr(s, ELLIPSIS) == NULL && max_line_width(s) == 86);
    free(s);

    /* At 40, 46 columns must go: NAME and REASON are both cut to 13 (12 + 34). */
    s = render(t, 40, true, false);
    CHECK_STR(s, "NAME            STATUS     REASON\n"
                 "a-very-long-" ELLIPSIS "   Pending    waiting for " ELLIPSIS "\n"
                 "b               Admitted   -\n");
    CHECK(max_line_width(s) == 40);
    free(s);
    /* At 41, cutting both to 13 saves one too many: the leftmost gets it back. */
    s = render(t, 41, true, false);
    CHECK_STR(s, "NAME             STATUS     REASON\n"
                 "a-very-long-w" ELLIPSIS "   Pending    waiting for " ELLIPSIS "\n"
                 "b                Admitted   -\n");
    CHECK(max_line_width(s) == 41);
    free(s);

    /* Too narrow to fit: truncatable columns stop at their header's width. */
    s = render(t, 10, true, false);
    CHECK_STR(s, "NAME   STATUS     REASON\n"
                 "a-v" ELLIPSIS "   Pending    waiti" ELLIPSIS "\n"
                 "b      Admitted   -\n");
    free(s);

    /* Without headers the floor is 3 columns. */
    s = render(t, 10, false, false);
    CHECK_STR(s, "a-" ELLIPSIS "   Pending    wa" ELLIPSIS "\n"
                 "b     Admitted   -\n");
    free(s);

    /* With nothing truncatable the table overflows rather than lose data. */
    table_set_truncatable(t, 0, false);
    table_set_truncatable(t, 2, false);
    s = render(t, 40, true, false);
    CHECK(strstr(s, ELLIPSIS) == NULL && max_line_width(s) == 86);
    free(s);
    table_free(t);
}

static void test_truncation_utf8(void)
{
    static const char *const head[] = {"N", "Z"};
    /* ten two-byte characters, then a plain column that must stay whole */
    static const char *const r1[] = {E5 E5, "zz"};
    struct table *t = table_new(head, 2);
    char *s;

    table_add_row(t, r1);
    table_set_truncatable(t, 0, true);
    s = render(t, 10, false, false);
    CHECK_STR(s, E2 E2 ELLIPSIS "   zz\n");
    free(s);
    table_free(t);
}

static const char *status_color(const char *cell)
{
    return strcmp(cell, "Failed") == 0 ? "\033[31m" : NULL;
}

static void test_color(void)
{
    static const char *const head[] = {"NAME", "STATUS", "AGE"};
    static const char *const r1[] = {"j1", "Failed", "5m"};
    static const char *const r2[] = {"j2", "Running", "1h"};
    static const char *const r3[] = {"j3", "Failed", NULL};
    struct table *t = table_new(head, 3);
    char *s;

    table_add_row(t, r1);
    table_add_row(t, r2);
    table_add_row(t, r3);
    table_set_color(t, 1, status_color);
    s = render(t, 0, true, true);
    CHECK_STR(s, "NAME   STATUS    AGE\n"
                 "j1     \033[31mFailed\033[0m    5m\n"
                 "j2     Running   1h\n"
                 "j3     \033[31mFailed\033[0m\n");
    free(s);
    s = render(t, 0, true, false);
    CHECK(s != NULL && strchr(s, '\033') == NULL);
    free(s);
    table_free(t);
}

static void test_sanitize(void)
{
    static const char *const head[] = {"NAME", "X"};
    static const char *const r1[] = {"a\tb\nc\033[2J\x7f", "y"};
    struct table *t = table_new(head, 2);
    char *s;

    table_add_row(t, r1);
    s = render(t, 0, false, false);
    CHECK_STR(s, "a?b?c?[2J?   y\n");
    free(s);
    table_free(t);
}

/*
 * C1 controls (U+0080-U+009F, UTF-8 C2 80..C2 9F: CSI is C2 9B) are one '?'
 * each, one column wide; U+00A0 after them, and a lone C2, are kept.
 */
static void test_sanitize_c1(void)
{
    static const struct {
        const char *cell, *want;
    } rows[] = {
        {"a\xc2\x9b" "2Jb", "a?2Jb   X\n"},
        {"\xc2\x80\xc2\x9f", "??   X\n"},
        {"\xc2\x85z\xc2\x9d", "?z?   X\n"},
        {"\xc2\xa0\xc3\xa9", "\xc2\xa0\xc3\xa9   X\n"},
        {"end\xc2", "end\xc2   X\n"},
    };
    static const char *const head[] = {"NAME", "X"};

    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const char *row[] = {rows[i].cell, "X"};
        struct table *t = table_new(head, 2);
        char *s;

        table_add_row(t, row);
        s = render(t, 0, false, false);
        if (s == NULL || strcmp(s, rows[i].want) != 0)
            fprintf(stderr, "row %zu: got %s\n", i, s ? s : "(null)");
        CHECK_STR(s, rows[i].want);
        free(s);
        table_free(t);
    }
}

/* Many rows and one cell larger than the output buffer: growth and flushing paths. */
static void test_large(void)
{
    static const char *const head[] = {"NAME", "X"};
    enum { ROWS = 20000, BIG = 3 * OUT_BUF_SIZE / 2 };
    struct table *t = table_new(head, 2);
    char name[32], *big = malloc(BIG + 1), *s;
    const char *row[2] = {name, "x"};
    int ok = 1;

    CHECK(t != NULL && big != NULL);
    for (int i = 0; i < ROWS; i++) {
        snprintf(name, sizeof name, "row-%05d", i);
        ok &= table_add_row(t, row) == 0;
    }
    CHECK(ok);
    s = render(t, 0, true, false);
    /* "NAME        X\n" then "row-NNNNN   x\n", 14 bytes each */
    CHECK(s != NULL && strlen(s) == 14 * (ROWS + 1));
    CHECK(s != NULL && strncmp(s + 14 * 12345 + 14, "row-12345   x\n", 14) == 0);
    free(s);
    table_free(t);

    memset(big, 'a', BIG);
    big[BIG] = '\0';
    t = table_new(head, 1);
    row[0] = big;
    table_add_row(t, row);
    s = render(t, 0, false, false);
    CHECK(s != NULL && strlen(s) == BIG + 1 && s[BIG] == '\n' && strspn(s, "a") == BIG);
    free(s);
    table_free(t);
    free(big);
}

static void test_write_error(void)
{
    static const char *const head[] = {"NAME"};
    FILE *f = fopen("/dev/full", "w");
    struct table *t = table_new(head, 1);

    CHECK(table_new(head, 0) == NULL);
    if (f == NULL) {
        fprintf(stderr, "note: no /dev/full, write error not tested\n");
        table_free(t);
        return;
    }
    setvbuf(f, NULL, _IONBF, 0);
    CHECK(table_print(t, f, 0, true, false) == -1);
    fclose(f);
    table_free(t);
    table_free(NULL);
}

/* Open a pseudo-terminal; returns the terminal side's fd, or -1. */
static int open_pty(int *master)
{
    char *name;

    *master = posix_openpt(O_RDWR | O_NOCTTY);
    if (*master < 0)
        return -1;
    if (grantpt(*master) != 0 || unlockpt(*master) != 0 || (name = ptsname(*master)) == NULL) {
        close(*master);
        return -1;
    }
    return open(name, O_RDWR | O_NOCTTY);
}

static void test_color_decision(int tty)
{
    FILE *f = tmpfile();
    int file = f != NULL ? fileno(f) : -1;

    CHECK(term_color_mode_valid("auto") && term_color_mode_valid("always"));
    CHECK(term_color_mode_valid("never") && !term_color_mode_valid("yes"));
    CHECK(!term_color_mode_valid(NULL) && !term_color_mode_valid(""));

    setenv("TERM", "xterm-256color", 1);
    unsetenv("NO_COLOR");
    CHECK(!term_is_tty(file) && !term_use_color(file, "auto") && !term_use_color(file, NULL));
    CHECK(term_use_color(file, "always") && !term_use_color(file, "never"));
    setenv("NO_COLOR", "1", 1);
    CHECK(term_use_color(file, "always"));
    if (tty >= 0) {
        CHECK(term_is_tty(tty));
        CHECK(!term_use_color(tty, "auto") && !term_use_color(tty, NULL));
        CHECK(term_use_color(tty, "always"));
        setenv("NO_COLOR", "", 1); /* empty: as if unset */
        CHECK(term_use_color(tty, "auto") && term_use_color(tty, NULL));
        CHECK(term_use_color(tty, "bogus")); /* unknown modes act as auto */
        CHECK(!term_use_color(tty, "never"));
        unsetenv("NO_COLOR");
        CHECK(term_use_color(tty, "auto"));
        setenv("TERM", "dumb", 1);
        CHECK(!term_use_color(tty, "auto") && term_use_color(tty, "always"));
    }
    unsetenv("NO_COLOR");
    unsetenv("TERM");
    if (f != NULL)
        fclose(f);
}

static void test_width(int tty)
{
    FILE *f = tmpfile();
    struct winsize ws = {0};

    setenv("COLUMNS", "80", 1);
    CHECK(f != NULL && term_width(fileno(f)) == 0); /* never truncate for scripts */
    if (tty >= 0) {
        ws.ws_row = 24;
        ws.ws_col = 123;
        CHECK(ioctl(tty, TIOCSWINSZ, &ws) == 0);
        CHECK(term_width(tty) == 123);
        ws.ws_col = 0; /* size unknown: fall back to $COLUMNS */
        CHECK(ioctl(tty, TIOCSWINSZ, &ws) == 0);
        CHECK(term_width(tty) == 80);
        setenv("COLUMNS", "8o", 1);
        CHECK(term_width(tty) == 0);
        unsetenv("COLUMNS");
        CHECK(term_width(tty) == 0);
    }
    unsetenv("COLUMNS");
    if (f != NULL)
        fclose(f);
}

static void test_terminal(void)
{
    int master = -1;
    int tty = open_pty(&master);

    if (tty < 0)
        fprintf(stderr, "note: no pseudo-terminal, terminal-only checks skipped\n");
    test_color_decision(tty);
    test_width(tty);
    if (tty >= 0) {
        close(tty);
        close(master);
    }
}

int main(void)
{
    TEST_RUN(test_human_duration);
    TEST_RUN(test_alignment);
    TEST_RUN(test_no_headers_width);
    TEST_RUN(test_utf8_width);
    TEST_RUN(test_no_trailing_spaces);
    TEST_RUN(test_truncation);
    TEST_RUN(test_truncation_utf8);
    TEST_RUN(test_color);
    TEST_RUN(test_sanitize);
    TEST_RUN(test_sanitize_c1);
    TEST_RUN(test_large);
    TEST_RUN(test_write_error);
    TEST_RUN(test_terminal);
    return TEST_DONE();
}
