/*
 * store_int.h: what store*.c share: the connection, its statement cache and
 * its raw read. Only store*.c (and the unit tests) include this (it includes
 * <sqlite3.h>).
 */
#ifndef GQ_STORE_INT_H
#define GQ_STORE_INT_H

#include <sqlite3.h>
#include <stdbool.h>

#include "store.h"
#include "store_load.h"

#define GQ_STORE_MAX_STMTS 256
#define GQ_STORE_STMTS_KEPT 64 /* slots queries leave to gq__store_stmt */

/*
 * A MultiKueueCluster's stored spec with status.conditions[Active] added from
 * its columns (schema/0018) once the manager has tried to connect, for
 * -o json|yaml and describe.
 */
#define GQ_SQL_MK_CLUSTER_WITH_STATUS                                                              \
    "CASE WHEN active IS NULL THEN spec ELSE json_set(spec, '$.status', json_object('conditions', " \
    "json_array(json_object('type', 'Active', 'status', CASE active WHEN 1 THEN 'True' ELSE "    \
    "'False' END, 'reason', reason, 'message', coalesce(message, ''), 'lastTransitionTime', "     \
    "strftime('%Y-%m-%dT%H:%M:%SZ', transition_at / 1000, 'unixepoch'))))) END"

struct gq_store {
    sqlite3 *db;   /* one connection, used by one thread at a time */
    char *path;    /* as opened, for messages */
    bool readonly; /* opened SQLITE_OPEN_READONLY */
    int wal_frames; /* frames in the WAL after our last commit (the WAL hook) */
    int wal_limit;  /* frames that trigger a TRUNCATE checkpoint; 0: the default */
    bool journal_ready; /* the schema has the journal (after the migrations) */
    int64_t journal_rows; /* rows this connection appended since it last folded */
    int group_max;        /* write transactions per commit (gq__store_group); 0: each its own */
    int group_txns;       /* of them, released since the group's BEGIN */
    void *kept;           /* another layer's cache for this connection (gq__store_keep) */
    void (*kept_free)(void *kept);
    struct gq__snap_cache *cache; /* the snapshot's rows kept between turns; NULL: off */
    int nstmts;
    struct {
        const char *sql; /* static text: the cache key is its address */
        sqlite3_stmt *stmt;
    } stmts[GQ_STORE_MAX_STMTS];
};

/*
 * The cached statement of sql (static text: the cache key is its address),
 * prepared if new, while the cache keeps room for gq__store_stmt; NULL when
 * the caller must prepare one of its own (no room, or the statement is in
 * use by a query whose row callback runs it again).
 */
sqlite3_stmt *gq__store_cached(struct gq_store *st, const char *sql);
/*
 * A read outside any transaction first folds the engine's journal (in a
 * write transaction of its own), so that it sees every decision where it
 * belongs; inside a transaction, the transaction's start did.
 */
int gq__store_fold_before_read(struct gq_store *st, gq_error *err);
/* *any: whether the engine's journal holds rows (store_journal.c). */
int gq__store_journal_any(struct gq_store *st, bool *any, gq_error *err);
/*
 * A statement being read by the store's named reads (store_*.c): the cached
 * one of its SQL (reset when done) or one of its own (finalized). Opening
 * folds the journal first, as every read outside a transaction does.
 */
struct gq__cursor {
    sqlite3_stmt *stmt;
    bool own;
};
int gq__store_cursor_open(struct gq_store *st, const char *sql, struct gq__cursor *c,
                          gq_error *err);
void gq__store_cursor_close(struct gq__cursor *c);
/* Reads one row of stmt into the caller's struct and hands it on; non-zero stops. */
typedef int (*gq__stmt_row_fn)(sqlite3_stmt *stmt, void *payload, gq_error *err);
/*
 * Step c until the end or max rows (0: no limit): each row checked against
 * shape first (NULL: not checked; typed: text columns must not be integers,
 * see struct gq__query), then given to fn. Closes c.
 */
int gq__store_each_row(struct gq_store *st, struct gq__cursor *c, const char *shape, bool typed,
                       size_t max, gq__stmt_row_fn fn, void *payload, gq_error *err);

/* Column i as text (NULL for SQL NULL). */
static inline const char *gq__col_text(sqlite3_stmt *s, int i)
{
    return (const char *)sqlite3_column_text(s, i);
}

/* A cached prepared statement, reset and unbound; NULL with err set on failure. */
sqlite3_stmt *gq__store_stmt(struct gq_store *st, const char *sql, gq_error *err);
int gq__store_exec(struct gq_store *st, const char *sql, gq_error *err);
/* One statement of static text, prepared once (the statement cache); errors as gq__store_exec's. */
int gq__store_exec_cached(struct gq_store *st, const char *sql, gq_error *err);
int gq__store_step_done(struct gq_store *st, sqlite3_stmt *stmt, gq_error *err);
int gq__store_sqlerr(struct gq_store *st, int rc, gq_error *err, const char *what);
/*
 * One workload's state change: sql takes ?1 its id and ?2 now (ms); exactly
 * one row must change, else GQ_ECONFLICT (it was not in the state sql
 * expects).
 */
int gq__store_move(struct gq_store *st, const char *sql, int64_t id, int64_t now_ms,
                   gq_error *err);
/* Delete the usage rows of a workload that let go of its quota. */
int gq__store_drop_usage(struct gq_store *st, int64_t id, gq_error *err);
/* The row stmt stands on against shape (see struct gq__query); typed as query_typed reads it. */
int gq__store_row_check(struct gq_store *st, sqlite3_stmt *stmt, const char *shape, bool typed,
                        gq_error *err);
/* Bind text or NULL; the text must outlive the step (SQLITE_STATIC). */
void gq__bind_text(sqlite3_stmt *stmt, int i, const char *s);

/*
 * The store's raw read, for the store itself (PRAGMA checks) and the unit
 * tests, never for the layers above: run static SQL text with text
 * parameters (?1..) and call row() for each result row with its columns as
 * text (NULL for SQL NULL), by position. Stops and returns row()'s value if
 * non-zero. Every other read is a named, typed function of the store.
 */
typedef int (*gq__row_fn)(int ncols, const char *const *values, void *payload);
int gq__store_query(struct gq_store *st, const char *sql, const char *const *params, int nparams,
                    gq__row_fn row, void *payload, gq_error *err);

/*
 * The same, with each row checked before row() sees it, so that a damaged
 * file gives an error instead of a NULL where none can be. shape has one
 * letter per column: 'T' text, never NULL; 't' text or NULL; 'I' integer,
 * never NULL; 'i' integer or NULL; '#' the row's id (an 'I' that messages
 * quote); '.' anything. "workloads:" in front names the rows in messages;
 * NULL checks nothing. A row that fails is GQ_EIO with gq__store_damaged's
 * message.
 */
struct gq__query {
    const char *sql;           /* static text, as for gq__store_query */
    const char *shape;         /* e.g. "workloads:#TTt..", or NULL */
    const char *const *params; /* bound as text, ?1.. */
    int nparams;
};
int gq__store_rows(struct gq_store *st, const struct gq__query *q, gq__row_fn row, void *payload,
                   gq_error *err);

/*
 * The snapshot cache (store_cache.c): forget its rows (a transaction that
 * may have read them rolled back); temp_reset: PRAGMA temp_store dropped
 * its triggers. The live workloads' rows that temp.gq_touched names, and
 * its ids, for the cache to read again (store_load.c).
 */
void gq__store_cache_forget(struct gq_store *st);
void gq__store_cache_temp_reset(struct gq_store *st);
int gq__store_touched_ids(struct gq_store *st, int64_t **out, size_t *n, gq_error *err);
/*
 * Column 0 of every row of sql (static text, no parameters), an integer, into
 * a malloc'd array (*out NULL when there are none); shape as gq__store_each_row's.
 */
int gq__store_id_list(struct gq_store *st, const char *sql, const char *shape, int64_t **out,
                      size_t *n, gq_error *err);
int gq__store_touched_workloads(struct gq_store *st, gq__load_workload_fn fn, void *payload,
                                gq_error *err);
int gq__store_touched_usage(struct gq_store *st, gq__load_usage_fn fn, void *payload,
                            gq_error *err);
int gq__store_touched_failed_flavors(struct gq_store *st, gq__load_failed_fn fn, void *payload,
                                     gq_error *err);
int gq__store_touched_checked(struct gq_store *st, gq__load_id_fn fn, void *payload,
                              gq_error *err);

#endif
