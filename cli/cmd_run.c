/*
 * cmd_run.c: `gpuq run`, the embedded default in the foreground: the local
 * database with a simulated cluster (gq_run), printing each transition as
 * it happens and, at the end, where every job's time went.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "table.h"
#include "term.h"

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
    (void)sig;
    stop_requested = 1;
}

struct printer {
    bool quiet;
    bool color;
};

static int print_event(const gq_run_event *e, void *payload)
{
    const struct printer *p = payload;

    if (!p->quiet)
        gq_event_print(stdout, e, GQ_EVENT_STYLE_ELAPSED);
    return 0;
}

struct tables {
    struct table *jobs, *queues;
    bool failed;
};

static const char *ms_text(char *buf, size_t size, int64_t ms)
{
    if (ms < 0)
        return "-";
    gq_duration_format(buf, size, ms - ms % 1000); /* to the second */
    return buf;
}

static int job_row(const gq_summary_job *j, void *payload)
{
    struct tables *t = payload;
    char job[512], quota[GQ_DURATION_SIZE], cap[GQ_DURATION_SIZE], ran[GQ_DURATION_SIZE];
    char reqs[24];
    const char *cells[7];

    snprintf(job, sizeof(job), "%s/%s", j->namespace, j->job_name);
    snprintf(reqs, sizeof(reqs), "%lld", (long long)j->requests);
    cells[0] = job;
    cells[1] = j->cluster_queue ? j->cluster_queue : "-";
    cells[2] = j->state;
    cells[3] = ms_text(quota, sizeof(quota), j->waited_quota_ms);
    cells[4] = ms_text(cap, sizeof(cap), j->waited_capacity_ms);
    cells[5] = ms_text(ran, sizeof(ran), j->ran_ms);
    cells[6] = reqs;
    if (table_add_row(t->jobs, cells) < 0)
        t->failed = true;
    return 0;
}

static int queue_row(const gq_summary_queue *q, void *payload)
{
    struct tables *t = payload;
    char n[4][24];
    const char *cells[5];

    snprintf(n[0], sizeof(n[0]), "%llu", (unsigned long long)q->admitted);
    snprintf(n[1], sizeof(n[1]), "%llu", (unsigned long long)q->finished);
    snprintf(n[2], sizeof(n[2]), "%llu", (unsigned long long)q->pending);
    snprintf(n[3], sizeof(n[3]), "%llu", (unsigned long long)q->rejected);
    cells[0] = q->cluster_queue;
    cells[1] = n[0];
    cells[2] = n[1];
    cells[3] = n[2];
    cells[4] = n[3];
    if (table_add_row(t->queues, cells) < 0)
        t->failed = true;
    return 0;
}

/* The summary: one row per job, then one per ClusterQueue. */
static int print_summary(gq_db *db, int64_t since, bool color)
{
    static const char *const job_headers[] = {"JOB",     "CLUSTERQUEUE", "STATE", "WAITED FOR QUOTA",
                                              "WAITED FOR CAPACITY", "RAN", "REQUESTS"};
    static const char *const queue_headers[] = {"CLUSTERQUEUE", "ADMITTED", "FINISHED", "PENDING",
                                                "REJECTED"};
    struct tables t = {table_new(job_headers, 7), table_new(queue_headers, 5), false};
    gq_error err = {0, ""};
    int rc = EXIT_SUCCESS;

    if (!t.jobs || !t.queues) {
        fprintf(stderr, "error: out of memory\n");
        rc = EXIT_FAILURE;
    } else if (gq_run_summary(db, since, job_row, queue_row, &t, &err) != GQ_OK) {
        rc = cli_fail(&err);
    } else if (t.failed) {
        fprintf(stderr, "error: out of memory\n");
        rc = EXIT_FAILURE;
    } else {
        printf("\nJobs:\n");
        table_print(t.jobs, stdout, term_width(1), true, color);
        printf("\nClusterQueues:\n");
        table_print(t.queues, stdout, term_width(1), true, color);
    }
    table_free(t.jobs);
    table_free(t.queues);
    return rc;
}

int cmd_run(struct global *g, int argc, char **argv)
{
    const struct command *self = cli_command("run");
    const char *speed = NULL, *for_text = NULL;
    int seed = 0;
    bool forever = false, summary = false;
    struct printer p = {false, false};
    const struct flag flags[] = {
        {"seed", 0, FLAG_INT, &seed, "N", "the simulator's random seed (same seed, same story)"},
        {"speed", 0, FLAG_STRING, &speed, "X",
         "virtual seconds per second, or \"max\" (default): jump to whatever is due next"},
        {"for", 0, FLAG_STRING, &for_text, "DURATION", "stop after this much virtual time"},
        {"forever", 0, FLAG_BOOL, &forever, NULL,
         "keep running when nothing is due (wait for submits), until interrupted"},
        {"summary", 0, FLAG_BOOL, &summary, NULL,
         "print where each job's time went, and each ClusterQueue's counts, at the end"},
        {"quiet", 'q', FLAG_BOOL, &p.quiet, NULL, "print no transitions"},
        {NULL, 0, FLAG_BOOL, NULL, NULL, NULL}};
    gq_run_options o = GQ_RUN_OPTIONS_INIT;
    gq_run_stats st;
    gq_error err = {0, ""};
    struct sigaction sa;
    char *end = NULL, span[GQ_DURATION_SIZE];
    gq_db *db;
    int nargs, rc;

    if ((rc = cli_parse(g, self, flags, argc, argv, &nargs)) != EXIT_SUCCESS)
        return rc;
    if (g->help) {
        cli_help(self, flags);
        return EXIT_SUCCESS;
    }
    if (nargs)
        return cli_usage_error("run takes no arguments, got \"%s\"", argv[0]);
    if (seed < 0)
        return cli_usage_error("--seed must not be negative, got %d", seed);
    if (speed && strcmp(speed, "max") != 0) {
        o.speed = strtod(speed, &end);
        if (end == speed || *end || !(o.speed > 0) || o.speed > 1e6)
            return cli_usage_error("invalid --speed \"%s\": want a number above 0, or max",
                                   speed);
    }
    if (for_text && gq_duration_parse(for_text, &o.for_ms, &err) != GQ_OK)
        return cli_usage_error("--for: %s", err.msg);
    o.seed = (uint64_t)seed;
    o.until_idle = !forever;
    o.stop = &stop_requested;
    p.color = term_use_color(1, g->color);
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    /*
     * The first signal stops the run between cycles (see gq_run_options.stop)
     * and hands the clock back; the handler then goes, so a second one kills
     * at once. Nothing is lost either way: each transaction commits whole, and
     * a killed runner's clock is recovered by the next command (store_sim.c).
     */
    sa.sa_flags = SA_RESETHAND;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    if (!(db = cli_open(g)))
        return EXIT_FAILURE;
    rc = gq_run(db, &o, print_event, &p, &st, &err);
    if (rc != GQ_OK) {
        gq_db_close(db);
        return cli_fail(&err);
    }
    gq_duration_format(span, sizeof(span), st.end_ms - st.start_ms);
    printf("%s simulated in %.1f s: %llu admitted, %llu started, %llu finished, %llu evicted, "
           "%llu provisioning requests\n",
           span, st.wall_ms / 1000.0, (unsigned long long)st.admitted,
           (unsigned long long)st.started, (unsigned long long)st.finished,
           (unsigned long long)st.evicted, (unsigned long long)st.requests);
    rc = summary ? print_summary(db, 0, p.color) : EXIT_SUCCESS;
    gq_db_close(db);
    return rc;
}
