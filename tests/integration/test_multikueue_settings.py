"""Issue 17, MultiKueue's loose ends: the Configuration's multiKueue settings
beyond workerLostTimeout, on one manager gpuqd and two worker gpuqd, each on its
own test API server (GKE's multikueue-dws, DWS on the workers).

 - dispatcherName Incremental with stepSize 1: the first round nominates the
   config's first worker only (asia), so the copy goes there and nowhere else;
   it is admitted within the round and wins: us never gets a create.
 - origin: the copy's origin label is the configured value, not "multikueue".
 - gcInterval (1s): a Job on us with our origin whose manager object does not
   exist (no Job, or one of another UID) is deleted by the manager's garbage
   collection; one with another manager's origin, and our live copy on asia,
   are left alone."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import Checks, binary  # noqa: E402
import cluster  # noqa: E402
from cluster import wait_for  # noqa: E402
from mkcluster import ASIA, ORIGIN, US, submit, with_world  # noqa: E402

CONFIG = """apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
multiKueue:
  origin: manager-a
  gcInterval: 1s
  dispatcherName: kueue.x-k8s.io/multikueue-dispatcher-incremental
  incrementalDispatcherConfig:
    stepSize: 1
"""


def stray(api, name, origin, origin_uid):
    """A suspended Job on a worker that looks like a copy made by the manager of origin."""
    status, body = api.call("POST", "/apis/batch/v1/namespaces/default/jobs", {
        "apiVersion": "batch/v1", "kind": "Job",
        "metadata": {"name": name, "namespace": "default", "labels": {ORIGIN: origin},
                     "annotations": {ORIGIN + "-uid": origin_uid}},
        "spec": {"suspend": True, "template": {"spec": {
            "restartPolicy": "Never",
            "containers": [{"name": "c", "image": "busybox"}]}}}})
    assert status == 201, (status, body)


def settings(c, w):
    job = submit(w.mgr, "dws-job")
    cp = wait_for("the copy on asia", lambda: w.copy(ASIA))
    c.check(cp["metadata"]["labels"].get(ORIGIN) == "manager-a",
            f"the copy's origin label is the configured origin: {cp['metadata']['labels']}")
    w.provision(ASIA)
    wait_for("admitted on asia", lambda: w.cluster_name() == ASIA)
    c.check(not w.creates(US) and w.copy(US) is None,
            f"Incremental, stepSize 1: nothing dispatched to us ({w.creates(US)})")

    # Garbage collection of orphan copies on the workers.
    us = w.workers[US]
    stray(us, "orphan", "manager-a", "00000000-0000-0000-0000-000000000000")
    stray(us, "dws-job", "manager-a", "11111111-1111-1111-1111-111111111111")  # another UID
    stray(us, "foreign", "manager-b", "00000000-0000-0000-0000-000000000000")
    wait_for("the orphans collected", lambda: cluster.job(us, "orphan") is None and
             cluster.job(us, "dws-job") is None)
    deletes = [r for r in cluster.writes(us, "jobs") if r["verb"] == "delete"]
    c.check(sorted(r["name"] for r in deletes) == ["dws-job", "orphan"] and
            all(r["user"] == "manager" for r in deletes),
            f"the two orphans deleted by the manager: {deletes}")
    c.check(cluster.job(us, "foreign") is not None, "another manager's copy is left alone")
    c.check(w.copy(ASIA) is not None and
            w.copy(ASIA)["metadata"]["annotations"].get(ORIGIN + "-uid") ==
            job["metadata"]["uid"], "the live copy on asia is left alone")
    c.check(not [r for r in cluster.writes(w.workers[ASIA], "jobs") if r["verb"] == "delete"],
            "nothing deleted on asia")


def main():
    c = Checks()
    with_world(c, binary(), settings, CONFIG)
    return c.done()


if __name__ == "__main__":
    sys.exit(main())
