/*
 * engine_multikueue.c: what Kueue's workload controller does with the
 * state MultiKueue's manager gives its admission check (kueue-semantics.md
 * §3; Kueue's pkg/controller/admissionchecks/multikueue/workload.go): the
 * manager (sync_multikueue.c) writes the check Ready once a worker admitted
 * the workload's copy, or Retry once that worker is lost; each scheduling
 * cycle admits the reserved workloads whose checks are now all Ready and
 * evicts those whose multikueue check is in Retry, to be dispatched again.
 */
#include <stdlib.h>

#include "admit_int.h"
#include "engine.h"
#include "error.h"
#include "store_multikueue.h"

#define MOVES_PER_CYCLE 256 /* the next cycle takes the rest */

int gq__engine_sync_multikueue(struct gq_store *st, struct gq_snapshot *s, int64_t now,
                               struct gq_decisions *d, gq_error *err)
{
    struct gq_mk_move moves[MOVES_PER_CYCLE];
    size_t i, n = 0;
    int rc, w, x = 0;

    rc = gq__store_mk_moves(st, moves, MOVES_PER_CYCLE, &n, err); /* what it read is freed below */
    s->now = now;
    for (i = 0; rc == GQ_OK && i < n; i++) {
        if ((w = gq__snapshot_find(s, moves[i].id)) < 0)
            continue;
        if (moves[i].retry)
            x = gq__admit_check_retry(s, w, now, moves[i].message, d);
        else if (s->wls[w].state == GQ_WS_RESERVED)
            x = gq__admit_checks_ready(s, w, now, d);
        if (x < 0)
            rc = gq__error(err, GQ_ENOMEM, "out of memory");
    }
    for (i = 0; i < n; i++)
        free(moves[i].message);
    return rc;
}
