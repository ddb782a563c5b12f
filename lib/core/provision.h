/*
 * provision.h: the ProvisioningRequest admission check (kueue-semantics.md
 * §3; Kueue's pkg/controller/admissionchecks/provisioning). Pure: no I/O, no
 * clock. Names of the objects Kueue creates, the request's parameters, when
 * a request is needed, the backoff, and how a request's conditions set the
 * workload's check state.
 */
#ifndef GQ_PROVISION_H
#define GQ_PROVISION_H

#include <stdbool.h>
#include <stdint.h>

#include "model.h"

#define GQ_PROVREQ_CONTROLLER "kueue.x-k8s.io/provisioning-request"
#define GQ_PROVREQ_ANNOTATION_PREFIX "provreq.kueue.x-k8s.io/"
#define GQ_PPT_PREFIX "ppt"
#define GQ_CONSUME_ANNOTATION "autoscaling.x-k8s.io/consume-provisioning-request"
#define GQ_CLASS_ANNOTATION "autoscaling.x-k8s.io/provisioning-class-name"

/* A workload's admission check state (status.admissionChecks[].state). */
enum gq_check_state { GQ_CHECK_PENDING, GQ_CHECK_READY, GQ_CHECK_RETRY, GQ_CHECK_REJECTED };

const char *gq__check_state_name(enum gq_check_state s);

/*
 * Kueue's limitObjectName: a name longer than 253 characters becomes its
 * first 247, "-", and the first five hex digits of the SHA-1 of the whole
 * name. Returns malloc'd text, or NULL on ENOMEM.
 */
char *gq__limit_object_name(const char *name);

/* <workload>-<check>-<attempt> and ppt-<request>-<podset>, both limited. */
char *gq__provreq_name(const char *workload, const char *check, int32_t attempt);
char *gq__podtemplate_name(const char *request, const char *podset);

/*
 * The request's parameters: the config's, overlaid by the workload's
 * provreq.kueue.x-k8s.io/<Key> annotations (the annotation wins), in the
 * config's order then the annotations'. out owns copies. -1 on ENOMEM.
 */
int gq__provreq_parameters(const struct gq_kvs *config, const struct gq_kvs *annotations,
                           struct gq_kvs *out);

/*
 * reqIsNeeded for one pod set: it has pods and requests a managed resource
 * (every resource when managed is empty).
 */
bool gq__provreq_needed(const struct gq_podset *ps, int32_t count, const struct gq_strs *managed);

/* min(base x 2^(n-1), max) seconds, n >= 1 (Kueue's retry backoff, no jitter). */
int64_t gq__backoff_seconds(int32_t n, int32_t base, int32_t max);

/* What a ProvisioningRequest's status says: which conditions are True, and their messages. */
struct gq_provreq_status {
    bool accepted;
    bool provisioned;
    bool has_provisioned;         /* a Provisioned condition exists, True or False */
    bool failed;
    bool booking_expired;
    bool capacity_revoked;
    const char *provisioned_msg;  /* the Provisioned condition's message (GKE's ETA) */
    const char *failed_msg;
    const char *booking_msg;
    const char *revoked_msg;
};

/* The check state a request's status gives (Kueue's syncCheckStates). */
struct gq_check_update {
    enum gq_check_state state;
    bool unchanged;               /* leave the check as it is */
    int64_t requeue_after_s;      /* for Retry */
    char message[512];
};

/*
 * attempt is the request's number (1, 2, ...); retry_count the check's
 * retryCount (failed attempts already turned into retries); limit the
 * config's backoffLimitCount; admitted whether the workload is Admitted.
 * Precedence as Kueue: Failed, CapacityRevoked, BookingExpired (ignored once
 * admitted), Provisioned, Accepted with a Provisioned condition, else Pending.
 */
void gq__check_from_provreq(const struct gq_provreq_status *st, int32_t attempt,
                            int32_t retry_count, const struct gq_provisioning_config *cfg,
                            bool admitted, struct gq_check_update *out);

/*
 * Whether a status that gave a Retry or Rejected is a failed attempt to
 * provision (Failed, or BookingExpired before admission), which flavor
 * fallback counts; CapacityRevoked is not.
 */
bool gq__provreq_attempt_failed(const struct gq_provreq_status *st, bool admitted);

/*
 * gpuq's provisioning timeout (gpuq.dev/provisioning-timeout, #3245): the
 * moment (ms) a request created at created_ms times out, or 0 when it
 * cannot: the config sets no timeout, or the request is Provisioned, Failed,
 * BookingExpired or CapacityRevoked (Kueue's own rules decide those).
 */
int64_t gq__provreq_timeout_at(const struct gq_provreq_status *st, int64_t created_ms,
                               const struct gq_provisioning_config *cfg);

/*
 * The check state for request `name` (attempt `attempt`) that timed out: a
 * Retry "Retrying after timeout: ProvisioningRequest <name> not provisioned
 * within 30m" while attempts remain, else Rejected, as for Failed.
 */
void gq__check_timed_out(const char *name, int32_t attempt, int32_t retry_count,
                         const struct gq_provisioning_config *cfg, struct gq_check_update *out);

#endif
