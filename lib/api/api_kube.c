/*
 * api_kube.c: what `gpuq` does in cluster mode, with the user's own
 * credentials (gpuqueue/cluster.h): create a suspended Job, delete one,
 * read a path of the API server.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "kube.h"
#include "manifest_load.h"
#include "sync.h"
#include "util.h"

bool gq_kube_wanted(const gq_kube_target *t)
{
    const char *kc = getenv("KUBECONFIG");

    if (t && (t->kubeconfig || t->context || t->in_cluster))
        return true;
    if (kc && *kc)
        return true;
    return getenv("KUBERNETES_SERVICE_HOST") && getenv("KUBERNETES_SERVICE_PORT");
}

static int connect_to(struct gq_kube **out, const gq_kube_target *t, gq_error *err)
{
    struct gq_kube_config_opts co = {NULL, NULL, NULL, false};
    struct gq_kube_config cfg;
    int rc;

    if (t) {
        co.kubeconfig = t->kubeconfig;
        co.context = t->context;
        co.ns = t->ns;
        co.in_cluster = t->in_cluster;
    }
    if ((rc = gq__kube_config_load(&cfg, &co, err)) != GQ_OK)
        return rc;
    return gq__kube_open(out, &cfg, NULL, err);
}

static int answer(const struct gq_kube_resp *r, const char *what, gq_error *err)
{
    char line[GQ_KUBE_STATUS_LINE];

    if (r->status == 404)
        return gq__error(err, GQ_ENOTFOUND, "%s: not found", what);
    if (r->status >= 200 && r->status <= 299)
        return GQ_OK;
    gq__kube_status_line(line, sizeof(line), r);
    if (r->status == 409)
        return gq__error(err, GQ_EEXISTS, "%s: %s", what, line);
    return gq__error(err, r->status == 422 || r->status == 400 ? GQ_EINVALID : GQ_EK8S, "%s: %s",
                     what, line);
}

int gq_kube_submit(const gq_kube_target *t, const char *manifest, size_t len, char **name_out,
                   gq_error *err)
{
    struct gq_kube *k = NULL;
    struct gq_kube_resp r;
    char *json = NULL, *ns = NULL, path[320];
    int rc;

    *name_out = NULL;
    if ((rc = connect_to(&k, t, err)) != GQ_OK)
        return rc;
    if ((rc = gq__manifest_kube_job(manifest, len, t && t->ns ? t->ns : gq__kube_config(k)->namespace,
                                    &json, &ns, err)) != GQ_OK)
        goto out;
    snprintf(path, sizeof(path), "/apis/batch/v1/namespaces/%s/jobs", ns);
    if ((rc = gq__kube_call(k, "POST", path, NULL, json, &r, err)) != GQ_OK)
        goto out;
    if ((rc = answer(&r, "create job", err)) == GQ_OK &&
        !(*name_out = gq__strdup(gq__js_str(r.json, "metadata.name"))))
        rc = gq__error(err, GQ_EK8S, "the API server answered without the Job's name");
    gq__kube_resp_free(&r);
out:
    free(json);
    free(ns);
    gq__kube_close(k);
    return rc;
}

int gq_kube_cancel(const gq_kube_target *t, const char *name, gq_error *err)
{
    struct gq_kube *k = NULL;
    struct gq_kube_resp r;
    char path[600], body[256];
    const char *uid;
    int rc;

    if ((rc = connect_to(&k, t, err)) != GQ_OK)
        return rc;
    snprintf(path, sizeof(path), "/apis/batch/v1/namespaces/%s/jobs/%s",
             t && t->ns ? t->ns : gq__kube_config(k)->namespace, name);
    if ((rc = gq__kube_call(k, "GET", path, NULL, NULL, &r, err)) != GQ_OK)
        goto out;
    if ((rc = answer(&r, name, err)) == GQ_OK && !(uid = gq__js_str(r.json, "metadata.uid")))
        rc = gq__error(err, GQ_EK8S, "job %s has no uid", name);
    if (rc == GQ_OK)
        snprintf(body, sizeof(body),
                 "{\"kind\":\"DeleteOptions\",\"apiVersion\":\"v1\",\"propagationPolicy\":"
                 "\"Background\",\"preconditions\":{\"uid\":\"%s\"}}", uid);
    gq__kube_resp_free(&r);
    if (rc == GQ_OK && (rc = gq__kube_call(k, "DELETE", path, NULL, body, &r, err)) == GQ_OK) {
        rc = answer(&r, name, err);
        gq__kube_resp_free(&r);
    }
out:
    gq__kube_close(k);
    return rc;
}

int gq_kube_get(const gq_kube_target *t, const char *path, long *status_out, char **out,
                gq_error *err)
{
    struct gq_kube *k = NULL;
    struct gq_kube_resp r;
    int rc;

    *out = NULL;
    *status_out = 0;
    if ((rc = connect_to(&k, t, err)) != GQ_OK)
        return rc;
    if ((rc = gq__kube_call(k, "GET", path, NULL, NULL, &r, err)) == GQ_OK) {
        *status_out = r.status;
        if (!(*out = gq__strdup(r.body ? r.body : "")))
            rc = gq__error(err, GQ_ENOMEM, "out of memory");
        gq__kube_resp_free(&r);
    }
    gq__kube_close(k);
    return rc;
}
