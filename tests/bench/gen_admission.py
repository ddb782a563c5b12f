#!/usr/bin/env python3
"""Generate the admission benchmark's manifests (issue: "1,000 ClusterQueues in
100 cohorts ... and 100,000 pending workloads"), deterministically: a fixed
seed and the standard library only, so every run measures the same cluster.

  queues.yaml  4 ResourceFlavors (two GPU types, each on-demand and spot),
               Namespaces team-0..team-9, WorkloadPriorityClasses low, medium
               and high, CQS ClusterQueues in COHORTS cohorts (v1beta1
               spec.cohort), each with one resource group covering cpu, memory
               and nvidia.com/gpu over 1-3 flavors, nominal quotas, some
               borrowingLimit and lendingLimit, half with preemption
               (withinClusterQueue LowerPriority, reclaimWithinCohort Any),
               about 70% BestEffortFIFO and 30% StrictFIFO; one LocalQueue
               per ClusterQueue.
  jobs.yaml    JOBS suspended batch/v1 Jobs (jobsets.yaml with --jobsets: the same
               jobs as JobSets of two pod sets) spread unevenly over the
               LocalQueues (so some queues borrow and others lend), 60% with a
               priority class, parallelism 1-8, mixed cpu/memory/GPU requests.

Quotas are sized so that about a quarter of the workloads are admitted and
the rest stay pending as inadmissible; preemption (a few thousand evictions at
full size) comes from queues reclaiming what their cohort borrowed and from
higher priorities preempting lower ones in their queue.

--strict-preemptors makes every queue with preemption StrictFIFO. Before
commit 595d78a ("Preemption looks only at its own cohort tree") the default
cluster fell into endless preemption loops and `gpuq schedule --until-stable`
never returned; if a later engine loops again, this tells whether the loop
needs a BestEffortFIFO queue that sets its preempting head aside (the
kubernetes-sigs/kueue#6947 family).

Usage: gen_admission.py OUTDIR [--cqs N] [--cohorts N] [--jobs N] [--seed N]
                        [--strict-preemptors] [--jobsets]
Prints one line: what it wrote.
"""
import argparse
import os
import random

FLAVORS = ["a100-on-demand", "a100-spot", "h100-on-demand", "h100-spot"]
NAMESPACES = 10
PRIORITIES = [("low", 100), ("medium", 500), ("high", 1000)]


def weighted(rng, table):
    """table: [(value, weight), ...] -> one value."""
    r = rng.random() * sum(w for _, w in table)
    for v, w in table:
        r -= w
        if r < 0:
            return v
    return table[-1][0]


def queue_docs(rng, cqs, cohorts, strict_preemptors):
    out = []
    for f in FLAVORS:
        gpu, kind = f.split("-", 1)
        out.append(f"""apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata:
  name: {f}
spec:
  nodeLabels:
    gpu-type: {gpu}
    capacity: {kind}
""")
    for i in range(NAMESPACES):
        out.append(f"apiVersion: v1\nkind: Namespace\nmetadata:\n  name: team-{i}\n")
    for name, value in PRIORITIES:
        out.append(f"""apiVersion: kueue.x-k8s.io/v1beta1
kind: WorkloadPriorityClass
metadata:
  name: {name}
value: {value}
description: "bench {name}"
""")
    per = max(1, cqs // cohorts)
    for q in range(cqs):
        nflavors = weighted(rng, [(1, 3), (2, 4), (3, 3)])
        flavors = rng.sample(FLAVORS, nflavors)
        # on-demand before spot, as one would order them to prefer on-demand
        flavors.sort(key=lambda f: (f.endswith("spot"), f))
        borrow = rng.random() < 0.3
        lend = rng.random() < 0.3
        lines = []
        for f in flavors:
            gpus = weighted(rng, [(0, 1), (32, 3), (64, 4), (96, 3), (128, 2)])
            lines.append(f"    - name: {f}\n      resources:")
            for res, nominal in (("cpu", gpus * 10), ("memory", f"{gpus * 48}Gi"),
                                 ("nvidia.com/gpu", gpus)):
                lines.append(f"      - name: {res}\n        nominalQuota: {nominal}")
                if res == "memory":
                    continue
                amount = gpus if res == "nvidia.com/gpu" else gpus * 10
                if borrow:
                    lines.append(f"        borrowingLimit: {amount // 2}")
                if lend:
                    lines.append(f"        lendingLimit: {amount // 2}")
        strategy = "StrictFIFO" if rng.random() < 0.3 else "BestEffortFIFO"
        preemption = ""
        if q % 2 == 0:
            if strict_preemptors:
                strategy = "StrictFIFO"
            preemption = ("  preemption:\n    withinClusterQueue: LowerPriority\n"
                          "    reclaimWithinCohort: Any\n")
        body = "\n".join(lines)
        out.append(f"""apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata:
  name: cq-{q:04d}
spec:
  cohort: cohort-{min(q // per, cohorts - 1):03d}
  namespaceSelector: {{}}
  queueingStrategy: {strategy}
{preemption}  resourceGroups:
  - coveredResources: ["cpu", "memory", "nvidia.com/gpu"]
    flavors:
{body}
""")
        out.append(f"""apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata:
  namespace: team-{q % NAMESPACES}
  name: lq-{q:04d}
spec:
  clusterQueue: cq-{q:04d}
""")
    return out


def job_doc(rng, j, q, jobset=False):
    parallelism = weighted(rng, [(1, 40), (2, 20), (3, 3), (4, 20), (5, 2), (6, 3), (7, 2),
                                 (8, 10)])
    gpus = weighted(rng, [(0, 10), (1, 40), (2, 25), (4, 15), (8, 10)])
    if gpus:
        cpu = gpus * rng.choice((4, 6, 8))
        mem = gpus * rng.choice((16, 32, 40))
    else:
        cpu = rng.choice((1, 2, 4, 8, 16))
        mem = cpu * rng.choice((2, 4, 8))
    prio = weighted(rng, [(None, 40), ("low", 20), ("medium", 25), ("high", 15)])
    labels = f"    kueue.x-k8s.io/queue-name: lq-{q:04d}\n"
    if prio:
        labels += f"    kueue.x-k8s.io/priority-class: {prio}\n"
    gpu_req = f"\n            nvidia.com/gpu: {gpus}" if gpus else ""
    gpu_lim = f"\n          limits:\n            nvidia.com/gpu: {gpus}" if gpus else ""
    if jobset:
        return jobset_doc(j, q, labels, parallelism, cpu, mem, gpus)
    return f"""apiVersion: batch/v1
kind: Job
metadata:
  name: job-{j:06d}
  namespace: team-{q % NAMESPACES}
  labels:
{labels}spec:
  parallelism: {parallelism}
  completions: {parallelism}
  suspend: true
  template:
    spec:
      containers:
      - name: main
        image: busybox
        resources:
          requests:
            cpu: "{cpu}"
            memory: {mem}Gi{gpu_req}{gpu_lim}
      restartPolicy: Never
"""


def jobset_doc(j, q, labels, parallelism, cpu, mem, gpus):
    """The same job as a JobSet of two pod sets (issue 15, acceptance 7): a one-pod
    "leader" asking for a little CPU, and "workers", the Job's pods."""
    ind = "                "
    gpu_req = f"\n{ind}  nvidia.com/gpu: {gpus}" if gpus else ""
    gpu_lim = f"\n{ind}limits:\n{ind}  nvidia.com/gpu: {gpus}" if gpus else ""
    return f"""apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  name: jobset-{j:06d}
  namespace: team-{q % NAMESPACES}
  labels:
{labels}spec:
  suspend: true
  replicatedJobs:
  - name: leader
    template:
      spec:
        template:
          spec:
            containers:
            - name: main
              image: busybox
              resources:
                requests:
                  cpu: "1"
                  memory: 1Gi
            restartPolicy: Never
  - name: workers
    template:
      spec:
        parallelism: {parallelism}
        completions: {parallelism}
        template:
          spec:
            containers:
            - name: main
              image: busybox
              resources:
{ind}requests:
{ind}  cpu: "{cpu}"
{ind}  memory: {mem}Gi{gpu_req}{gpu_lim}
            restartPolicy: Never
"""


def generate(outdir, cqs=1000, cohorts=100, jobs=100000, seed=20240601,
             strict_preemptors=False, jobsets=False):
    """Write OUTDIR/queues.yaml and OUTDIR/jobs.yaml; return their paths."""
    rng = random.Random(seed)
    os.makedirs(outdir, exist_ok=True)
    queues = os.path.join(outdir, "queues.yaml")
    with open(queues, "w") as f:
        f.write("---\n".join(queue_docs(rng, cqs, cohorts, strict_preemptors)))
    # Uneven demand: a queue's weight is 0.2-2.0, so busy queues borrow what
    # quiet ones leave unused, and the quiet ones later reclaim some of it.
    weights = [rng.uniform(0.2, 2.0) for _ in range(cqs)]
    targets = rng.choices(range(cqs), weights=weights, k=jobs)
    path = os.path.join(outdir, "jobsets.yaml" if jobsets else "jobs.yaml")
    with open(path, "w") as f:
        f.write("---\n".join(job_doc(rng, j, q, jobsets) for j, q in enumerate(targets)))
    return queues, path


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--cqs", type=int, default=1000)
    ap.add_argument("--cohorts", type=int, default=100)
    ap.add_argument("--jobs", type=int, default=100000)
    ap.add_argument("--seed", type=int, default=20240601)
    ap.add_argument("--jobsets", action="store_true",
                    help="each job as a JobSet of two pod sets (leader and workers)")
    ap.add_argument("--strict-preemptors", action="store_true",
                    help="make the queues with preemption StrictFIFO (see above)")
    a = ap.parse_args()
    queues, jobs = generate(a.outdir, a.cqs, a.cohorts, a.jobs, a.seed, a.strict_preemptors,
                            a.jobsets)
    print(f"wrote {queues} ({a.cqs} ClusterQueues, {a.cohorts} cohorts) and {jobs} "
          f"({a.jobs} Jobs, {os.path.getsize(jobs) >> 20} MiB)")


if __name__ == "__main__":
    main()
