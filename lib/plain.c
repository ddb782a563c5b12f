/*
 * plain.c: where a workload stands, in plain words (see plain.h). Pure.
 */
#include "plain.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "util.h"

static const char *span(char buf[GQ_DURATION_BUFSIZE], int64_t ms)
{
    gq__format_duration_ms(buf, GQ_DURATION_BUFSIZE, ms > 0 ? ms - ms % 1000 : 0, true);
    return buf;
}

static bool is(const char *a, const char *b)
{
    return a && strcmp(a, b) == 0;
}

/* Kueue's eviction wording, cut to what happened: "Retrying after failure: X". */
static const char *why(const char *message)
{
    static const char prefix[] = "Evicted due to AdmissionCheck in Retry state: ";

    if (!message || !*message)
        return NULL;
    if (strncmp(message, prefix, sizeof(prefix) - 1) == 0)
        return message + sizeof(prefix) - 1;
    return message;
}

const char *gq__plain_status(char *buf, size_t size, const struct gq_plain *p)
{
    char at[32], d[GQ_DURATION_BUFSIZE];
    const char *m = why(p->message);

    buf[0] = '\0';
    if (is(p->state, "pending") && p->requeue_ms > p->now_ms) {
        snprintf(buf, size, "retrying at %s (in %s)%s%s", gq__rfc3339(at, p->requeue_ms),
                 span(d, p->requeue_ms - p->now_ms), m ? ": " : "", m ? m : "");
    } else if (is(p->state, "pending")) {
        int n = 0;

        if (m)
            n = snprintf(buf, size, "waiting for quota: %s", m);
        else
            n = snprintf(buf, size, "waiting for quota");
        if (p->position_cq > 0 && n >= 0 && (size_t)n < size)
            snprintf(buf + n, size - (size_t)n, " (%lld ahead in ClusterQueue %s)",
                     (long long)p->position_cq, p->cluster_queue ? p->cluster_queue : "");
    } else if (is(p->state, "reserved")) {
        /* The engine's note says "waiting for capacity: ProvisioningRequest X (attempt n): ..." */
        static const char cap[] = "waiting for capacity: ";
        int64_t waited = p->reserved_ms && p->now_ms > p->reserved_ms ? p->now_ms - p->reserved_ms : 0;

        if (!m)
            m = "waiting for admission checks";
        if (waited >= 1000 && strncmp(m, cap, sizeof(cap) - 1) == 0)
            snprintf(buf, size, "waiting for capacity (%s): %s", span(d, waited),
                     m + sizeof(cap) - 1);
        else
            snprintf(buf, size, "%s", m);
    } else if (is(p->state, "deactivated")) {
        snprintf(buf, size, "rejected: %s; `gpuq resume workload %s%s%s` queues it again",
                 m ? m : "deactivated", p->name ? p->name : "NAME",
                 p->namespace && strcmp(p->namespace, "default") ? " -n " : "",
                 p->namespace && strcmp(p->namespace, "default") ? p->namespace : "");
    } else if (is(p->state, "running") && p->started_ms && p->now_ms >= p->started_ms) {
        snprintf(buf, size, "running for %s", span(d, p->now_ms - p->started_ms));
    } else if (is(p->state, "admitted")) {
        snprintf(buf, size, "admitted: released to run");
    } else if (m) {
        snprintf(buf, size, "%s", m);
    }
    return buf;
}
