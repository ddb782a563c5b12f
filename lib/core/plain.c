/*
 * plain.c: where a workload stands, in plain words (see plain.h). Pure.
 */
#include "plain.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "state.h"
#include "util.h"

static const char *span(char buf[GQ_DURATION_BUFSIZE], int64_t ms)
{
    gq__format_duration_ms(buf, GQ_DURATION_BUFSIZE, ms > 0 ? ms - ms % 1000 : 0, true);
    return buf;
}


/* Text appended to a buffer and cut at its end; the hot path of a listing avoids snprintf. */
struct text {
    char *p;
    size_t left; /* bytes left, the NUL's included */
};

static void add(struct text *t, const char *s)
{
    size_t n = strlen(s);

    if (n >= t->left)
        n = t->left - 1;
    memcpy(t->p, s, n);
    t->p += n;
    t->left -= n;
    *t->p = '\0';
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

/*
 * Admitted, its pods not all ready (Kueue's PodsReady False, with the job
 * reconciler's reason and message), and when PodsReadyTimeout evicts it.
 */
static void pods_waiting(char *buf, size_t size, enum gq_wl_state s, const struct gq_plain *p)
{
    bool recovery = strcmp(p->pods_ready, "WaitForRecovery") == 0;
    char at[GQ_RFC3339_BUFSIZE], d[GQ_DURATION_BUFSIZE], when[128];
    int64_t due = p->pods_ready_deadline_ms;

    if (!due)
        snprintf(when, sizeof(when), "no recoveryTimeout: no PodsReadyTimeout");
    else if (due > p->now_ms)
        snprintf(when, sizeof(when), "PodsReadyTimeout at %s (in %s)", gq__rfc3339(at, due),
                 span(d, due - p->now_ms));
    else
        snprintf(when, sizeof(when), "PodsReadyTimeout due since %s (%s ago)",
                 gq__rfc3339(at, due), span(d, p->now_ms - due));
    snprintf(buf, size, "%s: waiting for its pods to %s (PodsReady False, %s: %s); %s",
             gq__wl_state_name(s), recovery ? "recover" : "be ready", p->pods_ready,
             recovery ? "At least one pod has failed, waiting for recovery"
                      : "Not all pods are ready or succeeded",
             when);
}

const char *gq__plain_status(char *buf, size_t size, const struct gq_plain *p)
{
    char at[32], d[GQ_DURATION_BUFSIZE];
    const char *m = why(p->message);
    enum gq_wl_state s;

    if (!gq__wl_state_parse(p->state, &s))
        s = GQ_WL_NSTATES; /* no sentence but the message */
    buf[0] = '\0';
    if (s == GQ_WL_PENDING && p->requeue_ms > p->now_ms) {
        snprintf(buf, size, "retrying at %s (in %s)%s%s", gq__rfc3339(at, p->requeue_ms),
                 span(d, p->requeue_ms - p->now_ms), m ? ": " : "", m ? m : "");
    } else if (s == GQ_WL_PENDING) {
        struct text t = {buf, size};
        char ahead[GQ_I64_BUFSIZE];

        add(&t, "waiting for quota");
        if (m) {
            add(&t, ": ");
            add(&t, m);
        }
        if (p->position_cq > 0) {
            gq__i64_text(ahead, p->position_cq);
            add(&t, " (");
            add(&t, ahead);
            add(&t, " ahead in ClusterQueue ");
            add(&t, p->cluster_queue ? p->cluster_queue : "");
            add(&t, ")");
        }
    } else if (s == GQ_WL_RESERVED) {
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
    } else if (s == GQ_WL_DEACTIVATED) {
        snprintf(buf, size, "rejected: %s; `gpuq resume workload %s%s%s` queues it again",
                 m ? m : gq__wl_state_name(s), p->name ? p->name : "NAME",
                 p->namespace && strcmp(p->namespace, "default") ? " -n " : "",
                 p->namespace && strcmp(p->namespace, "default") ? p->namespace : "");
    } else if ((s == GQ_WL_ADMITTED || s == GQ_WL_RUNNING) && p->pods_ready) {
        pods_waiting(buf, size, s, p);
    } else if (s == GQ_WL_RUNNING && p->started_ms && p->now_ms >= p->started_ms) {
        snprintf(buf, size, "running for %s", span(d, p->now_ms - p->started_ms));
    } else if (s == GQ_WL_ADMITTED) {
        snprintf(buf, size, "admitted: released to run");
    } else if (m) {
        snprintf(buf, size, "%s", m);
    }
    return buf;
}
