/*
 * api_list.c: listing workloads, queue objects, and the ProvisioningRequests
 * and PodTemplates gpuq created for admission checks; and deleting objects
 * by name. Everything here is one SQL statement per call, read through
 * gq__store_query, so that a listing is one consistent snapshot and the
 * command that prints 100,000 rows does no per-row work beyond converting
 * values. Status columns (pending / admitted counts, a ClusterQueue's reason to
 * be inactive) are computed in the query from the same tables admission uses.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api.h"
#include "error.h"
#include "plain.h"
#include "sort.h"
#include "store.h"
#include "util.h"

static int64_t num(const char *s)
{
    return s ? strtoll(s, NULL, 10) : 0;
}

/* ---------------------------------------------------------------- workloads */

/* Which of the queries below a state filter selects. */
static size_t state_query(const char *state)
{
    if (!state)
        return 0; /* every state but cancelled */
    if (strcasecmp(state, "all") == 0)
        return 1;
    if (strcasecmp(state, "admitted") == 0)
        return 2;
    if (strcasecmp(state, "quotareserved") == 0 || strcasecmp(state, "reserved") == 0)
        return 3;
    return 4; /* that state exactly */
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

static int position_row(int ncols, const char *const *v, const int64_t *nums, void *payload)
{
    struct positions *p = payload;
    const char *ns = v[1] ? v[1] : "", *lq = v[2] ? v[2] : "";
    int64_t *grown;

    (void)ncols;
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
    p->pos[2 * p->n] = nums[0];
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
    gq_error *err;                 /* the caller's, for the positions read on demand */
    int64_t limit;                 /* rows to hand to fn, a page; 0: every row */
    bool has_after;                /* the page starts after `after`, else at the first row */
    struct wl_key after;
    int64_t seen;                  /* rows handed to fn */
    bool more;                     /* a row came after the limit-th */
    struct wl_key last;            /* the last row handed to fn */
};

static int read_positions(struct wl_walk *walk, gq_error *err);

static int wl_row(int n, const char *const *v, const int64_t *nums, void *payload)
{
    struct wl_walk *walk = payload;
    int64_t id = nums[18];
    gq_workload_info wl;
    char where[1200];
    int rc;

    (void)n;
    if (walk->limit > 0 && walk->seen == walk->limit) {
        walk->more = true; /* the query reads one row past the page to learn this */
        return 0;
    }
    if (walk->want_positions && !walk->have_positions && v[7] && strcmp(v[7], "pending") == 0 &&
        (rc = read_positions(walk, walk->err)) != GQ_OK)
        return rc;
    walk->seen++;
    snprintf(walk->last.ns, sizeof(walk->last.ns), "%s", v[0] ? v[0] : "");
    walk->last.created = nums[15];
    walk->last.id = id;
    wl.namespace = v[0];
    wl.name = v[1];
    wl.uid = v[2];
    wl.job_kind = v[3];
    wl.job_name = v[4];
    wl.local_queue = v[5];
    wl.cluster_queue = v[6];
    wl.state = v[7];
    wl.reason = v[8];
    wl.message = v[9];
    wl.priority_class = v[10];
    wl.priority = nums[11];
    wl.pods = nums[12];
    wl.gpus = nums[13];
    wl.position = position_of(&walk->positions, id);
    wl.position_cq = position_of(&walk->cq_positions, id);
    wl.created_ms = nums[15];
    wl.admitted_ms = nums[16];
    wl.finished_ms = nums[17];
    wl.requeue_ms = nums[14];
    wl.started_ms = nums[19];
    wl.reserved_ms = nums[20];
    {
        struct gq_plain p = {wl.namespace,    wl.name,        wl.state,
                             wl.message,      wl.cluster_queue, wl.position_cq,
                             wl.reserved_ms,  wl.started_ms,  wl.requeue_ms,
                             walk->now};

        wl.where = gq__plain_status(where, sizeof(where), &p);
    }
    return walk->fn(&wl, walk->payload);
}

#define WL_SELECT                                                                                  \
    "SELECT w.namespace, w.name, w.uid, w.job_kind, w.job_name, w.local_queue, "                   \
    "coalesce(w.cluster_queue, lq.cluster_queue), w.state, w.reason, w.message, "                  \
    "w.priority_class, w.priority, w.pods, w.gpus, w.requeue_at, w.created_at, w.admitted_at, "    \
    "w.finished_at, w.id, w.started_at, w.reserved_at FROM workloads w "                                          \
    "LEFT JOIN local_queues lq ON lq.namespace = w.namespace AND lq.name = w.local_queue "         \
    "WHERE (?1 IS NULL OR w.namespace = ?1) AND (?3 IS NULL OR w.local_queue = ?3) "               \
    "AND (?4 IS NULL OR coalesce(w.cluster_queue, lq.cluster_queue) = ?4) "                        \
    "AND (?5 IS NULL OR w.name = ?5 OR w.job_name = ?5) AND "
#define WL_ORDER " ORDER BY w.namespace, w.created_at, w.id"
/*
 * A page: the rows after ?7..?9 (namespace, created_at, id), at most ?10,
 * read off workloads_list_order in that order, so that a page costs its own
 * rows rather than a sort of the whole table (300 ms of 100,000 rows).
 */
#define WL_PAGE                                                                                    \
    " AND (?7 IS NULL OR (w.namespace, w.created_at, w.id) > "                                     \
    "(?7, CAST(?8 AS INTEGER), CAST(?9 AS INTEGER)))" WL_ORDER " LIMIT CAST(?10 AS INTEGER)"

static const char positions_sql[] =
    "SELECT id, namespace, local_queue FROM workloads WHERE state = 'pending' "
    "AND (?1 IS NULL OR namespace = ?1) ORDER BY namespace, local_queue, priority DESC, "
    "queued_at, id";
/* The ClusterQueue's heap order spans its LocalQueues: this one sorts. */
static const char cq_positions_sql[] =
    "SELECT w.id, '', lq.cluster_queue FROM workloads w JOIN local_queues lq "
    "ON lq.namespace = w.namespace AND lq.name = w.local_queue WHERE w.state = 'pending' "
    "ORDER BY lq.cluster_queue, w.priority DESC, w.queued_at, w.id";

/* Positions in both queues, in the walk's transaction. */
static int read_positions(struct wl_walk *walk, gq_error *err)
{
    const char *ns = walk->filter->namespace;
    int rc;

    walk->have_positions = true;
    rc = gq__store_query_typed(walk->st, positions_sql, &ns, 1, position_row, &walk->positions,
                               err);
    if (rc == GQ_OK)
        rc = gq__store_query_typed(walk->st, cq_positions_sql, NULL, 0, position_row,
                                   &walk->cq_positions, err);
    if (rc != GQ_OK && (walk->positions.failed || walk->cq_positions.failed))
        return gq__error(err, GQ_ENOMEM, "out of memory");
    return rc;
}

static int list_txn(struct gq_store *st, void *payload, gq_error *err)
{
    static const char *const queries[2][5] = {
        {WL_SELECT "w.state <> 'cancelled'" WL_ORDER, WL_SELECT "1" WL_ORDER,
         WL_SELECT "w.state IN ('admitted', 'running')" WL_ORDER,
         WL_SELECT "w.state = 'reserved'" WL_ORDER, WL_SELECT "w.state = lower(?6)" WL_ORDER},
        {WL_SELECT "w.state <> 'cancelled'" WL_PAGE, WL_SELECT "1" WL_PAGE,
         WL_SELECT "w.state IN ('admitted', 'running')" WL_PAGE,
         WL_SELECT "w.state = 'reserved'" WL_PAGE, WL_SELECT "w.state = lower(?6)" WL_PAGE}};
    struct wl_walk *walk = payload;
    const gq_workload_filter *f = walk->filter;
    const struct wl_key *after = &walk->after;
    char created[24], id[24], limit[24];
    const char *params[10] = {f->namespace, NULL, f->local_queue, f->cluster_queue, f->name,
                              f->state, walk->has_after ? after->ns : NULL, created, id, limit};
    size_t q = state_query(f->state);
    bool paged = walk->limit > 0;
    int rc;

    snprintf(created, sizeof(created), "%" PRId64, after->created);
    snprintf(id, sizeof(id), "%" PRId64, after->id);
    snprintf(limit, sizeof(limit), "%" PRId64, walk->limit + 1);
    walk->st = st;
    walk->err = err;
    /* Positions are only shown for pending workloads: skip them when none can show. */
    walk->want_positions = q <= 1 || (q == 4 && strcasecmp(f->state, "pending") == 0);
    if (walk->want_positions && !paged && (rc = read_positions(walk, err)) != GQ_OK)
        return rc;
    {
        /* Columns as wl_row reads them; NOT NULL ones checked (struct gq__query). */
        struct gq__query wq = {queries[paged][q], "workloads:TTTTTttTtttIIIiIii#ii", params,
                               paged ? 10 : 6};

        rc = gq__store_rows_typed(st, &wq, wl_row, walk, err);
    }
    if (rc != GQ_OK && (walk->positions.failed || walk->cq_positions.failed))
        rc = gq__error(err, GQ_ENOMEM, "out of memory");
    return rc;
}

/* A walk set up for filter (NULL: every workload but cancelled ones). */
static int walk_init(struct wl_walk *walk, gq_db *db, const gq_workload_filter *filter,
                     gq_workload_fn fn, void *payload, gq_error *err)
{
    static const gq_workload_filter none = GQ_WORKLOAD_FILTER_INIT;

    GQ_ASSERT_ARG(db && fn);
    if (!filter)
        filter = &none;
    if (filter->version != GQ_WORKLOAD_FILTER_VERSION)
        return gq__error(err, GQ_EINVALID, "gq_workload_filter version %u is not supported",
                         filter->version);
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

struct obj_query {
    enum gq_kind kind;
    const char *sql;   /* ?1 namespace filter (LocalQueue); columns as obj_row reads them */
    const char *shape; /* its columns' types (struct gq__query) */
};

/*
 * Columns: namespace, name, cluster_queue, cohort, strategy, stop_policy,
 * detail, inactive, pending, reserving, admitted, created_at.
 */
static const struct obj_query obj_queries[] = {
    {GQ_KIND_CLUSTER_QUEUE,
     "SELECT NULL, cq.name, NULL, cq.cohort, cq.strategy, cq.stop_policy, NULL, "
     "CASE WHEN cq.stop_policy <> 'None' THEN 'Stopped: is stopped' "
     "ELSE coalesce((SELECT 'FlavorNotFound: references missing ResourceFlavor ' || q.flavor "
     "  FROM quotas q WHERE q.owner_kind = 'ClusterQueue' AND q.owner = cq.name "
     "  AND q.flavor NOT IN (SELECT name FROM resource_flavors) LIMIT 1), "
     " (SELECT 'AdmissionCheckNotFound: references missing AdmissionCheck ' || (c.value ->> 'name') "
     "  FROM json_each(cq.spec, '$.spec.admissionChecksStrategy.admissionChecks') c "
     "  WHERE (c.value ->> 'name') NOT IN (SELECT name FROM admission_checks) LIMIT 1)) END, "
     "(SELECT count(*) FROM workloads w JOIN local_queues lq ON lq.namespace = w.namespace "
     "  AND lq.name = w.local_queue WHERE lq.cluster_queue = cq.name AND w.state = 'pending'), "
     "(SELECT count(*) FROM workloads w WHERE w.cluster_queue = cq.name "
     "  AND w.state IN ('reserved', 'admitted', 'running')), "
     "(SELECT count(*) FROM workloads w WHERE w.cluster_queue = cq.name "
     "  AND w.state IN ('admitted', 'running')), cq.created_at "
     "FROM cluster_queues cq ORDER BY cq.name",
     "cluster_queues:.T.tTT.tIIII"},
    {GQ_KIND_LOCAL_QUEUE,
     "SELECT lq.namespace, lq.name, lq.cluster_queue, NULL, NULL, lq.stop_policy, NULL, NULL, "
     "(SELECT count(*) FROM workloads w WHERE w.namespace = lq.namespace "
     "  AND w.local_queue = lq.name AND w.state = 'pending'), "
     "(SELECT count(*) FROM workloads w WHERE w.namespace = lq.namespace "
     "  AND w.local_queue = lq.name AND w.state IN ('reserved', 'admitted', 'running')), "
     "(SELECT count(*) FROM workloads w WHERE w.namespace = lq.namespace "
     "  AND w.local_queue = lq.name AND w.state IN ('admitted', 'running')), lq.created_at "
     "FROM local_queues lq WHERE ?1 IS NULL OR lq.namespace = ?1 ORDER BY lq.namespace, lq.name",
     "local_queues:TTT..T..IIII"},
    {GQ_KIND_RESOURCE_FLAVOR,
     "SELECT NULL, name, NULL, NULL, NULL, NULL, (SELECT group_concat(key || '=' || value, ',') "
     "FROM json_each(spec, '$.spec.nodeLabels')), NULL, 0, 0, 0, created_at "
     "FROM resource_flavors ORDER BY name", "resource_flavors:.T....t....I"},
    {GQ_KIND_COHORT,
     "SELECT NULL, name, NULL, parent, NULL, NULL, NULL, NULL, 0, 0, 0, created_at "
     "FROM cohorts ORDER BY name", "cohorts:.T.t.......I"},
    {GQ_KIND_PRIORITY_CLASS,
     "SELECT NULL, name, NULL, NULL, NULL, NULL, value, NULL, 0, 0, 0, created_at "
     "FROM priority_classes ORDER BY name", "priority_classes:.T....I....I"},
    {GQ_KIND_ADMISSION_CHECK,
     "SELECT NULL, name, NULL, NULL, NULL, NULL, controller_name, NULL, 0, 0, 0, created_at "
     "FROM admission_checks ORDER BY name", "admission_checks:.T....T....I"},
    {GQ_KIND_PROVISIONING_CONFIG,
     "SELECT NULL, name, NULL, NULL, NULL, NULL, spec ->> '$.spec.provisioningClassName', NULL, "
     "0, 0, 0, created_at FROM provisioning_configs ORDER BY name",
     "provisioning_configs:.T.........I"},
    {GQ_KIND_NAMESPACE,
     "SELECT NULL, name, NULL, NULL, NULL, NULL, NULL, NULL, 0, 0, 0, created_at "
     "FROM namespaces ORDER BY name", "namespaces:.T.........I"},
    /* Then: gpusPerNode, minNodes, maxNodes, provisioningTime, stockout. */
    {GQ_KIND_NODE_POOL,
     "SELECT NULL, name, NULL, NULL, NULL, NULL, (SELECT group_concat(key || '=' || value, ',') "
     "FROM json_each(spec, '$.spec.nodeLabels')), NULL, 0, 0, 0, created_at, "
     "spec ->> '$.spec.gpusPerNode', spec ->> '$.spec.minNodes', spec ->> '$.spec.maxNodes', "
     "spec ->> '$.spec.provisioningTime', spec ->> '$.spec.stockout' "
     "FROM node_pools ORDER BY name", "node_pools:.T....t....I"},
};

struct obj_walk {
    const char *resource;
    gq_object_fn fn;
    void *payload;
};

/* A NodePool's columns (12 on), with its provisioning time written compactly into buf. */
static void pool_columns(gq_object_info *o, int n, const char *const *v,
                         char buf[GQ_DURATION_BUFSIZE])
{
    int64_t ms;

    o->gpus_per_node = o->min_nodes = o->max_nodes = 0;
    o->provisioning_time = NULL;
    o->stockout = false;
    if (n < 17)
        return;
    o->gpus_per_node = num(v[12]);
    o->min_nodes = num(v[13]);
    o->max_nodes = num(v[14]);
    if (v[15] && gq__parse_duration_ms(v[15], &ms) == 0) {
        gq__format_duration_ms(buf, GQ_DURATION_BUFSIZE, ms, true);
        o->provisioning_time = buf;
    }
    o->stockout = num(v[16]) != 0;
}

static int obj_row(int n, const char *const *v, void *payload)
{
    struct obj_walk *walk = payload;
    char ptime[GQ_DURATION_BUFSIZE];
    gq_object_info o;

    o.resource = walk->resource;
    o.namespace = v[0];
    o.name = v[1];
    o.cluster_queue = v[2];
    o.cohort = v[3];
    o.strategy = v[4];
    o.stop_policy = v[5];
    o.detail = v[6];
    o.inactive = v[7];
    o.pending = num(v[8]);
    o.reserving = num(v[9]);
    o.admitted = num(v[10]);
    o.created_ms = num(v[11]);
    pool_columns(&o, n, v, ptime);
    return walk->fn(&o, walk->payload);
}

const char *gq_resource_name(const char *word)
{
    enum gq_kind kind = word ? gq__kind_lookup(word) : GQ_KIND_NONE;

    if (kind == GQ_KIND_JOB)
        return gq__kind_resource(GQ_KIND_WORKLOAD);
    return kind == GQ_KIND_NONE ? NULL : gq__kind_resource(kind);
}

int gq_object_list(gq_db *db, const char *resource, const char *namespace, gq_object_fn fn,
                   void *payload, gq_error *err)
{
    enum gq_kind kind = resource ? gq__kind_lookup(resource) : GQ_KIND_NONE;
    struct obj_walk walk = {NULL, fn, payload};
    size_t i;

    for (i = 0; i < sizeof(obj_queries) / sizeof(obj_queries[0]); i++) {
        if (obj_queries[i].kind == kind) {
            walk.resource = gq__kind_resource(kind);
            struct gq__query q = {obj_queries[i].sql, obj_queries[i].shape, &namespace, 1};

            return gq__store_rows(db->st, &q, obj_row, &walk, err);
        }
    }
    return gq__error(err, GQ_EINVALID, "the server doesn't have a resource type \"%s\"",
                     resource ? resource : "");
}

/* ------------------------------------------------------------------ delete */

struct del {
    enum gq_kind kind;
    const char *ns;
    const char *name;
    int64_t now_ms;
};

static int delete_txn(struct gq_store *st, void *payload, gq_error *err)
{
    struct del *d = payload;

    return gq__store_delete_object(st, d->kind, d->ns, d->name, d->now_ms, err);
}

int gq_object_delete(gq_db *db, const char *resource, const char *namespace, const char *name,
                     gq_error *err)
{
    struct del d = {gq__kind_lookup(resource), NULL, name, db ? gq__store_now(db->st) : 0};

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
 * A walk of one of the two queries below: the caller's callback (one of the
 * two is set), and whether a row came, for the not-found error.
 */
struct named_walk {
    gq_provreq_fn provreq_fn;
    gq_podtemplate_fn podtemplate_fn;
    void *payload;
    bool found;
};

/* Run sql with ?1 namespace, ?2 name; GQ_ENOTFOUND naming resource if a named one is absent. */
static int named_query(gq_db *db, const char *sql, const char *shape, const char *ns,
                       const char *name, gq__row_fn row, struct named_walk *walk,
                       const char *resource,
                       gq_error *err)
{
    const char *params[2] = {ns, name};
    struct gq__query q = {sql, shape, params, 2};
    int rc = gq__store_rows(db->st, &q, row, walk, err);

    if (rc == GQ_OK && name && !walk->found)
        rc = gq__error(err, GQ_ENOTFOUND, "%s \"%s\" not found", resource, name);
    return rc;
}

/* A field of the condition of a type in the request's valid status JSON (column st). */
#define PR_COND(field, type)                                                                       \
    "(SELECT c.value ->> '" field "' FROM json_each(pr.st, '$.conditions') c "                     \
    "WHERE c.value ->> 'type' = '" type "' LIMIT 1)"

/*
 * Columns: namespace, name, uid, workload, check, attempt, class, Accepted,
 * Provisioned, Failed, message, spec, templates, status, created_at. A status
 * that is not valid JSON reads as none, so one bad provider write cannot
 * break every listing.
 */
static const char provreq_sql[] =
    "WITH pr AS (SELECT p.*, CASE WHEN json_valid(p.status) THEN p.status END AS st "
    "FROM provisioning_requests p WHERE p.deleted_at IS NULL "
    "AND (?1 IS NULL OR p.namespace = ?1) AND (?2 IS NULL OR p.name = ?2)) "
    "SELECT pr.namespace, pr.name, pr.uid, w.name, pr.check_name, pr.attempt, pr.class, "
    PR_COND("status", "Accepted") ", " PR_COND("status", "Provisioned") ", "
    PR_COND("status", "Failed") ", "
    "CASE WHEN " PR_COND("status", "Failed") " = 'True' THEN " PR_COND("message", "Failed")
    " ELSE " PR_COND("message", "Provisioned") " END, "
    "pr.spec, pr.templates, pr.st, pr.created_at "
    "FROM pr LEFT JOIN workloads w ON w.id = pr.workload_id ORDER BY pr.namespace, pr.name";

static int provreq_row(int n, const char *const *v, void *payload)
{
    struct named_walk *walk = payload;
    gq_provreq_info pr;

    (void)n;
    walk->found = true;
    pr.namespace = v[0];
    pr.name = v[1];
    pr.uid = v[2];
    pr.workload = v[3];
    pr.check = v[4];
    pr.attempt = num(v[5]);
    pr.class_name = v[6];
    pr.accepted = v[7];
    pr.provisioned = v[8];
    pr.failed = v[9];
    pr.message = v[10];
    pr.object = v[11];
    pr.templates = v[12];
    pr.status = v[13];
    pr.created_ms = num(v[14]);
    return walk->provreq_fn(&pr, walk->payload);
}

int gq_provreq_list(gq_db *db, const char *namespace, const char *name, gq_provreq_fn fn,
                    void *payload, gq_error *err)
{
    struct named_walk walk = {fn, NULL, payload, false};

    GQ_ASSERT_ARG(db && fn);
    return named_query(db, provreq_sql, "provisioning_requests:TTTtTIT....TT.I", namespace,
                       name, provreq_row, &walk,
                       "provisioningrequests.autoscaling.x-k8s.io", err);
}

/* A JSON array of the template's containers, as one comma-separated column. */
#define PT_CONTAINERS(field)                                                                       \
    "(SELECT group_concat(c.value ->> '" field "', ',') "                                          \
    "FROM json_each(obj, '$.template.spec.containers') c)"

/*
 * Columns: namespace, name, request, request uid, container names, images,
 * pod labels, object, created_at. A PodTemplate is stored inside its
 * request's row and has no UID of its own: pt_row derives one.
 */
static const char podtemplate_sql[] =
    "WITH pt AS (SELECT p.namespace AS ns, t.value ->> '$.metadata.name' AS name, p.name AS pr, "
    "p.uid AS pr_uid, t.value AS obj, p.created_at AS created "
    "FROM provisioning_requests p, json_each(p.templates) t WHERE p.deleted_at IS NULL "
    "AND (?1 IS NULL OR p.namespace = ?1)) "
    "SELECT ns, name, pr, pr_uid, " PT_CONTAINERS("name") ", " PT_CONTAINERS("image") ", "
    "(SELECT group_concat(l.key || '=' || l.value, ',') FROM (SELECT key, value "
    "  FROM json_each(obj, '$.template.metadata.labels') ORDER BY key) l), obj, created "
    "FROM pt WHERE ?2 IS NULL OR name = ?2 ORDER BY ns, name";

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

static int pt_row(int n, const char *const *v, void *payload)
{
    struct named_walk *walk = payload;
    gq_podtemplate_info pt;
    char uid[37];

    (void)n;
    walk->found = true;
    derived_uid(uid, v[3], v[1]);
    pt.namespace = v[0];
    pt.name = v[1];
    pt.uid = uid;
    pt.provreq = v[2];
    pt.provreq_uid = v[3];
    pt.containers = v[4];
    pt.images = v[5];
    pt.pod_labels = v[6];
    pt.object = v[7];
    pt.created_ms = num(v[8]);
    return walk->podtemplate_fn(&pt, walk->payload);
}

int gq_podtemplate_list(gq_db *db, const char *namespace, const char *name, gq_podtemplate_fn fn,
                        void *payload, gq_error *err)
{
    struct named_walk walk = {NULL, fn, payload, false};

    GQ_ASSERT_ARG(db && fn);
    return named_query(db, podtemplate_sql, "provisioning_requests:TtTT...TI", namespace, name,
                       pt_row, &walk, "podtemplates", err);
}
