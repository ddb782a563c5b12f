"""Issue 17, MultiKueue's loose ends: a JobSet (jobset.x-k8s.io/v1alpha2) dispatched
as a batch/v1 Job is, one manager gpuqd and two worker gpuqd each on its own test API
server (its CRD loaded on all three), GKE's multikueue-dws with DWS on the workers.
The JobSet, submitted on the manager with spec.managedBy kueue.x-k8s.io/multikueue,
is copied suspended to both workers (managedBy dropped, our origin label and UID);
each worker's gpuqd asks its DWS for capacity for its copy; the test, playing the
autoscaler, provisions on us only: that copy runs, the one on asia is deleted, the
manager's JobSet stays suspended, shows the copy's status, and finishes when it
does (its workload Finished); the copies are then deleted. Then a PyTorchJob, whose
suspend switch and managedBy are under spec.runPolicy, the same way: suspended copies
without runPolicy.managedBy on both, the one provisioned (on asia this time) wins,
the other goes."""
import hashlib
import os
import sys
import textwrap
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import COMPAT, Checks, binary  # noqa: E402
import cluster  # noqa: E402
from cluster import wait_for  # noqa: E402
from mkcluster import ASIA, ORIGIN, US, check_copies, with_world  # noqa: E402

GROUP = "jobset.x-k8s.io"
CRDS = [os.path.join(COMPAT, "integrations", "jobset", "jobset.x-k8s.io_jobsets.yaml"),
        os.path.join(COMPAT, "integrations", "kubeflow-training", "kubeflow.org_pytorchjobs.yaml")]
CONFIG = """apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
multiKueue: {}
"""

# A job of kind on the manager's queue, for MultiKueue, with spec (indented 2); and the
# pod spec its templates share (one T4 GPU per pod, as GKE's multikueue-dws asks).
MANIFEST = """apiVersion: {api_version}
kind: {kind}
metadata:
  name: {name}
  namespace: default
  labels:
    kueue.x-k8s.io/queue-name: dws-local-queue
  annotations:
    provreq.kueue.x-k8s.io/maxRunDurationSeconds: "600"
spec:
{spec}"""
POD = """nodeSelector:
  cloud.google.com/gke-accelerator: "nvidia-tesla-t4"
tolerations:
- {key: "nvidia.com/gpu", operator: "Exists", effect: "NoSchedule"}
containers:
- name: train
  image: busybox
  resources:
    requests: {cpu: "100m", memory: "100Mi", nvidia.com/gpu: "1"}
    limits: {cpu: "100m", memory: "100Mi", nvidia.com/gpu: "1"}
"""
JOBSET = MANIFEST.format(api_version="jobset.x-k8s.io/v1alpha2", kind="JobSet", name="trainer",
                         spec=textwrap.indent("""suspend: true
managedBy: kueue.x-k8s.io/multikueue
replicatedJobs:
- name: workers
  replicas: 1
  template:
    spec:
      parallelism: 2
      completions: 2
      template:
        spec:
          restartPolicy: Never
""" + textwrap.indent(POD, " " * 10), "  "))
PYTORCHJOB = MANIFEST.format(api_version="kubeflow.org/v1", kind="PyTorchJob", name="torch",
                             spec=textwrap.indent("""runPolicy:
  suspend: true
  managedBy: kueue.x-k8s.io/multikueue
pytorchReplicaSpecs:
  Master:
    replicas: 1
    restartPolicy: OnFailure
    template:
      spec:
""" + textwrap.indent(POD.replace("name: train", "name: pytorch"), " " * 8), "  "))


def jobset(api, name="trainer", resource="jobsets", group=GROUP):
    for o in api.objects(resource, "default", group):
        if o["metadata"]["name"] == name:
            return o
    return None


def pytorchjob(api):
    return jobset(api, "torch", "pytorchjobs", "kubeflow.org")


def request_of(api, js, kind="JobSet", group=GROUP):
    """The worker's ProvisioningRequest for its copy (Kueue's workload name for the kind)."""
    h = hashlib.sha1(f"{kind}\n{group}\n{js['metadata']['name']}\n{js['metadata']['uid']}"
                     .encode()).hexdigest()[:5]
    name = f"{kind.lower()}-{js['metadata']['name']}-{h}-dws-prov-1"
    return next((p for p in cluster.prs(api, "default") if p["metadata"]["name"] == name), None)


def now():
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def submit_copied(w, name, text, get):
    """text applied on the manager; its UID and its copy on each worker once there."""
    path = os.path.join(w.d, f"{name}.yaml")
    with open(path, "w") as f:
        f.write(text)
    r = w.mgr.kubectl("apply", "-f", path)
    assert r.returncode == 0, r.stderr
    return get(w.mgr)["metadata"]["uid"], {
        cl: wait_for(f"the copy of {name} on {cl}", lambda api=api: get(api))
        for cl, api in w.workers.items()}


def run(c, w):
    uid, copies = submit_copied(w, "jobset", JOBSET, jobset)
    check_copies(c, copies, uid)
    for cl, cp in copies.items():
        c.check(cp["spec"]["replicatedJobs"] == jobset(w.mgr)["spec"]["replicatedJobs"],
                f"{cl}: the replicated jobs as on the manager")
    prs = {cl: wait_for(f"the request on {cl}", lambda cl=cl: request_of(w.workers[cl], copies[cl]))
           for cl in w.workers}

    # The autoscaler provisions on us: that copy is released and wins; asia's goes.
    cluster.provisioned(w.workers[US], prs[US])
    wait_for("the copy on us released", lambda: jobset(w.workers[US])["spec"].get("suspend") is False)
    wait_for("the copy on asia to go", lambda: jobset(w.workers[ASIA]) is None)
    wait_for("admitted on us", lambda: w.cluster_name() == US)
    c.check(jobset(w.mgr)["spec"].get("suspend") is True, "the manager's JobSet stays suspended")

    # The copy's status on the manager's JobSet; it finishes when the copy does.
    w.workers[US].set_status("jobsets", "default", "trainer", {
        "replicatedJobsStatus": [{"name": "workers", "ready": 1, "succeeded": 0, "failed": 0,
                                  "active": 1, "suspended": 0}]})
    wait_for("the status on the manager", lambda: (jobset(w.mgr).get("status") or {})
             .get("replicatedJobsStatus", [{}])[0].get("active") == 1)
    w.workers[US].set_status("jobsets", "default", "trainer", {
        "replicatedJobsStatus": [{"name": "workers", "ready": 0, "succeeded": 1, "failed": 0,
                                  "active": 0, "suspended": 0}],
        "conditions": [{"type": "Completed", "status": "True", "reason": "AllJobsCompleted",
                        "message": "jobset completed successfully",
                        "lastTransitionTime": now()}]})
    wait_for("the manager's JobSet completed", lambda: any(
        x["type"] == "Completed" and x["status"] == "True"
        for x in (jobset(w.mgr).get("status") or {}).get("conditions", [])))
    wait_for("the manager's workload finished", lambda: [
        i for i in cluster.gpuq_json(w.gpuq, w.mdb, "list", "-A")["items"]
        if any(x["type"] == "Finished" and x["status"] == "True"
               for x in i["status"].get("conditions", []))])
    wait_for("the winner's copy deleted once finished", lambda: jobset(w.workers[US]) is None)
    c.check(not [r for r in cluster.writes(w.mgr, "jobsets", "trainer")
                 if r.get("subresource") != "status"],
            "the manager's JobSet: only its status written")
    for cl, api in w.workers.items():
        creates = [r for r in cluster.writes(api, "jobsets") if r["verb"] == "create"]
        c.check(len(creates) == 1 and creates[0]["user"] == "manager",
                f"{cl}: one create, by the manager: {creates}")
    run_pytorchjob(c, w)


def run_pytorchjob(c, w):
    """The switch and managedBy under spec.runPolicy: the row's paths, not Job's."""
    uid, copies = submit_copied(w, "pytorchjob", PYTORCHJOB, pytorchjob)
    for cl, cp in copies.items():
        rp = cp["spec"].get("runPolicy", {})
        c.check(rp.get("suspend") is True and "managedBy" not in rp and "suspend" not in cp["spec"],
                f"{cl}: PyTorchJob copy suspended at runPolicy, not managed by MultiKueue: {rp}")
        c.check(cp["metadata"]["annotations"].get(ORIGIN + "-uid") == uid, f"{cl}: ours")
    pr = wait_for("the PyTorchJob's request on asia",
                  lambda: request_of(w.workers[ASIA], copies[ASIA], "PyTorchJob", "kubeflow.org"))
    cluster.provisioned(w.workers[ASIA], pr)
    wait_for("the PyTorchJob's copy on asia released",
             lambda: pytorchjob(w.workers[ASIA])["spec"]["runPolicy"].get("suspend") is False)
    wait_for("the PyTorchJob's copy on us to go", lambda: pytorchjob(w.workers[US]) is None)
    c.check(pytorchjob(w.mgr)["spec"]["runPolicy"].get("suspend") is True,
            "the manager's PyTorchJob stays suspended")


def main():
    c = Checks()
    with_world(c, binary(), run, CONFIG, crds=CRDS)
    return c.done()


if __name__ == "__main__":
    sys.exit(main())
