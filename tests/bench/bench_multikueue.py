"""Issue 17's MultiKueue benchmark (acceptance 6): a manager gpuqd dispatching
1,000 Jobs to two workers, each its own test API server (TLS on loopback).

  - dispatch: from the manager gpuqd's start, with the 1,000 Jobs (spec.managedBy
    kueue.x-k8s.io/multikueue, a ClusterQueue with the MultiKueue check) already in
    its server, until both workers hold a copy of every one (the last create in the
    workers' request logs; one machine, one clock);
  - the race: the benchmark, playing the workers, unsuspends every copy on the
    first worker; from then until the manager has admitted every Job there and
    deleted every copy on the second;
  - API writes per worker per Job by the manager (its user on the workers: creates
    and deletes of the copies), over the whole run.
Targets (issue 17): dispatch < 10 s, at most 3 writes per worker per Job. No gpuqd
runs on the workers: this measures the manager. Each figure is the median of RUNS."""
import base64
import http.client
import json
import os
import ssl
import statistics
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.normpath(os.path.join(HERE, "../.."))
sys.path.insert(0, os.path.join(TOP, "tests", "integration"))
import cluster  # noqa: E402
from cluster import FakeAPI, wait_for  # noqa: E402

SETUP = """apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: default}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: AdmissionCheck
metadata: {name: mk}
spec:
  controllerName: kueue.x-k8s.io/multikueue
  parameters: {apiGroup: kueue.x-k8s.io, kind: MultiKueueConfig, name: mk}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: MultiKueueConfig
metadata: {name: mk}
spec: {clusters: [w1, w2]}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: MultiKueueCluster
metadata: {name: w1}
spec: {kubeConfig: {locationType: Secret, location: w1}}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: MultiKueueCluster
metadata: {name: w2}
spec: {kubeConfig: {locationType: Secret, location: w2}}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  admissionChecks: [mk]
  resourceGroups:
  - coveredResources: [cpu, memory]
    flavors:
    - name: default
      resources:
      - {name: cpu, nominalQuota: 100000}
      - {name: memory, nominalQuota: 100000Gi}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {name: q, namespace: default}
spec: {clusterQueue: cq}
"""


def job_body(name):
    return json.dumps({
        "apiVersion": "batch/v1", "kind": "Job",
        "metadata": {"name": name, "namespace": "default",
                     "labels": {"kueue.x-k8s.io/queue-name": "q"}},
        "spec": {"suspend": True, "managedBy": "kueue.x-k8s.io/multikueue", "template": {"spec": {
            "restartPolicy": "Never",
            "containers": [{"name": "main", "image": "busybox", "resources": {
                "requests": {"cpu": "100m", "memory": "100Mi"}}}]}}}})


def each(api, method, paths, bodies, content_type="application/json", threads=8):
    """Requests straight to the server over kept-alive TLS connections, as admin."""
    ctx = ssl.create_default_context(cafile=os.path.join(api.dir, "ca.crt"))
    token = api.token("admin")
    work = list(zip(paths, bodies))
    errors = []

    def run(chunk):
        conn = http.client.HTTPSConnection("127.0.0.1", api.port, context=ctx)
        for path, body in chunk:
            conn.request(method, path, body, {"Authorization": f"Bearer {token}",
                                              "Content-Type": content_type})
            r = conn.getresponse()
            r.read()
            if r.status >= 300:
                errors.append(r.status)
    ts = [threading.Thread(target=run, args=(work[i::threads],)) for i in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors, f"{method}: {errors[:5]}"


def copies(api):
    return [j for j in api.objects("jobs", "default")
            if j["metadata"].get("labels", {}).get("kueue.x-k8s.io/multikueue-origin")]


def one_run(gpuq, d, n):
    with FakeAPI(os.path.join(d, "m"), crds=cluster.CRDS) as mgr, \
            FakeAPI(os.path.join(d, "w1"), users=["manager"]) as w1, \
            FakeAPI(os.path.join(d, "w2"), users=["manager"]) as w2:
        path = os.path.join(d, "setup.yaml")
        with open(path, "w") as f:
            f.write(SETUP)
        r = mgr.kubectl("apply", "-f", path)
        assert r.returncode == 0, r.stderr
        for name, w in (("w1", w1), ("w2", w2)):
            with open(w.kubeconfig("manager"), "rb") as f:
                data = base64.b64encode(f.read()).decode()
            status, body = mgr.call("POST", "/api/v1/namespaces/default/secrets", {
                "apiVersion": "v1", "kind": "Secret",
                "metadata": {"name": name, "namespace": "default"},
                "data": {"kubeconfig": data}})
            assert status == 201, body
        names = [f"j{i}" for i in range(n)]
        each(mgr, "POST", ["/apis/batch/v1/namespaces/default/jobs"] * n,
             [job_body(x) for x in names])
        t0 = time.time()
        g = cluster.Daemon(gpuq, mgr, os.path.join(d, "m.db"))
        try:
            for w in (w1, w2):
                wait_for("every copy", lambda w=w: len(copies(w)) >= n, 600, 0.2)
            creates = [r["time"] for w in (w1, w2) for r in cluster.writes(w, "jobs")
                       if r["verb"] == "create"]
            dispatch = max(creates) - t0
            # The race: every copy on w1 admitted (unsuspended) at once.
            t1 = time.time()
            each(w1, "PATCH", [f"/apis/batch/v1/namespaces/default/jobs/{x}" for x in names],
                 ['{"spec":{"suspend":false}}'] * n, "application/merge-patch+json")
            wait_for("every copy on w2 deleted", lambda: not copies(w2), 600, 0.2)
            deletes = [r["time"] for r in cluster.writes(w2, "jobs", user="manager")
                       if r["verb"] == "delete"]
            race = max(deletes) - t1
            writes = [len(cluster.writes(w, "jobs", user="manager")) / n for w in (w1, w2)]
        finally:
            g.stop()
        return dispatch, race, max(writes)


def bench_multikueue(gpuq, quick, runs):
    n = 200 if quick else 1000
    print(f"MultiKueue (a manager gpuqd, two workers, each a test API server), {runs} runs, "
          f"medians", flush=True)
    ds, rs, ws = [], [], []
    for _ in range(runs):
        with tempfile.TemporaryDirectory(prefix="gpuq-bench-mk-") as d:
            dispatch, race, writes = one_run(gpuq, d, n)
            ds.append(dispatch)
            rs.append(race)
            ws.append(writes)
    print(f"  dispatch of {n:,} Jobs to two workers: {statistics.median(ds):.2f} s "
          f"(runs {', '.join(f'{x:.2f}' for x in ds)}; target < 10 s)")
    print(f"  first worker admits all: every copy on the other deleted in "
          f"{statistics.median(rs):.2f} s")
    print(f"  API writes per worker per Job by the manager: {max(ws):.2f} (target <= 3)")


if __name__ == "__main__":
    build = sys.argv[1] if len(sys.argv) > 1 else os.path.join(TOP, "build-bench")
    bench_multikueue(os.path.join(build, "cli", "gpuq"), "--quick" in sys.argv,
                     1 if "--quick" in sys.argv else 3)
