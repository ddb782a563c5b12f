#!/usr/bin/env python3
"""Issue 13 (F7, F14): the simulated cluster's runner and its signals, with
real processes on a real database file.

- kill -9 of `gpuq run --speed max` left the clock frozen (speed 0) for every
  other command: now the dead runner is noticed and time flows on from its last
  moment, so two submits a second apart get different creation times, and the
  next `gpuq run` takes over.
- A live process that merely reuses the runner's pid blocked every later runner
  with no override: the runner is recorded with its process start time
  (/proc/<pid>/stat field 22), and a process with that pid but another start
  time is not the runner. The real runner's record still blocks.
- SIGINT to `gpuq run` and SIGTERM to `gpuqd --sim` waited for the whole step
  (scheduling cycles until stable over the whole pending set): now they stop
  between cycles. Each job here fits, one admission per cycle, so a step over
  the whole set is a cycle per job; a stop sent at the first admission must
  leave most still pending, the clock handed back and the database whole. How
  long the exit took is printed, never asserted (a loaded machine is no
  failure; the deadline of 120 s only catches a hang).
"""
import os
import signal
import sqlite3
import subprocess
import time

from common import JOB, Checks, binary, gpuq, queues, scratch

N = 2000  # jobs pending when the stop comes: cycles a step would have run before the fix
DEADLINE = 120.0

# Room for every pending job at once: a stop must come between cycles, not for want of quota.
QUEUES = queues(cpu=100000, memory="1000Ti", gpus=100000)


def gpuqd_path(g):
    return os.path.join(os.path.dirname(os.path.dirname(g)), "daemon", "gpuqd")


def wait_for(pred, seconds=DEADLINE):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(0.05)
    return pred()


def one(db, sql, *args):
    con = sqlite3.connect(db, timeout=60)
    try:
        row = con.execute(sql, args).fetchone()
    finally:
        con.close()
    return row


def proc_start(pid):
    """Field 22 of /proc/<pid>/stat, the process's start time in clock ticks."""
    with open(f"/proc/{pid}/stat") as f:
        return int(f.read().rsplit(")", 1)[1].split()[19])


def fresh(g, tmp, name):
    db = os.path.join(tmp, name)
    r = gpuq(g, db, "apply", "-f", "-", stdin=QUEUES)
    assert r.returncode == 0, r.stderr
    return db


def created_apart(c, g, db, what):
    """Two submits a second apart on the wall clock get different creation times."""
    times = []
    for i in range(2):
        if i:
            time.sleep(1.2)
        r = gpuq(g, db, "submit", "--queue", "q", "--name", f"{what}-{i}", "--gpus", "1")
        c.check(r.returncode == 0, f"{what}: submit: {r.stderr}")
        times.append(one(db, "SELECT created_at FROM workloads WHERE job_name = ?",
                         f"{what}-{i}")[0])
    c.check(times[1] > times[0], f"{what}: the clock moves for other commands: {times}")


def killed_runner(c, g, tmp):
    db = fresh(g, tmp, "killed.db")
    p = subprocess.Popen([g, "--db", db, "run", "--speed", "max", "--forever", "-q"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    held = wait_for(lambda: (one(db, "SELECT runner_pid FROM clock") or [None])[0] == p.pid)
    c.check(held, "the runner holds the clock")
    p.kill()
    p.wait()  # reaped: a zombie would still answer kill(pid, 0)
    created_apart(c, g, db, "after-kill")
    r = gpuq(g, db, "run", "--speed", "max")
    c.check(r.returncode == 0, f"the next runner takes over: {r.returncode} {r.stderr}")
    speed, pid = one(db, "SELECT speed, runner_pid FROM clock")
    c.check(speed == 1.0 and pid is None, f"clock handed back: speed {speed}, pid {pid}")


def forge_runner(db, pid, start):
    con = sqlite3.connect(db)
    cols = [r[1] for r in con.execute("PRAGMA table_info(clock)")]
    if "runner_start" in cols:
        con.execute("UPDATE clock SET runner_pid = ?, runner_start = ?, speed = 0", (pid, start))
    else:  # a binary from before schema 10 knows only the pid
        con.execute("UPDATE clock SET runner_pid = ?, speed = 0", (pid,))
    con.commit()
    con.close()


def reused_pid(c, g, tmp):
    db = fresh(g, tmp, "reused.db")
    r = gpuq(g, db, "run")  # leaves a clock row, handed back
    c.check(r.returncode == 0, f"first run: {r.stderr}")
    sleeper = subprocess.Popen(["sleep", "600"])
    try:
        # The stored runner had the sleeper's pid but started at another moment.
        forge_runner(db, sleeper.pid, proc_start(sleeper.pid) + 1)
        created_apart(c, g, db, "reused-pid")
        r = gpuq(g, db, "run")
        c.check(r.returncode == 0 and "another runner" not in r.stderr,
                f"a process reusing the runner's pid blocks nobody: {r.returncode} {r.stderr}")
        # The same pid with its own start time is a live runner: refused, as before.
        forge_runner(db, sleeper.pid, proc_start(sleeper.pid))
        r = gpuq(g, db, "run")
        c.check(r.returncode == 1 and f"another runner (pid {sleeper.pid})" in r.stderr,
                f"the live runner still holds the clock: {r.returncode} {r.stderr}")
    finally:
        sleeper.kill()
        sleeper.wait()


def pending_db(g, tmp, name):
    db = fresh(g, tmp, name)
    r = gpuq(g, db, "submit", "-f", "-", stdin="".join(JOB.format(i=i) for i in range(N)),
             timeout=600)
    assert r.returncode == 0, r.stderr
    return db


def admitted(db):
    return one(db, "SELECT count(*) FROM workloads WHERE state <> 'pending'")[0]


def stopped_between_cycles(c, db, what, before):
    """The stop left most jobs pending and the database whole, the clock handed back."""
    after = admitted(db)
    print(f"{what}: {after - before} of {N - before} pending jobs admitted before it stopped",
          flush=True)
    c.check(after < N, f"{what}: stopped between cycles, not after the whole step "
                       f"({after} of {N} admitted)")
    con = sqlite3.connect(db)
    c.check(con.execute("PRAGMA integrity_check").fetchone()[0] == "ok", f"{what}: integrity")
    held, holding = con.execute(
        "SELECT (SELECT count(DISTINCT workload_id) FROM usage), (SELECT count(*) FROM workloads "
        "WHERE state IN ('reserved', 'admitted', 'running'))").fetchone()
    c.check(held == holding, f"{what}: quota held by exactly the admitted ({held}, {holding})")
    speed, pid = con.execute("SELECT speed, runner_pid FROM clock").fetchone()
    c.check(speed == 1.0 and pid is None, f"{what}: clock handed back: speed {speed}, pid {pid}")
    con.close()


def stop_process(c, p, sig, db, what, before):
    c.check(wait_for(lambda: admitted(db) > before), f"{what}: the first admission")
    t = time.monotonic()
    p.send_signal(sig)
    try:
        rc = p.wait(DEADLINE)
    except subprocess.TimeoutExpired:
        p.kill()
        rc = p.wait()
    print(f"{what}: exited {time.monotonic() - t:.2f} s after the signal", flush=True)
    c.check(rc == 0, f"{what}: clean exit (rc {rc})")
    stopped_between_cycles(c, db, what, before)


def signals(c, g, tmp):
    db = pending_db(g, tmp, "pending.db")
    p = subprocess.Popen([g, "--db", db, "run", "--speed", "max", "-q"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    stop_process(c, p, signal.SIGINT, db, "SIGINT to gpuq run", 0)
    db = pending_db(g, tmp, "pending-daemon.db")
    p = subprocess.Popen([gpuqd_path(g), "--db", db, "--sim", "--speed", "max"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    stop_process(c, p, signal.SIGTERM, db, "SIGTERM to gpuqd --sim", 0)


def main():
    c = Checks()
    g = binary()
    with scratch() as tmp:
        killed_runner(c, g, tmp)
        reused_pid(c, g, tmp)
        signals(c, g, tmp)
    return c.done()


if __name__ == "__main__":
    raise SystemExit(main())
