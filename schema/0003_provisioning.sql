-- gpuq schema, version 3: admission checks and the ProvisioningRequests
-- gpuq creates for them (kueue-semantics.md §3).
--
-- workload_checks is status.admissionChecks: one row per (workload, check)
-- while the workload holds quota, with Kueue's state and retry count.
CREATE TABLE workload_checks (
    workload_id     INTEGER NOT NULL REFERENCES workloads(id) ON DELETE CASCADE,
    name            TEXT NOT NULL,               -- the AdmissionCheck
    state           TEXT NOT NULL,               -- Pending | Ready | Retry | Rejected
    message         TEXT NOT NULL DEFAULT '',
    retry_count     INTEGER NOT NULL DEFAULT 0,
    requeue_after_s INTEGER,
    updated_at      INTEGER NOT NULL,
    PRIMARY KEY (workload_id, name)
) STRICT, WITHOUT ROWID;

-- A ProvisioningRequest and its PodTemplates, as Kueue writes them (spec and
-- templates are the objects' JSON); status holds the conditions the
-- provider (the simulated cluster, or the API server) reports. A deleted
-- request keeps its row, with deleted_at, for history.
CREATE TABLE provisioning_requests (
    id          INTEGER PRIMARY KEY,
    uid         TEXT NOT NULL UNIQUE,
    namespace   TEXT NOT NULL,
    name        TEXT NOT NULL,
    workload_id INTEGER NOT NULL REFERENCES workloads(id),
    check_name  TEXT NOT NULL,
    attempt     INTEGER NOT NULL,
    class       TEXT NOT NULL,
    spec        TEXT NOT NULL,
    templates   TEXT NOT NULL,
    status      TEXT,
    created_at  INTEGER NOT NULL,
    deleted_at  INTEGER
) STRICT;

CREATE UNIQUE INDEX provisioning_requests_live ON provisioning_requests(namespace, name)
    WHERE deleted_at IS NULL;
CREATE INDEX provisioning_requests_workload ON provisioning_requests(workload_id);
