#!/usr/bin/env python3
"""How gpuq picks and opens its database file (issue 13, rows F2, F8, F22,
F25, F26, F27 of the adversarial table):
 - `--db ""` is an error, not SQLite's temporary database that keeps nothing;
 - a dangling symbolic link at the path is not followed to create its
   target; a new database and its -wal and -shm are 0600 whatever the umask;
 - commands that only read (list, describe, report) never create a file: a
   mistyped or empty path is an error naming it, and the file stays as it was;
 - a read-only copy (no write permission on the file or its directory) can
   still be listed, described and reported;
 - ~/.local/state/gpuq being a file is reported as such, naming the path;
 - a relative XDG_STATE_HOME is ignored, as the XDG Base Directory spec says.
Each check prints what it saw when it fails."""
import os
import shutil
import sqlite3
import stat
import subprocess
import sys

from common import QUEUES, Checks, binary, gpuq, scratch

NOBODY = 65534


def one_line_error(r):
    lines = r.stderr.strip().splitlines()
    return r.returncode == 1 and len(lines) == 1 and lines[0].startswith("error: ")


def show(r):
    return f"exit {r.returncode}, stdout {r.stdout[-300:]!r}, stderr {r.stderr[-300:]!r}"


def apply_queues(exe, db, tmp):
    path = os.path.join(tmp, "queues.yaml")
    with open(path, "w", encoding="utf-8") as f:
        f.write(QUEUES)
    return gpuq(exe, db, "apply", "-f", path)


def empty_path(c, exe, tmp):
    r = apply_queues(exe, "", tmp)
    c.check(one_line_error(r) and '""' in r.stderr, f'F2: --db "" is refused: {show(r)}')


def symlink_and_modes(c, exe, tmp):
    link = os.path.join(tmp, "link.db")
    os.symlink("target.db", link)
    r = apply_queues(exe, link, tmp)
    c.check(one_line_error(r) and link in r.stderr, f"F8: dangling symlink refused: {show(r)}")
    c.check(not os.path.exists(os.path.join(tmp, "target.db")),
            "F8: the symlink's target was created")
    old = os.umask(0o022)
    try:
        db = os.path.join(tmp, "fresh.db")
        r = apply_queues(exe, db, tmp)
        c.check(r.returncode == 0, f"apply to a fresh database: {show(r)}")
        for suffix in ("", "-wal", "-shm"):
            p = db + suffix
            mode = stat.S_IMODE(os.stat(p).st_mode) if os.path.exists(p) else None
            c.check(mode in (None, 0o600) and (suffix or mode == 0o600),
                    f"F8: {os.path.basename(p)} has mode {mode and oct(mode)}, want 0600")
    finally:
        os.umask(old)
    empty = os.path.join(tmp, "empty.db")
    open(empty, "w").close()
    r = gpuq(exe, empty, "list")
    c.check(one_line_error(r) and empty in r.stderr, f"F8: list on an empty file: {show(r)}")
    c.check(os.path.getsize(empty) == 0 and not os.path.exists(empty + "-wal"),
            "F8: list wrote to an empty file")


def read_commands_never_create(c, exe, tmp):
    typo = os.path.join(tmp, "typo.db")
    for args in (["list", "-A"], ["list", "clusterqueues"], ["describe", "clusterqueue", "cq"],
                 ["report"]):
        r = gpuq(exe, typo, *args)
        c.check(one_line_error(r) and typo in r.stderr,
                f"F22: {' '.join(args)} on a missing database: {show(r)}")
        c.check(not os.path.exists(typo), f"F22: {' '.join(args)} created {typo}")


def as_nobody():
    """Run a child without root's power to write anything (root ignores modes)."""
    if os.geteuid() != 0:
        return None
    def drop():
        os.setgroups([])
        os.setgid(NOBODY)
        os.setuid(NOBODY)
    return drop


def read_only_copy(c, exe, tmp):
    src = os.path.join(tmp, "src.db")
    r = apply_queues(exe, src, tmp)
    c.check(r.returncode == 0, f"setup: {show(r)}")
    ro = os.path.join(tmp, "ro")
    os.mkdir(ro)
    con = sqlite3.connect(src)  # the apply into the file: the copy carries no WAL
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    db = os.path.join(ro, "copy.db")
    shutil.copy(src, db)
    os.chmod(db, 0o444)
    os.chmod(ro, 0o555)
    os.chmod(tmp, 0o755)
    env = dict(os.environ, NO_COLOR="1")
    try:
        for args in (["list", "clusterqueues"], ["list", "-A", "-o", "json"],
                     ["describe", "clusterqueue", "cq"], ["report"]):
            r = subprocess.run([exe, "--db", db, *args], capture_output=True, text=True,
                               timeout=120, env=env, preexec_fn=as_nobody())
            c.check(r.returncode == 0, f"F25: {' '.join(args)} on a read-only copy: {show(r)}")
        r = subprocess.run([exe, "--db", db, "list", "clusterqueues", "-o", "name"],
                           capture_output=True, text=True, timeout=120, env=env,
                           preexec_fn=as_nobody())
        c.check(r.stdout.strip() == "clusterqueue.kueue.x-k8s.io/cq",
                f"F25: the read-only copy lists its ClusterQueue: {show(r)}")
        c.check(sorted(os.listdir(ro)) == ["copy.db"], f"F25: files appeared: {os.listdir(ro)}")
    finally:
        os.chmod(ro, 0o755)


def state_dir_is_a_file(c, exe, tmp):
    home = os.path.join(tmp, "home")
    os.makedirs(os.path.join(home, ".local", "state"))
    blocker = os.path.join(home, ".local", "state", "gpuq")
    open(blocker, "w").close()
    env = dict(os.environ, HOME=home, NO_COLOR="1")
    env.pop("GPUQ_DB", None)
    env.pop("XDG_STATE_HOME", None)
    for args in (["list"], ["submit", "--queue", "q"]):
        r = subprocess.run([exe, *args], capture_output=True, text=True, timeout=120, env=env)
        c.check(one_line_error(r) and blocker in r.stderr and "unable to open" not in r.stderr,
                f"F26: {args[0]} with {blocker} a file: {show(r)}")


def relative_xdg(c, exe, tmp):
    home = os.path.join(tmp, "home2")
    os.mkdir(home)
    work = os.path.join(tmp, "cwd")
    os.mkdir(work)
    env = dict(os.environ, HOME=home, XDG_STATE_HOME="relative-state", NO_COLOR="1")
    env.pop("GPUQ_DB", None)
    path = os.path.join(tmp, "queues.yaml")
    with open(path, "w", encoding="utf-8") as f:
        f.write(QUEUES)
    r = subprocess.run([exe, "apply", "-f", path], capture_output=True, text=True, timeout=120,
                       env=env, cwd=work)
    c.check(r.returncode == 0, f"F27: apply with a relative XDG_STATE_HOME: {show(r)}")
    c.check(not os.path.exists(os.path.join(work, "relative-state")),
            "F27: a relative XDG_STATE_HOME was used")
    c.check(os.path.exists(os.path.join(home, ".local", "state", "gpuq", "gpuq.db")),
            "F27: the database is not in ~/.local/state/gpuq")


def main():
    exe = binary()
    c = Checks()
    for test in (empty_path, symlink_and_modes, read_commands_never_create, read_only_copy,
                 state_dir_is_a_file, relative_xdg):
        with scratch() as tmp:
            test(c, exe, tmp)
    return c.done()


if __name__ == "__main__":
    sys.exit(main())
