/*
 * table.h: kubectl-style tables for gpuq's list commands: UPPERCASE headers,
 * left-aligned columns separated by three spaces, no trailing spaces, and
 * optional fitting to a terminal width by cutting long cells with "…".
 */
#ifndef GQ_CLI_TABLE_H
#define GQ_CLI_TABLE_H

#include <stdbool.h>
#include <stdio.h>

struct table;

/* Returns a colour escape sequence for a cell value, or NULL for none. */
typedef const char *(*table_color_fn)(const char *cell);

/*
 * A new empty table with ncols columns. headers holds ncols strings, which are
 * copied; callers pass them in UPPERCASE. Returns NULL when out of memory or
 * when ncols < 1. Free with table_free().
 */
struct table *table_new(const char *const *headers, int ncols);

/*
 * Add a column after the last, before any row is added (-L's label columns).
 * Returns 0, or -1 when out of memory or rows were added (the table is then
 * unchanged).
 */
int table_add_column(struct table *t, const char *header);

/*
 * Allow column col to be narrowed, its cells cut with "…", when the table is
 * printed with a width it would otherwise exceed. Columns are not truncatable
 * by default: mark the free-text ones (names, reasons), not ids or states.
 */
void table_set_truncatable(struct table *t, int col, bool yes);

/*
 * Colour the data cells of column col by value when printing with colour on.
 * color_for is called once per printed cell and its result is borrowed.
 */
void table_set_color(struct table *t, int col, table_color_fn color_for);

/*
 * Append a row of ncols cells. The cells are copied; a NULL cell is empty;
 * control characters are replaced with '?' so a value cannot move the cursor
 * or break the row. Returns 0, or -1 when out of memory (the table is then
 * unchanged).
 */
int table_add_row(struct table *t, const char *const *cells);

/*
 * Write the table to out. width > 0 fits the rows into that many display
 * columns by narrowing truncatable columns (never below their header's width,
 * or 3); width <= 0 never truncates. headers selects the header line (false
 * for --no-headers); color enables the colour callbacks. Returns 0, or -1 when
 * out of memory or when writing failed. out is not flushed.
 */
int table_print(const struct table *t, FILE *out, int width, bool headers, bool color);

/* table_print_from's header: print it, or only size the columns to it (printed before). */
#define TABLE_HEADER 1
#define TABLE_HEADER_WIDTHS 2

/*
 * table_print, but only the data rows from index from on (0 is the first):
 * what -w adds to a table already printed, in the widths of every row so
 * far (and of the header, when it was or is printed), as kubectl's tabwriter
 * remembers them.
 */
int table_print_from(const struct table *t, FILE *out, size_t from, int width, int header,
                     bool color);

/* A new table with t's headers and column settings, and no rows. NULL when out of memory. */
struct table *table_new_like(const struct table *t);

/* The data rows stored, the columns, and a cell's text (row 0 is the header, data from 1). */
size_t table_rows(const struct table *t);
int table_cols(const struct table *t);
const char *table_cell(const struct table *t, size_t row, int col);

/* Free the table and everything it copied. NULL is a no-op. */
void table_free(struct table *t);

#endif
