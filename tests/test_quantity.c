/*
 * test_quantity.c: lib/core/quantity.c against the tables of apimachinery's
 * pkg/api/resource/quantity_test.go (TestQuantityParse, TestQuantityString,
 * TestQuantityParseEmit, TestQuantityCmpInt64AndDec), reproduced from that
 * file; the reference's §2.1 examples; and the rejections where gpuq is
 * deliberately stricter than Go (values past 2^63-1 units, numbers with no
 * digit, exponents past +-100). Every valid row is also checked negated,
 * with an explicit '+', and through a format/parse round trip.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "gpuqueue/quantity.h"
#include "test.h"

#define D GQ_QTY_DECIMAL_SI
#define B GQ_QTY_BINARY_SI
#define X GQ_QTY_DECIMAL_EXPONENT

/*
 * One parse: the input, the expected code and, when it parses, the exact
 * mantissa, scale and format, and the canonical text.
 */
static const struct {
    const char *in;
    int code;
    int64_t mantissa;
    int32_t scale;
    gq_quantity_form format;
    const char *canonical;
} parse_rows[] = {
    /* Zeros: "0" whatever the suffix, and a binary zero keeps BinarySI (Go's table). */
    {"0", GQ_OK, 0, 0, D, "0"},
    {"0n", GQ_OK, 0, 0, D, "0"},
    {"0u", GQ_OK, 0, 0, D, "0"},
    {"0m", GQ_OK, 0, 0, D, "0"},
    {"0Ki", GQ_OK, 0, 0, B, "0"},
    {"0k", GQ_OK, 0, 0, D, "0"},
    {"0Mi", GQ_OK, 0, 0, B, "0"},
    {"0M", GQ_OK, 0, 0, D, "0"},
    {"0Gi", GQ_OK, 0, 0, B, "0"},
    {"0G", GQ_OK, 0, 0, D, "0"},
    {"0Ti", GQ_OK, 0, 0, B, "0"},
    {"0T", GQ_OK, 0, 0, D, "0"},
    {"-0", GQ_OK, 0, 0, D, "0"},
    {"0.000", GQ_OK, 0, 0, D, "0"},
    {"0e5", GQ_OK, 0, 0, X, "0"},
    {"1", GQ_OK, 1, 0, D, "1"},

    /* Binary suffixes; the mantissa is normalised, so 5Ti is 549755813888e1. */
    {"1Ki", GQ_OK, 1024, 0, B, "1Ki"},
    {"8Ki", GQ_OK, 8192, 0, B, "8Ki"},
    {"7Mi", GQ_OK, 7340032, 0, B, "7Mi"},
    {"6Gi", GQ_OK, 6442450944, 0, B, "6Gi"},
    {"5Ti", GQ_OK, 549755813888, 1, B, "5Ti"},
    {"4Pi", GQ_OK, 4503599627370496, 0, B, "4Pi"},
    {"3Ei", GQ_OK, 3458764513820540928, 0, B, "3Ei"},
    {"7Ei", GQ_OK, 8070450532247928832, 0, B, "7Ei"},
    {"10Ti", GQ_OK, 1099511627776, 1, B, "10Ti"},
    {"100Ti", GQ_OK, 1099511627776, 2, B, "100Ti"},

    /* Decimal suffixes. */
    {"5n", GQ_OK, 5, -9, D, "5n"},
    {"4u", GQ_OK, 4, -6, D, "4u"},
    {"3m", GQ_OK, 3, -3, D, "3m"},
    {"9", GQ_OK, 9, 0, D, "9"},
    {"8k", GQ_OK, 8, 3, D, "8k"},
    {"50k", GQ_OK, 5, 4, D, "50k"},
    {"7M", GQ_OK, 7, 6, D, "7M"},
    {"6G", GQ_OK, 6, 9, D, "6G"},
    {"5T", GQ_OK, 5, 12, D, "5T"},
    {"40T", GQ_OK, 4, 13, D, "40T"},
    {"300T", GQ_OK, 3, 14, D, "300T"},
    {"2P", GQ_OK, 2, 15, D, "2P"},
    {"1E", GQ_OK, 1, 18, D, "1E"}, /* exa: the decimal table is tried before exponents */

    /* Decimal exponents; the format is remembered, the exponent made a multiple of 3. */
    {"1E-3", GQ_OK, 1, -3, X, "1e-3"},
    {"1e3", GQ_OK, 1, 3, X, "1e3"},
    {"1E6", GQ_OK, 1, 6, X, "1e6"},
    {"1e9", GQ_OK, 1, 9, X, "1e9"},
    {"1E12", GQ_OK, 1, 12, X, "1e12"},
    {"1e15", GQ_OK, 1, 15, X, "1e15"},
    {"1E18", GQ_OK, 1, 18, X, "1e18"},
    {"1e14", GQ_OK, 1, 14, X, "100e12"},
    {"1e13", GQ_OK, 1, 13, X, "10e12"},
    {"1e03", GQ_OK, 1, 3, X, "1e3"},
    {"1e+3", GQ_OK, 1, 3, X, "1e3"},
    {"12e6", GQ_OK, 12, 6, X, "12e6"},
    {"100.035k", GQ_OK, 100035, 0, D, "100035"},

    /* Things that look like floating point. */
    {"0.001", GQ_OK, 1, -3, D, "1m"},
    {"0.0005k", GQ_OK, 5, -1, D, "500m"},
    {"0.005", GQ_OK, 5, -3, D, "5m"},
    {"0.05", GQ_OK, 5, -2, D, "50m"},
    {"0.5", GQ_OK, 5, -1, D, "500m"},
    {"0.00050k", GQ_OK, 5, -1, D, "500m"},
    {"0.00500", GQ_OK, 5, -3, D, "5m"},
    {"0.05000", GQ_OK, 5, -2, D, "50m"},
    {"0.50000", GQ_OK, 5, -1, D, "500m"},
    {"0.5e0", GQ_OK, 5, -1, X, "500e-3"},
    {"0.5e-1", GQ_OK, 5, -2, X, "50e-3"},
    {"0.5e-2", GQ_OK, 5, -3, X, "5e-3"},
    {"10.035M", GQ_OK, 10035, 3, D, "10035k"},
    {"1.2e3", GQ_OK, 12, 2, X, "1200"},
    {"1.3E+6", GQ_OK, 13, 5, X, "1300e3"},
    {"1.40e9", GQ_OK, 14, 8, X, "1400e6"},
    {"1.53E12", GQ_OK, 153, 10, X, "1530e9"},
    {"1.6e15", GQ_OK, 16, 14, X, "1600e12"},
    {"1.7E18", GQ_OK, 17, 17, X, "1700e15"},
    {"9.01", GQ_OK, 901, -2, D, "9010m"},
    {"8.1k", GQ_OK, 81, 2, D, "8100"},
    {"7.123456M", GQ_OK, 7123456, 0, D, "7123456"},
    {"6.987654321G", GQ_OK, 6987654321, 0, D, "6987654321"},
    {"5.444T", GQ_OK, 5444, 9, D, "5444G"},
    {"40.1T", GQ_OK, 401, 11, D, "40100G"},
    {"300.2T", GQ_OK, 3002, 11, D, "300200G"},
    {"2.5P", GQ_OK, 25, 14, D, "2500T"},
    {"1.01E", GQ_OK, 101, 16, D, "1010P"},

    /* Rounding up to nano ("if you want some resources, you should get some"). */
    {"3.001n", GQ_OK, 4, -9, D, "4n"},
    {"1.1E-9", GQ_OK, 2, -9, X, "2e-9"},
    {"0.0000000001", GQ_OK, 1, -9, D, "1n"},
    {"0.0000000005", GQ_OK, 1, -9, D, "1n"},
    {"0.00000000050", GQ_OK, 1, -9, D, "1n"},
    {"0.5e-9", GQ_OK, 1, -9, X, "1e-9"},
    {"0.9n", GQ_OK, 1, -9, D, "1n"},
    {"0.00000012345", GQ_OK, 124, -9, D, "124n"},
    {"0.00000012354", GQ_OK, 124, -9, D, "124n"},
    {"1e-100", GQ_OK, 1, -9, X, "1e-9"},
    {"1.00000000000000000000000000001", GQ_OK, 1000000001, -9, D, "1000000001n"},
    {"1.000000000000000000000000000000", GQ_OK, 1, 0, D, "1"},
    {"0000000000000000000000000000001", GQ_OK, 1, 0, D, "1"},

    /* The BinarySI cap at 2^63-1, which is not a multiple of 1024, so prints bare. */
    {"9Ei", GQ_OK, INT64_MAX, 0, B, "9223372036854775807"},
    {"8Ei", GQ_OK, INT64_MAX, 0, B, "9223372036854775807"},
    {"9223372036854775807Ki", GQ_OK, INT64_MAX, 0, B, "9223372036854775807"},
    {"1000000000Ti", GQ_OK, INT64_MAX, 0, B, "9223372036854775807"},

    /* Fractional binary values: below 1024 or not whole, they print as DecimalSI. */
    {"100.035Ki", GQ_OK, 10243584, -2, B, "102435840m"},
    {"0.5Mi", GQ_OK, 524288, 0, B, "512Ki"},
    {"0.05Gi", GQ_OK, 536870912, -1, B, "53687091200m"},
    {"0.025Ti", GQ_OK, 274877906944, -1, B, "27487790694400m"},
    {"1.5Ki", GQ_OK, 1536, 0, B, "1536"},
    {"1.5Gi", GQ_OK, 1610612736, 0, B, "1536Mi"},
    {"1024Mi", GQ_OK, 1073741824, 0, B, "1Gi"},
    {"1000Ki", GQ_OK, 1024, 3, B, "1000Ki"},
    {"307200Ki", GQ_OK, 3145728, 2, B, "300Mi"},
    {"1025024Mi", GQ_OK, 1074815565824, 0, B, "1001Gi"},
    {"1024Gi", GQ_OK, 1099511627776, 0, B, "1Ti"},
    {".001Ki", GQ_OK, 1024, -3, B, "1024m"}, /* 1.024 is not below 1: stays BinarySI */
    {".000001Ki", GQ_OK, 1024, -6, D, "1024u"},
    {".000000001Ki", GQ_OK, 1024, -9, D, "1024n"},
    {"1.000000000000000000001Ki", GQ_OK, 1024000000001, -9, B, "1024000000001n"},

    /* Things written by trolls. */
    {"0.000000000001Ki", GQ_OK, 2, -9, D, "2n"}, /* rounds up, changes format */
    {".000000000001Ki", GQ_OK, 2, -9, D, "2n"},
    {".001", GQ_OK, 1, -3, D, "1m"},
    {".0001k", GQ_OK, 1, -1, D, "100m"},
    {"1.", GQ_OK, 1, 0, D, "1"},
    {"1.G", GQ_OK, 1, 9, D, "1G"},

    /* The reference's canonical examples and TestQuantityString's alternates. */
    {"1.5", GQ_OK, 15, -1, D, "1500m"},
    {"1000M", GQ_OK, 1, 9, D, "1G"},
    {"1080m", GQ_OK, 108, -2, D, "1080m"},
    {"0.1m", GQ_OK, 1, -4, D, "100u"},
    {"100m", GQ_OK, 1, -1, D, "100m"},
    {"-500m", GQ_OK, -5, -1, D, "-500m"},
    {"+1", GQ_OK, 1, 0, D, "1"},
    {"-1", GQ_OK, -1, 0, D, "-1"},
    {"5000m", GQ_OK, 5, 0, D, "5"},
    {"0.001T", GQ_OK, 1, 9, D, "1G"},
    {"1000u", GQ_OK, 1, -3, D, "1m"},
    {"1.08", GQ_OK, 108, -2, D, "1080m"},
    {"1080000000n", GQ_OK, 108, -2, D, "1080m"},
    {".001e12", GQ_OK, 1, 9, X, "1e9"},
    {"0.001e0", GQ_OK, 1, -3, X, "1e-3"},
    {"1000e-12", GQ_OK, 1, -9, X, "1e-9"},
    {"00", GQ_OK, 0, 0, D, "0"},
    {"1234567M", GQ_OK, 1234567, 6, D, "1234567M"},
    {"1025", GQ_OK, 1025, 0, D, "1025"},
    {"80e-3", GQ_OK, 8, -2, X, "80e-3"},
    {"300e6", GQ_OK, 3, 8, X, "300e6"},
    {"1080u", GQ_OK, 108, -5, D, "1080u"},

    /* The int64 edges. */
    {"9223372036854775807", GQ_OK, INT64_MAX, 0, D, "9223372036854775807"},
    {"-9223372036854775807", GQ_OK, -INT64_MAX, 0, D, "-9223372036854775807"},
    {"9.223372036854775807E", GQ_OK, INT64_MAX, 0, D, "9223372036854775807"},
    {"1234567890.123456789", GQ_OK, 1234567890123456789, -9, D, "1234567890123456789n"},
    {"9223372036854775.807", GQ_OK, INT64_MAX, -3, D, "9223372036854775807m"},

    /* Too large for 64 bits: Go keeps these in arbitrary precision, gpuq rejects them. */
    {"12E", GQ_ERANGE, 0, 0, D, NULL},
    {"1000E", GQ_ERANGE, 0, 0, D, NULL},
    {"9.3E", GQ_ERANGE, 0, 0, D, NULL},
    {"1e100", GQ_ERANGE, 0, 0, D, NULL},
    {"1e19", GQ_ERANGE, 0, 0, D, NULL},
    {"99999999999999999999", GQ_ERANGE, 0, 0, D, NULL},
    {"9223372036854775808", GQ_ERANGE, 0, 0, D, NULL},
    {"-9223372036854775808", GQ_ERANGE, 0, 0, D, NULL},
    {"9223372036854775807.000000001", GQ_ERANGE, 0, 0, D, NULL},
    {"10000000000.000000001", GQ_ERANGE, 0, 0, D, NULL},
    {"9999999999.999999999", GQ_ERANGE, 0, 0, D, NULL},
    {"1e101", GQ_ERANGE, 0, 0, D, NULL},
    {"1e-101", GQ_ERANGE, 0, 0, D, NULL},
    {"0e500", GQ_ERANGE, 0, 0, D, NULL},
    {"1e99999999999999999999999", GQ_ERANGE, 0, 0, D, NULL},

    /* apimachinery's invalid list, then the stricter rejections of the reference. */
    {"1.1.M", GQ_EINVALID, 0, 0, D, NULL},
    {"1+1.0M", GQ_EINVALID, 0, 0, D, NULL},
    {"0.1mi", GQ_EINVALID, 0, 0, D, NULL},
    {"0.1am", GQ_EINVALID, 0, 0, D, NULL},
    {"aoeu", GQ_EINVALID, 0, 0, D, NULL},
    {".5i", GQ_EINVALID, 0, 0, D, NULL},
    {"1i", GQ_EINVALID, 0, 0, D, NULL},
    {"-3.01i", GQ_EINVALID, 0, 0, D, NULL},
    {"-3.01e-", GQ_EINVALID, 0, 0, D, NULL},
    {" 1", GQ_EINVALID, 0, 0, D, NULL},
    {"1 ", GQ_EINVALID, 0, 0, D, NULL},
    {"", GQ_EINVALID, 0, 0, D, NULL},
    {"1K", GQ_EINVALID, 0, 0, D, NULL},
    {"1ki", GQ_EINVALID, 0, 0, D, NULL},
    {"1KI", GQ_EINVALID, 0, 0, D, NULL},
    {"1mi", GQ_EINVALID, 0, 0, D, NULL},
    {".", GQ_EINVALID, 0, 0, D, NULL},
    {"+", GQ_EINVALID, 0, 0, D, NULL},
    {"-", GQ_EINVALID, 0, 0, D, NULL},
    {"-.", GQ_EINVALID, 0, 0, D, NULL},
    {"1e", GQ_EINVALID, 0, 0, D, NULL},
    {"1E+", GQ_EINVALID, 0, 0, D, NULL},
    {"e3", GQ_EINVALID, 0, 0, D, NULL},
    {"Ki", GQ_EINVALID, 0, 0, D, NULL},
    {"m", GQ_EINVALID, 0, 0, D, NULL},
    {"--1", GQ_EINVALID, 0, 0, D, NULL},
    {"+-1", GQ_EINVALID, 0, 0, D, NULL},
    {"1e3.5", GQ_EINVALID, 0, 0, D, NULL},
    {"1e1e", GQ_EINVALID, 0, 0, D, NULL},
    {"1e-3m", GQ_EINVALID, 0, 0, D, NULL},
    {"1-3", GQ_EINVALID, 0, 0, D, NULL},
    {"1Kii", GQ_EINVALID, 0, 0, D, NULL},
    {"1\n", GQ_EINVALID, 0, 0, D, NULL},
    {"1,5", GQ_EINVALID, 0, 0, D, NULL},
    {"0x10", GQ_EINVALID, 0, 0, D, NULL},
    {"1_000", GQ_EINVALID, 0, 0, D, NULL},
    {"\xef\xbc\x91", GQ_EINVALID, 0, 0, D, NULL}, /* fullwidth digit one */
};

#define NROWS(a) (sizeof(a) / sizeof((a)[0]))

static int parse_str(gq_quantity *q, const char *s, gq_error *err)
{
    return gq_quantity_parse(q, s, strlen(s), err);
}

static void test_parse_table(void)
{
    size_t i;

    for (i = 0; i < NROWS(parse_rows); i++) {
        gq_quantity q = {-7, -7, GQ_QTY_DECIMAL_EXPONENT};
        char buf[GQ_QUANTITY_BUFSIZE];
        gq_error err = {0, ""};
        int rc = parse_str(&q, parse_rows[i].in, &err);

        CHECKF(rc == parse_rows[i].code, "row %zu \"%s\": rc %d, want %d (%s)", i, parse_rows[i].in,
               rc, parse_rows[i].code, err.msg);
        if (parse_rows[i].code != GQ_OK) {
            CHECKF(err.code == parse_rows[i].code && err.msg[0] != '\0', "row %zu", i);
            CHECKF(strchr(err.msg, '\n') == NULL, "row %zu: message is not one line", i);
            continue;
        }
        if (rc != GQ_OK)
            continue;
        CHECKF(q.mantissa == parse_rows[i].mantissa && q.scale == parse_rows[i].scale,
               "row %zu \"%s\": got %lld e%d, want %lld e%d", i, parse_rows[i].in,
               (long long)q.mantissa, (int)q.scale, (long long)parse_rows[i].mantissa,
               (int)parse_rows[i].scale);
        CHECKF(q.format == parse_rows[i].format, "row %zu \"%s\": format %d, want %d", i,
               parse_rows[i].in, (int)q.format, (int)parse_rows[i].format);
        gq_quantity_format(buf, sizeof(buf), &q);
        CHECKF(strcmp(buf, parse_rows[i].canonical) == 0,
               "row %zu \"%s\": printed \"%s\", want \"%s\"", i, parse_rows[i].in, buf,
               parse_rows[i].canonical);
    }
}

/*
 * Go's TestQuantityParse again with "-" and "+" in front of every valid
 * unsigned input: the same magnitude and format, negated or not, and the
 * canonical text with a '-' in front (never "-0").
 */
static void test_parse_signs(void)
{
    size_t i;

    for (i = 0; i < NROWS(parse_rows); i++) {
        const char *in = parse_rows[i].in;
        char text[96], buf[GQ_QUANTITY_BUFSIZE], want[GQ_QUANTITY_BUFSIZE + 1];
        gq_quantity neg, pos;

        if (parse_rows[i].code != GQ_OK || in[0] == '-' || in[0] == '+')
            continue;
        snprintf(text, sizeof(text), "-%s", in);
        CHECKF(parse_str(&neg, text, NULL) == GQ_OK, "row %zu \"%s\"", i, text);
        CHECKF(neg.mantissa == -parse_rows[i].mantissa && neg.scale == parse_rows[i].scale &&
                   neg.format == parse_rows[i].format,
               "row %zu \"%s\"", i, text);
        gq_quantity_format(buf, sizeof(buf), &neg);
        snprintf(want, sizeof(want), "%s%s", parse_rows[i].mantissa ? "-" : "",
                 parse_rows[i].canonical);
        CHECKF(strcmp(buf, want) == 0, "row %zu \"%s\": printed \"%s\", want \"%s\"", i, text, buf,
               want);

        snprintf(text, sizeof(text), "+%s", in);
        CHECKF(parse_str(&pos, text, NULL) == GQ_OK, "row %zu \"%s\"", i, text);
        CHECKF(pos.mantissa == parse_rows[i].mantissa && pos.scale == parse_rows[i].scale &&
                   pos.format == parse_rows[i].format,
               "row %zu \"%s\"", i, text);
    }
}

/*
 * The canonical text parses back to the same value, and is itself canonical
 * (apimachinery re-emits a canonical string verbatim).
 */
static void test_round_trip(void)
{
    size_t i;

    for (i = 0; i < NROWS(parse_rows); i++) {
        char once[GQ_QUANTITY_BUFSIZE], twice[GQ_QUANTITY_BUFSIZE];
        gq_quantity q, r;

        if (parse_rows[i].code != GQ_OK || parse_str(&q, parse_rows[i].in, NULL) != GQ_OK)
            continue;
        gq_quantity_format(once, sizeof(once), &q);
        CHECKF(parse_str(&r, once, NULL) == GQ_OK, "row %zu: \"%s\" does not parse", i, once);
        CHECKF(gq_quantity_cmp(&q, &r) == 0, "row %zu: \"%s\" changed value", i, once);
        CHECKF(q.mantissa == r.mantissa && q.scale == r.scale, "row %zu: \"%s\"", i, once);
        gq_quantity_format(twice, sizeof(twice), &r);
        CHECK_STR(twice, once);
    }
}

/* Error messages: one line naming the value, in apimachinery's words where it has them. */
static void test_messages(void)
{
    static const struct {
        const char *in;
        const char *msg;
    } rows[] = {
        {"1.1.M", "quantities must match the regular expression "
                  "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$': \"1.1.M\""},
        {"", "quantities must match the regular expression "
             "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$': \"\""},
        {"1K", "unable to parse quantity's suffix: \"1K\""},
        {"1e100", "quantity \"1e100\" is too large"},
        {"10000000000.000000001",
         "quantity \"10000000000.000000001\" has too many significant digits"},
        {"1e-500", "quantity \"1e-500\" has an exponent out of range"},
        {"1\"\n", "quantities must match the regular expression "
                  "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$': \"1\\\"\\x0a\""},
    };
    char long_in[200], want[256];
    gq_error err;
    gq_quantity q;
    size_t i;

    for (i = 0; i < NROWS(rows); i++) {
        memset(&err, 0, sizeof(err));
        CHECKF(parse_str(&q, rows[i].in, &err) != GQ_OK, "row %zu", i);
        CHECKF(strcmp(err.msg, rows[i].msg) == 0, "row %zu: got <%s>, want <%s>", i, err.msg,
               rows[i].msg);
    }

    /* A long value is cut to 64 bytes and "...". */
    memset(long_in, '1', 150);
    strcpy(long_in + 150, "K");
    snprintf(want, sizeof(want), "unable to parse quantity's suffix: \"%.64s...\"", long_in);
    CHECK(parse_str(&q, long_in, &err) == GQ_EINVALID);
    CHECK_STR(err.msg, want);

    /* A NULL gq_error is allowed. */
    CHECK(parse_str(&q, "1.1.M", NULL) == GQ_EINVALID);
    CHECK(parse_str(&q, "1e100", NULL) == GQ_ERANGE);
}

/* Only len bytes are read: the text need not be NUL-terminated, and a NUL inside is invalid. */
static void test_parse_length(void)
{
    gq_quantity q;

    CHECK(gq_quantity_parse(&q, "12Mi", 1, NULL) == GQ_OK);
    CHECK(q.mantissa == 1 && q.scale == 0 && q.format == D);
    CHECK(gq_quantity_parse(&q, "12Mi", 4, NULL) == GQ_OK);
    CHECK(q.mantissa == 12582912 && q.format == B);
    CHECK(gq_quantity_parse(&q, "1\0", 2, NULL) == GQ_EINVALID);
    CHECK(gq_quantity_parse(&q, NULL, 0, NULL) == GQ_EINVALID);
}

/*
 * Printing hand-built structs: Go's TestQuantityString table (non-normalised
 * mantissas included), then the edges no parse produces.
 */
static void test_format(void)
{
    static const struct {
        gq_quantity q;
        const char *want;
    } rows[] = {
        {{1073741824, 0, B}, "1Gi"},
        {{300 * 1024 * 1024, 0, B}, "300Mi"},
        {{6 * 1024, 0, B}, "6Ki"},
        {{1001LL * 1024 * 1024 * 1024, 0, B}, "1001Gi"},
        {{1099511627776, 0, B}, "1Ti"},
        {{5, 0, B}, "5"},
        {{500, -3, B}, "500m"},
        {{1, 9, D}, "1G"},
        {{1000, 6, D}, "1G"},
        {{1000000, 3, D}, "1G"},
        {{1000000000, 0, D}, "1G"},
        {{1, -3, D}, "1m"},
        {{80, -3, D}, "80m"},
        {{1080, -3, D}, "1080m"},
        {{108, -2, D}, "1080m"},
        {{10800, -4, D}, "1080m"},
        {{300, 6, D}, "300M"},
        {{1, 12, D}, "1T"},
        {{1, 18, D}, "1E"},
        {{1, 21, D}, "1e21"}, /* no DecimalSI suffix past E: exponent form, as Go now does */
        {{5, 21, D}, "5e21"},
        {{1, 24, D}, "1e24"},
        {{1234567, 6, D}, "1234567M"},
        {{1234567, -3, B}, "1234567m"},
        {{3, 3, D}, "3k"},
        {{1025, 0, B}, "1025"},
        {{0, 0, D}, "0"},
        {{0, 0, B}, "0"},
        {{1, 9, X}, "1e9"},
        {{1, -3, X}, "1e-3"},
        {{1, -9, X}, "1e-9"},
        {{80, -3, X}, "80e-3"},
        {{300, 6, X}, "300e6"},
        {{1, 12, X}, "1e12"},
        {{1, 3, X}, "1e3"},
        {{3, 3, X}, "3e3"},
        {{0, 0, X}, "0"},
        {{0, 17, D}, "0"},
        {{1, -9, D}, "1n"},
        {{80, -9, D}, "80n"},
        {{1080, -9, D}, "1080n"},
        {{108, -8, D}, "1080n"},
        {{10800, -10, D}, "1080n"},
        {{1, -6, D}, "1u"},
        {{80, -6, D}, "80u"},
        {{1080, -6, D}, "1080u"},
        {{-901, -2, D}, "-9010m"},  /* TestQuantityNeg */
        {{1023000, -3, B}, "1023"}, /* 1023, written with trailing zeros */
        {{1024000, -3, B}, "1Ki"},
        {{1048576000, -3, B}, "1Mi"},
        {{1, -12, D}, "1e-12"},
        {{INT64_MIN, 0, D}, "-9223372036854775808"},
        {{INT64_MIN, 0, B}, "-8Ei"},
        {{INT64_MAX, 0, B}, "9223372036854775807"},
        {{INT64_MAX, -9, D}, "9223372036854775807n"},
        {{1, 30, B}, "1e30"}, /* beyond 64 bits: shown as DecimalSI, which has no suffix */
        {{5, 0, (gq_quantity_form)7}, "5"}, /* unknown format: DecimalExponent, as Go */
        {{5, 4, (gq_quantity_form)7}, "50e3"},
        {{1, INT32_MAX, D}, "10e2147483646"},
        {{-1, INT32_MIN, X}, "-10e-2147483649"},
    };
    char buf[GQ_QUANTITY_BUFSIZE];
    size_t i, n;

    for (i = 0; i < NROWS(rows); i++) {
        n = gq_quantity_format(buf, sizeof(buf), &rows[i].q);
        CHECKF(strcmp(buf, rows[i].want) == 0, "row %zu: got \"%s\", want \"%s\"", i, buf,
               rows[i].want);
        CHECKF(n == strlen(rows[i].want), "row %zu: length %zu", i, n);
    }
    /* Negated: the same text with '-' (Go's second loop), except zero. */
    for (i = 0; i < NROWS(rows); i++) {
        gq_quantity q = rows[i].q;
        char want[GQ_QUANTITY_BUFSIZE + 1];

        if (q.mantissa == 0 || q.mantissa == INT64_MIN || rows[i].want[0] == '-')
            continue;
        q.mantissa = -q.mantissa;
        gq_quantity_format(buf, sizeof(buf), &q);
        snprintf(want, sizeof(want), "-%s", rows[i].want);
        CHECKF(strcmp(buf, want) == 0, "row %zu: got \"%s\", want \"%s\"", i, buf, want);
    }
}

/* A short buffer gets a truncated, terminated prefix; the length says what was stored. */
static void test_format_truncation(void)
{
    gq_quantity q = {1610612736, 0, B}; /* "1536Mi" */
    char buf[8] = "xxxxxxx";

    CHECK(gq_quantity_format(buf, 4, &q) == 3);
    CHECK_STR(buf, "153");
    CHECK(gq_quantity_format(buf, 1, &q) == 0);
    CHECK_STR(buf, "");
    memcpy(buf, "xxxxxxx", 8);
    CHECK(gq_quantity_format(buf, 0, &q) == 0);
    CHECK_STR(buf, "xxxxxxx");
    CHECK(gq_quantity_format(NULL, 0, &q) == 0);
    CHECK(gq_quantity_format(buf, 7, &q) == 6);
    CHECK_STR(buf, "1536Mi");
}

/*
 * Value() and MilliValue(): round up away from zero (int64Amount.AsScaledInt64),
 * GQ_ERANGE where Go would overflow silently.
 */
static void test_values(void)
{
    static const struct {
        const char *in;
        int vcode;
        int64_t value;
        int mcode;
        int64_t milli;
    } rows[] = {
        {"0", GQ_OK, 0, GQ_OK, 0},
        {"1", GQ_OK, 1, GQ_OK, 1000},
        {"1.5", GQ_OK, 2, GQ_OK, 1500},
        {"-1.5", GQ_OK, -2, GQ_OK, -1500},
        {"100m", GQ_OK, 1, GQ_OK, 100},
        {"100u", GQ_OK, 1, GQ_OK, 1},
        {"1n", GQ_OK, 1, GQ_OK, 1},
        {"-1n", GQ_OK, -1, GQ_OK, -1},
        {"1.0001m", GQ_OK, 1, GQ_OK, 2},
        {"999m", GQ_OK, 1, GQ_OK, 999},
        {"1001m", GQ_OK, 2, GQ_OK, 1001},
        {"9.01", GQ_OK, 10, GQ_OK, 9010},
        {"-9.01", GQ_OK, -10, GQ_OK, -9010},
        {"1Ki", GQ_OK, 1024, GQ_OK, 1024000},
        {"1Gi", GQ_OK, 1073741824, GQ_OK, 1073741824000},
        {".001Ki", GQ_OK, 2, GQ_OK, 1024},
        {"1E", GQ_OK, 1000000000000000000, GQ_ERANGE, 0},
        {"9Ei", GQ_OK, INT64_MAX, GQ_ERANGE, 0},
        {"-9Ei", GQ_OK, -INT64_MAX, GQ_ERANGE, 0},
        {"9223372036854775807", GQ_OK, INT64_MAX, GQ_ERANGE, 0},
        {"9223372036854775m", GQ_OK, 9223372036855, GQ_OK, 9223372036854775},
        {"9223372036854775.807", GQ_OK, 9223372036854776, GQ_OK, INT64_MAX},
        {"9223372036854775.807m", GQ_OK, 9223372036855, GQ_OK, 9223372036854776},
        {"1e-3", GQ_OK, 1, GQ_OK, 1},
        {"12e6", GQ_OK, 12000000, GQ_OK, 12000000000},
    };
    size_t i;

    for (i = 0; i < NROWS(rows); i++) {
        gq_quantity q;
        int64_t v = -42, m = -42;

        CHECKF(parse_str(&q, rows[i].in, NULL) == GQ_OK, "row %zu", i);
        CHECKF(gq_quantity_value(&v, &q) == rows[i].vcode, "row %zu \"%s\"", i, rows[i].in);
        CHECKF(rows[i].vcode != GQ_OK || v == rows[i].value, "row %zu \"%s\": value %lld", i,
               rows[i].in, (long long)v);
        CHECKF(gq_quantity_milli_value(&m, &q) == rows[i].mcode, "row %zu \"%s\"", i, rows[i].in);
        CHECKF(rows[i].mcode != GQ_OK || m == rows[i].milli, "row %zu \"%s\": milli %lld", i,
               rows[i].in, (long long)m);
    }
}

/* Hand-built structs at the edges of the integer views. */
static void test_values_edges(void)
{
    gq_quantity tiny = {1, -30, D}, ntiny = {-1, -30, D}, big = {1, 19, D};
    gq_quantity min = {INT64_MIN, 0, D}, wide = {10, -1, D}, far = {1, INT32_MAX, D};
    int64_t v = 0;

    CHECK(gq_quantity_value(&v, &tiny) == GQ_OK && v == 1);
    CHECK(gq_quantity_milli_value(&v, &tiny) == GQ_OK && v == 1);
    CHECK(gq_quantity_value(&v, &ntiny) == GQ_OK && v == -1);
    CHECK(gq_quantity_value(&v, &big) == GQ_ERANGE);
    CHECK(gq_quantity_value(&v, &far) == GQ_ERANGE);
    CHECK(gq_quantity_value(&v, &min) == GQ_ERANGE); /* -2^63 is outside +-(2^63-1) */
    CHECK(gq_quantity_value(&v, &wide) == GQ_OK && v == 1);
}

/* Kueue's ResourceValue: milli-units for "cpu", whole units for everything else. */
static void test_resource_value(void)
{
    static const struct {
        const char *resource;
        const char *in;
        int code;
        int64_t want;
    } rows[] = {
        {"cpu", "100u", GQ_OK, 1},
        {"memory", "100u", GQ_OK, 1},
        {"memory", "1.5", GQ_OK, 2},
        {"cpu", "1.5", GQ_OK, 1500},
        {"cpu", "500m", GQ_OK, 500},
        {"cpu", "2", GQ_OK, 2000},
        {"memory", "1Gi", GQ_OK, 1073741824},
        {"nvidia.com/gpu", "1", GQ_OK, 1},
        {"nvidia.com/gpu", "0.5", GQ_OK, 1},
        {"cpus", "1.5", GQ_OK, 2},
        {"CPU", "1.5", GQ_OK, 2},
        {"cpu", "9Ei", GQ_ERANGE, 0},
        {"memory", "9Ei", GQ_OK, INT64_MAX},
        {"cpu", "9223372036854775807", GQ_ERANGE, 0},
        {"cpu", "9223372036854775807m", GQ_OK, INT64_MAX},
    };
    size_t i;

    for (i = 0; i < NROWS(rows); i++) {
        gq_quantity q;
        int64_t v = -42;
        int rc;

        CHECKF(parse_str(&q, rows[i].in, NULL) == GQ_OK, "row %zu", i);
        rc = gq_quantity_resource_value(&v, rows[i].resource, &q);
        CHECKF(rc == rows[i].code, "row %zu: rc %d", i, rc);
        CHECKF(rc != GQ_OK || v == rows[i].want, "row %zu: %s %s = %lld, want %lld", i,
               rows[i].resource, rows[i].in, (long long)v, (long long)rows[i].want);
    }
}

/* Go's TestQuantityCmp on parsed text, plus cross-format equalities. */
static void test_cmp_parsed(void)
{
    static const struct {
        const char *a, *b;
        int want;
    } rows[] = {
        {"0", "0", 0},
        {"100m", "50m", 1},
        {"50m", "100m", -1},
        {"10000T", "100Gi", 1},
        {"0", "0Ki", 0},
        {"-0", "0", 0},
        {"1Ki", "1024", 0},
        {"1k", "1e3", 0},
        {"1.5Gi", "1536Mi", 0},
        {"1.5", "1500m", 0},
        {"-1", "1m", -1},
        {"-1", "-1m", -1},
        {"-500m", "-0.5", 0},
        {"1n", "0", 1},
        {"-1n", "0", -1},
        {"9Ei", "9223372036854775807", 0},
        {"9Ei", "8Ei", 0},
        {"7Ei", "8E", 1},
        {"1E", "999999999999999999", 1},
        {"1000000001n", "1", 1},
    };
    size_t i;

    for (i = 0; i < NROWS(rows); i++) {
        gq_quantity a, b;

        CHECKF(parse_str(&a, rows[i].a, NULL) == GQ_OK && parse_str(&b, rows[i].b, NULL) == GQ_OK,
               "row %zu", i);
        CHECKF(gq_quantity_cmp(&a, &b) == rows[i].want, "row %zu: %s vs %s", i, rows[i].a,
               rows[i].b);
        CHECKF(gq_quantity_cmp(&b, &a) == -rows[i].want, "row %zu: %s vs %s", i, rows[i].b,
               rows[i].a);
    }
}

/* Go's TestQuantityCmpInt64AndDec: non-normalised mantissas and the int64 extremes. */
static void test_cmp_structs(void)
{
    static const struct {
        gq_quantity a, b;
        int want;
    } rows[] = {
        {{901, -2, D}, {901, -2, D}, 0},
        {{90, -1, D}, {901, -2, D}, -1},
        {{901, -2, D}, {900, -2, D}, 1},
        {{0, 0, D}, {0, 0, D}, 0},
        {{0, 1, D}, {0, -1, D}, 0},
        {{0, -1, D}, {0, 1, D}, 0},
        {{800, -3, D}, {1, 0, D}, -1},
        {{800, -3, D}, {79, -2, D}, 1},
        {{INT64_MAX, 0, D}, {1, -1, D}, 1},
        {{INT64_MAX, 1, D}, {1, 0, D}, 1},
        {{INT64_MAX, 1, D}, {1, 1, D}, 1},
        {{INT64_MAX, 1, D}, {0, 1, D}, 1},
        {{INT64_MAX, -16, D}, {1, 3, D}, -1},
        {{INT64_MIN, 0, D}, {0, 0, D}, -1},
        {{INT64_MIN, -18, D}, {-1, 0, D}, -1},
        {{INT64_MIN, -19, D}, {-1, 0, D}, 1},
        {{1000000000000000000, -17, D}, {1, 1, D}, 0},
        {{1000000000000000000, -17, D}, {-10, 0, D}, 1},
        {{-1000000000000000000, -17, D}, {-10, 0, D}, 0},
        {{1000000000000000000, -17, D}, {1, 0, D}, 1},
        {{1000000000000000001, -17, D}, {1, 1, D}, 1},
        {{999999999999999999, -17, D}, {1, 1, D}, -1},
        /* Scales far apart: decided by the leading digit's position alone. */
        {{1, INT32_MAX, D}, {INT64_MAX, 0, D}, 1},
        {{INT64_MAX, INT32_MIN, D}, {1, -2147483600, D}, -1},
        {{-1, INT32_MAX, D}, {1, INT32_MIN, D}, -1},
        {{1024, 0, B}, {1024, 0, D}, 0},
    };
    size_t i;

    for (i = 0; i < NROWS(rows); i++) {
        CHECKF(gq_quantity_cmp(&rows[i].a, &rows[i].b) == rows[i].want, "row %zu", i);
        CHECKF(gq_quantity_cmp(&rows[i].b, &rows[i].a) == -rows[i].want, "row %zu inverted", i);
    }
}

static void test_sign(void)
{
    gq_quantity q;

    CHECK(parse_str(&q, "-500m", NULL) == GQ_OK && gq_quantity_sign(&q) == -1);
    CHECK(parse_str(&q, "0", NULL) == GQ_OK && gq_quantity_sign(&q) == 0);
    CHECK(parse_str(&q, "-0", NULL) == GQ_OK && gq_quantity_sign(&q) == 0);
    CHECK(parse_str(&q, "1n", NULL) == GQ_OK && gq_quantity_sign(&q) == 1);
    CHECK(parse_str(&q, "-0.0000000000001", NULL) == GQ_OK && gq_quantity_sign(&q) == -1);
    q = (gq_quantity){INT64_MIN, 0, D};
    CHECK(gq_quantity_sign(&q) == -1);
}

int main(void)
{
    TEST_RUN(test_parse_table);
    TEST_RUN(test_parse_signs);
    TEST_RUN(test_round_trip);
    TEST_RUN(test_messages);
    TEST_RUN(test_parse_length);
    TEST_RUN(test_format);
    TEST_RUN(test_format_truncation);
    TEST_RUN(test_values);
    TEST_RUN(test_values_edges);
    TEST_RUN(test_resource_value);
    TEST_RUN(test_cmp_parsed);
    TEST_RUN(test_cmp_structs);
    TEST_RUN(test_sign);
    return TEST_DONE();
}
