"""The README's commands work as written, on what a fresh clone has.

1. Every fenced ```sh block marked `<!-- runnable -->` on the line before runs
   with `sh -e -x` from a scratch copy of the repository's top directory (the
   files a clone would have: git's tracked and not-ignored ones), with the
   built gpuq and gpuqd first on PATH and a fresh GPUQ_DB, XDG_STATE_HOME,
   HOME and TMPDIR in a temporary directory. A failure names the block by its
   line in README.md, the command that failed (the last `+` trace line) and
   the output.
2. No code block of the README (marked or not) names ../shared: a clone does
   not have it. Every path under examples/, tests/ or cmake/ a code block
   names exists in the repository.
3. examples/demo.sh's gpuq commands (its install and build are skipped) run
   with the built gpuq on a fresh database.

Nothing here is timed: the only deadline is a generous one against a hang.
Usage: test_readme.py GPUQ_BINARY
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

from common import Checks, binary

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.normpath(os.path.join(HERE, "../.."))
README = os.path.join(TOP, "README.md")
MARK = "<!-- runnable -->"
HANG = 600  # seconds: against a hang only; nothing is expected to take long
PATHS = re.compile(r"(?<![\w./-])(?:\./)?((?:examples|tests|cmake)/[A-Za-z0-9_./-]*[A-Za-z0-9_/])")


def code_blocks(lines):
    """Yield (its line, its first body line, fenced info or None, body lines,
    marked) for every code block: fenced (```; its line is the fence's) and
    indented (4 spaces after a blank line). Line numbers count from 1."""
    i, n = 0, len(lines)
    prev_blank = True
    while i < n:
        line = lines[i]
        if line.startswith("```"):
            info = line[3:].strip()
            start, body = i + 1, []
            i += 1
            while i < n and not lines[i].startswith("```"):
                body.append(lines[i])
                i += 1
            marked = start >= 2 and lines[start - 2].strip() == MARK
            yield start, start + 1, info, body, marked
            i += 1
            prev_blank = False
            continue
        if prev_blank and line.startswith("    ") and line.strip():
            start, body = i + 1, []
            while i < n and (lines[i].startswith("    ") or not lines[i].strip()):
                body.append(lines[i][4:])
                i += 1
            while body and not body[-1].strip():
                body.pop()
            yield start, start, None, body, False
            prev_blank = True
            continue
        prev_blank = not line.strip()
        i += 1


def clone_files():
    """The files a clone has: tracked and untracked-but-not-ignored ones."""
    try:
        out = subprocess.run(["git", "-C", TOP, "ls-files", "-z", "--cached", "--others",
                              "--exclude-standard"], capture_output=True, check=True,
                             timeout=HANG).stdout
        return [f for f in out.decode().split("\0") if f]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for root, dirs, names in os.walk(TOP):
            rel = os.path.relpath(root, TOP)
            dirs[:] = [d for d in dirs if not (rel == "." and (d == ".git" or d == "build"
                                                              or d.startswith("build-")))]
            files += [os.path.normpath(os.path.join(rel, f)) for f in names
                      if not re.search(r"\.db(-wal|-shm)?$", f)]
        return files


def scratch_copy(dest, files):
    for f in files:
        src = os.path.join(TOP, f)
        if not os.path.lexists(src) or os.path.isdir(src):
            continue  # deleted in the work tree, or a submodule
        os.makedirs(os.path.dirname(os.path.join(dest, f)), exist_ok=True)
        shutil.copy2(src, os.path.join(dest, f), follow_symlinks=False)


def environment(tmp, gpuq):
    bindir = os.path.join(tmp, "bin")
    os.makedirs(bindir)
    gpuqd = os.path.join(os.path.dirname(os.path.dirname(gpuq)), "daemon", "gpuqd")
    os.symlink(gpuq, os.path.join(bindir, "gpuq"))
    if os.path.exists(gpuqd):
        os.symlink(gpuqd, os.path.join(bindir, "gpuqd"))
    env = {k: v for k, v in os.environ.items()
           if k not in ("GPUQ", "KUBECONFIG", "GPUQ_DB", "XDG_STATE_HOME")}
    for d in ("home", "state", "tmp"):
        os.makedirs(os.path.join(tmp, d))
    env.update({"PATH": bindir + os.pathsep + os.environ.get("PATH", "/usr/bin:/bin"),
                "GPUQ_DB": os.path.join(tmp, "state", "gpuq", "gpuq.db"),
                "XDG_STATE_HOME": os.path.join(tmp, "state"),
                "HOME": os.path.join(tmp, "home"), "TMPDIR": os.path.join(tmp, "tmp"),
                "NO_COLOR": "1", "LC_ALL": "C"})
    os.makedirs(os.path.dirname(env["GPUQ_DB"]))
    return env


def report(c, what, p):
    out = p if isinstance(p, str) else p.stdout
    lines = out.splitlines()
    traced = [i for i, l in enumerate(lines) if l.startswith("+")]
    failing = lines[traced[-1]] if traced else "(no command traced)"
    print(f"FAIL: {what}: the command {failing!r} failed"
          + (f" (exit status {p.returncode})" if not isinstance(p, str) else ""))
    print("    output:")
    tail = lines[traced[-1]:] if traced else lines
    for l in tail[-60:]:
        print(f"      {l}")
    c.check(False, what)


def run(cmd, cwd, env):
    try:
        return subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, timeout=HANG)
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        return out + f"\n(still running after {HANG} s: stopped)"


def main():
    gpuq = binary()
    c = Checks()
    with open(README, encoding="utf-8") as f:
        lines = f.read().splitlines()

    # A marker must sit right above a fenced sh block.
    for n, line in enumerate(lines, 1):
        if line.strip() == MARK:
            nxt = lines[n] if n < len(lines) else ""
            c.check(nxt.strip() in ("```sh", "```shell"),
                    f"README.md:{n}: {MARK} is not followed by a ```sh block")

    blocks = list(code_blocks(lines))
    runnable = [(start, body) for start, _, info, body, marked in blocks if marked]
    c.check(len(runnable) >= 3, f"README.md has runnable blocks (found {len(runnable)})")

    for start, first, info, body, marked in blocks:
        for off, l in enumerate(body):
            c.check("../shared" not in l,
                    f"README.md:{first + off}: a code block names ../shared, which a "
                    f"clone does not have: {l.strip()}")
            for path in PATHS.findall(l):
                c.check(os.path.exists(os.path.join(TOP, path)),
                        f"README.md:{first + off}: {path} does not exist")

    files = clone_files()
    for start, body in runnable:
        what = f"README.md block at line {start}"
        with tempfile.TemporaryDirectory(prefix="gpuq-readme-") as tmp:
            top = os.path.join(tmp, "top")
            scratch_copy(top, files)
            env = environment(tmp, gpuq)
            p = run(["sh", "-e", "-x", "-c", "\n".join(body) + "\n"], top, env)
            if isinstance(p, str) or p.returncode != 0:
                report(c, what, p)
            else:
                c.check(True, what)
                print(f"ok: {what} ({len(body)} lines)", flush=True)

    # examples/demo.sh: the gpuq commands it plays, without its install and build.
    with open(os.path.join(TOP, "examples", "demo.sh"), encoding="utf-8") as f:
        demo = [l for l in f.read().splitlines() if l.startswith('"$gpuq" ')]
    c.check(len(demo) >= 3, f"examples/demo.sh has gpuq commands (found {len(demo)})")
    with tempfile.TemporaryDirectory(prefix="gpuq-readme-") as tmp:
        top = os.path.join(tmp, "top")
        scratch_copy(top, files)
        env = environment(tmp, gpuq)
        script = f'gpuq={gpuq}\n' + "\n".join(demo) + "\n"
        p = run(["sh", "-e", "-x", "-c", script], top, env)
        if isinstance(p, str) or p.returncode != 0:
            report(c, "examples/demo.sh's gpuq commands", p)
        else:
            c.check("ClusterQueues:" in p.stdout,
                    "examples/demo.sh ends with the run's summary (ClusterQueues:)")
    return c.done()


if __name__ == "__main__":
    sys.exit(main())
