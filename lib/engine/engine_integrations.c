/*
 * engine_integrations.c: the user's rows of the integration table, read from
 * the Integration objects the store keeps, for a decoder to use
 * (gq_decode_options.integrations).
 */
#include <stdlib.h>
#include <string.h>

#include "admit.h"
#include "apply.h"
#include "error.h"
#include "manifest_load.h"
#include "store_load.h"
#include "util.h"

struct loading {
    struct gq_object **objs;
    size_t *n, cap;
    enum gq_kind kind;
    gq_error *err;
};

/* One stored object of l->kind, decoded, appended. */
static int row(const struct gq_load_spec *v, void *payload)
{
    struct loading *l = payload;
    struct gq_object *obj;
    int rc;

    if (gq__grow(l->objs, &l->cap, *l->n, sizeof(**l->objs)) < 0)
        return gq__error(l->err, GQ_ENOMEM, "out of memory");
    obj = &(*l->objs)[*l->n];
    memset(obj, 0, sizeof(*obj));
    rc = gq__manifest_load(NULL, v->spec, strlen(v->spec), "stored spec", NULL, NULL,
                           gq__take_object, obj, l->err);
    if (rc == GQ_OK && obj->kind != l->kind)
        rc = gq__error(l->err, GQ_EIO, "stored %s \"%s\" is not one", gq__kind_name(l->kind),
                       v->name);
    if (rc != GQ_OK) {
        gq__object_clear(obj);
        return rc;
    }
    (*l->n)++;
    return GQ_OK;
}

int gq__engine_load_integrations(struct gq_store *st, struct gq__user_rows *out, gq_error *err)
{
    struct loading l = {&out->objs, &out->n, 0, GQ_KIND_INTEGRATION, err};
    struct loading rt = {&out->runtimes, &out->nruntimes, 0, GQ_KIND_TRAINING_RUNTIME, err};
    size_t i;
    int rc;

    memset(out, 0, sizeof(*out));
    if ((rc = gq__store_load_integrations(st, row, &l, err)) != GQ_OK ||
        (rc = gq__store_load_training_runtimes(st, row, &rt, err)) != GQ_OK)
        goto fail;
    if (!out->n)
        return GQ_OK;
    out->users = calloc(out->n, sizeof(*out->users));
    out->ptrs = calloc(out->n, sizeof(*out->ptrs));
    if (!out->users || !out->ptrs) {
        rc = gq__error(err, GQ_ENOMEM, "out of memory");
        goto fail;
    }
    for (i = 0; i < out->n; i++) {
        if (gq__integration_user_init(&out->users[i], &out->objs[i].u.integ) != 0) {
            rc = gq__error(err, GQ_ENOMEM, "out of memory");
            goto fail;
        }
        out->ptrs[i] = &out->users[i].row;
    }
    out->set.v = out->ptrs;
    out->set.n = out->n;
    return GQ_OK;
fail:
    gq__user_rows_free(out);
    return rc;
}

static void objects_free(struct gq_object *v, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        gq__object_clear(&v[i]);
    free(v);
}

int gq__engine_load_adjust(struct gq_store *st, struct gq_adjust **out, gq_error *err)
{
    struct gq_object *lrs = NULL, *rcs = NULL, *cfgs = NULL;
    size_t nlr = 0, nrc = 0, ncfg = 0;
    struct loading lr = {&lrs, &nlr, 0, GQ_KIND_LIMIT_RANGE, err};
    struct loading rc_ = {&rcs, &nrc, 0, GQ_KIND_RUNTIME_CLASS, err};
    struct loading cfg = {&cfgs, &ncfg, 0, GQ_KIND_CONFIGURATION, err};
    int rc;

    *out = NULL;
    if ((rc = gq__store_load_limit_ranges(st, row, &lr, err)) == GQ_OK &&
        (rc = gq__store_load_runtime_classes(st, row, &rc_, err)) == GQ_OK &&
        (rc = gq__store_load_configurations(st, row, &cfg, err)) == GQ_OK)
        /* As the engine reads them (engine_load.c), the last Configuration counts. */
        rc = gq__manifest_adjust_new(out, lrs, nlr, rcs, nrc,
                                     ncfg ? &cfgs[ncfg - 1].u.config : NULL, err);
    objects_free(lrs, nlr);
    objects_free(rcs, nrc);
    objects_free(cfgs, ncfg);
    return rc;
}

void gq__user_rows_free(struct gq__user_rows *r)
{
    size_t i;

    for (i = 0; i < r->n; i++) {
        if (r->users)
            gq__integration_user_clear(&r->users[i]);
        gq__object_clear(&r->objs[i]);
    }
    for (i = 0; i < r->nruntimes; i++)
        gq__object_clear(&r->runtimes[i]);
    free(r->runtimes);
    free(r->users);
    free(r->ptrs);
    free(r->objs);
    memset(r, 0, sizeof(*r));
}
