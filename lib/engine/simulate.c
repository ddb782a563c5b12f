/*
 * simulate.c: gq_simulate (gpuqueue/simulate.h). The arrivals come from
 * workgen.c; this file applies the cluster's manifests, checks every
 * arrival's queue before anything is submitted, then drives run.c's loop
 * with a feed: a profile's stage k+1 is submitted the moment the last job
 * of stage k has finished (or was deactivated), a trace's jobs at their
 * offsets from the start. Jobs are Kueue Workloads (one pod set per
 * shape: a Dask cluster is a scheduler and its workers), submitted in one
 * transaction per moment, at the virtual time they arrive.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "error.h"
#include "gpuqueue/simulate.h"
#include "gpuqueue/tool.h"
#include "handle.h"
#include "os.h"
#include "store.h"
#include "util.h"
#include "workgen.h"

/*
 * Where a fresh simulation's clock starts: a trace's offsets count from
 * Monday 2026-01-05 00:00Z (the start of its week), a profile's day from
 * 08:00 that morning.
 */
#define WEEK_START_MS 1767571200000LL
#define DAY_START_MS (WEEK_START_MS + 8 * 3600 * 1000LL)

/*
 * Write transactions per commit on a scratch database (gq__store_group):
 * a step is four or five (arrivals, the provider, the cycles, the kubelet,
 * the clock), each writing its pages to the WAL at its commit; grouped, a
 * page the steps share (the clock's, the events' last, the workloads'
 * index) is written once per group. 1,024 rather than 128: the 20,000-job
 * week's kernel time 1.6 s -> 0.8 s; 8,192 gained nothing more.
 */
#define GROUP_TXNS 1024

/*
 * User story 1's cluster, the same as examples/simulate/rapids-cluster.yaml
 * (test_simulate checks they agree): one pool of 2 x T4 nodes, 1..20,
 * 5 minutes from scale-up to a running pod, behind one queue.
 */
static const char story_cluster[] =
    "apiVersion: kueue.x-k8s.io/v1beta1\n"
    "kind: ResourceFlavor\n"
    "metadata: {name: t4}\n"
    "spec:\n"
    "  nodeLabels: {cloud.google.com/gke-nodepool: gpu-pool}\n"
    "---\n"
    "apiVersion: kueue.x-k8s.io/v1beta1\n"
    "kind: ClusterQueue\n"
    "metadata: {name: rapids}\n"
    "spec:\n"
    "  namespaceSelector: {}\n"
    "  resourceGroups:\n"
    "  - coveredResources: [cpu, memory, nvidia.com/gpu]\n"
    "    flavors:\n"
    "    - name: t4\n"
    "      resources:\n"
    "      - {name: cpu, nominalQuota: 1000}\n"
    "      - {name: memory, nominalQuota: 4000Gi}\n"
    "      - {name: nvidia.com/gpu, nominalQuota: 40}\n"
    "---\n"
    "apiVersion: kueue.x-k8s.io/v1beta1\n"
    "kind: LocalQueue\n"
    "metadata: {namespace: default, name: user-queue}\n"
    "spec: {clusterQueue: rapids}\n"
    "---\n"
    "apiVersion: sim.gpuq.dev/v1alpha1\n"
    "kind: NodePool\n"
    "metadata: {name: gpu-pool}\n"
    "spec:\n"
    "  queuedProvisioning: false\n"
    "  nodeLabels: {cloud.google.com/gke-nodepool: gpu-pool}\n"
    "  gpusPerNode: 2\n"
    "  minNodes: 1\n"
    "  maxNodes: 20\n"
    "  provisioningTime: 5m\n"
    "  scaleDownAfter: 10m\n";

static const char *const builtins[] = {"rapids-day"};

bool gq_simulate_profile_is_builtin(const char *name)
{
    size_t i;

    for (i = 0; name && i < sizeof(builtins) / sizeof(builtins[0]); i++)
        if (strcmp(name, builtins[i]) == 0)
            return true;
    return false;
}

struct feeder {
    gq_db *db;
    struct gq_wg_jobs jobs;   /* by stage, or by arrival */
    size_t next;              /* the next job to submit */
    size_t open_from, open_to;/* the current stage's jobs, [from, to) */
    size_t open;              /* of them, not finished yet */
    int64_t start;
    gq_run_fn fn;             /* the caller's */
    void *payload;
    struct gq__str buf;
};

/* ------------------------------------------------------------- arrivals */

static int read_file(const char *path, char **out, size_t *len, gq_error *err)
{
    FILE *f = fopen(path, "rb");
    struct gq__str s = {NULL, 0, 0, false};
    char chunk[65536];
    size_t n;

    if (!f)
        return gq__error(err, errno == ENOENT ? GQ_ENOTFOUND : GQ_EIO, "%s: %s", path,
                         strerror(errno));
    while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
        gq__str_add(&s, chunk, n);
    if (ferror(f)) {
        fclose(f);
        free(s.p);
        return gq__error(err, GQ_EIO, "%s: read error", path);
    }
    fclose(f);
    if (s.failed || !s.p) {
        free(s.p);
        return s.failed ? gq__error(err, GQ_ENOMEM, "out of memory reading %s", path)
                        : gq__error(err, GQ_EINVALID, "%s: empty file", path);
    }
    *out = s.p;
    *len = s.len;
    return GQ_OK;
}

static int load_arrivals(struct feeder *f, const gq_simulate_options *o, gq_error *err)
{
    char *text = NULL;
    size_t len = 0;
    int rc;

    if (o->profile && o->trace)
        return gq__error(err, GQ_EINVALID, "give a profile or a trace, not both");
    if (!o->profile && !o->trace)
        return GQ_OK; /* the jobs already in the database */
    if (o->profile && gq_simulate_profile_is_builtin(o->profile))
        return gq__wg_profile(&f->jobs, o->profile, NULL, 0, o->profile, o->seed ? o->seed : 1,
                              o->namespace, o->queue, err);
    if ((rc = read_file(o->profile ? o->profile : o->trace, &text, &len, err)) != GQ_OK) {
        if (rc == GQ_ENOTFOUND && o->profile)
            gq__error(err, rc, "profile \"%s\": no such file, and not a built-in profile "
                      "(rapids-day)", o->profile);
        return rc;
    }
    if (o->profile)
        rc = gq__wg_profile(&f->jobs, NULL, text, len, o->profile, o->seed ? o->seed : 1,
                            o->namespace, o->queue, err);
    else
        rc = gq__wg_trace(&f->jobs, text, len, o->trace, err);
    free(text);
    return rc;
}

/* Every arrival's LocalQueue exists: checked before anything is submitted. */
static int check_queues(struct feeder *f, gq_error *err)
{
    const char *ns = NULL, *q = NULL;
    size_t i;

    for (i = 0; i < f->jobs.n; i++) {
        const struct gq_wg_job *j = &f->jobs.v[i];

        if (ns && strcmp(ns, j->ns) == 0 && strcmp(q, j->queue) == 0)
            continue;
        ns = j->ns;
        q = j->queue;
        if (!gq__store_object_exists(f->db->st, GQ_KIND_LOCAL_QUEUE, ns, q))
            return gq__error(err, GQ_EINVALID, "job %s/%s: LocalQueue \"%s\" not found in "
                             "namespace \"%s\"", ns, j->name, q, ns);
    }
    return GQ_OK;
}

/* ---------------------------------------------------------------- feeding */

/* One arrival as a Kueue Workload (names and quantities were checked by workgen). */
static void put_job(struct gq__str *s, const struct gq_wg_job *j)
{
    size_t k, r;

    gq__str_printf(s, "---\napiVersion: kueue.x-k8s.io/v1beta1\nkind: Workload\n"
                      "metadata:\n  name: \"%s\"\n  namespace: \"%s\"\n"
                      "  annotations: {gpuq.dev/duration: \"%lld.%03llds\"}\n"
                      "spec:\n  queueName: \"%s\"\n",
                   j->name, j->ns, (long long)(j->run_ms / 1000), (long long)(j->run_ms % 1000),
                   j->queue);
    if (j->priority_class)
        gq__str_printf(s, "  priorityClassSource: kueue.x-k8s.io/workloadpriorityclass\n"
                          "  priorityClassName: \"%s\"\n", j->priority_class);
    gq__str_puts(s, "  podSets:\n");
    for (k = 0; k < j->npodsets; k++) {
        const struct gq_wg_podset *p = &j->podsets[k];

        gq__str_printf(s, "  - name: \"%s\"\n    count: %d\n    template:\n      spec:\n"
                          "        restartPolicy: Never\n        containers:\n"
                          "        - name: c\n          image: sim\n"
                          "          resources:\n            requests: {",
                       p->name, (int)p->count);
        for (r = 0; r < p->nres; r++)
            gq__str_printf(s, "%s\"%s\": \"%s\"", r ? ", " : "", p->res[r], p->qty[r]);
        gq__str_puts(s, "}\n");
    }
}

static int submit(struct feeder *f, size_t from, size_t to, int64_t now, gq_error *err)
{
    gq_apply_options ao = GQ_APPLY_OPTIONS_INIT;
    size_t i;
    int rc;

    f->buf.len = 0;
    for (i = from; i < to; i++)
        put_job(&f->buf, &f->jobs.v[i]);
    if (f->buf.failed)
        return gq__error(err, GQ_ENOMEM, "out of memory submitting arrivals");
    ao.mode = GQ_MODE_SUBMIT;
    ao.now_ms = now;
    rc = gq_apply_buffer(f->db, f->buf.p, f->buf.len, "simulation", &ao, NULL, NULL, err);
    return rc == GQ_OK ? (int)(to - from) : rc;
}

static int feed(gq_db *db, int64_t now, void *payload, gq_error *err)
{
    struct feeder *f = payload;
    size_t from = f->next, to = f->next;

    (void)db;
    if (from >= f->jobs.n)
        return 0;
    if (f->jobs.v[from].stage >= 0) { /* a profile: the next stage once this one ended */
        if (f->open)
            return 0;
        while (to < f->jobs.n && f->jobs.v[to].stage == f->jobs.v[from].stage)
            to++;
        f->open_from = from;
        f->open_to = to;
        f->open = to - from;
    } else {
        while (to < f->jobs.n && f->start + f->jobs.v[to].at_ms <= now)
            to++;
        if (to == from)
            return 0;
    }
    f->next = to;
    return submit(f, from, to, now, err);
}

static int64_t next_arrival(void *payload, int64_t now)
{
    const struct feeder *f = payload;

    (void)now;
    if (f->next >= f->jobs.n || f->jobs.v[f->next].stage >= 0)
        return 0; /* a stage comes when its predecessor ends, not at a time */
    return f->start + f->jobs.v[f->next].at_ms;
}

/* A job of the current stage finished or was deactivated: one fewer open. */
static int on_event(const gq_run_event *e, void *payload)
{
    struct feeder *f = payload;
    size_t i;

    if (f->open && e->job_name &&
        (e->what_id == GQ_EVENT_WHAT_FINISHED || e->what_id == GQ_EVENT_WHAT_DEACTIVATED))
        for (i = f->open_from; i < f->open_to; i++)
            if (strcmp(f->jobs.v[i].name, e->job_name) == 0 &&
                strcmp(f->jobs.v[i].ns, e->namespace) == 0) {
                f->open--;
                break;
            }
    return f->fn ? f->fn(e, f->payload) : 0;
}

/* -------------------------------------------------------------- the run */

struct fresh {
    int64_t start;  /* in: where a fresh database's clock starts; out: where it stands */
    bool fresh;     /* out: nothing was there, the clock was set */
};

/* On a fresh database the clock starts at the simulation's start; else it is kept. */
static int fresh_txn(struct gq_store *st, void *payload, gq_error *err)
{
    struct fresh *f = payload;
    struct gq_clock c;

    if (!(f->fresh = gq__store_sim_fresh(st))) {
        f->start = gq__store_now(st);
        return GQ_OK;
    }
    memset(&c, 0, sizeof(c));
    c.wall_ms = gq__now_ms();
    c.virtual_ms = f->start;
    c.speed = 0; /* stands still until the run moves it: the same seed, the same times */
    return gq__store_clock_set(st, &c, err);
}

static int apply_manifests(struct feeder *f, const gq_simulate_options *o, bool fresh,
                           gq_error *err)
{
    gq_apply_options ao = GQ_APPLY_OPTIONS_INIT;
    size_t i;
    int rc = GQ_OK;

    ao.now_ms = f->start;
    for (i = 0; rc == GQ_OK && i < o->nmanifests; i++)
        rc = gq_apply_path(f->db, o->manifests[i], &ao, NULL, NULL, err);
    if (rc == GQ_OK && !o->nmanifests && fresh && o->profile &&
        gq_simulate_profile_is_builtin(o->profile))
        rc = gq_apply_buffer(f->db, story_cluster, sizeof(story_cluster) - 1,
                             "user story 1's cluster", &ao, NULL, NULL, err);
    return rc;
}

static int simulate(struct feeder *f, const gq_simulate_options *o, gq_simulate_stats *stats,
                    gq_error *err)
{
    struct gq__run_feed rf = {feed, next_arrival, f};
    gq_run_options ro = GQ_RUN_OPTIONS_INIT;
    struct fresh fr = {o->start_ms ? o->start_ms : o->trace ? WEEK_START_MS : DAY_START_MS,
                       false};
    int rc;

    if ((rc = load_arrivals(f, o, err)) != GQ_OK ||
        (rc = gq__store_write(f->db->st, fresh_txn, &fr, err)) != GQ_OK)
        return rc;
    f->start = fr.start;
    if ((rc = apply_manifests(f, o, fr.fresh, err)) != GQ_OK || (rc = check_queues(f, err)) != GQ_OK)
        return rc;
    stats->jobs = f->jobs.n;
    stats->stages = (size_t)f->jobs.nstages;
    ro.seed = o->seed ? o->seed : 1;
    ro.until_idle = true;
    ro.stop = o->stop;
    return gq__run(f->db, &ro, on_event, f, &stats->run, &rf, err);
}

int gq_simulate(gq_db *db, const gq_simulate_options *opts, gq_run_fn fn, void *payload,
                gq_simulate_stats *stats, gq_error *err)
{
    gq_simulate_options o = GQ_SIMULATE_OPTIONS_INIT;
    gq_simulate_stats ignored;
    struct feeder f;
    gq_error ignored_err;
    int rc;

    if (!db)
        return gq__error(err, GQ_EINVALID, "no database");
    if (opts && (rc = gq__version_check(opts->version, GQ_SIMULATE_OPTIONS_VERSION,
                                        "gq_simulate_options", err)) != GQ_OK)
        return rc;
    if (opts)
        o = *opts;
    if (!stats)
        stats = &ignored;
    memset(stats, 0, sizeof(*stats));
    memset(&f, 0, sizeof(f));
    f.db = db;
    f.fn = fn;
    f.payload = payload;
    if (!o.durable && ((rc = gq__store_durable(db->st, false, err)) != GQ_OK ||
                       (rc = gq__store_group(db->st, GROUP_TXNS, err)) != GQ_OK))
        return rc;
    rc = simulate(&f, &o, stats, err);
    /* The last group committed, durable again: the whole run on disk before it is reported done. */
    if (gq__store_group(db->st, 0, rc == GQ_OK ? err : &ignored_err) != GQ_OK && rc == GQ_OK)
        rc = err ? err->code : GQ_EIO;
    if (gq__store_durable(db->st, true, rc == GQ_OK ? err : &ignored_err) != GQ_OK &&
        rc == GQ_OK)
        rc = err ? err->code : GQ_EIO;
    if (rc == GQ_OK && !o.durable)
        gq__store_checkpoint(db->st);
    gq__wg_jobs_free(&f.jobs);
    free(f.buf.p);
    return rc;
}
