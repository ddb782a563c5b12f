/*
 * store_engine.c: what the admission engine writes: a workload's quota
 * reserved (state, admission, usage rows), taken back (eviction) or the
 * reason it waits; and the database's change counter, so that the engine
 * knows when its in-memory snapshot is stale.
 *
 * Every state change is a guarded UPDATE: it names the state the engine
 * believes the workload is in, and GQ_ECONFLICT when another process changed
 * it meanwhile (a cancel): the engine then rolls the transaction back and
 * rebuilds its snapshot, so a decision is never applied to a workload that
 * moved on, and quota is never held twice.
 */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "state.h"
#include "store_int.h"

int64_t gq__store_data_version(struct gq_store *st)
{
    static const char sql[] = "PRAGMA data_version";
    sqlite3_stmt *stmt = gq__store_stmt(st, sql, NULL);
    int64_t v = -1;

    if (stmt && sqlite3_step(stmt) == SQLITE_ROW)
        v = sqlite3_column_int64(stmt, 0);
    if (stmt)
        sqlite3_reset(stmt);
    return v;
}

static int changed_one(struct gq_store *st, int64_t id, gq_error *err)
{
    if (sqlite3_changes(st->db) == 1)
        return GQ_OK;
    return gq__error(err, GQ_ECONFLICT, "workload %lld changed while it was being scheduled",
                     (long long)id);
}

int gq__store_reserve(struct gq_store *st, const struct gq_reserve *r, gq_error *err)
{
    static const char upd[] =
        "UPDATE workloads SET state = ?2, cluster_queue = ?3, admission = ?4, reason = NULL, "
        "message = NULL, updated_at = ?5, reserved_at = ?5, "
        "admitted_at = CASE WHEN ?2 = " GQ_SQL_STATE(admitted)
        " THEN ?5 END WHERE id = ?1 AND state = " GQ_SQL_STATE(pending);
    static const char use[] = "INSERT INTO usage(workload_id, cluster_queue, flavor, resource, "
                              "amount) VALUES (?1, ?2, ?3, ?4, ?5)";
    sqlite3_stmt *stmt = gq__store_stmt(st, upd, err);
    size_t i;
    int rc;

    if (!stmt)
        return err ? err->code : GQ_EIO;
    sqlite3_bind_int64(stmt, 1, r->id);
    gq__bind_text(stmt, 2, r->state);
    gq__bind_text(stmt, 3, r->cluster_queue);
    gq__bind_text(stmt, 4, r->admission);
    sqlite3_bind_int64(stmt, 5, r->now_ms);
    if ((rc = gq__store_step_done(st, stmt, err)) != GQ_OK ||
        (rc = changed_one(st, r->id, err)) != GQ_OK)
        return rc;
    for (i = 0; i < r->nuse; i++) {
        if (!(stmt = gq__store_stmt(st, use, err)))
            return err ? err->code : GQ_EIO;
        sqlite3_bind_int64(stmt, 1, r->id);
        gq__bind_text(stmt, 2, r->cluster_queue);
        gq__bind_text(stmt, 3, r->use[i].flavor);
        gq__bind_text(stmt, 4, r->use[i].resource);
        sqlite3_bind_int64(stmt, 5, r->use[i].amount);
        if ((rc = gq__store_step_done(st, stmt, err)) != GQ_OK)
            return rc;
    }
    return GQ_OK;
}

/* Usage rows go with the state change that released them (one transaction). */
int gq__store_drop_usage(struct gq_store *st, int64_t id, gq_error *err)
{
    static const char del[] = "DELETE FROM usage WHERE workload_id = ?1";
    sqlite3_stmt *stmt = gq__store_stmt(st, del, err);

    if (!stmt)
        return err ? err->code : GQ_EIO;
    sqlite3_bind_int64(stmt, 1, id);
    return gq__store_step_done(st, stmt, err);
}

/*
 * A workload holding quota lets go of it: pending again (an eviction, back
 * in the queue at requeue_at) or deactivated (a rejection); the eviction is
 * recorded, its usage rows go in the same transaction, and its checks
 * become what `after` says. GQ_ECONFLICT when it held no quota.
 */
static int let_go(struct gq_store *st, int64_t id, const char *to_state, const char *reason,
                  const char *message, const char *preempted_reason, int64_t requeue_at,
                  enum gq_checks_after after, int64_t now_ms, gq_error *err)
{
    static const char upd[] =
        "UPDATE workloads SET state = ?7, "
        "active = (?7 <> " GQ_SQL_STATE(deactivated) "), admission = NULL, "
        "reason = ?2, message = ?3, evicted_reason = ?2, evicted_message = ?3, "
        "preempted_reason = ?4, evicted_at = ?5, evictions = evictions + 1, updated_at = ?5, "
        "reserved_at = NULL, admitted_at = NULL, requeue_at = nullif(?6, 0), "
        /* PodsReady, when kept, is WaitForStart again; its time moves if it was True */
        "pods_ready_at = CASE WHEN pods_ready_reason IN ('Started', 'Recovered') THEN ?5 "
        "ELSE pods_ready_at END, "
        "pods_ready_reason = CASE WHEN pods_ready_reason IS NOT NULL THEN 'WaitForStart' END "
        "WHERE id = ?1 AND state IN " GQ_SQL_HOLDS_QUOTA;
    sqlite3_stmt *stmt = gq__store_stmt(st, upd, err);
    int rc;

    if (!stmt)
        return err ? err->code : GQ_EIO;
    sqlite3_bind_int64(stmt, 1, id);
    gq__bind_text(stmt, 2, reason);
    gq__bind_text(stmt, 3, message);
    gq__bind_text(stmt, 4, preempted_reason);
    sqlite3_bind_int64(stmt, 5, now_ms);
    sqlite3_bind_int64(stmt, 6, requeue_at);
    gq__bind_text(stmt, 7, to_state);
    if ((rc = gq__store_step_done(st, stmt, err)) != GQ_OK ||
        (rc = changed_one(st, id, err)) != GQ_OK || (rc = gq__store_drop_usage(st, id, err)) != GQ_OK)
        return rc;
    return gq__store_release_checks(st, id, after, now_ms, err);
}

int gq__store_evict(struct gq_store *st, int64_t id, const char *reason, const char *message,
                    const char *preempted_reason, int64_t requeue_at, int64_t now_ms,
                    gq_error *err)
{
    /* Kueue resets the checks and deletes the requests on eviction. */
    return let_go(st, id, gq__wl_state_name(GQ_WL_PENDING), reason, message, preempted_reason,
                  requeue_at, GQ_CHECKS_RESET, now_ms, err);
}

int gq__store_set_reason(struct gq_store *st, int64_t id, const char *reason, const char *message,
                         gq_error *err)
{
    static const char upd[] = "UPDATE workloads SET reason = ?2, message = ?3 "
                              "WHERE id = ?1 AND state = " GQ_SQL_STATE(pending);
    sqlite3_stmt *stmt = gq__store_stmt(st, upd, err);
    int rc;

    if (!stmt)
        return err ? err->code : GQ_EIO;
    sqlite3_bind_int64(stmt, 1, id);
    gq__bind_text(stmt, 2, reason);
    gq__bind_text(stmt, 3, message);
    if ((rc = gq__store_step_done(st, stmt, err)) != GQ_OK)
        return rc;
    return changed_one(st, id, err);
}

int gq__store_set_check(struct gq_store *st, int64_t workload_id, const char *name,
                        const char *state, const char *message, int64_t now_ms, gq_error *err)
{
    static const char sql[] =
        "INSERT INTO workload_checks(workload_id, name, state, message, updated_at) "
        "VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT(workload_id, name) DO UPDATE SET "
        "state = excluded.state, message = excluded.message, updated_at = excluded.updated_at";
    sqlite3_stmt *stmt = gq__store_stmt(st, sql, err);

    if (!stmt)
        return err ? err->code : GQ_EIO;
    sqlite3_bind_int64(stmt, 1, workload_id);
    gq__bind_text(stmt, 2, name);
    gq__bind_text(stmt, 3, state);
    gq__bind_text(stmt, 4, message ? message : "");
    sqlite3_bind_int64(stmt, 5, now_ms);
    return gq__store_step_done(st, stmt, err);
}

int gq__store_insert_provreq(struct gq_store *st, const struct gq_provreq_row *r, gq_error *err)
{
    static const char sql[] =
        "INSERT INTO provisioning_requests(uid, namespace, name, workload_id, check_name, "
        "attempt, class, spec, templates, created_at) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)";
    sqlite3_stmt *stmt = gq__store_stmt(st, sql, err);

    if (!stmt)
        return err ? err->code : GQ_EIO;
    gq__bind_text(stmt, 1, r->uid);
    gq__bind_text(stmt, 2, r->namespace);
    gq__bind_text(stmt, 3, r->name);
    sqlite3_bind_int64(stmt, 4, r->workload_id);
    gq__bind_text(stmt, 5, r->check);
    sqlite3_bind_int64(stmt, 6, r->attempt);
    gq__bind_text(stmt, 7, r->class_name);
    gq__bind_text(stmt, 8, r->spec);
    gq__bind_text(stmt, 9, r->templates);
    sqlite3_bind_int64(stmt, 10, r->now_ms);
    return gq__store_step_done(st, stmt, err);
}

int gq__store_set_note(struct gq_store *st, int64_t id, const char *reason, const char *message,
                       gq_error *err)
{
    static const char upd[] = "UPDATE workloads SET reason = ?2, message = ?3 WHERE id = ?1";
    sqlite3_stmt *stmt = gq__store_stmt(st, upd, err);

    if (!stmt)
        return err ? err->code : GQ_EIO;
    sqlite3_bind_int64(stmt, 1, id);
    gq__bind_text(stmt, 2, reason);
    gq__bind_text(stmt, 3, message);
    return gq__store_step_done(st, stmt, err);
}

int gq__store_release_checks(struct gq_store *st, int64_t workload_id,
                             enum gq_checks_after after, int64_t now_ms, gq_error *err)
{
    static const char del_pr[] = "UPDATE provisioning_requests SET deleted_at = ?2 "
                                 "WHERE workload_id = ?1 AND deleted_at IS NULL";
    static const char reset[] =
        "UPDATE workload_checks SET state = 'Pending', message = 'Reset to Pending after "
        "eviction. Previously: ' || state, "
        "retry_count = CASE WHEN state = 'Retry' THEN retry_count + 1 ELSE 0 END, "
        "updated_at = ?2 WHERE workload_id = ?1 AND state <> 'Pending'";
    static const char drop[] = "DELETE FROM workload_checks WHERE workload_id = ?1";
    const char *const sqls[] = {del_pr, after == GQ_CHECKS_RESET ? reset : drop};
    sqlite3_stmt *stmt;
    size_t i, n = after == GQ_CHECKS_KEEP ? 1 : 2;
    int rc;

    for (i = 0; i < n; i++) {
        if (!(stmt = gq__store_stmt(st, sqls[i], err)))
            return err ? err->code : GQ_EIO;
        sqlite3_bind_int64(stmt, 1, workload_id);
        if (sqlite3_bind_parameter_count(stmt) > 1)
            sqlite3_bind_int64(stmt, 2, now_ms);
        if ((rc = gq__store_step_done(st, stmt, err)) != GQ_OK)
            return rc;
    }
    return GQ_OK;
}

int gq__store_move(struct gq_store *st, const char *sql, int64_t id, int64_t now_ms,
                   gq_error *err)
{
    sqlite3_stmt *stmt = gq__store_stmt(st, sql, err);
    int rc;

    if (!stmt)
        return err ? err->code : GQ_EIO;
    sqlite3_bind_int64(stmt, 1, id);
    sqlite3_bind_int64(stmt, 2, now_ms);
    if ((rc = gq__store_step_done(st, stmt, err)) != GQ_OK)
        return rc;
    return changed_one(st, id, err);
}

int gq__store_checks_ready(struct gq_store *st, int64_t id, int64_t now_ms, gq_error *err)
{
    static const char upd[] =
        "UPDATE workloads SET state = " GQ_SQL_STATE(admitted) ", reason = NULL, message = NULL, "
        "updated_at = ?2, admitted_at = ?2 WHERE id = ?1 AND state = " GQ_SQL_STATE(reserved);

    return gq__store_move(st, upd, id, now_ms, err);
}

int gq__store_deactivate(struct gq_store *st, int64_t id, const char *reason, const char *message,
                         int64_t now_ms, gq_error *err)
{
    /*
     * Kueue evicts a deactivated workload like any other (resetChecksOnEviction):
     * its checks go back to Pending ("... Previously: Rejected"), the retry
     * count forgotten; the rejection stays in the eviction's reason and message.
     */
    return let_go(st, id, gq__wl_state_name(GQ_WL_DEACTIVATED), reason, message, NULL, 0,
                  GQ_CHECKS_RESET, now_ms, err);
}

int gq__store_check_retries(struct gq_store *st, int64_t workload_id, const char *name,
                            int32_t *out, gq_error *err)
{
    static const char sql[] =
        "SELECT retry_count FROM workload_checks WHERE workload_id = ?1 AND name = ?2";
    sqlite3_stmt *stmt = gq__store_stmt(st, sql, err);
    int rc;

    *out = 0;
    if (!stmt)
        return err ? err->code : GQ_EIO;
    sqlite3_bind_int64(stmt, 1, workload_id);
    gq__bind_text(stmt, 2, name);
    if ((rc = sqlite3_step(stmt)) == SQLITE_ROW)
        *out = (int32_t)sqlite3_column_int(stmt, 0);
    sqlite3_reset(stmt);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? GQ_OK : gq__store_sqlerr(st, rc, err, "query");
}

int gq__store_set_failed_flavors(struct gq_store *st, int64_t id, const char *json,
                                 gq_error *err)
{
    static const char upd[] = "UPDATE workloads SET failed_flavors = ?2 WHERE id = ?1";
    sqlite3_stmt *stmt = gq__store_stmt(st, upd, err);

    if (!stmt)
        return err ? err->code : GQ_EIO;
    sqlite3_bind_int64(stmt, 1, id);
    gq__bind_text(stmt, 2, json);
    return gq__store_step_done(st, stmt, err);
}

int gq__store_provreq_synced(struct gq_store *st, int64_t id, gq_error *err)
{
    static const char sql[] =
        "UPDATE provisioning_requests SET synced_status = status WHERE id = ?1";
    sqlite3_stmt *stmt = gq__store_stmt(st, sql, err);

    if (!stmt)
        return err ? err->code : GQ_EIO;
    sqlite3_bind_int64(stmt, 1, id);
    return gq__store_step_done(st, stmt, err);
}

/* ------------------------------------------------------- waitForPodsReady */

/*
 * Kueue's generatePodsReadyCondition (jobframework/reconciler.go): ready is
 * Started, or Recovered after a recovery; not ready is WaitForStart, or
 * WaitForRecovery once it had been True. lastTransitionTime moves only when
 * the status does (meta.SetStatusCondition).
 */
static const char *pods_ready_next(const char *old, bool ready)
{
    bool was_true = old && (strcmp(old, "Started") == 0 || strcmp(old, "Recovered") == 0);
    bool recovering = old && strcmp(old, "WaitForRecovery") == 0;

    if (ready)
        return recovering || (old && strcmp(old, "Recovered") == 0) ? "Recovered" : "Started";
    return was_true || recovering ? "WaitForRecovery" : "WaitForStart";
}

/*
 * The event of PodsReady turning True, Started: the moment Kueue's job
 * reconciler observes ready_wait_time_seconds and
 * admitted_until_ready_wait_time_seconds (not on Recovered), kept so that
 * the metrics' histograms are counted from the events as the others are.
 * It has no states: it is no state change.
 */
static int started_event(struct gq_store *st, int64_t id, int64_t now_ms, gq_error *err)
{
    static const char ins[] =
        "INSERT INTO events(at, kind, namespace, name, uid, type, reason, message) "
        "SELECT ?2, 'Workload', namespace, name, uid, 'Normal', 'PodsReady', "
        "'All pods reached readiness and the workload is running' FROM workloads WHERE id = ?1";
    sqlite3_stmt *stmt = gq__store_stmt(st, ins, err);

    if (!stmt)
        return err ? err->code : GQ_EIO;
    sqlite3_bind_int64(stmt, 1, id);
    sqlite3_bind_int64(stmt, 2, now_ms);
    return gq__store_step_done(st, stmt, err);
}

int gq__store_pods_ready(struct gq_store *st, int64_t id, bool ready, int64_t now_ms,
                         bool *changed, gq_error *err)
{
    static const char sel[] = "SELECT pods_ready_reason FROM workloads WHERE id = ?1 AND "
                              "state IN " GQ_SQL_ADMITTED;
    static const char upd[] =
        "UPDATE workloads SET pods_ready_reason = ?2, "
        "pods_ready_at = CASE WHEN ?4 THEN ?3 ELSE pods_ready_at END WHERE id = ?1";
    sqlite3_stmt *stmt = gq__store_stmt(st, sel, err);
    const char *next;
    bool was_true = false, flips;
    char *old = NULL;
    int rc;

    *changed = false;
    if (!stmt)
        return err ? err->code : GQ_EIO;
    sqlite3_bind_int64(stmt, 1, id);
    rc = sqlite3_step(stmt);
    if (rc == SQLITE_ROW && sqlite3_column_type(stmt, 0) != SQLITE_NULL &&
        !(old = strdup((const char *)sqlite3_column_text(stmt, 0)))) {
        sqlite3_reset(stmt);
        return gq__error(err, GQ_ENOMEM, "out of memory");
    }
    sqlite3_reset(stmt);
    if (rc != SQLITE_ROW) {
        free(old);
        return rc == SQLITE_DONE ? GQ_OK : gq__store_sqlerr(st, rc, err, "query");
    }
    next = pods_ready_next(old, ready);
    was_true = old && (strcmp(old, "Started") == 0 || strcmp(old, "Recovered") == 0);
    flips = !old || was_true != ready;
    *changed = !old || strcmp(old, next) != 0;
    free(old);
    if (!*changed)
        return GQ_OK;
    if (!(stmt = gq__store_stmt(st, upd, err)))
        return err ? err->code : GQ_EIO;
    sqlite3_bind_int64(stmt, 1, id);
    gq__bind_text(stmt, 2, next);
    sqlite3_bind_int64(stmt, 3, now_ms);
    sqlite3_bind_int(stmt, 4, flips);
    if ((rc = gq__store_step_done(st, stmt, err)) != GQ_OK || strcmp(next, "Started") != 0)
        return rc;
    return started_event(st, id, now_ms, err);
}

int gq__store_pods_ready_running(struct gq_store *st, gq_error *err)
{
    return gq__store_exec(st,
                          "UPDATE workloads SET pods_ready_reason = 'Started', "
                          "pods_ready_at = started_at WHERE state = " GQ_SQL_STATE(running)
                          " AND pods_ready_reason IS NULL",
                          err);
}

int gq__store_requeue_state(struct gq_store *st, int64_t id, int32_t count, int64_t queued_at,
                            gq_error *err)
{
    static const char upd[] =
        "UPDATE workloads SET requeue_count = ?2, queued_at = ?3 WHERE id = ?1";
    sqlite3_stmt *stmt = gq__store_stmt(st, upd, err);

    if (!stmt)
        return err ? err->code : GQ_EIO;
    sqlite3_bind_int64(stmt, 1, id);
    sqlite3_bind_int(stmt, 2, count);
    sqlite3_bind_int64(stmt, 3, queued_at);
    return gq__store_step_done(st, stmt, err);
}

int gq__store_pods_ready_due(struct gq_store *st, int64_t timeout_ms, int64_t recovery_ms,
                             int64_t *next, gq_error *err)
{
    static const char sql[] =
        "SELECT min(CASE WHEN pods_ready_reason = 'WaitForRecovery' "
        "THEN CASE WHEN ?2 > 0 THEN pods_ready_at + ?2 END ELSE admitted_at + ?1 END) "
        "FROM workloads WHERE state IN " GQ_SQL_ADMITTED " AND (pods_ready_reason IS NULL OR "
        "pods_ready_reason NOT IN ('Started', 'Recovered'))";
    sqlite3_stmt *stmt = gq__store_stmt(st, sql, err);
    int rc;

    *next = 0;
    if (!stmt)
        return err ? err->code : GQ_EIO;
    sqlite3_bind_int64(stmt, 1, timeout_ms);
    sqlite3_bind_int64(stmt, 2, recovery_ms);
    if ((rc = sqlite3_step(stmt)) == SQLITE_ROW)
        *next = sqlite3_column_int64(stmt, 0); /* 0 for NULL */
    sqlite3_reset(stmt);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? GQ_OK : gq__store_sqlerr(st, rc, err, "query");
}
