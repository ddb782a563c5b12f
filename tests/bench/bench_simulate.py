"""Benchmarks of issue 12: `gpuq simulate` and `gpuq report` (not tests: no
assertions on time; bench.py prints medians and the targets beside them).

- the built-in day (user story 1's rapids-day on its cluster), simulated and
  reported (`gpuq simulate --profile rapids-day -o json`): target < 1 s;
- a week-long trace of 100,000 jobs (made here, seeded) on a cluster of
  autoscaling pools: target < 30 s. The same week with 1,000, 5,000 and
  20,000 jobs is measured beside it so that the growth shows (--quick: only
  up to 5,000). A run that takes more than SLOW_S is not repeated, and one
  still going after WEEK_TIMEOUT_S is killed and reported with how far it
  got. After each size, finished/total of its database says the cluster
  kept up;
- `gpuq report -o json` over a database of at least 1,000,000 events: one
  made by gpuq itself (the CLUSTER applied, a small trace simulated, so that
  every table exists with real rows), then grown with python's sqlite3 by
  REPORT_WORKLOADS synthetic finished workloads, each with the five events
  gpuq writes for a job admitted through a check (Submitted, QuotaReserved,
  Admitted, Started, Finished), its pods and the nodes they ran on: target
  < 1 s with peak memory (ru_maxrss of the child) < 100 MB.
"""
import json
import os
import random
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import uuid

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


# The sizes of the week trace; the last is the target's.
WEEK_JOBS = (1000, 5000, 20000, 100000)
WEEK_JOBS_QUICK = (1000, 5000)
SLOW_S = 300  # a run longer than this is not repeated (the median is of one run)
# A week run still going after this long is killed and reported as such, with
# how far it got (GPUQ_BENCH_WEEK_TIMEOUT_S overrides; 0: no limit).
WEEK_TIMEOUT_S = float(os.environ.get("GPUQ_BENCH_WEEK_TIMEOUT_S", "1800"))

# The report's database: synthetic workloads (5 events each) over REPORT_DAYS.
REPORT_WORKLOADS = 200000
REPORT_DAYS = 28
REPORT_EVENTS_MIN = 1000000


def write_trace(path, n, seed=12):
    """n jobs over a week, arrivals uniform: 1-4 pods of 1 GPU, 30 s to 10 min.

    About 95 GPUs busy on average at 100,000 jobs, against t4-pool's 100 and
    a100-pool's 64: the cluster keeps up, queues stay short, and fewer jobs
    are the same week, only quieter."""
    rnd = random.Random(seed)
    rows = ["arrival,namespace,queue,name,pods,gpus,cpu,memory,run_time"]
    for i in range(n):
        at = rnd.randrange(WEEK_MS)
        pods = rnd.choice((1, 1, 1, 2, 2, 4))
        run = rnd.randrange(30, 601)
        ns = "team-a" if i % 3 else "team-b"
        rows.append(f"{at / 1000:.3f},{ns},research,j{i},{pods},1,1,4Gi,{run}s")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(rows) + "\n")


def timed(cmd, timeout=0):
    """Wall seconds and that child's own peak RSS (MB, wait4's rusage) of one
    command, and whether it was killed after timeout seconds (0: no limit)."""
    t = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    killed = False
    while True:
        pid, status, ru = os.wait4(p.pid, os.WNOHANG if timeout else 0)
        if pid:
            break
        if time.perf_counter() - t > timeout:
            p.kill()
            killed = True
            _, status, ru = os.wait4(p.pid, 0)
            break
        time.sleep(0.05)
    wall = time.perf_counter() - t
    err = p.stderr.read().decode()
    p.stderr.close()
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0 and not killed:
        raise SystemExit(f"{' '.join(cmd)} failed: {err.strip()}")
    return (wall, ru.ru_maxrss / 1024.0, killed) if timeout else (wall, ru.ru_maxrss / 1024.0)


def report(name, values, unit, target):
    m = statistics.median(values)
    runs = ", ".join(f"{v:.4g}" for v in values)
    print(f"{name:<40} median {m:.4g} {unit:<6} (runs: {runs}; target {target})", flush=True)


def count_events(db):
    with sqlite3.connect(db) as c:
        return c.execute("SELECT count(*) FROM events").fetchone()[0]


def count_finished(db):
    """(finished, total) workloads of a database."""
    with sqlite3.connect(db) as c:
        return c.execute("SELECT count(*) FILTER (WHERE state = 'finished'), count(*) "
                         "FROM workloads").fetchone()


def go_duration(ms):
    """A duration as gpuq's messages write it: 1h2m3s, 8m10s, 45s."""
    s = ms // 1000
    h, m, s = s // 3600, s // 60 % 60, s % 60
    return f"{h}h{m}m{s}s" if h else f"{m}m{s}s" if m else f"{s}s"


def synth_nodes(rnd, start, end):
    """Nodes over [start, end): per slot of each pool, nodes one after another,
    each requested, up after its pool's provisioning time, down hours later.
    t4-pool's first two slots (its minNodes) hold one node for the whole time.
    Returns rows (name, pool, flavor, gpus, requested_at, up_at, down_at)."""
    rows = []
    pools = (("t4-pool", "t4", 4, 25, 2, 240000), ("a100-pool", "a100", 8, 8, 0, 480000))
    for pool, flavor, gpus, slots, always, boot in pools:
        for slot in range(slots):
            if slot < always:
                rows.append([pool, flavor, gpus, start, start, None])
                continue
            t = start + rnd.randrange(3600000)
            while t < end:
                up = t + boot
                down = up + rnd.randrange(2 * 3600000, 24 * 3600000)
                rows.append([pool, flavor, gpus, t, up, down if down < end else None])
                t = down + 600000 + rnd.randrange(2 * 3600000)
    rows.sort(key=lambda r: (r[3], r[0]))
    count = {}
    out = []
    for pool, flavor, gpus, req, up, down in rows:
        count[pool] = count.get(pool, 0) + 1
        out.append((f"{pool}-s{count[pool]}", pool, flavor, gpus, req, up, down))
    return out


def build_report_db(gpuq, tmp, cluster, n=REPORT_WORKLOADS, seed=12):
    """A database of gpuq's own making, grown to n more workloads and 5n more
    events with python's sqlite3 (one transaction, seeded); its path."""
    db = os.path.join(tmp, "report.db")
    trace = os.path.join(tmp, "report-seed.csv")
    write_trace(trace, 50, seed)
    subprocess.run([gpuq, "--db", db, "apply", "-f", cluster], check=True,
                   stdout=subprocess.DEVNULL)
    subprocess.run([gpuq, "--db", db, "simulate", "--trace", trace, "-q", "--no-report"],
                   check=True, stdout=subprocess.DEVNULL)

    rnd = random.Random(seed)
    c = sqlite3.connect(db, isolation_level=None)
    c.row_factory = sqlite3.Row
    tpl = dict(c.execute("SELECT * FROM workloads WHERE state = 'finished' ORDER BY id "
                         "LIMIT 1").fetchone())
    # After the simulated rows (virtual time; apply's events are at wall time).
    last = c.execute("SELECT max(m) FROM (SELECT max(max(requested_at, coalesce(up_at, 0), "
                     "coalesce(down_at, 0))) AS m FROM sim_nodes UNION ALL "
                     "SELECT max(coalesce(finished_at, created_at)) FROM workloads)").fetchone()[0]
    start = (last // 3600000 + 1) * 3600000
    end = start + REPORT_DAYS * 24 * 3600000
    c.row_factory = None

    c.execute("BEGIN")
    base_node = c.execute("SELECT coalesce(max(id), 0) FROM sim_nodes").fetchone()[0]
    nodes = synth_nodes(rnd, start, end)
    c.executemany("INSERT INTO sim_nodes (id, name, pool, flavor, gpus, requested_at, up_at, "
                  "down_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                  [(base_node + 1 + i, *r) for i, r in enumerate(nodes)])
    # Per flavor and hour, the nodes up at some time in that hour.
    hour = 3600000
    by_hour = {}
    for i, (_, _, flavor, _, _, up, down) in enumerate(nodes):
        down = down if down else end + 24 * hour
        for h in range(up // hour, down // hour + 1):
            by_hour.setdefault((flavor, h), []).append((base_node + 1 + i, up, down))

    def node_for(flavor, t0, t1):
        """A node of flavor up over [t0, t1], or None."""
        cand = [x for x in by_hour.get((flavor, t0 // hour), ()) if x[1] <= t0 and t1 <= x[2]]
        return cand[rnd.randrange(len(cand))][0] if cand else None

    base_wl = c.execute("SELECT coalesce(max(id), 0) FROM workloads").fetchone()[0]
    created = sorted(start + rnd.randrange(end - start - 3600000) for _ in range(n))
    wls, pods, events = [], [], []
    cols = ("id", "uid", "namespace", "name", "job_kind", "job_name", "local_queue",
            "cluster_queue", "priority_class", "priority", "active", "state", "reason",
            "message", "pods", "podsets", "gpus", "spec", "admission", "queued_at",
            "created_at", "updated_at", "admitted_at", "finished_at", "evictions",
            "duration_ms", "started_at", "job_gone", "reserved_at")
    for i, t_created in enumerate(created):
        wid = base_wl + 1 + i
        ns = "team-a" if i % 3 else "team-b"
        name = f"r{i}"
        uid = str(uuid.UUID(int=rnd.getrandbits(128), version=4))
        npods = rnd.choice((1, 1, 1, 2, 2, 4))
        flavor = "t4" if rnd.random() < 0.8 else "a100"
        run = rnd.randrange(30, 601) * 1000
        reserved = t_created + int(rnd.expovariate(1 / 60000.0))
        # a100 waits for its nodes (a provisioning check), t4 for the check's
        # quick answer; then the pods start and run.
        admitted = reserved + (rnd.randrange(60000, 600000) if flavor == "a100"
                               else rnd.randrange(100, 5000))
        started = admitted + rnd.randrange(0, 10000)
        placed = [node_for(flavor, started, started + run) for _ in range(npods)]
        if None in placed:  # no a100 node up then: the always-up t4 ones
            flavor = "t4"
            placed = [node_for(flavor, started, started + run) for _ in range(npods)]
        finished = started + run
        q = {"cpu": "1", "memory": "4Gi", "nvidia.com/gpu": "1"}
        podsets = json.dumps([{"name": "main", "count": npods, "minCount": None, "requests": q,
                               "amounts": {"cpu": 1000, "memory": 4294967296,
                                           "nvidia.com/gpu": 1}}], separators=(",", ":"))
        spec = json.dumps(
            {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
             "metadata": {"name": name, "namespace": ns,
                          "annotations": {"gpuq.dev/duration": f"{run // 1000}.000s"}},
             "spec": {"podSets": [{"name": "main", "count": npods, "template": {"spec": {
                 "restartPolicy": "Never", "containers": [{"name": "c", "image": "sim",
                                                           "resources": {"requests": q}}]}}}],
                      "queueName": "research", "active": True}}, separators=(",", ":"))
        admission = json.dumps(
            {"clusterQueue": "research", "podSetAssignments": [{
                "name": "main", "flavors": {"cpu": flavor, "memory": flavor,
                                            "nvidia.com/gpu": flavor},
                "resourceUsage": {"cpu": str(npods), "memory": f"{4 * npods}Gi",
                                  "nvidia.com/gpu": str(npods)}, "count": npods}]},
            separators=(",", ":"))
        wls.append((wid, uid, ns, name, "Workload", name, "research", "research", None, 0, 1,
                    "finished", None, None, npods, podsets, npods, spec, admission, t_created,
                    t_created, finished, admitted, finished, 0, run, started, 0, reserved))
        for k, nid in enumerate(placed):
            pods.append((wid, "main", k, flavor, 1, nid, admitted, started, finished))
        ev = (ns, name, uid)
        events.append((t_created, wid, 0, *ev, "Submitted", "", None, "pending"))
        events.append((reserved, wid, 1, *ev, "QuotaReserved",
                       "Quota reserved in ClusterQueue research", "pending", "reserved"))
        events.append((admitted, wid, 2, *ev, "Admitted", "The workload is admitted",
                       "reserved", "admitted"))
        events.append((started, wid, 3, *ev, "Started", "Job unsuspended: pods running",
                       "admitted", "running"))
        events.append((finished, wid, 4, *ev, "Finished",
                       f"Job finished after {go_duration(run)}", "running", "finished"))
    assert set(tpl) >= set(cols), "workloads lost a column the bench writes"
    c.executemany(f"INSERT INTO workloads ({', '.join(cols)}) VALUES "
                  f"({', '.join('?' * len(cols))})", wls)
    c.executemany("INSERT INTO sim_pods (workload_id, podset, idx, flavor, gpus, node_id, "
                  "created_at, started_at, ended_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", pods)
    events.sort(key=lambda e: (e[0], e[1], e[2]))  # appended in time order, as gpuq does
    c.executemany("INSERT INTO events (at, kind, namespace, name, uid, type, reason, message, "
                  "from_state, to_state) VALUES (?, 'Workload', ?, ?, ?, 'Normal', ?, ?, ?, ?)",
                  [e[:1] + e[3:] for e in events])
    c.execute("UPDATE clock SET virtual_ms = ?", (end,))
    c.execute("COMMIT")
    c.close()
    return db


def bench_week(gpuq, tmp, cluster, n, runs):
    trace = os.path.join(tmp, f"week-{n}.csv")
    write_trace(trace, n)
    walls, rss, db = [], [], None
    name = f"week trace, {n} jobs"
    for r in range(runs):
        db = os.path.join(tmp, f"week-{n}-{r}.db")
        w, m, killed = timed([gpuq, "--db", db, "simulate", "--trace", trace, "-f", cluster,
                              "-q", "--no-report"], WEEK_TIMEOUT_S)
        if killed:  # gpuq simulate writes DB.partial-PID, renamed when done
            partial = next(os.path.join(tmp, f) for f in os.listdir(tmp)
                           if f.startswith(os.path.basename(db) + ".partial-")
                           and not f.endswith(("-wal", "-shm", "-journal")))
            with sqlite3.connect(f"file:{partial}?mode=ro", uri=True) as c:
                done, total, first = c.execute(
                    "SELECT count(*) FILTER (WHERE state = 'finished'), count(*), "
                    "min(created_at) FROM workloads").fetchone()
                virtual = c.execute("SELECT max(at) FROM events WHERE kind = 'Workload'"
                                    ).fetchone()[0]
            reached = (virtual - first) / WEEK_MS if first and virtual else 0.0
            print(f"{name + ', simulated':<40} killed after {w:.4g} s, peak RSS {m:.4g} MB: "
                  f"{done}/{total} finished, {100 * reached:.1f}% of the week simulated "
                  f"(target < 30 s)", flush=True)
            for f in os.listdir(tmp):
                if f.startswith(os.path.basename(db)):
                    os.remove(os.path.join(tmp, f))
            return
        walls.append(w)
        rss.append(m)
        if r + 1 < runs:
            os.remove(db)
        if w > SLOW_S:
            break
    report(f"{name}, simulated", walls, "s", "< 30 s" if n == 100000 else "-")
    report(f"{name}, peak RSS", rss, "MB", "-")
    done, total = count_finished(db)
    print(f"{'':<40} finished {done}/{total} ({100.0 * done / total:.2f}%), "
          f"{count_events(db)} events", flush=True)
    os.remove(db)


def bench_simulate(gpuq, quick, runs):
    print(f"simulate and report: {gpuq}, {runs} runs each, medians", flush=True)
    with tempfile.TemporaryDirectory(prefix="gpuq-bench-sim-", dir=os.environ.get("TMPDIR")) as tmp:
        day = [timed([gpuq, "simulate", "--profile", "rapids-day", "--seed", str(s), "-q",
                      "-o", "json"])[0] for s in range(1, runs + 1)]
        report("rapids-day simulated and reported", day, "s", "< 1 s")

        cluster = os.path.join(tmp, "cluster.yaml")
        with open(cluster, "w", encoding="utf-8") as f:
            f.write(CLUSTER)

        # (c) first: it does not depend on the slow week runs.
        t = time.perf_counter()
        # Built by another python: Linux keeps a process's peak RSS across exec,
        # so every gpuq forked from this one would report the rows' memory.
        subprocess.run([sys.executable, os.path.abspath(__file__), "build-report-db", gpuq, tmp,
                        cluster], check=True)
        db = os.path.join(tmp, "report.db")
        events = count_events(db)
        done, total = count_finished(db)
        print(f"{'report database built':<40} {time.perf_counter() - t:.3g} s: {events} events, "
              f"{total} workloads ({done} finished), "
              f"{os.path.getsize(db) / 1e6:.0f} MB", flush=True)
        if events < REPORT_EVENTS_MIN:
            raise SystemExit(f"report database has {events} events, "
                             f"fewer than {REPORT_EVENTS_MIN}")
        walls, rss = [], []
        for _ in range(runs):
            w, m = timed([gpuq, "--db", db, "report", "-o", "json"])
            walls.append(w)
            rss.append(m)
        report(f"report -o json, {events} events", walls, "s", "< 1 s")
        report(f"report -o json, {events} events, peak RSS", rss, "MB", "< 100 MB")
        os.remove(db)

        for n in WEEK_JOBS_QUICK if quick else WEEK_JOBS:
            bench_week(gpuq, tmp, cluster, n, runs)


if __name__ == "__main__" and sys.argv[1:2] == ["build-report-db"]:
    build_report_db(*sys.argv[2:5])
