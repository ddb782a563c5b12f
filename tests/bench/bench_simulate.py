"""Benchmarks of issue 12: `gpuq simulate` and `gpuq report` (not tests: no
assertions on time; bench.py prints medians and the targets beside them).

- the built-in day (user story 1's rapids-day on its cluster), simulated and
  reported (`gpuq simulate --profile rapids-day -o json`): target < 1 s;
- a week-long trace of 100,000 jobs (made here, seeded) on a cluster of
  autoscaling pools: target < 30 s;
- `gpuq report -o json` over a database of at least 1,000,000 events:
  target < 1 s with peak memory (ru_maxrss of the child) < 100 MB.
"""
import os
import random
import statistics
import subprocess
import tempfile
import time

WEEK_MS = 7 * 24 * 3600 * 1000

CLUSTER = """\
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: t4}
spec: {nodeLabels: {cloud.google.com/gke-nodepool: t4-pool}}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: a100}
spec: {nodeLabels: {cloud.google.com/gke-nodepool: a100-pool}}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: research}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu, memory, nvidia.com/gpu]
    flavors:
    - name: t4
      resources: [{name: cpu, nominalQuota: 2000}, {name: memory, nominalQuota: 8000Gi},
                  {name: nvidia.com/gpu, nominalQuota: 100}]
    - name: a100
      resources: [{name: cpu, nominalQuota: 2000}, {name: memory, nominalQuota: 8000Gi},
                  {name: nvidia.com/gpu, nominalQuota: 64}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {namespace: team-a, name: research}
spec: {clusterQueue: research}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {namespace: team-b, name: research}
spec: {clusterQueue: research}
---
apiVersion: sim.gpuq.dev/v1alpha1
kind: NodePool
metadata: {name: t4-pool}
spec: {queuedProvisioning: false, nodeLabels: {cloud.google.com/gke-nodepool: t4-pool},
       gpusPerNode: 4, minNodes: 2, maxNodes: 25, provisioningTime: 4m, scaleDownAfter: 10m}
---
apiVersion: sim.gpuq.dev/v1alpha1
kind: NodePool
metadata: {name: a100-pool}
spec: {queuedProvisioning: false, nodeLabels: {cloud.google.com/gke-nodepool: a100-pool},
       gpusPerNode: 8, minNodes: 0, maxNodes: 8, provisioningTime: 8m, scaleDownAfter: 10m}
"""


def write_trace(path, n, seed=12):
    """n jobs over a week: busier by day, 1-8 pods of 1 GPU, minutes to an hour."""
    rnd = random.Random(seed)
    rows = ["arrival,namespace,queue,name,pods,gpus,cpu,memory,run_time"]
    for i in range(n):
        at = rnd.randrange(WEEK_MS)
        pods = rnd.choice((1, 1, 1, 2, 2, 4, 8))
        run = rnd.randrange(60, 3600)
        ns = "team-a" if i % 3 else "team-b"
        rows.append(f"{at / 1000:.3f},{ns},research,j{i},{pods},1,1,4Gi,{run}s")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(rows) + "\n")


def timed(cmd):
    """Wall seconds and that child's own peak RSS (MB, wait4's rusage) of one command."""
    t = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    err = p.stderr.read().decode()
    p.stderr.close()
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed: {err.strip()}")
    return wall, ru.ru_maxrss / 1024.0


def report(name, values, unit, target):
    m = statistics.median(values)
    runs = ", ".join(f"{v:.4g}" for v in values)
    print(f"{name:<40} median {m:.4g} {unit:<6} (runs: {runs}; target {target})", flush=True)


def count_events(gpuq, db):
    out = subprocess.run(["python3", "-c",
                          "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]);"
                          "print(c.execute('select count(*) from events').fetchone()[0])", db],
                         capture_output=True, text=True, check=True)
    return int(out.stdout)


def bench_simulate(gpuq, quick, runs):
    print(f"simulate and report: {gpuq}, {runs} runs each, medians", flush=True)
    with tempfile.TemporaryDirectory(prefix="gpuq-bench-sim-", dir=os.environ.get("TMPDIR")) as tmp:
        day = [timed([gpuq, "simulate", "--profile", "rapids-day", "--seed", str(s), "-q",
                      "-o", "json"])[0] for s in range(1, runs + 1)]
        report("rapids-day simulated and reported", day, "s", "< 1 s")

        cluster = os.path.join(tmp, "cluster.yaml")
        with open(cluster, "w", encoding="utf-8") as f:
            f.write(CLUSTER)
        n = 20000 if quick else 100000
        trace = os.path.join(tmp, "week.csv")
        write_trace(trace, n)
        week, db = [], None
        for r in range(runs):
            db = os.path.join(tmp, f"week-{r}.db")
            week.append(timed([gpuq, "--db", db, "simulate", "--trace", trace, "-f", cluster,
                               "-q", "--no-report"])[0])
        report(f"week trace, {n} jobs, simulated", week, "s", "< 30 s")

        # A database of >= 1,000,000 events: the week's, its events counted.
        events = count_events(gpuq, db)
        walls, rss = [], []
        for _ in range(runs):
            w, m = timed([gpuq, "--db", db, "report", "-o", "json"])
            walls.append(w)
            rss.append(m)
        report(f"report -o json, {events} events", walls, "s", "< 1 s")
        report(f"report -o json, {events} events, peak RSS", rss, "MB", "< 100 MB")
