/*
 * release.c: Kueue's startJob rule (release.h), pure. A pod set's released
 * maps are built by setting keys one after another onto a copy of the
 * pristine ones: a key already there keeps its place and takes the new
 * value, a new key goes last; this is the order a JSON object keeps when
 * the same keys are set in it, so callers that write JSON print the pristine
 * template with the additions after it.
 *
 * Sizes: a template has a handful of labels and selectors, a flavor at most
 * 8 nodeLabels and 8 tolerations, a workload a request per admission check;
 * the lookups are linear.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "admit.h" /* gq__grow */
#include "release.h"
#include "util.h"

/*
 * Kubernetes' toleration fields are Go strings: an absent one is the empty
 * string, and Kueue compares tolerations as structs.
 */
static bool same_str(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "") == 0;
}

bool gq__toleration_equal(const struct gq_toleration *a, const struct gq_toleration *b)
{
    return same_str(a->key, b->key) && same_str(a->op, b->op) && same_str(a->value, b->value) &&
           same_str(a->effect, b->effect) && a->has_seconds == b->has_seconds &&
           (!a->has_seconds || a->seconds == b->seconds);
}

static const char *kvs_get(const struct gq_kvs *kvs, const char *key)
{
    size_t i;

    for (i = 0; kvs && i < kvs->n; i++)
        if (strcmp(kvs->v[i].key, key) == 0)
            return kvs->v[i].value;
    return NULL;
}

/*
 * key=value into kvs: in place when the key is there, else last; nothing
 * when either is NULL. -1 on ENOMEM. kvs has no spare room (cap = n): each
 * addition reallocates, which is nothing for maps this small.
 */
static int kvs_set(struct gq_kvs *kvs, const char *key, const char *value)
{
    char *v, *k = NULL;
    size_t i, cap = kvs->n;

    if (!key || !value)
        return 0;
    v = gq__strdup(value);
    for (i = 0; v && i < kvs->n; i++)
        if (strcmp(kvs->v[i].key, key) == 0) {
            free(kvs->v[i].value);
            kvs->v[i].value = v;
            return 0;
        }
    if (!v || !(k = gq__strdup(key)) || gq__grow(&kvs->v, &cap, kvs->n, sizeof(*kvs->v)) < 0) {
        free(v);
        free(k);
        return -1;
    }
    kvs->v[kvs->n].key = k;
    kvs->v[kvs->n++].value = v;
    return 0;
}

static int kvs_set_all(struct gq_kvs *kvs, const struct gq_kvs *from)
{
    size_t i;

    for (i = 0; from && i < from->n; i++)
        if (kvs_set(kvs, from->v[i].key, from->v[i].value) < 0)
            return -1;
    return 0;
}

static void toleration_clear(struct gq_toleration *t)
{
    free(t->key);
    free(t->op);
    free(t->value);
    free(t->effect);
}

/* A copy of t after out's tolerations unless an equal one is there. -1 on ENOMEM. */
static int toleration_add(struct gq_released *out, const struct gq_toleration *t, bool dedup)
{
    struct gq_toleration *c;
    size_t i, cap = out->ntolerations;

    for (i = 0; dedup && i < out->ntolerations; i++)
        if (gq__toleration_equal(&out->tolerations[i], t))
            return 0;
    if (gq__grow(&out->tolerations, &cap, out->ntolerations, sizeof(*out->tolerations)) < 0)
        return -1;
    c = &out->tolerations[out->ntolerations];
    *c = *t;
    c->key = t->key ? gq__strdup(t->key) : NULL;
    c->op = t->op ? gq__strdup(t->op) : NULL;
    c->value = t->value ? gq__strdup(t->value) : NULL;
    c->effect = t->effect ? gq__strdup(t->effect) : NULL;
    if ((t->key && !c->key) || (t->op && !c->op) || (t->value && !c->value) ||
        (t->effect && !c->effect)) {
        toleration_clear(c);
        return -1;
    }
    out->ntolerations++;
    return 0;
}

/* The flavors' nodeLabels (the first flavor's value kept) and tolerations. */
static int add_flavors(struct gq_released *out, const struct gq_release_podset *ps)
{
    struct gq_kvs labels = {NULL, 0};
    size_t f, i;
    int rc = 0;

    for (f = 0; rc == 0 && f < ps->nflavors; f++) {
        const struct gq_flavor *fl = ps->flavors[f];

        for (i = 0; rc == 0 && i < fl->node_labels.n; i++)
            if (!kvs_get(&labels, fl->node_labels.v[i].key))
                rc = kvs_set(&labels, fl->node_labels.v[i].key, fl->node_labels.v[i].value);
        for (i = 0; rc == 0 && i < fl->ntolerations; i++)
            rc = toleration_add(out, &fl->tolerations[i], true);
    }
    if (rc == 0)
        rc = kvs_set_all(&out->node_selector, &labels);
    gq__kvs_clear(&labels);
    return rc;
}

/* A request's podSetUpdates: its two annotations and its class details as selectors. */
static int add_request(struct gq_released *out, const struct gq_release_request *r)
{
    size_t i;
    int rc = kvs_set(&out->annotations, GQ_RELEASE_CONSUME_ANNOTATION, r->name);

    if (rc == 0 && r->class_name)
        rc = kvs_set(&out->annotations, GQ_RELEASE_CLASS_ANNOTATION, r->class_name);
    for (i = 0; rc == 0 && i < r->nselectors; i++) {
        const char *v = kvs_get(r->details, r->selectors[i].value_from_detail);

        if (v)
            rc = kvs_set(&out->node_selector, r->selectors[i].key, v);
    }
    return rc;
}

int gq__release(struct gq_released *out, const struct gq_release_podset *ps,
                const struct gq_release_request *reqs, size_t nreqs)
{
    size_t i;
    int rc;

    memset(out, 0, sizeof(*out));
    rc = kvs_set_all(&out->labels, ps->labels);
    if (rc == 0)
        rc = kvs_set_all(&out->annotations, ps->annotations);
    if (rc == 0)
        rc = kvs_set_all(&out->node_selector, ps->node_selector);
    for (i = 0; rc == 0 && i < ps->ntolerations; i++)
        rc = toleration_add(out, &ps->tolerations[i], false);
    if (rc == 0)
        rc = add_flavors(out, ps);
    if (rc == 0)
        rc = kvs_set(&out->labels, GQ_RELEASE_PODSET_LABEL, ps->name);
    for (i = 0; rc == 0 && i < nreqs; i++)
        rc = add_request(out, &reqs[i]);
    if (rc != 0)
        gq__released_clear(out);
    return rc;
}

void gq__tolerations_free(struct gq_toleration *t, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        toleration_clear(&t[i]);
    free(t);
}

void gq__released_clear(struct gq_released *out)
{
    gq__kvs_clear(&out->labels);
    gq__kvs_clear(&out->annotations);
    gq__kvs_clear(&out->node_selector);
    gq__tolerations_free(out->tolerations, out->ntolerations);
    memset(out, 0, sizeof(*out));
}
