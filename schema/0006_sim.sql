-- gpuq schema, version 6: the simulated cluster and its clock (issue 4).
--
-- node_pools holds the NodePool objects (sim.gpuq.dev/v1alpha1) declared
-- beside the queues: the capacity the simulated cluster can create.
CREATE TABLE node_pools (
    name        TEXT PRIMARY KEY,
    uid         TEXT NOT NULL UNIQUE,
    spec        TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
) STRICT;

-- The database's clock. Without a row, now is the wall clock. While the
-- simulated cluster runs (gpuq run, gpuqd --sim) time is virtual and every
-- gpuq process reads it here, so that a job submitted from another terminal
-- queues behind the ones the simulation requeued:
--   now = virtual_ms + (wall now - wall_ms) x speed
-- speed 0 means the runner steps the clock itself (as fast as it can). When
-- the runner stops it leaves speed 1, so time never goes backwards.
-- rng is the simulator's random state, so that a run resumed after a
-- restart draws the same delays as one that never stopped.
CREATE TABLE clock (
    id          INTEGER PRIMARY KEY CHECK (id = 1),
    wall_ms     INTEGER NOT NULL,
    virtual_ms  INTEGER NOT NULL,
    speed       REAL NOT NULL,
    rng         INTEGER NOT NULL DEFAULT 0,
    runner_pid  INTEGER                          -- while a runner holds the clock
) STRICT;

-- How long the job runs once its pods start (annotation gpuq.dev/duration,
-- or `gpuq submit --duration`); NULL: until it is cancelled.
ALTER TABLE workloads ADD COLUMN duration_ms INTEGER;
-- When its pods started (the simulated cluster's kubelet), NULL before.
ALTER TABLE workloads ADD COLUMN started_at INTEGER;
-- Flavor fallback (kueue-semantics.md section 6, #2560): failed provisioning
-- attempts per flavor, as a JSON object {"flavor": attempts}.
ALTER TABLE workloads ADD COLUMN failed_flavors TEXT;

-- The simulated provider's own record of a request (pool, nodes, times),
-- JSON, so that a restarted runner carries on where it stopped.
ALTER TABLE provisioning_requests ADD COLUMN sim TEXT;
