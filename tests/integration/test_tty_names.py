"""Issue 16, acceptance 2 (first half): `gpuq list` in an 80-column tmux pane shows every
NAME whole: NAME is never cut, other columns are narrowed first, and a row still too wide
wraps as kubectl's does. A real tmux server on a private socket, a real pane of 80 columns;
the pane is read with wrapped lines joined. Skipped, saying so, without tmux."""
import os
import re
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import Checks, binary, gpuq, queues, scratch  # noqa: E402


def main():
    c, exe = Checks(), binary()
    if not shutil.which("tmux"):
        print("SKIP: no tmux")
        return c.done()
    with scratch() as tmp:
        db = os.path.join(tmp, "g.db")
        r = gpuq(exe, db, "apply", "-f", "-", stdin=queues())
        c.check(r.returncode == 0, f"queues: {r.stderr}")
        names = []
        for i in range(3):
            r = gpuq(exe, db, "submit", "--queue", "q", "--name",
                     f"a-rather-long-job-name-for-a-narrow-terminal-{i}", "--gpus", "1")
            c.check(r.returncode == 0, f"submit: {r.stderr}")
            names.append(r.stdout.strip())
        sock = f"gpuq-test-{os.getpid()}"
        done = os.path.join(tmp, "done")
        cmd = f"NO_COLOR=1 '{exe}' --db '{db}' list; touch '{done}'; sleep 600"
        subprocess.run(["tmux", "-L", sock, "-f", "/dev/null", "new-session", "-d", "-x", "80",
                        "-y", "40", cmd], check=True, timeout=60)
        try:
            end = time.monotonic() + 120
            while not os.path.exists(done) and time.monotonic() < end:
                time.sleep(0.05)
            c.check(os.path.exists(done), "gpuq list ran in the pane")
            width = subprocess.run(["tmux", "-L", sock, "display", "-p", "#{pane_width}"],
                                   capture_output=True, text=True, timeout=60).stdout.strip()
            c.check(width == "80", f"the pane is 80 columns wide: {width}")
            pane = subprocess.run(["tmux", "-L", sock, "capture-pane", "-p", "-J"],
                                  capture_output=True, text=True, timeout=60).stdout
            for n in names:
                c.check(re.search(rf"(^|\s){re.escape(n)}\s", pane) is not None,
                        f"{n} whole in the 80-column pane:\n{pane}")
        finally:
            subprocess.run(["tmux", "-L", sock, "kill-server"], timeout=60)
    return c.done()


if __name__ == "__main__":
    sys.exit(main())
