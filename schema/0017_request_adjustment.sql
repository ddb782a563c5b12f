-- Issue 17: requests adjusted as Kueue adjusts them before it counts them
-- against quota (pkg/workload/resources.go). The LimitRanges (v1) of each
-- namespace give containers their default requests and limits and bound
-- them; a RuntimeClass (node.k8s.io/v1) gives a pod naming it its fixed
-- overhead.
CREATE TABLE limit_ranges (
    namespace   TEXT NOT NULL,
    name        TEXT NOT NULL,
    uid         TEXT NOT NULL UNIQUE,
    spec        TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL,
    PRIMARY KEY (namespace, name)
) STRICT;

CREATE TABLE runtime_classes (
    name        TEXT PRIMARY KEY,
    uid         TEXT NOT NULL UNIQUE,
    spec        TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
) STRICT;

-- Why Kueue's ValidateAdmissibility refuses a workload's adjusted requests
-- (outside its namespace's LimitRange bounds, or requests above limits), as
-- Kueue words it; NULL: nothing. Such a workload waits with this message.
ALTER TABLE workloads ADD COLUMN inadmissible TEXT;
