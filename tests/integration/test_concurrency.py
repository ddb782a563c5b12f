#!/usr/bin/env python3
"""Issue 2, acceptance check 5: 8 concurrent writers x 200 `gpuq submit` each
against one database: all 1,600 jobs present, every submit exits 0, and no
"database is locked" reaches the user."""
import os
import subprocess

from common import QUEUES, Checks, binary, gpuq, scratch

WRITERS, JOBS = 8, 200

def main():
    c, exe = Checks(), binary()
    with scratch() as tmp:
        db = os.path.join(tmp, "gpuq.db")
        c.check(gpuq(exe, db, "apply", "-f", "-", stdin=QUEUES).returncode == 0, "apply queues")
        script = ('i=0; fail=0; while [ $i -lt %d ]; do '
                  '"$GPUQ" --db "$DB" submit --queue q --name "w$W-$i" --gpus 1 >/dev/null '
                  '|| fail=$((fail+1)); i=$((i+1)); done; exit $fail') % JOBS
        procs = []
        for w in range(WRITERS):
            env = dict(os.environ, GPUQ=exe, DB=db, W=str(w))
            procs.append(subprocess.Popen(["sh", "-c", script], env=env,
                                          stderr=subprocess.PIPE, text=True))
        for w, p in enumerate(procs):
            _, err = p.communicate(timeout=600)
            c.check(p.returncode == 0, f"writer {w}: {p.returncode} failed submits")
            c.check("locked" not in err and "busy" not in err, f"writer {w} stderr: {err!r}")
        p = gpuq(exe, db, "list", "-A", "-o", "name")
        names = p.stdout.split()
        c.check(len(names) == WRITERS * JOBS, f"{len(names)} workloads listed, want "
                f"{WRITERS * JOBS}")
        c.check(len(set(names)) == len(names), "workload names are unique")
        p = gpuq(exe, db, "list", "localqueues", "--no-headers")
        c.check(p.stdout.split()[2:3] == [str(WRITERS * JOBS)], f"pending count: {p.stdout!r}")
    return c.done()


if __name__ == "__main__":
    raise SystemExit(main())
