#!/usr/bin/env python3
"""gpuqd's HTTP endpoints (daemon/http.c) against a real daemon: `gpuqd --sim
--listen 127.0.0.1:0` on a database prepared with `gpuq apply` and `gpuq
submit`. /healthz and /readyz answer; /metrics passes the Prometheus client
library's own text-format parser (Debian's python3-prometheus-client, run by
/usr/bin/python3) and its numbers agree with `gpuq list`; Kueue's visibility
API gives the positions `gpuq list` gives, paged; /api/v1/workloads is the
List `gpuq list -A -o json` prints; anything else is a 404 Status and any
other method a 405. SIGTERM stops the daemon cleanly."""
import json
import os
import re
import signal
import subprocess
import time
import urllib.error
import urllib.request

from common import Checks, binary, gpuq, scratch

# Room for two 1-GPU jobs; two LocalQueues (two namespaces) share the ClusterQueue,
# and a second, stopped ClusterQueue holds one job that cannot be admitted.
QUEUES = """apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: f}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: gpus}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu, nvidia.com/gpu]
    flavors:
    - name: f
      resources:
      - {name: cpu, nominalQuota: 8}
      - {name: nvidia.com/gpu, nominalQuota: 2}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: held}
spec:
  stopPolicy: Hold
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors:
    - name: f
      resources:
      - {name: nvidia.com/gpu, nominalQuota: 8}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: q, namespace: default}
spec: {clusterQueue: gpus}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: q, namespace: team-b}
spec: {clusterQueue: gpus}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: hq, namespace: default}
spec: {clusterQueue: held}
"""

VIS = "/apis/visibility.kueue.x-k8s.io/v1beta1"

PARSE = """
import json, sys
from prometheus_client.parser import text_string_to_metric_families
out = []
for fam in text_string_to_metric_families(sys.stdin.read()):
    for s in fam.samples:
        out.append([fam.name, fam.type, s.name, s.labels, s.value])
print(json.dumps(out))
"""


def gpuqd_path(gpuq_path):
    return os.path.join(os.path.dirname(os.path.dirname(gpuq_path)), "daemon", "gpuqd")


def get(port, path, method="GET", data=None):
    """(status, headers, body) of one request; errors are answers too."""
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method=method, data=data)
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, dict(r.headers), r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read().decode()


def wait_for(pred, seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(0.1)
    return pred()


def prometheus_parse(text):
    """The samples as the reference parser reads them, or None if it refuses the text."""
    r = subprocess.run(["/usr/bin/python3", "-c", PARSE], input=text, capture_output=True,
                       text=True, timeout=60)
    if r.returncode != 0:
        print(r.stderr)
        return None
    return json.loads(r.stdout)


def listed(g, db, *args):
    r = gpuq(g, db, "list", *args, "-o", "json")
    return json.loads(r.stdout)["items"] if r.returncode == 0 else []


def prepare(c, g, db, tmp):
    path = os.path.join(tmp, "queues.yaml")
    with open(path, "w") as f:
        f.write(QUEUES)
    r = gpuq(g, db, "apply", "-f", path)
    c.check(r.returncode == 0, f"apply: {r.stderr}")
    # Alternate namespaces so the ClusterQueue's order interleaves its LocalQueues.
    for i in range(6):
        ns = "default" if i % 2 == 0 else "team-b"
        r = gpuq(g, db, "submit", "--queue", "q", "-n", ns, "--name", f"j{i}", "--gpus", "1",
                 "--cpu", "100m")
        c.check(r.returncode == 0, f"submit j{i}: {r.stderr}")
    r = gpuq(g, db, "submit", "--queue", "hq", "--name", "held-1", "--gpus", "1")
    c.check(r.returncode == 0, f"submit held-1: {r.stderr}")


def start(c, g, db, log, *flags):
    """gpuqd --sim serving on a free port (more flags after), and that port once it logs it."""
    d = subprocess.Popen([gpuqd_path(g), "--db", db, "--sim", "--listen", "127.0.0.1:0", *flags],
                         stdout=log, stderr=subprocess.STDOUT, env=dict(os.environ, NO_COLOR="1"))
    port = []

    def bound():
        m = re.search(r"listening on 127\.0\.0\.1:(\d+)", open(log.name).read())
        if m:
            port.append(int(m.group(1)))
        return bool(m)

    c.check(wait_for(bound, 120), "gpuqd logs the address it listens on")
    return d, (port[0] if port else 0)


def check_probes(c, port):
    st, h, body = get(port, "/healthz")
    c.check(st == 200 and body == "ok\n", f"/healthz: {st} {body!r}")
    st, h, body = get(port, "/readyz")
    c.check(st == 200 and body == "ok\n", f"/readyz once the loop runs: {st} {body!r}")


def value(samples, name, **labels):
    for fam, typ, sname, slabels, v in samples:
        if sname == name and all(slabels.get(k) == w for k, w in labels.items()):
            return v
    return None


def check_metrics(c, g, db, port):
    st, h, text = get(port, "/metrics")
    c.check(st == 200, f"/metrics: {st}")
    c.check(h.get("Content-Type") == "text/plain; version=0.0.4; charset=utf-8",
            f"/metrics content type: {h.get('Content-Type')}")
    samples = prometheus_parse(text)
    if not c.check(samples is not None, "the Prometheus parser reads /metrics"):
        return
    names = [line.split()[2] for line in text.splitlines() if line.startswith("# TYPE ")]
    c.check(len(names) == len(set(names)), "every family is announced once")
    c.check("kueue_cluster_queue_resource_pending" in names and
            not any(n.startswith("kueue_local_queue_") for n in names),
            "resource_pending always; LocalQueue families only with --local-queue-metrics")
    pending = {}
    for wl in listed(g, db, "-A", "--status", "pending"):
        cq = wl["status"]["gpuq"]["clusterQueue"]
        pending[cq] = pending.get(cq, 0) + 1
    for cq in ("gpus", "held"):
        got = sum(value(samples, "kueue_pending_workloads", cluster_queue=cq, status=s) or 0
                  for s in ("active", "inadmissible"))
        c.check(got == pending.get(cq, 0), f"pending in {cq}: metrics {got}, gpuq list "
                f"{pending.get(cq, 0)}")
    c.check(value(samples, "kueue_pending_workloads", cluster_queue="held",
                  status="inadmissible") == 1, "the stopped queue's job is inadmissible")
    c.check(value(samples, "kueue_admitted_active_workloads", cluster_queue="gpus") == 2,
            "two admitted in gpus")
    c.check(value(samples, "kueue_admitted_workloads_total", cluster_queue="gpus") == 2,
            "admitted_workloads_total counts two")
    c.check(value(samples, "kueue_admission_wait_time_seconds_count", cluster_queue="gpus") == 2,
            "the admission wait histogram has two observations")
    c.check(value(samples, "kueue_cluster_queue_resource_usage", cluster_queue="gpus",
                  resource="nvidia.com/gpu") == 2, "usage: two GPUs")
    c.check(value(samples, "kueue_cluster_queue_nominal_quota", cluster_queue="gpus",
                  resource="cpu") == 8, "nominal quota: 8 cpu")
    c.check(value(samples, "kueue_cluster_queue_status", cluster_queue="held",
                  status="pending") == 1, "a stopped ClusterQueue's status is pending")
    c.check(value(samples, "gpuqd_up") == 1 and value(samples, "gpuqd_ready") == 1,
            "gpuqd_up and gpuqd_ready")
    start_time = value(samples, "process_start_time_seconds")
    c.check(start_time is not None and abs(start_time - time.time()) < 3600,
            f"process_start_time_seconds is about now: {start_time}")


def positions(g, db):
    """(namespace, name) -> (in ClusterQueue, in LocalQueue), as `gpuq list` has them."""
    out = {}
    for wl in listed(g, db, "-A", "--status", "pending"):
        s = wl["status"]["gpuq"]
        out[(wl["metadata"]["namespace"], wl["metadata"]["name"])] = (
            s.get("positionInClusterQueue"), s.get("positionInLocalQueue"))
    return out


def summary(c, port, path):
    st, h, body = get(port, path)
    if not c.check(st == 200 and h.get("Content-Type") == "application/json", f"{path}: {st}"):
        return []
    doc = json.loads(body)
    c.check(doc.get("kind") == "PendingWorkloadsSummary" and
            doc.get("apiVersion") == "visibility.kueue.x-k8s.io/v1beta1", f"{path}: kind")
    return doc.get("items", [])


def check_visibility(c, g, db, port):
    want = positions(g, db)
    items = summary(c, port, f"{VIS}/clusterqueues/gpus/pendingworkloads")
    got = {(i["metadata"]["namespace"], i["metadata"]["name"]):
           (i["positionInClusterQueue"], i["positionInLocalQueue"]) for i in items}
    gpus = {k: v for k, v in want.items() if v[0] is not None and k[1].startswith("job-j")}
    c.check(len(items) == 4 and got == gpus, f"clusterqueue positions: {got} vs {gpus}")
    c.check([i["positionInClusterQueue"] for i in items] == [0, 1, 2, 3], "in queue order")
    items = summary(c, port, f"{VIS}/clusterqueues/gpus/pendingworkloads?offset=1&limit=2")
    c.check([i["positionInClusterQueue"] for i in items] == [1, 2], "offset=1&limit=2")
    items = summary(c, port, f"{VIS}/namespaces/team-b/localqueues/q/pendingworkloads")
    c.check(all(i["metadata"]["namespace"] == "team-b" and i["localQueueName"] == "q"
                for i in items) and [i["positionInLocalQueue"] for i in items] == [0, 1],
            f"localqueue team-b/q: {items}")
    st, h, body = get(port, f"{VIS}/clusterqueues/nope/pendingworkloads")
    c.check(st == 404 and json.loads(body).get("reason") == "NotFound", f"missing cq: {st}")
    st, h, body = get(port, f"{VIS}/clusterqueues/gpus/pendingworkloads?limit=x")
    c.check(st == 400 and json.loads(body).get("code") == 400, f"bad limit: {st} {body}")


def comparable(items):
    """Items without what depends on the moment of asking (plain words with "in 48s")."""
    for it in items:
        it.get("status", {}).get("gpuq", {}).pop("where", None)
    return items


def check_workloads(c, g, db, port):
    st, h, body = get(port, "/api/v1/workloads")
    c.check(st == 200 and h.get("Content-Type") == "application/json", f"/api/v1/workloads: {st}")
    doc = json.loads(body)
    want = listed(g, db, "-A")
    c.check(doc.get("kind") == "List" and len(doc["items"]) == 7, "a List of the 7 workloads")
    c.check(comparable(doc["items"]) == comparable(want), "the same items as gpuq list -A -o json")
    st, h, body = get(port, "/api/v1/workloads?namespace=team-b")
    want = listed(g, db, "-n", "team-b")
    got = json.loads(body)["items"]
    c.check(len(got) == 3 and comparable(got) == comparable(want), "?namespace=team-b")


def check_errors(c, port):
    st, h, body = get(port, "/nope")
    doc = json.loads(body)
    c.check(st == 404 and doc.get("kind") == "Status" and doc.get("code") == 404, f"404: {st}")
    st, h, body = get(port, "/metrics", method="POST", data=b"x=1")
    c.check(st == 405 and json.loads(body).get("reason") == "MethodNotAllowed" and
            h.get("Allow") == "GET, HEAD", f"405: {st} {h}")
    st, h, body = get(port, "/api/v1/workloads", method="DELETE")
    c.check(st == 405, f"DELETE: {st}")


def check_usage(c, g, db):
    r = subprocess.run([gpuqd_path(g), "--db", db, "--sim", "--listen", "nowhere"],
                       capture_output=True, text=True, timeout=30)
    c.check(r.returncode == 1 and "invalid --listen" in r.stderr, f"bad --listen: {r}")


def main():
    c = Checks()
    g = binary()
    with scratch() as tmp:
        db = os.path.join(tmp, "gpuq.db")
        prepare(c, g, db, tmp)
        check_usage(c, g, db)
        with open(os.path.join(tmp, "gpuqd.log"), "w") as log:
            d, port = start(c, g, db, log)
            # Settled: two running, the rest waiting for quota or a stopped queue.
            c.check(wait_for(lambda: len(listed(g, db, "-A", "--status", "running")) == 2, 120),
                    "the daemon admits two jobs")
            if port:
                check_probes(c, port)
                check_metrics(c, g, db, port)
                check_visibility(c, g, db, port)
                check_workloads(c, g, db, port)
                check_errors(c, port)
            d.send_signal(signal.SIGTERM)
            c.check(d.wait(timeout=120) == 0, "SIGTERM stops the daemon cleanly")
        out = open(os.path.join(tmp, "gpuqd.log")).read()
        c.check("stopped after" in out, "the daemon reports its stop")
        if c.failed:
            print(out)
    return c.done()


if __name__ == "__main__":
    raise SystemExit(main())
