/*
 * cmd_report.c: `gpuq report`, the figures and pictures of issue 12 from
 * the database's records: waits, GPU cost, provisioning, over a window.
 * Every flag is checked before the database is opened; --html writes a
 * temporary file beside the target and renames it, so a failed report
 * never leaves half a page.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "term.h"

struct report_flags {
    const char *since, *until, *under, *bins, *output, *table, *html;
};

/* "2s,5s,60s" into ms, ascending; prints the error and returns EXIT_USAGE when bad. */
static int parse_under(const char *text, int64_t *v, size_t *n)
{
    char buf[256], *tok, *save = NULL;
    gq_error err = {0, ""};

    *n = 0;
    if (strlen(text) >= sizeof(buf) || !*text)
        return cli_usage_error("invalid --under \"%.64s\": want durations such as 2s,5s,60s",
                               text);
    strcpy(buf, text);
    for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (*n == GQ_REPORT_MAX_UNDER)
            return cli_usage_error("--under: at most %d thresholds, got \"%s\"",
                                   GQ_REPORT_MAX_UNDER, text);
        if (gq_duration_parse(tok, &v[*n], &err) != GQ_OK)
            return cli_usage_error("--under: %s", err.msg);
        if (*n > 0 && v[*n] <= v[*n - 1])
            return cli_usage_error("--under: \"%s\" is not above the threshold before it", tok);
        (*n)++;
    }
    return *n ? EXIT_SUCCESS
              : cli_usage_error("invalid --under \"%s\": want durations such as 2s,5s,60s", text);
}

/* Everything about the flags that needs no database. */
static int check_flags(const struct report_flags *f, gq_report_options *o, int64_t *under)
{
    gq_error err = {0, ""};
    int64_t t;
    int rc;

    if (f->output && strcmp(f->output, "json") == 0)
        o->format = GQ_REPORT_JSON;
    else if (f->output && strcmp(f->output, "csv") == 0)
        o->format = GQ_REPORT_CSV;
    else if (f->output && strcmp(f->output, "tsv") == 0)
        o->format = GQ_REPORT_TSV;
    else if (f->output && strcmp(f->output, "table") != 0)
        return cli_usage_error("invalid -o \"%s\": want json, csv, tsv or table", f->output);
    if (f->table && !gq_report_table_is_valid(f->table))
        return cli_usage_error("unknown --table \"%s\": want waits, queues, pools, flavors, "
                               "series, histogram or provisioning", f->table);
    if (f->table && o->format != GQ_REPORT_CSV && o->format != GQ_REPORT_TSV)
        return cli_usage_error("--table \"%s\" needs -o csv or -o tsv", f->table);
    if (f->html && o->format != GQ_REPORT_TEXT)
        return cli_usage_error("--html writes the page; it does not go with -o %s", f->output);
    if (f->under && (rc = parse_under(f->under, under, &o->nunder)) != EXIT_SUCCESS)
        return rc;
    o->under_ms = f->under ? under : NULL;
    if (f->bins && gq_duration_parse(f->bins, &o->bin_ms, &err) != GQ_OK)
        return cli_usage_error("--bins: %s", err.msg);
    if (f->bins && (o->bin_ms < 1000 || o->bin_ms > 600000))
        return cli_usage_error("invalid --bins \"%s\": want a width from 1s to 10m", f->bins);
    if (f->since && gq_report_time_parse(f->since, 0, &t, &err) != GQ_OK)
        return cli_usage_error("--since: %s", err.msg);
    if (f->until && gq_report_time_parse(f->until, 0, &t, &err) != GQ_OK)
        return cli_usage_error("--until: %s", err.msg);
    o->table = f->table;
    return EXIT_SUCCESS;
}

/* Write text to path through a temporary file in the same directory. */
static int write_html(const char *path, const char *text)
{
    size_t n = strlen(path) + 16, len = strlen(text);
    char *tmp = malloc(n);
    FILE *f;
    int ok;

    if (!tmp) {
        fputs("error: out of memory\n", stderr);
        return EXIT_FAILURE;
    }
    snprintf(tmp, n, "%s.tmp%ld", path, (long)getpid());
    ok = (f = fopen(tmp, "w")) != NULL;
    ok = ok && fwrite(text, 1, len, f) == len;
    ok = (f && fclose(f) == 0) && ok;
    ok = ok && rename(tmp, path) == 0;
    if (!ok) {
        fprintf(stderr, "error: writing \"%s\": ", path);
        perror(NULL);
        remove(tmp);
    }
    free(tmp);
    return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}

/* The window: --since/--until against the database's clock. */
static int resolve_window(gq_db *db, const struct report_flags *f, gq_report_options *o)
{
    gq_error err = {0, ""};
    int64_t now = gq_db_now_ms(db);

    if (f->since && gq_report_time_parse(f->since, now, &o->since_ms, &err) != GQ_OK)
        return cli_usage_error("--since: %s", err.msg);
    if (f->until && gq_report_time_parse(f->until, now, &o->until_ms, &err) != GQ_OK)
        return cli_usage_error("--until: %s", err.msg);
    if (f->since && f->until && o->until_ms <= o->since_ms)
        return cli_usage_error("--until \"%s\" is not after --since \"%s\"", f->until, f->since);
    return EXIT_SUCCESS;
}

static int run_report(const struct global *g, const struct report_flags *f, gq_report_options *o)
{
    gq_error err = {0, ""};
    char *text = NULL;
    gq_db *db;
    int rc;

    if (!(db = cli_open(g)))
        return EXIT_FAILURE;
    if ((rc = resolve_window(db, f, o)) == EXIT_SUCCESS) {
        if (f->html)
            o->format = GQ_REPORT_HTML;
        if (gq_report(&text, db, o, &err) != GQ_OK)
            rc = cli_fail(&err);
        else if (f->html)
            rc = write_html(f->html, text);
        else
            fputs(text, stdout);
    }
    gq_free(text);
    gq_db_close(db);
    return rc;
}

int cmd_report(struct global *g, int argc, char **argv)
{
    const struct command *self = cli_command("report");
    struct report_flags f = {NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    const struct flag flags[] = {
        {"since", 0, FLAG_STRING, &f.since, "T",
         "window start: RFC 3339, or a duration back from now (default: the first record)"},
        {"until", 0, FLAG_STRING, &f.until, "T",
         "window end: RFC 3339, now, or a duration back from now (default: the last record)"},
        {"under", 0, FLAG_STRING, &f.under, "LIST",
         "share of waits at most these durations (default 2s,5s,60s)"},
        {"bins", 0, FLAG_STRING, &f.bins, "D", "fixed histogram bins over 0-10m (default 30s)"},
        {"output", 'o', FLAG_STRING, &f.output, "FORMAT",
         "table (the page, default), json, csv or tsv"},
        {"table", 0, FLAG_STRING, &f.table, "NAME",
         "for csv/tsv: waits (default), queues, pools, flavors, series, histogram, "
         "provisioning"},
        {"html", 0, FLAG_STRING, &f.html, "FILE", "write one self-contained HTML page"},
        {NULL, 0, FLAG_BOOL, NULL, NULL, NULL}};
    gq_report_options o = GQ_REPORT_OPTIONS_INIT;
    int64_t under[GQ_REPORT_MAX_UNDER];
    int nargs, rc;

    if ((rc = cli_parse(g, self, flags, argc, argv, &nargs)) != EXIT_SUCCESS)
        return rc;
    if (g->help) {
        cli_help(self, flags);
        return EXIT_SUCCESS;
    }
    if (nargs)
        return cli_usage_error("report takes no arguments, got \"%s\"", argv[0]);
    if ((rc = check_flags(&f, &o, under)) != EXIT_SUCCESS)
        return rc;
    o.unicode = term_utf8();
    return run_report(g, &f, &o);
}
