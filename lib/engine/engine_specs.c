/*
 * engine_specs.c: the queue objects' specs as the snapshot last decoded
 * them, and the workloads' podsets columns as parsed, kept by the store's
 * connection across snapshot builds (gq__store_keep). Decoding a stored
 * spec goes through the manifest reader; a simulated cluster rebuilds its
 * snapshot at every moment it steps, so a week of 20,000 jobs decoded the
 * same ClusterQueue, flavors and namespaces over a hundred thousand times
 * (14% of its time), and parsed each live workload's pod sets at every
 * step it waited or ran (8%; jobs of one shape share one parse).
 *
 * The key is the spec's text itself: a decode is a function of the text,
 * so an object applied, changed or deleted by any process simply misses
 * (or is no longer asked for), and nothing has to say the configuration
 * changed. The objects belong to the cache: a snapshot built from them
 * borrows their parts (gq_snapshot.borrowed), so entries go only when a
 * build ends (gq__specs_sweep) and no other snapshot of the store lives
 * (the engine frees its own before it builds the next; one built inside a
 * callback of a running gq_schedule leaves the sweep to a later build).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "error.h"
#include "manifest_load.h"
#include "manifest_snapshot.h"
#include "store.h"

struct spec_entry {
    char *text;           /* the canonical spec, as stored */
    size_t len;
    struct gq_object obj; /* its decode */
    bool used;            /* asked for by the build in progress */
};

/* A podsets column parsed, found by the FNV hash the snapshot computes anyway. */
struct podsets_entry {
    char *text;
    uint64_t hash;
    struct gq__podsets_doc *doc;
    bool used;
};

struct specs {
    struct spec_entry **v; /* each its own block: the objects stay where they are */
    size_t n, cap;
    struct podsets_entry *ps; /* open addressing by hash; text NULL: free slot */
    size_t nps, capps;        /* capps: a power of two, 0 before the first */
    int snapshots;            /* built from these and not unloaded yet */
};

static void entry_free(struct spec_entry *e)
{
    free(e->text);
    gq__object_clear(&e->obj);
    free(e);
}

static void podsets_entry_free(struct podsets_entry *e)
{
    free(e->text);
    gq__manifest_podsets_doc_free(e->doc);
    memset(e, 0, sizeof(*e));
}

static void specs_free(void *p)
{
    struct specs *c = p;
    size_t i;

    for (i = 0; c && i < c->n; i++)
        entry_free(c->v[i]);
    for (i = 0; c && i < c->capps; i++)
        if (c->ps[i].text)
            podsets_entry_free(&c->ps[i]);
    if (c) {
        free(c->v);
        free(c->ps);
    }
    free(c);
}

static struct specs *specs_of(struct gq_store *st)
{
    struct specs *c = gq__store_kept(st);

    if (!c && (c = calloc(1, sizeof(*c))))
        gq__store_keep(st, c, specs_free);
    return c;
}

int gq__specs_decode(struct gq_store *st, const char *spec, const struct gq_object **out,
                     gq_error *err)
{
    struct specs *c = specs_of(st);
    size_t i, len = strlen(spec);
    struct spec_entry *e = NULL;
    int rc;

    *out = NULL;
    if (!c)
        return gq__error(err, GQ_ENOMEM, "out of memory decoding a stored spec");
    for (i = 0; i < c->n; i++)
        if (c->v[i]->len == len && memcmp(c->v[i]->text, spec, len) == 0) {
            c->v[i]->used = true;
            *out = &c->v[i]->obj;
            return GQ_OK;
        }
    if (gq__grow(&c->v, &c->cap, c->n, sizeof(*c->v)) < 0 || !(e = calloc(1, sizeof(*e))) ||
        !(e->text = malloc(len + 1))) {
        free(e);
        return gq__error(err, GQ_ENOMEM, "out of memory decoding a stored spec");
    }
    memcpy(e->text, spec, len + 1);
    e->len = len;
    if ((rc = gq__manifest_load(NULL, spec, len, "spec", NULL, NULL, gq__take_object, &e->obj,
                                err)) != GQ_OK) {
        entry_free(e);
        return rc;
    }
    e->used = true;
    c->v[c->n++] = e;
    *out = &e->obj;
    return GQ_OK;
}

/* The slot of text (hash h) in a table of cap slots: its entry, or the free slot it would take. */
static size_t podsets_slot(const struct podsets_entry *v, size_t cap, uint64_t h, const char *text)
{
    size_t i = (size_t)h & (cap - 1);

    while (v[i].text && (v[i].hash != h || strcmp(v[i].text, text) != 0))
        i = (i + 1) & (cap - 1);
    return i;
}

/* The table at cap slots (a power of two), its entries kept (used only: sweeping). */
static int podsets_rehash(struct specs *c, size_t cap, bool used_only)
{
    struct podsets_entry *v = calloc(cap, sizeof(*v));
    size_t i;

    if (!v)
        return -1;
    c->nps = 0;
    for (i = 0; i < c->capps; i++) {
        struct podsets_entry *e = &c->ps[i];

        if (!e->text)
            continue;
        if (used_only && !e->used) {
            podsets_entry_free(e);
            continue;
        }
        e->used = e->used && !used_only;
        v[podsets_slot(v, cap, e->hash, e->text)] = *e;
        c->nps++;
    }
    free(c->ps);
    c->ps = v;
    c->capps = cap;
    return 0;
}

int gq__specs_podsets(struct gq_store *st, struct gq_snapshot *s, struct gq_snap_wl *wl,
                      const char *podsets, uint64_t hash, gq_error *err)
{
    struct specs *c = specs_of(st);
    struct podsets_entry *e;

    if (!c || ((c->nps + 1) * 2 > c->capps &&
               podsets_rehash(c, c->capps ? c->capps * 2 : 64, false) < 0))
        return gq__error(err, GQ_ENOMEM, "out of memory reading workload %s/%s", wl->ns,
                         wl->name);
    e = &c->ps[podsets_slot(c->ps, c->capps, hash, podsets)];
    if (!e->text) {
        if (!(e->doc = gq__manifest_podsets_parse(podsets)))
            return gq__error(err, GQ_EIO, "workload %s/%s: unreadable podsets column", wl->ns,
                             wl->name);
        if (!(e->text = strdup(podsets))) {
            podsets_entry_free(e);
            return gq__error(err, GQ_ENOMEM, "out of memory reading workload %s/%s", wl->ns,
                             wl->name);
        }
        e->hash = hash;
        c->nps++;
    }
    e->used = true;
    return gq__manifest_podsets_fill(s, wl, e->doc, err);
}

void gq__specs_unload(struct gq_store *st, struct gq_snapshot *s)
{
    struct specs *c = gq__store_kept(st);

    gq__snapshot_free(s);
    if (c && c->snapshots > 0)
        c->snapshots--;
}

void gq__specs_sweep(struct gq_store *st, bool built)
{
    struct specs *c = gq__store_kept(st);
    size_t i, n = 0;

    if (!c)
        return;
    if (c->snapshots) { /* another snapshot borrows: nothing goes yet */
        c->snapshots += built;
        return;
    }
    c->snapshots += built;
    for (i = 0; i < c->n; i++) {
        if (!c->v[i]->used) {
            entry_free(c->v[i]);
            continue;
        }
        c->v[i]->used = false;
        c->v[n++] = c->v[i];
    }
    c->n = n;
    /* The pod sets no live workload has now; on ENOMEM they stay, as they were. */
    if (c->capps)
        podsets_rehash(c, c->capps, true);
}
