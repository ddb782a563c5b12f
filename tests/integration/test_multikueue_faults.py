"""Issue 17, acceptance check 5: MultiKueue's faults, each with one manager gpuqd and
two worker gpuqd, each against its own test API server (GKE's multikueue-dws):

1. a worker's credentials rejected (its token rotated after the manager's Secret
   was written): its MultiKueueCluster says ClientConnectionFailed with the 401,
   and the Job runs on the other worker, which alone got a copy;
2. the manager SIGKILLed at its dispatch, once with the copy recorded but not sent
   (crash point multikueue-intent) and once sent but its answer not recorded
   (multikueue-sent): after the restart each worker has exactly one copy, created
   once;
3. the admitting worker's API server stopped (SIGSTOP) mid-run: after the
   Configuration's multiKueue.workerLostTimeout (5s here) the check goes Retry, the
   workload is requeued and dispatched to the other worker, which runs it; once
   the stopped server continues, its stale copy is deleted: no second copy runs."""
import os
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import Checks, binary, has_test_hooks  # noqa: E402
import cluster  # noqa: E402
from cluster import wait_for  # noqa: E402
from mkcluster import ASIA, US, cluster_status, submit, with_world  # noqa: E402

CONFIG = """apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
multiKueue:
  workerLostTimeout: 5s
"""


def rejected_credentials(c, w):
    mdb, gpuq = w.mdb, w.gpuq
    submit(w.mgr, "dws-job")
    cond = wait_for("asia's condition", lambda: (cluster_status(gpuq, mdb, ASIA) or {})
                    .get("status") == "False" and cluster_status(gpuq, mdb, ASIA))
    c.check(cond["reason"] == "ClientConnectionFailed" and "401" in cond["message"],
            f"1: asia's condition names the refusal: {cond}")
    w.provision(US)
    wait_for("admitted on us", lambda: w.cluster_name() == US)
    c.check(w.copy(ASIA) is None and not cluster.writes(w.workers[ASIA], "jobs"),
            "1: nothing written on the worker whose credentials were refused")


def killed_at(point):
    def run(c, w):
        submit(w.mgr, "dws-job")
        wait_for(f"the manager to die at {point}", lambda: w.m.proc.poll() is not None)
        c.check(w.m.proc.returncode == 137, f"2 ({point}): killed there, exit {w.m.proc.returncode}")
        w.m = w.manager()
        for cl in (ASIA, US):
            wait_for(f"the copy on {cl}", lambda cl=cl: w.copy(cl))
        w.provision(US)
        wait_for("admitted on us", lambda: w.cluster_name() == US)
        wait_for("asia's copy deleted", lambda: w.copy(ASIA) is None)
        for cl in (ASIA, US):
            c.check(len(w.creates(cl)) == 1,
                    f"2 ({point}): {cl} got {len(w.creates(cl))} creates, one copy")
    return run


def worker_lost(c, w):
    submit(w.mgr, "dws-job")
    w.provision(US)
    wait_for("admitted on us", lambda: w.cluster_name() == US)
    wait_for("asia's copy deleted", lambda: w.copy(ASIA) is None)
    us = w.workers[US]
    os.kill(us.proc.pid, signal.SIGSTOP)
    try:
        cond = wait_for("us inactive", lambda: (cluster_status(w.gpuq, w.mdb, US) or {})
                        .get("status") == "False" and cluster_status(w.gpuq, w.mdb, US))
        c.check(cond["reason"] == "ClientConnectionFailed", f"3: us's condition {cond}")
        # Re-dispatched to asia after workerLostTimeout: a new copy there, which runs.
        wait_for("a new copy on asia", lambda: w.copy(ASIA))
        w.provision(ASIA)
        wait_for("admitted on asia", lambda: w.cluster_name() == ASIA)
    finally:
        os.kill(us.proc.pid, signal.SIGCONT)
    wait_for("us's stale copy deleted once it answers", lambda: w.copy(US) is None, timeout=180)
    c.check(cluster.unsuspended(w.workers[ASIA], "dws-job") is not None,
            "3: the copy on asia runs")
    text = w.m.logtext()
    c.check("Admitting remote lost" in text, "3: the manager says the admitting remote was lost")


def main():
    c = Checks()
    gpuq = binary()
    with_world(c, gpuq, rejected_credentials, CONFIG, rotate=ASIA)
    if has_test_hooks(gpuq):
        for point in ("multikueue-intent", "multikueue-sent"):
            with_world(c, gpuq, killed_at(point), CONFIG, manager_env={"GQ_CRASH_AT": point})
    else:
        print("skip: no crash points in this build (GQ_TEST_HOOKS)")
    with_world(c, gpuq, worker_lost, CONFIG)
    return c.done()


if __name__ == "__main__":
    sys.exit(main())
