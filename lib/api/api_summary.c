/*
 * api_summary.c: gq_run_summary, where each job's time went, read off the
 * events table: every workload state change is an event with its time, so
 * the time in a state is the gap to the next change (or to now). The reads
 * are the store's (store_read.h), both in one read transaction.
 */
#include <string.h>

#include "api.h"
#include "error.h"
#include "gpuqueue/run.h"
#include "store.h"
#include "store_read.h"

struct summary {
    int64_t since, now;
    gq_summary_job_fn jobs;
    gq_summary_queue_fn queues;
    void *payload;
};

static int summary_txn(struct gq_store *st, void *payload, gq_error *err)
{
    struct summary *s = payload;
    int rc = GQ_OK;

    if (s->jobs)
        rc = gq__store_summary_jobs(st, s->since, s->now, s->jobs, s->payload, err);
    if (rc == GQ_OK && s->queues)
        rc = gq__store_summary_queues(st, s->since, s->now, s->queues, s->payload, err);
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
    s.since = since_ms;
    s.jobs = jobs;
    s.queues = queues;
    s.payload = payload;
    return gq__store_read(db->st, summary_txn, &s, err);
}
