#!/usr/bin/env python3
"""Issue 16, acceptance check 7, held to kubectl: for the same files, `gpuq apply` warns of the
same unknown fields, in the same words, as kubectl 1.32 does against an API server that serves
Kueue's real CRDs (the fake API server of tests/kubeapi, with tests/data/kueue-api/crd): `kubectl
apply --validate=warn` prints `Warning: unknown field "PATH"` per field, and `--validate=strict`
fails with `strict decoding error: unknown field "PATH", ...`, which `gpuq apply --strict` ends
its one-line error with. The fake server checks the fields of custom resources against their
schema but neither metadata nor the fields of built-in kinds (a real one does both), so the
flavor's unknown metadata.labelz and the Job of tests/data/fields/kinds.yaml are left out here;
tests/cli/fields.t holds those to ObjectMeta and Kubernetes' JobSpec.

Usage: test_fields_kubectl.py GPUQ_BINARY."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "kubeapi"))
from common import Checks, binary, gpuq, scratch  # noqa: E402
from kubeapi import FakeAPI  # noqa: E402

DATA = os.path.normpath(os.path.join(HERE, "../data"))
CRDS = [os.path.join(DATA, "kueue-api/crd", f"kueue.x-k8s.io_{k}.yaml")
        for k in ("clusterqueues", "localqueues", "resourceflavors", "workloadpriorityclasses")]

def documents(tmp):
    """The test files, one document each so that kubectl's requests and gpuq's lines pair up:
    the documents of tests/data/fields that the fake server can check."""
    paths = [os.path.join(DATA, "fields", "cq-bogus.yaml")]
    with open(os.path.join(DATA, "fields", "nested.yaml"), encoding="utf-8") as f:
        nested = f.read().split("\n---\n")
    with open(os.path.join(DATA, "fields", "kinds.yaml"), encoding="utf-8") as f:
        kinds = f.read().split("\n---\n")
    kinds[0] = kinds[0].replace("  labelz: {team: a}\n", "")
    for i, doc in enumerate(nested + kinds[:2]):
        p = os.path.join(tmp, f"doc{i}.yaml")
        with open(p, "w", encoding="utf-8") as f:
            f.write(doc)
        paths.append(p)
    return paths


def warnings(stderr):
    return [line for line in stderr.splitlines() if line.startswith("Warning: unknown field")]


def main():
    c, exe = Checks(), binary()
    with scratch() as tmp, FakeAPI(os.path.join(tmp, "api"), crds=CRDS) as api:
        total = 0
        for path in documents(tmp):
            name = os.path.basename(path)
            db = os.path.join(tmp, name + ".db")
            k = api.kubectl("apply", "--validate=warn", "-f", path)
            g = gpuq(exe, db, "apply", "-f", path)
            c.check(k.returncode == 0 and g.returncode == 0,
                    f"{name}: kubectl {k.returncode} {k.stderr!r}, gpuq {g.returncode} {g.stderr!r}")
            c.check(warnings(k.stderr) == warnings(g.stderr),
                    f"{name}: kubectl warns {warnings(k.stderr)}, gpuq {warnings(g.stderr)}")
            unknown = warnings(g.stderr)
            total += len(unknown)
            api.kubectl("delete", "-f", path)
            k = api.kubectl("apply", "--validate=strict", "-f", path)
            g = gpuq(exe, db + "-strict", "apply", "--strict", "-f", path)
            if unknown:
                want = k.stderr.strip().rpartition(": strict decoding error: ")[2]
                got = g.stderr.strip().rpartition(": strict decoding error: ")[2]
                c.check(k.returncode == 1 and g.returncode == 1 and want == got and
                        g.stderr.count("\n") == 1,
                        f"{name}: --strict: kubectl {k.stderr!r}, gpuq {g.stderr!r}")
            else:
                c.check(k.returncode == 0 and g.returncode == 0,
                        f"{name}: --strict: kubectl {k.stderr!r}, gpuq {g.stderr!r}")
        c.check(total >= 5, f"only {total} unknown fields were compared")
    return c.done()


if __name__ == "__main__":
    raise SystemExit(main())
