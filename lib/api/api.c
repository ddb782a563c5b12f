/*
 * api.c: the database handle and the apply pipeline behind `gpuq apply`,
 * `submit` and `delete -f`.
 *
 * One input is one transaction: documents are read, decoded, checked and
 * written inside a single gq__store_write(), and the per-object results are
 * reported only after COMMIT, so a bad document anywhere leaves the database
 * as it was and nothing is printed as "created" that was not. The
 * transaction function re-reads the input from the start, which is what lets
 * the store retry the whole transaction when another process holds the lock.
 * Parsing happens while the write lock is held; that is CPU work on text
 * already in memory, never network or user I/O.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "api.h"
#include "gpuqueue/tool.h"
#include "apply.h"
#include "error.h"
#include "manifest_load.h"
#include "os.h"
#include "store.h"
#include "util.h"

/* ------------------------------------------------------------ the handle */

int gq_db_default_path(char **out, gq_error *err)
{
    const char *env = getenv("GPUQ_DB"), *state = getenv("XDG_STATE_HOME"), *home;
    size_t n;
    char *dir;

    *out = NULL;
    if (env && *env)
        return (*out = strdup(env)) ? GQ_OK : gq__error(err, GQ_ENOMEM, "out of memory");
    home = getenv("HOME");
    if (state && state[0] != '/')
        state = NULL; /* the XDG Base Directory spec: a relative path is invalid, ignore it */
    if ((!state || !*state) && (!home || !*home))
        return gq__error(err, GQ_EINVALID, "no database path: set GPUQ_DB, XDG_STATE_HOME or HOME");
    n = (state && *state ? strlen(state) : strlen(home) + 13) + 16;
    if (!(dir = malloc(n)))
        return gq__error(err, GQ_ENOMEM, "out of memory");
    if (state && *state)
        snprintf(dir, n, "%s/gpuq", state);
    else
        snprintf(dir, n, "%s/.local/state/gpuq", home);
    if (gq__mkdir_p(dir, 0700) != 0) {
        int e = errno;

        gq__error(err, GQ_EIO, "cannot create directory %s: %s", dir,
                  e == ENOTDIR ? "it or a directory above it is a file" : strerror(e));
        free(dir);
        return GQ_EIO;
    }
    strcat(dir, "/gpuq.db");
    *out = dir;
    return GQ_OK;
}

int gq_db_open(gq_db **out, const char *path, const gq_open_options *opts, gq_error *err)
{
    struct gq_store_options so = {0, false};
    gq_db *db;
    int rc;

    *out = NULL;
    if (opts && (rc = gq__version_check(opts->version, GQ_OPEN_OPTIONS_VERSION,
                                        "gq_open_options", err)) != GQ_OK)
        return rc;
    if (!(db = calloc(1, sizeof(*db))))
        return gq__error(err, GQ_ENOMEM, "out of memory");
    if (opts) {
        so.busy_timeout_ms = opts->busy_timeout_ms;
        so.readonly = opts->readonly;
    }
    if ((rc = gq__store_open(&db->st, path, &so, err)) != GQ_OK) {
        free(db);
        return rc;
    }
    *out = db;
    return GQ_OK;
}

void gq_db_close(gq_db *db)
{
    if (!db)
        return;
    gq__apply_forget(db);
    gq__store_close(db->st);
    free(db);
}

int64_t gq_db_now_ms(gq_db *db)
{
    return db ? gq__store_now(db->st) : gq__now_ms();
}

int gq_db_data_version(gq_db *db, int64_t *out, gq_error *err)
{
    if ((*out = gq__store_data_version(db->st)) < 0)
        return gq__error(err, GQ_EIO, "cannot read the database's data version");
    return GQ_OK;
}

int gq_db_check(gq_db *db, int *schema_version, gq_error *err)
{
    if (schema_version)
        *schema_version = gq__store_schema_version(db->st);
    return gq__store_check(db->st, err);
}

/* ------------------------------------------------------- apply: results */

struct result {
    char *resource;
    char *namespace;
    char *name;
    char *note;
    char *workload;
    gq_apply_result what;
    struct gq_strs unknown;      /* the item's unknown_fields, copied */
    struct gq_strs not_enforced; /* its not_enforced, copied */
};

struct apply_ctx {
    gq_db *db;
    const gq_apply_options *opts;
    const char *buf;          /* the input, when applying a buffer */
    size_t len;
    const char *source;       /* its name, or the path to read */
    bool from_path;
    int64_t now_ms;
    struct result *results;   /* reported after COMMIT */
    size_t nresults, cap;
    const struct gq__user_rows *rows; /* the user's integration rows as the apply began */
};

/* The Integration that holds the user's row for kind, or NULL. */
static const char *row_owner(const struct gq__user_rows *r, const char *kind)
{
    size_t i;

    for (i = 0; i < r->n; i++)
        if (strcmp(r->ptrs[i]->kind, kind) == 0)
            return r->objs[i].meta.name;
    return NULL;
}

static void strs_free(struct gq_strs *s)
{
    while (s->n > 0)
        free(s->v[--s->n]);
    free(s->v);
    s->v = NULL;
}

static void results_clear(struct apply_ctx *c)
{
    size_t i;

    for (i = 0; i < c->nresults; i++) {
        free(c->results[i].resource);
        free(c->results[i].namespace);
        free(c->results[i].name);
        free(c->results[i].note);
        free(c->results[i].workload);
        strs_free(&c->results[i].unknown);
        strs_free(&c->results[i].not_enforced);
    }
    c->nresults = 0;
}

/* A copy of n strings into out (empty first); false when out of memory. */
static bool strs_copy(struct gq_strs *out, const char *const *v, size_t n)
{
    memset(out, 0, sizeof(*out));
    if (!n || !(out->v = calloc(n, sizeof(*out->v))))
        return !n;
    for (out->n = 0; out->n < n; out->n++)
        if (!(out->v[out->n] = strdup(v[out->n])))
            return false;
    return true;
}

/* Keep what an item says, to report it after COMMIT. */
static int add_item(struct apply_ctx *c, const gq_apply_item *item, gq_error *err)
{
    struct result *r;
    bool ok;

    if (c->nresults == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 16;

        if (!(r = realloc(c->results, cap * sizeof(*r))))
            return gq__error(err, GQ_ENOMEM, "out of memory");
        c->results = r;
        c->cap = cap;
    }
    r = &c->results[c->nresults];
    r->resource = gq__strdup(item->resource);
    r->namespace = gq__strdup(item->namespace);
    r->name = gq__strdup(item->name);
    r->note = gq__strdup(item->note);
    r->workload = gq__strdup(item->workload);
    r->what = item->result;
    ok = strs_copy(&r->unknown, item->unknown_fields, item->nunknown_fields);
    ok = strs_copy(&r->not_enforced, item->not_enforced, item->nnot_enforced) && ok;
    c->nresults++;
    if (!ok || !r->resource || (item->namespace && !r->namespace) || (item->name && !r->name) ||
        (item->note && !r->note) || (item->workload && !r->workload))
        return gq__error(err, GQ_ENOMEM, "out of memory");
    return GQ_OK;
}

static int add_result(struct apply_ctx *c, const struct gq_object *obj, const char *resource,
                      gq_apply_result what, const char *note, gq_error *err)
{
    gq_apply_item item;

    memset(&item, 0, sizeof(item));
    item.resource = resource;
    if (obj) {
        item.namespace = obj->meta.namespace;
        item.name = obj->meta.name;
        gq__apply_item_fields(&item, obj);
    }
    item.result = what;
    item.note = note;
    return add_item(c, &item, err);
}

static gq_apply_result from_put(enum gq_put_result r)
{
    return r == GQ_PUT_CREATED      ? GQ_APPLY_CREATED
           : r == GQ_PUT_CONFIGURED ? GQ_APPLY_CONFIGURED
                                    : GQ_APPLY_UNCHANGED;
}

/* -------------------------------------------------- apply: queue objects */

static int apply_object(struct apply_ctx *c, struct gq_object *obj, gq_error *err)
{
    enum gq_put_result put;
    const char *res = gq__kind_resource(obj->kind);
    int rc;

    if (c->opts->mode == GQ_MODE_SUBMIT)
        return gq__error(err, GQ_EINVALID,
                         "gpuq submit takes Jobs and Workloads, not a %s (use gpuq apply)",
                         gq__kind_name(obj->kind));
    if (c->opts->mode == GQ_MODE_DELETE) {
        rc = gq__store_delete_object(c->db->st, obj->kind, obj->meta.namespace, obj->meta.name,
                                     c->now_ms, err);
        if (rc == GQ_OK)
            rc = add_result(c, obj, res, GQ_APPLY_DELETED, NULL, err);
        return rc == GQ_OK ? gq__api_readjust(c->db, obj->kind, obj->meta.namespace, err) : rc;
    }
    if ((rc = gq__object_prepare(obj, err)) != GQ_OK)
        return rc;
    rc = gq__store_put_object(c->db->st, obj, obj->canonical, c->now_ms, &put, err);
    if (rc == GQ_OK && c->opts->mode == GQ_MODE_CREATE && put != GQ_PUT_CREATED)
        return gq__error(err, GQ_EEXISTS, "%s \"%s\" already exists", res, obj->meta.name);
    if (rc == GQ_OK)
        rc = add_result(c, obj, res, from_put(put), NULL, err);
    if (rc == GQ_OK && put != GQ_PUT_UNCHANGED)
        rc = gq__api_readjust(c->db, obj->kind, obj->meta.namespace, err);
    return rc;
}

int gq__api_readjust(gq_db *db, enum gq_kind kind, const char *ns, gq_error *err)
{
    size_t changed;

    if (kind != GQ_KIND_LIMIT_RANGE && kind != GQ_KIND_RUNTIME_CLASS &&
        kind != GQ_KIND_CONFIGURATION)
        return GQ_OK;
    return gq__apply_readjust(db, kind == GQ_KIND_LIMIT_RANGE ? ns : NULL, &changed, err);
}

/* ----------------------------------------------------------- apply: docs */

/* engine/apply.c's word on a Job or Workload, kept to report after COMMIT. */
static int on_workload(const gq_apply_item *item, void *payload, gq_error *err)
{
    return add_item(payload, item, err);
}

static int on_object(struct gq_object *obj, const struct gq_doc_loc *loc, int decode_rc,
                     void *payload, gq_error *err)
{
    struct apply_ctx *c = payload;

    (void)loc;
    if (decode_rc == GQ_EUNSUPPORTED) {
        if (c->opts->mode == GQ_MODE_SUBMIT)
            return gq__error(err, GQ_EINVALID, "gpuq submit takes jobs and Workloads: %s",
                             err->msg);
        if (c->opts->strict)
            return GQ_EUNSUPPORTED;
        return add_result(c, NULL, "", GQ_APPLY_SKIPPED, err->msg, err);
    }
    if (obj->kind == GQ_KIND_INTEGRATION && c->rows) {
        /* Kinds are unique in the table: another Integration may not take this one's. */
        const char *owner = row_owner(c->rows, obj->u.integ.kind);

        if (owner && strcmp(owner, obj->meta.name) != 0)
            return gq__error(err, GQ_EINVALID,
                             "spec.kind: invalid value \"%s\": Integration %s already has the "
                             "row for kind %s",
                             obj->u.integ.kind, owner, obj->u.integ.kind);
    }
    if (obj->kind == GQ_KIND_CONFIGURATION && !obj->meta.name &&
        !(obj->meta.name = strdup("config")))
        return gq__error(err, GQ_ENOMEM, "out of memory");
    if (obj->kind == GQ_KIND_JOB || obj->kind == GQ_KIND_WORKLOAD)
        return gq__apply_workload(c->db, c->opts, obj, c->now_ms, on_workload, c, err);
    return apply_object(c, obj, err);
}

static int apply_txn(struct gq_store *st, void *payload, gq_error *err)
{
    struct apply_ctx *c = payload;
    struct gq_decode_options dopts = {c->opts->default_namespace, NULL, NULL, 0, false, false};
    struct gq__user_rows rows;
    int rc;

    results_clear(c); /* a retried transaction starts over */
    gq__apply_forget(c->db);
    /* Kinds the user declared with an Integration decode as jobs too. */
    if ((rc = gq__engine_load_integrations(st, &rows, err)) != GQ_OK)
        return rc;
    dopts.integrations = &rows.set;
    dopts.runtimes = rows.runtimes;
    dopts.nruntimes = rows.nruntimes;
    dopts.check_fields = c->opts->mode != GQ_MODE_DELETE;
    dopts.strict_fields = c->opts->strict;
    c->rows = &rows;
    rc = gq__manifest_load(c->source, c->from_path ? NULL : c->buf, c->len, c->source, &dopts,
                           c->opts->mode == GQ_MODE_DELETE ? NULL : gq__object_prepare,
                           on_object, c, err);
    c->rows = NULL;
    gq__user_rows_free(&rows);
    if (rc == GQ_OK && c->opts->dry_run)
        rc = GQ__DRY_RUN; /* roll back, but report */
    return rc;
}

static int apply_run(struct apply_ctx *c, gq_apply_fn fn, void *payload, gq_error *err)
{
    gq_apply_options defaults = GQ_APPLY_OPTIONS_INIT;
    gq_apply_item item;
    size_t i;
    int rc;

    if (!c->opts)
        c->opts = &defaults;
    if ((rc = gq__version_check(c->opts->version, GQ_APPLY_OPTIONS_VERSION, "gq_apply_options",
                                err)) != GQ_OK)
        return rc;
    c->now_ms = c->opts->now_ms ? c->opts->now_ms : gq__store_now(c->db->st);
    rc = gq__store_write(c->db->st, apply_txn, c, err);
    gq__apply_forget(c->db);
    if (rc == GQ__DRY_RUN)
        rc = GQ_OK;
    for (i = 0; rc == GQ_OK && fn && i < c->nresults; i++) {
        item.resource = c->results[i].resource;
        item.namespace = c->results[i].namespace;
        item.name = c->results[i].name;
        item.workload = c->results[i].workload;
        item.result = c->results[i].what;
        item.note = c->results[i].note;
        item.unknown_fields = (const char *const *)c->results[i].unknown.v;
        item.nunknown_fields = c->results[i].unknown.n;
        item.not_enforced = (const char *const *)c->results[i].not_enforced.v;
        item.nnot_enforced = c->results[i].not_enforced.n;
        fn(&item, payload);
    }
    results_clear(c);
    free(c->results);
    return rc;
}

int gq_apply_path(gq_db *db, const char *path, const gq_apply_options *opts, gq_apply_fn fn,
                  void *payload, gq_error *err)
{
    struct apply_ctx c = {db, opts, NULL, 0, path, true, 0, NULL, 0, 0, NULL};

    return apply_run(&c, fn, payload, err);
}

int gq_apply_buffer(gq_db *db, const char *buf, size_t len, const char *source,
                    const gq_apply_options *opts, gq_apply_fn fn, void *payload, gq_error *err)
{
    struct apply_ctx c = {db, opts, buf, len, source, false, 0, NULL, 0, 0, NULL};

    return apply_run(&c, fn, payload, err);
}

/* ------------------------------------------------------------ event lines */

int gq_event_print(FILE *out, const gq_event *e, gq_event_style style)
{
    char buf[1024], *line = buf;
    size_t n = gq_event_format(buf, sizeof(buf), e, style);
    int rc;

    /* A long message (an admission's many flavors) was cut: format it again, whole. */
    if (n >= sizeof(buf) && !(line = malloc(n + 1)))
        line = buf; /* out of memory: the line cut is better than none */
    else if (line != buf)
        gq_event_format(line, n + 1, e, style);
    rc = fputs(line, out) == EOF || fputc('\n', out) == EOF ? EOF : 0;
    if (line != buf)
        free(line);
    return fflush(out) == EOF ? EOF : rc;
}
