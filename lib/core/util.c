/*
 * util.c: durations and RFC 3339 times as text, SHA-1 (FIPS 180-4, written
 * out because Kueue's names need it and no chosen dependency offers it),
 * Kueue's workload names, quoting for messages and a growing string. Pure:
 * the clocks and random UIDs are in os/os.c.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "util.h"

int gq__parse_duration_ms(const char *s, int64_t *out)
{
    static const struct {
        const char *unit;
        int64_t ms;
    } units[] = {{"ms", 1}, {"h", 3600000}, {"m", 60000}, {"s", 1000}};
    const int64_t max = INT64_MAX / 1000;
    int64_t total = 0;
    bool bare = true;

    if (!s || !*s)
        return -1;
    while (*s) {
        int64_t whole = 0, frac = 0, scale = 1, ms = 0, v;
        bool digits = false;
        size_t i, len = 0;

        for (; isdigit((unsigned char)*s); s++, digits = true)
            if (whole > max / 10 || (whole = whole * 10 + (*s - '0')) > max)
                return -1;
        if (*s == '.')
            for (s++; isdigit((unsigned char)*s); s++, digits = true)
                if (scale < 1000000000) {
                    frac = frac * 10 + (*s - '0');
                    scale *= 10;
                }
        if (!digits)
            return -1;
        for (i = 0; i < sizeof(units) / sizeof(units[0]) && !ms; i++)
            if (strncmp(s, units[i].unit, (len = strlen(units[i].unit))) == 0)
                ms = units[i].ms;
        if (!ms) {
            if (*s || !bare) /* a bare number is seconds, and only alone */
                return -1;
            ms = 1000, len = 0;
        }
        bare = false;
        s += len;
        /*
         * The fraction first: whole * ms may sit just below the limit and the
         * fraction's milliseconds push it past ("9223372036854775.9s", found by
         * fuzz_duration).
         */
        v = (frac * ms) / scale;
        if (v > INT64_MAX - total || whole > (INT64_MAX - total - v) / ms)
            return -1;
        v += whole * ms;
        total += v;
    }
    *out = total;
    return 0;
}

void gq__format_duration_ms(char *buf, size_t size, int64_t ms, bool compact)
{
    int64_t h = ms / 3600000, m = ms / 60000 % 60, sec = ms / 1000 % 60;
    int frac = (int)(ms % 1000), digits = 3;
    char fs[8] = "";
    size_t n = 0;

    if (ms <= 0) {
        snprintf(buf, size, "0s");
        return;
    }
    if (ms < 1000) {
        snprintf(buf, size, "%" PRId64 "ms", ms);
        return;
    }
    for (; frac && frac % 10 == 0; frac /= 10)
        digits--;
    if (frac)
        snprintf(fs, sizeof(fs), ".%0*d", digits, frac);
    /* Go writes every unit below the largest; compact only those that are not zero. */
    buf[0] = '\0';
    if (h)
        n += (size_t)snprintf(buf + n, size - n, "%" PRId64 "h", h);
    if (n < size && (m || (h && !compact)))
        n += (size_t)snprintf(buf + n, size - n, "%" PRId64 "m", m);
    if (n < size && (sec || fs[0] || !compact))
        snprintf(buf + n, size - n, "%" PRId64 "%ss", sec, fs);
}

/* Seconds since the epoch of 0000-01-01T00:00:00Z and of 9999-12-31T23:59:59Z. */
#define RFC3339_MIN_S INT64_C(-62167219200)
#define RFC3339_MAX_S INT64_C(253402300799)

/* Hinnant's civil_from_days: the proleptic Gregorian date of a day count since 1970-01-01. */
static void civil_from_days(int64_t z, int64_t *y, int *m, int *d)
{
    int64_t era, doe, yoe, doy, mp;

    z += 719468;
    era = (z >= 0 ? z : z - 146096) / 146097;
    doe = z - era * 146097;
    yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    mp = (5 * doy + 2) / 153;
    *d = (int)(doy - (153 * mp + 2) / 5 + 1);
    *m = (int)(mp < 10 ? mp + 3 : mp - 9);
    *y = yoe + era * 400 + (*m <= 2);
}

/*
 * Always four year digits, as RFC 3339 requires (strftime's %Y wrote "999"
 * for the year 999). RFC 3339 has no years outside 0000..9999, which the
 * parser never accepts either, so a time beyond them is printed as the first
 * or last second of that range, as Go's MarshalJSON refuses to print it.
 */
const char *gq__rfc3339(char buf[GQ_RFC3339_BUFSIZE], int64_t ms)
{
    int64_t s = ms / 1000 - (ms % 1000 < 0), days, secs, y;
    int m, d;

    s = s < RFC3339_MIN_S ? RFC3339_MIN_S : s > RFC3339_MAX_S ? RFC3339_MAX_S : s;
    days = s / 86400 - (s % 86400 < 0);
    secs = s - days * 86400;
    civil_from_days(days, &y, &m, &d);
    /* Each field is in range already; the modulos tell the compiler so (no truncation). */
    snprintf(buf, GQ_RFC3339_BUFSIZE, "%04u-%02u-%02uT%02u:%02u:%02uZ", (unsigned)y % 10000u,
             (unsigned)m % 100u, (unsigned)d % 100u, (unsigned)(secs / 3600) % 100u,
             (unsigned)(secs / 60 % 60), (unsigned)(secs % 60));
    return buf;
}

/* ------------------------------------------------------------------ SHA-1 */

struct sha1 {
    uint32_t h[5];
    uint64_t len;         /* bytes hashed so far */
    unsigned char buf[64];
    size_t nbuf;
};

static uint32_t rol(uint32_t x, int n)
{
    return (x << n) | (x >> (32 - n));
}

static void sha1_block(struct sha1 *s, const unsigned char *p)
{
    uint32_t w[80], a = s->h[0], b = s->h[1], c = s->h[2], d = s->h[3], e = s->h[4], f, k, t;
    int i;

    for (i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
               (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
    for (i = 16; i < 80; i++)
        w[i] = rol(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
    for (i = 0; i < 80; i++) {
        if (i < 20) {
            f = (b & c) | (~b & d);
            k = 0x5A827999;
        } else if (i < 40) {
            f = b ^ c ^ d;
            k = 0x6ED9EBA1;
        } else if (i < 60) {
            f = (b & c) | (b & d) | (c & d);
            k = 0x8F1BBCDC;
        } else {
            f = b ^ c ^ d;
            k = 0xCA62C1D6;
        }
        t = rol(a, 5) + f + e + k + w[i];
        e = d;
        d = c;
        c = rol(b, 30);
        b = a;
        a = t;
    }
    s->h[0] += a;
    s->h[1] += b;
    s->h[2] += c;
    s->h[3] += d;
    s->h[4] += e;
}

static void sha1_update(struct sha1 *s, const void *data, size_t len)
{
    const unsigned char *p = data;

    s->len += len;
    while (len > 0) {
        size_t take = 64 - s->nbuf < len ? 64 - s->nbuf : len;

        memcpy(s->buf + s->nbuf, p, take);
        s->nbuf += take;
        p += take;
        len -= take;
        if (s->nbuf == 64) {
            sha1_block(s, s->buf);
            s->nbuf = 0;
        }
    }
}

void gq__sha1_hex(char out[41], const void *data, size_t len)
{
    struct sha1 s = {{0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0}, 0, {0}, 0};
    uint64_t bits;
    unsigned char tail[8];
    int i;

    sha1_update(&s, data, len);
    bits = s.len * 8;
    sha1_update(&s, "\x80", 1);
    while (s.nbuf != 56)
        sha1_update(&s, "", 1);
    for (i = 0; i < 8; i++)
        tail[i] = (unsigned char)(bits >> (56 - 8 * i));
    sha1_update(&s, tail, 8);
    static const char digits[] = "0123456789abcdef";

    for (i = 0; i < 40; i++)
        out[i] = digits[(s.h[i / 8] >> (28 - 4 * (i % 8))) & 0xf];
    out[40] = '\0';
}

/* ------------------------------------------------------------------ names */

#define WL_NAME_MAX_PREFIX (253 - 1 - 5)

char *gq__workload_name(const char *kind, const char *group, const char *name, const char *uid)
{
    size_t klen = strlen(kind), glen = strlen(group), nlen = strlen(name), ulen = strlen(uid);
    size_t plen = klen + 1 + nlen, i, n = 0;
    char hex[41], *in, *out;

    in = malloc(klen + glen + nlen + ulen + 4);
    out = malloc((plen < WL_NAME_MAX_PREFIX ? plen : WL_NAME_MAX_PREFIX) + 7);
    if (!in || !out) {
        free(in);
        free(out);
        return NULL;
    }
    /* kind "\n" group "\n" name "\n" uid, without printf: this runs per job. */
    memcpy(in + n, kind, klen);
    n += klen;
    in[n++] = '\n';
    memcpy(in + n, group, glen);
    n += glen;
    in[n++] = '\n';
    memcpy(in + n, name, nlen);
    n += nlen;
    in[n++] = '\n';
    memcpy(in + n, uid, ulen);
    n += ulen;
    gq__sha1_hex(hex, in, n);
    free(in);
    /* lower(kind) "-" name, cut to WL_NAME_MAX_PREFIX characters (kinds are short). */
    if (plen > WL_NAME_MAX_PREFIX)
        plen = WL_NAME_MAX_PREFIX;
    for (i = 0; i < klen && i < plen; i++)
        out[i] = (char)tolower((unsigned char)kind[i]);
    if (klen < plen) {
        out[klen] = '-';
        memcpy(out + klen + 1, name, plen - klen - 1);
    }
    out[plen] = '-';
    memcpy(out + plen + 1, hex, 5);
    out[plen + 6] = '\0';
    return out;
}

char *gq__strdup(const char *s)
{
    return s ? strdup(s) : NULL;
}

const char *gq__quote(char buf[GQ_QUOTE_BUFSIZE], const char *s, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    size_t i, n = 0;

    buf[n++] = '"';
    for (i = 0; i < len && i < GQ_QUOTE_MAX; i++) {
        unsigned char c = (unsigned char)s[i];

        if (c == '"' || c == '\\') {
            buf[n++] = '\\';
            buf[n++] = (char)c;
        } else if (c < 0x20 || c >= 0x7f) {
            buf[n++] = '\\';
            buf[n++] = 'x';
            buf[n++] = hex[c >> 4];
            buf[n++] = hex[c & 0xf];
        } else {
            buf[n++] = (char)c;
        }
    }
    if (len > GQ_QUOTE_MAX) {
        memcpy(buf + n, "...", 3);
        n += 3;
    }
    buf[n++] = '"';
    buf[n] = '\0';
    return buf;
}

/* ------------------------------------------------------------ RFC 3339 */

/* Days since 1970-01-01 of a proleptic Gregorian date (Hinnant's days_from_civil). */
static int64_t days_from_civil(int64_t y, int m, int d)
{
    int64_t era, yoe, doy, doe;

    y -= m <= 2;
    era = (y >= 0 ? y : y - 399) / 400;
    yoe = y - era * 400;
    doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

/* n decimal digits at s into *out; false if any is not a digit. */
static bool digits(const char *s, int n, int *out)
{
    int i, v = 0;

    for (i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return true;
}

/* The fraction and zone after "YYYY-MM-DDTHH:MM:SS": adds them to *ms. */
static bool parse_zone(const char *s, int64_t *ms)
{
    int frac = 0, scale = 1000, hh, mm, sign;

    if (*s == '.') {
        if (s[1] < '0' || s[1] > '9')
            return false;
        for (s++; *s >= '0' && *s <= '9'; s++) {
            if (scale > 1) {
                scale /= 10;
                frac += (*s - '0') * scale;
            }
        }
    }
    *ms += frac;
    if ((*s == 'Z' || *s == 'z') && !s[1])
        return true;
    /* The length first: "+", "+0" or "-" end before s[3] (fuzz_rfc3339 found the over-read). */
    if ((*s != '+' && *s != '-') || strlen(s) != 6 || s[3] != ':')
        return false;
    sign = *s == '-' ? -1 : 1;
    if (!digits(s + 1, 2, &hh) || !digits(s + 4, 2, &mm) || hh > 23 || mm > 59)
        return false;
    *ms -= sign * (int64_t)(hh * 60 + mm) * 60000;
    return true;
}

bool gq__parse_rfc3339(const char *s, int64_t *out)
{
    static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int y, mo, d, h, mi, sec, dim;

    if (strlen(s) < 20 || !digits(s, 4, &y) || s[4] != '-' || !digits(s + 5, 2, &mo) ||
        s[7] != '-' || !digits(s + 8, 2, &d) || (s[10] != 'T' && s[10] != 't') ||
        !digits(s + 11, 2, &h) || s[13] != ':' || !digits(s + 14, 2, &mi) || s[16] != ':' ||
        !digits(s + 17, 2, &sec))
        return false;
    if (mo < 1 || mo > 12 || h > 23 || mi > 59 || sec > 59)
        return false;
    dim = mdays[mo - 1] + (mo == 2 && y % 4 == 0 && (y % 100 != 0 || y % 400 == 0));
    if (d < 1 || d > dim)
        return false;
    *out = ((days_from_civil(y, mo, d) * 24 + h) * 60 + mi) * 60000 + (int64_t)sec * 1000;
    return parse_zone(s + 19, out);
}

size_t gq__i64_text(char buf[GQ_I64_BUFSIZE], int64_t v)
{
    char rev[GQ_I64_BUFSIZE];
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    size_t n = 0, len = 0;

    do {
        rev[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        buf[len++] = '-';
    while (n)
        buf[len++] = rev[--n];
    buf[len] = '\0';
    return len;
}

static bool str_reserve(struct gq__str *s, size_t n)
{
    size_t cap = s->cap ? s->cap : 256;
    char *p;

    if (s->failed)
        return false;
    if (s->len + n + 1 <= s->cap)
        return true;
    while (cap < s->len + n + 1)
        cap *= 2;
    if (!(p = realloc(s->p, cap))) {
        s->failed = true;
        return false;
    }
    s->p = p;
    s->cap = cap;
    return true;
}

void gq__str_add(struct gq__str *s, const char *text, size_t n)
{
    if (!str_reserve(s, n))
        return;
    memcpy(s->p + s->len, text, n);
    s->len += n;
    s->p[s->len] = '\0';
}

void gq__str_puts(struct gq__str *s, const char *text)
{
    gq__str_add(s, text, strlen(text));
}

void gq__str_vprintf(struct gq__str *s, const char *fmt, va_list ap)
{
    char small[256];
    va_list again;
    int n;

    va_copy(again, ap);
    n = vsnprintf(small, sizeof(small), fmt, ap);
    if (n < 0)
        s->failed = true;
    else if ((size_t)n < sizeof(small))
        gq__str_add(s, small, (size_t)n);
    else if (str_reserve(s, (size_t)n)) {
        vsnprintf(s->p + s->len, (size_t)n + 1, fmt, again);
        s->len += (size_t)n;
    }
    va_end(again);
}

void gq__str_printf(struct gq__str *s, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    gq__str_vprintf(s, fmt, ap);
    va_end(ap);
}

size_t gq__edit_distance(const char *a, const char *b, size_t max)
{
    size_t la = strlen(a), lb = strlen(b), i, j, row[65], prev, cur, best;

    if (la > 64 || lb > 64)
        return max + 1;
    if ((la > lb ? la - lb : lb - la) > max)
        return max + 1;
    for (j = 0; j <= lb; j++)
        row[j] = j;
    for (i = 1; i <= la; i++) {
        prev = row[0];
        row[0] = i;
        best = row[0];
        for (j = 1; j <= lb; j++) {
            size_t sub = prev + (tolower((unsigned char)a[i - 1]) !=
                                 tolower((unsigned char)b[j - 1]));
            size_t del = row[j] + 1, ins = row[j - 1] + 1;

            cur = sub < del ? sub : del;
            cur = cur < ins ? cur : ins;
            prev = row[j];
            row[j] = cur;
            if (cur < best)
                best = cur;
        }
        if (best > max)
            return max + 1;
    }
    return row[lb];
}

size_t gq__suggest_distance(const char *word, const char *candidate)
{
    size_t n = strlen(word), m = strlen(candidate);

    if (!n || !strcasecmp(word, candidate))
        return 3;
    if (n >= 2 && !strncasecmp(word, candidate, n < m ? n : m))
        return 1;
    return gq__edit_distance(word, candidate, 2);
}

int gq__grow(void *pv, size_t *cap, size_t n, size_t size)
{
    void **p = pv, *nv;
    size_t c;

    if (n < *cap)
        return 0;
    c = *cap ? *cap * 2 : 16;
    if (!(nv = realloc(*p, c * size)))
        return -1;
    memset((char *)nv + *cap * size, 0, (c - *cap) * size);
    *p = nv;
    *cap = c;
    return 0;
}
