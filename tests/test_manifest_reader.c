/*
 * test_manifest_reader.c: YAML and JSON text to json-c documents: scalar
 * typing, streams, List expansion, every input limit (aliases, depth, size,
 * duplicate keys, tags) and reading files, directories and standard input.
 */
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "manifest_reader.h"
#include "test.h"

#define MAX_DOCS 16

/* What the callback saw. */
struct seen {
    int n;                       /* callbacks made */
    json_object *root[MAX_DOCS]; /* owned references to each document */
    int index[MAX_DOCS];
    int item[MAX_DOCS];
    int line[MAX_DOCS];
    char source[MAX_DOCS][256];
    int fail_at; /* return GQ_ECONFLICT from this callback (1-based); 0 never */
};

static int collect(const struct gq__doc *d, void *payload, gq_error *err)
{
    struct seen *s = payload;

    if (++s->n == s->fail_at) {
        snprintf(err->msg, sizeof(err->msg), "callback says no");
        err->code = GQ_ECONFLICT;
        return GQ_ECONFLICT;
    }
    if (s->n > MAX_DOCS)
        return GQ_ERROR;
    s->root[s->n - 1] = json_object_get(d->root);
    s->index[s->n - 1] = d->index;
    s->item[s->n - 1] = d->item;
    s->line[s->n - 1] = d->line;
    snprintf(s->source[s->n - 1], sizeof(s->source[0]), "%s", d->source);
    return 0;
}

static void seen_free(struct seen *s)
{
    int i;

    for (i = 0; i < s->n && i < MAX_DOCS; i++)
        json_object_put(s->root[i]);
    memset(s, 0, sizeof(*s));
}

static int read_text(const char *text, struct seen *s, gq_error *err)
{
    return gq__manifest_read(text, strlen(text), "t.yaml", collect, s, err);
}

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The value of key k in document i, which must exist. */
static json_object *get(struct seen *s, int i, const char *k)
{
    json_object *v = NULL;

    CHECKF(i < s->n && json_object_object_get_ex(s->root[i], k, &v), "key %s in doc %d", k, i);
    return v;
}

/* ------------------------------------------------------------------------ */

static const struct {
    const char *yaml; /* the value after "v: " */
    json_type type;
    const char *text; /* string value, or a double's kept text */
    int64_t i;        /* int and bool value */
    double d;         /* double value */
} scalars[] = {
    {"y", json_type_boolean, NULL, 1, 0},
    {"Y", json_type_boolean, NULL, 1, 0},
    {"yes", json_type_boolean, NULL, 1, 0},
    {"Yes", json_type_boolean, NULL, 1, 0},
    {"YES", json_type_boolean, NULL, 1, 0},
    {"true", json_type_boolean, NULL, 1, 0},
    {"True", json_type_boolean, NULL, 1, 0},
    {"TRUE", json_type_boolean, NULL, 1, 0},
    {"on", json_type_boolean, NULL, 1, 0},
    {"On", json_type_boolean, NULL, 1, 0},
    {"ON", json_type_boolean, NULL, 1, 0},
    {"n", json_type_boolean, NULL, 0, 0},
    {"N", json_type_boolean, NULL, 0, 0},
    {"no", json_type_boolean, NULL, 0, 0},
    {"No", json_type_boolean, NULL, 0, 0},
    {"NO", json_type_boolean, NULL, 0, 0},
    {"false", json_type_boolean, NULL, 0, 0},
    {"False", json_type_boolean, NULL, 0, 0},
    {"FALSE", json_type_boolean, NULL, 0, 0},
    {"off", json_type_boolean, NULL, 0, 0},
    {"Off", json_type_boolean, NULL, 0, 0},
    {"OFF", json_type_boolean, NULL, 0, 0},
    {"yEs", json_type_string, "yEs", 0, 0},
    {"tRUE", json_type_string, "tRUE", 0, 0},
    {"oN", json_type_string, "oN", 0, 0},
    {"", json_type_null, NULL, 0, 0},
    {"~", json_type_null, NULL, 0, 0},
    {"null", json_type_null, NULL, 0, 0},
    {"Null", json_type_null, NULL, 0, 0},
    {"NULL", json_type_null, NULL, 0, 0},
    {"nULL", json_type_string, "nULL", 0, 0},
    {"0", json_type_int, NULL, 0, 0},
    {"-0", json_type_int, NULL, 0, 0},
    {"+5", json_type_int, NULL, 5, 0},
    {"42", json_type_int, NULL, 42, 0},
    {"-17", json_type_int, NULL, -17, 0},
    {"1_000", json_type_int, NULL, 1000, 0},
    {"1_", json_type_int, NULL, 1, 0},
    {"0755", json_type_int, NULL, 493, 0},
    {"-010", json_type_int, NULL, -8, 0},
    {"00", json_type_int, NULL, 0, 0},
    {"0o17", json_type_int, NULL, 15, 0},
    {"0x1F", json_type_int, NULL, 31, 0},
    {"0X1f", json_type_int, NULL, 31, 0},
    {"-0x10", json_type_int, NULL, -16, 0},
    {"0x_ff", json_type_int, NULL, 255, 0},
    {"0b101", json_type_int, NULL, 5, 0},
    {"-0b11", json_type_int, NULL, -3, 0},
    {"9223372036854775807", json_type_int, NULL, INT64_MAX, 0},
    {"-9223372036854775808", json_type_int, NULL, INT64_MIN, 0},
    {"9223372036854775808", json_type_double, "9223372036854775808", 0, 9223372036854775808.0},
    {"99999999999999999999", json_type_double, "99999999999999999999", 0, 1e20},
    {"-99999999999999999999", json_type_double, "-99999999999999999999", 0, -1e20},
    {"0x1000000000000000000", json_type_double, "0x1000000000000000000", 0,
     4722366482869645213696.0},
    {"08", json_type_double, "08", 0, 8},
    {"0x", json_type_string, "0x", 0, 0},
    {"0o", json_type_string, "0o", 0, 0},
    {"0xG1", json_type_string, "0xG1", 0, 0},
    {"0b102", json_type_string, "0b102", 0, 0},
    {"_", json_type_string, "_", 0, 0},
    {"-x", json_type_string, "-x", 0, 0},
    {"+", json_type_string, "+", 0, 0},
    {"1.0", json_type_double, "1.0", 0, 1.0},
    {"0.5", json_type_double, "0.5", 0, 0.5},
    {".5", json_type_double, ".5", 0, 0.5},
    {"-.5", json_type_double, "-.5", 0, -0.5},
    {"1.", json_type_double, "1.", 0, 1.0},
    {"-1.5e3", json_type_double, "-1.5e3", 0, -1500},
    {"1e5", json_type_double, "1e5", 0, 1e5},
    {"1E+2", json_type_double, "1E+2", 0, 100},
    {"2.5e-1", json_type_double, "2.5e-1", 0, 0.25},
    {"1_000.5", json_type_double, "1_000.5", 0, 1000.5},
    {"1e400", json_type_double, "1e400", 0, INFINITY},
    {".inf", json_type_double, ".inf", 0, INFINITY},
    {".Inf", json_type_double, ".Inf", 0, INFINITY},
    {"+.INF", json_type_double, "+.INF", 0, INFINITY},
    {"-.inf", json_type_double, "-.inf", 0, -INFINITY},
    {".nan", json_type_double, ".nan", 0, NAN},
    {".NaN", json_type_double, ".NaN", 0, NAN},
    {".NAN", json_type_double, ".NAN", 0, NAN},
    {".nAn", json_type_string, ".nAn", 0, 0},
    {"inf", json_type_string, "inf", 0, 0},
    {"1.2.3", json_type_string, "1.2.3", 0, 0},
    {"1e", json_type_string, "1e", 0, 0},
    {"e5", json_type_string, "e5", 0, 0},
    {".", json_type_string, ".", 0, 0},
    {"1:30", json_type_string, "1:30", 0, 0},
    {"2001-12-14", json_type_string, "2001-12-14", 0, 0},
    {"100Mi", json_type_string, "100Mi", 0, 0},
    {"batch/v1", json_type_string, "batch/v1", 0, 0},
    {"nvidia.com/gpu", json_type_string, "nvidia.com/gpu", 0, 0},
    {"'yes'", json_type_string, "yes", 0, 0},
    {"\"on\"", json_type_string, "on", 0, 0},
    {"\"123\"", json_type_string, "123", 0, 0},
    {"'1.0'", json_type_string, "1.0", 0, 0},
    {"'~'", json_type_string, "~", 0, 0},
    {"\"\"", json_type_string, "", 0, 0},
    {"|\n  yes\n", json_type_string, "yes\n", 0, 0},
    {">-\n  0755\n", json_type_string, "0755", 0, 0},
    {"!!str 123", json_type_string, "123", 0, 0},
    {"! 123", json_type_string, "123", 0, 0},
    {"!!int \"12\"", json_type_int, NULL, 12, 0},
    {"!!float 1", json_type_double, "1", 0, 1},
    {"!!float '2.5'", json_type_double, "2.5", 0, 2.5},
    {"!!bool yes", json_type_boolean, NULL, 1, 0},
    {"!!null ~", json_type_null, NULL, 0, 0},
    {"!<tag:yaml.org,2002:str> 7", json_type_string, "7", 0, 0},
};

static void check_scalar_row(size_t row, json_object *v)
{
    const char *yaml = scalars[row].yaml;
    double d;

    CHECKF(json_object_get_type(v) == scalars[row].type, "row %zu (%s): type %s", row, yaml,
           json_type_to_name(json_object_get_type(v)));
    switch (scalars[row].type) {
    case json_type_boolean:
    case json_type_int:
        CHECKF(json_object_get_int64(v) == scalars[row].i, "row %zu (%s): %lld", row, yaml,
               (long long)json_object_get_int64(v));
        break;
    case json_type_double:
        d = json_object_get_double(v);
        CHECKF(isnan(scalars[row].d) ? isnan(d) : d == scalars[row].d, "row %zu (%s): %g", row,
               yaml, d);
        /* json_object_new_double_s keeps the text: what get_string and serialising return. */
        CHECKF(strcmp(json_object_get_string(v), scalars[row].text) == 0, "row %zu (%s): text %s",
               row, yaml, json_object_get_string(v));
        break;
    case json_type_string:
        CHECKF(strcmp(json_object_get_string(v), scalars[row].text) == 0, "row %zu (%s): \"%s\"",
               row, yaml, json_object_get_string(v));
        break;
    default:
        break;
    }
}

static void test_scalar_typing(void)
{
    struct seen s = {0};
    gq_error err = {0};
    char text[128];
    json_object *v;
    size_t row;
    int rc;

    for (row = 0; row < sizeof(scalars) / sizeof(scalars[0]); row++) {
        snprintf(text, sizeof(text), "v: %s\n", scalars[row].yaml);
        rc = read_text(text, &s, &err);
        CHECKF(rc == GQ_OK && s.n == 1, "row %zu (%s): rc %d: %s", row, scalars[row].yaml, rc,
               err.msg);
        if (rc == GQ_OK && s.n == 1) {
            v = NULL;
            CHECKF(json_object_object_get_ex(s.root[0], "v", &v), "row %zu", row);
            check_scalar_row(row, v);
        }
        seen_free(&s);
    }
}

static void test_quantity_text_and_exact_strings(void)
{
    static const char text[] = "cpu: 1.0\nmem: 0.50\nnul: \"a\\0b\"\nkeys:\n  1: x\n  true: t\n"
                               "  0x10: z\n  ~: w\n  '': e\n";
    struct seen s = {0};
    gq_error err = {0};
    json_object *keys, *v;

    CHECK(read_text(text, &s, &err) == GQ_OK);
    CHECK(s.n == 1);
    if (s.n != 1)
        return;
    CHECK_STR(json_object_get_string(get(&s, 0, "cpu")), "1.0");
    CHECK(json_object_get_double(get(&s, 0, "cpu")) == 1.0);
    CHECK_STR(json_object_to_json_string_ext(get(&s, 0, "mem"), JSON_C_TO_STRING_PLAIN), "0.50");
    /* A NUL inside a string survives: strings are made with their exact length. */
    CHECK(json_object_get_string_len(get(&s, 0, "nul")) == 3);
    CHECK(memcmp(json_object_get_string(get(&s, 0, "nul")), "a\0b", 4) == 0);
    /* Non-string keys keep their text. */
    keys = get(&s, 0, "keys");
    CHECK(json_object_object_length(keys) == 5);
    CHECK(json_object_object_get_ex(keys, "1", &v) && strcmp(json_object_get_string(v), "x") == 0);
    CHECK(json_object_object_get_ex(keys, "true", &v) &&
          strcmp(json_object_get_string(v), "t") == 0);
    CHECK(json_object_object_get_ex(keys, "0x10", &v) &&
          strcmp(json_object_get_string(v), "z") == 0);
    CHECK(json_object_object_get_ex(keys, "~", &v) && strcmp(json_object_get_string(v), "w") == 0);
    CHECK(json_object_object_get_ex(keys, "", &v) && strcmp(json_object_get_string(v), "e") == 0);
    seen_free(&s);
}

static void test_multi_document(void)
{
    /* Documents 1 and 3 are empty, 5 is null: only 2 and 4 reach the callback. */
    static const char text[] = "---\n"
                               "---\n"
                               "a: 1\n"
                               "---\n"
                               "\n"
                               "---\n"
                               "b: 2\n"
                               "...\n"
                               "---\n"
                               "~\n"
                               "# end\n";
    struct seen s = {0};
    gq_error err = {0};

    CHECK(read_text(text, &s, &err) == GQ_OK);
    CHECKF(s.n == 2, "%d documents", s.n);
    if (s.n != 2)
        return;
    CHECK(s.index[0] == 2 && s.line[0] == 2 && s.item[0] == 0);
    CHECK(s.index[1] == 4 && s.line[1] == 6 && s.item[1] == 0);
    CHECK(json_object_get_int(get(&s, 0, "a")) == 1);
    CHECK(json_object_get_int(get(&s, 1, "b")) == 2);
    CHECK_STR(s.source[0], "t.yaml");
    seen_free(&s);

    /* No documents at all is not an error. */
    CHECK(read_text("", &s, &err) == GQ_OK && s.n == 0);
    CHECK(read_text("# nothing\n", &s, &err) == GQ_OK && s.n == 0);
}

static void test_bom_and_crlf(void)
{
    static const char bom[] = "\xef\xbb\xbf"
                              "kind: Job\n";
    static const char crlf[] = "kind: Job\r\nname: x\r\nlit: |\r\n  l1\r\n  l2\r\n---\r\nb: 2\r\n";
    struct seen s = {0};
    gq_error err = {0};

    CHECK(read_text(bom, &s, &err) == GQ_OK);
    CHECK(s.n == 1);
    if (s.n == 1)
        CHECK_STR(json_object_get_string(get(&s, 0, "kind")), "Job");
    seen_free(&s);

    CHECK(read_text(crlf, &s, &err) == GQ_OK);
    CHECK(s.n == 2);
    if (s.n == 2) {
        CHECK_STR(json_object_get_string(get(&s, 0, "name")), "x");
        CHECK_STR(json_object_get_string(get(&s, 0, "lit")), "l1\nl2\n");
        CHECK(json_object_get_int(get(&s, 1, "b")) == 2);
        CHECK(s.line[1] == 6);
    }
    seen_free(&s);
}

static void test_json(void)
{
    static const char compact[] =
        "{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",\"metadata\":{\"name\":\"a\\u00e9\\/b\"},"
        "\"spec\":{\"parallelism\":2,\"x\":1.50,\"t\":true,\"n\":null,\"e\":1e3,"
        "\"arr\":[1,\"2\",{},[]],\"esc\":\"\\\"\\\\\\b\\f\\n\\r\\t\"}}";
    static const char pretty[] = "\xef\xbb\xbf{\r\n\t\"kind\": \"Job\",\r\n"
                                 "\t\"emoji\": \"\\ud83d\\ude00 x\",\r\n"
                                 "\t\"literal\": \"\\\\ud83d\\\\ude00\",\r\n"
                                 "\t\"lone\": \"it's \\\"q\\\" #\\uD7FF\"\r\n}\r\n";
    struct seen s = {0};
    gq_error err = {0};
    json_object *spec, *arr;

    CHECKF(read_text(compact, &s, &err) == GQ_OK, "%s", err.msg);
    CHECK(s.n == 1);
    if (s.n == 1) {
        CHECK_STR(json_object_get_string(get(&s, 0, "apiVersion")), "batch/v1");
        CHECK_STR(json_object_get_string(json_object_object_get(get(&s, 0, "metadata"), "name")),
                  "a\xc3\xa9/b");
        spec = get(&s, 0, "spec");
        CHECK(json_object_get_type(json_object_object_get(spec, "parallelism")) == json_type_int);
        CHECK(json_object_get_int(json_object_object_get(spec, "parallelism")) == 2);
        CHECK_STR(json_object_get_string(json_object_object_get(spec, "x")), "1.50");
        CHECK(json_object_get_double(json_object_object_get(spec, "e")) == 1000);
        CHECK(json_object_get_boolean(json_object_object_get(spec, "t")));
        CHECK(json_object_object_get_ex(spec, "n", NULL) && !json_object_object_get(spec, "n"));
        arr = json_object_object_get(spec, "arr");
        CHECK(json_object_array_length(arr) == 4);
        CHECK_STR(json_object_get_string(json_object_array_get_idx(arr, 1)), "2");
        CHECK_STR(json_object_get_string(json_object_object_get(spec, "esc")), "\"\\\b\f\n\r\t");
    }
    seen_free(&s);

    /* Surrogate pairs (which libyaml 0.2.5 rejects by itself) decode to one character. */
    CHECKF(read_text(pretty, &s, &err) == GQ_OK, "%s", err.msg);
    CHECK(s.n == 1);
    if (s.n == 1) {
        CHECK_STR(json_object_get_string(get(&s, 0, "emoji")), "\xf0\x9f\x98\x80 x");
        CHECK_STR(json_object_get_string(get(&s, 0, "literal")), "\\ud83d\\ude00");
        CHECK_STR(json_object_get_string(get(&s, 0, "lone")), "it's \"q\" #\xed\x9f\xbf");
    }
    seen_free(&s);
}

static void test_list_expansion(void)
{
    static const char json_list[] = "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":["
                                    "{\"kind\":\"Job\",\"metadata\":{\"name\":\"a\"}},{\"kind\":"
                                    "\"Job\",\"metadata\":{\"name\":\"b\"}}]}";
    static const char stream[] = "kind: Job\nid: 1\n"
                                 "---\n"
                                 "kind: JobList\n"
                                 "items:\n"
                                 "- {kind: Job, id: 2}\n"
                                 "- {kind: Job, id: 3}\n"
                                 "- {kind: Job, id: 4}\n"
                                 "---\n"
                                 "kind: List\nitems: []\n"
                                 "---\n"
                                 "kind: List\n"
                                 "---\n"
                                 "kind: WishList\nid: 5\n"
                                 "---\n"
                                 "kind: Job\nid: 6\n";
    static const int index[] = {1, 2, 2, 2, 5, 6}, item[] = {0, 1, 2, 3, 0, 0};
    static const int line[] = {1, 3, 3, 3, 14, 17};
    struct seen s = {0};
    gq_error err = {0};
    int i;

    CHECKF(read_text(json_list, &s, &err) == GQ_OK, "%s", err.msg);
    CHECK(s.n == 2);
    if (s.n == 2) {
        CHECK(s.index[0] == 1 && s.item[0] == 1 && s.index[1] == 1 && s.item[1] == 2);
        CHECK_STR(json_object_get_string(json_object_object_get(get(&s, 1, "metadata"), "name")),
                  "b");
    }
    seen_free(&s);

    CHECKF(read_text(stream, &s, &err) == GQ_OK, "%s", err.msg);
    CHECKF(s.n == 6, "%d callbacks", s.n);
    for (i = 0; i < s.n && i < 6; i++) {
        CHECKF(s.index[i] == index[i] && s.item[i] == item[i] && s.line[i] == line[i],
               "callback %d: document %d item %d line %d", i, s.index[i], s.item[i], s.line[i]);
        CHECKF(json_object_get_int(get(&s, i, "id")) == i + 1, "callback %d", i);
    }
    seen_free(&s);
}

/* ------------------------------------------------------------------------ */

static const struct {
    const char *yaml;
    const char *want; /* the whole message, or a part of it if it starts with '*' */
} bad[] = {
    {"a: 1\nb: 2\na: 3\n", "t.yaml: document 1 (line 3): duplicate key \"a\""},
    {"x: 1\n---\n{\"a\": {\"x\": 1, \"x\": 2}}\n",
     "t.yaml: document 2 (line 3): duplicate key \"x\""},
    {"a: !!binary aGVsbG8=\n", "t.yaml: document 1 (line 1): unsupported tag \"!!binary\""},
    {"a: !foo x\n", "t.yaml: document 1 (line 1): unsupported tag \"!foo\""},
    {"a: !!python/object:os.system x\n", "*unsupported tag \"!!python/object:os.system\""},
    {"a: !!set {x: 1}\n", "*unsupported tag \"!!set\""},
    {"a: !!map x\n", "*tag \"!!map\" cannot be used on a scalar"},
    {"a: !!str [x]\n", "*tag \"!!str\" cannot be used on a sequence"},
    {"a: !!int abc\n", "*cannot decode \"abc\" as !!int"},
    {"a: !!bool 1\n", "*cannot decode \"1\" as !!bool"},
    {"a: &x 1\n", "t.yaml: document 1 (line 1): YAML anchors and aliases are not allowed"},
    {"a: &a [*a]\n", "*YAML anchors and aliases are not allowed"},
    {"a: 1\nb: *a\n", "t.yaml: document 1 (line 2): YAML anchors and aliases are not allowed"},
    {"- a\n- b\n", "t.yaml: document 1 (line 1): the document must be a mapping, not a sequence"},
    {"hello\n",
     "t.yaml: document 1 (line 1): the document must be a mapping, not the scalar \"hello\""},
    {"x: 1\n--- '~'\n",
     "t.yaml: document 2 (line 2): the document must be a mapping, not the scalar \"~\""},
    {"? [a]\n: 1\n", "*a mapping key must be a scalar, not a sequence"},
    {"{{a: 1}: 1}\n", "*a mapping key must be a scalar, not a mapping"},
    {"<<: {a: 1}\n", "*YAML merge keys (<<) are not allowed"},
    {"\"a\\0b\": 1\n", "*mapping key \"a\\x00b\" contains a NUL character"},
    {"kind: List\nitems: [{a: 1}, 2]\n",
     "t.yaml: document 1 (line 1): item 2 of the List is not a mapping"},
    {"kind: List\nitems: [{kind: List, items: []}]\n", "*item 1 of the List is itself a List"},
    {"kind: List\nitems: x\n", "*the items of a List must be a sequence"},
    {"a: b: c\n", "t.yaml: line 1, column 5: mapping values are not allowed in this context"},
    {"a: \xff\n", "t.yaml: line 1, column 4: invalid leading UTF-8 octet (0xFF)"},
    {"a: \"\\ud83d\\ude00\"\n", "*found invalid Unicode character escape code"},
    {"apiVersion: batch/v1\nkind: Job\nspec:\n  template:\n    spec:\n      containers:\n"
     "      - name: x\n        args: [\"a\", \"b",
     "t.yaml: line 8, column 23: found unexpected end of stream"},
};

static void test_bad_input(void)
{
    struct seen s = {0};
    gq_error err;
    size_t row;
    int rc;

    for (row = 0; row < sizeof(bad) / sizeof(bad[0]); row++) {
        memset(&err, 0, sizeof(err));
        rc = read_text(bad[row].yaml, &s, &err);
        CHECKF(rc == GQ_EINVALID && err.code == GQ_EINVALID, "row %zu: rc %d", row, rc);
        CHECKF(!strchr(err.msg, '\n'), "row %zu: two lines: %s", row, err.msg);
        if (bad[row].want[0] == '*')
            CHECKF(strstr(err.msg, bad[row].want + 1) && strncmp(err.msg, "t.yaml: ", 8) == 0,
                   "row %zu: got \"%s\", want \"%s\"", row, err.msg, bad[row].want + 1);
        else
            CHECKF(strcmp(err.msg, bad[row].want) == 0, "row %zu: got \"%s\", want \"%s\"", row,
                   err.msg, bad[row].want);
        seen_free(&s);
    }
}

static void test_first_error_stops(void)
{
    struct seen s = {0};
    gq_error err = {0};

    /* Documents before the bad one are delivered; nothing after it is read. */
    CHECK(read_text("a: 1\n---\nb: [\n---\nc: 3\n", &s, &err) == GQ_EINVALID);
    CHECK(s.n == 1);
    seen_free(&s);
}

static void test_alias_bomb(void)
{
    static const char bomb[] = "a: &a [\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\"]\n"
                               "b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n"
                               "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n"
                               "d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n"
                               "e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n"
                               "f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n"
                               "g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\n"
                               "h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]\n"
                               "i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]\n";
    struct seen s = {0};
    gq_error err = {0};
    double t = now();

    CHECK(read_text(bomb, &s, &err) == GQ_EINVALID);
    t = now() - t;
    /* A hang detector, not a speed target (speed is measured in tests/bench). */
    CHECKF(t < 120.0, "%.3f s", t);
    CHECK_STR(err.msg, "t.yaml: document 1 (line 1): YAML anchors and aliases are not allowed");
    CHECK(s.n == 0);
}

/* prefix, then unit repeated levels times, then close repeated as often, as a new string. */
static char *nested(const char *prefix, const char *unit, const char *close, size_t levels)
{
    size_t p = strlen(prefix), u = strlen(unit), c = strlen(close), i;
    char *text = malloc(p + levels * (u + c) + 1), *at;

    if (!text)
        abort();
    memcpy(text, prefix, p);
    at = text + p;
    for (i = 0; i < levels; i++, at += u)
        memcpy(at, unit, u);
    for (i = 0; i < levels; i++, at += c)
        memcpy(at, close, c);
    *at = '\0';
    return text;
}

static const struct {
    const char *prefix, *unit, *close;
} deep[] = {
    {"a: ", "[", ""},            /* flow sequences, never closed */
    {"a: ", "[", "]"},           /* closed */
    {"{\"a\":", "[", "]"},       /* JSON */
    {"a: ", "{a: ", "}"},        /* flow mappings */
    {"{\"a\":", "{\"a\":", "}"}, /* JSON objects */
    {"a:\n", "- ", ""},          /* block sequences on one line */
};

static void test_depth(void)
{
    struct seen s = {0};
    gq_error err = {0};
    size_t row;
    char *text;
    double t;

    /* The root mapping is level 1: 63 more levels are allowed, 64 more are not. */
    text = nested("a: ", "[", "]", GQ_MANIFEST_MAX_DEPTH - 1);
    CHECKF(read_text(text, &s, &err) == GQ_OK && s.n == 1, "%s", err.msg);
    seen_free(&s);
    free(text);
    text = nested("a: ", "[", "]", GQ_MANIFEST_MAX_DEPTH);
    CHECK(read_text(text, &s, &err) == GQ_EINVALID);
    CHECK_STR(err.msg, "t.yaml: document 1 (line 1): nesting is deeper than 64 levels");
    free(text);

    /* 100,000 levels fail at level 65, fast, whatever the syntax. */
    for (row = 0; row < sizeof(deep) / sizeof(deep[0]); row++) {
        text = nested(deep[row].prefix, deep[row].unit, deep[row].close, 100000);
        t = now();
        CHECKF(read_text(text, &s, &err) == GQ_EINVALID, "row %zu", row);
        t = now() - t;
        CHECKF(t < 120.0, "row %zu: %.3f s", row, t); /* a hang detector only */
        CHECKF(strstr(err.msg, ": nesting is deeper than 64 levels") != NULL, "row %zu: %s", row,
               err.msg);
        free(text);
    }
    /* A root that is not a mapping fails at once, however deep. */
    text = nested("", "[", "]", 100000);
    CHECK(read_text(text, &s, &err) == GQ_EINVALID);
    CHECK_STR(err.msg,
              "t.yaml: document 1 (line 1): the document must be a mapping, not a sequence");
    free(text);
    CHECK(s.n == 0);
}

static void test_document_size(void)
{
    size_t cap = GQ_MANIFEST_MAX_DOC_BYTES, n = cap + 64;
    struct seen s = {0};
    gq_error err = {0};
    char *text = malloc(n + 1);

    if (!text)
        abort();
    /* "k: xxx...x" exactly at the cap is accepted. */
    memcpy(text, "k: ", 3);
    memset(text + 3, 'x', cap - 3);
    CHECKF(gq__manifest_read(text, cap, "t.yaml", collect, &s, &err) == GQ_OK && s.n == 1, "%s",
           err.msg);
    if (s.n == 1)
        CHECK(json_object_get_string_len(get(&s, 0, "k")) == (int)cap - 3);
    seen_free(&s);
    /* One more byte is not; neither is a second document over the cap after a small one. */
    memset(text + 3, 'x', n - 3);
    CHECK(gq__manifest_read(text, cap + 1, "t.yaml", collect, &s, &err) == GQ_EINVALID);
    CHECK_STR(err.msg, "t.yaml: document 1 (line 1): the document is larger than 4194304 bytes");
    memcpy(text, "a: 1\n---\nk: ", 12);
    CHECK(gq__manifest_read(text, n, "t.yaml", collect, &s, &err) == GQ_EINVALID);
    CHECK_STR(err.msg, "t.yaml: document 2 (line 3): the document is larger than 4194304 bytes");
    CHECK(s.n == 1);
    seen_free(&s);
    free(text);
}

static void test_callback_error(void)
{
    struct seen s = {.fail_at = 2};
    gq_error err = {0};

    CHECK(read_text("a: 1\n---\nb: 2\n---\nc: 3\n", &s, &err) == GQ_ECONFLICT);
    CHECK_STR(err.msg, "callback says no");
    CHECK(err.code == GQ_ECONFLICT);
    CHECK(s.n == 2);
    seen_free(&s);

    /* Inside a List too. */
    s.fail_at = 2;
    CHECK(read_text("kind: List\nitems: [{a: 1}, {a: 2}, {a: 3}]\n", &s, &err) == GQ_ECONFLICT);
    CHECK(s.n == 2);
    seen_free(&s);
}

/* ------------------------------------------------------------------------ */

static void write_file(const char *dir, const char *name, const char *text)
{
    char path[512];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    f = fopen(path, "wb");
    if (!f)
        abort();
    fputs(text, f);
    fclose(f);
}

static void remove_file(const char *dir, const char *name)
{
    char path[512];

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    if (remove(path) != 0)
        perror(path);
}

static void test_read_path(void)
{
    char dir[] = "/tmp/gq_reader_XXXXXX", want[512], sub[512];
    struct seen s = {0};
    gq_error err = {0};

    CHECK(mkdtemp(dir) != NULL);
    CHECK(gq__manifest_read_path(dir, collect, &s, &err) == GQ_EINVALID);
    CHECK(strstr(err.msg, "no *.yaml, *.yml or *.json files") != NULL);
    write_file(dir, "b.yaml", "kind: B\n---\nkind: B2\n");
    write_file(dir, "a.json", "{\"kind\": \"A\"}\n");
    write_file(dir, "c.txt", "kind: C\n");
    write_file(dir, "a.yml.bak", "kind: D\n");
    snprintf(sub, sizeof(sub), "%s/d.yaml", dir);
    CHECK(mkdir(sub, 0700) == 0);

    CHECKF(gq__manifest_read_path(dir, collect, &s, &err) == GQ_OK, "%s", err.msg);
    CHECKF(s.n == 3, "%d documents", s.n);
    if (s.n == 3) {
        snprintf(want, sizeof(want), "%s/a.json", dir);
        CHECK_STR(s.source[0], want);
        CHECK_STR(json_object_get_string(get(&s, 0, "kind")), "A");
        snprintf(want, sizeof(want), "%s/b.yaml", dir);
        CHECK_STR(s.source[1], want);
        CHECK_STR(s.source[2], want);
        CHECK(s.index[1] == 1 && s.index[2] == 2);
        CHECK_STR(json_object_get_string(get(&s, 2, "kind")), "B2");
    }
    seen_free(&s);

    /* A file named directly is read whatever its name. */
    snprintf(want, sizeof(want), "%s/c.txt", dir);
    CHECK(gq__manifest_read_path(want, collect, &s, &err) == GQ_OK && s.n == 1);
    if (s.n == 1)
        CHECK_STR(s.source[0], want);
    seen_free(&s);

    /* "-" is standard input. */
    snprintf(want, sizeof(want), "%s/b.yaml", dir);
    CHECK(freopen(want, "rb", stdin) != NULL);
    CHECK(gq__manifest_read_path("-", collect, &s, &err) == GQ_OK && s.n == 2);
    if (s.n == 2)
        CHECK_STR(s.source[0], "-");
    seen_free(&s);

    remove_file(dir, "a.json");
    remove_file(dir, "b.yaml");
    remove_file(dir, "c.txt");
    remove_file(dir, "a.yml.bak");
    CHECK(rmdir(sub) == 0);
    CHECK(rmdir(dir) == 0);

    CHECK(gq__manifest_read_path(dir, collect, &s, &err) == GQ_ENOTFOUND);
    snprintf(want, sizeof(want), "path \"%s\": no such file or directory", dir);
    CHECK_STR(err.msg, want);
    CHECK(s.n == 0);
}

/* ------------------------------------------------------------------------ */
/* Issue 13 F18: a pipe, a FIFO or a device is read only as far as a document can go. */

/* The other end of a pipe: chunk written n times (0: until the reader closes), then closed. */
struct writer {
    int fd;
    const char *chunk;
    size_t n;
    size_t written; /* bytes the reader took (or the pipe holds) */
};

static void *write_pipe(void *arg)
{
    struct writer *w = arg;
    size_t i, len = strlen(w->chunk);
    ssize_t got;

    for (i = 0; w->n == 0 || i < w->n; i++) {
        if ((got = write(w->fd, w->chunk, len)) <= 0)
            break;
        w->written += (size_t)got;
    }
    close(w->fd);
    return NULL;
}

static int count_docs(const struct gq__doc *d, void *payload, gq_error *err)
{
    (void)d;
    (void)err;
    ++*(int *)payload;
    return 0;
}

/* Read a pipe fed with w's chunks through its /dev/fd path; the message into err. */
static int read_pipe(struct writer *w, int *docs, gq_error *err, char *path, size_t size)
{
    pthread_t t;
    int fds[2], rc;

    if (pipe(fds) != 0)
        abort();
    w->fd = fds[1];
    snprintf(path, size, "/dev/fd/%d", fds[0]);
    if (pthread_create(&t, NULL, write_pipe, w) != 0)
        abort();
    rc = gq__manifest_read_path(path, count_docs, docs, err);
    close(fds[0]); /* the writer then fails with EPIPE and stops */
    pthread_join(t, NULL);
    return rc;
}

static void test_stream_limit(void)
{
    static char line[4097], doc[1024];
    struct writer endless = {-1, line, 0, 0}, many = {-1, doc, 6144, 0};
    gq_error err = {0};
    char path[64], want[128];
    int docs = 0;

    signal(SIGPIPE, SIG_IGN);
    memset(line, 'x', sizeof(line) - 2);
    line[sizeof(line) - 2] = '\n';
    /* "---\na: xx...x\n...\n": 1 KiB, both markers. */
    memset(doc, 'x', sizeof(doc) - 1);
    memcpy(doc, "---\na: ", 7);
    memcpy(doc + sizeof(doc) - 6, "\n...\n", 6);
    /* One document that never ends: refused at the document cap, not at the 1 GiB input cap. */
    CHECK(read_pipe(&endless, &docs, &err, path, sizeof(path)) == GQ_EINVALID);
    snprintf(want, sizeof(want), "%s: a document is larger than 4194304 bytes", path);
    CHECK_STR(err.msg, want);
    CHECK(docs == 0);
    /* What the reader took, give or take the pipe's buffer (64 KiB on Linux). */
    CHECKF(endless.written <= GQ_MANIFEST_MAX_DOC_BYTES + (1u << 20), "%zu bytes written",
           endless.written);
    /* Many small documents, 6 MiB in all, are a stream like any other. */
    CHECKF(read_pipe(&many, &docs, &err, path, sizeof(path)) == GQ_OK, "%s", err.msg);
    CHECKF(docs == 6144, "%d documents", docs);
}

int main(void)
{
    TEST_RUN(test_scalar_typing);
    TEST_RUN(test_quantity_text_and_exact_strings);
    TEST_RUN(test_multi_document);
    TEST_RUN(test_bom_and_crlf);
    TEST_RUN(test_json);
    TEST_RUN(test_list_expansion);
    TEST_RUN(test_bad_input);
    TEST_RUN(test_first_error_stops);
    TEST_RUN(test_alias_bomb);
    TEST_RUN(test_depth);
    TEST_RUN(test_document_size);
    TEST_RUN(test_callback_error);
    TEST_RUN(test_read_path);
    TEST_RUN(test_stream_limit);
    return TEST_DONE();
}
