"""Issue 15, acceptances 2, 3 and 5: kinds of the integration table in cluster mode, against
the test API server serving the real CRDs (JobSet, RayJob from tests/data/compat/integrations)
and a user's CRD (TrainingRun) with its Integration.

- a JobSet of two replicated jobs through a queue with a ProvisioningRequest check gets one
  request with one PodTemplate per pod set, owned by the JobSet; once provisioned, one patch
  unsuspends it with both templates carrying the flavor's nodeSelector, the podset label and
  the consume annotation; a higher-priority JobSet then preempts it: it is suspended again and
  its replicatedJobs are exactly as created; finishing the winner frees the quota;
- a RayJob takes the same path (pod sets head, worker group, submitter), as does a PyTorchJob
  (master and worker, from its map of replica types);
- a TrainingRun, a kind gpuq has no code for, is queued, released and finished from its
  Integration alone; its CRD installed while gpuqd runs is picked up, and so is its
  Integration added to --config and read by SIGHUP;
- SIGKILL of gpuqd between the request's creation and the release (a Debug build's crash
  point), for a JobSet: one request, released once after the restart.
Each case runs its own gpuqd and database."""
import copy
import hashlib
import os
import signal
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import Checks, binary, has_test_hooks  # noqa: E402
import cluster  # noqa: E402
from cluster import Daemon, FakeAPI, wait_for  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.normpath(os.path.join(HERE, "..", "data"))
INTEG = os.path.join(DATA, "compat", "integrations")
CRDS = cluster.CRDS + [os.path.join(INTEG, "jobset", "jobset.x-k8s.io_jobsets.yaml"),
                       os.path.join(INTEG, "kuberay", "ray.io_rayjobs.yaml"),
                       os.path.join(INTEG, "kubeflow-training", "kubeflow.org_pytorchjobs.yaml")]

QUEUES = """apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: l4}
spec: {nodeLabels: {cloud.google.com/gke-accelerator: nvidia-l4}}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ProvisioningRequestConfig
metadata: {name: int-config}
spec:
  provisioningClassName: queued-provisioning.gke.io
  managedResources: [nvidia.com/gpu]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: AdmissionCheck
metadata: {name: int-prov}
spec:
  controllerName: kueue.x-k8s.io/provisioning-request
  parameters: {apiGroup: kueue.x-k8s.io, kind: ProvisioningRequestConfig, name: int-config}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: dws}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu, memory, nvidia.com/gpu]
    flavors:
    - name: l4
      resources:
      - {name: cpu, nominalQuota: 100}
      - {name: memory, nominalQuota: 400Gi}
      - {name: nvidia.com/gpu, nominalQuota: 64}
  admissionChecks: [int-prov]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {namespace: default, name: dws-local-queue}
spec: {clusterQueue: dws}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: eight}
spec:
  namespaceSelector: {}
  preemption: {withinClusterQueue: LowerPriority}
  resourceGroups:
  - coveredResources: [cpu, memory, nvidia.com/gpu]
    flavors:
    - name: l4
      resources:
      - {name: cpu, nominalQuota: 100}
      - {name: memory, nominalQuota: 400Gi}
      - {name: nvidia.com/gpu, nominalQuota: 8}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {namespace: default, name: eight-q}
spec: {clusterQueue: eight}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: WorkloadPriorityClass
metadata: {name: urgent}
value: 1000
"""

SELECTOR = {"cloud.google.com/gke-accelerator": "nvidia-l4"}


def workload_name(kind, group, name, uid):
    """Kueue's GetWorkloadNameForOwnerWithGVK."""
    h = hashlib.sha1(f"{kind}\n{group}\n{name}\n{uid}".encode()).hexdigest()[:5]
    return f"{kind.lower()}-{name}-{h}"


def jobset_yaml(name, queue, gpus_per_pod=1, priority=None):
    prio = f"\n    kueue.x-k8s.io/priority-class: {priority}" if priority else ""
    return f"""apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  name: {name}
  namespace: default
  labels:
    kueue.x-k8s.io/queue-name: {queue}{prio}
spec:
  suspend: true
  replicatedJobs:
  - name: leader
    replicas: 1
    template:
      spec:
        parallelism: 4
        completions: 4
        template:
          metadata:
            labels: {{role: leader}}
          spec:
            restartPolicy: Never
            containers:
            - name: train
              image: busybox
              resources:
                requests: {{cpu: "1", memory: 1Gi, nvidia.com/gpu: {gpus_per_pod}}}
                limits: {{nvidia.com/gpu: {gpus_per_pod}}}
  - name: workers
    replicas: 2
    template:
      spec:
        parallelism: 2
        completions: 2
        template:
          spec:
            restartPolicy: Never
            tolerations:
            - {{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}}
            containers:
            - name: train
              image: busybox
              resources:
                requests: {{cpu: "1", memory: 1Gi, nvidia.com/gpu: {gpus_per_pod}}}
                limits: {{nvidia.com/gpu: {gpus_per_pod}}}
"""


RAYJOB = """apiVersion: ray.io/v1
kind: RayJob
metadata:
  name: ray-train
  namespace: default
  labels:
    kueue.x-k8s.io/queue-name: dws-local-queue
spec:
  suspend: true
  entrypoint: python train.py
  rayClusterSpec:
    headGroupSpec:
      rayStartParams: {}
      template:
        spec:
          containers:
          - name: ray-head
            image: rayproject/ray:2.9.0
            resources:
              requests: {cpu: "1", memory: 2Gi}
    workerGroupSpecs:
    - groupName: gpu-group
      replicas: 2
      minReplicas: 0
      maxReplicas: 4
      rayStartParams: {}
      template:
        spec:
          containers:
          - name: ray-worker
            image: rayproject/ray:2.9.0
            resources:
              requests: {cpu: "1", memory: 2Gi, nvidia.com/gpu: 1}
              limits: {nvidia.com/gpu: 1}
"""


PYTORCHJOB = """apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: torch-train
  namespace: default
  labels:
    kueue.x-k8s.io/queue-name: dws-local-queue
spec:
  runPolicy:
    suspend: true
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      restartPolicy: OnFailure
      template:
        spec:
          containers:
          - name: pytorch
            image: busybox
            resources:
              requests: {cpu: "1", memory: 1Gi, nvidia.com/gpu: 1}
              limits: {nvidia.com/gpu: 1}
    Worker:
      replicas: 3
      restartPolicy: OnFailure
      template:
        spec:
          containers:
          - name: pytorch
            image: busybox
            resources:
              requests: {cpu: "1", memory: 1Gi, nvidia.com/gpu: 1}
              limits: {nvidia.com/gpu: 1}
"""


def apply_text(api, d, name, text):
    path = os.path.join(d, name)
    with open(path, "w") as f:
        f.write(text)
    r = api.kubectl("apply", "-f", path)
    assert r.returncode == 0, r.stderr
    return path


def obj(api, resource, name, group=None):
    for o in api.objects(resource, "default", group=group):
        if o["metadata"]["name"] == name:
            return o
    return None


def request_of(api, wl):
    return next((p for p in cluster.prs(api, "default") if p["metadata"]["name"] ==
                 f"{wl}-int-prov-1"), None)


def pod_sets(pr, wl):
    """A request's pod sets as (pod set, count), the pod set read off its PodTemplate's name."""
    prefix = f"ppt-{wl}-int-prov-1-"
    return [(s["podTemplateRef"]["name"][len(prefix):], s["count"]) for s in pr["spec"]["podSets"]]


def switched(api, resource, name, path="spec.suspend", value=False, group=None):
    """The object once its suspend switch (a dotted path) reads value, else None."""
    o = obj(api, resource, name, group)
    v = o
    for key in path.split("."):
        v = v.get(key) if isinstance(v, dict) else None
    return o if o and v is value else None


def released(api, resource, name, group=None):
    return switched(api, resource, name, group=group)


def patches_by_gpuqd(api, resource, name):
    return [r for r in cluster.writes(api, resource, name, user="admin")
            if r.get("verb") == "patch" and r.get("status") == 200]


class Env:
    def __init__(self, c, gpuq, d, api):
        self.c, self.gpuq, self.d, self.api, self.n = c, gpuq, d, api, 0

    def db(self):
        self.n += 1
        self.n_db = os.path.join(self.d, f"case{self.n}.db")
        return self.n_db

    def delete(self, resource, *names):
        for n in names:
            self.api.kubectl("delete", resource, n, "--wait=false")
        wait_for(f"{resource} deleted", lambda: not any(
            o["metadata"]["name"] in names for o in self.api.objects(resource, "default")))


def case_jobset(e):
    """Acceptance 2: one request, two PodTemplates; one patch releases both templates; a
    preemption suspends it with its replicatedJobs restored exactly."""
    api, c = e.api, e.c
    g = Daemon(e.gpuq, api, e.db())
    apply_text(api, e.d, "trainer.yaml", jobset_yaml("trainer", "dws-local-queue"))
    created = obj(api, "jobsets", "trainer")
    wl = workload_name("JobSet", "jobset.x-k8s.io", "trainer", created["metadata"]["uid"])
    pr = wait_for("the JobSet's request", lambda: request_of(api, wl))
    pts = sorted(p["metadata"]["name"] for p in api.objects("podtemplates", "default")
                 if wl in p["metadata"]["name"])
    c.check(pts == [f"ppt-{wl}-int-prov-1-leader", f"ppt-{wl}-int-prov-1-workers"],
            f"one PodTemplate per pod set: {pts}")
    sets = pod_sets(pr, wl)
    c.check(sets == [("leader", 4), ("workers", 4)], f"the request's pod sets: {sets}")
    owners = pr["metadata"].get("ownerReferences", [])
    c.check(len(owners) == 1 and owners[0]["kind"] == "JobSet" and
            owners[0]["apiVersion"] == "jobset.x-k8s.io/v1alpha2" and
            owners[0]["uid"] == created["metadata"]["uid"], f"owned by the JobSet: {owners}")
    time.sleep(0.5)
    c.check(obj(api, "jobsets", "trainer")["spec"]["suspend"] is True, "suspended until provisioned")
    cluster.provisioned(api, pr)
    js = wait_for("the JobSet released", lambda: released(api, "jobsets", "trainer"))
    c.check(len(patches_by_gpuqd(api, "jobsets", "trainer")) == 1, "released by one patch")
    for rj in js["spec"]["replicatedJobs"]:
        t = rj["template"]["spec"]["template"]
        meta, spec = t.get("metadata", {}), t.get("spec", {})
        c.check(spec.get("nodeSelector") == SELECTOR,
                f"{rj['name']}: the flavor's nodeSelector: {spec.get('nodeSelector')}")
        c.check(meta.get("labels", {}).get("kueue.x-k8s.io/podset") == rj["name"],
                f"{rj['name']}: the podset label")
        c.check(meta.get("annotations", {}).get(
            "autoscaling.x-k8s.io/consume-provisioning-request") == f"{wl}-int-prov-1",
            f"{rj['name']}: the consume annotation")
    c.check(js["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["metadata"]["labels"]
            .get("role") == "leader", "the template's own label kept")
    log = wait_for("the release logged", lambda: "unsuspended" in g.logtext() and g.logtext())
    c.check(" JobSet default/trainer unsuspended" in log and " Job default/trainer " not in log,
            "gpuqd's log names the JobSet as a JobSet: " + log[-1500:])
    g.stop()
    e.delete("jobsets", "trainer")


def case_jobset_preempted(e):
    """Eviction: suspended again, the templates restored exactly as created."""
    api, c = e.api, e.c
    g = Daemon(e.gpuq, api, e.db())
    apply_text(api, e.d, "low.yaml", jobset_yaml("low", "eight-q"))
    original = copy.deepcopy(obj(api, "jobsets", "low")["spec"]["replicatedJobs"])
    js = wait_for("low released", lambda: released(api, "jobsets", "low"))
    c.check(js["spec"]["replicatedJobs"] != original, "released templates differ from the pristine")
    apply_text(api, e.d, "high.yaml", jobset_yaml("high", "eight-q", priority="urgent"))
    low = wait_for("low suspended again", lambda: switched(api, "jobsets", "low", value=True))
    c.check(low["spec"]["replicatedJobs"] == original,
            "evicted: its replicatedJobs are exactly as created")
    c.check("gpuq.dev/admission" not in low["metadata"].get("annotations", {}),
            "evicted: the admission annotation removed")
    wait_for("high released", lambda: released(api, "jobsets", "high"))
    api.set_status("jobsets", "default", "high", {"conditions": [
        {"type": "Completed", "status": "True", "reason": "AllJobsCompleted", "message": "",
         "lastTransitionTime": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}]},
        validate=False)
    c.check(wait_for("low released again", lambda: released(api, "jobsets", "low")) is not None,
            "the winner finished: the preempted JobSet runs again")
    g.stop()
    e.delete("jobsets", "low", "high")


def case_rayjob(e):
    """Acceptance 3: a RayJob takes the same path; its pod sets are Kueue's."""
    api, c = e.api, e.c
    g = Daemon(e.gpuq, api, e.db())
    apply_text(api, e.d, "ray.yaml", RAYJOB)
    rj = obj(api, "rayjobs", "ray-train")
    wl = workload_name("RayJob", "ray.io", "ray-train", rj["metadata"]["uid"])
    pr = wait_for("the RayJob's request", lambda: request_of(api, wl))
    wls = cluster.gpuq_json(e.gpuq, e.n_db, "list", "-A")["items"]
    sets = [(p["name"], p["count"]) for w in wls for p in w["spec"]["podSets"]]
    c.check(sets == [("head", 1), ("gpu-group", 2), ("submitter", 1)], f"Kueue's pod sets: {sets}")
    c.check(pod_sets(pr, wl) == [("gpu-group", 2)],
            "the request holds the pod sets that ask for its managed resource (GPUs)")
    cluster.provisioned(api, pr)
    rj = wait_for("the RayJob released", lambda: released(api, "rayjobs", "ray-train"))
    spec = rj["spec"]
    c.check(spec["rayClusterSpec"]["workerGroupSpecs"][0]["template"]["spec"].get("nodeSelector")
            == SELECTOR, "the worker group's template carries the flavor")
    sub = (spec.get("submitterPodTemplate") or {}).get("metadata", {}).get("labels", {})
    c.check(sub.get("kueue.x-k8s.io/podset") == "submitter",
            f"the default submitter template written with its podset label: {sub}")
    c.check(len(patches_by_gpuqd(api, "rayjobs", "ray-train")) == 1, "released by one patch")
    g.stop()
    e.delete("rayjobs", "ray-train")


def case_pytorchjob(e):
    """Acceptance 3: a PyTorchJob (a map of replica types, runPolicy.suspend) takes the same
    path; it is admitted whole (Kueue sets minCount for Jobs alone)."""
    api, c = e.api, e.c
    g = Daemon(e.gpuq, api, e.db())
    apply_text(api, e.d, "torch.yaml", PYTORCHJOB)
    pj = obj(api, "pytorchjobs", "torch-train")
    wl = workload_name("PyTorchJob", "kubeflow.org", "torch-train", pj["metadata"]["uid"])
    pr = wait_for("the PyTorchJob's request", lambda: request_of(api, wl))
    c.check(pod_sets(pr, wl) == [("master", 1), ("worker", 3)], f"its pod sets: {pod_sets(pr, wl)}")
    cluster.provisioned(api, pr)
    pj = wait_for("released", lambda: switched(api, "pytorchjobs", "torch-train",
                                               "spec.runPolicy.suspend"))
    for rt, spec in pj["spec"]["pytorchReplicaSpecs"].items():
        t = spec["template"]
        c.check(t["spec"].get("nodeSelector") == SELECTOR and
                t["metadata"]["labels"].get("kueue.x-k8s.io/podset") == rt.lower(),
                f"{rt}: released with its flavor and podset label")
    c.check(len(patches_by_gpuqd(api, "pytorchjobs", "torch-train")) == 1, "released by one patch")
    g.stop()
    e.delete("pytorchjobs", "torch-train")


def case_user_row(e):
    """Acceptances 4 and 5: a TrainingRun, from its Integration alone; its CRD installed
    while gpuqd runs is picked up."""
    api, c = e.api, e.c
    db = e.db()
    r = cluster.subprocess.run([e.gpuq, "--db", db, "apply", "-f",
                                os.path.join(DATA, "integrations", "trainingrun-integration.yaml")],
                               capture_output=True, text=True, timeout=60)
    c.check(r.returncode == 0, f"the Integration applied: {r.stderr}")
    g = Daemon(e.gpuq, api, db)
    wait_for("gpuqd synced", lambda: " synced" in g.logtext())
    c.check("trainingruns" in g.logtext() and "not served" in g.logtext(),
            "the absent CRD is reported: " + g.logtext()[-3000:])
    r = api.kubectl("apply", "-f", os.path.join(DATA, "integrations", "trainingruns-crd.yaml"))
    c.check(r.returncode == 0, f"CRD installed: {r.stderr}")
    r = api.kubectl("apply", "-f", os.path.join(DATA, "integrations", "trainingrun.yaml"))
    c.check(r.returncode == 0, f"TrainingRun created: {r.stderr}")
    tr = wait_for("the TrainingRun", lambda: obj(api, "trainingruns", "resnet", "example.com"))
    wl = workload_name("TrainingRun", "example.com", "resnet", tr["metadata"]["uid"])
    pr = wait_for("the TrainingRun's request", lambda: request_of(api, wl))
    c.check(pod_sets(pr, wl) == [("workers", 4)], "its pod set from the Integration")
    cluster.provisioned(api, pr)
    tr = wait_for("released", lambda: switched(api, "trainingruns", "resnet", "spec.paused",
                                               group="example.com"))
    t = tr["spec"]["workers"]["template"]
    c.check(t["spec"].get("nodeSelector") == SELECTOR and
            t["metadata"]["labels"].get("kueue.x-k8s.io/podset") == "workers",
            "released into spec.workers.template, paused false")
    api.set_status("trainingruns", "default", "resnet", {"conditions": [
        {"type": "Succeeded", "status": "True", "reason": "Done", "message": "",
         "lastTransitionTime": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}]},
        validate=False)
    wait_for("finished in the database", lambda: cluster.gpuq_json(
        e.gpuq, db, "list", "-A", "--status", "finished")["items"])
    g.stop()
    e.delete("trainingruns", "resnet")


def case_user_row_reload(e):
    """A user's row added to gpuqd's --config while it runs: SIGHUP reads it, and its kind is
    watched from then on (the CRD is installed by case_user_row)."""
    api, c = e.api, e.c
    config = os.path.join(e.d, "config.yaml")
    with open(config, "w") as f:
        f.write("apiVersion: kueue.x-k8s.io/v1beta1\nkind: WorkloadPriorityClass\n"
                "metadata: {name: reload-probe}\nvalue: 1\n")
    g = Daemon(e.gpuq, api, e.db(), "--config", config)
    wait_for("gpuqd synced", lambda: " synced" in g.logtext())
    c.check("trainingruns" not in g.logtext(), "no TrainingRun row before the reload")
    with open(os.path.join(DATA, "integrations", "trainingrun-integration.yaml")) as src, \
            open(config, "a") as f:
        f.write("---\n" + src.read())
    g.proc.send_signal(signal.SIGHUP)
    wait_for("TrainingRuns listed after the reload", lambda: "trainingruns listed" in g.logtext())
    r = api.kubectl("apply", "-f", os.path.join(DATA, "integrations", "trainingrun.yaml"))
    c.check(r.returncode == 0, f"TrainingRun created: {r.stderr}")
    tr = wait_for("the TrainingRun", lambda: obj(api, "trainingruns", "resnet", "example.com"))
    wl = workload_name("TrainingRun", "example.com", "resnet", tr["metadata"]["uid"])
    c.check(wait_for("its request", lambda: request_of(api, wl)) is not None,
            "a TrainingRun is queued once the reload read its Integration")
    g.stop()
    e.delete("trainingruns", "resnet")


def case_crash_between(e):
    """Acceptance 5: SIGKILL between the request's creation and the release: one request,
    released once."""
    api, c = e.api, e.c
    db = e.db()
    apply_text(api, e.d, "crash.yaml", jobset_yaml("crashy", "dws-local-queue"))
    js = obj(api, "jobsets", "crashy")
    wl = workload_name("JobSet", "jobset.x-k8s.io", "crashy", js["metadata"]["uid"])
    g = Daemon(e.gpuq, api, db, env={"GQ_CRASH_AT": "after-provreq"})
    rc = g.proc.wait(timeout=120)
    g.kill()
    c.check(rc == 137, f"killed at the crash point (status {rc})")
    g = Daemon(e.gpuq, api, db)
    pr = wait_for("the request after the restart", lambda: request_of(api, wl))
    cluster.provisioned(api, pr)
    wait_for("released after the restart", lambda: released(api, "jobsets", "crashy"))
    wait_for("running in the database", lambda: cluster.gpuq_json(
        e.gpuq, db, "list", "-A", "--status", "running")["items"])
    time.sleep(1)
    c.check(len([p for p in cluster.prs(api, "default") if wl in p["metadata"]["name"]]) == 1,
            "exactly one request")
    c.check(len(patches_by_gpuqd(api, "jobsets", "crashy")) == 1, "released once")
    g.stop()
    e.delete("jobsets", "crashy")


def main():
    c = Checks()
    gpuq = binary()
    hooks = has_test_hooks(gpuq)
    with tempfile.TemporaryDirectory(prefix="gpuq-integ-") as d, \
            FakeAPI(os.path.join(d, "api"), crds=CRDS) as api:
        apply_text(api, d, "queues.yaml", QUEUES)
        e = Env(c, gpuq, d, api)
        only = os.environ.get("GQ_CASE")
        for case in (case_jobset, case_jobset_preempted, case_rayjob, case_pytorchjob, case_user_row,
                     case_user_row_reload, case_crash_between):
            if only and only != case.__name__:
                continue
            if case is case_crash_between and not hooks:
                print("SKIP: case_crash_between: no crash points in this build (Debug builds only)")
                continue
            t0 = time.time()
            try:
                case(e)
            except (AssertionError, StopIteration, TypeError, KeyError) as x:
                c.check(False, f"{case.__name__}: {x!r}")
                if Daemon.last:
                    print("--- the last gpuqd's log:\n" + Daemon.last.logtext()[-4000:])
                    Daemon.last.kill()
            print(f"{case.__name__}: {time.time() - t0:.1f} s", flush=True)
    return c.done()


if __name__ == "__main__":
    sys.exit(main())
