/*
 * log.c: gpuqd's one-line-per-event logs, text or JSON, and their pieces.
 */
#include <stdio.h>
#include <time.h>

#include "daemon.h"

void gqd_iso_time(char buf[32], int64_t ms)
{
    time_t t = (time_t)(ms / 1000);
    struct tm tm;

    if (!gmtime_r(&t, &tm) || !strftime(buf, 32, "%Y-%m-%dT%H:%M:%SZ", &tm))
        snprintf(buf, 32, "%lld", (long long)ms);
}

void gqd_json_string(FILE *out, const char *s)
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

void gqd_json_field(FILE *out, const char *key, const char *value)
{
    if (!value)
        return;
    fprintf(out, ",\"%s\":", key);
    gqd_json_string(out, value);
}

void gqd_cluster_log(const gq_cluster_event *e, void *payload)
{
    const bool *json = payload;
    char at[32];

    gqd_iso_time(at, e->at_ms);
    if (*json) {
        printf("{\"time\":\"%s\",\"level\":\"%s\"", at, e->level);
        gqd_json_field(stdout, "kind", e->kind);
        gqd_json_field(stdout, "namespace", e->namespace);
        gqd_json_field(stdout, "name", e->name);
        gqd_json_field(stdout, "event", e->what);
        gqd_json_field(stdout, "message", e->message);
        printf("}\n");
    } else {
        printf("%s %s %s", at, e->level, e->kind);
        if (e->namespace || e->name)
            printf(" %s%s%s", e->namespace ? e->namespace : "", e->namespace ? "/" : "",
                   e->name ? e->name : "");
        printf(" %s%s%s\n", e->what, e->message ? ": " : "", e->message ? e->message : "");
    }
    fflush(stdout);
}
