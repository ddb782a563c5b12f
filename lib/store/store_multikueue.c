/*
 * store_multikueue.c: the statements behind MultiKueue (store_multikueue.h,
 * schema/0018): the worker clusters' Active condition, each workload's
 * copies on the workers (the intent written before the create request, the
 * UID after it, the deletion), the winner (workloads.cluster_name) and the
 * check states the engine turns into admissions and evictions.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "state.h"
#include "store_int.h"
#include "store_multikueue.h"
#include "util.h"

/* ---------------------------------------------------------------- clusters */

struct clusters {
    gq__mk_cluster_fn fn;
    void *payload;
};

static int cluster_row(sqlite3_stmt *stmt, void *payload, gq_error *err)
{
    struct clusters *q = payload;
    struct gq_mk_cluster_row c = {
        gq__col_text(stmt, 0),
        gq__col_text(stmt, 1),
        sqlite3_column_type(stmt, 2) == SQLITE_NULL ? -1 : sqlite3_column_int(stmt, 2),
        gq__col_text(stmt, 3),
        gq__col_text(stmt, 4),
        sqlite3_column_int64(stmt, 5),
    };

    return q->fn(&c, q->payload, err);
}

int gq__store_mk_clusters(struct gq_store *st, gq__mk_cluster_fn fn, void *payload, gq_error *err)
{
    static const char sql[] = "SELECT name, spec, active, reason, message, "
                              "coalesce(inactive_since, 0) FROM multikueue_clusters ORDER BY name";
    struct clusters q = {fn, payload};
    struct gq__cursor c;
    int rc;

    if ((rc = gq__store_cursor_open(st, sql, &c, err)) != GQ_OK)
        return rc;
    return gq__store_each_row(st, &c, "multikueue_clusters:TTitti", false, 0, cluster_row, &q,
                              err);
}

int gq__store_mk_set_active(struct gq_store *st, const char *name, bool active,
                            const char *reason, const char *message, int64_t now_ms,
                            gq_error *err)
{
    static const char sql[] =
        "UPDATE multikueue_clusters SET "
        "transition_at = CASE WHEN active IS ?2 AND reason IS ?3 THEN transition_at ELSE ?5 END, "
        "inactive_since = CASE WHEN ?2 = 1 THEN NULL ELSE coalesce(inactive_since, ?5) END, "
        "active = ?2, reason = ?3, message = ?4 WHERE name = ?1";
    sqlite3_stmt *stmt = gq__store_stmt(st, sql, err);

    if (!stmt)
        return err ? err->code : GQ_EIO;
    gq__bind_text(stmt, 1, name);
    sqlite3_bind_int(stmt, 2, active ? 1 : 0);
    gq__bind_text(stmt, 3, reason);
    gq__bind_text(stmt, 4, message);
    sqlite3_bind_int64(stmt, 5, now_ms);
    return gq__store_step_done(st, stmt, err);
}

/* One text column of one row of sql (?1 bound to key, when given), malloc'd; NULL if none. */
static int one_text(struct gq_store *st, const char *sql, const char *key, char **out,
                    gq_error *err)
{
    sqlite3_stmt *stmt = gq__store_stmt(st, sql, err);
    int rc;

    *out = NULL;
    if (!stmt)
        return err ? err->code : GQ_EIO;
    if (key)
        gq__bind_text(stmt, 1, key);
    rc = sqlite3_step(stmt);
    if (rc == SQLITE_ROW && sqlite3_column_type(stmt, 0) != SQLITE_NULL &&
        !(*out = gq__strdup((const char *)sqlite3_column_text(stmt, 0)))) {
        sqlite3_reset(stmt);
        return gq__error(err, GQ_ENOMEM, "out of memory");
    }
    sqlite3_reset(stmt);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return gq__store_sqlerr(st, rc, err, "read");
    return GQ_OK;
}

int gq__store_mk_config_spec(struct gq_store *st, const char *name, char **out, gq_error *err)
{
    static const char sql[] = "SELECT spec FROM multikueue_configs WHERE name = ?1";

    return one_text(st, sql, name, out, err);
}

/* ------------------------------------------------------------- workloads */

struct rows {
    gq__mk_row_fn fn;
    void *payload;
};

static int mk_row(sqlite3_stmt *stmt, void *payload, gq_error *err)
{
    struct rows *q = payload;
    struct gq_mk_row r = {
        sqlite3_column_int64(stmt, 0), gq__col_text(stmt, 1),  gq__col_text(stmt, 2),
        gq__col_text(stmt, 3),         gq__col_text(stmt, 4),  gq__col_text(stmt, 5),
        gq__col_text(stmt, 6),         gq__col_text(stmt, 7),  gq__col_text(stmt, 8),
        gq__col_text(stmt, 9),         sqlite3_column_int64(stmt, 10), gq__col_text(stmt, 11),
        gq__col_text(stmt, 12),        sqlite3_column_int64(stmt, 13), gq__col_text(stmt, 14),
    };

    return q->fn(&r, q->payload, err);
}

int gq__store_mk_rows(struct gq_store *st, int64_t after, size_t max, gq__mk_row_fn fn,
                      void *payload, gq_error *err)
{
    static const char sql[] =
        "WITH ws AS (SELECT w.id, (SELECT c.name FROM workload_checks c JOIN admission_checks a "
        "ON a.name = c.name AND a.controller_name = '" GQ_MK_CONTROLLER "' WHERE c.workload_id = "
        "w.id ORDER BY c.name LIMIT 1) AS chk FROM workloads w WHERE w.id > ?2 AND ((w.state IN "
        GQ_SQL_HOLDS_QUOTA " AND EXISTS (SELECT 1 FROM workload_checks c JOIN admission_checks a "
        "ON a.name = c.name AND a.controller_name = '" GQ_MK_CONTROLLER "' WHERE c.workload_id = "
        "w.id)) OR EXISTS (SELECT 1 FROM multikueue_remotes r WHERE r.workload_id = w.id AND "
        "r.deleted_at IS NULL)) ORDER BY w.id LIMIT ?1) "
        "SELECT w.id, w.namespace, w.name, w.job_name, w.uid, w.state, ws.chk, "
        "(SELECT c.state FROM workload_checks c WHERE c.workload_id = w.id AND c.name = ws.chk), "
        "(SELECT a.spec ->> '$.spec.parameters.name' FROM admission_checks a WHERE a.name = "
        "ws.chk), w.cluster_name, w.evictions, r.cluster, r.uid, coalesce(r.evictions, 0), "
        "w.job_kind "
        "FROM ws JOIN workloads w ON w.id = ws.id LEFT JOIN multikueue_remotes r ON "
        "r.workload_id = w.id AND r.deleted_at IS NULL ORDER BY w.id, r.cluster";
    struct rows q = {fn, payload};
    struct gq__cursor c;
    int rc;

    if ((rc = gq__store_cursor_open(st, sql, &c, err)) != GQ_OK)
        return rc;
    sqlite3_bind_int64(c.stmt, 1, (sqlite3_int64)max);
    sqlite3_bind_int64(c.stmt, 2, after);
    return gq__store_each_row(st, &c, "workloads:#TTTTTttttIttIT", false, 0, mk_row, &q, err);
}

/* One statement on a copy's row: ?1 the workload, ?2 the cluster, ?3 text, ?4 a number. */
static int remote_step(struct gq_store *st, const char *sql, int64_t id, const char *cluster,
                       const char *text, int64_t num, gq_error *err)
{
    sqlite3_stmt *stmt = gq__store_stmt(st, sql, err);

    if (!stmt)
        return err ? err->code : GQ_EIO;
    sqlite3_bind_int64(stmt, 1, id);
    gq__bind_text(stmt, 2, cluster);
    gq__bind_text(stmt, 3, text);
    sqlite3_bind_int64(stmt, 4, num);
    return gq__store_step_done(st, stmt, err);
}

int gq__store_mk_remote_intent(struct gq_store *st, int64_t id, const char *cluster,
                               int64_t evictions, int64_t now_ms, gq_error *err)
{
    static const char sql[] =
        "INSERT INTO multikueue_remotes(workload_id, cluster, evictions, created_at) "
        "VALUES (?1, ?2, CAST(?3 AS INTEGER), ?4) ON CONFLICT(workload_id, cluster) DO UPDATE SET "
        "uid = NULL, evictions = excluded.evictions, created_at = excluded.created_at, "
        "deleted_at = NULL WHERE deleted_at IS NOT NULL";
    char n[24];

    snprintf(n, sizeof(n), "%lld", (long long)evictions);
    return remote_step(st, sql, id, cluster, n, now_ms, err);
}

int gq__store_mk_remote_created(struct gq_store *st, int64_t id, const char *cluster,
                                const char *uid, gq_error *err)
{
    static const char sql[] = "UPDATE multikueue_remotes SET uid = ?3 WHERE workload_id = ?1 "
                              "AND cluster = ?2 AND deleted_at IS NULL AND ?4 = 0";

    return remote_step(st, sql, id, cluster, uid, 0, err);
}

int gq__store_mk_remote_deleted(struct gq_store *st, int64_t id, const char *cluster,
                                int64_t now_ms, gq_error *err)
{
    static const char sql[] = "UPDATE multikueue_remotes SET deleted_at = ?4 WHERE workload_id = "
                              "?1 AND cluster = ?2 AND deleted_at IS NULL AND ?3 IS NULL";

    return remote_step(st, sql, id, cluster, NULL, now_ms, err);
}

static int set_winner(struct gq_store *st, int64_t id, const char *cluster, gq_error *err)
{
    static const char sql[] = "UPDATE workloads SET cluster_name = ?2 WHERE id = ?1";
    sqlite3_stmt *stmt = gq__store_stmt(st, sql, err);

    if (!stmt)
        return err ? err->code : GQ_EIO;
    sqlite3_bind_int64(stmt, 1, id);
    gq__bind_text(stmt, 2, cluster);
    return gq__store_step_done(st, stmt, err);
}

int gq__store_mk_won(struct gq_store *st, int64_t id, const char *check, const char *cluster,
                     int64_t now_ms, gq_error *err)
{
    char msg[320];
    int rc;

    snprintf(msg, sizeof(msg), "The workload was admitted on \"%s\"", cluster);
    if ((rc = set_winner(st, id, cluster, err)) != GQ_OK)
        return rc;
    return gq__store_set_check(st, id, check, "Ready", msg, now_ms, err);
}

int gq__store_mk_retry(struct gq_store *st, int64_t id, const char *check, const char *message,
                       int64_t now_ms, gq_error *err)
{
    int rc;

    if ((rc = set_winner(st, id, NULL, err)) != GQ_OK)
        return rc;
    return gq__store_set_check(st, id, check, "Retry", message, now_ms, err);
}

/* ------------------------------------------------------------ the engine */

struct moves {
    struct gq_mk_move *v;
    size_t max, *n;
};

static int move_row(sqlite3_stmt *stmt, void *payload, gq_error *err)
{
    struct moves *q = payload;
    struct gq_mk_move *m;

    if (*q->n >= q->max)
        return GQ_OK;
    m = &q->v[(*q->n)++];
    m->id = sqlite3_column_int64(stmt, 0);
    m->retry = sqlite3_column_int(stmt, 1) != 0;
    if (!(m->message = gq__strdup(gq__col_text(stmt, 2) ? gq__col_text(stmt, 2) : ""))) {
        (*q->n)--;
        return gq__error(err, GQ_ENOMEM, "out of memory");
    }
    return GQ_OK;
}

int gq__store_mk_moves(struct gq_store *st, struct gq_mk_move *out, size_t max, size_t *n,
                       gq_error *err)
{
    /* Reserved with every check Ready; or holding quota with a multikueue check in Retry. */
    /*
     * Run every cycle: driven by the few rows that can match (workloads with a
     * winner, through their partial index; the multikueue checks in Retry), not
     * by the workloads holding quota, which a large queue has many of.
     */
    static const char sql[] =
        "SELECT w.id, 0, NULL FROM workloads w INDEXED BY workloads_cluster_name "
        "WHERE w.cluster_name IS NOT NULL AND w.state = " GQ_SQL_STATE(reserved)
        " AND NOT EXISTS (SELECT 1 FROM workload_checks c "
        "WHERE c.workload_id = w.id AND c.state <> 'Ready') "
        "UNION ALL SELECT w.id, 1, c.message FROM admission_checks a CROSS JOIN workload_checks c "
        "ON a.name = c.name AND c.state = 'Retry' CROSS JOIN workloads w ON w.id = c.workload_id "
        "WHERE a.controller_name = '" GQ_MK_CONTROLLER "' AND w.state IN " GQ_SQL_HOLDS_QUOTA
        " ORDER BY 1";
    struct moves q = {out, max, n};
    struct gq__cursor c;
    int rc;

    *n = 0;
    if ((rc = gq__store_cursor_open(st, sql, &c, err)) != GQ_OK)
        return rc;
    return gq__store_each_row(st, &c, "workloads:#It", false, 0, move_row, &q, err);
}

/* ------------------------------------------------ the simulated workers */

void gq__store_mk_source_clear(struct gq_mk_source *s)
{
    free(s->job_kind);
    free(s->job_api_version);
    free(s->spec);
    memset(s, 0, sizeof(*s));
}

int gq__store_mk_source(struct gq_store *st, int64_t id, struct gq_mk_source *out, gq_error *err)
{
    static const char sql[] = "SELECT job_kind, job_api_version, spec, coalesce(duration_ms, -1) "
                              "FROM workloads WHERE id = ?1";
    sqlite3_stmt *stmt = gq__store_stmt(st, sql, err);
    bool oom = false;
    int rc;

    memset(out, 0, sizeof(*out));
    if (!stmt)
        return err ? err->code : GQ_EIO;
    sqlite3_bind_int64(stmt, 1, id);
    if ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        out->job_kind = gq__strdup(gq__col_text(stmt, 0));
        out->job_api_version = gq__strdup(gq__col_text(stmt, 1));
        out->spec = gq__strdup(gq__col_text(stmt, 2));
        out->duration_ms = sqlite3_column_int64(stmt, 3);
        oom = !out->job_kind || !out->spec || (gq__col_text(stmt, 1) && !out->job_api_version);
    }
    sqlite3_reset(stmt);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return gq__store_sqlerr(st, rc, err, "read");
    if (rc == SQLITE_DONE)
        return gq__error(err, GQ_ENOTFOUND, "no workload of id %lld", (long long)id);
    if (oom) {
        gq__store_mk_source_clear(out);
        return gq__error(err, GQ_ENOMEM, "out of memory");
    }
    return GQ_OK;
}

int gq__store_mk_copy_state(struct gq_store *st, const char *uid, const char *kind,
                            const char *ns, const char *job, bool *found, char **state,
                            char uid_out[GQ_MK_UID_SIZE], gq_error *err)
{
    static const char by_uid[] = "SELECT uid, state FROM workloads WHERE uid = ?1";
    static const char by_job[] = "SELECT uid, state FROM workloads WHERE job_kind = ?2 AND "
                                 "namespace = ?3 AND job_name = ?4 AND state <> "
                                 GQ_SQL_STATE(cancelled) " AND ?1 IS NULL";
    sqlite3_stmt *stmt = gq__store_stmt(st, uid ? by_uid : by_job, err);
    int rc;

    *found = false;
    *state = NULL;
    uid_out[0] = '\0';
    if (!stmt)
        return err ? err->code : GQ_EIO;
    gq__bind_text(stmt, 1, uid);
    if (!uid) {
        gq__bind_text(stmt, 2, kind);
        gq__bind_text(stmt, 3, ns);
        gq__bind_text(stmt, 4, job);
    }
    if ((rc = sqlite3_step(stmt)) == SQLITE_ROW && gq__col_text(stmt, 0) && gq__col_text(stmt, 1)) {
        *found = true;
        snprintf(uid_out, GQ_MK_UID_SIZE, "%s", gq__col_text(stmt, 0));
        *state = gq__strdup(gq__col_text(stmt, 1));
    }
    sqlite3_reset(stmt);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return gq__store_sqlerr(st, rc, err, "read");
    return *found && !*state ? gq__error(err, GQ_ENOMEM, "out of memory") : GQ_OK;
}

/* -------------------------------------------------------------- settings */

int gq__store_mk_settings(struct gq_store *st, char **out, gq_error *err)
{
    static const char sql[] = "SELECT spec -> '$.multiKueue' FROM configurations "
                              "WHERE spec -> '$.multiKueue' IS NOT NULL ORDER BY name LIMIT 1";

    return one_text(st, sql, NULL, out, err);
}

int gq__store_mk_sim_settings(struct gq_store *st, struct gq_mk_sim_settings *out,
                              gq_error *err)
{
    static const char sql[] =
        "SELECT spec ->> '$.multiKueue.origin', spec ->> '$.multiKueue.dispatcherName', "
        "coalesce(spec ->> '$.multiKueue.incrementalDispatcherConfig.stepSize', 0), "
        "spec ->> '$.multiKueue.workerLostTimeout' "
        "FROM configurations WHERE spec -> '$.multiKueue' IS NOT NULL ORDER BY name LIMIT 1";
    sqlite3_stmt *stmt = gq__store_stmt(st, sql, err);
    bool oom = false;
    int rc;

    memset(out, 0, sizeof(*out));
    if (!stmt)
        return err ? err->code : GQ_EIO;
    if ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        out->origin = gq__col_text(stmt, 0) ? gq__strdup(gq__col_text(stmt, 0)) : NULL;
        out->dispatcher = gq__col_text(stmt, 1) ? gq__strdup(gq__col_text(stmt, 1)) : NULL;
        out->step = sqlite3_column_int64(stmt, 2);
        out->lost_timeout = gq__col_text(stmt, 3) ? gq__strdup(gq__col_text(stmt, 3)) : NULL;
        oom = (gq__col_text(stmt, 0) && !out->origin) ||
              (gq__col_text(stmt, 1) && !out->dispatcher) ||
              (gq__col_text(stmt, 3) && !out->lost_timeout);
    }
    sqlite3_reset(stmt);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return gq__store_sqlerr(st, rc, err, "read");
    return oom ? gq__error(err, GQ_ENOMEM, "out of memory") : GQ_OK;
}
