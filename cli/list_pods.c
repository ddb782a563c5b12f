/*
 * list_pods.c: `gpuq list pods --for workload/NAME|job/NAME`, kueuectl's
 * `list pods --for`, in cluster mode: the pods of the Job a workload was
 * made for (found in what cluster mode lists: gpuqd's status API or the
 * labelled Jobs), read from the API server by the Job's pod label
 * (batch.kubernetes.io/job-name) with the user's own credentials, and shown
 * as kubectl shows pods (NAME READY STATUS RESTARTS AGE; -o wide adds IP
 * and NODE). -o json|jsonpath|custom-columns|name, -l and --field-selector
 * go through the same selection as every other listing. Locally there are
 * no pods to list: the simulated cluster's are in `gpuq report`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "list.h"
#include "table.h"
#include "term.h"

/* The workload --for names, found among what cluster mode lists. */
struct owner {
    const char *name;
    char job[256], kind[64], ns[256];
    bool found;
    bool exact; /* found by the workload's name, not its Job's */
};

/*
 * The workload named so; without gpuqd cluster mode lists Jobs, whose rows a
 * user copies the Job's name from, so a Job of that name is taken when no
 * workload has it.
 */
static int owner_row(const gq_workload_info *wl, void *payload)
{
    struct owner *o = payload;
    bool exact = strcmp(wl->name, o->name) == 0;

    if (o->exact || (!exact && (o->found || !wl->job_name || strcmp(wl->job_name, o->name))))
        return 0;
    o->found = true;
    o->exact = exact;
    snprintf(o->job, sizeof(o->job), "%s", wl->job_name);
    snprintf(o->kind, sizeof(o->kind), "%s", wl->job_kind ? wl->job_kind : "Job");
    snprintf(o->ns, sizeof(o->ns), "%s", wl->GQ_NAMESPACE ? wl->GQ_NAMESPACE : "");
    return 0;
}

/* The Job of workload name in the listed namespace: EXIT_SUCCESS with o filled, or said. */
static int workload_job(const struct global *g, const char *name, struct owner *o)
{
    gq_workload_filter f = GQ_WORKLOAD_FILTER_INIT;
    gq_error err = {0, ""};
    char *json = NULL, *ns = NULL;
    bool jobs = false;
    int rc;

    if ((rc = cluster_workloads(g, &json, &jobs, &ns)) != EXIT_SUCCESS)
        return rc;
    f.GQ_NAMESPACE = ns;
    f.state = "all";
    o->name = name;
    rc = gq_kube_workloads(json, &f, owner_row, o, &err) == GQ_OK ? EXIT_SUCCESS : cli_fail(&err);
    if (rc == EXIT_SUCCESS && !o->found) {
        fprintf(stderr, "Error from server (NotFound): workloads.kueue.x-k8s.io \"%s\" not found\n",
                name);
        rc = EXIT_FAILURE;
    } else if (rc == EXIT_SUCCESS && strcmp(o->kind, "Job") != 0) {
        fprintf(stderr, "error: unsupported kind: %s\n", o->kind);
        rc = EXIT_FAILURE;
    }
    gq_free(json);
    gq_free(ns);
    return rc;
}

static int64_t wall_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

struct pod_table {
    struct table *t;
    bool wide;
    bool names_only;
    int64_t now_ms;
    size_t rows;
};

static int pod_row(const gq_pod_info *p, void *payload)
{
    struct pod_table *pt = payload;
    char ready[48], restarts[INT_TEXT_SIZE], agebuf[HUMAN_DURATION_SIZE];
    const char *cells[7];

    pt->rows++;
    if (pt->names_only) {
        printf("pod/%s\n", p->name);
        return 0;
    }
    snprintf(ready, sizeof(ready), "%zu/%zu", p->ready_containers, p->containers);
    human_duration(agebuf, sizeof(agebuf), p->created_ms ? (pt->now_ms - p->created_ms) / 1000 : 0);
    cells[0] = p->name;
    cells[1] = ready;
    cells[2] = p->status;
    int_text(restarts, p->restarts);
    cells[3] = restarts;
    cells[4] = p->created_ms ? agebuf : "<unknown>";
    cells[5] = p->ip ? p->ip : "<none>";
    cells[6] = p->node ? p->node : "<none>";
    return table_add_row(pt->t, cells) == 0 ? 0 : GQ_ENOMEM;
}

/* The pods of job in ns as JSON (gq_free), or the failure said. */
static int job_pods(const struct global *g, const char *ns, const char *job, char **out)
{
    gq_kube_target t;
    gq_error err = {0, ""};
    char path[768];
    long status = 0;

    cli_target(g, &t);
    snprintf(path, sizeof(path),
             "/api/v1/namespaces/%s/pods?labelSelector=batch.kubernetes.io%%2Fjob-name%%3D%s", ns,
             job);
    if (gq_kube_get(&t, path, &status, out, &err) != GQ_OK)
        return cli_fail(&err);
    if (status == 200)
        return EXIT_SUCCESS;
    fprintf(stderr, "error: listing pods: the API server answered %ld\n", status);
    gq_free(*out);
    *out = NULL;
    return EXIT_FAILURE;
}

static int print_pods(const struct global *g, const char *json, const char *ns)
{
    static const char *const cols[] = {"NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP",
                                       "NODE"};
    struct pod_table pt = {NULL, g->output && strcmp(g->output, "wide") == 0,
                           g->output && strcmp(g->output, "name") == 0, wall_now_ms(), 0};
    gq_error err = {0, ""};
    int rc;

    if (!pt.names_only && !(pt.t = table_new(cols, pt.wide ? 7 : 5)))
        return fputs("error: out of memory\n", stderr), EXIT_FAILURE;
    rc = gq_kube_pods(json, pod_row, &pt, &err);
    if (rc != GQ_OK)
        rc = rc == GQ_ENOMEM ? (fputs("error: out of memory\n", stderr), EXIT_FAILURE)
                             : cli_fail(&err);
    else if (pt.rows == 0)
        fprintf(stderr, "No resources found in %s namespace.\n", ns);
    else if (pt.t && table_print(pt.t, stdout, term_width(1), !g->no_headers,
                                 term_use_color(1, g->color)) != 0)
        rc = EXIT_FAILURE;
    table_free(pt.t);
    return rc;
}

int list_pods(const struct global *g, const char *for_spec, struct picks *pk)
{
    const char *slash = for_spec ? strchr(for_spec, '/') : NULL;
    struct owner o;
    char type[64], *json = NULL, *ns = NULL;
    gq_error err = {0, ""};
    gq_kube_target t;
    int rc;

    if (!slash || slash == for_spec || !slash[1] || (size_t)(slash - for_spec) >= sizeof(type))
        return cli_usage_error("invalid value '%s' used in --for flag; value must be in the "
                               "format TYPE[.API-GROUP]/NAME",
                               for_spec ? for_spec : "");
    snprintf(type, sizeof(type), "%.*s", (int)(slash - for_spec), for_spec);
    if (gq_validate_dns1123_subdomain(slash + 1, &err) != GQ_OK)
        return cli_usage_error("--for %s: %s", for_spec, err.msg);
    if (!cli_cluster_mode(g))
        return cli_usage_error("list pods reads a cluster's pods (--kubeconfig or --context); "
                               "the simulated cluster's pods are in gpuq report");
    if (g->all_namespaces)
        return cli_usage_error("a resource cannot be retrieved by name across all namespaces");
    memset(&o, 0, sizeof(o));
    if (strcmp(type, "workload") == 0 || strcmp(type, "workloads") == 0 ||
        strcmp(type, "wl") == 0 || strcmp(type, "workload.kueue.x-k8s.io") == 0) {
        if ((rc = workload_job(g, slash + 1, &o)) != EXIT_SUCCESS)
            return rc;
    } else if (strcmp(type, "job") == 0 || strcmp(type, "jobs") == 0 ||
               strcmp(type, "job.batch") == 0) {
        cli_target(g, &t);
        if (gq_kube_namespace(&t, &ns, &err) != GQ_OK)
            return cli_fail(&err);
        snprintf(o.job, sizeof(o.job), "%s", slash + 1);
        snprintf(o.ns, sizeof(o.ns), "%s", ns);
        gq_free(ns);
    } else {
        return cli_usage_error("list pods --for takes workload/NAME or job/NAME, not \"%s\"",
                               type);
    }
    if ((rc = job_pods(g, o.ns, o.job, &json)) != EXIT_SUCCESS)
        return rc;
    if (pk) {
        char *kept = NULL;

        rc = list_pick_print(g, json, pk, &kept);
        gq_free(json);
        json = kept;
    }
    if (rc == EXIT_SUCCESS && json)
        rc = print_pods(g, json, o.ns);
    pk ? free(json) : gq_free(json);
    return rc;
}
