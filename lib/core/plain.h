/*
 * plain.h: where a workload stands, in plain words (issue 4, "beyond
 * Kueue": kueue-semantics.md §6 items 1 and 13): waiting for quota and how
 * many are ahead, waiting for capacity (the request, its attempt, for how
 * long, the provider's last message with GKE's ETA), retrying at a given
 * time, rejected and why, and what to do about it; admitted but waiting
 * for its pods to be ready, and when PodsReadyTimeout evicts it. Pure: time passed in.
 */
#ifndef GQ_PLAIN_H
#define GQ_PLAIN_H

#include <stddef.h>
#include <stdint.h>

struct gq_plain {
    const char *namespace;
    const char *name;         /* the workload, for the command to run */
    const char *state;        /* pending, reserved, admitted, running, finished, deactivated */
    const char *message;      /* status.gpuq.message: Kueue's words, may be NULL */
    const char *cluster_queue;
    int64_t position_cq;      /* ahead of it in its ClusterQueue; -1: unknown */
    int64_t reserved_ms;      /* when quota was reserved or it was admitted; 0 */
    int64_t started_ms;       /* when its pods started; 0 */
    int64_t requeue_ms;       /* backing off until then; 0 */
    int64_t now_ms;
    /* waitForPodsReady (issue 17): an admitted workload's PodsReady reason, NULL when the
       setting is off or its pods are ready; when PodsReadyTimeout evicts it, 0: never. */
    const char *pods_ready;
    int64_t pods_ready_deadline_ms;
};

/* The sentence, into buf (always NUL-terminated). Returns buf. */
const char *gq__plain_status(char *buf, size_t size, const struct gq_plain *p);

#endif
