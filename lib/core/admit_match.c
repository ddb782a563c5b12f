/*
 * admit_match.c: the small matchers admission needs: interned names, label
 * selectors (namespaceSelector, node selector terms), and whether a pod set
 * may use a flavor (taints and tolerations, nodeSelector and required node
 * affinity restricted to the flavor's own label keys), as Kueue's
 * flavorassigner.checkFlavorForPodSets does. Pure.
 */
#include "admit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ interning */

static uint32_t hash_str(const char *s)
{
    uint32_t h = 2166136261u;

    while (*s)
        h = (h ^ (unsigned char)*s++) * 16777619u;
    return h;
}

static int rehash(struct gq_intern *in, size_t nslots)
{
    uint32_t *slots = calloc(nslots, sizeof(*slots));
    size_t i, j;

    if (!slots)
        return -1;
    for (i = 0; i < in->n; i++) {
        for (j = hash_str(in->names[i]) & (nslots - 1); slots[j]; j = (j + 1) & (nslots - 1))
            ;
        slots[j] = (uint32_t)i + 1;
    }
    free(in->slots);
    in->slots = slots;
    in->nslots = nslots;
    return 0;
}

int gq__intern_find(const struct gq_intern *in, const char *name)
{
    size_t j;

    if (!in->nslots)
        return -1;
    for (j = hash_str(name) & (in->nslots - 1); in->slots[j]; j = (j + 1) & (in->nslots - 1))
        if (strcmp(in->names[in->slots[j] - 1], name) == 0)
            return (int)in->slots[j] - 1;
    return -1;
}

int gq__intern(struct gq_intern *in, const char *name)
{
    int found = gq__intern_find(in, name);
    char **names;
    size_t j;

    if (found >= 0)
        return found;
    if ((in->n + 1) * 2 > in->nslots && rehash(in, in->nslots ? in->nslots * 2 : 16) < 0)
        return -1;
    if (in->n == in->cap) {
        size_t cap = in->cap ? in->cap * 2 : 16;

        if (!(names = realloc(in->names, cap * sizeof(*names))))
            return -1;
        in->names = names;
        in->cap = cap;
    }
    if (!(in->names[in->n] = strdup(name)))
        return -1;
    for (j = hash_str(name) & (in->nslots - 1); in->slots[j]; j = (j + 1) & (in->nslots - 1))
        ;
    in->slots[j] = (uint32_t)in->n + 1;
    return (int)in->n++;
}

void gq__intern_free(struct gq_intern *in)
{
    size_t i;

    for (i = 0; i < in->n; i++)
        free(in->names[i]);
    free(in->names);
    free(in->slots);
    memset(in, 0, sizeof(*in));
}

/* ------------------------------------------------------------ selectors */

void gq__selector_clear(struct gq_selector *s)
{
    size_t i, j;

    gq__kvs_clear(&s->match_labels);
    for (i = 0; i < s->nreqs; i++) {
        free(s->reqs[i].key);
        for (j = 0; j < s->reqs[i].values.n; j++)
            free(s->reqs[i].values.v[j]);
        free(s->reqs[i].values.v);
    }
    free(s->reqs);
    memset(s, 0, sizeof(*s));
}

static const char *label(const struct gq_kvs *labels, const char *key)
{
    size_t i;

    for (i = 0; i < labels->n; i++)
        if (strcmp(labels->v[i].key, key) == 0)
            return labels->v[i].value;
    return NULL;
}

static bool in_values(const struct gq_strs *values, const char *v)
{
    size_t i;

    for (i = 0; i < values->n; i++)
        if (strcmp(values->v[i], v) == 0)
            return true;
    return false;
}

/* Gt and Lt compare integers; a value that is not one never matches. */
static bool compare_int(const char *have, const struct gq_strs *values, bool greater)
{
    char *end;
    long long a, b;

    if (values->n != 1)
        return false;
    a = strtoll(have, &end, 10);
    if (*have == '\0' || *end)
        return false;
    b = strtoll(values->v[0], &end, 10);
    if (*values->v[0] == '\0' || *end)
        return false;
    return greater ? a > b : a < b;
}

static bool req_matches(const struct gq_sel_req *r, const struct gq_kvs *labels)
{
    const char *have = label(labels, r->key);

    switch (r->op) {
    case GQ_SEL_IN:
        return have && in_values(&r->values, have);
    case GQ_SEL_NOT_IN:
        return !have || !in_values(&r->values, have);
    case GQ_SEL_EXISTS:
        return have != NULL;
    case GQ_SEL_DOES_NOT_EXIST:
        return have == NULL;
    case GQ_SEL_GT:
        return have && compare_int(have, &r->values, true);
    case GQ_SEL_LT:
        return have && compare_int(have, &r->values, false);
    }
    return false;
}

bool gq__selector_matches(const struct gq_selector *s, const struct gq_kvs *labels)
{
    const char *have;
    size_t i;

    for (i = 0; i < s->match_labels.n; i++) {
        have = label(labels, s->match_labels.v[i].key);
        if (!have || strcmp(have, s->match_labels.v[i].value) != 0)
            return false;
    }
    for (i = 0; i < s->nreqs; i++)
        if (!req_matches(&s->reqs[i], labels))
            return false;
    return true;
}

/* ------------------------------------------------------------- flavors */

/* v1 ToleratesTaint. */
static bool tolerates(const struct gq_toleration *t, const struct gq_taint *taint)
{
    if (t->effect && *t->effect && strcmp(t->effect, taint->effect) != 0)
        return false;
    if (t->key && *t->key && strcmp(t->key, taint->key) != 0)
        return false;
    if (t->op && strcmp(t->op, "Exists") == 0)
        return true;
    if (!t->key || !*t->key)
        return false; /* an empty key needs Exists */
    return strcmp(t->value ? t->value : "", taint->value ? taint->value : "") == 0;
}

static const struct gq_taint *untolerated(const struct gq_flavor *f, const struct gq_snap_ps *ps)
{
    size_t i, j;

    for (i = 0; i < f->ntaints; i++) {
        const struct gq_taint *taint = &f->taints[i];
        bool ok = false;

        if (strcmp(taint->effect, "NoSchedule") != 0 && strcmp(taint->effect, "NoExecute") != 0)
            continue;
        for (j = 0; j < ps->ntols && !ok; j++)
            ok = tolerates(&ps->tols[j], taint);
        for (j = 0; j < f->ntolerations && !ok; j++)
            ok = tolerates(&f->tolerations[j], taint);
        if (!ok)
            return taint;
    }
    return NULL;
}

/* A node selector term with only the expressions whose key the flavor defines. */
static bool term_matches(const struct gq_selector *term, const struct gq_kvs *flabels,
                         bool *empty)
{
    size_t i, kept = 0;
    bool ok = true;

    for (i = 0; i < term->nreqs; i++) {
        if (!label(flabels, term->reqs[i].key))
            continue;
        kept++;
        ok = ok && req_matches(&term->reqs[i], flabels);
    }
    *empty = kept == 0;
    return ok;
}

/* kube-scheduler's NodeAffinity filter against a node labelled as the flavor. */
static bool affinity_matches(const struct gq_flavor *f, const struct gq_snap_ps *ps)
{
    const char *want;
    bool any = false, empty;
    size_t i;

    for (i = 0; i < ps->node_selector.n; i++) {
        want = label(&f->node_labels, ps->node_selector.v[i].key);
        if (want && strcmp(want, ps->node_selector.v[i].value) != 0)
            return false;
    }
    if (!ps->nterms)
        return true;
    for (i = 0; i < ps->nterms; i++) {
        bool ok = term_matches(&ps->terms[i], &f->node_labels, &empty);

        if (empty)
            return true; /* a term with no relevant key matches any flavor */
        any = any || ok;
    }
    return any;
}

bool gq__flavor_matches(const struct gq_snapshot *s, int flavor, const struct gq_snap_ps *ps,
                        char *why, size_t whylen)
{
    const struct gq_snap_flavor *f = &s->flavors[flavor];
    const struct gq_taint *t;

    if (!f->exists) {
        snprintf(why, whylen, "flavor %s not found", f->name);
        return false;
    }
    if ((t = untolerated(&f->spec, ps)) != NULL) {
        /* Go's %s of a v1.Taint value, as Kueue prints it. */
        snprintf(why, whylen, "untolerated taint {%s %s %s <nil>} in flavor %s", t->key,
                 t->value ? t->value : "", t->effect, f->name);
        return false;
    }
    if (!affinity_matches(&f->spec, ps)) {
        snprintf(why, whylen, "flavor %s doesn't match node affinity", f->name);
        return false;
    }
    return true;
}
