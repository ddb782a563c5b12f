/*
 * fuzz_duration.c: gq__parse_duration_ms, which reads Go durations from
 * manifests (waitForPodsReady.timeout, maxRunDurationSeconds, ...), the
 * simulator's CSV and `--since`. A duration that parses must print, in
 * both of gq__format_duration_ms's forms, as text that parses back to the
 * same milliseconds (util.h promises it).
 */
#include <inttypes.h>
#include <stdbool.h>

#include "fuzz.h"
#include "util.h"

static void round_trip(const char *s, int64_t ms, bool compact)
{
    char buf[GQ_DURATION_BUFSIZE];
    int64_t again = -1;

    gq__format_duration_ms(buf, sizeof(buf), ms, compact);
    FUZZ_ASSERT(gq__parse_duration_ms(buf, &again) == 0 && again == ms,
                "\"%s\" -> %" PRId64 " -> \"%s\" -> %" PRId64, s, ms, buf, again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = fuzz_cstr(data, size);
    int64_t ms;

    if (!s)
        return 0;
    if (gq__parse_duration_ms(s, &ms) == 0) {
        FUZZ_ASSERT(ms >= 0, "\"%s\" -> %" PRId64, s, ms);
        round_trip(s, ms, false);
        round_trip(s, ms, true);
    }
    free(s);
    return 0;
}
