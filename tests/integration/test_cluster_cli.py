"""gpuq in cluster mode against the test API server: submit (-f and flags)
creates the Job suspended with the user's own credentials and refuses a bad
manifest before any request; cancel deletes with the uid precondition;
list reads gpuqd's status API through the service proxy, or the Jobs
themselves when that is not reachable (table, wide, -o json, -o name,
filters); describe shows a Job, its admission and its ProvisioningRequests;
KUBECONFIG picks cluster mode only without --db and GPUQ_DB; commands that
only make sense on a local database are refused with exit status 2."""
import json
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import Checks, binary  # noqa: E402
import cluster  # noqa: E402
from cluster import Daemon, FakeAPI, wait_for  # noqa: E402

STATUS_API = "/api/v1/namespaces/gpuq-system/services/http:gpuqd:http/proxy/api/v1/workloads"
NOTE = "note: gpuqd's status API is not reachable; showing the Jobs themselves"
ADMISSION = "gpuq.dev/admission"

JOB = """apiVersion: batch/v1
kind: Job
metadata:
  name: {name}
  labels:
    kueue.x-k8s.io/queue-name: dws-local-queue
spec:
  suspend: false
  template:
    spec:
      containers:
      - name: main
        image: busybox
        resources:
          requests: {{cpu: "100m", nvidia.com/gpu: "{gpus}"}}
          limits: {{nvidia.com/gpu: "{gpus}"}}
      restartPolicy: Never
"""


class Env:
    """Runs gpuq with a clean environment and keeps every output (to look for tokens)."""

    def __init__(self, gpuq, api):
        self.gpuq, self.api, self.seen = gpuq, api, []

    def run(self, *args, env=None, stdin=None):
        e = {k: v for k, v in os.environ.items() if k not in ("KUBECONFIG", "GPUQ_DB")}
        e.update(NO_COLOR="1", HOME=self.api.dir, **(env or {}))
        r = subprocess.run([self.gpuq, *args], input=stdin, capture_output=True, text=True,
                           timeout=120, env=e)
        self.seen.append(r.stdout + r.stderr)
        return r

    def kc(self, *args, user="alice", **kw):
        return self.run("--kubeconfig", self.api.kubeconfig(user), *args, **kw)


def posts(api, resource="jobs"):
    return [r for r in api.requests() if r.get("method") == "POST" and
            r.get("resource") == resource]


def gone(api, name, ns="default"):
    try:
        return wait_for(f"job {name} to go", lambda: cluster.job(api, name, ns) is None)
    except AssertionError:
        return False


def write(d, name, text):
    path = os.path.join(d, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def check_submit(c, g, api, d):
    path = write(d, "train.yaml", JOB.format(name="train", gpus=1))
    api.clear_requests()
    r = g.kc("submit", "-f", path)
    c.check(r.returncode == 0 and r.stdout == "job.batch/train created\n",
            f"submit -f: {r.returncode} {r.stdout!r} {r.stderr!r}")
    j = cluster.job(api, "train")
    c.check(j is not None and j["spec"].get("suspend") is True,
            f"the Job is created suspended although the file says false: {j and j['spec']}")
    c.check(j is not None and j["metadata"].get("labels", {}).get(cluster.QUEUE_LABEL) ==
            "dws-local-queue", "queue label kept")
    c.check([p.get("user") for p in posts(api)] == ["alice"],
            f"one POST, with the user's own credentials: {posts(api)}")

    r = g.kc("submit", "--queue", "dws-local-queue", "--gpus", "1", "--name", "flagjob", "-o",
             "name", "--", "sleep", "30")
    c.check(r.returncode == 0 and r.stdout == "job.batch/flagjob\n",
            f"submit with flags -o name: {r.returncode} {r.stdout!r} {r.stderr!r}")
    j = cluster.job(api, "flagjob")
    ctr = j and j["spec"]["template"]["spec"]["containers"][0]
    c.check(j is not None and j["spec"].get("suspend") is True and
            j["metadata"]["labels"].get(cluster.QUEUE_LABEL) == "dws-local-queue",
            f"flags Job suspended, labelled: {j and j['metadata']}")
    c.check(ctr is not None and (ctr.get("command") or []) + (ctr.get("args") or []) ==
            ["sleep", "30"], f"the command after -- runs: {ctr}")

    r = g.kc("submit", "-f", "-", "-n", "team-b", stdin=JOB.format(name="piped", gpus=1))
    c.check(r.returncode == 0 and r.stdout == "job.batch/piped created\n" and
            cluster.job(api, "piped", "team-b") is not None,
            f"submit -f - -n team-b: {r.returncode} {r.stdout!r} {r.stderr!r}")
    r = g.kc("cancel", "piped", "-n", "team-b")
    c.check(r.returncode == 0 and gone(api, "piped", "team-b"),
            f"cancel -n team-b: {r.returncode} {r.stderr!r}")

    api.clear_requests()
    bad = write(d, "bad.yaml", JOB.format(name="bad", gpus="lots"))
    r = g.kc("submit", "-f", bad)
    c.check(r.returncode == 1 and "lots" in r.stderr and r.stderr.count("\n") == 1,
            f"bad manifest: one line naming the value, exit 1: {r.returncode} {r.stderr!r}")
    c.check(posts(api) == [], f"no POST for a bad manifest: {posts(api)}")
    r = g.kc("submit", "--queue", "dws-local-queue", "--gpus", "-3")
    c.check(r.returncode == 1 and "-3" in r.stderr and posts(api) == [],
            f"bad --gpus refused before any request: {r.returncode} {r.stderr!r}")
    r = g.kc("submit", "-f", path)
    c.check(r.returncode == 1 and "train" in r.stderr and "exists" in r.stderr,
            f"submitting the same Job again: {r.returncode} {r.stderr!r}")
    r = g.kc("submit", "-f", path, "-o", "yaml")
    c.check(r.returncode == 2, f"submit -o yaml is a usage error in cluster mode: {r.stderr!r}")
    check_refusal_line(c, g, d)


def check_refusal_line(c, g, d):
    """A refusal's line leads with the status and reason, then each cause's field and verdict."""
    bad = write(d, "selector.yaml", JOB.format(name="selectorjob", gpus=1).replace(
        "spec:\n  suspend", "spec:\n  manualSelector: true\n  selector: {matchLabels: {app: x}}\n"
        "  suspend"))
    r = g.kc("submit", "-f", bad)
    err = r.stderr.strip()
    print(f"refusal line: {err}")
    c.check(r.returncode == 1 and r.stderr.count("\n") == 1 and
            "create job: 422 Invalid: spec.template.metadata.labels: `selector` does not match "
            "template `labels` (Job.batch" in err,
            f"a 422 names status, reason, field and verdict first: {r.returncode} {r.stderr!r}")


def ensure_job(c, api, name):
    """A Job an earlier step should have made; made here if that failed, so the rest still runs."""
    if cluster.job(api, name) is None:
        c.check(False, f"job {name} should exist by now")
        cluster.create_job(api, name)
    return cluster.job(api, name)


def table(text):
    return [line.split() for line in text.splitlines()]


def check_list_fallback(c, g, api):
    """No gpuqd (no gpuq-system service): the Jobs themselves."""
    cluster.create_job(api, "other", ns="team-b")
    ensure_job(c, api, "train")
    j = ensure_job(c, api, "flagjob")
    r = api.kubectl("patch", "job", "flagjob", "--type=merge", "-p", json.dumps(
        {"metadata": {"annotations": {
            ADMISSION: json.dumps({"clusterQueue": "dws-cluster-queue"})}},
         "spec": {"suspend": False}}))
    c.check(r.returncode == 0, f"patch flagjob admitted: {r.stderr}")
    r = g.kc("list")
    c.check(r.returncode == 0 and r.stderr.count(NOTE) == 1,
            f"list falls back with one note: {r.returncode} {r.stderr!r}")
    rows = table(r.stdout)
    c.check(rows[:1] == [["NAME", "QUEUE", "STATUS", "ADMITTED", "BY", "AGE"]],
            f"fallback header: {rows[:1]}")
    byname = {row[0]: row for row in rows[1:]}
    c.check(set(byname) == {"train", "flagjob"}, f"jobs of the context's namespace: {rows}")
    c.check(byname.get("train", [])[1:3] == ["dws-local-queue", "PENDING"],
            f"a suspended Job is pending: {byname.get('train')}")
    c.check(byname.get("flagjob", [])[1:4] == ["dws-local-queue", "ADMITTED",
                                                "dws-cluster-queue"],
            f"an unsuspended Job with the annotation is admitted by its queue: "
            f"{byname.get('flagjob')}")

    cluster.finish(api, "train")
    r = g.kc("list", "-A", "-o", "wide")
    rows = table(r.stdout)
    c.check(r.returncode == 0 and rows[0][:2] == ["NAMESPACE", "NAME"] and "WORKLOAD" in rows[0],
            f"-A -o wide header: {rows[:1]} {r.stderr!r}")
    byname = {row[1]: row for row in rows[1:]}
    c.check(byname.get("other", [])[0] == "team-b" and byname.get("train", [None] * 4)[3] ==
            "FINISHED", f"-A lists every namespace; Complete is finished: {rows}")
    uid = j["metadata"]["uid"]
    c.check(cluster.workload_name("flagjob", uid) in r.stdout, "wide shows Kueue's workload name")

    r = g.kc("list", "-o", "json")
    try:
        doc = json.loads(r.stdout)
    except ValueError:
        doc = {}
    items = doc.get("items", [])
    c.check(r.returncode == 0 and doc.get("kind") == "List" and
            sorted(i["metadata"]["name"] for i in items) == ["flagjob", "train"] and
            all(i.get("kind") == "Job" and i.get("apiVersion") == "batch/v1" for i in items),
            f"-o json is a List of the Jobs: {r.returncode} {r.stdout[:300]!r}")
    c.check(r.stdout.startswith('{\n    "apiVersion": "v1",\n    "items": ['),
            f"-o json in kubectl's layout: {r.stdout[:60]!r}")
    r = g.kc("list", "-o", "name", "--status", "pending", "-n", "team-b")
    c.check(r.returncode == 0 and r.stdout == "job.batch/other\n",
            f"-o name, --status, -n: {r.stdout!r} {r.stderr!r}")
    r = g.kc("list", "--status", "finished")
    c.check([row[0] for row in table(r.stdout)[1:]] == ["train"],
            f"--status finished: {r.stdout!r}")
    r = g.kc("list", "-n", "empty")
    c.check(r.returncode == 0 and "No resources found in empty namespace." in r.stderr,
            f"nothing to list: {r.stderr!r}")
    r = g.kc("list", "-o", "yaml")
    c.check(r.returncode == 2 and "-o json" in r.stderr, f"-o yaml refused: {r.stderr!r}")
    r = g.kc("list", "clusterqueues")
    c.check(r.returncode == 2 and "kubectl get" in r.stderr, f"queue objects: {r.stderr!r}")


def check_describe(c, g, api):
    r = g.kc("describe", "workload", "flagjob")
    out = r.stdout
    c.check(r.returncode == 0 and "Name:" in out and "flagjob" in out and
            "Queue:" in out and "dws-local-queue" in out and "dws-cluster-queue" in out,
            f"describe: {r.returncode} {out!r} {r.stderr!r}")
    r = g.kc("describe", "workload", "missing")
    c.check(r.returncode == 1 and "missing" in r.stderr and "not found" in r.stderr,
            f"describe of a missing Job: {r.returncode} {r.stderr!r}")


def check_describe_escapes(c, g, api):
    """Control characters in a Job's annotation and status reach the terminal escaped."""
    cluster.create_job(api, "ctljob")
    path = "/apis/batch/v1/namespaces/default/jobs/ctljob"
    adm = json.dumps({"clusterQueue": "cq\x1b]0;pwned\x07\rX\u009b2J"})
    code, _ = api.call("PATCH", path, {"metadata": {"annotations": {"gpuq.dev/admission": adm}}},
                       content_type="application/merge-patch+json")
    c.check(code == 200, f"annotate ctljob: {code}")
    r = g.kc("describe", "workload", "ctljob")
    out = r.stdout
    raw = [ch for ch in out if ch in "\x1b\x07\r\x9b"]
    c.check(r.returncode == 0 and not raw and "cq^[]0;pwned^G\\rX\\u009b2J" in out,
            f"describe escapes ESC, BEL, CR and C1: {r.returncode} {out!r} {r.stderr!r}")


def check_cancel(c, g, api):
    j = cluster.job(api, "train")
    api.clear_requests()
    r = g.kc("cancel", "train")
    c.check(r.returncode == 0 and r.stdout == 'job.batch "train" deleted\n',
            f"cancel: {r.returncode} {r.stdout!r} {r.stderr!r}")
    c.check(gone(api, "train"), "the Job is gone")
    dels = [e for e in api.requests() if e.get("method") == "DELETE"]
    body = json.loads(dels[0]["body"]) if dels and dels[0].get("body") else {}
    c.check(len(dels) == 1 and dels[0].get("user") == "alice" and
            body.get("preconditions", {}).get("uid") == j["metadata"]["uid"] and
            body.get("propagationPolicy") == "Background",
            f"one DELETE with the uid precondition: {dels}")
    r = g.kc("cancel", "train", "flagjob")
    c.check(r.returncode == 1 and 'jobs.batch "train" not found' in r.stderr and
            'job.batch "flagjob" deleted' in r.stdout,
            f"cancel of a missing job names it, exit 1, and goes on: {r.returncode} "
            f"{r.stdout!r} {r.stderr!r}")
    r = g.kc("cancel", "Bad_Name")
    c.check(r.returncode == 1 and "Bad_Name" in r.stderr, f"bad name: {r.stderr!r}")


def check_modes(c, g, api, d):
    kc = api.kubeconfig("alice")
    db = os.path.join(d, "local.db")
    api.clear_requests()
    r = g.run("list", env={"KUBECONFIG": kc})
    c.check(r.returncode == 0 and NOTE in r.stderr and len(api.requests()) >= 1,
            f"KUBECONFIG alone: cluster mode: {r.stderr!r}")
    g.run("--db", db, "schedule")  # a read never creates the file (issue 13, F22)
    api.clear_requests()
    r = g.run("--db", db, "list", env={"KUBECONFIG": kc})
    c.check(r.returncode == 0 and NOTE not in r.stderr and api.requests() == [],
            f"KUBECONFIG with --db: local: {r.stderr!r}")
    r = g.run("list", env={"KUBECONFIG": kc, "GPUQ_DB": db})
    c.check(r.returncode == 0 and NOTE not in r.stderr and api.requests() == [],
            f"KUBECONFIG with GPUQ_DB: local: {r.stderr!r}")
    r = g.run("--db", db, "--kubeconfig", kc, "list")
    c.check(r.returncode == 2, f"--db with --kubeconfig: usage error: {r.stderr!r}")
    r = g.run("--kubeconfig", os.path.join(d, "nope"), "list")
    c.check(r.returncode == 1 and "nope" in r.stderr and r.stderr.count("\n") == 1,
            f"missing kubeconfig named: {r.returncode} {r.stderr!r}")
    r = g.run("--context", "nosuch", "list", env={"KUBECONFIG": kc})
    c.check(r.returncode == 1 and "nosuch" in r.stderr, f"missing context named: {r.stderr!r}")
    for args, word in ((["apply", "-f", "x.yaml"], "kubectl apply"),
                       (["schedule"], "gpuqd"), (["run"], "gpuqd"),
                       (["delete", "clusterqueue", "x"], "kubectl delete"),
                       (["stop", "clusterqueue", "x"], "kubectl")):
        r = g.kc(*args)
        c.check(r.returncode == 2 and word in r.stderr and r.stderr.count("\n") == 1,
                f"{args[0]} refused in cluster mode: {r.returncode} {r.stderr!r}")
    r = g.kc("list", "--help")
    c.check(r.returncode == 0 and "--kubeconfig" in r.stdout and "--context" in r.stdout,
            "global flags in --help")


def settled(daemon, wl):
    """gpuqd's answer once it shows viaqd admitted and waiting's request (it writes its
    database after the API server, so the request can be seen a moment before)."""
    code, body = daemon.get("/api/v1/workloads?namespace=default")
    if code != 200:
        return None
    items = {i["metadata"]["name"]: i for i in json.loads(body).get("items", [])}
    waiting = [i for n, i in items.items() if n.startswith("job-waiting-")]
    ok = wl in items and items[wl].get("status", {}).get("admission") and \
        len(waiting) == 1 and waiting[0].get("status", {}).get("gpuq", {}).get(
            "provisioningRequests")
    return body if ok else None


def serve_status_api(c, api, daemon, wl):
    """The test API server has no service proxy: answer its path with gpuqd's own answers.
    Returns the bodies served, by query, or None when the proxy reaches gpuqd itself."""
    wait_for("gpuqd to show both workloads", lambda: settled(daemon, wl))
    status, _ = api.call("GET", STATUS_API)
    if status == 200:
        return None
    print(f"note: the test API server answers {status} for the service proxy; gpuqd's own "
          "answers are served on that path through fault rules")
    served = {}
    for q in ("namespace=default", ""):
        code, body = daemon.get("/api/v1/workloads" + ("?" + q if q else ""))
        c.check(code == 200, f"gpuqd /api/v1/workloads?{q}: {code}")
        api.fault(method="GET", path=re.escape(STATUS_API) + "$", query="^" + re.escape(q) + "$",
                  action="status", code=200, body=body, content_type="application/json", times=0)
        served[q] = body
    return served


def list_json_and_gpuqd(g, daemon, served):
    """`gpuq list -o json` and gpuqd's own answer at the same moment. Each answer carries
    wall-clock figures ("running for 3s"), so a later read may differ by a second: compare
    with what the proxy served, or, through a real proxy, retry until gpuqd answered the
    same just before and just after the list (the figures only grow, so gpuq saw that)."""
    path = "/api/v1/workloads?namespace=default"
    if served is not None:
        return g.kc("list", "-o", "json"), served["namespace=default"]
    end = time.monotonic() + 120
    while True:
        _, before = daemon.get(path)
        r = g.kc("list", "-o", "json")
        _, after = daemon.get(path)
        if before == after or time.monotonic() > end:
            return r, after


def check_through_gpuqd(c, g, api, daemon, db, wl, served):
    r = g.kc("list")
    local = g.run("--db", db, "list")
    rows = {row[0]: row for row in table(r.stdout)[1:]}
    c.check(r.returncode == 0 and NOTE not in r.stderr and rows.get(wl, [])[5:6] == ["ADMITTED"]
            and any(k.startswith("job-waiting-") and v[5] == "QUOTARESERVED"
                    for k, v in rows.items()),
            f"list through gpuqd: {r.returncode} {r.stdout!r} {r.stderr!r}")
    c.check([x.split()[:6] for x in r.stdout.splitlines()] ==
            [x.split()[:6] for x in local.stdout.splitlines()],
            f"the same table as gpuq --db on gpuqd's database:\n{r.stdout}\n{local.stdout}")
    r, body = list_json_and_gpuqd(g, daemon, served)
    c.check(r.returncode == 0 and json.loads(r.stdout or "{}") == json.loads(body),
            f"-o json through gpuqd is gpuqd's List: {r.stdout[:200]!r}")
    c.check(r.stdout == body, "-o json keeps gpuqd's layout byte for byte")
    r = g.kc("list", "-A", "-o", "wide")
    c.check(r.returncode == 0 and r.stdout.startswith("NAMESPACE ") and "PRIORITY" in r.stdout,
            f"-A -o wide through gpuqd: {r.stdout!r}")
    r = g.kc("list", "--status", "admitted", "-o", "name")
    c.check(r.returncode == 0 and r.stdout == f"workload.kueue.x-k8s.io/{wl}\n",
            f"--status admitted -o name through gpuqd: {r.stdout!r}")
    api.clear_faults()
    api.fault(method="GET", path=re.escape(STATUS_API), action="status", code=503, times=0)
    r = g.kc("list")
    c.check(r.returncode == 0 and r.stderr.count(NOTE) == 1 and "viaqd" in r.stdout,
            f"503 from the proxy: the Jobs themselves: {r.stdout!r} {r.stderr!r}")
    api.clear_faults()


def check_status_api(c, g, api, d):
    """With a real gpuqd: describe shows its requests; list reads its status API."""
    db = os.path.join(d, "gpuqd.db")
    daemon = Daemon(g.gpuq, api, db)
    try:
        wait_for("/readyz 200", lambda: daemon.get("/readyz")[0] == 200)
        j = cluster.create_job(api, "viaqd")
        pr = wait_for("the ProvisioningRequest", lambda: cluster.pr_of(api, j))
        r = g.kc("describe", "workload", "viaqd")
        c.check(r.returncode == 0 and pr["metadata"]["name"] in r.stdout and
                "Requests:" in r.stdout, f"describe shows the request: {r.stdout!r}")
        cluster.provisioned(api, pr)
        wait_for("the unsuspend", lambda: cluster.unsuspended(api, "viaqd"))
        r = g.kc("describe", "workload", "viaqd")
        c.check(r.returncode == 0 and "Provisioned" in r.stdout and
                "dws-cluster-queue" in r.stdout, f"describe after admission: {r.stdout!r}")
        r = g.kc("list")
        rows = {row[0]: row for row in table(r.stdout)[1:]}
        c.check(rows.get("viaqd", [])[1:4] == ["dws-local-queue", "ADMITTED", "dws-cluster-queue"],
                f"the Jobs show gpuqd's admission: {r.stdout!r}")
        w = cluster.create_job(api, "waiting")
        wait_for("the second request", lambda: cluster.pr_of(api, w))
        wl = cluster.workload_name("viaqd", j["metadata"]["uid"])
        served = serve_status_api(c, api, daemon, wl)
        check_through_gpuqd(c, g, api, daemon, db, wl, served)
    finally:
        daemon.stop()


def main():
    c = Checks()
    gpuq = binary()
    with tempfile.TemporaryDirectory(prefix="gpuq-ccli-") as d, \
            FakeAPI(os.path.join(d, "api"), users=["alice"], crds=cluster.CRDS) as api:
        cluster.setup_queues(api)
        api.kubectl("create", "namespace", "team-b")
        api.kubectl("create", "namespace", "empty")
        g = Env(gpuq, api)
        check_submit(c, g, api, d)
        check_list_fallback(c, g, api)
        check_describe(c, g, api)
        check_describe_escapes(c, g, api)
        check_cancel(c, g, api)
        check_modes(c, g, api, d)
        check_status_api(c, g, api, d)
        for user in ("alice", "admin"):
            tok = api.token(user)
            c.check(not any(tok in s for s in g.seen), f"{user}'s token never printed")
    return c.done()


if __name__ == "__main__":
    sys.exit(main())
