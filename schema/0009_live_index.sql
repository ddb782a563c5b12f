-- gpuq schema, version 9: what every step of a long simulation (and of a
-- long-lived gpuqd) reads, found without scanning the history.
--
-- The engine's snapshot, the kubelet and the clock select workloads by
-- state; finished and cancelled rows stay for history, so without an index
-- on state each step scanned all of them and a simulated week slowed with
-- the square of its jobs (5,000 jobs: 31 s; 20,000: not done in 20 minutes).
CREATE INDEX workloads_state ON workloads(state);

-- The simulated provider reads the requests that are not deleted, every step.
CREATE INDEX provisioning_requests_undeleted ON provisioning_requests(id)
    WHERE deleted_at IS NULL;
