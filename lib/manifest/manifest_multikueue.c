/*
 * manifest_multikueue.c: the rule of a MultiKueueCluster that its field
 * table cannot say (manifest_schema.c): a kubeconfig is required, spelt
 * spec.kubeConfig in v1beta1 or spec.clusterSource.kubeConfig in v1beta2.
 */
#include "manifest_fields.h"

int gq__mf_mk_cluster_post(struct gq__mf_ctx *c, json_object *spec, struct gq_object *obj)
{
    (void)spec;
    if (obj->u.mkc.location)
        return GQ_OK;
    gq__mf_push(c, c->version == GQ_MF_V1BETA1 ? "kubeConfig" : "clusterSource");
    if (c->version != GQ_MF_V1BETA1)
        gq__mf_push(c, "kubeConfig");
    return gq__mf_required(c);
}
