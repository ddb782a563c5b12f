/*
 * test_kube_stream.c: the watch-stream decoder (kube_stream.c). Every event
 * is decoded exactly once and in order however the bytes are chunked; odd
 * events are skipped, broken streams stop for good (reference §1.5, §6 A5,
 * D53-D55).
 */
#include <stdlib.h>
#include <string.h>

#include "kube_stream.h"
#include "test.h"

/* What the callback saw: "TYPE name rv;" per event. */
struct seen {
    char log[4096];
    int n;
    int fail_at; /* return GQ_ECONFLICT on this event (1-based), 0: never */
};

static const char *str_at(json_object *o, const char *a, const char *b)
{
    json_object *x, *y;

    if (!json_object_object_get_ex(o, a, &x) || !json_object_object_get_ex(x, b, &y))
        return "-";
    return json_object_get_string(y);
}

static int record(const char *type, json_object *object, void *payload)
{
    struct seen *s = payload;
    size_t len = strlen(s->log);

    s->n++;
    snprintf(s->log + len, sizeof(s->log) - len, "%s %s %s;", type,
             str_at(object, "metadata", "name"), str_at(object, "metadata", "resourceVersion"));
    return s->n == s->fail_at ? GQ_ECONFLICT : 0;
}

static int feed_all(struct gq_kube_stream *d, const char *text, size_t len, size_t chunk)
{
    gq_error e;
    int rc = GQ_OK;

    for (size_t i = 0; i < len && rc == GQ_OK; i += chunk)
        rc = gq__kube_stream_feed(d, text + i, len - i < chunk ? len - i : chunk, &e);
    return rc;
}

#define EV(type, name, rv)                                                                         \
    "{\"type\":\"" type "\",\"object\":{\"kind\":\"Job\",\"metadata\":{\"name\":\"" name           \
    "\",\"resourceVersion\":\"" rv "\"},\"spec\":{\"n\":[1,2.5,\"x\\\"}\",null,true]}}}"

static const char STREAM[] = EV("ADDED", "a", "10") "\n" EV("MODIFIED", "b", "11") "\n"
    "{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"Job\",\"metadata\":{\"resourceVersion\":\"12\"}}}\n"
    EV("DELETED", "a", "13") "\n"
    "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"code\":410,\"reason\":\"Expired\"}}\n";

static const char WANT[] = "ADDED a 10;MODIFIED b 11;BOOKMARK - 12;DELETED a 13;ERROR - -;";

/* Split at every byte boundary into two chunks, and one byte at a time. */
static void test_every_split(void)
{
    size_t len = strlen(STREAM);

    for (size_t cut = 0; cut <= len; cut++) {
        struct seen s = {{0}, 0, 0};
        struct gq_kube_stream *d;
        gq_error e;
        int rc;

        CHECK(gq__kube_stream_new(&d, 0, record, &s, &e) == GQ_OK);
        rc = gq__kube_stream_feed(d, STREAM, cut, &e);
        if (rc == GQ_OK)
            rc = gq__kube_stream_feed(d, STREAM + cut, len - cut, &e);
        CHECKF(rc == GQ_OK && strcmp(s.log, WANT) == 0, "cut %zu: %s", cut, s.log);
        CHECKF(!gq__kube_stream_partial(d), "cut %zu", cut);
        gq__kube_stream_free(d);
    }
    for (size_t chunk = 1; chunk < 8; chunk++) {
        struct seen s = {{0}, 0, 0};
        struct gq_kube_stream *d;
        gq_error e;

        CHECK(gq__kube_stream_new(&d, 0, record, &s, &e) == GQ_OK);
        CHECKF(feed_all(d, STREAM, len, chunk) == GQ_OK, "chunk %zu", chunk);
        CHECK_STR(s.log, WANT);
        CHECK(gq__kube_stream_events(d) == 5 && gq__kube_stream_skipped(d) == 0);
        gq__kube_stream_free(d);
    }
}

/* Several events in one chunk, with no separators, CRLF, or blanks between them. */
static void test_framing(void)
{
    static const char *const rows[] = {
        EV("ADDED", "a", "1") EV("MODIFIED", "a", "2") EV("DELETED", "a", "3"),
        EV("ADDED", "a", "1") "\r\n" EV("MODIFIED", "a", "2") "\r\n" EV("DELETED", "a", "3") "\r\n",
        "\r\n  \n" EV("ADDED", "a", "1") " \t " EV("MODIFIED", "a", "2") "\n\n\n"
        EV("DELETED", "a", "3"),
    };
    static const char want[] = "ADDED a 1;MODIFIED a 2;DELETED a 3;";

    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        for (size_t chunk = 1; chunk <= strlen(rows[i]); chunk += 13) {
            struct seen s = {{0}, 0, 0};
            struct gq_kube_stream *d;
            gq_error e;

            CHECK(gq__kube_stream_new(&d, 0, record, &s, &e) == GQ_OK);
            CHECKF(feed_all(d, rows[i], strlen(rows[i]), chunk) == GQ_OK, "row %zu", i);
            CHECKF(strcmp(s.log, want) == 0, "row %zu chunk %zu: %s", i, chunk, s.log);
            gq__kube_stream_free(d);
        }
    }
}

/* Well-formed values that are not usable events are skipped; the stream goes on. */
static void test_skipped(void)
{
    static const char *const rows[] = {
        "{\"type\":\"SOMETHING\",\"object\":{\"metadata\":{\"resourceVersion\":\"5\"}}}",
        "{\"type\":\"ADDED\"}",
        "{\"type\":\"ADDED\",\"object\":null}",
        "{\"type\":\"ADDED\",\"object\":[1]}",
        "{\"type\":\"ADDED\",\"object\":{\"kind\":\"Job\"}}",
        "{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"x\"}}}",
        "{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"resourceVersion\":\"\"}}}",
        "{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"resourceVersion\":7}}}",
        "{\"type\":\"ADDED\",\"object\":{\"metadata\":\"x\"}}",
        "{\"type\":7,\"object\":{\"metadata\":{\"resourceVersion\":\"5\"}}}",
        "{\"object\":{\"metadata\":{\"resourceVersion\":\"5\"}}}",
        "{\"type\":\"added\",\"object\":{\"metadata\":{\"resourceVersion\":\"5\"}}}",
        "[1,2]",
        "\"text\"",
        "null",
        "{}",
    };

    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        struct seen s = {{0}, 0, 0};
        struct gq_kube_stream *d;
        char buf[512];
        gq_error e;

        snprintf(buf, sizeof(buf), "%s\n%s\n", rows[i], EV("ADDED", "ok", "9"));
        CHECK(gq__kube_stream_new(&d, 0, record, &s, &e) == GQ_OK);
        CHECKF(feed_all(d, buf, strlen(buf), 1) == GQ_OK, "row %zu", i);
        CHECKF(strcmp(s.log, "ADDED ok 9;") == 0, "row %zu: %s", i, s.log);
        CHECKF(gq__kube_stream_skipped(d) == 1 && gq__kube_stream_events(d) == 1, "row %zu", i);
        gq__kube_stream_free(d);
    }
}

/* Syntax errors break the stream, and it stays broken. */
static void test_fatal_syntax(void)
{
    static const char *const rows[] = {
        "{\"type\":\"ADDED\",}",
        "<html><body>502 Bad Gateway</body></html>",
        "{\"type\":'ADDED'}",
        "{\"type\":\"ADDED\" \"object\":{}}",
        "}",
        "{\"type\":\"A\xff\xfe\"}",
        "{\"a\":1} garbage",
    };

    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        struct seen s = {{0}, 0, 0};
        struct gq_kube_stream *d;
        char buf[512];
        gq_error e;

        snprintf(buf, sizeof(buf), "%s\n%s\n", EV("ADDED", "before", "1"), rows[i]);
        CHECK(gq__kube_stream_new(&d, 0, record, &s, &e) == GQ_OK);
        CHECKF(gq__kube_stream_feed(d, buf, strlen(buf), &e) == GQ_EK8S, "row %zu", i);
        CHECKF(strcmp(s.log, "ADDED before 1;") == 0, "row %zu: %s", i, s.log);
        CHECKF(gq__kube_stream_feed(d, EV("ADDED", "after", "2"), 10, &e) == GQ_EK8S, "row %zu",
               i);
        CHECK(s.n == 1);
        gq__kube_stream_free(d);
    }
}

/* An event over the cap is fatal, one at the cap is not; the real 16 MiB cap holds too. */
static void test_cap(void)
{
    static const char head[] = "{\"type\":\"ADDED\",\"object\":{\"pad\":\"";
    static const char ev[] = EV("ADDED", "a", "1");
    size_t len = strlen(ev), big = GQ_KUBE_MAX_BODY + 4096;
    struct seen s = {{0}, 0, 0};
    struct gq_kube_stream *d;
    char *huge;
    gq_error e;

    CHECK(gq__kube_stream_new(&d, len, record, &s, &e) == GQ_OK);
    CHECK(feed_all(d, ev, len, 7) == GQ_OK && s.n == 1);
    gq__kube_stream_free(d);
    CHECK(gq__kube_stream_new(&d, len - 1, record, &s, &e) == GQ_OK);
    CHECK(gq__kube_stream_feed(d, ev, len, &e) == GQ_EK8S && s.n == 1);
    CHECK(strstr(e.msg, "larger") != NULL);
    gq__kube_stream_free(d);

    huge = malloc(big);
    CHECK(huge != NULL);
    if (!huge)
        return;
    memset(huge, 'x', big);
    memcpy(huge, head, sizeof(head) - 1);
    CHECK(gq__kube_stream_new(&d, 0, record, &s, &e) == GQ_OK);
    CHECK(feed_all(d, huge, big, 65536) == GQ_EK8S && s.n == 1);
    gq__kube_stream_free(d);
    free(huge);
}

static char *nested(int depth, const char *open, const char *close)
{
    size_t n = strlen(open) * (size_t)depth + strlen(close) * (size_t)depth + 256;
    char *p = malloc(n), *q;

    if (!p)
        return NULL;
    q = p + sprintf(p, "{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"resourceVersion\":\"1\"},"
                       "\"x\":");
    for (int i = 0; i < depth; i++)
        q += sprintf(q, "%s", open);
    q += sprintf(q, "1");
    for (int i = 0; i < depth; i++)
        q += sprintf(q, "%s", close);
    sprintf(q, "}}\n");
    return p;
}

/* Nesting past the depth cap is fatal (no stack overflow); ordinary depth is fine. */
static void test_depth(void)
{
    static const struct {
        int depth;
        const char *open, *close;
        int rc;
    } rows[] = {
        {20, "[", "]", GQ_OK},
        {20, "{\"a\":", "}", GQ_OK},
        {70, "[", "]", GQ_EK8S},
        {100000, "[", "]", GQ_EK8S},
        {100000, "{\"a\":", "}", GQ_EK8S},
    };

    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        struct seen s = {{0}, 0, 0};
        char *text = nested(rows[i].depth, rows[i].open, rows[i].close);
        struct gq_kube_stream *d;
        gq_error e;

        CHECK(text != NULL);
        if (!text)
            continue;
        CHECK(gq__kube_stream_new(&d, 0, record, &s, &e) == GQ_OK);
        CHECKF(feed_all(d, text, strlen(text), 4096) == rows[i].rc, "row %zu", i);
        CHECKF(s.n == (rows[i].rc == GQ_OK), "row %zu", i);
        gq__kube_stream_free(d);
        free(text);
    }
}

static int read_numbers(const char *type, json_object *object, void *payload)
{
    json_object *spec, *v;
    int *n = payload;

    (void)type;
    if (!json_object_object_get_ex(object, "spec", &spec))
        return GQ_EINVALID;
    json_object_object_foreach(spec, key, val)
    {
        (void)key;
        v = val;
        /* Reading them must not crash or trip UBSan, whatever json-c made of them. */
        (void)json_object_get_int64(v);
        (void)json_object_get_double(v);
        (*n)++;
    }
    return 0;
}

/* Numbers beyond int64 or double do not crash the decoder or a reader. */
static void test_numbers(void)
{
    static const char text[] =
        "{\"type\":\"MODIFIED\",\"object\":{\"metadata\":{\"resourceVersion\":\"3\"},\"spec\":{"
        "\"a\":99999999999999999999,\"b\":-99999999999999999999,\"c\":1e400,\"d\":-1e400,"
        "\"e\":1e-400,\"f\":9223372036854775808,\"g\":-9223372036854775809,\"h\":0.5e308}}}";
    struct gq_kube_stream *d;
    gq_error e;
    int n = 0;

    CHECK(gq__kube_stream_new(&d, 0, read_numbers, &n, &e) == GQ_OK);
    CHECK(feed_all(d, text, strlen(text), 3) == GQ_OK);
    CHECK(n == 8);
    gq__kube_stream_free(d);
}

/* A callback's error stops the feed and comes back; partial() tracks unfinished events. */
static void test_callback_and_partial(void)
{
    struct seen s = {{0}, 0, 2};
    struct gq_kube_stream *d;
    size_t half = strlen(STREAM) / 2;
    gq_error e;

    CHECK(gq__kube_stream_new(&d, 0, record, &s, &e) == GQ_OK);
    CHECK(gq__kube_stream_feed(d, STREAM, strlen(STREAM), &e) == GQ_ECONFLICT);
    CHECK(s.n == 2);
    gq__kube_stream_free(d);

    s.fail_at = 0;
    s.n = 0;
    CHECK(gq__kube_stream_new(&d, 0, record, &s, &e) == GQ_OK);
    CHECK(!gq__kube_stream_partial(d));
    CHECK(gq__kube_stream_feed(d, STREAM, 10, &e) == GQ_OK && gq__kube_stream_partial(d));
    CHECK(gq__kube_stream_feed(d, STREAM + 10, half - 10, &e) == GQ_OK);
    CHECK(gq__kube_stream_feed(d, "", 0, &e) == GQ_OK);
    CHECK(gq__kube_stream_feed(d, STREAM + half, strlen(STREAM) - half, &e) == GQ_OK);
    CHECK(!gq__kube_stream_partial(d) && s.n == 5);
    CHECK(gq__kube_stream_feed(d, "\n\r\n ", 4, &e) == GQ_OK && !gq__kube_stream_partial(d));
    gq__kube_stream_free(d);
}

int main(void)
{
    TEST_RUN(test_every_split);
    TEST_RUN(test_framing);
    TEST_RUN(test_skipped);
    TEST_RUN(test_fatal_syntax);
    TEST_RUN(test_cap);
    TEST_RUN(test_depth);
    TEST_RUN(test_numbers);
    TEST_RUN(test_callback_and_partial);
    return TEST_DONE();
}
