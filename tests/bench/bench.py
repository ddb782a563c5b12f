#!/usr/bin/env python3
"""gpuq's speed targets (issue 2), measured as medians of several runs on the
release build, each on a fresh database file with synchronous=FULL:

  submit loop   `gpuq submit --queue ...` once per job from a shell loop (sh, and bash);
                target >= 1,000 jobs/s; beside it, the same loop's floor: /bin/true,
                a program that only writes 4 KiB and fdatasyncs, and one that only
                does gpuq's store work for one insert (floor.c, linked as gpuq is)
  submit -f     one file holding 100,000 Jobs; target < 2 s
  list -A       100,000 workloads as a table to /dev/null; target < 300 ms
  list -A (1)   one workload; target < 5 ms
  cancel        one job; target < 5 ms

Per-command times for the last three are a shell loop of K invocations
divided by K, so they include the shell's fork and exec (about 0.6 ms here):
what a user's loop would see.

  admission     1,000 ClusterQueues in 100 cohorts, 100,000 pending workloads,
                `gpuq schedule --until-stable` with every cycle committed, on disk
                and on tmpfs: all decided < 2 s, a cycle's p99 < 10 ms, peak
                memory < 100 MB (method: bench_admission.py)
  jobsets       10,000 JobSets of two pod sets beside the same 10,000 as Jobs (100
                ClusterQueues): decided within 1.5x the Jobs' time (issue 15)
  cluster       gpuqd against the test API server: first admission with 10,000
                Jobs < 3 s, Provisioned=True to unsuspend p99 < 50 ms, <= 4 writes
                per admitted Job, < 200 MB (method: bench_cluster.py)
  multikueue    a manager gpuqd dispatching 1,000 Jobs to two workers, each a test API
                server: < 10 s, at most 3 writes per worker per Job (issue 17; method:
                bench_multikueue.py)

Usage: bench.py BUILD_DIR [--quick]
                [--only core|admission|jobsets|cluster|multikueue|simulate]
                [--baseline GPUQ]
--quick: smaller sizes (admission: 100 ClusterQueues, 10,000 workloads;
cluster: 2,000 Jobs) and fewer runs. --only: just one group.
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
from common import JOB, QUEUES  # noqa: E402  (shared with the integration tests)
import bench_admission  # noqa: E402
import bench_cluster  # noqa: E402
import bench_multikueue  # noqa: E402
import bench_simulate  # noqa: E402

BUILD = sys.argv[1]
QUICK = "--quick" in sys.argv
ONLY = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv[:-1] else None
# --baseline PATH: a previous gpuq binary timed beside this build (admission group).
BASELINE = (sys.argv[sys.argv.index("--baseline") + 1] if "--baseline" in sys.argv[:-1]
            else None)
if ONLY not in (None, "core", "admission", "jobsets", "cluster", "multikueue", "simulate"):
    raise SystemExit(f"--only takes core, admission, jobsets, cluster, multikueue or simulate, "
                     f"not {ONLY}")
GPUQ = os.path.abspath(os.path.join(BUILD, "cli", "gpuq"))
RUNS = 3 if QUICK else 5
ADMISSION_RUNS = 2 if QUICK else 3  # a full-size run is seconds, two placements




def fresh_db(tmp, name):
    db = os.path.join(tmp, name)
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(db + suffix):
            os.remove(db + suffix)
    run(db, "apply", "-f", "-", stdin=QUEUES)
    return db


def run(db, *args, stdin=None):
    p = subprocess.run([GPUQ, "--db", db, *args], input=stdin, capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"gpuq {' '.join(args)} failed: {p.stderr}")
    return p


def timed_shell(script, env):
    t = time.perf_counter()
    subprocess.run(["sh", "-c", script], env=env, check=True)
    return time.perf_counter() - t


def median_report(name, values, unit, target):
    m = statistics.median(values)
    runs = ", ".join(f"{v:.4g}" for v in values)
    goal = f"; target {target}" if target else ""
    print(f"{name:<34} median {m:.4g} {unit:<8} (runs: {runs}{goal})", flush=True)
    return m


def bench_submit_loop(tmp, shell, n):
    rates = []
    for r in range(RUNS):
        db = fresh_db(tmp, f"loop-{shell}.db")
        env = dict(os.environ, GPUQ=GPUQ, DB=db)
        script = (f'i=0; while [ $i -lt {n} ]; do "$GPUQ" --db "$DB" submit --queue q '
                  f'--name "j$i" --gpus 1 >/dev/null; i=$((i+1)); done')
        t = time.perf_counter()
        subprocess.run([shell, "-c", script], env=env, check=True)
        rates.append(n / (time.perf_counter() - t))
    median_report(f"submit loop ({shell}, {n} jobs)", rates, "jobs/s", ">= 1000")


def bench_floor(tmp, n):
    """The same loop around programs that do less than gpuq (tests/bench/floor.c)."""
    floor = os.path.join(BUILD, "tests", "bench", "floor")
    true = shutil.which("true") or "/bin/true"
    cases = [("/bin/true", f'"{true}"', None),
             ("write 4 KiB + fdatasync", f'"{floor}" fsync "$DB.floor"', None),
             ("one SQLite insert", f'"{floor}" sqlite "$DB"', True)]
    for name, cmd, needs_db in cases:
        rates = []
        for r in range(RUNS):
            db = fresh_db(tmp, "floor.db") if needs_db else os.path.join(tmp, "floor.db")
            env = dict(os.environ, DB=db)
            script = f'i=0; while [ $i -lt {n} ]; do {cmd} >/dev/null; i=$((i+1)); done'
            rates.append(n / timed_shell(script, env))
        median_report(f"  floor: {name}", rates, "runs/s", None)


def bench_submit_file(tmp, n):
    path = os.path.join(tmp, "jobs.yaml")
    with open(path, "w") as f:
        for i in range(n):
            f.write(JOB.format(i=i))
    times = []
    for r in range(RUNS):
        db = fresh_db(tmp, "file.db")
        t = time.perf_counter()
        subprocess.run([GPUQ, "--db", db, "submit", "-f", path], stdout=subprocess.DEVNULL,
                       check=True)
        times.append(time.perf_counter() - t)
    median_report(f"submit -f ({n} jobs, {os.path.getsize(path) >> 20} MiB)", times, "s",
                  "< 2 s")
    return db


def bench_per_command(db, args, k, name, target):
    env = dict(os.environ, GPUQ=GPUQ, DB=db)
    per = []
    for r in range(RUNS):
        script = (f'i=0; while [ $i -lt {k} ]; do "$GPUQ" --db "$DB" {args} >/dev/null; '
                  f'i=$((i+1)); done')
        per.append(timed_shell(script, env) * 1000 / k)
    median_report(name, per, "ms", target)


def bench_cancel(tmp, k):
    per = []
    for r in range(RUNS):
        db = fresh_db(tmp, "cancel.db")
        env = dict(os.environ, GPUQ=GPUQ, DB=db)
        subprocess.run(["sh", "-c", f'i=0; while [ $i -lt {k} ]; do "$GPUQ" --db "$DB" submit '
                        f'--queue q --name "c$i" >/dev/null; i=$((i+1)); done'], env=env,
                       check=True)
        script = (f'i=0; while [ $i -lt {k} ]; do "$GPUQ" --db "$DB" cancel "c$i" >/dev/null; '
                  f'i=$((i+1)); done')
        per.append(timed_shell(script, env) * 1000 / k)
    median_report("cancel (one job)", per, "ms", "< 5 ms")


def main():
    if ONLY in (None, "core"):
        core()
    if ONLY in (None, "admission"):
        bench_admission.bench_admission(GPUQ, os.path.abspath(BUILD), QUICK, ADMISSION_RUNS,
                                        BASELINE)
    if ONLY in (None, "jobsets"):
        bench_admission.bench_jobsets(GPUQ, os.path.abspath(BUILD), 3 if QUICK else 5)
    if ONLY in (None, "cluster"):
        bench_cluster.bench_cluster(GPUQ, QUICK, 1 if QUICK else 3)
    if ONLY in (None, "multikueue"):
        bench_multikueue.bench_multikueue(GPUQ, QUICK, 1 if QUICK else 3)
    if ONLY in (None, "simulate"):
        bench_simulate.bench_simulate(GPUQ, QUICK, 3 if QUICK else 5)


def core():
    print(f"gpuq benchmarks: {GPUQ}, {RUNS} runs each, medians", flush=True)
    with tempfile.TemporaryDirectory(prefix="gpuq-bench-", dir=os.environ.get("TMPDIR")) as tmp:
        n = 1000 if QUICK else 2000
        bench_submit_loop(tmp, "sh", n)
        if shutil.which("bash"):
            bench_submit_loop(tmp, "bash", n)
        bench_floor(tmp, n)
        db = bench_submit_file(tmp, 20000 if QUICK else 100000)
        bench_per_command(db, "list -A", 3, "list -A (100,000 workloads)"
                          if not QUICK else "list -A (20,000 workloads)", "< 300 ms")
        one = fresh_db(tmp, "one.db")
        run(one, "submit", "--queue", "q", "--name", "only", "--gpus", "1")
        bench_per_command(one, "list -A", 200, "list -A (1 workload)", "< 5 ms")
        bench_cancel(tmp, 200)
    table = os.path.join(BUILD, "tests", "bench", "table_bench")
    if os.path.exists(table):
        subprocess.run([table], check=False)


if __name__ == "__main__":
    main()
