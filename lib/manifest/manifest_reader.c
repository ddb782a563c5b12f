/*
 * manifest_reader.c: YAML and JSON manifest text to json-c trees, one
 * document at a time, for `gpuq submit -f` and `gpuq apply -f`.
 *
 * The reader drives libyaml's event parser and builds each document with an
 * explicit stack of open collections, so no C recursion depends on the input.
 * Every event is checked before it is used, which keeps these invariants:
 *  - at most GQ_MANIFEST_MAX_DEPTH collections are open; the event that would
 *    open one more is an error, so a 100,000-level `[[[...` input stops at
 *    level 65 in well under a millisecond (libyaml reads lazily, and its own
 *    simple-key bookkeeping is quadratic in depth: letting it read all
 *    100,000 levels would take half a minute);
 *  - no event carries an anchor and no alias is accepted, so the tree is never
 *    larger than the text: no alias bombs, no cycles;
 *  - a document spans at most GQ_MANIFEST_MAX_DOC_BYTES and the input at most
 *    GQ_MANIFEST_MAX_INPUT_BYTES. Document spans come from libyaml marks,
 *    which count characters: for ASCII manifests that is bytes, and a
 *    document of multi-byte text is at most four times larger in bytes;
 *  - a key is in its mapping at most once, and contains no NUL character
 *    (json-c keys are C strings).
 * Ownership: reader.root owns the document being built; each stack frame
 * borrows its collection from it. A frame's pending key is the scalar buffer
 * libyaml allocated, taken over from the event, and handed on to the json-c
 * table when its value arrives (libyaml 0.2.5 allocates with malloc(3), and
 * json-c frees keys with free(3)).
 *
 * Choices the header leaves open: messages give the line of the offending
 * node, not of the document; a List's items are all checked (mappings, and no
 * nested List) before the first callback; a key keeps its text as written
 * (`1: x` and `true: x` give keys "1" and "true"); plain scalars that look
 * like timestamps stay strings.
 *
 * Sizes: a manifest is a few KB, but `gpuq submit -f` may read 100,000 Jobs
 * (55 MB, 7.2 million events) in one call, so the per-event path allocates
 * nothing beyond libyaml's and json-c's own, and a plain scalar is typed by
 * its first byte before any table lookup or number parsing is tried.
 *
 * JSON goes through libyaml too (JSON is flow YAML). The one common JSON form
 * libyaml 0.2.5 rejects is a UTF-16 surrogate pair escape ("\ud83d\ude00");
 * see fix_surrogates(). Still rejected, with libyaml's message: JSON values
 * written back to back without `---` between them, and keys longer than 1024
 * characters (libyaml's simple-key limit).
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <yaml.h>

#include "sort.h"
#include "error.h"
#include "manifest_reader.h"

/* The types a scalar or collection can have, as resolved or as tagged. */
enum type {
    TY_STR,   /* !!str, or a quoted or unresolved plain scalar */
    TY_NULL,  /* !!null */
    TY_BOOL,  /* !!bool */
    TY_INT,   /* !!int */
    TY_FLOAT, /* !!float */
    TY_MAP,   /* !!map */
    TY_SEQ,   /* !!seq */
    TY_ANY,   /* the non-specific tag "!" */
    TY_NONE,  /* no tag */
    TY_BAD    /* any other tag */
};

/* One open mapping or sequence. */
struct frame {
    json_object *obj;       /* borrowed: owned by reader.root */
    char *key;              /* owned: a key waiting for its value, or NULL */
    unsigned long key_hash; /* key's hash in obj's table, computed once */
    bool is_map;            /* obj is a json object (else an array) */
};

/* The state of one gq__manifest_read() call; lives on its stack. */
struct reader {
    yaml_parser_t parser;                      /* reads the caller's buffer */
    const char *source;                        /* borrowed: name used in messages */
    gq__doc_cb cb;                             /* called once per document or List item */
    void *payload;                             /* passed to cb */
    gq_error *err;                             /* caller's, may be NULL */
    json_object *root;                         /* owned: the document being built, or NULL */
    struct frame stack[GQ_MANIFEST_MAX_DEPTH]; /* open collections, root first */
    int depth;                                 /* number of frames in use */
    int doc;                                   /* 1-based index of the current document */
    bool in_doc;                               /* between DOCUMENT_START and DOCUMENT_END */
    size_t doc_line;                           /* 1-based line where the document starts */
    size_t doc_start;                          /* mark index where the document starts */
};

#define QUOTE_MAX 72 /* room for a quoted value in a message, quotes included */

/* ------------------------------------------------------------------------ */
/* Messages */

/*
 * Write n bytes of s to out (cap bytes) as a double-quoted one-line string,
 * escaping quotes, backslashes and control characters, and ending with "..."
 * if it had to be cut (never inside a UTF-8 sequence). Returns out.
 */
static const char *quote(char *out, size_t cap, const char *s, size_t n)
{
    size_t i, o = 0;
    unsigned char c;

    out[o++] = '"';
    for (i = 0; i < n && o + 9 <= cap; i++) {
        c = (unsigned char)s[i];
        if (c == '"' || c == '\\') {
            out[o++] = '\\';
            out[o++] = (char)c;
        } else if (c < 0x20 || c == 0x7f) {
            o += (size_t)snprintf(out + o, cap - o, "\\x%02x", c);
        } else {
            out[o++] = (char)c;
        }
    }
    if (i < n) {
        /* Bytes >= 0x80 were copied one for one, so back out a partial sequence. */
        while (i > 0 && ((unsigned char)s[i] & 0xc0) == 0x80) {
            i--;
            o--;
        }
        memcpy(out + o, "...", 3);
        o += 3;
    }
    out[o++] = '"';
    out[o] = '\0';
    return out;
}

/* A tag as users write it: "!!binary" for tag:yaml.org,2002:binary. */
static const char *quote_tag(char *out, size_t cap, const char *tag)
{
    static const char prefix[] = "tag:yaml.org,2002:";
    char shorter[QUOTE_MAX];

    if (strncmp(tag, prefix, sizeof(prefix) - 1) == 0) {
        snprintf(shorter, sizeof(shorter), "!!%s", tag + sizeof(prefix) - 1);
        tag = shorter;
    }
    return quote(out, cap, tag, strlen(tag));
}

/* Fail with "SOURCE: document N (line L): <fmt>". Returns GQ_EINVALID. */
__attribute__((format(printf, 3, 4))) static int
doc_error(struct reader *r, size_t line, const char *fmt, ...)
{
    char msg[sizeof(r->err->msg)];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return gq__error(r->err, GQ_EINVALID, "%s: document %d (line %zu): %s", r->source, r->doc, line,
                     msg);
}

static int oom(struct reader *r)
{
    return gq__error(r->err, GQ_ENOMEM, "%s: out of memory", r->source);
}

static size_t ev_line(const yaml_event_t *ev)
{
    return ev->start_mark.line + 1;
}

/* 1-based line and column of a byte offset, for reader errors, which carry no mark. */
static void offset_position(const char *buf, size_t len, size_t off, size_t *line, size_t *col)
{
    const char *p = buf, *end = buf + (off < len ? off : len), *nl;

    *line = 1;
    while ((nl = memchr(p, '\n', (size_t)(end - p))) != NULL) {
        (*line)++;
        p = nl + 1;
    }
    *col = (size_t)(end - p) + 1;
}

/* Turn libyaml's error into "SOURCE: line L, column C: problem". */
static int syntax_error(struct reader *r, const char *buf, size_t len)
{
    const yaml_parser_t *p = &r->parser;
    const char *problem = p->problem ? p->problem : "invalid YAML";
    size_t line, col;

    if (p->error == YAML_MEMORY_ERROR)
        return oom(r);
    if (p->error == YAML_READER_ERROR) {
        offset_position(buf, len, p->problem_offset, &line, &col);
        if (p->problem_value != -1)
            return gq__error(r->err, GQ_EINVALID, "%s: line %zu, column %zu: %s (0x%02X)",
                             r->source, line, col, problem, (unsigned int)p->problem_value);
        return gq__error(r->err, GQ_EINVALID, "%s: line %zu, column %zu: %s", r->source, line, col,
                         problem);
    }
    return gq__error(r->err, GQ_EINVALID, "%s: line %zu, column %zu: %s", r->source,
                     p->problem_mark.line + 1, p->problem_mark.column + 1, problem);
}

/* ------------------------------------------------------------------------ */
/* Scalars: YAML 1.1 as go-yaml v2 resolves plain scalars */

/* The words a plain scalar is matched against; none is longer than 5 bytes. */
/* clang-format off */
#define WORD(text, type, value) {text, sizeof(text) - 1, type, value}
static const struct {
    const char *text;
    size_t len;
    enum type type;
    double value; /* 1/0 for bools, the value for floats */
} words[] = {
    WORD("y", TY_BOOL, 1),      WORD("Y", TY_BOOL, 1),      WORD("yes", TY_BOOL, 1),
    WORD("Yes", TY_BOOL, 1),    WORD("YES", TY_BOOL, 1),    WORD("true", TY_BOOL, 1),
    WORD("True", TY_BOOL, 1),   WORD("TRUE", TY_BOOL, 1),   WORD("on", TY_BOOL, 1),
    WORD("On", TY_BOOL, 1),     WORD("ON", TY_BOOL, 1),     WORD("n", TY_BOOL, 0),
    WORD("N", TY_BOOL, 0),      WORD("no", TY_BOOL, 0),     WORD("No", TY_BOOL, 0),
    WORD("NO", TY_BOOL, 0),     WORD("false", TY_BOOL, 0),  WORD("False", TY_BOOL, 0),
    WORD("FALSE", TY_BOOL, 0),  WORD("off", TY_BOOL, 0),    WORD("Off", TY_BOOL, 0),
    WORD("OFF", TY_BOOL, 0),    WORD("~", TY_NULL, 0),      WORD("null", TY_NULL, 0),
    WORD("Null", TY_NULL, 0),   WORD("NULL", TY_NULL, 0),
    WORD(".inf", TY_FLOAT, INFINITY),     WORD(".Inf", TY_FLOAT, INFINITY),
    WORD(".INF", TY_FLOAT, INFINITY),     WORD("+.inf", TY_FLOAT, INFINITY),
    WORD("+.Inf", TY_FLOAT, INFINITY),    WORD("+.INF", TY_FLOAT, INFINITY),
    WORD("-.inf", TY_FLOAT, -INFINITY),   WORD("-.Inf", TY_FLOAT, -INFINITY),
    WORD("-.INF", TY_FLOAT, -INFINITY),   WORD(".nan", TY_FLOAT, NAN),
    WORD(".NaN", TY_FLOAT, NAN),          WORD(".NAN", TY_FLOAT, NAN),
};
#undef WORD
/* clang-format on */

/* Whether a plain scalar starting with c can be anything but a string. */
static bool maybe_typed(char c)
{
    return c != '\0' && memchr("0123456789+-.~yYnNtTfFoO", c, 24) != NULL;
}

static unsigned int digit_value(char c)
{
    if (c >= '0' && c <= '9')
        return (unsigned int)(c - '0');
    if (c >= 'a' && c <= 'f')
        return (unsigned int)(c - 'a' + 10);
    if (c >= 'A' && c <= 'F')
        return (unsigned int)(c - 'A' + 10);
    return 99;
}

/*
 * Parse p (n bytes, NUL-terminated, no underscores) as Go's
 * strconv.ParseInt(p, 0, 64) does: a sign, then 0x, 0o, 0b or a leading 0
 * (octal) or decimal digits. Returns 0 if p is not an integer, 1 with *out set,
 * or 2 with *big set if the integer does not fit in int64.
 */
static int parse_int(int64_t *out, double *big, const char *p, size_t n)
{
    uint64_t u = 0, limit;
    unsigned int base = 10, v;
    size_t i = 0;
    bool neg = false, over = false;
    double d = 0;

    if (n > 0 && (p[0] == '+' || p[0] == '-'))
        neg = p[i++] == '-';
    if (n - i >= 2 && p[i] == '0') {
        v = (unsigned int)(p[i + 1] | 0x20);
        base = v == 'x' ? 16 : v == 'b' ? 2 : 8;
        i += v == 'x' || v == 'b' || v == 'o' ? 2 : 1;
    }
    if (i == n)
        return 0;
    for (; i < n; i++) {
        v = digit_value(p[i]);
        if (v >= base)
            return 0;
        if (!over && u > (UINT64_MAX - v) / base)
            over = true;
        u = u * base + v;
        d = d * base + v;
    }
    limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    if (!over && u <= limit) {
        *out = !neg ? (int64_t)u : u == limit ? INT64_MIN : -(int64_t)u;
        return 1;
    }
    /* strtod rounds decimals correctly; the sum in d is close enough to fail any range check. */
    *big = base == 10 ? strtod(p, NULL) : neg ? -d : d;
    return 2;
}

static size_t skip_digits(const char *p, size_t n, size_t *i)
{
    size_t start = *i;

    while (*i < n && p[*i] >= '0' && p[*i] <= '9')
        (*i)++;
    return *i - start;
}

/* Whether p matches go-yaml's ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$ */
static bool is_float(const char *p, size_t n)
{
    size_t i = 0, whole;

    if (i < n && (p[i] == '+' || p[i] == '-'))
        i++;
    whole = skip_digits(p, n, &i);
    if (i < n && p[i] == '.') {
        i++;
        if (skip_digits(p, n, &i) == 0 && whole == 0)
            return false;
    } else if (whole == 0) {
        return false;
    }
    if (i < n && (p[i] == 'e' || p[i] == 'E')) {
        i++;
        if (i < n && (p[i] == '+' || p[i] == '-'))
            i++;
        if (skip_digits(p, n, &i) == 0)
            return false;
    }
    return i == n;
}

/*
 * Type s (n bytes, NUL-terminated) as an integer or a float, or return TY_STR
 * with *out untouched. A float, and an integer too large for int64, keeps its
 * text. Returns -1 if out of memory. strtod(3) follows LC_NUMERIC, which the
 * library expects to be "C", as json-c does.
 */
static int resolve_number(json_object **out, const char *s, size_t n)
{
    char small[64], *heap = NULL;
    const char *p = s;
    size_t i, m = n;
    int64_t iv;
    double dv;
    int kind, type = TY_STR;

    if (memchr(s, '_', n)) {
        char *q = n < sizeof(small) ? small : (heap = malloc(n + 1));
        if (!q)
            return -1;
        for (i = 0, m = 0; i < n; i++)
            if (s[i] != '_')
                q[m++] = s[i];
        q[m] = '\0';
        p = q;
    }
    kind = parse_int(&iv, &dv, p, m);
    if (kind == 1) {
        *out = json_object_new_int64(iv);
        type = TY_INT;
    } else if (kind == 2 || is_float(p, m)) {
        *out = json_object_new_double_s(kind == 2 ? dv : strtod(p, NULL), s);
        type = kind == 2 ? TY_INT : TY_FLOAT;
    }
    free(heap);
    return type != TY_STR && !*out ? -1 : type;
}

/*
 * Type a plain scalar (n bytes, NUL-terminated) and make its json-c value in
 * *out (NULL for null). Returns its type, or -1 if out of memory.
 */
static int resolve_plain(json_object **out, const char *s, size_t n)
{
    size_t i;
    int type;

    *out = NULL;
    if (n == 0)
        return TY_NULL;
    if (maybe_typed(s[0])) {
        for (i = 0; n <= 5 && i < sizeof(words) / sizeof(words[0]); i++) {
            if (words[i].len != n || memcmp(s, words[i].text, n) != 0)
                continue;
            if (words[i].type == TY_BOOL && (*out = json_object_new_boolean(words[i].value != 0)))
                /*
                 * Keep the word as written ("on", "yes") for messages: a label
                 * value `on` is reported as "on", not "true". Static text: nothing
                 * to free, no allocation.
                 */
                json_object_set_userdata(*out, (void *)(uintptr_t)words[i].text, NULL);
            else if (words[i].type == TY_FLOAT)
                *out = json_object_new_double_s(words[i].value, s);
            return words[i].type != TY_NULL && !*out ? -1 : (int)words[i].type;
        }
        type = resolve_number(out, s, n);
        if (type != TY_STR)
            return type;
    }
    *out = json_object_new_string_len(s, (int)n);
    return *out ? TY_STR : -1;
}

static enum type classify_tag(const char *tag)
{
    static const struct {
        const char *name;
        enum type type;
    } core[] = {
        {YAML_STR_TAG, TY_STR},   {YAML_INT_TAG, TY_INT},   {YAML_FLOAT_TAG, TY_FLOAT},
        {YAML_BOOL_TAG, TY_BOOL}, {YAML_NULL_TAG, TY_NULL}, {YAML_MAP_TAG, TY_MAP},
        {YAML_SEQ_TAG, TY_SEQ},
    };
    size_t i;

    if (!tag)
        return TY_NONE;
    if (strcmp(tag, "!") == 0)
        return TY_ANY;
    for (i = 0; i < sizeof(core) / sizeof(core[0]); i++)
        if (strcmp(tag, core[i].name) == 0)
            return core[i].type;
    return TY_BAD;
}

/* Reject a tag that is not a core one, or one that does not fit the node (want). */
static int
check_tag(struct reader *r, const yaml_event_t *ev, const char *tag, enum type *out, enum type want)
{
    static const char *const what[] = {
        [TY_MAP] = "a mapping", [TY_SEQ] = "a sequence", [TY_STR] = "a scalar"};
    char q[QUOTE_MAX];

    *out = classify_tag(tag);
    if (*out == TY_NONE || *out == TY_ANY || *out == want)
        return 0;
    if (*out == TY_BAD)
        return doc_error(r, ev_line(ev), "unsupported tag %s", quote_tag(q, sizeof(q), tag));
    if (want == TY_STR && *out != TY_MAP && *out != TY_SEQ)
        return 0;
    return doc_error(r, ev_line(ev), "tag %s cannot be used on %s", quote_tag(q, sizeof(q), tag),
                     what[want]);
}

/* The value of a scalar with an explicit core tag: !!int "12" is 12, !!int abc an error. */
static int tagged_scalar(struct reader *r, json_object **out, const yaml_event_t *ev, enum type tag)
{
    static const char *const names[] = {
        [TY_NULL] = "!!null", [TY_BOOL] = "!!bool", [TY_INT] = "!!int", [TY_FLOAT] = "!!float"};
    const char *s = (const char *)ev->data.scalar.value;
    size_t n = ev->data.scalar.length;
    char q[QUOTE_MAX];
    double d;
    int type;

    type = resolve_plain(out, s, n);
    if (type < 0)
        return oom(r);
    if (type == (int)tag)
        return 0;
    if (tag == TY_FLOAT && type == TY_INT) {
        d = json_object_get_double(*out);
        json_object_put(*out);
        *out = json_object_new_double_s(d, s);
        return *out ? 0 : oom(r);
    }
    json_object_put(*out);
    *out = NULL;
    return doc_error(r, ev_line(ev), "cannot decode %s as %s", quote(q, sizeof(q), s, n),
                     names[tag]);
}

/* The json-c value of a scalar event (NULL for null). */
static int scalar_value(struct reader *r, json_object **out, const yaml_event_t *ev)
{
    const char *s = (const char *)ev->data.scalar.value;
    size_t n = ev->data.scalar.length;
    enum type tag;
    int rc;

    rc = check_tag(r, ev, (const char *)ev->data.scalar.tag, &tag, TY_STR);
    if (rc)
        return rc;
    if (tag == TY_STR || tag == TY_ANY ||
        (tag == TY_NONE && ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)) {
        *out = json_object_new_string_len(s, (int)n);
        return *out ? 0 : oom(r);
    }
    if (tag != TY_NONE)
        return tagged_scalar(r, out, ev, tag);
    return resolve_plain(out, s, n) < 0 ? oom(r) : 0;
}

/* ------------------------------------------------------------------------ */
/* Building the document */

/* Make v (owned, NULL for null) the document root, which must be a mapping or null. */
static int set_root(struct reader *r, json_object *v, const yaml_event_t *ev)
{
    char q[QUOTE_MAX];

    if (!v || json_object_is_type(v, json_type_object)) {
        r->root = v;
        return 0;
    }
    json_object_put(v);
    if (ev->type != YAML_SCALAR_EVENT)
        return doc_error(r, ev_line(ev), "the document must be a mapping, not a sequence");
    return doc_error(
        r, ev_line(ev), "the document must be a mapping, not the scalar %s",
        quote(q, sizeof(q), (const char *)ev->data.scalar.value, ev->data.scalar.length));
}

/* Make v (owned; NULL for null) the root, the next item of a sequence or a pending key's value. */
static int attach(struct reader *r, json_object *v, const yaml_event_t *ev)
{
    struct lh_table *table;
    struct frame *top;
    int rc;

    if (r->depth == 0)
        return set_root(r, v, ev);
    top = &r->stack[r->depth - 1];
    if (!top->is_map) {
        rc = json_object_array_add(top->obj, v) ? oom(r) : 0;
    } else if (!top->key) {
        rc = doc_error(r, ev_line(ev), "a mapping key must be a scalar, not a %s",
                       ev->type == YAML_SEQUENCE_START_EVENT ? "sequence" : "mapping");
    } else {
        /*
         * What json_object_object_add_ex() does for a new key, without hashing
         * and copying the key again: the table now owns the malloc'd key and
         * frees it with the object, as it would its own strdup'd copy.
         */
        table = json_object_get_object(top->obj);
        rc = lh_table_insert_w_hash(table, top->key, v, top->key_hash, 0);
        if (rc)
            rc = oom(r);
        else
            top->key = NULL;
    }
    if (rc)
        json_object_put(v);
    return rc;
}

/* A scalar in key position: check it and keep its text until the value arrives. */
static int on_key(struct reader *r, struct frame *top, yaml_event_t *ev)
{
    char *key = (char *)ev->data.scalar.value;
    size_t n = ev->data.scalar.length;
    struct lh_table *table;
    char q[QUOTE_MAX];
    enum type tag;
    int rc;

    rc = check_tag(r, ev, (const char *)ev->data.scalar.tag, &tag, TY_STR);
    if (rc)
        return rc;
    if (memchr(key, '\0', n))
        return doc_error(r, ev_line(ev), "mapping key %s contains a NUL character",
                         quote(q, sizeof(q), key, n));
    if (n == 2 && key[0] == '<' && key[1] == '<' && tag == TY_NONE &&
        ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE)
        return doc_error(r, ev_line(ev), "YAML merge keys (<<) are not allowed");
    table = json_object_get_object(top->obj);
    top->key_hash = lh_get_hash(table, key);
    if (lh_table_lookup_entry_w_hash(table, key, top->key_hash))
        return doc_error(r, ev_line(ev), "duplicate key %s", quote(q, sizeof(q), key, n));
    /* Take the buffer over: yaml_event_delete() frees a NULL value harmlessly. */
    top->key = key;
    ev->data.scalar.value = NULL;
    return 0;
}

static int on_scalar(struct reader *r, yaml_event_t *ev)
{
    struct frame *top = r->depth > 0 ? &r->stack[r->depth - 1] : NULL;
    json_object *v;
    int rc;

    if (top && top->is_map && !top->key)
        return on_key(r, top, ev);
    rc = scalar_value(r, &v, ev);
    if (rc)
        return rc;
    return attach(r, v, ev);
}

static int on_collection_start(struct reader *r, const yaml_event_t *ev, bool is_map)
{
    const char *tag =
        (const char *)(is_map ? ev->data.mapping_start.tag : ev->data.sequence_start.tag);
    json_object *obj;
    enum type type;
    int rc;

    if (r->depth == GQ_MANIFEST_MAX_DEPTH)
        return doc_error(r, ev_line(ev), "nesting is deeper than %d levels", GQ_MANIFEST_MAX_DEPTH);
    rc = check_tag(r, ev, tag, &type, is_map ? TY_MAP : TY_SEQ);
    if (rc)
        return rc;
    obj = is_map ? json_object_new_object() : json_object_new_array();
    if (!obj)
        return oom(r);
    rc = attach(r, obj, ev);
    if (rc)
        return rc;
    r->stack[r->depth].obj = obj;
    r->stack[r->depth].key = NULL;
    r->stack[r->depth].is_map = is_map;
    r->depth++;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Handing documents to the callback */

/*
 * Whether obj is a list to expand: kind "List", or a kind ending in "List"
 * with an "items" array. Returns 1 with *items set (NULL for a List without
 * items), 0 if not, -1 for a "List" whose items are not a sequence.
 */
static int list_items(json_object *obj, json_object **items)
{
    json_object *kind;
    const char *k;
    size_t n;

    *items = NULL;
    if (!json_object_object_get_ex(obj, "kind", &kind) ||
        !json_object_is_type(kind, json_type_string))
        return 0;
    k = json_object_get_string(kind);
    n = (size_t)json_object_get_string_len(kind);
    if (n < 4 || memcmp(k + n - 4, "List", 4) != 0)
        return 0;
    json_object_object_get_ex(obj, "items", items);
    if (json_object_is_type(*items, json_type_array))
        return 1;
    if (n > 4)
        return 0;
    return *items ? -1 : 1;
}

/* One callback per item of a List, after checking every item is an object but no List. */
static int expand_list(struct reader *r, struct gq__doc *d, json_object *items)
{
    size_t i, n = items ? json_object_array_length(items) : 0;
    json_object *item, *inner;
    int rc;

    for (i = 0; i < n; i++) {
        item = json_object_array_get_idx(items, i);
        if (!json_object_is_type(item, json_type_object))
            return doc_error(r, r->doc_line, "item %zu of the List is not a mapping", i + 1);
        if (list_items(item, &inner) != 0)
            return doc_error(r, r->doc_line, "item %zu of the List is itself a List", i + 1);
    }
    for (i = 0; i < n; i++) {
        d->root = json_object_array_get_idx(items, i);
        d->item = (int)i + 1;
        rc = r->cb(d, r->payload, r->err);
        if (rc)
            return rc;
    }
    return 0;
}

static int end_document(struct reader *r)
{
    struct gq__doc d = {
        .root = r->root, .source = r->source, .index = r->doc, .line = (int)r->doc_line};
    json_object *items;
    int rc;

    r->in_doc = false;
    if (!r->root)
        return 0;
    rc = list_items(r->root, &items);
    if (rc < 0)
        rc = doc_error(r, r->doc_line, "the items of a List must be a sequence");
    else if (rc > 0)
        rc = expand_list(r, &d, items);
    else
        rc = r->cb(&d, r->payload, r->err);
    json_object_put(r->root);
    r->root = NULL;
    return rc;
}

/* ------------------------------------------------------------------------ */
/* The event loop */

static const char *event_anchor(const yaml_event_t *ev)
{
    switch (ev->type) {
    case YAML_SCALAR_EVENT:
        return (const char *)ev->data.scalar.anchor;
    case YAML_SEQUENCE_START_EVENT:
        return (const char *)ev->data.sequence_start.anchor;
    case YAML_MAPPING_START_EVENT:
        return (const char *)ev->data.mapping_start.anchor;
    default:
        return NULL;
    }
}

static int on_event(struct reader *r, yaml_event_t *ev)
{
    if (r->in_doc && ev->end_mark.index - r->doc_start > GQ_MANIFEST_MAX_DOC_BYTES)
        return doc_error(r, ev_line(ev), "the document is larger than %u bytes",
                         GQ_MANIFEST_MAX_DOC_BYTES);
    if (ev->type == YAML_ALIAS_EVENT || event_anchor(ev))
        return doc_error(r, ev_line(ev), "YAML anchors and aliases are not allowed");
    switch (ev->type) {
    case YAML_DOCUMENT_START_EVENT:
        r->doc++;
        r->in_doc = true;
        r->doc_line = ev_line(ev);
        r->doc_start = ev->start_mark.index;
        return 0;
    case YAML_DOCUMENT_END_EVENT:
        return end_document(r);
    case YAML_MAPPING_START_EVENT:
        return on_collection_start(r, ev, true);
    case YAML_SEQUENCE_START_EVENT:
        return on_collection_start(r, ev, false);
    case YAML_MAPPING_END_EVENT:
    case YAML_SEQUENCE_END_EVENT:
        r->depth--;
        return 0;
    case YAML_SCALAR_EVENT:
        return on_scalar(r, ev);
    default:
        return 0;
    }
}

static int read_events(struct reader *r, const char *buf, size_t len)
{
    yaml_event_t ev;
    bool done;
    int rc;

    for (;;) {
        if (!yaml_parser_parse(&r->parser, &ev))
            return syntax_error(r, buf, len);
        rc = on_event(r, &ev);
        done = ev.type == YAML_STREAM_END_EVENT;
        yaml_event_delete(&ev);
        if (rc || done)
            return rc;
    }
}

/* ------------------------------------------------------------------------ */
/* JSON surrogate pairs */

/* Whether the input is JSON text (first non-blank byte '{' or '[') with a "\uD8xx" escape. */
static bool needs_surrogate_fix(const char *buf, size_t len)
{
    const char *p = buf, *end = buf + len;

    if (len >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0)
        p += 3;
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
        p++;
    if (p == end || (*p != '{' && *p != '['))
        return false;
    while ((p = memchr(p, '\\', (size_t)(end - p))) != NULL && end - p >= 4) {
        if (p[1] == 'u' && (p[2] | 0x20) == 'd' && digit_value(p[3]) >= 8 &&
            digit_value(p[3]) <= 11)
            return true;
        p += p[1] == '\\' ? 2 : 1;
    }
    return false;
}

static long hex4(const char *p)
{
    long v = 0;
    int i;

    for (i = 0; i < 4; i++) {
        if (digit_value(p[i]) > 15)
            return -1;
        v = v * 16 + digit_value(p[i]);
    }
    return v;
}

/* If in[0..left) starts with "\uD8xx\uDCxx", write "\U000XXXXX" to out and return 1. */
static int rewrite_pair(char *out, const char *in, size_t left)
{
    long hi, lo;

    if (left < 12 || in[1] != 'u' || in[6] != '\\' || in[7] != 'u')
        return 0;
    hi = hex4(in + 2);
    lo = hex4(in + 8);
    if (hi < 0xd800 || hi > 0xdbff || lo < 0xdc00 || lo > 0xdfff)
        return 0;
    snprintf(out, 11, "\\U%08lX", 0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00));
    return 1;
}

/*
 * libyaml 0.2.5 rejects each half of a JSON surrogate pair escape
 * ("\ud83d\ude00", which JSON encoders emit for characters outside the Basic
 * Multilingual Plane) as an invalid escape. For JSON input that has one, the
 * reader parses a copy in which each pair inside a double-quoted string
 * becomes the same character as a YAML escape ("\U0001F600", 2 bytes
 * shorter), so every limit is still enforced by the one libyaml path. Only
 * double-quoted strings are touched: a quote starts one only where a token
 * can start, and single-quoted strings and comments are skipped. Columns in
 * error messages after a rewritten pair on the same line are 2 lower per pair.
 */
static char *fix_surrogates(const char *in, size_t len, size_t *out_len)
{
    char *out = malloc(len + 1);
    char state = 0, prev = ' ';
    size_t i = 0, o = 0;

    for (; out && i < len; prev = in[i++]) {
        char c = in[i];
        if (state == '"' && c == '\\' && rewrite_pair(out + o, in + i, len - i)) {
            o += 10;
            i += 11; /* the loop adds the twelfth */
            continue;
        }
        out[o++] = c;
        if (state == '"' && c == '\\' && i + 1 < len)
            out[o++] = in[++i];
        else if (state == 0 && (c == '"' || c == '\'') && memchr(" \t\r\n{[,:", prev, 8))
            state = c;
        else if (state == 0 && c == '#' && memchr(" \t\r\n", prev, 4))
            state = '#';
        else if ((state == c && c != '#') || (state == '#' && c == '\n'))
            state = 0;
    }
    *out_len = o;
    return out;
}

/* ------------------------------------------------------------------------ */
/* Entry points */

int gq__manifest_read(
    const char *buf, size_t len, const char *source, gq__doc_cb cb, void *payload, gq_error *err)
{
    struct reader r = {.source = source, .cb = cb, .payload = payload, .err = err};
    char *copy = NULL;
    int rc;

    GQ_ASSERT_ARG(buf || len == 0);
    GQ_ASSERT_ARG(source && cb);
    if (!buf)
        buf = "";
    if (len > GQ_MANIFEST_MAX_INPUT_BYTES)
        return gq__error(err, GQ_EINVALID, "%s: the input is larger than %u bytes", source,
                         GQ_MANIFEST_MAX_INPUT_BYTES);
    if (needs_surrogate_fix(buf, len)) {
        copy = fix_surrogates(buf, len, &len);
        if (!copy)
            return oom(&r);
        buf = copy;
    }
    if (!yaml_parser_initialize(&r.parser)) {
        free(copy);
        return oom(&r);
    }
    yaml_parser_set_input_string(&r.parser, (const unsigned char *)buf, len);
    rc = read_events(&r, buf, len);
    while (r.depth > 0)
        free(r.stack[--r.depth].key);
    json_object_put(r.root);
    yaml_parser_delete(&r.parser);
    free(copy);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Files, directories and standard input */

static int path_error(const char *path, int errnum, gq_error *err)
{
    char q[256], text[128];

    quote(q, sizeof(q), path, strlen(path));
    if (errnum == ENOENT || errnum == ENOTDIR)
        return gq__error(err, GQ_ENOTFOUND, "path %s: no such file or directory", q);
    if (strerror_r(errnum, text, sizeof(text)) != 0)
        snprintf(text, sizeof(text), "error %d", errnum);
    return gq__error(err, GQ_EIO, "path %s: %s", q, text);
}

static int too_large(const char *source, gq_error *err)
{
    return gq__error(err, GQ_EINVALID, "%s: the input is larger than %u bytes", source,
                     GQ_MANIFEST_MAX_INPUT_BYTES);
}

/*
 * Where the last document of buf[0, len) starts at the latest: the last "---"
 * or "..." at the start of a line, from scanned on (before is already
 * known: prev). A marker-like line that is not one ("----") only moves the
 * start later, which makes the caller's check more lenient, never wrong.
 */
static size_t last_boundary(const char *buf, size_t scanned, size_t len, size_t prev)
{
    const char *p = buf + scanned, *end = buf + len;

    if (scanned == 0 && len >= 3 && (!memcmp(buf, "---", 3) || !memcmp(buf, "...", 3)))
        prev = 0;
    while ((p = memchr(p, '\n', (size_t)(end - p))) && end - ++p >= 3)
        if (!memcmp(p, "---", 3) || !memcmp(p, "...", 3))
            prev = (size_t)(p - buf);
    return prev;
}

/*
 * An input of unknown size (a pipe, a FIFO, a device such as /dev/zero)
 * is read only as far as a document can go: once the text since the last
 * document boundary passes GQ_MANIFEST_MAX_DOC_BYTES it is refused, after at
 * most that many bytes plus one, instead of reading up to the 1 GiB input cap.
 */
struct limit {
    bool stream;     /* the size is unknown */
    size_t boundary; /* where the last document starts at the latest */
    size_t scanned;  /* bytes already searched for a boundary */
};

/* How many bytes to ask for next into a buffer of cap bytes holding len. */
static size_t next_read(const struct limit *l, size_t len, size_t cap)
{
    size_t want = cap - len, doc_end = l->boundary + GQ_MANIFEST_MAX_DOC_BYTES + 1;

    return l->stream && doc_end - len < want ? doc_end - len : want;
}

/* After a read: false when the last document is already too large. */
static bool within_document_cap(struct limit *l, const char *buf, size_t len)
{
    if (!l->stream)
        return true;
    l->boundary = last_boundary(buf, l->scanned, len, l->boundary);
    l->scanned = len >= 3 ? len - 3 : 0; /* a marker may straddle two reads */
    return len - l->boundary <= GQ_MANIFEST_MAX_DOC_BYTES;
}

/* Read all of f into a new buffer (*out, to free), up to GQ_MANIFEST_MAX_INPUT_BYTES. */
static int slurp(char **out, size_t *len_out, FILE *f, const char *source, gq_error *err)
{
    size_t cap = 1 << 16, len = 0, want, got;
    struct limit l = {true, 0, 0};
    struct stat st;
    char *buf, *bigger;
    bool doc_ok = true;

    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode)) {
        l.stream = false;
        if ((uintmax_t)st.st_size > GQ_MANIFEST_MAX_INPUT_BYTES)
            return too_large(source, err);
        if (st.st_size > 0)
            cap = (size_t)st.st_size + 1; /* one more, to see the end without growing */
    }
    buf = malloc(cap);
    while (buf) {
        want = next_read(&l, len, cap);
        len += got = fread(buf + len, 1, want, f);
        if (!(doc_ok = within_document_cap(&l, buf, len)) || got < want ||
            len > GQ_MANIFEST_MAX_INPUT_BYTES)
            break;
        if (len < cap)
            continue;
        /* Never more than one byte past the limit, which is enough to see it was passed. */
        cap = cap * 2 > GQ_MANIFEST_MAX_INPUT_BYTES ? GQ_MANIFEST_MAX_INPUT_BYTES + 1 : cap * 2;
        if (!(bigger = realloc(buf, cap)))
            free(buf);
        buf = bigger;
    }
    if (!buf)
        return gq__error(err, GQ_ENOMEM, "%s: out of memory", source);
    if (ferror(f) || !doc_ok || len > GQ_MANIFEST_MAX_INPUT_BYTES) {
        free(buf);
        if (ferror(f))
            return path_error(source, errno, err);
        return doc_ok ? too_large(source, err)
                      : gq__error(err, GQ_EINVALID, "%s: a document is larger than %u bytes",
                                  source, GQ_MANIFEST_MAX_DOC_BYTES);
    }
    *out = buf;
    *len_out = len;
    return 0;
}

static int read_stream(FILE *f, const char *source, gq__doc_cb cb, void *payload, gq_error *err)
{
    char *buf;
    size_t len;
    int rc;

    rc = slurp(&buf, &len, f, source, err);
    if (rc)
        return rc;
    rc = gq__manifest_read(buf, len, source, cb, payload, err);
    free(buf);
    return rc;
}

static int read_file(const char *path, gq__doc_cb cb, void *payload, gq_error *err)
{
    FILE *f = fopen(path, "rb");
    int rc;

    if (!f)
        return path_error(path, errno, err);
    rc = read_stream(f, path, cb, payload, err);
    fclose(f);
    return rc;
}

static bool is_manifest_name(const char *name)
{
    static const char *const exts[] = {".yaml", ".yml", ".json"};
    size_t i, n = strlen(name), e;

    for (i = 0; i < sizeof(exts) / sizeof(exts[0]); i++) {
        e = strlen(exts[i]);
        if (n > e && strcmp(name + n - e, exts[i]) == 0)
            return true;
    }
    return false;
}

/* dir/name as a new string, or NULL if out of memory. */
static char *join_path(const char *dir, const char *name)
{
    size_t d = strlen(dir), n = strlen(name);
    bool slash = d > 0 && dir[d - 1] != '/';
    char *p = malloc(d + slash + n + 1);

    if (p) {
        memcpy(p, dir, d);
        p[d] = '/';
        memcpy(p + d + slash, name, n + 1);
    }
    return p;
}

static int compare_paths(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Append dir/name to the list if it names a regular manifest file. */
static int add_entry(char ***paths, size_t *n, size_t *cap, const char *dir, const char *name)
{
    struct stat st;
    char *p, **grown;

    if (!is_manifest_name(name))
        return 0;
    p = join_path(dir, name);
    if (!p)
        return GQ_ENOMEM;
    if (stat(p, &st) != 0 || !S_ISREG(st.st_mode)) {
        free(p);
        return 0;
    }
    if (*n == *cap) {
        *cap = *cap ? *cap * 2 : 16;
        grown = realloc(*paths, *cap * sizeof(**paths));
        if (!grown) {
            free(p);
            return GQ_ENOMEM;
        }
        *paths = grown;
    }
    (*paths)[(*n)++] = p;
    return 0;
}

/* The sorted paths of dir's *.yaml, *.yml and *.json regular files. */
static int list_dir(char ***paths, size_t *n, const char *dir, gq_error *err)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    size_t cap = 0;
    int rc = 0;

    *paths = NULL;
    *n = 0;
    if (!d)
        return path_error(dir, errno, err);
    for (;;) {
        errno = 0; /* readdir(3) reports an error only through errno */
        de = readdir(d);
        if (!de) {
            rc = errno ? path_error(dir, errno, err) : 0;
            break;
        }
        rc = add_entry(paths, n, &cap, dir, de->d_name);
        if (rc) {
            rc = gq__error(err, GQ_ENOMEM, "path \"%s\": out of memory", dir);
            break;
        }
    }
    closedir(d);
    if (rc == 0 && *n > 1)
        gq__qsort(*paths, *n, sizeof(**paths), compare_paths);
    return rc;
}

static int read_dir(const char *dir, gq__doc_cb cb, void *payload, gq_error *err)
{
    char **paths, q[256];
    size_t i, n;
    int rc;

    rc = list_dir(&paths, &n, dir, err);
    if (rc == 0 && n == 0)
        rc = gq__error(err, GQ_EINVALID, "path %s: no *.yaml, *.yml or *.json files",
                       quote(q, sizeof(q), dir, strlen(dir)));
    for (i = 0; rc == 0 && i < n; i++)
        rc = read_file(paths[i], cb, payload, err);
    for (i = 0; i < n; i++)
        free(paths[i]);
    free(paths);
    return rc;
}

int gq__manifest_read_path(const char *path, gq__doc_cb cb, void *payload, gq_error *err)
{
    struct stat st;

    GQ_ASSERT_ARG(path && cb);
    if (strcmp(path, "-") == 0)
        return read_stream(stdin, "-", cb, payload, err);
    if (stat(path, &st) != 0)
        return path_error(path, errno, err);
    if (S_ISDIR(st.st_mode))
        return read_dir(path, cb, payload, err);
    return read_file(path, cb, payload, err);
}
