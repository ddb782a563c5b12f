#!/usr/bin/env python3
"""The engine's journal (schema/0012_journal.sql, lib/store/store_journal.c)
loses no decision when a process dies:
 - `gpuq schedule --until-stable -q` killed with SIGKILL while the journal
   holds rows leaves the raw tables consistent (usage equals each admitted
   workload's admission), and the journal's decisions are still there: the
   next reader (`gpuq list -A -o json`) folds them, so every workload whose
   last journal row is a reserve is admitted in that listing, every other
   workload the journal names is pending with its last row's message, and the
   journal is empty; scheduling then resumes to a consistent end;
 - a process killed at the crash point "mid-fold" (GQ_CRASH_AT, test builds:
   every row applied, none deleted, nothing committed) leaves the journal
   whole and the tables unchanged, and the next reader folds it all. Killed
   there twice: at the end of a schedule, and in the reader that would fold
   what a SIGKILLed schedule left."""
import collections
import json
import os
import signal
import sqlite3
import subprocess
import time

from common import Checks, binary, gpuq, has_test_hooks, scratch
from test_schedule_crash import consistent, jobs, queues

OPS = {1: "reserve", 2: "evict", 3: "reason"}


def connect(db):
    return sqlite3.connect(db, timeout=60)


def journal(db):
    con = connect(db)
    try:
        return con.execute("SELECT seq, workload_id, op, at, state, cluster_queue, admission, usage, "
                           "reason, message, preempted_reason, requeue_at FROM journal "
                           "ORDER BY seq").fetchall()
    finally:
        con.close()


def tables(db):
    """What the tables a fold writes hold, every column of every row."""
    con = connect(db)
    try:
        return (con.execute("SELECT * FROM workloads ORDER BY id").fetchall(),
                con.execute("SELECT * FROM usage ORDER BY workload_id, flavor, resource").fetchall())
    finally:
        con.close()


def workloads(db):
    con = connect(db)
    try:
        return {wid: {"name": name, "state": state, "evictions": ev, "reserved_at": at}
                for wid, name, state, ev, at in con.execute(
                    "SELECT id, name, state, evictions, reserved_at FROM workloads")}
    finally:
        con.close()


def run(exe, db, *args, crash_at=None, timeout=300):
    """gpuq, killed at crash_at when given. A run past the (generous) timeout is a hang:
    returned as a failure, exit status None."""
    env = dict(os.environ, NO_COLOR="1")
    env.pop("GQ_CRASH_AT", None)
    if crash_at:
        env["GQ_CRASH_AT"] = crash_at
    try:
        return subprocess.run([exe, "--db", db, *args], capture_output=True, text=True,
                              timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(args, None, "", f"did not end in {timeout} s")


def listed(item):
    """A listed workload's state and its QuotaReserved message."""
    conds = {c["type"]: c for c in item.get("status", {}).get("conditions", [])}
    if conds.get("Admitted", {}).get("status") == "True":
        return "admitted", None
    if conds.get("QuotaReserved", {}).get("status") == "True":
        return "reserved", None
    if conds.get("Finished", {}).get("status") == "True":
        return "finished", None
    return "pending", conds.get("QuotaReserved", {}).get("message")


def folded_by_reader(c, exe, db, rows, what):
    """rows: the journal as a killed process left it, read before any gpuq ran.
    The next reader folds every row of it, and loses none."""
    before = workloads(db)
    reserves = collections.Counter(r[1] for r in rows if r[2] == 1)
    evicts = collections.Counter(r[1] for r in rows if r[2] == 2)
    last = {}
    for r in rows:
        last[r[1]] = r
    c.check(reserves, f"{what}: the journal holds quota reservations ({len(rows)} rows)")
    p = run(exe, db, "list", "-A", "-o", "json")
    if not c.check(p.returncode == 0, f"{what}: list: {p.stderr}"):
        return
    items = {i["metadata"]["name"]: listed(i) for i in json.loads(p.stdout)["items"]}
    after = workloads(db)
    c.check(journal(db) == [], f"{what}: the reader emptied the journal")
    c.check(len(items) == len(before), f"{what}: {len(items)} listed of {len(before)}")
    wrong = []
    for wid, r in last.items():
        name = before[wid]["name"]
        state, message = items.get(name, (None, None))
        op = OPS[r[2]]
        if op == "reserve":
            ok = (state == r[4] == "admitted" and after[wid]["reserved_at"] == r[3])
        else:  # evicted or told why it waits: pending, with the last row's message
            ok = state == "pending" and message == r[9]
        # Each eviction in the journal counted once, none twice.
        ok = ok and after[wid]["evictions"] == before[wid]["evictions"] + evicts[wid]
        if not ok:
            wrong.append((name, op, state, message))
    c.check(not wrong, f"{what}: {len(wrong)} of {len(last)} journaled workloads not as their "
                       f"last row says, e.g. {wrong[:3]}")
    # Workloads the journal does not name are as they were.
    moved = [w["name"] for wid, w in before.items()
             if wid not in last and (after[wid]["state"], after[wid]["evictions"]) !=
             (w["state"], w["evictions"])]
    c.check(not moved, f"{what}: workloads outside the journal changed: {moved[:3]}")
    consistent(c, db, f"{what}: after the reader's fold")


def fresh(c, exe, db, seed):
    """A database of 1,500 jobs in 20 queues, two cycles scheduled (and folded)."""
    for f in (db, db + "-wal", db + "-shm"):
        if os.path.exists(f):
            os.unlink(f)
    c.check(gpuq(exe, db, "apply", "-f", "-", stdin=queues()).returncode == 0, "apply")
    c.check(gpuq(exe, db, "submit", "-f", "-", stdin=jobs(1500, seed)).returncode == 0, "submit")
    c.check(gpuq(exe, db, "schedule", "--cycles", "2", "-q").returncode == 0, "two cycles")


def kill_with_journal(c, exe, db, seed, target):
    """On a fresh database, start a schedule and SIGKILL it once its journal has
    target reserve rows; the rows it left. A schedule that finishes first (it
    folds its journal before it returns) is tried again on another one."""
    for attempt in range(3):
        fresh(c, exe, db, seed + 100 * attempt)
        p = subprocess.Popen([exe, "--db", db, "schedule", "--until-stable", "-q"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        con = connect(db)
        seen = False
        deadline = time.monotonic() + 300  # generous: only a hung process reaches it
        try:
            while p.poll() is None and time.monotonic() < deadline:
                if con.execute("SELECT count(*) FROM journal WHERE op = 1").fetchone()[0] >= target:
                    seen = True
                    break
                time.sleep(0.001)
        finally:
            con.close()
        p.send_signal(signal.SIGKILL)
        p.wait()
        rows = journal(db)
        if seen and sum(r[2] == 1 for r in rows) >= target:
            return rows
    c.check(False, f"never killed a schedule while its journal held {target} reserve rows")
    return None


def main():
    c = Checks()
    exe = binary()
    with scratch() as tmp:
        hooks = has_test_hooks(exe)
        if not hooks:
            print("SKIP: no crash points in this build (they exist in Debug builds only): "
                  "the SIGKILLs alone")
        if hooks:  # killed at mid-fold when the schedule folds its journal before it returns
            db = os.path.join(tmp, "fold.db")
            fresh(c, exe, db, 0)
            start = tables(db)
            p = run(exe, db, "schedule", "--until-stable", "-q", crash_at="mid-fold")
            c.check(p.returncode == 137 and "crash point mid-fold" in p.stderr,
                    f"schedule killed at mid-fold: {p.returncode} {p.stderr!r}")
            rows = journal(db)
            c.check(len(rows) > 0, "the killed fold left the journal in place")
            c.check(tables(db) == start, "the killed fold left workloads and usage unchanged")
            consistent(c, db, "schedule killed at mid-fold")
            folded_by_reader(c, exe, db, rows, "schedule killed at mid-fold")

        # SIGKILLed with 1, 60 and 150 reservations in the journal. (The seeds'
        # job mixes reach a stable state: some, such as 10, never do, new
        # binary or old, as admissions and preemptions chase each other.)
        for seed, target in ((1, 1), (2, 60), (3, 150)):
            what = f"killed at {target} reservations"
            db = os.path.join(tmp, f"kill{seed}.db")
            rows = kill_with_journal(c, exe, db, seed, target)
            if rows is None:
                continue
            consistent(c, db, f"{what}: a journal of {len(rows)} rows")
            if hooks:  # the reader that would fold it is killed at mid-fold: nothing moves
                raw = tables(db)
                p = run(exe, db, "list", "-A", "-o", "json", crash_at="mid-fold")
                c.check(p.returncode == 137 and "crash point mid-fold" in p.stderr,
                        f"{what}: list killed at mid-fold: {p.returncode} {p.stderr!r}")
                c.check(journal(db) == rows, f"{what}: the journal is whole after the killed fold")
                c.check(tables(db) == raw,
                        f"{what}: the tables are unchanged after the killed fold")
            folded_by_reader(c, exe, db, rows, what)
            p = run(exe, db, "schedule", "--until-stable", "-q")
            c.check(p.returncode == 0, f"{what}: schedule resumes: {p.stderr}")
            c.check(journal(db) == [], f"{what}: the schedule folded its journal")
            counts = consistent(c, db, f"{what}: after the schedule")
            c.check(counts.get("admitted", 0) > 0 and counts.get("pending", 0) > 0,
                    f"{what}: some admitted, some waiting: {counts}")
    return c.done()


if __name__ == "__main__":
    raise SystemExit(main())
