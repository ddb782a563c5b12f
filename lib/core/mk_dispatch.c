/*
 * mk_dispatch.c: MultiKueue's AllAtOnce and Incremental dispatchers
 * (mk_dispatch.h): one call per workload per manager turn.
 */
#include "mk_dispatch.h"

static size_t round_more(struct gq_mk_round *r, size_t step, size_t n, int64_t now_ms)
{
    r->nominated = r->nominated + step < n ? r->nominated + step : n;
    r->started_ms = now_ms;
    return r->nominated;
}

size_t gq__mk_nominate(struct gq_mk_round *r, bool incremental, size_t step, size_t n,
                       int64_t evictions, int64_t now_ms)
{
    if (!incremental)
        return n;
    if (step < 1)
        step = GQ_MK_STEP;
    if (r->started && r->evictions != evictions)
        r->nominated = 0; /* evicted since: the nomination went with the reservation */
    if (r->nominated > n)
        r->nominated = n; /* the config lost workers */
    if (!r->started || r->evictions != evictions) {
        r->started = true;
        r->evictions = evictions;
        return round_more(r, step, n, now_ms);
    }
    /* Kueue: a round in progress while now - start <= the timeout. */
    if (now_ms - r->started_ms > GQ_MK_ROUND_MS && r->nominated < n)
        return round_more(r, step, n, now_ms);
    return r->nominated;
}
