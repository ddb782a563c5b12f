#!/usr/bin/env python3
"""A damaged database never crashes a command (issue 13, item 4).

A database is populated with the gpuq under test (the GKE DWS queues and the
example manifests, jobs submitted and scheduled, ten virtual minutes of
`gpuq run`, so that there are events, requests and pods), then damaged in
copies two ways:
 - bytes changed at 50 seeded positions: a third inside the record headers
   of table b-tree leaf cells (where a byte decides a column's type and
   length), a third inside stored JSON text, a third anywhere;
 - values SQLite hands back as they are (NULL, a wrong type, truncated JSON)
   in seeded rows and columns, put there by editing the schema's NOT NULL
   and STRICT away as a flipped byte would.
Then, in further copies, one chosen row of each table that only the
simulator, the provisioning engine and the report read (sim_pods,
provisioning_requests with their workload_checks, a workload's pod sets and
the report's inputs, a queue's uid) is given such a value, and the command
that reads it must say the file is damaged: exit 1 with the one line naming
the database and `gpuqd --check`, not a crash, "out of memory" or a quiet 0.
Against each copy a rotating share of the read commands (list of each kind,
-o json and -o wide, describe, report, get provreq) and write commands
(schedule, submit, cancel, run) and `gpuqd --check` run with a generous
timeout (a hang is a failure, not a speed test). Each must exit 0, or 1 with
exactly one line on stderr; none may be killed by a signal or print a
sanitizer report; the file must still be there. Commands run two at a time.
"""
import os
import random
import shutil
import sqlite3
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

from common import Checks, binary, scratch

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.normpath(os.path.join(HERE, "../../examples"))
SEED = 13
PAGE = 4096

READS = [
    ["list", "-A"], ["list", "-A", "-o", "json"], ["list", "-A", "-o", "wide"],
    ["list", "clusterqueues"], ["list", "clusterqueues", "-o", "yaml"],
    ["list", "localqueues", "-A", "-o", "json"], ["list", "resourceflavors", "-o", "json"],
    ["list", "cohorts"], ["list", "workloadpriorityclasses"], ["list", "admissionchecks", "-o", "json"],
    ["list", "provisioningrequestconfigs", "-o", "json"], ["list", "nodepools"],
    ["list", "podtemplates", "-A"], ["get", "provreq", "-A"], ["get", "provreq", "-A", "-o", "json"],
    ["describe", "clusterqueue", "gpu-cluster-queue"], ["describe", "localqueue", "-n", "team-a", "gpu-queue"],
    ["describe", "resourceflavor", "dws"], ["describe", "workload", "-n", "team-a", "finetune-7b"],
    ["report"], ["report", "-o", "json"],
]
WRITES = [
    ["schedule"], ["submit", "--queue", "gpu-queue", "-n", "team-a", "--gpus", "1"],
    ["cancel", "-n", "team-b", "late"], ["run", "--for", "2m", "-q"],
]
CHECK = ["--check"]  # gpuqd

# (what, SQL run on the copy, commands that must report it damaged). The
# populated file has one live pod (sim_pods 1, workload 1, running), no live
# request (12 is workload 4's last) and workload 5 ("late", team-b) pending.
TARGETED = [
    ("sim_pods.gpus = 'x'", "UPDATE sim_pods SET gpus = 'x' WHERE id = 1",
     [["run", "--for", "2m", "-q"], ["report"]]),
    ("sim_pods.podset = NULL", "UPDATE sim_pods SET podset = NULL WHERE id = 1",
     [["run", "--for", "2m", "-q"]]),
    ("provisioning_requests.name = NULL (live)",
     "UPDATE provisioning_requests SET deleted_at = NULL, name = NULL WHERE id = 12",
     [["run", "--for", "2m", "-q"]]),
    ("provisioning_requests.spec = NULL (live)",
     "UPDATE provisioning_requests SET deleted_at = NULL, spec = NULL WHERE id = 12",
     [["run", "--for", "2m", "-q"]]),
    ("provisioning_requests.attempt = 'x'",
     "UPDATE provisioning_requests SET attempt = 'x' WHERE id = 12", [["report", "-o", "json"]]),
    ("workloads.namespace = NULL", "UPDATE workloads SET namespace = NULL WHERE id = 1",
     [["report"], ["run", "--for", "1m"]]),
    ("workloads.name = NULL", "UPDATE workloads SET name = NULL WHERE id = 5",
     [["cancel", "-n", "team-b", "late"]]),
    ("pod set count 2000000000 (admitted, no pods yet)",
     "UPDATE workloads SET state = 'admitted', "
     "podsets = replace(podsets, '\"count\":1', '\"count\":2000000000'), "
     "admission = replace(admission, '\"count\":1', '\"count\":2000000000') WHERE id = 1; "
     "DELETE FROM sim_pods WHERE workload_id = 1",
     [["run", "--for", "1m", "-q"]]),
    ("cluster_queues.uid = NULL", "UPDATE cluster_queues SET uid = NULL",
     [["apply", "-f", os.path.join(EXAMPLES, "manifests", "queues.yaml")]]),
]


def run(exe, db, *args):
    return subprocess.run([exe, "--db", db, *args], capture_output=True, text=True,
                          errors="replace", timeout=120, env=dict(os.environ, NO_COLOR="1"))


def populate(exe, db):
    steps = [
        ["apply", "-f", os.path.join(EXAMPLES, "gke-dws", "dws-queues.yaml")],
        ["apply", "-f", os.path.join(EXAMPLES, "manifests", "queues.yaml")],
        ["apply", "-f", os.path.join(EXAMPLES, "manifests", "sim-pools.yaml")],
        ["submit", "-f", os.path.join(EXAMPLES, "manifests", "jobs.yaml")],
        ["submit", "-f", os.path.join(EXAMPLES, "gke-dws", "job.yaml")],
        ["schedule"],
        ["submit", "--queue", "gpu-queue", "-n", "team-a", "--gpus", "1", "--duration", "3m"],
        ["run", "--for", "10m", "-q"],
        ["submit", "--queue", "gpu-queue", "-n", "team-b", "--gpus", "2", "--name", "late"],
    ]
    for s in steps:
        if s[0] == "run":
            # The jobs with no gpuq.dev/duration run past the run, as the file's
            # description above needs (a live pod): gpuq run's 5m default
            # would finish them (before that default worked, they ran forever).
            con = sqlite3.connect(db)
            con.execute("UPDATE workloads SET duration_ms = 86400000 WHERE duration_ms IS NULL")
            con.commit()
            con.close()
        r = run(exe, db, *s)
        if r.returncode != 0:
            raise SystemExit(f"setup: gpuq {' '.join(s)}: {r.stderr}")
    con = sqlite3.connect(db)  # everything into the file: the copies carry no WAL
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()


def leaf_cells(data):
    """Offsets of the cells of table b-tree leaf pages (page type 13)."""
    cells = []
    for base in range(PAGE, len(data), PAGE):
        if data[base] != 13:
            continue
        n = int.from_bytes(data[base + 3:base + 5], "big")
        for i in range(n):
            off = int.from_bytes(data[base + 8 + 2 * i:base + 10 + 2 * i], "big")
            if 0 < off < PAGE:
                cells.append(base + off)
    return cells


def byte_damages(data, n):
    """n (position, new byte) pairs, spread as the module docstring says."""
    rnd = random.Random(SEED)
    cells = leaf_cells(data)
    js = [i for i in range(len(data) - 1) if data[i:i + 2] == b'{"']
    out = []
    for k in range(n):
        if k % 3 == 0 and cells:
            pos = min(rnd.choice(cells) + rnd.randrange(14), len(data) - 1)
            val = rnd.choice([0, 1, 7, 0x0d, 0x11, rnd.randrange(256)])
        elif k % 3 == 1 and js:
            pos = min(rnd.choice(js) + rnd.randrange(60), len(data) - 1)
            val = rnd.choice([0, ord('"'), ord('}'), ord(','), rnd.randrange(256)])
        else:
            pos = rnd.randrange(len(data))
            val = data[pos] ^ 0xff
        if val == data[pos]:
            val ^= 0x55
        out.append((pos, val))
    return out


def value_damages(db, n):
    """n (table, column, SQL value) triples over the tables that have rows."""
    rnd = random.Random(SEED)
    con = sqlite3.connect(db)
    cols = []
    for (t,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'table' "
                            "AND name NOT LIKE 'sqlite_%' ORDER BY name"):
        if con.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0]:
            cols += [(t, c, ty) for _, c, ty, _, _, pk in con.execute(f'PRAGMA table_info("{t}")')
                     if not pk]  # keys: a changed key is another row, not a damaged one
    con.close()
    out = []
    for _ in range(n):
        t, c, ty = rnd.choice(cols)
        vals = ["NULL", "'x'" if ty.upper().startswith("INT") else "7", "'{\"a\":'"]
        out.append((t, c, rnd.choice(vals)))
    return out


def put_value(db, table, column, value):
    put_sql(db, f'UPDATE "{table}" SET "{column}" = {value} '
                f'WHERE rowid = (SELECT min(rowid) FROM "{table}")'
                if table not in ("quotas", "usage", "workload_checks") else
                f'UPDATE "{table}" SET "{column}" = {value}')


def put_sql(db, sql):
    """Run sql on db with NOT NULL, STRICT and the triggers out of its way."""
    con = sqlite3.connect(db)
    con.execute("PRAGMA writable_schema = ON")
    con.execute("UPDATE sqlite_master SET sql = replace(replace(sql, 'NOT NULL', ''), "
                "') STRICT', ')') WHERE type = 'table'")
    con.commit()
    con.close()
    con = sqlite3.connect(db)
    con.execute("PRAGMA ignore_check_constraints = ON")
    triggers = con.execute("SELECT name, sql FROM sqlite_master WHERE type = 'trigger'").fetchall()
    for name, _ in triggers:  # e.g. events are append-only: put back after the change
        con.execute(f'DROP TRIGGER "{name}"')
    con.executescript(sql)
    for _, trigger in triggers:
        con.execute(trigger)
    con.commit()
    con.close()


def verdict(r, what):
    """None when the command behaved, else why not."""
    lines = r.stderr.strip().splitlines()
    if "Sanitizer" in r.stderr or "runtime error" in r.stderr:
        return f"{what}: sanitizer report: {lines[:3]}"
    if r.returncode < 0:
        return f"{what}: killed by signal {-r.returncode}"
    if r.returncode == 1 and len(lines) == 1 and "out of memory" in lines[0]:
        return f"{what}: a damaged file reported as {lines[0]!r}"
    if r.returncode == 0 or (r.returncode == 1 and len(lines) == 1):
        return None
    return f"{what}: exit {r.returncode}, stderr {lines[:4]}"


def damaged(r, what, db):
    """None when the command said the file is damaged, else what it did."""
    v = verdict(r, what)
    if v:
        return v
    line = r.stderr.strip()
    if r.returncode != 1 or f"database {db} is damaged" not in line or "gpuqd --check" not in line:
        return f"{what}: exit {r.returncode}, stderr {line[:200]!r}, not the damaged-file error"
    return None


def try_targeted(job):
    exe, path, what, cmds = job
    faults = []
    for args in cmds:
        try:
            r = run(exe, path, *args)
        except subprocess.TimeoutExpired:
            faults.append(f"{what}: {' '.join(args)}: no answer in 120 s")
            continue
        v = damaged(r, f"{what}: {' '.join(args)}", path)
        if v:
            faults.append(v)
    shutil.rmtree(os.path.dirname(path), ignore_errors=True)
    return faults


def commands(k, per):
    """The k-th copy's share: `per` commands, rotating through all of them."""
    every = READS + WRITES + [CHECK]
    return [every[(k * per + i) % len(every)] for i in range(per)]


def try_copy(job):
    exe, daemon, path, what, cmds = job
    faults = []
    for args in cmds:
        try:
            if args is CHECK:
                r = subprocess.run([daemon, "--db", path, "--check"], capture_output=True,
                                   text=True, errors="replace", timeout=120)
            else:
                r = run(exe, path, *args)
        except subprocess.TimeoutExpired:
            faults.append(f"{what}: {' '.join(args)}: no answer in 120 s")
            continue
        v = verdict(r, f"{what}: {' '.join(args)}")
        if v:
            faults.append(v)
        if not os.path.exists(path):
            faults.append(f"{what}: {' '.join(args)}: the database file is gone")
    shutil.rmtree(os.path.dirname(path), ignore_errors=True)
    return faults


def main():
    exe = binary()
    daemon = os.path.join(os.path.dirname(os.path.dirname(exe)), "daemon", "gpuqd")
    c = Checks()
    with scratch() as tmp:
        src = os.path.join(tmp, "src.db")
        populate(exe, src)
        with open(src, "rb") as f:
            data = f.read()
        jobs = []
        for k, (pos, val) in enumerate(byte_damages(data, 50)):
            d = os.path.join(tmp, f"b{k}")
            os.mkdir(d)
            copy = bytearray(data)
            copy[pos] = val
            with open(os.path.join(d, "x.db"), "wb") as f:
                f.write(copy)
            jobs.append((exe, daemon, os.path.join(d, "x.db"),
                         f"byte {pos} = {val:#04x}", commands(k, 5)))
        for k, (t, col, val) in enumerate(value_damages(src, 16)):
            d = os.path.join(tmp, f"v{k}")
            os.mkdir(d)
            shutil.copy(src, os.path.join(d, "x.db"))
            put_value(os.path.join(d, "x.db"), t, col, val)
            jobs.append((exe, daemon, os.path.join(d, "x.db"), f"{t}.{col} = {val}",
                         commands(k + 50, 6)))
        targeted = []
        for k, (what, sql, cmds) in enumerate(TARGETED):
            d = os.path.join(tmp, f"t{k}")
            os.mkdir(d)
            shutil.copy(src, os.path.join(d, "x.db"))
            put_sql(os.path.join(d, "x.db"), sql)
            targeted.append((exe, os.path.join(d, "x.db"), what, cmds))
        with ThreadPoolExecutor(2) as pool:
            for faults in pool.map(try_targeted, targeted):
                c.check(not faults, "; ".join(faults))
            for faults in pool.map(try_copy, jobs):
                c.check(not faults, "; ".join(faults))
    return c.done()


if __name__ == "__main__":
    sys.exit(main())
