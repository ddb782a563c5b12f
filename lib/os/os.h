/*
 * os.h: the clocks, random UIDs and crash points (os/os.c). Every layer but
 * core/ may include it; the core is handed the time. Internal.
 */
#ifndef GQ_OS_H
#define GQ_OS_H

#include <stddef.h>
#include <stdint.h>

/* Wall-clock time in milliseconds since the Unix epoch (edges only: the core takes `now`). */
int64_t gq__now_ms(void);

/* Monotonic time in microseconds, for measuring durations. */
int64_t gq__mono_us(void);

/* A new random RFC 4122 UID, lowercase, into out (37 bytes with the NUL). */
void gq__uid_new(char out[37]);

/*
 * n random characters from Kubernetes' generateName alphabet
 * ("bcdfghjklmnpqrstvwxz2456789"), as the API server appends them.
 */
void gq__random_suffix(char *out, size_t n);

/*
 * Test builds (GQ_TEST_HOOKS, Debug): exit at once with status 137, as a
 * SIGKILL would leave things, when the environment's GQ_CRASH_AT names this
 * point (catalogue §6 B). A no-op in other builds.
 */
void gq__crash_point(const char *name);

#endif
