-- gpuq schema, version 1.
--
-- Every queue object keeps its canonical JSON (the v1beta2 form with Kueue's
-- defaults written out) in `spec`, which is what `apply` compares to report
-- "unchanged", plus the few columns that queries filter or join on. Quotas are
-- also kept relationally (quotas), derived from the spec in the same
-- transaction, because admission reads them on every cycle.
--
-- Times are milliseconds since the Unix epoch. UIDs are RFC 4122 strings.

CREATE TABLE namespaces (
    name        TEXT PRIMARY KEY,
    uid         TEXT NOT NULL UNIQUE,
    spec        TEXT NOT NULL,                  -- canonical JSON, labels included
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
) STRICT;

CREATE TABLE resource_flavors (
    name        TEXT PRIMARY KEY,
    uid         TEXT NOT NULL UNIQUE,
    spec        TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
) STRICT;

CREATE TABLE cohorts (
    name        TEXT PRIMARY KEY,
    uid         TEXT NOT NULL UNIQUE,
    parent      TEXT,
    spec        TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
) STRICT;

CREATE TABLE cluster_queues (
    name        TEXT PRIMARY KEY,
    uid         TEXT NOT NULL UNIQUE,
    cohort      TEXT,
    strategy    TEXT NOT NULL,                  -- StrictFIFO | BestEffortFIFO
    stop_policy TEXT NOT NULL,                  -- None | Hold | HoldAndDrain
    spec        TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
) STRICT;

-- nominal / borrowing / lending per (owner, flavor, resource), in accounting
-- units: milli-units for cpu, whole units otherwise (Kueue's ResourceValue).
-- NULL limits mean "no limit". `*_text` keep the canonical quantity.
CREATE TABLE quotas (
    owner_kind      TEXT NOT NULL,              -- ClusterQueue | Cohort
    owner           TEXT NOT NULL,
    group_index     INTEGER NOT NULL,
    flavor_index    INTEGER NOT NULL,
    flavor          TEXT NOT NULL,
    resource        TEXT NOT NULL,
    nominal         INTEGER NOT NULL,
    nominal_text    TEXT NOT NULL,
    borrowing_limit INTEGER,
    lending_limit   INTEGER,
    PRIMARY KEY (owner_kind, owner, flavor, resource)
) STRICT, WITHOUT ROWID;

CREATE TABLE local_queues (
    namespace     TEXT NOT NULL,
    name          TEXT NOT NULL,
    uid           TEXT NOT NULL UNIQUE,
    cluster_queue TEXT NOT NULL,
    stop_policy   TEXT NOT NULL,
    spec          TEXT NOT NULL,
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL,
    PRIMARY KEY (namespace, name)
) STRICT;

CREATE TABLE priority_classes (
    name        TEXT PRIMARY KEY,
    uid         TEXT NOT NULL UNIQUE,
    value       INTEGER NOT NULL,
    spec        TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
) STRICT;

CREATE TABLE admission_checks (
    name            TEXT PRIMARY KEY,
    uid             TEXT NOT NULL UNIQUE,
    controller_name TEXT NOT NULL,
    spec            TEXT NOT NULL,
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL
) STRICT;

CREATE TABLE provisioning_configs (
    name        TEXT PRIMARY KEY,
    uid         TEXT NOT NULL UNIQUE,
    spec        TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
) STRICT;

-- Kueue's manager Configuration: at most one row, name 'config'.
CREATE TABLE configurations (
    name        TEXT PRIMARY KEY CHECK (name = 'config'),
    uid         TEXT NOT NULL UNIQUE,
    spec        TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
) STRICT;

-- One row per job (a batch/v1 Job or an imported Kueue Workload), keyed by the
-- job's UID. `state` follows DESIGN.md's lifecycle:
-- pending, reserved, admitted, running, finished, evicted, deactivated,
-- cancelled. A cancelled row is kept for history; its name is free again.
CREATE TABLE workloads (
    id             INTEGER PRIMARY KEY,
    uid            TEXT NOT NULL UNIQUE,        -- the job's UID
    namespace      TEXT NOT NULL,
    name           TEXT NOT NULL,               -- Kueue's workload name, job-<job>-<hash>
    job_kind       TEXT NOT NULL,               -- Job | Workload
    job_name       TEXT NOT NULL,
    local_queue    TEXT,                        -- NULL: the job has no queue label
    cluster_queue  TEXT,                        -- set once quota is reserved
    priority_class TEXT,
    priority       INTEGER NOT NULL DEFAULT 0,
    active         INTEGER NOT NULL DEFAULT 1,
    state          TEXT NOT NULL,
    reason         TEXT,                        -- why it waits, in Kueue's words
    message        TEXT,
    pods           INTEGER NOT NULL,            -- sum of pod set counts
    -- The pod sets as admission reads them, one JSON array element each:
    -- {"name", "count", "minCount" (or null), "requests": {resource: canonical
    -- quantity per pod}, "amounts": {resource: per pod in accounting units,
    -- milli-units for cpu, whole units otherwise}}. One column rather than a
    -- row per request: a bulk submit of 100,000 jobs spent a second on rows.
    podsets        TEXT NOT NULL,
    gpus           INTEGER NOT NULL DEFAULT 0,  -- GPUs over all pods (any */gpu resource)
    spec           TEXT NOT NULL,               -- canonical Workload JSON: metadata and
                                                -- pod sets with their pristine templates
    admission      TEXT,                        -- JSON of status.admission, NULL if none
    queued_at      INTEGER NOT NULL,            -- queue-order timestamp
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL,
    admitted_at    INTEGER,
    finished_at    INTEGER
) STRICT;

CREATE UNIQUE INDEX workloads_live_name ON workloads(namespace, name) WHERE state <> 'cancelled';
CREATE UNIQUE INDEX workloads_live_job ON workloads(namespace, job_name, job_kind)
    WHERE state <> 'cancelled';
CREATE INDEX workloads_queue ON workloads(local_queue, state);
-- Queue order of pending workloads: priority, then queue-order time, then
-- submission order (the rowid, which every index carries). Kueue breaks ties
-- by UID because Kubernetes timestamps have one-second resolution; here a bulk
-- submit shares one millisecond, and file order is what its user expects.
-- Positions are read off this index instead of sorting.
CREATE INDEX workloads_pending_order ON workloads(namespace, local_queue, priority DESC,
    queued_at) WHERE state = 'pending';

-- Quota held by a workload that has it reserved or admitted: one row per
-- (flavor, resource), the pod set totals. Removed, exactly once, when the
-- workload leaves those states; usage of a queue is the sum of these rows.
CREATE TABLE usage (
    workload_id   INTEGER NOT NULL REFERENCES workloads(id) ON DELETE CASCADE,
    cluster_queue TEXT NOT NULL,
    flavor        TEXT NOT NULL,
    resource      TEXT NOT NULL,
    amount        INTEGER NOT NULL,
    PRIMARY KEY (workload_id, flavor, resource)
) STRICT, WITHOUT ROWID;

CREATE INDEX usage_queue ON usage(cluster_queue, flavor, resource);

-- Append-only history: every state change of every object, with its time.
CREATE TABLE events (
    id          INTEGER PRIMARY KEY,
    at          INTEGER NOT NULL,
    kind        TEXT NOT NULL,
    namespace   TEXT,
    name        TEXT NOT NULL,
    uid         TEXT,
    type        TEXT NOT NULL,                  -- Normal | Warning
    reason      TEXT NOT NULL,
    message     TEXT NOT NULL DEFAULT '',
    from_state  TEXT,
    to_state    TEXT
) STRICT;

CREATE INDEX events_object ON events(uid);

CREATE TRIGGER events_append_only_update BEFORE UPDATE ON events
BEGIN
    SELECT RAISE(ABORT, 'events are append-only');
END;
CREATE TRIGGER events_append_only_delete BEFORE DELETE ON events
BEGIN
    SELECT RAISE(ABORT, 'events are append-only');
END;
