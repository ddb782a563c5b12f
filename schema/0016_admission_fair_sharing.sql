-- Issue 17: admission fair sharing (Kueue's AdmissionFairSharing). Each
-- LocalQueue's status.fairSharing.admissionFairSharingStatus: its decayed
-- consumed resources, one "resource=quantity" line each in name order, as of
-- last_update (ms on the database's clock). The engine writes it as Kueue's
-- LocalQueue and workload controllers update theirs (lib/core/afs.h); a
-- LocalQueue deleted takes its row with it.
CREATE TABLE lq_afs_usage (
    namespace   TEXT NOT NULL,
    name        TEXT NOT NULL,
    consumed    TEXT NOT NULL,
    last_update INTEGER NOT NULL,
    PRIMARY KEY (namespace, name)
) STRICT, WITHOUT ROWID;

CREATE TRIGGER lq_afs_usage_gone AFTER DELETE ON local_queues
BEGIN
    DELETE FROM lq_afs_usage WHERE namespace = old.namespace AND name = old.name;
END;
