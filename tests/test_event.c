/*
 * test_event.c: one event type and one printer (issue 14, items 5 and 6).
 * gq_run_event and gq_cluster_event are gq_event; gq_event_format writes
 * the exact lines gpuq run and gpuqd printed before they shared it (text,
 * JSON with its escapes, the relative form), for every kind and level; the
 * words always agree with the enums, in a table and in a real run of the
 * simulated cluster on a database file.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gpuqueue.h>
#include <gpuqueue/tool.h>

#include "event.h"
#include "queue_fixture.h"
#include "test.h"

/* Compiles only while the three names are one type. */
#define SAME_TYPE(a, b) _Generic((a *)0, b *: 1, default: 0)

_Static_assert(SAME_TYPE(gq_run_event, gq_event), "gq_run_event is gq_event");
_Static_assert(SAME_TYPE(gq_cluster_event, gq_event), "gq_cluster_event is gq_event");

#define AT 1795248000000LL /* 2026-11-21T08:00:00Z */

static void same_type(void)
{
    gq_event e;
    const gq_run_event *r = &e;
    const gq_cluster_event *c = &e;
    gq_run_fn run_fn = NULL;
    gq_cluster_log_fn log_fn = NULL;

    CHECK(SAME_TYPE(gq_run_event, gq_event) && SAME_TYPE(gq_cluster_event, gq_event));
    CHECK((const void *)r == (const void *)c);
    /* The callbacks take the one type. */
    CHECK(_Generic(run_fn, int (*)(const gq_event *, void *): 1, default: 0));
    CHECK(_Generic(log_fn, void (*)(const gq_event *, void *): 1, default: 0));
}

/* ---------------------------------------------------------------- words */

static void words(void)
{
    static const struct {
        gq_event_level level;
        gq_event_kind kind;
        gq_event_what what;
        const char *want_level, *want_kind, *want_what;
    } rows[] = {
        {GQ_EVENT_LEVEL_NONE, GQ_EVENT_KIND_WORKLOAD, GQ_EVENT_WHAT_RESERVED, NULL, "Workload",
         "reserved"},
        {GQ_EVENT_LEVEL_NONE, GQ_EVENT_KIND_WORKLOAD, GQ_EVENT_WHAT_ADMITTED, NULL, "Workload",
         "admitted"},
        {GQ_EVENT_LEVEL_INFO, GQ_EVENT_KIND_WORKLOAD, GQ_EVENT_WHAT_EVICTED, "info", "Workload",
         "evicted"},
        {GQ_EVENT_LEVEL_NONE, GQ_EVENT_KIND_WORKLOAD, GQ_EVENT_WHAT_DEACTIVATED, NULL, "Workload",
         "deactivated"},
        {GQ_EVENT_LEVEL_NONE, GQ_EVENT_KIND_WORKLOAD, GQ_EVENT_WHAT_STARTED, NULL, "Workload",
         "started"},
        {GQ_EVENT_LEVEL_NONE, GQ_EVENT_KIND_WORKLOAD, GQ_EVENT_WHAT_FINISHED, NULL, "Workload",
         "finished"},
        {GQ_EVENT_LEVEL_INFO, GQ_EVENT_KIND_PROVISIONING_REQUEST, GQ_EVENT_WHAT_ACCEPTED, "info",
         "ProvisioningRequest", "Accepted"},
        {GQ_EVENT_LEVEL_INFO, GQ_EVENT_KIND_PROVISIONING_REQUEST, GQ_EVENT_WHAT_PROVISIONED,
         "info", "ProvisioningRequest", "Provisioned"},
        {GQ_EVENT_LEVEL_WARNING, GQ_EVENT_KIND_PROVISIONING_REQUEST, GQ_EVENT_WHAT_FAILED,
         "warning", "ProvisioningRequest", "Failed"},
        {GQ_EVENT_LEVEL_WARNING, GQ_EVENT_KIND_PROVISIONING_REQUEST,
         GQ_EVENT_WHAT_BOOKING_EXPIRED, "warning", "ProvisioningRequest", "BookingExpired"},
        {GQ_EVENT_LEVEL_WARNING, GQ_EVENT_KIND_PROVISIONING_REQUEST,
         GQ_EVENT_WHAT_CAPACITY_REVOKED, "warning", "ProvisioningRequest", "CapacityRevoked"},
        {GQ_EVENT_LEVEL_NONE, GQ_EVENT_KIND_PROVISIONING_REQUEST, GQ_EVENT_WHAT_CAPACITY_FOUND,
         NULL, "ProvisioningRequest", "CapacityFound"},
        {GQ_EVENT_LEVEL_INFO, GQ_EVENT_KIND_JOB, GQ_EVENT_WHAT_OTHER, "info", "Job", "kept"},
        {GQ_EVENT_LEVEL_WARNING, GQ_EVENT_KIND_LEASE, GQ_EVENT_WHAT_OTHER, "warning", "Lease",
         "kept"},
        {GQ_EVENT_LEVEL_ERROR, GQ_EVENT_KIND_SYNC, GQ_EVENT_WHAT_OTHER, "error", "Sync", "kept"},
        {GQ_EVENT_LEVEL_INFO, GQ_EVENT_KIND_SIM_PROVISIONER, GQ_EVENT_WHAT_OTHER, "info",
         "SimProvisioner", "kept"},
    };
    size_t i;

    for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        gq_event e;

        memset(&e, 0, sizeof(e));
        e.level_id = rows[i].level;
        e.kind_id = rows[i].kind;
        e.what_id = rows[i].what;
        e.what = "kept"; /* a verb of the log stays as the emitter wrote it */
        gq__event_words(&e);
        CHECKF(rows[i].want_level ? e.level && strcmp(e.level, rows[i].want_level) == 0
                                  : e.level == NULL,
               "row %zu: level %s", i, e.level ? e.level : "(null)");
        CHECKF(e.kind && strcmp(e.kind, rows[i].want_kind) == 0, "row %zu: kind %s", i,
               e.kind ? e.kind : "(null)");
        CHECKF(e.what && strcmp(e.what, rows[i].want_what) == 0, "row %zu: what %s", i,
               e.what ? e.what : "(null)");
    }
    /* Out of range: no word, never a read past a table. */
    CHECK(gq__event_kind_word((gq_event_kind)99) == NULL);
    CHECK(gq__event_what_word((gq_event_what)-1) == NULL);
    CHECK(gq__event_level_word((gq_event_level)4) == NULL);
    CHECK(gq__event_what_of_change(GQ_CHANGE_PENDING) == GQ_EVENT_WHAT_OTHER);
    CHECK(gq__event_what_of_change(GQ_CHANGE_DEACTIVATED) == GQ_EVENT_WHAT_DEACTIVATED);
}

/* ------------------------------------------------------------ the lines */

/* A transition of gq_run: the words filled as the library fills them. */
static gq_event transition(gq_event_kind kind, gq_event_what what, const char *job,
                           const char *message, int64_t elapsed_ms)
{
    gq_event e;

    memset(&e, 0, sizeof(e));
    e.at_ms = AT + elapsed_ms;
    e.elapsed_ms = elapsed_ms;
    e.kind_id = kind;
    e.what_id = what;
    e.namespace = "team-a";
    e.name = job ? "job-train-1a2b3" : "train-1a2b3-gpu-check-1";
    e.job_name = job;
    e.message = message;
    gq__event_words(&e);
    return e;
}

/* A line of cluster mode's log. */
static gq_event log_line(gq_event_level level, gq_event_kind kind, const char *ns,
                         const char *name, const char *what, const char *message)
{
    gq_event e;

    memset(&e, 0, sizeof(e));
    e.at_ms = AT + 999; /* printed to the second */
    e.level_id = level;
    e.kind_id = kind;
    e.namespace = ns;
    e.name = name;
    e.what = what;
    e.message = message;
    gq__event_words(&e);
    return e;
}

struct row {
    gq_event e;
    gq_event_style style;
    const char *want;
};

static void check_rows(const struct row *rows, size_t n)
{
    char buf[1024];
    size_t i, len;

    for (i = 0; i < n; i++) {
        len = gq_event_format(buf, sizeof(buf), &rows[i].e, rows[i].style);
        CHECKF(strcmp(buf, rows[i].want) == 0, "row %zu:\n got  %s\n want %s", i, buf,
               rows[i].want);
        CHECKF(len == strlen(rows[i].want), "row %zu: length %zu", i, len);
    }
}

#define ROWS(r) check_rows(r, sizeof(r) / sizeof(r[0]))

/* gpuq run: "+%-9s", an admission's flavors in parentheses, other messages after a colon. */
static void elapsed_style(void)
{
    const struct row rows[] = {
        {transition(GQ_EVENT_KIND_WORKLOAD, GQ_EVENT_WHAT_RESERVED, "train", "nvidia.com/gpu=a100",
                    90500),
         GQ_EVENT_STYLE_ELAPSED, "+1m30s     job team-a/train reserved (nvidia.com/gpu=a100)"},
        {transition(GQ_EVENT_KIND_WORKLOAD, GQ_EVENT_WHAT_ADMITTED, "train", "cpu=x,nvidia.com/gpu=y",
                    0),
         GQ_EVENT_STYLE_ELAPSED, "+0s        job team-a/train admitted (cpu=x,nvidia.com/gpu=y)"},
        {transition(GQ_EVENT_KIND_WORKLOAD, GQ_EVENT_WHAT_ADMITTED, "train", NULL, 3600000),
         GQ_EVENT_STYLE_ELAPSED, "+1h        job team-a/train admitted"},
        {transition(GQ_EVENT_KIND_WORKLOAD, GQ_EVENT_WHAT_EVICTED, "train", "Preempted: by x",
                    5400000),
         GQ_EVENT_STYLE_ELAPSED, "+1h30m     job team-a/train evicted: Preempted: by x"},
        {transition(GQ_EVENT_KIND_WORKLOAD, GQ_EVENT_WHAT_STARTED, "train", "", 61000),
         GQ_EVENT_STYLE_ELAPSED, "+1m1s      job team-a/train started"},
        {transition(GQ_EVENT_KIND_WORKLOAD, GQ_EVENT_WHAT_FINISHED, "train",
                    "Job finished after 1m", 121999),
         GQ_EVENT_STYLE_ELAPSED, "+2m1s      job team-a/train finished: Job finished after 1m"},
        {transition(GQ_EVENT_KIND_PROVISIONING_REQUEST, GQ_EVENT_WHAT_PROVISIONED, NULL,
                    "capacity is ready", 30000),
         GQ_EVENT_STYLE_ELAPSED,
         "+30s       provisioningrequest team-a/train-1a2b3-gpu-check-1 Provisioned: "
         "capacity is ready"},
        {transition(GQ_EVENT_KIND_PROVISIONING_REQUEST, GQ_EVENT_WHAT_CAPACITY_FOUND, NULL, NULL,
                    123456789),
         GQ_EVENT_STYLE_ELAPSED,
         "+34h17m36s provisioningrequest team-a/train-1a2b3-gpu-check-1 CapacityFound"},
        /* A log line in this style: the text form after the relative time. */
        {log_line(GQ_EVENT_LEVEL_INFO, GQ_EVENT_KIND_JOB, "ns", "j", "queued", "in q"),
         GQ_EVENT_STYLE_ELAPSED, "+0s        info Job ns/j queued: in q"},
    };

    ROWS(rows);
}

/* gpuqd --sim and cluster mode: ISO time, then a transition's or a log line's words. */
static void text_style(void)
{
    const struct row rows[] = {
        {transition(GQ_EVENT_KIND_WORKLOAD, GQ_EVENT_WHAT_RESERVED, "train", "nvidia.com/gpu=a100",
                    90500),
         GQ_EVENT_STYLE_TEXT,
         "2026-11-21T08:01:30Z job team-a/train reserved: nvidia.com/gpu=a100"},
        {transition(GQ_EVENT_KIND_WORKLOAD, GQ_EVENT_WHAT_STARTED, "train", NULL, 0),
         GQ_EVENT_STYLE_TEXT, "2026-11-21T08:00:00Z job team-a/train started"},
        /* An empty message still gets its colon, as gpuqd always printed it. */
        {transition(GQ_EVENT_KIND_WORKLOAD, GQ_EVENT_WHAT_DEACTIVATED, "train", "", 0),
         GQ_EVENT_STYLE_TEXT, "2026-11-21T08:00:00Z job team-a/train deactivated: "},
        {transition(GQ_EVENT_KIND_PROVISIONING_REQUEST, GQ_EVENT_WHAT_FAILED, NULL, "stocked out",
                    1000),
         GQ_EVENT_STYLE_TEXT,
         "2026-11-21T08:00:01Z provisioningrequest team-a/train-1a2b3-gpu-check-1 Failed: "
         "stocked out"},
        {log_line(GQ_EVENT_LEVEL_INFO, GQ_EVENT_KIND_JOB, "team-a", "train", "unsuspended",
                  "admitted"),
         GQ_EVENT_STYLE_TEXT, "2026-11-21T08:00:00Z info Job team-a/train unsuspended: admitted"},
        {log_line(GQ_EVENT_LEVEL_WARNING, GQ_EVENT_KIND_WORKLOAD, "team-a", "train", "evicted",
                  "WriteRefused: quota given back"),
         GQ_EVENT_STYLE_TEXT,
         "2026-11-21T08:00:00Z warning Workload team-a/train evicted: WriteRefused: quota given "
         "back"},
        {log_line(GQ_EVENT_LEVEL_INFO, GQ_EVENT_KIND_PROVISIONING_REQUEST, "team-a", "pr-1",
                  "deleted", NULL),
         GQ_EVENT_STYLE_TEXT, "2026-11-21T08:00:00Z info ProvisioningRequest team-a/pr-1 deleted"},
        {log_line(GQ_EVENT_LEVEL_WARNING, GQ_EVENT_KIND_LEASE, "kube-system", "gpuqd-leader",
                  "renew-failed", "timeout"),
         GQ_EVENT_STYLE_TEXT,
         "2026-11-21T08:00:00Z warning Lease kube-system/gpuqd-leader renew-failed: timeout"},
        /* Name without namespace, namespace without name, neither. */
        {log_line(GQ_EVENT_LEVEL_ERROR, GQ_EVENT_KIND_SYNC, NULL, "queues.yaml", "reload-failed",
                  "bad file"),
         GQ_EVENT_STYLE_TEXT,
         "2026-11-21T08:00:00Z error Sync queues.yaml reload-failed: bad file"},
        {log_line(GQ_EVENT_LEVEL_INFO, GQ_EVENT_KIND_SYNC, "team-a", NULL, "deleted", "x"),
         GQ_EVENT_STYLE_TEXT, "2026-11-21T08:00:00Z info Sync team-a/ deleted: x"},
        {log_line(GQ_EVENT_LEVEL_INFO, GQ_EVENT_KIND_SIM_PROVISIONER, NULL, NULL, "synced",
                  "2 ProvisioningRequests"),
         GQ_EVENT_STYLE_TEXT,
         "2026-11-21T08:00:00Z info SimProvisioner synced: 2 ProvisioningRequests"},
    };

    ROWS(rows);
}

/* JSON lines: NULL members left out, quotes and backslashes escaped, controls as \u00XX. */
static void json_style(void)
{
    const struct row rows[] = {
        {transition(GQ_EVENT_KIND_WORKLOAD, GQ_EVENT_WHAT_FINISHED, "train",
                    "said \"done\"\nthen \\left\t.", 0),
         GQ_EVENT_STYLE_JSON,
         "{\"time\":\"2026-11-21T08:00:00Z\",\"kind\":\"Workload\",\"namespace\":\"team-a\","
         "\"name\":\"job-train-1a2b3\",\"job\":\"train\",\"event\":\"finished\","
         "\"message\":\"said \\\"done\\\"\\u000athen \\\\left\\u0009.\"}"},
        {transition(GQ_EVENT_KIND_PROVISIONING_REQUEST, GQ_EVENT_WHAT_ACCEPTED, NULL, NULL, 0),
         GQ_EVENT_STYLE_JSON,
         "{\"time\":\"2026-11-21T08:00:00Z\",\"kind\":\"ProvisioningRequest\","
         "\"namespace\":\"team-a\",\"name\":\"train-1a2b3-gpu-check-1\",\"event\":\"Accepted\"}"},
        {log_line(GQ_EVENT_LEVEL_WARNING, GQ_EVENT_KIND_JOB, "team-a", "tr\"ain", "invalid",
                  "line one\nline \"two\""),
         GQ_EVENT_STYLE_JSON,
         "{\"time\":\"2026-11-21T08:00:00Z\",\"level\":\"warning\",\"kind\":\"Job\","
         "\"namespace\":\"team-a\",\"name\":\"tr\\\"ain\",\"event\":\"invalid\","
         "\"message\":\"line one\\u000aline \\\"two\\\"\"}"},
        {log_line(GQ_EVENT_LEVEL_INFO, GQ_EVENT_KIND_SYNC, NULL, NULL, "synced", NULL),
         GQ_EVENT_STYLE_JSON,
         "{\"time\":\"2026-11-21T08:00:00Z\",\"level\":\"info\",\"kind\":\"Sync\","
         "\"event\":\"synced\"}"},
        {log_line(GQ_EVENT_LEVEL_ERROR, GQ_EVENT_KIND_LEASE, "ns", "l", "lost", "\x01\x1f\x7f"),
         GQ_EVENT_STYLE_JSON,
         "{\"time\":\"2026-11-21T08:00:00Z\",\"level\":\"error\",\"kind\":\"Lease\","
         "\"namespace\":\"ns\",\"name\":\"l\",\"event\":\"lost\","
         "\"message\":\"\\u0001\\u001f\x7f\"}"},
    };

    ROWS(rows);
}

/* snprintf's contract: the whole length returned, the buffer cut and terminated. */
static void cut(void)
{
    gq_event e = log_line(GQ_EVENT_LEVEL_INFO, GQ_EVENT_KIND_JOB, "team-a", "train", "queued",
                          "in LocalQueue q");
    const char *want = "2026-11-21T08:00:00Z info Job team-a/train queued: in LocalQueue q";
    char buf[16], whole[128];
    size_t n;

    memset(buf, 'x', sizeof(buf));
    n = gq_event_format(buf, sizeof(buf), &e, GQ_EVENT_STYLE_TEXT);
    CHECK(n == strlen(want));
    CHECK(memcmp(buf, want, sizeof(buf) - 1) == 0 && buf[sizeof(buf) - 1] == '\0');
    CHECK(gq_event_format(NULL, 0, &e, GQ_EVENT_STYLE_TEXT) == n);
    CHECK(gq_event_format(whole, n + 1, &e, GQ_EVENT_STYLE_TEXT) == n);
    CHECK_STR(whole, want);
}

/* gq_event_print: a line longer than any buffer is written whole, with its newline. */
static void printed_whole(void)
{
    char message[5000], *got = NULL;
    size_t len = 0;
    gq_event e;
    FILE *f;

    memset(message, 'm', sizeof(message) - 1);
    message[sizeof(message) - 1] = '\0';
    e = log_line(GQ_EVENT_LEVEL_WARNING, GQ_EVENT_KIND_JOB, "team-a", "train", "queued", message);
    f = open_memstream(&got, &len);
    CHECK(f != NULL);
    if (!f)
        return;
    CHECK(gq_event_print(f, &e, GQ_EVENT_STYLE_TEXT) == 0);
    fclose(f);
    CHECK(len == gq_event_format(NULL, 0, &e, GQ_EVENT_STYLE_TEXT) + 1);
    CHECK(got && len > 1 && got[len - 1] == '\n' && strstr(got, message) != NULL);
    free(got);
}

/* ---------------------------------------------------- a real run's events */

struct seen {
    size_t n, admitted, started, finished;
    int bad;
};

/* Every transition's words are its enums', it has no level, and it prints as gpuq run prints. */
static int on_event(const gq_run_event *e, void *payload)
{
    struct seen *s = payload;
    const char *what = gq__event_what_word(e->what_id);
    char line[512], want[512];

    s->n++;
    if (e->level != NULL || e->level_id != GQ_EVENT_LEVEL_NONE || !what ||
        strcmp(what, e->what) != 0 || strcmp(gq__event_kind_word(e->kind_id), e->kind) != 0 ||
        (e->kind_id == GQ_EVENT_KIND_WORKLOAD) != (e->job_name != NULL)) {
        fprintf(stderr, "event %zu: %s %s, kind %d what %d level %d\n", s->n, e->kind, e->what,
                (int)e->kind_id, (int)e->what_id, (int)e->level_id);
        s->bad++;
    }
    s->admitted += e->what_id == GQ_EVENT_WHAT_ADMITTED;
    s->started += e->what_id == GQ_EVENT_WHAT_STARTED;
    s->finished += e->what_id == GQ_EVENT_WHAT_FINISHED;
    gq_event_format(line, sizeof(line), e, GQ_EVENT_STYLE_TEXT);
    snprintf(want, sizeof(want), " job default/%s %s", e->job_name, e->what);
    if (e->job_name && !strstr(line, want)) {
        fprintf(stderr, "event %zu printed as %s\n", s->n, line);
        s->bad++;
    }
    return 0;
}

static void real_run(void)
{
    char dir[] = "/tmp/gq-test-event-XXXXXX", path[64];
    gq_run_options o = GQ_RUN_OPTIONS_INIT;
    gq_job_spec job = GQ_JOB_SPEC_INIT;
    gq_error err = {0, ""};
    struct seen s = {0, 0, 0, 0, 0};
    gq_run_stats st;
    gq_db *db = NULL;

    if (!mkdtemp(dir)) {
        CHECK(!"mkdtemp");
        return;
    }
    snprintf(path, sizeof(path), "%s/gpuq.db", dir);
    CHECKF(gq_db_open(&db, path, NULL, &err) == GQ_OK, "%s", err.msg);
    if (!db)
        goto out;
    CHECKF(queue_fixture_apply(db, "default-flavor", 1, &err) == GQ_OK, "%s", err.msg);
    job.queue = "q";
    job.gpus = "1";
    job.duration = "1m";
    job.name = "first";
    CHECKF(gq_job_submit(db, &job, NULL, NULL, &err) == GQ_OK, "%s", err.msg);
    job.name = "second"; /* waits for the first's GPU */
    CHECKF(gq_job_submit(db, &job, NULL, NULL, &err) == GQ_OK, "%s", err.msg);
    o.until_idle = true;
    o.for_ms = 24 * 3600 * 1000; /* a bound in virtual time, never reached */
    CHECKF(gq_run(db, &o, on_event, &s, &st, &err) == GQ_OK, "%s", err.msg);
    CHECK(s.bad == 0);
    CHECKF(s.admitted == 2 && s.started == 2 && s.finished == 2,
           "admitted %zu started %zu finished %zu", s.admitted, s.started, s.finished);
    CHECK(st.finished == 2);
    gq_db_close(db);
out:
    {
        static const char *const suffixes[] = {"", "-wal", "-shm", "-journal"};
        char name[96];
        size_t i;

        for (i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
            snprintf(name, sizeof(name), "%s%s", path, suffixes[i]);
            unlink(name);
        }
        rmdir(dir);
    }
}

int main(void)
{
    TEST_RUN(same_type);
    TEST_RUN(words);
    TEST_RUN(elapsed_style);
    TEST_RUN(text_style);
    TEST_RUN(json_style);
    TEST_RUN(cut);
    TEST_RUN(printed_whole);
    TEST_RUN(real_run);
    return TEST_DONE();
}
