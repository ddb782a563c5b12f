#!/usr/bin/env python3
"""Issue 3, acceptance check 4: a decision is never half-persisted. A
`gpuq schedule --until-stable` working through thousands of workloads in a
cohort with preemption is killed with SIGKILL at several moments; after
each kill the database must be consistent:
 - PRAGMA integrity_check is ok;
 - every workload holding quota (reserved/admitted) has an admission and
   usage rows equal to its admission's resourceUsage, and no other workload
   has usage rows (so each queue's usage is the sum of what is admitted);
 - per ClusterQueue, usage never exceeds what the quota tree allows
   (nominal plus what the cohort can lend);
and scheduling resumes from there to the same kind of end state."""
import json
import os
import random
import signal
import sqlite3
import subprocess
import time

from common import Checks, binary, gpuq, scratch

NQ = 20


def queues():
    docs = ["apiVersion: kueue.x-k8s.io/v1beta1\nkind: ResourceFlavor\nmetadata: {name: f}\n"]
    docs.append("apiVersion: kueue.x-k8s.io/v1beta1\nkind: WorkloadPriorityClass\n"
                "metadata: {name: high}\nvalue: 100\n")
    for i in range(NQ):
        docs.append(f"""apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {{name: cq{i}}}
spec:
  namespaceSelector: {{}}
  cohort: co{i % 4}
  preemption: {{withinClusterQueue: LowerPriority, reclaimWithinCohort: Any}}
  resourceGroups:
  - coveredResources: [cpu, nvidia.com/gpu]
    flavors:
    - name: f
      resources:
      - {{name: cpu, nominalQuota: 40}}
      - {{name: nvidia.com/gpu, nominalQuota: 8, borrowingLimit: 4}}
""")
        docs.append(f"apiVersion: kueue.x-k8s.io/v1beta1\nkind: LocalQueue\n"
                    f"metadata: {{name: q{i}, namespace: default}}\nspec: {{clusterQueue: cq{i}}}\n")
    return "---\n".join(docs)


def jobs(n, seed):
    rnd = random.Random(seed)
    out = []
    for i in range(n):
        prio = "\n    kueue.x-k8s.io/priority-class: high" if rnd.random() < 0.2 else ""
        out.append(f"""apiVersion: batch/v1
kind: Job
metadata:
  name: j{seed}-{i}
  namespace: default
  labels:
    kueue.x-k8s.io/queue-name: q{rnd.randrange(NQ)}{prio}
spec:
  parallelism: {rnd.randint(1, 2)}
  completions: {rnd.randint(1, 2)}
  suspend: true
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: c
        image: busybox
        resources:
          requests: {{cpu: "{rnd.randint(1, 4)}", nvidia.com/gpu: "{rnd.randint(0, 2)}"}}
""")
    return "---\n".join(out)


def consistent(c, db, what):
    con = sqlite3.connect(db)
    try:
        c.check(con.execute("PRAGMA integrity_check").fetchone()[0] == "ok", f"{what}: integrity")
        rows = con.execute("SELECT id, state, admission, cluster_queue FROM workloads").fetchall()
        usage = {}
        for wid, cq, flavor, res, amount in con.execute(
                "SELECT workload_id, cluster_queue, flavor, resource, amount FROM usage"):
            usage.setdefault(wid, {})[(flavor, res)] = (cq, amount)
        bad = 0
        for wid, state, adm, cq in rows:
            held = usage.get(wid, {})
            if state in ("reserved", "admitted"):
                if not adm:
                    bad += 1
                    continue
                a = json.loads(adm)
                want = {}
                for ps in a["podSetAssignments"]:
                    for r, q in ps["resourceUsage"].items():
                        key = (ps["flavors"][r], r)
                        want[key] = want.get(key, 0) + quantity(r, q)
                got = {k: v[1] for k, v in held.items()}
                if got != want or any(v[0] != a["clusterQueue"] for v in held.values()):
                    bad += 1
            elif held or adm:
                bad += 1
        c.check(bad == 0, f"{what}: {bad} workloads whose usage rows disagree with their state")
        # The tree's limits: no queue holds more than nominal + borrowingLimit.
        over = con.execute(
            "SELECT cluster_queue, resource, sum(amount) FROM usage GROUP BY 1, 2 "
            "HAVING (resource = 'nvidia.com/gpu' AND sum(amount) > 12) OR "
            "(resource = 'cpu' AND sum(amount) > 40000 * 2)").fetchall()
        c.check(not over, f"{what}: queues over their limits {over}")
        counts = dict(con.execute("SELECT state, count(*) FROM workloads GROUP BY 1").fetchall())
    finally:
        con.close()
    return counts


def quantity(resource, text):
    mult = 1
    if text.endswith("m"):
        return int(text[:-1]) if resource == "cpu" else -(-int(text[:-1]) // 1000)
    return int(text) * (1000 if resource == "cpu" else mult)


def main():
    c = Checks()
    exe = binary()
    with scratch() as tmp:
        db = os.path.join(tmp, "s.db")
        c.check(gpuq(exe, db, "apply", "-f", "-", stdin=queues()).returncode == 0, "apply")
        for seed in range(3):
            c.check(gpuq(exe, db, "submit", "-f", "-", stdin=jobs(1500, seed)).returncode == 0,
                    f"submit batch {seed}")
            for delay in (0.02, 0.08, 0.2):
                p = subprocess.Popen([exe, "--db", db, "schedule", "--until-stable", "-q"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                time.sleep(delay)
                p.send_signal(signal.SIGKILL)
                p.wait()
                consistent(c, db, f"batch {seed}, killed after {delay}s")
        p = gpuq(exe, db, "schedule", "--until-stable", "-q", timeout=600)
        c.check(p.returncode == 0, f"final schedule: {p.stderr}")
        counts = consistent(c, db, "after the final schedule")
        c.check(counts.get("admitted", 0) > 0 and counts.get("pending", 0) > 0,
                f"some admitted, some waiting: {counts}")
        # A new process puts every pending workload back in its heap (as a
        # Kueue restart does) and retries each once; nothing may change.
        again = gpuq(exe, db, "schedule", "--until-stable", "-q")
        c.check(again.stdout.endswith(": 0 admitted, 0 evicted\n"),
                f"stable means stable: {again.stdout!r}")
    return c.done()


if __name__ == "__main__":
    raise SystemExit(main())
