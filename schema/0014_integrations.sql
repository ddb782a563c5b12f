-- Issue 15: every kind of the integration table is a job. A workload keeps
-- its job's apiVersion (NULL for a batch/v1 Job and for a Workload), so that
-- its owner reference, its patches and Kueue's workload name name the right
-- kind, and its pod sets' names and counts as one short text, so that
-- `gpuq list -o wide` shows them without decoding the pod sets' JSON of
-- every row ("launcher:1,worker:2").
ALTER TABLE workloads ADD COLUMN job_api_version TEXT;
ALTER TABLE workloads ADD COLUMN podset_counts TEXT;
UPDATE workloads SET podset_counts = (
    SELECT group_concat(json_extract(p.value, '$.name') || ':' || json_extract(p.value, '$.count'),
                        ',')
    FROM json_each(workloads.podsets) AS p);

-- The user's rows of the integration table: Integration objects
-- (gpuq.dev/v1alpha1), one per kind of job gpuq has no built-in row for.
CREATE TABLE integrations (
    name        TEXT PRIMARY KEY,
    uid         TEXT NOT NULL UNIQUE,
    spec        TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
) STRICT;

-- The ClusterTrainingRuntimes (trainer.kubeflow.org/v1alpha1) a TrainJob
-- names: its pods are described there, not in the TrainJob.
CREATE TABLE training_runtimes (
    name        TEXT PRIMARY KEY,
    uid         TEXT NOT NULL UNIQUE,
    spec        TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
) STRICT;
