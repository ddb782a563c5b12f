#!/usr/bin/env python3
"""Golden tests of the gpuq command line.

Each tests/cli/*.t file is a session against one fresh database:

    # a comment
    $ gpuq apply -f $COMPAT/gke-dws/dws-queues.yaml    a command (sh -c)
    > resourceflavor/default-flavor created             an expected stdout line, exactly
    ~ job-sample-job-[0-9a-f]{5}                        an expected stdout line, a regex
    ! error: ...                                        an expected stderr line, exactly
    !~ error: .*Bad_Name.*                              an expected stderr line, a regex
    ? 1                                                 the expected exit status (default 0)
    = before                                            save stdout under a name (and
                                                        do not check it unless > or ~ lines say)
    == before                                           stdout must equal a saved one

Every line a command prints must be expected, in order. Nothing may depend
on how fast the machine is: a figure measured on the wall clock is never
compared exactly. In ~ lines, {AGE} matches any kubectl-style duration
("0s", "1m5s", "3h"), for the AGE and EXEC TIME columns and a status's
"waiting for capacity (1s)", which count wall time; `gpuq run`'s wall time
is matched with [0-9.]+. Sessions whose story needs time to stand still
set the database's clock to speed 0. Variables: $GPUQ
(the binary), $COMPAT (tests/data/compat), $DATA (tests/data), $TMP (a scratch
directory); GPUQ_DB points at the session's database. Usage:
run.py GPUQ_BINARY FILE.t...
"""
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def parse(path):
    steps, cur = [], None
    with open(path, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            tag, _, rest = line.partition(" ")
            if tag == "$":
                cur = {"cmd": rest, "line": n, "out": [], "err": [], "status": 0,
                       "save": None, "same": None}
                steps.append(cur)
            elif cur is None:
                raise SystemExit(f"{path}:{n}: expectation before any command")
            elif tag in (">", "~"):
                cur["out"].append((tag, rest))
            elif tag in ("!", "!~"):
                cur["err"].append((tag, rest))
            elif tag == "?":
                cur["status"] = int(rest)
            elif tag == "=":
                cur["save"] = rest
            elif tag == "==":
                cur["same"] = rest
            else:
                raise SystemExit(f"{path}:{n}: unknown line tag {tag!r}")
    return steps


# apimachinery's HumanDuration: one or two units, "59s", "9m59s", "179m", "7d23h".
AGE = r"(?:\d+[ydhms]){1,2}"


def match(expected, got):
    """Return None if the lines match, else a description of the first difference."""
    for i, (tag, want) in enumerate(expected):
        if i >= len(got):
            return f"missing line {i + 1}: {tag} {want}"
        if tag in (">", "!"):
            ok = got[i] == want
        else:
            ok = re.fullmatch(want.replace("{AGE}", AGE), got[i]) is not None
        if not ok:
            return f"line {i + 1}: want {tag} {want!r}, got {got[i]!r}"
    if len(got) > len(expected):
        return f"unexpected line {len(expected) + 1}: {got[len(expected)]!r}"
    return None


def run_file(gpuq, path):
    failures, saved = 0, {}
    with tempfile.TemporaryDirectory(prefix="gpuq-cli-") as tmp:
        env = dict(os.environ)
        env.update({"GPUQ": gpuq, "GPUQ_DB": os.path.join(tmp, "gpuq.db"), "TMP": tmp,
                    "COMPAT": os.path.normpath(os.path.join(HERE, "../data/compat")),
                    "DATA": os.path.normpath(os.path.join(HERE, "../data")),
                    "NO_COLOR": "1", "COLUMNS": "200"})
        env["PATH"] = os.path.dirname(gpuq) + os.pathsep + env.get("PATH", "")
        for step in parse(path):
            # A hang detector only: generous, so that a loaded machine is not a failure.
            p = subprocess.run(["sh", "-c", step["cmd"]], env=env, cwd=tmp,
                               capture_output=True, text=True, timeout=600)
            out = p.stdout.splitlines()
            err = p.stderr.splitlines()
            problems = []
            if p.returncode != step["status"]:
                problems.append(f"exit status {p.returncode}, want {step['status']}")
            if step["same"] is not None:
                if p.stdout != saved.get(step["same"]):
                    problems.append(f"stdout differs from saved {step['same']!r}")
            elif not (step["save"] and not step["out"]):
                d = match(step["out"], out)
                if d:
                    problems.append("stdout " + d)
            d = match(step["err"], err)
            if d:
                problems.append("stderr " + d)
            if step["save"]:
                saved[step["save"]] = p.stdout
            if problems:
                failures += 1
                print(f"FAIL {os.path.basename(path)}:{step['line']}: $ {step['cmd']}")
                for pr in problems:
                    print(f"    {pr}")
                print("    stdout:\n" + "".join(f"      {l}\n" for l in out[:20]), end="")
                print("    stderr:\n" + "".join(f"      {l}\n" for l in err[:20]), end="")
    return failures


def main():
    gpuq, files = os.path.abspath(sys.argv[1]), sys.argv[2:]
    passed = failed = 0
    for f in files:
        n = run_file(gpuq, f)
        if n:
            failed += 1
        else:
            passed += 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
