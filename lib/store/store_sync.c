/*
 * store_sync.c: the statements behind cluster mode's Job informer
 * (engine/sync_jobs.c, store_sync.h): a Job's workload by its UID, the live
 * workload a re-created Job replaces, and the live workloads a full list no
 * longer holds. The rows are the informer's records, copied into its struct;
 * no shape is checked (the columns read are NOT NULL in the schema), as the
 * informer never checked them.
 *
 * Parameters are bound as text, as they always were. Statements are cached
 * by their static text's address (gq__store_cached), and prepared afresh
 * when the cached one is in use or the cache is short of room. Sizes: a
 * first list of 10,000 Jobs runs the two reads once per Job each, and the
 * write once with the 10,000 UIDs.
 */
#include <stdio.h>

#include "error.h"
#include "state.h"
#include "store_int.h"
#include "store_sync.h"


/* What a record reads, in copy_row's order. */
#define RECORD_COLUMNS                                                                             \
    "id, state, name, uid, coalesce((SELECT sum(json_extract(p.value, '$.count')) FROM "           \
    "json_each(admission, '$.podSetAssignments') p), pods)"

/*
 * Columns: id, state, name, uid (NULL, which the schema rules out, copied
 * as ""), pods admitted or asked for.
 */
static void copy_row(sqlite3_stmt *stmt, struct gq_sync_record *out)
{
    const char *state = (const char *)sqlite3_column_text(stmt, 1);
    const char *name = (const char *)sqlite3_column_text(stmt, 2);
    const char *uid = (const char *)sqlite3_column_text(stmt, 3);

    out->id = sqlite3_column_int64(stmt, 0);
    snprintf(out->state, sizeof(out->state), "%s", state ? state : "");
    snprintf(out->name, sizeof(out->name), "%s", name ? name : "");
    snprintf(out->uid, sizeof(out->uid), "%s", uid ? uid : "");
    out->pods = sqlite3_column_int64(stmt, 4);
}

static int record_row(sqlite3_stmt *stmt, void *payload, gq_error *err)
{
    (void)err;
    if (payload)
        copy_row(stmt, payload);
    return 0;
}

/*
 * Run sql with params bound as text, each row (when out is not NULL) copied
 * into *out, so that the last row is the one kept.
 */
static int run(struct gq_store *st, const char *sql, const char *const *params, int nparams,
               struct gq_sync_record *out, gq_error *err)
{
    struct gq__cursor c;
    int i, rc;

    if ((rc = gq__store_cursor_open(st, sql, &c, err)) != GQ_OK)
        return rc;
    for (i = 0; i < nparams; i++)
        gq__bind_text(c.stmt, i + 1, params[i]);
    return gq__store_each_row(st, &c, NULL, false, 0, record_row, out, err);
}

static void record_clear(struct gq_sync_record *r)
{
    r->id = r->pods = 0;
    r->state[0] = r->name[0] = r->uid[0] = '\0';
}

int gq__store_sync_by_uid(struct gq_store *st,
                          const char *uid,
                          struct gq_sync_record *out,
                          gq_error *err)
{
    static const char sql[] = "SELECT " RECORD_COLUMNS " FROM workloads WHERE uid = ?1";

    record_clear(out);
    return run(st, sql, &uid, 1, out, err);
}

/*
 * (state <> 'cancelled' lets SQLite use the partial index workloads_live_job;
 * without it each Job of a first list scanned them all.)
 */
int gq__store_sync_replaced(struct gq_store *st,
                            const char *kind,
                            const char *ns,
                            const char *name,
                            const char *uid,
                            struct gq_sync_record *out,
                            gq_error *err)
{
    static const char sql[] = "SELECT " RECORD_COLUMNS " FROM workloads WHERE namespace = ?1 "
                              "AND job_name = ?2 AND job_kind = ?4 AND uid <> ?3 "
                              "AND state <> " GQ_SQL_STATE(cancelled) " AND state IN "
                              GQ_SQL_JOB_LIVE;
    const char *params[] = {ns, name, uid, kind};

    record_clear(out);
    return run(st, sql, params, 4, out, err);
}

int gq__store_sync_unlisted_gone(struct gq_store *st, const char *kind, const char *listed_uids,
                                 gq_error *err)
{
    static const char sql[] =
        "UPDATE workloads SET job_gone = 1 WHERE job_kind = ?2 AND state IN " GQ_SQL_JOB_LIVE
        " AND uid NOT IN (SELECT value FROM json_each(?1))";
    const char *params[] = {listed_uids, kind};

    return run(st, sql, params, 2, NULL, err);
}
