-- gpuq schema, version 15: waitForPodsReady (issue 17).
--
-- A workload's PodsReady condition, as Kueue's job reconciler keeps it when
-- the Configuration's waitForPodsReady is on: its reason (WaitForStart or
-- WaitForRecovery: False; Started or Recovered: True; NULL: no condition)
-- and its lastTransitionTime (ms). requeue_count is status.requeueState.count:
-- the PodsReady timeouts so far, which set the next backoff and, past
-- backoffLimitCount, deactivate the workload. Only columns are added, so this
-- applies the same whether or not migrations 0016 and 0017 came before it.
ALTER TABLE workloads ADD COLUMN pods_ready_reason TEXT;
ALTER TABLE workloads ADD COLUMN pods_ready_at INTEGER;
ALTER TABLE workloads ADD COLUMN requeue_count INTEGER NOT NULL DEFAULT 0;
