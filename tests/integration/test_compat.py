#!/usr/bin/env python3
"""Issue 2, acceptance check 2: every manifest under ../shared/compat loads
with `gpuq apply -f FILE` into an empty database and exits 0; kinds gpuq
does not model are listed as skipped; each modelled document gets a line."""
import glob
import os
import re

from common import COMPAT, Checks, binary, gpuq, scratch


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


def main():
    c, exe = Checks(), binary()
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
            other = [l for l in p.stderr.splitlines() if not l.startswith("skipped: ")]
            c.check(not other, f"{name}: unexpected stderr {other}")
            c.check(all(re.fullmatch(r"[a-z.]+/[-a-z0-9.]+ created( \(pending: .*\))?", l)
                        for l in out), f"{name}: output {out}")
            c.check(len(out) + len(skipped) == len(documents(f)),
                    f"{name}: {len(out)} applied + {len(skipped)} skipped != "
                    f"{len(documents(f))} documents")
            for s in skipped:
                c.check("is not modelled by gpuq" in s, f"{name}: skip line {s!r}")
            # --strict turns any skip into an error, and then nothing is written.
            if skipped:
                db2 = os.path.join(tmp, "strict.db")
                p = gpuq(exe, db2, "apply", "--strict", "-f", f)
                c.check(p.returncode == 1 and p.stdout == "", f"{name}: --strict exit "
                        f"{p.returncode}, stdout {p.stdout!r}")
                p = gpuq(exe, db2, "list", "-A", "-o", "name")
                q = gpuq(exe, db2, "list", "clusterqueues", "-o", "name")
                c.check(p.stdout == "" and q.stdout == "", f"{name}: --strict wrote something")
            # Applying the same file again changes nothing.
            p = gpuq(exe, db, "apply", "-f", f)
            c.check(p.returncode == 0 and all(l.endswith(" unchanged") for l in
                                              p.stdout.splitlines() if "job.batch/" not in l),
                    f"{name}: second apply: {p.stdout!r} {p.stderr!r}")
    return c.done()


if __name__ == "__main__":
    raise SystemExit(main())
