/*
 * test_powerloss.c: k8s-client-and-reliability.md §6 B 33 (§3.1, §3.5 (c)).
 * A power loss that drops every write not yet synced: with synchronous=FULL
 * (what the store sets) every acknowledged submission survives; with NORMAL
 * the database is still sound and only trailing commits may be missing.
 *
 * The power-loss VFS below wraps the default VFS and is registered as the
 * default while a workload runs. Writes and truncates go to the real files;
 * each xSync of the main database, a journal or the WAL copies that file's
 * whole current content into an in-memory "synced image" (the real fsync is
 * skipped: durability is what the image says, and the run stays fast). At
 * any moment the images are what a power cut would leave. A file never
 * synced has no image; a deleted one loses it. The -shm is shared memory,
 * never durable.
 *
 * The power is cut before the K-th write, truncate or sync (counted over
 * the tracked files), so cuts fall between transactions and inside them:
 * while frames of an uncommitted transaction are being written, between a
 * commit's last frame and its WAL sync, inside a checkpoint, inside the
 * database's creation and migration. From then on the images are frozen;
 * the workload stops, the handle is closed, the images are written back
 * over the files (files without one removed, the -shm deleted), the real
 * VFS is made the default again, and the database is reopened through
 * gq_db_open and checked.
 *
 * Internal headers (store.h, api.h) and <sqlite3.h> are used only here, for
 * the VFS and to set synchronous=NORMAL on the handle for the second mode.
 */
#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api.h"
#include "gpuqueue.h"
#include "store.h"
#include "store_int.h"
#include "queue_fixture.h"
#include "test.h"

/* ------------------------------------------------------------------ VFS */

/* A file the power cut must know about: its path and its synced image. */
struct pl_track {
    char *path;
    bool main_db; /* the database file itself (else a journal or the WAL) */
    bool has_image;
    unsigned char *image;
    size_t len;
};

#define PL_MAX_TRACKS 16

static struct {
    sqlite3_vfs *real;
    struct pl_track tracks[PL_MAX_TRACKS];
    int ntracks;
    long ops;    /* writes, truncates and syncs of tracked files so far */
    long cut_at; /* cut the power before this op (0: never) */
    bool frozen; /* the power is off: images no longer change */
    /* The first checkpoint after the setup: its first database op, the WAL op after it. */
    bool watch;
    long ckpt_first, ckpt_end;
} pl;

struct pl_file {
    sqlite3_file base;
    sqlite3_file *real; /* follows this struct in the same allocation */
    struct pl_track *track;
};

static struct pl_track *pl_track_get(const char *path)
{
    struct pl_track *t;
    int i;

    for (i = 0; i < pl.ntracks; i++)
        if (strcmp(pl.tracks[i].path, path) == 0)
            return &pl.tracks[i];
    if (pl.ntracks == PL_MAX_TRACKS)
        return NULL;
    t = &pl.tracks[pl.ntracks++];
    memset(t, 0, sizeof(*t));
    t->path = strdup(path);
    return t;
}

/* One more durable-relevant op; the power goes off before op number cut_at. */
static void pl_tick(const struct pl_track *t)
{
    pl.ops++;
    if (pl.watch && t && t->main_db && !pl.ckpt_first)
        pl.ckpt_first = pl.ops;
    if (pl.watch && t && !t->main_db && pl.ckpt_first && !pl.ckpt_end)
        pl.ckpt_end = pl.ops;
    if (pl.cut_at && pl.ops >= pl.cut_at)
        pl.frozen = true;
}

static int pl_close(sqlite3_file *f)
{
    struct pl_file *p = (struct pl_file *)f;

    return p->real->pMethods->xClose(p->real);
}

static int pl_read(sqlite3_file *f, void *buf, int n, sqlite3_int64 off)
{
    struct pl_file *p = (struct pl_file *)f;

    return p->real->pMethods->xRead(p->real, buf, n, off);
}

static int pl_write(sqlite3_file *f, const void *buf, int n, sqlite3_int64 off)
{
    struct pl_file *p = (struct pl_file *)f;

    if (p->track)
        pl_tick(p->track);
    return p->real->pMethods->xWrite(p->real, buf, n, off);
}

static int pl_truncate(sqlite3_file *f, sqlite3_int64 size)
{
    struct pl_file *p = (struct pl_file *)f;

    if (p->track)
        pl_tick(p->track);
    return p->real->pMethods->xTruncate(p->real, size);
}

/* The sync: what the file holds now becomes what survives a power cut. */
static int pl_sync(sqlite3_file *f, int flags)
{
    struct pl_file *p = (struct pl_file *)f;
    sqlite3_int64 size;
    unsigned char *buf;
    int rc;

    (void)flags;
    if (!p->track)
        return SQLITE_OK;
    pl_tick(p->track);
    if (pl.frozen)
        return SQLITE_OK;
    rc = p->real->pMethods->xFileSize(p->real, &size);
    if (rc != SQLITE_OK)
        return rc;
    buf = malloc(size ? (size_t)size : 1);
    if (!buf)
        return SQLITE_NOMEM;
    if (size && (rc = p->real->pMethods->xRead(p->real, buf, (int)size, 0)) != SQLITE_OK) {
        free(buf);
        return rc;
    }
    free(p->track->image);
    p->track->image = buf;
    p->track->len = (size_t)size;
    p->track->has_image = true;
    return SQLITE_OK;
}

static int pl_file_size(sqlite3_file *f, sqlite3_int64 *size)
{
    struct pl_file *p = (struct pl_file *)f;

    return p->real->pMethods->xFileSize(p->real, size);
}

static int pl_lock(sqlite3_file *f, int level)
{
    struct pl_file *p = (struct pl_file *)f;

    return p->real->pMethods->xLock(p->real, level);
}

static int pl_unlock(sqlite3_file *f, int level)
{
    struct pl_file *p = (struct pl_file *)f;

    return p->real->pMethods->xUnlock(p->real, level);
}

static int pl_check_reserved(sqlite3_file *f, int *out)
{
    struct pl_file *p = (struct pl_file *)f;

    return p->real->pMethods->xCheckReservedLock(p->real, out);
}

static int pl_file_control(sqlite3_file *f, int op, void *arg)
{
    struct pl_file *p = (struct pl_file *)f;

    return p->real->pMethods->xFileControl(p->real, op, arg);
}

static int pl_sector_size(sqlite3_file *f)
{
    struct pl_file *p = (struct pl_file *)f;

    return p->real->pMethods->xSectorSize(p->real);
}

/*
 * Claim nothing that would let SQLite skip a sync (atomic writes, sequential
 * or safe appends): the model drops every unsynced write, in any order.
 */
static int pl_device(sqlite3_file *f)
{
    struct pl_file *p = (struct pl_file *)f;

    return p->real->pMethods->xDeviceCharacteristics(p->real) & SQLITE_IOCAP_POWERSAFE_OVERWRITE;
}

static int pl_shm_map(sqlite3_file *f, int pg, int pgsz, int extend, void volatile **pp)
{
    struct pl_file *p = (struct pl_file *)f;

    return p->real->pMethods->xShmMap(p->real, pg, pgsz, extend, pp);
}

static int pl_shm_lock(sqlite3_file *f, int offset, int n, int flags)
{
    struct pl_file *p = (struct pl_file *)f;

    return p->real->pMethods->xShmLock(p->real, offset, n, flags);
}

static void pl_shm_barrier(sqlite3_file *f)
{
    struct pl_file *p = (struct pl_file *)f;

    p->real->pMethods->xShmBarrier(p->real);
}

static int pl_shm_unmap(sqlite3_file *f, int del)
{
    struct pl_file *p = (struct pl_file *)f;

    return p->real->pMethods->xShmUnmap(p->real, del);
}

/* Version 2: no xFetch, so SQLite never reads through a memory map. */
static const sqlite3_io_methods pl_io = {
    .iVersion = 2,
    .xClose = pl_close,
    .xRead = pl_read,
    .xWrite = pl_write,
    .xTruncate = pl_truncate,
    .xSync = pl_sync,
    .xFileSize = pl_file_size,
    .xLock = pl_lock,
    .xUnlock = pl_unlock,
    .xCheckReservedLock = pl_check_reserved,
    .xFileControl = pl_file_control,
    .xSectorSize = pl_sector_size,
    .xDeviceCharacteristics = pl_device,
    .xShmMap = pl_shm_map,
    .xShmLock = pl_shm_lock,
    .xShmBarrier = pl_shm_barrier,
    .xShmUnmap = pl_shm_unmap,
};

static int pl_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *f, int flags, int *out_flags)
{
    struct pl_file *p = (struct pl_file *)f;
    int rc;

    (void)vfs;
    p->base.pMethods = NULL;
    p->real = (sqlite3_file *)(p + 1);
    p->track = NULL;
    rc = pl.real->xOpen(pl.real, name, p->real, flags, out_flags);
    if (rc != SQLITE_OK) {
        /* The real file may need closing even though its open failed. */
        if (p->real->pMethods)
            p->real->pMethods->xClose(p->real);
        return rc;
    }
    if (name && (flags & (SQLITE_OPEN_MAIN_DB | SQLITE_OPEN_MAIN_JOURNAL | SQLITE_OPEN_WAL))) {
        p->track = pl_track_get(name);
        if (!p->track) {
            p->real->pMethods->xClose(p->real);
            return SQLITE_CANTOPEN;
        }
        if (flags & SQLITE_OPEN_MAIN_DB)
            p->track->main_db = true;
    }
    p->base.pMethods = &pl_io;
    return SQLITE_OK;
}

/* A delete is durable at once (the model has no directory entries to lose). */
static int pl_delete(sqlite3_vfs *vfs, const char *name, int dir_sync)
{
    int i;

    (void)vfs;
    for (i = 0; i < pl.ntracks && !pl.frozen; i++) {
        if (strcmp(pl.tracks[i].path, name) == 0) {
            pl_tick(&pl.tracks[i]);
            free(pl.tracks[i].image);
            pl.tracks[i].image = NULL;
            pl.tracks[i].len = 0;
            pl.tracks[i].has_image = false;
        }
    }
    return pl.real->xDelete(pl.real, name, dir_sync);
}

static int pl_access(sqlite3_vfs *vfs, const char *name, int flags, int *out)
{
    (void)vfs;
    return pl.real->xAccess(pl.real, name, flags, out);
}

static int pl_full_pathname(sqlite3_vfs *vfs, const char *name, int n, char *out)
{
    (void)vfs;
    return pl.real->xFullPathname(pl.real, name, n, out);
}

static void *pl_dlopen(sqlite3_vfs *vfs, const char *name)
{
    (void)vfs;
    return pl.real->xDlOpen(pl.real, name);
}

static void pl_dlerror(sqlite3_vfs *vfs, int n, char *msg)
{
    (void)vfs;
    pl.real->xDlError(pl.real, n, msg);
}

static void (*pl_dlsym(sqlite3_vfs *vfs, void *h, const char *sym))(void)
{
    (void)vfs;
    return pl.real->xDlSym(pl.real, h, sym);
}

static void pl_dlclose(sqlite3_vfs *vfs, void *h)
{
    (void)vfs;
    pl.real->xDlClose(pl.real, h);
}

static int pl_randomness(sqlite3_vfs *vfs, int n, char *out)
{
    (void)vfs;
    return pl.real->xRandomness(pl.real, n, out);
}

static int pl_sleep(sqlite3_vfs *vfs, int us)
{
    (void)vfs;
    return pl.real->xSleep(pl.real, us);
}

static int pl_current_time(sqlite3_vfs *vfs, double *out)
{
    (void)vfs;
    return pl.real->xCurrentTime(pl.real, out);
}

static int pl_last_error(sqlite3_vfs *vfs, int n, char *msg)
{
    (void)vfs;
    return pl.real->xGetLastError(pl.real, n, msg);
}

static int pl_current_time64(sqlite3_vfs *vfs, sqlite3_int64 *out)
{
    (void)vfs;
    return pl.real->xCurrentTimeInt64(pl.real, out);
}

/* Version 2 (the real VFS's system-call overrides are not needed). */
static sqlite3_vfs pl_vfs = {
    .iVersion = 2,
    .zName = "gq-powerloss",
    .xOpen = pl_open,
    .xDelete = pl_delete,
    .xAccess = pl_access,
    .xFullPathname = pl_full_pathname,
    .xDlOpen = pl_dlopen,
    .xDlError = pl_dlerror,
    .xDlSym = pl_dlsym,
    .xDlClose = pl_dlclose,
    .xRandomness = pl_randomness,
    .xSleep = pl_sleep,
    .xCurrentTime = pl_current_time,
    .xGetLastError = pl_last_error,
    .xCurrentTimeInt64 = pl_current_time64,
};

/* Route every new connection through the power-loss VFS, with no power cut set. */
static void pl_install(long cut_at)
{
    pl.real = sqlite3_vfs_find(NULL);
    pl_vfs.szOsFile = (int)sizeof(struct pl_file) + pl.real->szOsFile;
    pl_vfs.mxPathname = pl.real->mxPathname;
    pl.ntracks = 0;
    pl.ops = 0;
    pl.cut_at = cut_at;
    pl.frozen = false;
    pl.watch = false;
    pl.ckpt_first = pl.ckpt_end = 0;
    sqlite3_vfs_register(&pl_vfs, 1);
}

/* The real VFS is the default again. */
static void pl_uninstall(void)
{
    sqlite3_vfs_register(pl.real, 1);
    sqlite3_vfs_unregister(&pl_vfs);
}

/*
 * After the handles are closed: each tracked file becomes its synced image,
 * or disappears if it never had one; the -shm disappears.
 */
static void pl_restore(const char *db_path)
{
    char shm[512];
    int i, fd;

    for (i = 0; i < pl.ntracks; i++) {
        struct pl_track *t = &pl.tracks[i];

        if (!t->has_image) {
            CHECKF(unlink(t->path) == 0 || errno == ENOENT, "unlink %s", t->path);
        } else {
            fd = open(t->path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
            CHECKF(fd >= 0, "open %s", t->path);
            if (fd >= 0) {
                CHECKF(t->len == 0 || write(fd, t->image, t->len) == (ssize_t)t->len,
                       "write %s", t->path);
                close(fd);
            }
        }
        free(t->image);
        free(t->path);
    }
    pl.ntracks = 0;
    snprintf(shm, sizeof(shm), "%s-shm", db_path);
    unlink(shm);
}

/* ------------------------------------------------------------- workload */

#define NJOBS 50

static int submit(gq_db *db, const char *name, gq_error *err)
{
    gq_job_spec job = GQ_JOB_SPEC_INIT;

    job.name = name;
    job.queue = "q";
    job.gpus = "1";
    return gq_job_submit(db, &job, NULL, NULL, err);
}

struct first {
    char text[256];
    int rows;
};

static int first_row(int n, const char *const *v, void *payload)
{
    struct first *f = payload;

    if (f->rows++ == 0)
        snprintf(f->text, sizeof(f->text), "%s", n > 0 && v[0] ? v[0] : "NULL");
    return 0;
}

static const char *pragma1(gq_db *db, const char *sql)
{
    static struct first f;
    gq_error err = {0, ""};

    memset(&f, 0, sizeof(f));
    CHECKF(gq__store_query(db->st, sql, NULL, 0, first_row, &f, &err) == GQ_OK, "%s: %s", sql,
           err.msg);
    return f.text;
}

struct present {
    bool job[NJOBS];
    int n, strays;
};

static int present_row(int n, const char *const *v, void *payload)
{
    struct present *p = payload;
    int i;

    if (n >= 1 && v[0] && sscanf(v[0], "pl-%d", &i) == 1 && i >= 0 && i < NJOBS && !p->job[i]) {
        p->job[i] = true;
        p->n++;
    } else {
        p->strays++;
    }
    return 0;
}

struct totals {
    int runs, inflight, lost; /* cuts inside a submit; acknowledged jobs missing */
};

/*
 * One run: a fresh database through the power-loss VFS, the queues, then up
 * to NJOBS submits, the power cut before op cut_at (0: after the last
 * submit). Returns the number of ops the run made before the cut.
 */
static long run(bool normal, long cut_at, struct totals *tot)
{
    char dir[] = "/tmp/gq_powerloss_XXXXXX", path[256], side[300];
    struct present present;
    gq_error err = {0, ""};
    int acked = 0, i, rc;
    bool setup_acked = false, inflight = false;
    gq_db *db = NULL;
    long ops;

    if (!mkdtemp(dir)) {
        CHECK(!"mkdtemp");
        return 0;
    }
    snprintf(path, sizeof(path), "%s/gpuq.db", dir);
    pl_install(cut_at);

    /* The workload, until the power goes. */
    rc = gq_db_open(&db, path, NULL, &err);
    if (rc == GQ_OK && !pl.frozen) {
        CHECK_STR(pragma1(db, "PRAGMA synchronous"), "2"); /* the product sets FULL */
        if (normal) {
            pragma1(db, "PRAGMA synchronous=NORMAL");
            CHECK_STR(pragma1(db, "PRAGMA synchronous"), "1");
        }
    }
    CHECKF(rc == GQ_OK, "open: %s", err.msg);
    if (rc == GQ_OK && !pl.frozen) {
        rc = queue_fixture_apply(db, "a100", 8, &err);
        CHECKF(rc == GQ_OK, "queues: %s", err.msg);
        setup_acked = rc == GQ_OK && !pl.frozen;
    }
    pl.watch = true;
    for (i = 0; setup_acked && i < NJOBS && !pl.frozen; i++) {
        char name[16];

        snprintf(name, sizeof(name), "pl-%02d", i);
        rc = submit(db, name, &err);
        CHECKF(rc == GQ_OK, "submit %s: %s", name, err.msg);
        if (rc != GQ_OK)
            break;
        if (pl.frozen)
            inflight = true; /* the power went before the call returned */
        else
            acked++;
    }
    pl.frozen = true; /* no cut yet: the power goes now */
    ops = pl.ops;
    gq_db_close(db);
    pl_restore(path);
    pl_uninstall();

    /* After the power comes back. */
    db = NULL;
    rc = gq_db_open(&db, path, NULL, &err);
    CHECKF(rc == GQ_OK, "%s cut %ld: reopen: %s", normal ? "NORMAL" : "FULL", cut_at, err.msg);
    if (rc == GQ_OK) {
        struct first ic = {"", 0};

        CHECKF(gq__store_query(db->st, "PRAGMA integrity_check", NULL, 0, first_row, &ic, &err) ==
                   GQ_OK,
               "%s", err.msg);
        CHECKF(ic.rows == 1 && strcmp(ic.text, "ok") == 0, "%s cut %ld: integrity_check: %s",
               normal ? "NORMAL" : "FULL", cut_at, ic.text);
        CHECK_STR(pragma1(db, "SELECT count(*) FROM pragma_foreign_key_check"), "0");

        memset(&present, 0, sizeof(present));
        CHECKF(gq__store_query(db->st, "SELECT job_name FROM workloads", NULL, 0, present_row,
                               &present, &err) == GQ_OK,
               "%s", err.msg);
        CHECK(present.strays == 0);
        /* The present jobs are the first present.n submitted: a prefix, no holes. */
        for (i = 0; i < NJOBS; i++)
            CHECKF(present.job[i] == (i < present.n), "%s cut %ld: pl-%02d present=%d, %d present",
                   normal ? "NORMAL" : "FULL", cut_at, i, present.job[i], present.n);
        /* Nothing appears that was not at least in flight. */
        CHECKF(present.n <= acked + (inflight ? 1 : 0), "%s cut %ld: %d present, %d acked",
               normal ? "NORMAL" : "FULL", cut_at, present.n, acked);
        if (!normal)
            CHECKF(present.n >= acked, "FULL cut %ld: %d of %d acknowledged jobs present",
                   cut_at, present.n, acked);
        if (present.n < acked)
            tot->lost += acked - present.n;
        tot->inflight += inflight;
        tot->runs++;

        /* The recovered database takes writes again. */
        CHECKF(queue_fixture_apply(db, "a100", 8, &err) == GQ_OK,
               "%s cut %ld: re-apply: %s", normal ? "NORMAL" : "FULL", cut_at, err.msg);
        CHECKF(submit(db, "pl-after", &err) == GQ_OK, "%s cut %ld: submit after: %s",
               normal ? "NORMAL" : "FULL", cut_at, err.msg);
    }
    gq_db_close(db);

    snprintf(side, sizeof(side), "%s-wal", path);
    unlink(side);
    snprintf(side, sizeof(side), "%s-shm", path);
    unlink(side);
    snprintf(side, sizeof(side), "%s-journal", path);
    unlink(side);
    unlink(path);
    rmdir(dir);
    return ops;
}

/*
 * Cut points: every sixth op of the database's creation, migrations and
 * queue setup (the first ~140 ops); around the first checkpoint after the
 * setup, every op of the commit that triggers it (between its frames,
 * between its last frame and its WAL sync, after that sync), the first ops
 * of the checkpoint and every eighth of its database writes, and every op
 * around the database's sync and the WAL's truncation; and a dozen evenly
 * spaced over the whole run.
 */
static void power_loss(bool normal)
{
    struct totals tot = {0, 0, 0};
    long total, first, end, k;

    total = run(normal, 0, &tot); /* no cut: the whole workload, and its op count */
    first = pl.ckpt_first;
    end = pl.ckpt_end;
    CHECK(total > 200);
    CHECKF(first > 0 && end > first, "checkpoint at ops %ld..%ld", first, end);
    for (k = 1; k <= 150 && k < total; k += 6)
        run(normal, k, &tot);
    for (k = first - 18; first > 0 && k < end + 5 && k < total; k++)
        if (k < first + 3 || k > end - 4 || k % 8 == 0)
            run(normal, k, &tot);
    for (k = 150; k < total; k += total / 12)
        run(normal, k, &tot);
    printf("%s: %ld ops per run, first checkpoint at ops %ld..%ld, %d runs, "
           "%d cut inside a submit, %d acknowledged jobs lost\n",
           normal ? "NORMAL" : "FULL", total, first, end, tot.runs, tot.inflight, tot.lost);
    CHECK(tot.inflight > 0);
    if (normal)
        CHECK(tot.lost > 0); /* the VFS does drop unsynced writes */
    else
        CHECK(tot.lost == 0);
}

static void full(void)
{
    power_loss(false);
}

static void normal(void)
{
    power_loss(true);
}

int main(void)
{
    TEST_RUN(full);
    TEST_RUN(normal);
    return TEST_DONE();
}
