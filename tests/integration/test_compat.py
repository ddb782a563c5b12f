#!/usr/bin/env python3
"""Issue 2, acceptance check 2: every manifest of the compat corpus loads
with `gpuq apply -f FILE` into an empty database and exits 0; kinds gpuq
does not model are listed as skipped; each modelled document gets a line.

The corpus ships in tests/data/compat, so a clone tests itself (issue 13,
F29). Where the team's shared corpus sits beside the checkout (../shared),
the copy must equal it file for file: the copy never drifts unseen.

Issue 16: real upstream manifests raise no unknown-field warning (each such warning would be a
wrong field table or a typo upstream); the fields gpuq accepts but does not enforce are warned
of, each in its own line, counted and printed per field at the end."""
import filecmp
import glob
import os
import re
from collections import Counter

from common import COMPAT, HERE, Checks, binary, gpuq, scratch

SHARED = os.path.normpath(os.path.join(HERE, "../../../shared/compat"))


def tree(top):
    return sorted(os.path.relpath(os.path.join(d, f), top)
                  for d, _, fs in os.walk(top) for f in fs)


def same_as_shared(c):
    if not os.path.isdir(SHARED):
        print(f"no shared corpus at {SHARED}: the copy is not compared")
        return
    ours, theirs = tree(COMPAT), tree(SHARED)
    c.check(ours == theirs, f"tests/data/compat and {SHARED} list different files: "
            f"{sorted(set(ours) ^ set(theirs))[:10]}")
    differ = [f for f in set(ours) & set(theirs)
              if not filecmp.cmp(os.path.join(COMPAT, f), os.path.join(SHARED, f), shallow=False)]
    c.check(not differ, f"tests/data/compat differs from the shared corpus: {sorted(differ)[:10]}")


def documents(path):
    """Non-empty documents of a YAML stream, with their kind (split on --- lines)."""
    text = open(path, encoding="utf-8").read()
    docs = re.split(r"(?m)^---[ \t]*$", text)
    kinds = []
    for d in docs:
        m = re.search(r"(?m)^kind:\s*\"?([A-Za-z]+)", d)
        if m:
            kinds.append(m.group(1))
    return kinds


NOT_ENFORCED = re.compile(r'Warning: field "([^"]+)" is accepted but not enforced by gpuq')


def main():
    c, exe = Checks(), binary()
    not_enforced = Counter()
    same_as_shared(c)
    files = sorted(glob.glob(os.path.join(COMPAT, "**", "*.yaml"), recursive=True))
    c.check(len(files) >= 40, f"found {len(files)} compat manifests")
    for f in files:
        name = os.path.relpath(f, COMPAT)
        with scratch() as tmp:
            db = os.path.join(tmp, "gpuq.db")
            p = gpuq(exe, db, "apply", "-f", f)
            if not c.check(p.returncode == 0, f"{name}: exit {p.returncode}: {p.stderr.strip()}"):
                continue
            out = [l for l in p.stdout.splitlines() if l]
            skipped = [l for l in p.stderr.splitlines() if l.startswith("skipped: ")]
            warned = [m.group(1) for m in map(NOT_ENFORCED.fullmatch, p.stderr.splitlines()) if m]
            not_enforced.update(warned)
            other = [l for l in p.stderr.splitlines()
                     if not l.startswith("skipped: ") and not NOT_ENFORCED.fullmatch(l)]
            c.check(not other, f"{name}: unexpected stderr (an unknown field?) {other}")
            # A document repeating one before it in the same file is unchanged (GKE's
            # dws-multi.yaml defines multikueuecluster/multikueue-dws-worker-asia twice).
            c.check(all(re.fullmatch(r"[-a-z0-9.]+/[-a-z0-9.]+ created( \(pending: .*\))?", l)
                        or (l.endswith(" unchanged") and
                            l.replace(" unchanged", " created") in out[:i])
                        for i, l in enumerate(out)), f"{name}: output {out}")
            c.check(len(out) + len(skipped) == len(documents(f)),
                    f"{name}: {len(out)} applied + {len(skipped)} skipped != "
                    f"{len(documents(f))} documents")
            # Not modelled, or a kind of job gpuq knows but cannot queue (issue 15: no suspend
            # switch; a TrainJob whose runtime has not been applied), with the reason.
            for s in skipped:
                c.check("is not modelled by gpuq" in s or "is not queued by gpuq: " in s,
                        f"{name}: skip line {s!r}")
            # --strict turns any skip into an error, and then nothing is written.
            if skipped:
                db2 = os.path.join(tmp, "strict.db")
                p = gpuq(exe, db2, "apply", "--strict", "-f", f)
                c.check(p.returncode == 1 and p.stdout == "", f"{name}: --strict exit "
                        f"{p.returncode}, stdout {p.stdout!r}")
                p = gpuq(exe, db2, "list", "-A", "-o", "name")
                q = gpuq(exe, db2, "list", "clusterqueues", "-o", "name")
                c.check(p.stdout == "" and q.stdout == "", f"{name}: --strict wrote something")
            # Applying the same file again changes nothing (a job says where it waits; one
            # named by generateName is a new object each time, as with kubectl create).
            generated = "generateName:" in open(f, encoding="utf-8").read()
            p = gpuq(exe, db, "apply", "-f", f)
            c.check(p.returncode == 0 and all(
                re.fullmatch(r"\S+ unchanged( \(pending: .*\))?", l) or
                (generated and re.fullmatch(r"\S+ created( \(pending: .*\))?", l))
                for l in p.stdout.splitlines()),
                f"{name}: second apply: {p.stdout!r} {p.stderr!r}")
    print(f"not-enforced warnings over the corpus: {sum(not_enforced.values())} "
          f"({', '.join(f'{k} x{v}' for k, v in sorted(not_enforced.items())) or 'none'}); "
          "unknown-field warnings: 0")
    return c.done()


if __name__ == "__main__":
    raise SystemExit(main())
