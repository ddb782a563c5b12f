"""Issue 13 loose ends: gpuqd's writes that matter are conditional.

1. A Job whose resourceVersion gpuqd never learned (the first list answers
   it without one, so the stored job_rv is NULL) is still released with a
   conditional patch: gpuqd reads the Job first and names its
   resourceVersion, rather than sending "" (which the API server takes as
   "no condition", so a deposed leader's write would go through).
2. The PodTemplates of a finished Job's ProvisioningRequest are deleted with
   preconditions.uid naming the template read, as the request itself is.
Both read from the test API server's request log."""
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import Checks, binary  # noqa: E402
import cluster  # noqa: E402
from cluster import Daemon, FakeAPI, wait_for  # noqa: E402

JOBS = "/apis/batch/v1/jobs"


def list_without_rv(api):
    """The Job list as the server answers it, each Job's resourceVersion removed."""
    code, lst = api.call("GET", JOBS)
    assert code == 200, lst
    for item in lst["items"]:
        item["metadata"].pop("resourceVersion", None)
    return lst


def body_of(r):
    try:
        return json.loads(r.get("body") or "{}")
    except ValueError:
        return {}


def check_release_guarded(c, api):
    patches = api.requests(verb="patch", resource="jobs", name="norv")
    rvs = [body_of(r).get("metadata", {}).get("resourceVersion") for r in patches]
    print(f"norv's patches name resourceVersions {rvs}")
    c.check(patches and all(rvs), f"every patch of norv names a resourceVersion: {rvs}")
    c.check(any(r.get("status") == 200 for r in patches), "the release went through")


def check_template_deletes(c, api, uids):
    deletes = api.requests(verb="delete", resource="podtemplates")
    pre = {r.get("name"): body_of(r).get("preconditions", {}).get("uid") for r in deletes}
    print(f"PodTemplate deletes, name -> preconditions.uid: {pre}")
    c.check(pre and pre == uids, f"each PodTemplate deleted on its own uid: {pre} vs {uids}")
    c.check(all(r.get("status") == 200 for r in deletes),
            f"the deletes succeed: {[r.get('status') for r in deletes]}")


def main():
    c = Checks()
    gpuq = binary()
    with tempfile.TemporaryDirectory(prefix="gpuq-guard-") as d, \
            FakeAPI(os.path.join(d, "api"), users=["alice"], crds=cluster.CRDS) as api:
        cluster.setup_queues(api)
        job = cluster.create_job(api, "norv")
        api.fault(method="GET", path="^" + JOBS + "$", query="^(?!.*watch)", action="status",
                  code=200, body=json.dumps(list_without_rv(api)),
                  content_type="application/json", times=1)
        g = Daemon(gpuq, api, os.path.join(d, "g.db"))
        try:
            pr = wait_for("norv's request", lambda: cluster.pr_of(api, job))
            c.check(api.faults() == [], f"gpuqd's first Job list had no resourceVersion: "
                    f"{api.faults()}")
            uids = {t["metadata"]["name"]: t["metadata"]["uid"]
                    for t in api.objects("podtemplates", "default")}
            cluster.provisioned(api, pr)
            wait_for("norv unsuspended", lambda: cluster.unsuspended(api, "norv"))
            check_release_guarded(c, api)

            cluster.finish(api, "norv")
            wait_for("the templates deleted",
                     lambda: not api.objects("podtemplates", "default") and
                     not cluster.prs(api, "default"))
            check_template_deletes(c, api, uids)
        finally:
            g.stop()
    return c.done()


if __name__ == "__main__":
    sys.exit(main())
