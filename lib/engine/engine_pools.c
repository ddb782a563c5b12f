/*
 * engine_pools.c: the simulated cluster's NodePools (sim.gpuq.dev/v1alpha1)
 * read back from their stored canonical specs into the plain structs the
 * simulator takes (sim.h). The spec goes through the manifest decoder, so the
 * pools the simulator sees carry exactly the defaults and checks `gpuq apply`
 * applied. Runs inside the caller's transaction; a cluster has a handful of
 * pools, read once per simulation step that needs them.
 */
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "error.h"
#include "sim.h"
#include "store.h"
#include "store_load.h"

struct pools {
    struct gq_sim_pool *v; /* owned until handed to the caller */
    size_t n, cap;
    gq_error *err;
};

/* Move a decoded NodePool's fields into pool (its labels leave obj). */
static void take_pool(struct gq_sim_pool *pool, struct gq_object *obj)
{
    struct gq_node_pool *np = &obj->u.pool;

    pool->labels = np->node_labels;
    memset(&np->node_labels, 0, sizeof(np->node_labels));
    pool->gpus_per_node = np->gpus_per_node;
    pool->min_nodes = np->min_nodes;
    pool->max_nodes = np->max_nodes;
    pool->provision_ms = np->provisioning_ms;
    pool->scale_down_ms = np->scale_down_ms;
    pool->stockout = np->stockout;
    pool->autoscaling = !np->queued;
    pool->fail_after_ms = np->has_fail_after ? np->fail_after_ms : 0;
    pool->pod_startup_ms = np->pod_startup_ms;
    pool->stuck_percent = np->stuck_pod_percent;
}

static int pool_row(const struct gq_load_spec *v, void *payload)
{
    struct pools *p = payload;
    struct gq_sim_pool *pool;
    struct gq_object obj;
    int rc;

    if (gq__grow(&p->v, &p->cap, p->n, sizeof(*p->v)) < 0)
        return gq__error(p->err, GQ_ENOMEM, "out of memory");
    memset(&obj, 0, sizeof(obj));
    rc = gq__manifest_load(NULL, v->spec, strlen(v->spec), "stored spec", NULL, NULL,
                           gq__take_object, &obj, p->err);
    if (rc == GQ_OK && obj.kind != GQ_KIND_NODE_POOL)
        rc = gq__error(p->err, GQ_EIO, "stored nodepool \"%s\" is not a NodePool", v->name);
    if (rc == GQ_OK) {
        pool = &p->v[p->n];
        memset(pool, 0, sizeof(*pool));
        if ((pool->name = strdup(v->name)) != NULL) {
            take_pool(pool, &obj);
            p->n++;
        } else {
            rc = gq__error(p->err, GQ_ENOMEM, "out of memory");
        }
    }
    gq__object_clear(&obj);
    return rc;
}

int gq__engine_load_pools(struct gq_store *st, struct gq_sim_pool **out, size_t *n, gq_error *err)
{
    struct pools p = {NULL, 0, 0, err};
    int rc;

    *out = NULL;
    *n = 0;
    rc = gq__store_load_node_pools(st, pool_row, &p, err); /* a NULL is damage */
    if (rc != GQ_OK) {
        gq__sim_pools_free(p.v, p.n);
        return rc;
    }
    *out = p.v;
    *n = p.n;
    return GQ_OK;
}
