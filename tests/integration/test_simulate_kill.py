#!/usr/bin/env python3
"""Issue 12, check 9: `gpuq simulate` on a scratch database commits its steps
in groups (gq__store_group: each write transaction a savepoint, a COMMIT every
128), so a kill -9 mid-run must still leave a database that is whole and
consistent, only some steps shorter, and one another run can finish.

The benchmark's week trace of 3,000 jobs runs into a new --db (written as
DB.partial-PID, renamed only when done); once some jobs have finished, the
process is killed. The partial file must pass SQLite's integrity and foreign
key checks, hold quota (usage rows) for exactly the workloads in a state that
holds it, have a Finished event for every finished workload and an empty
engine journal; `gpuq get workloads` reads it, and `gpuq simulate` on it (the
jobs already in the database) takes the clock over and finishes every job.
"""
import os
import signal
import sqlite3
import subprocess
import sys
import time

from common import Checks, binary, gpuq, scratch

# The benchmark's week and cluster (two autoscaling pools behind one queue).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
from bench_simulate import CLUSTER, write_trace  # noqa: E402

DEADLINE = 300.0
JOBS = 3000

def count(db, sql):
    """One integer from a read-only look at db (the writer may hold a group open)."""
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=60)
        try:
            return con.execute(sql).fetchone()[0]
        finally:
            con.close()
    except sqlite3.Error:
        return 0  # not created yet, or no schema yet


def partial_of(tmp, db):
    name = os.path.basename(db) + ".partial-"
    for f in os.listdir(tmp):
        if f.startswith(name) and not f.endswith(("-wal", "-shm", "-journal")):
            return os.path.join(tmp, f)
    return None


def consistent(c, db, what):
    con = sqlite3.connect(db, timeout=60)
    try:
        q = lambda sql: con.execute(sql).fetchall()
        c.check(q("PRAGMA integrity_check") == [("ok",)], f"{what}: integrity_check")
        c.check(q("PRAGMA foreign_key_check") == [], f"{what}: foreign_key_check")
        wrong = q("SELECT count(*) FROM workloads w WHERE "
                  "(w.state IN ('reserved', 'admitted', 'running')) <> "
                  "EXISTS (SELECT 1 FROM usage u WHERE u.workload_id = w.id)")[0][0]
        c.check(wrong == 0, f"{what}: usage rows exactly for the workloads holding quota "
                            f"({wrong} differ)")
        unfinished = q("SELECT count(*) FROM workloads w WHERE w.state = 'finished' AND NOT "
                       "EXISTS (SELECT 1 FROM events e WHERE e.uid = w.uid AND "
                       "e.reason = 'Finished')")[0][0]
        c.check(unfinished == 0, f"{what}: a Finished event for every finished workload "
                                 f"({unfinished} without)")
        c.check(q("SELECT count(*) FROM journal")[0][0] == 0, f"{what}: the journal is empty")
        return q("SELECT count(*) FILTER (WHERE state = 'finished'), count(*) FROM workloads")[0]
    finally:
        con.close()


def main():
    g = binary()
    c = Checks()
    with scratch() as tmp:
        trace, cluster = os.path.join(tmp, "week.csv"), os.path.join(tmp, "cluster.yaml")
        write_trace(trace, JOBS)
        with open(cluster, "w", encoding="utf-8") as f:
            f.write(CLUSTER)
        db = os.path.join(tmp, "sim.db")
        p = subprocess.Popen([g, "--db", db, "simulate", "--trace", trace, "-f", cluster, "-q",
                              "--no-report"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        end = time.monotonic() + DEADLINE
        partial = None
        while time.monotonic() < end and p.poll() is None:
            partial = partial or partial_of(tmp, db)
            if partial and count(partial, "SELECT count(*) FROM workloads "
                                          "WHERE state = 'finished'") >= 50:
                break
            time.sleep(0.02)
        killed = p.poll() is None
        if killed:
            os.kill(p.pid, signal.SIGKILL)
        p.wait(timeout=60)
        p.stderr.close()
        if not killed or not partial:
            # It ran to the end before the kill: the whole run is still checked.
            print("note: the simulation finished before it could be killed")
            c.check(p.returncode == 0, "the simulation ran to the end")
            done, total = consistent(c, db, "the finished run")
            c.check(done == total == JOBS, f"every job finished ({done}/{total})")
            return c.done()
        c.check(not os.path.exists(db), "a killed run is not renamed into place")
        done, total = consistent(c, partial, "killed mid-run")
        c.check(0 < done < JOBS, f"killed part way ({done} of {total} submitted finished)")
        print(f"killed with {done} of {total} submitted jobs finished")
        r = gpuq(g, partial, "get", "workloads", "-A")
        c.check(r.returncode == 0 and "research" in r.stdout,
                f"gpuq get workloads reads the killed run's database: {r.stderr.strip()}")
        r = gpuq(g, partial, "simulate", "-q", "--no-report", timeout=DEADLINE)
        c.check(r.returncode == 0, f"a new simulate takes the clock over: {r.stderr.strip()}")
        done2, total2 = consistent(c, partial, "finished after the kill")
        c.check(total2 == total and done2 == total2,
                f"every job of the killed run finished ({done2}/{total2})")
    return c.done()


if __name__ == "__main__":
    raise SystemExit(main())
