/*
 * store_render.c: the statements behind -o json|yaml, cluster mode's outbox
 * and the release's inputs (store_render.h), so that api/render.c and
 * engine/sync_outbox.c read typed values and hold no SQL. The renderer's
 * statements are those manifest_render.c ran itself, with the same text,
 * parameters (bound as text) and row shapes, so that a damaged row gives the
 * message it gave. The statements are those the outbox ran
 * itself, unchanged but for the parameters, now bound as integers (each was
 * cast to one in the statement); the outbox checked no row's shape and
 * these reads check none either, but for the ProvisioningRequests' read:
 * that one is -o json|yaml's statement and shape (by the workload's uid,
 * with the templates), so that both can share it; the outbox's own read
 * selected the same rows by the workload's id.
 *
 * Statements are cached by their static text's address (gq__store_cached),
 * leaving gq__store_stmt its room, and prepared afresh when the cached one
 * is in use or the cache is short of room.
 */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "model.h"
#include "store_int.h"
#include "state.h"
#include "store_render.h"

/* -------------------------------------------------------------- columns */

/* Column i as a malloc'd copy into *out (NULL for SQL NULL); -1 on ENOMEM. */
static int col_dup(sqlite3_stmt *s, int i, char **out)
{
    const char *v = gq__col_text(s, i);

    *out = v ? strdup(v) : NULL;
    return v && !*out ? -1 : 0;
}

/* ------------------------------------------------------- release's inputs */

/* Column 0 of the first row into *(char **)payload (NULL for SQL NULL). */
static int first_text_row(sqlite3_stmt *stmt, void *payload, gq_error *err)
{
    char **out = payload;

    if (*out)
        return GQ_OK;
    if (col_dup(stmt, 0, out) < 0)
        return gq__error(err, GQ_ENOMEM, "out of memory reading a stored spec");
    return GQ_OK;
}

int gq__store_flavor_spec(struct gq_store *st, const char *name, char **out, gq_error *err)
{
    static const char sql[] = "SELECT spec FROM resource_flavors WHERE name = ?1";
    struct gq__cursor c;
    int rc;

    *out = NULL;
    if ((rc = gq__store_cursor_open(st, sql, &c, err)) != GQ_OK)
        return rc;
    gq__bind_text(c.stmt, 1, name);
    if ((rc = gq__store_each_row(st, &c, NULL, false, 0, first_text_row, out, err)) != GQ_OK) {
        free(*out);
        *out = NULL;
    }
    return rc;
}

struct requests {
    gq__release_request_fn fn;
    void *payload;
};

static int request_row(sqlite3_stmt *stmt, void *payload, gq_error *err)
{
    struct requests *q = payload;
    struct gq__release_request r = {gq__col_text(stmt, 0), gq__col_text(stmt, 1),
                                    gq__col_text(stmt, 2), gq__col_text(stmt, 3)};

    return q->fn(&r, q->payload, err);
}

int gq__store_release_requests(struct gq_store *st, const char *wuid, gq__release_request_fn fn,
                               void *payload, gq_error *err)
{
    static const char sql[] =
        "SELECT p.spec, p.templates, p.status, "
        "(SELECT pc.spec ->> '$.spec.podSetUpdates.nodeSelector' "
        "  FROM admission_checks ac JOIN provisioning_configs pc "
        "  ON pc.name = ac.spec ->> '$.spec.parameters.name' WHERE ac.name = p.check_name) "
        "FROM provisioning_requests p "
        "JOIN workloads w ON w.id = p.workload_id WHERE w.uid = ?1 AND p.deleted_at IS NULL "
        "ORDER BY p.check_name, p.attempt";
    struct requests q = {fn, payload};
    struct gq__cursor c;
    int rc;

    if ((rc = gq__store_cursor_open(st, sql, &c, err)) != GQ_OK)
        return rc;
    gq__bind_text(c.stmt, 1, wuid);
    return gq__store_each_row(st, &c, "provisioning_requests:TTtt", false, 0, request_row, &q, err);
}

/* ---------------------------------------------------------- -o json|yaml */

/* Columns: namespace, name, uid, spec, created_at, updated_at, and for LocalQueues
 * cluster_queue, stop_policy and the admission fair sharing status (schema/0016).
 * ?1 namespace, ?2 name (NULL: all). */
#define OBJECT_SHAPE ".TTTII"
static const struct {
    enum gq_kind kind;
    const char *sql;
    const char *shape; /* its columns' types (struct gq__query) */
} object_sql[] = {
    {GQ_KIND_NAMESPACE, "SELECT NULL, name, uid, spec, created_at, updated_at FROM namespaces "
                        "WHERE ?2 IS NULL OR name = ?2 ORDER BY name", OBJECT_SHAPE},
    {GQ_KIND_RESOURCE_FLAVOR, "SELECT NULL, name, uid, spec, created_at, updated_at "
                              "FROM resource_flavors WHERE ?2 IS NULL OR name = ?2 ORDER BY name",
                              OBJECT_SHAPE},
    {GQ_KIND_COHORT, "SELECT NULL, name, uid, spec, created_at, updated_at FROM cohorts "
                     "WHERE ?2 IS NULL OR name = ?2 ORDER BY name", OBJECT_SHAPE},
    {GQ_KIND_CLUSTER_QUEUE, "SELECT NULL, name, uid, spec, created_at, updated_at "
                            "FROM cluster_queues WHERE ?2 IS NULL OR name = ?2 ORDER BY name",
                            OBJECT_SHAPE},
    {GQ_KIND_LOCAL_QUEUE,
     "SELECT q.namespace, q.name, q.uid, q.spec, q.created_at, q.updated_at, q.cluster_queue, "
     "q.stop_policy, u.consumed, u.last_update FROM local_queues q LEFT JOIN lq_afs_usage u "
     "ON u.namespace = q.namespace AND u.name = q.name "
     "WHERE (?1 IS NULL OR q.namespace = ?1) AND (?2 IS NULL OR q.name = ?2) "
     "ORDER BY q.namespace, q.name",
     "local_queues:TTTTIITTti"},
    {GQ_KIND_PRIORITY_CLASS, "SELECT NULL, name, uid, spec, created_at, updated_at "
                             "FROM priority_classes WHERE ?2 IS NULL OR name = ?2 ORDER BY name",
                             OBJECT_SHAPE},
    {GQ_KIND_ADMISSION_CHECK, "SELECT NULL, name, uid, spec, created_at, updated_at "
                              "FROM admission_checks WHERE ?2 IS NULL OR name = ?2 ORDER BY name",
                              OBJECT_SHAPE},
    {GQ_KIND_PROVISIONING_CONFIG,
     "SELECT NULL, name, uid, spec, created_at, updated_at FROM provisioning_configs "
     "WHERE ?2 IS NULL OR name = ?2 ORDER BY name", OBJECT_SHAPE},
    {GQ_KIND_CONFIGURATION, "SELECT NULL, name, uid, spec, created_at, updated_at "
                            "FROM configurations WHERE ?2 IS NULL OR name = ?2 ORDER BY name",
                            OBJECT_SHAPE},
    {GQ_KIND_NODE_POOL, "SELECT NULL, name, uid, spec, created_at, updated_at "
                        "FROM node_pools WHERE ?2 IS NULL OR name = ?2 ORDER BY name",
                        OBJECT_SHAPE},
    {GQ_KIND_INTEGRATION, "SELECT NULL, name, uid, spec, created_at, updated_at "
                          "FROM integrations WHERE ?2 IS NULL OR name = ?2 ORDER BY name",
                          OBJECT_SHAPE},
    {GQ_KIND_TRAINING_RUNTIME, "SELECT NULL, name, uid, spec, created_at, updated_at "
                               "FROM training_runtimes WHERE ?2 IS NULL OR name = ?2 ORDER BY name",
                               OBJECT_SHAPE},
    {GQ_KIND_LIMIT_RANGE,
     "SELECT namespace, name, uid, spec, created_at, updated_at FROM limit_ranges "
     "WHERE (?1 IS NULL OR namespace = ?1) AND (?2 IS NULL OR name = ?2) "
     "ORDER BY namespace, name",
     "limit_ranges:TTTTII"},
    {GQ_KIND_RUNTIME_CLASS, "SELECT NULL, name, uid, spec, created_at, updated_at "
                            "FROM runtime_classes WHERE ?2 IS NULL OR name = ?2 ORDER BY name",
                            OBJECT_SHAPE},
    {GQ_KIND_MK_CLUSTER, "SELECT NULL, name, uid, " GQ_SQL_MK_CLUSTER_WITH_STATUS ", created_at, "
                         "updated_at FROM multikueue_clusters WHERE ?2 IS NULL OR name = ?2 "
                         "ORDER BY name", OBJECT_SHAPE},
    {GQ_KIND_MK_CONFIG, "SELECT NULL, name, uid, spec, created_at, updated_at "
                        "FROM multikueue_configs WHERE ?2 IS NULL OR name = ?2 ORDER BY name",
                        OBJECT_SHAPE},
};

struct objects {
    gq__render_object_fn fn;
    void *payload;
    bool local; /* LocalQueues: the last two columns are read too */
};

static int object_row(sqlite3_stmt *stmt, void *payload, gq_error *err)
{
    struct objects *q = payload;
    struct gq__render_object o = {
        gq__col_text(stmt, 0),           gq__col_text(stmt, 1),
        gq__col_text(stmt, 2),           gq__col_text(stmt, 3),
        sqlite3_column_int64(stmt, 4),   sqlite3_column_int64(stmt, 5),
        q->local ? gq__col_text(stmt, 6) : NULL, q->local ? gq__col_text(stmt, 7) : NULL,
        q->local ? gq__col_text(stmt, 8) : NULL,  q->local ? sqlite3_column_int64(stmt, 9) : 0};

    return q->fn(&o, q->payload, err);
}

int gq__store_render_objects(struct gq_store *st, enum gq_kind kind, const char *ns,
                             const char *name, gq__render_object_fn fn, void *payload,
                             gq_error *err)
{
    struct objects q = {fn, payload, kind == GQ_KIND_LOCAL_QUEUE};
    struct gq__cursor c;
    size_t i = 0;
    int rc;

    while (i + 1 < sizeof(object_sql) / sizeof(object_sql[0]) && object_sql[i].kind != kind)
        i++;
    if (object_sql[i].kind != kind)
        return gq__error(err, GQ_EINVALID, "cannot render a %s", gq__kind_resource(kind));
    if ((rc = gq__store_cursor_open(st, object_sql[i].sql, &c, err)) != GQ_OK)
        return rc;
    gq__bind_text(c.stmt, 1, ns);
    gq__bind_text(c.stmt, 2, name);
    return gq__store_each_row(st, &c, object_sql[i].shape, false, 0, object_row, &q, err);
}

/* The order of a ClusterQueue's (flavor, resource) rows: as its spec lists them. */
#define FLAVOR_ORDER                                                                               \
    " ORDER BY q.group_index, q.flavor_index, (SELECT c.key FROM cluster_queues cq, "              \
    "json_each(cq.spec, '$.spec.resourceGroups[' || q.group_index || '].coveredResources') c "     \
    "WHERE cq.name = q.owner AND c.value = q.resource), q.resource"

struct flavors {
    gq__render_flavor_fn fn;
    void *payload;
};

static int flavor_row(sqlite3_stmt *stmt, void *payload, gq_error *err)
{
    struct flavors *q = payload;
    struct gq__render_flavor f = {gq__col_text(stmt, 0), gq__col_text(stmt, 1),
                                  sqlite3_column_int64(stmt, 2), sqlite3_column_int64(stmt, 3),
                                  sqlite3_column_int64(stmt, 4)};

    return q->fn(&f, q->payload, err);
}

int gq__store_render_flavors(struct gq_store *st, const char *cq, const char *ns, const char *lq,
                             gq__render_flavor_fn fn, void *payload, gq_error *err)
{
    /* Every (flavor, resource) of ClusterQueue ?1 with the quota held in it. */
    static const char cq_sql[] =
        "SELECT q.flavor, q.resource, q.nominal, "
        "(SELECT coalesce(sum(u.amount), 0) FROM usage u WHERE u.cluster_queue = q.owner "
        "  AND u.flavor = q.flavor AND u.resource = q.resource), "
        "(SELECT coalesce(sum(u.amount), 0) FROM usage u JOIN workloads w ON w.id = u.workload_id "
        "  WHERE u.cluster_queue = q.owner AND u.flavor = q.flavor AND u.resource = q.resource "
        "  AND w.state IN " GQ_SQL_ADMITTED ") "
        "FROM quotas q WHERE q.owner_kind = 'ClusterQueue' AND q.owner = ?1" FLAVOR_ORDER;
    /* The same for LocalQueue ?3 in namespace ?2 of ClusterQueue ?1: its workloads' share. */
    static const char lq_sql[] =
        "SELECT q.flavor, q.resource, q.nominal, "
        "(SELECT coalesce(sum(u.amount), 0) FROM usage u JOIN workloads w ON w.id = u.workload_id "
        "  WHERE u.cluster_queue = q.owner AND u.flavor = q.flavor AND u.resource = q.resource "
        "  AND w.namespace = ?2 AND w.local_queue = ?3), "
        "(SELECT coalesce(sum(u.amount), 0) FROM usage u JOIN workloads w ON w.id = u.workload_id "
        "  WHERE u.cluster_queue = q.owner AND u.flavor = q.flavor AND u.resource = q.resource "
        "  AND w.namespace = ?2 AND w.local_queue = ?3 AND w.state IN " GQ_SQL_ADMITTED ") "
        "FROM quotas q WHERE q.owner_kind = 'ClusterQueue' AND q.owner = ?1" FLAVOR_ORDER;
    struct flavors q = {fn, payload};
    struct gq__cursor c;
    int rc;

    if ((rc = gq__store_cursor_open(st, lq ? lq_sql : cq_sql, &c, err)) != GQ_OK)
        return rc;
    gq__bind_text(c.stmt, 1, cq);
    if (lq) {
        gq__bind_text(c.stmt, 2, ns);
        gq__bind_text(c.stmt, 3, lq);
    }
    return gq__store_each_row(st, &c, "quotas:TTIII", false, 0, flavor_row, &q, err);
}

struct workload {
    gq__render_workload_fn fn;
    void *payload;
};

static int workload_row(sqlite3_stmt *stmt, void *payload, gq_error *err)
{
    struct workload *q = payload;
    struct gq__render_workload w = {
        gq__col_text(stmt, 0),
        gq__col_text(stmt, 1),
        sqlite3_column_int64(stmt, 2),
        gq__col_text(stmt, 3),
        gq__col_text(stmt, 4),
        gq__col_text(stmt, 5),
        sqlite3_column_int64(stmt, 6),
        sqlite3_column_int64(stmt, 7),
        sqlite3_column_type(stmt, 8) != SQLITE_NULL,
        sqlite3_column_int64(stmt, 8),
        gq__col_text(stmt, 9),
        sqlite3_column_int64(stmt, 10),
        sqlite3_column_int64(stmt, 11),
        sqlite3_column_int64(stmt, 12),
    };

    return q->fn(&w, q->payload, err);
}

int gq__store_render_workload(struct gq_store *st, const char *uid, gq__render_workload_fn fn,
                              void *payload, gq_error *err)
{
    static const char sql[] =
        "SELECT spec, admission, updated_at, evicted_reason, evicted_message, preempted_reason, "
        "evicted_at, evictions, duration_ms, pods_ready_reason, pods_ready_at, requeue_count, "
        "requeue_at FROM workloads WHERE uid = ?1";
    struct workload q = {fn, payload};
    struct gq__cursor c;
    int rc;

    if ((rc = gq__store_cursor_open(st, sql, &c, err)) != GQ_OK)
        return rc;
    gq__bind_text(c.stmt, 1, uid);
    return gq__store_each_row(st, &c, "workloads:TtIttti.itiIi", false, 0, workload_row, &q, err);
}

struct checks {
    gq__render_check_fn fn;
    void *payload;
};

static int check_row(sqlite3_stmt *stmt, void *payload, gq_error *err)
{
    struct checks *q = payload;
    struct gq__render_check ck = {gq__col_text(stmt, 0), gq__col_text(stmt, 1),
                                  gq__col_text(stmt, 2), sqlite3_column_int64(stmt, 3)};

    return q->fn(&ck, q->payload, err);
}

int gq__store_render_checks(struct gq_store *st, const char *uid, gq__render_check_fn fn,
                            void *payload, gq_error *err)
{
    static const char sql[] =
        "SELECT c.name, c.state, c.message, c.updated_at FROM workload_checks c "
        "JOIN workloads w ON w.id = c.workload_id WHERE w.uid = ?1 ORDER BY c.name";
    struct checks q = {fn, payload};
    struct gq__cursor c;
    int rc;

    if ((rc = gq__store_cursor_open(st, sql, &c, err)) != GQ_OK)
        return rc;
    gq__bind_text(c.stmt, 1, uid);
    return gq__store_each_row(st, &c, "workload_checks:TTtI", false, 0, check_row, &q, err);
}

/* ----------------------------------------------------------------- outbox */

static void item_clear(struct gq__outbox_item *it)
{
    free(it->ns);
    free(it->name);
    free(it->job);
    free(it->uid);
    free(it->kube_error);
    free(it->state);
    free(it->job_rv);
    free(it->spec);
    free(it->admission);
    free(it->templates);
    free(it->kube_uid);
    free(it->wname);
    free(it->job_kind);
    free(it->job_api_version);
}

void gq__outbox_items_free(struct gq__outbox_items *items)
{
    size_t i;

    for (i = 0; i < items->n; i++)
        item_clear(&items->v[i]);
    free(items->v);
    memset(items, 0, sizeof(*items));
}

/* The columns of a read, in order: where each goes in an item. */
enum field {
    F_ID, F_NS, F_NAME, F_JOB, F_UID, F_KUBE_ERROR, F_STATE, F_JOB_RV, F_EVICTIONS, F_SPEC,
    F_ADMISSION, F_TEMPLATES, F_KUBE_UID, F_WID, F_WNAME, F_KIND, F_API_VERSION, F_END
};

struct items {
    const enum field *fields; /* F_END-terminated */
    size_t cap;
    struct gq__outbox_items *out;
};

static char **text_field(struct gq__outbox_item *it, enum field f)
{
    switch (f) {
    case F_NS: return &it->ns;
    case F_NAME: return &it->name;
    case F_JOB: return &it->job;
    case F_UID: return &it->uid;
    case F_KUBE_ERROR: return &it->kube_error;
    case F_STATE: return &it->state;
    case F_JOB_RV: return &it->job_rv;
    case F_SPEC: return &it->spec;
    case F_ADMISSION: return &it->admission;
    case F_TEMPLATES: return &it->templates;
    case F_KUBE_UID: return &it->kube_uid;
    case F_WNAME: return &it->wname;
    case F_KIND: return &it->job_kind;
    case F_API_VERSION: return &it->job_api_version;
    default: return NULL;
    }
}

static int item_row(sqlite3_stmt *stmt, void *payload, gq_error *err)
{
    struct items *q = payload;
    struct gq__outbox_items *out = q->out;
    struct gq__outbox_item *it;
    int i;

    if (out->n == q->cap) {
        size_t cap = q->cap ? 2 * q->cap : 16;
        struct gq__outbox_item *v = realloc(out->v, cap * sizeof(*v));

        if (!v)
            return gq__error(err, GQ_ENOMEM, "out of memory reading the outbox");
        out->v = v;
        q->cap = cap;
    }
    it = &out->v[out->n++];
    memset(it, 0, sizeof(*it));
    for (i = 0; q->fields[i] != F_END; i++) {
        if (q->fields[i] == F_ID)
            it->id = sqlite3_column_int64(stmt, i);
        else if (q->fields[i] == F_WID)
            it->wid = sqlite3_column_int64(stmt, i);
        else if (q->fields[i] == F_EVICTIONS)
            it->evictions = sqlite3_column_int64(stmt, i);
        else if (col_dup(stmt, i, text_field(it, q->fields[i])) < 0)
            return gq__error(err, GQ_ENOMEM, "out of memory reading the outbox");
    }
    return GQ_OK;
}

/* sql's rows into *out, ?1 and ?2 bound to the integers nums[0..nparams). */
static int read_items(struct gq_store *st, const char *sql, const enum field *fields,
                      const int64_t *nums, int nparams, size_t max,
                      struct gq__outbox_items *out, gq_error *err)
{
    struct items q = {fields, 0, out};
    struct gq__cursor c;
    int i, rc;

    memset(out, 0, sizeof(*out));
    if ((rc = gq__store_cursor_open(st, sql, &c, err)) != GQ_OK)
        return rc;
    for (i = 0; i < nparams; i++)
        sqlite3_bind_int64(c.stmt, i + 1, nums[i]);
    if ((rc = gq__store_each_row(st, &c, NULL, false, max, item_row, &q, err)) != GQ_OK)
        gq__outbox_items_free(out);
    return rc;
}

/*
 * Not refused, or due again (?1 is now, store ms): the backoff is over, or
 * the Job changed since. A bare-text record (before backoffs) is due.
 */
#define DUE                                                                                        \
    "(w.kube_error IS NULL OR w.kube_error_rv IS NOT w.job_rv OR CASE WHEN "                       \
    "json_valid(w.kube_error) THEN json_extract(w.kube_error, '$.retry_at') <= "                   \
    "CAST(?1 AS INTEGER) ELSE 1 END)"

int gq__store_outbox_give_back(struct gq_store *st, int64_t since_ms, size_t max,
                               struct gq__outbox_items *out, gq_error *err)
{
    /* Quota held while writes were refused since before ?1 (store ms). */
    static const char sql[] =
        "SELECT w.id, w.namespace, w.name, w.job_name, w.uid, w.kube_error, w.state "
        "FROM workloads w WHERE w.state IN (" GQ_SQL_STATE(reserved) ", " GQ_SQL_STATE(admitted)
        ") AND w.kube_error IS NOT NULL "
        "AND CASE WHEN json_valid(w.kube_error) THEN json_extract(w.kube_error, '$.since') <= "
        "CAST(?1 AS INTEGER) ELSE 0 END ORDER BY w.id";
    static const enum field fields[] = {F_ID, F_NS, F_NAME, F_JOB, F_UID, F_KUBE_ERROR, F_STATE,
                                        F_END};

    return read_items(st, sql, fields, &since_ms, 1, max, out, err);
}

int gq__store_outbox_gone(struct gq_store *st, size_t max, struct gq__outbox_items *out,
                          gq_error *err)
{
    static const char sql[] =
        "SELECT w.id, w.namespace, w.name, w.job_name, w.uid, w.job_kind, w.job_api_version "
        "FROM workloads w WHERE w.job_gone = 1 ORDER BY w.id";
    static const enum field fields[] = {F_ID,   F_NS,          F_NAME, F_JOB,
                                        F_UID,  F_KIND, F_API_VERSION, F_END};

    return read_items(st, sql, fields, NULL, 0, max, out, err);
}

int gq__store_outbox_create(struct gq_store *st, int64_t now_ms, size_t max,
                            struct gq__outbox_items *out, gq_error *err)
{
    static const char sql[] =
        "SELECT p.id, p.namespace, p.name, p.spec, p.templates, w.uid, w.job_name, w.id, w.name, "
        "w.job_kind, w.job_api_version FROM provisioning_requests p JOIN workloads w ON w.id = p.workload_id "
        "WHERE p.kube IS NULL AND p.deleted_at IS NULL AND w.state = " GQ_SQL_STATE(reserved) " "
        "AND w.job_gone = 0 AND " DUE " ORDER BY p.id";
    static const enum field fields[] = {F_ID,  F_NS,  F_NAME, F_SPEC,  F_TEMPLATES, F_UID,
                                        F_JOB, F_WID, F_WNAME, F_KIND, F_API_VERSION, F_END};

    return read_items(st, sql, fields, &now_ms, 1, max, out, err);
}

int gq__store_outbox_delete(struct gq_store *st, size_t max, struct gq__outbox_items *out,
                            gq_error *err)
{
    static const char sql[] =
        "SELECT p.id, p.namespace, p.name, p.kube_uid, p.templates, w.uid "
        "FROM provisioning_requests p LEFT JOIN workloads w ON w.id = p.workload_id "
        "WHERE p.deleted_at IS NOT NULL AND (p.kube IS NULL OR p.kube = 'created') ORDER BY p.id";
    static const enum field fields[] = {F_ID, F_NS, F_NAME, F_KUBE_UID, F_TEMPLATES, F_UID, F_END};

    return read_items(st, sql, fields, NULL, 0, max, out, err);
}

int gq__store_outbox_release(struct gq_store *st, int64_t now_ms, size_t max,
                             struct gq__outbox_items *out, gq_error *err)
{
    static const char sql[] =
        "SELECT w.id, w.namespace, w.name, w.job_name, w.uid, w.job_rv, w.evictions, w.spec, "
        "w.admission, w.job_kind, w.job_api_version FROM workloads w WHERE w.state = "
        GQ_SQL_STATE(admitted)
        /* One a MultiKueue worker runs (schema/0018) stays suspended here. */
        " AND w.job_gone = 0 AND w.cluster_name IS NULL AND " DUE
        " ORDER BY w.id";
    static const enum field fields[] = {F_ID,     F_NS,        F_NAME, F_JOB,       F_UID,
                                        F_JOB_RV, F_EVICTIONS, F_SPEC, F_ADMISSION, F_KIND,
                                        F_API_VERSION, F_END};

    return read_items(st, sql, fields, &now_ms, 1, max, out, err);
}

int gq__store_outbox_suspend(struct gq_store *st, int64_t now_ms, bool unadmitted, size_t max,
                             struct gq__outbox_items *out, gq_error *err)
{
    /* Evicted Jobs, and with ?2 = 1 (the policy) Jobs that started without admission. */
    static const char sql[] =
        "SELECT w.id, w.namespace, w.name, w.job_name, w.uid, w.job_rv, w.evictions, w.spec, "
        "w.job_kind, w.job_api_version "
        "FROM workloads w WHERE w.state IN (" GQ_SQL_STATE(pending) ", " GQ_SQL_STATE(reserved) ", "
        GQ_SQL_STATE(deactivated) ") "
        "AND w.job_suspended = 0 AND w.job_gone = 0 AND " DUE
        " AND (w.evictions > 0 OR CAST(?2 AS INTEGER) = 1) ORDER BY w.id";
    static const enum field fields[] = {F_ID,     F_NS,        F_NAME, F_JOB,  F_UID,
                                        F_JOB_RV, F_EVICTIONS, F_SPEC, F_KIND, F_API_VERSION,
                                        F_END};
    int64_t nums[2] = {now_ms, unadmitted ? 1 : 0};

    return read_items(st, sql, fields, nums, 2, max, out, err);
}
