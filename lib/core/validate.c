/*
 * validate.c: the Kubernetes name and label rules of k8s.io/apimachinery
 * pkg/util/validation (IsDNS1123Label, IsDNS1123Subdomain, IsQualifiedName,
 * IsValidLabelValue), checked with hand-written character loops instead of
 * regular expressions so that the library needs no regex engine and the
 * rules can be read in one place.
 *
 * Only ASCII letters and digits count as alphanumeric, whatever the locale;
 * any other byte is invalid. Like apimachinery, a check collects every rule
 * the value breaks; they are joined with "; " into one message of the form
 * `invalid value "<value>": <rule>; <rule>`, with the value escaped and cut
 * to GQ_QUOTE_MAX bytes. Values are names of at most a few hundred bytes, checked
 * once per manifest or command, so there is no attempt at speed.
 */
#include <stdbool.h>
#include <string.h>

#include "error.h"
#include "util.h"
#include "gpuqueue/validate.h"

#define LABEL_MAX 63      /* DNS-1123 label, qualified-name name part, label value */
#define SUBDOMAIN_MAX 253 /* DNS-1123 subdomain, qualified-name prefix */

/* apimachinery's messages, without the regular expression and examples it appends. */
#define LABEL_MSG                                                                                  \
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "       \
    "and must start and end with an alphanumeric character"
#define SUBDOMAIN_MSG                                                                              \
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "   \
    "'.', and must start and end with an alphanumeric character"
#define QNAME_MSG                                                                                  \
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "    \
    "alphanumeric character"
#define LABEL_VALUE_MSG                                                                            \
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "    \
    "'.', and must start and end with an alphanumeric character"
#define MAX_LABEL_MSG "must be no more than 63 characters"
#define MAX_SUBDOMAIN_MSG "must be no more than 253 characters"
#define EMPTY_MSG "must be non-empty"

/* The rules a value breaks, joined by "; ". Cut short (never overrun) if very long. */
struct problems {
    char text[448]; /* NUL-terminated */
    size_t len;     /* strlen(text) */
};

static void problems_add(struct problems *p, const char *prefix, const char *rule)
{
    const char *parts[3] = {p->len ? "; " : "", prefix, rule};
    size_t i, n;

    for (i = 0; i < 3; i++) {
        n = strlen(parts[i]);
        if (n > sizeof(p->text) - 1 - p->len)
            n = sizeof(p->text) - 1 - p->len;
        memcpy(p->text + p->len, parts[i], n);
        p->len += n;
    }
    p->text[p->len] = '\0';
}

static int report(gq_error *err, const char *s, const struct problems *p)
{
    char qv[GQ_QUOTE_BUFSIZE];

    if (p->len == 0)
        return GQ_OK;
    return gq__error(err, GQ_EINVALID, "invalid value %s: %s", gq__quote(qv, s, strlen(s)),
                     p->text);
}

static bool is_lower_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

static bool is_alnum(char c)
{
    return is_lower_alnum(c) || (c >= 'A' && c <= 'Z');
}

/* [a-z0-9]([-a-z0-9]*[a-z0-9])? over exactly n bytes; length is checked apart. */
static bool match_label(const char *s, size_t n)
{
    size_t i;

    if (n == 0 || !is_lower_alnum(s[0]) || !is_lower_alnum(s[n - 1]))
        return false;
    for (i = 1; i + 1 < n; i++) {
        if (!is_lower_alnum(s[i]) && s[i] != '-')
            return false;
    }
    return true;
}

/* Labels joined by single dots: no empty label, so no leading, trailing or double dot. */
static bool match_subdomain(const char *s, size_t n)
{
    size_t start = 0, i;

    for (i = 0; i <= n; i++) {
        if (i < n && s[i] != '.')
            continue;
        if (!match_label(s + start, i - start))
            return false;
        start = i + 1;
    }
    return true;
}

/* ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9] over exactly n bytes. */
static bool match_name(const char *s, size_t n)
{
    size_t i;

    if (n == 0 || !is_alnum(s[0]) || !is_alnum(s[n - 1]))
        return false;
    for (i = 1; i + 1 < n; i++) {
        if (!is_alnum(s[i]) && s[i] != '-' && s[i] != '_' && s[i] != '.')
            return false;
    }
    return true;
}

static void check_subdomain(struct problems *p, const char *prefix, const char *s, size_t n)
{
    if (n > SUBDOMAIN_MAX)
        problems_add(p, prefix, MAX_SUBDOMAIN_MSG);
    if (!match_subdomain(s, n))
        problems_add(p, prefix, SUBDOMAIN_MSG);
}

/*
 * apimachinery's IsQualifiedName: [prefix/]name, the prefix a non-empty
 * DNS-1123 subdomain, the name 1..63 of [-A-Za-z0-9_.] with alphanumeric ends.
 * An empty name reports only that it is empty (Go also repeats the pattern).
 */
static void check_qualified_name(struct problems *p, const char *s)
{
    const char *slash = strchr(s, '/'), *name = s;
    size_t n;

    if (slash && strchr(slash + 1, '/')) {
        problems_add(p, "a qualified name ",
                     QNAME_MSG ", with an optional DNS subdomain prefix "
                               "and '/' (e.g. 'example.com/MyName')");
        return;
    }
    if (slash) {
        if (slash == s)
            problems_add(p, "prefix part ", EMPTY_MSG);
        else
            check_subdomain(p, "prefix part ", s, (size_t)(slash - s));
        name = slash + 1;
    }
    n = strlen(name);
    if (n == 0) {
        problems_add(p, "name part ", EMPTY_MSG);
        return;
    }
    if (n > LABEL_MAX)
        problems_add(p, "name part ", MAX_LABEL_MSG);
    if (!match_name(name, n))
        problems_add(p, "name part ", QNAME_MSG);
}

int gq_validate_dns1123_label(const char *s, gq_error *err)
{
    struct problems p = {.len = 0};
    size_t n;

    GQ_ASSERT_ARG(s);
    n = strlen(s);
    if (n > LABEL_MAX)
        problems_add(&p, "", MAX_LABEL_MSG);
    /* A valid subdomain that is not a label can only be wrong for its dots. */
    if (!match_label(s, n))
        problems_add(&p, "", match_subdomain(s, n) ? "must not contain dots" : LABEL_MSG);
    return report(err, s, &p);
}

int gq_validate_dns1123_subdomain(const char *s, gq_error *err)
{
    struct problems p = {.len = 0};

    GQ_ASSERT_ARG(s);
    check_subdomain(&p, "", s, strlen(s));
    return report(err, s, &p);
}

int gq_validate_label_key(const char *s, gq_error *err)
{
    struct problems p = {.len = 0};

    GQ_ASSERT_ARG(s);
    check_qualified_name(&p, s);
    return report(err, s, &p);
}

int gq_validate_label_value(const char *s, gq_error *err)
{
    struct problems p = {.len = 0};
    size_t n;

    GQ_ASSERT_ARG(s);
    n = strlen(s);
    if (n > LABEL_MAX)
        problems_add(&p, "", MAX_LABEL_MSG);
    if (n > 0 && !match_name(s, n))
        problems_add(&p, "", LABEL_VALUE_MSG);
    return report(err, s, &p);
}

int gq_validate_resource_name(const char *s, gq_error *err)
{
    /* Both are apimachinery's IsQualifiedName. */
    return gq_validate_label_key(s, err);
}
