/*
 * cmd_simulate.c: `gpuq simulate`, a day in a second (gq_simulate): a
 * generator profile or a trace replayed on the simulated cluster in virtual
 * time, on a scratch database (or the one --db names), then its report.
 * --compare runs the same arrivals under other manifests and sets the
 * figures side by side.
 *
 * A simulation never touches the user's everyday database: only --db names
 * one. A --db that does not exist yet is built under another name and
 * renamed when the run succeeded, so a failed or interrupted run leaves
 * nothing half-written.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "term.h"

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
    (void)sig;
    stop_requested = 1;
}

struct progress {
    bool tty;
    size_t finished;
    int64_t last_ms;
};

/* On a TTY, one line that follows the run (virtual time, jobs done); nothing when piped. */
static int on_event(const gq_run_event *e, void *payload)
{
    struct progress *p = payload;
    char at[GQ_DURATION_SIZE];

    if (e->job_name && e->what_id == GQ_EVENT_WHAT_FINISHED)
        p->finished++;
    if (!p->tty || e->elapsed_ms - p->last_ms < 60 * 1000)
        return 0;
    p->last_ms = e->elapsed_ms;
    gq_duration_format(at, sizeof(at), e->elapsed_ms - e->elapsed_ms % 60000);
    fprintf(stderr, "\rsimulating: +%-8s %zu jobs finished ", at, p->finished);
    return 0;
}

static void remove_db(const char *path)
{
    static const char *const suffixes[] = {"", "-wal", "-shm", "-journal"};
    char name[PATH_MAX];
    size_t i;

    for (i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
        snprintf(name, sizeof(name), "%s%s", path, suffixes[i]);
        unlink(name);
    }
}

struct target {
    char path[PATH_MAX];  /* where the run writes */
    const char *final;    /* renamed to this on success; NULL: in place or scratch */
    char dir[PATH_MAX - 32]; /* a scratch directory to remove; "" */
};

/* Where one run writes: the --db file, a new one beside it, or a scratch directory. */
static int target_open(struct target *t, const char *db_path, int k)
{
    struct stat st;

    memset(t, 0, sizeof(*t));
    if (db_path && k == 0 && stat(db_path, &st) == 0) {
        snprintf(t->path, sizeof(t->path), "%s", db_path);
        return 0;
    }
    if (db_path && k == 0) {
        snprintf(t->path, sizeof(t->path), "%s.partial-%ld", db_path, (long)getpid());
        t->final = db_path;
        return 0;
    }
    snprintf(t->dir, sizeof(t->dir), "%s/gpuq-simulate-XXXXXX",
             getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(t->dir)) {
        fprintf(stderr, "error: cannot create a scratch directory: %s\n", strerror(errno));
        return -1;
    }
    snprintf(t->path, sizeof(t->path), "%s/simulation.db", t->dir);
    return 0;
}

/* After the run: keep (rename into place) or throw away. */
static int target_close(struct target *t, bool ok)
{
    int rc = 0;

    if (t->final && ok && rename(t->path, t->final) < 0) {
        fprintf(stderr, "error: cannot rename %s to %s: %s\n", t->path, t->final,
                strerror(errno));
        rc = -1;
    }
    if (t->final || t->dir[0])
        remove_db(t->path); /* the -wal and -shm of a renamed file, or a failed run */
    if (t->dir[0])
        rmdir(t->dir);
    return rc;
}

struct sim_args {
    gq_simulate_options o;
    struct strlist files, compare;
    const char *output;
    bool quiet, no_report;
    gq_report_options ro;
};

/* One run on one target: the simulation, then (when report is set) its report. */
static int run_one(const struct sim_args *a, const char *path, char **report, gq_error *err)
{
    struct progress p = {term_is_tty(2) && !a->quiet, 0, 0};
    gq_simulate_stats st;
    gq_db *db;
    int rc;

    if ((rc = gq_db_open(&db, path, NULL, err)) != GQ_OK)
        return rc;
    rc = gq_simulate(db, &a->o, on_event, &p, &st, err);
    if (p.tty && p.last_ms)
        fprintf(stderr, "\r%*s\r", 60, "");
    if (rc == GQ_OK && !a->quiet) {
        char span[GQ_DURATION_SIZE];

        gq_duration_format(span, sizeof(span), st.run.end_ms - st.run.start_ms);
        fprintf(stderr, "%zu jobs%s%.0zu%s, %s simulated: %llu admitted, %llu finished, "
                        "%llu evicted\n",
                st.jobs, st.stages ? " in " : "", st.stages, st.stages ? " stages" : "", span,
                (unsigned long long)st.run.admitted, (unsigned long long)st.run.finished,
                (unsigned long long)st.run.evicted);
    }
    if (rc == GQ_OK && report)
        rc = gq_report(report, db, &a->ro, err);
    gq_db_close(db);
    return rc;
}

static int simulate_into(const struct sim_args *a, const char *db_path, int k,
                         const char *const *manifests, size_t nmanifests, char **report)
{
    struct sim_args one = *a;
    struct target t;
    gq_error err = {0, ""};
    int rc;

    if (target_open(&t, db_path, k) < 0)
        return EXIT_FAILURE;
    one.o.manifests = manifests;
    one.o.nmanifests = nmanifests;
    rc = run_one(&one, t.path, report, &err);
    if (target_close(&t, rc == GQ_OK && !stop_requested) < 0 && rc == GQ_OK)
        return EXIT_FAILURE;
    if (rc != GQ_OK)
        return cli_fail(&err);
    if (stop_requested) {
        fprintf(stderr, "error: interrupted\n");
        return EXIT_FAILURE;
    }
    return EXIT_SUCCESS;
}

/* --compare: the same arrivals under each set of manifests, the figures side by side. */
static int compare(const struct sim_args *a, const char *db_path)
{
    size_t n = a->compare.n + 1, i, opened = 0, made = 0;
    struct target *t = calloc(n, sizeof(*t));
    gq_db **dbs = calloc(n, sizeof(*dbs));
    const char **names = calloc(n, sizeof(*names));
    gq_error err = {0, ""};
    char *out = NULL;
    int rc = EXIT_SUCCESS;

    if (!t || !dbs || !names) {
        fprintf(stderr, "error: out of memory\n");
        rc = EXIT_FAILURE;
    }
    for (i = 0; rc == EXIT_SUCCESS && i < n; i++, made++) {
        struct sim_args one = *a;

        names[i] = i == 0 ? (a->files.n ? a->files.v[0] : "default") : a->compare.v[i - 1];
        one.o.manifests = i == 0 ? a->files.v : &a->compare.v[i - 1];
        one.o.nmanifests = i == 0 ? a->files.n : 1;
        if (target_open(&t[i], i == 0 ? db_path : NULL, (int)i) < 0)
            rc = EXIT_FAILURE;
        else if (run_one(&one, t[i].path, NULL, &err) != GQ_OK)
            rc = cli_fail(&err);
        else if (stop_requested)
            rc = EXIT_FAILURE;
    }
    for (i = 0; rc == EXIT_SUCCESS && i < n; i++, opened++)
        if (gq_db_open(&dbs[i], t[i].path, NULL, &err) != GQ_OK)
            rc = cli_fail(&err);
    if (rc == EXIT_SUCCESS &&
        gq_simulate_compare(&out, (gq_db *const *)dbs, names, n, &a->ro, &err) != GQ_OK)
        rc = cli_fail(&err);
    if (rc == EXIT_SUCCESS)
        fputs(out, stdout);
    for (i = 0; i < opened; i++)
        gq_db_close(dbs[i]);
    for (i = 0; i < made; i++)
        if (target_close(&t[i], rc == EXIT_SUCCESS) < 0)
            rc = EXIT_FAILURE;
    gq_free(out);
    free(t);
    free(dbs);
    free(names);
    return rc;
}

static int parse_output(struct sim_args *a)
{
    if (!a->output || strcmp(a->output, "table") == 0)
        a->ro.format = GQ_REPORT_TEXT;
    else if (strcmp(a->output, "json") == 0)
        a->ro.format = GQ_REPORT_JSON;
    else {
        cli_usage_error("invalid -o \"%s\" for simulate: want table or json", a->output);
        return -1;
    }
    return a->no_report ? 1 : 0;
}

int cmd_simulate(struct global *g, int argc, char **argv)
{
    const struct command *self = cli_command("simulate");
    struct sim_args a;
    const char *profile = NULL, *trace = NULL, *queue = NULL;
    int seed = 1, nargs, rc, out;
    struct sigaction sa;
    char *report = NULL;
    const struct flag flags[] = {
        {"profile", 0, FLAG_STRING, &profile, "NAME|FILE",
         "arrivals from a generator profile: rapids-day, or a SimulationProfile file"},
        {"trace", 0, FLAG_STRING, &trace, "FILE", "arrivals from a trace (CSV or JSON lines)"},
        {"filename", 'f', FLAG_LIST, &a.files, "PATH",
         "queues, flavors and NodePools (default: the database's, else story 1's cluster)"},
        {"compare", 0, FLAG_LIST, &a.compare, "PATH",
         "run the same arrivals under these manifests too, and compare"},
        {"seed", 0, FLAG_INT, &seed, "N", "the generator's and simulator's seed (default 1)"},
        {"queue", 0, FLAG_STRING, &queue, "NAME", "the LocalQueue the profile's jobs go to"},
        {"quiet", 'q', FLAG_BOOL, &a.quiet, NULL, "no progress and no run summary on stderr"},
        {"no-report", 0, FLAG_BOOL, &a.no_report, NULL,
         "print no report (then: gpuq report --db on the database)"},
        {NULL, 0, FLAG_BOOL, NULL, NULL, NULL}};

    memset(&a, 0, sizeof(a));
    a.o = (gq_simulate_options)GQ_SIMULATE_OPTIONS_INIT;
    a.ro = (gq_report_options)GQ_REPORT_OPTIONS_INIT;
    if ((rc = cli_parse(g, self, flags, argc, argv, &nargs)) != EXIT_SUCCESS)
        goto out;
    if (g->help) {
        cli_help(self, flags);
        goto out;
    }
    if (nargs)
        rc = cli_usage_error("simulate takes no arguments, got \"%s\"", argv[0]);
    else if (profile && trace)
        rc = cli_usage_error("--profile and --trace: give one");
    else if (seed < 1)
        rc = cli_usage_error("--seed must be 1 or more, got %d", seed);
    else if (a.compare.n && !profile && !trace)
        rc = cli_usage_error("--compare needs --profile or --trace");
    a.output = g->output;
    if (rc != EXIT_SUCCESS || (out = parse_output(&a)) < 0) {
        rc = EXIT_USAGE;
        goto out;
    }
    a.o.profile = profile;
    a.o.trace = trace;
    a.o.seed = (uint64_t)seed;
    a.o.queue = queue;
    a.o.namespace = g->namespace;
    a.o.stop = &stop_requested;
    a.ro.unicode = term_utf8();
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    if (a.compare.n) {
        rc = compare(&a, g->db_path);
    } else {
        rc = simulate_into(&a, g->db_path, 0, a.files.v, a.files.n, out ? NULL : &report);
        if (rc == EXIT_SUCCESS && report)
            fputs(report, stdout);
        gq_free(report);
    }
out:
    free(a.files.v);
    free(a.compare.v);
    return rc;
}
