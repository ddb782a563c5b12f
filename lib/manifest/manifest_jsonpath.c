/*
 * manifest_jsonpath.c: kubectl's JSONPath over json-c trees
 * (manifest_jsonpath.h says what is accepted and how results print).
 *
 * The parser follows client-go's (util/jsonpath/parser.go) closely enough
 * that the same template means the same thing, quirks included: ['a.b'] is
 * re-read as .a.b (so a dot in a key needs its backslash there too), a union
 * [x,y] is re-read as [x] and [y], and a filter's operator is the run of
 * !<>= characters after its left side. A template is a list of parts: text,
 * an action (a path of steps), or a range (an action and the parts up to
 * its {end}).
 *
 * Sizes: a template is small and parsed once; evaluation keeps borrowed
 * pointers into the caller's tree, in arrays that grow by doubling.
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "manifest_jsonpath.h"
#include "util.h"

enum step_type { S_FIELD, S_WILDCARD, S_ARRAY, S_FILTER, S_UNION, S_RECURSIVE, S_LITERAL };

struct action;

struct slice_param {
    bool known, derived;
    int64_t v;
};

struct step {
    enum step_type type;
    char *field;              /* S_FIELD: the key */
    json_object *literal;     /* S_LITERAL: owned; NULL is JSON null (never parsed) */
    struct slice_param p[3];  /* S_ARRAY: start, end, step */
    char op[4];               /* S_FILTER: "exists" is op[0] == 0 */
    struct action *left;      /* S_FILTER */
    struct action *right;     /* S_FILTER; NULL for exists */
    struct action **alts;     /* S_UNION */
    size_t nalts;
};

struct action {
    struct step *steps;
    size_t n, cap;
};

enum part_type { P_TEXT, P_ACTION, P_RANGE };

struct part {
    enum part_type type;
    char *text;         /* P_TEXT */
    struct action *act; /* P_ACTION, P_RANGE */
    struct part *body;  /* P_RANGE: the parts up to {end} */
    size_t nbody;
};

struct gq__jp {
    struct part *parts;
    size_t n;
    char *text; /* the template, for messages */
};

/* Results: borrowed values (NULL is JSON null). */
struct vals {
    json_object **v;
    size_t n, cap;
    bool oom;
};

/* ------------------------------------------------------------- buffers */


static void vals_add(struct vals *r, json_object *v)
{
    json_object **p;
    size_t cap;

    if (r->oom)
        return;
    if (r->n == r->cap) {
        cap = r->cap ? r->cap * 2 : 8;
        if (!(p = realloc(r->v, cap * sizeof(*p)))) {
            r->oom = true;
            return;
        }
        r->v = p;
        r->cap = cap;
    }
    r->v[r->n++] = v;
}

/* --------------------------------------------------------------- freeing */

static void action_free(struct action *a);

static void step_clear(struct step *s)
{
    size_t i;

    free(s->field);
    json_object_put(s->literal);
    action_free(s->left);
    action_free(s->right);
    for (i = 0; i < s->nalts; i++)
        action_free(s->alts[i]);
    free(s->alts);
}

static void action_free(struct action *a)
{
    size_t i;

    if (!a)
        return;
    for (i = 0; i < a->n; i++)
        step_clear(&a->steps[i]);
    free(a->steps);
    free(a);
}

static void parts_free(struct part *parts, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++) {
        free(parts[i].text);
        action_free(parts[i].act);
        parts_free(parts[i].body, parts[i].nbody);
    }
    free(parts);
}

void gq__jp_free(struct gq__jp *jp)
{
    if (!jp)
        return;
    parts_free(jp->parts, jp->n);
    free(jp->text);
    free(jp);
}

/* --------------------------------------------------------------- parsing */

/* The text being parsed and where the first error went. */
struct parser {
    const char *s; /* the action's text (not NUL-terminated at end) */
    size_t pos, end;
    gq_error *err;
    const char *template; /* the whole template, for messages */
};

static int bad(struct parser *p, const char *what)
{
    return gq__error(p->err, GQ_EINVALID, "error parsing jsonpath %.200s, %s", p->template,
                         what);
}

static struct step *add_step(struct action *a, enum step_type type)
{
    struct step *p;
    size_t cap;

    if (a->n == a->cap) {
        cap = a->cap ? a->cap * 2 : 4;
        if (!(p = realloc(a->steps, cap * sizeof(*p))))
            return NULL;
        a->steps = p;
        a->cap = cap;
    }
    p = &a->steps[a->n++];
    memset(p, 0, sizeof(*p));
    p->type = type;
    return p;
}

static int parse_action_text(struct action **out, const char *s, size_t n, struct parser *outer);
static int parse_inside(struct parser *p, struct action *a);

static bool is_terminator(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '.' || c == ',' || c == '[' ||
           c == ']' || c == '$' || c == '@' || c == '{' || c == '}';
}

/* A field name up to a terminator; a backslash escapes the next character. */
static int parse_field(struct parser *p, struct action *a)
{
    size_t start = p->pos, k = 0;
    struct step *st;
    char *name;

    while (p->pos < p->end && !is_terminator(p->s[p->pos]))
        p->pos += p->s[p->pos] == '\\' && p->pos + 1 < p->end ? 2 : 1;
    if (!(name = malloc(p->pos - start + 1)))
        return gq__error(p->err, GQ_ENOMEM, "out of memory");
    for (size_t i = start; i < p->pos; i++)
        if (p->s[i] != '\\')
            name[k++] = p->s[i];
    name[k] = '\0';
    if (strcmp(name, "*") == 0) {
        free(name);
        return add_step(a, S_WILDCARD) ? GQ_OK : gq__error(p->err, GQ_ENOMEM, "out of memory");
    }
    if (!(st = add_step(a, S_FIELD))) {
        free(name);
        return gq__error(p->err, GQ_ENOMEM, "out of memory");
    }
    st->field = name;
    return GQ_OK;
}

/* A quoted string: "..." with C escapes, or '...'. */
static int parse_quote(struct parser *p, struct action *a)
{
    char q = p->s[p->pos++], *text;
    struct gq__str b = {NULL, 0, 0, false};
    struct step *st;

    while (p->pos < p->end && p->s[p->pos] != q) {
        char c = p->s[p->pos++];

        if (c == '\\' && p->pos < p->end) {
            c = p->s[p->pos++];
            c = c == 'n' ? '\n' : c == 't' ? '\t' : c == 'r' ? '\r' : c;
        }
        gq__str_add(&b, &c, 1);
    }
    if (p->pos >= p->end) {
        free(b.p);
        return bad(p, "unterminated quoted string");
    }
    p->pos++;
    text = b.p;
    if (b.failed || !(st = add_step(a, S_LITERAL)) ||
        !(st->literal = json_object_new_string(text ? text : ""))) {
        free(text);
        return gq__error(p->err, GQ_ENOMEM, "out of memory");
    }
    free(text);
    return GQ_OK;
}

/* A number (int or float) or true/false. */
static int parse_number(struct parser *p, struct action *a)
{
    size_t start = p->pos;
    char buf[64], *endp;
    struct step *st;
    bool is_float = false;

    if (p->s[p->pos] == '-')
        p->pos++;
    while (p->pos < p->end && ((p->s[p->pos] >= '0' && p->s[p->pos] <= '9') ||
                               p->s[p->pos] == '.' || p->s[p->pos] == 'e'))
        is_float |= p->s[p->pos++] != '\0' && strchr(".e", p->s[p->pos - 1]) != NULL;
    if (p->pos - start >= sizeof(buf))
        return bad(p, "number too long");
    memcpy(buf, p->s + start, p->pos - start);
    buf[p->pos - start] = '\0';
    if (!(st = add_step(a, S_LITERAL)))
        return gq__error(p->err, GQ_ENOMEM, "out of memory");
    if (is_float) {
        double d = strtod(buf, &endp);

        if (*endp || endp == buf)
            return bad(p, "cannot parse number");
        st->literal = json_object_new_double(d);
    } else {
        long long v = strtoll(buf, &endp, 10);

        if (*endp || endp == buf)
            return bad(p, "cannot parse number");
        st->literal = json_object_new_int64(v);
    }
    return st->literal ? GQ_OK : gq__error(p->err, GQ_ENOMEM, "out of memory");
}

/* [start:end:step] after client-go's sliceOperatorRex, "*" meaning ":". */
static int parse_slice(struct parser *p, struct action *a, const char *text, size_t n)
{
    struct slice_param prm[3] = {{false, false, 0}, {false, false, 0}, {false, false, 0}};
    size_t i = 0, part;
    struct step *st;

    for (part = 0; part < 3 && i <= n; part++) {
        size_t start = i;
        char num[24];

        if (part > 0) {
            if (i == n)
                break;
            if (text[i] != ':')
                return bad(p, "invalid array index");
            start = ++i;
        }
        if (i < n && text[i] == '-')
            i++;
        while (i < n && text[i] >= '0' && text[i] <= '9')
            i++;
        if (i - start >= sizeof(num) || (i - start == 1 && text[start] == '-'))
            return bad(p, "invalid array index");
        memcpy(num, text + start, i - start);
        num[i - start] = '\0';
        if (num[0]) {
            prm[part].known = true;
            prm[part].v = strtoll(num, NULL, 10);
        }
    }
    if (i != n)
        return bad(p, "invalid array index");
    if (!memchr(text, ':', n)) {
        prm[1].known = prm[1].derived = true; /* [i] is [i:i+1] */
        prm[1].v = prm[0].v + 1;
    }
    if (!(st = add_step(a, S_ARRAY)))
        return gq__error(p->err, GQ_ENOMEM, "out of memory");
    memcpy(st->p, prm, sizeof(prm));
    return GQ_OK;
}

/* The inside of [...]: a union, a 'key', or a slice. */
static int parse_brackets(struct parser *p, struct action *a, const char *text, size_t n)
{
    const char *comma = memchr(text, ',', n);
    char buf[512];
    struct step *st;
    int rc;

    if (n == 1 && text[0] == '*')
        return parse_slice(p, a, ":", 1);
    if (comma) { /* [x,y] is [x] and [y], each read again */
        if (!(st = add_step(a, S_UNION)))
            return gq__error(p->err, GQ_ENOMEM, "out of memory");
        while (n > 0) {
            size_t len = comma ? (size_t)(comma - text) : n, b = 0, e = len;
            struct action **alts;

            while (b < e && text[b] == ' ')
                b++;
            while (e > b && text[e - 1] == ' ')
                e--;
            if (e - b + 3 > sizeof(buf))
                return bad(p, "union element too long");
            snprintf(buf, sizeof(buf), "[%.*s]", (int)(e - b), text + b);
            if (!(alts = realloc(st->alts, (st->nalts + 1) * sizeof(*alts))))
                return gq__error(p->err, GQ_ENOMEM, "out of memory");
            st->alts = alts;
            if ((rc = parse_action_text(&st->alts[st->nalts], buf, strlen(buf), p)) != GQ_OK)
                return rc;
            st->nalts++;
            if (!comma)
                break;
            n -= len + 1;
            text = comma + 1;
            comma = memchr(text, ',', n);
        }
        return GQ_OK;
    }
    if (n >= 2 && text[0] == '\'' && text[n - 1] == '\'' && !memchr(text + 1, '\'', n - 2)) {
        struct parser sub = *p; /* ['k'] is .k, read again */

        if (n + 1 > sizeof(buf))
            return bad(p, "key too long");
        snprintf(buf, sizeof(buf), ".%.*s", (int)(n - 2), text + 1);
        sub.s = buf;
        sub.pos = 0;
        sub.end = strlen(buf);
        return parse_inside(&sub, a);
    }
    return parse_slice(p, a, text, n);
}

static int parse_array(struct parser *p, struct action *a)
{
    size_t start = ++p->pos;

    while (p->pos < p->end && p->s[p->pos] != ']' && p->s[p->pos] != '\n')
        p->pos++;
    if (p->pos >= p->end || p->s[p->pos] != ']')
        return bad(p, "unterminated array");
    p->pos++;
    return parse_brackets(p, a, p->s + start, p->pos - 1 - start);
}

/* [?(left OP right)] or [?(path)]: the operator is the first run of !<>= characters. */
static int parse_filter(struct parser *p, struct action *a)
{
    size_t start, i, opb, ope;
    bool begin = false, end = false;
    char pair = 0;
    struct step *st;
    int rc;

    p->pos += 3;
    start = p->pos;
    for (;;) {
        char c;

        if (p->pos >= p->end || p->s[p->pos] == '\n')
            return bad(p, "unterminated filter");
        c = p->s[p->pos++];
        if ((c == '"' || c == '\'') && !begin) {
            begin = true;
            pair = c;
        } else if ((c == '"' || c == '\'') && c == pair && p->s[p->pos - 2] != '\\') {
            end = true;
        } else if (c == ')' && begin == end) {
            break;
        }
    }
    if (p->pos >= p->end || p->s[p->pos++] != ']')
        return bad(p, "unclosed array expect ]");
    if (!(st = add_step(a, S_FILTER)))
        return gq__error(p->err, GQ_ENOMEM, "out of memory");
    ope = p->pos - 2; /* the filter's text is [start, ope) */
    for (opb = start; opb < ope && !strchr("!<>=", p->s[opb]); opb++)
        ;
    if (opb == ope || opb == start)
        return parse_action_text(&st->left, p->s + start, ope - start, p);
    for (i = opb; i < ope && strchr("!<>=", p->s[i]); i++)
        ;
    if (i - opb > 2 || i == ope)
        return bad(p, "unrecognized filter operator");
    memcpy(st->op, p->s + opb, i - opb);
    if ((rc = parse_action_text(&st->left, p->s + start, opb - start, p)) != GQ_OK)
        return rc;
    return parse_action_text(&st->right, p->s + i, ope - i, p);
}

static bool has_word(const struct parser *p, const char *w)
{
    size_t n = strlen(w);

    return p->end - p->pos >= n && memcmp(p->s + p->pos, w, n) == 0;
}

/* The steps of one action, up to the end of its text. */
static int parse_inside(struct parser *p, struct action *a)
{
    int rc = GQ_OK;

    while (rc == GQ_OK && p->pos < p->end) {
        char c = p->s[p->pos];

        if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '@' || c == '$') {
            p->pos++; /* @ and $ are the current object: the action starts there */
        } else if (c == '"' || c == '\'') {
            rc = parse_quote(p, a);
        } else if (has_word(p, "[?(")) {
            rc = parse_filter(p, a);
        } else if (c == '[') {
            rc = parse_array(p, a);
        } else if (has_word(p, "..")) {
            p->pos += 2;
            rc = add_step(a, S_RECURSIVE) ? GQ_OK : gq__error(p->err, GQ_ENOMEM, "out of memory");
            if (rc == GQ_OK && p->pos < p->end && !is_terminator(p->s[p->pos]))
                rc = parse_field(p, a);
        } else if (c == '.') {
            p->pos++;
            rc = parse_field(p, a);
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            rc = parse_number(p, a);
        } else if (has_word(p, "true") || has_word(p, "false")) {
            struct step *st = add_step(a, S_LITERAL);

            p->pos += has_word(p, "true") ? 4 : 5;
            rc = st && (st->literal = json_object_new_boolean(p->s[p->pos - 1] == 'e' &&
                                                              p->s[p->pos - 2] == 'u'))
                     ? GQ_OK
                     : gq__error(p->err, GQ_ENOMEM, "out of memory");
        } else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_') {
            rc = parse_field(p, a);
        } else {
            char what[48];

            snprintf(what, sizeof(what), "unrecognized character in action: '%c'", c);
            rc = bad(p, what);
        }
    }
    return rc;
}

static int parse_action_text(struct action **out, const char *s, size_t n, struct parser *outer)
{
    struct parser p = {s, 0, n, outer->err, outer->template};
    struct action *a;
    int rc;

    if (!(a = calloc(1, sizeof(*a))))
        return gq__error(outer->err, GQ_ENOMEM, "out of memory");
    if ((rc = parse_inside(&p, a)) != GQ_OK) {
        action_free(a);
        return rc;
    }
    *out = a;
    return GQ_OK;
}

static struct part *add_part(struct part **parts, size_t *n, enum part_type type)
{
    struct part *p = realloc(*parts, (*n + 1) * sizeof(**parts));

    if (!p)
        return NULL;
    *parts = p;
    p = &p[(*n)++];
    memset(p, 0, sizeof(*p));
    p->type = type;
    return p;
}

/* The end of the action that starts at s[i] == '{': its '}' outside quotes, or 0. */
static size_t action_end(const char *s, size_t i)
{
    char q = 0;

    for (i++; s[i]; i++) {
        if (q) {
            if (s[i] == '\\' && s[i + 1])
                i++;
            else if (s[i] == q)
                q = 0;
        } else if (s[i] == '"' || s[i] == '\'') {
            q = s[i];
        } else if (s[i] == '}') {
            return i;
        }
    }
    return 0;
}

/* Whether the action's text is just the keyword w (range's is followed by its path). */
static bool keyword(const char *s, size_t n, const char *w, size_t *rest)
{
    size_t k = strlen(w), i = 0;

    while (i < n && s[i] == ' ')
        i++;
    if (n - i < k || memcmp(s + i, w, k) != 0)
        return false;
    if (i + k < n && s[i + k] != ' ')
        return false;
    *rest = i + k;
    return true;
}

/* Parts from *pos up to an {end} (in_range) or the template's end. */
static int parse_parts(struct parser *p, struct part **parts, size_t *n, bool in_range)
{
    const char *t = p->template;
    size_t end, rest;
    struct part *part;
    int rc;

    while (t[p->pos]) {
        const char *brace = strchr(t + p->pos, '{');
        size_t len = brace ? (size_t)(brace - t) - p->pos : strlen(t + p->pos);

        if (len) {
            if (!(part = add_part(parts, n, P_TEXT)) || !(part->text = strndup(t + p->pos, len)))
                return gq__error(p->err, GQ_ENOMEM, "out of memory");
            p->pos += len;
            continue;
        }
        if (!(end = action_end(t, p->pos))) {
            struct action *inside = NULL; /* client-go says first what is wrong inside */

            rc = parse_action_text(&inside, t + p->pos + 1, strlen(t + p->pos + 1), p);
            action_free(inside);
            return rc != GQ_OK ? rc : bad(p, "unclosed action");
        }
        if (keyword(t + p->pos + 1, end - p->pos - 1, "end", &rest)) {
            p->pos = end + 1;
            if (!in_range)
                return bad(p, "not in range, nothing to end");
            return GQ_OK;
        }
        if (keyword(t + p->pos + 1, end - p->pos - 1, "range", &rest)) {
            if (!(part = add_part(parts, n, P_RANGE)))
                return gq__error(p->err, GQ_ENOMEM, "out of memory");
            if ((rc = parse_action_text(&part->act, t + p->pos + 1 + rest,
                                        end - p->pos - 1 - rest, p)) != GQ_OK)
                return rc;
            p->pos = end + 1;
            part = &(*parts)[*n - 1];
            if ((rc = parse_parts(p, &part->body, &part->nbody, true)) != GQ_OK)
                return rc;
            continue;
        }
        if (!(part = add_part(parts, n, P_ACTION)))
            return gq__error(p->err, GQ_ENOMEM, "out of memory");
        if ((rc = parse_action_text(&part->act, t + p->pos + 1, end - p->pos - 1, p)) != GQ_OK)
            return rc;
        p->pos = end + 1;
    }
    return GQ_OK;
}

int gq__jp_parse(struct gq__jp **out, const char *template, gq_error *err)
{
    struct parser p = {template, 0, strlen(template), err, template};
    struct gq__jp *jp;
    int rc;

    *out = NULL;
    if (!(jp = calloc(1, sizeof(*jp))) || !(jp->text = gq__strdup(template))) {
        free(jp);
        return gq__error(err, GQ_ENOMEM, "out of memory");
    }
    if ((rc = parse_parts(&p, &jp->parts, &jp->n, false)) != GQ_OK) {
        gq__jp_free(jp);
        return rc;
    }
    *out = jp;
    return GQ_OK;
}

int gq__jp_relaxed(char **out, const char *path, gq_error *err)
{
    size_t n = strlen(path);
    const char *s = path;

    *out = NULL;
    if (n >= 2 && s[0] == '{' && s[n - 1] == '}') {
        s++;
        n -= 2;
    }
    if (n && s[0] == '.') {
        s++;
        n--;
    }
    if (n == 0 || memchr(s, '{', n) || memchr(s, '}', n))
        return gq__error(err, GQ_EINVALID,
                             "unexpected path string \"%.100s\", expected a 'name1.name2' or "
                             "'.name1.name2' or '{name1.name2}' or '{.name1.name2}'",
                             path);
    if (!(*out = malloc(n + 4)))
        return gq__error(err, GQ_ENOMEM, "out of memory");
    snprintf(*out, n + 4, "{.%.*s}", (int)n, s);
    return GQ_OK;
}

/* ------------------------------------------------------------ evaluation */

struct eval {
    gq_error *err;
    const char *template;
};

static int eval_action(struct eval *ev, const struct action *a, json_object *cur,
                       struct vals *out);

static int run_error(struct eval *ev, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int run_error(struct eval *ev, const char *fmt, ...)
{
    char msg[160];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return gq__error(ev->err, GQ_EINVALID, "error executing jsonpath %.200s: %s",
                         ev->template, msg);
}

static int cmp_keys(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* An object's keys in byte order (Go sorts map keys so): malloc'd, *n set. */
const char **gq__jp_sorted_keys(json_object *o, size_t *n)
{
    const char **keys;
    size_t k = 0;

    *n = (size_t)json_object_object_length(o);
    if (!(keys = malloc((*n ? *n : 1) * sizeof(*keys))))
        return NULL;
    json_object_object_foreach(o, key, val)
    {
        (void)val;
        keys[k++] = key;
    }
    qsort(keys, k, sizeof(*keys), cmp_keys);
    return keys;
}

static int eval_field(const struct step *s, const struct vals *in, struct vals *out)
{
    json_object *v;
    size_t i;

    for (i = 0; i < in->n; i++) {
        if (!s->field[0]) {
            vals_add(out, in->v[i]);
        } else if (json_object_is_type(in->v[i], json_type_object) &&
                   json_object_object_get_ex(in->v[i], s->field, &v)) {
            vals_add(out, v);
        }
    }
    return GQ_OK;
}

static int eval_wildcard(const struct vals *in, struct vals *out)
{
    size_t i, k, n;

    for (i = 0; i < in->n; i++) {
        json_object *o = in->v[i];

        if (json_object_is_type(o, json_type_object)) {
            const char **keys = gq__jp_sorted_keys(o, &n);

            if (!keys) {
                out->oom = true;
                return GQ_OK;
            }
            for (k = 0; k < n; k++)
                vals_add(out, json_object_object_get(o, keys[k]));
            free(keys);
        } else if (json_object_is_type(o, json_type_array)) {
            for (k = 0; k < json_object_array_length(o); k++)
                vals_add(out, json_object_array_get_idx(o, k));
        }
    }
    return GQ_OK;
}

static int eval_array(struct eval *ev, const struct step *s, const struct vals *in,
                      struct vals *out)
{
    size_t i;

    for (i = 0; i < in->n; i++) {
        json_object *o = in->v[i];
        int64_t len, b, e, step = 1, k;

        if (!o)
            continue;
        if (!json_object_is_type(o, json_type_array))
            return gq__error(ev->err, GQ_EINVALID,
                                 "error executing jsonpath %.200s: %s is not array or slice",
                                 ev->template, json_type_to_name(json_object_get_type(o)));
        len = (int64_t)json_object_array_length(o);
        b = s->p[0].known ? s->p[0].v : 0;
        if (b < 0)
            b += len;
        e = s->p[1].known ? s->p[1].v : len;
        if (e < 0 || (e == 0 && s->p[1].derived))
            e += len;
        if (e == b)
            continue;
        if (b >= len || b < 0)
            return run_error(ev, "array index out of bounds: index %" PRId64 ", length %" PRId64,
                             b, len);
        if (e > len || e < 0)
            return run_error(ev, "array index out of bounds: index %" PRId64 ", length %" PRId64,
                             e - 1, len);
        if (b > e)
            return run_error(ev, "starting index %" PRId64 " is greater than ending index %" PRId64,
                             b, e);
        if (s->p[2].known) {
            if (s->p[2].v <= 0)
                return run_error(ev, "step must be > 0");
            step = s->p[2].v;
        }
        for (k = b; k < e; k += step)
            vals_add(out, json_object_array_get_idx(o, (size_t)k));
    }
    return GQ_OK;
}

static bool is_number(json_object *v)
{
    return json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double);
}

/* text/template's comparison of two scalars: *out -1, 0, 1; GQ_EINVALID when they cannot be. */
static int compare(struct eval *ev, json_object *l, json_object *r, const char *op, int *out)
{
    if (is_number(l) && is_number(r)) {
        if (json_object_is_type(l, json_type_int) && json_object_is_type(r, json_type_int)) {
            int64_t a = json_object_get_int64(l), b = json_object_get_int64(r);

            *out = a < b ? -1 : a > b;
        } else {
            double a = json_object_get_double(l), b = json_object_get_double(r);

            *out = a < b ? -1 : a > b;
        }
        return GQ_OK;
    }
    if (json_object_is_type(l, json_type_string) && json_object_is_type(r, json_type_string)) {
        int c = strcmp(json_object_get_string(l), json_object_get_string(r));

        *out = c < 0 ? -1 : c > 0;
        return GQ_OK;
    }
    if (json_object_is_type(l, json_type_boolean) && json_object_is_type(r, json_type_boolean) &&
        (strcmp(op, "==") == 0 || strcmp(op, "!=") == 0)) {
        *out = json_object_get_boolean(l) != json_object_get_boolean(r);
        return GQ_OK;
    }
    return gq__error(ev->err, GQ_EINVALID,
                         "error executing jsonpath %.200s: incompatible types for comparison",
                         ev->template);
}

static int filter_keeps(struct eval *ev, const struct step *s, json_object *el, bool *keep)
{
    struct vals l = {0}, r = {0};
    int rc, c = 0;

    *keep = false;
    if ((rc = eval_action(ev, s->left, el, &l)) != GQ_OK || l.n == 0)
        goto done;
    if (!s->op[0]) {
        *keep = true;
        goto done;
    }
    if ((rc = eval_action(ev, s->right, el, &r)) != GQ_OK || r.n == 0)
        goto done;
    if (l.n > 1 || r.n > 1) {
        rc = gq__error(ev->err, GQ_EINVALID,
                           "error executing jsonpath %.200s: can only compare one element at a "
                           "time",
                           ev->template);
        goto done;
    }
    if ((rc = compare(ev, l.v[0], r.v[0], s->op, &c)) != GQ_OK)
        goto done;
    if (strcmp(s->op, "==") == 0)
        *keep = c == 0;
    else if (strcmp(s->op, "!=") == 0)
        *keep = c != 0;
    else if (strcmp(s->op, "<") == 0)
        *keep = c < 0;
    else if (strcmp(s->op, ">") == 0)
        *keep = c > 0;
    else if (strcmp(s->op, "<=") == 0)
        *keep = c <= 0;
    else if (strcmp(s->op, ">=") == 0)
        *keep = c >= 0;
    else
        rc = gq__error(ev->err, GQ_EINVALID,
                           "error executing jsonpath %.200s: unrecognized filter operator %s",
                           ev->template, s->op);
done:
    free(l.v);
    free(r.v);
    return l.oom || r.oom ? gq__error(ev->err, GQ_ENOMEM, "out of memory") : rc;
}

static int eval_filter(struct eval *ev, const struct step *s, const struct vals *in,
                       struct vals *out)
{
    size_t i, k;
    bool keep;
    int rc;

    for (i = 0; i < in->n; i++) {
        json_object *o = in->v[i];

        if (!json_object_is_type(o, json_type_array))
            continue;
        for (k = 0; k < json_object_array_length(o); k++) {
            json_object *el = json_object_array_get_idx(o, k);

            if ((rc = filter_keeps(ev, s, el, &keep)) != GQ_OK)
                return rc;
            if (keep)
                vals_add(out, el);
        }
    }
    return GQ_OK;
}

/* Each value with every value nested in it, depth first (an object's by sorted key). */
static void recurse(json_object *o, struct vals *out)
{
    size_t k, n;

    if (json_object_is_type(o, json_type_object)) {
        const char **keys;

        if (json_object_object_length(o) == 0)
            return;
        if (!(keys = gq__jp_sorted_keys(o, &n))) {
            out->oom = true;
            return;
        }
        vals_add(out, o);
        for (k = 0; k < n; k++)
            recurse(json_object_object_get(o, keys[k]), out);
        free(keys);
    } else if (json_object_is_type(o, json_type_array) && json_object_array_length(o) > 0) {
        vals_add(out, o);
        for (k = 0; k < json_object_array_length(o); k++)
            recurse(json_object_array_get_idx(o, k), out);
    }
}

static int eval_step(struct eval *ev, const struct step *s, const struct vals *in,
                     struct vals *out)
{
    size_t i;
    int rc;

    switch (s->type) {
    case S_FIELD:
        return eval_field(s, in, out);
    case S_WILDCARD:
        return eval_wildcard(in, out);
    case S_ARRAY:
        return eval_array(ev, s, in, out);
    case S_FILTER:
        return eval_filter(ev, s, in, out);
    case S_RECURSIVE:
        for (i = 0; i < in->n; i++)
            recurse(in->v[i], out);
        return GQ_OK;
    case S_LITERAL:
        vals_add(out, s->literal);
        return GQ_OK;
    case S_UNION:
        for (i = 0; i < s->nalts; i++) {
            for (size_t k = 0; k < in->n; k++)
                if ((rc = eval_action(ev, s->alts[i], in->v[k], out)) != GQ_OK)
                    return rc;
        }
        return GQ_OK;
    }
    return GQ_OK;
}

/* The values an action finds from cur, appended to out. */
static int eval_action(struct eval *ev, const struct action *a, json_object *cur,
                       struct vals *out)
{
    struct vals in = {0}, next;
    size_t i;
    int rc = GQ_OK;

    vals_add(&in, cur);
    for (i = 0; i < a->n && rc == GQ_OK && in.n > 0; i++) {
        memset(&next, 0, sizeof(next));
        rc = eval_step(ev, &a->steps[i], &in, &next);
        free(in.v);
        in = next;
        if (in.oom)
            rc = gq__error(ev->err, GQ_ENOMEM, "out of memory");
    }
    for (i = 0; rc == GQ_OK && i < in.n; i++)
        vals_add(out, in.v[i]);
    free(in.v);
    return rc == GQ_OK && out->oom ? gq__error(ev->err, GQ_ENOMEM, "out of memory") : rc;
}

/* ------------------------------------------------------------- printing */

/*
 * A float as Go prints it: fmt's %v (strconv 'g' -1: an exponent below 1e-4
 * and from 1e6) or, for JSON, encoding/json's ('f' from 1e-6 up to 1e21,
 * else an exponent without its leading zero). Either way the shortest
 * digits that read back as d.
 */
static void put_float(struct gq__str *b, double d, bool json)
{
    char buf[64];
    int prec, exp;
    double a = fabs(d);
    bool efmt;

    for (prec = 0; prec < 17; prec++) {
        snprintf(buf, sizeof(buf), "%.*e", prec, d);
        if (strtod(buf, NULL) == d)
            break;
    }
    exp = a == 0 ? 0 : atoi(strchr(buf, 'e') + 1);
    efmt = json ? a != 0 && (a < 1e-6 || a >= 1e21) : exp < -4 || exp >= 6;
    if (!efmt)
        snprintf(buf, sizeof(buf), "%.*f", prec - exp > 0 ? prec - exp : 0, d);
    else if (json && buf[strlen(buf) - 2] == '0' && strchr(buf, 'e')[1] == '-')
        memmove(&buf[strlen(buf) - 2], &buf[strlen(buf) - 1], 2); /* e-07 -> e-7 */
    gq__str_puts(b, buf);
}

/* A string as Go's encoding/json writes it: <, > and & escaped too. */
static void put_json_string(struct gq__str *b, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    char esc[8];

    gq__str_add(b, "\"", 1);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;

        if (c == '"' || c == '\\') {
            esc[0] = '\\';
            esc[1] = (char)c;
            gq__str_add(b, esc, 2);
        } else if (c == '\n' || c == '\r' || c == '\t') {
            esc[0] = '\\';
            esc[1] = c == '\n' ? 'n' : c == '\r' ? 'r' : 't';
            gq__str_add(b, esc, 2);
        } else if (c < 0x20 || c == '<' || c == '>' || c == '&') {
            snprintf(esc, sizeof(esc), "\\u00%c%c", hex[c >> 4], hex[c & 15]);
            gq__str_add(b, esc, 6);
        } else {
            gq__str_add(b, s, 1);
        }
    }
    gq__str_add(b, "\"", 1);
}

static void put_scalar(struct gq__str *b, json_object *v, bool json)
{
    char buf[32];

    switch (json_object_get_type(v)) {
    case json_type_null:
        gq__str_puts(b, json ? "null" : "<nil>");
        break;
    case json_type_boolean:
        gq__str_puts(b, json_object_get_boolean(v) ? "true" : "false");
        break;
    case json_type_int:
        snprintf(buf, sizeof(buf), "%" PRId64, json_object_get_int64(v));
        gq__str_puts(b, buf);
        break;
    case json_type_double:
        put_float(b, json_object_get_double(v), json);
        break;
    case json_type_string:
        if (json)
            put_json_string(b, json_object_get_string(v));
        else
            gq__str_puts(b, json_object_get_string(v));
        break;
    default:
        break;
    }
}

/*
 * A map or list as Go writes it: json.Marshal's compact JSON, or fmt's %v
 * (map[k:v k:v], [a b]); keys sorted either way.
 */
static void put_value(struct gq__str *b, json_object *v, bool json)
{
    const char *sep = json ? "," : " ";
    size_t i, n;

    if (json_object_is_type(v, json_type_object)) {
        const char **keys = gq__jp_sorted_keys(v, &n);

        if (!keys) {
            b->failed = true;
            return;
        }
        gq__str_puts(b, json ? "{" : "map[");
        for (i = 0; i < n; i++) {
            if (i)
                gq__str_puts(b, sep);
            if (json)
                put_json_string(b, keys[i]);
            else
                gq__str_puts(b, keys[i]);
            gq__str_add(b, ":", 1);
            put_value(b, json_object_object_get(v, keys[i]), json);
        }
        gq__str_puts(b, json ? "}" : "]");
        free(keys);
    } else if (json_object_is_type(v, json_type_array)) {
        gq__str_add(b, "[", 1);
        for (i = 0; i < json_object_array_length(v); i++) {
            if (i)
                gq__str_puts(b, sep);
            put_value(b, json_object_array_get_idx(v, i), json);
        }
        gq__str_add(b, "]", 1);
    } else {
        put_scalar(b, v, json);
    }
}

void gq__jp_put_go(struct gq__str *b, json_object *v)
{
    put_value(b, v, false);
}

/* One action's results as client-go's PrintResults: maps and lists as JSON, a space between. */
static void print_results(struct gq__str *b, const struct vals *r)
{
    size_t i;

    for (i = 0; i < r->n; i++) {
        json_object *v = r->v[i];

        if (i)
            gq__str_add(b, " ", 1);
        if (json_object_is_type(v, json_type_object) || json_object_is_type(v, json_type_array))
            put_value(b, v, true);
        else if (!v)
            gq__str_puts(b, "null");
        else
            put_scalar(b, v, false);
    }
}

static int exec_parts(struct eval *ev, const struct part *parts, size_t n, json_object *cur,
                      struct gq__str *b)
{
    size_t i, k;
    int rc = GQ_OK;

    for (i = 0; i < n && rc == GQ_OK; i++) {
        struct vals r = {0};

        if (parts[i].type == P_TEXT) {
            gq__str_puts(b, parts[i].text);
            continue;
        }
        rc = eval_action(ev, parts[i].act, cur, &r);
        if (rc == GQ_OK && parts[i].type == P_ACTION)
            print_results(b, &r);
        for (k = 0; rc == GQ_OK && parts[i].type == P_RANGE && k < r.n; k++)
            rc = exec_parts(ev, parts[i].body, parts[i].nbody, r.v[k], b);
        free(r.v);
    }
    return rc == GQ_OK && b->failed ? gq__error(ev->err, GQ_ENOMEM, "out of memory") : rc;
}

int gq__jp_execute(const struct gq__jp *jp, json_object *root, struct gq__str *b,
                   gq_error *err)
{
    struct eval ev = {err, jp->text};

    return exec_parts(&ev, jp->parts, jp->n, root, b);
}

int gq__jp_find(const struct gq__jp *jp, json_object *root, json_object ***out, size_t *n,
                gq_error *err)
{
    struct eval ev = {err, jp->text};
    struct vals r = {0};
    size_t i;
    int rc = GQ_OK;

    for (i = 0; i < jp->n && rc == GQ_OK; i++)
        if (jp->parts[i].type != P_TEXT)
            rc = eval_action(&ev, jp->parts[i].act, root, &r);
    if (rc != GQ_OK) {
        free(r.v);
        r.v = NULL;
        r.n = 0;
    }
    *out = r.v;
    *n = r.n;
    return rc;
}
