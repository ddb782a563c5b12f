"""gpuq list pods --for workload/NAME|job/NAME in cluster mode, kueuectl's
`list pods --for`: the pods of the workload's Job, found by the Job's pod
label, shown as kubectl's pod printer shows them (READY, STATUS from the
containers' states, RESTARTS), and the same objects kubectl itself lists
for -o name and -o jsonpath; -l narrows them; bad --for values, a workload
that does not exist and local mode are one-line errors."""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import Checks, binary  # noqa: E402
from cluster import FakeAPI  # noqa: E402

JOB = """apiVersion: batch/v1
kind: Job
metadata:
  name: train
  labels: {kueue.x-k8s.io/queue-name: q}
spec:
  suspend: true
  template:
    spec:
      containers: [{name: c, image: busybox}]
      restartPolicy: Never
"""

POD = """apiVersion: v1
kind: Pod
metadata:
  name: {name}
  labels: {{batch.kubernetes.io/job-name: {job}, role: {role}}}
spec:
  containers: [{{name: c, image: busybox}}]
---
"""

STATUSES = {
    "train-a": {"phase": "Running", "podIP": "10.0.0.7",
                "containerStatuses": [{"name": "c", "ready": True, "restartCount": 2,
                                       "state": {"running": {"startedAt": "2026-01-01T00:00:00Z"}}}]},
    "train-b": {"phase": "Pending",
                "containerStatuses": [{"name": "c", "ready": False, "restartCount": 0,
                                       "state": {"waiting": {"reason": "ErrImagePull"}}}]},
    "train-c": {"phase": "Failed",
                "containerStatuses": [{"name": "c", "ready": False, "restartCount": 1,
                                       "state": {"terminated": {"exitCode": 3}}}]},
}


def main():
    gq = binary()
    c = Checks()
    with tempfile.TemporaryDirectory(prefix="gpuq-pods-") as tmp, FakeAPI(tmp) as api:
        env = {k: v for k, v in os.environ.items() if k not in ("KUBECONFIG", "GPUQ_DB")}
        env.update(NO_COLOR="1", HOME=api.dir)
        kc = api.kubeconfig("admin")

        def run(*args):
            return subprocess.run([gq, "--kubeconfig", kc, *args], capture_output=True, text=True,
                                  env=env, timeout=120)

        def kubectl(*args):
            return subprocess.run(["kubectl", "--kubeconfig", kc, "--cache-dir",
                                   os.path.join(tmp, "kc"), *args], capture_output=True,
                                  text=True, timeout=120)

        for name, text in (("job.yaml", JOB),
                           ("pods.yaml", "".join(POD.format(name=n, job=j, role=r) for n, j, r in (
                               ("train-a", "train", "worker"), ("train-b", "train", "worker"),
                               ("train-c", "train", "launcher"), ("other-a", "other", "worker"))))):
            path = os.path.join(tmp, name)
            with open(path, "w") as f:
                f.write(text)
            r = api.kubectl("apply", "-f", path)
            c.check(r.returncode == 0, f"kubectl apply {name}: {r.stderr}")
        for name, status in STATUSES.items():
            api.set_status("pods", "default", name, status)

        r = run("get", "-o", "name")
        wl = r.stdout.strip().split("/")[-1]
        c.check(r.returncode == 0 and wl == "train", f"cluster mode lists the Job: {r.stdout!r}")
        r = run("get", "-o", "jsonpath={.items[0].metadata.uid}")
        uid = r.stdout.strip()

        r = run("list", "pods", "--for", "job/train", "--no-headers")
        rows = [ln.split() for ln in r.stdout.splitlines()]
        c.check(r.returncode == 0, f"list pods --for job/train: {r.stderr}")
        want = [["train-a", "1/1", "Running", "2"], ["train-b", "0/1", "ErrImagePull", "0"],
                ["train-c", "0/1", "ExitCode:3", "1"]]
        c.check([row[:4] for row in rows] == want, f"kubectl's pod columns: {rows}")
        r = run("list", "pods", "--for", "job/train", "-o", "wide")
        c.check(r.returncode == 0 and r.stdout.splitlines()[0].split() ==
                ["NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE"] and
                "10.0.0.7" in r.stdout, f"-o wide: {r.stdout!r}")

        # The workload's name (-o wide's WORKLOAD column, made from the Job's as Kueue
        # makes it), and the Job's name the table shows without gpuqd, find the same pods.
        r = run("get", "-o", "wide")
        lines = r.stdout.splitlines()
        at = lines[0].find("WORKLOAD") if lines else -1
        names = [lines[1][at:].split()[0]] if at >= 0 and len(lines) > 1 else []
        c.check(r.returncode == 0 and names and names[0].startswith("job-train-"),
                f"-o wide names the workload: {r.stdout!r} {r.stderr!r}")
        for name in names + ["train"]:
            r = run("list", "pods", "--for", f"workload/{name}", "--no-headers")
            c.check(r.returncode == 0 and [ln.split()[0] for ln in r.stdout.splitlines()] ==
                    ["train-a", "train-b", "train-c"], f"--for workload/{name}: {r.stdout!r} "
                    f"{r.stderr!r} (uid {uid})")

        for args in (["-o", "name"], ["-o", "jsonpath={.items[*].metadata.name}"],
                     ["-l", "role=worker", "-o", "name"],
                     ["--sort-by=.metadata.name", "-o", "custom-columns=N:.metadata.name"]):
            g = run("get", "pods", "--for", "job/train", *args)
            selector = "batch.kubernetes.io/job-name=train"
            extra = [a for a in args]
            if "-l" in extra:
                i = extra.index("-l")
                selector += "," + extra[i + 1]
                del extra[i:i + 2]
            k = kubectl("get", "pods", "-l", selector, *extra)
            c.check(g.returncode == 0 and g.stdout == k.stdout,
                    f"pods {args}: gpuq {g.stdout!r} {g.stderr!r} kubectl {k.stdout!r}")

        for args, want in (
                (["list", "pods"], 'error: required flag(s) "for" not set'),
                (["list", "pods", "--for", "train"], "error: invalid value 'train' used in --for"),
                (["list", "pods", "--for", "workload/nope"],
                 'Error from server (NotFound): workloads.kueue.x-k8s.io "nope" not found'),
                (["list", "pods", "--for", "deployment/x"], "error: list pods --for takes"),
                (["list", "pods", "--for", "job/Bad_Name"], "error: --for job/Bad_Name: "),
                (["list", "pods", "--for", "job/train", "-A"], "error: a resource cannot be")):
            r = run(*args)
            err = "".join(ln for ln in r.stderr.splitlines(True) if not ln.startswith("note: "))
            c.check(r.returncode != 0 and r.stdout == "" and err.startswith(want) and
                    len(err.strip().splitlines()) == 1, f"{args}: {r.returncode} {r.stderr!r}")
        r = subprocess.run([gq, "--db", os.path.join(tmp, "l.db"), "list", "pods", "--for",
                            "job/train"], capture_output=True, text=True, env=env, timeout=60)
        c.check(r.returncode == 2 and r.stderr.startswith("error: list pods reads a cluster"),
                f"local mode: {r.returncode} {r.stderr!r}")
    return c.done()


if __name__ == "__main__":
    sys.exit(main())
