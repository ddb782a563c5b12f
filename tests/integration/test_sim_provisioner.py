"""gpuqd --sim-provisioner: the simulated cluster plays the autoscaler against
the test API server. With gpuqd in cluster mode beside it and nothing else,
kubectl-applied dws-queues.yaml and a Job go the whole DWS way: gpuqd
creates the ProvisioningRequest, the provisioner answers Accepted, then
Provisioned=True after the pool's provisioningTime (conditions validated by
the server's CRD schema, written through the status subresource), gpuqd
unsuspends the Job and the provisioner sees the request consumed. Then, on
requests made by hand: a stocked-out pool waits (Provisioned=False
NotProvisioned) and fails (Failed=True OutOfResources), through one injected
409; a pool with one node serves a second request only once the first is
deleted; maxRunDurationSeconds revokes the capacity; a class the simulator
does not model is left alone and logged once; a restarted provisioner adopts
what its statuses say and writes nothing new. (BookingExpired needs 10
minutes unconsumed: not covered here.)
"""
import os
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import Checks, binary, gpuq  # noqa: E402
import cluster  # noqa: E402
from cluster import Daemon, FakeAPI, wait_for  # noqa: E402

POOLS = """apiVersion: sim.gpuq.dev/v1alpha1
kind: NodePool
metadata: {name: l4}
spec:
  nodeLabels: {cloud.google.com/gke-accelerator: nvidia-l4}
  gpusPerNode: 1
  maxNodes: 4
  provisioningTime: 2s
---
apiVersion: sim.gpuq.dev/v1alpha1
kind: NodePool
metadata: {name: h100}
spec:
  nodeLabels: {cloud.google.com/gke-accelerator: nvidia-h100-80gb}
  gpusPerNode: 8
  maxNodes: 8
  provisioningTime: 10m
  stockout: true
  failAfter: 4s
---
apiVersion: sim.gpuq.dev/v1alpha1
kind: NodePool
metadata: {name: a100}
spec:
  nodeLabels: {cloud.google.com/gke-accelerator: nvidia-tesla-a100}
  gpusPerNode: 8
  maxNodes: 1
  provisioningTime: 1s
  scaleDownAfter: 10m
"""

REQUEST = """apiVersion: v1
kind: PodTemplate
metadata: {{name: pt-{name}, namespace: default}}
template:
  spec:
    nodeSelector: {{cloud.google.com/gke-accelerator: {accel}}}
    containers:
    - name: main
      image: busybox
      resources:
        requests: {{nvidia.com/gpu: "{gpus}"}}
        limits: {{nvidia.com/gpu: "{gpus}"}}
    restartPolicy: Never
---
apiVersion: autoscaling.x-k8s.io/v1
kind: ProvisioningRequest
metadata: {{name: {name}, namespace: default}}
spec:
  provisioningClassName: {cls}
  parameters: {{{params}}}
  podSets:
  - podTemplateRef: {{name: pt-{name}}}
    count: 1
"""

DWS = "queued-provisioning.gke.io"


class Provisioner:
    """A real gpuqd --sim-provisioner as user "autoscaler"; log in <dir>/prov-<n>.log."""
    count = 0

    def __init__(self, gpuq_path, api, db):
        Provisioner.count += 1
        self.logpath = os.path.join(os.path.dirname(db), f"prov-{Provisioner.count}.log")
        self.log = open(self.logpath, "w")
        env = dict(os.environ)
        env.pop("KUBECONFIG", None)
        self.proc = subprocess.Popen(
            [cluster.gpuqd_path(gpuq_path), "--sim-provisioner", "--db", db, "--kubeconfig",
             api.kubeconfig("autoscaler"), "--seed", "7"],
            stdout=self.log, stderr=subprocess.STDOUT, env=env)

    def text(self):
        with open(self.logpath) as f:
            return f.read()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=20)
        finally:
            self.log.close()


def pr(api, name):
    return next((p for p in cluster.prs(api, "default") if p["metadata"]["name"] == name), None)


def cond(obj, typ):
    for c in (obj or {}).get("status", {}).get("conditions", []):
        if c.get("type") == typ:
            return c
    return None


def is_true(obj, typ):
    c = cond(obj, typ)
    return c is not None and c.get("status") == "True"


def request(api, name, accel, cls=DWS, gpus=8, params=""):
    path = os.path.join(api.dir, f"pr-{name}.yaml")
    with open(path, "w") as f:
        f.write(REQUEST.format(name=name, accel=accel, cls=cls, gpus=gpus, params=params))
    r = api.kubectl("apply", "-f", path)
    assert r.returncode == 0, r.stderr


def status_writes(api, name=None):
    """The provisioner's writes: status patches, by name."""
    return cluster.writes(api, "provisioningrequests", name, user="autoscaler")


def dws_flow(c, api, prov):
    job = cluster.create_job(api, "train")
    p = wait_for("the request gpuqd creates", lambda: cluster.pr_of(api, job))
    name = p["metadata"]["name"]
    seen = []

    def provisioned():
        cur = pr(api, name)
        prov_c = cond(cur, "Provisioned")
        if prov_c and prov_c["status"] == "False":
            seen.append(prov_c)
        return cur if is_true(cur, "Provisioned") else None
    t0 = time.time()
    p = wait_for("Provisioned=True", provisioned)
    print(f"provisioned {time.time() - t0:.1f} s after the request appeared")
    c.check(is_true(p, "Accepted") and cond(p, "Accepted")["reason"] == "Accepted",
            f"Accepted: {cond(p, 'Accepted')}")
    c.check(cond(p, "Provisioned")["reason"] == "CapacityIsProvisioned",
            f"Provisioned reason: {cond(p, 'Provisioned')}")
    # The polling above may miss a short Provisioned=False on a loaded machine; the request
    # log has every status the provisioner wrote.
    bodies = [r.get("body") or "" for r in status_writes(api, name)]
    c.check(any(s["reason"] == "NotProvisioned" and "ETA" in s["message"] for s in seen) or
            any('"NotProvisioned"' in b and "ETA" in b and '"Provisioned"' in b and
                '"CapacityIsProvisioned"' not in b for b in bodies),
            f"Provisioned=False with an ETA first: {seen[:1]} {bodies[:1]}")
    for k in ("type", "status", "reason", "message", "lastTransitionTime"):
        c.check(all(k in x for x in p["status"]["conditions"]), f"every condition has {k}")
    j = wait_for("gpuqd unsuspends the Job", lambda: cluster.unsuspended(api, "train"))
    c.check(j is not None, "the Job runs")
    wait_for("consumed", lambda: f"{name} consumed" in prov.text())
    w = status_writes(api, name)
    c.check(all(r["verb"] == "patch" and r["subresource"] == "status" and
                r["content_type"].startswith("application/merge-patch+json") and
                '"resourceVersion"' in (r["body"] or "") for r in w),
            f"status merge patches with a resourceVersion: {w}")
    c.check(2 <= len(w) <= 3, f"only changed statuses written: {len(w)}")
    time.sleep(1)
    c.check(len(status_writes(api, name)) == len(w), "nothing rewritten while unchanged")
    cluster.finish(api, "train")
    wait_for("gpuqd deletes the request", lambda: pr(api, name) is None)
    wait_for("its node given back", lambda: f"{name} deleted: 1 node back to pool l4"
             in prov.text())


def stockout(c, api):
    api.fault(method="PATCH", path=r"/provisioningrequests/out/status$", action="status",
              code=409, times=1)
    request(api, "out", "nvidia-h100-80gb")
    p = wait_for("Provisioned=False",
                 lambda: cond(pr(api, "out"), "Provisioned") and pr(api, "out"))
    pc = cond(p, "Provisioned")
    c.check(pc["status"] == "False" and pc["reason"] == "NotProvisioned" and
            "Waiting for resources" in pc["message"], f"stocked out, waiting: {pc}")
    c.check(is_true(p, "Accepted"), "accepted while waiting")
    p = wait_for("Failed=True", lambda: is_true(pr(api, "out"), "Failed") and pr(api, "out"))
    fc = cond(p, "Failed")
    c.check(fc["reason"] == "OutOfResources" and "h100" in fc["message"], f"failed: {fc}")
    codes = [r["status"] for r in status_writes(api, "out")]
    c.check(codes[:2] == [409, 200] and codes.count(409) == 1,
            f"one 409, re-read and written again: {codes}")


def deletion(c, api, prov):
    request(api, "first", "nvidia-tesla-a100")
    wait_for("first provisioned", lambda: is_true(pr(api, "first"), "Provisioned"))
    request(api, "second", "nvidia-tesla-a100")
    wait_for("second waits", lambda: cond(pr(api, "second"), "Provisioned"))
    time.sleep(1.5)
    p = pr(api, "second")
    pc = cond(p, "Provisioned")
    c.check(pc["status"] == "False" and "Waiting for resources" in pc["message"],
            f"one node: the second waits: {pc}")
    r = api.kubectl("delete", "provisioningrequest", "first", "-n", "default")
    c.check(r.returncode == 0, f"delete: {r.stderr}")
    t0 = time.time()
    wait_for("second provisioned on the freed node",
             lambda: is_true(pr(api, "second"), "Provisioned"))
    print(f"second provisioned {time.time() - t0:.1f} s after the first was deleted")
    c.check("first deleted: 1 node back to pool a100" in prov.text(), "deletion logged")


def revoked(c, api):
    request(api, "short", "nvidia-l4", gpus=2, params='maxRunDurationSeconds: "2"')
    p = wait_for("CapacityRevoked", lambda: is_true(pr(api, "short"), "CapacityRevoked") and
                 pr(api, "short"))
    rc, pc = cond(p, "CapacityRevoked"), cond(p, "Provisioned")
    c.check(rc["reason"] == "MaxRunDurationReached" and "2 s" in rc["message"], f"revoked: {rc}")
    c.check(pc["status"] == "True" and rc["lastTransitionTime"] > pc["lastTransitionTime"],
            f"revoked after Provisioned: {pc} {rc}")


def foreign(c, api, prov):
    request(api, "other", "nvidia-l4", cls="other.example.com")
    wait_for("skipped", lambda: "other skipped" in prov.text())
    time.sleep(1)
    c.check(not pr(api, "other").get("status", {}).get("conditions"), "left alone")
    c.check(prov.text().count("other skipped") == 1, "logged once")
    c.check(not status_writes(api, "other"), "never written")


def restart(c, api, gpuq_path, db, provs):
    c.check(provs[-1].stop() == 0, f"SIGTERM: clean exit\n{provs[-1].text()}")
    api.clear_requests()
    provs.append(Provisioner(gpuq_path, api, db))
    prov = provs[-1]
    wait_for("synced again", lambda: "synced" in prov.text())
    time.sleep(1)
    c.check(not status_writes(api), f"nothing rewritten after a restart: {status_writes(api)}")
    api.kubectl("delete", "provisioningrequest", "second", "-n", "default")
    wait_for("the adopted request's node given back",
             lambda: "second deleted: 1 node back to pool a100" in prov.text())


def main():
    c = Checks()
    gq = binary()
    with tempfile.TemporaryDirectory(prefix="gpuq-prov-") as d, \
            FakeAPI(os.path.join(d, "api"), users=["autoscaler"], crds=cluster.CRDS) as api:
        cluster.setup_queues(api)
        r = api.kubectl("patch", "resourceflavor", "default-flavor", "--type=merge", "-p",
                        '{"spec":{"nodeLabels":{"cloud.google.com/gke-accelerator":"nvidia-l4"}}}')
        c.check(r.returncode == 0, f"patch flavor: {r.stderr}")
        pdb = os.path.join(d, "prov", "pools.db")
        os.makedirs(os.path.dirname(pdb))
        r = gpuq(gq, pdb, "apply", "-f", "-", stdin=POOLS)
        c.check(r.returncode == 0, f"apply pools: {r.stderr}")
        provs = [Provisioner(gq, api, pdb)]
        g = Daemon(gq, api, os.path.join(d, "gpuq.db"))
        try:
            dws_flow(c, api, provs[0])
            stockout(c, api)
            deletion(c, api, provs[0])
            revoked(c, api)
            foreign(c, api, provs[0])
            restart(c, api, gq, pdb, provs)
        except AssertionError as e:
            c.check(False, f"{e}\n--- provisioner\n{provs[-1].text()}\n--- gpuqd\n{g.logtext()}")
        finally:
            c.check(provs[-1].stop() == 0, "the provisioner exits 0 on SIGTERM")
            for p in provs[:-1]:
                p.stop()
            g.stop()
        if c.failed:
            for p in provs:
                print(p.text())
    return c.done()


if __name__ == "__main__":
    sys.exit(main())
