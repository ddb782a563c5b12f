-- gpuq schema, version 2: what the admission engine records about evictions.
--
-- A preempted or drained workload goes back to `pending` at once (Kueue
-- requeues it), but Kueue keeps its Evicted and Preempted conditions until it
-- is admitted again; these columns keep them. `evictions` counts them all.
ALTER TABLE workloads ADD COLUMN evicted_reason TEXT;      -- Preempted, ClusterQueueStopped ...
ALTER TABLE workloads ADD COLUMN evicted_message TEXT;
ALTER TABLE workloads ADD COLUMN preempted_reason TEXT;    -- InClusterQueue, InCohortReclamation ...
ALTER TABLE workloads ADD COLUMN evicted_at INTEGER;
ALTER TABLE workloads ADD COLUMN evictions INTEGER NOT NULL DEFAULT 0;
