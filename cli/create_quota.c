/*
 * create_quota.c: a ClusterQueue's resourceGroups from kueuectl's
 * --nominal-quota, --borrowing-limit and --lending-limit, each a list of
 * "FLAVOR:RESOURCE=QUANTITY;RESOURCE=QUANTITY" (create_clusterqueue.go).
 *
 * As kueuectl does, every listing becomes a flavor with the resources it
 * names; listings of the same flavor (its quota in one flag, its limits in
 * another) merge into one (mergeResourcesByFlavor), and flavors that cover
 * the same resources share a resource group (mergeFlavorsByCoveredResources).
 * Its errors keep their names: invalid resources specification, invalid
 * resource quota, invalid flavor (resource quota not found), invalid
 * resource group. Where kueuectl lets an input through that it then drops
 * or that the API server refuses, gpuq says so here instead:
 *   - listings of a flavor must name the same resources both ways (kueuectl
 *     checks one way only, and drops a limit on a resource the first
 *     listing lacks), and a flag gives a flavor's values once;
 *   - a resource belongs to one group (kueuectl tests this by a substring
 *     of the sorted names, which lets "cpu" then "cpu;memory" through and
 *     stops "gpu" after "nvidia.com/gpu");
 *   - a flavor that lists its group's resources in another order is
 *     written in the group's order, which Kueue's webhook requires;
 *   - resource names are Kubernetes qualified names and quantities any
 *     non-negative Kubernetes quantity ("nvidia.com/mig-1g.5gb=7",
 *     "cpu=1.5"), where kueuectl's pattern allows only word characters.
 * Everything is checked before anything is written, so the JSON needs no
 * escaping. Sizes: a few flavors of a few resources; Kueue caps them at
 * 16 groups and 256 flavors, which the decoder that applies it checks.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "create.h"

enum { NOMINAL, BORROWING, LENDING, NKINDS };

static const char *const flag_names[NKINDS] = {"nominal-quota", "borrowing-limit", "lending-limit"};
static const char *const field_names[NKINDS] = {"nominalQuota", "borrowingLimit", "lendingLimit"};

/* One resource of a flavor. */
struct quota {
    const char *name;      /* the resource, in the flag's copy */
    gq_quantity q[NKINDS]; /* the quota and the limits */
    bool has[NKINDS];      /* which of them were given */
};

/* One listing "FLAVOR:RESOURCE=QUANTITY;..." of one flag. */
struct flavor {
    const char *name;  /* in the flag's copy */
    const char *text;  /* the listing as given, for messages */
    int kind;          /* the flag it came from */
    struct quota *res; /* owned */
    size_t nres;
    bool absorbed; /* merged into an earlier listing of the same flavor */
    size_t group;  /* its resource group, once grouped */
};

struct quotas {
    struct items it[NKINDS]; /* the flags' items; own the text the flavors point into */
    struct flavor *f;        /* every listing, the nominal quotas first; owned */
    size_t n;
    size_t ngroups;
};

/* ------------------------------------------------------------------ parsing */

static int spec_error(const struct flavor *f, const char *why)
{
    return cli_usage_error("invalid resources specification \"%s\" in --%s: %s", f->text,
                           flag_names[f->kind], why);
}

static struct quota *find(const struct flavor *f, const char *name)
{
    size_t i;

    for (i = 0; i < f->nres; i++)
        if (!strcmp(f->res[i].name, name))
            return &f->res[i];
    return NULL;
}

/* "RESOURCE=QUANTITY", cut in place, added to f. */
static int parse_quota(struct flavor *f, char *s)
{
    char *eq = strchr(s, '='), shown[300];
    struct quota *r = &f->res[f->nres];
    gq_error err = {0, ""};

    if (!eq || eq == s || !eq[1])
        return spec_error(f, "want FLAVOR:RESOURCE=QUANTITY[;RESOURCE=QUANTITY...]");
    *eq = '\0';
    if (gq_validate_resource_name(s, &err) != GQ_OK)
        return spec_error(f, err.msg);
    if (find(f, s)) {
        snprintf(shown, sizeof(shown), "resource \"%s\" is given twice", s);
        return spec_error(f, shown);
    }
    if (gq_quantity_parse(&r->q[f->kind], eq + 1, strlen(eq + 1), &err) != GQ_OK ||
        gq_quantity_sign(&r->q[f->kind]) < 0)
        return cli_usage_error("invalid resource quota \"%s=%s\" in --%s: %s", s, eq + 1,
                               flag_names[f->kind], err.msg[0] ? err.msg : "must not be negative");
    r->name = s;
    r->has[f->kind] = true;
    f->nres++;
    return EXIT_SUCCESS;
}

/* "FLAVOR:RESOURCE=QUANTITY;...", cut in place; a ';' may end it, as kueuectl's pattern allows. */
static int parse_flavor(struct flavor *f, char *s)
{
    char *p = strchr(s, ':');
    gq_error err = {0, ""};
    size_t len;
    int rc;

    if (!p || !p[1])
        return spec_error(f, "want FLAVOR:RESOURCE=QUANTITY[;RESOURCE=QUANTITY...]");
    *p++ = '\0';
    if (gq_validate_dns1123_subdomain(s, &err) != GQ_OK)
        return spec_error(f, err.msg);
    f->name = s;
    if (!(f->res = calloc(strlen(p) / 2 + 1, sizeof(*f->res)))) {
        fputs("error: out of memory\n", stderr);
        return EXIT_FAILURE;
    }
    while (*p) {
        len = strcspn(p, ";");
        if (len == 0)
            return spec_error(f, "an empty resource between ';'");
        if (p[len])
            p[len++] = '\0';
        if ((rc = parse_quota(f, p)) != EXIT_SUCCESS)
            return rc;
        p += len;
    }
    return EXIT_SUCCESS;
}

static int parse_all(struct quotas *qs, const struct strlist *flags[NKINDS])
{
    size_t total = 0, i;
    int k, rc;

    for (k = 0; k < NKINDS; k++) {
        if ((rc = items_split(&qs->it[k], flags[k])) != EXIT_SUCCESS)
            return rc;
        total += qs->it[k].n;
    }
    if (total && !(qs->f = calloc(total, sizeof(*qs->f)))) {
        fputs("error: out of memory\n", stderr);
        return EXIT_FAILURE;
    }
    for (k = 0; k < NKINDS; k++) {
        for (i = 0; i < qs->it[k].n; i++) {
            struct flavor *f = &qs->f[qs->n++];

            f->kind = k;
            f->text = qs->it[k].text[i];
            if ((rc = parse_flavor(f, qs->it[k].v[i])) != EXIT_SUCCESS)
                return rc;
        }
    }
    return EXIT_SUCCESS;
}

/* ------------------------------------------------------------------ merging */

/* A resource one listing names and the other does not: kueuectl's "resource quota not found". */
static int not_found(const struct flavor *has, const struct flavor *lacks, const char *res)
{
    return cli_usage_error("invalid flavor \"%s\": resource quota not found: \"%s\" of --%s "
                           "\"%s\" is not in --%s \"%s\"",
                           has->name, res, flag_names[has->kind], has->text,
                           flag_names[lacks->kind], lacks->text);
}

/* Merge listing f into the earlier listing into of the same flavor. */
static int merge_flavor(struct flavor *into, const struct flavor *f)
{
    struct quota *r;
    size_t i;

    for (i = 0; i < into->nres; i++)
        if (!find(f, into->res[i].name))
            return not_found(into, f, into->res[i].name);
    for (i = 0; i < f->nres; i++) {
        if (!(r = find(into, f->res[i].name)))
            return not_found(f, into, f->res[i].name);
        if (r->has[f->kind])
            return cli_usage_error("invalid flavor \"%s\": --%s gives it twice (\"%s\", \"%s\")",
                                   f->name, flag_names[f->kind], into->text, f->text);
        r->q[f->kind] = f->res[i].q[f->kind];
        r->has[f->kind] = true;
    }
    return EXIT_SUCCESS;
}

/* kueuectl's mergeResourcesByFlavor: later listings of a flavor merge into its first. */
static int merge_by_flavor(struct quotas *qs)
{
    size_t i, j;
    int rc;

    for (i = 1; i < qs->n; i++) {
        for (j = 0; j < i; j++) {
            if (!qs->f[j].absorbed && !strcmp(qs->f[j].name, qs->f[i].name)) {
                if ((rc = merge_flavor(&qs->f[j], &qs->f[i])) != EXIT_SUCCESS)
                    return rc;
                qs->f[i].absorbed = true;
                break;
            }
        }
    }
    return EXIT_SUCCESS;
}

/* Whether a and b cover the same resources; else *shared gets one both cover, if any. */
static bool same_resources(const struct flavor *a, const struct flavor *b, const char **shared)
{
    size_t i, common = 0;

    for (i = 0; i < b->nres; i++) {
        if (find(a, b->res[i].name)) {
            *shared = b->res[i].name;
            common++;
        }
    }
    return common == a->nres && common == b->nres;
}

/* b's resources in a's order: the order Kueue requires of every flavor of a group. */
static void reorder(const struct flavor *a, struct flavor *b)
{
    struct quota t;
    size_t i, j;

    for (i = 0; i < a->nres; i++) {
        for (j = i; strcmp(b->res[j].name, a->res[i].name); j++)
            ;
        t = b->res[i];
        b->res[i] = b->res[j];
        b->res[j] = t;
    }
}

/* The first flavor of group g. */
static struct flavor *group_head(struct quotas *qs, size_t g)
{
    size_t i;

    for (i = 0; i < qs->n; i++)
        if (!qs->f[i].absorbed && qs->f[i].group == g)
            return &qs->f[i];
    return NULL;
}

/* kueuectl's mergeFlavorsByCoveredResources: a group per set of resources, disjoint sets. */
static int group_flavors(struct quotas *qs)
{
    struct flavor *f, *head;
    const char *shared;
    size_t i, g;

    for (i = 0; i < qs->n; i++) {
        if ((f = &qs->f[i])->absorbed)
            continue;
        for (g = 0; g < qs->ngroups; g++) {
            shared = NULL;
            head = group_head(qs, g);
            if (same_resources(head, f, &shared)) {
                reorder(head, f);
                break;
            }
            if (shared)
                return cli_usage_error("invalid resource group: flavor \"%s\" covers \"%s\" "
                                       "as flavor \"%s\" does, with other resources (a resource "
                                       "is in one group, whose flavors list the same ones)",
                                       f->name, shared, head->name);
        }
        f->group = g;
        if (g == qs->ngroups)
            qs->ngroups++;
    }
    return EXIT_SUCCESS;
}

/* ------------------------------------------------------------------ writing */

static void write_flavor(FILE *out, const struct flavor *f)
{
    char q[GQ_QUANTITY_BUFSIZE];
    size_t i;
    int k;

    fprintf(out, "{\"name\": \"%s\", \"resources\": [", f->name);
    for (i = 0; i < f->nres; i++) {
        fprintf(out, "%s{\"name\": \"%s\"", i ? ", " : "", f->res[i].name);
        for (k = 0; k < NKINDS; k++) {
            /* nominalQuota is required: kueuectl sends a zero quantity, "0". */
            if (!f->res[i].has[k] && k != NOMINAL)
                continue;
            if (f->res[i].has[k])
                gq_quantity_format(q, sizeof(q), &f->res[i].q[k]);
            fprintf(out, ", \"%s\": \"%s\"", field_names[k], f->res[i].has[k] ? q : "0");
        }
        fputc('}', out);
    }
    fputs("]}", out);
}

static void write_groups(FILE *out, struct quotas *qs)
{
    const struct flavor *head;
    size_t g, i;
    bool first;

    fputs(", \"resourceGroups\": [", out);
    for (g = 0; g < qs->ngroups; g++) {
        head = group_head(qs, g);
        fprintf(out, "%s{\"coveredResources\": [", g ? ", " : "");
        for (i = 0; i < head->nres; i++)
            fprintf(out, "%s\"%s\"", i ? ", " : "", head->res[i].name);
        fputs("], \"flavors\": [", out);
        for (i = 0, first = true; i < qs->n; i++) {
            if (qs->f[i].absorbed || qs->f[i].group != g)
                continue;
            fputs(first ? "" : ", ", out);
            write_flavor(out, &qs->f[i]);
            first = false;
        }
        fputs("]}", out);
    }
    fputc(']', out);
}

int create_resource_groups(FILE *out,
                           const struct strlist *nominal,
                           const struct strlist *borrowing,
                           const struct strlist *lending)
{
    const struct strlist *flags[NKINDS] = {nominal, borrowing, lending};
    struct quotas qs;
    size_t i;
    int k, rc;

    memset(&qs, 0, sizeof(qs));
    if ((rc = parse_all(&qs, flags)) == EXIT_SUCCESS &&
        (rc = merge_by_flavor(&qs)) == EXIT_SUCCESS && (rc = group_flavors(&qs)) == EXIT_SUCCESS &&
        qs.n)
        write_groups(out, &qs);
    for (i = 0; i < qs.n; i++)
        free(qs.f[i].res);
    free(qs.f);
    for (k = 0; k < NKINDS; k++)
        items_free(&qs.it[k]);
    return rc;
}
