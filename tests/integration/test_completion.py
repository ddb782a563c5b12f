#!/usr/bin/env python3
"""Shell completion (issue 16): `gpuq completion bash|zsh|fish` and the hidden
`gpuq __complete` behind them, in real shells against a real database.

bash: the script is sourced and its function called the way readline calls it
(COMP_LINE, COMP_POINT, COMP_WORDS, COMP_CWORD set), for `gpuq describe workload `
and friends, and COMPREPLY must hold the workloads `gpuq submit` put in the
database, command names, flags, flag values; the names come from the database
the line names (--db) over GPUQ_DB. zsh and fish: the scripts load without a
word on stderr, and fish's own completion engine (`complete -C`) offers the
same workloads. Cluster mode: the names come from the fake API server
(Jobs, ClusterQueues) when --kubeconfig is on the line. `gpuq help` lists
completion; an unknown shell is one line naming it.
Usage: test_completion.py GPUQ_BINARY"""
import os
import shutil
import subprocess
import sys

from common import Checks, binary, gpuq, queues, scratch

import cluster
from kubeapi import FakeAPI

# Calls the bash function as readline would, for each line given (the cursor at its end).
BASH = r'''
source <(gpuq completion bash) || exit 3
for line in "$@"; do
    COMP_LINE=$line
    COMP_POINT=${#line}
    read -r -a COMP_WORDS <<< "$line"
    [[ $line == *" " ]] && COMP_WORDS+=("")
    COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
    COMPREPLY=()
    __gpuq_complete gpuq "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
    printf '%s\n' "${COMPREPLY[*]}"
done
complete -p gpuq
'''


def env_with(g, db=None):
    env = dict(os.environ, NO_COLOR="1", PATH=os.path.dirname(g) + os.pathsep + os.environ["PATH"])
    env.pop("KUBECONFIG", None)
    if db:
        env["GPUQ_DB"] = db
    else:
        env.pop("GPUQ_DB", None)
    return env


def bash_complete(g, db, lines, env_db=None):
    """COMPREPLY for each line, as a list of sets; and the `complete -p` line."""
    p = subprocess.run(["bash", "-c", BASH, "bash", *lines], capture_output=True, text=True,
                       env=env_with(g, env_db if env_db is not None else db), timeout=120)
    out = p.stdout.split("\n")
    return p, [set(o.split()) for o in out[:len(lines)]], "\n".join(out[len(lines):])


def setup(c, g, db):
    r = gpuq(g, db, "apply", "-f", "-", stdin=queues())
    c.check(r.returncode == 0, f"apply queues: {r.stderr}")
    names = []
    for job in ("train", "eval"):
        r = gpuq(g, db, "submit", "--queue", "q", "--name", job, "--gpus", "1")
        c.check(r.returncode == 0 and r.stdout.strip(), f"submit {job}: {r.stderr}")
        names.append(r.stdout.strip())
    return names


def bash_cases(c, g, db, names):
    lines = ["gpuq describe workload ",          # 0: the workloads in the database
             "gpuq desc",                         # 1: a command
             "gpuq ",                             # 2: every command
             "gpuq list --stat",                  # 3: a flag of list's own table
             "gpuq list --status ",               # 4: its values, from its help
             "gpuq list --output=js",             # 5: --flag=value: the part after =
             "gpuq cancel ",                      # 6: NAME... are workloads
             "gpuq describe wl/",                 # 7: TYPE/NAME
             "gpuq get ",                         # 8: resource types
             "gpuq submit -q ",                   # 9: a LocalQueue
             "gpuq describe cq ",                 # 10: ClusterQueues
             "gpuq -n ",                          # 11: namespaces
             "gpuq completion ",                  # 12: shells
             "gpuq list --db",                    # 13: a global flag
             "gpuq nosuch "]                      # 14: no command, nothing
    p, got, complete = bash_complete(g, db, lines)
    c.check(p.returncode == 0 and p.stderr == "", f"bash ran: {p.returncode} {p.stderr!r}")
    c.check(got[0] == set(names), f"describe workload offers the workloads {names}: {got[0]}")
    c.check(got[1] == {"describe"}, f"desc -> describe: {got[1]}")
    c.check({"submit", "list", "get", "describe", "completion", "help"} <= got[2],
            f"command names: {got[2]}")
    c.check(got[3] == {"--status"}, f"--stat -> --status: {got[3]}")
    c.check({"all", "pending", "admitted", "finished"} <= got[4], f"--status values: {got[4]}")
    c.check(got[5] == {"json"}, f"--output=js -> json (readline keeps --output=): {got[5]}")
    c.check(got[6] == set(names), f"cancel offers the workloads: {got[6]}")
    c.check(got[7] == {"wl/" + n for n in names}, f"wl/ offers wl/NAME: {got[7]}")
    c.check({"workloads", "clusterqueues", "localqueues", "resourceflavors"} <= got[8],
            f"resource types: {got[8]}")
    c.check(got[9] == {"q"}, f"-q offers the LocalQueue: {got[9]}")
    c.check(got[10] == {"cq"}, f"describe cq offers the ClusterQueue: {got[10]}")
    c.check("default" in got[11], f"-n offers namespaces: {got[11]}")
    c.check(got[12] == {"bash", "zsh", "fish"}, f"completion offers the shells: {got[12]}")
    c.check(got[13] == {"--db"}, f"a global flag: {got[13]}")
    c.check(got[14] == set(), f"after an unknown command, nothing: {got[14]}")
    c.check("-F __gpuq_complete" in complete, f"registered for gpuq: {complete!r}")


def db_on_the_line(c, g, tmp, db, names):
    """--db on the line wins over GPUQ_DB, as the command itself reads it."""
    other = os.path.join(tmp, "other.db")
    r = gpuq(g, other, "apply", "-f", "-", stdin=queues())
    c.check(r.returncode == 0, f"apply to the other database: {r.stderr}")
    p, got, _ = bash_complete(g, db, [f"gpuq --db {db} describe workload ",
                                      "gpuq describe workload "], env_db=other)
    c.check(got[0] == set(names), f"--db {db} names its workloads: {got[0]}")
    c.check(got[1] == set(), f"GPUQ_DB's database has none: {got[1]}")
    missing = os.path.join(tmp, "missing.db")
    p, got, _ = bash_complete(g, db, [f"gpuq --db {missing} describe workload "])
    c.check(got[0] == set() and not os.path.exists(missing),
            f"a missing --db offers nothing and is not created: {got[0]}")


def zsh_fish(c, g, db, names):
    env = env_with(g, db)
    if shutil.which("zsh"):
        p = subprocess.run(["zsh", "-c", "autoload -U compinit; compinit -u; "
                            "source <(gpuq completion zsh) && print -r -- $_comps[gpuq]"],
                           capture_output=True, text=True, env=env, timeout=120)
        c.check(p.returncode == 0 and p.stderr == "" and p.stdout.strip() == "_gpuq",
                f"zsh loads it and binds _gpuq: {p.returncode} {p.stdout!r} {p.stderr!r}")
    else:
        c.check(False, "zsh is installed (cmake/install-deps.sh)")
    if shutil.which("fish"):
        p = subprocess.run(["fish", "-c", "gpuq completion fish | source; "
                            "complete -C 'gpuq describe workload '; complete -C 'gpuq li'"],
                           capture_output=True, text=True, env=env, timeout=120)
        got = {line.split("\t")[0] for line in p.stdout.splitlines()}
        c.check(p.returncode == 0 and p.stderr == "", f"fish loads it: {p.stderr!r}")
        c.check(set(names) <= got and "list" in got,
                f"fish's complete -C offers the workloads and list: {got}")
    else:
        c.check(False, "fish is installed (cmake/install-deps.sh)")


def commands(c, g, db):
    r = gpuq(g, db, "help")
    c.check(r.returncode == 0 and any(line.split()[:1] == ["completion"]
                                      for line in r.stdout.splitlines()),
            f"gpuq help lists completion: {r.stdout!r}")
    r = gpuq(g, db, "completion", "tcsh")
    c.check(r.returncode == 2 and r.stderr.count("\n") == 1 and "tcsh" in r.stderr
            and "bash, zsh or fish" in r.stderr, f"unknown shell: {r.returncode} {r.stderr!r}")
    r = gpuq(g, db, "completion")
    c.check(r.returncode == 2 and "bash, zsh or fish" in r.stderr, f"no shell: {r.stderr!r}")
    for shell, first in (("bash", "# bash"), ("zsh", "#compdef gpuq"), ("fish", "# fish")):
        r = gpuq(g, db, "completion", shell)
        c.check(r.returncode == 0 and r.stdout.startswith(first), f"completion {shell}")


def cluster_mode(c, g, tmp):
    """With --kubeconfig on the line, names come from the API server."""
    with FakeAPI(os.path.join(tmp, "api"), crds=cluster.CRDS) as api:
        cluster.setup_queues(api)
        cluster.create_job(api, "train-job")
        kc = api.kubeconfig()
        env = env_with(g)
        for words, want in ((["describe", "workload", ""], "train-job"),
                            (["get", "cq", ""], "dws-cluster-queue"),
                            (["list", "lq", ""], "dws-local-queue"),
                            (["-n", ""], "default")):
            p = subprocess.run([g, "__complete", "--kubeconfig", kc, *words],
                               capture_output=True, text=True, env=env, timeout=120)
            got = {line.split("\t")[0] for line in p.stdout.splitlines()}
            c.check(p.returncode == 0 and want in got and ":4" in got,
                    f"cluster mode {words}: {want} in {got} ({p.stderr!r})")


def main():
    g = binary()
    c = Checks()
    with scratch() as tmp:
        db = os.path.join(tmp, "gpuq.db")
        names = setup(c, g, db)
        bash_cases(c, g, db, names)
        db_on_the_line(c, g, tmp, db, names)
        zsh_fish(c, g, db, names)
        commands(c, g, db)
        cluster_mode(c, g, tmp)
    return c.done()


if __name__ == "__main__":
    sys.exit(main())
