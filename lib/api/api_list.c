/*
 * api_list.c: listing workloads, queue objects, and the ProvisioningRequests
 * and PodTemplates gpuq created for admission checks; and deleting objects
 * by name. Each listing is one read of the store (store_read.h) in one
 * transaction, so that it is one consistent snapshot and the command that
 * prints 100,000 rows does no per-row work beyond filling the public struct.
 * Status columns (pending / admitted counts, a ClusterQueue's reason to be
 * inactive) are computed by the store from the same tables admission uses.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api.h"
#include "engine.h"
#include "error.h"
#include "plain.h"
#include "sort.h"
#include "state.h"
#include "store.h"
#include "store_read.h"
#include "util.h"

/* ---------------------------------------------------------------- workloads */

/* Which workloads a state filter selects. */
static enum gq_wl_select state_select(const char *state)
{
    if (!state)
        return GQ_WL_SELECT_NOT_CANCELLED;
    if (strcasecmp(state, "all") == 0)
        return GQ_WL_SELECT_EVERY;
    if (strcasecmp(state, gq__wl_state_name(GQ_WL_ADMITTED)) == 0)
        return GQ_WL_SELECT_ADMITTED;
    if (strcasecmp(state, "quotareserved") == 0 ||
        strcasecmp(state, gq__wl_state_name(GQ_WL_RESERVED)) == 0)
        return GQ_WL_SELECT_RESERVED;
    return GQ_WL_SELECT_IN_STATE; /* that state exactly */
}

/*
 * Positions in queue: one pass over pending workloads in queue order (read
 * off the workloads_pending_order index, no sort) collects (id, position)
 * pairs; the listing query then looks them up, sorted by id on first use.
 * Computing them in SQL with a window function and a join cost 200 ms of a
 * 280 ms `gpuq list -A` of 100,000. Not an array indexed by id: a damaged
 * file's id may be any 64-bit number.
 */
struct positions {
    int64_t *pos;       /* (id, position) pairs, two entries each */
    int64_t n;          /* pairs in pos */
    int64_t cap;        /* pairs allocated */
    bool sorted;        /* pos sorted by id */
    char last_ns[256];  /* the queue of the previous row */
    char last_lq[256];
    int64_t next;       /* the next position in that queue */
    bool failed;
};

static int position_row(const struct gq_queue_pos *q, void *payload)
{
    struct positions *p = payload;
    const char *ns = q->ns ? q->ns : "", *lq = q->queue ? q->queue : "";
    int64_t *grown;

    if (p->n == p->cap) {
        int64_t cap = p->cap ? p->cap * 2 : 256;

        if (!(grown = realloc(p->pos, (size_t)cap * 2 * sizeof(*grown)))) {
            p->failed = true;
            return GQ_ENOMEM;
        }
        p->pos = grown;
        p->cap = cap;
    }
    if (strcmp(ns, p->last_ns) != 0 || strcmp(lq, p->last_lq) != 0) {
        snprintf(p->last_ns, sizeof(p->last_ns), "%s", ns);
        snprintf(p->last_lq, sizeof(p->last_lq), "%s", lq);
        p->next = 0;
    }
    p->pos[2 * p->n] = q->id;
    p->pos[2 * p->n + 1] = p->next++;
    p->n++;
    p->sorted = false;
    return 0;
}

static int pair_cmp(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

    return (x > y) - (x < y);
}

/* The position of workload id, or -1 when it is not pending. */
static int64_t position_of(struct positions *p, int64_t id)
{
    const int64_t *hit;

    if (!p->sorted) {
        gq__qsort(p->pos, (size_t)p->n, 2 * sizeof(*p->pos), pair_cmp);
        p->sorted = true;
    }
    hit = p->n ? bsearch(&id, p->pos, (size_t)p->n, 2 * sizeof(*p->pos), pair_cmp) : NULL;
    return hit ? hit[1] : -1;
}

/* Where a page starts: after this workload in the list's order (namespace, created, id). */
struct wl_key {
    char ns[256];
    int64_t created;
    int64_t id;
};

struct wl_walk {
    gq_db *db;
    struct gq_store *st;           /* the transaction's, for the positions read on demand */
    const gq_workload_filter *filter;
    gq_workload_fn fn;
    void *payload;
    bool want_positions;           /* the state filter lets pending workloads through */
    bool have_positions;           /* read (on the first pending row, so pages without any
                                      skip the two passes over the queue) */
    struct positions positions;    /* in the LocalQueue */
    struct positions cq_positions; /* in the ClusterQueue */
    int64_t now;                   /* the database's clock */
    struct gq_wfpr wfpr;           /* the Configuration's waitForPodsReady */
    gq_error *err;                 /* the caller's, for the positions read on demand */
    int64_t limit;                 /* rows to hand to fn, a page; 0: every row */
    bool has_after;                /* the page starts after `after`, else at the first row */
    struct wl_key after;
    int64_t seen;                  /* rows handed to fn */
    bool more;                     /* a row came after the limit-th */
    struct wl_key last;            /* the last row handed to fn */
};

static int read_positions(struct wl_walk *walk, gq_error *err);

/*
 * waitForPodsReady: an admitted workload's PodsReady reason while its pods
 * are not all ready (none yet is WaitForStart, as Kueue's job reconciler
 * sets it at admission), and when PodsReadyTimeout is due, as the engine's
 * timeout pass reckons it (gq__store_pods_ready_due); NULL when not waiting.
 */
static const char *pods_waiting(const struct wl_walk *walk, const struct gq_wl_row *r,
                                int64_t *deadline)
{
    const char *reason = r->pods_ready_reason;

    *deadline = 0;
    if (!walk->wfpr.on || (r->parsed != GQ_WL_ADMITTED && r->parsed != GQ_WL_RUNNING))
        return NULL;
    if (!reason && r->parsed == GQ_WL_ADMITTED)
        reason = "WaitForStart";
    if (!reason || strcmp(reason, "Started") == 0 || strcmp(reason, "Recovered") == 0)
        return NULL;
    if (strcmp(reason, "WaitForRecovery") != 0)
        *deadline = r->admitted_ms + walk->wfpr.timeout_ms;
    else if (walk->wfpr.recovery_ms > 0)
        *deadline = r->pods_ready_ms + walk->wfpr.recovery_ms;
    return reason;
}

static int wl_row(const struct gq_wl_row *r, void *payload)
{
    struct wl_walk *walk = payload;
    gq_workload_info wl;
    char where[1200];
    int rc;

    if (walk->limit > 0 && walk->seen == walk->limit) {
        walk->more = true; /* the store reads one row past the page to learn this */
        return 0;
    }
    if (walk->want_positions && !walk->have_positions && r->parsed == GQ_WL_PENDING &&
        (rc = read_positions(walk, walk->err)) != GQ_OK)
        return rc;
    walk->seen++;
    snprintf(walk->last.ns, sizeof(walk->last.ns), "%s", r->ns ? r->ns : "");
    walk->last.created = r->created_ms;
    walk->last.id = r->id;
    wl.namespace = r->ns;
    wl.name = r->name;
    wl.uid = r->uid;
    wl.job_kind = r->job_kind;
    wl.job_name = r->job_name;
    wl.local_queue = r->local_queue;
    wl.cluster_queue = r->cluster_queue;
    wl.state = r->state;
    wl.state_code = r->parsed == GQ_WL_NSTATES ? GQ_WORKLOAD_STATE_UNKNOWN
                                               : (gq_workload_state)r->parsed;
    wl.reason = r->reason;
    wl.message = r->message;
    wl.priority_class = r->priority_class;
    wl.priority = r->priority;
    wl.pods = r->pods;
    wl.gpus = r->gpus;
    wl.position = position_of(&walk->positions, r->id);
    wl.position_cq = position_of(&walk->cq_positions, r->id);
    wl.created_ms = r->created_ms;
    wl.admitted_ms = r->admitted_ms;
    wl.finished_ms = r->finished_ms;
    wl.requeue_ms = r->requeue_ms;
    wl.started_ms = r->started_ms;
    wl.reserved_ms = r->reserved_ms;
    wl.podsets = r->podset_counts;
    wl.job_api_version = r->job_api_version;
    wl.cluster_name = r->cluster_name;
    {
        struct gq_plain p = {wl.namespace,    wl.name,        wl.state,
                             wl.message,      wl.cluster_queue, wl.position_cq,
                             wl.reserved_ms,  wl.started_ms,  wl.requeue_ms,
                             walk->now,     NULL,           0};

        p.pods_ready = pods_waiting(walk, r, &p.pods_ready_deadline_ms);
        wl.where = gq__plain_status(where, sizeof(where), &p);
    }
    return walk->fn(&wl, walk->payload);
}

/* Positions in both queues, in the walk's transaction. */
static int read_positions(struct wl_walk *walk, gq_error *err)
{
    const char *ns = walk->filter->namespace;
    int rc;

    walk->have_positions = true;
    rc = gq__store_lq_order(walk->st, ns, position_row, &walk->positions, err);
    if (rc == GQ_OK)
        rc = gq__store_cq_order(walk->st, position_row, &walk->cq_positions, err);
    if (rc != GQ_OK && (walk->positions.failed || walk->cq_positions.failed))
        return gq__error(err, GQ_ENOMEM, "out of memory");
    return rc;
}

static int list_txn(struct gq_store *st, void *payload, gq_error *err)
{
    struct wl_walk *walk = payload;
    const gq_workload_filter *f = walk->filter;
    struct gq_wl_query q;
    int rc;

    memset(&q, 0, sizeof(q));
    q.ns = f->namespace;
    q.local_queue = f->local_queue;
    q.cluster_queue = f->cluster_queue;
    q.name = f->name;
    q.select = state_select(f->state);
    q.state = f->state;
    if (walk->limit > 0) {
        q.limit = walk->limit + 1; /* one past the page: whether more follow */
        q.has_after = walk->has_after;
        q.after_ns = walk->after.ns;
        q.after_created = walk->after.created;
        q.after_id = walk->after.id;
    }
    walk->st = st;
    walk->err = err;
    if ((rc = gq__engine_wfpr_load(st, &walk->wfpr, err)) != GQ_OK)
        return rc;
    /* Positions are only shown for pending workloads: skip them when none can show. */
    walk->want_positions = q.select == GQ_WL_SELECT_NOT_CANCELLED ||
                           q.select == GQ_WL_SELECT_EVERY ||
                           (q.select == GQ_WL_SELECT_IN_STATE &&
                            strcasecmp(f->state, gq__wl_state_name(GQ_WL_PENDING)) == 0);
    if (walk->want_positions && walk->limit == 0 && (rc = read_positions(walk, err)) != GQ_OK)
        return rc;
    rc = gq__store_workloads(st, &q, wl_row, walk, err);
    if (rc != GQ_OK && (walk->positions.failed || walk->cq_positions.failed))
        rc = gq__error(err, GQ_ENOMEM, "out of memory");
    return rc;
}

/* A walk set up for filter (NULL: every workload but cancelled ones). */
static int walk_init(struct wl_walk *walk, gq_db *db, const gq_workload_filter *filter,
                     gq_workload_fn fn, void *payload, gq_error *err)
{
    static const gq_workload_filter none = GQ_WORKLOAD_FILTER_INIT;
    int rc;

    GQ_ASSERT_ARG(db && fn);
    if (!filter)
        filter = &none;
    if ((rc = gq__version_check(filter->version, GQ_WORKLOAD_FILTER_VERSION,
                                "gq_workload_filter", err)) != GQ_OK)
        return rc;
    memset(walk, 0, sizeof(*walk));
    walk->db = db;
    walk->filter = filter;
    walk->fn = fn;
    walk->payload = payload;
    walk->now = gq__store_now(db->st);
    return GQ_OK;
}

/* Forget a rolled-back attempt's rows and positions (the store may run list_txn again). */
static int page_txn(struct gq_store *st, void *payload, gq_error *err)
{
    struct wl_walk *walk = payload;

    free(walk->positions.pos);
    free(walk->cq_positions.pos);
    memset(&walk->positions, 0, sizeof(walk->positions));
    memset(&walk->cq_positions, 0, sizeof(walk->cq_positions));
    walk->have_positions = walk->more = false;
    walk->seen = 0;
    return list_txn(st, walk, err);
}

int gq_workload_list(gq_db *db, const gq_workload_filter *filter, gq_workload_fn fn,
                     void *payload, gq_error *err)
{
    struct wl_walk walk;
    int rc;

    if ((rc = walk_init(&walk, db, filter, fn, payload, err)) != GQ_OK)
        return rc;
    rc = gq__store_read(db->st, list_txn, &walk, err);
    free(walk.positions.pos);
    free(walk.cq_positions.pos);
    return rc;
}

/* ------------------------------------------------------------ continue tokens */

/*
 * A continue token names the last workload of a page: base64url (RFC 4648,
 * no padding) of "1/<created_at>/<id>/<namespace>", opaque to clients as the
 * API server's are. It holds no snapshot: the next page is read afresh, and
 * a workload is listed once because the order's key never changes.
 */
static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

static char *token_encode(const struct wl_key *k)
{
    char text[320], *out;
    int n = snprintf(text, sizeof(text), "1/%" PRId64 "/%" PRId64 "/%s", k->created, k->id, k->ns);
    size_t i, o = 0, len = n < 0 ? 0 : (size_t)n;

    if (!(out = malloc(len / 3 * 4 + 5)))
        return NULL;
    for (i = 0; i < len; i += 3) {
        uint32_t v = (uint32_t)(unsigned char)text[i] << 16;

        v |= i + 1 < len ? (uint32_t)(unsigned char)text[i + 1] << 8 : 0;
        v |= i + 2 < len ? (unsigned char)text[i + 2] : 0;
        out[o++] = b64[v >> 18];
        out[o++] = b64[(v >> 12) & 63];
        if (i + 1 < len)
            out[o++] = b64[(v >> 6) & 63];
        if (i + 2 < len)
            out[o++] = b64[v & 63];
    }
    out[o] = '\0';
    return out;
}

/* base64url without padding into text (NUL-terminated); false if it is not that. */
static bool b64_decode(const char *s, char *text, size_t cap)
{
    size_t len = strlen(s), i, o = 0;
    uint32_t v = 0;
    int bits = 0;

    if (len % 4 == 1 || len / 4 * 3 + 3 >= cap)
        return false;
    for (i = 0; i < len; i++) {
        const char *p = s[i] ? strchr(b64, s[i]) : NULL;

        if (!p)
            return false;
        v = (v << 6) | (uint32_t)(p - b64);
        if ((bits += 6) >= 8) {
            bits -= 8;
            text[o++] = (char)((v >> bits) & 0xff);
        }
    }
    text[o] = '\0';
    return strlen(text) == o; /* no NUL inside */
}

static int token_decode(struct wl_key *k, const char *token, gq_error *err)
{
    char text[320];
    int used = 0;
    long long created, id;

    if (!b64_decode(token, text, sizeof(text)) ||
        sscanf(text, "1/%lld/%lld/%n", &created, &id, &used) != 2 || used == 0 ||
        !text[used] || strlen(text + used) >= sizeof(k->ns) || id < 0)
        return gq__error(err, GQ_EINVALID, "invalid continue token \"%.64s\"", token);
    k->created = created;
    k->id = id;
    snprintf(k->ns, sizeof(k->ns), "%s", text + used);
    return GQ_OK;
}

int gq_workload_list_page(gq_db *db, const gq_workload_filter *filter, const char *after,
                          int64_t limit, gq_workload_fn fn, void *payload, char **next_out,
                          gq_error *err)
{
    struct wl_walk walk;
    int rc;

    GQ_ASSERT_ARG(next_out && limit > 0);
    *next_out = NULL;
    if ((rc = walk_init(&walk, db, filter, fn, payload, err)) != GQ_OK)
        return rc;
    if (after && (rc = token_decode(&walk.after, after, err)) != GQ_OK)
        return rc;
    walk.has_after = after != NULL;
    walk.limit = limit;
    rc = gq__store_read(db->st, page_txn, &walk, err);
    if (rc == GQ_OK && walk.more && !(*next_out = token_encode(&walk.last)))
        rc = gq__error(err, GQ_ENOMEM, "out of memory");
    free(walk.positions.pos);
    free(walk.cq_positions.pos);
    return rc;
}

/* ------------------------------------------------------------------ objects */

struct obj_walk {
    const char *resource;
    gq_object_fn fn;
    void *payload;
};

/* A NodePool's provisioning time written compactly into buf; NULL when it has none. */
static const char *pool_time(const char *stored, char buf[GQ_DURATION_BUFSIZE])
{
    int64_t ms;

    if (!stored || gq__parse_duration_ms(stored, &ms) != 0)
        return NULL;
    gq__format_duration_ms(buf, GQ_DURATION_BUFSIZE, ms, true);
    return buf;
}

static int obj_row(const struct gq_object_row *r, void *payload)
{
    struct obj_walk *walk = payload;
    char ptime[GQ_DURATION_BUFSIZE];
    gq_object_info o;

    o.resource = walk->resource;
    o.namespace = r->ns;
    o.name = r->name;
    o.cluster_queue = r->cluster_queue;
    o.cohort = r->cohort;
    o.strategy = r->strategy;
    o.stop_policy = r->stop_policy;
    o.detail = r->detail;
    o.inactive = r->inactive;
    o.pending = r->pending;
    o.reserving = r->reserving;
    o.admitted = r->admitted;
    o.created_ms = r->created_ms;
    o.gpus_per_node = r->gpus_per_node;
    o.min_nodes = r->min_nodes;
    o.max_nodes = r->max_nodes;
    o.provisioning_time = r->pool ? pool_time(r->provisioning_time, ptime) : NULL;
    o.stockout = r->stockout != 0;
    return walk->fn(&o, walk->payload);
}

const char *gq_resource_name(const char *word)
{
    enum gq_kind kind = word ? gq__kind_lookup(word) : GQ_KIND_NONE;

    if (kind == GQ_KIND_JOB)
        return gq__kind_resource(GQ_KIND_WORKLOAD);
    return kind == GQ_KIND_NONE ? NULL : gq__kind_resource(kind);
}

const char *gq_suggest(const char *word, const char *const *candidates)
{
    const char *best = NULL;
    size_t i, d, bestd = 3;

    for (i = 0; word && candidates && candidates[i]; i++)
        if ((d = gq__suggest_distance(word, candidates[i])) < bestd)
            bestd = d, best = candidates[i];
    return best;
}

const char *gq_resource_suggest(const char *word)
{
    return gq__kind_suggest(word);
}

int gq_object_list(gq_db *db, const char *resource, const char *namespace, gq_object_fn fn,
                   void *payload, gq_error *err)
{
    enum gq_kind kind = resource ? gq__kind_lookup(resource) : GQ_KIND_NONE;
    struct obj_walk walk = {NULL, fn, payload};

    if (kind == GQ_KIND_NONE || !gq__store_object_listable(kind))
        return gq__error(err, GQ_EINVALID, "the server doesn't have a resource type \"%s\"",
                         resource ? resource : "");
    walk.resource = gq__kind_resource(kind);
    return gq__store_objects(db->st, kind, namespace, obj_row, &walk, err);
}

/* ------------------------------------------------------------------ delete */

struct del {
    gq_db *db;
    enum gq_kind kind;
    const char *ns;
    const char *name;
    int64_t now_ms;
};

static int delete_txn(struct gq_store *st, void *payload, gq_error *err)
{
    struct del *d = payload;
    int rc = gq__store_delete_object(st, d->kind, d->ns, d->name, d->now_ms, err);

    return rc == GQ_OK ? gq__api_readjust(d->db, d->kind, d->ns, err) : rc;
}

int gq_object_delete(gq_db *db, const char *resource, const char *namespace, const char *name,
                     gq_error *err)
{
    struct del d = {db, gq__kind_lookup(resource), NULL, name, db ? gq__store_now(db->st) : 0};

    if (d.kind == GQ_KIND_WORKLOAD || d.kind == GQ_KIND_JOB)
        return gq_workload_cancel(db, namespace, name, NULL, err);
    if (d.kind == GQ_KIND_NONE || d.kind == GQ_KIND_CONFIGURATION)
        return gq__error(err, GQ_EINVALID, "the server doesn't have a resource type \"%s\"",
                         resource);
    d.ns = gq__kind_is_namespaced(d.kind) ? (namespace ? namespace : "default") : NULL;
    return gq__store_write(db->st, delete_txn, &d, err);
}

/* ------------------------------------------------------ provisioning requests */

/*
 * A walk of the requests or their templates: the caller's callback (one of
 * the two is set), and whether a row came, for the not-found error.
 */
struct named_walk {
    gq_provreq_fn provreq_fn;
    gq_podtemplate_fn podtemplate_fn;
    void *payload;
    bool found;
};

/* A named one that is absent: GQ_ENOTFOUND naming resource; else rc. */
static int named_result(int rc, const char *name, const struct named_walk *walk,
                        const char *resource, gq_error *err)
{
    if (rc == GQ_OK && name && !walk->found)
        rc = gq__error(err, GQ_ENOTFOUND, "%s \"%s\" not found", resource, name);
    return rc;
}

static int provreq_row(const gq_provreq_info *pr, void *payload)
{
    struct named_walk *walk = payload;

    walk->found = true;
    return walk->provreq_fn(pr, walk->payload);
}

int gq_provreq_list(gq_db *db, const char *namespace, const char *name, gq_provreq_fn fn,
                    void *payload, gq_error *err)
{
    struct named_walk walk = {fn, NULL, payload, false};
    int rc;

    GQ_ASSERT_ARG(db && fn);
    rc = gq__store_provreqs(db->st, namespace, name, provreq_row, &walk, err);
    return named_result(rc, name, &walk, "provisioningrequests.autoscaling.x-k8s.io", err);
}

/* A name-based UID (RFC 4122 version 5 layout) from the owner's UID and the name. */
static void derived_uid(char out[37], const char *owner_uid, const char *name)
{
    char in[512], hex[41];
    int n = snprintf(in, sizeof(in), "%s/%s", owner_uid ? owner_uid : "", name ? name : "");
    size_t len = n < 0 ? 0 : (size_t)n < sizeof(in) ? (size_t)n : sizeof(in) - 1;

    gq__sha1_hex(hex, in, len);
    hex[12] = '5';
    hex[16] = "89ab"[(hex[16] >= 'a' ? hex[16] - 'a' + 10 : hex[16] - '0') & 3];
    snprintf(out, 37, "%.8s-%.4s-%.4s-%.4s-%.12s", hex, hex + 8, hex + 12, hex + 16, hex + 20);
}

/* A PodTemplate has no UID of its own: one is derived from its request's. */
static int pt_row(const gq_podtemplate_info *stored, void *payload)
{
    struct named_walk *walk = payload;
    gq_podtemplate_info pt = *stored;
    char uid[37];

    walk->found = true;
    derived_uid(uid, pt.provreq_uid, pt.name);
    pt.uid = uid;
    return walk->podtemplate_fn(&pt, walk->payload);
}

int gq_podtemplate_list(gq_db *db, const char *namespace, const char *name, gq_podtemplate_fn fn,
                        void *payload, gq_error *err)
{
    struct named_walk walk = {NULL, fn, payload, false};
    int rc;

    GQ_ASSERT_ARG(db && fn);
    rc = gq__store_podtemplates(db->st, namespace, name, pt_row, &walk, err);
    return named_result(rc, name, &walk, "podtemplates", err);
}
