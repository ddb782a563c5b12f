/*
 * api_kube_pods.c: a PodList the API server answered, walked as `kubectl get
 * pods` shows each pod (gq_kube_pods, gpuqueue/tool.h), for `gpuq list pods
 * --for` in cluster mode. READY, STATUS and RESTARTS follow kubectl's pod
 * printer (kubernetes pkg/printers/internalversion, printPod): the phase, or
 * the pod's reason, or the last container's waiting or terminated reason
 * (ExitCode:N, Signal:N), Completed read back as Running while a container
 * still runs, Terminating once deleted; init containers say Init:N/M while
 * they run. Sizes: one list of a job's pods, parsed whole.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "gpuqueue/tool.h"
#include "sync.h"
#include "util.h"

static size_t len(json_object *a)
{
    return json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;
}

static int64_t js_int(json_object *o, const char *path)
{
    json_object *v = gq__js_get(o, path);

    return json_object_is_type(v, json_type_int) ? json_object_get_int64(v) : 0;
}

/* Init containers still running: "Init:done/all", or a failing one's reason; NULL when done. */
static const char *init_status(json_object *statuses, size_t total, char *buf, size_t size)
{
    size_t i;

    for (i = 0; i < len(statuses); i++) {
        json_object *c = json_object_array_get_idx(statuses, i);
        const char *reason;

        if (gq__js_get(c, "state.terminated") && js_int(c, "state.terminated.exitCode") == 0)
            continue;
        if (gq__js_get(c, "state.terminated")) {
            reason = gq__js_str(c, "state.terminated.reason");
            snprintf(buf, size, "Init:%s", reason ? reason : "Error");
        } else if ((reason = gq__js_str(c, "state.waiting.reason")) && strcmp(reason, "PodInitializing")) {
            snprintf(buf, size, "Init:%s", reason);
        } else {
            snprintf(buf, size, "Init:%zu/%zu", i, total);
        }
        return buf;
    }
    return NULL;
}

/* The last container's word, counting ready ones and restarts (printPod's loop, backwards). */
static const char *containers(json_object *statuses, const char *reason, gq_pod_info *p,
                              char *buf, size_t size, bool *running)
{
    size_t i = len(statuses);

    while (i-- > 0) {
        json_object *c = json_object_array_get_idx(statuses, i);
        const char *r;

        p->restarts += js_int(c, "restartCount");
        if ((r = gq__js_str(c, "state.waiting.reason")) && *r) {
            reason = r;
        } else if ((r = gq__js_str(c, "state.terminated.reason")) && *r) {
            reason = r;
        } else if (gq__js_get(c, "state.terminated")) {
            if (js_int(c, "state.terminated.signal"))
                snprintf(buf, size, "Signal:%lld", (long long)js_int(c, "state.terminated.signal"));
            else
                snprintf(buf, size, "ExitCode:%lld",
                         (long long)js_int(c, "state.terminated.exitCode"));
            reason = buf;
        } else if (gq__js_get(c, "state.running") &&
                   json_object_get_boolean(gq__js_get(c, "ready"))) {
            *running = true;
            p->ready_containers++;
        }
    }
    return reason;
}

static int pod_row(json_object *o, gq_pod_fn fn, void *payload)
{
    json_object *spec_containers = gq__js_get(o, "spec.containers");
    json_object *inits = gq__js_get(o, "status.initContainerStatuses");
    char buf[64], ibuf[64];
    const char *reason = gq__js_str(o, "status.phase"), *init, *phase = reason;
    bool running = false;
    gq_pod_info p;

    memset(&p, 0, sizeof(p));
    p.GQ_NAMESPACE = gq__js_str(o, "metadata.namespace");
    p.name = gq__js_str(o, "metadata.name");
    p.node = gq__js_str(o, "spec.nodeName");
    p.ip = gq__js_str(o, "status.podIP");
    p.containers = len(spec_containers);
    gq__parse_rfc3339(gq__js_str(o, "metadata.creationTimestamp"), &p.created_ms);
    if (gq__js_str(o, "status.reason"))
        reason = gq__js_str(o, "status.reason");
    init = init_status(inits, len(gq__js_get(o, "spec.initContainers")),
                       ibuf, sizeof(ibuf));
    if (init)
        reason = init;
    else
        reason = containers(gq__js_get(o, "status.containerStatuses"), reason, &p, buf,
                            sizeof(buf), &running);
    if (!init && reason && strcmp(reason, "Completed") == 0 && running)
        reason = gq__js_condition(o, "Ready") ? "Running" : "NotReady";
    if (gq__js_get(o, "metadata.deletionTimestamp") && phase && strcmp(phase, "Succeeded") &&
        strcmp(phase, "Failed"))
        reason = "Terminating";
    p.status = reason ? reason : "Unknown";
    return p.name ? fn(&p, payload) : 0;
}

int gq_kube_pods(const char *json, gq_pod_fn fn, void *payload, gq_error *err)
{
    json_object *root, *items;
    size_t i;
    int rc = GQ_OK;

    GQ_ASSERT_ARG(json && fn);
    if (!(root = json_tokener_parse(json)) ||
        !json_object_is_type(items = gq__js_get(root, "items"), json_type_array)) {
        json_object_put(root);
        return gq__error(err, GQ_EK8S, "the API server's answer is not a PodList");
    }
    for (i = 0; i < json_object_array_length(items) && rc == GQ_OK; i++)
        rc = pod_row(json_object_array_get_idx(items, i), fn, payload);
    json_object_put(root);
    return rc;
}
