/*
 * floor.c: what a `gpuq submit` run in a shell loop cannot be faster than.
 * Run once per job by bench.py in the same loop as gpuq, in two modes:
 *
 *   floor fsync FILE   write 4 KiB at the start of FILE and fdatasync it: the
 *                      least any program must do to record something durably;
 *   floor sqlite DB    what gpuq's store does for one write and nothing else:
 *                      open gpuq's database with the same settings (WAL,
 *                      synchronous=FULL, no checkpoint on close, the WAL
 *                      truncated past 128 frames), then BEGIN IMMEDIATE, one
 *                      INSERT into events, COMMIT.
 *
 * It is linked as gpuq is (same libc, same SQLite), so the gap between these
 * rates and gpuq's is gpuq's own work. Not a test: nothing here is asserted.
 */
#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define WAL_TRUNCATE_FRAMES 128 /* as lib/store/store.c */

static int wal_frames;

static int wal_hook(void *payload, sqlite3 *db, const char *name, int frames)
{
    (void)payload;
    (void)db;
    (void)name;
    wal_frames = frames;
    return SQLITE_OK;
}

static int floor_fsync(const char *path)
{
    char block[4096];
    int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    int rc;

    if (fd < 0) {
        perror(path);
        return 1;
    }
    memset(block, 'x', sizeof(block));
    rc = pwrite(fd, block, sizeof(block), 0) != (ssize_t)sizeof(block) || fdatasync(fd) != 0;
    if (rc)
        perror(path);
    close(fd);
    return rc;
}

static int exec(sqlite3 *db, const char *sql)
{
    char *msg = NULL;

    if (sqlite3_exec(db, sql, NULL, NULL, &msg) == SQLITE_OK)
        return 0;
    fprintf(stderr, "floor: %s: %s\n", sql, msg ? msg : "error");
    sqlite3_free(msg);
    return 1;
}

static int floor_sqlite(const char *path)
{
    static const char insert[] =
        "INSERT INTO events(at, kind, namespace, name, type, reason) "
        "VALUES (1, 'Workload', 'default', 'floor', 'Normal', 'Created')";
    sqlite3 *db;
    int rc;

    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) !=
        SQLITE_OK) {
        fprintf(stderr, "floor: %s: %s\n", path, sqlite3_errmsg(db));
        sqlite3_close(db);
        return 1;
    }
    sqlite3_busy_timeout(db, 5000);
    sqlite3_wal_hook(db, wal_hook, NULL);
    sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, (int *)NULL);
    rc = exec(db, "PRAGMA foreign_keys=ON; PRAGMA synchronous=FULL") ||
         exec(db, "BEGIN IMMEDIATE") || exec(db, insert) || exec(db, "COMMIT");
    if (rc == 0 && wal_frames >= WAL_TRUNCATE_FRAMES)
        sqlite3_wal_checkpoint_v2(db, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
    sqlite3_close(db);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "fsync") == 0)
        return floor_fsync(argv[2]);
    if (argc == 3 && strcmp(argv[1], "sqlite") == 0)
        return floor_sqlite(argv[2]);
    fprintf(stderr, "usage: floor fsync FILE | floor sqlite GPUQ_DB\n");
    return 2;
}
