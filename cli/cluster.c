/*
 * cluster.c: gpuq in cluster mode, where the API server is the truth and
 * gpuqd admits. Every call uses the user's own credentials, as kubectl
 * would: submit creates the Job suspended (the library forces it), cancel
 * deletes it (uid precondition, background propagation), list reads gpuqd's
 * status API through the API server's service proxy and falls back to the
 * labelled Jobs themselves, describe reads a Job and its
 * ProvisioningRequests. What the cluster answers is JSON, which only the
 * library reads; tables are drawn by cmd_list.c, the same code as local mode.
 *
 * Output, chosen to match kubectl, since cluster-mode users have it open in
 * the next terminal: submit prints "job.batch/NAME created" (-o name:
 * "job.batch/NAME"), cancel "job.batch "NAME" deleted". The Job's name is
 * what cancel and describe take, so it is the name printed (local mode
 * prints workload names, which its cancel also accepts).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

/* gpuqd's status API, through the API server's service proxy. */
#define STATUS_API "/api/v1/namespaces/gpuq-system/services/http:gpuqd:http/proxy/api/v1/workloads"
#define QUEUE_SELECTOR "labelSelector=kueue.x-k8s.io%%2Fqueue-name" /* a format */

bool cli_cluster_mode(const struct global *g)
{
    const char *kubeconfig = getenv("KUBECONFIG"), *db = getenv("GPUQ_DB");

    if (g->kubeconfig || g->context)
        return true;
    return kubeconfig && *kubeconfig && !g->db_path && !g->cluster && !(db && *db);
}

void cli_target(const struct global *g, gq_kube_target *t)
{
    memset(t, 0, sizeof(*t));
    t->kubeconfig = g->kubeconfig;
    t->context = g->context;
    t->ns = g->namespace;
}

/* The reason phrase of a status the API server may give a read. */
static const char *reason(long status)
{
    static const struct {
        long status;
        const char *text;
    } reasons[] = {{401, "Unauthorized"},    {403, "Forbidden"},     {404, "NotFound"},
                   {429, "TooManyRequests"}, {500, "InternalError"}, {503, "ServiceUnavailable"}};
    size_t i;

    for (i = 0; i < sizeof(reasons) / sizeof(reasons[0]); i++)
        if (reasons[i].status == status)
            return reasons[i].text;
    return "unexpected answer";
}

/* ------------------------------------------------------------------- list */

/* GET path; a transport failure or a status other than 200 is printed and fails. */
static int get_ok(const gq_kube_target *t, const char *path, const char *what, char **out)
{
    gq_error err = {0, ""};
    long status = 0;

    if (gq_kube_get(t, path, &status, out, &err) != GQ_OK)
        return cli_fail(&err);
    if (status == 200)
        return EXIT_SUCCESS;
    fprintf(stderr, "error: %s: the API server answered %ld (%s)\n", what, status, reason(status));
    gq_free(*out);
    *out = NULL;
    return EXIT_FAILURE;
}

/* gpuqd's answer, or NULL (and GQ_OK) when it cannot be reached through the proxy. */
static int status_api(const gq_kube_target *t, const char *ns, char **out, gq_error *err)
{
    char path[512];
    long status = 0;
    int rc;

    if (ns)
        snprintf(path, sizeof(path), STATUS_API "?namespace=%s", ns);
    else
        snprintf(path, sizeof(path), "%s", STATUS_API);
    if ((rc = gq_kube_get(t, path, &status, out, err)) != GQ_OK)
        return rc;
    /* 404: no such service (or no proxy); 503: no ready endpoint; 403: no right to proxy. */
    if (status != 200) {
        gq_free(*out);
        *out = NULL;
    }
    return GQ_OK;
}

int cluster_workloads(const struct global *g, char **json_out, bool *jobs_out, char **ns_out)
{
    static bool noted;
    gq_kube_target t;
    gq_error err = {0, ""};
    char path[512];
    int rc = EXIT_SUCCESS;

    *json_out = NULL;
    *jobs_out = false;
    cli_target(g, &t);
    if (gq_kube_namespace(&t, ns_out, &err) != GQ_OK)
        return cli_fail(&err);
    if (status_api(&t, g->all_namespaces ? NULL : *ns_out, json_out, &err) != GQ_OK) {
        rc = cli_fail(&err);
        goto out;
    }
    if (*json_out)
        goto out;
    if (g->all_namespaces)
        snprintf(path, sizeof(path), "/apis/batch/v1/jobs?" QUEUE_SELECTOR);
    else
        snprintf(path, sizeof(path), "/apis/batch/v1/namespaces/%s/jobs?" QUEUE_SELECTOR, *ns_out);
    if ((rc = get_ok(&t, path, "listing jobs", json_out)) != EXIT_SUCCESS)
        goto out;
    *jobs_out = true;
    if (!noted) /* once per process: -w reads again and again */
        fputs("note: gpuqd's status API is not reachable; showing the Jobs themselves\n", stderr);
    noted = true;
out:
    if (rc != EXIT_SUCCESS) {
        gq_free(*ns_out);
        *ns_out = NULL;
    }
    return rc;
}

/* ----------------------------------------------------------------- submit */


/*
 * Create one Job from manifest text; print what kubectl create prints. The
 * configuration is known good by now, so a failure is the manifest's or the
 * server's: name the file it came from, in place of the library's "manifest".
 */
static int submit_text(const gq_kube_target *t,
                       const struct global *g,
                       const char *source,
                       const char *text,
                       size_t len)
{
    gq_error err = {0, ""};
    char *name = NULL;
    const char *msg;

    if (gq_kube_submit(t, text, len, &name, &err) != GQ_OK) {
        if (!source)
            return cli_fail(&err);
        msg = err.msg[0] ? err.msg : gq_strerror(err.code);
        if (strncmp(msg, "manifest: ", 10) == 0)
            msg += 10;
        fprintf(stderr, "error: %s: %s\n", source, msg);
        return EXIT_FAILURE;
    }
    if (g->output) /* -o name */
        printf("job.batch/%s\n", name);
    else
        printf("job.batch/%s created\n", name);
    gq_free(name);
    return EXIT_SUCCESS;
}

static int submit_path(const gq_kube_target *t, const struct global *g, const char *path);

static int is_manifest(const struct dirent *e)
{
    size_t n = strlen(e->d_name);

    return e->d_name[0] != '.' && ((n > 5 && !strcmp(e->d_name + n - 5, ".yaml")) ||
                                   (n > 4 && !strcmp(e->d_name + n - 4, ".yml")) ||
                                   (n > 5 && !strcmp(e->d_name + n - 5, ".json")));
}

/* A directory: its .yaml, .yml and .json files in name order, as local mode takes them. */
static int submit_dir(const gq_kube_target *t, const struct global *g, const char *dir)
{
    struct dirent **names = NULL;
    char path[4096];
    int i, n, rc = EXIT_SUCCESS;

    if ((n = scandir(dir, &names, is_manifest, alphasort)) < 0) {
        cli_path_error(dir);
        return EXIT_FAILURE;
    }
    if (n == 0) {
        fprintf(stderr, "error: path \"%s\": no *.yaml, *.yml or *.json files\n", dir);
        rc = EXIT_FAILURE;
    }
    for (i = 0; i < n; i++) {
        snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
        if (rc == EXIT_SUCCESS)
            rc = submit_path(t, g, path);
        free(names[i]);
    }
    free(names);
    return rc;
}

static int submit_path(const gq_kube_target *t, const struct global *g, const char *path)
{
    struct stat st;
    size_t len;
    char *text;
    int rc;

    if (strcmp(path, "-") != 0 && stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return submit_dir(t, g, path);
    if (!(text = cli_read_file(path, &len)))
        return EXIT_FAILURE;
    rc = submit_text(t, g, path, text, len);
    free(text);
    return rc;
}

/* submit --queue ...: the Job gq_job_build makes, in namespace ns (-n's or the context's). */
static int
submit_spec(const gq_kube_target *t, const struct global *g, gq_job_spec *spec, const char *ns)
{
    gq_error err = {0, ""};
    char *json = NULL;
    int rc;

    spec->namespace = ns;
    if (gq_job_build(&json, spec, &err) == GQ_OK)
        rc = submit_text(t, g, NULL, json, strlen(json));
    else
        rc = cli_fail(&err);
    spec->namespace = NULL;
    gq_free(json);
    return rc;
}

int cluster_submit(const struct global *g, const struct strlist *files, gq_job_spec *spec)
{
    gq_kube_target t;
    gq_error err = {0, ""};
    char *ns = NULL;
    size_t i;
    int rc = EXIT_SUCCESS;

    if (g->output && strcmp(g->output, "name") != 0)
        return cli_usage_error("in cluster mode submit prints job names, not \"%s\" "
                               "(see gpuq list -o json)",
                               g->output);
    cli_target(g, &t);
    /* Configuration errors first, on their own, before any file is named. */
    if (gq_kube_namespace(&t, &ns, &err) != GQ_OK)
        return cli_fail(&err);
    if (files->n == 0)
        rc = submit_spec(&t, g, spec, ns);
    for (i = 0; i < files->n && rc == EXIT_SUCCESS; i++)
        rc = submit_path(&t, g, files->v[i]);
    gq_free(ns);
    return rc;
}

/* ----------------------------------------------------- cancel and describe */

int cluster_cancel(const struct global *g, int nargs, char **argv)
{
    gq_kube_target t;
    gq_error err = {0, ""};
    int i, status = EXIT_SUCCESS;

    cli_target(g, &t);
    for (i = 0; i < nargs; i++) {
        if (gq_validate_dns1123_subdomain(argv[i], &err) != GQ_OK) {
            fprintf(stderr, "error: job name: %s\n", err.msg);
            status = EXIT_FAILURE;
        } else if (gq_kube_cancel(&t, argv[i], &err) == GQ_OK) {
            printf("job.batch \"%s\" deleted\n", argv[i]);
        } else if (err.code == GQ_ENOTFOUND) {
            fprintf(stderr, "error: jobs.batch \"%s\" not found\n", argv[i]);
            status = EXIT_FAILURE;
        } else {
            status = cli_fail(&err);
        }
    }
    return status;
}

int cluster_describe(const struct global *g, const char *resource, const char *name)
{
    gq_kube_target t;
    gq_error err = {0, ""};
    char *text = NULL;

    if (strcmp(resource, "workload") != 0 && strcmp(resource, "job") != 0)
        return cli_usage_error("in cluster mode gpuq describes workloads (by job name); "
                               "use kubectl describe %s",
                               resource);
    cli_target(g, &t);
    if (gq_kube_describe(&t, name, &text, &err) != GQ_OK)
        return cli_fail(&err);
    fputs(text, stdout);
    gq_free(text);
    return EXIT_SUCCESS;
}
