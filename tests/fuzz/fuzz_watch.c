/*
 * fuzz_watch.c: the watch-stream decoder (kube_stream.c), which reads what
 * an API server (or anything posing as one) streams to a watch. The first
 * input byte chooses how the rest is cut into chunks, as HTTP may cut it;
 * the same bytes are also fed in one piece, and both runs must agree on
 * every event handed out, on the skipped count and on the outcome: the
 * decoder promises the same events however the bytes are chunked (json-c's
 * incremental tokener broke that; see kube_stream.c). A small per-event cap
 * makes the cap's path reachable.
 */
#include <json-c/json.h>

#include "fuzz.h"
#include "kube_stream.h"

#define EVENT_CAP 4096 /* bytes; small so that inputs can cross it */

struct seen {
    uint64_t hash; /* FNV-1a over every event's type and object text */
    size_t stop_at; /* the callback stops the stream at this event (0: never) */
    size_t n;
};

static void mix(uint64_t *h, const char *s)
{
    for (; *s; s++)
        *h = (*h ^ (unsigned char)*s) * UINT64_C(1099511628211);
    *h = (*h ^ 0xff) * UINT64_C(1099511628211);
}

static int on_event(const char *type, json_object *object, void *payload)
{
    struct seen *v = payload;

    mix(&v->hash, type);
    mix(&v->hash, json_object_to_json_string_ext(object, JSON_C_TO_STRING_PLAIN));
    return ++v->n == v->stop_at ? 7 : 0;
}

struct outcome {
    int rc;
    uint64_t events, skipped;
    bool partial;
    struct seen seen;
};

/* Feed data in chunks whose sizes come from a small generator seeded by seed (0: one piece). */
static void run(struct outcome *o, const char *data, size_t size, unsigned seed, size_t stop_at)
{
    struct gq_kube_stream *s;
    gq_error err = {0, ""};
    uint32_t x = seed * 2654435761u + 1;
    size_t off = 0, n;
    char *chunk;

    memset(o, 0, sizeof(*o));
    o->seen.hash = UINT64_C(14695981039346656037);
    o->seen.stop_at = stop_at;
    if (gq__kube_stream_new(&s, EVENT_CAP, on_event, &o->seen, &err) != GQ_OK)
        abort();
    while (off < size && o->rc == GQ_OK) {
        x = x * 1103515245u + 12345u;
        n = seed ? 1 + (x >> 16) % (seed % 64 + 1) : size;
        if (n > size - off)
            n = size - off;
        /* An exact-size copy, so a read past the chunk is caught. */
        if (!(chunk = malloc(n)))
            abort();
        memcpy(chunk, data + off, n);
        o->rc = gq__kube_stream_feed(s, chunk, n, &err);
        free(chunk);
        off += n;
    }
    o->events = gq__kube_stream_events(s);
    o->skipped = gq__kube_stream_skipped(s);
    o->partial = gq__kube_stream_partial(s);
    gq__kube_stream_free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct outcome whole, cut;
    unsigned seed;
    size_t stop_at;

    if (size < 2)
        return 0;
    seed = data[0] | 1u;  /* never 0: the cut run must be cut */
    stop_at = data[1] % 8; /* 0: never stop; else stop after that many events */
    run(&whole, (const char *)data + 2, size - 2, 0, stop_at);
    run(&cut, (const char *)data + 2, size - 2, seed, stop_at);
    FUZZ_ASSERT(whole.rc == cut.rc, "rc %d whole, %d cut (seed %u)", whole.rc, cut.rc, seed);
    FUZZ_ASSERT(whole.events == cut.events && whole.skipped == cut.skipped,
                "events %llu/%llu, skipped %llu/%llu (seed %u)", (unsigned long long)whole.events,
                (unsigned long long)cut.events, (unsigned long long)whole.skipped,
                (unsigned long long)cut.skipped, seed);
    FUZZ_ASSERT(whole.seen.hash == cut.seen.hash, "different events (seed %u)", seed);
    if (whole.rc == GQ_OK)
        FUZZ_ASSERT(whole.partial == cut.partial, "partial %d whole, %d cut", whole.partial,
                    cut.partial);
    return 0;
}
