"""Issue 17, acceptance check 4 (second half): MultiKueue with one manager gpuqd
and two worker gpuqd, each against its own test API server, DWS on the
workers (GKE's multikueue-dws: dws-multi.yaml on the manager,
dws-multi-worker.yaml on each worker). The manager reaches each worker with
the kubeconfig of that worker's Secret only (user "manager" there); the
third worker of the config has no Secret and is reported BadConfig. The Job,
submitted on the manager with spec.managedBy kueue.x-k8s.io/multikueue, is
copied to both workers at quota reservation; each worker's gpuqd reserves
and asks for capacity; the test, playing the autoscaler, provisions on
worker "us" only: that copy runs, the one on "asia" is deleted (its request
with it), the manager's check is Ready, its Job stays suspended and shows
the copy's status, and finishes when the copy does. `gpuq list` on the
manager says which cluster ran it. Each MultiKueueCluster's Active condition
is written to its status on the manager's API server once (kubectl shows it)."""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import Checks, binary  # noqa: E402
import cluster  # noqa: E402
from cluster import Daemon, FakeAPI, wait_for  # noqa: E402

from mkcluster import (check_copies, cluster_status, setup_manager, setup_worker,  # noqa: E402
                       submit)


def main():
    c = Checks()
    gpuq = binary()
    with tempfile.TemporaryDirectory(prefix="gpuq-mk-") as d, \
            FakeAPI(os.path.join(d, "manager"), crds=cluster.CRDS) as mgr, \
            FakeAPI(os.path.join(d, "asia"), users=["manager"], crds=cluster.CRDS) as asia, \
            FakeAPI(os.path.join(d, "us"), users=["manager"], crds=cluster.CRDS) as us:
        workers = {"multikueue-dws-worker-asia": asia, "multikueue-dws-worker-us": us}
        for w in workers.values():
            setup_worker(w)
        setup_manager(mgr, workers)
        mdb = os.path.join(d, "manager.db")
        m = Daemon(gpuq, mgr, mdb)
        ws = {cl: Daemon(gpuq, api, os.path.join(d, f"{cl}.db")) for cl, api in workers.items()}
        try:
            job = submit(mgr, "dws-job")
            uid = job["metadata"]["uid"]

            # Both Active; eu has no Secret: BadConfig, with the Secret named.
            for cl in workers:
                cond = wait_for(f"{cl} Active", lambda cl=cl: (cluster_status(gpuq, mdb, cl) or {})
                                .get("status") == "True" and cluster_status(gpuq, mdb, cl))
                c.check(cond["reason"] == "Active", f"{cl}: {cond}")
            eu = wait_for("eu's condition", lambda: cluster_status(gpuq, mdb,
                                                                   "multikueue-dws-worker-eu"))
            c.check(eu["status"] == "False" and eu["reason"] == "BadConfig" and
                    "worker-europe-west4-secret" in eu["message"], f"eu: {eu}")

            # The same conditions on the manager's API server, as kubectl shows them (Kueue
            # writes them to each MultiKueueCluster's status), each written once.
            def api_conditions():
                r = mgr.kubectl("get", "multikueueclusters", "-o", "json")
                assert r.returncode == 0, r.stderr
                return {o["metadata"]["name"]: {x["type"]: x for x in
                                                o.get("status", {}).get("conditions", [])}
                        for o in json.loads(r.stdout)["items"]}
            shown = wait_for("the conditions on the API server", lambda: (
                lambda a: len([n for n in a if "Active" in a[n]]) == 3 and a)(api_conditions()))
            for cl in workers:
                a = shown[cl]["Active"]
                c.check(a["status"] == "True" and a["reason"] == "Active" and
                        a["message"] == "Connected" and a.get("lastTransitionTime") and
                        "observedGeneration" in a, f"{cl} on the API server: {a}")
            a = shown["multikueue-dws-worker-eu"]["Active"]
            c.check(a["status"] == "False" and a["reason"] == "BadConfig" and
                    a["message"].startswith("load client config failed: ") and
                    "worker-europe-west4-secret" in a["message"] and
                    a["message"] == eu["message"], f"eu on the API server: {a}")

            # A suspended copy on each worker, ours, without managedBy; each worker's gpuqd
            # asks its DWS for capacity.
            copies = {cl: wait_for(f"the copy on {cl}", lambda api=api: cluster.job(api, "dws-job"))
                      for cl, api in workers.items()}
            check_copies(c, copies, uid)
            prs = {cl: wait_for(f"the request on {cl}",
                                lambda cl=cl: cluster.pr_of(workers[cl], copies[cl]))
                   for cl in workers}

            # Only the manager's credentials for each worker reached it, and no one else's.
            for cl, api in workers.items():
                users = {r.get("user") for r in cluster.writes(api, "jobs")}
                c.check(users == {"manager"}, f"{cl}: Job writes by {users}")

            # The autoscaler provisions on us: that copy is released and wins.
            cluster.provisioned(us, prs["multikueue-dws-worker-us"])
            wait_for("the copy on us to run",
                     lambda: cluster.unsuspended(us, "dws-job"))
            wait_for("the copy on asia to go", lambda: cluster.job(asia, "dws-job") is None)
            wait_for("asia's request to go", lambda: not cluster.prs(asia))
            wl = wait_for("the manager's workload admitted", lambda: [
                i for i in cluster.gpuq_json(gpuq, mdb, "list")["items"]
                if i["status"].get("clusterName")])[0]
            c.check(wl["status"]["clusterName"] == "multikueue-dws-worker-us",
                    f"clusterName {wl['status']}")
            checks = {a["name"]: a for a in wl["status"].get("admissionChecks", [])}
            ac = checks.get("sample-dws-multikueue", {})
            c.check(ac.get("state") == "Ready" and "multikueue-dws-worker-us" in ac.get("message", ""),
                    f"the check {ac}")
            deletes = [r for r in cluster.writes(asia, "jobs") if r["verb"] == "delete"]
            c.check(len(deletes) == 1 and deletes[0]["user"] == "manager",
                    f"asia's copy deleted once, by the manager: {deletes}")

            # The manager's Job stays suspended and shows the copy's status.
            us.set_status("jobs", "default", "dws-job", {"active": 1, "ready": 1,
                                                          "startTime": "2026-01-01T00:00:00Z"})
            wait_for("the status on the manager",
                     lambda: (cluster.job(mgr, "dws-job").get("status") or {}).get("active") == 1)
            c.check(cluster.job(mgr, "dws-job")["spec"].get("suspend") is True,
                    "the manager's Job stays suspended")
            c.check(not [r for r in cluster.writes(mgr, "jobs", "dws-job")
                         if r.get("subresource") != "status"],
                    "the manager's Job: only its status written")
            r = subprocess.run([gpuq, "--db", mdb, "describe", "workload", wl["metadata"]["name"]],
                               capture_output=True, text=True)
            c.check(r.returncode == 0 and "Cluster Name:" in r.stdout and
                    "multikueue-dws-worker-us" in r.stdout, f"gpuq describe:\n{r.stdout}{r.stderr}")
            r = subprocess.run([gpuq, "--db", mdb, "list"], capture_output=True, text=True)
            c.check(r.returncode == 0 and "CLUSTER" in r.stdout.splitlines()[0] and
                    "multikueue-dws-worker-us" in r.stdout, f"gpuq list:\n{r.stdout}{r.stderr}")

            # The copy finishes: so do the manager's Job and its workload.
            us.set_status("jobs", "default", "dws-job", {
                "succeeded": 1, "startTime": "2026-01-01T00:00:00Z",
                "completionTime": "2026-01-01T00:02:00Z", "conditions": [
                    {"type": "Complete", "status": "True", "reason": "Completed", "message": "",
                     "lastTransitionTime": "2026-01-01T00:02:00Z"}]})
            wait_for("the manager's Job complete", lambda: any(
                x["type"] == "Complete" and x["status"] == "True"
                for x in (cluster.job(mgr, "dws-job").get("status") or {}).get("conditions", [])))
            wait_for("the manager's workload finished", lambda: [
                i for i in cluster.gpuq_json(gpuq, mdb, "list", "-A")["items"]
                if i["status"].get("conditions") and any(
                    x["type"] == "Finished" and x["status"] == "True"
                    for x in i["status"]["conditions"])])
            # The conditions did not change: each was written once, by the manager's gpuqd.
            st = [r for r in cluster.writes(mgr, "multikueueclusters")
                  if r.get("subresource") == "status"]
            c.check(len(st) == 3 and all(r["verb"] == "patch" and r["status"] == 200
                                         for r in st), f"status writes {st}")
            # Exactly one copy ever ran: on us. Each worker got one create.
            for cl, api in workers.items():
                creates = [r for r in cluster.writes(api, "jobs") if r["verb"] == "create"]
                c.check(len(creates) == 1, f"{cl}: {len(creates)} creates")
        finally:
            for g in (m, *ws.values()):
                g.stop()
        if c.failed:
            for g in (m, *ws.values()):
                print(g.logtext()[-4000:], file=sys.stderr)
    return c.done()


if __name__ == "__main__":
    sys.exit(main())
