"""Issue 5, acceptance check 1 (and 4's /readyz): the DWS flow against the
test API server. kubectl applies dws-queues.yaml through the shipped CRDs
and GKE's job.yaml; a real gpuqd creates the PodTemplate and the
ProvisioningRequest as Kueue names and fills them; the test sets
Provisioned=True; gpuqd unsuspends the Job with the flavor's node selector
and the consume annotations, in one patch; the Job finishes and its request
goes. /readyz is 503 until the first full list."""
import os
import signal
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import Checks, COMPAT, binary  # noqa: E402
import cluster  # noqa: E402
from cluster import Daemon, FakeAPI, wait_for  # noqa: E402


FLAVOR = """apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {{name: {name}}}
"""


def main():
    c = Checks()
    gpuq = binary()
    with tempfile.TemporaryDirectory(prefix="gpuq-e2e-") as d, \
            FakeAPI(os.path.join(d, "api"), crds=cluster.CRDS) as api:
        cluster.setup_queues(api)
        r = api.kubectl("patch", "resourceflavor", "default-flavor", "--type=merge", "-p",
                        '{"spec":{"nodeLabels":{"cloud.google.com/gke-accelerator":"nvidia-l4"}}}')
        c.check(r.returncode == 0, f"patch flavor: {r.stderr}")
        r = api.kubectl("apply", "-f", os.path.join(COMPAT, "gke-dws", "job.yaml"))
        c.check(r.returncode == 0, f"kubectl apply job.yaml: {r.stderr}")
        job = cluster.job(api, "sample-job")
        uid = job["metadata"]["uid"]
        wl = cluster.workload_name("sample-job", uid)

        # The first list of Jobs is slow: /readyz says 503 until it is done.
        api.fault(method="GET", path=r"^/apis/batch/v1/jobs$", action="delay", seconds=3, times=1)
        db = os.path.join(d, "gpuq.db")
        config = os.path.join(d, "config.yaml")
        with open(config, "w") as f:
            f.write(FLAVOR.format(name="from-config"))
        g = Daemon(gpuq, api, db, "--config", config)
        status, body = g.get("/readyz")
        c.check(status == 503, f"/readyz before the first sync: {status} {body}")
        c.check(g.get("/healthz")[0] == 200, "/healthz while syncing")
        wait_for("/readyz 200", lambda: g.get("/readyz")[0] == 200)

        pr = wait_for("the ProvisioningRequest", lambda: cluster.pr_of(api, job))
        # B31: no decision before the first full list (the delayed Jobs list) was read.
        lists = [r for r in api.requests() if r.get("verb") == "list" and
                 r.get("resource") == "jobs"]
        first_write = min(r["time"] for r in cluster.writes(api, "podtemplates"))
        c.check(lists and first_write >= lists[0]["time"] + 2.9,
                f"B31: nothing written before the first Jobs list answered: "
                f"list at {lists[0]['time'] if lists else None}, first write at {first_write}")
        prname = f"{wl}-dws-prov-1"
        c.check(pr["metadata"]["name"] == prname, f"request name {pr['metadata']['name']}")
        c.check(pr["metadata"].get("labels", {}).get("kueue.x-k8s.io/managed") == "true",
                "request labelled kueue.x-k8s.io/managed")
        owners = pr["metadata"].get("ownerReferences", [])
        c.check([o.get("uid") for o in owners] == [uid], f"request owned by the Job: {owners}")
        spec = pr["spec"]
        c.check(spec.get("provisioningClassName") == "queued-provisioning.gke.io",
                f"class {spec.get('provisioningClassName')}")
        c.check(spec.get("parameters") == {"maxRunDurationSeconds": "600"},
                f"parameters {spec.get('parameters')}")
        c.check(spec.get("podSets") == [{"podTemplateRef": {"name": f"ppt-{prname}-main"},
                                         "count": 1}], f"podSets {spec.get('podSets')}")
        pts = {p["metadata"]["name"]: p for p in api.objects("podtemplates", "default")}
        pt = pts.get(f"ppt-{prname}-main")
        c.check(pt is not None, f"PodTemplate ppt-{prname}-main: have {list(pts)}")
        if pt:
            ps = pt["template"]["spec"]
            c.check(ps.get("nodeSelector", {}).get("cloud.google.com/gke-accelerator") ==
                    "nvidia-l4", f"template node selector {ps.get('nodeSelector')}")
            res = ps["containers"][0]["resources"]
            c.check(str(res["requests"]["nvidia.com/gpu"]) == "1", f"template requests {res}")
            c.check([o.get("uid") for o in pt["metadata"].get("ownerReferences", [])] == [uid],
                    "PodTemplate owned by the Job")
        c.check(cluster.job(api, "sample-job")["spec"]["suspend"] is True,
                "still suspended before Provisioned")

        api.clear_requests()
        t0 = time.time()
        cluster.provisioned(api, pr)
        j = wait_for("the unsuspend", lambda: cluster.unsuspended(api, "sample-job"))
        print(f"unsuspended {1000 * (time.time() - t0):.0f} ms after Provisioned=True")
        patches = cluster.writes(api, "jobs", "sample-job")
        c.check(len(patches) == 1 and patches[0]["verb"] == "patch" and
                patches[0]["content_type"].startswith("application/merge-patch+json"),
                f"one merge patch: {patches}")
        t = j["spec"]["template"]
        ann = t["metadata"].get("annotations", {})
        c.check(ann.get("autoscaling.x-k8s.io/consume-provisioning-request") == prname,
                f"consume annotation {ann}")
        c.check(ann.get("autoscaling.x-k8s.io/provisioning-class-name") ==
                "queued-provisioning.gke.io", "class annotation")
        c.check(t["spec"].get("nodeSelector", {}).get("cloud.google.com/gke-accelerator") ==
                "nvidia-l4", f"flavor node selector {t['spec'].get('nodeSelector')}")
        c.check(t["spec"].get("nodeSelector", {}).get("cloud.google.com/gke-nodepool") ==
                "NODEPOOL_NAME", "the job's own node selector kept")
        c.check(t["metadata"].get("labels", {}).get("kueue.x-k8s.io/podset") == "main",
                "podset label")
        c.check("gpuq.dev/admission" in j["metadata"].get("annotations", {}),
                "admission annotation on the Job")

        wls = cluster.gpuq_json(gpuq, db, "list", "-A")["items"]
        c.check(len(wls) == 1 and wls[0]["metadata"]["name"] == wl, f"workloads {wls}")

        cluster.finish(api, "sample-job")
        wait_for("the request deleted", lambda: not cluster.prs(api))
        wait_for("finished", lambda: cluster.gpuq_json(gpuq, db, "list", "-A", "--status",
                                                       "finished")["items"])
        c.check(not api.objects("podtemplates", "default"), "templates deleted")
        # SIGHUP applies --config again.
        with open(config, "a") as f:
            f.write("---\n" + FLAVOR.format(name="after-hup"))
        g.proc.send_signal(signal.SIGHUP)
        names = lambda: {x["metadata"]["name"] for x in  # noqa: E731
                         cluster.gpuq_json(gpuq, db, "list", "flavors")["items"]}
        wait_for("the reloaded config", lambda: "after-hup" in names())
        c.check("from-config" in names(), "--config applied at start")
        c.check(g.stop() == 0, f"SIGTERM: clean exit\n{g.logtext()}")
        log = g.logtext()
        c.check("unsuspended" in log and "created" in log, "log lines per event")
    return c.done()


if __name__ == "__main__":
    sys.exit(main())
