/*
 * render.c: gq_render and its pager, -o json and -o yaml of the database's
 * objects as kubectl prints them. This side reads: the stored objects, a
 * queue's flavors and counts, a workload's row, admission checks and
 * ProvisioningRequests, each through a named read of the store
 * (store_render.h) or a public listing; the printer (manifest_print.h,
 * manifest/manifest_render.c) builds each object from what it is handed
 * and writes it. No JSON tree crosses from one side to the other.
 *
 * Invariants: one call reads one snapshot (a read transaction), and the
 * printer writes in chunks, never per line, through the caller's
 * gq_write_fn; nothing reaches it before the first chunk is full, so a read
 * transaction that has to be retried has written nothing yet, and one that
 * has written cannot be retried (render_finish).
 *
 * Sizes: a List of 100,000 workloads is one walk of gq_workload_list plus one
 * indexed lookup of the stored row per workload; every object is built,
 * printed and freed before the next one, so memory stays at one object plus
 * a chunk. A queue listing first reads every queue's counts once.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "admit.h" /* gq__grow */
#include "api.h"
#include "error.h"
#include "manifest_print.h"
#include "model.h"
#include "sort.h"
#include "store.h"
#include "store_render.h"
#include "util.h"

/* The render in progress: what to read from and where the printer is. */
struct render {
    gq_db *db;
    struct gq__mf_printer *p; /* owned */
    bool list;                /* a List of items, not one object */
    bool stop;                /* one object was asked for and has been written */
    gq_error *err;
    int64_t now;              /* the database's clock, read once for every workload */
};

/* Returned by an item's callback to end the walk once the one object asked for is written. */
#define WALK_STOP 1

/* rc after writing one item; WALK_STOP once the one object asked for is written. */
static int item_done(struct render *r, int rc)
{
    if (rc == GQ_OK && !r->list) {
        r->stop = true;
        return WALK_STOP;
    }
    return rc;
}

/*
 * rc of an item's begin: a stored spec that is no JSON object is a damaged
 * database, said with its path.
 */
static int begun(struct render *r, int rc, const char *name)
{
    if (rc == GQ__MF_NOT_OBJECT)
        return gq__store_damaged(r->db->st, r->err, "the spec of \"%.60s\" is not a JSON object",
                                 name);
    return rc;
}

/* Print the item built, and forget it. */
static int item_print(struct render *r, struct gq__mf_item *it, int rc)
{
    if (rc == GQ_OK)
        rc = gq__mf_item_print(r->p, it);
    gq__mf_item_free(it);
    return rc;
}

/* The printer's flavors, for the release: the stored spec, NULL when unreadable. */
static char *flavor_spec(const char *name, void *payload)
{
    struct render *r = payload;
    char *spec = NULL;

    /* As it always was: a flavor that cannot be read is released without its labels. */
    if (gq__store_flavor_spec(r->db->st, name, &spec, NULL) != GQ_OK)
        return NULL;
    return spec;
}

/* ----------------------------------------------------------- queue statuses */

/* A queue's status columns as gq_object_list computes them, kept for lookup. */
struct qstat {
    char *namespace; /* LocalQueue only */
    char *name;
    struct gq__mf_queue q; /* q.inactive owned */
};

struct qstats {
    struct qstat *v;
    size_t n, cap;
};

static void qstats_clear(struct qstats *s)
{
    size_t i;

    for (i = 0; i < s->n; i++) {
        free(s->v[i].namespace);
        free(s->v[i].name);
        free((char *)(uintptr_t)s->v[i].q.inactive);
    }
    free(s->v);
    memset(s, 0, sizeof(*s));
}

static int qstat_row(const gq_object_info *o, void *payload)
{
    struct qstats *s = payload;
    struct qstat *q;
    char *inactive;

    if (gq__grow(&s->v, &s->cap, s->n, sizeof(*s->v)) < 0)
        return GQ_ENOMEM;
    q = &s->v[s->n++];
    q->namespace = gq__strdup(o->namespace);
    q->name = gq__strdup(o->name);
    q->q.inactive = inactive = gq__strdup(o->inactive);
    q->q.pending = o->pending;
    q->q.reserving = o->reserving;
    q->q.admitted = o->admitted;
    if (!q->name || (o->namespace && !q->namespace) || (o->inactive && !inactive))
        return GQ_ENOMEM;
    return 0;
}

static int qstat_cmp(const void *a, const void *b)
{
    const struct qstat *x = a, *y = b;
    int c = strcmp(x->namespace ? x->namespace : "", y->namespace ? y->namespace : "");

    return c ? c : strcmp(x->name, y->name);
}

/* A queue's status by (namespace, name), NULL if none; qstats_load sorted them for this. */
static const struct gq__mf_queue *
qstat_find(const struct qstats *s, const char *ns, const char *name)
{
    struct qstat key = {(char *)(uintptr_t)ns, (char *)(uintptr_t)name, {NULL, 0, 0, 0}};
    const struct qstat *q = s->n ? bsearch(&key, s->v, s->n, sizeof(*s->v), qstat_cmp) : NULL;

    return q ? &q->q : NULL;
}

static int qstats_load(struct render *r, const char *resource, struct qstats *s)
{
    int rc = gq_object_list(r->db, resource, NULL, qstat_row, s, r->err);

    if (rc == GQ_ENOMEM)
        return gq__error(r->err, GQ_ENOMEM, "out of memory");
    gq__qsort(s->v, s->n, sizeof(*s->v), qstat_cmp);
    return rc;
}

/* ------------------------------------------------------------ queue objects */

/* What an object render needs besides its rows: the listings' statuses. */
struct objects {
    struct render *r;
    enum gq_kind kind;
    struct qstats cqs; /* ClusterQueue statuses (for ClusterQueues and LocalQueues) */
    struct qstats lqs; /* LocalQueue statuses */
};

static int flavor_row(const struct gq__render_flavor *f, void *payload, gq_error *err)
{
    struct gq__mf_flavor mf = {f->flavor, f->resource, f->nominal, f->reserved, f->admitted};

    (void)err;
    gq__mf_queue_flavor(payload, &mf);
    return 0;
}

/* A ClusterQueue's or LocalQueue's status: Active, counts, and the flavors of its ClusterQueue. */
static int queue_status(struct objects *q, struct gq__mf_item *it, const struct gq__mf_object *o)
{
    struct gq_store *st = q->r->db->st;

    if (q->kind == GQ_KIND_CLUSTER_QUEUE) {
        gq__mf_queue_status(it, o, qstat_find(&q->cqs, NULL, o->name), NULL);
        return gq__store_render_flavors(st, o->name, NULL, NULL, flavor_row, it, q->r->err);
    }
    gq__mf_queue_status(it, o, qstat_find(&q->lqs, o->ns, o->name),
                        qstat_find(&q->cqs, NULL, o->cluster_queue));
    return gq__store_render_flavors(st, o->cluster_queue, o->ns, o->name, flavor_row, it,
                                    q->r->err);
}

static int object_row(const struct gq__render_object *row, void *payload, gq_error *err)
{
    struct objects *q = payload;
    struct gq__mf_object o = {q->kind,         row->ns,         row->name,       row->uid,
                              row->spec,       row->created_ms, row->updated_ms, row->cluster_queue,
                              row->stop_policy, row->afs_consumed, row->afs_last_ms};
    struct gq__mf_item *it;
    int rc;

    (void)err;
    rc = begun(q->r, gq__mf_object_begin(q->r->p, &o, &it), o.name);
    if (rc == GQ_OK && (q->kind == GQ_KIND_CLUSTER_QUEUE || q->kind == GQ_KIND_LOCAL_QUEUE))
        rc = queue_status(q, it, &o);
    return item_print(q->r, it, rc);
}

static int render_objects(struct render *r, enum gq_kind kind, const char *ns, const char *name)
{
    struct objects q = {r, kind, {NULL, 0, 0}, {NULL, 0, 0}};
    int rc = GQ_OK;

    if (kind == GQ_KIND_CLUSTER_QUEUE || kind == GQ_KIND_LOCAL_QUEUE)
        rc = qstats_load(r, "clusterqueue", &q.cqs);
    if (rc == GQ_OK && kind == GQ_KIND_LOCAL_QUEUE)
        rc = qstats_load(r, "localqueue", &q.lqs);
    if (rc == GQ_OK)
        rc = gq__store_render_objects(r->db->st, kind, gq__kind_is_namespaced(kind) ? ns : NULL,
                                      name, object_row, &q, r->err);
    qstats_clear(&q.cqs);
    qstats_clear(&q.lqs);
    if (rc == GQ_OK && name && gq__mf_printer_count(r->p) == 0)
        rc = gq__error(r->err, GQ_ENOTFOUND, "%s \"%s\" not found", gq__kind_resource(kind), name);
    return rc;
}

/* ---------------------------------------------------------------- workloads */

/* One workload being rendered: the listing's row, and the item once its stored row is read. */
struct wl_render {
    struct render *r;
    const gq_workload_info *wl;
    struct gq__mf_item *it; /* NULL until read (or when the workload has gone) */
};

static int spec_row(const struct gq__render_workload *row, void *payload, gq_error *err)
{
    struct wl_render *w = payload;
    struct gq__mf_workload mf = {row->spec,           row->admission,       row->updated_ms,
                                 row->evicted_reason, row->evicted_message, row->preempted_reason,
                                 row->evicted_ms,     row->evictions,       row->has_duration,
                                 row->duration_ms,    row->pods_ready_reason, row->pods_ready_ms,
                                 row->requeue_count,  row->requeue_ms,
                                 w->r->now};

    (void)err;
    return begun(w->r, gq__mf_workload_begin(w->r->p, w->wl, &mf, &w->it), w->wl->name);
}

static int check_row(const struct gq__render_check *c, void *payload, gq_error *err)
{
    struct gq__mf_check mf = {c->name, c->state, c->message, c->updated_ms};

    (void)err;
    gq__mf_workload_check(payload, &mf);
    return 0;
}

static int request_row(const struct gq__release_request *q, void *payload, gq_error *err)
{
    struct gq__mf_request mf = {q->spec, q->templates, q->status, q->updates};

    (void)err;
    gq__mf_workload_request(payload, &mf);
    return 0;
}

static int wl_row(const gq_workload_info *wl, void *payload)
{
    struct render *r = payload;
    struct gq_store *st = r->db->st;
    struct wl_render w = {r, wl, NULL};
    int rc = gq__store_render_workload(st, wl->uid, spec_row, &w, r->err);

    if (!w.it) /* gone since the listing read it, or damaged */
        return item_done(r, rc);
    /* A workload holding quota shows its admission checks and its requests. */
    if (rc == GQ_OK && gq__mf_workload_holds(w.it) &&
        (rc = gq__store_render_checks(st, wl->uid, check_row, w.it, r->err)) == GQ_OK)
        rc = gq__store_release_requests(st, wl->uid, request_row, w.it, r->err);
    return item_done(r, item_print(r, w.it, rc));
}

static int render_workloads(struct render *r,
                            const char *ns,
                            const char *name,
                            const gq_workload_filter *filter)
{
    gq_workload_filter f = GQ_WORKLOAD_FILTER_INIT;
    int rc;

    if (filter) /* its version checked by gq_render */
        f = *filter;
    if (ns)
        f.namespace = ns;
    if (name)
        f.name = name;
    rc = gq_workload_list(r->db, &f, wl_row, r, r->err);
    if (rc == WALK_STOP && r->stop)
        rc = GQ_OK;
    if (rc == GQ_OK && name && gq__mf_printer_count(r->p) == 0)
        rc = gq__error(r->err, GQ_ENOTFOUND, "workload \"%s\" not found", name);
    return rc;
}

/* ---------------------------------------------------- provisioning requests */

static int provreq_item(const gq_provreq_info *pr, void *payload)
{
    struct render *r = payload;
    struct gq__mf_item *it;
    int rc = begun(r, gq__mf_provreq_begin(r->p, pr, &it), pr->name);

    return item_done(r, item_print(r, it, rc));
}

static int podtemplate_item(const gq_podtemplate_info *pt, void *payload)
{
    struct render *r = payload;
    struct gq__mf_item *it;
    int rc = begun(r, gq__mf_podtemplate_begin(r->p, pt, &it), pt->name);

    return item_done(r, item_print(r, it, rc));
}

/* ---------------------------------------------------------------- gq_render */

struct render_args {
    struct render *r;
    enum gq_kind kind;
    const char *ns;
    const char *name;
    const gq_workload_filter *filter;
};

/* Forget a rolled-back attempt; nothing of it has reached the sink. */
static void render_reset(struct render *r)
{
    gq__mf_printer_reset(r->p);
    r->stop = false;
}

/*
 * The code a render ends with: out of memory said once, and a busy database
 * after output was handed to the caller an I/O error, since what was written
 * cannot be taken back by a retry.
 */
static int render_finish(const struct render *r, int rc, gq_error *err)
{
    if (rc == GQ_ENOMEM && (!err || err->code != GQ_ENOMEM))
        rc = gq__error(err, GQ_ENOMEM, "out of memory");
    if (rc == GQ_EBUSY && gq__mf_printer_wrote(r->p)) {
        char msg[sizeof(err->msg)];

        snprintf(msg, sizeof(msg), "%s", err ? err->msg : "database is busy");
        rc = gq__error(err, GQ_EIO, "%s", msg);
    }
    return rc;
}

static int render_txn(struct gq_store *st, void *payload, gq_error *err)
{
    struct render_args *a = payload;
    struct render *r = a->r;
    int rc;

    (void)st;
    render_reset(r);
    if (a->kind == GQ_KIND_WORKLOAD || a->kind == GQ_KIND_JOB)
        rc = render_workloads(r, a->ns, a->name, a->filter);
    else if (a->kind == GQ_KIND_PROVISIONING_REQUEST)
        rc = gq_provreq_list(r->db, a->ns, a->name, provreq_item, r, err);
    else if (a->kind == GQ_KIND_POD_TEMPLATE)
        rc = gq_podtemplate_list(r->db, a->ns, a->name, podtemplate_item, r, err);
    else
        rc = render_objects(r, a->kind, a->ns, a->name);
    if (rc == WALK_STOP && r->stop)
        rc = GQ_OK;
    if (rc == GQ_OK)
        rc = gq__mf_printer_end(r->p, NULL);
    return render_finish(r, rc, err);
}

/* A render of db into fn: r->p is the printer of format (a List when list). */
static int render_open(struct render *r,
                       gq_db *db,
                       gq_format format,
                       bool list,
                       gq_write_fn fn,
                       void *payload,
                       gq_error *err)
{
    memset(r, 0, sizeof(*r));
    r->db = db;
    r->list = list;
    r->err = err;
    r->now = gq__store_now(db->st);
    return gq__mf_printer_new(&r->p, format, list, fn, payload, flavor_spec, r, err);
}

int gq_render(gq_db *db,
              const char *resource,
              const char *namespace,
              const char *name,
              const gq_workload_filter *filter,
              gq_format format,
              gq_write_fn fn,
              void *payload,
              gq_error *err)
{
    enum gq_kind kind = resource ? gq__kind_lookup(resource) : GQ_KIND_NONE;
    struct render r;
    struct render_args a = {&r, kind, namespace, name, filter};
    int rc;

    GQ_ASSERT_ARG(db && fn);
    if (filter && (rc = gq__version_check(filter->version, GQ_WORKLOAD_FILTER_VERSION,
                                          "gq_workload_filter", err)) != GQ_OK)
        return rc;
    if (kind == GQ_KIND_NONE)
        return gq__error(err, GQ_EINVALID, "the server doesn't have a resource type \"%s\"",
                         resource ? resource : "");
    if (format != GQ_FORMAT_JSON && format != GQ_FORMAT_YAML)
        return gq__error(err, GQ_EINVALID, "unknown output format %d", (int)format);
    if ((rc = render_open(&r, db, format, name == NULL, fn, payload, err)) != GQ_OK)
        return rc;
    rc = gq__store_read(db->st, render_txn, &a, err);
    gq__mf_printer_free(r.p);
    return rc;
}

/* ------------------------------------------------------------ the pager */

struct gq_render_pager {
    gq_workload_filter filter; /* its strings point into strs */
    char *strs[5];             /* owned copies of the filter's strings */
    char *after;               /* owned continue token of the next page; NULL: the first */
    int64_t limit;             /* items in the List at most; 0: every one */
    size_t written;            /* items written by the pages so far */
    bool begun;                /* the List's head has been written */
    bool done;                 /* the List has been ended */
};

struct pager_args {
    struct render *r;
    gq_render_pager *p;
    char *next; /* the page's gq_workload_list_page token; owned */
    bool ended; /* the page ended the List */
};

/* The page's items, then the List's end or (mid-List) what the buffer holds. */
static int pager_page(struct pager_args *a, gq_error *err)
{
    struct render *r = a->r;
    gq_render_pager *p = a->p;
    int64_t page = GQ_RENDER_PAGE;
    int rc;

    if (p->limit > 0 && p->limit - (int64_t)p->written < page)
        page = p->limit - (int64_t)p->written;
    rc = gq_workload_list_page(r->db, &p->filter, p->after, page, wl_row, r, &a->next, err);
    if (rc != GQ_OK)
        return rc;
    if (!a->next || (p->limit > 0 && (int64_t)gq__mf_printer_count(r->p) == p->limit)) {
        /* Only a List cut at its limit says where to go on. */
        a->ended = a->next != NULL;
        return gq__mf_printer_end(r->p, a->next);
    }
    return gq__mf_printer_flush(r->p);
}

static int pager_txn(struct gq_store *st, void *payload, gq_error *err)
{
    struct pager_args *a = payload;
    struct render *r = a->r;
    int rc;

    (void)st;
    render_reset(r);
    gq__mf_printer_resume(r->p, a->p->written, a->p->begun);
    a->ended = false;
    gq_free(a->next);
    a->next = NULL;
    rc = pager_page(a, err);
    return render_finish(r, rc, err);
}

static bool pager_copy(gq_render_pager *p, const gq_workload_filter *f)
{
    const char *from[5] = {f->namespace, f->state, f->local_queue, f->cluster_queue, f->name};
    size_t i;

    for (i = 0; i < 5; i++)
        if (from[i] && !(p->strs[i] = strdup(from[i])))
            return false;
    p->filter.namespace = p->strs[0];
    p->filter.state = p->strs[1];
    p->filter.local_queue = p->strs[2];
    p->filter.cluster_queue = p->strs[3];
    p->filter.name = p->strs[4];
    return true;
}

int gq_render_pager_new(gq_render_pager **out,
                        const gq_workload_filter *filter,
                        const char *continue_token,
                        int64_t limit,
                        gq_error *err)
{
    gq_workload_filter none = GQ_WORKLOAD_FILTER_INIT;
    gq_render_pager *p;
    int rc;

    GQ_ASSERT_ARG(out);
    *out = NULL;
    if (!filter)
        filter = &none;
    if ((rc = gq__version_check(filter->version, GQ_WORKLOAD_FILTER_VERSION, "gq_workload_filter",
                                err)) != GQ_OK)
        return rc;
    if (limit < 0)
        return gq__error(err, GQ_EINVALID, "invalid limit %" PRId64 ": want 0 or more", limit);
    if (!(p = calloc(1, sizeof(*p))))
        return gq__error(err, GQ_ENOMEM, "out of memory");
    p->filter = none;
    p->limit = limit;
    if (!pager_copy(p, filter) || (continue_token && !(p->after = strdup(continue_token)))) {
        gq_render_pager_free(p);
        return gq__error(err, GQ_ENOMEM, "out of memory");
    }
    *out = p;
    return GQ_OK;
}

int gq_render_pager_next(
    gq_render_pager *p, gq_db *db, gq_write_fn fn, void *payload, bool *done_out, gq_error *err)
{
    struct render r;
    struct pager_args a = {&r, p, NULL, false};
    int rc = GQ_OK;

    GQ_ASSERT_ARG(p && db && fn && done_out);
    if (!p->done && (rc = render_open(&r, db, GQ_FORMAT_JSON, true, fn, payload, err)) == GQ_OK) {
        if ((rc = gq__store_read(db->st, pager_txn, &a, err)) == GQ_OK) {
            size_t n = gq__mf_printer_count(r.p);

            p->done = a.ended || !a.next || (p->limit > 0 && (int64_t)n == p->limit);
            p->written = n;
            p->begun = true;
            gq_free(p->after);
            p->after = a.next;
            a.next = NULL;
        }
        gq__mf_printer_free(r.p);
    }
    *done_out = p->done;
    gq_free(a.next);
    return rc;
}

void gq_render_pager_free(gq_render_pager *p)
{
    size_t i;

    if (!p)
        return;
    for (i = 0; i < 5; i++)
        free(p->strs[i]);
    gq_free(p->after);
    free(p);
}
