/*
 * engine_afs.c: each LocalQueue's admission fair sharing status (afs.h) that a
 * cycle changed, into the database (schema/0016) inside the cycle's
 * transaction, as Kueue's LocalQueue controller writes
 * status.fairSharing.admissionFairSharingStatus. consumedResources names
 * every resource the queue's ClusterQueue covers (Kueue decays the cache's
 * admitted usage, which has a zero for each) and any other it still has some
 * of, in name order. A snapshot has a few dozen resources at most.
 */
#include <stdlib.h>
#include <string.h>

#include "afs.h"
#include "engine.h"
#include "error.h"
#include "store_load.h"
#include "util.h"

/* The resource indices in name order (an insertion sort: few resources); NULL on ENOMEM. */
static int *names_sorted(const struct gq_snapshot *s)
{
    int *v = malloc((s->nres + 1) * sizeof(int));
    size_t i, j;

    for (i = 0; v && i < s->nres; i++) {
        for (j = i; j > 0 && strcmp(s->res_names.names[v[j - 1]], s->res_names.names[i]) > 0; j--)
            v[j] = v[j - 1];
        v[j] = (int)i;
    }
    return v;
}

/* lq's consumed resources as "resource=quantity" lines; NULL on ENOMEM. */
static char *consumed_lines(const struct gq_snapshot *s, const struct gq_snap_lq *lq,
                            const int *order)
{
    const struct gq_snap_cq *cq = lq->cq >= 0 ? &s->cqs[lq->cq] : NULL;
    struct gq__str t = {NULL, 0, 0, false};
    char q[GQ_QUANTITY_BUFSIZE];
    size_t i;

    gq__str_add(&t, "", 0);
    for (i = 0; i < s->nres; i++) {
        int r = order[i];
        gq_quantity v = gq__afs_quantity(lq->consumed[r]);

        if (!v.mantissa && !(cq && cq->group_of_res && cq->group_of_res[r] >= 0))
            continue;
        gq_quantity_format(q, sizeof(q), &v);
        gq__str_printf(&t, "%s=%s\n", s->res_names.names[r], q);
    }
    if (t.failed) {
        free(t.p);
        return NULL;
    }
    return t.p;
}

int gq__engine_afs_persist(struct gq_store *st, struct gq_snapshot *s, gq_error *err)
{
    int *order = NULL, rc = GQ_OK;
    size_t i;

    for (i = 0; s->afs && rc == GQ_OK && i < s->nlqs; i++) {
        struct gq_snap_lq *lq = &s->lqs[i];
        char *lines;

        if (!lq->afs_changed)
            continue;
        if ((!order && !(order = names_sorted(s))) || !(lines = consumed_lines(s, lq, order))) {
            rc = gq__error(err, GQ_ENOMEM, "out of memory recording a LocalQueue's usage");
            break;
        }
        rc = gq__store_afs_put(st, lq->ns, lq->name, lines, lq->afs_last, err);
        lq->afs_changed = rc != GQ_OK;
        free(lines);
    }
    free(order);
    return rc;
}
