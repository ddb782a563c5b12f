"""Shared pieces of the MultiKueue tests (it_multikueue, it_multikueue_faults): GKE's
multikueue-dws set-up on a manager and its workers, each a test API server, the
workers' kubeconfigs in the manager's Secrets, a Job for the manager, and the
MultiKueueClusters' Active condition as gpuq shows it."""
import base64
import json
import os
import subprocess

from common import COMPAT
import cluster

MK = os.path.join(COMPAT, "gke-dws", "multikueue-dws")
ORIGIN = "kueue.x-k8s.io/multikueue-origin"

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
