/*
 * test_plain.c: where a workload stands, in plain words (issue 4, "beyond
 * Kueue"): waiting for quota with how many are ahead, waiting for capacity
 * for how long, retrying at a time, rejected with the command that undoes it.
 */
#include <string.h>

#include "plain.h"
#include "test.h"

#define MIN (60 * 1000)
#define T0 1795248000000LL /* 2026-11-21T08:00:00Z */

static void rows(void)
{
    static const struct {
        struct gq_plain in;
        const char *out;
    } v[] = {
        {{"default", "w", "pending", NULL, "cq", 0, 0, 0, 0, T0}, "waiting for quota"},
        {{"default", "w", "pending", "insufficient unused quota", "cq", 3, 0, 0, 0, T0},
         "waiting for quota: insufficient unused quota (3 ahead in ClusterQueue cq)"},
        {{"default", "w", "pending",
          "Evicted due to AdmissionCheck in Retry state: Retrying after failure: x", "cq", 0, 0,
          0, T0 + 90 * 1000, T0},
         "retrying at 2026-11-21T08:01:30Z (in 1m30s): Retrying after failure: x"},
        {{"default", "w", "reserved",
          "waiting for capacity: ProvisioningRequest w-c-1 (attempt 1): ETA 2h", "cq", -1,
          T0 - 12 * MIN, 0, 0, T0},
         "waiting for capacity (12m): ProvisioningRequest w-c-1 (attempt 1): ETA 2h"},
        {{"default", "w", "reserved", NULL, "cq", -1, T0, 0, 0, T0}, "waiting for admission checks"},
        {{"team-c", "w", "deactivated", "out of resources", "cq", -1, 0, 0, 0, T0},
         "rejected: out of resources; `gpuq resume workload w -n team-c` queues it again"},
        {{"default", "w", "deactivated", "out of resources", "cq", -1, 0, 0, 0, T0},
         "rejected: out of resources; `gpuq resume workload w` queues it again"},
        {{"default", "w", "running", NULL, "cq", -1, T0 - 50 * MIN, T0 - 45 * MIN, 0, T0},
         "running for 45m"},
        {{"default", "w", "finished", NULL, "cq", -1, 0, 0, 0, T0}, ""},
    };
    char buf[512];
    size_t i;

    for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
        CHECKF(strcmp(gq__plain_status(buf, sizeof(buf), &v[i].in), v[i].out) == 0,
               "row %zu: %s", i, buf);
    /* a small buffer is cut, never overrun */
    CHECK(strlen(gq__plain_status(buf, 8, &v[1].in)) == 7);
}

int main(void)
{
    TEST_RUN(rows);
    return TEST_DONE();
}
