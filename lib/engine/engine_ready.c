/*
 * engine_ready.c: waitForPodsReady (issue 17; kueue-semantics.md §1.10,
 * §2.9) between the Configuration, the store and the backends. The rules
 * are the core's (gq__admit_pods_ready: timeouts, backoff, deactivation,
 * blockAdmission); this file reads the setting and records what the
 * backends see of their pods: the simulated cluster (run.c) when a
 * workload's pods are all ready, cluster mode (sync_jobs.c) from a Job's
 * status.ready, or another kind's status as Kueue's controller of the kind
 * reads it (gq__integration_ready). With waitForPodsReady off nothing is
 * recorded, so that a workload shows no PodsReady condition, as in Kueue.
 */
#include <string.h>

#include "engine.h"
#include "error.h"
#include "manifest_load.h"
#include "store.h"
#include "store_load.h"

void gq__engine_wfpr(const struct gq_configuration *cfg, struct gq_wfpr *out)
{
    memset(out, 0, sizeof(*out));
    if (!cfg->wait_for_pods_ready)
        return;
    out->on = true;
    out->block = cfg->block_admission;
    out->timeout_ms = cfg->pods_ready_timeout_s * 1000;
    /* core.go: a recoveryTimeout of 0 (or less) is none */
    out->recovery_ms = cfg->recovery_timeout_s > 0 ? cfg->recovery_timeout_s * 1000 : 0;
    out->creation = cfg->requeue_timestamp && strcmp(cfg->requeue_timestamp, "Creation") == 0;
    out->has_limit = cfg->has_requeue_limit;
    out->limit = cfg->requeue_limit;
    out->base_s = cfg->requeue_base_s;
    out->max_s = cfg->requeue_max_s;
}

static int config_row(const struct gq_load_spec *v, void *payload)
{
    struct gq_wfpr *out = payload;
    struct gq_object obj;
    int rc;

    memset(&obj, 0, sizeof(obj));
    rc = gq__manifest_load(NULL, v->spec, strlen(v->spec), "stored spec", NULL, NULL,
                           gq__take_object, &obj, NULL);
    if (rc == GQ_OK && obj.kind == GQ_KIND_CONFIGURATION)
        gq__engine_wfpr(&obj.u.config, out);
    gq__object_clear(&obj);
    return rc == GQ_ENOMEM ? rc : GQ_OK; /* a spec that no longer decodes: the engine says so */
}

int gq__engine_wfpr_load(struct gq_store *st, struct gq_wfpr *out, gq_error *err)
{
    memset(out, 0, sizeof(*out));
    return gq__store_load_configurations(st, config_row, out, err);
}

int gq__engine_pods_ready_deadline(struct gq_store *st, int64_t now, int64_t *next, gq_error *err)
{
    struct gq_wfpr c;
    int rc;

    *next = 0;
    if ((rc = gq__engine_wfpr_load(st, &c, err)) != GQ_OK || !c.on)
        return rc;
    if ((rc = gq__store_pods_ready_due(st, c.timeout_ms, c.recovery_ms, next, err)) == GQ_OK &&
        *next && *next <= now)
        *next = now + 1; /* due already: the next cycle acts on it */
    return rc;
}
