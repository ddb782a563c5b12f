/*
 * test_quota.c: the resource tree against kueue-semantics.md §2.4, including
 * the examples of Kueue's cohort documentation, usage bubbling through
 * lending limits, hierarchical cohorts and saturating arithmetic.
 */
#include <stdint.h>

#include "quota.h"
#include "test.h"

enum { A, B, COHORT, NNODES };

/* Two queues a (nominal na) and b (nominal nb) in one cohort, one column. */
static void two(struct gq_qtree *t, int64_t na, int64_t nb)
{
    CHECK(gq__qtree_init(t, NNODES, 1) == 0);
    gq__qtree_set_parent(t, A, COHORT);
    gq__qtree_set_parent(t, B, COHORT);
    GQ_Q(t, nominal, A, 0) = na;
    GQ_Q(t, nominal, B, 0) = nb;
}

static void docs_examples(void)
{
    static const struct {
        const char *what;
        int64_t a_borrow, b_lend; /* -1: unset */
        int64_t a_can_use;
    } rows[] = {
        {"a 9 + b 12 in a cohort: a can use 21", -1, -1, 21},
        {"borrowingLimit 1 on a: 10", 1, -1, 10},
        {"lendingLimit 1 on b: 10", -1, 1, 10},
        {"borrowingLimit 0 on a: its nominal only", 0, -1, 9},
        {"lendingLimit 0 on b: a keeps its 9", -1, 0, 9},
    };
    size_t i;

    for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        struct gq_qtree t;

        two(&t, 9, 12);
        if (rows[i].a_borrow >= 0)
            GQ_Q(&t, blimit, A, 0) = rows[i].a_borrow;
        if (rows[i].b_lend >= 0)
            GQ_Q(&t, llimit, B, 0) = rows[i].b_lend;
        gq__qtree_finish(&t);
        CHECKF(gq__qtree_available(&t, A, 0) == rows[i].a_can_use, "%s: available %lld",
               rows[i].what, (long long)gq__qtree_available(&t, A, 0));
        CHECKF(gq__qtree_potential(&t, A, 0) == rows[i].a_can_use, "%s: potential %lld",
               rows[i].what, (long long)gq__qtree_potential(&t, A, 0));
        gq__qtree_free(&t);
    }
}

/* Usage beyond a lending limit's guaranteed part is what the cohort sees. */
static void bubbling(void)
{
    struct gq_qtree t;

    two(&t, 10, 10);
    GQ_Q(&t, llimit, A, 0) = 4; /* a keeps 6 to itself */
    gq__qtree_finish(&t);
    CHECK(GQ_Q(&t, subtree, COHORT, 0) == 14);
    gq__qtree_add(&t, A, 0, 5);
    CHECK(GQ_Q(&t, usage, COHORT, 0) == 0); /* within a's guaranteed 6 */
    gq__qtree_add(&t, A, 0, 3);
    CHECK(GQ_Q(&t, usage, COHORT, 0) == 2);
    CHECK(gq__qtree_available(&t, B, 0) == 12); /* 14 - 2 */
    CHECK(gq__qtree_available(&t, A, 0) == 12); /* 0 local + 12 from the cohort */
    gq__qtree_remove(&t, A, 0, 3);
    CHECK(GQ_Q(&t, usage, A, 0) == 5);
    CHECK(GQ_Q(&t, usage, COHORT, 0) == 0);
    gq__qtree_free(&t);
}

/* A parent cohort's own quota is shared by the children below it. */
static void hierarchy(void)
{
    enum { Q, CHILD, ROOT, N };
    struct gq_qtree t;
    int heights[N] = {0, 1, 2};
    bool reclaim;

    CHECK(gq__qtree_init(&t, N, 1) == 0);
    gq__qtree_set_parent(&t, Q, CHILD);
    gq__qtree_set_parent(&t, CHILD, ROOT);
    GQ_Q(&t, nominal, Q, 0) = 2;
    GQ_Q(&t, nominal, CHILD, 0) = 3;
    GQ_Q(&t, nominal, ROOT, 0) = 5;
    gq__qtree_finish(&t);
    CHECK(GQ_Q(&t, subtree, CHILD, 0) == 5);
    CHECK(GQ_Q(&t, subtree, ROOT, 0) == 10);
    CHECK(gq__qtree_available(&t, Q, 0) == 10);
    CHECK(gq__qtree_fit_height(&t, heights, Q, 0, 2, &reclaim) == 0 && reclaim);
    CHECK(gq__qtree_fit_height(&t, heights, Q, 0, 4, &reclaim) == 1 && reclaim);
    CHECK(gq__qtree_fit_height(&t, heights, Q, 0, 8, &reclaim) == 2 && !reclaim);
    GQ_Q(&t, blimit, CHILD, 0) = 1; /* the child cohort may borrow 1 of the root's 5 */
    CHECK(gq__qtree_available(&t, Q, 0) == 6);
    gq__qtree_free(&t);
}

static void saturation(void)
{
    struct gq_qtree t;

    CHECK(gq__sat_add(INT64_MAX, 1) == INT64_MAX);
    CHECK(gq__sat_sub(INT64_MIN, 1) == INT64_MIN);
    CHECK(gq__sat_mul(INT64_MAX / 2, 3) == INT64_MAX);
    CHECK(gq__sat_mul(-4, INT64_MAX) == INT64_MIN);
    two(&t, INT64_MAX, INT64_MAX);
    gq__qtree_finish(&t);
    CHECK(GQ_Q(&t, subtree, COHORT, 0) == INT64_MAX);
    CHECK(gq__qtree_available(&t, A, 0) == INT64_MAX);
    gq__qtree_free(&t);
}

/* Cycles disable the tree: such nodes lose their parent and are marked. */
static void cycles(void)
{
    struct gq_qtree t;

    CHECK(gq__qtree_init(&t, 3, 1) == 0);
    gq__qtree_set_parent(&t, 1, 2);
    gq__qtree_set_parent(&t, 2, 1);
    gq__qtree_set_parent(&t, 0, 1);
    gq__qtree_finish(&t);
    CHECK(t.cycle[0] && t.cycle[1] && t.cycle[2]);
    gq__qtree_free(&t);
}

int main(void)
{
    TEST_RUN(docs_examples);
    TEST_RUN(bubbling);
    TEST_RUN(hierarchy);
    TEST_RUN(saturation);
    TEST_RUN(cycles);
    return TEST_DONE();
}
