/*
 * gpuqueue/common.h: what every part of the libgpuqueue API shares: the export
 * macro, error codes, the caller-owned error buffer and the library allocator.
 */
#ifndef GPUQUEUE_COMMON_H
#define GPUQUEUE_COMMON_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(GQ_STATIC_DEFINE)
#define GQ_EXTERN extern
#elif defined(__GNUC__)
#define GQ_EXTERN extern __attribute__((visibility("default")))
#else
#define GQ_EXTERN extern
#endif

/*
 * A member named "namespace" in C. C++ reserves the word, so a C++ program
 * reads it as "namespace_": the same member, the same layout and ABI.
 */
#ifdef __cplusplus
#define GQ_NAMESPACE namespace_
#else
#define GQ_NAMESPACE namespace
#endif

#define GQ_VERSION_MAJOR 0
#define GQ_VERSION_MINOR 1
#define GQ_VERSION_PATCH 0
#define GQ_VERSION "0.1.0"

/*
 * Error codes. Every fallible function returns GQ_OK (0) or one of these
 * negative values. The list is append-only once released.
 */
#define GQ_ERRNO_MAP(XX)                                                                           \
    XX(ERROR, -1, "error")                                                                         \
    XX(EBUSY, -2, "database is busy")                                                              \
    XX(ENOTFOUND, -3, "not found")                                                                 \
    XX(EEXISTS, -4, "already exists")                                                              \
    XX(EINVALID, -5, "invalid argument")                                                           \
    XX(ECONFLICT, -6, "conflict")                                                                  \
    XX(EQUOTA, -7, "quota exceeded")                                                               \
    XX(ENOMEM, -8, "out of memory")                                                                \
    XX(EIO, -9, "storage error")                                                                   \
    XX(EK8S, -10, "kubernetes API error")                                                          \
    XX(ERANGE, -11, "value out of range")                                                          \
    XX(ESCHEMA, -12, "database schema is newer than this program")                                 \
    XX(EUNSUPPORTED, -13, "unsupported")                                                          \
    XX(ENOTLEADER, -14, "not the leader: the lease was lost or may have lapsed")

enum {
    GQ_OK = 0,
#define GQ__ERRNO_ENUM(name, value, text) GQ_##name = (value),
    GQ_ERRNO_MAP(GQ__ERRNO_ENUM)
#undef GQ__ERRNO_ENUM
};

/*
 * A caller-owned error buffer. Functions that fail fill `msg` with one
 * lowercase line that names the offending value. A NULL gq_error is allowed
 * wherever one is taken. The fixed size lets out-of-memory be reported
 * without allocating.
 */
typedef struct gq_error {
    int code;      /* the GQ_E* code that was returned */
    char msg[512]; /* one line, NUL-terminated */
} gq_error;

/** The static text for an error code ("not found"); never NULL. */
GQ_EXTERN const char *gq_strerror(int code);

/** The symbolic name of an error code ("ENOTFOUND"); never NULL. */
GQ_EXTERN const char *gq_errname(int code);

/** Release memory the library allocated and handed to the caller. NULL is a no-op. */
GQ_EXTERN void gq_free(void *ptr);

/** The library's version string, e.g. "0.1.0". */
GQ_EXTERN const char *gq_version(void);

#ifdef __cplusplus
}
#endif

#endif
