/*
 * table.c: builds and prints gpuq's kubectl-style tables. All cell text lives
 * in one growing arena, NUL-terminated, with an 8-byte record per cell (bytes,
 * display width) and an offset per row, so adding a row costs a few capacity
 * checks and copies, never a malloc per cell. Widths are display columns,
 * counted as UTF-8 code points (East Asian wide characters count as one; good
 * enough for names and reasons). Printing assembles rows in a 64 KiB buffer
 * handed to fwrite whole. `gpuq list -A` prints about 100,000 rows of 8
 * columns; tests/bench/table_bench.c times that at about 20 ms, a third of it
 * page faults on the arena.
 *
 * Invariants: cells holds rows * ncols records, the header row first, and
 * row_off[r] is where row r's texts begin, one after another in column order;
 * each column's data_width is the largest width among its data cells; a row
 * is either stored whole or not at all.
 */
#include "table.h"

#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define GUTTER 3                 /* spaces between columns: kubectl's tabwriter padding */
#define MIN_TRUNC_WIDTH 3        /* a cut cell keeps at least "ab…" */
#define OUT_BUF_SIZE (64 * 1024) /* bytes per fwrite */

static const char ellipsis[] = "\xe2\x80\xa6"; /* U+2026, one display column */
static const char color_reset[] = "\033[0m";

/* A row's cells lie back to back in the arena, so a cell's text is found by walking its row. */
struct cell {
    uint32_t len;   /* bytes, NUL excluded */
    uint32_t width; /* display columns */
};

struct column {
    size_t data_width;        /* widest data cell so far */
    bool trunc;               /* may be narrowed to fit a width */
    table_color_fn color_for; /* NULL: never coloured */
};

/* Owned by one thread: a command builds a table, prints it and frees it. */
struct table {
    int ncols;           /* columns per row, >= 1 */
    size_t rows;         /* rows stored, the header row included */
    struct column *cols; /* ncols entries, owned */
    struct cell *cells;  /* rows * ncols records, row-major, owned */
    size_t cells_cap;    /* records allocated in cells */
    size_t *row_off;     /* rows entries: where each row's text starts in arena, owned */
    size_t row_cap;      /* entries allocated in row_off */
    char *arena;         /* the text of every cell, owned */
    size_t arena_len;    /* bytes used in arena */
    size_t arena_cap;    /* bytes allocated in arena */
};

/* Rows are assembled here and reach the FILE in OUT_BUF_SIZE pieces. */
struct outbuf {
    FILE *out;  /* borrowed */
    char *buf;  /* OUT_BUF_SIZE bytes, owned */
    size_t len; /* bytes waiting in buf */
    int err;    /* -1 once a write has failed */
};

/*
 * Make room for need elements of elem bytes at p, doubling the capacity.
 * Returns the (possibly moved) block, or NULL with p untouched.
 */
static void *grow(void *p, size_t *cap, size_t need, size_t elem)
{
    size_t n = *cap ? *cap : 64;
    void *q;

    if (need <= *cap)
        return p;
    while (n < need) {
        if (n > SIZE_MAX / 2)
            return NULL;
        n *= 2;
    }
    if (n > SIZE_MAX / elem)
        return NULL;
    q = realloc(p, n * elem);
    if (q != NULL)
        *cap = n;
    return q;
}

/* A C1 control (U+0080-U+009F) encoded in UTF-8: terminals act on these as on C0. */
static bool is_c1(const unsigned char *s, size_t left)
{
    return left >= 2 && s[0] == 0xc2 && s[1] >= 0x80 && s[1] <= 0x9f;
}

/*
 * Copy len bytes of src to dst plus a NUL, C0 and C1 control characters and
 * DEL each made one '?'; *len_out gets the bytes copied. Returns the width.
 */
static uint32_t copy_text(char *dst, const char *src, size_t len, uint32_t *len_out)
{
    const unsigned char *s = (const unsigned char *)src;
    uint32_t width = 0;
    size_t i, n = 0;

    for (i = 0; i < len; i++) {
        unsigned char c = s[i];

        if (is_c1(s + i, len - i)) {
            c = '?';
            i++;
        } else if (c < 0x20 || c == 0x7f) {
            c = '?';
        }
        dst[n++] = (char)c;
        width += (c & 0xc0) != 0x80;
    }
    dst[n] = '\0';
    *len_out = (uint32_t)n;
    return width;
}

/* Store one row (the header or data) whole, or leave the table unchanged and return -1. */
static int append_row(struct table *t, const char *const *cells)
{
    size_t n = (size_t)t->ncols;
    size_t used = t->arena_len;
    struct cell *row;
    void *p;

    assert(cells != NULL);
    p = grow(t->row_off, &t->row_cap, t->rows + 1, sizeof *t->row_off);
    if (p == NULL)
        return -1;
    t->row_off = p;
    t->row_off[t->rows] = used;
    p = grow(t->cells, &t->cells_cap, (t->rows + 1) * n, sizeof *t->cells);
    if (p == NULL)
        return -1;
    t->cells = p;
    row = t->cells + t->rows * n;
    for (size_t i = 0; i < n; i++) {
        const char *s = cells[i] != NULL ? cells[i] : "";
        size_t len = strlen(s);

        p = len < UINT32_MAX ? grow(t->arena, &t->arena_cap, used + len + 1, 1) : NULL;
        if (p == NULL)
            return -1;
        t->arena = p;
        row[i].width = copy_text(t->arena + used, s, len, &row[i].len);
        used += row[i].len + 1;
    }
    t->arena_len = used;
    t->rows++;
    return 0;
}

struct table *table_new(const char *const *headers, int ncols)
{
    struct table *t;

    if (ncols < 1)
        return NULL;
    t = calloc(1, sizeof *t);
    if (t == NULL)
        return NULL;
    t->ncols = ncols;
    t->cols = calloc((size_t)ncols, sizeof *t->cols);
    if (t->cols == NULL || append_row(t, headers) != 0) {
        table_free(t);
        return NULL;
    }
    return t;
}

int table_add_column(struct table *t, const char *header)
{
    const char **h;
    const char *p;
    struct table *n, tmp;
    int i;

    assert(t->rows == 1);
    if (t->rows != 1 || (h = malloc(((size_t)t->ncols + 1) * sizeof *h)) == NULL)
        return -1;
    for (i = 0, p = t->arena; i < t->ncols; i++, p += strlen(p) + 1)
        h[i] = p;
    h[i] = header;
    n = table_new(h, t->ncols + 1);
    free(h);
    if (n == NULL)
        return -1;
    memcpy(n->cols, t->cols, (size_t)t->ncols * sizeof *t->cols);
    tmp = *t; /* t takes the new table's insides; the old ones are freed with n */
    *t = *n;
    *n = tmp;
    table_free(n);
    return 0;
}

struct table *table_new_like(const struct table *t)
{
    const char **h = malloc((size_t)t->ncols * sizeof *h);
    struct table *n = NULL;
    int i;

    if (h == NULL)
        return NULL;
    for (i = 0; i < t->ncols; i++)
        h[i] = table_cell(t, 0, i);
    if ((n = table_new(h, t->ncols)) != NULL)
        memcpy(n->cols, t->cols, (size_t)t->ncols * sizeof *t->cols);
    for (i = 0; n != NULL && i < n->ncols; i++)
        n->cols[i].data_width = 0;
    free(h);
    return n;
}

size_t table_rows(const struct table *t)
{
    return t->rows - 1;
}

int table_cols(const struct table *t)
{
    return t->ncols;
}

const char *table_cell(const struct table *t, size_t row, int col)
{
    const char *p = t->arena + t->row_off[row];
    const struct cell *c = t->cells + row * (size_t)t->ncols;

    for (int i = 0; i < col; i++)
        p += c[i].len + 1;
    return p;
}

void table_set_truncatable(struct table *t, int col, bool yes)
{
    assert(col >= 0 && col < t->ncols);
    if (col >= 0 && col < t->ncols)
        t->cols[col].trunc = yes;
}

void table_set_color(struct table *t, int col, table_color_fn color_for)
{
    assert(col >= 0 && col < t->ncols);
    if (col >= 0 && col < t->ncols)
        t->cols[col].color_for = color_for;
}

int table_add_row(struct table *t, const char *const *cells)
{
    const struct cell *row;

    if (append_row(t, cells) != 0)
        return -1;
    row = t->cells + (t->rows - 1) * (size_t)t->ncols;
    for (int i = 0; i < t->ncols; i++) {
        if (row[i].width > t->cols[i].data_width)
            t->cols[i].data_width = row[i].width;
    }
    return 0;
}

void table_free(struct table *t)
{
    if (t == NULL)
        return;
    free(t->arena);
    free(t->cells);
    free(t->row_off);
    free(t->cols);
    free(t);
}

/* ---- fitting to a width ---- */

/* Natural column widths, and the narrowest each may be cut to (its header, or 3). */
static void column_widths(const struct table *t, bool headers, size_t *w, size_t *least)
{
    for (int i = 0; i < t->ncols; i++) {
        size_t head = headers ? t->cells[i].width : 0;
        size_t lo = head > MIN_TRUNC_WIDTH ? head : MIN_TRUNC_WIDTH;

        w[i] = t->cols[i].data_width > head ? t->cols[i].data_width : head;
        least[i] = lo < w[i] ? lo : w[i];
    }
}

/* Columns saved by cutting truncatable columns to at most level, never below their least width. */
static size_t saved_at(const struct table *t, const size_t *w, const size_t *least, size_t level)
{
    size_t saved = 0;

    for (int i = 0; i < t->ncols; i++) {
        size_t lim = level > least[i] ? level : least[i];

        if (t->cols[i].trunc && w[i] > lim)
            saved += w[i] - lim;
    }
    return saved;
}

/*
 * Narrow the widest truncatable columns until the row fits limit: find the
 * highest level L such that cutting every truncatable column to L saves
 * enough (savings only fall as L rises, so a binary search finds it), then
 * give the columns cut to exactly L back whatever was saved beyond need. If
 * even cutting everything to its least width is not enough, the row stays
 * too wide.
 */
static void fit_widths(const struct table *t, size_t *w, const size_t *least, size_t limit)
{
    size_t total = (size_t)(t->ncols - 1) * GUTTER;
    size_t lo = 0, hi = 0, excess, saved;

    for (int i = 0; i < t->ncols; i++) {
        total += w[i];
        hi = w[i] > hi ? w[i] : hi;
    }
    if (total <= limit)
        return;
    excess = total - limit;
    if (saved_at(t, w, least, 0) >= excess) {
        /* Invariant: saved_at(lo) >= excess > saved_at(hi) == 0. */
        while (hi - lo > 1) {
            size_t mid = lo + (hi - lo) / 2;

            if (saved_at(t, w, least, mid) >= excess)
                lo = mid;
            else
                hi = mid;
        }
    }
    saved = saved_at(t, w, least, lo);
    for (int i = 0; i < t->ncols; i++) {
        size_t lim = lo > least[i] ? lo : least[i];

        if (!t->cols[i].trunc || w[i] <= lim)
            continue;
        w[i] = lim;
        if (saved > excess && lim == lo) {
            w[i]++; /* this one need not have lost its last column */
            saved--;
        }
    }
}

/* ---- output ---- */

static void ob_flush(struct outbuf *ob)
{
    if (ob->len > 0 && fwrite(ob->buf, 1, ob->len, ob->out) != ob->len)
        ob->err = -1;
    ob->len = 0;
}

static void ob_put(struct outbuf *ob, const char *s, size_t n)
{
    if (n > OUT_BUF_SIZE - ob->len) {
        ob_flush(ob);
        if (n > OUT_BUF_SIZE) {
            if (fwrite(s, 1, n, ob->out) != n)
                ob->err = -1;
            return;
        }
    }
    memcpy(ob->buf + ob->len, s, n);
    ob->len += n;
}

static void ob_spaces(struct outbuf *ob, size_t n)
{
    while (n > 0) {
        size_t k;

        if (ob->len == OUT_BUF_SIZE)
            ob_flush(ob);
        k = OUT_BUF_SIZE - ob->len < n ? OUT_BUF_SIZE - ob->len : n;
        memset(ob->buf + ob->len, ' ', k);
        ob->len += k;
        n -= k;
    }
}

/* Bytes taken by the first cols code points of s. */
static size_t prefix_len(const char *s, size_t cols)
{
    size_t i;

    for (i = 0; s[i] != '\0'; i++) {
        if (((unsigned char)s[i] & 0xc0) != 0x80 && cols-- == 0)
            break;
    }
    return i;
}

/* Write a cell cut to width columns, coloured if color_for says so; returns the columns used. */
static size_t put_cell(struct outbuf *ob,
                       const char *text,
                       const struct cell *c,
                       size_t width,
                       table_color_fn color_for)
{
    const char *esc = color_for != NULL ? color_for(text) : NULL;
    bool cut = c->width > width;

    assert(!cut || width > 0);
    if (esc != NULL && *esc != '\0')
        ob_put(ob, esc, strlen(esc));
    ob_put(ob, text, cut ? prefix_len(text, width - 1) : c->len);
    if (cut)
        ob_put(ob, ellipsis, sizeof ellipsis - 1);
    if (esc != NULL && *esc != '\0')
        ob_put(ob, color_reset, sizeof color_reset - 1);
    return cut ? width : c->width;
}

/*
 * Write one row. Padding is owed, not written, until a non-empty cell
 * follows, so a line never ends in spaces even when its last cells are empty.
 */
static void
put_row(const struct table *t, struct outbuf *ob, size_t row, const size_t *w, bool color)
{
    const struct cell *c = t->cells + row * (size_t)t->ncols;
    const char *text = t->arena + t->row_off[row];
    size_t pad = 0;

    for (int i = 0; i < t->ncols; i++) {
        size_t shown = 0;

        if (c[i].width > 0) {
            ob_spaces(ob, pad);
            shown = put_cell(ob, text, &c[i], w[i], color ? t->cols[i].color_for : NULL);
            pad = 0;
        }
        pad += w[i] - shown + GUTTER;
        text += c[i].len + 1;
    }
    ob_put(ob, "\n", 1);
}

int table_print(const struct table *t, FILE *out, int width, bool headers, bool color)
{
    return table_print_from(t, out, 0, width, headers ? TABLE_HEADER : 0, color);
}

int table_print_from(const struct table *t, FILE *out, size_t from, int width, int header,
                     bool color)
{
    size_t n = (size_t)t->ncols;
    size_t *w = malloc(2 * n * sizeof *w); /* widths, then least widths */
    struct outbuf ob = {out, malloc(OUT_BUF_SIZE), 0, 0};
    int rc = -1;

    if (w == NULL || ob.buf == NULL)
        goto out;
    column_widths(t, header != 0, w, w + n);
    if (width > 0)
        fit_widths(t, w, w + n, (size_t)width);
    if (header & TABLE_HEADER)
        put_row(t, &ob, 0, w, false);
    for (size_t r = from + 1; r < t->rows; r++)
        put_row(t, &ob, r, w, color);
    ob_flush(&ob);
    rc = ob.err != 0 || ferror(out) ? -1 : 0;
out:
    free(ob.buf);
    free(w);
    return rc;
}
