/*
 * test_validate.c: lib/core/validate.c against apimachinery pkg/util/validation's
 * rules (IsDNS1123Label, IsDNS1123Subdomain, IsQualifiedName,
 * IsValidLabelValue) and the reference's §6 item 52 list: uppercase, a
 * leading or trailing '-', 63 against 64 characters, 253 against 254, "/foo",
 * "a/b/c", "example.com/", a 64-character value. Long values are built at run
 * time; messages are compared whole.
 */
#include <stdio.h>
#include <string.h>

#include "gpuqueue/validate.h"
#include "test.h"

#define NROWS(a) (sizeof(a) / sizeof((a)[0]))

enum check { LABEL, SUBDOMAIN, KEY, VALUE, RESOURCE };

static int run(enum check c, const char *s, gq_error *err)
{
    switch (c) {
    case LABEL:
        return gq_validate_dns1123_label(s, err);
    case SUBDOMAIN:
        return gq_validate_dns1123_subdomain(s, err);
    case KEY:
        return gq_validate_label_key(s, err);
    case VALUE:
        return gq_validate_label_value(s, err);
    case RESOURCE:
        return gq_validate_resource_name(s, err);
    }
    return -100;
}

#define LABEL_MSG                                                                                  \
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "   \
    "must start and end with an alphanumeric character"
#define SUBDOMAIN_MSG                                                                              \
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "   \
    "'.', and must start and end with an alphanumeric character"
#define QNAME_MSG                                                                                  \
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "    \
    "alphanumeric character"
#define VALUE_MSG                                                                                  \
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "    \
    "'.', and must start and end with an alphanumeric character"

/* One check: the value, and NULL if it is valid, else the whole expected message. */
static const struct {
    enum check check;
    const char *in;
    const char *msg;
} rows[] = {
    /* DNS-1123 labels: namespaces, pod set names. */
    {LABEL, "a", NULL},
    {LABEL, "0", NULL},
    {LABEL, "abc", NULL},
    {LABEL, "a-b", NULL},
    {LABEL, "a--b", NULL},
    {LABEL, "123-abc", NULL},
    {LABEL, "my-name", NULL},
    {LABEL, "", "invalid value \"\": " LABEL_MSG},
    {LABEL, "A", "invalid value \"A\": " LABEL_MSG},
    {LABEL, "Abc", "invalid value \"Abc\": " LABEL_MSG},
    {LABEL, "abC", "invalid value \"abC\": " LABEL_MSG},
    {LABEL, "-a", "invalid value \"-a\": " LABEL_MSG},
    {LABEL, "a-", "invalid value \"a-\": " LABEL_MSG},
    {LABEL, "-", "invalid value \"-\": " LABEL_MSG},
    {LABEL, "a_b", "invalid value \"a_b\": " LABEL_MSG},
    {LABEL, "a b", "invalid value \"a b\": " LABEL_MSG},
    {LABEL, "a\n", "invalid value \"a\\x0a\": " LABEL_MSG},
    {LABEL, "caf\xc3\xa9", "invalid value \"caf\\xc3\\xa9\": " LABEL_MSG},
    {LABEL, "a.b", "invalid value \"a.b\": must not contain dots"},
    {LABEL, "a.", "invalid value \"a.\": " LABEL_MSG},

    /* DNS-1123 subdomains: most object names. */
    {SUBDOMAIN, "a", NULL},
    {SUBDOMAIN, "example.com", NULL},
    {SUBDOMAIN, "a.b.c", NULL},
    {SUBDOMAIN, "a-b.c-d", NULL},
    {SUBDOMAIN, "1.2.3.4", NULL},
    {SUBDOMAIN, "Bad_Name", "invalid value \"Bad_Name\": " SUBDOMAIN_MSG},
    {SUBDOMAIN, "", "invalid value \"\": " SUBDOMAIN_MSG},
    {SUBDOMAIN, "Example.com", "invalid value \"Example.com\": " SUBDOMAIN_MSG},
    {SUBDOMAIN, ".a", "invalid value \".a\": " SUBDOMAIN_MSG},
    {SUBDOMAIN, "a.", "invalid value \"a.\": " SUBDOMAIN_MSG},
    {SUBDOMAIN, "a..b", "invalid value \"a..b\": " SUBDOMAIN_MSG},
    {SUBDOMAIN, "-a.b", "invalid value \"-a.b\": " SUBDOMAIN_MSG},
    {SUBDOMAIN, "a-.b", "invalid value \"a-.b\": " SUBDOMAIN_MSG},
    {SUBDOMAIN, "a.-b", "invalid value \"a.-b\": " SUBDOMAIN_MSG},
    {SUBDOMAIN, "a/b", "invalid value \"a/b\": " SUBDOMAIN_MSG},

    /* Label keys: [prefix/]name. */
    {KEY, "app", NULL},
    {KEY, "MyName", NULL},
    {KEY, "my.name", NULL},
    {KEY, "123-abc", NULL},
    {KEY, "a_b", NULL},
    {KEY, "A", NULL},
    {KEY, "app.kubernetes.io/name", NULL},
    {KEY, "kueue.x-k8s.io/queue-name", NULL},
    {KEY, "nvidia.com/gpu", NULL},
    {KEY, "example.com/MyName", NULL},
    {KEY, "/foo", "invalid value \"/foo\": prefix part must be non-empty"},
    {KEY, "a/b/c",
     "invalid value \"a/b/c\": a qualified name " QNAME_MSG
     ", with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"},
    {KEY, "example.com/", "invalid value \"example.com/\": name part must be non-empty"},
    {KEY, "", "invalid value \"\": name part must be non-empty"},
    {KEY, "/", "invalid value \"/\": prefix part must be non-empty; name part must be non-empty"},
    {KEY, "Example.com/foo", "invalid value \"Example.com/foo\": prefix part " SUBDOMAIN_MSG},
    {KEY, "example_com/foo", "invalid value \"example_com/foo\": prefix part " SUBDOMAIN_MSG},
    {KEY, "-foo", "invalid value \"-foo\": name part " QNAME_MSG},
    {KEY, "foo-", "invalid value \"foo-\": name part " QNAME_MSG},
    {KEY, "_foo", "invalid value \"_foo\": name part " QNAME_MSG},
    {KEY, "foo.", "invalid value \"foo.\": name part " QNAME_MSG},
    {KEY, "foo bar", "invalid value \"foo bar\": name part " QNAME_MSG},
    {KEY, "a..b/c", "invalid value \"a..b/c\": prefix part " SUBDOMAIN_MSG},
    {KEY, "Bad/-x",
     "invalid value \"Bad/-x\": prefix part " SUBDOMAIN_MSG "; name part " QNAME_MSG},

    /* Label values: empty, or a name of at most 63. */
    {VALUE, "", NULL},
    {VALUE, "a", NULL},
    {VALUE, "MyValue", NULL},
    {VALUE, "my_value", NULL},
    {VALUE, "12345", NULL},
    {VALUE, "a.b-c_d", NULL},
    {VALUE, "-a", "invalid value \"-a\": " VALUE_MSG},
    {VALUE, "a-", "invalid value \"a-\": " VALUE_MSG},
    {VALUE, "a/b", "invalid value \"a/b\": " VALUE_MSG},
    {VALUE, "a b", "invalid value \"a b\": " VALUE_MSG},
    {VALUE, "_", "invalid value \"_\": " VALUE_MSG},
    {VALUE, ".", "invalid value \".\": " VALUE_MSG},
    {VALUE, "yes\"", "invalid value \"yes\\\"\": " VALUE_MSG},

    /* Resource names: qualified names, like label keys. */
    {RESOURCE, "cpu", NULL},
    {RESOURCE, "memory", NULL},
    {RESOURCE, "nvidia.com/gpu", NULL},
    {RESOURCE, "amd.com/gpu", NULL},
    {RESOURCE, "hugepages-2Mi", NULL},
    {RESOURCE, "ephemeral-storage", NULL},
    {RESOURCE, "", "invalid value \"\": name part must be non-empty"},
    {RESOURCE, "/gpu", "invalid value \"/gpu\": prefix part must be non-empty"},
    {RESOURCE, "example.com/", "invalid value \"example.com/\": name part must be non-empty"},
    {RESOURCE, "nvidia.com/gpu/x",
     "invalid value \"nvidia.com/gpu/x\": a qualified name " QNAME_MSG
     ", with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"},
    {RESOURCE, "Nvidia.com/gpu", "invalid value \"Nvidia.com/gpu\": prefix part " SUBDOMAIN_MSG},
    {RESOURCE, "nvidia.com/gpu-", "invalid value \"nvidia.com/gpu-\": name part " QNAME_MSG},
};

static void test_table(void)
{
    size_t i;

    for (i = 0; i < NROWS(rows); i++) {
        gq_error err = {0, ""};
        int want = rows[i].msg ? GQ_EINVALID : GQ_OK;
        int rc = run(rows[i].check, rows[i].in, &err);

        CHECKF(rc == want, "row %zu \"%s\": rc %d, want %d (%s)", i, rows[i].in, rc, want, err.msg);
        if (!rows[i].msg || rc != want)
            continue;
        CHECKF(err.code == GQ_EINVALID, "row %zu", i);
        CHECKF(strcmp(err.msg, rows[i].msg) == 0, "row %zu:\n got <%s>\nwant <%s>", i, err.msg,
               rows[i].msg);
        /* NULL for the error buffer is allowed and gives the same answer. */
        CHECKF(run(rows[i].check, rows[i].in, NULL) == GQ_EINVALID, "row %zu", i);
    }
}

/* n copies of c, NUL-terminated, into buf (which must hold n + 1). */
static char *repeat(char *buf, char c, size_t n)
{
    memset(buf, c, n);
    buf[n] = '\0';
    return buf;
}

/* The message prefix for a long value: its first 64 bytes, then "...". */
static void long_prefix(char *out, size_t size, const char *s)
{
    snprintf(out, size, "invalid value \"%.64s...\": ", s);
}

/* 63 against 64 characters, for every check whose limit is 63. */
static void test_length_63(void)
{
    char s[80], want[512], pre[96];

    repeat(s, 'a', 63);
    CHECK(gq_validate_dns1123_label(s, NULL) == GQ_OK);
    CHECK(gq_validate_label_key(s, NULL) == GQ_OK);
    CHECK(gq_validate_label_value(s, NULL) == GQ_OK);
    CHECK(gq_validate_resource_name(s, NULL) == GQ_OK);
    /* Exactly 64 bytes are shown in full, with no "...". */
    repeat(s, 'a', 64);
    snprintf(want, sizeof(want), "invalid value \"%s\": must be no more than 63 characters", s);
    {
        gq_error err;

        CHECK(gq_validate_dns1123_label(s, &err) == GQ_EINVALID);
        CHECK_STR(err.msg, want);
        CHECK(gq_validate_label_value(s, &err) == GQ_EINVALID);
        CHECK_STR(err.msg, want);
        snprintf(want, sizeof(want),
                 "invalid value \"%s\": name part must be no more than 63 characters", s);
        CHECK(gq_validate_label_key(s, &err) == GQ_EINVALID);
        CHECK_STR(err.msg, want);
        CHECK(gq_validate_resource_name(s, &err) == GQ_EINVALID);
        CHECK_STR(err.msg, want);
    }
    /* A 64-character name after a valid prefix, and both rules broken at once. */
    {
        char key[96];
        gq_error err;

        snprintf(key, sizeof(key), "example.com/%s", s);
        CHECK(gq_validate_label_key(key, &err) == GQ_EINVALID);
        long_prefix(pre, sizeof(pre), key);
        snprintf(want, sizeof(want), "%sname part must be no more than 63 characters", pre);
        CHECK_STR(err.msg, want);

        s[0] = 'A';
        CHECK(gq_validate_dns1123_label(s, &err) == GQ_EINVALID);
        snprintf(want, sizeof(want),
                 "invalid value \"%s\": must be no more than 63 characters; " LABEL_MSG, s);
        CHECK_STR(err.msg, want);
    }
}

/*
 * 253 against 254 characters for subdomains and key prefixes. Labels inside
 * a subdomain have no limit of their own in apimachinery's pattern.
 */
static void test_length_253(void)
{
    char s[300], key[320], want[512], pre[96];
    gq_error err;

    /* Four labels: 63 + 1 + 63 + 1 + 63 + 1 + 61 = 253. */
    repeat(s, 'a', 253);
    s[63] = s[127] = s[191] = '.';
    CHECK(gq_validate_dns1123_subdomain(s, NULL) == GQ_OK);
    snprintf(key, sizeof(key), "%s/name", s);
    CHECK(gq_validate_label_key(key, NULL) == GQ_OK);

    repeat(s, 'b', 254);
    CHECK(gq_validate_dns1123_subdomain(s, &err) == GQ_EINVALID);
    long_prefix(pre, sizeof(pre), s);
    snprintf(want, sizeof(want), "%smust be no more than 253 characters", pre);
    CHECK_STR(err.msg, want);

    snprintf(key, sizeof(key), "%s/name", s);
    CHECK(gq_validate_label_key(key, &err) == GQ_EINVALID);
    long_prefix(pre, sizeof(pre), key);
    snprintf(want, sizeof(want), "%sprefix part must be no more than 253 characters", pre);
    CHECK_STR(err.msg, want);

    repeat(s, 'c', 100);
    CHECK(gq_validate_dns1123_subdomain(s, NULL) == GQ_OK);
    CHECK(gq_validate_dns1123_label(s, NULL) == GQ_EINVALID);

    /* Too long and malformed: both rules, joined. */
    repeat(s, 'd', 254);
    s[253] = '-';
    CHECK(gq_validate_dns1123_subdomain(s, &err) == GQ_EINVALID);
    long_prefix(pre, sizeof(pre), s);
    snprintf(want, sizeof(want), "%smust be no more than 253 characters; " SUBDOMAIN_MSG, pre);
    CHECK_STR(err.msg, want);
}

/* A long, ugly value still gives one terminated line inside the buffer. */
static void test_long_messages(void)
{
    char key[600];
    gq_error err;

    repeat(key, 'X', 599);
    key[300] = '/';
    key[0] = '\n';
    CHECK(gq_validate_label_key(key, &err) == GQ_EINVALID);
    CHECK(strlen(err.msg) < sizeof(err.msg));
    CHECK(strchr(err.msg, '\n') == NULL);
    CHECK(strncmp(err.msg, "invalid value \"\\x0aXXX", 22) == 0);
    CHECK(strstr(err.msg, "prefix part must be no more than 253 characters; prefix part a "
                          "lowercase RFC 1123 subdomain") != NULL);
}

int main(void)
{
    TEST_RUN(test_table);
    TEST_RUN(test_length_63);
    TEST_RUN(test_length_253);
    TEST_RUN(test_long_messages);
    return TEST_DONE();
}
