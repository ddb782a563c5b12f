/*
 * main.c: gpuqd. Two modes today: --check (open the database, bring its
 * schema up to date, verify the file) and --sim, the embedded default's
 * long-running loop: admission cycles, admission check states, the
 * simulated cluster and job completion on the local database (gq_run),
 * one log line per transition, until SIGTERM or SIGINT. The Kubernetes
 * sync is the next issue.
 *
 * Signals only set a flag; the loop finishes the step in hand (each of its
 * transactions commits or rolls back whole), hands the clock back and exits.
 *
 * --listen serves the HTTP endpoints of http.c beside the loop, on a thread
 * and a read-only database handle of their own.
 *
 * --sim-provisioner (provisioner.c) is a mode of its own: the simulated
 * cluster answering an API server's ProvisioningRequests, for trying the DWS
 * flow without GPUs; it takes cluster mode's connection flags.
 */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gpuqueue.h>
#include <gpuqueue/tool.h>

#include "daemon.h"
#include "http.h"

static volatile int http_ready; /* read by the HTTP thread for /readyz */


static void usage(FILE *out)
{
    fputs("Usage: gpuqd [--db PATH] --check\n"
          "       gpuqd [--db PATH] --sim [--speed X|max] [--seed N] [--for DURATION] "
          "[--log text|json]\n"
          "                               [--listen ADDR [--local-queue-metrics]]\n"
          "       gpuqd [--db PATH] [--kubeconfig FILE] [--context NAME] [--in-cluster]\n"
          "             [--leader-elect [--lease-namespace NS] [--lease-name NAME] [--identity ID]]\n"
          "             [--config FILE] [--unadmitted suspend|report] [--refusal-timeout D]\n"
          "             [--listen ADDR [--local-queue-metrics]] [--log FMT]\n"
          "       gpuqd [--db PATH] --sim-provisioner [--kubeconfig FILE] [--context NAME] "
          "[--in-cluster]\n"
          "             [--config FILE] [--speed X] [--seed N] [--log FMT]\n\n"
          "  --db PATH        database file (default: $GPUQ_DB, else "
          "$XDG_STATE_HOME/gpuq/gpuq.db)\n"
          "  --check          migrate the schema, verify the file's integrity, and exit\n"
          "  --sim            run the simulated cluster on the database until SIGTERM/SIGINT:\n"
          "                   admission, ProvisioningRequests answered from the NodePools,\n"
          "                   jobs started and finished; `gpuq` works alongside\n"
          "  --speed X        virtual seconds per second (default 1); max: jump to what is due\n"
          "  --seed N         the simulator's random seed (default: carry on the stored one)\n"
          "  --for DURATION   stop after this much virtual time\n"
          "  --log FORMAT     one line per transition: text (default) or json\n"
          "  --listen ADDR    serve /healthz, /readyz, /metrics, Kueue's visibility API and\n"
          "                   /api/v1/workloads on ADDR (127.0.0.1:8080, :8080, [::1]:0)\n"
          "  --local-queue-metrics  /metrics also carries Kueue's kueue_local_queue_*\n"
          "                   families (Kueue's LocalQueueMetrics; off by default)\n"
          "  --sim-provisioner  the simulated cluster as an API server's autoscaler (below)\n"
          "\nCluster mode (chosen by --kubeconfig, --context, --in-cluster, KUBECONFIG, or a pod's\n"
          "environment): watch the API server, admit suspended labelled Jobs, create their\n"
          "ProvisioningRequests, unsuspend them when capacity arrives.\n"
          "  --kubeconfig F   this kubeconfig only (else KUBECONFIG, ~/.kube/config, in-cluster)\n"
          "  --context NAME   a context other than current-context\n"
          "  --namespace NS   a namespace instead of the context's\n"
          "  --in-cluster     the pod's service account only\n"
          "  --leader-elect   write only while holding a coordination.k8s.io/v1 Lease\n"
          "                   (15 s / 10 s / 2 s)\n"
          "  --lease-namespace NS  the Lease's namespace (default: the context's)\n"
          "  --lease-name NAME     the Lease's name (default gpuqd-leader)\n"
          "  --identity ID    this replica's name in the Lease (default hostname_pid)\n"
          "  --config FILE    queue objects to apply at start and on SIGHUP\n"
          "  --unadmitted P   a labelled Job running without admission: suspend (default) or\n"
          "                   report\n"
          "  --refusal-timeout D  writes for a workload the API server refuses (403, 422...)\n"
          "                   are retried with backoff; after D (default 10m) it gives its\n"
          "                   quota back\n"
          "  --version        print the version\n"
          "  -h, --help       print this help\n"
          "\n--sim-provisioner: the simulated cluster plays the autoscaler for the API server:\n"
          "every ProvisioningRequest of a class it models is answered from the database's\n"
          "NodePools (--config FILE: apply them first) on the wall clock (--speed X: X times\n"
          "faster), its status written as GKE would; a request deleted gives its nodes back.\n",
          out);
}

static int open_db(const char *path, gq_db **db, gq_error *err)
{
    gq_open_options o = GQ_OPEN_OPTIONS_INIT;
    char *def = NULL;
    int rc;

    if (!path && (rc = gq_db_default_path(&def, err)) != GQ_OK)
        return rc;
    rc = gq_db_open(db, path ? path : def, &o, err);
    gq_free(def);
    return rc;
}

static int check(const char *path)
{
    gq_error err = {0, ""};
    gq_db *db = NULL;
    int version = 0;

    if (open_db(path, &db, &err) != GQ_OK || gq_db_check(db, &version, &err) != GQ_OK) {
        fprintf(stderr, "gpuqd: error: %s\n", err.msg);
        gq_db_close(db);
        return EXIT_FAILURE;
    }
    printf("gpuqd: %s: ok (schema %d)\n", path ? path : "default database", version);
    gq_db_close(db);
    return EXIT_SUCCESS;
}

static int log_event(const gq_run_event *e, void *payload)
{
    gqd_log_event(e, *(const bool *)payload);
    return 0;
}

/* The HTTP endpoints on the same file (the default one when path is NULL). */
static int start_http(struct gqd_http **h, const char *listen, const char *path,
                      const gq_metrics_options *metrics)
{
    gq_error err = {0, ""};
    char errbuf[256], *def = NULL;
    int rc;

    if (!path && gq_db_default_path(&def, &err) != GQ_OK) {
        fprintf(stderr, "gpuqd: error: %s\n", err.msg);
        return -1;
    }
    rc = gqd_http_start(h, listen, path ? path : def, &http_ready, metrics, errbuf,
                        sizeof(errbuf));
    gq_free(def);
    if (rc != 0) {
        fprintf(stderr, "gpuqd: error: %s\n", errbuf);
        return -1;
    }
    fprintf(stderr, "gpuqd: listening on %s\n", gqd_http_address(*h));
    return 0;
}

static int sim(const char *path, gq_run_options *o, bool json, const char *listen,
               const gq_metrics_options *metrics)
{
    gq_error err = {0, ""};
    gq_run_stats st;
    struct gqd_http *http = NULL;
    gq_db *db = NULL;
    int rc;

    gqd_signals(false); /* no configuration to reload in this mode */
    o->stop = &gqd_stop_requested;
    if ((rc = open_db(path, &db, &err)) == GQ_OK && listen && start_http(&http, listen, path, metrics)) {
        gq_db_close(db);
        return EXIT_FAILURE;
    }
    if (rc == GQ_OK) {
        /* The embedded mode has nothing to sync first; the HTTP thread reads the flag. */
        __atomic_store_n(&http_ready, 1, __ATOMIC_RELEASE);
        rc = gq_run(db, o, log_event, &json, &st, &err);
    }
    gqd_http_stop(http);
    gq_db_close(db);
    if (rc != GQ_OK) {
        fprintf(stderr, "gpuqd: error: %s\n", err.msg);
        return EXIT_FAILURE;
    }
    fprintf(stderr, "gpuqd: stopped after %llu steps: %llu admitted, %llu finished\n",
            (unsigned long long)st.steps, (unsigned long long)st.admitted,
            (unsigned long long)st.finished);
    return EXIT_SUCCESS;
}

static const char *value(int argc, char **argv, int *i, const char *name)
{
    size_t n = strlen(name);

    if (strcmp(argv[*i], name) == 0 && *i + 1 < argc)
        return argv[++*i];
    if (strncmp(argv[*i], name, n) == 0 && argv[*i][n] == '=')
        return argv[*i] + n + 1;
    return NULL;
}

/*
 * Cluster mode's flags (kubectl's and controller-runtime's names): 1 when
 * argv[*i] was one, 0 when not, -1 (reported) when its value is bad.
 */
static int cluster_flag(int argc, char **argv, int *i, gq_cluster_options *c, bool *cluster)
{
    const char *v;

    if ((v = value(argc, argv, i, "--kubeconfig")))
        c->target.kubeconfig = v;
    else if ((v = value(argc, argv, i, "--context")))
        c->target.context = v;
    else if ((v = value(argc, argv, i, "--namespace")))
        c->target.ns = v;
    else if (strcmp(argv[*i], "--in-cluster") == 0)
        c->target.in_cluster = true;
    else if (strcmp(argv[*i], "--leader-elect") == 0)
        c->leader_elect = true;
    else if ((v = value(argc, argv, i, "--lease-namespace")))
        c->lease_namespace = v;
    else if ((v = value(argc, argv, i, "--lease-name")))
        c->lease_name = v;
    else if ((v = value(argc, argv, i, "--identity")))
        c->identity = v;
    else if ((v = value(argc, argv, i, "--config")))
        c->config = v;
    else if ((v = value(argc, argv, i, "--unadmitted"))) {
        if (strcmp(v, "suspend") != 0 && strcmp(v, "report") != 0) {
            fprintf(stderr, "gpuqd: error: invalid --unadmitted \"%s\": want suspend or report\n",
                    v);
            return -1;
        }
        c->suspend_unadmitted = strcmp(v, "suspend") == 0;
    } else if ((v = value(argc, argv, i, "--refusal-timeout"))) {
        gq_error err = {0, ""};

        if (gq_duration_parse(v, &c->refusal_timeout_ms, &err) != GQ_OK ||
            c->refusal_timeout_ms <= 0) {
            fprintf(stderr, "gpuqd: error: invalid --refusal-timeout \"%s\": want a duration "
                            "above 0 (e.g. 10m)\n", v);
            return -1;
        }
    } else
        return 0;
    *cluster = true;
    return 1;
}

/* Cluster mode: asked for by a flag, KUBECONFIG, or a pod's environment. */
static int cluster(const char *path, gq_cluster_options *c, const char *listen,
                   const gq_metrics_options *metrics, bool json)
{
    gq_error err = {0, ""};
    char *def = NULL;
    int rc;

    if (!path && gq_db_default_path(&def, &err) != GQ_OK) {
        fprintf(stderr, "gpuqd: error: %s\n", err.msg);
        return EXIT_FAILURE;
    }
    rc = gqd_cluster(path ? path : def, c, listen, metrics, json);
    gq_free(def);
    return rc;
}

/* --sim-provisioner: cluster mode's connection flags, and the simulator's speed and seed. */
static int provisioner(const char *path, gq_cluster_options *c, const gq_run_options *o,
                       bool json)
{
    gq_error err = {0, ""};
    char *def = NULL;
    int rc;

    if (o->speed <= 0) {
        fprintf(stderr, "gpuqd: error: --speed max does not go with --sim-provisioner: it follows "
                        "the wall clock\n");
        return 2;
    }
    if (!path && gq_db_default_path(&def, &err) != GQ_OK) {
        fprintf(stderr, "gpuqd: error: %s\n", err.msg);
        return EXIT_FAILURE;
    }
    rc = gqd_sim_provisioner(path ? path : def, c, o->speed, o->seed, json);
    gq_free(def);
    return rc;
}

int main(int argc, char **argv)
{
    gq_run_options o = GQ_RUN_OPTIONS_INIT;
    gq_cluster_options co = GQ_CLUSTER_OPTIONS_INIT;
    gq_metrics_options mo = GQ_METRICS_OPTIONS_INIT;
    gq_error err = {0, ""};
    const char *path = NULL, *v, *log = "text", *listen = NULL;
    bool kube = false;
    char *end;
    int i, rc, mode = 0; /* 1 check, 2 sim, 3 sim-provisioner */

    o.speed = 1.0;
    for (i = 1; i < argc; i++) {
        if ((v = value(argc, argv, &i, "--db"))) {
            path = v;
        } else if (strcmp(argv[i], "--check") == 0) {
            mode = 1;
        } else if (strcmp(argv[i], "--sim") == 0) {
            mode = 2;
        } else if (strcmp(argv[i], "--sim-provisioner") == 0) {
            mode = 3;
        } else if ((v = value(argc, argv, &i, "--speed"))) {
            o.speed = strcmp(v, "max") == 0 ? 0 : strtod(v, &end);
            if (strcmp(v, "max") != 0 && (end == v || *end || !(o.speed > 0) || o.speed > 1e6)) {
                fprintf(stderr, "gpuqd: error: invalid --speed \"%s\": want a number above 0, "
                                "or max\n", v);
                return 2;
            }
        } else if ((v = value(argc, argv, &i, "--seed"))) {
            o.seed = strtoull(v, &end, 10);
            if (end == v || *end || *v == '-') {
                fprintf(stderr, "gpuqd: error: invalid --seed \"%s\"\n", v);
                return 2;
            }
        } else if ((v = value(argc, argv, &i, "--for"))) {
            if (gq_duration_parse(v, &o.for_ms, &err) != GQ_OK) {
                fprintf(stderr, "gpuqd: error: --for: %s\n", err.msg);
                return 2;
            }
        } else if ((v = value(argc, argv, &i, "--log"))) {
            if (strcmp(v, "text") != 0 && strcmp(v, "json") != 0) {
                fprintf(stderr, "gpuqd: error: invalid --log \"%s\": want text or json\n", v);
                return 2;
            }
            log = v;
        } else if ((v = value(argc, argv, &i, "--listen"))) {
            listen = v;
        } else if (strcmp(argv[i], "--local-queue-metrics") == 0) {
            mo.local_queue_metrics = true;
        } else if ((rc = cluster_flag(argc, argv, &i, &co, &kube)) != 0) {
            if (rc < 0)
                return 2;
        } else if (strcmp(argv[i], "--version") == 0) {
            printf("gpuqd version %s\n", gq_version());
            return EXIT_SUCCESS;
        } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return EXIT_SUCCESS;
        } else {
            fprintf(stderr, "gpuqd: error: unknown argument \"%s\"\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }
    if ((listen || mo.local_queue_metrics) && (mode == 1 || mode == 3)) {
        fprintf(stderr, "gpuqd: error: %s does not go with %s\n",
                listen ? "--listen" : "--local-queue-metrics",
                mode == 1 ? "--check" : "--sim-provisioner");
        return 2;
    }
    if (mode == 1)
        return check(path);
    if (mode == 2)
        return sim(path, &o, strcmp(log, "json") == 0, listen, &mo);
    if (mode == 3)
        return provisioner(path, &co, &o, strcmp(log, "json") == 0);
    if (kube || gq_kube_wanted(&co.target))
        return cluster(path, &co, listen, &mo, strcmp(log, "json") == 0);
    usage(stderr);
    return 2;
}
