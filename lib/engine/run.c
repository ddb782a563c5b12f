/*
 * run.c: the embedded default (issue 4; DESIGN.md "engine"): the simulated
 * cluster attached to the local database as the sim backend of the one
 * loop (loop.c, backend.h). One step, a turn of the loop at one moment of
 * the database's clock, is three transactions:
 *
 *   provider   (observe) new ProvisioningRequests go to the simulator,
 *              deleted ones give their nodes back, requests whose pods run
 *              are consumed; the simulator moves to now and each request's
 *              status is written as GKE would (the engine's check sync
 *              reads it);
 *   admission  (the loop) scheduling cycles until stable, which also turn
 *              those statuses into check states;
 *   kubelet    (act) admitted workloads start (pods on their nodes; the
 *              unsuspend effect, a store change here: sim_apply), running
 *              ones whose duration is over finish and let go of their quota.
 *
 * Then the clock moves (the loop waits; sim_next says what is due): as
 * fast as possible it jumps to the next moment anything is due (a delay
 * ending, a booking expiring, a job finishing, a backoff ending), so the
 * same seed gives the same story; with a speed it
 * follows the wall clock, scaled. Other gpuq processes read the same
 * clock from the database, and their commits wake the loop.
 *
 * The clock only moves forward (the store refuses otherwise) and never past
 * GQ__TIME_MAX_MS: a job whose end would fall past it runs until cancelled
 * (with a Warning event), and a run asked to go past it is refused. A stop
 * (o.stop) is honoured between steps and inside one, between scheduling
 * cycles, so 100,000 pending workloads do not keep a signal waiting.
 */
#include <stddef.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "engine.h"
#include "error.h"
#include "event.h"
#include "gpuqueue/run.h"
#include "gpuqueue/schedule.h"
#include "gpuqueue/tool.h"
#include "handle.h"
#include "manifest_load.h"
#include "nodes.h"
#include "release.h"
#include "os.h"
#include "run_multikueue.h"
#include "sim.h"
#include "state.h"
#include "store.h"
#include "store_run.h"
#include "util.h"

#define SETTLE_STEPS 50    /* steps at one moment while things keep moving */

/* A transition kept until its transaction commits (flush); the words come from the enums. */
struct event {
    int64_t at;
    gq_event_kind kind;
    gq_event_what what;
    char *ns, *name, *job, *message;
    char *cluster; /* the worker it happened on; NULL: here */
};

struct dws_pool {
    int64_t workload;
    int pool;
};

/* A flavor's nodeLabels, which its pods' nodeSelector takes (the release rule). */
struct flavor_labels {
    char *name;
    struct gq_flavor flavor; /* node_labels only */
};

struct runner {
    gq_db *db;
    struct gq_store *st;
    gq_run_options o;
    gq_run_fn fn;
    void *payload;
    gq_run_stats *stats;
    struct gq_sim sim;
    struct gq_books books;   /* nodes and pods (nodes.h) */
    const struct gq__run_feed *feed; /* gq_simulate's arrivals; NULL */
    struct dws_pool *dws;    /* workloads whose pods run on a request's pool */
    size_t ndws, capdws;
    struct flavor_labels *fl; /* each flavor with nodeLabels, as the run started */
    size_t nfl;
    struct gq_clock clock;
    struct gq_wfpr wfpr;     /* waitForPodsReady, read at each step's start (provider_txn) */
    int64_t now;
    uint64_t moved;          /* transitions in this step */
    bool again;              /* of them, one the same moment must look at again (sim_next) */
    size_t nrequests;        /* live ProvisioningRequests at this step's start */
    int settle;              /* steps in a row at one moment */
    struct event *ev;        /* reported once their transaction committed */
    size_t nev, capev;
    const char *cluster;     /* a simulated MultiKueue worker's name; NULL: the manager */
    struct gq_mks *mk;       /* the manager's workers (run_multikueue.c); NULL: none */
    gq_run_stats own;        /* a worker's figures (the manager's are the caller's) */
    bool claimed;            /* the clock is this run's: hand it back at the end */
};

/* ------------------------------------------------------------------ events */

static void events_clear(struct runner *r)
{
    size_t i;

    for (i = 0; i < r->nev; i++) {
        free(r->ev[i].ns);
        free(r->ev[i].name);
        free(r->ev[i].job);
        free(r->ev[i].message);
        free(r->ev[i].cluster);
    }
    r->nev = 0;
}

static int event(struct runner *r, gq_event_kind kind, const char *ns, const char *name,
                 const char *job, gq_event_what what, const char *message)
{
    struct event *e;

    r->moved++;
    if (!r->fn)
        return GQ_OK;
    if (gq__grow(&r->ev, &r->capev, r->nev, sizeof(*r->ev)) < 0)
        return GQ_ENOMEM;
    e = &r->ev[r->nev++];
    e->at = r->now;
    e->kind = kind;
    e->ns = gq__strdup(ns);
    e->name = gq__strdup(name);
    e->job = gq__strdup(job);
    e->what = what;
    e->message = gq__strdup(message);
    e->cluster = r->cluster ? gq__strdup(r->cluster) : NULL;
    return e->ns && e->name && (e->job || !job) && (e->message || !message) &&
                   (e->cluster || !r->cluster)
               ? GQ_OK
               : GQ_ENOMEM;
}

static int flush(struct runner *r)
{
    size_t i;
    int rc = 0;

    for (i = 0; rc == 0 && i < r->nev; i++) {
        const struct event *e = &r->ev[i];
        gq_run_event x;

        memset(&x, 0, sizeof(x));
        x.at_ms = e->at;
        x.elapsed_ms = e->at - r->stats->start_ms;
        x.namespace = e->ns;
        x.name = e->name;
        x.job_name = e->job;
        x.message = e->message;
        x.level_id = GQ_EVENT_LEVEL_NONE;
        x.cluster = e->cluster;
        x.kind_id = e->kind;
        x.what_id = e->what;
        gq__event_words(&x);
        rc = r->fn(&x, r->payload);
    }
    events_clear(r);
    return rc;
}

/* ---------------------------------------------------------------- provider */

struct pr_row {
    int64_t id, workload;
    char *uid, *name, *ns, *class_name, *spec, *templates, *status, *record, *wstate;
    int sim;                 /* index in the simulator */
};

struct pr_rows {
    struct pr_row *v;
    size_t n, cap;
    bool failed;
};

static void pr_rows_free(struct pr_rows *rows)
{
    size_t i;

    for (i = 0; i < rows->n; i++) {
        struct pr_row *p = &rows->v[i];

        free(p->uid);
        free(p->name);
        free(p->ns);
        free(p->class_name);
        free(p->spec);
        free(p->templates);
        free(p->status);
        free(p->record);
        free(p->wstate);
    }
    free(rows->v);
}

/* A request of the store's, kept for the step (its strings copied). */
static int pr_row(const struct gq_run_request *q, void *payload)
{
    struct pr_rows *rows = payload;
    struct pr_row *p;

    if (gq__grow(&rows->v, &rows->cap, rows->n, sizeof(*rows->v)) < 0) {
        rows->failed = true;
        return GQ_ENOMEM;
    }
    p = &rows->v[rows->n++];
    memset(p, 0, sizeof(*p));
    p->id = q->id;
    p->uid = gq__strdup(q->uid);
    p->name = gq__strdup(q->name);
    p->ns = gq__strdup(q->ns);
    p->class_name = gq__strdup(q->class_name);
    p->spec = gq__strdup(q->spec);
    p->templates = gq__strdup(q->templates);
    p->status = gq__strdup(q->status);
    p->record = gq__strdup(q->record);
    p->wstate = gq__strdup(q->wstate);
    p->workload = q->workload;
    p->sim = -1;
    if (!p->uid || !p->name || !p->ns || !p->class_name || !p->spec || !p->templates ||
        !p->wstate)
        rows->failed = true;
    return rows->failed ? GQ_ENOMEM : 0;
}

/* A request the simulator has not seen: restored from its record, or submitted. */
static int submit(struct runner *r, struct pr_row *p, gq_error *err)
{
    struct gq_kvs sel = {NULL, 0};
    int32_t gpus;
    int64_t max_run;
    int rc;

    if (p->record && (p->sim = gq__sim_restore(&r->sim, p->uid, p->record)) >= 0)
        return GQ_OK;
    rc = gq__manifest_provreq_needs(p->spec, p->templates, &sel, &gpus, &max_run, err);
    if (rc == GQ_EIO) /* its stored JSON does not parse */
        return gq__store_damaged(r->st, err, "provisioning_requests row %lld: spec does not decode",
                                 (long long)p->id);
    if (rc != GQ_OK)
        return rc;
    p->sim = gq__sim_request(&r->sim, p->uid, &sel, gpus, max_run, r->now);
    gq__kvs_clear(&sel);
    if (p->sim < 0)
        return gq__error(err, GQ_ENOMEM, "out of memory in the simulated cluster");
    r->sim.reqs[p->sim].check_capacity =
        strcmp(p->class_name, "check-capacity.autoscaling.x-k8s.io") == 0;
    r->stats->requests++;
    return GQ_OK;
}

/* A request's state (enum gq_sim_state) as the event that tells of it. */
static const gq_event_what state_whats[] = {GQ_EVENT_WHAT_ACCEPTED, GQ_EVENT_WHAT_PROVISIONED,
                                            GQ_EVENT_WHAT_FAILED, GQ_EVENT_WHAT_BOOKING_EXPIRED,
                                            GQ_EVENT_WHAT_CAPACITY_REVOKED};

/* The state and holding a record had, before this step: -1 without one. */
static int recorded_state(const char *record, int *holds)
{
    int state = -1;

    *holds = 0;
    if (!record || sscanf(record, "v1 %d %*d %*d %*d %*d %*d %*d %*d %d", &state, holds) != 2)
        return -1;
    return state;
}

/* Write a request's status and record when they changed, with an event for a new state. */
static int publish(struct runner *r, const struct pr_row *p, gq_error *err)
{
    const struct gq_sim_request *q = &r->sim.reqs[p->sim];
    char record[GQ_SIM_RECORD_SIZE], *status = NULL;
    int holds, before = recorded_state(p->record, &holds), rc;

    gq__sim_record(&r->sim, p->sim, record);
    if ((rc = gq__manifest_sim_status(q, &status, err)) != GQ_OK)
        return rc;
    if (p->status && p->record && strcmp(status, p->status) == 0 && strcmp(record, p->record) == 0)
        goto out;
    if ((rc = gq__store_provreq_status(r->st, p->id, status, record, err)) != GQ_OK)
        goto out;
    if (before != (int)q->state || (q->holds && !holds && q->state == GQ_SIM_ACCEPTED)) {
        gq_event_what what = before == (int)q->state ? GQ_EVENT_WHAT_CAPACITY_FOUND
                                                     : state_whats[q->state];

        if ((rc = gq__store_event(r->st, "ProvisioningRequest", p->ns, p->name, p->uid,
                                  q->state == GQ_SIM_ACCEPTED || q->state == GQ_SIM_PROVISIONED
                                      ? "Normal"
                                      : "Warning",
                                  gq__event_what_word(what), q->message, NULL, NULL, r->now,
                                  err)) == GQ_OK)
            rc = event(r, GQ_EVENT_KIND_PROVISIONING_REQUEST, p->ns, p->name, NULL, what,
                       q->message);
    }
out:
    free(status);
    return rc;
}

/*
 * The books follow the queued pools' nodes (what sim.c holds and keeps
 * idle), and remember which pool each request's workload runs on.
 */
static int follow_pools(struct runner *r, const struct pr_rows *rows, gq_error *err)
{
    size_t i;

    for (i = 0; i < r->sim.npools; i++)
        if (!r->sim.pools[i].autoscaling &&
            gq__books_follow(&r->books, (int)i, r->sim.used[i] + r->sim.idle[i], r->now) < 0)
            return gq__error(err, GQ_ENOMEM, "out of memory in the simulated cluster");
    r->ndws = 0;
    for (i = 0; i < rows->n; i++) {
        int pool = r->sim.reqs[rows->v[i].sim].pool;

        if (pool < 0)
            continue;
        if (gq__grow(&r->dws, &r->capdws, r->ndws, sizeof(*r->dws)) < 0)
            return gq__error(err, GQ_ENOMEM, "out of memory in the simulated cluster");
        r->dws[r->ndws++] = (struct dws_pool){rows->v[i].workload, pool};
    }
    return GQ_OK;
}

static int provider_txn(struct gq_store *st, void *payload, gq_error *err)
{
    struct runner *r = payload;
    struct pr_rows rows = {NULL, 0, 0, false};
    enum gq_wl_state ws;
    bool *live = NULL;
    size_t i;
    int rc, k;

    /* waitForPodsReady as it stands this step (the kubelet reads it too) */
    if ((rc = gq__engine_wfpr_load(st, &r->wfpr, err)) == GQ_OK && r->wfpr.on)
        rc = gq__store_pods_ready_running(st, err);
    if (rc == GQ_OK)
        rc = gq__store_run_requests(st, pr_row, &rows, err);
    if (rows.failed)
        rc = gq__error(err, GQ_ENOMEM, "out of memory reading ProvisioningRequests");
    for (i = 0; rc == GQ_OK && i < rows.n; i++) {
        struct pr_row *p = &rows.v[i];

        if ((p->sim = gq__sim_find(&r->sim, p->uid)) < 0)
            rc = submit(r, p, err);
        /* Pods started on its nodes: the booking is used and will not expire. */
        if (rc == GQ_OK && gq__wl_state_parse(p->wstate, &ws) && gq__wl_is_admitted(ws))
            gq__sim_consume(&r->sim, p->sim);
    }
    if (rc == GQ_OK && !(live = calloc(r->sim.nreqs + 1, sizeof(*live))))
        rc = gq__error(err, GQ_ENOMEM, "out of memory in the simulated cluster");
    for (i = 0; rc == GQ_OK && i < rows.n; i++)
        live[rows.v[i].sim] = true;
    /* Deleted requests (finished, evicted, cancelled): their nodes go back. */
    for (i = 0; rc == GQ_OK && i < r->sim.nreqs; i++)
        if (!live[i] && r->sim.reqs[i].pool >= 0)
            gq__sim_delete(&r->sim, (int)i, r->now);
    for (k = 0; rc == GQ_OK && k < 4 && gq__sim_advance(&r->sim, r->now); k++)
        ; /* capacity freed by one request may serve the next at the same moment */
    for (i = 0; rc == GQ_OK && i < rows.n; i++)
        rc = publish(r, &rows.v[i], err);
    r->nrequests = rows.n;
    if (rc == GQ_OK)
        rc = follow_pools(r, &rows, err);
    if (rc == GQ_OK) {
        r->clock.rng = r->sim.rng;
        rc = gq__store_clock_set(st, &r->clock, err);
    }
    free(live);
    pr_rows_free(&rows);
    return rc;
}

/* ----------------------------------------------------------------- kubelet */

struct wl_row {
    int64_t id, duration_ms;
    char *ns, *name, *uid, *job;
};

struct wl_rows {
    struct wl_row *v;
    size_t n, cap;
    bool failed;
};

/* A workload of the store's, kept for the step (its strings copied). */
static int wl_row(const struct gq_run_workload *x, void *payload)
{
    struct wl_rows *rows = payload;
    struct wl_row *w;

    if (gq__grow(&rows->v, &rows->cap, rows->n, sizeof(*rows->v)) < 0) {
        rows->failed = true;
        return GQ_ENOMEM;
    }
    w = &rows->v[rows->n++];
    w->id = x->id;
    w->ns = gq__strdup(x->ns);
    w->name = gq__strdup(x->name);
    w->uid = gq__strdup(x->uid);
    w->job = gq__strdup(x->job);
    w->duration_ms = x->duration_ms;
    if (!w->ns || !w->name || !w->uid || !w->job)
        rows->failed = true;
    return rows->failed ? GQ_ENOMEM : 0;
}

static void wl_rows_free(struct wl_rows *rows)
{
    size_t i;

    for (i = 0; i < rows->n; i++) {
        free(rows->v[i].ns);
        free(rows->v[i].name);
        free(rows->v[i].uid);
        free(rows->v[i].job);
    }
    free(rows->v);
    memset(rows, 0, sizeof(*rows));
}

static int select_rows(struct runner *r, enum gq_run_which which, struct wl_rows *rows,
                       gq_error *err)
{
    int rc = gq__store_run_workloads(r->st, which, r->now, r->o.default_duration_ms, wl_row, rows,
                                     err);

    if (rows->failed)
        rc = gq__error(err, GQ_ENOMEM, "out of memory reading workloads");
    return rc;
}

/* "k=v" lines (a nodeSelector, a flavor's nodeLabels, as the store gives them) into kvs. */
static int kvs_from_lines(struct gq_kvs *kvs, const char *text)
{
    const char *line = text;

    memset(kvs, 0, sizeof(*kvs));
    while (line && *line) {
        const char *eq = strchr(line, '='), *nl = strchr(line, '\n');
        size_t cap = kvs->n;
        struct gq_kv *kv;

        if (!nl)
            nl = line + strlen(line);
        if (eq && eq < nl) {
            if (gq__grow(&kvs->v, &cap, kvs->n, sizeof(*kvs->v)) < 0)
                return -1;
            kv = &kvs->v[kvs->n];
            kv->key = strndup(line, (size_t)(eq - line));
            kv->value = strndup(eq + 1, (size_t)(nl - eq - 1));
            kvs->n++;
            if (!kv->key || !kv->value)
                return -1;
        }
        line = *nl ? nl + 1 : nl;
    }
    return 0;
}

static const struct gq_flavor *flavor_named(const struct runner *r, const char *name, size_t n)
{
    size_t i;

    for (i = 0; i < r->nfl; i++)
        if (strlen(r->fl[i].name) == n && strncmp(r->fl[i].name, name, n) == 0)
            return &r->fl[i].flavor;
    return NULL;
}

/*
 * The pool a pod set's pods run on: its request's (DWS), else an autoscaling
 * pool whose labels carry the pods' nodeSelector, the template's merged with
 * its flavors' nodeLabels by the release rule (core/release.c), as Kueue
 * releases them; -1 for none, -2 when out of memory.
 */
static int pod_pool(const struct runner *r, const struct gq_run_podset *ps)
{
    const struct gq_flavor **fls;
    struct gq_release_podset in;
    struct gq_released rel;
    struct gq_kvs sel;
    const char *line;
    size_t i, nfls = 0;
    int pool = -1;

    for (i = 0; i < r->ndws; i++)
        if (r->dws[i].workload == ps->workload)
            return r->dws[i].pool;
    /* The assigned flavors, each once: at most every flavor the run knows. */
    if (!(fls = calloc(r->nfl + 1, sizeof(*fls))))
        return -2;
    for (line = ps->flavors; line && *line && nfls < r->nfl;) {
        const char *nl = strchr(line, '\n');
        size_t n = nl ? (size_t)(nl - line) : strlen(line);

        if ((fls[nfls] = flavor_named(r, line, n)))
            nfls++;
        line += n + (nl != NULL);
    }
    in = (struct gq_release_podset){ps->name ? ps->name : "", fls, nfls, NULL, NULL, &sel, NULL, 0};
    if (kvs_from_lines(&sel, ps->node_selector) < 0 || gq__release(&rel, &in, NULL, 0) < 0) {
        pool = -2;
    } else {
        for (i = 0; pool < 0 && i < r->sim.npools; i++)
            if (r->sim.pools[i].autoscaling &&
                gq__sim_selects(&r->sim.pools[i], &rel.node_selector))
                pool = (int)i;
        gq__released_clear(&rel);
    }
    gq__kvs_clear(&sel);
    free(fls);
    return pool;
}

struct pods_of {
    struct runner *r;
    int rc;
};

/*
 * A pod set's pods into the books. A count past the workload's pods or GPUs
 * past int32 are a damaged file's (a count of billions would never end).
 */
static int podset_row(const struct gq_run_podset *ps, void *payload)
{
    struct pods_of *po = payload;
    struct runner *r = po->r;
    int pool;
    int64_t i;

    if (ps->count < 0 || ps->count > ps->pods || ps->gpus < 0 || ps->gpus > INT32_MAX)
        return po->rc = GQ_EIO;
    if ((pool = pod_pool(r, ps)) == -2)
        return po->rc = GQ_ENOMEM;
    for (i = 0; i < ps->count; i++)
        if (gq__books_add_pod(&r->books, ps->workload, ps->name, (int32_t)i, ps->flavor, pool,
                              (int32_t)ps->gpus, r->now) < 0)
            return po->rc = GQ_ENOMEM;
    return 0;
}

/* Released workloads get their pods, pending until the books place them. */
static int create_pods(struct runner *r, const struct wl_rows *rows, gq_error *err)
{
    struct pods_of po = {r, GQ_OK};
    size_t i;
    int rc = GQ_OK;

    for (i = 0; rc == GQ_OK && i < rows->n; i++) {
        if (gq__books_has(&r->books, rows->v[i].id))
            continue;
        rc = gq__store_run_podsets(r->st, rows->v[i].id, podset_row, &po, err);
        if (po.rc == GQ_EIO)
            rc = gq__store_damaged(r->st, err, "workloads row %lld: pod count or gpus out of range",
                                   (long long)rows->v[i].id);
        else if (po.rc != GQ_OK)
            rc = gq__error(err, GQ_ENOMEM, "out of memory creating pods");
    }
    return rc;
}

/* Write what changed in the books, then forget ended pods. */
static int save_books(struct runner *r, gq_error *err)
{
    struct gq_books *b = &r->books;
    size_t i;
    int rc = GQ_OK;

    for (i = 0; rc == GQ_OK && i < b->nnodes; i++)
        if (b->nodes[i].dirty) {
            rc = gq__store_node_save(r->st, &b->nodes[i], r->sim.pools[b->nodes[i].pool].name,
                                     b->flavor[b->nodes[i].pool], err);
            b->nodes[i].dirty = false;
        }
    for (i = 0; rc == GQ_OK && i < b->npods; i++)
        if (b->pods[i].dirty) {
            const struct gq_pod *p = &b->pods[i];

            rc = gq__store_pod_save(r->st, &b->pods[i], p->node >= 0 ? b->nodes[p->node].id : 0,
                                    err);
            b->pods[i].dirty = false;
        }
    if (rc == GQ_OK)
        gq__books_compact(b);
    return rc;
}

static int cmp_id(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

    return (x > y) - (x < y);
}

/*
 * Pods of workloads that lost their release (evicted, cancelled) end now.
 * Each live pod is looked up among the live workloads' ids by halving (it
 * was a walk of them all: pods times workloads at every step of a busy week).
 */
static int end_orphans(struct runner *r, gq_error *err)
{
    int64_t *live;
    size_t i, n;
    int rc = gq__store_run_live_ids(r->st, &live, &n, err);

    for (i = 0; rc == GQ_OK && i < r->books.npods; i++) {
        const struct gq_pod *p = &r->books.pods[i];

        if (!p->ended_ms && /* NULL when there are none */
            !(n && bsearch(&p->workload, live, n, sizeof(*live), cmp_id)))
            gq__books_end(&r->books, p->workload, r->now);
    }
    free(live);
    return rc;
}

/*
 * Whether a job starting now with this duration would end past the last
 * moment the clock can show (or before 1970): it then runs until cancelled,
 * and msg says so.
 */
static bool unending(const struct runner *r, int64_t duration_ms, char *msg, size_t size)
{
    char d[GQ_DURATION_BUFSIZE], last[GQ_RFC3339_BUFSIZE];

    if (duration_ms >= -r->now && duration_ms <= GQ__TIME_MAX_MS - r->now)
        return false;
    gq__format_duration_ms(d, sizeof(d), duration_ms, true);
    snprintf(msg, size, "duration %s (%lld ms) ends past %s: the job runs until cancelled", d,
             (long long)duration_ms, gq__rfc3339(last, GQ__TIME_MAX_MS));
    return true;
}

/*
 * An effect in the simulated cluster (backend.h): a store change, made
 * inside the kubelet's write transaction (and made again from the start
 * when the store retries it). Unsuspending is the only effect this world
 * has: the Job's pods have their places, so it runs.
 */
static int sim_apply(struct runner *r, const struct gq__effect *e, gq_error *err)
{
    const struct wl_row *w = e->row;
    struct gq_started s = {e->workload, e->ns, e->name, e->uid, "Job unsuspended: pods running"};
    char msg[160];
    bool endless, ready;
    int rc;

    endless = unending(r, w->duration_ms, msg, sizeof(msg));
    rc = gq__store_start(r->st, &s, r->now, err);
    if (rc == GQ_OK && r->wfpr.on) /* it starts when its pods are ready: PodsReady */
        rc = gq__store_pods_ready(r->st, e->workload, true, r->now, &ready, err);
    if (rc == GQ_OK && endless)
        rc = gq__store_event(r->st, "Workload", e->ns, e->name, e->uid, "Warning",
                             "DurationOutOfRange", msg, NULL, NULL, r->now, err);
    if (rc == GQ_OK &&
        (rc = event(r, GQ_EVENT_KIND_WORKLOAD, e->ns, e->name, e->job, GQ_EVENT_WHAT_STARTED,
                    endless ? msg : NULL)) == GQ_OK) {
        r->stats->started++;
        r->again |= r->nrequests > 0; /* the provider sees its booking used */
    }
    return rc;
}

static int start_workloads(struct runner *r, gq_error *err)
{
    struct wl_rows rows = {NULL, 0, 0, false};
    size_t i;
    bool waiting;
    int rc = select_rows(r, GQ_RUN_ADMITTED, &rows, err);

    if (rc == GQ_OK)
        rc = create_pods(r, &rows, err);
    if (rc == GQ_OK)
        gq__books_advance(&r->books, r->now);
    /*
     * The Job is unsuspended: it runs once every pod has a place and is
     * ready (its pool's podStartupTime; a stuck pod never is), and its
     * duration counts from then.
     */
    for (i = 0; rc == GQ_OK && i < rows.n; i++) {
        const struct wl_row *w = &rows.v[i];
        struct gq__effect e = {GQ__EFFECT_UNSUSPEND, w->id, w->ns, w->name, w->job, w->uid, w};

        if (gq__books_ready(&r->books, w->id, r->now))
            rc = sim_apply(r, &e, err);
        else if (r->wfpr.on) /* PodsReady False: WaitForStart */
            rc = gq__store_pods_ready(r->st, w->id, false, r->now, &waiting, err);
    }
    wl_rows_free(&rows);
    return rc;
}

static int kubelet_txn(struct gq_store *st, void *payload, gq_error *err)
{
    struct runner *r = payload;
    struct wl_rows rows = {NULL, 0, 0, false};
    char msg[160], took[GQ_DURATION_BUFSIZE];
    size_t i;
    int rc = end_orphans(r, err);

    if (rc == GQ_OK)
        rc = start_workloads(r, err);
    if (rc == GQ_OK)
        rc = select_rows(r, GQ_RUN_DONE, &rows, err);
    for (i = 0; rc == GQ_OK && i < rows.n; i++) {
        const struct wl_row *w = &rows.v[i];

        gq__format_duration_ms(took, sizeof(took), w->duration_ms, true);
        snprintf(msg, sizeof(msg), "Job finished after %s", took);
        gq__books_end(&r->books, w->id, r->now);
        if ((rc = gq__store_finish(st, w->id, r->now, err)) == GQ_OK &&
            (rc = gq__store_event(st, "Workload", w->ns, w->name, w->uid, "Normal", "Finished",
                                  msg, gq__wl_state_name(GQ_WL_RUNNING),
                                  gq__wl_state_name(GQ_WL_FINISHED), r->now, err)) == GQ_OK &&
            (rc = event(r, GQ_EVENT_KIND_WORKLOAD, w->ns, w->name, w->job, GQ_EVENT_WHAT_FINISHED,
                        msg)) == GQ_OK) {
            r->stats->finished++;
            r->again = true; /* its quota and nodes free: others may take them now */
        }
    }
    wl_rows_free(&rows);
    if (rc == GQ_OK) {
        gq__books_advance(&r->books, r->now); /* freed GPUs serve pending pods, nodes idle */
        rc = save_books(r, err);
    }
    return rc;
}

/* --------------------------------------------------------------- the clock */

/* Keep t in *best when it is a moment (positive) sooner than *best (0: none yet). */
static void sooner(int64_t *best, int64_t t)
{
    if (t > 0 && (!*best || t < *best))
        *best = t;
}

struct due {
    struct runner *r;
    int64_t next;
};

/* The next moment anything is due after now; 0 when nothing is. */
static int next_txn(struct gq_store *st, void *payload, gq_error *err)
{
    struct due *d = payload;
    struct runner *r = d->r;
    int64_t sim = gq__sim_next(&r->sim, r->now), books = gq__books_next(&r->books, r->now);
    int64_t best = 0, timeout = 0, finish, requeue, ready;
    int rc;

    if ((rc = gq__store_run_due(st, r->now, r->o.default_duration_ms, &finish, &requeue, err)) !=
            GQ_OK ||
        (rc = gq__engine_provision_deadline(st, r->now, &timeout, err)) != GQ_OK ||
        (rc = gq__engine_pods_ready_deadline(st, r->now, &ready, err)) != GQ_OK)
        return rc;
    sooner(&best, finish);
    sooner(&best, requeue);
    sooner(&best, ready);
    if (sim && (!best || sim < best))
        best = sim;
    if (books && (!best || books < best))
        best = books;
    if (r->feed) {
        int64_t arrival = r->feed->next(r->feed->payload, r->now);

        if (arrival > r->now && (!best || arrival < best))
            best = arrival;
    }
    if (timeout && (!best || timeout < best))
        best = timeout;
    d->next = best;
    return GQ_OK;
}

static int next_due(struct runner *r, int64_t *next, gq_error *err)
{
    struct due d = {r, 0};
    int rc = gq__store_read(r->st, next_txn, &d, err);

    *next = d.next;
    return rc;
}

struct clock_move {
    struct runner *r;
    const int64_t *v;  /* where the clock goes; NULL: where the stored clock stands */
    double speed;
    int64_t pid;
};

static int clock_txn(struct gq_store *st, void *payload, gq_error *err)
{
    struct clock_move *m = payload;
    struct gq_clock *c = &m->r->clock;

    /*
     * The wall instant first, then the time: read the other way round, the
     * stored clock would already stand a little further at that instant and
     * the store would refuse the move as one back.
     */
    c->wall_ms = gq__now_ms();
    c->virtual_ms = m->v ? *m->v : gq__store_now(st);
    c->speed = m->speed;
    c->runner_pid = m->pid;
    c->rng = m->r->sim.rng;
    return gq__store_clock_set(st, c, err);
}

/* Set the clock at virtual time *v (NULL: where it stands), moving at speed from now on. */
static int set_clock(struct runner *r, const int64_t *v, double speed, int64_t pid, gq_error *err)
{
    struct clock_move m = {r, v, speed, pid};

    return gq__store_write(r->st, clock_txn, &m, err);
}

struct claim {
    struct runner *r;
    uint64_t seed;
};

/* Take the clock: one runner at a time, the time where it stands. */
static int claim_txn(struct gq_store *st, void *payload, gq_error *err)
{
    struct claim *c = payload;
    struct runner *r = c->r;
    struct gq_clock old;
    char d[GQ_DURATION_BUFSIZE], last[GQ_RFC3339_BUFSIZE];

    /* A runner that died, or a process that only reuses its pid, reads as none (store_sim.c). */
    if (gq__store_clock_get(st, &old) && old.runner_pid && old.runner_pid != (int64_t)getpid())
        return gq__error(err, GQ_ECONFLICT, "another runner (pid %lld) is driving this database",
                         (long long)old.runner_pid);
    r->clock.wall_ms = gq__now_ms(); /* before the time: see clock_txn */
    r->now = gq__store_now(st);
    if (r->o.for_ms && r->o.for_ms > GQ__TIME_MAX_MS - r->now) {
        gq__format_duration_ms(d, sizeof(d), r->o.for_ms, true);
        return gq__error(err, GQ_ERANGE, "run length %s (%lld ms) ends past %s, the last time "
                         "the clock can show", d, (long long)r->o.for_ms,
                         gq__rfc3339(last, GQ__TIME_MAX_MS));
    }
    c->seed = r->o.seed ? r->o.seed : (old.rng ? old.rng : 1);
    r->clock.virtual_ms = r->now;
    r->clock.speed = r->o.speed;
    r->clock.rng = c->seed;
    r->clock.runner_pid = (int64_t)getpid();
    return gq__store_clock_set(st, &r->clock, err);
}

struct pools {
    struct gq_sim_pool *v;
    size_t n;
    char **flavor;  /* per pool: the flavor whose nodeLabels its nodes carry, or NULL */
    struct flavor_labels *fl; /* each flavor with nodeLabels (the runner takes them) */
    size_t nfl, capfl;
};

static void flavor_labels_free(struct flavor_labels *fl, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++) {
        free(fl[i].name);
        gq__kvs_clear(&fl[i].flavor.node_labels);
    }
    free(fl);
}

static void pools_free(struct pools *p)
{
    size_t i;

    for (i = 0; p->flavor && i < p->n; i++)
        free(p->flavor[i]);
    free(p->flavor);
    flavor_labels_free(p->fl, p->nfl);
    gq__sim_pools_free(p->v, p->n);
    memset(p, 0, sizeof(*p));
}

/* A flavor with nodeLabels ("k=v" lines): the pools it selects, that none took yet, are its. */
static int flavor_row(const char *flavor, const char *lines, void *payload)
{
    struct pools *p = payload;
    struct gq_kvs labels;
    size_t i;
    int rc = 0;

    if (kvs_from_lines(&labels, lines) < 0)
        rc = GQ_ENOMEM;
    for (i = 0; rc == 0 && i < p->n; i++)
        if (!p->flavor[i] && labels.n && gq__sim_selects(&p->v[i], &labels) &&
            !(p->flavor[i] = gq__strdup(flavor)))
            rc = GQ_ENOMEM;
    if (rc == 0 && gq__grow(&p->fl, &p->capfl, p->nfl, sizeof(*p->fl)) < 0)
        rc = GQ_ENOMEM;
    if (rc == 0) {
        memset(&p->fl[p->nfl], 0, sizeof(p->fl[p->nfl]));
        p->fl[p->nfl].flavor.node_labels = labels; /* kept for the pods' nodeSelector */
        memset(&labels, 0, sizeof(labels));
        if (!(p->fl[p->nfl++].name = gq__strdup(flavor)))
            rc = GQ_ENOMEM;
    }
    gq__kvs_clear(&labels);
    return rc;
}

static int pools_txn(struct gq_store *st, void *payload, gq_error *err)
{
    struct pools *p = payload;
    int rc = gq__engine_load_pools(st, &p->v, &p->n, err);

    if (rc == GQ_OK && !(p->flavor = calloc(p->n + 1, sizeof(*p->flavor))))
        rc = gq__error(err, GQ_ENOMEM, "out of memory");
    if (rc == GQ_OK)
        rc = gq__store_run_flavors(st, flavor_row, p, err);
    return rc;
}

/* The books of a (possibly restarted) run: what the database holds, and minNodes up. */
static int books_txn(struct gq_store *st, void *payload, gq_error *err)
{
    struct runner *r = payload;
    int rc = gq__store_books_load(st, &r->books, err);

    if (rc == GQ_OK && gq__books_start(&r->books, r->now) < 0)
        rc = gq__error(err, GQ_ENOMEM, "out of memory");
    return rc == GQ_OK ? save_books(r, err) : rc;
}

/* ------------------------------------------------------------- the backend */

static int sim_changed(void *self, const gq_schedule_change *c)
{
    struct runner *r = self;

    switch (c->kind) {
    case GQ_CHANGE_PENDING:
        return 0; /* a reason reworded is not a transition */
    case GQ_CHANGE_EVICTED:
    case GQ_CHANGE_DEACTIVATED:
        r->stats->evicted++;
        r->again = true; /* its requests deleted, its pods ended */
        break;
    case GQ_CHANGE_RESERVED:
        r->stats->admitted++;
        r->again = true; /* its requests to the provider */
        break;
    case GQ_CHANGE_ADMITTED:
        r->stats->admitted += c->flavors != NULL; /* not when its checks turned Ready */
        break;
    }
    if (event(r, GQ_EVENT_KIND_WORKLOAD, c->namespace, c->name, c->job_name,
              gq__event_what_of_change(c->kind), c->flavors ? c->flavors : c->message) != GQ_OK)
        return GQ_ENOMEM;
    return flush(r);
}

/*
 * A step at one moment opens with gq_simulate's arrivals and the provider:
 * the simulated cluster's news (requests' states) into the store.
 */
static int sim_observe(void *self, struct gq__turn *t, gq_error *err)
{
    struct runner *r = self;
    uint64_t moved;
    int rc;

    r->moved = 0;
    r->again = false;
    t->act = true; /* the database is the world: always known, always ours */
    if (r->feed && (rc = r->feed->feed(r->db, r->now, r->feed->payload, err)) != 0) {
        if (rc < 0)
            return rc;
        r->moved += (uint64_t)rc;
    }
    if ((rc = gq__store_write(r->st, provider_txn, r, err)) != GQ_OK) {
        events_clear(r);
        return rc;
    }
    if ((rc = flush(r)) != 0 || !r->mk)
        return rc;
    /* MultiKueue: copies to the simulated workers, each worker's turn, the winners */
    if ((rc = gq__mks_step(r->mk, r->now, &moved, err)) != GQ_OK) {
        events_clear(r);
        return rc;
    }
    r->moved += moved;
    return flush(r);
}

/* After the cycles: the kubelet (starts through sim_apply, finishes, pods and nodes). */
static int sim_act(void *self, struct gq__turn *t, gq_error *err)
{
    struct runner *r = self;
    int rc;

    (void)t;
    if ((rc = gq__store_write(r->st, kubelet_txn, r, err)) != GQ_OK) {
        events_clear(r);
        return rc;
    }
    r->stats->steps++;
    return flush(r);
}

/*
 * React at the same moment while things move, as controllers would; then
 * what is due. A step that only submitted, admitted and started jobs (the
 * cycles ran until stable after the arrivals, the provider before them) has
 * left the same moment nothing to do: another step would change nothing,
 * and is not taken. It is taken after a finish, an eviction or a
 * deactivation (quota, nodes and requests freed), a reservation waiting for
 * admission checks (its requests go to the provider), a start while
 * requests live (the provider sees the booking used), and after any
 * transition when waitForPodsReady is on or MultiKueue workers turn: those
 * read the step's starts and copies at the same moment.
 */
static int sim_next(void *self, struct gq__turn *t, gq_error *err)
{
    struct runner *r = self;
    int rc;

    /* A step not taken would have moved nothing: the moment is settled (until_idle ends). */
    t->moved = r->moved && (r->again || r->wfpr.on || r->mk);
    if (t->moved && ++r->settle < SETTLE_STEPS)
        return 1;
    r->settle = 0;
    if ((rc = next_due(r, &t->due, err)) != GQ_OK || !r->mk)
        return rc;
    return gq__mks_next(r->mk, &t->due, err);
}

/* As fast as possible, the stored clock jumps with the loop's. */
static int sim_tick(void *self, int64_t now, gq_error *err)
{
    struct runner *r = self;

    if (r->o.speed > 0)
        return GQ_OK;
    return set_clock(r, &now, 0, (int64_t)getpid(), err);
}

static const struct gq__backend_ops sim_ops = {
    sim_observe, NULL, sim_changed, sim_act, sim_next, sim_tick,
};

static int loop(struct runner *r, gq_error *err)
{
    struct gq_backend b = {&sim_ops, r, true, 0, true};
    struct gq__loop_clock c = {r->st, &r->now, r->o.speed,
                               r->o.for_ms ? r->stats->start_ms + r->o.for_ms : 0,
                               r->o.until_idle};

    return gq__loop_run(r->db, &b, &c, r->o.stop, err);
}

int gq_run(gq_db *db, const gq_run_options *opts, gq_run_fn fn, void *payload,
           gq_run_stats *stats, gq_error *err)
{
    return gq__run(db, opts, fn, payload, stats, NULL, err);
}

/*
 * A runner on db at its stored clock (r->o, fn, payload, stats and feed
 * set): its pools read, the clock claimed, the simulator and the books
 * started from what the database holds.
 */
static int runner_start(struct runner *r, gq_db *db, gq_error *err)
{
    struct claim c = {r, 0};
    struct pools pools = {NULL, 0, NULL, NULL, 0, 0};
    int rc;

    r->db = db;
    r->st = db->st;
    if ((rc = gq__store_read(r->st, pools_txn, &pools, err)) != GQ_OK ||
        (rc = gq__store_write(r->st, claim_txn, &c, err)) != GQ_OK) {
        pools_free(&pools);
        return rc;
    }
    r->claimed = true;
    if (gq__sim_init(&r->sim, pools.v, pools.n, c.seed) < 0 ||
        gq__books_init(&r->books, r->sim.pools, r->sim.npools,
                       (const char *const *)pools.flavor) < 0)
        rc = gq__error(err, GQ_ENOMEM, "out of memory starting the simulated cluster");
    r->books.seed = c.seed;
    r->fl = pools.fl;
    r->nfl = pools.nfl;
    pools.fl = NULL;
    pools.nfl = 0;
    pools_free(&pools);
    if (rc == GQ_OK)
        rc = gq__store_write(r->st, books_txn, r, err);
    r->stats->start_ms = r->now;
    gq__engine_hold_wal(r->st, true);
    return rc;
}

/* Hand the clock back (it carries on at normal speed from where the run left it); free. */
static int runner_end(struct runner *r, gq_error *err)
{
    int rc = GQ_OK;

    if (r->claimed) {
        gq__engine_hold_wal(r->st, false);
        rc = set_clock(r, r->o.speed > 0 ? NULL : &r->now, 1.0, 0, err);
    }
    gq__mks_close(r->mk);
    events_clear(r);
    free(r->ev);
    flavor_labels_free(r->fl, r->nfl);
    free(r->dws);
    gq__books_free(&r->books);
    gq__sim_free(&r->sim);
    return rc;
}

/* ------------------------------------------------ simulated workers */

/* FNV-1a: a worker's seed drawn from the run's and its name, the same every time. */
static uint64_t name_hash(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;

    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return h;
}

static void *worker_start(void *manager, gq_db *db, const char *name, gq_error *err)
{
    struct runner *m = manager, *w = calloc(1, sizeof(*w));
    gq_error ignored;

    if (!w) {
        gq__error(err, GQ_ENOMEM, "out of memory");
        return NULL;
    }
    w->o = m->o;
    w->o.for_ms = 0;
    w->o.seed = m->o.seed ? m->o.seed ^ name_hash(name) : 0;
    w->fn = m->fn;
    w->payload = m->payload;
    w->stats = &w->own;
    w->cluster = name;
    if (runner_start(w, db, err) != GQ_OK) {
        if (err) { /* which of the databases said it */
            char msg[sizeof(err->msg)];

            snprintf(msg, sizeof(msg), "%s", err->msg);
            gq__error(err, err->code, "simulated cluster %s: %s", name, msg);
        }
        runner_end(w, &ignored);
        free(w);
        return NULL;
    }
    w->stats->start_ms = m->stats->start_ms; /* its lines count from the manager's start */
    return w;
}

static int worker_changed(const gq_schedule_change *c, void *payload)
{
    return sim_changed(payload, c);
}

/* One turn of a worker: as the loop turns the manager (observe, cycles, act), at now. */
static int worker_step(void *self, int64_t now, uint64_t *moved, gq_error *err)
{
    struct runner *w = self;
    gq_schedule_options so = GQ_SCHEDULE_OPTIONS_INIT;
    gq_schedule_stats stats;
    struct gq__turn t;
    int rc;

    *moved = 0;
    if (now > w->now) {
        w->now = now;
        if ((rc = set_clock(w, &w->now, w->o.speed > 0 ? w->o.speed : 0, (int64_t)getpid(),
                            err)) != GQ_OK)
            return rc;
    }
    memset(&t, 0, sizeof(t));
    memset(&stats, 0, sizeof(stats));
    so.until_stable = true;
    if ((rc = sim_observe(w, &t, err)) != GQ_OK ||
        (rc = gq__engine_schedule_until(w->db, &so, w->o.stop, NULL, worker_changed, w, &stats,
                                        err)) != GQ_OK ||
        (rc = sim_act(w, &t, err)) != GQ_OK)
        return rc;
    *moved = w->moved;
    return GQ_OK;
}

static int worker_next(void *self, int64_t *due, gq_error *err)
{
    return next_due(self, due, err);
}

static void worker_stop(void *self)
{
    gq_error ignored;

    runner_end(self, &ignored);
    free(self);
}

/* A transition of the manager's dispatch, as the manager's (cluster NULL) or a worker's. */
static int mk_event(void *manager, const char *cluster, gq_event_what what, const char *ns,
                    const char *job, const char *message)
{
    struct runner *r = manager;
    int rc;

    r->cluster = cluster;
    rc = event(r, GQ_EVENT_KIND_WORKLOAD, ns, job, job, what, message);
    r->cluster = NULL;
    if (what == GQ_EVENT_WHAT_STARTED)
        r->stats->started++;
    else if (what == GQ_EVENT_WHAT_FINISHED)
        r->stats->finished++;
    /* told at once, its write committed: in order with the workers' own lines */
    return rc == GQ_OK ? flush(r) : rc;
}

static const struct gq__mks_ops worker_ops = {
    worker_start, worker_step, worker_next, worker_stop, mk_event,
};

int gq__run(gq_db *db, const gq_run_options *opts, gq_run_fn fn, void *payload,
            gq_run_stats *stats, const struct gq__run_feed *feed, gq_error *err)
{
    struct runner r;
    gq_run_stats ignored;
    gq_error ignored_err;
    int64_t t0 = gq__mono_us();
    int rc;

    if (!db)
        return gq__error(err, GQ_EINVALID, "no database");
    if (opts && (rc = gq__version_check(opts->version, GQ_RUN_OPTIONS_VERSION, "gq_run_options",
                                        err)) != GQ_OK)
        return rc;
    memset(&r, 0, sizeof(r));
    r.o = (gq_run_options)GQ_RUN_OPTIONS_INIT;
    if (opts && opts->version == 1) /* before default_duration_ms */
        memcpy(&r.o, opts, offsetof(gq_run_options, default_duration_ms));
    else if (opts)
        r.o = *opts;
    r.o.version = GQ_RUN_OPTIONS_VERSION;
    if (r.o.speed < 0 || r.o.for_ms < 0 || r.o.default_duration_ms <= 0)
        return gq__error(err, GQ_EINVALID, "invalid run options: speed %g, for %lld ms, default duration %lld ms",
                         r.o.speed, (long long)r.o.for_ms, (long long)r.o.default_duration_ms);
    r.fn = fn;
    r.payload = payload;
    r.feed = feed;
    r.stats = stats ? stats : &ignored;
    memset(r.stats, 0, sizeof(*r.stats));
    rc = runner_start(&r, db, err);
    if (rc == GQ_OK)
        rc = gq__mks_open(&r.mk, db, &worker_ops, &r, err);
    if (rc == GQ_OK)
        rc = loop(&r, err);
    if (runner_end(&r, rc == GQ_OK ? err : &ignored_err) != GQ_OK && rc == GQ_OK)
        rc = err ? err->code : GQ_EIO;
    r.stats->end_ms = r.clock.virtual_ms;
    r.stats->wall_ms = (double)(gq__mono_us() - t0) / 1000.0;
    return rc;
}

int gq_duration_parse(const char *text, int64_t *ms, gq_error *err)
{
    char q[GQ_QUOTE_BUFSIZE];

    if (gq__parse_duration_ms(text, ms) < 0)
        return gq__error(err, GQ_EINVALID, "invalid duration %s: want e.g. 90s, 45m or 1h30m",
                         gq__quote(q, text ? text : "", text ? strlen(text) : 0));
    return GQ_OK;
}

void gq_duration_format(char *buf, size_t size, int64_t ms)
{
    gq__format_duration_ms(buf, size, ms, true);
}
