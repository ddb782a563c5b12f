/*
 * store_journal.c: the admission engine's journal (schema/0012_journal.sql).
 *
 * A scheduling cycle that reserves quota, evicts or says why a workload
 * waits appends one compact row per decision here, in its own transaction,
 * instead of rewriting the workload's row, its usage rows and four indexes
 * on pages spread over the whole file; the rows are folded into those tables
 * later, in one pass ordered by workload, by the first transaction that is
 * not the engine's (gq__store_write and gq__store_read call
 * gq__store_journal_fold first) and at the end of gq_schedule. So a reader
 * sees every decision where it belongs, a decision is durable as soon as its
 * cycle commits, and a crash at any point leaves each decision either in the
 * journal or folded, never half of it.
 *
 * The engine journals only decisions that touch nothing but the workload's
 * row and usage: quota reserved without admission checks, an eviction of a
 * workload that never had checks, the reason it waits. Anything else is
 * written directly, after the journal is folded, so that each workload's
 * changes keep their order.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "os.h"
#include "store_int.h"
#include "util.h"

enum { OP_RESERVE = 1, OP_EVICT = 2, OP_REASON = 3 };

static const char insert_sql[] =
    "INSERT INTO journal(workload_id, op, at, state, cluster_queue, admission, usage, reason, "
    "message, preempted_reason, requeue_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)";

/* One row; the text pointers may be NULL. */
struct jrow {
    int64_t id;
    int op;
    int64_t at;
    const char *state, *cq, *admission, *usage, *reason, *message, *preempted;
    int64_t requeue_at;
};

static int append(struct gq_store *st, const struct jrow *r, gq_error *err)
{
    sqlite3_stmt *stmt = gq__store_stmt(st, insert_sql, err);
    int rc;

    if (!stmt)
        return err ? err->code : GQ_EIO;
    sqlite3_bind_int64(stmt, 1, r->id);
    sqlite3_bind_int(stmt, 2, r->op);
    sqlite3_bind_int64(stmt, 3, r->at);
    gq__bind_text(stmt, 4, r->state);
    gq__bind_text(stmt, 5, r->cq);
    gq__bind_text(stmt, 6, r->admission);
    gq__bind_text(stmt, 7, r->usage);
    gq__bind_text(stmt, 8, r->reason);
    gq__bind_text(stmt, 9, r->message);
    gq__bind_text(stmt, 10, r->preempted);
    if (r->requeue_at)
        sqlite3_bind_int64(stmt, 11, r->requeue_at);
    if ((rc = gq__store_step_done(st, stmt, err)) == GQ_OK)
        st->journal_rows++;
    return rc;
}

int gq__store_journal_reserve(struct gq_store *st, const struct gq_reserve *r, gq_error *err)
{
    struct gq__str u = {NULL, 0, 0, false};
    char num[GQ_I64_BUFSIZE];
    struct jrow j = {r->id, OP_RESERVE, r->now_ms, r->state, r->cluster_queue, r->admission,
                     NULL, NULL, NULL, NULL, 0};
    size_t i;
    int rc;

    for (i = 0; i < r->nuse; i++) {
        gq__i64_text(num, r->use[i].amount);
        gq__str_puts(&u, r->use[i].flavor);
        gq__str_add(&u, "\t", 1);
        gq__str_puts(&u, r->use[i].resource);
        gq__str_add(&u, "\t", 1);
        gq__str_puts(&u, num);
        gq__str_add(&u, "\n", 1);
    }
    if (u.failed) {
        free(u.p);
        return gq__error(err, GQ_ENOMEM, "out of memory recording an admission");
    }
    j.usage = u.p ? u.p : "";
    rc = append(st, &j, err);
    free(u.p);
    return rc;
}

int gq__store_journal_evict(struct gq_store *st, int64_t id, const char *reason,
                            const char *message, const char *preempted_reason,
                            int64_t requeue_at, int64_t now_ms, gq_error *err)
{
    struct jrow j = {id, OP_EVICT, now_ms, NULL, NULL, NULL, NULL, reason, message,
                     preempted_reason, requeue_at};

    return append(st, &j, err);
}

int gq__store_journal_reason(struct gq_store *st, int64_t id, const char *reason,
                             const char *message, int64_t now_ms, gq_error *err)
{
    struct jrow j = {id, OP_REASON, now_ms, NULL, NULL, NULL, NULL, reason, message, NULL, 0};

    return append(st, &j, err);
}

/* A reserve row's usage text back into gq_reserve_use entries (pointing into text). */
static int parse_usage(struct gq_store *st, int64_t seq, char *text, struct gq_reserve_use **out,
                       size_t *n, gq_error *err)
{
    size_t cap = 0, k = 0;
    char *line = text, *nl;

    *out = NULL;
    while (*line) {
        char *t1, *t2, *end;
        long long v;

        if (!(nl = strchr(line, '\n')) || !(t1 = strchr(line, '\t')) || t1 > nl ||
            !(t2 = strchr(t1 + 1, '\t')) || t2 > nl)
            goto damaged;
        *nl = *t1 = *t2 = '\0';
        v = strtoll(t2 + 1, &end, 10);
        if (end == t2 + 1 || *end)
            goto damaged;
        if (k == cap) {
            struct gq_reserve_use *p = realloc(*out, (cap = cap ? cap * 2 : 4) * sizeof(*p));

            if (!p) {
                free(*out);
                *out = NULL;
                return gq__error(err, GQ_ENOMEM, "out of memory folding the journal");
            }
            *out = p;
        }
        (*out)[k].flavor = line;
        (*out)[k].resource = t1 + 1;
        (*out)[k].amount = v;
        k++;
        line = nl + 1;
    }
    *n = k;
    return GQ_OK;
damaged:
    free(*out);
    *out = NULL;
    return gq__store_damaged(st, err, "journal row %" PRId64 ": usage does not read", seq);
}

/* Columns as text, or NULL; duplicated, since applying a row steps other statements. */
static char *col(sqlite3_stmt *stmt, int i)
{
    const unsigned char *t = sqlite3_column_text(stmt, i);

    return t ? strdup((const char *)t) : NULL;
}

static int apply(struct gq_store *st, sqlite3_stmt *q, gq_error *err)
{
    int64_t seq = sqlite3_column_int64(q, 0), id = sqlite3_column_int64(q, 1);
    int op = sqlite3_column_int(q, 2);
    int64_t at = sqlite3_column_int64(q, 3), requeue_at = sqlite3_column_int64(q, 11);
    char *state = col(q, 4), *cq = col(q, 5), *adm = col(q, 6), *usage = col(q, 7),
         *reason = col(q, 8), *message = col(q, 9), *preempted = col(q, 10);
    struct gq_reserve_use *use = NULL;
    size_t nuse = 0;
    int rc = GQ_OK;

    if (op == OP_RESERVE) {
        if (!state || !cq || !usage)
            rc = gq__store_damaged(st, err, "journal row %" PRId64 ": reserve without its state",
                                   seq);
        else if ((rc = parse_usage(st, seq, usage, &use, &nuse, err)) == GQ_OK) {
            struct gq_reserve r = {id, state, cq, adm, use, nuse, at};

            rc = gq__store_reserve(st, &r, err);
        }
    } else if (op == OP_EVICT) {
        rc = gq__store_evict(st, id, reason, message, preempted, requeue_at, at, err);
    } else if (op == OP_REASON) {
        /* Guarded by state = 'pending' as the engine wrote it; a later move wins. */
        rc = gq__store_set_reason(st, id, reason, message, err);
        if (rc == GQ_ECONFLICT)
            rc = GQ_OK;
    } else {
        rc = gq__store_damaged(st, err, "journal row %" PRId64 ": op %d is unknown", seq, op);
    }
    free(use);
    free(state);
    free(cq);
    free(adm);
    free(usage);
    free(reason);
    free(message);
    free(preempted);
    return rc;
}

int gq__store_journal_any(struct gq_store *st, bool *any, gq_error *err)
{
    static const char sql[] = "SELECT seq FROM journal LIMIT 1";
    sqlite3_stmt *stmt;
    int step;

    *any = false;
    if (!st->journal_ready)
        return GQ_OK;
    if (!(stmt = gq__store_stmt(st, sql, err)))
        return err ? err->code : GQ_EIO;
    step = sqlite3_step(stmt);
    sqlite3_reset(stmt);
    if (step != SQLITE_ROW && step != SQLITE_DONE)
        return gq__store_sqlerr(st, step, err, "journal");
    *any = step == SQLITE_ROW;
    return GQ_OK;
}

int gq__store_journal_fold(struct gq_store *st, gq_error *err)
{
    /*
     * By workload, so each row's pages are visited once, in file order; a
     * reason followed by any other row of the same workload is passed over:
     * a later reason overwrites it under the same guard, and a reservation
     * or an eviction sets reason and message itself.
     */
    static const char rows_sql[] =
        "SELECT seq, workload_id, op, at, state, cluster_queue, admission, usage, reason, "
        "message, preempted_reason, requeue_at FROM (SELECT *, lead(op) OVER "
        "(PARTITION BY workload_id ORDER BY seq) AS next_op FROM journal) "
        "WHERE op <> 3 OR next_op IS NULL ORDER BY workload_id, seq";
    static const char clear_sql[] = "DELETE FROM journal";
    sqlite3_stmt *stmt;
    bool any;
    int rc, step;

    if ((rc = gq__store_journal_any(st, &any, err)) != GQ_OK)
        return rc;
    if (!any) {
        st->journal_rows = 0;
        return GQ_OK;
    }
    /*
     * Its own statement: applying a row steps the cached statements of
     * gq__store_reserve and the others, while this one is still open.
     */
    if ((step = sqlite3_prepare_v2(st->db, rows_sql, -1, &stmt, NULL)) != SQLITE_OK)
        return gq__store_sqlerr(st, step, err, "journal");
    rc = GQ_OK;
    while (rc == GQ_OK && (step = sqlite3_step(stmt)) == SQLITE_ROW) {
        if (sqlite3_column_type(stmt, 1) != SQLITE_INTEGER ||
            sqlite3_column_type(stmt, 2) != SQLITE_INTEGER ||
            sqlite3_column_type(stmt, 3) != SQLITE_INTEGER) {
            rc = gq__store_damaged(st, err, "journal row %lld: a column is not an integer",
                                   (long long)sqlite3_column_int64(stmt, 0));
            break;
        }
        rc = apply(st, stmt, err);
    }
    if (rc == GQ_OK && step != SQLITE_DONE)
        rc = gq__store_sqlerr(st, step, err, "journal");
    sqlite3_finalize(stmt);
    if (rc == GQ_ECONFLICT) { /* a decision made under the write lock that no longer applies */
        char why[sizeof(err->msg)];

        snprintf(why, sizeof(why), "%s", err ? err->msg : "a workload moved on");
        return gq__store_damaged(st, err, "the journal does not apply: %s", why);
    }
    if (rc != GQ_OK)
        return rc;
    gq__crash_point("mid-fold"); /* rows applied, none deleted: a kill rolls the fold back */
    if (!(stmt = gq__store_stmt(st, clear_sql, err)))
        return err ? err->code : GQ_EIO;
    if ((rc = gq__store_step_done(st, stmt, err)) == GQ_OK)
        st->journal_rows = 0;
    return rc;
}

int64_t gq__store_journal_rows(struct gq_store *st)
{
    return st->journal_rows;
}
