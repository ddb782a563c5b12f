#!/usr/bin/env python3
"""What a `gpuq run` of MultiKueue on simulated clusters did, checked and told
in words that do not depend on generated names (tests/cli/multikueue_sim.t).

Usage: story.py RUN_OUTPUT MANAGER_DB

For each of the manager's jobs, in submission order: the worker it ran on, as
the manager says it (`started: on W`, `finished: on W`, status.clusterName),
checked against the workers' own lines and databases: the job started on
exactly that worker and no other, and every other copy of it is cancelled.
"""
import os
import re
import sqlite3
import sys

out, manager = sys.argv[1], sys.argv[2]
lines = open(out, encoding="utf-8").read().splitlines()
worker_dir = manager + ".clusters"
workers = sorted(f[:-3] for f in os.listdir(worker_dir) if f.endswith(".db"))

m = sqlite3.connect(manager)
jobs = m.execute("SELECT job_name, state, cluster_name FROM workloads WHERE state <> 'cancelled' "
                 "ORDER BY id").fetchall()
problems = []
for i, (job, state, cluster) in enumerate(jobs, 1):
    started = [l.split()[1][1:-1] for l in lines
               if re.search(r"^\+\S+ +\[\S+\] job default/%s started$" % re.escape(job), l)]
    mine = [l for l in lines if re.search(r"^\+\S+ +job default/%s started: on %s$"
                                          % (re.escape(job), re.escape(cluster or "-")), l)]
    if started != [cluster] or len(mine) != 1:
        problems.append(f"job {i}: started on {started}, the manager says {cluster} ({len(mine)})")
    live = []
    for w in workers:
        d = sqlite3.connect(os.path.join(worker_dir, w + ".db"))
        for (st,) in d.execute("SELECT state FROM workloads WHERE job_name = ?", (job,)):
            if st != "cancelled":
                live.append((w, st))
    if [w for w, _ in live] != [cluster]:
        problems.append(f"job {i}: copies not cancelled {live}, winner {cluster}")
    print(f"job {i}: {state} on {cluster}" + (f", copy {live[0][1]}" if len(live) == 1 else ""))
for p in problems:
    print("PROBLEM", p)
sys.exit(1 if problems else 0)
