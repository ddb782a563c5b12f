-- 0007_kube: cluster mode (issue 5). The API server is the truth for Jobs,
-- PodTemplates and ProvisioningRequests; these columns are gpuqd's durable
-- memory of what it has seen and what it has done there, so that every
-- side effect follows "intent recorded, then the call, then the result
-- recorded" (reference §7 rule 2) and a restart replays from the record.

-- The Job as last observed: its resourceVersion (opaque, for the
-- conditional unsuspend patch), whether it was suspended, and whether a
-- watch said it is gone (DELETED, or absent from a relist) so that the
-- next step confirms with a GET before anything is released.
ALTER TABLE workloads ADD COLUMN job_rv TEXT;
ALTER TABLE workloads ADD COLUMN job_suspended INTEGER;
ALTER TABLE workloads ADD COLUMN job_gone INTEGER NOT NULL DEFAULT 0;

-- A request's life in the cluster. NULL: only recorded (the intent, or the
-- simulated cluster's own); 'created': it and its PodTemplates exist in the
-- API server (created or adopted); 'gone': deleted there (or found absent)
-- after deleted_at was recorded.
ALTER TABLE provisioning_requests ADD COLUMN kube TEXT;
ALTER TABLE provisioning_requests ADD COLUMN kube_uid TEXT;

CREATE INDEX provisioning_requests_kube ON provisioning_requests(kube, deleted_at);
CREATE INDEX workloads_active ON workloads(state) WHERE state IN ('admitted', 'running');

-- A side effect the API server refused for a reason a retry cannot mend
-- (422, a name held by another owner): the message, and the Job's
-- resourceVersion it was refused at. The outbox leaves the workload alone
-- until the Job changes, instead of retrying a 4xx in a loop.
ALTER TABLE workloads ADD COLUMN kube_error TEXT;
ALTER TABLE workloads ADD COLUMN kube_error_rv TEXT;
