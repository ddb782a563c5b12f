"""Issue 5's benchmark: gpuqd against the test API server (TLS on loopback).

  - start to first admission with 10,000 labelled Jobs in the server (a
    ClusterQueue without admission checks: admission is the unsuspend patch);
  - Provisioned=True to the unsuspend patch, per Job (a ClusterQueue with the
    DWS check): from just before the control call that sets the condition to
    the PATCH of the Job in the server's request log (one machine, one
    clock; the control call's own time is counted), median and p99;
  - API writes per admitted Job (DWS flow) and requests per admission;
  - gpuqd's peak resident memory (VmHWM) after all that.
Targets (issue 5): first admission < 3 s, unsuspend p99 < 50 ms, at most 4
writes per admitted Job, < 200 MB. Each figure is the median of RUNS runs."""
import http.client
import json
import os
import ssl
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.normpath(os.path.join(HERE, "../.."))
sys.path.insert(0, os.path.join(TOP, "tests", "integration"))
import cluster  # noqa: E402
from common import QUEUES  # noqa: E402  (a queue without admission checks)
from cluster import FakeAPI, wait_for  # noqa: E402



def job_body(name, queue):
    return json.dumps({
        "apiVersion": "batch/v1", "kind": "Job",
        "metadata": {"name": name, "namespace": "default",
                     "labels": {"kueue.x-k8s.io/queue-name": queue}},
        "spec": {"suspend": True, "parallelism": 1, "completions": 1, "template": {"spec": {
            "restartPolicy": "Never",
            "containers": [{"name": "main", "image": "busybox", "resources": {
                "requests": {"cpu": "100m", "memory": "100Mi", "nvidia.com/gpu": "1"},
                "limits": {"cpu": "100m", "memory": "100Mi", "nvidia.com/gpu": "1"}}}]}}}})


def create_jobs(api, names, queue, threads=8):
    """POST Jobs straight to the server over kept-alive TLS connections."""
    ctx = ssl.create_default_context(cafile=os.path.join(api.dir, "ca.crt"))
    token = api.token("admin")
    chunks = [names[i::threads] for i in range(threads)]
    errors = []

    def work(chunk):
        conn = http.client.HTTPSConnection("127.0.0.1", api.port, context=ctx)
        for n in chunk:
            conn.request("POST", "/apis/batch/v1/namespaces/default/jobs", job_body(n, queue),
                         {"Authorization": f"Bearer {token}",
                          "Content-Type": "application/json"})
            r = conn.getresponse()
            r.read()
            if r.status != 201:
                errors.append(r.status)
    ts = [threading.Thread(target=work, args=(c,)) for c in chunks]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors, f"creating jobs: {errors[:5]}"


def vmhwm_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return 0.0


def first_admission(gpuq, d, n):
    with FakeAPI(os.path.join(d, "api"), crds=cluster.CRDS) as api:
        cluster.setup_queues(api)
        path = os.path.join(d, "queues.yaml")
        with open(path, "w") as f:
            f.write(QUEUES)
        assert api.kubectl("apply", "-f", path).returncode == 0
        create_jobs(api, [f"j{i}" for i in range(n)], "q")
        api.clear_requests()
        t0 = time.time()
        g = cluster.Daemon(gpuq, api, os.path.join(d, "first.db"))

        def first_patch():
            for r in api.requests():
                if r.get("verb") == "patch" and r.get("resource") == "jobs" and \
                        r.get("status") == 200:
                    return r["time"]
            return None
        at = wait_for("first admission", first_patch, 120, 0.02)
        mem = vmhwm_mb(g.proc.pid)
        g.stop()
        return at - t0, mem


def unsuspend_latency(gpuq, d, n):
    with FakeAPI(os.path.join(d, "api"), crds=cluster.CRDS) as api:
        cluster.setup_queues(api)
        g = cluster.Daemon(gpuq, api, os.path.join(d, "lat.db"))
        names = [f"l{i}" for i in range(n)]
        create_jobs(api, names, "dws-local-queue", threads=4)
        wait_for("every request", lambda: len(cluster.prs(api, "default")) == n, 120, 0.1)
        time.sleep(0.5)
        jobs = {j["metadata"]["name"]: j for j in api.objects("jobs", "default")}
        api.clear_requests()
        lat, set_at = [], {}
        for name in names:
            pr = cluster.pr_of(api, jobs[name])
            set_at[name] = time.time()  # the control call sets the condition, same clock
            cluster.provisioned(api, pr)
            wait_for("unsuspend", lambda: cluster.unsuspended(api, name), 20, 0.002)
        for r in api.requests():
            if r.get("verb") == "patch" and r.get("resource") == "jobs" and \
                    r.get("status") == 200 and r.get("name") in set_at:
                lat.append((r["time"] - set_at[r["name"]]) * 1000)
        g.stop()
        return lat


def api_writes_per_admission(gpuq, d, n):
    """Writes gpuqd makes from a new Job to its release (PodTemplate, request, patch)."""
    with FakeAPI(os.path.join(d, "api"), crds=cluster.CRDS) as api:
        cluster.setup_queues(api)
        g = cluster.Daemon(gpuq, api, os.path.join(d, "w.db"))
        wait_for("ready", lambda: g.get("/readyz")[0] == 200)
        api.clear_requests()
        names = [f"w{i}" for i in range(n)]
        for name in names:
            cluster.create_job(api, name)
        jobs = {j["metadata"]["name"]: j for j in api.objects("jobs", "default")}
        wait_for("every request", lambda: len(cluster.prs(api, "default")) == n, 60, 0.05)
        for name in names:
            cluster.provisioned(api, cluster.pr_of(api, jobs[name]))
        wait_for("every release", lambda: all(cluster.unsuspended(api, x) for x in names), 60)
        time.sleep(0.5)
        mine = [r for r in api.requests() if r.get("user") == "admin" and
                r.get("resource") in ("jobs", "provisioningrequests", "podtemplates") and
                not (r.get("verb") == "patch" and r.get("subresource") == "status")]
        creates_by_kubectl = n  # the test's own Job creations (kubectl apply)
        w = [r for r in mine if r.get("verb") in ("create", "update", "patch", "delete")]
        all_req = [r for r in api.requests() if r.get("user") == "admin"]
        g.stop()
        return (len(w) - creates_by_kubectl) / n, len(all_req) / n


def bench_cluster(gpuq, quick, runs):
    n = 2000 if quick else 10000
    print(f"cluster mode (gpuqd against the test API server, TLS on loopback), "
          f"{runs} runs, medians", flush=True)
    firsts, mems = [], []
    for _ in range(runs):
        with tempfile.TemporaryDirectory(prefix="gpuq-bench-k8s-") as d:
            t, mem = first_admission(gpuq, d, n)
            firsts.append(t)
            mems.append(mem)
    print(f"  first admission, {n:,} labelled Jobs in the server: "
          f"{statistics.median(firsts):.2f} s (runs {', '.join(f'{x:.2f}' for x in firsts)}; "
          f"target < 3 s)")
    print(f"  gpuqd peak memory with {n:,} Jobs: {statistics.median(mems):.0f} MB "
          f"(target < 200 MB)")
    p50s, p99s = [], []
    for _ in range(runs):
        with tempfile.TemporaryDirectory(prefix="gpuq-bench-k8s-") as d:
            lat = unsuspend_latency(gpuq, d, 100 if quick else 300)
            lat.sort()
            p50s.append(statistics.median(lat))
            p99s.append(lat[min(len(lat) - 1, int(len(lat) * 0.99))])
    print(f"  Provisioned=True to unsuspend patch: median {statistics.median(p50s):.1f} ms, "
          f"p99 {statistics.median(p99s):.1f} ms (target p99 < 50 ms)")
    with tempfile.TemporaryDirectory(prefix="gpuq-bench-k8s-") as d:
        w, r = api_writes_per_admission(gpuq, d, 20)
    print(f"  API writes per admitted Job (DWS): {w:.2f} (target <= 4); "
          f"all requests per admission, reads and the test's own included: {r:.1f}")


if __name__ == "__main__":
    build = sys.argv[1] if len(sys.argv) > 1 else os.path.join(TOP, "build-bench")
    bench_cluster(os.path.join(build, "cli", "gpuq"), "--quick" in sys.argv,
                  1 if "--quick" in sys.argv else 3)
