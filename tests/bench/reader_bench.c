/*
 * reader_bench.c: times the manifest reader on `gpuq submit -f`'s worst case,
 * 100,000 Jobs of 26 lines each (55 MB of YAML, 7.2 million libyaml events),
 * against libyaml alone parsing the same text. The text is made in memory
 * before the clock starts, or read from a file given as the argument; the
 * callback only looks up "kind", so the numbers are the reader's own. The
 * budget for the whole command is 2 s. Reports the first run and the best of
 * several, in milliseconds.
 *
 * Not wired into CMake (tests/bench has no CMakeLists.txt yet); build with
 *   cc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -Ilib -Ilib/include \
 *      -I/usr/include/json-c -o reader_bench tests/bench/reader_bench.c \
 *      lib/manifest/manifest_reader.c lib/core/error.c -ljson-c -lyaml
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <yaml.h>

#include "manifest_reader.h"

#define JOBS 100000
#define RUNS 3

static const char job[] = "---\n"
                          "apiVersion: batch/v1\n"
                          "kind: Job\n"
                          "metadata:\n"
                          "  name: train-%06d\n"
                          "  namespace: ml-team\n"
                          "  labels:\n"
                          "    app: trainer\n"
                          "spec:\n"
                          "  parallelism: 1\n"
                          "  completions: 1\n"
                          "  suspend: true\n"
                          "  template:\n"
                          "    spec:\n"
                          "      containers:\n"
                          "      - name: trainer\n"
                          "        image: registry.example.com/ml/trainer:v1.2.3\n"
                          "        args: [\"--epochs\", \"10\", \"--lr\", \"0.001\", \"--shard\", "
                          "\"%d\"]\n"
                          "        resources:\n"
                          "          requests:\n"
                          "            cpu: \"100m\"\n"
                          "            memory: \"100Mi\"\n"
                          "            nvidia.com/gpu: 1\n"
                          "          limits:\n"
                          "            cpu: 1.0\n"
                          "            nvidia.com/gpu: 1\n";

static double now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static char *make_text(size_t *len)
{
    size_t cap = JOBS * (sizeof(job) + 16), n = 0;
    char *text = malloc(cap);
    int i;

    if (!text)
        abort();
    for (i = 0; i < JOBS; i++)
        n += (size_t)snprintf(text + n, cap - n, job, i, i);
    *len = n;
    return text;
}

static char *read_text(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *text;
    long n;

    if (!f || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0)
        abort();
    text = malloc((size_t)n + 1);
    if (!text || fread(text, 1, (size_t)n, f) != (size_t)n)
        abort();
    fclose(f);
    *len = (size_t)n;
    return text;
}

static int count_kind(const struct gq__doc *doc, void *payload, gq_error *err)
{
    (void)err;
    if (json_object_object_get_ex(doc->root, "kind", NULL))
        (*(long *)payload)++;
    return 0;
}

/* libyaml alone: every event parsed and freed, nothing built. */
static long libyaml_only(const char *text, size_t len)
{
    yaml_parser_t parser;
    yaml_event_t ev;
    long events = 0;
    int done = 0;

    if (!yaml_parser_initialize(&parser))
        abort();
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    while (!done) {
        if (!yaml_parser_parse(&parser, &ev))
            abort();
        done = ev.type == YAML_STREAM_END_EVENT;
        yaml_event_delete(&ev);
        events++;
    }
    yaml_parser_delete(&parser);
    return events;
}

int main(int argc, char **argv)
{
    double t, first[2] = {0}, best[2] = {1e9, 1e9};
    gq_error err = {0};
    long docs = 0, events = 0;
    size_t len;
    char *text = argc > 1 ? read_text(argv[1], &len) : make_text(&len);
    int run;

    for (run = 0; run < RUNS; run++) {
        t = now_ms();
        events = libyaml_only(text, len);
        t = now_ms() - t;
        first[0] = run ? first[0] : t;
        best[0] = t < best[0] ? t : best[0];

        docs = 0;
        t = now_ms();
        if (gq__manifest_read(text, len, "bench.yaml", count_kind, &docs, &err) != GQ_OK) {
            fprintf(stderr, "%s\n", err.msg);
            return 1;
        }
        t = now_ms() - t;
        first[1] = run ? first[1] : t;
        best[1] = t < best[1] ? t : best[1];
    }
    printf("%.1f MB, %ld events, %ld documents\n", (double)len / 1e6, events, docs);
    printf("libyaml alone:     first %6.0f ms  best %6.0f ms\n", first[0], best[0]);
    printf("gq__manifest_read: first %6.0f ms  best %6.0f ms\n", first[1], best[1]);
    free(text);
    return 0;
}
