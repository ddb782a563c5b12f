/*
 * describe.c: `gpuq describe`, kubectl-describe-style text for one object
 * (gq_describe). Each describer writes "Label:\tvalue" lines, nested
 * sections indented two spaces per level and tables whose cells are
 * tab-separated, and the finished text goes once through a copy of Go's
 * text/tabwriter algorithm (minwidth 0, padding 2, as kubectl's describe uses)
 * so that every run of consecutive tabbed lines lines up as kubectl's does.
 * Objects end with the "Events:" table read from the append-only events table
 * by the object's UID.
 *
 * The fields come from the stored canonical JSON through SQLite's JSON
 * functions (json_each, json_tree, ->>), so this file needs no JSON library;
 * status counts come from gq_object_list and gq_workload_list, so they mean
 * what `gpuq list` shows. Kinds without a describer of their own print their
 * fields the way kubectl prints an unstructured object.
 *
 * Sizes: one object, its few dozen lines and at most a few hundred events;
 * all reads are one snapshot (a read transaction), which may be retried
 * whole, so the text is rebuilt from empty on each attempt.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "error.h"
#include "store.h"
#include "util.h"

/* --------------------------------------------------------------------- text */

/* One line at an indent level (two spaces each), as kubectl's PrefixWriter writes it. */
static void line(struct gq__str *t, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void line(struct gq__str *t, int level, const char *fmt, ...)
{
    va_list ap;

    for (; level > 0; level--)
        gq__str_add(t, "  ", 2);
    va_start(ap, fmt);
    gq__str_vprintf(t, fmt, ap);
    va_end(ap);
}

static const char *or_none(const char *s)
{
    return s && *s ? s : "<none>";
}

/* ---------------------------------------------------------------- tabwriter */

struct cell {
    size_t off, len; /* bytes of the text */
    size_t width;    /* characters */
};

struct tab {
    const char *text;
    struct cell *cells;
    size_t *first; /* per line: its first cell */
    size_t *n;     /* per line: its cell count (tabs + 1) */
    size_t nlines;
    size_t widths[32]; /* the column widths of the enclosing blocks */
    size_t nwidths;
    struct gq__str *out;
};

static void tab_write_lines(struct tab *tb, size_t line0, size_t line1)
{
    static const char spaces[] = "                                                ";
    size_t i, j, pad;

    for (i = line0; i < line1; i++) {
        for (j = 0; j < tb->n[i]; j++) {
            const struct cell *c = &tb->cells[tb->first[i] + j];

            gq__str_add(tb->out, tb->text + c->off, c->len);
            if (j < tb->nwidths && j + 1 < tb->n[i])
                for (pad = tb->widths[j] - c->width; pad > 0; pad -= pad < 48 ? pad : 48)
                    gq__str_add(tb->out, spaces, pad < 48 ? pad : 48);
        }
        gq__str_add(tb->out, "\n", 1);
    }
}

/* Go's tabwriter.format: a column block is a run of lines with a cell in that column. */
static void tab_format(struct tab *tb, size_t line0, size_t line1)
{
    size_t column = tb->nwidths, this, width;

    for (this = line0; this < line1; this ++) {
        if (column + 1 >= tb->n[this] || tb->nwidths == 32)
            continue;
        tab_write_lines(tb, line0, this);
        line0 = this;
        for (width = 0; this < line1 && column + 1 < tb->n[this]; this ++)
            if (tb->cells[tb->first[this] + column].width + 2 > width)
                width = tb->cells[tb->first[this] + column].width + 2;
        tb->widths[tb->nwidths++] = width;
        tab_format(tb, line0, this);
        tb->nwidths--;
        line0 = this;
    }
    tab_write_lines(tb, line0, line1);
}

/* Split text into lines and cells; false when out of memory. */
static bool tab_split(struct tab *tb, const char *text, size_t len)
{
    size_t i, nl = 1, nc = 1, c = 0, l = 0;

    for (i = 0; i < len; i++)
        nl += text[i] == '\n', nc += text[i] == '\n' || text[i] == '\t';
    tb->cells = calloc(nc, sizeof(*tb->cells));
    tb->first = calloc(nl, sizeof(size_t));
    tb->n = calloc(nl, sizeof(size_t));
    if (!tb->cells || !tb->first || !tb->n)
        return false;
    tb->first[0] = 0;
    for (i = 0; i <= len; i++) {
        if (i == len || text[i] == '\n' || text[i] == '\t') {
            tb->cells[c].len = i - tb->cells[c].off;
            tb->n[l]++;
            c++;
            if (i < len && text[i] == '\n') {
                tb->first[++l] = c;
            }
            if (c < nc)
                tb->cells[c].off = i + 1;
        } else if (((unsigned char)text[i] & 0xc0) != 0x80) {
            tb->cells[c].width++;
        }
    }
    /* The text ends with a newline: the empty line after it is not output. */
    tb->nlines = len && text[len - 1] == '\n' ? l : l + 1;
    return true;
}

/* Align one flushed segment of text into out. */
static void tab_segment(struct gq__str *out, const char *text, size_t len)
{
    struct tab tb;

    if (len == 0)
        return;
    memset(&tb, 0, sizeof(tb));
    tb.text = text;
    tb.out = out;
    if (tab_split(&tb, text, len))
        tab_format(&tb, 0, tb.nlines);
    else
        out->failed = true;
    free(tb.cells);
    free(tb.first);
    free(tb.n);
}

/*
 * One control character of stored text as visible text, so that an
 * annotation or a message cannot drive the terminal: ESC as "^[" and CR as
 * "\r", as kubectl's printers.EscapeTerminal writes them, the other C0
 * characters and DEL in the same caret notation ("^G" for BEL), and the C1
 * controls (U+0080..U+009F, which some terminals obey) as "\u009b". Tabs,
 * newlines and form feeds are the layout's own marks and are left alone
 * (the queries turn those of stored text into spaces and "\n"). Shared
 * with cluster-mode describe (api_kube_read.c), so both print alike.
 */
void gq__describe_escape(struct gq__str *out, const char *p, size_t len)
{
    size_t i, from = 0;
    char e[8];

    for (i = 0; i < len; i++) {
        unsigned char c = (unsigned char)p[i], next = i + 1 < len ? (unsigned char)p[i + 1] : 0;
        bool c1 = c == 0xc2 && next >= 0x80 && next <= 0x9f;

        if ((c >= 0x20 && c != 0x7f && !c1) || c == '\t' || c == '\n' || c == '\f')
            continue;
        gq__str_add(out, p + from, i - from);
        if (c1)
            snprintf(e, sizeof(e), "\\u%04x", (unsigned)next);
        else if (c == '\r')
            snprintf(e, sizeof(e), "\\r");
        else
            snprintf(e, sizeof(e), "^%c", c == 0x7f ? '?' : c + 0x40);
        gq__str_puts(out, e);
        from = i + 1 + c1;
        i += c1;
    }
    gq__str_add(out, p + from, len - from);
}

/*
 * Align text the way kubectl's tabwriter does; NULL when out of memory. A
 * '\f' after a line is tabwriter's Flush(): no column block spans it, so a
 * table does not widen the fields that follow it. Control characters are
 * escaped first, so that the widths are those of what is printed.
 */
static char *tabify(const struct gq__str *raw)
{
    struct gq__str out = {NULL, 0, 0, false}, esc = {NULL, 0, 0, false};
    const struct gq__str *in = &esc;
    const char *p, *end, *ff;

    gq__describe_escape(&esc, raw->p ? raw->p : "", raw->len);
    if (esc.failed) {
        free(esc.p);
        return NULL;
    }
    p = in->p ? in->p : "";
    end = p + in->len;

    while (p < end) {
        ff = memchr(p, '\f', (size_t)(end - p));
        tab_segment(&out, p, (size_t)((ff ? ff : end) - p));
        p = ff ? ff + 1 : end;
    }
    gq__str_add(&out, "", 0);
    free(esc.p);
    if (out.failed) {
        free(out.p);
        return NULL;
    }
    return out.p ? out.p : strdup("");
}

/* End every column block here (tabwriter's Flush), as kubectl does around tables. */
static void flush(struct gq__str *t)
{
    gq__str_add(t, "\f", 1);
}

/* ------------------------------------------------------------------- values */

/* RFC 3339 UTC, as -o json prints metadata.creationTimestamp. */
static const char *rfc3339(char buf[32], int64_t ms)
{
    return ms <= 0 ? "<none>" : gq__rfc3339(buf, ms);
}

/* apimachinery's duration.HumanDuration, the AGE column. */
static const char *human_duration(char buf[32], int64_t ms)
{
    int64_t s = ms / 1000, m = s / 60, h = s / 3600, d = h / 24;

    if (s < -1)
        return "<invalid>";
    if (s < 0)
        return "0s";
    if (s < 120)
        snprintf(buf, 32, "%" PRId64 "s", s);
    else if (m < 10)
        snprintf(buf, 32, s % 60 ? "%" PRId64 "m%" PRId64 "s" : "%" PRId64 "m", m, s % 60);
    else if (m < 180)
        snprintf(buf, 32, "%" PRId64 "m", m);
    else if (h < 8)
        snprintf(buf, 32, m % 60 ? "%" PRId64 "h%" PRId64 "m" : "%" PRId64 "h", h, m % 60);
    else if (h < 48)
        snprintf(buf, 32, "%" PRId64 "h", h);
    else if (h < 24 * 8)
        snprintf(buf, 32, h % 24 ? "%" PRId64 "d%" PRId64 "h" : "%" PRId64 "d", d, h % 24);
    else if (h < 24 * 365 * 2)
        snprintf(buf, 32, "%" PRId64 "d", d);
    else if (h < 24 * 365 * 8)
        snprintf(buf, 32, d % 365 ? "%" PRId64 "y%" PRId64 "d" : "%" PRId64 "y", d / 365, d % 365);
    else
        snprintf(buf, 32, "%" PRId64 "y", d / 365);
    return buf;
}

/* An amount in Kueue's accounting units (cpu: milli) as its canonical quantity. */
static const char *amount(char buf[GQ_QUANTITY_BUFSIZE], const char *resource, int64_t v)
{
    gq_quantity q = {v, strcmp(resource, "cpu") == 0 ? -3 : 0, GQ_QTY_DECIMAL_SI};

    if (strcmp(resource, "memory") == 0 || strcmp(resource, "ephemeral-storage") == 0 ||
        strncmp(resource, "hugepages-", 10) == 0)
        q.format = GQ_QTY_BINARY_SI;
    gq_quantity_format(buf, GQ_QUANTITY_BUFSIZE, &q);
    return buf;
}

static int64_t num(const char *s)
{
    return s ? strtoll(s, NULL, 10) : 0;
}

/* -------------------------------------------------------------------- reads */

/* What a describer works with. */
struct describe {
    gq_db *db;
    enum gq_kind kind;
    const char *ns;   /* the namespace of namespaced kinds */
    const char *name; /* as the user typed it */
    struct gq__str t;
    int64_t now_ms;
    gq_error *err;
};

/* The first row of a query, copied. */
struct row {
    int n;
    char *v[16];
};

static void row_clear(struct row *r)
{
    int i;

    for (i = 0; i < r->n; i++)
        free(r->v[i]);
    r->n = 0;
}

static int row_copy(int n, const char *const *v, void *payload)
{
    struct row *r = payload;
    int i;

    for (i = 0; i < n && i < 16; i++) {
        r->v[i] = gq__strdup(v[i]);
        r->n = i + 1;
        if (v[i] && !r->v[i])
            return GQ_ENOMEM;
    }
    return 1; /* the first row is enough */
}

/* Read one row into r; GQ_ENOTFOUND naming the object when there is none. */
static int
fetch(struct describe *d, const char *sql, const char *const *params, int n, struct row *r)
{
    int rc;

    r->n = 0;
    rc = gq__store_query(d->db->st, sql, params, n, row_copy, r, d->err);
    if (rc == 1)
        return GQ_OK;
    if (rc == GQ_ENOMEM)
        return gq__error(d->err, GQ_ENOMEM, "out of memory");
    if (rc == GQ_OK)
        return gq__error(d->err, GQ_ENOTFOUND, "%s \"%s\" not found", gq__kind_resource(d->kind),
                         d->name);
    return rc;
}

/* A list field: "Label:\tfirst", then "\tnext" per further row of the query's column 0. */
struct list_ctx {
    struct describe *d;
    int level;
    const char *label;
    int rows;
};

static int list_row(int n, const char *const *v, void *payload)
{
    struct list_ctx *l = payload;

    (void)n;
    if (l->rows++ == 0)
        line(&l->d->t, l->level, "%s:\t%s\n", l->label, v[0] ? v[0] : "");
    else
        line(&l->d->t, l->level, "\t%s\n", v[0] ? v[0] : "");
    return 0;
}

static int put_list(struct describe *d,
                    int level,
                    const char *label,
                    const char *sql,
                    const char *const *params,
                    int n)
{
    struct list_ctx l = {d, level, label, 0};
    int rc = gq__store_query(d->db->st, sql, params, n, list_row, &l, d->err);

    if (rc == GQ_OK && l.rows == 0)
        line(&d->t, level, "%s:\t<none>\n", label);
    return rc;
}

/*
 * A text column on one line, as a describe cell must be: newlines shown as
 * "\n", tabs and form feeds (our column and flush marks) as spaces.
 */
#define ONE_LINE(x) "replace(replace(replace(" x ", char(10), '\\n'), char(9), ' '), char(12), ' ')"

static const char labels_sql[] =
    "SELECT key || '=' || value FROM json_each(?1, '$.metadata.labels') ORDER BY key";
static const char annotations_sql[] =
    "SELECT key || ': ' || " ONE_LINE("value") " FROM json_each(?1, '$.metadata.annotations') "
                                               "ORDER BY key";

/* Name, Namespace, Labels, Annotations, UID and creation time of any object. */
static int put_meta(struct describe *d,
                    const char *ns,
                    const char *name,
                    const char *uid,
                    const char *spec,
                    const char *created)
{
    char buf[32];
    int rc;

    line(&d->t, 0, "Name:\t%s\n", name);
    if (ns)
        line(&d->t, 0, "Namespace:\t%s\n", ns);
    if ((rc = put_list(d, 0, "Labels", labels_sql, &spec, 1)) != GQ_OK ||
        (rc = put_list(d, 0, "Annotations", annotations_sql, &spec, 1)) != GQ_OK)
        return rc;
    line(&d->t, 0, "UID:\t%s\n", or_none(uid));
    if (created)
        line(&d->t, 0, "Creation Timestamp:\t%s\n", rfc3339(buf, num(created)));
    return GQ_OK;
}

/* Columns: type, reason, at, message. */
static int event_row(int n, const char *const *v, void *payload)
{
    struct describe *d = payload;
    char age[32];

    (void)n;
    line(&d->t, 1, "%s\t%s\t%s\t%s\t%s\n", v[0], v[1], human_duration(age, d->now_ms - num(v[2])),
         "gpuq", v[3] ? v[3] : "");
    return 0;
}

/* The Events table of the object with this UID, oldest first, as kubectl prints it. */
static int put_events(struct describe *d, const char *uid)
{
    static const char count_sql[] = "SELECT count(*) FROM events WHERE uid = ?1";
    static const char sql[] =
        "SELECT type, reason, at, " ONE_LINE("trim(message)") " FROM events WHERE uid = ?1 "
                                                              "ORDER BY at, id";
    struct row r = {0, {NULL}};
    int rc = fetch(d, count_sql, &uid, 1, &r);

    if (rc == GQ_OK && num(r.v[0]) == 0) {
        line(&d->t, 0, "Events:\t<none>\n");
    } else if (rc == GQ_OK) {
        flush(&d->t);
        line(&d->t, 0, "Events:\n");
        line(&d->t, 1, "Type\tReason\tAge\tFrom\tMessage\n");
        line(&d->t, 1, "----\t------\t----\t----\t-------\n");
        rc = gq__store_query(d->db->st, sql, &uid, 1, event_row, d, d->err);
    }
    row_clear(&r);
    return rc;
}

/* ------------------------------------------------------ unstructured fields */

static int char_class(char c)
{
    if (c >= 'a' && c <= 'z')
        return 1;
    if (c >= 'A' && c <= 'Z')
        return 2;
    return c == '-' ? 4 : 0;
}

static bool is_acronym(const char *s, size_t n)
{
    static const char *const words[] = {"API", "URL", "UID", "OSB", "GUID"};
    size_t i, j;

    for (i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
        if (strlen(words[i]) != n)
            continue;
        for (j = 0; j < n && (s[j] & ~0x20) == words[i][j]; j++)
            ;
        if (j == n)
            return true;
    }
    return false;
}

/*
 * kubectl's smartLabelFor: "nominalQuota" -> "Nominal Quota", "apiVersion" ->
 * "API Version"; keys with anything but letters and '-' are printed as they are.
 */
static void put_label(struct gq__str *t, const char *key)
{
    size_t start[64], len[64], nruns = 0, i, n = strlen(key);

    for (i = 0; i < n; i++) {
        if (!char_class(key[i]) || nruns == 64) {
            gq__str_add(t, key, n);
            return;
        }
        if (i > 0 && char_class(key[i]) == char_class(key[i - 1])) {
            len[nruns - 1]++;
        } else {
            start[nruns] = i;
            len[nruns++] = 1;
        }
    }
    /* "PDFLoader": the last capital of a run of capitals starts the next word. */
    for (i = 0; i + 1 < nruns; i++)
        if (char_class(key[start[i]]) == 2 && char_class(key[start[i + 1]]) == 1) {
            len[i]--;
            start[i + 1]--;
            len[i + 1]++;
        }
    for (i = 0, n = 0; i < nruns; i++) {
        if (len[i] == 0)
            continue;
        gq__str_add(t, " ", n++ ? 1 : 0);
        if (is_acronym(key + start[i], len[i])) {
            for (size_t j = 0; j < len[i]; j++) {
                char c = (char)(key[start[i] + j] & ~0x20);

                gq__str_add(t, &c, 1);
            }
        } else {
            char c = (char)(char_class(key[start[i]]) == 1 ? key[start[i]] - 32 : key[start[i]]);

            gq__str_add(t, &c, 1);
            gq__str_add(t, key + start[i] + 1, len[i] - 1);
        }
    }
}

/* Walking json_tree's rows (depth first) with the indent level of each container. */
struct tree_ctx {
    struct describe *d;
    int base;
    struct {
        int64_t id;
        int level;  /* of its children */
        bool array; /* children are array elements */
    } stack[32];
    int depth;
};

static void tree_push(struct tree_ctx *c, int64_t id, int level, bool array)
{
    if (c->depth < 32) {
        c->stack[c->depth].id = id;
        c->stack[c->depth].level = level;
        c->stack[c->depth++].array = array;
    }
}

/* Columns: key, type, value, id, parent. As kubectl's printUnstructuredContent. */
static int tree_row(int n, const char *const *v, void *payload)
{
    struct tree_ctx *c = payload;
    bool array = strcmp(v[1], "array") == 0, container = array || !strcmp(v[1], "object");
    int level;

    (void)n;
    if (!v[4]) {
        c->depth = 0;
        tree_push(c, num(v[3]), c->base, array);
        return 0;
    }
    while (c->depth > 0 && c->stack[c->depth - 1].id != num(v[4]))
        c->depth--;
    if (c->depth == 0)
        return 0; /* below a skipped or too deep container */
    level = c->stack[c->depth - 1].level;
    if (c->stack[c->depth - 1].array) {
        if (container)
            tree_push(c, num(v[3]), level, array);
        else
            line(&c->d->t, level, "%s\n", v[2] ? v[2] : "");
        return 0;
    }
    line(&c->d->t, level, "%s", "");
    put_label(&c->d->t, v[0]);
    if (container) {
        gq__str_add(&c->d->t, ":\n", 2);
        tree_push(c, num(v[3]), level + 1, array);
    } else {
        line(&c->d->t, 0, ":\t%s\n", v[2] ? v[2] : "");
    }
    return 0;
}

/*
 * Print the value at path of json, its fields at level. With skip_meta, the
 * top-level apiVersion, kind and metadata are left out (printed elsewhere).
 */
static int
put_tree(struct describe *d, int level, const char *json, const char *path, bool skip_meta)
{
    static const char sql[] =
        "SELECT key, type, CASE type WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' "
        "WHEN 'null' THEN '<nil>' ELSE " ONE_LINE(
            "atom") " END, id, parent "
                    "FROM json_tree(?1, ?2) "
                    "WHERE ?3 IS NULL OR NOT (fullkey IN ('$.apiVersion', '$.kind', '$.metadata') "
                    "OR path LIKE '$.metadata%')";
    const char *params[3] = {json, path, skip_meta ? "1" : NULL};
    struct tree_ctx c;

    memset(&c, 0, sizeof(c));
    c.d = d;
    c.base = level;
    return gq__store_query(d->db->st, sql, params, 3, tree_row, &c, d->err);
}

/* ------------------------------------------------------------- queue status */

/* One queue's row of gq_object_list, copied. */
struct qfind {
    const char *ns; /* what to find */
    const char *name;
    bool found;
    char *inactive; /* ClusterQueue: "Reason: detail", NULL when active */
    int64_t pending, reserving, admitted;
};

static int qfind_row(const gq_object_info *o, void *payload)
{
    struct qfind *q = payload;

    if (strcmp(o->name, q->name) != 0 || (q->ns && strcmp(o->namespace, q->ns) != 0))
        return 0;
    q->found = true;
    q->pending = o->pending;
    q->reserving = o->reserving;
    q->admitted = o->admitted;
    if (o->inactive && !(q->inactive = strdup(o->inactive)))
        return GQ_ENOMEM;
    return 1;
}

static int qfind(struct describe *d, const char *resource, const char *ns, struct qfind *q)
{
    int rc = gq_object_list(d->db, resource, ns, qfind_row, q, d->err);

    if (rc == GQ_ENOMEM)
        return gq__error(d->err, GQ_ENOMEM, "out of memory");
    return rc == 1 ? GQ_OK : rc;
}

static void put_active(struct describe *d, bool active, const char *reason, const char *message)
{
    line(&d->t, 0, "Status:\n");
    line(&d->t, 1, "Active:\t%s\n", active ? "True" : "False");
    line(&d->t, 1, "Reason:\t%s\n", reason);
    line(&d->t, 1, "Message:\t%s\n", message);
}

static void put_counts(struct describe *d, const struct qfind *q)
{
    line(&d->t, 1, "Pending Workloads:\t%" PRId64 "\n", q->pending);
    line(&d->t, 1, "Reserving Workloads:\t%" PRId64 "\n", q->reserving);
    line(&d->t, 1, "Admitted Workloads:\t%" PRId64 "\n", q->admitted);
}

/* Kueue's Active condition of a ClusterQueue, from the listing's "Reason: detail". */
static void put_cq_status(struct describe *d, const struct qfind *q)
{
    const char *colon = q->inactive ? strstr(q->inactive, ": ") : NULL;
    char reason[64], message[400];

    if (!q->inactive) {
        put_active(d, true, "Ready", "Can admit new workloads");
    } else {
        snprintf(reason, sizeof(reason), "%.*s",
                 (int)(colon ? (size_t)(colon - q->inactive) : strlen(q->inactive)), q->inactive);
        snprintf(message, sizeof(message), "Can't admit new workloads: %s.",
                 colon ? colon + 2 : q->inactive);
        put_active(d, false, reason, message);
    }
    put_counts(d, q);
}

/* ---------------------------------------------------------- resource groups */

struct groups_ctx {
    struct describe *d;
    bool usage;
    int rows;
};

/* Columns: flavor, resource, nominal, borrowing limit, lending limit, usage. */
static int group_row(int n, const char *const *v, void *payload)
{
    struct groups_ctx *g = payload;
    char q[GQ_QUANTITY_BUFSIZE];
    int i;

    (void)n;
    if (g->rows++ == 0) {
        line(&g->d->t, 0, "Resource Groups:\n");
        line(&g->d->t, 1, "Flavor\tResource\tNominal\tBorrowing Limit\tLending Limit%s\n",
             g->usage ? "\tUsage" : "");
        line(&g->d->t, 1, "------\t--------\t-------\t---------------\t-------------%s\n",
             g->usage ? "\t-----" : "");
    }
    line(&g->d->t, 1, "%s", "");
    for (i = 0; i < 5; i++)
        line(&g->d->t, 0, "%s%s", i ? "\t" : "", or_none(v[i]));
    if (g->usage)
        line(&g->d->t, 0, "\t%s", amount(q, v[1] ? v[1] : "", num(v[5])));
    gq__str_add(&g->d->t, "\n", 1);
    return 0;
}

/* The quota table of a ClusterQueue (with what is used of it) or a Cohort (?2 NULL). */
static int put_groups(struct describe *d, const char *spec, const char *cq)
{
    static const char sql[] =
        "SELECT f.value ->> 'name', r.value ->> 'name', r.value ->> 'nominalQuota', "
        "r.value ->> 'borrowingLimit', r.value ->> 'lendingLimit', "
        "(SELECT coalesce(sum(u.amount), 0) FROM usage u WHERE u.cluster_queue = ?2 "
        "  AND u.flavor = f.value ->> 'name' AND u.resource = r.value ->> 'name') "
        "FROM json_each(?1, '$.spec.resourceGroups') g, json_each(g.value, '$.flavors') f, "
        "json_each(f.value, '$.resources') r ORDER BY g.key, f.key, r.key";
    const char *params[2] = {spec, cq};
    struct groups_ctx g = {d, cq != NULL, 0};
    int rc = gq__store_query(d->db->st, sql, params, 2, group_row, &g, d->err);

    if (rc == GQ_OK && g.rows == 0)
        line(&d->t, 0, "Resource Groups:\t<none>\n");
    else
        flush(&d->t);
    return rc;
}

/* --------------------------------------------------------------- describers */

/* A LabelSelector as kubectl formats one; "<none>" when absent (no namespace matches). */
#define NS_SELECTOR                                                                                \
    "CASE WHEN coalesce(json_type(spec, '$.spec.namespaceSelector'), 'null') = 'null' "            \
    "THEN '<none>' ELSE coalesce((SELECT group_concat(x, ',') FROM ("                              \
    "SELECT key || '=' || value AS x "                                                             \
    "FROM json_each(spec, '$.spec.namespaceSelector.matchLabels') UNION ALL "                      \
    "SELECT CASE e.value ->> 'operator' WHEN 'Exists' THEN e.value ->> 'key' "                     \
    "WHEN 'DoesNotExist' THEN '!' || (e.value ->> 'key') "                                         \
    "ELSE (e.value ->> 'key') || ' ' || lower(e.value ->> 'operator') || ' (' || "                 \
    "(SELECT group_concat(v.value, ',') FROM json_each(e.value, '$.values') v) || ')' END "        \
    "FROM json_each(spec, '$.spec.namespaceSelector.matchExpressions') e)), "                      \
    "'<all namespaces>') END"

static int describe_cq(struct describe *d, struct row *r)
{
    static const char sql[] =
        "SELECT name, uid, spec, created_at, cohort, strategy, stop_policy, " NS_SELECTOR ", "
        "coalesce(spec ->> '$.spec.preemption.withinClusterQueue', 'Never'), "
        "coalesce(spec ->> '$.spec.preemption.reclaimWithinCohort', 'Never'), "
        "coalesce(spec ->> '$.spec.preemption.borrowWithinCohort.policy', 'Never') "
        "FROM cluster_queues WHERE name = ?1";
    static const char checks_sql[] =
        "SELECT (c.value ->> 'name') || coalesce(' (flavors: ' || (SELECT group_concat(f.value, "
        "', ') FROM json_each(c.value, '$.onFlavors') f) || ')', '') "
        "FROM json_each(?1, '$.spec.admissionChecksStrategy.admissionChecks') c ORDER BY c.key";
    struct qfind q = {NULL, d->name, false, NULL, 0, 0, 0};
    int rc;

    if ((rc = fetch(d, sql, &d->name, 1, r)) || (rc = qfind(d, "clusterqueue", NULL, &q)) ||
        (rc = put_meta(d, NULL, r->v[0], r->v[1], r->v[2], r->v[3])))
        goto out;
    line(&d->t, 0, "Cohort:\t%s\n", or_none(r->v[4]));
    line(&d->t, 0, "Queueing Strategy:\t%s\n", r->v[5]);
    line(&d->t, 0, "Stop Policy:\t%s\n", r->v[6]);
    line(&d->t, 0, "Namespace Selector:\t%s\n", r->v[7]);
    line(&d->t, 0, "Preemption:\n");
    line(&d->t, 1, "Within Cluster Queue:\t%s\n", r->v[8]);
    line(&d->t, 1, "Reclaim Within Cohort:\t%s\n", r->v[9]);
    line(&d->t, 1, "Borrow Within Cohort:\t%s\n", r->v[10]);
    if ((rc = put_groups(d, r->v[2], r->v[0])) ||
        (rc = put_list(d, 0, "Admission Checks", checks_sql, (const char *const *)&r->v[2], 1)))
        goto out;
    put_cq_status(d, &q);
    rc = put_events(d, r->v[1]);
out:
    free(q.inactive);
    return rc;
}

static int describe_lq(struct describe *d, struct row *r)
{
    static const char sql[] = "SELECT namespace, name, uid, spec, created_at, cluster_queue, "
                              "stop_policy FROM local_queues WHERE namespace = ?1 AND name = ?2";
    const char *params[2] = {d->ns, d->name};
    struct qfind q = {d->ns, d->name, false, NULL, 0, 0, 0};
    struct qfind cq = {NULL, NULL, false, NULL, 0, 0, 0};
    int rc;

    if ((rc = fetch(d, sql, params, 2, r)) || (rc = qfind(d, "localqueue", d->ns, &q)))
        goto out;
    cq.name = r->v[5];
    if ((rc = qfind(d, "clusterqueue", NULL, &cq)) ||
        (rc = put_meta(d, r->v[0], r->v[1], r->v[2], r->v[3], r->v[4])))
        goto out;
    line(&d->t, 0, "Cluster Queue:\t%s\n", r->v[5]);
    line(&d->t, 0, "Stop Policy:\t%s\n", r->v[6]);
    if (strcmp(r->v[6], "None") != 0)
        put_active(d, false, "Stopped", "LocalQueue is stopped");
    else if (!cq.found || cq.inactive)
        put_active(d, false, cq.found ? "ClusterQueueIsInactive" : "ClusterQueueDoesNotExist",
                   "Can't submit new workloads to clusterQueue");
    else
        put_active(d, true, "Ready", "Can submit new workloads to localQueue");
    put_counts(d, &q);
    rc = put_events(d, r->v[2]);
out:
    free(q.inactive);
    free(cq.inactive);
    return rc;
}

static int describe_flavor(struct describe *d, struct row *r)
{
    static const char sql[] =
        "SELECT name, uid, spec, created_at, "
        "spec ->> '$.spec.topologyName' FROM resource_flavors WHERE name = ?1";
    static const char labels[] =
        "SELECT key || '=' || value FROM json_each(?1, '$.spec.nodeLabels') ORDER BY key";
    static const char taints[] =
        "SELECT (t.value ->> 'key') || coalesce('=' || (t.value ->> 'value'), '') || ':' || "
        "(t.value ->> 'effect') FROM json_each(?1, '$.spec.nodeTaints') t ORDER BY t.key";
    static const char tolerations[] =
        "SELECT coalesce(t.value ->> 'key', '') || coalesce('=' || (t.value ->> 'value'), '') || "
        "coalesce(':' || (t.value ->> 'effect'), '') || CASE WHEN t.value ->> 'operator' = "
        "'Exists' AND t.value ->> 'value' IS NULL THEN CASE WHEN coalesce(t.value ->> 'key', "
        "t.value ->> 'effect') IS NULL THEN 'op=Exists' ELSE ' op=Exists' END ELSE '' END || "
        "coalesce(' for ' || (t.value ->> 'tolerationSeconds') || 's', '') "
        "FROM json_each(?1, '$.spec.tolerations') t ORDER BY t.key";
    static const char users[] = "SELECT DISTINCT owner FROM quotas WHERE owner_kind = "
                                "'ClusterQueue' AND flavor = ?1 ORDER BY owner";
    const char *spec;
    int rc;

    if ((rc = fetch(d, sql, &d->name, 1, r)) ||
        (rc = put_meta(d, NULL, r->v[0], r->v[1], r->v[2], r->v[3])))
        return rc;
    spec = r->v[2];
    if ((rc = put_list(d, 0, "Node Labels", labels, &spec, 1)) ||
        (rc = put_list(d, 0, "Node Taints", taints, &spec, 1)) ||
        (rc = put_list(d, 0, "Tolerations", tolerations, &spec, 1)))
        return rc;
    line(&d->t, 0, "Topology Name:\t%s\n", or_none(r->v[4]));
    if ((rc = put_list(d, 0, "Cluster Queues", users, (const char *const *)&r->v[0], 1)))
        return rc;
    return put_events(d, r->v[1]);
}

static int describe_cohort(struct describe *d, struct row *r)
{
    static const char sql[] =
        "SELECT name, uid, spec, created_at, parent FROM cohorts WHERE name = ?1";
    static const char members[] = "SELECT name FROM cluster_queues WHERE cohort = ?1 ORDER BY name";
    static const char children[] = "SELECT name FROM cohorts WHERE parent = ?1 ORDER BY name";
    int rc;

    if ((rc = fetch(d, sql, &d->name, 1, r)) ||
        (rc = put_meta(d, NULL, r->v[0], r->v[1], r->v[2], r->v[3])))
        return rc;
    line(&d->t, 0, "Parent:\t%s\n", or_none(r->v[4]));
    if ((rc = put_groups(d, r->v[2], NULL)) ||
        (rc = put_list(d, 0, "Cluster Queues", members, (const char *const *)&r->v[0], 1)) ||
        (rc = put_list(d, 0, "Child Cohorts", children, (const char *const *)&r->v[0], 1)))
        return rc;
    return put_events(d, r->v[1]);
}

/* Every other kind: its fields as kubectl describes an unstructured object. */
static const struct {
    enum gq_kind kind;
    const char *sql; /* columns: name, uid, spec, created_at, apiVersion, kind */
} generic_sql[] = {
    {GQ_KIND_NAMESPACE, "SELECT name, uid, spec, created_at, spec ->> 'apiVersion', "
                        "spec ->> 'kind' FROM namespaces WHERE name = ?1"},
    {GQ_KIND_PRIORITY_CLASS, "SELECT name, uid, spec, created_at, spec ->> 'apiVersion', "
                             "spec ->> 'kind' FROM priority_classes WHERE name = ?1"},
    {GQ_KIND_ADMISSION_CHECK, "SELECT name, uid, spec, created_at, spec ->> 'apiVersion', "
                              "spec ->> 'kind' FROM admission_checks WHERE name = ?1"},
    {GQ_KIND_PROVISIONING_CONFIG, "SELECT name, uid, spec, created_at, spec ->> 'apiVersion', "
                                  "spec ->> 'kind' FROM provisioning_configs WHERE name = ?1"},
    {GQ_KIND_CONFIGURATION, "SELECT name, uid, spec, created_at, spec ->> 'apiVersion', "
                            "spec ->> 'kind' FROM configurations WHERE name = ?1"},
    {GQ_KIND_NODE_POOL, "SELECT name, uid, spec, created_at, spec ->> 'apiVersion', "
                        "spec ->> 'kind' FROM node_pools WHERE name = ?1"},
};

static int describe_generic(struct describe *d, struct row *r)
{
    size_t i = 0;
    int rc;

    while (i + 1 < sizeof(generic_sql) / sizeof(generic_sql[0]) && generic_sql[i].kind != d->kind)
        i++;
    if (generic_sql[i].kind != d->kind)
        return gq__error(d->err, GQ_EINVALID, "cannot describe a %s", gq__kind_resource(d->kind));
    if ((rc = fetch(d, generic_sql[i].sql, &d->name, 1, r)) ||
        (rc = put_meta(d, NULL, r->v[0], r->v[1], r->v[2], r->v[3])))
        return rc;
    line(&d->t, 0, "API Version:\t%s\n", or_none(r->v[4]));
    line(&d->t, 0, "Kind:\t%s\n", or_none(r->v[5]));
    if ((rc = put_tree(d, 0, r->v[2], "$", true)) != GQ_OK)
        return rc;
    return put_events(d, r->v[1]);
}

/* ---------------------------------------------------------------- workloads */

/* The workload gq_workload_list found, copied out of its callback. */
struct wl_found {
    char *s[12]; /* namespace, name, uid, job kind, job name, local queue, cluster queue,
                    state, reason, message, priority class, where it stands */
    int64_t priority, pods, gpus, position, position_cq, created, reserved, admitted, finished;
    bool found;
    bool last; /* keep the last match (the newest), not the first */
};

static void wl_found_clear(struct wl_found *w)
{
    int i;

    for (i = 0; i < 12; i++)
        free(w->s[i]);
    memset(w->s, 0, sizeof(w->s));
    w->found = false;
}

static int wl_found_row(const gq_workload_info *wl, void *payload)
{
    struct wl_found *w = payload;
    const char *s[12] = {wl->namespace, wl->name,        wl->uid,           wl->job_kind,
                         wl->job_name,  wl->local_queue, wl->cluster_queue, wl->state,
                         wl->reason,    wl->message,     wl->priority_class, wl->where};
    int i;

    wl_found_clear(w);
    w->found = true;
    for (i = 0; i < 12; i++)
        if (s[i] && !(w->s[i] = strdup(s[i])))
            return GQ_ENOMEM;
    w->priority = wl->priority;
    w->pods = wl->pods;
    w->gpus = wl->gpus;
    w->position = wl->position;
    w->position_cq = wl->position_cq;
    w->created = wl->created_ms;
    w->reserved = wl->reserved_ms;
    w->admitted = wl->admitted_ms;
    w->finished = wl->finished_ms;
    return w->last ? 0 : 1;
}

/* The live workload of that workload or job name, else the newest ended one. */
static int wl_find(struct describe *d, struct wl_found *w)
{
    gq_workload_filter f = GQ_WORKLOAD_FILTER_INIT;
    int rc;

    f.namespace = d->ns;
    f.name = d->name;
    rc = gq_workload_list(d->db, &f, wl_found_row, w, d->err);
    if (rc == 1 || rc == GQ_OK) {
        f.state = "all";
        w->last = true;
        rc = w->found ? GQ_OK : gq_workload_list(d->db, &f, wl_found_row, w, d->err);
    }
    if (rc == GQ_ENOMEM)
        return gq__error(d->err, GQ_ENOMEM, "out of memory");
    if (rc == GQ_OK && !w->found)
        return gq__error(d->err, GQ_ENOTFOUND, "workload \"%s\" not found in namespace \"%s\"",
                         d->name, d->ns);
    return rc;
}

struct podsets_ctx {
    struct describe *d;
    char last[64]; /* the pod set of the previous row */
    int rows;
};

/* Columns: pod set, count, resource, per pod (text), per pod (accounting units). */
static int podset_row(int n, const char *const *v, void *payload)
{
    struct podsets_ctx *p = payload;
    int64_t count = num(v[1]), each = num(v[3] ? v[4] : NULL);
    char total[GQ_QUANTITY_BUFSIZE];
    bool same = p->rows++ > 0 && v[0] && strncmp(p->last, v[0], sizeof(p->last)) == 0;

    (void)n;
    snprintf(p->last, sizeof(p->last), "%s", v[0] ? v[0] : "");
    if (!v[2]) {
        line(&p->d->t, 1, "%s\t%s\t<none>\t\t\n", or_none(v[0]), or_none(v[1]));
        return 0;
    }
    if (count > 0 && each > INT64_MAX / count)
        snprintf(total, sizeof(total), "<overflow>");
    else
        amount(total, v[2], each * count);
    line(&p->d->t, 1, "%s\t%s\t%s\t%s\t%s\n", same ? "" : or_none(v[0]), same ? "" : v[1], v[2],
         v[3], total);
    return 0;
}

static int put_podsets(struct describe *d, const char *uid)
{
    static const char sql[] =
        "SELECT p.value ->> 'name', p.value ->> 'count', r.key, r.value, a.value "
        "FROM workloads w JOIN json_each(w.podsets) p "
        "LEFT JOIN json_each(p.value, '$.requests') r ON 1 "
        "LEFT JOIN json_each(p.value, '$.amounts') a ON a.key = r.key "
        "WHERE w.uid = ?1 ORDER BY p.key, r.key";
    struct podsets_ctx p = {d, "", 0};
    int rc;

    line(&d->t, 0, "Pod Sets:\n");
    line(&d->t, 1, "Name\tCount\tResource\tPer Pod\tTotal\n");
    line(&d->t, 1, "----\t-----\t--------\t-------\t-----\n");
    rc = gq__store_query(d->db->st, sql, &uid, 1, podset_row, &p, d->err);
    flush(&d->t);
    return rc;
}

/* A free-text value on one line (see ONE_LINE), or "<none>". */
static void put_one_line(struct gq__str *t, const char *label, const char *s)
{
    const char *p;

    line(t, 0, "%s:\t", label);
    for (p = s = or_none(s); *p; p++) {
        if (*p == '\n' || *p == '\t' || *p == '\f') {
            gq__str_add(t, s, (size_t)(p - s));
            gq__str_add(t, *p == '\n' ? "\\n" : " ", *p == '\n' ? 2 : 1);
            s = p + 1;
        }
    }
    gq__str_add(t, s, (size_t)(p - s));
    gq__str_add(t, "\n", 1);
}

static void put_wl_fields(struct describe *d, const struct wl_found *w)
{
    char buf[32];

    line(&d->t, 0, "Job:\t%s/%s\n", w->s[3], w->s[4]);
    line(&d->t, 0, "Local Queue:\t%s\n", or_none(w->s[5]));
    line(&d->t, 0, "Cluster Queue:\t%s\n", or_none(w->s[6]));
    line(&d->t, 0, "Priority Class:\t%s\n", or_none(w->s[10]));
    line(&d->t, 0, "Priority:\t%" PRId64 "\n", w->priority);
    line(&d->t, 0, "State:\t%s\n", w->s[7]);
    if (w->s[11] && *w->s[11])
        put_one_line(&d->t, "Where it stands", w->s[11]);
    put_one_line(&d->t, "Reason", w->s[8]);
    put_one_line(&d->t, "Message", w->s[9]);
    if (w->position >= 0)
        line(&d->t, 0, "Position in LocalQueue:\t%" PRId64 "\n", w->position);
    line(&d->t, 0, "Pods:\t%" PRId64 "\n", w->pods);
    line(&d->t, 0, "GPUs:\t%" PRId64 "\n", w->gpus);
    line(&d->t, 0, "Created:\t%s\n", rfc3339(buf, w->created));
    line(&d->t, 0, "Quota Reserved:\t%s\n", rfc3339(buf, w->reserved));
    line(&d->t, 0, "Admitted:\t%s\n", rfc3339(buf, w->admitted));
    if (w->finished)
        line(&d->t, 0, "Finished:\t%s\n", rfc3339(buf, w->finished));
}

/* How long the job runs once its pods start (gpuq.dev/duration), when it says. */
static void put_duration(struct describe *d, const char *ms)
{
    char buf[GQ_DURATION_BUFSIZE];

    if (!ms)
        return;
    gq__format_duration_ms(buf, sizeof(buf), num(ms), true);
    line(&d->t, 0, "Duration:\t%s\n", buf);
}

/* Columns: namespace, name, priority, gpus, queued_at, reason. */
static int ahead_row(int n, const char *const *v, void *payload)
{
    struct describe *d = payload;
    char buf[32];

    (void)n;
    line(&d->t, 1, "%s/%s\t%s\t%s\t%s\t%s\n", v[0], v[1], v[2], v[3],
         human_duration(buf, d->now_ms - num(v[4])), or_none(v[5]));
    return 0;
}

/*
 * Who is ahead of a pending workload in its ClusterQueue, in heap order
 * (priority, queue-order time, submission): the first ten. r holds the
 * workload's row (see describe_workload).
 */
static int put_ahead(struct describe *d, const struct wl_found *w, struct row *r)
{
    static const char sql[] =
        "SELECT w.namespace, w.name, w.priority, w.gpus, w.queued_at, w.reason "
        "FROM workloads w JOIN local_queues lq ON lq.namespace = w.namespace "
        "AND lq.name = w.local_queue WHERE w.state = 'pending' AND lq.cluster_queue = ?1 "
        "AND (w.priority > ?2 OR (w.priority = ?2 AND (w.queued_at < ?3 OR "
        "(w.queued_at = ?3 AND w.id < ?4)))) ORDER BY w.priority DESC, w.queued_at, w.id "
        "LIMIT 10";
    const char *params[4] = {w->s[6], r->v[2], r->v[3], r->v[4]};
    int rc;

    if (!w->s[6] || strcmp(w->s[7], "pending") != 0)
        return GQ_OK;
    line(&d->t, 0, "Ahead in ClusterQueue:\n");
    line(&d->t, 1, "Workload\tPriority\tGPUs\tWaiting\tReason\n");
    line(&d->t, 1, "--------\t--------\t----\t-------\t------\n");
    rc = gq__store_query(d->db->st, sql, params, 4, ahead_row, d, d->err);
    flush(&d->t);
    return rc;
}

/* The last eviction Kueue would still show (Evicted, Preempted), with the count. */
static void put_eviction(struct describe *d, struct row *r)
{
    if (!r->v[5])
        return;
    line(&d->t, 0, "Last Eviction:\t%s%s%s%s (%s in all)\n", r->v[5], r->v[7] ? " (" : "",
         r->v[7] ? r->v[7] : "", r->v[7] ? ")" : "", r->v[8]);
    put_one_line(&d->t, "Eviction Message", r->v[6]);
}

static int describe_workload(struct describe *d, struct row *r)
{
    static const char sql[] =
        "SELECT spec, admission, priority, queued_at, id, evicted_reason, evicted_message, "
        "preempted_reason, evictions, duration_ms FROM workloads WHERE uid = ?1";
    struct wl_found w;
    int rc;

    memset(&w, 0, sizeof(w));
    if ((rc = wl_find(d, &w)) || (rc = fetch(d, sql, (const char *const *)&w.s[2], 1, r)) ||
        (rc = put_meta(d, w.s[0], w.s[1], w.s[2], r->v[0], NULL)))
        goto out;
    put_wl_fields(d, &w);
    put_duration(d, r->v[9]);
    if (w.position_cq >= 0)
        line(&d->t, 0, "Position in ClusterQueue:\t%" PRId64 "\n", w.position_cq);
    put_eviction(d, r);
    if ((rc = put_podsets(d, w.s[2])) != GQ_OK)
        goto out;
    if (r->v[1]) {
        line(&d->t, 0, "Admission:\n");
        if ((rc = put_tree(d, 1, r->v[1], "$", false)) != GQ_OK)
            goto out;
    }
    if ((rc = put_ahead(d, &w, r)) != GQ_OK)
        goto out;
    rc = put_events(d, w.s[2]);
out:
    wl_found_clear(&w);
    return rc;
}

/* ---------------------------------------------------- provisioning requests */

/*
 * The request gq_provreq_list found, copied: namespace, name, uid, workload,
 * check, attempt, class, spec, status, created_at.
 */
static int provreq_found(const gq_provreq_info *pr, void *payload)
{
    char attempt[24], created[24];
    const char *v[10] = {pr->namespace, pr->name,       pr->uid,    pr->workload, pr->check,
                         attempt,       pr->class_name, pr->object, pr->status,   created};

    snprintf(attempt, sizeof(attempt), "%" PRId64, pr->attempt);
    snprintf(created, sizeof(created), "%" PRId64, pr->created_ms);
    row_clear(payload);
    return row_copy(10, v, payload) == 1 ? 0 : GQ_ENOMEM;
}

/* A table being written: its rows at level 1, the row's columns tab-separated. */
struct cells_ctx {
    struct describe *d;
    int rows;
};

static int cells_row(int n, const char *const *v, void *payload)
{
    struct cells_ctx *c = payload;
    int i;

    c->rows++;
    line(&c->d->t, 1, "%s", "");
    for (i = 0; i < n; i++)
        line(&c->d->t, 0, "%s%s", i ? "\t" : "", v[i] ? v[i] : "");
    gq__str_add(&c->d->t, "\n", 1);
    return 0;
}

/*
 * "Title:" and a table of the rows of sql (?1 param) under a header and its
 * dashes (none when head is NULL), or "Title:\t<none>" when there are no rows.
 */
static int put_table(
    struct describe *d, const char *title, const char *head, const char *sql, const char *param)
{
    struct cells_ctx c = {d, 0};
    size_t mark = d->t.len, i;
    int rc;

    flush(&d->t);
    line(&d->t, 0, "%s:\n", title);
    if (head) {
        line(&d->t, 1, "%s\n", head);
        line(&d->t, 1, "%s", "");
        for (i = 0; head[i]; i++)
            gq__str_add(&d->t, head[i] == '\t' ? "\t" : "-", 1);
        gq__str_add(&d->t, "\n", 1);
    }
    rc = gq__store_query(d->db->st, sql, &param, 1, cells_row, &c, d->err);
    if (rc == GQ_OK && c.rows == 0 && !d->t.failed) {
        d->t.len = mark;
        if (d->t.p)
            d->t.p[mark] = '\0';
        line(&d->t, 0, "%s:\t<none>\n", title);
    } else {
        flush(&d->t);
    }
    return rc;
}

/* After a lookup into r (namespace, name, uid first): its metadata, or the lookup's error. */
static int put_found_meta(struct describe *d, int rc, struct row *r, int object_col)
{
    if (rc == GQ_ENOMEM)
        return gq__error(d->err, GQ_ENOMEM, "out of memory");
    if (rc != GQ_OK)
        return rc;
    return put_meta(d, r->v[0], r->v[1], r->v[2], r->v[object_col], NULL);
}

static int describe_provreq(struct describe *d, struct row *r)
{
    static const char params_sql[] =
        "SELECT key || ':', " ONE_LINE("value") " FROM json_each(?1, '$.spec.parameters') "
                                                "ORDER BY key";
    static const char podsets_sql[] =
        "SELECT p.value ->> '$.podTemplateRef.name', p.value ->> 'count' "
        "FROM json_each(?1, '$.spec.podSets') p ORDER BY p.key";
    static const char conditions_sql[] =
        "SELECT c.value ->> 'type', c.value ->> 'status', c.value ->> 'reason', " ONE_LINE(
            "coalesce(c.value ->> 'message', '')") " FROM json_each(?1, '$.conditions') c "
                                                   "ORDER BY c.key";
    char buf[32];
    int rc = gq_provreq_list(d->db, d->ns, d->name, provreq_found, r, d->err);

    if ((rc = put_found_meta(d, rc, r, 7)) != GQ_OK)
        return rc;
    line(&d->t, 0, "Class:\t%s\n", or_none(r->v[6]));
    line(&d->t, 0, "Workload:\t%s\n", or_none(r->v[3]));
    line(&d->t, 0, "Check:\t%s\n", or_none(r->v[4]));
    line(&d->t, 0, "Attempt:\t%s\n", r->v[5]);
    if ((rc = put_table(d, "Parameters", NULL, params_sql, r->v[7])) ||
        (rc = put_table(d, "Pod Sets", "Pod Template\tCount", podsets_sql, r->v[7])) ||
        (rc = put_table(d, "Conditions", "Type\tStatus\tReason\tMessage", conditions_sql, r->v[8])))
        return rc;
    line(&d->t, 0, "Created:\t%s\n", rfc3339(buf, num(r->v[9])));
    return put_events(d, r->v[2]);
}

/* The template gq_podtemplate_list found, copied: namespace, name, uid, request, object. */
static int podtemplate_found(const gq_podtemplate_info *pt, void *payload)
{
    const char *v[5] = {pt->namespace, pt->name, pt->uid, pt->provreq, pt->object};

    row_clear(payload);
    return row_copy(5, v, payload) == 1 ? 0 : GQ_ENOMEM;
}

static int describe_podtemplate(struct describe *d, struct row *r)
{
    int rc = gq_podtemplate_list(d->db, d->ns, d->name, podtemplate_found, r, d->err);

    if ((rc = put_found_meta(d, rc, r, 4)) != GQ_OK)
        return rc;
    line(&d->t, 0, "Provisioning Request:\t%s\n", or_none(r->v[3]));
    line(&d->t, 0, "Pod Template:\n");
    if ((rc = put_tree(d, 1, r->v[4], "$.template", false)) != GQ_OK)
        return rc;
    return put_events(d, r->v[2]);
}

/* ----------------------------------------------------------------- describe */

static int describe_txn(struct gq_store *st, void *payload, gq_error *err)
{
    struct describe *d = payload;
    struct row r = {0, {NULL}};
    int rc;

    (void)st;
    (void)err;
    d->t.len = 0;
    d->t.failed = false;
    switch (d->kind) {
    case GQ_KIND_CLUSTER_QUEUE:
        rc = describe_cq(d, &r);
        break;
    case GQ_KIND_PROVISIONING_REQUEST:
        rc = describe_provreq(d, &r);
        break;
    case GQ_KIND_POD_TEMPLATE:
        rc = describe_podtemplate(d, &r);
        break;
    case GQ_KIND_LOCAL_QUEUE:
        rc = describe_lq(d, &r);
        break;
    case GQ_KIND_RESOURCE_FLAVOR:
        rc = describe_flavor(d, &r);
        break;
    case GQ_KIND_COHORT:
        rc = describe_cohort(d, &r);
        break;
    case GQ_KIND_JOB:
    case GQ_KIND_WORKLOAD:
        rc = describe_workload(d, &r);
        break;
    default:
        rc = describe_generic(d, &r);
        break;
    }
    row_clear(&r);
    if (rc == GQ_OK && d->t.failed)
        rc = gq__error(d->err, GQ_ENOMEM, "out of memory");
    return rc;
}

int gq_describe(gq_db *db,
                const char *resource,
                const char *namespace,
                const char *name,
                char **out,
                gq_error *err)
{
    struct describe d;
    int rc;

    GQ_ASSERT_ARG(db && name && out);
    *out = NULL;
    memset(&d, 0, sizeof(d));
    d.kind = resource ? gq__kind_lookup(resource) : GQ_KIND_NONE;
    if (d.kind == GQ_KIND_NONE)
        return gq__error(err, GQ_EINVALID, "the server doesn't have a resource type \"%s\"",
                         resource ? resource : "");
    d.db = db;
    d.ns = gq__kind_is_namespaced(d.kind) ? (namespace ? namespace : "default") : NULL;
    d.name = name;
    d.now_ms = gq__store_now(db->st);
    d.err = err;
    rc = gq__store_read(db->st, describe_txn, &d, err);
    if (rc == GQ_OK && !(*out = tabify(&d.t)))
        rc = gq__error(err, GQ_ENOMEM, "out of memory");
    free(d.t.p);
    return rc;
}
