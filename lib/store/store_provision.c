/*
 * store_provision.c: the statements behind the engine's admission checks
 * and ProvisioningRequests (store_provision.h), so that engine_provision.c
 * reads typed values and holds no SQL. Each function binds its parameters,
 * checks each row's shape (the shapes of struct gq__query, unchanged from
 * when the engine ran these statements itself), and hands the row on as C
 * values.
 *
 * Statements are cached by their static text's address (gq__store_cached),
 * leaving gq__store_stmt its room, and prepared afresh when the cached one
 * is in use or the cache is short of room. Sizes: a scheduling cycle reads
 * a few requests per reserved workload, a spec or two per admission check,
 * and the handful of configs that set a timeout.
 */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "model.h"
#include "state.h"
#include "store_int.h"
#include "store_provision.h"

/* ---------------------------------------------------------------- one text */

/* Column 0 into *(char **)payload, replacing an earlier row's (NULL for SQL NULL). */
static int text_row(sqlite3_stmt *stmt, void *payload, gq_error *err)
{
    char **out = payload;
    const char *v = gq__col_text(stmt, 0);

    free(*out);
    if (!(*out = v ? strdup(v) : NULL) && v)
        return gq__error(err, GQ_ENOMEM, "out of memory reading a stored spec");
    return GQ_OK;
}

/* The one text column of sql's row, ?1 bound to key (text) or to id; NULL when no row. */
static int one_text(struct gq_store *st, const char *sql, const char *shape, const char *key,
                    int64_t id, char **out, gq_error *err)
{
    struct gq__cursor c;
    int rc;

    *out = NULL;
    if ((rc = gq__store_cursor_open(st, sql, &c, err)) != GQ_OK)
        return rc;
    if (key)
        gq__bind_text(c.stmt, 1, key);
    else
        sqlite3_bind_int64(c.stmt, 1, id);
    if ((rc = gq__store_each_row(st, &c, shape, false, 0, text_row, out, err)) != GQ_OK) {
        free(*out);
        *out = NULL;
    }
    return rc;
}

int gq__store_admission_check_spec(struct gq_store *st, const char *name, char **out,
                                   gq_error *err)
{
    static const char sql[] = "SELECT spec FROM admission_checks WHERE name = ?1";

    return one_text(st, sql, "admission_checks:T", name ? name : "", 0, out, err);
}

int gq__store_provisioning_config_spec(struct gq_store *st, const char *name, char **out,
                                       gq_error *err)
{
    static const char sql[] = "SELECT spec FROM provisioning_configs WHERE name = ?1";

    return one_text(st, sql, "provisioning_configs:T", name ? name : "", 0, out, err);
}

int gq__store_workload_spec(struct gq_store *st, int64_t id, char **out, gq_error *err)
{
    static const char sql[] = "SELECT spec FROM workloads WHERE id = ?1";

    return one_text(st, sql, "workloads:T", NULL, id, out, err);
}

/* ------------------------------------------------------------------ checks */

static int ready_row(sqlite3_stmt *stmt, void *payload, gq_error *err)
{
    bool *ready = payload;

    (void)err;
    *ready = *ready && strcmp(gq__col_text(stmt, 0), "Ready") == 0;
    return GQ_OK;
}

int gq__store_checks_all_ready(struct gq_store *st, int64_t workload_id, bool *out,
                               gq_error *err)
{
    static const char sql[] = "SELECT state FROM workload_checks WHERE workload_id = ?1";
    struct gq__cursor c;
    int rc;

    *out = true;
    if ((rc = gq__store_cursor_open(st, sql, &c, err)) != GQ_OK)
        return rc;
    sqlite3_bind_int64(c.stmt, 1, workload_id);
    return gq__store_each_row(st, &c, "workload_checks:T", false, 0, ready_row, out, err);
}

struct spec_walk {
    gq__spec_fn fn;
    void *payload;
};

static int spec_row(sqlite3_stmt *stmt, void *payload, gq_error *err)
{
    struct spec_walk *w = payload;

    (void)err;
    return w->fn(gq__col_text(stmt, 0), w->payload);
}

int gq__store_timeout_configs(struct gq_store *st, gq__spec_fn fn, void *payload,
                              gq_error *err)
{
    static const char sql[] =
        "SELECT spec FROM provisioning_configs WHERE json_extract(spec, "
        "'$.metadata.annotations.\"" GQ_PROVISIONING_TIMEOUT_ANNOTATION "\"') IS NOT NULL";
    struct spec_walk w = {fn, payload};
    struct gq__cursor c;
    int rc;

    if ((rc = gq__store_cursor_open(st, sql, &c, err)) != GQ_OK)
        return rc;
    return gq__store_each_row(st, &c, "provisioning_configs:T", false, 0, spec_row, &w, err);
}

/* ---------------------------------------------------------------- requests */

/* The columns sync_row reads, for one request and its check. */
#define SYNC_SELECT                                                                                \
    "SELECT p.workload_id, p.check_name, p.attempt, p.status, c.state, c.message, "                \
    "c.retry_count, p.name, p.id, p.created_at FROM provisioning_requests p "                      \
    "JOIN workload_checks c ON c.workload_id = p.workload_id AND c.name = p.check_name "

/* The shape of SYNC_SELECT's columns: a NULL would reach the strings' copies. */
#define SYNC_SHAPE "provisioning_requests:ITItTtIT#I"

void gq__store_provreq_syncs_clear(struct gq_provreq_syncs *rows)
{
    size_t i;

    for (i = 0; i < rows->n; i++) {
        free(rows->v[i].check);
        free(rows->v[i].status);
        free(rows->v[i].state);
        free(rows->v[i].message);
        free(rows->v[i].name);
    }
    free(rows->v);
    rows->v = NULL;
    rows->n = rows->cap = 0;
}

/* Room for one more row, zeroed: NULL when out of memory. */
static struct gq_provreq_sync *sync_add(struct gq_provreq_syncs *rows)
{
    struct gq_provreq_sync *v;
    size_t cap = rows->cap ? rows->cap * 2 : 16;

    if (rows->n == rows->cap) {
        if (!(v = realloc(rows->v, cap * sizeof(*v))))
            return NULL;
        rows->v = v;
        rows->cap = cap;
    }
    v = &rows->v[rows->n++];
    memset(v, 0, sizeof(*v));
    return v;
}

/*
 * Columns: workload_id, check_name, attempt, status, state, message,
 * retry_count, name, id, created_at (SYNC_SHAPE checked them).
 */
static int sync_row(sqlite3_stmt *stmt, void *payload, gq_error *err)
{
    struct gq_provreq_sync *r = sync_add(payload);
    const char *status = gq__col_text(stmt, 3), *message = gq__col_text(stmt, 5);

    if (!r)
        return gq__error(err, GQ_ENOMEM, "out of memory reading ProvisioningRequests");
    r->workload_id = sqlite3_column_int64(stmt, 0);
    r->check = strdup(gq__col_text(stmt, 1));
    r->attempt = (int32_t)sqlite3_column_int64(stmt, 2);
    r->status = status ? strdup(status) : NULL;
    r->state = strdup(gq__col_text(stmt, 4));
    r->message = strdup(message ? message : "");
    r->retry_count = (int32_t)sqlite3_column_int64(stmt, 6);
    r->name = strdup(gq__col_text(stmt, 7));
    r->id = sqlite3_column_int64(stmt, 8);
    r->created_at = sqlite3_column_int64(stmt, 9);
    if (!r->check || (status && !r->status) || !r->state || !r->message || !r->name)
        return gq__error(err, GQ_ENOMEM, "out of memory reading ProvisioningRequests");
    return GQ_OK;
}

/* The rows of sql (SYNC_SELECT ...), ?1 bound to *before when given. */
static int sync_rows(struct gq_store *st, const char *sql, const int64_t *before,
                     struct gq_provreq_syncs *out, gq_error *err)
{
    struct gq__cursor c;
    int rc;

    memset(out, 0, sizeof(*out));
    if ((rc = gq__store_cursor_open(st, sql, &c, err)) != GQ_OK)
        return rc;
    if (before)
        sqlite3_bind_int64(c.stmt, 1, *before);
    if ((rc = gq__store_each_row(st, &c, SYNC_SHAPE, false, 0, sync_row, out, err)) != GQ_OK)
        gq__store_provreq_syncs_clear(out);
    return rc;
}

int gq__store_provreqs_unsynced(struct gq_store *st, struct gq_provreq_syncs *out,
                                gq_error *err)
{
    static const char sql[] = SYNC_SELECT
        "WHERE p.deleted_at IS NULL AND p.status IS NOT NULL "
        "AND p.status IS NOT p.synced_status ORDER BY p.workload_id";

    return sync_rows(st, sql, NULL, out, err);
}

int gq__store_provreqs_pending(struct gq_store *st, int64_t before, struct gq_provreq_syncs *out,
                               gq_error *err)
{
    static const char sql[] = SYNC_SELECT
        "JOIN workloads w ON w.id = p.workload_id AND w.state = " GQ_SQL_STATE(reserved) " "
        "WHERE p.deleted_at IS NULL AND c.state = 'Pending' AND p.created_at <= ?1 "
        "ORDER BY p.workload_id, p.check_name";

    return sync_rows(st, sql, &before, out, err);
}
