"""Shared helpers for gpuq's integration tests: run the real binary against
a real database file in a scratch directory, and count checks the way every
test here reports them ("N passed, M failed")."""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
# Real manifests, shipped with the tests (a verbatim copy of the shared compat corpus).
COMPAT = os.path.normpath(os.path.join(HERE, "../data/compat"))


class Checks:
    def __init__(self):
        self.passed = self.failed = 0

    def check(self, cond, what):
        if cond:
            self.passed += 1
        else:
            self.failed += 1
            print(f"FAIL: {what}", flush=True)
        return cond

    def done(self):
        print(f"{self.passed} passed, {self.failed} failed")
        return 1 if self.failed else 0


def gpuq(binary, db, *args, stdin=None, timeout=120):
    env = dict(os.environ, NO_COLOR="1")
    return subprocess.run([binary, "--db", db, *args], input=stdin, capture_output=True,
                          text=True, timeout=timeout, env=env)


def scratch():
    return tempfile.TemporaryDirectory(prefix="gpuq-it-")


def has_test_hooks(binary):
    """Whether this build has the test hooks (GQ_TEST_HOOKS: Debug builds only): crash
    points (GQ_CRASH_AT), the service account's directory, the watch's idle limit. A
    Release build has none, and the cases that need them are skipped, saying so."""
    # A command that creates the database, so that its migrations run and the crash point
    # fires (`list` on a database that does not exist stops before, which made this probe
    # answer "no hooks" in Debug builds too and skip every crash case).
    with scratch() as tmp:
        env = dict(os.environ, NO_COLOR="1", GQ_CRASH_AT="mid-migration")
        p = subprocess.run([binary, "--db", os.path.join(tmp, "probe.db"), "apply", "-f", "-"],
                           input="", capture_output=True, text=True, timeout=60, env=env)
        return p.returncode == 137


def binary():
    return os.path.abspath(sys.argv[1])


# A flavor, a ClusterQueue with room for cpu, memory and GPUs, and LocalQueue
# "q" in namespace default: the setup most tests and the benchmarks start from
# (QUEUES); queues() gives the same with other quotas.
def queues(cpu=1000, memory="4Ti", gpus=64):
    return f"""apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {{name: default-flavor}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {{name: cq}}
spec:
  namespaceSelector: {{}}
  resourceGroups:
  - coveredResources: [cpu, memory, nvidia.com/gpu]
    flavors:
    - name: default-flavor
      resources:
      - {{name: cpu, nominalQuota: {cpu}}}
      - {{name: memory, nominalQuota: {memory}}}
      - {{name: nvidia.com/gpu, nominalQuota: {gpus}}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {{name: q, namespace: default}}
spec: {{clusterQueue: cq}}
"""


QUEUES = queues()

# One GPU Job for queue "q", as a user writes it; format with i=N.
JOB = """apiVersion: batch/v1
kind: Job
metadata:
  name: job-{i}
  namespace: default
  labels:
    kueue.x-k8s.io/queue-name: q
spec:
  parallelism: 1
  completions: 1
  suspend: true
  template:
    spec:
      containers:
      - name: main
        image: busybox
        args: ["sleep", "60"]
        resources:
          requests:
            cpu: "100m"
            memory: "100Mi"
            nvidia.com/gpu: 1
          limits:
            nvidia.com/gpu: 1
      restartPolicy: Never
---
"""
