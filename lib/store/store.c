/*
 * store.c: the SQLite edge. Opening and migrating the database, the
 * transaction discipline, and the statements that write queue objects and
 * workloads. This file and store_*.c are the only includers of <sqlite3.h>;
 * SQLite's result codes become gq_ codes here and nowhere else.
 *
 * Sizes and frequencies: a `gpuq submit` process opens the database, writes
 * one workload (a handful of rows) in one transaction and exits, about 0.3 ms
 * of work of which one fsync of the WAL (synchronous=FULL) is about half; a
 * `gpuq submit -f` of 100,000 jobs writes them all in one transaction. So
 * open must stay cheap (no checkpoint on close, journal mode set only once)
 * and statements are prepared once per connection and reused.
 *
 * Invariant: every write runs inside gq__store_write(), i.e. BEGIN IMMEDIATE
 * with the whole transaction retried on BUSY, so no caller ever sees
 * "database is locked" unless the lock is held longer than the retries last.
 */
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <stdarg.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "error.h"
#include "os.h"
#include "quota.h"
#include "store.h"
#include "store_int.h"
#include "store_migrations.h"
#include "util.h"

#define DEFAULT_BUSY_TIMEOUT_MS 10000
#define MAX_TXN_ATTEMPTS 20

/*
 * WAL frames after which a commit is followed by a TRUNCATE checkpoint.
 *
 * Why: each gpuq process is usually the database's only connection, so
 * SQLite rebuilds the WAL index on open by reading and checksumming every
 * frame of the WAL, and that rebuild forgets what was checkpointed, so the
 * WAL would never restart and would grow without bound (20 MB after 500
 * submits, 12 ms per submit). Truncating it whenever it passes this size
 * keeps the rebuild to a few dozen frames, and costs a checkpoint (one more
 * fsync) once every dozen or so submits. Deleting the WAL on every close
 * instead costs a file creation and a discard per run, measured slower.
 */
#define WAL_TRUNCATE_FRAMES 128

/* --------------------------------------------------------------- errors */

int gq__store_damaged(struct gq_store *st, gq_error *err, const char *fmt, ...)
{
    char detail[160], *p;
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(detail, sizeof(detail), fmt, ap);
    va_end(ap);
    /* One line: SQLite quotes damaged schema text, newlines and all. */
    for (p = detail; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = ' ';
    /* The path may be long: the advice is kept whole, the path cut short. */
    return gq__error(err, GQ_EIO, "database %.*s is damaged (%s); run gpuqd --check",
                     (int)(sizeof(err->msg) - strlen(detail) - 48), st->path, detail);
}

/*
 * Whether SQLite's complaint means the file is damaged: its own corruption
 * codes, or a JSON function refusing a stored column (every JSON the
 * queries read is text this program wrote; parameters are never JSON).
 */
static bool is_damage(struct gq_store *st, int rc)
{
    if ((rc & 0xff) == SQLITE_CORRUPT || (rc & 0xff) == SQLITE_NOTADB)
        return true;
    return (rc & 0xff) == SQLITE_ERROR && st->db &&
           strcmp(sqlite3_errmsg(st->db), "malformed JSON") == 0;
}

int gq__store_sqlerr(struct gq_store *st, int rc, gq_error *err, const char *what)
{
    int code = GQ_EIO;

    if (is_damage(st, rc))
        return gq__store_damaged(st, err, "%s: %s", what,
                                 st->db ? sqlite3_errmsg(st->db) : sqlite3_errstr(rc));
    if (rc == SQLITE_NOMEM)
        code = GQ_ENOMEM;
    else if ((rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED)
        code = GQ_EBUSY;
    else if ((rc & 0xff) == SQLITE_CONSTRAINT)
        code = GQ_ECONFLICT;
    return gq__error(err, code, "%s: %s: %s", st->path, what,
                     st->db ? sqlite3_errmsg(st->db) : sqlite3_errstr(rc));
}

/* ------------------------------------------------------------ statements */

sqlite3_stmt *gq__store_stmt(struct gq_store *st, const char *sql, gq_error *err)
{
    int i, rc;

    /* Statements are cached by the address of their static SQL text. */
    for (i = 0; i < st->nstmts; i++) {
        if (st->stmts[i].sql == sql) {
            sqlite3_reset(st->stmts[i].stmt);
            sqlite3_clear_bindings(st->stmts[i].stmt);
            return st->stmts[i].stmt;
        }
    }
    if (st->nstmts == GQ_STORE_MAX_STMTS) {
        gq__error(err, GQ_ERROR, "%s: statement cache full", st->path);
        return NULL;
    }
    rc = sqlite3_prepare_v3(st->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &st->stmts[i].stmt, NULL);
    if (rc != SQLITE_OK) {
        gq__store_sqlerr(st, rc, err, "prepare");
        return NULL;
    }
    st->stmts[i].sql = sql;
    st->nstmts++;
    return st->stmts[i].stmt;
}

/* A statement run by gq__store_exec or gq__store_exec_cached failed with rc, SQLite saying msg. */
static int exec_failed(struct gq_store *st, int rc, const char *msg, gq_error *err)
{
    if (is_damage(st, rc))
        return gq__store_sqlerr(st, rc, err, "statement");
    return gq__error(err, (rc & 0xff) == SQLITE_BUSY ? GQ_EBUSY : GQ_EIO, "%s: %s", st->path,
                     msg ? msg : sqlite3_errstr(rc));
}

int gq__store_exec(struct gq_store *st, const char *sql, gq_error *err)
{
    char *msg = NULL;
    int rc = sqlite3_exec(st->db, sql, NULL, NULL, &msg);

    if (rc != SQLITE_OK)
        rc = exec_failed(st, rc, msg, err);
    sqlite3_free(msg);
    return rc;
}

/*
 * A statement of static text run as gq__store_exec runs it, but prepared once
 * (gq__store_stmt): a transaction's BEGIN, SAVEPOINT, RELEASE and COMMIT,
 * which sqlite3_exec parsed again at every one of a simulated week's
 * million transactions.
 */
int gq__store_exec_cached(struct gq_store *st, const char *sql, gq_error *err)
{
    sqlite3_stmt *stmt = gq__store_stmt(st, sql, NULL);
    int rc;

    if (!stmt)
        return gq__store_exec(st, sql, err);
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW)
        ;
    rc = rc == SQLITE_DONE ? GQ_OK : exec_failed(st, rc, sqlite3_errmsg(st->db), err);
    sqlite3_reset(stmt);
    return rc;
}

/* Step a statement that returns no rows (or whose rows are ignored). */
int gq__store_step_done(struct gq_store *st, sqlite3_stmt *stmt, gq_error *err)
{
    int rc;

    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW)
        ;
    sqlite3_reset(stmt);
    if (rc != SQLITE_DONE)
        return gq__store_sqlerr(st, rc, err, "write");
    return GQ_OK;
}

void gq__bind_text(sqlite3_stmt *stmt, int i, const char *s)
{
    if (s)
        sqlite3_bind_text(stmt, i, s, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(stmt, i);
}

/* ------------------------------------------------------------ migrations */

int gq__store_schema_latest(void)
{
    return gq__migration_count;
}

static int read_user_version(struct gq_store *st, int *out, gq_error *err)
{
    sqlite3_stmt *stmt;
    int rc;

    rc = sqlite3_prepare_v2(st->db, "PRAGMA user_version", -1, &stmt, NULL);
    if (rc != SQLITE_OK)
        return gq__store_sqlerr(st, rc, err, "read schema version");
    rc = sqlite3_step(stmt);
    *out = rc == SQLITE_ROW ? sqlite3_column_int(stmt, 0) : 0;
    sqlite3_finalize(stmt);
    if (rc != SQLITE_ROW)
        return gq__store_sqlerr(st, rc, err, "read schema version");
    return GQ_OK;
}

static int schema_too_new(struct gq_store *st, int version, gq_error *err)
{
    return gq__error(err, GQ_ESCHEMA,
                     "%s: database schema version %d is newer than this gpuq "
                     "(which knows up to %d); upgrade gpuq",
                     st->path, version, gq__migration_count);
}

/*
 * The references migrations left behind, whole (PRAGMA foreign_key_check):
 * they run with foreign keys off (see migrate), so this is where a row
 * that lost what it refers to would show.
 */
static int check_foreign_keys(struct gq_store *st, gq_error *err)
{
    sqlite3_stmt *stmt;
    int rc;

    rc = sqlite3_prepare_v2(st->db, "PRAGMA foreign_key_check", -1, &stmt, NULL);
    if (rc != SQLITE_OK)
        return gq__store_sqlerr(st, rc, err, "check foreign keys");
    rc = sqlite3_step(stmt);
    if (rc == SQLITE_ROW)
        rc = gq__error(err, GQ_EIO, "%s: row %lld of %s refers to no row of %s", st->path,
                       (long long)sqlite3_column_int64(stmt, 1),
                       (const char *)sqlite3_column_text(stmt, 0),
                       (const char *)sqlite3_column_text(stmt, 2));
    else if (rc == SQLITE_DONE)
        rc = GQ_OK;
    else
        rc = gq__store_sqlerr(st, rc, err, "check foreign keys");
    sqlite3_finalize(stmt);
    return rc;
}

/* Bring the schema up to date; runs inside gq__store_write. */
static int migrate_txn(struct gq_store *st, void *payload, gq_error *err)
{
    char sql[32];
    int version, i, rc;

    (void)payload;
    if ((rc = read_user_version(st, &version, err)) != GQ_OK)
        return rc;
    if (version > gq__migration_count)
        return schema_too_new(st, version, err);
    for (i = version; i < gq__migration_count; i++) {
        if ((rc = gq__store_exec(st, gq__migrations[i].sql, err)) != GQ_OK)
            return gq__error_prefix(err, "migration %s", gq__migrations[i].name);
        snprintf(sql, sizeof(sql), "PRAGMA user_version=%d", gq__migrations[i].version);
        if ((rc = gq__store_exec(st, sql, err)) != GQ_OK)
            return rc;
        gq__crash_point("mid-migration"); /* catalogue B35: killed inside the transaction */
    }
    return check_foreign_keys(st, err);
}

static int migrate(struct gq_store *st, gq_error *err)
{
    int version, rc, on;

    if ((rc = read_user_version(st, &version, err)) != GQ_OK)
        return rc;
    if (version > gq__migration_count)
        return schema_too_new(st, version, err);
    if (version == gq__migration_count)
        return GQ_OK;
    if (st->readonly)
        return gq__error(err, GQ_ESCHEMA, "%s: database needs an upgrade to schema %d",
                         st->path, gq__migration_count);
    /*
     * A migration that builds a table again (0013_state_check.sql) drops
     * the old one, which with foreign keys on deletes the rows that refer
     * to it, by cascade. SQLite's procedure for it
     * (lang_altertable.html#otheralter) turns them off around the
     * transaction (the pragma does nothing inside one) and checks them
     * before the commit (migrate_txn).
     */
    if ((rc = gq__store_exec(st, "PRAGMA foreign_keys=OFF", err)) != GQ_OK)
        return rc;
    rc = gq__store_write(st, migrate_txn, NULL, err);
    on = gq__store_exec(st, "PRAGMA foreign_keys=ON", rc == GQ_OK ? err : NULL);
    return rc != GQ_OK ? rc : on;
}

static int check_row(int n, const char *const *v, void *payload)
{
    char *first = payload;

    (void)n;
    if (!first[0] && v[0])
        snprintf(first, 256, "%s", v[0]);
    return 0;
}

int gq__store_check(struct gq_store *st, gq_error *err)
{
    char first[256] = "";
    int rc = gq__store_query(st, "PRAGMA quick_check", NULL, 0, check_row, first, err);

    if (rc == GQ_OK && strcmp(first, "ok") != 0)
        return gq__error(err, GQ_EIO, "%s: integrity check failed: %s", st->path, first);
    return rc;
}

int gq__store_schema_version(struct gq_store *st)
{
    int v = 0;

    read_user_version(st, &v, NULL);
    return v;
}

/* ------------------------------------------------------------ open/close */

/* After each commit: remember the WAL's size (see WAL_TRUNCATE_FRAMES). */
static int wal_hook(void *payload, sqlite3 *db, const char *name, int frames)
{
    struct gq_store *st = payload;

    (void)db;
    (void)name;
    st->wal_frames = frames;
    return SQLITE_OK;
}

/* A file name (not ":memory:", not a URI), for which the checks below apply. */
static bool is_file_path(const char *path)
{
    return strcmp(path, ":memory:") != 0 && strncmp(path, "file:", 5) != 0;
}

/* The directory part of path ("." when it has none) into buf. */
static void dir_of(char *buf, size_t size, const char *path)
{
    const char *slash = strrchr(path, '/');

    if (!slash)
        snprintf(buf, size, ".");
    else
        snprintf(buf, size, "%.*s", slash == path ? 1 : (int)(slash - path), path);
}

/*
 * Why a missing database file cannot be created at path: its directory is
 * missing or is not a directory (SQLite says only "unable to open").
 */
static int check_dir(const char *path, gq_error *err)
{
    struct stat sb;
    char dir[4096];

    dir_of(dir, sizeof(dir), path);
    if (stat(dir, &sb) != 0)
        return gq__error(err, GQ_EIO, "cannot create database %s: directory %s: %s", path, dir,
                         strerror(errno));
    if (!S_ISDIR(sb.st_mode))
        return gq__error(err, GQ_EIO, "cannot create database %s: %s is not a directory", path,
                         dir);
    return GQ_OK;
}

/*
 * What SQLite would do wrong with path, said before it does it: an empty
 * path is a temporary database that keeps nothing; a dangling symbolic link
 * would be followed and its target created with the umask's mode; a
 * read-only open of a missing file would say only "unable to open".
 */
static int check_path(const char *path, bool create, gq_error *err)
{
    struct stat sb;

    if (!path[0])
        return gq__error(err, GQ_EINVALID, "invalid database path \"\": it is empty");
    if (!is_file_path(path))
        return GQ_OK;
    if (lstat(path, &sb) != 0)
        return !create ? gq__error(err, GQ_ENOTFOUND, "database %s does not exist", path)
                       : check_dir(path, err);
    if (S_ISLNK(sb.st_mode) && stat(path, &sb) != 0)
        return gq__error(err, GQ_EINVALID,
                         "database path %s is a symbolic link to a missing file; "
                         "refusing to create its target",
                         path);
    if (S_ISDIR(sb.st_mode))
        return gq__error(err, GQ_EINVALID, "database path %s is a directory", path);
    return GQ_OK;
}

/*
 * Create a missing database file 0600 before SQLite opens it (it would use
 * 0666 less the umask, and give its -wal and -shm the same mode). O_NOFOLLOW:
 * a symbolic link put there since check_path is not followed.
 */
static int precreate(const char *path, gq_error *err)
{
    int fd;

    if (!is_file_path(path))
        return GQ_OK;
    fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0)
        close(fd);
    else if (errno != EEXIST)
        return gq__error(err, GQ_EIO, "cannot create database %s: %s", path, strerror(errno));
    return GQ_OK;
}

/*
 * gq_gpu_resource(name) in SQL: 1 when the resource counts as GPUs
 * (gq__gpu_resource: .../gpu, MIG slices, shared GPUs), so that statements
 * apply the one rule the GPUS column and the metrics apply.
 */
static void sql_gpu_resource(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    const unsigned char *name = sqlite3_value_text(argv[0]);

    (void)argc;
    sqlite3_result_int(ctx, name && gq__gpu_resource((const char *)name));
}

static int configure(struct gq_store *st, const struct gq_store_options *opts, gq_error *err)
{
    sqlite3_stmt *stmt;
    bool wal;
    int rc;

    sqlite3_extended_result_codes(st->db, 1);
    sqlite3_busy_timeout(st->db, opts && opts->busy_timeout_ms > 0 ? opts->busy_timeout_ms
                                                                    : DEFAULT_BUSY_TIMEOUT_MS);
    sqlite3_wal_hook(st->db, wal_hook, st);
    /* Closing must not checkpoint: that is an fsync of the database per gpuq run. */
    sqlite3_db_config(st->db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, (int *)NULL);
    rc = sqlite3_create_function_v2(st->db, "gq_gpu_resource", 1,
                                    SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, NULL,
                                    sql_gpu_resource, NULL, NULL, NULL);
    if (rc != SQLITE_OK)
        return gq__store_sqlerr(st, rc, err, "gq_gpu_resource");
    /*
     * A bulk submit writes every job in one transaction; with SQLite's default
     * 2 MB cache the dirty pages spill into the WAL over and over (100,000
     * jobs took 4.3 s, a third of it the kernel copying pages). 64 MB, taken
     * only as pages are touched, lets the transaction stay in memory.
     */
    rc = gq__store_exec(st, "PRAGMA foreign_keys=ON; PRAGMA synchronous=FULL; "
                            "PRAGMA cache_size=-65536", err);
    if (rc != GQ_OK || st->readonly)
        return rc;
    /* journal_mode=WAL persists in the file; set it only when it is not yet. */
    rc = sqlite3_prepare_v2(st->db, "PRAGMA journal_mode", -1, &stmt, NULL);
    if (rc != SQLITE_OK)
        return gq__store_sqlerr(st, rc, err, "journal mode");
    wal = sqlite3_step(stmt) == SQLITE_ROW &&
          strcmp((const char *)sqlite3_column_text(stmt, 0), "wal") == 0;
    sqlite3_finalize(stmt);
    if (wal || strcmp(st->path, ":memory:") == 0)
        return GQ_OK;
    return gq__store_exec(st, "PRAGMA journal_mode=WAL", err);
}

/*
 * A read-only connection to a WAL database needs its -shm, which it cannot
 * create where the directory is not writable (SQLite: "attempt to write a
 * readonly database"). With no log to read, the file alone is the
 * database, and SQLite's immutable=1 reads it without the -shm; with a log
 * that cannot be read, say so.
 */
static bool wal_is_empty(const char *path)
{
    char wal[4096];
    struct stat sb;

    snprintf(wal, sizeof(wal), "%s-wal", path);
    return stat(wal, &sb) != 0 || sb.st_size == 0;
}

/* path as a file: URI with immutable=1 (RFC 3986: %, ? and # escaped). */
static char *immutable_uri(const char *path)
{
    size_t n = strlen(path), i, j = 0;
    char *uri = malloc(n * 3 + 32);

    if (!uri)
        return NULL;
    j += (size_t)sprintf(uri, "file:");
    for (i = 0; i < n; i++) {
        if (path[i] == '%' || path[i] == '?' || path[i] == '#')
            j += (size_t)sprintf(uri + j, "%%%02X", (unsigned char)path[i]);
        else
            uri[j++] = path[i];
    }
    strcpy(uri + j, "?immutable=1");
    return uri;
}

/* Open st->path read-only; immutable when its -shm cannot be made (see wal_is_empty). */
static int open_readonly(struct gq_store *st, const struct gq_store_options *opts, gq_error *err)
{
    int flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI | SQLITE_OPEN_READONLY, rc, v;
    char *uri;

    if ((rc = check_path(st->path, false, err)) != GQ_OK)
        return rc;
    if (sqlite3_open_v2(st->path, &st->db, flags, NULL) != SQLITE_OK)
        return gq__store_sqlerr(st, sqlite3_errcode(st->db), err, "open");
    rc = read_user_version(st, &v, err);
    if (rc == GQ_OK || !is_file_path(st->path) ||
        (sqlite3_errcode(st->db) & 0xff) != SQLITE_READONLY)
        return rc == GQ_OK ? configure(st, opts, err) : rc;
    if (!wal_is_empty(st->path))
        return gq__error(err, GQ_EIO,
                         "database %s is read-only and its -wal log cannot be read "
                         "without write access to its directory",
                         st->path);
    sqlite3_close(st->db);
    st->db = NULL;
    if (!(uri = immutable_uri(st->path)))
        return gq__error(err, GQ_ENOMEM, "out of memory");
    rc = sqlite3_open_v2(uri, &st->db, flags, NULL);
    free(uri);
    if (rc != SQLITE_OK)
        return gq__store_sqlerr(st, rc, err, "open");
    return configure(st, opts, err);
}

static int open_readwrite(struct gq_store *st, const struct gq_store_options *opts,
                          gq_error *err)
{
    int flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI | SQLITE_OPEN_READWRITE |
                SQLITE_OPEN_CREATE;
    int rc;

    if ((rc = check_path(st->path, true, err)) != GQ_OK || (rc = precreate(st->path, err)) != GQ_OK)
        return rc;
    if (sqlite3_open_v2(st->path, &st->db, flags, NULL) != SQLITE_OK)
        return gq__store_sqlerr(st, sqlite3_errcode(st->db), err, "open");
    return configure(st, opts, err);
}

int gq__store_open(struct gq_store **out, const char *path, const struct gq_store_options *opts,
                   gq_error *err)
{
    struct gq_store *st;
    int rc;

    *out = NULL;
    st = calloc(1, sizeof(*st));
    if (!st || !(st->path = strdup(path))) {
        free(st);
        return gq__error(err, GQ_ENOMEM, "out of memory");
    }
    st->readonly = opts && opts->readonly;
    rc = st->readonly ? open_readonly(st, opts, err) : open_readwrite(st, opts, err);
    if (rc != GQ_OK || (rc = migrate(st, err)) != GQ_OK) {
        gq__store_close(st);
        return rc;
    }
    st->journal_ready = true;
    *out = st;
    return GQ_OK;
}

const char *gq__store_path(const struct gq_store *st)
{
    return st->path;
}

void gq__store_close(struct gq_store *st)
{
    int i;

    if (!st)
        return;
    for (i = 0; i < st->nstmts; i++)
        sqlite3_finalize(st->stmts[i].stmt);
    if (st->kept_free)
        st->kept_free(st->kept);
    gq__store_snapshot_cache(st, false, NULL);
    sqlite3_close(st->db);
    free(st->path);
    free(st);
}

/* ---------------------------------------------------------- transactions */

static void backoff(int attempt)
{
    struct timespec ts;
    long ms = 1L << (attempt < 6 ? attempt : 6);

    /* 2..64 ms plus jitter from the address of a stack variable and the clock. */
    ms += (long)(gq__now_ms() % 7);
    ts.tv_sec = 0;
    ts.tv_nsec = ms * 1000000L;
    nanosleep(&ts, NULL);
}

/*
 * A write transaction of a group (gq__store_group): its end is a savepoint's
 * release, and every group_max of them one COMMIT.
 */
static int group_release(struct gq_store *st, gq_error *err)
{
    int rc = gq__store_exec_cached(st, "RELEASE step", err);

    if (rc == GQ_OK && ++st->group_txns >= st->group_max) {
        st->group_txns = 0;
        rc = gq__store_exec_cached(st, "COMMIT", err);
    }
    return rc;
}

/*
 * BEGIN, fn, COMMIT, retried whole on BUSY. fold: a write transaction first
 * folds the engine's journal into the tables (store_journal.c), so that fn
 * sees every decision where it belongs. In a group, a write transaction is
 * a savepoint of the group's (begun when none is open), rolled back alone
 * when fn fails.
 */
static int run_txn(struct gq_store *st, const char *begin, bool fold, gq__txn_fn fn,
                   void *payload, gq_error *err)
{
    bool group = st->group_max > 0 && strcmp(begin, "BEGIN IMMEDIATE") == 0;
    int attempt, rc;

    for (attempt = 0; attempt < MAX_TXN_ATTEMPTS; attempt++) {
        rc = group && !sqlite3_get_autocommit(st->db) ? GQ_OK : gq__store_exec_cached(st, begin, err);
        if (rc == GQ_OK && group)
            rc = gq__store_exec_cached(st, "SAVEPOINT step", err);
        if (rc == GQ_OK) {
            rc = fold ? gq__store_journal_fold(st, err) : GQ_OK;
            if (rc == GQ_OK)
                rc = fn(st, payload, err);
            if (rc == GQ_OK)
                rc = group ? group_release(st, err) : gq__store_exec_cached(st, "COMMIT", err);
            if (rc != GQ_OK && !sqlite3_get_autocommit(st->db)) {
                sqlite3_exec(st->db, group ? "ROLLBACK TO step; RELEASE step" : "ROLLBACK",
                             NULL, NULL, NULL);
                gq__store_cache_forget(st); /* it may hold rows read after a write undone */
            }
        }
        if (rc != GQ_EBUSY)
            break;
        backoff(attempt);
    }
    if (rc == GQ_EBUSY)
        return gq__error(err, GQ_EBUSY,
                         "%s: database stayed busy; another process holds its write lock",
                         st->path);
    /*
     * The transaction is committed (or failed); trimming the WAL is
     * housekeeping: if a reader keeps it from finishing, the next commit
     * tries again, so its result is ignored.
     */
    if (st->wal_frames >= (st->wal_limit ? st->wal_limit : WAL_TRUNCATE_FRAMES) &&
        sqlite3_get_autocommit(st->db))
        gq__store_checkpoint(st);
    return rc;
}

/*
 * A savepoint keeps each page it changes first in a sub-journal, a
 * temporary file past 64 KiB (a third of a grouped week's time went to
 * writing it): in a group, temporary files are memory.
 */
int gq__store_group(struct gq_store *st, int txns, gq_error *err)
{
    int rc = GQ_OK;

    st->group_max = txns > 0 ? txns : 0;
    st->group_txns = 0;
    if (!txns && !sqlite3_get_autocommit(st->db) &&
        (rc = gq__store_exec(st, "COMMIT", err)) != GQ_OK)
        sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
    if (rc == GQ_OK)
        rc = gq__store_exec(st, txns > 0 ? "PRAGMA temp_store=MEMORY" : "PRAGMA temp_store=DEFAULT",
                            err);
    gq__store_cache_temp_reset(st); /* the pragma dropped every temporary table and trigger */
    return rc;
}

void gq__store_checkpoint(struct gq_store *st)
{
    st->wal_frames = 0;
    sqlite3_wal_checkpoint_v2(st->db, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
}

void *gq__store_kept(struct gq_store *st)
{
    return st->kept;
}

void gq__store_keep(struct gq_store *st, void *kept, void (*kept_free)(void *kept))
{
    st->kept = kept;
    st->kept_free = kept_free;
}

void gq__store_set_wal_limit(struct gq_store *st, int frames)
{
    st->wal_limit = frames;
}

void gq__store_set_cache_kib(struct gq_store *st, int kib)
{
    char sql[64];

    snprintf(sql, sizeof(sql), "PRAGMA cache_size=-%d", kib > 0 ? kib : 65536);
    sqlite3_exec(st->db, sql, NULL, NULL, NULL);
}

int gq__store_write(struct gq_store *st, gq__txn_fn fn, void *payload, gq_error *err)
{
    if (st->readonly)
        return gq__error(err, GQ_EIO, "%s: database is open read-only", st->path);
    return run_txn(st, "BEGIN IMMEDIATE", true, fn, payload, err);
}

int gq__store_write_journaled(struct gq_store *st, gq__txn_fn fn, void *payload, gq_error *err)
{
    if (st->readonly)
        return gq__error(err, GQ_EIO, "%s: database is open read-only", st->path);
    return run_txn(st, "BEGIN IMMEDIATE", false, fn, payload, err);
}

static int nothing(struct gq_store *st, void *payload, gq_error *err)
{
    (void)st;
    (void)payload;
    (void)err;
    return GQ_OK;
}

int gq__store_read(struct gq_store *st, gq__txn_fn fn, void *payload, gq_error *err)
{
    int rc;

    /* Inside a caller's transaction, read in its snapshot rather than nest. */
    if (!sqlite3_get_autocommit(st->db))
        return fn(st, payload, err);
    /* Decisions still in the engine's journal are folded in first. */
    if ((rc = gq__store_journal_flush(st, err)) != GQ_OK)
        return rc;
    return run_txn(st, "BEGIN", false, fn, payload, err);
}

/*
 * The journal folded by a write transaction of its own, when it holds rows.
 * A read-only connection cannot: it reads the tables as the last fold left
 * them. A failure to look is left to the caller's own statements to report.
 */
int gq__store_journal_flush(struct gq_store *st, gq_error *err)
{
    bool any = false;

    if (st->readonly || gq__store_journal_any(st, &any, NULL) != GQ_OK || !any)
        return GQ_OK;
    return gq__store_write(st, nothing, NULL, err);
}

int gq__store_fold_before_read(struct gq_store *st, gq_error *err)
{
    return sqlite3_get_autocommit(st->db) ? gq__store_journal_flush(st, err) : GQ_OK;
}

int gq__store_cursor_open(struct gq_store *st, const char *sql, struct gq__cursor *c,
                          gq_error *err)
{
    int rc;

    c->stmt = NULL;
    c->own = false;
    if ((rc = gq__store_fold_before_read(st, err)) != GQ_OK)
        return rc;
    c->stmt = gq__store_cached(st, sql);
    c->own = !c->stmt;
    if (c->own && (rc = sqlite3_prepare_v2(st->db, sql, -1, &c->stmt, NULL)) != SQLITE_OK)
        return gq__store_sqlerr(st, rc, err, "query");
    return GQ_OK;
}

void gq__store_cursor_close(struct gq__cursor *c)
{
    if (c->own) {
        sqlite3_finalize(c->stmt);
    } else if (c->stmt) {
        sqlite3_reset(c->stmt);
        sqlite3_clear_bindings(c->stmt);
    }
    c->stmt = NULL;
}

int gq__store_each_row(struct gq_store *st, struct gq__cursor *c, const char *shape, bool typed,
                       size_t max, gq__stmt_row_fn fn, void *payload, gq_error *err)
{
    size_t n = 0;
    int rc = SQLITE_DONE;

    while ((max == 0 || n < max) && (rc = sqlite3_step(c->stmt)) == SQLITE_ROW) {
        n++;
        /* Checked first: reading a column as text may change the type SQLite reports. */
        if ((rc = gq__store_row_check(st, c->stmt, shape, typed, err)) == GQ_OK)
            rc = fn(c->stmt, payload, err);
        if (rc != 0) {
            gq__store_cursor_close(c);
            return rc;
        }
    }
    gq__store_cursor_close(c);
    if (max && n == max)
        return GQ_OK;
    if (rc != SQLITE_DONE)
        return gq__store_sqlerr(st, rc, err, "query");
    return GQ_OK;
}

/* ------------------------------------------------------------------ reads */

/*
 * The queries' SQL is static text too, so their statements are cached like
 * gq__store_stmt's (a simulated week runs the same few hundred thousand
 * times, and preparing was a third of its time): the cached statement,
 * prepared if new, while the cache keeps room for gq__store_stmt; NULL to
 * prepare one of its own (cache short of room, the statement in use by a
 * query whose row callback runs the same query again, or other text at the
 * same address).
 */
sqlite3_stmt *gq__store_cached(struct gq_store *st, const char *sql)
{
    int i;

    for (i = 0; i < st->nstmts; i++)
        if (st->stmts[i].sql == sql) /* the same text too: a caller's buffer may be reused */
            return sqlite3_stmt_busy(st->stmts[i].stmt) ||
                           strcmp(sqlite3_sql(st->stmts[i].stmt), sql) != 0
                       ? NULL
                       : st->stmts[i].stmt;
    if (st->nstmts >= GQ_STORE_MAX_STMTS - GQ_STORE_STMTS_KEPT)
        return NULL;
    if (sqlite3_prepare_v3(st->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &st->stmts[i].stmt,
                           NULL) != SQLITE_OK) {
        st->stmts[i].stmt = NULL;
        return NULL; /* the caller prepares it again and reports the error */
    }
    st->stmts[i].sql = sql;
    st->nstmts++;
    return st->stmts[i].stmt;
}

static void done(sqlite3_stmt *stmt, bool own)
{
    if (own) {
        sqlite3_finalize(stmt);
        return;
    }
    sqlite3_reset(stmt);
    sqlite3_clear_bindings(stmt);
}

/* The rows' name before "table:" in shape into buf ("a row" without one); the letters after it. */
static const char *shape_letters(const char *shape, char *buf, size_t size)
{
    const char *colon = strchr(shape, ':');

    snprintf(buf, size, "%.*s", colon ? (int)(colon - shape) : 0, shape);
    return colon ? colon + 1 : shape;
}

/* The row's id for messages: its '#' column, or 0. */
static int64_t shape_id(sqlite3_stmt *stmt, const char *letters)
{
    const char *hash = strchr(letters, '#');

    return hash ? sqlite3_column_int64(stmt, (int)(hash - letters)) : 0;
}

/* What is wrong with column i for its shape letter c, or NULL; typed: integers go to nums. */
static const char *column_fault(sqlite3_stmt *stmt, int i, char c, bool typed)
{
    int type = sqlite3_column_type(stmt, i);

    if (type == SQLITE_NULL)
        return c == 'T' || c == 'I' || c == '#' ? "is NULL" : NULL;
    if ((c == 'I' || c == 'i' || c == '#') && type != SQLITE_INTEGER)
        return "is not an integer";
    if ((c == 'T' || c == 't') && typed && type == SQLITE_INTEGER)
        return "is not text";
    return NULL;
}

int gq__store_row_check(struct gq_store *st, sqlite3_stmt *stmt, const char *shape, bool typed,
                        gq_error *err)
{
    const char *letters, *fault = NULL;
    char table[64];
    int i, n = sqlite3_column_count(stmt);
    int64_t id;

    if (!shape)
        return GQ_OK;
    letters = shape_letters(shape, table, sizeof(table));
    for (i = 0; i < n && letters[i] && !fault; i++)
        fault = column_fault(stmt, i, letters[i], typed);
    if (!fault)
        return GQ_OK;
    id = shape_id(stmt, letters);
    if (table[0] && id)
        return gq__store_damaged(st, err, "%s row %" PRId64 ": %s %s", table, id,
                                 sqlite3_column_name(stmt, i - 1), fault);
    return gq__store_damaged(st, err, "%s%scolumn %s %s", table, table[0] ? ": " : "",
                             sqlite3_column_name(stmt, i - 1), fault);
}

static int query(struct gq_store *st, const struct gq__query *q, gq__row_fn row, void *payload,
                 gq_error *err)
{
    const char *vals[64];
    sqlite3_stmt *stmt;
    bool own;
    int i, n, rc;

    if ((rc = gq__store_fold_before_read(st, err)) != GQ_OK)
        return rc;
    stmt = gq__store_cached(st, q->sql);
    own = !stmt;
    if (own && (rc = sqlite3_prepare_v2(st->db, q->sql, -1, &stmt, NULL)) != SQLITE_OK)
        return gq__store_sqlerr(st, rc, err, "query");
    for (i = 0; i < q->nparams; i++)
        gq__bind_text(stmt, i + 1, q->params[i]);
    n = sqlite3_column_count(stmt);
    if (n > 64)
        n = 64;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        /* Checked first: reading a column as text may change the type SQLite reports. */
        if ((rc = gq__store_row_check(st, stmt, q->shape, false, err)) == GQ_OK) {
            for (i = 0; i < n; i++)
                vals[i] = (const char *)sqlite3_column_text(stmt, i);
            rc = row(n, vals, payload);
        }
        if (rc != 0) {
            done(stmt, own);
            return rc;
        }
    }
    done(stmt, own);
    if (rc != SQLITE_DONE)
        return gq__store_sqlerr(st, rc, err, "query");
    return GQ_OK;
}

int gq__store_query(struct gq_store *st, const char *sql, const char *const *params, int nparams,
                    gq__row_fn row, void *payload, gq_error *err)
{
    struct gq__query q = {sql, NULL, params, nparams};

    return query(st, &q, row, payload, err);
}

int gq__store_rows(struct gq_store *st, const struct gq__query *q, gq__row_fn row, void *payload,
                   gq_error *err)
{
    return query(st, q, row, payload, err);
}

int gq__store_event(struct gq_store *st, const char *kind, const char *ns, const char *name,
                    const char *uid, const char *type, const char *reason, const char *message,
                    const char *from_state, const char *to_state, int64_t now_ms, gq_error *err)
{
    static const char sql[] =
        "INSERT INTO events(at, kind, namespace, name, uid, type, reason, message, "
        "from_state, to_state) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)";
    sqlite3_stmt *stmt = gq__store_stmt(st, sql, err);

    if (!stmt)
        return err ? err->code : GQ_EIO;
    sqlite3_bind_int64(stmt, 1, now_ms);
    gq__bind_text(stmt, 2, kind);
    gq__bind_text(stmt, 3, ns);
    gq__bind_text(stmt, 4, name);
    gq__bind_text(stmt, 5, uid);
    gq__bind_text(stmt, 6, type);
    gq__bind_text(stmt, 7, reason);
    gq__bind_text(stmt, 8, message ? message : "");
    gq__bind_text(stmt, 9, from_state);
    gq__bind_text(stmt, 10, to_state);
    return gq__store_step_done(st, stmt, err);
}
