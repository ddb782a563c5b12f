/*
 * sync_objects.c: Namespaces (their labels, for namespaceSelector) and the
 * kueue.x-k8s.io queue objects, and the LimitRanges and RuntimeClasses that
 * adjust jobs' requests, from the cluster into the same tables `gpuq apply`
 * fills (applying or deleting one adjusts the pending workloads anew). A list is applied whole, in one transaction, as one
 * List document; an event applies or deletes one object. When a queue CRD
 * is absent (404), its objects come from `gpuq apply` or --config instead,
 * and the informer reports the absence without stopping the sync.
 *
 * A relist applies every object listed and deletes nothing for being absent:
 * queue objects may also come from `gpuq apply`, and nothing records which
 * came from where, so a deletion is learnt from its DELETED event (an object
 * deleted while the watch was down stays; noted in the README).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "sync.h"
#include "util.h"

static const char *const resources[GQ_INF_COUNT] = {
    [GQ_INF_NAMESPACES] = "namespace",
    [GQ_INF_FLAVORS] = "resourceflavor",
    [GQ_INF_COHORTS] = "cohort",
    [GQ_INF_CLUSTERQUEUES] = "clusterqueue",
    [GQ_INF_LOCALQUEUES] = "localqueue",
    [GQ_INF_PRIORITIES] = "workloadpriorityclass",
    [GQ_INF_CHECKS] = "admissioncheck",
    [GQ_INF_CONFIGS] = "provisioningrequestconfig",
    [GQ_INF_LIMITRANGES] = "limitrange",
    [GQ_INF_RUNTIMECLASSES] = "runtimeclass",
    [GQ_INF_MK_CLUSTERS] = "multikueuecluster",
    [GQ_INF_MK_CONFIGS] = "multikueueconfig",
};

static void count_result(const gq_apply_item *item, void *payload)
{
    uint64_t *changes = payload;

    *changes += item->result == GQ_APPLY_CREATED || item->result == GQ_APPLY_CONFIGURED;
}

/* Apply text (one object, or a List) and count what changed. */
static int apply_text(struct gq_sync *s, const char *what, const char *text)
{
    gq_apply_options o = GQ_APPLY_OPTIONS_INIT;
    uint64_t before = s->changes;
    int rc;

    rc = gq_apply_buffer(s->db, text, strlen(text), what, &o, count_result, &s->changes,
                         &s->callback_err);
    if (rc == GQ_EINVALID || rc == GQ_ENOTFOUND || rc == GQ_ECONFLICT) {
        /* A bad object in the cluster is reported, not fatal: the rest carries on. */
        gq__sync_log(s, GQ_EVENT_LEVEL_WARNING, GQ_EVENT_KIND_SYNC, NULL, what, "rejected", "%s",
                     s->callback_err.msg);
        return GQ_OK;
    }
    if (s->changes != before)
        gq__sync_log(s, GQ_EVENT_LEVEL_INFO, GQ_EVENT_KIND_SYNC, NULL, what, "applied",
                     "%llu changed", (unsigned long long)(s->changes - before));
    return rc;
}

int gq__sync_objects_replace(json_object *items, void *payload)
{
    struct gq_sync_feed *f = payload;
    json_object *list = json_object_new_object();
    int rc;

    gq__sync_typed(f, items);
    json_object_object_add(list, "apiVersion", json_object_new_string("v1"));
    json_object_object_add(list, "kind", json_object_new_string("List"));
    json_object_object_add(list, "items", json_object_get(items));
    rc = json_object_array_length(items)
             ? apply_text(f->s, resources[f->which],
                          json_object_to_json_string_ext(list, JSON_C_TO_STRING_PLAIN))
             : GQ_OK;
    json_object_put(list);
    return rc;
}

int gq__sync_objects_event(const char *type, json_object *obj, void *payload)
{
    struct gq_sync_feed *f = payload;
    const char *ns = gq__js_str(obj, "metadata.namespace");
    const char *name = gq__js_str(obj, "metadata.name");
    int rc;

    if (strcmp(type, "DELETED") != 0)
        return apply_text(f->s, resources[f->which],
                          json_object_to_json_string_ext(obj, JSON_C_TO_STRING_PLAIN));
    if (!name)
        return GQ_OK;
    rc = gq_object_delete(f->s->db, resources[f->which], ns, name, &f->s->callback_err);
    if (rc == GQ_ENOTFOUND)
        return GQ_OK;
    if (rc == GQ_OK) {
        f->s->changes++;
        gq__sync_log(f->s, GQ_EVENT_LEVEL_INFO, GQ_EVENT_KIND_SYNC, ns, name, "deleted", "%s",
                     resources[f->which]);
    }
    return rc;
}
