-- gpuq schema, version 13: workloads.state holds one of the workload states
-- (lib/core/state.h, GQ_WL_STATES) and nothing else. Until now a misspelt
-- state written by any statement was stored, and then matched no query.
--
-- SQLite cannot add a CHECK to a column, so the table is built again as
-- https://www.sqlite.org/lang_altertable.html#otheralter says: a new table
-- with the same columns in the same order (the columns migrations 0002 to
-- 0008 appended are written out at the end, where ALTER TABLE put them),
-- the rows copied, the old table dropped, the new one renamed, and every
-- index the earlier migrations made on workloads made again, word for word
-- (0001, 0007, 0009, 0011; no trigger or view names the table). The store
-- runs migrations with foreign keys off and checks them before it commits
-- (migrate, lib/store/store.c): usage, workload_checks, sim_pods and
-- provisioning_requests refer to workloads(id), and with foreign keys on,
-- dropping the old table would delete their rows by cascade.
CREATE TABLE new_workloads (
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
    state          TEXT NOT NULL CHECK (state IN ('pending', 'reserved', 'admitted', 'running',
                                                  'finished', 'evicted', 'deactivated',
                                                  'cancelled')),
    reason         TEXT,                        -- why it waits, in Kueue's words
    message        TEXT,
    pods           INTEGER NOT NULL,            -- sum of pod set counts
    podsets        TEXT NOT NULL,               -- the pod sets as admission reads them (0001)
    gpus           INTEGER NOT NULL DEFAULT 0,  -- GPUs over all pods (any */gpu resource)
    spec           TEXT NOT NULL,               -- canonical Workload JSON
    admission      TEXT,                        -- JSON of status.admission, NULL if none
    queued_at      INTEGER NOT NULL,            -- queue-order timestamp
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL,
    admitted_at    INTEGER,
    finished_at    INTEGER,
    evicted_reason TEXT,                        -- 0002
    evicted_message TEXT,
    preempted_reason TEXT,
    evicted_at     INTEGER,
    evictions      INTEGER NOT NULL DEFAULT 0,
    requeue_at     INTEGER,                     -- 0004
    duration_ms    INTEGER,                     -- 0006
    started_at     INTEGER,
    failed_flavors TEXT,
    job_rv         TEXT,                        -- 0007
    job_suspended  INTEGER,
    job_gone       INTEGER NOT NULL DEFAULT 0,
    kube_error     TEXT,
    kube_error_rv  TEXT,
    reserved_at    INTEGER                      -- 0008
) STRICT;

INSERT INTO new_workloads SELECT * FROM workloads;
DROP TABLE workloads;
ALTER TABLE new_workloads RENAME TO workloads;

CREATE UNIQUE INDEX workloads_live_name ON workloads(namespace, name) WHERE state <> 'cancelled';
CREATE UNIQUE INDEX workloads_live_job ON workloads(namespace, job_name, job_kind)
    WHERE state <> 'cancelled';
CREATE INDEX workloads_queue ON workloads(local_queue, state);
CREATE INDEX workloads_pending_order ON workloads(namespace, local_queue, priority DESC,
    queued_at) WHERE state = 'pending';
CREATE INDEX workloads_active ON workloads(state) WHERE state IN ('admitted', 'running');
CREATE INDEX workloads_state ON workloads(state);
CREATE INDEX workloads_list_order ON workloads(namespace, created_at, id);
