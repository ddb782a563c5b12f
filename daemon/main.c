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
 */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gpuqueue.h>

static volatile sig_atomic_t stop_requested;

static void on_stop(int sig)
{
    (void)sig;
    stop_requested = 1;
}

static void usage(FILE *out)
{
    fputs("Usage: gpuqd [--db PATH] --check\n"
          "       gpuqd [--db PATH] --sim [--speed X|max] [--seed N] [--for DURATION] "
          "[--log text|json]\n\n"
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
          "  --version        print the version\n",
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

static void iso_time(char buf[32], int64_t ms)
{
    time_t t = (time_t)(ms / 1000);
    struct tm tm;

    if (!gmtime_r(&t, &tm) || !strftime(buf, 32, "%Y-%m-%dT%H:%M:%SZ", &tm))
        snprintf(buf, 32, "%lld", (long long)ms);
}

/* A JSON string: quotes, backslashes and control characters escaped. */
static void json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;

        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c < 0x20)
            fprintf(out, "\\u%04x", c);
        else
            fputc(c, out);
    }
    fputc('"', out);
}

static int log_event(const gq_run_event *e, void *payload)
{
    const bool *json = payload;
    char at[32];

    iso_time(at, e->at_ms);
    if (*json) {
        printf("{\"time\":\"%s\",\"kind\":", at);
        json_string(stdout, e->kind);
        printf(",\"namespace\":");
        json_string(stdout, e->namespace);
        printf(",\"name\":");
        json_string(stdout, e->name);
        if (e->job_name) {
            printf(",\"job\":");
            json_string(stdout, e->job_name);
        }
        printf(",\"event\":");
        json_string(stdout, e->what);
        if (e->message) {
            printf(",\"message\":");
            json_string(stdout, e->message);
        }
        printf("}\n");
    } else {
        printf("%s %s %s/%s %s%s%s\n", at, e->job_name ? "job" : "provisioningrequest",
               e->namespace, e->job_name ? e->job_name : e->name, e->what,
               e->message ? ": " : "", e->message ? e->message : "");
    }
    fflush(stdout);
    return 0;
}

static int sim(const char *path, gq_run_options *o, bool json)
{
    gq_error err = {0, ""};
    gq_run_stats st;
    struct sigaction sa;
    gq_db *db = NULL;
    int rc;

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_stop;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sa.sa_handler = SIG_IGN;
    sigaction(SIGHUP, &sa, NULL); /* no configuration to reload in this mode */
    sigaction(SIGPIPE, &sa, NULL);
    o->stop = &stop_requested;
    if ((rc = open_db(path, &db, &err)) == GQ_OK)
        rc = gq_run(db, o, log_event, &json, &st, &err);
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

int main(int argc, char **argv)
{
    gq_run_options o = GQ_RUN_OPTIONS_INIT;
    gq_error err = {0, ""};
    const char *path = NULL, *v, *log = "text";
    char *end;
    int i, mode = 0; /* 1 check, 2 sim */

    o.speed = 1.0;
    for (i = 1; i < argc; i++) {
        if ((v = value(argc, argv, &i, "--db"))) {
            path = v;
        } else if (strcmp(argv[i], "--check") == 0) {
            mode = 1;
        } else if (strcmp(argv[i], "--sim") == 0) {
            mode = 2;
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
    if (mode == 1)
        return check(path);
    if (mode == 2)
        return sim(path, &o, strcmp(log, "json") == 0);
    usage(stderr);
    return 2;
}
