/*
 * test_util.c: SHA-1 against FIPS 180-4's vectors, Kueue's workload names
 * (expected values computed independently with Python's hashlib), UIDs, and
 * the message quoting every error uses, durations and RFC 3339 times.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "os.h"
#include "test.h"
#include "util.h"

static void sha1_vectors(void)
{
    static const struct {
        const char *in;
        size_t repeat;
        const char *hex;
    } rows[] = {
        {"", 1, "da39a3ee5e6b4b0d3255bfef95601890afd80709"},
        {"abc", 1, "a9993e364706816aba3e25717850c26c9cd0d89d"},
        {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 1,
         "84983e441c3bd26ebaae4aa1f95129e5e54670f1"},
        {"a", 1000, "291e9a6c66994949b57ba5e650361e98fc36b1ba"},
    };
    char hex[41], *buf;
    size_t i, j, n;

    for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        n = strlen(rows[i].in) * rows[i].repeat;
        buf = malloc(n + 1);
        for (j = 0; j < rows[i].repeat; j++)
            memcpy(buf + j * strlen(rows[i].in), rows[i].in, strlen(rows[i].in));
        gq__sha1_hex(hex, buf, n);
        CHECKF(strcmp(hex, rows[i].hex) == 0, "row %zu: %s", i, hex);
        free(buf);
    }
}

static void workload_names(void)
{
    char long_name[301], *name;

    name = gq__workload_name("Job", "batch", "sample-job", "a1b2c3d4-0000-4000-8000-000000000001");
    CHECK_STR(name, "job-sample-job-57a5d");
    free(name);
    /* Cut to 247 characters before the hash, so names stay within 253. */
    memset(long_name, 'x', 300);
    long_name[300] = '\0';
    name = gq__workload_name("Job", "batch", long_name, "u1");
    CHECK(strlen(name) == 253);
    CHECK(strncmp(name, "job-xxx", 7) == 0);
    CHECK_STR(name + 247, "-e1de5");
    free(name);
}

static void uids(void)
{
    char a[37], b[37];
    int i;

    gq__uid_new(a);
    gq__uid_new(b);
    CHECK(strlen(a) == 36 && strcmp(a, b) != 0);
    CHECK(a[14] == '4');                                          /* version 4 */
    CHECK(strchr("89ab", a[19]) != NULL);                         /* RFC 4122 variant */
    for (i = 0; i < 36; i++)
        CHECKF(i == 8 || i == 13 || i == 18 || i == 23 ? a[i] == '-' : strchr("0123456789abcdef", a[i]) != NULL,
               "char %d of %s", i, a);
}

static void quoting(void)
{
    static const struct {
        const char *in;
        size_t len;
        const char *out;
    } rows[] = {
        {"plain", 5, "\"plain\""},
        {"a\"b\\c", 5, "\"a\\\"b\\\\c\""},
        {"new\nline", 8, "\"new\\x0aline\""},
        {"nul\0x", 5, "\"nul\\x00x\""},
    };
    char buf[GQ_QUOTE_BUFSIZE], big[100];
    size_t i;

    for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
        CHECKF(strcmp(gq__quote(buf, rows[i].in, rows[i].len), rows[i].out) == 0, "row %zu: %s",
               i, buf);
    memset(big, 'v', sizeof(big));
    gq__quote(buf, big, sizeof(big));
    CHECK(strlen(buf) == GQ_QUOTE_MAX + 5); /* quotes, then "..." after the shown bytes */
    CHECK(strcmp(buf + GQ_QUOTE_MAX + 1, "...\"") == 0);
}

static void durations(void)
{
    static const struct {
        const char *in;
        int64_t ms; /* -1: refused */
    } rows[] = {
        {"90s", 90000},         {"1h30m", 5400000},   {"2.5m", 150000}, {"600", 600000},
        {"5ms", 5},             {"0", 0},             {"1h0m0s", 3600000}, {"0.001s", 1},
        {"10m5s100ms", 605100}, {"", -1},             {"-5s", -1},      {"5", 5000},
        {"5x", -1},             {"1h5", -1},          {"s", -1},        {"1.5", 1500},
        {" 5s", -1},            {"5s ", -1},          {".5s", 500},     {"99999999999999999h", -1},
        /* the fraction past INT64_MAX ms (fuzz_duration), and exactly INT64_MAX */
        {"9223372036854775.9s", -1}, {"9223372036854775.807s", INT64_MAX},
        {"9223372036854775s1ms", 9223372036854775001}, {"9223372036854775s808ms", -1},
    };
    size_t i;

    for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        int64_t v = -42;
        int rc = gq__parse_duration_ms(rows[i].in, &v);

        if (rows[i].ms < 0)
            CHECKF(rc == -1, "\"%s\" accepted as %lld", rows[i].in, (long long)v);
        else
            CHECKF(rc == 0 && v == rows[i].ms, "\"%s\": rc %d, %lld", rows[i].in, rc,
                   (long long)v);
    }
}

/* Go's Duration.String(), and the compact form; both read back to the same ms. */
static void duration_text(void)
{
    static const struct {
        int64_t ms;
        const char *go, *compact;
    } rows[] = {
        {0, "0s", "0s"},
        {-5, "0s", "0s"},
        {1, "1ms", "1ms"},
        {500, "500ms", "500ms"},
        {1000, "1s", "1s"},
        {1500, "1.5s", "1.5s"},
        {90000, "1m30s", "1m30s"},
        {2700000, "45m0s", "45m"},
        {3600000, "1h0m0s", "1h"},
        {5400000, "1h30m0s", "1h30m"},
        {3630250, "1h0m30.25s", "1h30.25s"},
        {INT64_C(360000000000), "100000h0m0s", "100000h"},
    };
    char buf[GQ_DURATION_BUFSIZE];
    size_t i;
    int64_t v;

    for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        gq__format_duration_ms(buf, sizeof(buf), rows[i].ms, false);
        CHECKF(!strcmp(buf, rows[i].go), "row %zu: %s", i, buf);
        CHECKF(gq__parse_duration_ms(buf, &v) == 0 && v == (rows[i].ms > 0 ? rows[i].ms : 0),
               "row %zu: %s read back", i, buf);
        gq__format_duration_ms(buf, sizeof(buf), rows[i].ms, true);
        CHECKF(!strcmp(buf, rows[i].compact), "row %zu: compact %s", i, buf);
        CHECKF(gq__parse_duration_ms(buf, &v) == 0 && v == (rows[i].ms > 0 ? rows[i].ms : 0),
               "row %zu: %s read back", i, buf);
    }
}

/*
 * RFC 3339 times as Kubernetes writes them. Each input is copied into a
 * buffer of exactly its length, so AddressSanitizer catches a read past the
 * NUL: the zones "+", "+0" and "-" were read up to five bytes too far
 * (tests/fuzz/crashes/rfc3339/).
 */
static void rfc3339_times(void)
{
    static const struct {
        const char *in;
        bool ok;
        int64_t ms;
    } rows[] = {
        {"2026-01-01T00:00:00Z", true, INT64_C(1767225600000)},
        {"2026-01-01t00:00:00z", true, INT64_C(1767225600000)},
        {"2026-01-01T00:00:00.25Z", true, INT64_C(1767225600250)},
        {"2026-01-01T00:00:00.123456789Z", true, INT64_C(1767225600123)},
        {"2026-01-01T01:30:00+01:30", true, INT64_C(1767225600000)},
        {"2025-12-31T23:00:00-01:00", true, INT64_C(1767225600000)},
        {"2024-02-29T00:00:00Z", true, INT64_C(1709164800000)},
        {"2026-01-01T00:00:00+", false, 0},
        {"2026-01-01T00:00:00+0", false, 0},
        {"2026-01-01T00:00:00-", false, 0},
        {"2026-01-01T00:00:00+01", false, 0},
        {"2026-01-01T00:00:00+01:0", false, 0},
        {"2026-01-01T00:00:00+01:000", false, 0},
        {"2026-01-01T00:00:00+24:00", false, 0},
        {"2026-01-01T00:00:00.Z", false, 0},
        {"2026-01-01T00:00:00.5", false, 0},
        {"2026-01-01T00:00:00", false, 0},
        {"2025-02-29T00:00:00Z", false, 0},
        {"2026-13-01T00:00:00Z", false, 0},
        {"2026-01-01 00:00:00Z", false, 0},
    };
    size_t i, n;

    for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        int64_t ms = -42;
        char *s = malloc((n = strlen(rows[i].in)) + 1);
        bool ok;

        if (!s)
            abort();
        memcpy(s, rows[i].in, n + 1);
        ok = gq__parse_rfc3339(s, &ms);
        CHECKF(ok == rows[i].ok && (!ok || ms == rows[i].ms), "row %zu \"%s\": %d, %lld", i,
               rows[i].in, ok, (long long)ms);
        free(s);
    }
}

/*
 * Issue 13 F21: RFC 3339 output has four year digits, also before the year
 * 1000 (strftime's %Y wrote "999-..."), and a time outside 0000..9999, which
 * no input can give, prints as the nearest end of that range.
 */
static void rfc3339_format(void)
{
    static const struct {
        int64_t ms;
        const char *want;
    } rows[] = {
        {0, "1970-01-01T00:00:00Z"},
        {1767225599999, "2025-12-31T23:59:59Z"},
        {-1, "1969-12-31T23:59:59Z"},
        {-30610224000000, "1000-01-01T00:00:00Z"},
        {-30610224001000, "0999-12-31T23:59:59Z"},
        {-62135596800000, "0001-01-01T00:00:00Z"},
        {-62167219200000, "0000-01-01T00:00:00Z"},
        {-62167219200001, "0000-01-01T00:00:00Z"},
        {INT64_MIN, "0000-01-01T00:00:00Z"},
        {253402300799000, "9999-12-31T23:59:59Z"},
        {253402300800000, "9999-12-31T23:59:59Z"},
        {INT64_MAX, "9999-12-31T23:59:59Z"},
    };
    char buf[GQ_RFC3339_BUFSIZE];
    int64_t back;
    size_t i;

    for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        gq__rfc3339(buf, rows[i].ms);
        CHECKF(strcmp(buf, rows[i].want) == 0, "row %zu: %s, want %s", i, buf, rows[i].want);
        CHECKF(gq__parse_rfc3339(buf, &back), "row %zu: %s does not read back", i, buf);
    }
}

/* Levenshtein, the case ignored, cut off past max. */
static void edit_distance(void)
{
    CHECK(gq__edit_distance("list", "list", 2) == 0);
    CHECK(gq__edit_distance("lsit", "list", 2) == 2);
    CHECK(gq__edit_distance("LIST", "list", 2) == 0);
    CHECK(gq__edit_distance("descibe", "describe", 2) == 1);
    CHECK(gq__edit_distance("", "abc", 5) == 3);
    CHECK(gq__edit_distance("sheduel", "schedule", 2) == 3); /* past max: max + 1 */
    CHECK(gq__edit_distance("a", "abcdefgh", 2) == 3);
}

int main(void)
{
    TEST_RUN(edit_distance);
    TEST_RUN(sha1_vectors);
    TEST_RUN(workload_names);
    TEST_RUN(uids);
    TEST_RUN(quoting);
    TEST_RUN(durations);
    TEST_RUN(duration_text);
    TEST_RUN(rfc3339_times);
    TEST_RUN(rfc3339_format);
    return TEST_DONE();
}
