"""The admission benchmark (bench.py's "admission" group): 1,000 ClusterQueues
in 100 cohorts and 100,000 pending workloads (gen_admission.py), scheduled
until stable by `gpuq schedule --until-stable`, every cycle committed.

Method. The manifests are generated once (fixed seed). Each run loads them
(with the previous binary when there is one, so that both can open the load;
this build first upgrades a copy's schema, untimed)
into a new database with `gpuq apply` and `gpuq submit -f` (untimed; a new
load per run because workload UIDs are random and preemption breaks ties by
UID, so loads differ by some cycles), and every timed command works on a
fresh copy of that database (the main file plus any -wal). Two places for
the copy: a directory in the build tree on the normal disk ("on disk": each
cycle's commit is synced to the device) and /dev/shm, a tmpfs ("in memory":
the same SQLite file and the same commits, but no device behind them;
`--db :memory:` cannot be pre-loaded). Per run and placement:

  decide all     wall time of `gpuq schedule --until-stable -q [--stats]`, from
                 fork to exit, so it includes opening the database and building
                 the snapshot; the issue's "all decided in under 2 s"
  admissions/s   admissions in its summary line (re-admissions after a
                 preemption count again) divided by that wall time
  peak memory    the process's peak resident set (VmHWM, printed by --stats as
                 peak-rss-kib; wait4's ru_maxrss is the fallback, but it keeps the
                 high-water mark of the forked Python parent, 140 MB here)
  first adm.     wall time of `gpuq schedule --cycles 1 -q` on another fresh copy
                 (a process that admits in its first cycle and exits)
  cycle p50/p99, time to first and last admission inside the process: from
                 the --stats line ("cycle-ms p50=X p99=Y max=Z
                 first-admission-ms=F last-admission-ms=L"), when the binary
                 has --stats; "n/a (needs --stats)" otherwise

Every figure printed is the median over the runs. A run that does not
stabilise within the time limit (180 s, 60 s with --quick, or
$GPUQ_BENCH_TIMEOUT seconds) is killed and reported with what its database
shows (admitted so far, evictions, the workloads evicted over and over): a
preemption loop never stabilises. The other runs of that placement are then
skipped, as they would most likely loop too.
"""
import os
import re
import shutil
import sqlite3
import statistics
import subprocess
import tempfile
import threading
import time

import gen_admission

FULL = {"cqs": 1000, "cohorts": 100, "jobs": 100000}
QUICK = {"cqs": 100, "cohorts": 10, "jobs": 10000}
TARGETS = {"wall": 2.0, "p99": 10.0, "rss": 100.0}  # s, ms, MB


def _gpuq(gpuq, db, *args):
    p = subprocess.run([gpuq, "--db", db, *args], capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"gpuq {' '.join(args)} failed: {p.stderr.strip()}")
    return p


def run_measured(argv, timeout):
    """Run argv; return (seconds, peak RSS in KiB, stdout, stderr, returncode),
    returncode None when it was killed after timeout seconds."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t = time.perf_counter()
        p = subprocess.Popen(argv, stdout=out, stderr=err)
        killed = []

        def kill():
            killed.append(True)
            p.kill()

        timer = threading.Timer(timeout, kill)
        timer.start()
        _, status, ru = os.wait4(p.pid, 0)
        secs = time.perf_counter() - t
        timer.cancel()
        p.returncode = os.waitstatus_to_exitcode(status)  # reaped: keep Popen quiet
        out.seek(0)
        err.seek(0)
        return (secs, ru.ru_maxrss, out.read().decode(), err.read().decode(),
                None if killed else p.returncode)


def copy_db(src, dst):
    for suffix in ("-wal", "-shm", ""):
        if os.path.exists(dst + suffix):
            os.remove(dst + suffix)
    shutil.copyfile(src, dst)
    if os.path.exists(src + "-wal") and os.path.getsize(src + "-wal"):
        shutil.copyfile(src + "-wal", dst + "-wal")


def remove_db(db):
    for suffix in ("", "-wal", "-shm", "-journal"):
        if os.path.exists(db + suffix):
            os.remove(db + suffix)


SUMMARY = re.compile(r"(\d+) cycles?: (\d+) admitted, (\d+) evicted")


def parse(stdout):
    """The summary line, and the --stats line's key=value pairs if present."""
    m = SUMMARY.search(stdout)
    if not m:
        return None
    r = {"cycles": int(m.group(1)), "admitted": int(m.group(2)), "evicted": int(m.group(3))}
    for line in stdout.splitlines():
        if "cycle-ms" in line:
            for k, v in re.findall(r"([\w-]+)=(-?[\d.]+)", line):
                r["stat:" + k] = float(v)
    return r


def diagnose(db):
    """What a killed run left in its database (gpuq's schema; best effort)."""
    try:
        c = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        states = dict(c.execute("SELECT state, count(*) FROM workloads GROUP BY state"))
        evictions = c.execute("SELECT coalesce(sum(evictions), 0) FROM workloads").fetchone()[0]
        top = c.execute("SELECT cluster_queue, local_queue, name, priority, evictions "
                        "FROM workloads WHERE evictions > 10 ORDER BY evictions DESC "
                        "LIMIT 6").fetchall()
        c.close()
    except sqlite3.Error as e:
        return [f"(database unreadable: {e})"]
    lines = [f"{states.get('admitted', 0):,} admitted, {states.get('pending', 0):,} pending, "
             f"{evictions:,} evictions so far"]
    for cq, lq, name, prio, n in top:
        lines.append(f"  evicted {n:,} times: {name} (priority {prio}, queue {cq or lq})")
    return lines


def has_stats(gpuq):
    p = subprocess.run([gpuq, "schedule", "--help"], capture_output=True, text=True)
    return "--stats" in p.stdout


def med(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def fmt(v, spec, unit="", na="n/a (needs --stats)"):
    return na if v is None else f"{v:{spec}}{unit}"


class Placement:
    """The figures of one placement of the database (on disk, in memory)."""

    def __init__(self, name, where, gpuq, stats):
        self.name, self.where, self.gpuq, self.stats = name, where, gpuq, stats
        self.runs = []        # parse() results plus wall and rss
        self.first = []       # wall of the one-cycle process, s
        self.first_stat = []  # its --stats first-admission-ms
        self.failed = []      # messages
        self.gave_up = False  # a run did not stabilise: skip the rest

    def m(self, key):
        return med([r.get(key) for r in self.runs])


def measure(template, place, run, timeout):
    """One run in one placement: until stable, then one cycle, each on a fresh copy."""
    gpuq, stats = place.gpuq, place.stats
    flags = ["-q"] + (["--stats"] if stats else [])
    db = os.path.join(place.where, "gpuq.db")
    copy_db(template, db)
    secs, rss, out, err, rc = run_measured(
        [gpuq, "--db", db, "schedule", "--until-stable", *flags], timeout)
    if rc is None:
        place.failed.append(f"run {run}: not stable after {timeout:g} s, killed "
                            f"(a preemption loop?); its database shows:")
        place.failed.extend("  " + line for line in diagnose(db))
        place.gave_up = True
    elif rc != 0 or not parse(out):
        place.failed.append(f"run {run}: exit {rc}: {err.strip() or out.strip()}")
    else:
        r = parse(out)
        hwm = r.get("stat:peak-rss-kib")
        r.update(wall=secs, rss=(hwm if hwm and hwm > 0 else rss) / 1024.0)
        place.runs.append(r)
    copy_db(template, db)
    secs, _, out, err, rc = run_measured([gpuq, "--db", db, "schedule", "--cycles", "1",
                                          *flags], timeout)
    r = parse(out) if rc == 0 else None
    if r and r["admitted"]:
        place.first.append(secs)
        place.first_stat.append(r.get("stat:first-admission-ms"))
    remove_db(db)


def report(place, runs, n):
    w = 34
    print(f"  {place.name}: {place.where}", flush=True)
    for msg in place.failed:
        print(f"    {'      ' if msg.startswith(' ') else 'FAILED'} {msg}", flush=True)
    if not place.runs:
        return
    walls = ", ".join(f"{r['wall']:.3g}" for r in place.runs)
    rows = [
        (f"decide all {n:,} (wall)", f"{place.m('wall'):.3g} s (runs: {walls})",
         f"< {TARGETS['wall']:g} s"),
        ("cycles / admitted / evicted",
         f"{place.m('cycles'):.0f} / {place.m('admitted'):.0f} / {place.m('evicted'):.0f} "
         f"(runs: " + ", ".join(f"{r['cycles']}/{r['admitted']}/{r['evicted']}"
                                for r in place.runs) + ")", ""),
        ("admissions per second",
         f"{med([r['admitted'] / r['wall'] for r in place.runs]):,.0f}", ""),
        ("cycle p50 / p99 / max",
         fmt(None, "") if place.m("stat:p50") is None else
         f"{place.m('stat:p50'):.3g} / {place.m('stat:p99'):.3g} / "
         f"{place.m('stat:max'):.3g} ms", f"p99 < {TARGETS['p99']:g} ms"),
        ("snapshot load (in process)", fmt(place.m("stat:load-ms"), ".4g", " ms"), ""),
        ("first admission (in process)", fmt(place.m("stat:first-admission-ms"), ".4g", " ms"),
         ""),
        ("first admission (1-cycle process)", fmt(med(place.first), ".3g", " s",
                                                  "n/a (nothing admitted)"), ""),
        ("last admission (in process)", fmt(place.m("stat:last-admission-ms"), ".4g", " ms"),
         ""),
        ("peak memory (max RSS)", f"{place.m('rss'):.0f} MB", f"< {TARGETS['rss']:g} MB"),
    ]
    for name, value, target in rows:
        print(f"    {name:<{w}} {value}" + (f"   (target {target})" if target else ""),
              flush=True)


def readme(places, size, runs, timeout):
    """A Markdown table for the README: one column per placement."""
    print(f"\nREADME summary (admission, {size['cqs']:,} ClusterQueues in {size['cohorts']} "
          f"cohorts, {size['jobs']:,} workloads; median of {runs} runs):\n")
    print("| | " + " | ".join(p.name for p in places) + " | target |")
    print("|---|" + "---|" * len(places) + "---|")

    def row(name, cell, target=""):
        cells = []
        for p in places:
            if not p.runs:
                cells.append(f"not stable in {timeout:g} s" if name.startswith("all") else "")
                continue
            try:
                cells.append(cell(p))
            except TypeError:  # a --stats figure this binary does not print
                cells.append("n/a (needs --stats)")
        print(f"| {name} | " + " | ".join(cells) + f" | {target} |")

    row("all decided (wall)", lambda p: f"{p.m('wall'):.2f} s", f"< {TARGETS['wall']:g} s")
    row("admissions/s", lambda p: f"{med([r['admitted'] / r['wall'] for r in p.runs]):,.0f}")
    row("cycles / admitted / evicted", lambda p: f"{p.m('cycles'):.0f} / "
        f"{p.m('admitted'):,.0f} / {p.m('evicted'):,.0f}")
    row("cycle p50 / p99", lambda p: f"{p.m('stat:p50'):.2f} / {p.m('stat:p99'):.1f} ms",
        f"p99 < {TARGETS['p99']:g} ms")
    row("first / last admission", lambda p: f"{p.m('stat:first-admission-ms'):.0f} / "
        f"{p.m('stat:last-admission-ms'):.0f} ms")
    row("peak memory", lambda p: f"{p.m('rss'):.0f} MB", f"< {TARGETS['rss']:g} MB")
    print()


def source_version():
    top = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    try:
        p = subprocess.run(["git", "-C", top, "describe", "--always", "--dirty"],
                           capture_output=True, text=True, timeout=10)
        return p.stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def bench_admission(gpuq, build, quick, runs, baseline=None):
    """baseline: a previous gpuq binary, timed beside gpuq on the same loads, in the same
    run (the machine's speed drifts within a day); it loads the databases, so that both
    binaries start from the same rows (a newer gpuq brings the schema up to date on open)."""
    size = QUICK if quick else FULL
    timeout = float(os.environ.get("GPUQ_BENCH_TIMEOUT") or (60 if quick else 180))
    stats = has_stats(gpuq)
    binaries = [("", gpuq, stats)]
    if baseline:
        binaries = [(", this build", gpuq, stats),
                    (", previous", os.path.abspath(baseline), has_stats(baseline))]
    t0 = time.perf_counter()
    print(f"admission: {size['cqs']:,} ClusterQueues in {size['cohorts']} cohorts, "
          f"{size['jobs']:,} pending workloads, `gpuq schedule --until-stable`, "
          f"{runs} runs each, medians; source {source_version()}"
          + (f"; previous binary {baseline} timed beside it" if baseline else "")
          + ("" if stats else "; this gpuq has no --stats: per-cycle figures n/a"), flush=True)
    places = []
    with tempfile.TemporaryDirectory(prefix="gpuq-bench-admission-", dir=build) as disk:
        queues, jobs = gen_admission.generate(os.path.join(disk, "manifests"), **size)
        print(f"  manifests (not timed): {time.perf_counter() - t0:.1f} s, "
              f"{os.path.getsize(jobs) >> 20} MiB of Jobs", flush=True)
        shm = None
        if os.path.isdir("/dev/shm"):
            shm = tempfile.mkdtemp(prefix="gpuq-bench-admission-", dir="/dev/shm")
        else:
            print("  in memory: skipped, no /dev/shm", flush=True)
        for i, (label, exe, has) in enumerate(binaries):
            where = os.path.join(disk, f"run{i}")
            os.makedirs(where)
            places.append(Placement("on disk" + label, where, exe, has))
        for i, (label, exe, has) in enumerate(binaries):
            if shm:
                os.makedirs(os.path.join(shm, f"run{i}"))
                places.append(Placement("in memory (tmpfs)" + label, os.path.join(shm, f"run{i}"),
                                        exe, has))
        loader = binaries[-1][1]
        template = os.path.join(disk, "template.db")
        try:
            for run in range(1, runs + 1):
                # A new load per run: workload UIDs are random and Kueue's rules
                # break ties between preemption candidates by UID, so each load
                # takes its own path (a few hundred cycles more or less); both
                # placements run the same load.
                remove_db(template)
                t = time.perf_counter()
                _gpuq(loader, template, "apply", "-f", queues)
                _gpuq(loader, template, "submit", "-f", jobs)
                print(f"  run {run}: load (not timed) {time.perf_counter() - t:.1f} s, database "
                      f"{os.path.getsize(template) >> 20} MiB", flush=True)
                # The loader is the oldest binary, so that every binary can open
                # the load; a newer one upgrades its schema on a copy first (not
                # timed: a once-per-database cost, 2 s for issue 14's migration 13).
                templates = {loader: template}
                for _, exe, _ in binaries:
                    if exe not in templates:
                        templates[exe] = template + f".{len(templates)}"
                        copy_db(template, templates[exe])
                        _gpuq(exe, templates[exe], "list", "clusterqueues", "-o", "name")
                for place in places:
                    if not place.gave_up:
                        measure(templates[place.gpuq], place, run, timeout)
                for path in templates.values():
                    if path != template:
                        remove_db(path)
            for place in places:
                report(place, runs, size["jobs"])
        finally:
            if shm:
                shutil.rmtree(shm, ignore_errors=True)
    readme(places, size, runs, timeout)
    print(f"  admission benchmark took {time.perf_counter() - t0:.0f} s in all", flush=True)


JOBSETS = {"cqs": 100, "cohorts": 10, "jobs": 10000}
JOBSETS_RATIO = 1.5


def bench_jobsets(gpuq, build, runs):
    """Issue 15, acceptance 7: 10,000 JobSets of two pod sets each (gen_admission.py
    --jobsets: the same jobs, each with a one-pod leader beside its workers) decided by
    `gpuq schedule --until-stable` against the same 10,000 as Jobs, 100 ClusterQueues in 10
    cohorts, on disk; runs alternate between the two loads (the machine's speed drifts),
    medians. Target: the JobSets within 1.5x the Jobs' time."""
    print(f"jobsets: {JOBSETS['jobs']:,} JobSets (2 pod sets) beside {JOBSETS['jobs']:,} Jobs, "
          f"{JOBSETS['cqs']} ClusterQueues, `gpuq schedule --until-stable`, {runs} runs each, "
          f"medians; source {source_version()}", flush=True)
    walls = {"jobs": [], "jobsets": []}
    with tempfile.TemporaryDirectory(prefix="gpuq-bench-jobsets-", dir=build) as d:
        templates = {}
        for kind in walls:
            queues, path = gen_admission.generate(os.path.join(d, "manifests"),
                                                  jobsets=kind == "jobsets", **JOBSETS)
            templates[kind] = os.path.join(d, f"{kind}.db")
            _gpuq(gpuq, templates[kind], "apply", "-f", queues)
            _gpuq(gpuq, templates[kind], "submit", "-f", path)
        db = os.path.join(d, "run.db")
        for _ in range(runs):
            for kind in walls:
                copy_db(templates[kind], db)
                secs, _, out, err, rc = run_measured(
                    [gpuq, "--db", db, "schedule", "--until-stable", "-q"], 180)
                if rc != 0:
                    raise SystemExit(f"jobsets: {kind}: exit {rc}: {err.strip()}")
                walls[kind].append(secs)
                remove_db(db)
    jobs, sets = med(walls["jobs"]), med(walls["jobsets"])
    for kind in walls:
        print(f"  {kind:<8} {med(walls[kind]):.3g} s (runs: "
              + ", ".join(f"{w:.3g}" for w in walls[kind]) + ")", flush=True)
    print(f"  JobSets / Jobs: {sets / jobs:.2f}   (target < {JOBSETS_RATIO:g})", flush=True)
