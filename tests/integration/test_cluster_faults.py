"""Issue 5, acceptance check 2: the fault catalogue's cases that concern the
daemon (reference §6 A and B), each against the test API server with a real
gpuqd, real SIGKILLs at named crash points (GQ_CRASH_AT, Debug builds), and
the invariants checked after each: no double admission (one successful
unsuspend patch per Job), no lost job, no orphaned request, quota equal to
what is admitted. The client-level cases (watch framing, 410 in both forms,
bookmarks, silence, backoff, 429/5xx, 401, TLS, redirects, pagination) are in
test_kube_client.py, against the same server."""
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import Checks, binary, has_test_hooks  # noqa: E402
import cluster  # noqa: E402
from cluster import Daemon, FakeAPI, wait_for  # noqa: E402

# One GPU of quota, one check whose config retries fast: small enough that a
# double count shows (the second job must wait), fast enough for a test.
SMALL = """apiVersion: kueue.x-k8s.io/v1beta1
kind: ProvisioningRequestConfig
metadata: {name: fast-config}
spec:
  provisioningClassName: queued-provisioning.gke.io
  managedResources: [nvidia.com/gpu]
  retryStrategy: {backoffLimitCount: 1, backoffBaseSeconds: 1, backoffMaxSeconds: 2}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: AdmissionCheck
metadata: {name: fast-prov}
spec:
  controllerName: kueue.x-k8s.io/provisioning-request
  parameters: {apiGroup: kueue.x-k8s.io, kind: ProvisioningRequestConfig, name: fast-config}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: small}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu, memory, nvidia.com/gpu]
    flavors:
    - name: default-flavor
      resources:
      - {name: cpu, nominalQuota: 100}
      - {name: memory, nominalQuota: 100Gi}
      - {name: nvidia.com/gpu, nominalQuota: 1}
  admissionChecks: [fast-prov]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {namespace: default, name: small-q}
spec: {clusterQueue: small}
"""


def pr_named(api, job, attempt=1, check="fast-prov"):
    wl = cluster.workload_name(job["metadata"]["name"], job["metadata"]["uid"])
    name = f"{wl}-{check}-{attempt}"
    return next((p for p in cluster.prs(api) if p["metadata"]["name"] == name), None)


def ok_patches(api, name):
    return [r for r in api.requests() if r.get("verb") == "patch" and r.get("resource") == "jobs"
            and r.get("name") == name and r.get("status") == 200]


class Env:
    def __init__(self, c, gpuq, d, api):
        self.c, self.gpuq, self.d, self.api = c, gpuq, d, api
        self.n = 0

    def db(self):
        self.n += 1
        return os.path.join(self.d, f"case{self.n}.db")

    def admit(self, name, db, daemon=None):
        """Create a job in small-q and take it to running; returns (job, daemon)."""
        g = daemon or Daemon(self.gpuq, self.api, db)
        j = cluster.create_job(self.api, name, queue="small-q")
        pr = wait_for(f"{name}'s request", lambda: pr_named(self.api, j))
        cluster.provisioned(self.api, pr)
        wait_for(f"{name} unsuspended", lambda: cluster.unsuspended(self.api, name))
        return j, g

    def delete_job(self, name):
        r = self.api.kubectl("delete", "job", name, "--wait=false")
        self.c.check(r.returncode == 0, f"delete {name}: {r.stderr}")
        wait_for(f"{name} gone", lambda: cluster.job(self.api, name) is None)
        time.sleep(0.3)  # owner-reference collection

    def no_orphans(self, where):
        uids = {j["metadata"]["uid"] for j in self.api.objects("jobs")}
        for p in cluster.prs(self.api):
            owners = [o["uid"] for o in p["metadata"].get("ownerReferences", [])]
            self.c.check(any(u in uids for u in owners),
                         f"{where}: orphaned request {p['metadata']['name']}")


def case_crash_points(e):
    """B27, B28, B29: SIGKILL after the templates, after the request, after the patch."""
    for point in ("after-podtemplates", "after-provreq", "after-unsuspend"):
        name = "crash-" + point.split("-", 1)[1]
        db = e.db()
        j = cluster.create_job(e.api, name, queue="small-q")
        g = Daemon(e.gpuq, e.api, db, env={"GQ_CRASH_AT": point})
        if point == "after-unsuspend":
            pr = wait_for("request", lambda: pr_named(e.api, j))
            cluster.provisioned(e.api, pr)
        rc = g.proc.wait(timeout=30)
        g.kill()
        e.c.check(rc == 137, f"{point}: killed at the crash point (status {rc})")
        g = Daemon(e.gpuq, e.api, db)
        pr = wait_for("request after restart", lambda: pr_named(e.api, j))
        if point != "after-unsuspend":
            cluster.provisioned(e.api, pr)
        wait_for("unsuspended after restart", lambda: cluster.unsuspended(e.api, name))
        # After the unsuspend crash point the Job runs before the restarted gpuqd has read it
        # back: wait for its database to say so (a loaded machine takes its time), then give
        # a duplicate the second it would need to show.
        wait_for("running in the database", lambda: cluster.gpuq_json(
            e.gpuq, db, "list", "-A", "--status", "running")["items"])
        time.sleep(1)
        creates = [r for r in e.api.requests() if r.get("verb") == "create" and
                   r.get("resource") == "provisioningrequests" and r.get("status") == 201 and
                   name in (r.get("path") or "") + str(r.get("name"))]
        e.c.check(len([p for p in cluster.prs(e.api) if name in p["metadata"]["name"]]) == 1,
                  f"{point}: exactly one request")
        pts = [p for p in e.api.objects("podtemplates", "default") if name in p["metadata"]["name"]]
        e.c.check(len(pts) == 1, f"{point}: exactly one PodTemplate ({len(pts)})")
        e.c.check(len(ok_patches(e.api, name)) == 1,
                  f"{point}: one unsuspend patch ({len(ok_patches(e.api, name))}) {creates}")
        running = cluster.gpuq_json(e.gpuq, db, "list", "-A", "--status", "running")["items"]
        e.c.check(len(running) == 1, f"{point}: running once in the database: {len(running)}")
        g.stop()
        cluster.finish(e.api, name)
        e.delete_job(name)


def case_fresh_database(e):
    """A fresh gpuqd with an empty database rebuilds usage from the Jobs' annotations;
    B30: finished Jobs reserve nothing and cause no writes."""
    db = e.db()
    j, g = e.admit("holder", db)
    g.stop()
    db2 = e.db()
    e.api.clear_requests()
    g = Daemon(e.gpuq, e.api, db2)
    wait_for("ready", lambda: g.get("/readyz")[0] == 200)
    cluster.create_job(e.api, "waiter", queue="small-q")
    # gpuqd must have seen the waiter (and queued it) for "no request" to mean anything.
    wait_for("the waiter queued", lambda: [w for w in cluster.gpuq_json(
        e.gpuq, db2, "list", "-A", "--status", "pending")["items"]
        if "waiter" in w["metadata"]["name"]])
    time.sleep(2.5)
    e.c.check(not pr_named(e.api, cluster.job(e.api, "waiter")),
              "fresh database: the second job waits (usage rebuilt, no double count)")
    running = cluster.gpuq_json(e.gpuq, db2, "list", "-A", "--status", "running")["items"]
    e.c.check(len(running) == 1, f"fresh database: the running job counted once ({running})")
    cluster.finish(e.api, "holder")
    pr = wait_for("waiter's request once holder finished",
                  lambda: pr_named(e.api, cluster.job(e.api, "waiter")))
    e.c.check(pr is not None, "quota released exactly when the job finished")
    g.stop()
    e.api.clear_requests()
    g = Daemon(e.gpuq, e.api, db2)
    wait_for("ready", lambda: g.get("/readyz")[0] == 200)
    time.sleep(1.5)
    w = [r for r in cluster.writes(e.api) if "holder" in str(r.get("name"))]
    e.c.check(not w, f"B30: a finished job causes no writes after restart: {w}")
    g.stop()
    e.delete_job("holder")
    e.delete_job("waiter")


def case_deleted_while_down(e):
    """A4 and A22: a Job deleted (and one re-created under its name) while gpuqd was down."""
    db = e.db()
    j, g = e.admit("gone", db)
    g.kill()
    e.delete_job("gone")
    j2 = cluster.create_job(e.api, "gone", queue="small-q")
    g = Daemon(e.gpuq, e.api, db)
    pr = wait_for("the new job's request (quota released once)", lambda: pr_named(e.api, j2))
    e.c.check(pr is not None and j2["metadata"]["uid"] != j["metadata"]["uid"],
              "A22: the re-created job queued fresh under its new UID")
    live = cluster.gpuq_json(e.gpuq, db, "list", "-A")["items"]
    e.c.check(len([w for w in live if w["metadata"]["name"] ==
                   cluster.workload_name("gone", j["metadata"]["uid"])]) <= 1, "old record closed")
    e.no_orphans("A4")
    g.stop()
    e.delete_job("gone")


def case_conflict_on_unsuspend(e):
    """A11: the unsuspend patch gets 409: re-read, re-check, retry; one patch lands."""
    db = e.db()
    e.api.fault(method="PATCH", path=r"/jobs/conflict$", action="status", code=409,
                reason="Conflict", times=1)
    j, g = e.admit("conflict", db)
    e.c.check(len(ok_patches(e.api, "conflict")) == 1, "A11: one successful patch after a 409")
    g.stop()
    e.delete_job("conflict")


def case_name_collision(e):
    """A12: a request of that name exists, owned by someone else: reported, not admitted."""
    db = e.db()
    j = cluster.create_job(e.api, "collide", queue="small-q")
    wl = cluster.workload_name("collide", j["metadata"]["uid"])
    name = f"{wl}-fast-prov-1"
    path = os.path.join(e.d, "foreign.yaml")
    with open(path, "w") as f:
        f.write(f"""apiVersion: v1
kind: PodTemplate
metadata: {{name: ppt-{name}-main, namespace: default}}
template:
  spec:
    containers: [{{name: x, image: busybox}}]
""")
    e.c.check(e.api.kubectl("apply", "-f", path).returncode == 0, "foreign template created")
    g = Daemon(e.gpuq, e.api, db)
    wait_for("the collision reported", lambda: "not owned" in g.logtext())
    time.sleep(1)
    e.c.check(not pr_named(e.api, j), "A12: no request created over a foreign template")
    e.c.check(cluster.job(e.api, "collide")["spec"]["suspend"] is True, "A12: not admitted")
    g.stop()
    e.api.kubectl("delete", "podtemplate", f"ppt-{name}-main")
    e.delete_job("collide")


def case_failed_and_precedence(e):
    """A18 and A20: Failed (alone, or with Provisioned and BookingExpired): the request is
    deleted, a new attempt after the backoff, rejection after the limit, quota released."""
    db = e.db()
    g = Daemon(e.gpuq, e.api, db)
    j = cluster.create_job(e.api, "flaky", queue="small-q")
    pr = wait_for("attempt 1", lambda: pr_named(e.api, j))
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    e.api.set_status("provisioningrequests", "default", pr["metadata"]["name"], {"conditions": [
        {"type": t, "status": "True", "reason": t, "message": "x", "lastTransitionTime": now}
        for t in ("Provisioned", "BookingExpired", "Failed")]})
    pr2 = wait_for("attempt 2 after the backoff", lambda: pr_named(e.api, j, 2))
    e.c.check(pr_named(e.api, j, 1) is None, "A18: attempt 1 deleted")
    e.c.check(cluster.job(e.api, "flaky")["spec"]["suspend"] is True,
              "A20: Failed wins over Provisioned: not unsuspended")
    cluster.failed(e.api, pr2)
    wait_for("rejected", lambda: cluster.gpuq_json(e.gpuq, db, "list", "-A", "--status",
                                                   "deactivated")["items"])
    e.c.check(not cluster.prs(e.api), "A18: no request left after the rejection")
    j2, _ = e.admit("after-flaky", db, g)
    e.c.check(j2 is not None, "A18: quota released after the rejection")
    g.stop()
    e.delete_job("flaky")
    e.delete_job("after-flaky")


def case_label_removed(e):
    """A21: the queue label removed while reserved: reservation released, job kept."""
    db = e.db()
    g = Daemon(e.gpuq, e.api, db)
    j = cluster.create_job(e.api, "leaver", queue="small-q")
    wait_for("request", lambda: pr_named(e.api, j))
    e.c.check(e.api.kubectl("label", "job", "leaver", "kueue.x-k8s.io/queue-name-").returncode
              == 0, "label removed")
    wait_for("request deleted", lambda: not pr_named(e.api, j))
    e.c.check(cluster.job(e.api, "leaver") is not None, "A21: the job is not deleted")
    time.sleep(1)
    e.c.check(cluster.job(e.api, "leaver")["spec"]["suspend"] is True, "A21: not admitted")
    j2, _ = e.admit("next", db, g)
    e.c.check(j2 is not None, "A21: quota released")
    g.stop()
    e.delete_job("leaver")
    e.delete_job("next")


def case_unsuspended_job(e):
    """A23: a labelled Job created running: reported, suspended, then admitted once. The Job
    controller set its status.startTime, so the release needs it cleared first (the template
    may change only while suspend is true and startTime unset)."""
    db = e.db()
    g = Daemon(e.gpuq, e.api, db)
    cluster.create_job(e.api, "rogue", queue="small-q", suspend="false")
    e.api.set_status("jobs", "default", "rogue", {"active": 1, "startTime": time.strftime(
        "%Y-%m-%dT%H:%M:%SZ", time.gmtime())})
    wait_for("suspended", lambda: cluster.job(e.api, "rogue")["spec"]["suspend"] is True)
    e.c.check(wait_for("the report", lambda: "without admission" in g.logtext()),
              "A23: reported")
    j = cluster.job(e.api, "rogue")
    pr = wait_for("request", lambda: pr_named(e.api, j))
    cluster.provisioned(e.api, pr)
    wait_for("admitted", lambda: cluster.unsuspended(e.api, "rogue"))
    wait_for("running in the database", lambda: cluster.gpuq_json(
        e.gpuq, db, "list", "-A", "--status", "running")["items"])
    time.sleep(0.5)
    running = cluster.gpuq_json(e.gpuq, db, "list", "-A", "--status", "running")["items"]
    e.c.check(len(running) == 1, "A23: counted once")
    g.stop()
    e.delete_job("rogue")


def case_booking_expired_after_start(e):
    """A19 (after the release) and A7: BookingExpired once the Job runs is ignored; with
    bookmarks switched off the watches carry on from the regular events' versions."""
    db = e.db()
    e.api.bookmarks(0)
    j, g = e.admit("booked", db)
    pr = pr_named(e.api, j)
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    e.api.set_status("provisioningrequests", "default", pr["metadata"]["name"], {"conditions": [
        {"type": t, "status": "True", "reason": t, "message": "x", "lastTransitionTime": now}
        for t in ("Provisioned", "BookingExpired")]})
    time.sleep(2)
    e.c.check(cluster.unsuspended(e.api, "booked") is not None,
              "A19: BookingExpired after the release is ignored: the Job keeps running")
    e.c.check(pr_named(e.api, j, 2) is None, "A19: no second attempt")
    e.c.check(len(ok_patches(e.api, "booked")) == 1, "A19: no suspend patch")
    cluster.finish(e.api, "booked")
    wait_for("the request deleted once the Job finished", lambda: not pr_named(e.api, j))
    e.c.check(g.proc.poll() is None, "A7: still running without bookmarks")
    e.api.bookmarks(1)
    g.stop()
    e.delete_job("booked")


def case_sigterm_mid_flow(e):
    """B36: SIGTERM while requests are being created for 20 Jobs: a clean exit, an intact
    database, and after a restart every Job admitted once, every request created once."""
    import sqlite3
    db = e.db()
    names = [f"burst{i}" for i in range(20)]
    for n in names:
        cluster.create_job(e.api, n)
    g = Daemon(e.gpuq, e.api, db)
    wait_for("the first request", lambda: any(n in p["metadata"]["name"] for n in names
                                               for p in cluster.prs(e.api)), 120, 0.005)
    e.c.check(g.stop() == 0, "B36: SIGTERM mid-flow exits 0")
    con = sqlite3.connect(db)
    e.c.check(con.execute("PRAGMA integrity_check").fetchone()[0] == "ok", "B36: database intact")
    con.close()
    g = Daemon(e.gpuq, e.api, db)
    jobs = {n: cluster.job(e.api, n) for n in names}
    for n in names:
        pr = wait_for(f"{n}'s request", lambda: cluster.pr_of(e.api, jobs[n]))
        cluster.provisioned(e.api, pr)
    wait_for("all released", lambda: all(cluster.unsuspended(e.api, n) for n in names))
    time.sleep(0.5)
    for n in names:
        creates = [r for r in e.api.requests() if r.get("verb") == "create" and
                   r.get("resource") == "provisioningrequests" and r.get("status") == 201 and
                   f"job-{n}-" in str(r.get("name")) + str(r.get("body", ""))[:300]]
        e.c.check(len(ok_patches(e.api, n)) == 1, f"B36: {n} unsuspended once")
        e.c.check(len(creates) <= 1, f"B36: {n}'s request created once ({len(creates)})")
    g.stop()
    for n in names:
        e.delete_job(n)


def case_no_crd(e, gpuq, d):
    """A15: the ProvisioningRequest CRD is absent: reported, jobs stay suspended, no crash loop."""
    crds = [p for p in cluster.CRDS if "provisioningrequests" not in p]
    with FakeAPI(os.path.join(d, "api-nocrd"), crds=crds) as api:
        cluster.setup_queues(api)
        j = cluster.create_job(api, "nocrd")
        g = Daemon(gpuq, api, os.path.join(d, "nocrd.db"))
        wait_for("ready", lambda: g.get("/readyz")[0] == 200)
        e.c.check(j is not None and wait_for("the report", lambda: "404" in g.logtext() or
                                             "not found" in g.logtext()),
                  "A15: the missing CRD reported")
        time.sleep(2)
        e.c.check(g.proc.poll() is None, "A15: still running")
        e.c.check(cluster.job(api, "nocrd")["spec"]["suspend"] is True, "A15: job kept pending")
        e.c.check(g.stop() == 0, "A15: clean exit")


def main():
    c = Checks()
    gpuq = binary()
    with tempfile.TemporaryDirectory(prefix="gpuq-faults-") as d, \
            FakeAPI(os.path.join(d, "api"), crds=cluster.CRDS) as api:
        cluster.setup_queues(api)
        path = os.path.join(d, "small.yaml")
        with open(path, "w") as f:
            f.write(SMALL)
        r = api.kubectl("apply", "-f", path)
        c.check(r.returncode == 0, f"small queue: {r.stderr}")
        e = Env(c, gpuq, d, api)
        only = os.environ.get("GQ_CASE")
        hooks = has_test_hooks(gpuq)
        if not hooks:
            print("SKIP: case_crash_points: no crash points in this build (Debug builds only)")
        for case in (case_crash_points, case_fresh_database, case_deleted_while_down,
                     case_conflict_on_unsuspend, case_name_collision, case_failed_and_precedence,
                     case_label_removed, case_unsuspended_job, case_booking_expired_after_start,
                     case_sigterm_mid_flow):
            if (only and only != case.__name__) or (case is case_crash_points and not hooks):
                continue
            t0 = time.time()
            try:
                case(e)
            except AssertionError as x:
                c.check(False, f"{case.__name__}: {x}")
                if Daemon.last:
                    print("--- the last gpuqd's log:\n" + Daemon.last.logtext()[-3000:])
            e.no_orphans(case.__name__)
            print(f"{case.__name__}: {time.time() - t0:.1f} s", flush=True)
        if not only or only == "case_no_crd":
            case_no_crd(e, gpuq, d)
    return c.done()


if __name__ == "__main__":
    sys.exit(main())
