"""Issue 12, acceptance check 6: in cluster mode, `gpuq report` on gpuqd's
database and gpuqd's /report.json give the same waits as the events show.

A real gpuqd runs against the test API server with two ClusterQueues: "now"
(no admission check, room for two 1-GPU Jobs, so a third waits for quota)
and GKE's dws-cluster-queue (a ProvisioningRequest check, which the test
answers Provisioned=True at moments of its choosing). Labelled Jobs are
created at different moments, two of the "now" ones finish to free quota,
one DWS Job's unsuspend patch is applied but answered 500 (a lost response:
gpuqd's watch sees the Job run before its outbox knows), and the test waits
(polling, generous deadlines) until every Job is unsuspended and gpuqd's
database is quiet. Then:

1. From gpuqd's events table alone (read-only SQLite; kind='Workload': the
   Submitted event, the QuotaReserved event and the first events whose
   to_state is 'admitted' and 'running', per uid) the test computes each
   Job's wait to admission, to running, for quota and for capacity
   (QuotaReserved to admitted), and
   p50/p90/p99/mean/max as numpy's default (linear interpolation between
   closest ranks) would, per wait and per ClusterQueue/LocalQueue/Namespace.
2. `gpuq --db <db> report -o json` must give these figures. The JSON prints
   seconds with "%.3f" and the trailing zeros dropped (gq__report_secs), so
   each figure is compared as the same double formatted the same way: exact
   for whole milliseconds (every p50 of an odd count, max), and for a mean or
   an interpolated percentile the nearest millisecond of the exact value
   (checked too: |JSON - exact| <= 0.5 ms). The workloads table's times, which
   the report reads (lib/store/store_report.c), are checked against the events they
   should equal, so a mismatch names the column.
3. gpuqd's GET /report.json must give the same waits as the CLI's default
   window, and be byte-identical to `gpuq report` when both are given the same
   ?since=&until= (RFC 3339, whole seconds around every record).
Nothing depends on speed: the figures are whatever the events say."""
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import Checks, binary  # noqa: E402
import cluster  # noqa: E402
from cluster import Daemon, FakeAPI, wait_for  # noqa: E402

# A ClusterQueue without admission checks: quota is all a Job waits for.
NOW_QUEUE = """apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: now-cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu, memory, nvidia.com/gpu]
    flavors:
    - name: default-flavor
      resources:
      - {name: cpu, nominalQuota: 100}
      - {name: memory, nominalQuota: 100Gi}
      - {name: nvidia.com/gpu, nominalQuota: 2}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {namespace: default, name: now-q}
spec: {clusterQueue: now-cq}
"""

WAITS = ("admission", "running", "quota", "capacity")
QUEUE_OF = {"now-q": "now-cq", "dws-local-queue": "dws-cluster-queue"}


# ------------------------------------------------------------------ figures

def percentile(s, p):
    """numpy.percentile(s, p) with its default method 'linear' (h = (n-1)p/100), computed
    in doubles in the same order as lib/core/stats.c so that the same samples give the same
    double."""
    n = len(s)
    if n == 0:
        return 0.0
    if p <= 0:
        return float(s[0])
    if p >= 100:
        return float(s[-1])
    h = (n - 1) * p / 100.0
    lo = int(h)
    frac = h - lo
    if lo + 1 >= n:
        return float(s[-1])
    return float(s[lo]) + frac * float(s[lo + 1] - s[lo])


def summary(samples):
    s = sorted(samples)
    total = 0.0
    for v in s:
        total += float(v)
    return {"n": len(s), "p50": percentile(s, 50), "mean": total / len(s) if s else 0.0,
            "p90": percentile(s, 90), "p99": percentile(s, 99),
            "max": float(s[-1]) if s else 0.0}


def secs_text(ms):
    """gq__report_secs: "%.3f" of ms / 1000, trailing zeros and dot dropped."""
    t = "%.3f" % (ms / 1000.0)
    if "." in t:
        t = t.rstrip("0").rstrip(".")
    return "0" if t == "-0" else t


def rfc3339(ms):
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ms // 1000))


# ----------------------------------------------------------------- database

def ro(db):
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)
    con.execute("PRAGMA busy_timeout = 30000")
    return con


def query(db, sql, *args):
    for attempt in range(50):  # a writer's checkpoint may briefly refuse a reader
        try:
            con = ro(db)
            try:
                return con.execute(sql, args).fetchall()
            finally:
                con.close()
        except sqlite3.OperationalError:
            if attempt == 49:
                raise
            time.sleep(0.1)


def workloads(db):
    if not os.path.exists(db):
        return []
    try:
        return query(db, "SELECT name, state, started_at, finished_at FROM workloads")
    except sqlite3.OperationalError:
        return []  # not created yet


def from_events(db):
    """Per uid, from the events table alone: job name, submit, quota reserved, admitted,
    running (the first event whose to_state is 'running')."""
    rows = query(db, "SELECT id, at, name, uid, reason, from_state, to_state FROM events "
                     "WHERE kind = 'Workload' ORDER BY id")
    jobs = {}
    for _id, at, name, uid, reason, _frm, to in rows:
        if not uid:
            continue
        j = jobs.setdefault(uid, {"name": name, "submitted": None, "reserved": None,
                                  "admitted": None, "running": None, "evicted": False,
                                  "reasons": []})
        j["reasons"].append(reason)
        if reason == "Submitted" and j["submitted"] is None:
            j["submitted"] = at
        if reason == "QuotaReserved" and j["reserved"] is None:
            j["reserved"] = at
        if to == "admitted" and j["admitted"] is None:
            j["admitted"] = at
        if to == "running" and j["running"] is None:
            j["running"] = at
        if to == "pending" and reason != "Submitted":
            j["evicted"] = True
    return jobs


def job_name(workload):
    m = re.fullmatch(r"job-(.+)-[0-9a-f]{5}", workload)
    return m.group(1) if m else workload


def expected(jobs, queue_of_job):
    """The figures the report should print, in ms, from the events."""
    waits = {w: [] for w in WAITS}
    waiting = {w: 0 for w in WAITS}
    groups = {}
    for j in jobs.values():
        sub, res, adm, run = j["submitted"], j["reserved"], j["admitted"], j["running"]
        for w, frm, to in (("admission", sub, adm), ("running", sub, run), ("quota", sub, res)):
            if to is None:
                waiting[w] += 1
            else:
                waits[w].append(max(to - frm, 0))
        if res is not None:
            if adm is None:
                waiting["capacity"] += 1
            else:
                waits["capacity"].append(max(adm - res, 0))
        lq = queue_of_job[job_name(j["name"])]
        for kind, name in (("ClusterQueue", QUEUE_OF[lq]), ("LocalQueue", f"default/{lq}"),
                           ("Namespace", "default")):
            g = groups.setdefault((kind, name), [0, []])
            g[0] += 1
            if adm is not None:
                g[1].append(adm - sub)
    return ({w: summary(waits[w]) for w in WAITS}, waiting,
            {k: (v[0], summary(v[1])) for k, v in groups.items()})


# ------------------------------------------------------------------ reports

def report(gpuq, db, *args):
    r = subprocess.run([gpuq, "--db", db, "report", *args, "-o", "json"], capture_output=True,
                       text=True, timeout=120, env=dict(os.environ, NO_COLOR="1"))
    return r


def check_summary(c, where, got, want):
    """got: the JSON's summary (seconds as parsed numbers); want: ms figures."""
    bad = []
    for k in ("p50", "mean", "p90", "p99", "max"):
        text = secs_text(want[k])
        v = got.get(k)
        if not isinstance(v, (int, float)) or v != float(text) or \
                abs(v * 1000.0 - want[k]) > 0.5 + 1e-6:
            bad.append(f"{k} {v} s, events give {want[k]:.3f} ms ({text} s)")
    c.check(not bad, f"{where}: " + "; ".join(bad))


def check_report(c, where, doc, want, waiting, groups, njobs):
    by = {w["wait"]: w for w in doc.get("waits", [])}
    c.check(doc.get("jobs", {}).get("submitted") == njobs and
            doc.get("jobs", {}).get("admitted") == njobs,
            f"{where}: jobs {doc.get('jobs')}, want {njobs} submitted and admitted")
    for w in WAITS:
        got = by.get(w)
        if not c.check(got is not None, f"{where}: no '{w}' wait in {list(by)}"):
            continue
        c.check(got["n"] == want[w]["n"] and got["waiting"] == waiting[w],
                f"{where} {w}: n {got['n']} waiting {got['waiting']}, events give "
                f"n {want[w]['n']} waiting {waiting[w]}")
        check_summary(c, f"{where} {w}", got, want[w])
    have = {(g["kind"], g["name"]): g for g in doc.get("queues", [])}
    c.check(set(have) == set(groups), f"{where}: queues {sorted(have)}, want {sorted(groups)}")
    for key, (jobs, s) in groups.items():
        g = have.get(key)
        if g is None:
            continue
        c.check(g["jobs"] == jobs and g["admitted"] == s["n"],
                f"{where} {key}: jobs {g['jobs']} admitted {g['admitted']}, want {jobs}/{s['n']}")
        check_summary(c, f"{where} {key}", g, s)


# --------------------------------------------------------------------- main

def main():
    c = Checks()
    gpuq = binary()
    t_start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="gpuq-report-cluster-") as d, \
            FakeAPI(os.path.join(d, "api"), crds=cluster.CRDS) as api:
        cluster.setup_queues(api)
        path = os.path.join(d, "now.yaml")
        with open(path, "w") as f:
            f.write(NOW_QUEUE)
        r = api.kubectl("apply", "-f", path)
        if not c.check(r.returncode == 0, f"apply the now queue: {r.stderr}"):
            return c.done()
        db = os.path.join(d, "gpuq.db")
        g = Daemon(gpuq, api, db)
        try:
            wait_for("/readyz 200", lambda: g.get("/readyz")[0] == 200, 120)
            queue_of_job = {}
            jobs = {}

            def create(name, queue):
                queue_of_job[name] = queue
                jobs[name] = cluster.create_job(api, name, queue=queue)

            def running_in_db(name):
                return any(job_name(n) == name and s == "running" and st is not None
                           for n, s, st, _ in workloads(db))

            def pr(name):
                return wait_for(f"{name}'s ProvisioningRequest",
                                lambda: cluster.pr_of(api, jobs[name]), 120)

            def unsuspended(name):
                wait_for(f"{name} unsuspended", lambda: cluster.unsuspended(api, name), 120)

            # Round 1: two Jobs fill now-cq's two GPUs, a third waits for quota; a DWS Job.
            for n in ("now-1", "now-2", "now-3"):
                create(n, "now-q")
            create("dws-1", "dws-local-queue")
            for n in ("now-1", "now-2"):
                unsuspended(n)
            pr1 = pr("dws-1")
            # Round 2: another DWS Job, then dws-1's capacity comes.
            create("dws-2", "dws-local-queue")
            pr2 = pr("dws-2")
            cluster.provisioned(api, pr1)
            unsuspended("dws-1")
            # now-1 ends (once gpuqd has seen it run): now-3 gets its GPU.
            wait_for("now-1 running in gpuqd's database", lambda: running_in_db("now-1"), 120)
            cluster.finish(api, "now-1")
            unsuspended("now-3")
            # Round 3: a fourth "now" Job waits for quota, a third DWS Job.
            create("now-4", "now-q")
            create("dws-3", "dws-local-queue")
            pr3 = pr("dws-3")
            cluster.provisioned(api, pr2)
            unsuspended("dws-2")
            cluster.provisioned(api, pr3)
            unsuspended("dws-3")
            # A fourth DWS Job whose unsuspend patch is applied but answered 500 (a lost
            # response, as a proxy or a timeout gives): gpuqd's watch sees the Job unsuspended
            # before its outbox knows the patch went through (the sync_jobs.c path).
            create("dws-4", "dws-local-queue")
            pr4 = pr("dws-4")
            api.fault(method="PATCH", path=r"^/apis/batch/v1/namespaces/default/jobs/dws-4$",
                      action="status", code=500, apply=True, times=100)
            cluster.provisioned(api, pr4)
            unsuspended("dws-4")
            wait_for("now-2 running in gpuqd's database", lambda: running_in_db("now-2"), 120)
            cluster.finish(api, "now-2")
            unsuspended("now-4")

            # Quiet: every Job's workload has started; the two finished ones are closed.
            def quiet():
                rows = workloads(db)
                states = {job_name(n): (s, st) for n, s, st, _ in rows}
                if len(rows) != len(queue_of_job) or set(states) != set(queue_of_job):
                    return False
                return all(st is not None and s == ("finished" if n in ("now-1", "now-2")
                                                    else "running")
                           for n, (s, st) in states.items())
            wait_for("every workload running or finished in gpuqd's database", quiet, 120)

            # 1. The waits as the events show them.
            ev = from_events(db)
            names = {job_name(j["name"]) for j in ev.values()}
            c.check(names == set(queue_of_job),
                    f"events name the Jobs {sorted(names)}, want {sorted(queue_of_job)}")
            for uid, j in ev.items():
                c.check(j["submitted"] is not None and j["reserved"] is not None and
                        j["admitted"] is not None,
                        f"{j['name']} ({uid}): Submitted, QuotaReserved and admitted events: "
                        f"{j['reasons']}")
                c.check(not j["evicted"], f"{j['name']}: no eviction expected: {j['reasons']}")
            if c.failed:
                return c.done()
            # Each time the report reads from the workloads table is the time of the event
            # that says so (store_report.c reads the columns, not the events).
            cols = {r[0]: r[1:] for r in query(
                db, "SELECT uid, created_at, reserved_at, admitted_at, started_at FROM workloads")}
            for uid, j in ev.items():
                row = cols.get(uid)
                if not c.check(row is not None, f"{j['name']}: no workload with uid {uid}"):
                    continue
                for col, got, key, what in (
                        ("created_at", row[0], "submitted", "its Submitted event"),
                        ("reserved_at", row[1], "reserved", "its QuotaReserved event"),
                        ("admitted_at", row[2], "admitted", "its first event to 'admitted'"),
                        ("started_at", row[3], "running", "its first event to 'running'")):
                    c.check(got == j[key],
                            f"DISCREPANCY {job_name(j['name'])}: workloads.{col} = {got} but "
                            f"{what} is at {j[key]} (events: {j['reasons']})")
            want, waiting, groups = expected(ev, queue_of_job)
            for name in sorted(queue_of_job):
                j = next(x for x in ev.values() if job_name(x["name"]) == name)
                run = j["running"] - j["submitted"] if j["running"] else None
                print(f"{name:6} quota {j['reserved'] - j['submitted']:6d} ms, capacity "
                      f"{j['admitted'] - j['reserved']:6d} ms, admission "
                      f"{j['admitted'] - j['submitted']:6d} ms, running {run} ms")
            for w in WAITS:
                s = want[w]
                print(f"events: {w:9} n={s['n']} p50={s['p50']:.1f} mean={s['mean']:.3f} "
                      f"p90={s['p90']:.1f} p99={s['p99']:.2f} max={s['max']:.0f} ms")
            # The scenario makes a quota wait (now-3, now-4) and a capacity wait (dws-*) that
            # cannot be zero: each came after something the test did once it had been queued.
            for n in ("now-3", "now-4"):
                j = next(x for x in ev.values() if job_name(x["name"]) == n)
                c.check(j["reserved"] > j["submitted"], f"{n} waited for quota")
            for n in ("dws-1", "dws-2", "dws-3", "dws-4"):
                j = next(x for x in ev.values() if job_name(x["name"]) == n)
                c.check(j["admitted"] > j["reserved"], f"{n} waited for capacity")
            for n in ("now-1", "now-2", "now-3", "now-4"):
                j = next(x for x in ev.values() if job_name(x["name"]) == n)
                c.check(j["admitted"] == j["reserved"],
                        f"{n}: admitted with its reservation (no check)")

            # 2. gpuq report -o json on gpuqd's database, default window.
            r = report(gpuq, db)
            if not c.check(r.returncode == 0, f"gpuq report: {r.returncode} {r.stderr}"):
                return c.done()
            cli_default = json.loads(r.stdout)
            check_report(c, "gpuq report", cli_default, want, waiting, groups, len(queue_of_job))

            # 3. /report.json, default window: the same waits.
            status, body = g.get("/report.json")
            c.check(status == 200, f"/report.json: {status} {body[:300]}")
            http_default = json.loads(body) if status == 200 else {}
            check_report(c, "/report.json", http_default, want, waiting, groups,
                         len(queue_of_job))
            c.check(http_default.get("waits") == cli_default.get("waits") and
                    http_default.get("queues") == cli_default.get("queues") and
                    http_default.get("jobs") == cli_default.get("jobs"),
                    "/report.json's waits, queues and jobs equal gpuq report's")
            if http_default.get("window") != cli_default.get("window"):
                print(f"note: default windows differ: cli {cli_default.get('window')}, "
                      f"http {http_default.get('window')}")

            # The same explicit window to both: byte for byte. Whole seconds around every
            # time the database holds (started_at has no event: see the report).
            times = query(db, "SELECT min(created_at), max(max(created_at, "
                              "coalesce(reserved_at, 0), coalesce(admitted_at, 0), "
                              "coalesce(started_at, 0), coalesce(finished_at, 0))) "
                              "FROM workloads")[0]
            last_event = query(db, "SELECT max(at) FROM events")[0][0]
            since = rfc3339(times[0])
            until = rfc3339(max(times[1], last_event) + 2000)
            r = report(gpuq, db, "--since", since, "--until", until)
            c.check(r.returncode == 0, f"gpuq report --since --until: {r.stderr}")
            cli_window = r.stdout
            status, http_window = g.get(f"/report.json?since={since}&until={until}")
            c.check(status == 200, f"/report.json?since&until: {status} {http_window[:300]}")
            c.check(http_window == cli_window,
                    f"/report.json?since={since}&until={until} is byte-identical to gpuq "
                    f"report --since --until\n--- cli\n{cli_window}\n--- http\n{http_window}")
            doc = json.loads(cli_window) if r.returncode == 0 else {}
            check_report(c, "gpuq report --since --until", doc, want, waiting, groups,
                         len(queue_of_job))
            c.check(doc.get("window", {}).get("since") == since and
                    doc.get("window", {}).get("until") == until,
                    f"window {doc.get('window')}, asked {since} .. {until}")

            c.check(g.stop() == 0, f"gpuqd stops cleanly on SIGTERM\n{g.logtext()[-2000:]}")
        finally:
            g.kill()
            if c.failed:
                print(f"--- gpuqd log\n{g.logtext()[-4000:]}")
    print(f"took {time.monotonic() - t_start:.1f} s")
    return c.done()


if __name__ == "__main__":
    sys.exit(main())
