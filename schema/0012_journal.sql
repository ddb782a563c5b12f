-- The admission engine's journal. A scheduling cycle writes its decisions
-- here, one compact row each, appended in order, instead of rewriting the
-- workload rows, usage rows and indexes they change on pages spread over the
-- whole file (100,000 workloads: 2 GB of WAL frames for 85,000 decisions).
-- The rows are folded into workloads and usage (and deleted) in the same
-- transaction as the first write or read after the engine's call that is not
-- the engine's own, or at the end of that call: every reader sees the tables
-- as if each decision had been written where it belongs, and a decision is
-- durable once its cycle commits. Ops: 1 quota reserved (state, cluster_queue,
-- admission, usage as "flavor TAB resource TAB amount NL" lines), 2 evicted
-- (reason, message, preempted_reason, requeue_at), 3 why it waits (reason,
-- message). A workload's rows are applied in seq order.
CREATE TABLE journal (
    seq              INTEGER PRIMARY KEY,
    workload_id      INTEGER NOT NULL,
    op               INTEGER NOT NULL CHECK (op IN (1, 2, 3)),
    at               INTEGER NOT NULL,
    state            TEXT CHECK (state IS NULL OR state IN ('reserved', 'admitted')),
    cluster_queue    TEXT,
    admission        TEXT,
    usage            TEXT,
    reason           TEXT,
    message          TEXT,
    preempted_reason TEXT,
    requeue_at       INTEGER
) STRICT;
