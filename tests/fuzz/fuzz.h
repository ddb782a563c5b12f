/*
 * fuzz.h: what the harnesses in tests/fuzz/ share. Each fuzz_<parser>.c
 * defines LLVMFuzzerTestOneInput and is linked either with libFuzzer (clang,
 * GQ_FUZZ=ON) or with replay.c, which runs saved inputs through it (every
 * build, as ctest fuzz_<parser>).
 *
 * Inputs are copied into buffers of exactly their size (plus the NUL where
 * the parser takes a C string), so AddressSanitizer sees any read past the
 * end. A broken property (a round trip that does not hold) aborts, which
 * both drivers report as a crash.
 */
#ifndef GQ_FUZZ_H
#define GQ_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* size bytes of data and a NUL in a malloc'd buffer of exactly size + 1; NULL without memory. */
static inline char *fuzz_cstr(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);

    if (s) {
        if (size)
            memcpy(s, data, size);
        s[size] = '\0';
    }
    return s;
}

/* Abort with a message when a property of the parser does not hold. */
#define FUZZ_ASSERT(cond, ...)                                                                     \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: property failed: %s: ", __FILE__, __LINE__, #cond);           \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

#endif
