/*
 * api_summary.c: gq_run_summary, where each job's time went, read off the
 * events table: every workload state change is an event with its time, so
 * the time in a state is the gap to the next change (or to now).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "error.h"
#include "gpuqueue/run.h"
#include "store.h"

struct summary {
    int64_t now;
    char since[24], nowtext[24];
    gq_summary_job_fn jobs;
    gq_summary_queue_fn queues;
    void *payload;
};

static int64_t num(const char *v)
{
    return v ? strtoll(v, NULL, 10) : 0;
}

/* Columns: namespace, job, cluster queue, state, pending ms, reserved ms, ran ms, requests. */
static int job_row(int n, const char *const *v, void *payload)
{
    struct summary *s = payload;
    gq_summary_job j = {v[0], v[1], v[2], v[3], num(v[4]), num(v[5]), num(v[6]), num(v[7])};

    (void)n;
    return s->jobs(&j, s->payload);
}

/* Columns: cluster queue, admitted, finished, pending, rejected. */
static int queue_row(int n, const char *const *v, void *payload)
{
    struct summary *s = payload;
    gq_summary_queue q = {v[0], (uint64_t)num(v[1]), (uint64_t)num(v[2]), (uint64_t)num(v[3]),
                          (uint64_t)num(v[4])};

    (void)n;
    return s->queues(&q, s->payload);
}

/*
 * Workload state changes carry lower-case states (check updates carry
 * Kueue's capitalised check states and are left out).
 */
#define SPANS                                                                                     \
    "WITH spans AS (SELECT uid, to_state, at, "                                                   \
    "  coalesce(lead(at) OVER (PARTITION BY uid ORDER BY at, id), ?2) - at AS ms "               \
    "  FROM events WHERE kind = 'Workload' AND to_state IN "                                      \
    "  ('pending', 'reserved', 'admitted', 'running', 'finished', 'deactivated', 'cancelled')) "

#define JOBS                                                                                      \
    "FROM workloads w LEFT JOIN local_queues lq "                                                 \
    "  ON lq.namespace = w.namespace AND lq.name = w.local_queue "                                \
    "WHERE w.state <> 'cancelled' AND w.created_at >= ?1 "

static int summary_txn(struct gq_store *st, void *payload, gq_error *err)
{
    static const char jobs[] =
        SPANS "SELECT w.namespace, w.job_name, coalesce(w.cluster_queue, lq.cluster_queue), "
              "w.state, sum(ms) FILTER (WHERE s.to_state = 'pending'), "
              "sum(ms) FILTER (WHERE s.to_state = 'reserved'), "
              "sum(ms) FILTER (WHERE s.to_state IN ('admitted', 'running')), "
              "(SELECT count(*) FROM provisioning_requests p WHERE p.workload_id = w.id) "
              "FROM workloads w LEFT JOIN local_queues lq "
              "ON lq.namespace = w.namespace AND lq.name = w.local_queue "
              "LEFT JOIN spans s ON s.uid = w.uid "
              "WHERE w.state <> 'cancelled' AND w.created_at >= ?1 "
              "GROUP BY w.id ORDER BY w.created_at, w.id";
    static const char queues[] =
        "SELECT coalesce(w.cluster_queue, lq.cluster_queue) AS q, "
        "sum(w.state IN ('admitted', 'running', 'finished')), sum(w.state = 'finished'), "
        "sum(w.state IN ('pending', 'reserved')), sum(w.state = 'deactivated') " JOBS
        "AND ?2 IS NOT NULL GROUP BY q HAVING q IS NOT NULL ORDER BY q";
    struct summary *s = payload;
    const char *params[2] = {s->since, s->nowtext};
    int rc = GQ_OK;

    /* The callbacks print the names: a damaged file's NULL stops here instead. */
    const struct gq__query jq = {jobs, "workloads:TTtT", params, 2};
    const struct gq__query qq = {queues, "workloads:T", params, 2};

    if (s->jobs)
        rc = gq__store_rows(st, &jq, job_row, s, err);
    if (rc == GQ_OK && s->queues)
        rc = gq__store_rows(st, &qq, queue_row, s, err);
    return rc;
}

int gq_run_summary(gq_db *db, int64_t since_ms, gq_summary_job_fn jobs,
                   gq_summary_queue_fn queues, void *payload, gq_error *err)
{
    struct summary s;

    if (!db)
        return gq__error(err, GQ_EINVALID, "no database");
    memset(&s, 0, sizeof(s));
    s.now = gq__store_now(db->st);
    snprintf(s.since, sizeof(s.since), "%lld", (long long)since_ms);
    snprintf(s.nowtext, sizeof(s.nowtext), "%lld", (long long)s.now);
    s.jobs = jobs;
    s.queues = queues;
    s.payload = payload;
    return gq__store_read(db->st, summary_txn, &s, err);
}
