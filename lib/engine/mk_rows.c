/*
 * mk_rows.c: the workloads MultiKueue's manager acts on (mk_rows.h).
 */
#include <stdlib.h>
#include <string.h>

#include "admit.h" /* gq__grow */
#include "error.h"
#include "mk_rows.h"
#include "state.h"
#include "store.h"
#include "store_multikueue.h"
#include "util.h"

static void wl_free(struct mk_wl *w)
{
    size_t i;

    free(w->ns);
    free(w->name);
    free(w->job);
    free(w->uid);
    free(w->state);
    free(w->check);
    free(w->check_state);
    free(w->config);
    free(w->winner);
    free(w->kind);
    for (i = 0; i < w->ncopies; i++) {
        free(w->copies[i].cluster);
        free(w->copies[i].uid);
    }
    free(w->copies);
}

void gq__mk_wls_free(struct mk_wls *l)
{
    size_t i;

    for (i = 0; i < l->n; i++)
        wl_free(&l->v[i]);
    free(l->v);
    memset(l, 0, sizeof(*l));
}

static char *dup_or_null(const char *s, bool *oom)
{
    char *d = s ? gq__strdup(s) : NULL;

    if (s && !d)
        *oom = true;
    return d;
}

static int wl_row(const struct gq_mk_row *r, void *payload, gq_error *err)
{
    struct mk_wls *l = payload;
    struct mk_wl *w = l->n ? &l->v[l->n - 1] : NULL;
    bool oom = false;
    size_t cap;

    if (!w || w->id != r->id) {
        if (gq__grow(&l->v, &l->cap, l->n, sizeof(*l->v)) < 0)
            return gq__error(err, GQ_ENOMEM, "out of memory");
        w = &l->v[l->n++];
        memset(w, 0, sizeof(*w));
        w->id = r->id;
        w->evictions = r->evictions;
        w->ns = dup_or_null(r->ns, &oom);
        w->name = dup_or_null(r->name, &oom);
        w->job = dup_or_null(r->job, &oom);
        w->uid = dup_or_null(r->uid, &oom);
        w->state = dup_or_null(r->state, &oom);
        w->check = dup_or_null(r->check, &oom);
        w->check_state = dup_or_null(r->check_state, &oom);
        w->config = dup_or_null(r->config, &oom);
        w->winner = dup_or_null(r->winner, &oom);
        w->kind = dup_or_null(r->kind, &oom);
    }
    if (r->cluster) {
        cap = w->ncopies;
        if (gq__grow(&w->copies, &cap, w->ncopies, sizeof(*w->copies)) < 0)
            return gq__error(err, GQ_ENOMEM, "out of memory");
        memset(&w->copies[w->ncopies], 0, sizeof(*w->copies));
        w->copies[w->ncopies].cluster = dup_or_null(r->cluster, &oom);
        w->copies[w->ncopies].uid = dup_or_null(r->remote_uid, &oom);
        w->copies[w->ncopies].evictions = r->remote_evictions;
        w->ncopies++;
    }
    return oom ? gq__error(err, GQ_ENOMEM, "out of memory") : GQ_OK;
}

int gq__mk_wls_load(struct gq_store *st, struct mk_wls *l, size_t max, gq_error *err)
{
    int64_t after = l->after;

    gq__mk_wls_free(l);
    l->after = after;
    return gq__store_mk_rows(st, after, max, wl_row, l, err);
}

struct mk_copy *gq__mk_copy_on(struct mk_wl *w, const char *cluster)
{
    size_t i;

    for (i = 0; i < w->ncopies; i++)
        if (!strcmp(w->copies[i].cluster, cluster))
            return &w->copies[i];
    return NULL;
}

int gq__mk_copy_add(struct mk_wl *w, const char *cluster, gq_error *err)
{
    size_t cap = w->ncopies;

    if (gq__grow(&w->copies, &cap, w->ncopies, sizeof(*w->copies)) < 0 ||
        !(w->copies[w->ncopies].cluster = gq__strdup(cluster)))
        return gq__error(err, GQ_ENOMEM, "out of memory");
    w->copies[w->ncopies].uid = NULL;
    w->copies[w->ncopies].evictions = w->evictions;
    w->copies[w->ncopies++].send = true;
    return GQ_OK;
}

struct mk_round *gq__mk_round_of(struct mk_rounds *l, int64_t id)
{
    size_t i;

    for (i = 0; i < l->n; i++)
        if (l->v[i].id == id)
            return &l->v[i];
    if (gq__grow(&l->v, &l->cap, l->n, sizeof(*l->v)) < 0)
        return NULL;
    memset(&l->v[l->n], 0, sizeof(*l->v));
    l->v[l->n].id = id;
    return &l->v[l->n++];
}

void gq__mk_round_forget(struct mk_rounds *l, int64_t id)
{
    size_t i;

    for (i = 0; i < l->n; i++)
        if (l->v[i].id == id) {
            l->v[i] = l->v[--l->n];
            return;
        }
}

bool gq__mk_holds_quota(const struct mk_wl *w)
{
    enum gq_wl_state ws;

    return w->state && gq__wl_state_parse(w->state, &ws) && gq__wl_holds_quota(ws);
}
