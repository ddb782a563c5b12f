/*
 * list_watch.c: `gpuq get -w` and `--watch-only`, as kubectl's: the listing
 * (unless --watch-only), then a row for each object that changes, is added,
 * or goes away (its last row), in the widths of what was printed before, as
 * kubectl's tabwriter remembers them; until killed.
 *
 * Local mode reads the database's data version (gq_db_data_version) every
 * WATCH_POLL_MS and lists again only when another process has committed;
 * cluster mode reads gpuqd's status API again every WATCH_CLUSTER_MS (it has
 * no watch of its own). A listing is compared with the one before by each
 * row's namespace and name; cells that change by themselves (AGE, EXEC TIME)
 * do not count as a change. Workloads are listed in every state, so that a
 * cancelled one shows its CANCELLED row rather than vanishing; the first
 * listing leaves the cancelled ones out, as `gpuq get` does without --status.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "list.h"
#include "table.h"
#include "term.h"

#define WATCH_POLL_MS 200
#define WATCH_CLUSTER_MS 2000

/* A row of a listing, found by its object: "namespace/name". */
struct row_ref {
    char *key;
    size_t row; /* 1-based, as table_cell counts */
};

struct snapshot {
    struct table *t;
    struct row_ref *refs; /* sorted by key */
    size_t n;
    int key_cols; /* 2 with -A (NAMESPACE, NAME), else 1 */
};

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

    while (nanosleep(&ts, &ts) != 0)
        ;
}

static void snapshot_free(struct snapshot *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->refs[i].key);
    free(s->refs);
    table_free(s->t);
    memset(s, 0, sizeof(*s));
}

static int ref_cmp(const void *a, const void *b)
{
    return strcmp(((const struct row_ref *)a)->key, ((const struct row_ref *)b)->key);
}

static char *row_key(const struct snapshot *s, size_t r)
{
    const char *ns = s->key_cols == 2 ? table_cell(s->t, r, 0) : "";
    const char *name = table_cell(s->t, r, s->key_cols - 1);
    size_t a = strlen(ns), b = strlen(name);
    char *k = malloc(a + b + 2);

    if (k)
        snprintf(k, a + b + 2, "%s/%s", ns, name);
    return k;
}

/* One listing, indexed by object. EXIT_SUCCESS, or the failure said. */
static int take(struct lister *l, const char *resource, gq_workload_filter *f, struct snapshot *s)
{
    bool namespaced;
    int rc;

    memset(s, 0, sizeof(*s));
    l->t = NULL;
    l->rows = 0;
    list_picks_reset(l->pk);
    if (l->json && (rc = list_fetch(l, f)) != EXIT_SUCCESS)
        return rc;
    if (l->db)
        l->now_ms = gq_db_now_ms(l->db);
    if ((rc = list_build(l, resource, f, &namespaced)) != EXIT_SUCCESS)
        return rc == LIST_PRINTED ? EXIT_FAILURE : rc;
    s->t = l->t;
    l->t = NULL;
    s->key_cols = l->all_ns ? 2 : 1;
    if (!(s->refs = calloc(table_rows(s->t) + 1, sizeof(*s->refs))))
        return fputs("error: out of memory\n", stderr), EXIT_FAILURE;
    for (size_t r = 1; r <= table_rows(s->t); r++, s->n++)
        if (!(s->refs[s->n].key = row_key(s, r)))
            return fputs("error: out of memory\n", stderr), EXIT_FAILURE;
        else
            s->refs[s->n].row = r;
    qsort(s->refs, s->n, sizeof(*s->refs), ref_cmp);
    return EXIT_SUCCESS;
}

static int key_cmp(const void *key, const void *ref)
{
    return strcmp(key, ((const struct row_ref *)ref)->key);
}

static const struct row_ref *find(const struct snapshot *s, const char *key)
{
    return bsearch(key, s->refs, s->n, sizeof(*s->refs), key_cmp);
}

static bool time_column(const struct table *t, int c)
{
    const char *h = table_cell(t, 0, c);

    return strcmp(h, "AGE") == 0 || strcmp(h, "EXEC TIME") == 0;
}

/* Whether row ra of a and row rb of b differ in a cell that does not move by itself. */
static bool changed(const struct table *a, size_t ra, const struct table *b, size_t rb)
{
    for (int c = 0; c < table_cols(a); c++)
        if (!time_column(a, c) && strcmp(table_cell(a, ra, c), table_cell(b, rb, c)) != 0)
            return true;
    return false;
}

static int add(struct table *out, const struct table *t, size_t r)
{
    const char *cells[2 * MAX_COLS];
    int c;

    for (c = 0; c < table_cols(t) && c < 2 * MAX_COLS; c++)
        cells[c] = table_cell(t, r, c);
    return table_add_row(out, cells);
}

/* Whether a row is a cancelled workload the first listing leaves out (no --status given). */
static bool hidden(const struct table *t, size_t r, bool all_states)
{
    for (int c = 0; all_states && c < table_cols(t); c++)
        if (strcmp(table_cell(t, 0, c), "STATUS") == 0)
            return strcmp(table_cell(t, r, c), "CANCELLED") == 0;
    return false;
}

/* The rows of cur that are new or changed since prev, then prev's that are gone. */
static int diff(const struct snapshot *prev, const struct snapshot *cur, struct table *out)
{
    const struct row_ref *was;
    size_t i;

    for (i = 0; i < cur->n; i++) {
        was = find(prev, cur->refs[i].key);
        if ((!was || changed(prev->t, was->row, cur->t, cur->refs[i].row)) &&
            add(out, cur->t, cur->refs[i].row) != 0)
            return -1;
    }
    for (i = 0; i < prev->n; i++)
        if (!find(cur, prev->refs[i].key) && add(out, prev->t, prev->refs[i].row) != 0)
            return -1;
    return 0;
}

/* Print what out holds past *printed, the header the first time; flushed at once. */
static int emit(const struct lister *l, const struct table *out, size_t *printed, bool *header)
{
    int h = l->g->no_headers ? 0 : *header ? TABLE_HEADER : TABLE_HEADER_WIDTHS;

    if (table_rows(out) == *printed)
        return 0;
    if (table_print_from(out, stdout, *printed, term_width(1), h,
                         term_use_color(1, l->g->color)) != 0 ||
        fflush(stdout) != 0)
        return -1;
    *printed = table_rows(out);
    *header = false;
    return 0;
}

/* Until another process commits (local mode), or for a while (cluster mode). */
static int wait_change(struct lister *l)
{
    gq_error err = {0, ""};
    int64_t v0, v;

    if (!l->db) {
        sleep_ms(WATCH_CLUSTER_MS);
        return EXIT_SUCCESS;
    }
    if (gq_db_data_version(l->db, &v0, &err) != GQ_OK)
        return cli_fail(&err);
    do {
        sleep_ms(WATCH_POLL_MS);
        if (gq_db_data_version(l->db, &v, &err) != GQ_OK)
            return cli_fail(&err);
    } while (v == v0);
    return EXIT_SUCCESS;
}

int list_watch(struct lister *l, const char *resource, gq_workload_filter *f)
{
    struct snapshot prev, cur;
    struct table *out = NULL;
    bool all_states = !f->state && strcmp(resource, "workload") == 0, header = true;
    size_t printed = 0, r;
    int rc;

    if (all_states)
        f->state = "all";
    if ((rc = take(l, resource, f, &prev)) != EXIT_SUCCESS)
        goto done;
    if (!(out = table_new_like(prev.t)))
        goto oom;
    for (r = 1; !l->watch_only && r <= table_rows(prev.t); r++)
        if (!hidden(prev.t, r, all_states) && add(out, prev.t, r) != 0)
            goto oom;
    if (!l->watch_only && table_rows(out) == 0)
        list_no_resources(l, strcmp(resource, "workload") == 0 ||
                                 strcmp(resource, "localqueue") == 0);
    for (;;) {
        if (emit(l, out, &printed, &header) != 0) {
            rc = EXIT_FAILURE; /* stdout went away (a closed pipe): nothing more to say */
            goto done;
        }
        if ((rc = wait_change(l)) != EXIT_SUCCESS)
            goto done;
        if ((rc = take(l, resource, f, &cur)) != EXIT_SUCCESS) {
            snapshot_free(&cur);
            goto done;
        }
        if (diff(&prev, &cur, out) != 0) {
            snapshot_free(&cur);
            goto oom;
        }
        snapshot_free(&prev);
        prev = cur;
    }
oom:
    fputs("error: out of memory\n", stderr);
    rc = EXIT_FAILURE;
done:
    snapshot_free(&prev);
    table_free(out);
    return rc;
}
