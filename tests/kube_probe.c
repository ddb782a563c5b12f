/*
 * kube_probe.c: a test tool (not installed) that drives the Kubernetes
 * client from the command line, for tests/integration/test_kube_client.py.
 *
 *   kube_probe --kubeconfig FILE call METHOD PATH [BODY [CONTENT-TYPE]]
 *       prints "<status>\n<body>" and exits 0 on any HTTP answer, else
 *       prints the one-line error and exits 1.
 *   kube_probe --kubeconfig FILE watch PATH [SELECTOR] --for SECONDS
 *       runs one informer and prints a line per callback,
 *       "REPLACE <n> <ns/name...>" and "<TYPE> <ns>/<name> rv=<rv>",
 *       "PROBLEM <text>" when the informer's problem changes, and at the end
 *       "LISTS <n> WATCHES <n> RV <rv> REQUESTS <n>".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube.h"
#include "os.h"
#include "util.h"

static const char *field(json_object *o, const char *key)
{
    json_object *meta, *v;

    if (json_object_object_get_ex(o, "metadata", &meta) &&
        json_object_object_get_ex(meta, key, &v) && json_object_is_type(v, json_type_string))
        return json_object_get_string(v);
    return NULL;
}

static void print_name(json_object *o)
{
    const char *ns = field(o, "namespace"), *name = field(o, "name");

    if (ns)
        printf("%s/", ns);
    printf("%s", name ? name : "?");
}

static int on_replace(json_object *items, void *payload)
{
    size_t n = json_object_array_length(items);

    (void)payload;
    printf("REPLACE %zu", n);
    for (size_t i = 0; i < n; i++) {
        putchar(' ');
        print_name(json_object_array_get_idx(items, i));
    }
    putchar('\n');
    return 0;
}

static int on_event(const char *type, json_object *object, void *payload)
{
    const char *rv = field(object, "resourceVersion");

    (void)payload;
    printf("%s ", type);
    print_name(object);
    printf(" rv=%s\n", rv ? rv : "");
    return 0;
}

static int usage(void)
{
    fprintf(stderr, "usage: kube_probe --kubeconfig FILE call METHOD PATH [BODY [CONTENT-TYPE]]\n"
                    "       kube_probe --kubeconfig FILE watch PATH [SELECTOR] --for SECONDS\n");
    return 2;
}

static int open_client(struct gq_kube **out, const char *kubeconfig, gq_error *err)
{
    struct gq_kube_config_opts o = {kubeconfig, NULL, NULL, false};
    struct gq_kube_config cfg;
    int rc;

    rc = gq__kube_config_load(&cfg, &o, err);
    if (rc == GQ_OK)
        rc = gq__kube_open(out, &cfg, NULL, err);
    return rc;
}

static int call(struct gq_kube *k, int argc, char **argv, gq_error *err)
{
    struct gq_kube_resp r;
    int rc;

    if (argc < 2 || argc > 4)
        return usage();
    rc = gq__kube_call(k, argv[0], argv[1], argc > 3 ? argv[3] : NULL, argc > 2 ? argv[2] : NULL,
                       &r, err);
    if (rc != GQ_OK)
        return rc;
    printf("%ld\n%s\n", r.status, r.body);
    gq__kube_resp_free(&r);
    return GQ_OK;
}

/* Poll until the time is up, reporting each change of the informer's problem. */
static int run_for(struct gq_kube *k, struct gq_kube_informer *inf, double secs, gq_error *err)
{
    int64_t end = gq__mono_us() / 1000 + (int64_t)(secs * 1000), left;
    char last[512] = "";
    const char *p;
    int rc = GQ_OK;

    while (rc == GQ_OK && (left = end - gq__mono_us() / 1000) > 0) {
        rc = gq__kube_poll(k, left < 100 ? left : 100, err);
        p = gq__kube_informer_problem(inf);
        if (p && strcmp(p, last) != 0)
            printf("PROBLEM %s\n", p);
        snprintf(last, sizeof(last), "%s", p ? p : "");
    }
    return rc;
}

static int watch(struct gq_kube *k, int argc, char **argv, gq_error *err)
{
    static const struct gq_kube_informer_ops ops = {on_replace, on_event};
    const char *path = NULL, *selector = NULL;
    struct gq_kube_informer *inf;
    double secs = -1;
    int rc;

    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--for") == 0 && i + 1 < argc)
            secs = strtod(argv[++i], NULL);
        else if (!path)
            path = argv[i];
        else if (!selector)
            selector = argv[i];
        else
            return usage();
    }
    if (!path || secs < 0)
        return usage();
    rc = gq__kube_informer_new(&inf, k, path, selector, &ops, NULL, err);
    if (rc != GQ_OK)
        return rc;
    rc = run_for(k, inf, secs, err);
    printf("LISTS %llu WATCHES %llu RV %s REQUESTS %llu\n",
           (unsigned long long)gq__kube_informer_lists(inf),
           (unsigned long long)gq__kube_informer_watches(inf), gq__kube_informer_rv(inf),
           (unsigned long long)gq__kube_requests(k));
    gq__kube_informer_free(inf);
    return rc;
}

int main(int argc, char **argv)
{
    struct gq_kube *k = NULL;
    gq_error err = {0, ""};
    int rc;

    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc < 5 || strcmp(argv[1], "--kubeconfig") != 0)
        return usage();
    if (strcmp(argv[3], "call") != 0 && strcmp(argv[3], "watch") != 0)
        return usage();
    rc = open_client(&k, argv[2], &err);
    if (rc == GQ_OK)
        rc = strcmp(argv[3], "call") == 0 ? call(k, argc - 4, argv + 4, &err)
                                          : watch(k, argc - 4, argv + 4, &err);
    gq__kube_close(k);
    if (rc == 2)
        return 2;
    if (rc != GQ_OK) {
        fprintf(stderr, "error: %s\n", err.msg);
        return 1;
    }
    return 0;
}
