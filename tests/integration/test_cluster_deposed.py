"""Issue 13 item 2, acceptance check 2: no write from a deposed leader.

Two gpuqd against the test API server, bob leading and alice standing by.
bob is frozen (SIGSTOP) past its renew deadline; a Job arrives meanwhile;
alice takes the Lease over (polled in the fake's Lease, no fixed sleep);
bob is thawed with that Job's admission waiting in its watch stream. From
the server's request log: not one write but the Lease's own from bob after
its deadline (its last successful renewal, server time, plus the 10 s renew
deadline), and bob exits 1 with one line saying it lost the lease. alice
carries the Job on. The fake answers a Job patch whose resourceVersion is
stale with 409, which is what makes gpuq's release patch a conditional
write; and each gpuqd names its lease identity in its User-Agent, which
is how a real API server's audit log tells two replicas on one service
account apart."""
import json
import os
import signal
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import Checks, binary  # noqa: E402
import cluster  # noqa: E402
from cluster import Daemon, FakeAPI, wait_for  # noqa: E402

LEASE = ["--leader-elect", "--lease-namespace", "default", "--lease-name", "gpuqd-leader"]
RENEW_DEADLINE = 10.0  # gpuqd's default (lease 15 s, renew deadline 10 s, retry 2 s)


def leader_of(api):
    for lease in api.objects("leases", "default"):
        if lease["metadata"]["name"] == "gpuqd-leader":
            return lease["spec"].get("holderIdentity")
    return None


def is_lease(r):
    return r.get("resource") == "leases"


def last_renewal(api, user):
    """Server time of the last Lease write the server took from user."""
    ok = [r["time"] for r in cluster.writes(api, "leases", user=user) if r.get("status", 500) < 300]
    return max(ok, default=None)


def stale_patch_refused(api, name):
    """A merge patch carrying an old resourceVersion gets 409 and changes nothing."""
    path = f"/apis/batch/v1/namespaces/default/jobs/{name}"
    before = cluster.job(api, name)
    rv = before["metadata"]["resourceVersion"]
    stale = str(int(rv) - 1) if rv.isdigit() and int(rv) > 1 else "1"
    code, _ = api.call("PATCH", path, {"metadata": {"resourceVersion": stale},
                                       "spec": {"suspend": not before["spec"].get("suspend")}},
                       content_type="application/merge-patch+json")
    after = cluster.job(api, name)
    return code == 409 and after["metadata"]["resourceVersion"] == rv, code


def main():
    c = Checks()
    gpuq = binary()
    with tempfile.TemporaryDirectory(prefix="gpuq-deposed-") as d, \
            FakeAPI(os.path.join(d, "api"), users=["alice", "bob"], crds=cluster.CRDS) as api:
        cluster.setup_queues(api)
        b = Daemon(gpuq, api, os.path.join(d, "b.db"), *LEASE, "--identity", "bob", user="bob")
        wait_for("bob to lead", lambda: leader_of(api) == "bob")
        a = Daemon(gpuq, api, os.path.join(d, "a.db"), *LEASE, "--identity", "alice",
                   user="alice")
        wait_for("both ready (the standby watches too)",
                 lambda: a.get("/readyz")[0] == 200 and b.get("/readyz")[0] == 200)
        agents = {r.get("agent") for r in api.requests(user="bob")}
        c.check(agents == {"gpuq/0.1.0 (bob)"}, f"bob names its identity in its User-Agent: {agents}")

        b.proc.send_signal(signal.SIGSTOP)
        job = cluster.create_job(api, "deposed-job")
        wait_for("alice to take the lease over", lambda: leader_of(api) == "alice")
        renewed = last_renewal(api, "bob")
        deadline = renewed + RENEW_DEADLINE
        b.proc.send_signal(signal.SIGCONT)
        rc = b.proc.wait(timeout=120)
        b.kill()

        late = [(r["method"], r["path"], r.get("status"), round(r["time"] - deadline, 1))
                for r in cluster.writes(api, user="bob") if not is_lease(r) and r["time"] > deadline]
        print(f"bob renewed last at server time {renewed:.1f}; writes after its deadline: {late}")
        c.check(not late, f"no write from bob after its renew deadline: {late}")
        c.check(rc == 1, f"the deposed leader exits 1 (status {rc})")
        said = [line for line in b.logtext().splitlines() if "lost the lease" in line]
        print(f"bob exited {rc}: {said}")
        c.check(len(said) == 1 and said[0].startswith("gpuqd: error: lost the lease"),
                f"it says why in one line: {said}")

        # The new leader carries the Job on, and its release patch was the only one.
        pr = wait_for("alice's request", lambda: cluster.pr_of(api, job))
        cluster.provisioned(api, pr)
        wait_for("alice unsuspends", lambda: cluster.unsuspended(api, "deposed-job"))
        patches = api.requests(verb="patch", resource="jobs")
        ok = [r["user"] for r in patches if r["status"] == 200]
        c.check(ok == ["alice"], f"one unsuspend, by alice: {ok}")
        rvs = [json.loads(r["body"] or "{}").get("metadata", {}).get("resourceVersion")
               for r in patches if r["user"] in ("alice", "bob")]
        c.check(rvs and all(rvs), f"every Job patch gpuqd sent names a resourceVersion: {rvs}")
        refused, code = stale_patch_refused(api, "deposed-job")
        c.check(refused, f"a Job patch with a stale resourceVersion is refused 409 (got {code})")
        c.check(a.stop() == 0, "SIGTERM: clean exit")
    return c.done()


if __name__ == "__main__":
    sys.exit(main())
