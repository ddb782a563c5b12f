/*
 * util.h: small pure helpers shared inside libgpuqueue: durations and times
 * as text, SHA-1 for Kueue's deterministic names, quoting, and a growable
 * string buffer (the clocks and UIDs are os/os.h). Internal.
 */
#ifndef GQ_UTIL_H
#define GQ_UTIL_H

#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>


/*
 * A growable NUL-terminated string. A failed allocation is sticky and makes
 * every later call a no-op, so a writer checks `failed` once at the end;
 * p (malloc'd, NULL until something is added) then belongs to the caller.
 */
struct gq__str {
    char *p;
    size_t len; /* bytes before the NUL */
    size_t cap; /* bytes allocated */
    bool failed;
};

/*
 * Make room for element n of a growing array (*p of *cap elements of size
 * bytes), doubling and zeroing the new part. -1 on ENOMEM (*p unchanged).
 */
int gq__grow(void *p, size_t *cap, size_t n, size_t size);

void gq__str_add(struct gq__str *s, const char *text, size_t n);
void gq__str_puts(struct gq__str *s, const char *text);
void gq__str_printf(struct gq__str *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void gq__str_vprintf(struct gq__str *s, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));

/* Levenshtein distance of a and b, the case ignored, stopping past max (then max + 1). */
size_t gq__edit_distance(const char *a, const char *b, size_t max);

/*
 * How near a candidate is to a mistyped word, cobra's rule: 1 when one starts
 * with the other (two letters at least), else the edit distance up to 2; 3
 * (not near) past that or when they are the same word.
 */
size_t gq__suggest_distance(const char *word, const char *candidate);

/* Bytes that always hold gq__i64_text()'s result, NUL included. */
#define GQ_I64_BUFSIZE 21

/* v in decimal into buf, NUL-terminated; returns the length (snprintf's "%lld", faster). */
size_t gq__i64_text(char buf[GQ_I64_BUFSIZE], int64_t v);

/*
 * A duration as Go's time.ParseDuration writes them, in whole milliseconds:
 * one or more <number><unit> with units ms, s, m, h ("90s", "1h30m", "2.5m"),
 * or a bare number of seconds ("600", as Kubernetes' *Seconds fields). No
 * sign, nothing after. 0 and *out set; -1 for anything else or overflow.
 */
int gq__parse_duration_ms(const char *s, int64_t *out);

/* Bytes that always hold a gq__format_duration_ms() result, NUL included. */
#define GQ_DURATION_BUFSIZE 40

/*
 * ms as Go's Duration.String() writes it: "0s", "500ms", "1.5s", "1m30s",
 * "1h0m0s" (negative is "0s"). compact drops the zero units after the
 * largest one, as a person writes it: "1h", "45m", "1h30m", "90s" stays
 * "1m30s". Both forms read back with gq__parse_duration_ms to the same ms.
 */
void gq__format_duration_ms(char *buf, size_t size, int64_t ms, bool compact);

/*
 * The last moment RFC 3339 (and Kubernetes' timestamps) can write,
 * 9999-12-31T23:59:59.999Z, and the simulated cluster's clock may reach: a
 * job whose end falls past it never finishes on its own; a run may not be
 * asked to go past it.
 */
#define GQ__TIME_MAX_MS INT64_C(253402300799999)
#define GQ__TIME_MAX_SQL "253402300799999" /* the same, for SQL text */

/* Bytes that hold a gq__rfc3339() result, NUL included. */
#define GQ_RFC3339_BUFSIZE 32

/* ms since the epoch as Kubernetes writes times, "2026-11-21T08:00:00Z" (UTC). Returns buf. */
const char *gq__rfc3339(char buf[GQ_RFC3339_BUFSIZE], int64_t ms);

/*
 * An RFC 3339 time as Kubernetes writes them ("2024-01-02T03:04:05Z",
 * "...05.123+02:00"; the date checked, fractions to the millisecond) to ms
 * since the epoch. false when malformed.
 */
bool gq__parse_rfc3339(const char *s, int64_t *out);




/* SHA-1 of data, as 40 lowercase hex digits plus NUL. */
void gq__sha1_hex(char out[41], const void *data, size_t len);

/*
 * Kueue's workload name for a job (jobframework GetWorkloadNameForOwnerWithGVK):
 * lower(kind) "-" name, cut to 247 characters, then "-" and the first five hex
 * digits of sha1(kind "\n" group "\n" name "\n" uid). Returns malloc'd text or NULL.
 */
char *gq__workload_name(const char *kind, const char *group, const char *name, const char *uid);

/* Input bytes gq__quote shows, and the buffer it needs. */
#define GQ_QUOTE_MAX 64
#define GQ_QUOTE_BUFSIZE (GQ_QUOTE_MAX * 4 + 8)

/*
 * Write len bytes of s as a double-quoted string for an error message: at
 * most GQ_QUOTE_MAX input bytes, then "..."; quotes, backslashes and
 * non-printing bytes escaped, so the message stays one unambiguous line.
 * Returns buf.
 */
const char *gq__quote(char buf[GQ_QUOTE_BUFSIZE], const char *s, size_t len);

/* strdup that accepts NULL. */
char *gq__strdup(const char *s);


#endif
