/*
 * test_plain.c: where a workload stands, in plain words (issue 4, "beyond
 * Kueue"): waiting for quota with how many are ahead, waiting for capacity
 * for how long, retrying at a time, rejected with the command that undoes it;
 * admitted but waiting for its pods (waitForPodsReady) and until when.
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
        {{"default", "w", "pending", NULL, "cq", 0, 0, 0, 0, T0, NULL, 0}, "waiting for quota"},
        {{"default", "w", "pending", "insufficient unused quota", "cq", 3, 0, 0, 0, T0, NULL, 0},
         "waiting for quota: insufficient unused quota (3 ahead in ClusterQueue cq)"},
        {{"default", "w", "pending",
          "Evicted due to AdmissionCheck in Retry state: Retrying after failure: x", "cq", 0, 0,
          0, T0 + 90 * 1000, T0, NULL, 0},
         "retrying at 2026-11-21T08:01:30Z (in 1m30s): Retrying after failure: x"},
        {{"default", "w", "reserved",
          "waiting for capacity: ProvisioningRequest w-c-1 (attempt 1): ETA 2h", "cq", -1,
          T0 - 12 * MIN, 0, 0, T0, NULL, 0},
         "waiting for capacity (12m): ProvisioningRequest w-c-1 (attempt 1): ETA 2h"},
        {{"default", "w", "reserved", NULL, "cq", -1, T0, 0, 0, T0, NULL, 0}, "waiting for admission checks"},
        {{"team-c", "w", "deactivated", "out of resources", "cq", -1, 0, 0, 0, T0, NULL, 0},
         "rejected: out of resources; `gpuq resume workload w -n team-c` queues it again"},
        {{"default", "w", "deactivated", "out of resources", "cq", -1, 0, 0, 0, T0, NULL, 0},
         "rejected: out of resources; `gpuq resume workload w` queues it again"},
        {{"default", "w", "running", NULL, "cq", -1, T0 - 50 * MIN, T0 - 45 * MIN, 0, T0, NULL, 0},
         "running for 45m"},
        {{"default", "w", "finished", NULL, "cq", -1, 0, 0, 0, T0, NULL, 0}, ""},
        /* waitForPodsReady: admitted, its pods not ready, and when PodsReadyTimeout is due */
        {{"default", "w", "admitted", NULL, "cq", -1, T0 - MIN, 0, 0, T0, "WaitForStart",
          T0 + 4 * MIN},
         "admitted: waiting for its pods to be ready (PodsReady False, WaitForStart: Not all pods "
         "are ready or succeeded); PodsReadyTimeout at 2026-11-21T08:04:00Z (in 4m)"},
        {{"default", "w", "admitted", NULL, "cq", -1, T0 - 6 * MIN, 0, 0, T0, "WaitForStart",
          T0 - MIN},
         "admitted: waiting for its pods to be ready (PodsReady False, WaitForStart: Not all pods "
         "are ready or succeeded); PodsReadyTimeout due since 2026-11-21T07:59:00Z (1m ago)"},
        {{"default", "w", "running", NULL, "cq", -1, T0 - 6 * MIN, T0 - 5 * MIN, 0, T0,
          "WaitForRecovery", T0 + 90 * 1000},
         "running: waiting for its pods to recover (PodsReady False, WaitForRecovery: At least "
         "one pod has failed, waiting for recovery); PodsReadyTimeout at 2026-11-21T08:01:30Z "
         "(in 1m30s)"},
        {{"default", "w", "running", NULL, "cq", -1, T0 - 6 * MIN, T0 - 5 * MIN, 0, T0,
          "WaitForRecovery", 0},
         "running: waiting for its pods to recover (PodsReady False, WaitForRecovery: At least "
         "one pod has failed, waiting for recovery); no recoveryTimeout: no PodsReadyTimeout"},
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
