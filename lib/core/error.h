/*
 * error.h: filling a caller's gq_error. Internal to libgpuqueue.
 */
#ifndef GQ_ERROR_INTERNAL_H
#define GQ_ERROR_INTERNAL_H

#include "gpuqueue/common.h"

/*
 * Set err (which may be NULL) to code and a printf-formatted one-line
 * message, and return code, so that callers can write
 * `return gq__error(err, GQ_EINVALID, "bad %s", x);`.
 */
int gq__error(gq_error *err, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Put `prefix: ` in front of err->msg, keeping the code. Returns err->code. */
int gq__error_prefix(gq_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * The one version rule for the public options structs (the `version` member
 * each has first): version 1 to current is accepted; 0 or anything above
 * current is GQ_EINVALID naming the struct (name) and the version. Every
 * entry point that takes such a struct calls this before reading anything
 * else of it, then reads an older version's struct only up to the members
 * that version had (offsetof), the rest keeping their defaults.
 */
int gq__version_check(unsigned int version, unsigned int current, const char *name,
                      gq_error *err);

/* API misuse: abort in debug builds, GQ_EINVALID in release builds. */
#ifdef NDEBUG
#define GQ_ASSERT_ARG(x)                                                                           \
    do {                                                                                           \
        if (!(x))                                                                                  \
            return gq__error(err, GQ_EINVALID, "invalid argument: %s", #x);                        \
    } while (0)
#else
#include <assert.h>
#define GQ_ASSERT_ARG(x) assert(x)
#endif

#endif
