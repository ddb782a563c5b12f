/*
 * manifest_get.c: kubectl get's selection and printers over the objects gpuq
 * has rendered as JSON (gpuqueue/tool.h, gq_get_*): label selectors
 * (apimachinery's labels.Parse: equality- and set-based), field selectors
 * (fields.ParseSelector, over the fields each resource supports), --sort-by
 * (kubectl's sorter: a JSONPath; numbers by value, strings byte by byte or
 * as quantities when both are one; objects without the field first), and the
 * printers -o jsonpath, -o custom-columns, -o json and -o yaml of what is
 * kept. The local database and the cluster go through the same code: both
 * hand over a List (or one object) as text.
 *
 * Sizes: the whole List is parsed into one json-c tree; a selection keeps
 * borrowed pointers to its items. This is the path only flags that need the
 * objects take; a plain table never comes here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "error.h"
#include "gpuqueue/quantity.h"
#include "gpuqueue/tool.h"
#include "gpuqueue/validate.h"
#include "manifest_fields.h"
#include "manifest_jsonpath.h"
#include "manifest_tree.h"
#include "util.h"

enum op { OP_EXISTS, OP_NOT_EXISTS, OP_IN, OP_NOT_IN, OP_GT, OP_LT };

/* One requirement of a label selector; = is IN with one value, != NOT_IN. */
struct label_req {
    char *key;
    enum op op;
    char **values; /* NULL-terminated */
    long long num; /* OP_GT, OP_LT */
};

/* One requirement of a field selector. */
struct field_req {
    const char *path; /* where the field is in the object */
    char *value;
    bool equal;
};

/* Everything the options say, parsed. */
struct getter {
    struct label_req *labels;
    size_t nlabels;
    struct field_req *fields;
    size_t nfields;
    struct gq__jp *sort;     /* --sort-by */
    char *sort_path;         /* as relaxed, for messages */
    struct gq__jp *template; /* -o jsonpath */
    struct gq__jp **cols;    /* -o custom-columns */
    char **headers;
    size_t ncols;
    bool no_headers;
};

static void getter_free(struct getter *g)
{
    size_t i, k;

    for (i = 0; i < g->nlabels; i++) {
        free(g->labels[i].key);
        for (k = 0; g->labels[i].values && g->labels[i].values[k]; k++)
            free(g->labels[i].values[k]);
        free(g->labels[i].values);
    }
    free(g->labels);
    for (i = 0; i < g->nfields; i++)
        free(g->fields[i].value);
    free(g->fields);
    gq__jp_free(g->sort);
    free(g->sort_path);
    gq__jp_free(g->template);
    for (i = 0; i < g->ncols; i++) {
        gq__jp_free(g->cols[i]);
        free(g->headers[i]);
    }
    free(g->cols);
    free(g->headers);
}

/* ------------------------------------------------------- label selectors */

static bool is_space(char c)
{
    return c == ' ' || c == '\t';
}

static char *trimmed(const char *s, size_t n)
{
    while (n && is_space(*s)) {
        s++;
        n--;
    }
    while (n && is_space(s[n - 1]))
        n--;
    return strndup(s, n);
}

static int bad_label(gq_error *err, const char *sel, const char *what, const char *near)
{
    return gq__error(err, GQ_EINVALID, "invalid label selector \"%.200s\": %s \"%.100s\"", sel,
                     what, near);
}

/* Split "a,b (c,d),e" at commas outside parentheses: *n parts, each malloc'd. */
static char **split_top(const char *s, size_t *n)
{
    char **parts = NULL, **p;
    size_t depth = 0, start = 0, i;

    *n = 0;
    for (i = 0;; i++) {
        if (s[i] == '(')
            depth++;
        else if (s[i] == ')' && depth)
            depth--;
        if (s[i] == '\0' || (s[i] == ',' && depth == 0)) {
            if (!(p = realloc(parts, (*n + 2) * sizeof(*p))))
                break;
            parts = p;
            if (!(parts[(*n)++] = trimmed(s + start, i - start)))
                break;
            parts[*n] = NULL;
            start = i + 1;
            if (!s[i])
                return parts;
        }
    }
    for (i = 0; parts && parts[i]; i++)
        free(parts[i]);
    free(parts);
    *n = 0;
    return NULL;
}

static void free_strv(char **v)
{
    for (size_t i = 0; v && v[i]; i++)
        free(v[i]);
    free(v);
}

/* "(a, b)" into values, each a valid label value. */
static int parse_set(struct label_req *r, const char *text, const char *sel, gq_error *err)
{
    size_t n = strlen(text), count, i;
    char *inner;
    gq_error verr;

    if (n < 2 || text[0] != '(' || text[n - 1] != ')')
        return bad_label(err, sel, "expected a set of values in parentheses, found", text);
    if (!(inner = strndup(text + 1, n - 2)))
        return gq__error(err, GQ_ENOMEM, "out of memory");
    r->values = split_top(inner, &count);
    free(inner);
    if (!r->values)
        return gq__error(err, GQ_ENOMEM, "out of memory");
    for (i = 0; i < count; i++) {
        if (count == 1 && !r->values[0][0])
            return bad_label(err, sel, "for 'in', 'notin' operators, values set can't be empty:",
                             text);
        if (gq_validate_label_value(r->values[i], &verr) != GQ_OK)
            return bad_label(err, sel, "invalid label value", r->values[i]);
    }
    return GQ_OK;
}

static int one_value(struct label_req *r, const char *value, gq_error *err)
{
    if (!(r->values = calloc(2, sizeof(*r->values))) || !(r->values[0] = gq__strdup(value)))
        return gq__error(err, GQ_ENOMEM, "out of memory");
    return GQ_OK;
}

/* key OP value for OP among = == != > <; the key and the value trimmed. */
static int parse_binary(struct label_req *r, const char *t, const char *sel, gq_error *err)
{
    size_t k = strcspn(t, "=!<>"), v = k;
    gq_error verr;
    char *value, *end;
    int rc;

    if (!(r->key = trimmed(t, k)))
        return gq__error(err, GQ_ENOMEM, "out of memory");
    if (t[k] == '<' || t[k] == '>') {
        r->op = t[k] == '>' ? OP_GT : OP_LT;
        v++;
    } else if (t[k] == '!' && t[k + 1] == '=') {
        r->op = OP_NOT_IN;
        v += 2;
    } else if (t[k] == '=') {
        r->op = OP_IN;
        v += t[k + 1] == '=' ? 2 : 1;
    } else {
        return bad_label(err, sel, "unable to parse requirement", t);
    }
    if (!(value = trimmed(t + v, strlen(t + v))))
        return gq__error(err, GQ_ENOMEM, "out of memory");
    if (r->op == OP_GT || r->op == OP_LT) {
        r->num = strtoll(value, &end, 10);
        rc = !*value || *end ? bad_label(err, sel, "for 'Gt', 'Lt' operators, the value must be "
                                                   "an integer:",
                                         value)
                             : GQ_OK;
    } else {
        rc = gq_validate_label_value(value, &verr) == GQ_OK
                 ? one_value(r, value, err)
                 : bad_label(err, sel, "invalid label value", value);
    }
    free(value);
    return rc;
}

/* "in (a,b)" or "notin (a)" after a key: *set_out the set's text, or NULL when it is neither. */
static enum op set_op(const char *rest, const char **set_out)
{
    *set_out = NULL;
    rest += strspn(rest, " \t");
    if (strncmp(rest, "notin", 5) == 0 && strchr(" \t(", rest[5]) && rest[5]) {
        *set_out = rest + 5 + strspn(rest + 5, " \t");
        return OP_NOT_IN;
    }
    if (strncmp(rest, "in", 2) == 0 && strchr(" \t(", rest[2]) && rest[2])
        *set_out = rest + 2 + strspn(rest + 2, " \t");
    return OP_IN;
}

/* One requirement: !key, key, key OP value, key in (...), key notin (...). */
static int parse_label_req(struct label_req *r, const char *t, const char *sel, gq_error *err)
{
    size_t k = strcspn(t, " \t=!<>(");
    const char *set = NULL;
    gq_error verr;
    int rc = GQ_OK;

    if (!*t)
        return bad_label(err, sel, "found an empty requirement in", sel);
    if (t[0] == '!') {
        r->op = OP_NOT_EXISTS;
        r->key = trimmed(t + 1, strlen(t + 1));
    } else if (t[k] == '\0') {
        r->op = OP_EXISTS;
        r->key = gq__strdup(t);
    } else if (strchr(" \t(", t[k]) && (r->op = set_op(t + k, &set), set)) {
        if ((r->key = strndup(t, k)) != NULL)
            rc = parse_set(r, set, sel, err);
    } else {
        rc = parse_binary(r, t, sel, err);
    }
    if (rc != GQ_OK)
        return rc;
    if (!r->key)
        return gq__error(err, GQ_ENOMEM, "out of memory");
    if (gq_validate_label_key(r->key, &verr) != GQ_OK)
        return bad_label(err, sel, "invalid label key", r->key);
    return GQ_OK;
}

static int parse_labels(struct getter *g, const char *sel, gq_error *err)
{
    char **parts;
    size_t n, i;
    int rc = GQ_OK;

    if (!sel || !*sel)
        return GQ_OK;
    if (!(parts = split_top(sel, &n)) || !(g->labels = calloc(n, sizeof(*g->labels)))) {
        free_strv(parts);
        return gq__error(err, GQ_ENOMEM, "out of memory");
    }
    for (i = 0; i < n && rc == GQ_OK; i++, g->nlabels++)
        rc = parse_label_req(&g->labels[i], parts[i], sel, err);
    free_strv(parts);
    return rc;
}

static bool label_matches(const struct label_req *r, json_object *labels)
{
    json_object *v = NULL;
    const char *have;
    bool has = json_object_object_get_ex(labels, r->key, &v) &&
               json_object_is_type(v, json_type_string);
    bool in = false;
    char *end;
    long long num;

    if (r->op == OP_EXISTS || r->op == OP_NOT_EXISTS)
        return has == (r->op == OP_EXISTS);
    have = has ? json_object_get_string(v) : NULL;
    if (r->op == OP_GT || r->op == OP_LT) {
        if (!have)
            return false;
        num = strtoll(have, &end, 10);
        return *have && !*end && (r->op == OP_GT ? num > r->num : num < r->num);
    }
    for (size_t i = 0; have && r->values[i]; i++)
        in |= strcmp(r->values[i], have) == 0;
    return r->op == OP_IN ? in : !in;
}

/* ------------------------------------------------------- field selectors */

/* The fields a resource's --field-selector knows, and where each is in the object. */
static const struct {
    const char *resource; /* NULL: every resource */
    const char *field;
    const char *path;
} field_table[] = {
    {NULL, "metadata.name", "metadata.name"},
    {NULL, "metadata.namespace", "metadata.namespace"},
    {"workload", "status.state", "status.gpuq.state"},
    {"workload", "spec.queueName", "spec.queueName"},
    {"localqueue", "spec.clusterQueue", "spec.clusterQueue"},
    {"clusterqueue", "spec.cohort", "spec.cohort"},
};

static const char *field_path(const char *resource, const char *field)
{
    size_t i;

    for (i = 0; i < sizeof(field_table) / sizeof(field_table[0]); i++)
        if ((!field_table[i].resource ||
             (resource && strcmp(field_table[i].resource, resource) == 0)) &&
            strcmp(field_table[i].field, field) == 0)
            return field_table[i].path;
    return NULL;
}

/* One term "field=value", "field==value" or "field!=value"; \, \= \\ escape in the value. */
static int parse_field_req(struct field_req *r, const char *t, const char *resource,
                           const char *sel, gq_error *err)
{
    size_t k = strcspn(t, "=!"), i, n = 0;
    char *field, *v;

    if (!t[k] || (t[k] == '!' && t[k + 1] != '='))
        return gq__error(err, GQ_EINVALID, "invalid field selector \"%.200s\": can't understand "
                         "\"%.100s\"",
                         sel, t);
    r->equal = t[k] == '=';
    if (!(field = trimmed(t, k)))
        return gq__error(err, GQ_ENOMEM, "out of memory");
    r->path = field_path(resource, field);
    if (!r->path) {
        gq__error(err, GQ_EINVALID, "field label not supported: %.100s", field);
        free(field);
        return GQ_EINVALID;
    }
    free(field);
    t += k + (t[k] == '!' || t[k + 1] == '=' ? 2 : 1);
    if (!(r->value = v = malloc(strlen(t) + 1)))
        return gq__error(err, GQ_ENOMEM, "out of memory");
    for (i = 0; t[i]; i++)
        v[n++] = t[i] == '\\' && t[i + 1] ? t[++i] : t[i];
    v[n] = '\0';
    return GQ_OK;
}

static int parse_fields(struct getter *g, const char *sel, const char *resource, gq_error *err)
{
    size_t count = 1, i, start = 0, k = 0;
    int rc = GQ_OK;
    char *t;

    if (!sel || !*sel)
        return GQ_OK;
    for (i = 0; sel[i]; i++)
        count += sel[i] == ',' && (i == 0 || sel[i - 1] != '\\');
    if (!(g->fields = calloc(count, sizeof(*g->fields))))
        return gq__error(err, GQ_ENOMEM, "out of memory");
    for (i = 0; rc == GQ_OK; i++) {
        if (sel[i] && !(sel[i] == ',' && (i == 0 || sel[i - 1] != '\\')))
            continue;
        if (!(t = trimmed(sel + start, i - start)))
            return gq__error(err, GQ_ENOMEM, "out of memory");
        if (*t) {
            rc = parse_field_req(&g->fields[k++], t, resource, sel, err);
            g->nfields = k;
        }
        free(t);
        start = i + 1;
        if (!sel[i])
            break;
    }
    return rc;
}

static json_object *get_path(json_object *o, const char *path)
{
    return gq__mf_path(o, path, strlen(path), false);
}

static bool fields_match(const struct getter *g, json_object *item)
{
    size_t i;

    for (i = 0; i < g->nfields; i++) {
        json_object *v = get_path(item, g->fields[i].path);
        const char *have = json_object_is_type(v, json_type_string) ? json_object_get_string(v)
                                                                     : "";

        if ((strcmp(have, g->fields[i].value) == 0) != g->fields[i].equal)
            return false;
    }
    return true;
}

static bool selected(const struct getter *g, json_object *item)
{
    json_object *labels = get_path(item, "metadata.labels");
    size_t i;

    for (i = 0; i < g->nlabels; i++)
        if (!label_matches(&g->labels[i], labels))
            return false;
    return fields_match(g, item);
}

/* --------------------------------------------------------------- columns */

static int add_column(struct getter *g, const char *header, size_t hn, const char *path,
                      gq_error *err)
{
    struct gq__jp **cols;
    char **headers, *relaxed;
    int rc;

    if (!(cols = realloc(g->cols, (g->ncols + 1) * sizeof(*cols))))
        return gq__error(err, GQ_ENOMEM, "out of memory");
    g->cols = cols;
    if (!(headers = realloc(g->headers, (g->ncols + 1) * sizeof(*headers))))
        return gq__error(err, GQ_ENOMEM, "out of memory");
    g->headers = headers;
    if ((rc = gq__jp_relaxed(&relaxed, path, err)) != GQ_OK)
        return rc;
    rc = gq__jp_parse(&g->cols[g->ncols], relaxed, err);
    free(relaxed);
    if (rc != GQ_OK)
        return rc;
    if (!(g->headers[g->ncols++] = strndup(header, hn)))
        return gq__error(err, GQ_ENOMEM, "out of memory");
    return GQ_OK;
}

/* "HEADER:path,HEADER:path" as kubectl splits it (at every comma, then at the first colon). */
static int parse_columns(struct getter *g, const char *spec, gq_error *err)
{
    char *copy, *part, *save = NULL, *colon;
    int rc = GQ_OK;

    if (!*spec)
        return gq__error(err, GQ_EINVALID,
                         "custom-columns format specified but no custom columns given");
    if (!(copy = gq__strdup(spec)))
        return gq__error(err, GQ_ENOMEM, "out of memory");
    for (part = strtok_r(copy, ",", &save); part && rc == GQ_OK; part = strtok_r(NULL, ",", &save)) {
        if (!(colon = strchr(part, ':')))
            rc = gq__error(err, GQ_EINVALID,
                           "unexpected custom-columns spec: %.100s, expected "
                           "<header>:<json-path-expr>",
                           part);
        else
            rc = add_column(g, part, (size_t)(colon - part), colon + 1, err);
    }
    free(copy);
    return rc;
}

/* A custom-columns file: a line of headers, then a line of paths, separated by blanks. */
static int parse_columns_file(struct getter *g, const char *text, gq_error *err)
{
    const char *line2 = strchr(text, '\n'), *h = text, *p;
    size_t hn, pn;
    char path[512];
    int rc;

    if (!line2)
        return gq__error(err, GQ_EINVALID, "custom-columns file: expected a line of headers "
                                           "and a line of paths");
    p = line2 + 1;
    for (;;) {
        h += strspn(h, " \t\r");
        p += strspn(p, " \t\r");
        hn = h < line2 ? strcspn(h, " \t\r\n") : 0;
        pn = strcspn(p, " \t\r\n");
        if (!hn && !pn)
            return g->ncols ? GQ_OK : gq__error(err, GQ_EINVALID, "custom-columns file: no "
                                                                  "columns");
        if (!hn || !pn || pn >= sizeof(path))
            return gq__error(err, GQ_EINVALID, "custom-columns file: the number of headers "
                                               "and of paths differ");
        memcpy(path, p, pn);
        path[pn] = '\0';
        if ((rc = add_column(g, h, hn, path, err)) != GQ_OK)
            return rc;
        h += hn;
        p += pn;
    }
}

static int getter_init(struct getter *g, const gq_get_options *o, gq_error *err)
{
    int rc;

    memset(g, 0, sizeof(*g));
    if ((rc = gq__version_check(o->version, GQ_GET_OPTIONS_VERSION, "gq_get_options", err)))
        return rc;
    g->no_headers = o->no_headers;
    if ((rc = parse_labels(g, o->label_selector, err)) != GQ_OK ||
        (rc = parse_fields(g, o->field_selector, o->resource, err)) != GQ_OK)
        return rc;
    if (o->sort_by && *o->sort_by &&
        ((rc = gq__jp_relaxed(&g->sort_path, o->sort_by, err)) != GQ_OK ||
         (rc = gq__jp_parse(&g->sort, g->sort_path, err)) != GQ_OK))
        return rc;
    if (o->jsonpath && (rc = gq__jp_parse(&g->template, o->jsonpath, err)) != GQ_OK)
        return rc;
    if (o->columns)
        return o->columns_file ? parse_columns_file(g, o->columns, err)
                               : parse_columns(g, o->columns, err);
    return GQ_OK;
}

int gq_get_check(const gq_get_options *o, gq_error *err)
{
    struct getter g;
    int rc = getter_init(&g, o, err);

    getter_free(&g);
    return rc;
}

/* ---------------------------------------------------------------- sorting */

static int value_cmp(json_object *a, json_object *b)
{
    gq_quantity qa, qb;
    const char *sa, *sb;

    if (json_object_is_type(a, json_type_int) && json_object_is_type(b, json_type_int))
        return json_object_get_int64(a) < json_object_get_int64(b)   ? -1
               : json_object_get_int64(a) > json_object_get_int64(b) ? 1
                                                                     : 0;
    if ((json_object_is_type(a, json_type_int) || json_object_is_type(a, json_type_double)) &&
        (json_object_is_type(b, json_type_int) || json_object_is_type(b, json_type_double)))
        return json_object_get_double(a) < json_object_get_double(b)   ? -1
               : json_object_get_double(a) > json_object_get_double(b) ? 1
                                                                       : 0;
    if (json_object_is_type(a, json_type_boolean) && json_object_is_type(b, json_type_boolean))
        return json_object_get_boolean(a) - json_object_get_boolean(b);
    sa = json_object_get_string(a);
    sb = json_object_get_string(b);
    if (json_object_is_type(a, json_type_string) && json_object_is_type(b, json_type_string) &&
        gq_quantity_parse(&qa, sa, strlen(sa), NULL) == GQ_OK &&
        gq_quantity_parse(&qb, sb, strlen(sb), NULL) == GQ_OK)
        return gq_quantity_cmp(&qa, &qb);
    return strcmp(sa ? sa : "", sb ? sb : "");
}

struct keyed {
    json_object *item;
    json_object *key; /* the first value the sort path finds; NULL: none */
    bool has;
    size_t index; /* the order before sorting: the sort is stable */
};

static int keyed_cmp(const void *pa, const void *pb)
{
    const struct keyed *a = pa, *b = pb;
    int c = 0;

    /*
     * An object without the field comes first. kubectl's comparator calls two
     * such objects each less than the other, so their order there is whatever
     * its sort algorithm leaves; here it is the order they came in.
     */
    if (!a->has || !b->has)
        c = a->has - b->has;
    else
        c = value_cmp(a->key, b->key);
    return c ? c : (a->index < b->index ? -1 : 1);
}

/* The selection sorted by the sort path. */
static int sort_items(const struct getter *g, json_object **items, size_t n, gq_error *err)
{
    struct keyed *k;
    json_object **found;
    size_t i, nf;
    bool any = false;
    int rc = GQ_OK;

    if (!(k = calloc(n ? n : 1, sizeof(*k))))
        return gq__error(err, GQ_ENOMEM, "out of memory");
    for (i = 0; i < n && rc == GQ_OK; i++) {
        k[i].item = items[i];
        k[i].index = i;
        if ((rc = gq__jp_find(g->sort, items[i], &found, &nf, err)) == GQ_OK && nf) {
            k[i].key = found[0];
            k[i].has = any = true;
        }
        free(found);
    }
    if (rc == GQ_OK && n && !any)
        rc = gq__error(err, GQ_EINVALID,
                       "couldn't find any field with path \"%.200s\" in the list of objects",
                       g->sort_path);
    if (rc == GQ_OK) {
        qsort(k, n, sizeof(*k), keyed_cmp);
        for (i = 0; i < n; i++)
            items[i] = k[i].item;
    }
    free(k);
    return rc;
}

/* ------------------------------------------------------------- selection */

/* The objects json holds, selected and sorted. */
struct selection {
    json_object *root; /* owned: the parsed text */
    bool list;         /* root is a List */
    json_object **items;
    size_t n;
};

static int select_items(struct selection *s, const struct getter *g, const char *json,
                        gq_error *err)
{
    json_tokener *tok;
    json_object *items;
    size_t i, len;

    memset(s, 0, sizeof(*s));
    if (!(tok = json_tokener_new_ex(64)))
        return gq__error(err, GQ_ENOMEM, "out of memory");
    s->root = json_tokener_parse_ex(tok, json, (int)strlen(json));
    json_tokener_free(tok);
    if (!json_object_is_type(s->root, json_type_object))
        return gq__error(err, GQ_EINVALID, "the objects to print are not a JSON object");
    s->list = json_object_object_get_ex(s->root, "items", &items) &&
              json_object_is_type(items, json_type_array);
    len = s->list ? json_object_array_length(items) : 1;
    if (!(s->items = calloc(len ? len : 1, sizeof(*s->items))))
        return gq__error(err, GQ_ENOMEM, "out of memory");
    for (i = 0; i < len; i++) {
        json_object *it = s->list ? json_object_array_get_idx(items, i) : s->root;

        if (selected(g, it))
            s->items[s->n++] = it;
    }
    return g->sort ? sort_items(g, s->items, s->n, err) : GQ_OK;
}

static void selection_free(struct selection *s)
{
    json_object_put(s->root);
    free(s->items);
}

/* The selection as a List, kubectl's (apiVersion v1, kind List), or its one object. */
static json_object *as_list(const struct selection *s)
{
    json_object *list, *items, *meta;
    size_t i;

    if (!s->list)
        return json_object_get(s->root);
    list = json_object_new_object();
    items = json_object_new_array();
    meta = json_object_new_object();
    json_object_object_add(list, "apiVersion", json_object_new_string("v1"));
    for (i = 0; i < s->n; i++)
        json_object_array_add(items, json_object_get(s->items[i]));
    json_object_object_add(list, "items", items);
    json_object_object_add(list, "kind", json_object_new_string("List"));
    json_object_object_add(meta, "resourceVersion", json_object_new_string(""));
    json_object_object_add(list, "metadata", meta);
    return list;
}

/* -------------------------------------------------------------- printing */

static size_t utf8_width(const char *s)
{
    size_t n = 0;

    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

/* One custom column of one object: its values joined by ",", or <none>. */
static int column_cell(const struct gq__jp *jp, json_object *item, struct gq__str *b,
                       gq_error *err)
{
    json_object **v;
    size_t n, i;
    int rc;

    if ((rc = gq__jp_find(jp, item, &v, &n, err)) != GQ_OK)
        return rc;
    if (n == 0)
        gq__str_add(b, "<none>", 6);
    for (i = 0; i < n; i++) {
        if (i)
            gq__str_add(b, ",", 1);
        gq__jp_put_go(b, v[i]);
    }
    free(v);
    gq__str_add(b, "", 1); /* keep the NUL: cells are stored end to end */
    return b->failed ? gq__error(err, GQ_ENOMEM, "out of memory") : GQ_OK;
}

/*
 * kubectl's custom-columns: cells through Go's tabwriter as kubectl sets it
 * (minimum width 6, padding 3, the last column not padded).
 */
static int print_columns(const struct getter *g, const struct selection *s,
                         struct gq__str *out, gq_error *err)
{
    struct gq__str cells = {NULL, 0, 0, false};
    size_t *width, rows = s->n + !g->no_headers, r, c, off = 0, w;
    int rc = GQ_OK;

    if (!(width = calloc(g->ncols, sizeof(*width))))
        return gq__error(err, GQ_ENOMEM, "out of memory");
    for (r = 0; r < rows && rc == GQ_OK; r++)
        for (c = 0; c < g->ncols && rc == GQ_OK; c++) {
            size_t start = cells.len;

            if (!g->no_headers && r == 0)
                gq__str_add(&cells, g->headers[c], strlen(g->headers[c]) + 1);
            else
                rc = column_cell(g->cols[c], s->items[r - !g->no_headers], &cells, err);
            if (rc == GQ_OK && !cells.failed && (w = utf8_width(cells.p + start)) + 3 > width[c])
                width[c] = w + 3;
        }
    for (r = 0; r < rows && rc == GQ_OK && !cells.failed; r++)
        for (c = 0; c < g->ncols; c++) {
            const char *cell = cells.p + off;

            off += strlen(cell) + 1;
            gq__str_add(out, cell, strlen(cell));
            if (c + 1 == g->ncols) {
                gq__str_add(out, "\n", 1);
                continue;
            }
            for (w = utf8_width(cell); w < (width[c] > 6 ? width[c] : 6); w++)
                gq__str_add(out, " ", 1);
        }
    free(width);
    free(cells.p);
    if (rc == GQ_OK && (cells.failed || out->failed))
        rc = gq__error(err, GQ_ENOMEM, "out of memory");
    return rc;
}

static int print_tree(const struct selection *s, gq_format format, gq_write_fn fn,
                      void *payload, gq_error *err)
{
    struct gq__mf_printer *p;
    size_t i;
    int rc;

    if ((rc = gq__mf_printer_new(&p, format, s->list, fn, payload, NULL, NULL, err)) != GQ_OK)
        return rc;
    for (i = 0; i < s->n && rc == GQ_OK; i++)
        rc = gq__mf_printer_tree(p, s->items[i]);
    if (rc == GQ_OK)
        rc = gq__mf_printer_end(p, NULL);
    gq__mf_printer_free(p);
    return rc == GQ_ENOMEM ? gq__error(err, GQ_ENOMEM, "out of memory") : rc;
}

int gq_get_print(const char *json, const gq_get_options *o, gq_format format, gq_write_fn fn,
                 void *payload, gq_error *err)
{
    struct gq__str out = {NULL, 0, 0, false};
    struct selection s;
    struct getter g;
    json_object *doc;
    int rc;

    memset(&s, 0, sizeof(s));
    if ((rc = getter_init(&g, o, err)) != GQ_OK ||
        (rc = select_items(&s, &g, json, err)) != GQ_OK) {
        selection_free(&s);
        getter_free(&g);
        return rc;
    }
    if (g.template) {
        if (!(doc = as_list(&s)))
            rc = gq__error(err, GQ_ENOMEM, "out of memory");
        else
            rc = gq__jp_execute(g.template, doc, &out, err);
        json_object_put(doc);
    } else if (g.ncols) {
        rc = print_columns(&g, &s, &out, err);
    } else {
        rc = print_tree(&s, format, fn, payload, err);
    }
    if (rc == GQ_OK && out.len && fn(out.p, out.len, payload) != 0)
        rc = gq__error(err, GQ_EIO, "writing output failed");
    free(out.p);
    selection_free(&s);
    getter_free(&g);
    return rc;
}

/* "k=v,k=v" in key order, as kubectl's --show-labels. */
static int labels_text(json_object *labels, struct gq__str *b)
{
    const char **keys;
    size_t i, n;

    if (!json_object_is_type(labels, json_type_object))
        return GQ_OK;
    if (!(keys = gq__jp_sorted_keys(labels, &n)))
        return GQ_ENOMEM;
    for (i = 0; i < n; i++) {
        const char *k = keys[i];
        json_object *v = json_object_object_get(labels, k);

        if (i)
            gq__str_add(b, ",", 1);
        gq__str_add(b, k, strlen(k));
        gq__str_add(b, "=", 1);
        gq__str_add(b, json_object_get_string(v), strlen(json_object_get_string(v)));
    }
    free(keys);
    return b->failed ? GQ_ENOMEM : GQ_OK;
}

int gq_get_items(const char *json, const gq_get_options *o, gq_get_item_fn fn, void *payload,
                 gq_error *err)
{
    struct selection s;
    struct getter g;
    size_t i;
    int rc;

    memset(&s, 0, sizeof(s));
    if ((rc = getter_init(&g, o, err)) == GQ_OK)
        rc = select_items(&s, &g, json, err);
    for (i = 0; rc == GQ_OK && i < s.n; i++) {
        json_object *ns = get_path(s.items[i], "metadata.namespace");
        json_object *name = get_path(s.items[i], "metadata.name");
        struct gq__str labels = {NULL, 0, 0, false};

        if (labels_text(get_path(s.items[i], "metadata.labels"), &labels) != GQ_OK)
            rc = gq__error(err, GQ_ENOMEM, "out of memory");
        else
            rc = fn(json_object_get_string(ns), json_object_get_string(name),
                    labels.p ? labels.p : "", payload);
        free(labels.p);
    }
    selection_free(&s);
    getter_free(&g);
    return rc;
}
