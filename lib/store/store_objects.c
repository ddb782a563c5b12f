/*
 * store_objects.c: queue objects (every kind but workloads) in their tables.
 *
 * Each kind has one table with the same core columns (name, uid, spec,
 * created_at, updated_at; namespace for LocalQueue) plus a few columns that
 * queries use. One table of statements per kind drives the generic put, get
 * and delete below, so adding a kind is adding a row. ClusterQueues and
 * Cohorts also own rows in `quotas`, rewritten whenever their spec changes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "os.h"
#include "store_int.h"
#include "util.h"

/* An extra column value: text, integer, or NULL (both unset). */
struct xval {
    const char *text;
    bool is_int;
    int64_t i;
};

#define MAX_EXTRA 3

struct kind_table {
    enum gq_kind kind;
    const char *select_sql; /* ?1 name, ?2 namespace -> uid, spec */
    const char *insert_sql; /* ?1 name ?2 ns ?3 uid ?4 spec ?5 now, ?6.. extras */
    const char *update_sql; /* ?1 name ?2 ns ?4 spec ?5 now, ?6.. extras */
    const char *delete_sql; /* ?1 name ?2 ns */
    int nextra;
};

/*
 * Cluster-scoped kinds leave parameter ?2 (the namespace) unused; SQLite still
 * accepts a binding for it because higher-numbered parameters exist.
 */
#define CLUSTER_SCOPED_SQL(table, cols, vals, sets)                                                \
    "SELECT uid, spec FROM " table " WHERE name = ?1",                                             \
        "INSERT INTO " table "(name, uid, spec, created_at, updated_at" cols                       \
        ") VALUES (?1, ?3, ?4, ?5, ?5" vals ")",                                                   \
        "UPDATE " table " SET spec = ?4, updated_at = ?5" sets " WHERE name = ?1",                 \
        "DELETE FROM " table " WHERE name = ?1"

static const struct kind_table tables[] = {
    {GQ_KIND_NAMESPACE, CLUSTER_SCOPED_SQL("namespaces", "", "", ""), 0},
    {GQ_KIND_RESOURCE_FLAVOR, CLUSTER_SCOPED_SQL("resource_flavors", "", "", ""), 0},
    {GQ_KIND_COHORT, CLUSTER_SCOPED_SQL("cohorts", ", parent", ", ?6", ", parent = ?6"), 1},
    {GQ_KIND_CLUSTER_QUEUE,
     CLUSTER_SCOPED_SQL("cluster_queues", ", cohort, strategy, stop_policy", ", ?6, ?7, ?8",
                        ", cohort = ?6, strategy = ?7, stop_policy = ?8"),
     3},
    {GQ_KIND_LOCAL_QUEUE, "SELECT uid, spec FROM local_queues WHERE name = ?1 AND namespace = ?2",
     "INSERT INTO local_queues(name, namespace, uid, spec, created_at, updated_at, "
     "cluster_queue, stop_policy) VALUES (?1, ?2, ?3, ?4, ?5, ?5, ?6, ?7)",
     "UPDATE local_queues SET spec = ?4, updated_at = ?5, cluster_queue = ?6, stop_policy = ?7 "
     "WHERE name = ?1 AND namespace = ?2",
     "DELETE FROM local_queues WHERE name = ?1 AND namespace = ?2", 2},
    {GQ_KIND_PRIORITY_CLASS,
     CLUSTER_SCOPED_SQL("priority_classes", ", value", ", ?6", ", value = ?6"), 1},
    {GQ_KIND_ADMISSION_CHECK,
     CLUSTER_SCOPED_SQL("admission_checks", ", controller_name", ", ?6", ", controller_name = ?6"),
     1},
    {GQ_KIND_PROVISIONING_CONFIG, CLUSTER_SCOPED_SQL("provisioning_configs", "", "", ""), 0},
    {GQ_KIND_CONFIGURATION, CLUSTER_SCOPED_SQL("configurations", "", "", ""), 0},
    {GQ_KIND_NODE_POOL, CLUSTER_SCOPED_SQL("node_pools", "", "", ""), 0},
    {GQ_KIND_INTEGRATION, CLUSTER_SCOPED_SQL("integrations", "", "", ""), 0},
    {GQ_KIND_TRAINING_RUNTIME, CLUSTER_SCOPED_SQL("training_runtimes", "", "", ""), 0},
    {GQ_KIND_LIMIT_RANGE, "SELECT uid, spec FROM limit_ranges WHERE name = ?1 AND namespace = ?2",
     "INSERT INTO limit_ranges(name, namespace, uid, spec, created_at, updated_at) "
     "VALUES (?1, ?2, ?3, ?4, ?5, ?5)",
     "UPDATE limit_ranges SET spec = ?4, updated_at = ?5 WHERE name = ?1 AND namespace = ?2",
     "DELETE FROM limit_ranges WHERE name = ?1 AND namespace = ?2", 0},
    {GQ_KIND_RUNTIME_CLASS, CLUSTER_SCOPED_SQL("runtime_classes", "", "", ""), 0},
    {GQ_KIND_MK_CLUSTER, CLUSTER_SCOPED_SQL("multikueue_clusters", "", "", ""), 0},
    {GQ_KIND_MK_CONFIG, CLUSTER_SCOPED_SQL("multikueue_configs", "", "", ""), 0},
};

static const struct kind_table *table_for(enum gq_kind kind)
{
    size_t i;

    for (i = 0; i < sizeof(tables) / sizeof(tables[0]); i++)
        if (tables[i].kind == kind)
            return &tables[i];
    return NULL;
}

static void extras(const struct gq_object *obj, struct xval *x)
{
    memset(x, 0, sizeof(*x) * MAX_EXTRA);
    switch (obj->kind) {
    case GQ_KIND_COHORT:
        x[0].text = obj->u.cohort.parent;
        break;
    case GQ_KIND_CLUSTER_QUEUE:
        x[0].text = obj->u.cq.cohort;
        x[1].text = obj->u.cq.queueing_strategy;
        x[2].text = obj->u.cq.stop_policy;
        break;
    case GQ_KIND_LOCAL_QUEUE:
        x[0].text = obj->u.lq.cluster_queue;
        x[1].text = obj->u.lq.stop_policy;
        break;
    case GQ_KIND_PRIORITY_CLASS:
        x[0].is_int = true;
        x[0].i = obj->u.wpc.value;
        break;
    case GQ_KIND_ADMISSION_CHECK:
        x[0].text = obj->u.ac.controller_name;
        break;
    default:
        break;
    }
}

static void bind_key(sqlite3_stmt *stmt, const struct kind_table *t, const char *ns,
                     const char *name)
{
    gq__bind_text(stmt, 1, name);
    gq__bind_text(stmt, 2, gq__kind_is_namespaced(t->kind) ? ns : NULL);
}

/* ----------------------------------------------------------------- quotas */

static int put_quota_row(struct gq_store *st, sqlite3_stmt *stmt, const struct gq_object *obj,
                         size_t g, size_t f, const struct gq_resource_quota *q, gq_error *err)
{
    const struct gq_resource_group *groups =
        obj->kind == GQ_KIND_COHORT ? obj->u.cohort.groups : obj->u.cq.groups;
    char text[GQ_QUANTITY_BUFSIZE];
    int64_t v;

    gq__bind_text(stmt, 1, gq__kind_name(obj->kind));
    gq__bind_text(stmt, 2, obj->meta.name);
    sqlite3_bind_int64(stmt, 3, (int64_t)g);
    sqlite3_bind_int64(stmt, 4, (int64_t)f);
    gq__bind_text(stmt, 5, groups[g].flavors[f].name);
    gq__bind_text(stmt, 6, q->name);
    if (gq_quantity_resource_value(&v, q->name, &q->nominal) != GQ_OK)
        v = INT64_MAX; /* accounting saturates, as Kueue's SafeMilliValue does */
    sqlite3_bind_int64(stmt, 7, v);
    gq_quantity_format(text, sizeof(text), &q->nominal);
    sqlite3_bind_text(stmt, 8, text, -1, SQLITE_TRANSIENT);
    if (q->has_borrowing_limit) {
        if (gq_quantity_resource_value(&v, q->name, &q->borrowing_limit) != GQ_OK)
            v = INT64_MAX;
        sqlite3_bind_int64(stmt, 9, v);
    }
    if (q->has_lending_limit) {
        if (gq_quantity_resource_value(&v, q->name, &q->lending_limit) != GQ_OK)
            v = INT64_MAX;
        sqlite3_bind_int64(stmt, 10, v);
    }
    return gq__store_step_done(st, stmt, err);
}

static int put_quotas(struct gq_store *st, const struct gq_object *obj, gq_error *err)
{
    static const char del_sql[] = "DELETE FROM quotas WHERE owner_kind = ?1 AND owner = ?2";
    static const char ins_sql[] =
        "INSERT INTO quotas(owner_kind, owner, group_index, flavor_index, flavor, resource, "
        "nominal, nominal_text, borrowing_limit, lending_limit) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)";
    const struct gq_resource_group *groups;
    size_t ngroups, g, f, r;
    sqlite3_stmt *stmt;
    int rc;

    if (obj->kind != GQ_KIND_CLUSTER_QUEUE && obj->kind != GQ_KIND_COHORT)
        return GQ_OK;
    groups = obj->kind == GQ_KIND_COHORT ? obj->u.cohort.groups : obj->u.cq.groups;
    ngroups = obj->kind == GQ_KIND_COHORT ? obj->u.cohort.ngroups : obj->u.cq.ngroups;
    if (!(stmt = gq__store_stmt(st, del_sql, err)))
        return err ? err->code : GQ_EIO;
    gq__bind_text(stmt, 1, gq__kind_name(obj->kind));
    gq__bind_text(stmt, 2, obj->meta.name);
    if ((rc = gq__store_step_done(st, stmt, err)) != GQ_OK)
        return rc;
    for (g = 0; g < ngroups; g++) {
        for (f = 0; f < groups[g].nflavors; f++) {
            for (r = 0; r < groups[g].flavors[f].nresources; r++) {
                if (!(stmt = gq__store_stmt(st, ins_sql, err)))
                    return err ? err->code : GQ_EIO;
                rc = put_quota_row(st, stmt, obj, g, f, &groups[g].flavors[f].resources[r], err);
                if (rc != GQ_OK)
                    return rc;
            }
        }
    }
    return GQ_OK;
}

/* ---------------------------------------------------------------- objects */

/* The current row of stmt against letters, its rows named for kind in messages. */
static int row_check(struct gq_store *st, sqlite3_stmt *stmt, enum gq_kind kind,
                     const char *letters, gq_error *err)
{
    char shape[80];

    snprintf(shape, sizeof(shape), "%s:%s", gq__kind_resource(kind), letters);
    return gq__store_row_check(st, stmt, shape, false, err);
}

/* The stored uid and spec of an object: 1 found, 0 absent, <0 error. */
static int lookup(struct gq_store *st, const struct kind_table *t, const char *ns,
                  const char *name, char **uid, char **spec, gq_error *err)
{
    sqlite3_stmt *stmt = gq__store_stmt(st, t->select_sql, err);
    int rc;

    if (!stmt)
        return err ? err->code : GQ_EIO;
    bind_key(stmt, t, ns, name);
    rc = sqlite3_step(stmt);
    if (rc == SQLITE_ROW && row_check(st, stmt, t->kind, "TT", err) != GQ_OK) {
        sqlite3_reset(stmt);
        return GQ_EIO;
    }
    if (rc == SQLITE_ROW) {
        if (uid)
            *uid = gq__strdup((const char *)sqlite3_column_text(stmt, 0));
        if (spec)
            *spec = gq__strdup((const char *)sqlite3_column_text(stmt, 1));
        sqlite3_reset(stmt);
        if ((uid && !*uid) || (spec && !*spec))
            return gq__error(err, GQ_ENOMEM, "out of memory");
        return 1;
    }
    sqlite3_reset(stmt);
    if (rc != SQLITE_DONE)
        return gq__store_sqlerr(st, rc, err, "read");
    return 0;
}

static int write_row(struct gq_store *st, const struct kind_table *t, const struct gq_object *obj,
                     const char *uid, const char *spec, int64_t now_ms, bool insert,
                     gq_error *err)
{
    sqlite3_stmt *stmt = gq__store_stmt(st, insert ? t->insert_sql : t->update_sql, err);
    struct xval x[MAX_EXTRA];
    int i;

    if (!stmt)
        return err ? err->code : GQ_EIO;
    bind_key(stmt, t, obj->meta.namespace, obj->meta.name);
    if (insert)
        gq__bind_text(stmt, 3, uid);
    gq__bind_text(stmt, 4, spec);
    sqlite3_bind_int64(stmt, 5, now_ms);
    extras(obj, x);
    for (i = 0; i < t->nextra; i++) {
        if (x[i].is_int)
            sqlite3_bind_int64(stmt, 6 + i, x[i].i);
        else
            gq__bind_text(stmt, 6 + i, x[i].text);
    }
    return gq__store_step_done(st, stmt, err);
}

int gq__store_put_object(struct gq_store *st, const struct gq_object *obj, const char *spec,
                         int64_t now_ms, enum gq_put_result *result, gq_error *err)
{
    const struct kind_table *t = table_for(obj->kind);
    char *old_spec = NULL, *old_uid = NULL, uid[37];
    int found, rc;

    if (!t)
        return gq__error(err, GQ_EINVALID, "kind %s is not a queue object",
                         gq__kind_name(obj->kind));
    found = lookup(st, t, obj->meta.namespace, obj->meta.name, &old_uid, &old_spec, err);
    if (found < 0)
        return found;
    if (found && strcmp(old_spec, spec) == 0) {
        *result = GQ_PUT_UNCHANGED;
        rc = GQ_OK;
        goto out;
    }
    if (!found) {
        if (obj->meta.uid && strlen(obj->meta.uid) < sizeof(uid))
            strcpy(uid, obj->meta.uid);
        else
            gq__uid_new(uid);
    }
    rc = write_row(st, t, obj, uid, spec, now_ms, !found, err);
    if (rc == GQ_OK)
        rc = put_quotas(st, obj, err);
    if (rc == GQ_OK)
        rc = gq__store_event(st, gq__kind_name(obj->kind), obj->meta.namespace, obj->meta.name,
                             found ? old_uid : uid, "Normal", found ? "Configured" : "Created",
                             NULL, NULL, NULL, now_ms, err);
    *result = found ? GQ_PUT_CONFIGURED : GQ_PUT_CREATED;
out:
    free(old_spec);
    free(old_uid);
    return rc;
}

int gq__store_delete_object(struct gq_store *st, enum gq_kind kind, const char *ns,
                            const char *name, int64_t now_ms, gq_error *err)
{
    static const char quota_sql[] = "DELETE FROM quotas WHERE owner_kind = ?1 AND owner = ?2";
    const struct kind_table *t = table_for(kind);
    sqlite3_stmt *stmt;
    char *uid = NULL;
    int found, rc;

    if (!t)
        return gq__error(err, GQ_EINVALID, "kind %s is not a queue object", gq__kind_name(kind));
    found = lookup(st, t, ns, name, &uid, NULL, err);
    if (found <= 0)
        return found < 0 ? found
                         : gq__error(err, GQ_ENOTFOUND, "%s \"%s\" not found",
                                     gq__kind_resource(kind), name);
    if (!(stmt = gq__store_stmt(st, t->delete_sql, err))) {
        free(uid);
        return err ? err->code : GQ_EIO;
    }
    bind_key(stmt, t, ns, name);
    rc = gq__store_step_done(st, stmt, err);
    if (rc == GQ_OK && (stmt = gq__store_stmt(st, quota_sql, err))) {
        gq__bind_text(stmt, 1, gq__kind_name(kind));
        gq__bind_text(stmt, 2, name);
        rc = gq__store_step_done(st, stmt, err);
    }
    if (rc == GQ_OK)
        rc = gq__store_event(st, gq__kind_name(kind), ns, name, uid, "Normal", "Deleted", NULL,
                             NULL, NULL, now_ms, err);
    free(uid);
    return rc;
}

bool gq__store_object_exists(struct gq_store *st, enum gq_kind kind, const char *ns,
                             const char *name)
{
    const struct kind_table *t = table_for(kind);

    return t && lookup(st, t, ns, name, NULL, NULL, NULL) == 1;
}

int gq__store_priority_value(struct gq_store *st, const char *name, int32_t *out, gq_error *err)
{
    static const char sql[] = "SELECT value FROM priority_classes WHERE name = ?1";
    sqlite3_stmt *stmt = gq__store_stmt(st, sql, err);
    int rc;

    if (!stmt)
        return err ? err->code : GQ_EIO;
    gq__bind_text(stmt, 1, name);
    rc = sqlite3_step(stmt);
    if (rc == SQLITE_ROW && row_check(st, stmt, GQ_KIND_PRIORITY_CLASS, "I", err) != GQ_OK) {
        sqlite3_reset(stmt);
        return GQ_EIO;
    }
    if (rc == SQLITE_ROW)
        *out = (int32_t)sqlite3_column_int64(stmt, 0);
    sqlite3_reset(stmt);
    if (rc == SQLITE_ROW)
        return GQ_OK;
    if (rc != SQLITE_DONE)
        return gq__store_sqlerr(st, rc, err, "read");
    return gq__error(err, GQ_ENOTFOUND, "workloadpriorityclass \"%s\" not found", name);
}
