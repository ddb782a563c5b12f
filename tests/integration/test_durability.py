#!/usr/bin/env python3
"""The store's promises, tested on real files with real processes:
 - a database written by a newer gpuq is refused with a clear message and
   left untouched (catalogue item 34);
 - `gpuq submit -f` of many jobs killed with SIGKILL mid-transaction leaves
   either all of them or none, and PRAGMA integrity_check says ok (item 32);
 - an acknowledged submit survives the process (it is committed before the
   name is printed)."""
import os
import signal
import sqlite3
import subprocess
import time

from common import JOB, QUEUES, Checks, binary, gpuq, scratch




def count(db):
    con = sqlite3.connect(db)
    try:
        n = con.execute("SELECT count(*) FROM workloads").fetchone()[0]
        ok = con.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        con.close()
    return n, ok


def newer_schema(c, exe, tmp):
    db = os.path.join(tmp, "new.db")
    # A write command creates the file (a read command never does: issue 13, F22).
    c.check(gpuq(exe, db, "schedule").returncode == 0, "create database")
    con = sqlite3.connect(db)
    con.execute("PRAGMA user_version = 999")
    con.commit()
    con.close()
    for args in (["list"], ["submit", "--queue", "q"], ["apply", "-f", "-"]):
        p = gpuq(exe, db, *args, stdin="")
        c.check(p.returncode == 1, f"{args}: exit {p.returncode} on a newer schema")
        c.check("newer than this gpuq" in p.stderr and len(p.stderr.splitlines()) == 1,
                f"{args}: message {p.stderr!r}")
    con = sqlite3.connect(db)
    c.check(con.execute("PRAGMA user_version").fetchone()[0] == 999, "user_version untouched")
    con.close()


def killed_submit(c, exe, tmp):
    db = os.path.join(tmp, "kill.db")
    c.check(gpuq(exe, db, "apply", "-f", "-", stdin=QUEUES).returncode == 0, "apply queues")
    path = os.path.join(tmp, "jobs.yaml")
    with open(path, "w") as f:
        for i in range(20000):
            f.write(JOB.format(i=i))
    outcomes = set()
    for delay in (0.05, 0.15, 0.3, 0.6):
        before, _ = count(db)
        p = subprocess.Popen([exe, "--db", db, "submit", "-f", path],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(delay)
        p.send_signal(signal.SIGKILL)
        p.wait()
        after, ok = count(db)
        c.check(ok == "ok", f"integrity after SIGKILL at {delay}s: {ok}")
        c.check(after - before in (0, 20000), f"SIGKILL at {delay}s left {after - before} jobs")
        outcomes.add(after - before)
        if after - before:  # the whole file went in; clear for the next round
            break
    c.check(0 in outcomes, "at least one kill landed inside the transaction")


def acknowledged(c, exe, tmp):
    db = os.path.join(tmp, "ack.db")
    gpuq(exe, db, "apply", "-f", "-", stdin=QUEUES)
    p = gpuq(exe, db, "submit", "--queue", "q", "--name", "kept", "--cpu", "1")
    name = p.stdout.strip()
    c.check(p.returncode == 0 and name.startswith("job-kept-"), f"submit printed {name!r}")
    con = sqlite3.connect(db)
    row = con.execute("SELECT state FROM workloads WHERE name = ?", (name,)).fetchone()
    con.close()
    c.check(row == ("pending",), f"acknowledged workload stored: {row}")


def killed_migration(c, exe, tmp):
    """Item 35: a migration killed inside its transaction (crash point mid-migration, Debug
    builds) leaves the file as it was; the next start migrates it whole."""
    db = os.path.join(tmp, "migrate.db")
    env = dict(os.environ, GQ_CRASH_AT="mid-migration", NO_COLOR="1")
    r = subprocess.run([exe, "--db", db, "list", "-A"], capture_output=True, text=True,
                       env=env, timeout=60)
    if r.returncode != 137:
        print("SKIP: no crash points in this build (they exist in Debug builds only)")
        return
    con = sqlite3.connect(db)
    version = con.execute("PRAGMA user_version").fetchone()[0]
    tables = con.execute("SELECT count(*) FROM sqlite_master WHERE type = 'table'").fetchone()[0]
    con.close()
    c.check(version == 0 and tables == 0, f"killed migration left nothing: v{version}, {tables}")
    r = gpuq(exe, db, "list", "-A")
    c.check(r.returncode == 0, f"the next start migrates: {r.stderr}")
    con = sqlite3.connect(db)
    c.check(con.execute("PRAGMA integrity_check").fetchone()[0] == "ok", "integrity ok")
    c.check(con.execute("PRAGMA user_version").fetchone()[0] > 0, "migrated")
    con.close()


def main():
    c, exe = Checks(), binary()
    with scratch() as tmp:
        newer_schema(c, exe, tmp)
        killed_submit(c, exe, tmp)
        acknowledged(c, exe, tmp)
        killed_migration(c, exe, tmp)
    return c.done()


if __name__ == "__main__":
    raise SystemExit(main())
