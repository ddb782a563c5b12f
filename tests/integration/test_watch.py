"""gpuq get -w and --watch-only, as kubectl's: the listing, then one row per
change while other processes submit and cancel (a cancelled workload's row
says CANCELLED), nothing for a change that touches no listed row, -l keeping
to its selection, and in cluster mode the Jobs a user creates with kubectl
(and -l and -o jsonpath on what cluster mode lists).
Each wait is for a line to arrive, with a generous deadline: nothing here
depends on how fast the machine is."""
import os
import queue
import re
import signal
import subprocess
import sys
import tempfile
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import Checks, binary, gpuq  # noqa: E402
from cluster import FakeAPI  # noqa: E402

QUEUES = """apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata: {name: default-flavor}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: ["nvidia.com/gpu"]
    flavors:
    - name: default-flavor
      resources: [{name: nvidia.com/gpu, nominalQuota: 0}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {name: q, namespace: default}
spec: {clusterQueue: cq}
"""

JOB = """apiVersion: batch/v1
kind: Job
metadata:
  name: {name}
  labels: {{kueue.x-k8s.io/queue-name: q{extra}}}
spec:
  suspend: true
  template:
    spec:
      containers: [{{name: c, image: busybox, resources: {{requests: {{nvidia.com/gpu: 1}}, limits: {{nvidia.com/gpu: 1}}}}}}]
      restartPolicy: Never
"""

DEADLINE = 90


class Watcher:
    """A `gpuq get -w` process whose stdout lines arrive in a queue."""

    def __init__(self, argv, env):
        self.p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                  env=env)
        self.lines = queue.Queue()
        self.seen = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.p.stdout:
            self.lines.put(line.rstrip("\n"))

    def wait_for(self, pattern):
        """The first line matching pattern that arrives within the deadline, else None."""
        rx = re.compile(pattern)
        while True:
            try:
                line = self.lines.get(timeout=DEADLINE)
            except queue.Empty:
                return None
            self.seen.append(line)
            if rx.search(line):
                return line

    def polling(self):
        """Wait until the watcher sleeps between two reads of the data version: its first
        listing is taken by then (it sleeps nowhere before). Read from /proc/PID/syscall
        (clock_nanosleep or nanosleep), so the test knows rather than guesses."""
        for _ in range(DEADLINE * 20):
            try:
                with open(f"/proc/{self.p.pid}/syscall") as f:
                    if f.read().split(" ")[0] in ("230", "35"):
                        return True
            except OSError:
                return False
            threading.Event().wait(0.05)
        return False

    def drain(self):
        """Lines that have arrived so far (none are waited for)."""
        out = []
        while True:
            try:
                out.append(self.lines.get_nowait())
            except queue.Empty:
                return out

    def stop(self):
        self.p.send_signal(signal.SIGTERM)
        try:
            self.p.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
        return self.p.stderr.read()


def local(c, gq_bin, tmp):
    db = os.path.join(tmp, "w.db")
    env = dict(os.environ, NO_COLOR="1", GPUQ_DB=db)
    env.pop("KUBECONFIG", None)
    r = gpuq(gq_bin, db, "apply", "-f", "-", stdin=QUEUES)
    c.check(r.returncode == 0, f"apply: {r.stderr}")
    r = gpuq(gq_bin, db, "submit", "--queue", "q", "--name", "first", "--gpus", "1")
    first = r.stdout.strip()
    c.check(r.returncode == 0 and first.startswith("job-first-"), f"submit first: {r.stderr}")

    w = Watcher([gq_bin, "get", "workloads", "-w"], env)
    c.check(w.wait_for(r"^NAME +JOB TYPE") is not None, "-w prints the header first")
    c.check(w.wait_for(rf"^{first} +job +first .* PENDING") is not None,
            f"-w lists {first} first: {w.seen}")
    only = Watcher([gq_bin, "get", "workloads", "--watch-only"], env)
    sel = Watcher([gq_bin, "get", "workloads", "-w", "-l", "team=vision", "--no-headers"], env)
    c.check(only.polling() and sel.polling(), "the watchers have taken their first listing")

    r = gpuq(gq_bin, db, "submit", "-f", "-", stdin=JOB.format(name="second", extra=", team: vision"))
    second = r.stdout.strip()
    c.check(r.returncode == 0 and second.startswith("job-second-"), f"submit second: {r.stderr}")
    c.check(w.wait_for(rf"^{second} +job +second .* PENDING") is not None,
            f"-w prints a row when another process submits: {w.seen}")
    c.check(only.wait_for(r"^NAME +JOB TYPE") is not None,
            f"--watch-only prints the header with its first change: {only.seen}")
    line = only.wait_for(rf"^{second} ")
    c.check(line is not None and not any(ln.startswith(first) for ln in only.seen),
            f"--watch-only prints the change, not the listing: {only.seen}")
    c.check(sel.wait_for(rf"^{second} .* PENDING") is not None,
            f"-w -l prints the selected workload: {sel.seen}")

    r = gpuq(gq_bin, db, "cancel", first)
    c.check(r.returncode == 0, f"cancel: {r.stderr}")
    c.check(w.wait_for(rf"^{first} +job +first .* CANCELLED") is not None,
            f"-w prints the cancelled workload's row: {w.seen}")
    r = gpuq(gq_bin, db, "cancel", second)
    c.check(w.wait_for(rf"^{second} .* CANCELLED") is not None,
            f"-w prints the second cancellation: {w.seen}")
    c.check(sel.wait_for(rf"^{second} .* CANCELLED") is not None,
            f"-w -l prints its workload's cancellation: {sel.seen}")
    c.check(not any(ln.startswith(first) for ln in sel.seen + sel.drain()),
            f"-w -l never prints a workload outside its selection: {sel.seen}")
    # A change that touches no listed row prints nothing: a flavor applied, then a
    # workload submitted after it, whose row must be the next line.
    gpuq(gq_bin, db, "apply", "-f", "-",
         stdin="apiVersion: kueue.x-k8s.io/v1beta1\nkind: ResourceFlavor\nmetadata: {name: other}\n")
    r = gpuq(gq_bin, db, "submit", "--queue", "q", "--name", "third", "--gpus", "1")
    third = r.stdout.strip()
    line = w.wait_for(r".")
    c.check(line is not None and line.startswith(third),
            f"the next row after an unrelated change is the new workload's: {line!r}")
    for x, said in ((w, ""), (only, ""), (sel, "No resources found in default namespace.\n")):
        err = x.stop()
        c.check(x.p.returncode in (-signal.SIGTERM, 143), f"-w ends on SIGTERM: {x.p.returncode}")
        c.check(err == said, f"-w says only {said!r} on stderr: {err!r}")
    r = subprocess.run([gq_bin, "get", "workloads", "-w", "-o", "json"], capture_output=True,
                       text=True, env=env, timeout=60)
    c.check(r.returncode == 2 and r.stderr.startswith("error: -w prints table rows"),
            f"-w -o json is refused: {r.returncode} {r.stderr!r}")


def cluster(c, gq_bin, tmp):
    """Without gpuqd, cluster mode lists the labelled Jobs; -w shows one kubectl creates."""
    with FakeAPI(os.path.join(tmp, "api")) as api:
        env = {k: v for k, v in os.environ.items() if k not in ("KUBECONFIG", "GPUQ_DB")}
        env.update(NO_COLOR="1", HOME=api.dir)
        w = Watcher([gq_bin, "--kubeconfig", api.kubeconfig("admin"), "get", "-w"], env)
        path = os.path.join(tmp, "job.yaml")
        with open(path, "w") as f:
            f.write(JOB.format(name="from-kubectl", extra=""))
        r = api.kubectl("apply", "-f", path)
        c.check(r.returncode == 0, f"kubectl apply: {r.stderr}")
        c.check(w.wait_for(r"^from-kubectl +q +PENDING") is not None,
                f"cluster mode -w shows the Job kubectl created: {w.seen}")
        # The selection flags read what cluster mode lists, as locally.
        kc = [gq_bin, "--kubeconfig", api.kubeconfig("admin"), "get"]
        r = subprocess.run(kc + ["-l", "kueue.x-k8s.io/queue-name=q", "-o", "name"],
                           capture_output=True, text=True, env=env, timeout=60)
        c.check(r.returncode == 0 and r.stdout == "job.batch/from-kubectl\n",
                f"cluster mode -l -o name: {r.stdout!r} {r.stderr!r}")
        r = subprocess.run(kc + ["-l", "team", "-o", "name"], capture_output=True, text=True,
                           env=env, timeout=60)
        c.check(r.returncode == 0 and r.stdout == "", f"cluster mode -l team: {r.stdout!r}")
        r = subprocess.run(kc + ["-o", "jsonpath={.items[*].spec.suspend}"], capture_output=True,
                           text=True, env=env, timeout=60)
        c.check(r.returncode == 0 and r.stdout == "true", f"cluster mode jsonpath: {r.stdout!r}")
        r = api.kubectl("delete", "job", "from-kubectl")
        c.check(w.wait_for(r"^from-kubectl ") is not None,
                f"cluster mode -w shows the Job's last row when it goes: {w.seen}")
        err = w.stop()
        c.check(err.count("note:") <= 1, f"the status API note is said once: {err!r}")


def main():
    gq_bin = binary()
    c = Checks()
    with tempfile.TemporaryDirectory(prefix="gpuq-watch-") as tmp:
        local(c, gq_bin, tmp)
        cluster(c, gq_bin, tmp)
    return c.done()


if __name__ == "__main__":
    sys.exit(main())
