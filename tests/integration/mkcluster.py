"""Shared pieces of the MultiKueue tests (it_multikueue, it_multikueue_faults,
it_multikueue_settings): GKE's multikueue-dws set-up on a manager and its workers,
each a test API server, the workers' kubeconfigs in the manager's Secrets, a Job
for the manager, the MultiKueueClusters' Active condition as gpuq shows it, and a
World of a manager and two workers, each with its gpuqd, for one case (with_world)."""
import base64
import json
import os
import signal
import subprocess
import sys
import tempfile

from common import COMPAT
import cluster
from cluster import Daemon, FakeAPI, wait_for

MK = os.path.join(COMPAT, "gke-dws", "multikueue-dws")
ORIGIN = "kueue.x-k8s.io/multikueue-origin"
ASIA, US = "multikueue-dws-worker-asia", "multikueue-dws-worker-us"

JOB = """apiVersion: batch/v1
kind: Job
metadata:
  name: {name}
  namespace: default
  labels:
    kueue.x-k8s.io/queue-name: dws-local-queue
  annotations:
    provreq.kueue.x-k8s.io/maxRunDurationSeconds: "600"
spec:
  parallelism: 1
  completions: 1
  suspend: true
  managedBy: "kueue.x-k8s.io/multikueue"
  template:
    spec:
      nodeSelector:
        cloud.google.com/gke-accelerator: "nvidia-tesla-t4"
      tolerations:
      - {{key: "nvidia.com/gpu", operator: "Exists", effect: "NoSchedule"}}
      containers:
      - name: dummy-job
        image: gcr.io/k8s-staging-perf-tests/sleep:v0.0.3
        args: ["120s"]
        resources:
          requests: {{cpu: "100m", memory: "100Mi", nvidia.com/gpu: "1"}}
          limits: {{cpu: "100m", memory: "100Mi", nvidia.com/gpu: "1"}}
      restartPolicy: Never
"""

SECRETS = {"multikueue-dws-worker-asia": "worker-asia-southeast1-secret",
           "multikueue-dws-worker-us": "worker-us-east4-secret"}


def secret(api, name, kubeconfig_path):
    with open(kubeconfig_path, "rb") as f:
        data = base64.b64encode(f.read()).decode()
    status, body = api.call("POST", "/api/v1/namespaces/default/secrets",
                            {"apiVersion": "v1", "kind": "Secret",
                             "metadata": {"name": name, "namespace": "default"},
                             "data": {"kubeconfig": data}})
    assert status == 201, (status, body)


def submit(api, name):
    path = os.path.join(api.dir, f"job-{name}.yaml")
    with open(path, "w") as f:
        f.write(JOB.format(name=name))
    r = api.kubectl("apply", "-f", path)
    assert r.returncode == 0, r.stderr
    return cluster.job(api, name)


def check_copies(c, copies, uid, origin="multikueue"):
    """Each worker's copy (by worker) suspended, not managed by MultiKueue, and ours: the
    origin label and the manager object's UID."""
    for cl, cp in copies.items():
        c.check(cp["spec"].get("suspend") is True and "managedBy" not in cp["spec"],
                f"{cl}: copy suspended, not managed by MultiKueue: {cp['spec']}")
        c.check(cp["metadata"]["labels"].get(ORIGIN) == origin and
                cp["metadata"]["annotations"].get(ORIGIN + "-uid") == uid,
                f"{cl}: origin label and UID {cp['metadata']}")


def setup_worker(api):
    r = api.kubectl("apply", "-f", os.path.join(MK, "dws-multi-worker.yaml"))
    assert r.returncode == 0, r.stderr


def setup_manager(api, workers, user="manager"):
    """dws-multi.yaml, and a Secret per worker holding that worker's kubeconfig for user."""
    r = api.kubectl("apply", "-f", os.path.join(MK, "dws-multi.yaml"))
    assert r.returncode == 0, r.stderr
    for cl, s in SECRETS.items():
        secret(api, s, workers[cl].kubeconfig(user))


def cluster_status(gpuq, db, name):
    r = subprocess.run([gpuq, "--db", db, "get", "multikueuecluster", name, "-o", "json"],
                       capture_output=True, text=True, timeout=60)
    if r.returncode != 0:  # not listed from the manager's API server yet
        return None
    out = json.loads(r.stdout)
    for cond in out.get("status", {}).get("conditions", []):
        if cond["type"] == "Active":
            return cond
    return None


class World:
    """A manager and two workers, their gpuqd started; stop() ends every gpuqd."""

    def __init__(self, c, gpuq, d, stack, manager_env=None, rotate=None, config=None, crds=()):
        self.c, self.gpuq, self.d = c, gpuq, d
        crds = cluster.CRDS + list(crds)
        self.mgr = stack(FakeAPI(os.path.join(d, "manager"), crds=crds))
        self.workers = {cl: stack(FakeAPI(os.path.join(d, cl), users=["manager"],
                                          crds=crds)) for cl in (ASIA, US)}
        for w in self.workers.values():
            setup_worker(w)
        setup_manager(self.mgr, self.workers)
        if rotate:  # the worker's token for the manager rotated: the Secret is stale
            self.workers[rotate].control("POST", "/_rotate", {"user": "manager"})
        self.config = os.path.join(d, "config.yaml")
        with open(self.config, "w") as f:
            f.write(config)
        self.mdb = os.path.join(d, "manager.db")
        self.daemons = [Daemon(gpuq, api, os.path.join(d, f"{cl}.db"))
                        for cl, api in self.workers.items()]
        self.m = self.manager(manager_env)

    def manager(self, env=None):
        m = Daemon(self.gpuq, self.mgr, self.mdb, "--config", self.config, env=env)
        self.daemons.append(m)
        return m

    def copy(self, cl, name="dws-job"):
        return cluster.job(self.workers[cl], name)

    def creates(self, cl):
        return [r for r in cluster.writes(self.workers[cl], "jobs") if r["verb"] == "create"]

    def provision(self, cl, name="dws-job"):
        cp = wait_for(f"the copy on {cl}", lambda: self.copy(cl, name))
        pr = wait_for(f"the request on {cl}", lambda: cluster.pr_of(self.workers[cl], cp))
        cluster.provisioned(self.workers[cl], pr)
        return wait_for(f"the copy on {cl} released",
                        lambda: cluster.unsuspended(self.workers[cl], name))

    def cluster_name(self):
        for i in cluster.gpuq_json(self.gpuq, self.mdb, "list", "-A")["items"]:
            return i["status"].get("clusterName")
        return None

    def stop(self):
        for g in self.daemons:
            g.stop()

    def logs(self):
        for g in self.daemons:
            print(g.logtext()[-3000:], file=sys.stderr)


def with_world(c, gpuq, fn, config, **kw):
    with tempfile.TemporaryDirectory(prefix="gpuq-mkf-") as d:
        apis = []

        def stack(api):
            apis.append(api.start())
            return api
        w = None
        try:
            w = World(c, gpuq, d, stack, config=config, **kw)
            fn(c, w)
        finally:
            if w:
                w.stop()
                if c.failed:
                    w.logs()
            for api in apis:
                if api.proc and api.proc.poll() is None:
                    os.kill(api.proc.pid, signal.SIGCONT)
                api.stop()
