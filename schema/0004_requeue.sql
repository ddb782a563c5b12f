-- gpuq schema, version 4: when an evicted workload may queue again.
--
-- A workload evicted because an admission check asked for a retry waits
-- out Kueue's backoff before it competes for quota again (kueue-semantics.md
-- section 3.7); requeue_at is that moment (ms), NULL when it may queue now.
ALTER TABLE workloads ADD COLUMN requeue_at INTEGER;
