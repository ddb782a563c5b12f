/*
 * store_provision.h: the reads behind the engine's admission checks and
 * ProvisioningRequests (engine_provision.c), each a named function that
 * returns owned C values or calls a typed callback (store_provision.c). The
 * writes they lead to are store.h's (gq__store_set_check,
 * gq__store_insert_provreq, ...). Internal to libgpuqueue; no SQLite type
 * crosses this header.
 *
 * Common rules. A row whose columns cannot have the shape they have (a NULL
 * or a type the schema rules out) is GQ_EIO with gq__store_damaged's
 * message. Other failures are GQ_EIO (or GQ_ENOMEM, GQ_EBUSY) with SQLite's
 * message. Reads run in the caller's transaction when there is one; outside
 * one they first fold the engine's journal, as every read does.
 */
#ifndef GQ_STORE_PROVISION_H
#define GQ_STORE_PROVISION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store.h"

/*
 * The stored spec (canonical JSON) of the AdmissionCheck, or of the
 * ProvisioningRequestConfig, named name: *out malloc'd, NULL when there is
 * none. The caller decodes it (a spec that does not decode is its damage to
 * report).
 */
int gq__store_admission_check_spec(struct gq_store *st, const char *name, char **out,
                                   gq_error *err);
int gq__store_provisioning_config_spec(struct gq_store *st, const char *name, char **out,
                                       gq_error *err);

/* The stored spec of workload id (any state): *out malloc'd, NULL when there is none. */
int gq__store_workload_spec(struct gq_store *st, int64_t id, char **out, gq_error *err);

/* Whether every admission check of workload id is Ready (true when it has none). */
int gq__store_checks_all_ready(struct gq_store *st, int64_t workload_id, bool *out,
                               gq_error *err);

/* A spec read; a non-zero return stops the walk and is returned. spec is borrowed. */
typedef int (*gq__spec_fn)(const char *spec, void *payload);

/*
 * The specs of the ProvisioningRequestConfigs annotated
 * gpuq.dev/provisioning-timeout (GQ_PROVISIONING_TIMEOUT_ANNOTATION), by
 * name; the annotation's value is the caller's to judge.
 */
int gq__store_timeout_configs(struct gq_store *st, gq__spec_fn fn, void *payload,
                              gq_error *err);

/* A ProvisioningRequest and its check on the workload, as the check sync reads them. */
struct gq_provreq_sync {
    int64_t id;          /* the request's row */
    int64_t workload_id;
    int64_t created_at;  /* ms, the database's clock */
    char *check;         /* its AdmissionCheck */
    char *status;        /* its status JSON as the provider reports it; NULL: none yet */
    char *state;         /* the check's state: Pending | Ready | Retry | Rejected */
    char *message;       /* the check's message, "" when none */
    char *name;          /* the request's name */
    int32_t attempt;     /* the request's attempt (1, 2, ...) */
    int32_t retry_count; /* the check's retryCount */
};

/* Rows of struct gq_provreq_sync; owned, clear with gq__store_provreq_syncs_clear. */
struct gq_provreq_syncs {
    struct gq_provreq_sync *v;
    size_t n, cap;
};

/*
 * The live requests whose provider reported a status not yet turned into
 * their check's state (gq__store_provreq_synced), by workload. out starts
 * empty; on an error it is left empty.
 */
int gq__store_provreqs_unsynced(struct gq_store *st, struct gq_provreq_syncs *out,
                                gq_error *err);

/*
 * The live requests created at or before `before` (ms) whose check is
 * Pending on a workload that is reserved: the only kind that can time out.
 * By workload, then check. out as above.
 */
int gq__store_provreqs_pending(struct gq_store *st, int64_t before, struct gq_provreq_syncs *out,
                               gq_error *err);

/* Free the rows and their strings; rows is left empty. */
void gq__store_provreq_syncs_clear(struct gq_provreq_syncs *rows);

#endif
