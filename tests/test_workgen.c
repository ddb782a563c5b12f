/*
 * test_workgen.c: the arrivals of `gpuq simulate` (lib/core/workgen.c): generator
 * profiles (determinism, user story 1's width rule and its clamp, the
 * built-in rapids-day against examples/simulate/rapids-day.yaml, every
 * validation error with its exact message) and traces (CSV and JSON lines,
 * RFC 3339 arrivals, stable order, every error, a 100,000-line trace).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "util.h"
#include "workgen.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* rapids-day with seed 1: pinned, so a change to the draws shows up here. */
#define RAPIDS_SEED1_JOBS 169
#define RAPIDS_SEED1_RUN0 28118

/* Every field of every job as text, to compare two runs. Caller frees. */
static char *dump(const struct gq_wg_jobs *jobs)
{
    struct gq__str s = {0};
    size_t i, a, b;

    gq__str_printf(&s, "stages=%d\n", (int)jobs->nstages);
    for (i = 0; i < jobs->n; i++) {
        const struct gq_wg_job *j = &jobs->v[i];

        gq__str_printf(&s, "%s/%s q=%s pc=%s at=%lld stage=%d run=%lld", j->ns, j->name, j->queue,
                       j->priority_class ? j->priority_class : "-", (long long)j->at_ms,
                       (int)j->stage, (long long)j->run_ms);
        for (a = 0; a < j->npodsets; a++) {
            gq__str_printf(&s, " [%s x%d", j->podsets[a].name, (int)j->podsets[a].count);
            for (b = 0; b < j->podsets[a].nres; b++)
                gq__str_printf(&s, " %s=%s", j->podsets[a].res[b], j->podsets[a].qty[b]);
            gq__str_puts(&s, "]");
        }
        gq__str_puts(&s, "\n");
    }
    return s.p;
}

static int profile(struct gq_wg_jobs *out, const char *text, uint64_t seed, gq_error *err)
{
    return gq__wg_profile(out, NULL, text, strlen(text), "p.yaml", seed, NULL, NULL, err);
}

static int trace(struct gq_wg_jobs *out, const char *text, const char *src, gq_error *err)
{
    return gq__wg_trace(out, text, strlen(text), src, err);
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long n;

    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = malloc((size_t)n + 1)) && fread(buf, 1, (size_t)n, f) == (size_t)n) {
        buf[n] = '\0';
        *len = (size_t)n;
    } else {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    return buf;
}

/* examples/simulate/<name>, found from GQ_TEST_DATA (tests/data). */
static char *example(const char *name, size_t *len)
{
    const char *data = getenv("GQ_TEST_DATA");
    char path[1024];

    snprintf(path, sizeof(path), "%s/../../examples/simulate/%s", data ? data : "tests/data", name);
    return read_file(path, len);
}

/* ------------------------------------------------------------ profiles */

/* The widths of each stage, from the jobs' stage numbers. */
static void widths(const struct gq_wg_jobs *jobs, int *w, int nw)
{
    size_t i;

    memset(w, 0, (size_t)nw * sizeof(*w));
    for (i = 0; i < jobs->n; i++)
        if (jobs->v[i].stage >= 0 && jobs->v[i].stage < nw)
            w[jobs->v[i].stage]++;
}

static void rapids_day_shape(void)
{
    static const struct {
        int stages, lo, hi;
    } phases[] = {{10, 1, 2}, {5, 3, 5}, {30, 1, 2}, {10, 3, 10}, {5, 3, 5}, {10, 1, 2}};
    struct gq_wg_jobs jobs;
    gq_error err = {0};
    int w[70], last, k, lo, hi;
    size_t p, i;
    uint64_t seed;

    for (seed = 1; seed <= 5; seed++) {
        CHECK(gq__wg_profile(&jobs, "rapids-day", NULL, 0, NULL, seed, NULL, NULL, &err) == GQ_OK);
        printf("rapids-day seed %llu: %zu jobs in %d stages\n", (unsigned long long)seed, jobs.n,
               (int)jobs.nstages);
        CHECK(jobs.nstages == 70);
        CHECKF(jobs.n >= 150 && jobs.n <= 230, "seed %llu: %zu jobs", (unsigned long long)seed,
               jobs.n);
        widths(&jobs, w, 70);
        /* The story's rule, stage by stage: within reach of the last width and the phase's range.
         */
        last = 1;
        for (p = 0, k = 0; p < NELEM(phases); p++) {
            int s;

            for (s = 0; s < phases[p].stages; s++, k++) {
                lo = last - 3 > phases[p].lo ? last - 3 : phases[p].lo;
                hi = last + 3 < phases[p].hi ? last + 3 : phases[p].hi;
                if (lo > hi)
                    lo = hi = last < phases[p].lo ? phases[p].lo : phases[p].hi;
                CHECKF(w[k] >= lo && w[k] <= hi, "seed %llu stage %d: width %d not in [%d, %d]",
                       (unsigned long long)seed, k, w[k], lo, hi);
                last = w[k];
            }
        }
        for (i = 0; i < jobs.n; i++) {
            const struct gq_wg_job *j = &jobs.v[i];

            CHECK(j->at_ms == 0 && j->run_ms >= 20000 && j->run_ms <= 30000);
            CHECK(j->npodsets == 2 && j->podsets[0].count == 1 && j->podsets[1].count == 2);
            CHECK_STR(j->ns, "default");
            CHECK_STR(j->queue, "user-queue");
            CHECK(j->priority_class == NULL);
            CHECK(i == 0 || j->stage >= jobs.v[i - 1].stage);
        }
        CHECK_STR(jobs.v[0].name, "dask-0-0");
        CHECK_STR(jobs.v[1].podsets[1].res[0], "nvidia.com/gpu");
        gq__wg_jobs_free(&jobs);
    }
}

static void determinism(void)
{
    struct gq_wg_jobs a, b, c;
    gq_error err = {0};
    char *da, *db, *dc;

    CHECK(gq__wg_profile(&a, "rapids-day", NULL, 0, NULL, 42, NULL, NULL, &err) == GQ_OK);
    CHECK(gq__wg_profile(&b, "rapids-day", NULL, 0, NULL, 42, NULL, NULL, &err) == GQ_OK);
    CHECK(gq__wg_profile(&c, "rapids-day", NULL, 0, NULL, 43, NULL, NULL, &err) == GQ_OK);
    da = dump(&a);
    db = dump(&b);
    dc = dump(&c);
    CHECK(strcmp(da, db) == 0);
    CHECK(strcmp(da, dc) != 0);
    free(da);
    free(db);
    free(dc);
    gq__wg_jobs_free(&a);
    gq__wg_jobs_free(&b);
    gq__wg_jobs_free(&c);

    /* Pinned: the generator is portable integer arithmetic, so these never change. */
    CHECK(gq__wg_profile(&a, "rapids-day", NULL, 0, NULL, 1, "team-a", "q", &err) == GQ_OK);
    CHECK_STR(a.v[0].ns, "team-a");
    CHECK_STR(a.v[0].queue, "q");
    CHECKF(a.n == RAPIDS_SEED1_JOBS, "%zu jobs", a.n);
    CHECKF(a.v[0].run_ms == RAPIDS_SEED1_RUN0, "run %lld", (long long)a.v[0].run_ms);
    gq__wg_jobs_free(&a);
}

static void shipped_file_equals_builtin(void)
{
    struct gq_wg_jobs a, b;
    gq_error err = {0};
    size_t len = 0;
    char *text = example("rapids-day.yaml", &len), *da, *db;
    uint64_t seed;

    CHECK(text != NULL);
    if (!text)
        return;
    for (seed = 0; seed < 4; seed++) {
        CHECK(gq__wg_profile(&a, "rapids-day", NULL, 0, NULL, seed, NULL, NULL, &err) == GQ_OK);
        CHECKF(gq__wg_profile(&b, NULL, text, len, "rapids-day.yaml", seed, NULL, NULL, &err) ==
                   GQ_OK,
               "%s", err.msg);
        da = dump(&a);
        db = dump(&b);
        CHECKF(da && db && strcmp(da, db) == 0, "seed %llu", (unsigned long long)seed);
        free(da);
        free(db);
        gq__wg_jobs_free(&a);
        gq__wg_jobs_free(&b);
    }
    free(text);
}

#define HEAD                                                                                       \
    "apiVersion: sim.gpuq.dev/v1alpha1\nkind: SimulationProfile\nmetadata: {name: t}\nspec:\n"
#define SHAPE                                                                                      \
    "  cluster:\n  - {name: main, count: 1, resources: {nvidia.com/gpu: 1}}\n"                     \
    "  runTime: {min: 10s, max: 10s}\n"

/* A phase whose range is out of reach of the last width takes the nearest width it allows. */
static void clamp(void)
{
    static const char down[] =
        HEAD SHAPE "  phases:\n"
                   "  - {stages: 2, minWidth: 10, maxWidth: 10, variation: 0}\n"
                   "  - {stages: 3, minWidth: 1, maxWidth: 2, variation: 2}\n";
    static const char up[] = HEAD SHAPE "  phases:\n"
                                        "  - {stages: 1, minWidth: 1, maxWidth: 1}\n"
                                        "  - {stages: 2, minWidth: 8, maxWidth: 9, variation: 2}\n";
    struct gq_wg_jobs jobs;
    gq_error err = {0};
    int w[8];

    CHECKF(profile(&jobs, down, 7, &err) == GQ_OK, "%s", err.msg);
    widths(&jobs, w, 8);
    CHECK(jobs.nstages == 5);
    CHECK(w[0] == 10 && w[1] == 10);
    CHECK(w[2] == 2);                 /* clamped: [max(1, 8), min(2, 12)] is empty */
    CHECK(w[3] >= 1 && w[3] <= 2);    /* then the rule again */
    CHECK(jobs.v[0].run_ms == 10000); /* min == max: fixed */
    CHECK_STR(jobs.v[0].name, "dask-0-0");
    CHECK_STR(jobs.v[19].name, "dask-1-9");
    CHECK_STR(jobs.v[20].name, "dask-2-0");
    gq__wg_jobs_free(&jobs);

    CHECKF(profile(&jobs, up, 7, &err) == GQ_OK, "%s", err.msg);
    widths(&jobs, w, 8);
    CHECK(w[0] == 1);
    CHECK(w[1] == 8); /* clamped up: [max(8, -1), min(9, 3)] is empty */
    CHECK(w[2] >= 8 && w[2] <= 9);
    gq__wg_jobs_free(&jobs);
}

static void profile_options(void)
{
    static const char text[] =
        "{\"apiVersion\": \"sim.gpuq.dev/v1alpha1\", \"kind\": \"SimulationProfile\",\n"
        " \"metadata\": {\"name\": \"json\"},\n"
        " \"spec\": {\"namespace\": \"ml\", \"queue\": \"lq\", \"priorityClass\": \"high\",\n"
        "  \"jobName\": \"ray\",\n"
        "  \"cluster\": [{\"name\": \"head\", \"count\": 1, \"resources\": {\"cpu\": \"500m\"}},\n"
        "              {\"name\": \"workers\", \"countRange\": [1, 4],\n"
        "               \"resources\": {\"nvidia.com/mig-1g.5gb\": 1}}],\n"
        "  \"runTime\": {\"min\": \"1m\", \"max\": \"1h\"},\n"
        "  \"phases\": [{\"stages\": 20, \"minWidth\": 2, \"maxWidth\": 6}]}}\n";
    struct gq_wg_jobs jobs;
    gq_error err = {0};
    bool varied = false;
    size_t i;

    CHECKF(profile(&jobs, text, 3, &err) == GQ_OK, "%s", err.msg);
    CHECK(jobs.nstages == 20);
    for (i = 0; i < jobs.n; i++) {
        const struct gq_wg_job *j = &jobs.v[i];

        CHECK(j->podsets[1].count >= 1 && j->podsets[1].count <= 4);
        CHECK(j->run_ms >= 60000 && j->run_ms <= 3600000);
        varied |= j->podsets[1].count != jobs.v[0].podsets[1].count;
    }
    CHECK(varied);
    CHECK_STR(jobs.v[0].name, "ray-0-0");
    CHECK_STR(jobs.v[0].ns, "ml");
    CHECK_STR(jobs.v[0].queue, "lq");
    CHECK_STR(jobs.v[0].priority_class, "high");
    CHECK_STR(jobs.v[0].podsets[0].qty[0], "500m");
    CHECK_STR(jobs.v[0].podsets[1].res[0], "nvidia.com/mig-1g.5gb");
    CHECK_STR(jobs.v[0].podsets[1].qty[0], "1");
    gq__wg_jobs_free(&jobs);
}

#define PHASE "  phases:\n  - {stages: 2, minWidth: 1, maxWidth: 2}\n"

static void profile_errors(void)
{
    static const struct {
        const char *text, *msg;
    } rows[] = {
        {HEAD SHAPE "  phases:\n  - {stages: 2, minWidth: 5, maxWidth: 2}\n",
         "p.yaml: spec.phases[0].minWidth: invalid value \"5\": must not be greater than "
         "maxWidth (2)"},
        {HEAD SHAPE "  phases:\n  - {stages: 0, minWidth: 1, maxWidth: 2}\n",
         "p.yaml: spec.phases[0].stages: invalid value \"0\": must be at least 1"},
        {HEAD SHAPE "  phases:\n  - {stages: 1, minWidth: 0, maxWidth: 2}\n",
         "p.yaml: spec.phases[0].minWidth: invalid value \"0\": must be at least 1"},
        {HEAD SHAPE "  phases:\n  - {stages: 1, minWidth: 1, maxWidth: -3}\n",
         "p.yaml: spec.phases[0].maxWidth: invalid value \"-3\": must be at least 1"},
        {HEAD SHAPE "  phases:\n  - {stages: 1, minWidth: 1, maxWidth: 2, variation: -1}\n",
         "p.yaml: spec.phases[0].variation: invalid value \"-1\": must be at least 0"},
        {HEAD SHAPE "  phases:\n  - {stages: 1, minWidth: 1}\n",
         "p.yaml: spec.phases[0].maxWidth: required"},
        {HEAD SHAPE "  phases:\n  - {stages: 1, minWidth: 1, maxWidht: 2}\n",
         "p.yaml: spec.phases[0].maxWidht: unknown field"},
        {HEAD SHAPE "  phases:\n  - {stages: \"2\", minWidth: 1, maxWidth: 2}\n",
         "p.yaml: spec.phases[0].stages: invalid value \"2\": must be an integer"},
        {HEAD SHAPE "  phases: []\n", "p.yaml: spec.phases: required, at least one phase"},
        {HEAD SHAPE "  phases:\n  - {stages: 100000, minWidth: 1, maxWidth: 100}\n",
         "p.yaml: spec.phases: up to 10000000 jobs, more than 1000000 at most"},
        {HEAD "  cluster:\n  - {name: main, count: 1}\n  runTime: {min: -5s, max: 10s}\n" PHASE,
         "p.yaml: spec.runTime.min: invalid value \"-5s\": must be positive"},
        {HEAD "  cluster:\n  - {name: main, count: 1}\n  runTime: {min: 0s, max: 10s}\n" PHASE,
         "p.yaml: spec.runTime.min: invalid value \"0s\": must be positive"},
        {HEAD "  cluster:\n  - {name: main, count: 1}\n  runTime: {min: 5x, max: 10s}\n" PHASE,
         "p.yaml: spec.runTime.min: invalid value \"5x\": must be a duration such as \"25s\" or "
         "\"1m30s\""},
        {HEAD "  cluster:\n  - {name: main, count: 1}\n  runTime: {min: 20s, max: 10s}\n" PHASE,
         "p.yaml: spec.runTime.min: invalid value \"20s\": must not be greater than max"},
        {HEAD "  cluster:\n  - {name: main, count: 1}\n  runTime: {min: 20s}\n" PHASE,
         "p.yaml: spec.runTime.max: required"},
        {HEAD
         "  cluster:\n  - {name: main, count: 1}\n  runTime: {min: 1s, max: 2s, mean: 1s}\n" PHASE,
         "p.yaml: spec.runTime.mean: unknown field"},
        {HEAD "  cluster:\n  - {name: main, count: 1, resources: {cpu: 1x}}\n"
              "  runTime: {min: 1s, max: 2s}\n" PHASE,
         "p.yaml: spec.cluster[0].resources.cpu: invalid value \"1x\": must be a quantity such "
         "as \"1\", \"500m\" or \"4Gi\""},
        {HEAD "  cluster:\n  - {name: main, count: 1, resources: {memory: -1Gi}}\n"
              "  runTime: {min: 1s, max: 2s}\n" PHASE,
         "p.yaml: spec.cluster[0].resources.memory: invalid value \"-1Gi\": must not be "
         "negative"},
        {HEAD "  cluster:\n  - {name: main, count: 0}\n  runTime: {min: 1s, max: 2s}\n" PHASE,
         "p.yaml: spec.cluster[0].count: invalid value \"0\": must be at least 1"},
        {HEAD
         "  cluster:\n  - {name: main, countRange: [3, 2]}\n  runTime: {min: 1s, max: 2s}\n" PHASE,
         "p.yaml: spec.cluster[0].countRange: invalid value \"3\": min must not be greater than "
         "max"},
        {HEAD "  cluster:\n  - {name: main}\n  runTime: {min: 1s, max: 2s}\n" PHASE,
         "p.yaml: spec.cluster[0]: give count or countRange, one of them"},
        {HEAD "  cluster:\n  - {name: Main, count: 1}\n  runTime: {min: 1s, max: 2s}\n" PHASE,
         "p.yaml: spec.cluster[0].name: invalid value \"Main\": a lowercase RFC 1123 label must "
         "consist of lower case alphanumeric characters or '-', and must start and end with an "
         "alphanumeric character"},
        {HEAD
         "  cluster:\n  - {name: main, count: 1, size: 3}\n  runTime: {min: 1s, max: 2s}\n" PHASE,
         "p.yaml: spec.cluster[0].size: unknown field"},
        {HEAD "  runTime: {min: 1s, max: 2s}\n" PHASE,
         "p.yaml: spec.cluster: required, at least one pod set"},
        {HEAD SHAPE PHASE "  replicas: 3\n", "p.yaml: spec.replicas: unknown field"},
        {"apiVersion: sim.gpuq.dev/v1\nkind: SimulationProfile\nmetadata: {name: t}\nspec: {}\n",
         "p.yaml: apiVersion: must be sim.gpuq.dev/v1alpha1"},
        {"apiVersion: sim.gpuq.dev/v1alpha1\nkind: Job\nmetadata: {name: t}\nspec: {}\n",
         "p.yaml: kind: must be SimulationProfile"},
        {"apiVersion: sim.gpuq.dev/v1alpha1\nkind: SimulationProfile\nspec:\n" SHAPE PHASE,
         "p.yaml: metadata.name: required"},
        {HEAD SHAPE PHASE "---\n" HEAD SHAPE PHASE,
         "p.yaml: document 2: a profile is one SimulationProfile document"},
        {HEAD SHAPE PHASE "  jobName: Dask_\n",
         "p.yaml: spec.jobName: invalid value \"Dask_\": a lowercase RFC 1123 label must consist "
         "of lower case alphanumeric characters or '-', and must start and end with an "
         "alphanumeric character"},
        {"", "p.yaml: no SimulationProfile document"},
        {"apiVersion: sim.gpuq.dev/v1alpha1\nkind: SimulationProfile\nmetadata: {name: A}\n"
         "spec:\n" SHAPE PHASE,
         "p.yaml: metadata.name: invalid value \"A\": a lowercase RFC 1123 subdomain must "
         "consist of lower case alphanumeric characters, '-' or '.', and must start and end "
         "with an alphanumeric character"},
    };
    struct gq_wg_jobs jobs;
    gq_error err;
    size_t i;

    for (i = 0; i < NELEM(rows); i++) {
        memset(&err, 0, sizeof(err));
        CHECKF(profile(&jobs, rows[i].text, 1, &err) == GQ_EINVALID, "row %zu", i);
        CHECKF(strcmp(err.msg, rows[i].msg) == 0, "row %zu: got \"%s\"", i, err.msg);
        CHECK(jobs.n == 0 && jobs.v == NULL);
    }
    memset(&err, 0, sizeof(err));
    CHECK(gq__wg_profile(&jobs, "lazy-sunday", NULL, 0, NULL, 1, NULL, NULL, &err) == GQ_EINVALID);
    CHECK_STR(err.msg, "unknown profile \"lazy-sunday\" (built in: rapids-day)");
    CHECK(gq__wg_profile(&jobs, "rapids-day", NULL, 0, NULL, 1, "Bad_NS", NULL, &err) ==
          GQ_EINVALID);
    CHECK(strncmp(err.msg, "rapids-day: namespace: invalid value \"Bad_NS\": ", 46) == 0);
}

/* ------------------------------------------------------------ traces */

static void csv_trace(void)
{
    static const char text[] =
        "# a comment line, then the header\n"
        "arrival,namespace,queue,name,pods,gpus,cpu,memory,run_time,priority_class\n"
        "90s,team-a,lq,train-1,2,1,4,16Gi,1h,high\n"
        "0,team-a,lq,,1,0,500m,,30s,\n"
        "\r\n"
        "\"1m30s\", team-b , lq ,\"eval\",4,8,,,2m30s,\r\n"
        "1h2m,team-a,lq,late,1,2,,,90,\n";
    struct gq_wg_jobs jobs;
    gq_error err = {0};
    char *d;

    CHECKF(trace(&jobs, text, "t.csv", &err) == GQ_OK, "%s", err.msg);
    d = dump(&jobs);
    CHECK_STR(d, "stages=0\n"
                 "team-a/job-4 q=lq pc=- at=0 stage=-1 run=30000 [main x1 cpu=500m]\n"
                 "team-a/train-1 q=lq pc=high at=90000 stage=-1 run=3600000 [main x2 cpu=4 "
                 "memory=16Gi nvidia.com/gpu=1]\n"
                 "team-b/eval q=lq pc=- at=90000 stage=-1 run=150000 [main x4 "
                 "nvidia.com/gpu=8]\n"
                 "team-a/late q=lq pc=- at=3720000 stage=-1 run=90000 [main x1 "
                 "nvidia.com/gpu=2]\n");
    free(d);
    gq__wg_jobs_free(&jobs);
}

static void csv_gpu_resource(void)
{
    /* A spreadsheet's byte order mark, and an empty quoted cell (absent). */
    static const char text[] = "\xef\xbb\xbf"
                               "arrival,namespace,queue,pods,gpus,gpu_resource,run_time\n"
                               "0,ns,q,1,1,nvidia.com/mig-3g.20gb,1m\n"
                               "0,ns,q,1,2,\"\",1m\n";
    struct gq_wg_jobs jobs;
    gq_error err = {0};

    CHECKF(trace(&jobs, text, "t.csv", &err) == GQ_OK, "%s", err.msg);
    CHECK_STR(jobs.v[0].podsets[0].res[0], "nvidia.com/mig-3g.20gb");
    CHECK_STR(jobs.v[1].podsets[0].res[0], "nvidia.com/gpu");
    CHECK_STR(jobs.v[1].name, "job-3");
    gq__wg_jobs_free(&jobs);
}

static void jsonl_trace(void)
{
    static const char text[] =
        "{\"arrival\": \"2024-05-06T09:00:30Z\", \"namespace\": \"a\", \"queue\": \"lq\", "
        "\"pods\": 2, \"gpus\": 1, \"run_time\": \"10m\"}\n"
        "\n"
        "{\"arrival\": \"2024-05-06T09:00:00Z\", \"namespace\": \"a\", \"queue\": \"lq\", "
        "\"name\": \"x\", \"pods\": \"1\", \"resources\": {\"nvidia.com/gpu\": 4, \"cpu\": 0.5, "
        "\"memory\": \"32Gi\"}, \"run_time\": 600, \"priority_class\": \"low\"}\n"
        "{\"arrival\": \"2024-05-06T11:00:00.250+02:00\", \"namespace\": \"b\", \"queue\": "
        "\"lq\", \"pods\": 1, \"cpu\": \"2\", \"run_time\": \"1s\", \"name\": null}\n";
    struct gq_wg_jobs jobs;
    gq_error err = {0};
    char *d;

    CHECKF(trace(&jobs, text, "t.jsonl", &err) == GQ_OK, "%s", err.msg);
    d = dump(&jobs);
    CHECK_STR(d, "stages=0\n"
                 "a/x q=lq pc=low at=0 stage=-1 run=600000 [main x1 nvidia.com/gpu=4 cpu=0.5 "
                 "memory=32Gi]\n"
                 "b/job-4 q=lq pc=- at=250 stage=-1 run=1000 [main x1 cpu=2]\n"
                 "a/job-1 q=lq pc=- at=30000 stage=-1 run=600000 [main x2 "
                 "nvidia.com/gpu=1]\n");
    free(d);
    gq__wg_jobs_free(&jobs);
}

static void trace_errors(void)
{
    static const char h[] = "arrival,namespace,queue,name,pods,gpus,run_time\n";
    static const struct {
        const char *head, *row, *msg;
    } rows[] = {
        {h, "soon,a,q,x,1,1,1m",
         "t:2: arrival: invalid value \"soon\": must be a duration (\"90s\", \"1h2m\"), seconds "
         "or an RFC 3339 time"},
        {h, "2024-02-30T00:00:00Z,a,q,x,1,1,1m",
         "t:2: arrival: invalid value \"2024-02-30T00:00:00Z\": must be a duration (\"90s\", "
         "\"1h2m\"), seconds or an RFC 3339 time"},
        {h, "-5s,a,q,x,1,1,1m", "t:2: arrival: invalid value \"-5s\": must not be negative"},
        {h, "1s,a,q,x,1,1,-1m", "t:2: run_time: invalid value \"-1m\": must be positive"},
        {h, "1s,a,q,x,1,1,0", "t:2: run_time: invalid value \"0\": must be positive"},
        {h, "1s,a,q,x,0,1,1m", "t:2: pods: invalid value \"0\": must be between 1 and 100000"},
        {h, "1s,a,q,x,-1,1,1m", "t:2: pods: invalid value \"-1\": must be a whole number of pods"},
        {h, "1s,a,q,x,1,1.5,1m", "t:2: gpus: invalid value \"1.5\": must be a whole number"},
        {h, "1s,a,q,x,1,1k0,1m",
         "t:2: gpus: invalid value \"1k0\": must be a quantity such as \"1\", \"500m\" or "
         "\"4Gi\""},
        {h, "1s,a,q,x,1,,1m", "t:2: a job needs resources: gpus, cpu or memory (or resources)"},
        {h, "1s,a,,x,1,1,1m", "t:2: queue: required"},
        {h, "1s,a,q,x,1,1", "t:2: 6 fields, the header has 7"},
        {h, "1s,a,q,\"x,1,1,1m", "t:2: malformed CSV (a quote not closed, or text after one)"},
        {h, "1s,a,q,x,1,1,1m\n2s,b,q,x,1,1,1m\n3s,a,q,x,1,1,1m",
         "t:4: name: invalid value \"x\": a job of that name in namespace \"a\" comes on line 2"},
        {"arrival,namespace,queue,pods,gpus\n", "", "t:1: missing required column \"run_time\""},
        {"arrival,namespace,queue,pods,gpu,run_time\n", "",
         "t:1: unknown column \"gpu\" (columns: arrival, namespace, queue, name, pods, gpus, "
         "gpu_resource, cpu, memory, run_time, priority_class)"},
        {h, "2024-05-06T09:00:00Z,a,q,x,1,1,1m\n90s,a,q,y,1,1,1m",
         "t:3: arrival: invalid value \"90s\": an offset in a trace of RFC 3339 times"},
        {h, "", "t: no jobs"},
        {"# nothing\n", "", "t: no header line"},
        {"{\"arrival\": \"1s\", \"namespace\": \"a\", \"queue\": \"q\", \"pods\": 1, \"gpus\": 1,"
         " \"run_time\": \"-5s\"}\n",
         "", "t:1: run_time: invalid value \"-5s\": must be positive"},
        {"{\"arrival\": \"1s\", \"namespace\": \"a\", \"queue\": \"q\", \"pods\": 1, \"gpus\": 1,"
         " \"runtime\": \"5s\"}\n",
         "", "t:1: unknown key \"runtime\""},
        {"{\"arrival\": \"1s\", \"namespace\": \"a\", \"queue\": \"q\", \"pods\": 1, \"gpus\": "
         "1}\n",
         "", "t:1: run_time: required"},
        {"{\"arrival\": \"1s\", \"namespace\": \"a\", \"queue\": \"q\", \"pods\": 1, \"gpus\": 1,"
         " \"run_time\": \"5s\", \"resources\": {\"cpu\": 1}}\n",
         "", "t:1: resources: not together with gpus"},
        {"{\"arrival\": \"1s\", \"namespace\": \"a\", \"queue\": \"q\", \"pods\": 1, \"run_time\": "
         "\"5s\", \"resources\": {\"memory\": \"lots\"}}\n",
         "",
         "t:1: resources.memory: invalid value \"lots\": must be a quantity such as \"1\", "
         "\"500m\" or \"4Gi\""},
        {"{\"arrival\": \"1s\", \"pods\": [1]}\n", "",
         "t:1: pods: invalid value \"[...]\": must be a string or a number"},
        {"{\"arrival\": \"1s\",\n", "", "t:1: invalid JSON: unexpected end of line"},
        {"{\"arrival\": \"1s\"} 7\n", "", "t:1: invalid JSON: more than one value on the line"},
    };
    struct gq_wg_jobs jobs;
    gq_error err;
    char text[512];
    size_t i;

    for (i = 0; i < NELEM(rows); i++) {
        snprintf(text, sizeof(text), "%s%s", rows[i].head, rows[i].row);
        memset(&err, 0, sizeof(err));
        CHECKF(trace(&jobs, text, "t", &err) == GQ_EINVALID, "row %zu", i);
        CHECKF(strcmp(err.msg, rows[i].msg) == 0, "row %zu: got \"%s\"", i, err.msg);
        CHECK(jobs.n == 0 && jobs.v == NULL);
    }
}

/* 100,000 lines, out of order: it parses, sorts stably and finds no false duplicate. */
static void big_trace(void)
{
    struct gq__str s = {0};
    struct gq_wg_jobs jobs;
    gq_error err = {0};
    bool sorted = true;
    size_t i;

    gq__str_puts(&s, "arrival,namespace,queue,name,pods,gpus,cpu,memory,run_time\n");
    for (i = 0; i < 100000; i++)
        gq__str_printf(&s, "%zus,team-%zu,lq,job-%zu,%zu,1,2,8Gi,%zum\n", (i * 7919) % 604800,
                       i % 7, i, 1 + i % 4, 1 + i % 90);
    CHECK(!s.failed);
    CHECKF(gq__wg_trace(&jobs, s.p, s.len, "week.csv", &err) == GQ_OK, "%s", err.msg);
    CHECK(jobs.n == 100000);
    for (i = 1; i < jobs.n; i++)
        sorted &= jobs.v[i - 1].at_ms <= jobs.v[i].at_ms;
    CHECK(sorted);
    gq__wg_jobs_free(&jobs);
    free(s.p);
}

static void shipped_traces(void)
{
    static const char *const files[] = {"trace.csv", "trace.jsonl"};
    struct gq_wg_jobs jobs;
    gq_error err = {0};
    size_t i, len = 0;

    for (i = 0; i < NELEM(files); i++) {
        char *text = example(files[i], &len);

        CHECKF(text != NULL, "%s", files[i]);
        if (!text)
            continue;
        CHECKF(gq__wg_trace(&jobs, text, len, files[i], &err) == GQ_OK, "%s", err.msg);
        CHECKF(jobs.n >= 10, "%s: %zu jobs", files[i], jobs.n);
        gq__wg_jobs_free(&jobs);
        free(text);
    }
}

int main(void)
{
    TEST_RUN(rapids_day_shape);
    TEST_RUN(determinism);
    TEST_RUN(shipped_file_equals_builtin);
    TEST_RUN(clamp);
    TEST_RUN(profile_options);
    TEST_RUN(profile_errors);
    TEST_RUN(csv_trace);
    TEST_RUN(csv_gpu_resource);
    TEST_RUN(jsonl_trace);
    TEST_RUN(trace_errors);
    TEST_RUN(big_trace);
    TEST_RUN(shipped_traces);
    return TEST_DONE();
}
