#!/usr/bin/env python3
"""What an autoscaler and a dashboard read from gpuqd's /metrics (issue 16,
acceptance 5), against a real daemon: `gpuqd --sim --listen 127.0.0.1:0
--local-queue-metrics` on a database prepared with `gpuq apply` and `gpuq
submit`.

- /metrics passes the Prometheus client library's own text-format parser
  (Debian's python3-prometheus-client, as test_http.py uses it) and carries
  the new families: kueue_cluster_queue_resource_pending,
  kueue_admission_checks_wait_time_seconds, the kueue_local_queue_* ones.
- The HPA-style query of pending GPUs per ClusterQueue, taken from the
  dashboard's own panel (sum by (cluster_queue) of
  kueue_cluster_queue_resource_pending over the GPU resources), evaluated on
  the parsed samples, gives the GPUs the pending jobs request: 3 MIG jobs
  and 2 GPU jobs in one ClusterQueue (an FPGA job beside them is no GPU).
- examples/grafana/gpuq-dashboard.json is valid JSON with what Grafana 10+
  needs to import it (schemaVersion, uid, a datasource variable, panels with
  gridPos and targets), and every metric name in every PromQL `expr` is one
  this gpuqd exports: a family announced on the real scrape."""
import json
import os
import re
import signal
import subprocess
import sys

from common import Checks, binary, gpuq, scratch
from test_http import get, gpuqd_path, prometheus_parse, start, wait_for

HERE = os.path.dirname(os.path.abspath(__file__))
DASHBOARD = os.path.normpath(os.path.join(HERE, "../../examples/grafana/gpuq-dashboard.json"))

# "gpus" has room for one 1-GPU job; "burst" has room for none of the jobs sent to it, so
# they all stay pending: what an autoscaler is to add capacity for.
QUEUES = """apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: f}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: gpus}
spec:
  namespaceSelector: {}
  resourceGroups: [{coveredResources: [cpu, nvidia.com/gpu], flavors: [{name: f, resources: [
    {name: cpu, nominalQuota: 8}, {name: nvidia.com/gpu, nominalQuota: 1}]}]}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: burst}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu, nvidia.com/gpu, nvidia.com/mig-1g.5gb, example.com/fpga]
    flavors: [{name: f, resources: [{name: cpu, nominalQuota: 64}, {name: nvidia.com/gpu,
      nominalQuota: 1}, {name: nvidia.com/mig-1g.5gb, nominalQuota: 1}, {name: example.com/fpga,
      nominalQuota: 0}]}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: q, namespace: default}
spec: {clusterQueue: gpus}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: bq, namespace: default}
spec: {clusterQueue: burst}
"""

# (name, queue, resource, per pod, pods): the jobs, whose requests give the expected numbers.
JOBS = [
    ("small", "q", "nvidia.com/gpu", 1, 1),
    ("mig-a", "bq", "nvidia.com/mig-1g.5gb", 2, 1),
    ("mig-b", "bq", "nvidia.com/mig-1g.5gb", 3, 1),
    ("mig-c", "bq", "nvidia.com/mig-1g.5gb", 1, 2),
    ("gpu-a", "bq", "nvidia.com/gpu", 2, 2),
    ("gpu-b", "bq", "nvidia.com/gpu", 4, 1),
    ("fpga", "bq", "example.com/fpga", 1, 1),
]

# The GPU rule of gpuq (gq__gpu_resource in lib/core/quota.c), to check the dashboard's regex.
GPU_NAMES = {"nvidia.com/gpu": True, "amd.com/gpu": True, "nvidia.com/mig-1g.5gb": True,
             "nvidia.com/mig-3g.20gb": True, "nvidia.com/gpu.shared": True,
             "example.com/fpga": False, "cpu": False, "nvidia.com/gpu-memory": False}

NEW_FAMILIES = ["kueue_cluster_queue_resource_pending", "kueue_admission_checks_wait_time_seconds",
                "kueue_local_queue_pending_workloads", "kueue_local_queue_admitted_active_workloads",
                "kueue_local_queue_admission_checks_wait_time_seconds",
                "kueue_local_queue_resource_usage", "kueue_local_queue_status"]

KEYWORDS = {"by", "without", "on", "ignoring", "group_left", "group_right", "bool", "offset",
            "and", "or", "unless", "inf", "nan", "Inf", "NaN"}


def metric_names(expr):
    """The metric names a PromQL expression reads: identifiers that are neither functions,
    keywords, label names in a grouping or matcher, nor inside strings or ranges."""
    e = re.sub(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'', '""', expr)
    e = re.sub(r"\{[^}]*\}", " ", e)
    e = re.sub(r"\[[^\]]*\]", " ", e)
    e = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", e)
    names = set()
    for m in re.finditer(r"(?<![\w.$])[A-Za-z_:][A-Za-z0-9_:]*", e):
        if e[m.end():].lstrip().startswith("(") or m.group(0) in KEYWORDS:
            continue
        names.add(m.group(0))
    return names


def exported(text):
    """Every series name the scrape announces: each family, a histogram's three series."""
    names = set()
    for line in text.splitlines():
        if line.startswith("# TYPE "):
            _, _, name, typ = line.split()
            names.add(name)
            if typ == "histogram":
                names.update(name + s for s in ("_bucket", "_sum", "_count"))
    return names


def prepare(c, g, db, tmp):
    path = os.path.join(tmp, "queues.yaml")
    with open(path, "w") as f:
        f.write(QUEUES)
    r = gpuq(g, db, "apply", "-f", path)
    c.check(r.returncode == 0, f"apply: {r.stderr}")
    for name, queue, res, per_pod, pods in JOBS:
        r = gpuq(g, db, "submit", "--queue", queue, "--name", name, "--gpu-resource", res,
                 "--gpus", str(per_pod), "--count", str(pods), "--cpu", "100m")
        c.check(r.returncode == 0, f"submit {name}: {r.stderr}")


def hpa_query(dashboard):
    """The expression of the dashboard's pending-GPUs panel."""
    for p in dashboard.get("panels", []):
        if p.get("title") == "Pending GPUs per ClusterQueue":
            return p["targets"][0]["expr"]
    return ""


def evaluate_sum_by(expr, samples, variables):
    """`sum by (L, ...) (metric{matchers})`, the one form an HPA query takes here, evaluated on
    the parsed samples: {(label values...): sum}. Grafana's variables are substituted first."""
    for k, v in variables.items():
        expr = expr.replace("$" + k, v)
    m = re.fullmatch(r"\s*sum by \(([^)]*)\) \((\w+)\{(.*)\}\)\s*", expr)
    if not m:
        return None
    by = [s.strip() for s in m.group(1).split(",")]
    matchers = re.findall(r'(\w+)\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"', m.group(3))
    out = {}
    for fam, typ, name, labels, value in samples:
        if name != m.group(2):
            continue
        ok = True
        for label, op, want in matchers:
            have = labels.get(label, "")
            want = want.encode().decode("unicode_escape")
            hit = re.fullmatch(want, have) is not None if "~" in op else have == want
            ok = ok and (hit if op in ("=", "=~") else not hit)
        if ok:
            key = tuple(labels.get(b, "") for b in by)
            out[key] = out.get(key, 0) + value
    return out


def check_scrape(c, port):
    st, h, text = get(port, "/metrics")
    c.check(st == 200, f"/metrics: {st}")
    samples = prometheus_parse(text)
    c.check(samples is not None, "the Prometheus parser reads /metrics")
    names = exported(text)
    for fam in NEW_FAMILIES:
        c.check(fam in names, f"/metrics announces {fam}")
    return text, samples or [], names


def check_hpa(c, g, db, port, dashboard):
    expr = hpa_query(dashboard)
    c.check("kueue_cluster_queue_resource_pending" in expr, f"the HPA panel's query: {expr!r}")
    want = sum(per_pod * pods for name, queue, res, per_pod, pods in JOBS
               if queue == "bq" and GPU_NAMES[res])
    # 3 MIG jobs: 2x1 + 3x1 + 1x2 slices; 2 GPU jobs: 2x2 + 4x1 GPUs; the FPGA job counts nothing.
    c.check(want == 7 + 8, f"the jobs' GPU requests add up: {want}")
    got = {}

    def settled():
        nonlocal got
        _, samples, _ = check_scrape(Checks(), port)
        got = evaluate_sum_by(expr, samples, {"cluster_queue": ".*"}) or {}
        return got.get(("burst",)) == want and got.get(("gpus",)) == 0

    # Settled: gpus admits its one job (pending until the daemon's first cycle), burst none.
    c.check(wait_for(settled, 120), f"pending GPUs: {got} (want burst {want}, gpus 0)")
    r = gpuq(g, db, "list", "-A", "--status", "pending", "-o", "json")
    pending = [w["metadata"]["name"] for w in json.loads(r.stdout)["items"]]
    c.check(len(pending) == 6, f"six jobs wait in burst: {pending}")


def check_dashboard(c, dashboard, names):
    c.check(isinstance(dashboard.get("schemaVersion"), int) and dashboard["schemaVersion"] >= 36,
            "schemaVersion of Grafana 10+")
    c.check(bool(dashboard.get("uid")) and bool(dashboard.get("title")), "uid and title")
    variables = dashboard.get("templating", {}).get("list", [])
    ds = [v for v in variables if v.get("type") == "datasource"]
    c.check(len(ds) == 1 and ds[0].get("query") == "prometheus" and ds[0].get("name"),
            "a Prometheus datasource variable")
    ref = "${%s}" % (ds[0]["name"] if ds else "datasource")
    used, exprs, ids = set(), [], set()
    for p in dashboard.get("panels", []):
        c.check(isinstance(p.get("id"), int) and p["id"] not in ids, f"panel id {p.get('id')}")
        ids.add(p.get("id"))
        g = p.get("gridPos", {})
        c.check(all(isinstance(g.get(k), int) for k in ("h", "w", "x", "y")) and
                g["x"] + g["w"] <= 24, f"{p.get('title')}: gridPos {g}")
        if p.get("type") == "row":
            continue
        c.check(p.get("type") and p.get("title"), f"panel {p.get('id')}: type and title")
        c.check(p.get("datasource", {}).get("uid") == ref, f"{p.get('title')}: datasource {ref}")
        targets = p.get("targets", [])
        c.check(bool(targets), f"{p.get('title')}: targets")
        for t in targets:
            c.check(t.get("refId") and t.get("expr") and t.get("datasource", {}).get("uid") == ref,
                    f"{p.get('title')}: target {t}")
            exprs.append(t.get("expr", ""))
    for v in variables:
        m = re.fullmatch(r"label_values\((.*),\s*\w+\)", v.get("definition", ""))
        if v.get("type") == "query":
            c.check(bool(m), f"variable {v.get('name')}: label_values(SERIES, LABEL)")
            exprs.append(m.group(1) if m else "")
    for e in exprs:
        found = metric_names(e)
        c.check(bool(found), f"a metric in {e!r}")
        for n in found:
            c.check(n in names, f"{n} (in {e!r}) is a metric gpuqd exports")
        used |= found
    for n in ("kueue_pending_workloads", "kueue_admitted_active_workloads",
              "kueue_local_queue_pending_workloads", "kueue_admission_wait_time_seconds_bucket",
              "kueue_admission_checks_wait_time_seconds_bucket",
              "kueue_cluster_queue_resource_usage", "kueue_cluster_queue_nominal_quota",
              "kueue_cluster_queue_resource_pending", "gpuq_provisioning_requests"):
        c.check(n in used, f"the dashboard shows {n}")
    c.check(any(e.startswith("histogram_quantile(") and "_bucket" in e and "rate(" in e
                for e in exprs), "wait-time percentiles from the histograms")
    regex = re.search(r'resource=~"([^"]*)"', hpa_query(dashboard))
    for res, gpu in GPU_NAMES.items():
        c.check(bool(regex) and (re.fullmatch(regex.group(1), res) is not None) == gpu,
                f"the dashboard's GPU regex on {res}: gpuq's rule says {gpu}")


def check_extractor(c):
    """The name finder finds names, so that a dashboard naming a metric gpuqd lacks fails."""
    c.check(metric_names('sum by (le) (rate(no_such_metric_bucket{a="b c"}[5m]))') ==
            {"no_such_metric_bucket"}, "metric_names finds a histogram's series")
    c.check(metric_names("histogram_quantile(0.9, sum(rate(x_bucket[$__rate_interval]))) / y") ==
            {"x_bucket", "y"}, "metric_names sees past functions, numbers and variables")


def check_flag(c, g, db):
    r = subprocess.run([gpuqd_path(g), "--db", db, "--check", "--local-queue-metrics"],
                       capture_output=True, text=True, timeout=60)
    c.check(r.returncode == 2 and "--local-queue-metrics does not go with --check" in r.stderr,
            f"--local-queue-metrics is refused where nothing is served: {r.returncode} {r.stderr}")


def main():
    c = Checks()
    g = binary()
    check_extractor(c)
    try:
        with open(DASHBOARD) as f:
            dashboard = json.load(f)
    except (OSError, ValueError) as e:
        c.check(False, f"{DASHBOARD}: {e}")
        return c.done()
    with scratch() as tmp:
        db = os.path.join(tmp, "gpuq.db")
        prepare(c, g, db, tmp)
        check_flag(c, g, db)
        with open(os.path.join(tmp, "gpuqd.log"), "w") as log:
            d, port = start(c, g, db, log, "--local-queue-metrics")
            if port:
                c.check(wait_for(lambda: get(port, "/readyz")[0] == 200, 120), "/readyz")
                check_hpa(c, g, db, port, dashboard)
                text, samples, names = check_scrape(c, port)
                check_dashboard(c, dashboard, names)
            d.send_signal(signal.SIGTERM)
            c.check(d.wait(timeout=120) == 0, "SIGTERM stops the daemon cleanly")
        if c.failed:
            print(open(os.path.join(tmp, "gpuqd.log")).read())
    return c.done()


if __name__ == "__main__":
    sys.exit(main())
