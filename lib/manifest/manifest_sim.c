/*
 * manifest_sim.c: what the simulated cluster reads of a ProvisioningRequest
 * (its pods' nodeSelector, how many GPUs, maxRunDurationSeconds) and the
 * status it writes back, with the conditions and reasons GKE's
 * queued-provisioning and the cluster autoscaler use (kueue-semantics.md
 * §4.1, §4.2). Part of the manifest edge (json-c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "error.h"
#include "gpuqueue/quantity.h"
#include "manifest_load.h"
#include "quota.h"
#include "sim.h"
#include "util.h"

#define JSON_FLAGS (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

static json_object *get(json_object *o, const char *key)
{
    json_object *v = NULL;

    return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static const char *str(json_object *o)
{
    return o && json_object_is_type(o, json_type_string) ? json_object_get_string(o) : NULL;
}

/* GPUs one container asks for: its requests, else its limits (limits imply requests). */
static int64_t container_gpus(json_object *c)
{
    json_object *res = get(c, "resources"), *req = get(res, "requests"), *lim = get(res, "limits");
    json_object *from = req && json_object_object_length(req) ? req : lim;
    int64_t total = 0;

    if (!from || !json_object_is_type(from, json_type_object))
        return 0;
    json_object_object_foreach(from, key, val) {
        gq_quantity q;
        int64_t v;
        const char *text = str(val);

        if (!gq__gpu_resource(key) || !text || gq_quantity_parse(&q, text, strlen(text), NULL) != GQ_OK ||
            gq_quantity_value(&v, &q) != GQ_OK)
            continue;
        total += v;
    }
    return total;
}

static json_object *find_template(json_object *templates, const char *name)
{
    size_t i;

    for (i = 0; templates && i < json_object_array_length(templates); i++) {
        json_object *t = json_object_array_get_idx(templates, i);
        const char *n = str(get(get(t, "metadata"), "name"));

        if (n && strcmp(n, name) == 0)
            return t;
    }
    return NULL;
}

static int add_selector(struct gq_kvs *sel, json_object *ns)
{
    if (!ns || !json_object_is_type(ns, json_type_object))
        return 0;
    json_object_object_foreach(ns, key, val) {
        struct gq_kv *v = realloc(sel->v, (sel->n + 1) * sizeof(*v));

        if (!v)
            return -1;
        sel->v = v;
        v[sel->n].key = strdup(key);
        v[sel->n].value = strdup(str(val) ? str(val) : "");
        if (!v[sel->n].key || !v[sel->n].value) {
            free(v[sel->n].key);
            free(v[sel->n].value);
            return -1;
        }
        sel->n++;
    }
    return 0;
}

int gq__manifest_provreq_needs(const char *spec, const char *templates, struct gq_kvs *selector,
                               int32_t *gpus, int64_t *max_run_ms, gq_error *err)
{
    json_object *pr = json_tokener_parse(spec), *pts = json_tokener_parse(templates);
    json_object *sets = get(get(pr, "spec"), "podSets");
    const char *max_run = str(get(get(get(pr, "spec"), "parameters"), "maxRunDurationSeconds"));
    int64_t total = 0;
    size_t i;
    int rc = GQ_OK;

    memset(selector, 0, sizeof(*selector));
    *gpus = 0;
    *max_run_ms = 0;
    if (!pr || !pts || !json_object_is_type(pts, json_type_array)) {
        rc = gq__error(err, GQ_EIO, "unreadable stored ProvisioningRequest");
        goto out;
    }
    for (i = 0; sets && i < json_object_array_length(sets); i++) {
        json_object *ps = json_object_array_get_idx(sets, i);
        const char *name = str(get(get(ps, "podTemplateRef"), "name"));
        json_object *t = name ? find_template(pts, name) : NULL;
        json_object *pspec = get(get(t, "template"), "spec"), *cs = get(pspec, "containers");
        int64_t per_pod = 0, count = json_object_get_int64(get(ps, "count"));
        size_t j;

        for (j = 0; cs && j < json_object_array_length(cs); j++)
            per_pod += container_gpus(json_object_array_get_idx(cs, j));
        total += per_pod * (count > 0 ? count : 1);
        if (add_selector(selector, get(pspec, "nodeSelector")) < 0) {
            rc = gq__error(err, GQ_ENOMEM, "out of memory reading a ProvisioningRequest");
            goto out;
        }
    }
    *gpus = total > INT32_MAX ? INT32_MAX : (int32_t)total;
    if (max_run && gq__parse_duration_ms(max_run, max_run_ms) < 0)
        *max_run_ms = 0; /* not a number of seconds: GKE would refuse it; here, no limit */
out:
    json_object_put(pr);
    json_object_put(pts);
    return rc;
}

static void condition(json_object *conds, const char *type, bool status, const char *reason,
                      const char *message, int64_t at_ms)
{
    json_object *c = json_object_new_object();
    char when[32];

    gq__rfc3339(when, at_ms);
    json_object_object_add(c, "type", json_object_new_string(type));
    json_object_object_add(c, "status", json_object_new_string(status ? "True" : "False"));
    json_object_object_add(c, "lastTransitionTime", json_object_new_string(when));
    json_object_object_add(c, "reason", json_object_new_string(reason));
    json_object_object_add(c, "message", json_object_new_string(message));
    json_object_array_add(conds, c);
}

int gq__manifest_sim_status(const struct gq_sim_request *r, char **out, gq_error *err)
{
    json_object *st = json_object_new_object(), *conds = json_object_new_array();
    bool provisioned = r->provisioned_ms || r->state == GQ_SIM_PROVISIONED ||
                       r->state == GQ_SIM_BOOKING_EXPIRED || r->state == GQ_SIM_REVOKED;
    const char *text;

    condition(conds, "Accepted", true, "Accepted", "ProvisioningRequest is accepted.",
              r->created_ms);
    if (provisioned)
        condition(conds, "Provisioned", true,
                  r->check_capacity ? "CapacityIsFound" : "CapacityIsProvisioned",
                  "Provisioning Request was successfully provisioned.",
                  r->provisioned_ms ? r->provisioned_ms : r->ready_ms);
    else
        condition(conds, "Provisioned", false,
                  r->check_capacity ? "CapacityIsNotFound" : "NotProvisioned",
                  r->state == GQ_SIM_ACCEPTED ? r->message : "Provisioning failed.",
                  r->created_ms);
    if (r->state == GQ_SIM_FAILED)
        condition(conds, "Failed", true, "OutOfResources", r->message, r->ended_ms);
    if (r->state == GQ_SIM_BOOKING_EXPIRED)
        condition(conds, "BookingExpired", true, "CapacityReservationTimeExpired", r->message,
                  r->ended_ms);
    if (r->state == GQ_SIM_REVOKED)
        condition(conds, "CapacityRevoked", true, "MaxRunDurationReached", r->message,
                  r->ended_ms);
    json_object_object_add(st, "conditions", conds);
    text = json_object_to_json_string_ext(st, JSON_FLAGS);
    *out = text ? strdup(text) : NULL;
    json_object_put(st);
    return *out ? GQ_OK : gq__error(err, GQ_ENOMEM, "out of memory writing a status");
}
