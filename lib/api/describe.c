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
 * The fields come from the stored canonical JSON through the store's typed
 * reads (store_read.h: labels, quota rows, a JSON document's nodes...), so
 * this file holds no SQL and needs no JSON library; status counts come from gq_object_list and gq_workload_list, so they mean
 * what `gpuq list` shows. Kinds without a describer of their own print their
 * fields the way kubectl prints an unstructured object. A queue object ends
 * with "Not enforced:", the fields it gives that gpuq keeps but does not act
 * on, as the manifest layer's decoder finds them in the stored spec.
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
#include "manifest_load.h"
#include "state.h"
#include "store.h"
#include "store_read.h"
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

/* The object asked for is not there: the error names it as the user typed it. */
static int not_found(struct describe *d)
{
    return gq__error(d->err, GQ_ENOTFOUND, "%s \"%s\" not found", gq__kind_resource(d->kind),
                     d->name);
}

/* A list field: "Label:\tfirst", then "\tnext" per further entry. */
struct list_ctx {
    struct describe *d;
    int level;
    const char *label;
    int rows;
};

static int list_entry(const char *text, void *payload)
{
    struct list_ctx *l = payload;

    if (l->rows++ == 0)
        line(&l->d->t, l->level, "%s:\t%s\n", l->label, text ? text : "");
    else
        line(&l->d->t, l->level, "\t%s\n", text ? text : "");
    return 0;
}

/* A store read of a list of text entries (store_read.h) about arg: a spec or a name. */
typedef int (*list_read)(struct gq_store *st, const char *arg, gq__text_fn fn, void *payload,
                         gq_error *err);

/* The entries read of arg as a list field, or "Label:\t<none>". */
static int put_list(struct describe *d, int level, const char *label, list_read read,
                    const char *arg)
{
    struct list_ctx l = {d, level, label, 0};
    int rc = read(d->db->st, arg, list_entry, &l, d->err);

    if (rc == GQ_OK && l.rows == 0)
        line(&d->t, level, "%s:\t<none>\n", label);
    return rc;
}

/* Name, Namespace, Labels, Annotations, UID and creation time (when given) of any object. */
static int put_meta(struct describe *d,
                    const char *ns,
                    const char *name,
                    const char *uid,
                    const char *spec,
                    const int64_t *created)
{
    char buf[32];
    int rc;

    line(&d->t, 0, "Name:\t%s\n", name);
    if (ns)
        line(&d->t, 0, "Namespace:\t%s\n", ns);
    if ((rc = put_list(d, 0, "Labels", gq__store_spec_labels, spec)) != GQ_OK ||
        (rc = put_list(d, 0, "Annotations", gq__store_spec_annotations, spec)) != GQ_OK)
        return rc;
    line(&d->t, 0, "UID:\t%s\n", or_none(uid));
    if (created)
        line(&d->t, 0, "Creation Timestamp:\t%s\n", rfc3339(buf, *created));
    return GQ_OK;
}

static int event_line(const struct gq_event_row *e, void *payload)
{
    struct describe *d = payload;
    char age[32];

    line(&d->t, 1, "%s\t%s\t%s\t%s\t%s\n", e->type, e->reason,
         human_duration(age, d->now_ms - e->at_ms), "gpuq", e->message ? e->message : "");
    return 0;
}

/* The Events table of the object with this UID, oldest first, as kubectl prints it. */
static int put_events(struct describe *d, const char *uid)
{
    int64_t n;
    int rc = gq__store_event_count(d->db->st, uid, &n, d->err);

    if (rc == GQ_OK && n == 0) {
        line(&d->t, 0, "Events:\t<none>\n");
    } else if (rc == GQ_OK) {
        flush(&d->t);
        line(&d->t, 0, "Events:\n");
        line(&d->t, 1, "Type\tReason\tAge\tFrom\tMessage\n");
        line(&d->t, 1, "----\t------\t----\t----\t-------\n");
        rc = gq__store_events_of(d->db->st, uid, event_line, d, d->err);
    }
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

/* Walking json_tree's nodes (depth first) with the indent level of each container. */
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

/* As kubectl's printUnstructuredContent. */
static int tree_node(const struct gq_json_node *n, void *payload)
{
    struct tree_ctx *c = payload;
    bool array = strcmp(n->type, "array") == 0, container = array || !strcmp(n->type, "object");
    int level;

    if (n->top) {
        c->depth = 0;
        tree_push(c, n->id, c->base, array);
        return 0;
    }
    while (c->depth > 0 && c->stack[c->depth - 1].id != n->parent)
        c->depth--;
    if (c->depth == 0)
        return 0; /* below a skipped or too deep container */
    level = c->stack[c->depth - 1].level;
    if (c->stack[c->depth - 1].array) {
        if (container)
            tree_push(c, n->id, level, array);
        else
            line(&c->d->t, level, "%s\n", n->value ? n->value : "");
        return 0;
    }
    line(&c->d->t, level, "%s", "");
    put_label(&c->d->t, n->key);
    if (container) {
        gq__str_add(&c->d->t, ":\n", 2);
        tree_push(c, n->id, level + 1, array);
    } else {
        line(&c->d->t, 0, ":\t%s\n", n->value ? n->value : "");
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
    struct tree_ctx c;

    memset(&c, 0, sizeof(c));
    c.d = d;
    c.base = level;
    return gq__store_json_tree(d->db->st, json, path, skip_meta, tree_node, &c, d->err);
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

static int group_line(const struct gq_group_row *r, void *payload)
{
    struct groups_ctx *g = payload;
    const char *cells[5] = {r->flavor, r->resource, r->nominal, r->borrowing_limit,
                            r->lending_limit};
    char q[GQ_QUANTITY_BUFSIZE];
    int i;

    if (g->rows++ == 0) {
        line(&g->d->t, 0, "Resource Groups:\n");
        line(&g->d->t, 1, "Flavor\tResource\tNominal\tBorrowing Limit\tLending Limit%s\n",
             g->usage ? "\tUsage" : "");
        line(&g->d->t, 1, "------\t--------\t-------\t---------------\t-------------%s\n",
             g->usage ? "\t-----" : "");
    }
    line(&g->d->t, 1, "%s", "");
    for (i = 0; i < 5; i++)
        line(&g->d->t, 0, "%s%s", i ? "\t" : "", or_none(cells[i]));
    if (g->usage)
        line(&g->d->t, 0, "\t%s", amount(q, r->resource ? r->resource : "", r->usage));
    gq__str_add(&g->d->t, "\n", 1);
    return 0;
}

/* The quota table of a ClusterQueue (with what is used of it) or a Cohort (cq NULL). */
static int put_groups(struct describe *d, const char *spec, const char *cq)
{
    struct groups_ctx g = {d, cq != NULL, 0};
    int rc = gq__store_quota_groups(d->db->st, spec, cq, group_line, &g, d->err);

    if (rc == GQ_OK && g.rows == 0)
        line(&d->t, 0, "Resource Groups:\t<none>\n");
    else
        flush(&d->t);
    return rc;
}

/* --------------------------------------------------------------- describers */

/* The queue object asked for, into o; GQ_ENOTFOUND naming it when there is none. */
static int read_object(struct describe *d, struct gq_obj_detail *o)
{
    int rc = gq__store_object_detail(d->db->st, d->kind, d->ns, d->name, o, d->err);

    return rc == GQ_OK && !o->found ? not_found(d) : rc;
}

static int put_object_meta(struct describe *d, const struct gq_obj_detail *o)
{
    return put_meta(d, o->ns, o->name, o->uid, o->spec, o->has_created ? &o->created_ms : NULL);
}

/* "Not enforced:" and the fields given that gpuq keeps but does not act on, if any. */
static int put_not_enforced(struct describe *d, const char *spec)
{
    struct gq_strs ne;
    size_t i;
    int rc = gq__manifest_not_enforced(spec, &ne, d->err);

    if (rc != GQ_OK)
        return rc;
    for (i = 0; i < ne.n; i++) {
        if (i == 0)
            line(&d->t, 0, "Not enforced:\t%s", ne.v[i]);
        else
            line(&d->t, 0, ", %s", ne.v[i]);
        free(ne.v[i]);
    }
    if (ne.n)
        line(&d->t, 0, "\n");
    free(ne.v);
    return GQ_OK;
}

/* What every queue object ends with: the settings not enforced, then its events. */
static int put_tail(struct describe *d, const struct gq_obj_detail *o)
{
    int rc = put_not_enforced(d, o->spec);

    return rc == GQ_OK ? put_events(d, o->uid) : rc;
}

static int describe_cq(struct describe *d)
{
    struct gq_obj_detail o;
    struct qfind q = {NULL, d->name, false, NULL, 0, 0, 0};
    int rc;

    if ((rc = read_object(d, &o)) || (rc = qfind(d, "clusterqueue", NULL, &q)) ||
        (rc = put_object_meta(d, &o)))
        goto out;
    line(&d->t, 0, "Cohort:\t%s\n", or_none(o.cohort));
    line(&d->t, 0, "Queueing Strategy:\t%s\n", o.strategy);
    line(&d->t, 0, "Stop Policy:\t%s\n", o.stop_policy);
    line(&d->t, 0, "Namespace Selector:\t%s\n", o.ns_selector);
    line(&d->t, 0, "Preemption:\n");
    line(&d->t, 1, "Within Cluster Queue:\t%s\n", o.within_cq);
    line(&d->t, 1, "Reclaim Within Cohort:\t%s\n", o.reclaim);
    line(&d->t, 1, "Borrow Within Cohort:\t%s\n", o.borrow);
    if ((rc = put_groups(d, o.spec, o.name)) ||
        (rc = put_list(d, 0, "Admission Checks", gq__store_cq_checks, o.spec)))
        goto out;
    put_cq_status(d, &q);
    rc = put_tail(d, &o);
out:
    free(q.inactive);
    gq__store_obj_detail_clear(&o);
    return rc;
}

/*
 * A LocalQueue's admission fair sharing status, when it has one: its weight,
 * the decayed consumed resources and when they were last updated.
 */
static int put_lq_afs(struct describe *d, const struct gq_obj_detail *o)
{
    struct gq_lq_afs a;
    char buf[32];
    const char *p, *end, *eq;
    int rc = gq__store_lq_afs(d->db->st, o->ns, o->name, &a, d->err);

    if (rc != GQ_OK || !a.consumed)
        return rc;
    line(&d->t, 1, "Admission Fair Sharing:\n");
    line(&d->t, 2, "Weight:\t%s\n", a.weight);
    line(&d->t, 2, "Consumed Resources:%s\n", *a.consumed ? "" : "\t<none>");
    for (p = a.consumed; *p; p = *end ? end + 1 : end) {
        end = p + strcspn(p, "\n");
        eq = memchr(p, '=', (size_t)(end - p));
        if (eq)
            line(&d->t, 3, "%.*s:\t%.*s\n", (int)(eq - p), p, (int)(end - eq - 1), eq + 1);
    }
    line(&d->t, 2, "Last Update:\t%s\n", rfc3339(buf, a.last_ms));
    gq__store_lq_afs_clear(&a);
    return GQ_OK;
}

static int describe_lq(struct describe *d)
{
    struct gq_obj_detail o;
    struct qfind q = {d->ns, d->name, false, NULL, 0, 0, 0};
    struct qfind cq = {NULL, NULL, false, NULL, 0, 0, 0};
    int rc;

    if ((rc = read_object(d, &o)) || (rc = qfind(d, "localqueue", d->ns, &q)))
        goto out;
    cq.name = o.cluster_queue;
    if ((rc = qfind(d, "clusterqueue", NULL, &cq)) || (rc = put_object_meta(d, &o)))
        goto out;
    line(&d->t, 0, "Cluster Queue:\t%s\n", o.cluster_queue);
    line(&d->t, 0, "Stop Policy:\t%s\n", o.stop_policy);
    if (strcmp(o.stop_policy, "None") != 0)
        put_active(d, false, "Stopped", "LocalQueue is stopped");
    else if (!cq.found || cq.inactive)
        put_active(d, false, cq.found ? "ClusterQueueIsInactive" : "ClusterQueueDoesNotExist",
                   "Can't submit new workloads to clusterQueue");
    else
        put_active(d, true, "Ready", "Can submit new workloads to localQueue");
    put_counts(d, &q);
    if ((rc = put_lq_afs(d, &o)) == GQ_OK)
        rc = put_tail(d, &o);
out:
    free(q.inactive);
    free(cq.inactive);
    gq__store_obj_detail_clear(&o);
    return rc;
}

static int describe_flavor(struct describe *d)
{
    struct gq_obj_detail o;
    int rc;

    if ((rc = read_object(d, &o)) || (rc = put_object_meta(d, &o)) ||
        (rc = put_list(d, 0, "Node Labels", gq__store_flavor_labels, o.spec)) ||
        (rc = put_list(d, 0, "Node Taints", gq__store_flavor_taints, o.spec)) ||
        (rc = put_list(d, 0, "Tolerations", gq__store_flavor_tolerations, o.spec)))
        goto out;
    line(&d->t, 0, "Topology Name:\t%s\n", or_none(o.topology));
    if ((rc = put_list(d, 0, "Cluster Queues", gq__store_flavor_users, o.name)))
        goto out;
    rc = put_tail(d, &o);
out:
    gq__store_obj_detail_clear(&o);
    return rc;
}

static int describe_cohort(struct describe *d)
{
    struct gq_obj_detail o;
    int rc;

    if ((rc = read_object(d, &o)) || (rc = put_object_meta(d, &o)))
        goto out;
    line(&d->t, 0, "Parent:\t%s\n", or_none(o.cohort));
    if ((rc = put_groups(d, o.spec, NULL)) ||
        (rc = put_list(d, 0, "Cluster Queues", gq__store_cohort_members, o.name)) ||
        (rc = put_list(d, 0, "Child Cohorts", gq__store_cohort_children, o.name)))
        goto out;
    rc = put_tail(d, &o);
out:
    gq__store_obj_detail_clear(&o);
    return rc;
}

/* Every other kind: its fields as kubectl describes an unstructured object. */
static int describe_generic(struct describe *d)
{
    struct gq_obj_detail o;
    int rc;

    if ((rc = read_object(d, &o)) || (rc = put_object_meta(d, &o)))
        goto out;
    line(&d->t, 0, "API Version:\t%s\n", or_none(o.api_version));
    line(&d->t, 0, "Kind:\t%s\n", or_none(o.kind));
    if ((rc = put_tree(d, 0, o.spec, "$", true)) != GQ_OK)
        goto out;
    rc = put_tail(d, &o);
out:
    gq__store_obj_detail_clear(&o);
    return rc;
}

/* ---------------------------------------------------------------- workloads */

/* The workload gq_workload_list found, copied out of its callback. */
struct wl_found {
    char *s[13]; /* namespace, name, uid, job kind, job name, local queue, cluster queue,
                    state, reason, message, priority class, where it stands, MultiKueue's
                    worker (clusterName) */
    int64_t priority, pods, gpus, position, position_cq, created, reserved, admitted, finished;
    bool found;
    bool last; /* keep the last match (the newest), not the first */
};

static void wl_found_clear(struct wl_found *w)
{
    int i;

    for (i = 0; i < 13; i++)
        free(w->s[i]);
    memset(w->s, 0, sizeof(w->s));
    w->found = false;
}

static int wl_found_row(const gq_workload_info *wl, void *payload)
{
    struct wl_found *w = payload;
    const char *s[13] = {wl->namespace, wl->name,        wl->uid,           wl->job_kind,
                         wl->job_name,  wl->local_queue, wl->cluster_queue, wl->state,
                         wl->reason,    wl->message,     wl->priority_class, wl->where,
                         wl->cluster_name};
    int i;

    wl_found_clear(w);
    w->found = true;
    for (i = 0; i < 13; i++)
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

static int podset_line(const struct gq_podset_row *r, void *payload)
{
    struct podsets_ctx *p = payload;
    int64_t count = num(r->count), each = r->amount;
    char total[GQ_QUANTITY_BUFSIZE];
    bool same = p->rows++ > 0 && r->podset && strncmp(p->last, r->podset, sizeof(p->last)) == 0;

    snprintf(p->last, sizeof(p->last), "%s", r->podset ? r->podset : "");
    if (!r->resource) {
        line(&p->d->t, 1, "%s\t%s\t<none>\t\t\n", or_none(r->podset), or_none(r->count));
        return 0;
    }
    if (count > 0 && each > INT64_MAX / count)
        snprintf(total, sizeof(total), "<overflow>");
    else
        amount(total, r->resource, each * count);
    line(&p->d->t, 1, "%s\t%s\t%s\t%s\t%s\n", same ? "" : or_none(r->podset),
         same ? "" : r->count, r->resource, r->per_pod, total);
    return 0;
}

static int put_podsets(struct describe *d, const char *uid)
{
    struct podsets_ctx p = {d, "", 0};
    int rc;

    line(&d->t, 0, "Pod Sets:\n");
    line(&d->t, 1, "Name\tCount\tResource\tPer Pod\tTotal\n");
    line(&d->t, 1, "----\t-----\t--------\t-------\t-----\n");
    rc = gq__store_workload_podsets(d->db->st, uid, podset_line, &p, d->err);
    flush(&d->t);
    return rc;
}

/* A free-text value on one line (as the store's reads make cells), or "<none>". */
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
    if (w->s[12]) /* Kueue's status.clusterName: the MultiKueue worker that admitted it */
        line(&d->t, 0, "Cluster Name:\t%s\n", w->s[12]);
    if (w->finished)
        line(&d->t, 0, "Finished:\t%s\n", rfc3339(buf, w->finished));
}
/* How long the job runs once its pods start (gpuq.dev/duration), when it says. */
static void put_duration(struct describe *d, const struct gq_wl_detail *w)
{
    char buf[GQ_DURATION_BUFSIZE];

    if (!w->has_duration)
        return;
    gq__format_duration_ms(buf, sizeof(buf), w->duration_ms, true);
    line(&d->t, 0, "Duration:\t%s\n", buf);
}

static int ahead_line(const struct gq_ahead_row *a, void *payload)
{
    struct describe *d = payload;
    char buf[32];

    line(&d->t, 1, "%s/%s\t%" PRId64 "\t%" PRId64 "\t%s\t%s\n", a->ns, a->name, a->priority,
         a->gpus, human_duration(buf, d->now_ms - a->queued_at), or_none(a->reason));
    return 0;
}

/*
 * Who is ahead of a pending workload in its ClusterQueue, in heap order
 * (priority, queue-order time, submission): the first ten.
 */
static int put_ahead(struct describe *d, const struct wl_found *w, const struct gq_wl_detail *det)
{
    enum gq_wl_state s;
    int rc;

    if (!w->s[6] || !gq__wl_state_parse(w->s[7], &s) || s != GQ_WL_PENDING)
        return GQ_OK;
    line(&d->t, 0, "Ahead in ClusterQueue:\n");
    line(&d->t, 1, "Workload\tPriority\tGPUs\tWaiting\tReason\n");
    line(&d->t, 1, "--------\t--------\t----\t-------\t------\n");
    rc = gq__store_queue_ahead(d->db->st, w->s[6], det, ahead_line, d, d->err);
    flush(&d->t);
    return rc;
}

/* The last eviction Kueue would still show (Evicted, Preempted), with the count. */
static void put_eviction(struct describe *d, const struct gq_wl_detail *w)
{
    const char *pre = w->preempted_reason;

    if (!w->evicted_reason)
        return;
    line(&d->t, 0, "Last Eviction:\t%s%s%s%s (%" PRId64 " in all)\n", w->evicted_reason,
         pre ? " (" : "", pre ? pre : "", pre ? ")" : "", w->evictions);
    put_one_line(&d->t, "Eviction Message", w->evicted_message);
}

/* waitForPodsReady: the PodsReady condition and the PodsReady timeouts so far. */
static void put_pods_ready(struct describe *d, const struct gq_wl_detail *w)
{
    const char *r = w->pods_ready_reason;
    char at[GQ_RFC3339_BUFSIZE];

    if (r)
        line(&d->t, 0, "Pods Ready:\t%s (%s since %s)\n",
             strcmp(r, "Started") == 0 || strcmp(r, "Recovered") == 0 ? "True" : "False", r,
             gq__rfc3339(at, w->pods_ready_at));
    if (w->requeue_count > 0)
        line(&d->t, 0, "Requeue Count:\t%" PRId64 " (PodsReady timeouts)\n", w->requeue_count);
}

static int describe_workload(struct describe *d)
{
    struct wl_found w;
    struct gq_wl_detail det;
    int rc;

    memset(&w, 0, sizeof(w));
    memset(&det, 0, sizeof(det));
    if ((rc = wl_find(d, &w)) ||
        (rc = gq__store_workload_detail(d->db->st, w.s[2], &det, d->err)))
        goto out;
    if (!det.found) {
        rc = not_found(d);
        goto out;
    }
    if ((rc = put_meta(d, w.s[0], w.s[1], w.s[2], det.spec, NULL)))
        goto out;
    put_wl_fields(d, &w);
    put_duration(d, &det);
    if (w.position_cq >= 0)
        line(&d->t, 0, "Position in ClusterQueue:\t%" PRId64 "\n", w.position_cq);
    put_eviction(d, &det);
    put_pods_ready(d, &det);
    if ((rc = put_podsets(d, w.s[2])) != GQ_OK)
        goto out;
    if (det.admission) {
        line(&d->t, 0, "Admission:\n");
        if ((rc = put_tree(d, 1, det.admission, "$", false)) != GQ_OK)
            goto out;
    }
    if ((rc = put_ahead(d, &w, &det)) != GQ_OK)
        goto out;
    rc = put_events(d, w.s[2]);
out:
    wl_found_clear(&w);
    gq__store_wl_detail_clear(&det);
    return rc;
}

/* ---------------------------------------------------- provisioning requests */

/* The request or template a listing found, its strings copied out of the callback. */
struct found {
    char *ns, *name, *uid;
    char *owner;     /* a request: its workload; a template: its request */
    char *check;     /* a request: its AdmissionCheck */
    char *class_name;
    char *object;    /* as stored (JSON) */
    char *status;    /* a request: its status JSON */
    int64_t attempt, created_ms;
};

static void found_clear(struct found *f)
{
    free(f->ns);
    free(f->name);
    free(f->uid);
    free(f->owner);
    free(f->check);
    free(f->class_name);
    free(f->object);
    free(f->status);
    memset(f, 0, sizeof(*f));
}

/* Copy s into *dst; false when out of memory. */
static bool copy(char **dst, const char *s)
{
    *dst = gq__strdup(s);
    return !s || *dst;
}

static int provreq_found(const gq_provreq_info *pr, void *payload)
{
    struct found *f = payload;

    found_clear(f);
    f->attempt = pr->attempt;
    f->created_ms = pr->created_ms;
    return copy(&f->ns, pr->namespace) && copy(&f->name, pr->name) && copy(&f->uid, pr->uid) &&
                   copy(&f->owner, pr->workload) && copy(&f->check, pr->check) &&
                   copy(&f->class_name, pr->class_name) && copy(&f->object, pr->object) &&
                   copy(&f->status, pr->status)
               ? 0
               : GQ_ENOMEM;
}

/* A table being written: its rows at level 1, the row's cells tab-separated. */
struct cells_ctx {
    struct describe *d;
    int rows;
};

/* One row of n cells (NULL printed empty). */
static void cells_line(struct cells_ctx *c, int n, ...)
{
    va_list ap;
    int i;

    c->rows++;
    line(&c->d->t, 1, "%s", "");
    va_start(ap, n);
    for (i = 0; i < n; i++) {
        const char *s = va_arg(ap, const char *);

        line(&c->d->t, 0, "%s%s", i ? "\t" : "", s ? s : "");
    }
    va_end(ap);
    gq__str_add(&c->d->t, "\n", 1);
}

static int param_cells(const struct gq_param_row *p, void *payload)
{
    cells_line(payload, 2, p->label, p->value);
    return 0;
}

static int pr_podset_cells(const struct gq_pr_podset_row *p, void *payload)
{
    cells_line(payload, 2, p->template_name, p->count);
    return 0;
}

static int condition_cells(const struct gq_condition_row *r, void *payload)
{
    cells_line(payload, 4, r->type, r->status, r->reason, r->message);
    return 0;
}

/* The tables of a request. */
enum table { TABLE_PARAMETERS, TABLE_PODSETS, TABLE_CONDITIONS };

static int read_table(struct describe *d, enum table which, const char *json, struct cells_ctx *c)
{
    switch (which) {
    case TABLE_PARAMETERS:
        return gq__store_provreq_parameters(d->db->st, json, param_cells, c, d->err);
    case TABLE_PODSETS:
        return gq__store_provreq_podsets(d->db->st, json, pr_podset_cells, c, d->err);
    default:
        return gq__store_provreq_conditions(d->db->st, json, condition_cells, c, d->err);
    }
}

/*
 * "Title:" and a table of the rows read of json under a header and its
 * dashes (none when head is NULL), or "Title:\t<none>" when there are no rows.
 */
static int put_table(
    struct describe *d, const char *title, const char *head, enum table which, const char *json)
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
    rc = read_table(d, which, json, &c);
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

/* After a listing's lookup into f: its metadata, or the lookup's error. */
static int put_found_meta(struct describe *d, int rc, const struct found *f)
{
    if (rc == GQ_ENOMEM)
        return gq__error(d->err, GQ_ENOMEM, "out of memory");
    if (rc != GQ_OK)
        return rc;
    return put_meta(d, f->ns, f->name, f->uid, f->object, NULL);
}

static int describe_provreq(struct describe *d)
{
    struct found f;
    char buf[32];
    int rc;

    memset(&f, 0, sizeof(f));
    rc = gq_provreq_list(d->db, d->ns, d->name, provreq_found, &f, d->err);
    if ((rc = put_found_meta(d, rc, &f)) != GQ_OK)
        goto out;
    line(&d->t, 0, "Class:\t%s\n", or_none(f.class_name));
    line(&d->t, 0, "Workload:\t%s\n", or_none(f.owner));
    line(&d->t, 0, "Check:\t%s\n", or_none(f.check));
    line(&d->t, 0, "Attempt:\t%" PRId64 "\n", f.attempt);
    if ((rc = put_table(d, "Parameters", NULL, TABLE_PARAMETERS, f.object)) ||
        (rc = put_table(d, "Pod Sets", "Pod Template\tCount", TABLE_PODSETS, f.object)) ||
        (rc = put_table(d, "Conditions", "Type\tStatus\tReason\tMessage", TABLE_CONDITIONS,
                        f.status)))
        goto out;
    line(&d->t, 0, "Created:\t%s\n", rfc3339(buf, f.created_ms));
    rc = put_events(d, f.uid);
out:
    found_clear(&f);
    return rc;
}

static int podtemplate_found(const gq_podtemplate_info *pt, void *payload)
{
    struct found *f = payload;

    found_clear(f);
    return copy(&f->ns, pt->namespace) && copy(&f->name, pt->name) && copy(&f->uid, pt->uid) &&
                   copy(&f->owner, pt->provreq) && copy(&f->object, pt->object)
               ? 0
               : GQ_ENOMEM;
}

static int describe_podtemplate(struct describe *d)
{
    struct found f;
    int rc;

    memset(&f, 0, sizeof(f));
    rc = gq_podtemplate_list(d->db, d->ns, d->name, podtemplate_found, &f, d->err);
    if ((rc = put_found_meta(d, rc, &f)) != GQ_OK)
        goto out;
    line(&d->t, 0, "Provisioning Request:\t%s\n", or_none(f.owner));
    line(&d->t, 0, "Pod Template:\n");
    if ((rc = put_tree(d, 1, f.object, "$.template", false)) != GQ_OK)
        goto out;
    rc = put_events(d, f.uid);
out:
    found_clear(&f);
    return rc;
}

/* ----------------------------------------------------------------- describe */

static int describe_txn(struct gq_store *st, void *payload, gq_error *err)
{
    struct describe *d = payload;
    int rc;

    (void)st;
    (void)err;
    d->t.len = 0;
    d->t.failed = false;
    switch (d->kind) {
    case GQ_KIND_CLUSTER_QUEUE:
        rc = describe_cq(d);
        break;
    case GQ_KIND_PROVISIONING_REQUEST:
        rc = describe_provreq(d);
        break;
    case GQ_KIND_POD_TEMPLATE:
        rc = describe_podtemplate(d);
        break;
    case GQ_KIND_LOCAL_QUEUE:
        rc = describe_lq(d);
        break;
    case GQ_KIND_RESOURCE_FLAVOR:
        rc = describe_flavor(d);
        break;
    case GQ_KIND_COHORT:
        rc = describe_cohort(d);
        break;
    case GQ_KIND_JOB:
    case GQ_KIND_WORKLOAD:
        rc = describe_workload(d);
        break;
    default:
        rc = describe_generic(d);
        break;
    }
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
