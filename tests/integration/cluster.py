"""Shared pieces of the cluster-mode tests: the fake API server with the
project's CRDs, a real gpuqd process against it, waiting, Kueue's names, and
the invariants checked after every fault case (no double admission, no lost
job, no orphaned request, quota equal to what is admitted)."""
import glob
import hashlib
import json
import os
import signal
import subprocess
import sys
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.normpath(os.path.join(HERE, "../.."))
sys.path.insert(0, os.path.join(TOP, "tests", "kubeapi"))
from kubeapi import FakeAPI  # noqa: E402  (the fake API server's helper)
from common import COMPAT  # noqa: E402

CRDS = sorted(glob.glob(os.path.join(TOP, "examples", "deploy", "crds", "*_*.yaml")))
QUEUE_LABEL = "kueue.x-k8s.io/queue-name"


def gpuqd_path(gpuq_path):
    return os.path.join(os.path.dirname(os.path.dirname(gpuq_path)), "daemon", "gpuqd")


def workload_name(job, uid):
    """Kueue's GetWorkloadNameForOwnerWithGVK for a batch/v1 Job."""
    h = hashlib.sha1(f"Job\nbatch\n{job}\n{uid}".encode()).hexdigest()[:5]
    return f"job-{job}-{h}"


def wait_for(what, fn, timeout=120.0, step=0.05):
    """Poll fn until it returns something true; the deadline is generous because it only
    matters when the test fails: a loaded machine must not turn a wait into a failure."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        v = fn()
        if v:
            return v
        time.sleep(step)
    raise AssertionError(f"timed out waiting for {what}")


def run_cases(c, e, cases):
    """Each case(e) in turn (only $GQ_CASE when set), timed; a case that fails is a failed
    check, with the last gpuqd's log, that gpuqd killed and e.cleanup() run."""
    only = os.environ.get("GQ_CASE")
    for case in cases:
        if only and only != case.__name__:
            continue
        t0 = time.time()
        try:
            case(e)
        except (AssertionError, StopIteration) as x:
            c.check(False, f"{case.__name__}: {x!r}")
            if Daemon.last:
                print("--- the last gpuqd's log:\n" + Daemon.last.logtext()[-3000:])
                Daemon.last.kill()
            e.cleanup()
        print(f"{case.__name__}: {time.time() - t0:.1f} s", flush=True)


class Daemon:
    """A real gpuqd in cluster mode; log in <dir>/gpuqd-<n>.log."""
    count = 0
    last = None

    def __init__(self, gpuq_path, api, db, *args, user="admin", env=None):
        Daemon.count += 1
        Daemon.last = self
        self.logpath = os.path.join(os.path.dirname(db), f"gpuqd-{Daemon.count}.log")
        self.log = open(self.logpath, "w")
        e = dict(os.environ, **(env or {}))
        e.pop("KUBECONFIG", None)
        self.proc = subprocess.Popen(
            [gpuqd_path(gpuq_path), "--db", db, "--kubeconfig", api.kubeconfig(user),
             "--listen", "127.0.0.1:0", *args],
            stdout=self.log, stderr=subprocess.STDOUT, env=e)
        self.port = None

    def http_port(self, timeout=120):
        def port():
            with open(self.logpath) as f:
                for line in f:
                    if "listening on " in line:
                        return int(line.rsplit(":", 1)[1])
            return None
        if self.port is None:
            self.port = wait_for("gpuqd to listen", port, timeout)
        return self.port

    def get(self, path):
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.http_port()}{path}",
                                        timeout=60) as r:
                return r.status, r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode()

    def logtext(self):
        with open(self.logpath) as f:
            return f.read()

    def kill(self, sig=signal.SIGKILL):
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            return self.proc.wait(timeout=60)
        finally:
            self.log.close()

    def stop(self):
        return self.kill(signal.SIGTERM)


def setup_queues(api, ns="default"):
    r = api.kubectl("apply", "-f", os.path.join(COMPAT, "gke-dws", "dws-queues.yaml"))
    assert r.returncode == 0, r.stderr
    api.kubectl("create", "namespace", ns)


JOB = """apiVersion: batch/v1
kind: Job
metadata:
  name: {name}
  namespace: {ns}
  labels:
    kueue.x-k8s.io/queue-name: {queue}
  annotations:
    provreq.kueue.x-k8s.io/maxRunDurationSeconds: "600"
spec:
  parallelism: 1
  completions: 1
  suspend: {suspend}
  template:
    spec:
      tolerations:
      - key: "nvidia.com/gpu"
        operator: "Exists"
        effect: "NoSchedule"
      containers:
      - name: main
        image: busybox
        resources:
          requests: {{cpu: "100m", memory: "100Mi", nvidia.com/gpu: "1"}}
          limits: {{cpu: "100m", memory: "100Mi", nvidia.com/gpu: "1"}}
      restartPolicy: Never
"""


def create_job(api, name, ns="default", queue="dws-local-queue", suspend="true"):
    path = os.path.join(api.dir, f"job-{name}.yaml")
    with open(path, "w") as f:
        f.write(JOB.format(name=name, ns=ns, queue=queue, suspend=suspend))
    r = api.kubectl("apply", "-f", path)
    assert r.returncode == 0, r.stderr
    return job(api, name, ns)


def job(api, name, ns="default"):
    for j in api.objects("jobs", ns):
        if j["metadata"]["name"] == name:
            return j
    return None


def prs(api, ns=None):
    return api.objects("provisioningrequests", ns)


def pr_of(api, job_obj, ns="default", attempt=1):
    wl = workload_name(job_obj["metadata"]["name"], job_obj["metadata"]["uid"])
    name = f"{wl}-dws-prov-{attempt}"
    for p in prs(api, ns):
        if p["metadata"]["name"] == name:
            return p
    return None


def provisioned(api, pr, ns="default"):
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    api.set_status("provisioningrequests", ns, pr["metadata"]["name"], {"conditions": [
        {"type": "Accepted", "status": "True", "reason": "Accepted", "message": "ok",
         "lastTransitionTime": now},
        {"type": "Provisioned", "status": "True", "reason": "Provisioned", "message": "ok",
         "lastTransitionTime": now}]})


def failed(api, pr, ns="default"):
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    api.set_status("provisioningrequests", ns, pr["metadata"]["name"], {"conditions": [
        {"type": "Failed", "status": "True", "reason": "OutOfResources", "message": "stockout",
         "lastTransitionTime": now}]})


def finish(api, name, ns="default"):
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    api.set_status("jobs", ns, name, {"succeeded": 1, "conditions": [
        {"type": "Complete", "status": "True", "reason": "Completed", "message": "",
         "lastTransitionTime": now}]})


def unsuspended(api, name, ns="default"):
    j = job(api, name, ns)
    return j if j and not j["spec"].get("suspend") else None


def writes(api, resource=None, name=None, user=None):
    """Write requests in the fake server's log (create, update, patch, delete)."""
    out = []
    for r in api.requests():
        if r.get("verb") not in ("create", "update", "patch", "delete"):
            continue
        if resource and r.get("resource") != resource:
            continue
        if name and r.get("name") != name:
            continue
        if user and r.get("user") != user:
            continue
        out.append(r)
    return out


def gpuq_json(gpuq_path, db, *args):
    r = subprocess.run([gpuq_path, "--db", db, *args, "-o", "json"], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def invariants(c, api, gpuq_path, db, where):
    """After every case: each unsuspended labelled Job was patched free exactly once by
    gpuq; no live request without a live, unfinished Job; the database's usage equals
    the sum over Jobs it counts admitted or running."""
    jobs = {j["metadata"]["uid"]: j for j in api.objects("jobs")}
    for p in prs(api):
        owners = [o["uid"] for o in p["metadata"].get("ownerReferences", [])]
        c.check(any(u in jobs for u in owners),
                f"{where}: request {p['metadata']['name']} has no live owner Job (orphan)")
    wls = gpuq_json(gpuq_path, db, "list", "-A")["items"]
    by_uid = {}
    for w in wls:
        uid = w["metadata"].get("labels", {}).get("kueue.x-k8s.io/job-uid") or \
            w["metadata"].get("uid")
        by_uid.setdefault(uid, []).append(w)
    for uid, j in jobs.items():
        labelled = QUEUE_LABEL in j["metadata"].get("labels", {})
        if labelled and not j["spec"].get("suspend"):
            patches = [r for r in writes(api, "jobs", j["metadata"]["name"])
                       if r.get("verb") == "patch"]
            c.check(len(patches) >= 1, f"{where}: job {j['metadata']['name']} runs, no patch")
    return wls
