/*
 * quantity.c: Kubernetes resource quantities ("100m", "1.5Gi", "1e3"), parsed
 * and printed as k8s.io/apimachinery pkg/api/resource does (quantity.go,
 * suffix.go, amount.go), but held in 64 bits instead of arbitrary precision.
 *
 * Parsing computes the magnitude exactly, in nano-units (10^-9) rounded up
 * away from zero, using 128-bit arithmetic and a digit-by-digit pass over the
 * fraction, so no input is ever rounded twice or wrapped. A magnitude above
 * 2^63-1 units is capped for BinarySI (as apimachinery caps it) and rejected
 * with GQ_ERANGE otherwise; so is a value whose nano-rounded mantissa needs
 * more than 63 bits. Every parsed gq_quantity therefore satisfies: scale >= -9,
 * |mantissa * 10^scale| <= 2^63-1, no trailing zeros in the mantissa, zero is
 * {0, 0}. The printing, comparison and integer views accept any struct, even
 * one that the parser could not have produced.
 *
 * Deliberate differences from apimachinery, all of them rejections of text
 * that Go accepts: a number must have at least one digit (Go reads ".", "+",
 * "-", "e3" and "Ki" as zero), a decimal value above 2^63-1 units is an error
 * ("12E"), and so is an exponent beyond +-100 (Go takes any exponent that fits in
 * 64 bits and silently truncates it to 32).
 *
 * Quantities are short (a few to a few dozen bytes) and are parsed once per
 * manifest or API object, so the code favours exactness over speed.
 */
#include <assert.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "util.h"
#include "gpuqueue/quantity.h"

/* GCC and Clang both provide it; __extension__ keeps -Wpedantic quiet. */
__extension__ typedef unsigned __int128 u128;

#define UNITS_MAX ((uint64_t)INT64_MAX) /* the largest magnitude, in whole units */
#define NANO 1000000000u                /* nano-units per unit */
#define EXP_LIMIT 100                   /* |exponent| allowed in "1e<exp>" */

/* API misuse in a function that has no gq_error: abort in debug builds. */
#define ARG_CHECK(x)                                                                               \
    do {                                                                                           \
        assert(x);                                                                                 \
        if (!(x))                                                                                  \
            return GQ_EINVALID;                                                                    \
    } while (0)

/* apimachinery's ErrFormatWrong, word for word. */
static const char format_wrong[] = "quantities must match the regular expression "
                                   "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

/* The letters that may start a suffix (apimachinery's parseQuantityString). */
static const char suffix_letters[] = "eEinumkKMGTP";

/* 10^0 .. 10^19, all that fit in 64 bits. */
/* clang-format off */
static const uint64_t pow10_table[20] = {
    1u, 10u, 100u, 1000u, 10000u, 100000u, 1000000u, 10000000u, 100000000u, 1000000000u,
    10000000000u, 100000000000u, 1000000000000u, 10000000000000u, 100000000000000u,
    1000000000000000u, 10000000000000000u, 100000000000000000u, 1000000000000000000u,
    10000000000000000000u,
};
/* clang-format on */

/* The suffix tables, decimal first: the lookup order makes "1E" exa, not an exponent. */
static const struct {
    const char *name; /* as written */
    int base;         /* 10 or 2 */
    int exp;          /* the power of base it stands for */
} suffix_table[] = {
    {"n", 10, -9}, {"u", 10, -6}, {"m", 10, -3}, {"", 10, 0},   {"k", 10, 3},  {"M", 10, 6},
    {"G", 10, 9},  {"T", 10, 12}, {"P", 10, 15}, {"E", 10, 18}, {"Ki", 2, 10}, {"Mi", 2, 20},
    {"Gi", 2, 30}, {"Ti", 2, 40}, {"Pi", 2, 50}, {"Ei", 2, 60},
};

/* A quantity's text split into its parts; the pointers borrow the caller's buffer. */
struct scan {
    bool neg;       /* a leading '-' */
    const char *ip; /* integer digits, possibly with leading zeros */
    size_t ilen;
    const char *fp; /* fraction digits after '.'; NULL when there is no '.' */
    size_t flen;
    const char *sp; /* the suffix: letters, an optional sign, digits */
    size_t slen;
};

/* What a suffix means: value = number * base^exp, printed in format. */
struct suffix {
    int base;
    int exp;
    gq_quantity_form format;
};

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static size_t skip_digits(const char *s, size_t i, size_t len)
{
    while (i < len && is_digit(s[i]))
        i++;
    return i;
}

static uint64_t magnitude(int64_t m)
{
    /* -(m + 1) cannot overflow, even for INT64_MIN. */
    return m < 0 ? (uint64_t)(-(m + 1)) + 1 : (uint64_t)m;
}

/*
 * Split s into sign, integer digits, fraction digits and suffix, with the
 * shape rules of apimachinery's parseQuantityString, plus one of its
 * documented grammar: the number needs at least one digit. Returns false when
 * the text has the wrong shape.
 */
static bool scan_quantity(struct scan *sc, const char *s, size_t len)
{
    size_t i = 0, j;

    memset(sc, 0, sizeof(*sc));
    if (len == 0)
        return false; /* and s may be NULL */
    if (s[i] == '+' || s[i] == '-')
        sc->neg = s[i++] == '-';
    j = skip_digits(s, i, len);
    sc->ip = s + i;
    sc->ilen = j - i;
    i = j;
    if (i < len && s[i] == '.') {
        j = skip_digits(s, ++i, len);
        sc->fp = s + i;
        sc->flen = j - i;
        i = j;
    }
    if (sc->ilen + sc->flen == 0)
        return false;
    sc->sp = s + i;
    while (i < len && memchr(suffix_letters, s[i], sizeof(suffix_letters) - 1))
        i++;
    if (i < len && (s[i] == '+' || s[i] == '-'))
        i++;
    i = skip_digits(s, i, len);
    sc->slen = (size_t)(s + i - sc->sp);
    return i == len;
}

/*
 * Read "[+-]digits" as an exponent, saturating just past EXP_LIMIT so that
 * no digit string can overflow. Returns false unless it is exactly that shape.
 */
static bool parse_exponent(int *out, const char *s, size_t len)
{
    size_t i = 0;
    bool neg = false;
    int v = 0;

    if (i < len && (s[i] == '+' || s[i] == '-'))
        neg = s[i++] == '-';
    if (i == len)
        return false;
    for (; i < len; i++) {
        if (!is_digit(s[i]))
            return false;
        if (v <= EXP_LIMIT)
            v = v * 10 + (s[i] - '0');
    }
    *out = neg ? -v : v;
    return true;
}

/*
 * Interpret a suffix as apimachinery's suffixer does: the decimal SI table,
 * then the binary table, then "e"/"E" and a signed integer. Returns GQ_OK,
 * GQ_EINVALID for an unknown suffix or GQ_ERANGE for an exponent past
 * EXP_LIMIT.
 */
static int interpret_suffix(struct suffix *out, const char *s, size_t len)
{
    size_t i;

    for (i = 0; i < sizeof(suffix_table) / sizeof(suffix_table[0]); i++) {
        if (strlen(suffix_table[i].name) == len && memcmp(suffix_table[i].name, s, len) == 0) {
            out->base = suffix_table[i].base;
            out->exp = suffix_table[i].exp;
            out->format = out->base == 2 ? GQ_QTY_BINARY_SI : GQ_QTY_DECIMAL_SI;
            return GQ_OK;
        }
    }
    if (len < 2 || (s[0] != 'e' && s[0] != 'E') || !parse_exponent(&out->exp, s + 1, len - 1))
        return GQ_EINVALID;
    if (out->exp > EXP_LIMIT || out->exp < -EXP_LIMIT)
        return GQ_ERANGE;
    out->base = 10;
    out->format = GQ_QTY_DECIMAL_EXPONENT;
    return GQ_OK;
}

/*
 * The digit at position i of the number's digits (integer digits, then
 * fraction digits); positions outside them are the implicit zeros.
 */
static unsigned digit_at(const struct scan *sc, int64_t i)
{
    if (i < 0)
        return 0;
    if ((uint64_t)i < sc->ilen)
        return (unsigned)(sc->ip[i] - '0');
    i -= (int64_t)sc->ilen;
    if ((uint64_t)i < sc->flen)
        return (unsigned)(sc->fp[i] - '0');
    return 0;
}

/*
 * The integer formed by the digits before position `point`. Returns false
 * when it exceeds UNITS_MAX, which already makes the quantity too large.
 */
static bool integer_part(uint64_t *out, const struct scan *sc, int64_t point)
{
    uint64_t v = 0;
    int64_t i;

    for (i = 0; i < point; i++) {
        unsigned d = digit_at(sc, i);

        if (v > (UNITS_MAX - d) / 10)
            return false;
        v = v * 10 + d;
    }
    *out = v;
    return true;
}

/*
 * ceil(F * k), where F is the fraction formed by the digits from position
 * `point` on. Long multiplication from the last digit up: each step keeps
 * floor((digit * k + carry) / 10), which nests exactly, and any non-zero
 * remainder on the way means the product was not a whole number.
 */
static u128 fraction_ceil(const struct scan *sc, int64_t point, u128 k)
{
    int64_t i = (int64_t)(sc->ilen + sc->flen) - 1;
    bool inexact = false;
    u128 carry = 0;

    for (; i >= point; i--) {
        u128 v = (u128)digit_at(sc, i) * k + carry;

        carry = v / 10;
        inexact |= v % 10 != 0;
    }
    return carry + inexact;
}

/*
 * The magnitude of the scanned number times its suffix, in nano-units rounded
 * up. Returns false when it exceeds 2^63-1 whole units.
 */
static bool to_nanos(u128 *out, const struct scan *sc, const struct suffix *suf)
{
    int64_t point = (int64_t)sc->ilen;
    uint64_t mult = 1, units;
    u128 n;

    if (suf->base == 10)
        point += suf->exp;
    else
        mult = (uint64_t)1 << suf->exp;
    if (!integer_part(&units, sc, point) || (u128)units * mult > UNITS_MAX)
        return false;
    n = (u128)units * mult * NANO + fraction_ceil(sc, point, (u128)mult * NANO);
    *out = n;
    return n <= (u128)UNITS_MAX * NANO;
}

/* Why a value whose text is well formed is still refused. */
enum refusal {
    ACCEPTED,
    TOO_LARGE,   /* beyond 2^63-1 units, and not BinarySI (which is capped instead) */
    TOO_PRECISE, /* the nano-rounded mantissa needs more than 63 bits */
};

/*
 * Turn a nano-unit magnitude n (fits: at most 2^63-1 units) into a
 * normalised quantity, applying the BinarySI cap and apimachinery's switch
 * of sub-unit BinarySI values to DecimalSI.
 */
static enum refusal build(gq_quantity *out, bool neg, gq_quantity_form format, bool fits, u128 n)
{
    gq_quantity q = {0, 0, format};

    if (!fits && format != GQ_QTY_BINARY_SI)
        return TOO_LARGE;
    if (!fits) {
        n = UNITS_MAX * (u128)NANO;
    } else if (n == 0) {
        *out = q;
        return ACCEPTED;
    } else if (format == GQ_QTY_BINARY_SI && n < NANO) {
        q.format = GQ_QTY_DECIMAL_SI;
    }
    for (q.scale = -9; n % 10 == 0; q.scale++)
        n /= 10;
    if (n > UNITS_MAX)
        return TOO_PRECISE;
    q.mantissa = neg ? -(int64_t)n : (int64_t)n;
    *out = q;
    return ACCEPTED;
}

int gq_quantity_parse(gq_quantity *out, const char *s, size_t len, gq_error *err)
{
    struct scan sc;
    struct suffix suf;
    char qv[GQ_QUOTE_BUFSIZE];
    bool fits;
    u128 n = 0;
    int rc;

    GQ_ASSERT_ARG(out);
    GQ_ASSERT_ARG(s || len == 0);
    if (!scan_quantity(&sc, s, len))
        return gq__error(err, GQ_EINVALID, "%s: %s", format_wrong, gq__quote(qv, s, len));
    rc = interpret_suffix(&suf, sc.sp, sc.slen);
    if (rc == GQ_EINVALID)
        return gq__error(err, rc, "unable to parse quantity's suffix: %s", gq__quote(qv, s, len));
    if (rc != GQ_OK)
        return gq__error(err, rc, "quantity %s has an exponent out of range", gq__quote(qv, s, len));
    fits = to_nanos(&n, &sc, &suf);
    switch (build(out, sc.neg, suf.format, fits, n)) {
    case TOO_LARGE:
        return gq__error(err, GQ_ERANGE, "quantity %s is too large", gq__quote(qv, s, len));
    case TOO_PRECISE:
        return gq__error(err, GQ_ERANGE, "quantity %s has too many significant digits",
                         gq__quote(qv, s, len));
    default:
        return GQ_OK;
    }
}

/*
 * BinarySI printing (apimachinery CanonicalizeBytes): an integer of at least
 * 1024 in magnitude, divided by 1024 as often as it divides exactly. Returns
 * false when the value must be shown as DecimalSI instead: below 1024, not a
 * whole number, or (only for hand-built structs) beyond 64 bits.
 */
static bool format_binary(char *out, size_t size, const gq_quantity *q)
{
    static const char *const units[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
    uint64_t v = magnitude(q->mantissa);
    int64_t e = q->scale;
    int i = 0;

    while (v % 10 == 0) {
        v /= 10;
        e++;
    }
    if (e < 0 || e > 19)
        return false;
    if (v > UINT64_MAX / pow10_table[e])
        return false;
    v *= pow10_table[e];
    if (v < 1024)
        return false;
    while (v % 1024 == 0) {
        v /= 1024;
        i++;
    }
    snprintf(out, size, "%s%" PRIu64 "%s", q->mantissa < 0 ? "-" : "", v, units[i]);
    return true;
}

static const char *decimal_si_suffix(int64_t e)
{
    static const char *const names[] = {"n", "u", "m", "", "k", "M", "G", "T", "P", "E"};

    if (e < -9 || e > 18 || e % 3 != 0)
        return NULL;
    return names[(e + 9) / 3];
}

/*
 * DecimalSI and DecimalExponent printing: strip factors of ten, then lower
 * the exponent to a multiple of three by appending one or two zeros (text, so
 * it cannot overflow). DecimalSI falls back to "e<exp>" past "n" and "E", as
 * apimachinery now does rather than dropping the magnitude.
 */
static void format_decimal(char *out, size_t size, const gq_quantity *q, gq_quantity_form f)
{
    uint64_t v = magnitude(q->mantissa);
    int64_t e = q->scale;
    const char *zeros = "", *suffix = NULL;

    while (v % 10 == 0) {
        v /= 10;
        e++;
    }
    switch (e % 3) {
    case 1:
    case -2:
        zeros = "0";
        e -= 1;
        break;
    case 2:
    case -1:
        zeros = "00";
        e -= 2;
        break;
    }
    if (f == GQ_QTY_DECIMAL_SI)
        suffix = decimal_si_suffix(e);
    if (!suffix && e == 0)
        suffix = "";
    if (suffix)
        snprintf(out, size, "%s%" PRIu64 "%s%s", q->mantissa < 0 ? "-" : "", v, zeros, suffix);
    else
        snprintf(out, size, "%s%" PRIu64 "%se%" PRId64, q->mantissa < 0 ? "-" : "", v, zeros, e);
}

size_t gq_quantity_format(char *buf, size_t size, const gq_quantity *q)
{
    char tmp[GQ_QUANTITY_BUFSIZE];
    size_t n;

    assert(q && (buf || size == 0));
    if (q->mantissa == 0) {
        strcpy(tmp, "0");
    } else {
        switch (q->format) {
        case GQ_QTY_BINARY_SI:
            if (!format_binary(tmp, sizeof(tmp), q))
                format_decimal(tmp, sizeof(tmp), q, GQ_QTY_DECIMAL_SI);
            break;
        case GQ_QTY_DECIMAL_SI:
            format_decimal(tmp, sizeof(tmp), q, GQ_QTY_DECIMAL_SI);
            break;
        default:
            /* apimachinery prints an unknown format as DecimalExponent. */
            format_decimal(tmp, sizeof(tmp), q, GQ_QTY_DECIMAL_EXPONENT);
            break;
        }
    }
    if (size == 0)
        return 0;
    n = strlen(tmp);
    if (n >= size)
        n = size - 1;
    memcpy(buf, tmp, n);
    buf[n] = '\0';
    return n;
}

/*
 * q in units of 10^scale, rounded away from zero when inexact, as
 * apimachinery's int64Amount.AsScaledInt64 does. GQ_ERANGE past 2^63-1 in
 * magnitude (so -2^63 is out of range too).
 */
static int scaled_value(int64_t *out, const gq_quantity *q, int64_t scale)
{
    uint64_t v = magnitude(q->mantissa), p;
    int64_t d = (int64_t)q->scale - scale;

    if (v == 0) {
        *out = 0;
        return GQ_OK;
    }
    for (; d > 0; d--) {
        if (v > UNITS_MAX / 10)
            return GQ_ERANGE;
        v *= 10;
    }
    if (d < -19) {
        v = 1;
    } else if (d < 0) {
        p = pow10_table[-d];
        v = v / p + (v % p != 0);
    }
    if (v > UNITS_MAX)
        return GQ_ERANGE;
    *out = q->mantissa < 0 ? -(int64_t)v : (int64_t)v;
    return GQ_OK;
}

int gq_quantity_value(int64_t *out, const gq_quantity *q)
{
    ARG_CHECK(out && q);
    return scaled_value(out, q, 0);
}

int gq_quantity_milli_value(int64_t *out, const gq_quantity *q)
{
    ARG_CHECK(out && q);
    return scaled_value(out, q, -3);
}

int gq_quantity_resource_value(int64_t *out, const char *resource, const gq_quantity *q)
{
    ARG_CHECK(out && resource && q);
    if (strcmp(resource, "cpu") == 0)
        return scaled_value(out, q, -3);
    return scaled_value(out, q, 0);
}

static int ndigits(uint64_t v)
{
    int n = 1;

    while (v >= 10) {
        v /= 10;
        n++;
    }
    return n;
}

/*
 * Compare x*10^xs with y*10^ys, both non-zero: first by the position of the
 * leading digit, then, with the leading digits aligned, as integers. After
 * stripping trailing zeros the alignment shifts by at most 18 places and the
 * shifted value keeps at most 19 digits, so it fits.
 */
static int cmp_magnitude(uint64_t x, int64_t xs, uint64_t y, int64_t ys)
{
    int64_t lx, ly;

    for (; x % 10 == 0; xs++)
        x /= 10;
    for (; y % 10 == 0; ys++)
        y /= 10;
    lx = ndigits(x) + xs;
    ly = ndigits(y) + ys;
    if (lx != ly)
        return lx < ly ? -1 : 1;
    if (xs > ys)
        x *= pow10_table[xs - ys];
    else
        y *= pow10_table[ys - xs];
    return x < y ? -1 : x > y;
}

int gq_quantity_cmp(const gq_quantity *a, const gq_quantity *b)
{
    int sa, sb, c;

    assert(a && b);
    sa = gq_quantity_sign(a);
    sb = gq_quantity_sign(b);
    if (sa != sb)
        return sa < sb ? -1 : 1;
    if (sa == 0)
        return 0;
    c = cmp_magnitude(magnitude(a->mantissa), a->scale, magnitude(b->mantissa), b->scale);
    return sa > 0 ? c : -c;
}

int gq_quantity_sign(const gq_quantity *q)
{
    assert(q);
    return q->mantissa < 0 ? -1 : q->mantissa > 0;
}
