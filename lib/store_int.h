/*
 * store_int.h: what store*.c share: the connection and its statement cache.
 * Only store*.c include this (it includes <sqlite3.h>).
 */
#ifndef GQ_STORE_INT_H
#define GQ_STORE_INT_H

#include <sqlite3.h>
#include <stdbool.h>

#include "store.h"

#define GQ_STORE_MAX_STMTS 128

struct gq_store {
    sqlite3 *db;   /* one connection, used by one thread at a time */
    char *path;    /* as opened, for messages */
    bool readonly; /* opened SQLITE_OPEN_READONLY */
    int wal_frames; /* frames in the WAL after our last commit (the WAL hook) */
    int wal_limit;  /* frames that trigger a TRUNCATE checkpoint; 0: the default */
    int nstmts;
    struct {
        const char *sql; /* static text: the cache key is its address */
        sqlite3_stmt *stmt;
    } stmts[GQ_STORE_MAX_STMTS];
};

/* A cached prepared statement, reset and unbound; NULL with err set on failure. */
sqlite3_stmt *gq__store_stmt(struct gq_store *st, const char *sql, gq_error *err);
int gq__store_exec(struct gq_store *st, const char *sql, gq_error *err);
int gq__store_step_done(struct gq_store *st, sqlite3_stmt *stmt, gq_error *err);
int gq__store_sqlerr(struct gq_store *st, int rc, gq_error *err, const char *what);
/* Bind text or NULL; the text must outlive the step (SQLITE_STATIC). */
void gq__bind_text(sqlite3_stmt *stmt, int i, const char *s);

#endif
