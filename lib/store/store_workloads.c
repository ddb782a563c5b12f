/*
 * store_workloads.c: workload rows, their per-pod-set requests, the quota
 * they hold, and the state changes users make directly (cancel).
 *
 * Invariants:
 *  - a live workload (state <> 'cancelled') is unique by name and by job in
 *    its namespace (partial unique indexes in the schema);
 *  - `usage` rows exist exactly while a workload is reserved, admitted or
 *    running; every transition out of those states deletes them in the same
 *    transaction as the state change, and that change is a guarded UPDATE
 *    (`WHERE state IN (...)`), so quota is released exactly once;
 *  - every state change appends an event.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "quota.h"
#include "state.h"
#include "store_int.h"
#include "util.h"

static void totals(const struct gq_workload *wl, int64_t *pods, int64_t *gpus)
{
    size_t p, r;
    int64_t v;

    *pods = 0;
    *gpus = 0;
    for (p = 0; p < wl->npodsets; p++) {
        *pods += wl->podsets[p].count;
        for (r = 0; r < wl->podsets[p].nrequests; r++) {
            const struct gq_request *rq = &wl->podsets[p].requests[r];

            if (gq__gpu_resource(rq->resource) && gq_quantity_value(&v, &rq->per_pod) == GQ_OK)
                *gpus += v * wl->podsets[p].count;
        }
    }
}

/*
 * The podsets column (see the schema). Pod set and resource names are
 * validated DNS labels and qualified names, so none needs JSON escaping.
 */
/* The podset_counts column (schema/0014): "name:count,..." in pod-set order. */
static char *podset_counts(const struct gq_workload *wl)
{
    struct gq__str b = {NULL, 0, 0, false};
    size_t p;

    for (p = 0; p < wl->npodsets; p++)
        gq__str_printf(&b, "%s%s:%d", p ? "," : "", wl->podsets[p].name, (int)wl->podsets[p].count);
    if (b.failed || !b.p) {
        free(b.p);
        return NULL;
    }
    return b.p;
}

static char *podsets_json(const struct gq_workload *wl)
{
    struct gq__str b = {NULL, 0, 0, false};
    char text[GQ_QUANTITY_BUFSIZE];
    size_t p, r;
    int64_t v;

    gq__str_printf(&b, "[");
    for (p = 0; p < wl->npodsets; p++) {
        const struct gq_podset *ps = &wl->podsets[p];

        gq__str_printf(&b, "%s{\"name\":\"%s\",\"count\":%d,\"minCount\":", p ? "," : "", ps->name,
            (int)ps->count);
        if (ps->has_min_count)
            gq__str_printf(&b, "%d", (int)ps->min_count);
        else
            gq__str_printf(&b, "null");
        gq__str_printf(&b, ",\"requests\":{");
        for (r = 0; r < ps->nrequests; r++) {
            gq_quantity_format(text, sizeof(text), &ps->requests[r].per_pod);
            gq__str_printf(&b, "%s\"%s\":\"%s\"", r ? "," : "", ps->requests[r].resource, text);
        }
        gq__str_printf(&b, "},\"amounts\":{");
        for (r = 0; r < ps->nrequests; r++) {
            if (gq_quantity_resource_value(&v, ps->requests[r].resource,
                                           &ps->requests[r].per_pod) != GQ_OK)
                v = INT64_MAX; /* accounting saturates, as Kueue's does */
            gq__str_printf(&b, "%s\"%s\":%lld", r ? "," : "", ps->requests[r].resource, (long long)v);
        }
        gq__str_printf(&b, "}");
        if (ps->match_json)
            gq__str_printf(&b, ",\"match\":%s", ps->match_json);
        gq__str_printf(&b, "}");
    }
    gq__str_printf(&b, "]");
    if (b.failed) {
        free(b.p);
        return NULL;
    }
    return b.p;
}

/* Usage rows of an imported admission: resource totals per assigned flavor. */
static int insert_usage(struct gq_store *st, int64_t id, const struct gq_workload *wl,
                        gq_error *err)
{
    static const char sql[] =
        "INSERT INTO usage(workload_id, cluster_queue, flavor, resource, amount) "
        "VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT(workload_id, flavor, resource) "
        "DO UPDATE SET amount = amount + excluded.amount";
    const struct gq_podset_assignment *a;
    sqlite3_stmt *stmt;
    gq_quantity q;
    size_t i, j, k;
    int64_t v;
    int rc;

    for (i = 0; i < wl->nassignments; i++) {
        a = &wl->assignments[i];
        for (j = 0; j < a->usage.n; j++) {
            const char *flavor = NULL;

            for (k = 0; k < a->flavors.n; k++)
                if (strcmp(a->flavors.v[k].key, a->usage.v[j].key) == 0)
                    flavor = a->flavors.v[k].value;
            if (!flavor)
                continue; /* Kueue lists a flavor for every resource it accounts */
            if (gq_quantity_parse(&q, a->usage.v[j].value, strlen(a->usage.v[j].value), err) ||
                gq_quantity_resource_value(&v, a->usage.v[j].key, &q))
                return gq__error(err, GQ_EINVALID, "status.admission: bad usage \"%s\"",
                                 a->usage.v[j].value);
            if (!(stmt = gq__store_stmt(st, sql, err)))
                return err ? err->code : GQ_EIO;
            sqlite3_bind_int64(stmt, 1, id);
            gq__bind_text(stmt, 2, wl->admitted_cq);
            gq__bind_text(stmt, 3, flavor);
            gq__bind_text(stmt, 4, a->usage.v[j].key);
            sqlite3_bind_int64(stmt, 5, v);
            if ((rc = gq__store_step_done(st, stmt, err)) != GQ_OK)
                return rc;
        }
    }
    return GQ_OK;
}

/*
 * The name of a live workload clashing with w by name or by job, or NULL.
 * Two exact lookups, one per partial unique index: an OR of the two would
 * make SQLite scan the namespace, which turns a bulk submit quadratic.
 */
static char *clash(struct gq_store *st, const struct gq_wl_write *w, gq_error *err)
{
    static const char by_name[] = "SELECT name FROM workloads WHERE namespace = ?1 AND "
                                  "name = ?2 AND state <> " GQ_SQL_STATE(cancelled);
    static const char by_job[] = "SELECT name FROM workloads WHERE namespace = ?1 AND "
                                 "job_kind = ?3 AND job_name = ?4 AND state <> "
                                 GQ_SQL_STATE(cancelled);
    const char *const sqls[] = {by_name, by_job};
    sqlite3_stmt *stmt;
    char *name = NULL;
    size_t i;

    for (i = 0; i < 2 && !name; i++) {
        if (!(stmt = gq__store_stmt(st, sqls[i], err)))
            return NULL;
        gq__bind_text(stmt, 1, w->obj->meta.namespace);
        gq__bind_text(stmt, 2, w->name);
        gq__bind_text(stmt, 3, w->obj->u.wl.job_kind);
        gq__bind_text(stmt, 4, w->obj->u.wl.job_name);
        if (sqlite3_step(stmt) == SQLITE_ROW)
            name = gq__strdup((const char *)sqlite3_column_text(stmt, 0));
        sqlite3_reset(stmt);
    }
    return name;
}

static int bind_workload(sqlite3_stmt *stmt, const struct gq_wl_write *w, enum gq_wl_state state,
                         const char *podsets)
{
    const struct gq_workload *wl = &w->obj->u.wl;
    int64_t pods, gpus, queued = w->obj->meta.created_ms ? w->obj->meta.created_ms : w->now_ms;
    bool admitted = state == GQ_WL_ADMITTED, finished = state == GQ_WL_FINISHED;

    totals(wl, &pods, &gpus);
    gq__bind_text(stmt, 1, w->uid);
    gq__bind_text(stmt, 2, w->obj->meta.namespace);
    gq__bind_text(stmt, 3, w->name);
    gq__bind_text(stmt, 4, wl->job_kind);
    gq__bind_text(stmt, 5, wl->job_name);
    gq__bind_text(stmt, 6, wl->queue);
    gq__bind_text(stmt, 7, admitted || finished ? wl->admitted_cq : NULL);
    gq__bind_text(stmt, 8, wl->priority_class);
    sqlite3_bind_int64(stmt, 9, w->priority);
    sqlite3_bind_int(stmt, 10, wl->active ? 1 : 0);
    gq__bind_text(stmt, 11, w->state);
    gq__bind_text(stmt, 12, w->reason);
    gq__bind_text(stmt, 13, w->message);
    sqlite3_bind_int64(stmt, 14, pods);
    sqlite3_bind_int64(stmt, 15, gpus);
    gq__bind_text(stmt, 16, w->spec);
    gq__bind_text(stmt, 17, w->admission);
    sqlite3_bind_int64(stmt, 18, queued);
    sqlite3_bind_int64(stmt, 19, w->now_ms);
    /*
     * An imported admission keeps its conditions' times (Kueue orders
     * preemption victims by the reservation's); without them, now.
     */
    if (admitted || finished) {
        int64_t reserved = wl->reserved_ms ? wl->reserved_ms : w->now_ms;

        sqlite3_bind_int64(stmt, 24, reserved);
        sqlite3_bind_int64(stmt, 20, wl->admitted_ms ? wl->admitted_ms : reserved);
    }
    if (finished)
        sqlite3_bind_int64(stmt, 21, w->now_ms);
    gq__bind_text(stmt, 22, podsets);
    if (wl->has_duration)
        sqlite3_bind_int64(stmt, 23, wl->duration_ms);
    gq__bind_text(stmt, 25, wl->job_api_version);
    gq__bind_text(stmt, 27, wl->inadmissible);
    return sqlite3_bind_text(stmt, 26, podset_counts(wl), -1, free) == SQLITE_OK
               ? GQ_OK
               : GQ_ENOMEM;
}

int gq__store_insert_workload(struct gq_store *st, const struct gq_wl_write *w, gq_error *err)
{
    static const char sql[] =
        "INSERT INTO workloads(uid, namespace, name, job_kind, job_name, local_queue, "
        "cluster_queue, priority_class, priority, active, state, reason, message, pods, gpus, "
        "spec, admission, queued_at, created_at, updated_at, admitted_at, finished_at, podsets, "
        "duration_ms, reserved_at, job_api_version, podset_counts, inadmissible) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, "
        "?18, ?19, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27)";
    sqlite3_stmt *stmt;
    char *other, *podsets;
    enum gq_wl_state state;
    int64_t id;
    int rc;

    if (!gq__wl_state_parse(w->state, &state))
        state = GQ_WL_NSTATES; /* the column's CHECK refuses it below */
    if ((other = clash(st, w, err)) != NULL) {
        rc = gq__error(err, GQ_EEXISTS, "%s \"%s/%s\" already exists (workload %s)",
                       strcmp(w->obj->u.wl.job_kind, "Job") == 0 ? "job" : "workload",
                       w->obj->meta.namespace, w->obj->u.wl.job_name, other);
        free(other);
        return rc;
    }
    if (!(podsets = podsets_json(&w->obj->u.wl)))
        return gq__error(err, GQ_ENOMEM, "out of memory");
    if (!(stmt = gq__store_stmt(st, sql, err))) {
        free(podsets);
        return err ? err->code : GQ_EIO;
    }
    if (bind_workload(stmt, w, state, podsets) != GQ_OK) {
        sqlite3_reset(stmt);
        free(podsets);
        return gq__error(err, GQ_ENOMEM, "out of memory");
    }
    rc = gq__store_step_done(st, stmt, err);
    free(podsets);
    if (rc != GQ_OK)
        return rc;
    id = sqlite3_last_insert_rowid(st->db);
    if (state == GQ_WL_ADMITTED && (rc = insert_usage(st, id, &w->obj->u.wl, err)))
        return rc;
    return gq__store_event(st, "Workload", w->obj->meta.namespace, w->name, w->uid, "Normal",
                           state == GQ_WL_PENDING ? "Submitted" : "Imported", w->message, NULL,
                           w->state, w->now_ms, err);
}

/* The live workload named name (workload or job name) in ns: id, name, state, uid. */
struct live {
    int64_t id;
    char *name;
    char *state;             /* the text, which callers are handed */
    enum gq_wl_state parsed; /* GQ_WL_NSTATES: text outside state.h's table */
    char *uid;
    char *spec;
};

static void live_free(struct live *l)
{
    free(l->name);
    free(l->state);
    free(l->uid);
    free(l->spec);
}

/* Read the current row of a find_live statement into out. */
static int read_live(struct gq_store *st, sqlite3_stmt *stmt, struct live *out, gq_error *err)
{
    /* A NULL would otherwise read as a failed copy: "out of memory". */
    if (gq__store_row_check(st, stmt, "workloads:#TTTT", false, err) != GQ_OK)
        return GQ_EIO;
    out->id = sqlite3_column_int64(stmt, 0);
    out->name = gq__strdup((const char *)sqlite3_column_text(stmt, 1));
    out->state = gq__strdup((const char *)sqlite3_column_text(stmt, 2));
    if (!gq__wl_state_parse(out->state, &out->parsed))
        out->parsed = GQ_WL_NSTATES;
    out->uid = gq__strdup((const char *)sqlite3_column_text(stmt, 3));
    out->spec = gq__strdup((const char *)sqlite3_column_text(stmt, 4));
    if (!out->name || !out->state || !out->uid || !out->spec)
        return gq__error(err, GQ_ENOMEM, "out of memory");
    return GQ_OK;
}

/*
 * The live workload called name in ns: by workload name first (unless
 * job_only), then by job name (of job_kind, when given). Exact lookups on the partial unique
 * indexes, so that finding one workload costs the same among a million.
 */
static int find_live(struct gq_store *st, const char *ns, const char *name, const char *job_kind,
                     bool job_only, struct live *out, gq_error *err)
{
    static const char by_name[] = "SELECT id, name, state, uid, spec FROM workloads "
                                  "WHERE namespace = ?1 AND name = ?2 AND state <> "
                                  GQ_SQL_STATE(cancelled);
    static const char by_job[] = "SELECT id, name, state, uid, spec FROM workloads "
                                 "WHERE namespace = ?1 AND job_kind = ?3 AND job_name = ?2 "
                                 "AND state <> " GQ_SQL_STATE(cancelled);
    static const char by_any_job[] = "SELECT id, name, state, uid, spec FROM workloads "
                                     "WHERE namespace = ?1 AND job_name = ?2 "
                                     "AND state <> " GQ_SQL_STATE(cancelled)
                                     " ORDER BY job_kind = 'Job' DESC";
    const char *const sqls[] = {by_name, job_kind ? by_job : by_any_job};
    sqlite3_stmt *stmt;
    size_t i;
    int rc;

    memset(out, 0, sizeof(*out));
    for (i = job_only ? 1 : 0; i < 2; i++) {
        if (!(stmt = gq__store_stmt(st, sqls[i], err)))
            return err ? err->code : GQ_EIO;
        gq__bind_text(stmt, 1, ns);
        gq__bind_text(stmt, 2, name);
        if (i == 1 && job_kind)
            gq__bind_text(stmt, 3, job_kind);
        rc = sqlite3_step(stmt);
        if (rc == SQLITE_ROW)
            rc = read_live(st, stmt, out, err);
        else if (rc == SQLITE_DONE)
            rc = GQ_ENOTFOUND;
        else
            rc = gq__store_sqlerr(st, rc, err, "read");
        sqlite3_reset(stmt);
        if (rc != GQ_ENOTFOUND)
            return rc;
    }
    return gq__error(err, GQ_ENOTFOUND, "workload \"%s\" not found in namespace \"%s\"", name,
                     ns);
}

int gq__store_find_job(struct gq_store *st, const char *kind, const char *ns,
                       const char *job_name, char **name_out, char **spec_out, gq_error *err)
{
    struct live l;
    int rc = find_live(st, ns, job_name, kind, true, &l, err);

    if (rc == GQ_OK) {
        if (name_out) {
            *name_out = l.name;
            l.name = NULL;
        }
        if (spec_out) {
            *spec_out = l.spec;
            l.spec = NULL;
        }
    }
    live_free(&l);
    return rc;
}

int gq__store_update_workload(struct gq_store *st, const struct gq_wl_write *w,
                              enum gq_put_result *result, gq_error *err)
{
    static const char upd_sql[] =
        "UPDATE workloads SET local_queue = ?2, priority_class = ?3, priority = ?4, "
        "active = ?5, reason = ?6, message = ?7, pods = ?8, gpus = ?9, spec = ?10, "
        "updated_at = ?11, podsets = ?12, duration_ms = ?13, podset_counts = ?14, "
        "inadmissible = ?15 WHERE id = ?1 AND state = "
        GQ_SQL_STATE(pending);
    const struct gq_workload *wl = &w->obj->u.wl;
    sqlite3_stmt *stmt;
    int64_t pods, gpus;
    char *podsets = NULL;
    struct live l;
    int rc;

    if ((rc = find_live(st, w->obj->meta.namespace, wl->job_name, wl->job_kind, true, &l, err)))
        return rc;
    if (strcmp(l.spec, w->spec) == 0) {
        *result = GQ_PUT_UNCHANGED;
        goto out;
    }
    if (l.parsed != GQ_WL_PENDING) {
        rc = gq__error(err, GQ_ECONFLICT,
                       "workload \"%s\" is %s: its pod sets can no longer change", l.name,
                       l.state);
        goto out;
    }
    totals(wl, &pods, &gpus);
    if (!(podsets = podsets_json(wl))) {
        rc = gq__error(err, GQ_ENOMEM, "out of memory");
        goto out;
    }
    if (!(stmt = gq__store_stmt(st, upd_sql, err))) {
        rc = err ? err->code : GQ_EIO;
        goto out;
    }
    sqlite3_bind_int64(stmt, 1, l.id);
    gq__bind_text(stmt, 2, wl->queue);
    gq__bind_text(stmt, 3, wl->priority_class);
    sqlite3_bind_int64(stmt, 4, w->priority);
    sqlite3_bind_int(stmt, 5, wl->active ? 1 : 0);
    gq__bind_text(stmt, 6, w->reason);
    gq__bind_text(stmt, 7, w->message);
    sqlite3_bind_int64(stmt, 8, pods);
    sqlite3_bind_int64(stmt, 9, gpus);
    gq__bind_text(stmt, 10, w->spec);
    sqlite3_bind_int64(stmt, 11, w->now_ms);
    gq__bind_text(stmt, 12, podsets);
    if (wl->has_duration)
        sqlite3_bind_int64(stmt, 13, wl->duration_ms);
    gq__bind_text(stmt, 15, wl->inadmissible);
    if (sqlite3_bind_text(stmt, 14, podset_counts(wl), -1, free) != SQLITE_OK) {
        sqlite3_reset(stmt);
        rc = gq__error(err, GQ_ENOMEM, "out of memory");
        goto out;
    }
    if ((rc = gq__store_step_done(st, stmt, err)) == GQ_OK)
        rc = gq__store_event(st, "Workload", w->obj->meta.namespace, l.name, l.uid, "Normal",
                             "Configured", NULL, NULL, NULL, w->now_ms, err);
    *result = GQ_PUT_CONFIGURED;
out:
    free(podsets);
    live_free(&l);
    return rc;
}

/*
 * Find the live workload ns/name and move it with upd (?1 id, ?2 now), a
 * guarded UPDATE; GQ_ECONFLICT, without a message, when the guard let
 * nothing through (the caller says why, with l's name and state).
 */
#define MOVE_REFUSED 1

static int find_and_move(struct gq_store *st, const char *ns, const char *name,
                         const char *upd, int64_t now_ms, struct live *l, gq_error *err)
{
    sqlite3_stmt *stmt;
    int rc;

    if ((rc = find_live(st, ns, name, NULL, false, l, err)) != GQ_OK)
        return rc;
    if (!(stmt = gq__store_stmt(st, upd, err)))
        return err ? err->code : GQ_EIO;
    sqlite3_bind_int64(stmt, 1, l->id);
    sqlite3_bind_int64(stmt, 2, now_ms);
    if ((rc = gq__store_step_done(st, stmt, err)) != GQ_OK)
        return rc;
    return sqlite3_changes(st->db) == 0 ? MOVE_REFUSED : GQ_OK;
}

int gq__store_cancel_workload(struct gq_store *st, const char *ns, const char *name,
                              int64_t now_ms, char **name_out, char **from_state, gq_error *err)
{
    static const char upd_sql[] = "UPDATE workloads SET state = " GQ_SQL_STATE(cancelled) ", "
                                  "reason = NULL, "
                                  "message = NULL, updated_at = ?2, finished_at = ?2 "
                                  "WHERE id = ?1 AND state IN " GQ_SQL_CANCELLABLE;
    static const char usage_sql[] = "DELETE FROM usage WHERE workload_id = ?1";
    sqlite3_stmt *stmt;
    struct live l;
    int rc;

    memset(&l, 0, sizeof(l));
    if ((rc = find_and_move(st, ns, name, upd_sql, now_ms, &l, err)) == MOVE_REFUSED)
        rc = gq__error(err, GQ_ECONFLICT, "workload \"%s\" has already %s", l.name, l.state);
    if (rc != GQ_OK)
        goto out;
    /* Only the transition above releases quota, so it is released once. */
    if (!(stmt = gq__store_stmt(st, usage_sql, err))) {
        rc = err ? err->code : GQ_EIO;
        goto out;
    }
    sqlite3_bind_int64(stmt, 1, l.id);
    if ((rc = gq__store_step_done(st, stmt, err)) != GQ_OK ||
        (rc = gq__store_release_checks(st, l.id, GQ_CHECKS_DROP, now_ms, err)) != GQ_OK)
        goto out;
    rc = gq__store_event(st, "Workload", ns, l.name, l.uid, "Normal", "Cancelled",
                         "cancelled by the user", l.state, gq__wl_state_name(GQ_WL_CANCELLED),
                         now_ms, err);
    if (rc == GQ_OK) {
        *name_out = l.name;
        *from_state = l.state;
        l.name = l.state = NULL;
    }
out:
    live_free(&l);
    return rc;
}

int gq__store_stop_workload(struct gq_store *st, const char *ns, const char *name,
                            int64_t now_ms, char **name_out, gq_error *err)
{
    static const char upd[] =
        "UPDATE workloads SET state = " GQ_SQL_STATE(deactivated) ", active = 0, "
        "reason = 'Deactivated', message = 'The workload is deactivated', requeue_at = NULL, "
        "updated_at = ?2 WHERE id = ?1 AND state = " GQ_SQL_STATE(pending);
    struct live l;
    int rc;

    memset(&l, 0, sizeof(l));
    rc = find_and_move(st, ns, name, upd, now_ms, &l, err);
    /* Holding quota: Kueue evicts it (reason Deactivated), its checks reset, its requests go. */
    if (rc == MOVE_REFUSED && l.parsed != GQ_WL_NSTATES && gq__wl_holds_quota(l.parsed))
        rc = gq__store_deactivate(st, l.id, "Deactivated", "The workload is deactivated",
                                  now_ms, err);
    else if (rc == MOVE_REFUSED)
        rc = gq__error(err, GQ_ECONFLICT, "workload \"%s\" is %s: only a pending or admitted "
                       "workload can be stopped", l.name, l.state);
    if (rc == GQ_OK)
        rc = gq__store_event(st, "Workload", ns, l.name, l.uid, "Normal", "Deactivated",
                             "stopped by the user (spec.active: false)", l.state,
                             gq__wl_state_name(GQ_WL_DEACTIVATED), now_ms, err);
    if (rc == GQ_OK) {
        *name_out = l.name;
        l.name = NULL;
    }
    live_free(&l);
    return rc;
}

int gq__store_reactivate_workload(struct gq_store *st, const char *ns, const char *name,
                                  int64_t now_ms, char **name_out, gq_error *err)
{
    static const char upd[] =
        "UPDATE workloads SET state = " GQ_SQL_STATE(pending) ", active = 1, "
        "reason = 'Reactivated', "
        "message = 'The workload was reactivated', requeue_at = NULL, updated_at = ?2 "
        "WHERE id = ?1 AND state = " GQ_SQL_STATE(deactivated);
    struct live l;
    int rc;

    memset(&l, 0, sizeof(l));
    if ((rc = find_and_move(st, ns, name, upd, now_ms, &l, err)) == MOVE_REFUSED)
        rc = gq__error(err, GQ_ECONFLICT, "workload \"%s\" is %s, not deactivated", l.name,
                       l.state);
    if (rc != GQ_OK)
        goto out;
    /* A fresh start: Kueue clears requeueState; the check history goes with it. */
    if ((rc = gq__store_release_checks(st, l.id, GQ_CHECKS_DROP, now_ms, err)) == GQ_OK)
        rc = gq__store_event(st, "Workload", ns, l.name, l.uid, "Normal", "Reactivated",
                             "reactivated by the user", gq__wl_state_name(GQ_WL_DEACTIVATED),
                             gq__wl_state_name(GQ_WL_PENDING), now_ms, err);
    if (rc == GQ_OK) {
        *name_out = l.name;
        l.name = NULL;
    }
out:
    live_free(&l);
    return rc;
}

/* ------------------------------------------------- requests adjusted anew */

struct pending_walk {
    gq__pending_spec_fn fn;
    void *payload;
};

static int pending_row(sqlite3_stmt *stmt, void *payload, gq_error *err)
{
    struct pending_walk *w = payload;

    (void)err;
    return w->fn(sqlite3_column_int64(stmt, 0), gq__col_text(stmt, 1), w->payload);
}

int gq__store_pending_specs(struct gq_store *st, const char *ns, gq__pending_spec_fn fn,
                            void *payload, gq_error *err)
{
    static const char sql[] = "SELECT id, spec FROM workloads WHERE state = "
                              GQ_SQL_STATE(pending) " AND (?1 IS NULL OR namespace = ?1) "
                              "ORDER BY id";
    struct pending_walk w = {fn, payload};
    struct gq__cursor c;
    int rc;

    if ((rc = gq__store_cursor_open(st, sql, &c, err)) != GQ_OK)
        return rc;
    gq__bind_text(c.stmt, 1, ns);
    return gq__store_each_row(st, &c, "workloads:IT", false, 0, pending_row, &w, err);
}

int gq__store_set_requests(struct gq_store *st, int64_t id, const struct gq_workload *wl,
                           bool *changed, gq_error *err)
{
    static const char sql[] =
        "UPDATE workloads SET podsets = ?2, pods = ?3, gpus = ?4, inadmissible = ?5 "
        "WHERE id = ?1 AND state = " GQ_SQL_STATE(pending) " "
        "AND (podsets IS NOT ?2 OR inadmissible IS NOT ?5)";
    sqlite3_stmt *stmt;
    char *podsets = podsets_json(wl);
    int64_t pods, gpus;
    int rc;

    *changed = false;
    if (!podsets)
        return gq__error(err, GQ_ENOMEM, "out of memory");
    if (!(stmt = gq__store_stmt(st, sql, err))) {
        free(podsets);
        return err ? err->code : GQ_EIO;
    }
    totals(wl, &pods, &gpus);
    sqlite3_bind_int64(stmt, 1, id);
    gq__bind_text(stmt, 2, podsets);
    sqlite3_bind_int64(stmt, 3, pods);
    sqlite3_bind_int64(stmt, 4, gpus);
    gq__bind_text(stmt, 5, wl->inadmissible);
    rc = gq__store_step_done(st, stmt, err);
    *changed = rc == GQ_OK && sqlite3_changes(st->db) > 0;
    free(podsets);
    return rc;
}
