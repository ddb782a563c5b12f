-- Issue 17, MultiKueue (Kueue's pkg/controller/admissionchecks/multikueue).
--
-- The worker clusters (MultiKueueCluster) and the sets of them an admission
-- check of controller kueue.x-k8s.io/multikueue names (MultiKueueConfig).
-- A cluster's Active condition is what the manager last found when it
-- connected: active NULL until it tried, then 1 or 0 with Kueue's reason
-- (Active, BadConfig, ClientConnectionFailed) and message; inactive_since is
-- when it stopped answering (store ms), for workerLostTimeout.
CREATE TABLE multikueue_clusters (
    name           TEXT PRIMARY KEY,
    uid            TEXT NOT NULL UNIQUE,
    spec           TEXT NOT NULL,
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL,
    active         INTEGER,
    reason         TEXT,
    message        TEXT,
    transition_at  INTEGER,
    inactive_since INTEGER
) STRICT;

CREATE TABLE multikueue_configs (
    name        TEXT PRIMARY KEY,
    uid         TEXT NOT NULL UNIQUE,
    spec        TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
) STRICT;

-- A workload's copies on the workers, one row per worker it was sent to.
-- The row is written before the create request (the intent: a manager
-- killed after sending finds it and does not send a second copy), uid once
-- the worker answered, and deleted_at once the copy was deleted (the loser's,
-- or every copy when the workload finished or was evicted). The winner is
-- workloads.cluster_name: the worker whose copy reserved quota first.
CREATE TABLE multikueue_remotes (
    workload_id  INTEGER NOT NULL REFERENCES workloads(id) ON DELETE CASCADE,
    cluster      TEXT NOT NULL,
    uid          TEXT,
    evictions    INTEGER NOT NULL DEFAULT 0, -- the workload's when sent: older copies are stale
    created_at   INTEGER NOT NULL,
    deleted_at   INTEGER,
    PRIMARY KEY (workload_id, cluster)
) STRICT, WITHOUT ROWID;

ALTER TABLE workloads ADD COLUMN cluster_name TEXT;
-- Each scheduling cycle looks for the workloads a worker admitted (engine_multikueue.c):
-- few, however long the queue.
CREATE INDEX workloads_cluster_name ON workloads(cluster_name) WHERE cluster_name IS NOT NULL;
