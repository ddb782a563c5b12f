"""Issue 16: gpuqd says at once when the API server does not answer (it was silent until
its first list, however long that took), and again only when the reason changes or every
30 s while it lasts. A kubeconfig naming a port nothing listens on; a real gpuqd."""
import os
import signal
import socket
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import Checks, binary  # noqa: E402
from cluster import gpuqd_path, wait_for  # noqa: E402

KUBECONFIG = """apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {{server: "https://127.0.0.1:{port}", insecure-skip-tls-verify: true}}
users:
- name: u
  user: {{token: abc}}
contexts:
- name: x
  context: {{cluster: c, user: u, namespace: default}}
current-context: x
"""


def closed_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def main():
    c = Checks()
    with tempfile.TemporaryDirectory(prefix="gpuq-unreachable-") as d:
        kc = os.path.join(d, "kubeconfig")
        with open(kc, "w") as f:
            f.write(KUBECONFIG.format(port=closed_port()))
        log = os.path.join(d, "gpuqd.log")
        with open(log, "w") as out:
            p = subprocess.Popen([gpuqd_path(binary()), "--db", os.path.join(d, "g.db"),
                                  "--kubeconfig", kc, "--listen", "127.0.0.1:0"],
                                 stdout=out, stderr=subprocess.STDOUT)
            try:
                text = wait_for("the waiting line", lambda: (lambda t: t if " waiting: " in t
                                                             else None)(open(log).read()))
                line = [ln for ln in text.splitlines() if " waiting: " in ln][0]
                c.check("not admitting until the API server answers" in line and
                        "/api/v1/namespaces" in line, f"the line names what fails: {line!r}")
                c.check(line.split()[1] == "warning", f"a warning: {line!r}")
            finally:
                p.send_signal(signal.SIGTERM)
                c.check(p.wait(timeout=60) == 0, "stops cleanly on SIGTERM")
        lines = [ln for ln in open(log).read().splitlines() if " waiting: " in ln]
        c.check(1 <= len(lines) <= 3, f"said once, not once per retry: {len(lines)} lines")
    return c.done()


if __name__ == "__main__":
    sys.exit(main())
