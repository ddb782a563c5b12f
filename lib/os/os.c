/*
 * os.c: what the library asks of the operating system beneath every layer
 * but the pure core: the clocks, random UIDs (libuuid: this is its only
 * includer) and the test builds' crash points. core/ never includes it: the
 * core is handed the time and never draws a random number.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/random.h>
#include <sys/types.h>
#include <time.h>
#include <uuid.h>

#include "os.h"

int64_t gq__now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t gq__mono_us(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/*
 * Random bytes for UIDs, fetched from the kernel 4 KiB at a time: libuuid's
 * uuid_generate_random reseeds and cranks a PRNG and makes a syscall per
 * UID, 6% of a 100,000-job submit. The version 4 layout is applied here and
 * the text is libuuid's. One pool per thread, so no lock.
 */
static _Thread_local struct {
    unsigned char bytes[4096];
    size_t left;
} pool;

static void pool_take(unsigned char *out, size_t n)
{
    if (pool.left < n) {
        size_t got = 0;
        ssize_t r;

        while (got < sizeof(pool.bytes)) {
            r = getrandom(pool.bytes + got, sizeof(pool.bytes) - got, 0);
            if (r <= 0)
                break;
            got += (size_t)r;
        }
        if (got < sizeof(pool.bytes)) { /* no getrandom: libuuid's own source */
            uuid_t u;

            for (got = 0; got < sizeof(pool.bytes); got += sizeof(u)) {
                uuid_generate_random(u);
                memcpy(pool.bytes + got, u, sizeof(u));
            }
        }
        pool.left = sizeof(pool.bytes);
    }
    memcpy(out, pool.bytes + sizeof(pool.bytes) - pool.left, n);
    pool.left -= n;
}

void gq__uid_new(char out[37])
{
    uuid_t u;

    pool_take(u, sizeof(u));
    u[6] = (unsigned char)((u[6] & 0x0f) | 0x40); /* version 4 */
    u[8] = (unsigned char)((u[8] & 0x3f) | 0x80); /* RFC 4122 variant */
    uuid_unparse_lower(u, out);
}

void gq__random_suffix(char *out, size_t n)
{
    static const char alphabet[] = "bcdfghjklmnpqrstvwxz2456789";
    unsigned char b;
    size_t i;

    for (i = 0; i < n; i++) {
        pool_take(&b, 1);
        out[i] = alphabet[b % (sizeof(alphabet) - 1)];
    }
    out[n] = '\0';
}

void gq__crash_point(const char *name)
{
#ifdef GQ_TEST_HOOKS
    const char *at = getenv("GQ_CRASH_AT");

    if (at && strcmp(at, name) == 0) {
        fprintf(stderr, "gpuqd: crash point %s\n", name);
        _exit(137);
    }
#else
    (void)name;
#endif
}
