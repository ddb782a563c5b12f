/*
 * cmd_schedule.c: `gpuq schedule` (run admission cycles and print what
 * changed), and kueuectl's `gpuq stop` / `gpuq resume` for queues.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

struct printer {
    bool quiet;
    bool stats;
};

static int print_change(const gq_schedule_change *c, void *payload)
{
    const struct printer *p = payload;

    if (p->quiet)
        return 0;
    printf("cycle %llu: workload %s/%s ", (unsigned long long)c->cycle, c->namespace, c->name);
    if (c->flavors)
        printf("%s in %s (%s)\n", c->what, c->cluster_queue ? c->cluster_queue : "-", c->flavors);
    else if (c->message)
        printf("%s: %s: %s\n", c->what, c->reason ? c->reason : "-", c->message);
    else
        printf("%s: %s\n", c->what, c->reason ? c->reason : "-");
    return 0;
}

/*
 * The process's peak resident memory in KiB (VmHWM), or -1. Not getrusage's
 * ru_maxrss: that keeps the high-water mark of what exec replaced, so a gpuq
 * started from a large parent (a Python harness) would report the parent's.
 */
static long peak_rss_kib(void)
{
    char line[128];
    long kib = -1;
    FILE *f = fopen("/proc/self/status", "r");

    while (f && fgets(line, sizeof(line), f))
        if (strncmp(line, "VmHWM:", 6) == 0)
            kib = strtol(line + 6, NULL, 10);
    if (f)
        fclose(f);
    return kib;
}

int cmd_schedule(struct global *g, int argc, char **argv)
{
    const struct command *self = cli_command("schedule");
    int cycles = 1;
    bool until_stable = false;
    struct printer p = {false, false};
    const struct flag flags[] = {
        {"cycles", 0, FLAG_INT, &cycles, "N", "run N scheduling cycles (default 1)"},
        {"until-stable", 0, FLAG_BOOL, &until_stable, NULL,
         "run cycles until one changes nothing"},
        {"quiet", 'q', FLAG_BOOL, &p.quiet, NULL, "print only the summary"},
        {"stats", 0, FLAG_BOOL, &p.stats, NULL, "print timings: cycles, first and last admission"},
        {NULL, 0, FLAG_BOOL, NULL, NULL, NULL}};
    gq_schedule_options o = GQ_SCHEDULE_OPTIONS_INIT;
    gq_schedule_stats st;
    gq_error err = {0, ""};
    gq_db *db;
    int nargs, rc;

    if ((rc = cli_parse(g, self, flags, argc, argv, &nargs)) != EXIT_SUCCESS)
        return rc;
    if (g->help) {
        cli_help(self, flags);
        return EXIT_SUCCESS;
    }
    if (nargs)
        return cli_usage_error("schedule takes no arguments, got \"%s\"", argv[0]);
    if (cycles < 1)
        return cli_usage_error("--cycles must be at least 1, got %d", cycles);
    o.until_stable = until_stable;
    o.cycles = until_stable ? 0 : (uint64_t)cycles;
    if (!(db = cli_open(g)))
        return EXIT_FAILURE;
    rc = gq_schedule(db, &o, print_change, &p, &st, &err);
    gq_db_close(db);
    if (rc != GQ_OK)
        return cli_fail(&err);
    printf("%llu cycle%s: %llu admitted, %llu evicted\n", (unsigned long long)st.cycles,
           st.cycles == 1 ? "" : "s", (unsigned long long)st.admitted,
           (unsigned long long)st.evicted);
    if (p.stats)
        printf("load-ms=%.1f cycle-ms p50=%.3f p99=%.3f max=%.3f first-admission-ms=%.1f "
               "last-admission-ms=%.1f total-ms=%.1f peak-rss-kib=%ld\n",
               st.load_ms, st.cycle_p50_ms, st.cycle_p99_ms, st.cycle_max_ms,
               st.first_admission_ms, st.last_admission_ms, st.total_ms, peak_rss_kib());
    return EXIT_SUCCESS;
}

/*
 * stop workload NAME: deactivate it (spec.active false, kueuectl's stop
 * workload); resume workload NAME: reactivate it, or what an admission check
 * rejected.
 */
static int stop_or_resume_workload(struct global *g, const char *name, bool stop)
{
    gq_error err = {0, ""};
    char *wl = NULL;
    gq_db *db;
    int rc;

    if (!(db = cli_open(g)))
        return EXIT_FAILURE;
    rc = stop ? gq_workload_stop(db, cli_namespace(g), name, &wl, &err)
              : gq_workload_resume(db, cli_namespace(g), name, &wl, &err);
    gq_db_close(db);
    if (rc != GQ_OK)
        return cli_fail(&err);
    printf("workload/%s %s\n", wl, stop ? "stopped" : "resumed");
    gq_free(wl);
    return EXIT_SUCCESS;
}

/* stop and resume: kueuectl's words; a queue HoldAndDrain unless --keep-already-running. */
static int stop_or_resume(struct global *g, int argc, char **argv, bool stop)
{
    const struct command *self = cli_command(stop ? "stop" : "resume");
    bool keep = false;
    const struct flag stop_flags[] = {
        {"keep-already-running", 0, FLAG_BOOL, &keep, NULL,
         "keep admitted workloads running (stopPolicy Hold)"},
        {NULL, 0, FLAG_BOOL, NULL, NULL, NULL}};
    const struct flag *flags = stop ? stop_flags : stop_flags + 1;
    gq_error err = {0, ""};
    const char *resource, *policy;
    gq_db *db;
    int nargs, rc;

    if ((rc = cli_parse(g, self, flags, argc, argv, &nargs)) != EXIT_SUCCESS)
        return rc;
    if (g->help) {
        cli_help(self, flags);
        return EXIT_SUCCESS;
    }
    cli_type_name(&nargs, argv);
    if (nargs != 2)
        return cli_usage_error("%s needs clusterqueue|localqueue|workload NAME", self->name);
    resource = gq_resource_name(argv[0]);
    if (resource && strcmp(resource, "workload") == 0) {
        if (keep)
            return cli_usage_error("--keep-already-running is for queues: a stopped workload "
                                   "gives its quota back");
        return stop_or_resume_workload(g, argv[1], stop);
    }
    if (!resource || (strcmp(resource, "clusterqueue") && strcmp(resource, "localqueue")))
        return cli_usage_error("cannot %s \"%s\": only clusterqueue, localqueue and workload",
                               self->name, argv[0]);
    policy = !stop ? "None" : keep ? "Hold" : "HoldAndDrain";
    if (!(db = cli_open(g)))
        return EXIT_FAILURE;
    rc = gq_queue_set_stop_policy(db, resource, cli_namespace(g), argv[1], policy, &err);
    gq_db_close(db);
    if (rc != GQ_OK)
        return cli_fail(&err);
    printf("%s/%s %s\n", resource, argv[1], stop ? "stopped" : "resumed");
    return EXIT_SUCCESS;
}

int cmd_stop(struct global *g, int argc, char **argv)
{
    return stop_or_resume(g, argc, argv, true);
}

int cmd_resume(struct global *g, int argc, char **argv)
{
    return stop_or_resume(g, argc, argv, false);
}
