/*
 * fuzz_rfc3339.c: gq__parse_rfc3339, which reads creationTimestamp and
 * every other time an API server, a manifest or `--since` hands us. The
 * text is taken whole, as a C string (as json-c and libyaml give it), so
 * bytes after an embedded NUL are ignored like the parser would. A time
 * that parses must print and parse back to the same second.
 */
#include <stdbool.h>

#include "fuzz.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = fuzz_cstr(data, size), buf[GQ_RFC3339_BUFSIZE];
    int64_t ms, again;

    if (!s)
        return 0;
    if (gq__parse_rfc3339(s, &ms) && ms >= 0 && ms < INT64_C(253402300800000)) {
        /* gq__rfc3339 writes whole seconds in UTC for years 1970..9999. */
        gq__rfc3339(buf, ms);
        FUZZ_ASSERT(gq__parse_rfc3339(buf, &again) && again == ms - ms % 1000,
                    "\"%s\" -> %lld -> \"%s\"", s, (long long)ms, buf);
    }
    free(s);
    return 0;
}
