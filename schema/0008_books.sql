-- gpuq schema, version 8: the books (issue 12).
--
-- Kueue keeps two times apart: QuotaReserved (quota taken in a ClusterQueue)
-- and Admitted (every admission check Ready as well). admitted_at used to
-- carry the first; reserved_at now does, and admitted_at is set only when
-- the workload is admitted. Both are cleared on eviction and set again at
-- the next reservation and admission; the events table keeps every one.
ALTER TABLE workloads ADD COLUMN reserved_at INTEGER;
UPDATE workloads SET reserved_at = admitted_at WHERE admitted_at IS NOT NULL;

-- The simulated cluster's nodes: what costs money. One row per node that
-- was asked for; up_at is when it became Ready (NULL while it boots),
-- down_at when it was removed (NULL while it exists). A node belongs to a
-- pool (a NodePool, sim.gpuq.dev/v1alpha1) and serves the ResourceFlavor
-- whose nodeLabels its pool's labels satisfy (NULL when none does).
CREATE TABLE sim_nodes (
    id            INTEGER PRIMARY KEY,
    name          TEXT NOT NULL,
    pool          TEXT NOT NULL,
    flavor        TEXT,
    gpus          INTEGER NOT NULL,
    requested_at  INTEGER NOT NULL,
    up_at         INTEGER,
    down_at       INTEGER
) STRICT;

CREATE INDEX sim_nodes_live ON sim_nodes(pool) WHERE down_at IS NULL;

-- The pods of admitted workloads, as the simulated kubelet ran them: a pod
-- is created when its workload is released (suspend false), started when
-- it has a node (started_at, node_id), and ended when the workload
-- finished or was evicted (ended_at). gpus are the pod's own GPU requests.
CREATE TABLE sim_pods (
    id            INTEGER PRIMARY KEY,
    workload_id   INTEGER NOT NULL REFERENCES workloads(id) ON DELETE CASCADE,
    podset        TEXT NOT NULL,
    idx           INTEGER NOT NULL,
    flavor        TEXT,
    gpus          INTEGER NOT NULL,
    node_id       INTEGER REFERENCES sim_nodes(id),
    created_at    INTEGER NOT NULL,
    started_at    INTEGER,
    ended_at      INTEGER
) STRICT;

CREATE INDEX sim_pods_workload ON sim_pods(workload_id);
CREATE INDEX sim_pods_live ON sim_pods(node_id) WHERE ended_at IS NULL;
