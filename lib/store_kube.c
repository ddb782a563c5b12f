/*
 * store_kube.c: what cluster mode records about the API server's objects
 * (schema 0007): the Job last seen, and each ProvisioningRequest's life
 * there. Every release of quota is one UPDATE guarded by the state the
 * workload must be in, so a Job that finishes, is deleted or leaves its
 * queue lets go of its quota exactly once however often it is observed.
 */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "store_int.h"

#define LIVE "('pending', 'reserved', 'admitted', 'running', 'deactivated')"

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
    static const char sql[] = "UPDATE workloads SET job_gone = 1 WHERE id = ?1 AND state IN " LIVE;
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
                              "WHERE id = ?1 AND state IN " LIVE;
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

int gq__store_kube_error(struct gq_store *st, int64_t id, const char *message, gq_error *err)
{
    static const char sql[] = "UPDATE workloads SET kube_error = ?2, kube_error_rv = "
                              "coalesce(job_rv, '') WHERE id = ?1";
    sqlite3_stmt *stmt = gq__store_stmt(st, sql, err);

    if (!stmt)
        return err ? err->code : GQ_EIO;
    sqlite3_bind_int64(stmt, 1, id);
    gq__bind_text(stmt, 2, message);
    return gq__store_step_done(st, stmt, err);
}
