#!/usr/bin/env python3
"""`gpuq report --html` in a real headless browser (Debian's chromium).

A database with known figures (the same records as tests/cli/report.t: five
jobs, two nodes, four pods, three ProvisioningRequests) is rendered to one
HTML page; chromium loads it from file:// with logging on, and the test
asserts that the page logged no console message or error, and that the DOM
chromium built (--dump-dom) has the charts and their series: the wait
histogram's 15 Prometheus buckets, GPUs available and used, jobs waiting,
and one bar per ClusterQueue. It also checks the page is self-contained (no
script, no external URL). Without chromium it fails and says so: install it
with cmake/install-deps.sh.

Usage: test_report_html.py GPUQ_BINARY
"""
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import Checks  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
QUEUES = os.path.join(HERE, "../../examples/story/queues.yaml")
T = 1767225600000  # 2026-01-01T00:00:00Z


def s(x):
    return None if x is None else T + int(x * 1000)


def fill(path):
    """The records of tests/cli/report.t, times in seconds from T."""
    c = sqlite3.connect(path)
    for ns, lq, cq in (("team-a", "a-q", "cq-a"), ("team-b", "b-q", "cq-b")):
        c.execute("INSERT INTO local_queues VALUES (?, ?, ?, ?, 'None', '{}', ?, ?)",
                  (ns, lq, ns + "-uid", cq, T, T))
    a = '{"podSetAssignments":[{"flavors":{"cpu":"t4","nvidia.com/gpu":"t4"}}]}'
    jobs = [(1, "team-a", "a-q", "cq-a", 0, 0, 1, 2), (2, "team-a", "a-q", "cq-a", 10, 10, 14, 15),
            (3, "team-a", "a-q", "cq-a", 20, 30, 80, 81),
            (4, "team-b", "b-q", "cq-b", 30, 30, 330, 331),
            (5, "team-b", "b-q", None, 40, None, None, None)]
    for i, ns, lq, cq, cr, re_, ad, st in jobs:
        c.execute("INSERT INTO workloads (id, uid, namespace, name, job_kind, job_name, local_queue, "
                  "cluster_queue, state, pods, podsets, gpus, spec, admission, queued_at, created_at, "
                  "updated_at, reserved_at, admitted_at, started_at) VALUES (?, ?, ?, ?, 'Job', ?, ?, "
                  "?, ?, 1, '[]', 1, '{}', ?, ?, ?, ?, ?, ?, ?)",
                  (i, "wl-%d" % i, ns, "job-j%d" % i, "j%d" % i, lq, cq,
                   "running" if st is not None else "pending", a if ad is not None else None,
                   s(cr), s(cr), s(cr), s(re_), s(ad), s(st)))
    for i, up, down in ((1, 0, 400), (2, 100, 200)):
        c.execute("INSERT INTO sim_nodes VALUES (?, ?, 'p1', 't4', 2, ?, ?, ?)",
                  (i, "node-%d" % i, s(up), s(up), s(down)))
    for i, wl, node, cr, st, en in ((1, 1, 1, 1, 2, 102), (2, 2, 1, 14, 15, 115),
                                    (3, 3, 2, 80, 110, 200), (4, 4, 1, 330, 331, 391)):
        c.execute("INSERT INTO sim_pods VALUES (?, ?, 'main', 0, 't4', 1, ?, ?, ?, ?)",
                  (i, wl, node, s(cr), s(st), s(en)))
    for i, wl, att, cr, reason, at in ((1, 3, 1, 30, "Failed", 50), (2, 3, 2, 60, "Provisioned", 79),
                                       (3, 4, 1, 30, "Provisioned", 320)):
        c.execute("INSERT INTO provisioning_requests (id, uid, namespace, name, workload_id, "
                  "check_name, attempt, class, spec, templates, created_at) VALUES (?, ?, 'ns', ?, ?, "
                  "'dws', ?, 'queued-provisioning.gke.io', '{}', '[]', ?)",
                  (i, "pr-%d" % i, "pr-%d" % i, wl, att, s(cr)))
        c.execute("INSERT INTO events (at, kind, namespace, name, uid, type, reason) VALUES "
                  "(?, 'ProvisioningRequest', 'ns', ?, ?, 'Normal', ?)",
                  (s(at), "pr-%d" % i, "pr-%d" % i, reason))
    c.commit()
    c.close()


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def load(browser, html, tmp):
    """Chromium's DOM of the page, and what it logged to stderr."""
    cmd = [browser, "--headless=new", "--disable-gpu", "--no-sandbox", "--no-first-run",
           "--user-data-dir=" + os.path.join(tmp, "profile"), "--enable-logging=stderr", "--v=0",
           "--virtual-time-budget=2000", "--dump-dom", "file://" + html]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def main():
    binary = os.path.abspath(sys.argv[1])
    t = Checks()
    browser = chromium()
    if not browser:
        print("FAIL: chromium is not installed: run cmake/install-deps.sh "
              "(apt-get install chromium); this test cannot pass without a browser")
        t.check(False, "chromium installed")
        return t.done()
    with tempfile.TemporaryDirectory(prefix="gpuq-report-html-") as tmp:
        db, html = os.path.join(tmp, "gpuq.db"), os.path.join(tmp, "report.html")
        env = dict(os.environ, GPUQ_DB=db)
        p = subprocess.run([binary, "apply", "-f", QUEUES], capture_output=True, text=True,
                           env=env)
        t.check(p.returncode == 0, "apply: " + p.stderr)
        fill(db)
        p = subprocess.run([binary, "report", "--html", html], capture_output=True, text=True,
                           env=env)
        t.check(p.returncode == 0 and p.stdout == "", "report --html: " + p.stderr)
        with open(html, encoding="utf-8") as f:
            page = f.read()
        t.check("<script" not in page.lower(), "no script in the page")
        t.check(not re.search(r'(src|href)\s*=\s*"(https?:)?//', page), "no external resource")
        rc, dom, log = load(browser, html, tmp)
        t.check(rc == 0, "chromium exit status %d: %s" % (rc, log[-2000:]))
        console = [line for line in log.splitlines()
                   if "CONSOLE" in line or "Uncaught" in line or "Refused to" in line
                   or "Failed to load resource" in line]
        t.check(not console, "console messages: %r" % console)
        for chart in ("histogram", "gpus", "pending", "queues"):
            t.check('data-chart="%s"' % chart in dom, "chart %s in the DOM" % chart)
        bars = re.findall(r'<rect data-series="admission" data-le="([^"]+)"', dom)
        t.check(len(bars) == 15 and bars[0] == "1s" and bars[-1] == "+Inf",
                "15 Prometheus buckets: %r" % bars)
        for series in ("gpus_available", "gpus_used", "jobs_waiting", "pod"):
            t.check('data-series="%s"' % series in dom, "series %s in the DOM" % series)
        queues = re.findall(r'data-series="queue_mean" data-name="([^"]+)"', dom)
        t.check(queues == ["cq-a", "cq-b"], "one bar per ClusterQueue: %r" % queues)
        t.check("35.0%" in dom and "65.0%" in dom, "utilization and overhead shown")
        # A bad flag writes nothing: no half-written page.
        bad = os.path.join(tmp, "bad.html")
        p = subprocess.run([binary, "report", "--html", bad, "--under", "5x"],
                           capture_output=True, text=True, env=env)
        t.check(p.returncode == 2 and not os.path.exists(bad), "bad --under writes nothing")
    return t.done()


if __name__ == "__main__":
    sys.exit(main())
