/*
 * api_kube_read.c: what `gpuq` reads in cluster mode (gpuqueue/cluster.h):
 * the namespace a kubeconfig context names; a List from gpuqd's status API
 * (Kueue Workloads) or from the API server (batch/v1 Jobs) walked as
 * gq_workload_info, so that gpuq renders both with the code that renders
 * its database; the same List filtered, as JSON; and describe text for a Job
 * with the ProvisioningRequests made for it.
 *
 * A Job read as a workload (for when gpuqd's status API cannot be reached):
 * finished once it has a Complete or Failed condition; else pending while
 * suspended; else admitted, or running once it has active pods. The
 * ClusterQueue is the one its gpuq.dev/admission annotation names.
 *
 * Sizes: one List of at most some thousands of items, parsed whole; every
 * call is independent (no state between calls).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api.h" /* gq__describe_escape */
#include "error.h"
#include "gpuqueue/tool.h"
#include "gpuqueue/validate.h"
#include "kube.h"
#include "state.h"
#include "sync.h"
#include "util.h"

#define PROVREQS_PATH "/apis/autoscaling.x-k8s.io/v1/namespaces/%s/provisioningrequests"
#define MANAGED_SELECTOR "?labelSelector=kueue.x-k8s.io%%2Fmanaged%%3Dtrue"

int gq_kube_namespace(const gq_kube_target *t, char **out, gq_error *err)
{
    struct gq_kube_config_opts co = {NULL, NULL, NULL, false};
    struct gq_kube_config cfg;
    int rc;

    GQ_ASSERT_ARG(out);
    *out = NULL;
    if (t) {
        co.kubeconfig = t->kubeconfig;
        co.context = t->context;
        co.ns = t->ns;
        co.in_cluster = t->in_cluster;
    }
    if ((rc = gq__kube_config_load(&cfg, &co, err)) != GQ_OK)
        return rc;
    if (!(*out = gq__strdup(cfg.namespace)))
        rc = gq__error(err, GQ_ENOMEM, "out of memory");
    gq__kube_config_free(&cfg);
    return rc;
}

/* ------------------------------------------------------------- decoding */

static const char *or_else(const char *s, const char *fallback)
{
    return s ? s : fallback;
}

static int64_t js_int(json_object *o, const char *path, int64_t fallback)
{
    json_object *v = gq__js_get(o, path);

    return json_object_is_type(v, json_type_int) ? json_object_get_int64(v) : fallback;
}

/* A Kubernetes time in ms since the epoch; 0 when absent or malformed. */
static int64_t api_time(const char *s)
{
    int64_t ms;

    return s && gq__parse_rfc3339(s, &ms) ? ms : 0;
}

static int64_t condition_ms(json_object *o, const char *type)
{
    return api_time(gq__js_str(gq__js_condition_true(o, type), "lastTransitionTime"));
}

/* One item read as a workload; wl's strings are borrowed from the item or from here. */
struct item {
    gq_workload_info wl;
    char *name;             /* owned: a Job's workload name */
    json_object *admission; /* owned: a Job's gpuq.dev/admission, parsed */
};

/* A Kueue Workload as gpuqd renders it (status.gpuq carries gpuq's view). */
static void from_workload(json_object *o, gq_workload_info *wl)
{
    json_object *g = gq__js_get(o, "status.gpuq"),
                *refs = gq__js_get(o, "metadata.ownerReferences");
    json_object *owner =
        json_object_is_type(refs, json_type_array) ? json_object_array_get_idx(refs, 0) : NULL;

    wl->namespace = gq__js_str(o, "metadata.namespace");
    wl->name = gq__js_str(o, "metadata.name");
    wl->uid = gq__js_str(o, "metadata.uid");
    wl->job_kind = or_else(gq__js_str(owner, "kind"), "Workload");
    wl->job_name = or_else(gq__js_str(owner, "name"), wl->name);
    wl->local_queue = or_else(gq__js_str(g, "localQueue"), gq__js_str(o, "spec.queueName"));
    wl->cluster_queue =
        or_else(gq__js_str(g, "clusterQueue"), gq__js_str(o, "status.admission.clusterQueue"));
    wl->state = or_else(gq__js_str(g, "state"), gq__wl_state_name(GQ_WL_PENDING));
    wl->reason = gq__js_str(g, "reason");
    wl->message = gq__js_str(g, "message");
    wl->where = or_else(gq__js_str(g, "where"), "");
    wl->cluster_name = gq__js_str(o, "status.clusterName");
    wl->priority_class = gq__js_str(o, "spec.priorityClassName");
    wl->priority = js_int(o, "spec.priority", 0);
    wl->pods = js_int(g, "pods", 0);
    wl->gpus = js_int(g, "gpus", 0);
    wl->position = js_int(g, "positionInLocalQueue", -1);
    wl->position_cq = js_int(g, "positionInClusterQueue", -1);
    wl->created_ms = api_time(gq__js_str(o, "metadata.creationTimestamp"));
    wl->reserved_ms = condition_ms(o, "QuotaReserved");
    wl->admitted_ms = condition_ms(o, "Admitted");
    wl->finished_ms = condition_ms(o, "Finished");
}

static void job_state(json_object *o, gq_workload_info *wl, bool admitted)
{
    json_object *done = gq__js_condition_true(o, "Complete");

    if (done || (done = gq__js_condition_true(o, "Failed"))) {
        wl->state = gq__wl_state_name(GQ_WL_FINISHED);
        wl->reason = strcmp(gq__js_str(done, "type"), "Complete") == 0 ? "Succeeded" : "Failed";
        wl->message = gq__js_str(done, "message");
        wl->finished_ms = api_time(gq__js_str(done, "lastTransitionTime"));
    } else if (json_object_get_boolean(gq__js_get(o, "spec.suspend"))) {
        wl->state = gq__wl_state_name(GQ_WL_PENDING);
        wl->where = "suspended until gpuqd admits it";
        return;
    } else {
        wl->state =
            gq__wl_state_name(js_int(o, "status.active", 0) > 0 ? GQ_WL_RUNNING : GQ_WL_ADMITTED);
        if (!admitted)
            wl->where = "running without gpuq's admission";
    }
    wl->admitted_ms = api_time(gq__js_str(o, "status.startTime"));
    wl->reserved_ms = wl->admitted_ms; /* a Job alone says nothing finer */
}

/* A batch/v1 Job, as its workload (see the top of the file). */
static int from_job(json_object *o, struct item *it, gq_error *err)
{
    gq_workload_info *wl = &it->wl;
    const char *adm =
        gq__js_str(gq__js_get(o, "metadata.annotations"), GQ_SYNC_ADMISSION_ANNOTATION);

    wl->namespace = gq__js_str(o, "metadata.namespace");
    wl->job_name = gq__js_str(o, "metadata.name");
    wl->uid = gq__js_str(o, "metadata.uid");
    wl->job_kind = "Job";
    if (!wl->job_name || !wl->uid)
        return gq__error(err, GQ_EK8S, "a Job in the answer has no name or uid");
    if (!(it->name = gq__workload_name("Job", "batch", wl->job_name, wl->uid)))
        return gq__error(err, GQ_ENOMEM, "out of memory");
    wl->name = it->name;
    wl->local_queue = gq__js_str(gq__js_get(o, "metadata.labels"), GQ_SYNC_QUEUE_LABEL);
    it->admission = adm ? json_tokener_parse(adm) : NULL;
    wl->cluster_queue = gq__js_str(it->admission, "clusterQueue");
    wl->where = "";
    wl->pods = js_int(o, "spec.parallelism", 1);
    wl->position = wl->position_cq = -1;
    wl->created_ms = api_time(gq__js_str(o, "metadata.creationTimestamp"));
    job_state(o, wl, adm != NULL);
    return GQ_OK;
}

/* ------------------------------------------------------------ filtering */

/* As gq_workload_list's state filter selects (state_select, api_list.c). */
static bool state_selected(const char *want, const char *state)
{
    enum gq_wl_state s;
    bool known = gq__wl_state_parse(state, &s); /* the API server's text may be any */

    if (!want)
        return !known || s != GQ_WL_CANCELLED;
    if (strcasecmp(want, "all") == 0)
        return true;
    if (strcasecmp(want, gq__wl_state_name(GQ_WL_ADMITTED)) == 0)
        return known && gq__wl_is_admitted(s);
    if (strcasecmp(want, "quotareserved") == 0)
        return known && s == GQ_WL_RESERVED;
    return strcasecmp(want, state) == 0;
}

static bool same(const char *want, const char *have)
{
    return !want || (have && strcmp(want, have) == 0);
}

/* What gq_workload_list's filter would select, applied to one decoded item. */
static bool selected(const gq_workload_filter *f, const gq_workload_info *wl)
{
    if (!f)
        return state_selected(NULL, wl->state);
    return same(f->namespace, wl->namespace) && same(f->local_queue, wl->local_queue) &&
           same(f->cluster_queue, wl->cluster_queue) &&
           (same(f->name, wl->name) || same(f->name, wl->job_name)) &&
           state_selected(f->state, wl->state);
}

/* ---------------------------------------------------------------- walking */

typedef int (*item_fn)(json_object *o, const struct item *it, void *payload);

/* The kind of an item: its own, else the List's without "List" ("JobList" holds Jobs). */
static const char *item_kind(json_object *o, const char *list_kind, char *buf, size_t size)
{
    const char *k = gq__js_str(o, "kind");
    size_t n;

    if (k || !list_kind || (n = strlen(list_kind)) <= 4 || strcmp(list_kind + n - 4, "List"))
        return k;
    snprintf(buf, size, "%.*s", (int)(n - 4), list_kind);
    return buf;
}

static int walk_item(json_object *o,
                     const char *kind,
                     const gq_workload_filter *f,
                     item_fn fn,
                     void *payload,
                     gq_error *err)
{
    struct item it;
    int rc = GQ_OK;

    memset(&it, 0, sizeof(it));
    if (kind && strcmp(kind, "Workload") == 0)
        from_workload(o, &it.wl);
    else if (kind && strcmp(kind, "Job") == 0)
        rc = from_job(o, &it, err);
    else
        return GQ_OK; /* nothing gpuq lists */
    it.wl.state_code = gq__wl_state_public(it.wl.state);
    if (rc == GQ_OK && it.wl.name && selected(f, &it.wl))
        rc = fn(o, &it, payload);
    free(it.name);
    json_object_put(it.admission);
    return rc;
}

/* Parse a List (or one object, as a List of one) and call fn for each item f selects. */
static int
walk(const char *json, const gq_workload_filter *f, item_fn fn, void *payload, gq_error *err)
{
    json_object *root = json ? json_tokener_parse(json) : NULL, *items;
    const char *list_kind = gq__js_str(root, "kind");
    char buf[64];
    size_t i, n;
    int rc = GQ_OK;

    if (f)
        rc = gq__version_check(f->version, GQ_WORKLOAD_FILTER_VERSION, "gq_workload_filter", err);
    if (rc == GQ_OK && !json_object_is_type(root, json_type_object))
        rc = gq__error(err, GQ_EINVALID, "the answer is not a JSON object");
    items = gq__js_get(root, "items");
    if (rc == GQ_OK && !json_object_is_type(items, json_type_array))
        rc = walk_item(root, list_kind, f, fn, payload, err);
    n = rc == GQ_OK && items ? json_object_array_length(items) : 0;
    for (i = 0; i < n && rc == GQ_OK; i++) {
        json_object *o = json_object_array_get_idx(items, i);

        rc = walk_item(o, item_kind(o, list_kind, buf, sizeof(buf)), f, fn, payload, err);
    }
    json_object_put(root);
    return rc;
}

struct user_fn {
    gq_workload_fn fn;
    void *payload;
};

static int call_user(json_object *o, const struct item *it, void *payload)
{
    const struct user_fn *u = payload;

    (void)o;
    return u->fn(&it->wl, u->payload);
}

int gq_kube_workloads(const char *json,
                      const gq_workload_filter *filter,
                      gq_workload_fn fn,
                      void *payload,
                      gq_error *err)
{
    struct user_fn u = {fn, payload};

    GQ_ASSERT_ARG(json && fn);
    return walk(json, filter, call_user, &u, err);
}

/* ------------------------------------------------------------------ JSON */

static void put_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;

        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c == '\n')
            fputs("\\n", f);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static void put_value(FILE *f, json_object *v, int depth);

/* Before member i of a container at depth: a comma after the previous one, a new line, indent. */
static void put_sep(FILE *f, size_t i, int depth)
{
    fprintf(f, "%s\n%*s", i ? "," : "", (depth + 1) * 4, "");
}

/* kubectl's layout: one member a line, four spaces a level, "[]" and "{}" when empty. */
static void put_array(FILE *f, json_object *v, int depth)
{
    size_t i, n = json_object_array_length(v);

    fputc('[', f);
    for (i = 0; i < n; i++) {
        put_sep(f, i, depth);
        put_value(f, json_object_array_get_idx(v, i), depth + 1);
    }
    fprintf(f, n ? "\n%*s]" : "%*s]", n ? depth * 4 : 0, "");
}

static void put_object(FILE *f, json_object *v, int depth)
{
    struct json_object_iterator it = json_object_iter_begin(v), end = json_object_iter_end(v);
    size_t i;

    fputc('{', f);
    for (i = 0; !json_object_iter_equal(&it, &end); i++, json_object_iter_next(&it)) {
        put_sep(f, i, depth);
        put_string(f, json_object_iter_peek_name(&it));
        fputs(": ", f);
        put_value(f, json_object_iter_peek_value(&it), depth + 1);
    }
    fprintf(f, i ? "\n%*s}" : "%*s}", i ? depth * 4 : 0, "");
}

static void put_value(FILE *f, json_object *v, int depth)
{
    if (json_object_is_type(v, json_type_object))
        put_object(f, v, depth);
    else if (json_object_is_type(v, json_type_array))
        put_array(f, v, depth);
    else if (json_object_is_type(v, json_type_string))
        put_string(f, json_object_get_string(v));
    else
        fputs(json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN), f);
}

struct kept {
    json_object *items; /* the List's items array */
    gq_error *err;
};

/* Keep a selected item for the List, with the kind and apiVersion a JobList's items lack. */
static int keep_item(json_object *o, const struct item *it, void *payload)
{
    struct kept *k = payload;

    if (it->name && !gq__js_get(o, "kind")) { /* it->name: a Job */
        json_object_object_add(o, "apiVersion", json_object_new_string("batch/v1"));
        json_object_object_add(o, "kind", json_object_new_string("Job"));
    }
    if (json_object_array_add(k->items, json_object_get(o)) == 0)
        return GQ_OK;
    json_object_put(o);
    return gq__error(k->err, GQ_ENOMEM, "out of memory");
}

int gq_kube_list_json(char **out, const char *json, const gq_workload_filter *filter, gq_error *err)
{
    json_object *list = json_object_new_object(), *items = json_object_new_array(), *meta;
    struct kept k = {items, err};
    size_t len = 0;
    FILE *f = NULL;
    int rc;

    GQ_ASSERT_ARG(out && json);
    *out = NULL;
    if (!list || !items || !(meta = json_object_new_object())) {
        json_object_put(items);
        rc = gq__error(err, GQ_ENOMEM, "out of memory");
        goto out;
    }
    json_object_object_add(list, "apiVersion", json_object_new_string("v1"));
    json_object_object_add(list, "items", items);
    json_object_object_add(list, "kind", json_object_new_string("List"));
    json_object_object_add(meta, "resourceVersion", json_object_new_string(""));
    json_object_object_add(list, "metadata", meta);
    if ((rc = walk(json, filter, keep_item, &k, err)) != GQ_OK)
        goto out;
    if (!(f = open_memstream(out, &len))) {
        rc = gq__error(err, GQ_ENOMEM, "out of memory");
        goto out;
    }
    put_value(f, list, 0);
    fputc('\n', f);
    if (fclose(f) != 0)
        rc = gq__error(err, GQ_ENOMEM, "out of memory");
out:
    if (rc != GQ_OK) {
        free(*out);
        *out = NULL;
    }
    json_object_put(list);
    return rc;
}

/* -------------------------------------------------------------- describe */

/* GET path as JSON; 404 is GQ_ENOTFOUND naming what. */
static int get_json(
    const gq_kube_target *t, const char *path, const char *what, json_object **out, gq_error *err)
{
    char *body = NULL;
    long status;
    int rc;

    *out = NULL;
    if ((rc = gq_kube_get(t, path, &status, &body, err)) != GQ_OK)
        return rc;
    if (status == 404)
        rc = gq__error(err, GQ_ENOTFOUND, "%s not found", what);
    else if (status < 200 || status > 299)
        rc = gq__error(err, GQ_EK8S, "reading %s: the API server answered %ld", what, status);
    else if (!(*out = json_tokener_parse(body)))
        rc = gq__error(err, GQ_EK8S, "reading %s: the answer is not JSON", what);
    gq_free(body);
    return rc;
}

/* "main: nvidia.com/gpu=flavor, cpu=flavor" for each pod set of an admission. */
static void put_admission(FILE *f, json_object *adm)
{
    json_object *sets = gq__js_get(adm, "podSetAssignments");
    size_t i, n = json_object_is_type(sets, json_type_array) ? json_object_array_length(sets) : 0;

    fprintf(f, "Admission:\n  Cluster Queue:\t%s\n", or_else(gq__js_str(adm, "clusterQueue"), ""));
    for (i = 0; i < n; i++) {
        json_object *ps = json_object_array_get_idx(sets, i), *fl = gq__js_get(ps, "flavors");
        const char *sep = "";

        fprintf(f, "  Pod Set %s:\t", or_else(gq__js_str(ps, "name"), "main"));
        if (json_object_is_type(fl, json_type_object)) {
            json_object_object_foreach(fl, res, flavor)
            {
                fprintf(f, "%s%s=%s", sep, res, json_object_get_string(flavor));
                sep = ", ";
            }
        }
        fputc('\n', f);
    }
}

static void put_job(FILE *f, const struct item *it)
{
    const gq_workload_info *wl = &it->wl;
    char when[GQ_RFC3339_BUFSIZE];

    fprintf(f, "Name:\t%s\nNamespace:\t%s\nWorkload:\t%s\nQueue:\t%s\n", wl->job_name,
            or_else(wl->namespace, ""), wl->name, or_else(wl->local_queue, "<none>"));
    fprintf(f, "Status:\t%s%s%s%s\n", wl->state, *wl->where || wl->reason ? " (" : "",
            *wl->where ? wl->where : or_else(wl->reason, ""), *wl->where || wl->reason ? ")" : "");
    if (wl->message && *wl->message)
        fprintf(f, "Message:\t%s\n", wl->message);
    fprintf(f, "Created:\t%s\n", wl->created_ms ? gq__rfc3339(when, wl->created_ms) : "<unknown>");
    if (it->admission)
        put_admission(f, it->admission);
    else
        fputs("Admission:\t<none>\n", f);
}

/* One ProvisioningRequest: its name, class and conditions. */
static void put_request(FILE *f, json_object *pr)
{
    json_object *conds = gq__js_get(pr, "status.conditions");
    size_t i, n = json_object_is_type(conds, json_type_array) ? json_object_array_length(conds) : 0;

    fprintf(f, "  %s\n    Class:\t%s\n", or_else(gq__js_str(pr, "metadata.name"), ""),
            or_else(gq__js_str(pr, "spec.provisioningClassName"), "<none>"));
    if (n == 0)
        fputs("    Conditions:\t<none>\n", f);
    else
        fputs("    Conditions:\n      Type\tStatus\tReason\tMessage\n      ----\t------\t------\t"
              "-------\n",
              f);
    for (i = 0; i < n; i++) {
        json_object *c = json_object_array_get_idx(conds, i);

        fprintf(f, "      %s\t%s\t%s\t%s\n", or_else(gq__js_str(c, "type"), ""),
                or_else(gq__js_str(c, "status"), ""), or_else(gq__js_str(c, "reason"), ""),
                or_else(gq__js_str(c, "message"), ""));
    }
}

/* Whether an object's ownerReferences name this uid. */
static bool owned_by(json_object *o, const char *uid)
{
    json_object *refs = gq__js_get(o, "metadata.ownerReferences");
    size_t i, n = json_object_is_type(refs, json_type_array) ? json_object_array_length(refs) : 0;

    for (i = 0; i < n; i++)
        if (same(uid, gq__js_str(json_object_array_get_idx(refs, i), "uid")))
            return true;
    return false;
}

static void put_requests(FILE *f, json_object *prs, const char *uid)
{
    json_object *items = gq__js_get(prs, "items");
    size_t i, n = json_object_is_type(items, json_type_array) ? json_object_array_length(items) : 0;
    bool any = false;

    for (i = 0; i < n; i++) {
        json_object *pr = json_object_array_get_idx(items, i);

        if (!owned_by(pr, uid))
            continue;
        if (!any)
            fputs("Requests:\n", f);
        any = true;
        put_request(f, pr);
    }
    if (!any)
        fputs("Requests:\t<none>\n", f);
}

/* Align "Label:\tvalue" and tabbed table lines the way kubectl's tabwriter would, roughly. */
static int align(char **out, const char *text, gq_error *err);

static int describe_text(char **out, json_object *job, json_object *prs, gq_error *err)
{
    struct gq__str esc = {NULL, 0, 0, false};
    struct item it;
    char *raw = NULL;
    size_t len = 0;
    FILE *f;
    int rc;

    memset(&it, 0, sizeof(it));
    if ((rc = from_job(job, &it, err)) != GQ_OK)
        goto out;
    if (!(f = open_memstream(&raw, &len))) {
        rc = gq__error(err, GQ_ENOMEM, "out of memory");
        goto out;
    }
    put_job(f, &it);
    put_requests(f, prs, it.wl.uid);
    /* annotations and condition messages are anyone's text: escaped as describe.c does */
    if (fclose(f) == 0) {
        gq__describe_escape(&esc, raw, len);
        gq__str_add(&esc, "", 0); /* NUL-terminated even when empty */
    }
    rc = esc.p && !esc.failed ? align(out, esc.p, err)
                              : gq__error(err, GQ_ENOMEM, "out of memory");
out:
    free(esc.p);
    free(raw);
    free(it.name);
    json_object_put(it.admission);
    return rc;
}

int gq_kube_describe(const gq_kube_target *t, const char *name, char **out, gq_error *err)
{
    json_object *job = NULL, *prs = NULL;
    char *ns = NULL, path[600], what[300];
    int rc;

    GQ_ASSERT_ARG(name && out);
    *out = NULL;
    if ((rc = gq_validate_dns1123_subdomain(name, err)) != GQ_OK) {
        gq__error_prefix(err, "job name");
        return rc;
    }
    if ((rc = gq_kube_namespace(t, &ns, err)) != GQ_OK)
        return rc;
    snprintf(path, sizeof(path), "/apis/batch/v1/namespaces/%s/jobs/%s", ns, name);
    snprintf(what, sizeof(what), "jobs.batch \"%s\" in namespace %s", name, ns);
    if ((rc = get_json(t, path, what, &job, err)) != GQ_OK)
        goto out;
    snprintf(path, sizeof(path), PROVREQS_PATH MANAGED_SELECTOR, ns);
    rc = get_json(t, path, "provisioningrequests", &prs, err);
    if (rc == GQ_OK || rc == GQ_ENOTFOUND) /* without the CRD there are no requests */
        rc = describe_text(out, job, prs, err);
out:
    json_object_put(job);
    json_object_put(prs);
    gq_free(ns);
    return rc;
}

/* ------------------------------------------------------------ alignment */

/*
 * Each run of consecutive lines holding a tab is laid out as columns: a
 * cell is padded to its column's widest cell plus two spaces (kubectl's
 * describe uses Go's tabwriter with padding 2; this is its simple case, in
 * which a run's lines have their tabs at the same nesting).
 */
static void align_run(FILE *f, const char *const *lines, size_t n)
{
    size_t w[8] = {0}, i, col, len;
    const char *p, *tab;

    for (i = 0; i < n; i++)
        for (p = lines[i], col = 0; (tab = strchr(p, '\t')) && tab < strchr(p, '\n') && col < 8;
             p = tab + 1, col++)
            if ((len = (size_t)(tab - p)) > w[col])
                w[col] = len;
    for (i = 0; i < n; i++) {
        for (p = lines[i], col = 0; (tab = strchr(p, '\t')) && tab < strchr(p, '\n') && col < 8;
             p = tab + 1, col++)
            fprintf(f, "%-*.*s", (int)(w[col] + 2), (int)(tab - p), p);
        fprintf(f, "%.*s\n", (int)(strchr(p, '\n') - p), p);
    }
}

static int align(char **out, const char *text, gq_error *err)
{
    const char *lines[256], *p = text, *nl;
    size_t n = 0, len = 0;
    FILE *f = open_memstream(out, &len);

    if (!f)
        return gq__error(err, GQ_ENOMEM, "out of memory");
    for (; (nl = strchr(p, '\n')) != NULL; p = nl + 1) {
        bool tabbed = memchr(p, '\t', (size_t)(nl - p)) != NULL;

        if (tabbed && n < sizeof(lines) / sizeof(lines[0])) {
            lines[n++] = p;
            continue;
        }
        align_run(f, lines, n);
        n = 0;
        if (tabbed)
            lines[n++] = p;
        else
            fprintf(f, "%.*s\n", (int)(nl - p), p);
    }
    align_run(f, lines, n);
    if (fclose(f) != 0) {
        free(*out);
        *out = NULL;
        return gq__error(err, GQ_ENOMEM, "out of memory");
    }
    return GQ_OK;
}
