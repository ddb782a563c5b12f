#!/usr/bin/env python3
"""The layer check finds what it is for: a copy of the tree passes it, then
one violation at a time is planted in the copy and the check must fail,
naming the file and the rule (and pass again once the plant is gone)."""
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.normpath(os.path.join(HERE, "..", ".."))
CHECK = os.path.join(HERE, "check.py")


def run(root):
    p = subprocess.run([sys.executable, CHECK, "--root", root], capture_output=True, text=True)
    return p.returncode, p.stdout


def main():
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        for d in ("lib", "cli", "daemon"):
            shutil.copytree(os.path.join(TOP, d), os.path.join(tmp, d))
        os.makedirs(os.path.join(tmp, "tests", "layers"))
        shutil.copy(os.path.join(HERE, "exceptions.txt"), os.path.join(tmp, "tests", "layers"))
        rc, out = run(tmp)
        if rc != 0:
            print(f"FAIL: the unchanged copy does not pass:\n{out}")
            return 1

        def plant(path, text, expect, append=True):
            nonlocal failures
            full = os.path.join(tmp, path)
            old = open(full).read() if os.path.exists(full) else None
            with open(full, "w") as fh:
                fh.write((old or "") + text if append else text)
            rc, out = run(tmp)
            if rc == 0 or expect not in out:
                print(f"FAIL: planted in {path} {text.strip()!r}: want {expect!r}, got rc={rc}:\n{out}")
                failures += 1
            else:
                print(f"ok: {out.strip().splitlines()[0]}")
            if old is None:
                os.remove(full)
            else:
                with open(full, "w") as fh:
                    fh.write(old)

        plant("doc", "a folder's stand-in\n", "doc: layout: not one of the top level's entries")
        plant("lib/core/quota.c", '\n#include "store.h"\n', "lib/core/quota.c:")
        plant("lib/core/quota.c", '\n#include "store.h"\n', 'core may not include "store.h"')
        plant("lib/store/store.c", '\n#include "engine.h"\n', 'store may not include "engine.h"')
        plant("lib/engine/engine.c", '\n#include "store_int.h"\n',
              '"store_int.h" is store\'s own')
        plant("lib/kube/kube.c", '\nstatic const char q[] = "SELECT id FROM workloads";\n',
              "lib/kube/kube.c:")
        plant("lib/kube/kube.c", '\nstatic const char q[] = "UPDATE workloads SET state = 1";\n',
              "sql: SQL text outside lib/store/")
        plant("lib/api/api.c", "\n#include <sqlite3.h>\n", "dependency: <sqlite3.h>")
        plant("lib/core/admit.c", "\n#include <curl/curl.h>\n", "dependency: <curl/curl.h>")
        plant("cli/main.c", '\n#include "engine.h"\n', "cli may use only the public header")
        plant("lib/stray.c", "int stray;\n", "lib/stray.c: layout")
        # A workload state spelt outside lib/core/state.{c,h}: in C, in SQL, or a
        # GQ_SQL_STATE of a word that is no state.
        plant("lib/api/api.c", '\nstatic const char *const s = "pending";\n',
              "lib/api/api.c:")
        plant("lib/api/api.c", '\nstatic const char *const s = "cancelled";\n',
              "state-literal: the workload state cancelled spelt as a C string")
        plant("lib/store/store_read.c",
              '\nstatic const char q[] = "SELECT id FROM workloads WHERE state = \'running\'";\n',
              "state-literal: the workload state running spelt as a SQL literal")
        plant("lib/store/store_read.c",
              '\nstatic const char q[] = "SELECT id FROM workloads WHERE state = " GQ_SQL_STATE(runing);\n',
              "state-literal: GQ_SQL_STATE or GQ_WL_TEXT of runing, which is no state")
        plant("cli/main.c", '\nstatic const char *const s = "deactivated";\n',
              "cli/main.c:")
        # The allowed non-state uses are allowed where they are, not in the file at large.
        plant("lib/api/report.c", '\nstatic const char *const s = "running";\n',
              "lib/api/report.c:")
        # A listed debt that is paid: the list must shrink with it.
        plant("tests/layers/exceptions.txt", "lib/core/quota.c sql\n", "stale")
        # A comment that talks about SQL is no SQL.
        full = os.path.join(tmp, "lib/kube/kube.c")
        with open(full, "a") as fh:
            fh.write('\n/* SELECT id FROM workloads; "UPDATE x SET y" */\n')
        rc, out = run(tmp)
        if rc != 0:
            print(f"FAIL: SQL words in a comment were taken for SQL:\n{out}")
            failures += 1
        else:
            print("ok: SQL words in a comment are no finding")
        # Words that are states only in another case or as part of a longer
        # string are no finding: a check's state, an option, a sentence.
        with open(full, "a") as fh:
            fh.write('\nstatic const char *const w[] = {"Pending", "--pending", "pending pods", '
                     '"Finished", "state = Admitted"};\n')
        rc, out = run(tmp)
        if rc != 0:
            print(f"FAIL: words that are no workload state were taken for one:\n{out}")
            failures += 1
        else:
            print("ok: Pending, --pending and the like are no finding")
    print(f"{failures} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
