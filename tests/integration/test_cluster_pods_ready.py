"""Issue 17, acceptance check 1 in cluster mode: Kueue's waitForPodsReady with a real gpuqd
against the test API server. A Job's pods are ready when its status.ready (pods with the Ready
condition) and status.succeeded reach the count admitted, as Kueue's Job.PodsReady reads them;
the test sets status.ready as the Job controller would.

- unready: a released Job whose pods never get ready is evicted after `timeout` (reason
  PodsReadyTimeout, Kueue's message), suspended again, requeued after the backoff (1 s, then
  2 s) and released again; its third timeout is past backoffLimitCount 2: deactivated
  (spec.active false, RequeuingLimitExceeded), the Job left suspended;
- block: with blockAdmission, a second Job with quota to spare waits (WaitingForPodsReady)
  until the first Job's pods are ready (PodsReady True, Started); then, its pods unready again,
  the first waits for recovery (WaitForRecovery) and is evicted after recoveryTimeout.
- kinds: a JobSet's pods are ready as Kueue's JobSet.PodsReady reads them: its replicated
  jobs' status ready + succeeded reaching the sum of their replicas. One with two of its three
  replicated Jobs ready is evicted after `timeout` (PodsReadyTimeout) and suspended again; one
  with all three ready is Started, its list line no longer waiting for its pods. A PyTorchJob
  waits until its Running condition is True (Kueue's KubeflowJob.PodsReady).
Deadlines are generous: only virtual waits of a few seconds are asked for, and a slow machine
only makes the test slower. Each case runs its own gpuqd and database."""
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import Checks, binary  # noqa: E402
import cluster  # noqa: E402
from cluster import Daemon, FakeAPI, wait_for  # noqa: E402

QUEUES = """apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: pool-a}
spec: {nodeLabels: {pool: a}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: gpus}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu, memory, nvidia.com/gpu]
    flavors:
    - name: pool-a
      resources:
      - {name: cpu, nominalQuota: 100}
      - {name: memory, nominalQuota: 100Gi}
      - {name: nvidia.com/gpu, nominalQuota: 4}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {namespace: default, name: q}
spec: {clusterQueue: gpus}
"""

UNREADY = """apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
waitForPodsReady:
  timeout: 3s
  requeuingStrategy: {backoffBaseSeconds: 1, backoffLimitCount: 2}
"""

BLOCK = """apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
waitForPodsReady:
  timeout: 10m
  recoveryTimeout: 3s
  blockAdmission: true
"""


JOBSET = """apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
waitForPodsReady:
  timeout: 30s
  requeuingStrategy: {backoffBaseSeconds: 600}
"""

INTEG = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data",
                                      "compat", "integrations"))


def jobset_yaml(name):
    """Replicated jobs leader (1 Job) and workers (2 Jobs of 2 pods): 3 Jobs, 5 pods."""
    return f"""apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  name: {name}
  namespace: default
  labels: {{kueue.x-k8s.io/queue-name: q}}
spec:
  suspend: true
  replicatedJobs:
  - name: leader
    replicas: 1
    template:
      spec:
        template:
          spec:
            restartPolicy: Never
            containers: [{{name: c, image: busybox, resources: {{requests: {{cpu: "1"}}}}}}]
  - name: workers
    replicas: 2
    template:
      spec:
        parallelism: 2
        completions: 2
        template:
          spec:
            restartPolicy: Never
            containers: [{{name: c, image: busybox, resources: {{requests: {{cpu: "1"}}}}}}]
"""


PYTORCHJOB = """apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: torch
  namespace: default
  labels: {kueue.x-k8s.io/queue-name: q}
spec:
  runPolicy: {suspend: true}
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          containers: [{name: pytorch, image: busybox, resources: {requests: {cpu: "1"}}}]
"""


def jobset_status(leader_ready, workers_ready):
    """status.replicatedJobsStatus as the JobSet controller writes it (counts of Jobs)."""
    def one(name, ready, replicas):
        return {"name": name, "ready": ready, "succeeded": 0, "failed": 0,
                "active": replicas, "suspended": 0}
    return {"replicatedJobsStatus": [one("leader", leader_ready, 1),
                                     one("workers", workers_ready, 2)]}


def configure(e, db, text):
    path = os.path.join(e.d, f"config-{os.path.basename(db)}.yaml")
    with open(path, "w") as f:
        f.write(text)
    r = subprocess.run([e.gpuq, "--db", db, "apply", "-f", path], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr


def wl(e, db, job):
    return next((w for w in cluster.gpuq_json(e.gpuq, db, "list", "-A")["items"]
                 if w["metadata"]["ownerReferences"][0]["name"] == job), {})


def cond(w, kind):
    return next((c for c in w.get("status", {}).get("conditions", []) if c["type"] == kind), {})


def wait_wl(e, db, job, what, pred, timeout=120.0):
    """job's workload once pred(workload) holds."""
    return wait_for(what, lambda: (lambda w: w if pred(w) else None)(wl(e, db, job)), timeout)


def gq(w, key):
    return w.get("status", {}).get("gpuq", {}).get(key)


def suspended(api, name):
    j = cluster.job(api, name)
    return j if j and j["spec"].get("suspend") is True else None


def releases(api, name):
    """gpuqd's patches that set spec.suspend false on the Job."""
    return [r for r in cluster.writes(api, "jobs", name) if r.get("verb") == "patch" and
            r.get("status") == 200 and '"suspend":false' in (r.get("body") or "").replace(" ", "")]


class Env:
    def __init__(self, c, gpuq, d, api):
        self.c, self.gpuq, self.d, self.api = c, gpuq, d, api

    def cleanup(self):
        names = [j["metadata"]["name"] for j in self.api.objects("jobs", "default")]
        for n in names:
            self.api.kubectl("delete", "job", n, "--wait=false")
        wait_for("jobs deleted", lambda: not self.api.objects("jobs", "default"))


def case_unready(e):
    api, c, db = e.api, e.c, os.path.join(e.d, "unready.db")
    configure(e, db, UNREADY)
    g = Daemon(e.gpuq, api, db)
    cluster.create_job(api, "unready", queue="q")
    wait_for("unready released", lambda: cluster.unsuspended(api, "unready"))
    w = wait_wl(e, db, "unready", "the first PodsReady timeout",
                lambda w: cond(w, "Evicted").get("reason") == "PodsReadyTimeout", 300)
    name = w["metadata"]["name"]
    c.check(cond(w, "Evicted").get("message") == f"Exceeded the PodsReady timeout default/{name}",
            f"Kueue's message: {cond(w, 'Evicted')}")
    c.check(w["status"].get("requeueState", {}).get("count") == 1,
            f"requeueState.count 1: {w['status'].get('requeueState')}")
    wait_for("unready suspended again by gpuqd", lambda: suspended(api, "unready"), timeout=300)
    w = wait_wl(e, db, "unready", "deactivated past backoffLimitCount 2",
                lambda w: gq(w, "state") == "deactivated", 300)
    c.check(w["spec"].get("active") is False, "spec.active false")
    c.check(cond(w, "Evicted").get("reason") == "DeactivatedDueToRequeuingLimitExceeded",
            f"the limit's reason: {cond(w, 'Evicted')}")
    wait_for("the Job left suspended", lambda: suspended(api, "unready"), timeout=300)
    time.sleep(2)
    c.check(suspended(api, "unready") is not None, "a deactivated workload's Job stays suspended")
    rel = releases(api, "unready")
    c.check(len(rel) == 3, f"released three times (admission, two requeues): {len(rel)}")
    # Lower bounds only (a loaded machine makes the gaps longer, never shorter): the timeout
    # (3 s), then the backoff (1 s, then 2 s), between one release and the next.
    gaps = [b["time"] - a["time"] for a, b in zip(rel, rel[1:])]
    c.check(len(gaps) == 2 and gaps[0] >= 3.9 and gaps[1] >= 4.9,
            f"timeout then 1 s, then 2 s of backoff: {gaps}")
    log = g.logtext()
    c.check(log.count("evicted: gpus: Exceeded the PodsReady timeout") == 2 and
            "deactivated: gpus: The workload is deactivated due to exceeding the maximum number "
            "of re-queuing retries" in log, "the log tells of the timeouts and the deactivation")
    g.stop()
    e.cleanup()


def case_block(e):
    api, c, db = e.api, e.c, os.path.join(e.d, "block.db")
    configure(e, db, BLOCK)
    g = Daemon(e.gpuq, api, db)
    cluster.create_job(api, "first", queue="q")
    wait_for("first released", lambda: cluster.unsuspended(api, "first"))
    cluster.create_job(api, "second", queue="q")
    w = wait_wl(e, db, "second", "second waiting for first's pods",
                lambda w: gq(w, "reason") == "WaitingForPodsReady")
    c.check(w["status"]["gpuq"].get("message") ==
            "waiting for all admitted workloads to be in PodsReady condition",
            f"Kueue's message: {w['status']['gpuq']}")
    c.check(suspended(api, "second") is not None, "second stays suspended while first is unready")
    api.set_status("jobs", "default", "first", {"active": 1, "ready": 1})
    wait_for("second released once first's pods are ready",
             lambda: cluster.unsuspended(api, "second"))
    w = wl(e, db, "first")
    c.check(cond(w, "PodsReady").get("status") == "True" and
            cond(w, "PodsReady").get("reason") == "Started", f"first Started: {cond(w, 'PodsReady')}")
    # A pod of first fails: waiting for recovery; after recoveryTimeout, evicted.
    api.set_status("jobs", "default", "first", {"active": 1, "ready": 0})
    w = wait_wl(e, db, "first", "first waiting for recovery",
                lambda w: cond(w, "PodsReady").get("reason") == "WaitForRecovery")
    c.check(cond(w, "PodsReady").get("status") == "False", f"{cond(w, 'PodsReady')}")
    w = wait_wl(e, db, "first", "first evicted after recoveryTimeout",
                lambda w: cond(w, "Evicted").get("reason") == "PodsReadyTimeout", 300)
    wait_for("first suspended again", lambda: suspended(api, "first"), timeout=300)
    c.check(cond(w, "PodsReady").get("reason") == "WaitForStart",
            f"evicted: WaitForStart again: {cond(w, 'PodsReady')}")
    g.stop()
    e.cleanup()


def kind_suspend(api, resource, name, value):
    """The job once its suspend switch (spec.suspend, a Kubeflow job's spec.runPolicy.suspend)
    is value."""
    j = next((j for j in api.objects(resource, "default") if j["metadata"]["name"] == name), None)
    spec = (j or {}).get("spec", {})
    return j if spec.get("runPolicy", spec).get("suspend") is value else None


def case_kinds(e):
    api, c, db = e.api, e.c, os.path.join(e.d, "kinds.db")
    configure(e, db, JOBSET)
    g = Daemon(e.gpuq, api, db)
    for resource, name, text in (("jobsets", "partial", jobset_yaml("partial")),
                                 ("jobsets", "whole", jobset_yaml("whole")),
                                 ("pytorchjobs", "torch", PYTORCHJOB)):
        path = os.path.join(e.d, f"{name}.yaml")
        with open(path, "w") as f:
            f.write(text)
        r = api.kubectl("apply", "-f", path)
        c.check(r.returncode == 0, f"{name}: {r.stderr}")
        wait_for(f"{name} released", lambda: kind_suspend(api, resource, name, False))
    # Two of three replicated Jobs ready: not ready (a JobSet used to count as ready once it ran).
    api.set_status("jobsets", "default", "partial", jobset_status(1, 1))
    api.set_status("jobsets", "default", "whole", jobset_status(1, 2))
    w = wait_wl(e, db, "whole", "whole Started",
                lambda w: cond(w, "PodsReady").get("status") == "True")
    c.check(cond(w, "PodsReady").get("reason") == "Started" and not cond(w, "Evicted"),
            f"whole: Started, never evicted: {w['status'].get('conditions')}")
    line = subprocess.run([e.gpuq, "--db", db, "list", "-o", "wide", "--no-headers"],
                          capture_output=True, text=True, timeout=60).stdout
    c.check("waiting for its pods" not in next((x for x in line.splitlines() if " whole " in x), "?"),
            f"whole's list line no longer waits for its pods: {line}")
    w = wl(e, db, "partial")
    c.check(cond(w, "PodsReady").get("status") == "False" and
            cond(w, "PodsReady").get("reason") == "WaitForStart",
            f"partial: PodsReady False, WaitForStart: {cond(w, 'PodsReady')}")
    c.check("waiting for its pods to be ready (PodsReady False, WaitForStart" in
            next((x for x in line.splitlines() if " partial " in x), "?"),
            f"partial's list line says it waits for its pods: {line}")
    # The PyTorchJob runs, its Running condition not yet True: not ready until it is.
    w = wl(e, db, "torch")
    c.check(cond(w, "PodsReady").get("reason") == "WaitForStart",
            f"torch: WaitForStart while not Running: {cond(w, 'PodsReady')}")
    api.set_status("pytorchjobs", "default", "torch", {"conditions": [
        {"type": "Created", "status": "True"}, {"type": "Running", "status": "True"}]})
    w = wait_wl(e, db, "torch", "torch Started once Running",
                lambda w: cond(w, "PodsReady").get("status") == "True")
    c.check(cond(w, "PodsReady").get("reason") == "Started", f"torch: {cond(w, 'PodsReady')}")
    w = wait_wl(e, db, "partial", "partial evicted after the timeout",
                lambda w: cond(w, "Evicted").get("reason") == "PodsReadyTimeout", 300)
    c.check(cond(w, "Requeued").get("status") == "False" and
            cond(w, "Requeued").get("reason") == "PodsReadyTimeout",
            f"partial: Requeued False, PodsReadyTimeout: {cond(w, 'Requeued')}")
    wait_for("partial suspended again by gpuqd",
             lambda: kind_suspend(api, "jobsets", "partial", True), timeout=300)
    w = wl(e, db, "whole")
    c.check(gq(w, "state") in ("admitted", "running") and not cond(w, "Evicted"),
            f"whole still admitted: {gq(w, 'state')} {cond(w, 'Evicted')}")
    g.stop()
    for kind, name in (("jobset", "partial"), ("jobset", "whole"), ("pytorchjob", "torch")):
        api.kubectl("delete", kind, name, "--wait=false")
    wait_for("jobs deleted", lambda: not api.objects("jobsets", "default") and
             not api.objects("pytorchjobs", "default"))


def main():
    c = Checks()
    gpuq = binary()
    with tempfile.TemporaryDirectory(prefix="gpuq-podsready-") as d, \
            FakeAPI(os.path.join(d, "api"), crds=cluster.CRDS + [
                os.path.join(INTEG, "jobset", "jobset.x-k8s.io_jobsets.yaml"),
                os.path.join(INTEG, "kubeflow-training", "kubeflow.org_pytorchjobs.yaml")]) as api:
        path = os.path.join(d, "queues.yaml")
        with open(path, "w") as f:
            f.write(QUEUES)
        r = api.kubectl("apply", "-f", path)
        c.check(r.returncode == 0, f"queues: {r.stderr}")
        cluster.run_cases(c, Env(c, gpuq, d, api), (case_unready, case_block, case_kinds))
    return c.done()


if __name__ == "__main__":
    sys.exit(main())
