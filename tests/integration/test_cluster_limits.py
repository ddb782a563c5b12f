"""Issue 17, acceptance check 3 in cluster mode: gpuqd reads the namespace's LimitRanges from
the test API server and adjusts a Job's requests as Kueue does before quota counts them.

- a Job with no requests gets the LimitRange's defaultRequest (600m), so a ClusterQueue of one
  CPU admits one such Job and the second waits for quota;
- a Job asking for more than the LimitRange's max waits with Kueue's message;
- the LimitRange deleted (a DELETED event), the pending workloads are adjusted anew: the
  second Job counts no CPU and is admitted; the big one is no longer refused.
One gpuqd, one database."""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import Checks, binary  # noqa: E402
import cluster  # noqa: E402
from cluster import Daemon, FakeAPI, wait_for  # noqa: E402

QUEUES = """apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: f}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: one-cpu}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: f
      resources:
      - {name: cpu, nominalQuota: 1}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {namespace: default, name: q}
spec: {clusterQueue: one-cpu}
---
apiVersion: v1
kind: LimitRange
metadata: {namespace: default, name: cpu-limits}
spec:
  limits:
  - type: Container
    defaultRequest: {cpu: 600m}
    max: {cpu: "2"}
"""

JOB = """apiVersion: batch/v1
kind: Job
metadata:
  name: {name}
  namespace: default
  labels: {{kueue.x-k8s.io/queue-name: q}}
spec:
  suspend: true
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: busybox
        resources: {resources}
"""

MAX_MESSAGE = ("resources didn't satisfy LimitRange constraints: spec.podSets[0].template.spec."
               "containers[0]: Invalid value: [\"cpu\"]: requests must not be above the "
               "limitRange max")


def create(api, name, resources="{}"):
    path = os.path.join(api.dir, f"job-{name}.yaml")
    with open(path, "w") as f:
        f.write(JOB.format(name=name, resources=resources))
    r = api.kubectl("apply", "-f", path)
    assert r.returncode == 0, r.stderr


def limit_ranges(gpuq, db):
    """gpuq's LimitRanges, or None while gpuqd is still creating the database."""
    try:
        return os.path.exists(db) and cluster.gpuq_json(gpuq, db, "get", "limitranges",
                                                        "-n", "default").get("items")
    except AssertionError:
        return None


def workloads(gpuq, db):
    return {w["metadata"]["ownerReferences"][0]["name"]: w
            for w in cluster.gpuq_json(gpuq, db, "list", "-A")["items"]}


def state(gpuq, db, name):
    w = workloads(gpuq, db).get(name)
    return w and w["status"]["gpuq"]["state"]


def reserved_cpu(gpuq, db):
    cq = cluster.gpuq_json(gpuq, db, "get", "clusterqueue", "one-cpu")
    return {r["name"]: r["total"] for f in cq["status"].get("flavorsReservation", [])
            for r in f["resources"]}.get("cpu")


def main():
    c = Checks()
    gpuq = binary()
    with tempfile.TemporaryDirectory(prefix="gpuq-limits-") as d, \
            FakeAPI(os.path.join(d, "api"), crds=cluster.CRDS) as api:
        path = os.path.join(d, "queues.yaml")
        with open(path, "w") as f:
            f.write(QUEUES)
        r = api.kubectl("apply", "-f", path)
        c.check(r.returncode == 0, f"queues: {r.stderr}")
        db = os.path.join(d, "gpuq.db")
        g = Daemon(gpuq, api, db)
        try:
            wait_for("the LimitRange read from the API server", lambda: limit_ranges(gpuq, db))
            create(api, "first")
            wait_for("first admitted", lambda: state(gpuq, db, "first") in ("admitted", "running"))
            wait_for("first released", lambda: cluster.unsuspended(api, "first"))
            c.check(reserved_cpu(gpuq, db) == "600m",
                    f"first counts the LimitRange's defaultRequest: {reserved_cpu(gpuq, db)}")
            create(api, "second")
            create(api, "big", '{requests: {cpu: "3"}}')
            w = wait_for("big refused", lambda: (workloads(gpuq, db).get("big") or {}).get(
                "status", {}).get("gpuq", {}).get("message") == MAX_MESSAGE and
                workloads(gpuq, db)["big"])
            c.check(w["status"]["gpuq"]["state"] == "pending" and
                    w["status"]["gpuq"].get("reason") == "Inadmissible",
                    f"big waits, Inadmissible: {w['status']['gpuq']}")
            wait_for("second waits for quota", lambda: (workloads(gpuq, db).get("second") or {})
                     .get("status", {}).get("gpuq", {}).get("state") == "pending")
            c.check(state(gpuq, db, "second") == "pending" and
                    (cluster.job(api, "second") or {}).get("spec", {}).get("suspend") is True,
                    "second (600m more) does not fit one CPU: it stays suspended")
            r = api.kubectl("delete", "limitrange", "cpu-limits")
            c.check(r.returncode == 0, f"LimitRange deleted: {r.stderr}")
            wait_for("second admitted once its requests are 0",
                     lambda: state(gpuq, db, "second") in ("admitted", "running"))
            c.check(reserved_cpu(gpuq, db) == "600m",
                    f"second counts no CPU without the LimitRange: {reserved_cpu(gpuq, db)}")
            w = workloads(gpuq, db)["big"]
            c.check(w["status"]["gpuq"].get("message") != MAX_MESSAGE,
                    "big is no longer refused by the deleted LimitRange")
        except AssertionError as x:
            c.check(False, repr(x))
            print("--- gpuqd's log:\n" + g.logtext()[-3000:])
        finally:
            g.stop()
    return c.done()


if __name__ == "__main__":
    sys.exit(main())
