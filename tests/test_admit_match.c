/*
 * test_admit_match.c: whether a pod set may use a flavor (taints and
 * tolerations, nodeSelector and required node affinity restricted to the
 * flavor's label keys, as Kueue's checkFlavorForPodSets) and label
 * selectors (namespaceSelector), table-driven.
 */
#include <stdlib.h>

#include "admit.h"
#include "test.h"

/* The core's structs own mutable strings; these tables only point at literals. */
#pragma GCC diagnostic ignored "-Wdiscarded-qualifiers"

static struct gq_kv zone_a[] = {{"zone", "a"}, {"gpu", "a100"}};
static struct gq_taint spot[] = {{"spot", "true", "NoSchedule"}};
static struct gq_taint soft[] = {{"spot", "true", "PreferNoSchedule"}};
static struct gq_toleration tol_spot[] = {{"spot", "Equal", "true", "NoSchedule", false, 0}};
static struct gq_toleration tol_any[] = {{NULL, "Exists", NULL, NULL, false, 0}};
static struct gq_toleration tol_wrong[] = {{"spot", "Equal", "false", NULL, false, 0}};
static struct gq_kv sel_zone_a[] = {{"zone", "a"}};
static struct gq_kv sel_zone_b[] = {{"zone", "b"}};
static struct gq_kv sel_other[] = {{"team", "x"}};
static char *v_a[] = {"a"}, *v_b[] = {"b"}, *v_x[] = {"x"};
static struct gq_sel_req in_a[] = {{"zone", GQ_SEL_IN, {v_a, 1}}};
static struct gq_sel_req in_b[] = {{"zone", GQ_SEL_IN, {v_b, 1}}};
static struct gq_sel_req notin_a[] = {{"zone", GQ_SEL_NOT_IN, {v_a, 1}}};
static struct gq_sel_req other_key[] = {{"team", GQ_SEL_IN, {v_x, 1}}};
static struct gq_selector terms_b_or_a[] = {{{NULL, 0}, in_b, 1}, {{NULL, 0}, in_a, 1}};
static struct gq_selector terms_b[] = {{{NULL, 0}, in_b, 1}};
static struct gq_selector terms_notin_a[] = {{{NULL, 0}, notin_a, 1}};
static struct gq_selector terms_other[] = {{{NULL, 0}, other_key, 1}};

static void flavors(void)
{
    static const struct {
        const char *what;
        struct gq_taint *taints;
        struct gq_toleration *ftols; /* the flavor's own tolerations */
        struct gq_toleration *ptols; /* the pod set's */
        struct gq_kv *sel;
        size_t nsel;
        struct gq_selector *terms;
        size_t nterms;
        bool ok;
    } rows[] = {
        {"untainted, no constraints", NULL, NULL, NULL, NULL, 0, NULL, 0, true},
        {"NoSchedule taint, not tolerated", spot, NULL, NULL, NULL, 0, NULL, 0, false},
        {"PreferNoSchedule is ignored", soft, NULL, NULL, NULL, 0, NULL, 0, true},
        {"tolerated by the pod set", spot, NULL, tol_spot, NULL, 0, NULL, 0, true},
        {"tolerated by the flavor itself", spot, tol_spot, NULL, NULL, 0, NULL, 0, true},
        {"Exists with no key tolerates all", spot, NULL, tol_any, NULL, 0, NULL, 0, true},
        {"wrong value does not tolerate", spot, NULL, tol_wrong, NULL, 0, NULL, 0, false},
        {"nodeSelector matches", NULL, NULL, NULL, sel_zone_a, 1, NULL, 0, true},
        {"nodeSelector mismatches", NULL, NULL, NULL, sel_zone_b, 1, NULL, 0, false},
        {"a key the flavor lacks is ignored", NULL, NULL, NULL, sel_other, 1, NULL, 0, true},
        {"terms are ORed", NULL, NULL, NULL, NULL, 0, terms_b_or_a, 2, true},
        {"the only term mismatches", NULL, NULL, NULL, NULL, 0, terms_b, 1, false},
        {"NotIn the flavor's value", NULL, NULL, NULL, NULL, 0, terms_notin_a, 1, false},
        {"a term of foreign keys matches any", NULL, NULL, NULL, NULL, 0, terms_other, 1, true},
    };
    struct gq_snapshot s;
    char why[256];
    size_t i;

    for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        struct gq_snap_flavor f;
        struct gq_snap_ps ps;

        memset(&s, 0, sizeof(s));
        memset(&f, 0, sizeof(f));
        memset(&ps, 0, sizeof(ps));
        f.name = "f";
        f.exists = true;
        f.spec.node_labels.v = zone_a;
        f.spec.node_labels.n = 2;
        f.spec.taints = rows[i].taints;
        f.spec.ntaints = rows[i].taints ? 1 : 0;
        f.spec.tolerations = rows[i].ftols;
        f.spec.ntolerations = rows[i].ftols ? 1 : 0;
        ps.tols = rows[i].ptols;
        ps.ntols = rows[i].ptols ? 1 : 0;
        ps.node_selector.v = rows[i].sel;
        ps.node_selector.n = rows[i].nsel;
        ps.terms = rows[i].terms;
        ps.nterms = rows[i].nterms;
        s.flavors = &f;
        s.nflavors = 1;
        CHECKF(gq__flavor_matches(&s, 0, &ps, why, sizeof(why)) == rows[i].ok, "%s (%s)",
               rows[i].what, why);
    }
}

static void selectors(void)
{
    static struct gq_kv team_a[] = {{"team", "a"}};
    static struct gq_kvs labels = {team_a, 1}, none = {NULL, 0};
    static char *va[] = {"a"};
    static struct gq_sel_req exists[] = {{"team", GQ_SEL_EXISTS, {NULL, 0}}};
    static struct gq_sel_req absent[] = {{"team", GQ_SEL_DOES_NOT_EXIST, {NULL, 0}}};
    static struct gq_sel_req notin[] = {{"team", GQ_SEL_NOT_IN, {va, 1}}};
    struct gq_selector empty = {{NULL, 0}, NULL, 0};
    struct gq_selector ml = {{team_a, 1}, NULL, 0};
    struct gq_selector ex = {{NULL, 0}, exists, 1}, ab = {{NULL, 0}, absent, 1};
    struct gq_selector ni = {{NULL, 0}, notin, 1};

    CHECK(gq__selector_matches(&empty, &labels) && gq__selector_matches(&empty, &none));
    CHECK(gq__selector_matches(&ml, &labels) && !gq__selector_matches(&ml, &none));
    CHECK(gq__selector_matches(&ex, &labels) && !gq__selector_matches(&ex, &none));
    CHECK(!gq__selector_matches(&ab, &labels) && gq__selector_matches(&ab, &none));
    CHECK(!gq__selector_matches(&ni, &labels) && gq__selector_matches(&ni, &none));
}

static void interning(void)
{
    struct gq_intern in = {0};
    char name[32];
    int i, ok = 1;

    for (i = 0; i < 1000; i++) {
        snprintf(name, sizeof(name), "r%d", i);
        ok &= gq__intern(&in, name) == i;
    }
    CHECK(ok);
    CHECK(gq__intern(&in, "r500") == 500);
    CHECK(gq__intern_find(&in, "r999") == 999 && gq__intern_find(&in, "nope") == -1);
    gq__intern_free(&in);
}

int main(void)
{
    TEST_RUN(flavors);
    TEST_RUN(selectors);
    TEST_RUN(interning);
    return TEST_DONE();
}
