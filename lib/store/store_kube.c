/*
 * store_kube.c: what cluster mode records about the API server's objects
 * (schema 0007): the Job last seen, and each ProvisioningRequest's life
 * there. Every release of quota is one UPDATE guarded by the state the
 * workload must be in, so a Job that finishes, is deleted or leaves its
 * queue lets go of its quota exactly once however often it is observed.
 * Writes the API server refused are recorded per workload, with the
 * backoff before the next try (see gq__store_kube_refused).
 */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "state.h"
#include "store_int.h"


int gq__store_kube_seen(struct gq_store *st, int64_t id, const char *rv, bool suspended,
                        gq_error *err)
{
    static const char sql[] = "UPDATE workloads SET job_rv = ?2, job_suspended = ?3, "
                              "job_gone = 0 WHERE id = ?1";
    sqlite3_stmt *stmt = gq__store_stmt(st, sql, err);

    if (!stmt)
        return err ? err->code : GQ_EIO;
    sqlite3_bind_int64(stmt, 1, id);
    gq__bind_text(stmt, 2, rv);
    sqlite3_bind_int(stmt, 3, suspended);
    return gq__store_step_done(st, stmt, err);
}

int gq__store_kube_gone(struct gq_store *st, int64_t id, gq_error *err)
{
    static const char sql[] = "UPDATE workloads SET job_gone = 1 WHERE id = ?1 AND state IN "
                              GQ_SQL_JOB_LIVE;
    sqlite3_stmt *stmt = gq__store_stmt(st, sql, err);

    if (!stmt)
        return err ? err->code : GQ_EIO;
    sqlite3_bind_int64(stmt, 1, id);
    return gq__store_step_done(st, stmt, err);
}

int gq__store_kube_close(struct gq_store *st, int64_t id, const char *to, const char *reason,
                         const char *message, int64_t now_ms, bool *closed, gq_error *err)
{
    static const char sql[] = "UPDATE workloads SET state = ?2, reason = ?3, message = ?4, "
                              "finished_at = ?5, updated_at = ?5, job_gone = 0 "
                              "WHERE id = ?1 AND state IN " GQ_SQL_JOB_LIVE;
    sqlite3_stmt *stmt = gq__store_stmt(st, sql, err);
    int rc;

    *closed = false;
    if (!stmt)
        return err ? err->code : GQ_EIO;
    sqlite3_bind_int64(stmt, 1, id);
    gq__bind_text(stmt, 2, to);
    gq__bind_text(stmt, 3, reason);
    gq__bind_text(stmt, 4, message);
    sqlite3_bind_int64(stmt, 5, now_ms);
    if ((rc = gq__store_step_done(st, stmt, err)) != GQ_OK || sqlite3_changes(st->db) == 0)
        return rc; /* already ended: nothing more to release */
    *closed = true;
    if ((rc = gq__store_drop_usage(st, id, err)) != GQ_OK)
        return rc;
    return gq__store_release_checks(st, id, GQ_CHECKS_DROP, now_ms, err);
}

int gq__store_kube_provreq(struct gq_store *st, int64_t id, const char *kube, const char *uid,
                           gq_error *err)
{
    static const char sql[] =
        "UPDATE provisioning_requests SET kube = ?2, kube_uid = coalesce(?3, kube_uid) "
        "WHERE id = ?1";
    sqlite3_stmt *stmt = gq__store_stmt(st, sql, err);

    if (!stmt)
        return err ? err->code : GQ_EIO;
    sqlite3_bind_int64(stmt, 1, id);
    gq__bind_text(stmt, 2, kube);
    gq__bind_text(stmt, 3, uid);
    return gq__store_step_done(st, stmt, err);
}

int gq__store_kube_provreq_status(struct gq_store *st, const char *ns, const char *name,
                                  const char *uid, const char *status, gq_error *err)
{
    static const char sql[] =
        "UPDATE provisioning_requests SET status = ?4, kube = 'created', kube_uid = ?3 "
        "WHERE namespace = ?1 AND name = ?2 AND deleted_at IS NULL "
        "AND (kube_uid IS NULL OR kube_uid = ?3) AND status IS NOT ?4";
    sqlite3_stmt *stmt = gq__store_stmt(st, sql, err);

    if (!stmt)
        return err ? err->code : GQ_EIO;
    gq__bind_text(stmt, 1, ns);
    gq__bind_text(stmt, 2, name);
    gq__bind_text(stmt, 3, uid);
    gq__bind_text(stmt, 4, status);
    return gq__store_step_done(st, stmt, err);
}

/*
 * workloads.kube_error is the record of refusals in a row, as JSON (older
 * databases hold a bare message, which counts as no record: tried again at
 * once): {"reason", "message", "since" (store ms of the first), "tries",
 * "retry_at" (store ms)}. The wait after the nth is 1 s doubled n-1 times,
 * 5 min at most, as client-go's workqueue backs off a failing item.
 * kube_error_rv is the Job's resourceVersion at the last refusal: a Job
 * that changes since is tried again at once.
 */
#define PREV "(CASE WHEN json_valid(kube_error) THEN kube_error END)"
#define PREV_TRIES "coalesce(json_extract(" PREV ", '$.tries'), 0)"

int gq__store_kube_refused(struct gq_store *st, int64_t id, struct gq_kube_refusal *f,
                           gq_error *err)
{
    static const char sql[] =
        "UPDATE workloads SET kube_error_rv = coalesce(job_rv, ''), kube_error = json_object("
        "'reason', ?2, 'message', ?3, 'since', coalesce(json_extract(" PREV ", '$.since'), ?4), "
        "'tries', " PREV_TRIES " + 1, "
        "'retry_at', ?4 + min(1000 << min(" PREV_TRIES ", 9), 300000)) "
        "WHERE id = ?1 RETURNING json_extract(kube_error, '$.tries'), "
        "json_extract(kube_error, '$.retry_at')";
    sqlite3_stmt *stmt = gq__store_stmt(st, sql, err);
    int rc;

    f->tries = 0;
    f->retry_at = f->now_ms;
    if (!stmt)
        return err ? err->code : GQ_EIO;
    sqlite3_bind_int64(stmt, 1, id);
    gq__bind_text(stmt, 2, f->reason);
    gq__bind_text(stmt, 3, f->message);
    sqlite3_bind_int64(stmt, 4, f->now_ms);
    if ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        f->tries = sqlite3_column_int(stmt, 0);
        f->retry_at = sqlite3_column_int64(stmt, 1);
        return gq__store_step_done(st, stmt, err); /* steps on to the end, and resets */
    }
    sqlite3_reset(stmt);
    return rc == SQLITE_DONE ? GQ_OK : gq__store_sqlerr(st, rc, err, "write");
}

int gq__store_kube_cleared(struct gq_store *st, int64_t id, gq_error *err)
{
    static const char sql[] = "UPDATE workloads SET kube_error = NULL, kube_error_rv = NULL "
                              "WHERE id = ?1 AND kube_error IS NOT NULL";
    sqlite3_stmt *stmt = gq__store_stmt(st, sql, err);

    if (!stmt)
        return err ? err->code : GQ_EIO;
    sqlite3_bind_int64(stmt, 1, id);
    return gq__store_step_done(st, stmt, err);
}
