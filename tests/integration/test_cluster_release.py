"""Issue 13, item 5: releases that a real kube-apiserver (with kube-controller-manager) refuses,
against the test API server, which enforces the Job template rule (the pod template may change
only while suspend is true and status.startTime unset) and prints a real 422's long dump.

- a labelled Job created running (status.startTime set, as the Job controller does) is
  suspended by gpuqd, its startTime cleared, and released once capacity arrives; so is one
  admitted in the very turn gpuqd first sees it running;
- a release answered 403 (RBAC) is retried with backoff and lands once the permission is back,
  with no edit to the Job;
- a workload whose release is refused for --refusal-timeout gives its quota back, with an
  Evicted condition (reason ReleaseRefused, the 403 and the server's reason) and a log line;
- gpuqd's error line keeps a 422's reason ("field is immutable"), which comes after the dump;
- a ProvisioningRequest answered 409 and adopted is logged "adopted", and what gpuqd creates is
  owned with blockOwnerDeletion.
Each case runs its own gpuqd and database."""
import json
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import Checks, binary  # noqa: E402
import cluster  # noqa: E402
from cluster import Daemon, FakeAPI, wait_for  # noqa: E402

# One GPU without admission checks (admission is the release), and one with a fast check.
QUEUES = """apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: pool-a}
spec: {nodeLabels: {pool: a}}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: one-gpu}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu, memory, nvidia.com/gpu]
    flavors:
    - name: pool-a
      resources:
      - {name: cpu, nominalQuota: 100}
      - {name: memory, nominalQuota: 100Gi}
      - {name: nvidia.com/gpu, nominalQuota: 1}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {namespace: default, name: one-q}
spec: {clusterQueue: one-gpu}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ProvisioningRequestConfig
metadata: {name: rel-config}
spec:
  provisioningClassName: queued-provisioning.gke.io
  managedResources: [nvidia.com/gpu]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: AdmissionCheck
metadata: {name: rel-prov}
spec:
  controllerName: kueue.x-k8s.io/provisioning-request
  parameters: {apiGroup: kueue.x-k8s.io, kind: ProvisioningRequestConfig, name: rel-config}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: checked}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu, memory, nvidia.com/gpu]
    flavors:
    - name: pool-a
      resources:
      - {name: cpu, nominalQuota: 100}
      - {name: memory, nominalQuota: 100Gi}
      - {name: nvidia.com/gpu, nominalQuota: 8}
  admissionChecks: [rel-prov]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {namespace: default, name: checked-q}
spec: {clusterQueue: checked}
"""

FORBIDDEN = ('jobs.batch "{name}" is forbidden: User "system:serviceaccount:gpuq-system:gpuqd" '
             'cannot patch resource "jobs" in API group "batch" in the namespace "default"')


def now():
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def started(api, name):
    """What kube-controller-manager does to a Job that runs: status.startTime."""
    api.set_status("jobs", "default", name, {"startTime": now(), "active": 1})


def finish(api, name):
    """Complete, keeping startTime as the Job controller does (a running Job may not lose it)."""
    st = (cluster.job(api, name) or {}).get("status") or {}
    api.set_status("jobs", "default", name, {**st, "active": 0, "succeeded": 1, "conditions": [
        {"type": "Complete", "status": "True", "reason": "Completed", "message": "",
         "lastTransitionTime": now()}]})


def released(api, name):
    """Unsuspended with the admission's pod template (the flavor's nodeSelector)."""
    j = cluster.unsuspended(api, name)
    sel = ((j or {}).get("spec", {}).get("template", {}).get("spec", {}) or {}).get("nodeSelector")
    return j if sel == {"pool": "a"} else None


def job_writes_by(api, name, user):
    return [r for r in cluster.writes(api, "jobs", name) if r.get("user") == user]


class Env:
    def __init__(self, c, gpuq, d, api):
        self.c, self.gpuq, self.d, self.api, self.n = c, gpuq, d, api, 0

    def db(self):
        self.n += 1
        return os.path.join(self.d, f"case{self.n}.db")

    def wls(self, db):
        return cluster.gpuq_json(self.gpuq, db, "list", "-A")["items"]

    def cleanup(self, *names):
        """Faults off and the case's Jobs deleted (no names: every Job, after a failed case)."""
        self.api.clear_faults()
        names = names or [j["metadata"]["name"] for j in self.api.objects("jobs", "default")]
        for n in names:
            if cluster.job(self.api, n):
                self.api.kubectl("delete", "job", n, "--wait=false")
        wait_for("jobs deleted", lambda: not any(cluster.job(self.api, n) for n in names))


def case_created_running(e):
    """Acceptance 1: a Job created unsuspended (the Job controller set startTime), then
    suspended by gpuqd, is released when capacity arrives."""
    api, db = e.api, e.db()
    g = Daemon(e.gpuq, api, db)
    cluster.create_job(api, "holder", queue="one-q")
    wait_for("holder released", lambda: released(api, "holder"))
    started(api, "holder")
    # Hold gpuqd's suspend a moment, so that the Job controller's startTime lands first.
    api.fault(method="PATCH", path=r"/jobs/ran$", action="delay", seconds=1, times=1)
    cluster.create_job(api, "ran", queue="one-q", suspend="false")
    started(api, "ran")
    wait_for("ran suspended", lambda: cluster.job(api, "ran")["spec"]["suspend"] is True)
    j = wait_for("startTime cleared", lambda: not cluster.job(api, "ran")["status"].get(
        "startTime") and cluster.job(api, "ran"))
    e.c.check(j["spec"]["suspend"] is True, "startTime cleared only once suspended")
    clears = [r for r in job_writes_by(api, "ran", "admin") if r.get("subresource") == "status"
              and r.get("status") == 200]
    e.c.check(len(clears) == 1, f"startTime cleared through jobs/status once: {len(clears)}")
    time.sleep(1)
    e.c.check(cluster.job(api, "ran")["spec"]["suspend"] is True, "ran waits for quota")
    finish(api, "holder")
    e.c.check(wait_for("ran released", lambda: released(api, "ran")) is not None,
              "created running, suspended, then released when capacity arrived")
    log = g.logtext()
    e.c.check("field is immutable" not in log, "no immutable-template refusal in the log")
    g.stop()
    e.cleanup("holder", "ran")


def case_admitted_while_running(e):
    """A Job created unsuspended with quota free is admitted in the turn gpuqd first sees it:
    the release is refused (template immutable), so gpuqd suspends it, clears startTime and
    releases it with the admission's template."""
    api, db = e.api, e.db()
    cluster.create_job(api, "eager", queue="one-q", suspend="false")
    started(api, "eager")
    g = Daemon(e.gpuq, api, db)
    e.c.check(wait_for("eager released", lambda: released(api, "eager")) is not None,
              "admitted while running: suspended, startTime cleared, released")
    j = cluster.job(api, "eager")
    e.c.check(j["spec"]["template"]["metadata"]["labels"].get("kueue.x-k8s.io/podset") == "main",
              "eager's template carries the admission's podset label")
    g.stop()
    e.cleanup("eager")


def case_forbidden_then_granted(e):
    """Acceptance 2: the release answered 403 (RBAC), then permitted again: released within
    the backoff, with no edit to the Job."""
    api, db = e.api, e.db()
    api.fault(method="PATCH", path=r"/jobs/denied$", action="status", code=403, reason="Forbidden",
              message=FORBIDDEN.format(name="denied"), times=3)
    cluster.create_job(api, "denied", queue="one-q")
    api.clear_requests()
    g = Daemon(e.gpuq, api, db)
    wait_for("denied released after three 403s", lambda: released(api, "denied"))
    tries = [r for r in api.requests(method="PATCH", name="denied") if not r.get("subresource")]
    e.c.check(len(cluster.writes(api, "jobs", "denied")) == len(tries),
              "nothing but gpuqd's release patches wrote the Job")
    e.c.check([r.get("status") for r in tries] == [403, 403, 403, 200],
              f"three refusals, then the release: {[r.get('status') for r in tries]}")
    gaps = [b["time"] - a["time"] for a, b in zip(tries, tries[1:])]
    # A lower bound only: a loaded machine makes the gaps longer, never shorter.
    e.c.check(len(gaps) == 3 and gaps[0] >= 0.9 and gaps[1] >= 1.9 and gaps[2] >= 3.9,
              f"retries back off 1 s, 2 s, 4 s: {gaps}")
    log = g.logtext()
    e.c.check("refused: ReleaseRefused" in log and "403 Forbidden" in log and
              "cannot patch resource" in log, "the refusals are logged with status and reason")
    g.stop()
    e.cleanup("denied")


def case_refused_gives_quota_back(e):
    """Refused for longer than --refusal-timeout: the quota goes back (Evicted, reason
    ReleaseRefused, naming the 403 and the server's reason) and the next job is admitted."""
    api, db = e.api, e.db()
    api.fault(method="PATCH", path=r"/jobs/stuck$", action="status", code=403, reason="Forbidden",
              message=FORBIDDEN.format(name="stuck"), times=0)
    cluster.create_job(api, "stuck", queue="one-q")
    g = Daemon(e.gpuq, api, db, "--refusal-timeout", "3s")
    wait_for("stuck refused", lambda: "stuck refused" in g.logtext())
    cluster.create_job(api, "after", queue="one-q")
    wait_for("the next job released once stuck gave its quota back",
             lambda: released(api, "after"))
    e.c.check(cluster.job(api, "stuck")["spec"]["suspend"] is True, "stuck never ran")
    wl = next((w for w in e.wls(db) if "stuck" in w["metadata"]["name"]), {})
    cond = next((c for c in wl.get("status", {}).get("conditions", [])
                 if c.get("type") == "Evicted"), {})
    e.c.check(cond.get("status") == "True" and cond.get("reason") == "ReleaseRefused",
              f"stuck's Evicted condition says ReleaseRefused: {cond}")
    e.c.check("403 Forbidden" in cond.get("message", "") and
              "cannot patch resource" in cond.get("message", ""),
              f"the condition names the status and the server's reason: {cond.get('message')}")
    e.c.check(wl.get("status", {}).get("gpuq", {}).get("state") == "pending",
              f"stuck is pending again: {wl.get('status', {}).get('gpuq')}")
    line = [ln for ln in g.logtext().splitlines() if "evicted" in ln and "stuck" in ln]
    e.c.check(line and "ReleaseRefused" in line[0] and "quota given back" in line[0],
              f"the log says the quota was given back: {line}")
    g.stop()
    e.cleanup("stuck", "after")


def real_422(api):
    """The test API server's own answer to a template change of a Job that ran."""
    cluster.create_job(api, "probe", queue="nowhere", suspend="false")
    started(api, "probe")
    code, status = api.call("PATCH", "/apis/batch/v1/namespaces/default/jobs/probe",
                            json.dumps({"spec": {"template": {"spec": {"nodeSelector": {"x": "y"}}}}}),
                            content_type="application/merge-patch+json")
    api.kubectl("delete", "job", "probe", "--wait=false")
    return code, status


def case_error_line(e):
    """A real 422 prints the whole template before "field is immutable": the error line keeps
    the status, the reason and the verdict, and cuts the dump."""
    api, db = e.api, e.db()
    code, status = real_422(api)
    msg = status.get("message", "") if isinstance(status, dict) else ""
    e.c.check(code == 422 and len(msg) > 1000 and msg.endswith("field is immutable"),
              f"the test server's 422 is as long as a real one: {code} {len(msg)}")
    api.fault(method="PATCH", path=r"/jobs/dumped$", action="status", code=422,
              body=json.dumps(status), times=1)
    cluster.create_job(api, "dumped", queue="one-q")
    g = Daemon(e.gpuq, api, db)
    wait_for("the 422 logged", lambda: "dumped refused" in g.logtext())
    line = next(ln for ln in g.logtext().splitlines() if "dumped refused" in ln)
    e.c.check("422 Invalid: spec.template: field is immutable" in line,
              f"the error line keeps the reason: {line[:300]}")
    e.c.check(len(line) < 700, f"the dump is cut: {len(line)} characters")
    wait_for("dumped released on the next try", lambda: released(api, "dumped"))
    g.stop()
    e.cleanup("dumped")


def case_adopted_and_owned(e):
    """A request created but answered with a dropped connection is adopted on the retry's 409
    and logged as adopted; what gpuqd creates names its Job with blockOwnerDeletion."""
    api, db = e.api, e.db()
    api.fault(method="POST", path=r"/provisioningrequests$", action="close", apply=True, times=1)
    j = cluster.create_job(api, "adopt", queue="checked-q")
    g = Daemon(e.gpuq, api, db)
    wl = cluster.workload_name("adopt", j["metadata"]["uid"])
    pr = wait_for("the request", lambda: next((p for p in cluster.prs(api)
                                               if p["metadata"]["name"] == f"{wl}-rel-prov-1"), None))
    wait_for("the request recorded", lambda: f"{wl}-rel-prov-1 " in g.logtext())
    lines = [ln for ln in g.logtext().splitlines() if f"{wl}-rel-prov-1 " in ln]
    e.c.check(any(" adopted" in ln for ln in lines) and not any(" created" in ln for ln in lines),
              f"a 409 adopted is logged as adopted: {lines}")
    pts = [p for p in api.objects("podtemplates", "default") if wl in p["metadata"]["name"]]
    for o in [pr] + pts:
        refs = o["metadata"].get("ownerReferences", [])
        e.c.check(len(refs) == 1 and refs[0].get("uid") == j["metadata"]["uid"] and
                  refs[0].get("controller") is True and refs[0].get("blockOwnerDeletion") is True,
                  f"{o['kind']} {o['metadata']['name']} owned with blockOwnerDeletion: {refs}")
    cluster.provisioned(api, pr)
    wait_for("adopt released", lambda: released(api, "adopt"))
    log = g.logtext()
    e.c.check("checked: every admission check is Ready" in log and
              "checkedevery" not in log, "the admitted line separates queue and message")
    g.stop()
    e.cleanup("adopt")


def main():
    c = Checks()
    gpuq = binary()
    with tempfile.TemporaryDirectory(prefix="gpuq-release-") as d, \
            FakeAPI(os.path.join(d, "api"), crds=cluster.CRDS) as api:
        path = os.path.join(d, "queues.yaml")
        with open(path, "w") as f:
            f.write(QUEUES)
        r = api.kubectl("apply", "-f", path)
        c.check(r.returncode == 0, f"queues: {r.stderr}")
        cluster.run_cases(c, Env(c, gpuq, d, api),
                          (case_created_running, case_admitted_while_running,
                           case_forbidden_then_granted, case_refused_gives_quota_back,
                           case_error_line, case_adopted_and_owned))
    return c.done()


if __name__ == "__main__":
    sys.exit(main())
