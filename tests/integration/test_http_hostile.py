#!/usr/bin/env python3
"""gpuqd's HTTP endpoints against big lists and hostile clients (issue 13,
rows F4, F5, F6, F11, F28), each against the gpuqd built beside the gpuq
under test (sanitized in CI: ASan and UBSan abort the daemon on the first
fault, so "it still answers" is the check).

F4   GETs that hand the library empty arrays (a queue with nothing pending,
     ?offset= past the end, an empty database) answer and the daemon lives;
     `gpuq list clusterqueues -o json` on an empty database prints a List.
F28  bytes that are not UTF-8 in a URL (%ff%fe) never come back raw: every
     body is valid UTF-8 JSON.
F6   64 connections from one address trickling a header line every 4 s:
     /healthz from another address is answered throughout, and a trickling
     connection is closed once its request head is late.
F11  hundreds of connections refused past the limits: a bounded number of
     log lines.
F5   /api/v1/workloads over 100,000 workloads (built with python's sqlite3
     in one transaction on a database gpuq made) read by four slow readers:
     gpuqd's peak RSS stays under 256 MiB (the example Deployment's limit)
     and /healthz answers while they read; ?limit=&continue= walks a list
     giving every workload once, and a bad token is a 400 Status.

Waits poll a condition with a generous deadline; nothing here times speed.
"""
import http.client
import json
import os
import random
import re
import socket
import sqlite3
import subprocess
import threading
import time
import urllib.error
import urllib.request
import uuid

from common import Checks, binary, gpuq, scratch

QUEUES = """apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: f}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: gpus}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu, nvidia.com/gpu]
    flavors:
    - name: f
      resources:
      - {name: cpu, nominalQuota: 8}
      - {name: nvidia.com/gpu, nominalQuota: 2}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: held}
spec:
  stopPolicy: Hold
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors:
    - name: f
      resources:
      - {name: nvidia.com/gpu, nominalQuota: 8}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: q, namespace: default}
spec: {clusterQueue: gpus}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: hq, namespace: default}
spec: {clusterQueue: held}
"""

VIS = "/apis/visibility.kueue.x-k8s.io/v1beta1"
BIG = 100_000            # workloads for F5
RSS_LIMIT = 256 << 20    # the example Deployment's memory limit
PROBE_TIMEOUT = 10       # per /healthz: "not blocked for the duration", not a speed test
DEADLINE = 120           # any wait for a condition
WHERE = re.compile(rb'\n *"where": "[^"\n]*",?')


def gpuqd_path(gpuq_path):
    return os.path.join(os.path.dirname(os.path.dirname(gpuq_path)), "daemon", "gpuqd")


def get(port, path, timeout=120, host="127.0.0.1"):
    """(status, raw body bytes) of one GET; HTTP errors are answers too, and a
    refused or cut connection is ("error: ...", b"")."""
    try:
        with urllib.request.urlopen(f"http://{host}:{port}{path}", timeout=timeout) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()
    except (OSError, http.client.HTTPException) as e:
        return f"error: {e}", b""


def probe(port, timeout=PROBE_TIMEOUT):
    """Whether /healthz answers "ok" within timeout (refused and reset count as no)."""
    st, body = get(port, "/healthz", timeout=timeout)
    return st == 200 and body == b"ok\n"


def wait_for(pred, seconds=DEADLINE):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(0.2)
    return pred()


def utf8_json(body):
    """The document if body is valid UTF-8 JSON, else None."""
    try:
        return json.loads(body.decode("utf-8", errors="strict"))
    except (UnicodeDecodeError, ValueError):
        return None


def start(c, g, db, log, env=None):
    d = subprocess.Popen([gpuqd_path(g), "--db", db, "--sim", "--listen", "127.0.0.1:0"],
                         stdout=log, stderr=subprocess.STDOUT,
                         env=dict(os.environ, NO_COLOR="1", **(env or {})))
    port = []

    def bound():
        for line in open(log.name, errors="replace"):
            if line.startswith("gpuqd: listening on 127.0.0.1:"):
                port.append(int(line.rsplit(":", 1)[1]))
                return True
        return False

    c.check(wait_for(bound), "gpuqd logs the address it listens on")
    return d, (port[0] if port else 0)


def stop(c, d, what):
    alive = d.poll() is None
    c.check(alive, f"{what}: gpuqd still runs (exit {d.returncode})")
    if alive:
        d.terminate()
        try:
            d.wait(timeout=120)
        except subprocess.TimeoutExpired:
            d.kill()
            d.wait()


def prepare(c, g, db):
    path = db + ".yaml"
    with open(path, "w") as f:
        f.write(QUEUES)
    r = gpuq(g, db, "apply", "-f", path)
    c.check(r.returncode == 0, f"apply: {r.stderr}")


def grow(db, n, seed=13):
    """n more workloads copied from the first with python's sqlite3, in one
    transaction: three namespaces, one in ten of "default" pending in the
    stopped queue, the rest finished."""
    con = sqlite3.connect(db, isolation_level=None)
    con.row_factory = sqlite3.Row
    tpl = dict(con.execute("SELECT * FROM workloads ORDER BY id LIMIT 1").fetchone())
    cols = list(tpl)
    rnd = random.Random(seed)
    rows = []
    for i in range(n):
        w = dict(tpl, id=tpl["id"] + 1 + i, name=f"w{i:06d}", job_name=f"w{i:06d}",
                 uid=str(uuid.UUID(int=rnd.getrandbits(128), version=4)),
                 namespace=("team-a", "team-b", "default")[i % 3])
        # Seven to a millisecond, so that pages also break between equal times.
        w["created_at"] = w["queued_at"] = tpl["created_at"] + 1 + i // 7
        if w["namespace"] != "default" or i % 10:
            w["state"], w["finished_at"] = "finished", w["created_at"] + 1000
        rows.append(tuple(w[k] for k in cols))
    con.execute("BEGIN")
    con.executemany(f"INSERT INTO workloads ({', '.join(cols)}) "
                    f"VALUES ({', '.join('?' * len(cols))})", rows)
    con.execute("COMMIT")
    con.close()


def seed_workload(c, g, db):
    r = gpuq(g, db, "submit", "--queue", "hq", "--name", "seed", "--gpus", "1")
    c.check(r.returncode == 0, f"submit seed: {r.stderr}")


# ------------------------------------------------------------------ F4, F28

def check_empty(c, g, tmp):
    """F4: empty arrays through every list the endpoints sort or copy."""
    db = os.path.join(tmp, "empty.db")
    gpuq(g, db, "apply", "-f", os.devnull)  # refused (no objects), but the database is made
    r = gpuq(g, db, "list", "clusterqueues", "-o", "json")
    doc = utf8_json(r.stdout.encode()) if r.returncode == 0 else None
    c.check(doc is not None and doc.get("items") == [],
            f"list clusterqueues -o json on an empty database: {r.returncode} {r.stderr[-300:]}")
    prepare(c, g, db)
    with open(os.path.join(tmp, "empty.log"), "w+") as log:
        d, port = start(c, g, db, log)
        for path in (f"{VIS}/clusterqueues/gpus/pendingworkloads",
                     f"{VIS}/clusterqueues/gpus/pendingworkloads?offset=5",
                     f"{VIS}/namespaces/default/localqueues/q/pendingworkloads?offset=3&limit=2",
                     f"{VIS}/namespaces/default/localqueues/hq/pendingworkloads",
                     "/metrics", "/report.json", "/api/v1/workloads",
                     "/api/v1/workloads?limit=1", "/api/v1/workloads?namespace=none"):
            st, body = get(port, path)
            c.check(st == 200, f"empty: GET {path}: {st} {body[:200]!r}")
        c.check(probe(port), "empty: /healthz after the empty lists")
        stop(c, d, "empty database")
        log.seek(0)
        out = log.read()
        c.check("runtime error" not in out and "AddressSanitizer" not in out,
                f"empty: no sanitizer report: {out[-2000:]}")


def check_utf8(c, port):
    """F28: %ff%fe wherever a URL's bytes reach a message."""
    # (path, whether its message names the bad value)
    for path, echoed in ((f"{VIS}/namespaces/%ff%fe/localqueues/q/pendingworkloads", False),
                         (f"{VIS}/clusterqueues/%ff%fe%c3/pendingworkloads", True),
                         (f"{VIS}/clusterqueues/gpus/pendingworkloads?limit=%ff%fe", True),
                         ("/api/v1/workloads?namespace=%ff%fe", False),
                         ("/api/v1/workloads?limit=%ff%fe", True),
                         ("/api/v1/workloads?continue=%ff%fe", True)):
        st, body = get(port, path)
        doc = utf8_json(body)
        c.check(doc is not None, f"{path}: {st}, valid UTF-8 JSON: {body[:200]!r}")
        if doc is not None and echoed:
            c.check("\ufffd" in doc.get("message", ""),
                    f"{path}: the bad bytes shown as U+FFFD: {doc.get('message')!r}")


# ------------------------------------------------------------------ limit/continue

def check_paging(c, g, tmp):
    """?limit=&continue= as the API server pages: every workload once, in order."""
    db = os.path.join(tmp, "paged.db")
    prepare(c, g, db)
    seed_workload(c, g, db)
    grow(db, 1000)
    want = json.loads(gpuq(g, db, "list", "-A", "-o", "json").stdout)["items"]
    names = [(i["metadata"]["namespace"], i["metadata"]["name"]) for i in want]
    with open(os.path.join(tmp, "paged.log"), "w+") as log:
        d, port = start(c, g, db, log)
        check_utf8(c, port)
        got, token, pages, ok = [], None, 0, True
        while pages < 100:
            path = "/api/v1/workloads?limit=97" + (f"&continue={token}" if token else "")
            st, body = get(port, path)
            doc = utf8_json(body) if st == 200 else None
            if not c.check(doc is not None, f"page {pages}: {st} {body[:200]!r}"):
                break
            pages += 1
            ok = ok and len(doc["items"]) <= 97
            got += [(i["metadata"]["namespace"], i["metadata"]["name"]) for i in doc["items"]]
            token = doc["metadata"].get("continue")
            if not token:
                break
        c.check(ok and pages == (len(names) + 96) // 97,
                f"pages of at most 97: {pages} pages for {len(names)} workloads")
        c.check(got == names, f"the pages give every workload once, in gpuq list's order: "
                f"{len(got)} of {len(names)}, {len(set(got))} distinct")
        st, body = get(port, "/api/v1/workloads?limit=5&continue=bm90LWEtdG9rZW4")
        doc = utf8_json(body) or {}
        c.check(st in (400, 410) and doc.get("kind") == "Status" and doc.get("code") == st,
                f"a token that is not one is a 400 Status: {st} {body[:200]!r}")
        # Byte for byte but for status.gpuq.where, whose words may carry the time of asking.
        st, body = get(port, "/api/v1/workloads")
        cli = gpuq(g, db, "list", "-A", "-o", "json").stdout.encode()
        c.check(st == 200 and WHERE.sub(b"", body) == WHERE.sub(b"", cli),
                "without limit: gpuq list -A -o json, byte for byte")
        stop(c, d, "paging")


# ------------------------------------------------------------------ F6, F11

def trickle(sockets, stop_at, src):
    """Open sockets from src that send a request line, then a header every 4 s."""
    for _ in range(64):
        s = socket.socket()
        s.settimeout(5)
        try:
            s.bind((src, 0))
            s.connect(("127.0.0.1", PORT[0]))
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
            sockets.append(s)
        except OSError:
            s.close()
    n = 0
    while time.monotonic() < stop_at[0]:
        for s in list(sockets):
            try:
                s.sendall(b"X-Slow-%d: y\r\n" % n)
            except OSError:
                pass
        n += 1
        time.sleep(4)


PORT = [0]


def closed_by_server(s):
    """Whether the server has closed s (EOF or reset), without waiting."""
    s.setblocking(False)
    try:
        return s.recv(1) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


def check_slowloris(c, g, tmp):
    db = os.path.join(tmp, "slow.db")
    prepare(c, g, db)
    with open(os.path.join(tmp, "slow.log"), "w+") as log:
        d, port = start(c, g, db, log)
        PORT[0] = port
        sockets, stop_at = [], [time.monotonic() + 600]
        t = threading.Thread(target=trickle, args=(sockets, stop_at, "127.0.0.2"), daemon=True)
        t.start()
        wait_for(lambda: len(sockets) == 64 or not t.is_alive(), 60)
        time.sleep(2)
        # Those the server took (the rest it refused at once: too many from one address).
        taken = [s for s in list(sockets) if not closed_by_server(s)]
        # F6: probes from another address answered while the trickle goes on.
        answered = [probe(port) for _ in range(8)]
        c.check(all(answered), f"F6: /healthz answered beside 64 trickling connections: {answered}")
        # The deadline: a connection still trickling its head is closed by the server.
        c.check(taken and wait_for(lambda: all(closed_by_server(s) for s in taken)),
                f"F6: the {len(taken)} connections sending a header line every 4 s are closed")
        stop_at[0] = 0
        t.join(timeout=60)
        for s in sockets:
            s.close()
        check_refusals(c, port, log)
        stop(c, d, "slowloris")


def check_refusals(c, port, log):
    """F11: 300 connections held from one address, most refused; few log lines."""
    held, refused = [], 0
    for _ in range(300):
        s = socket.socket()
        s.settimeout(5)
        try:
            s.bind(("127.0.0.3", 0))
            s.connect(("127.0.0.1", port))
            held.append(s)
        except OSError:
            s.close()
    time.sleep(2)
    refused = sum(1 for s in held if closed_by_server(s))
    for s in held:
        s.close()
    c.check(wait_for(lambda: probe(port)), "F11: /healthz answers after the burst")
    log.seek(0)
    lines = [ln for ln in log.read().splitlines() if "connection limit" in ln]
    c.check(refused >= 200, f"F11: the burst was refused past the limits ({refused} of 300)")
    c.check(1 <= len(lines) <= 12,
            f"F11: refused connections logged at a bounded rate: {len(lines)} lines")


# ------------------------------------------------------------------ F5

def peak_rss(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    return 0


def slow_reader(port, budget, got, errors):
    """Read /api/v1/workloads 64 KiB at a time with pauses, up to budget bytes."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v1/workloads",
                                    timeout=120) as r:
            n = 0
            while n < budget:
                chunk = r.read(65536)
                if not chunk:
                    break
                n += len(chunk)
                time.sleep(0.01)
            got.append(n)
    except OSError as e:
        errors.append(str(e))


def check_big(c, g, tmp):
    db = os.path.join(tmp, "big.db")
    prepare(c, g, db)
    seed_workload(c, g, db)
    grow(db, BIG)
    with open(os.path.join(tmp, "big.log"), "w+") as log:
        # A sanitized gpuqd keeps freed memory in quarantine (256 MiB by default),
        # which is not what a Deployment's limit meets: keep it small.
        d, port = start(c, g, db, log, env={"ASAN_OPTIONS": os.environ.get(
            "ASAN_OPTIONS", "") + ":quarantine_size_mb=8"})
        got, errors = [], []
        readers = [threading.Thread(target=slow_reader, args=(port, 24 << 20, got, errors))
                   for _ in range(4)]
        for t in readers:
            t.start()
        probes = []
        while any(t.is_alive() for t in readers) and len(probes) < 600:
            probes.append(probe(port))
            time.sleep(0.5)
        for t in readers:
            t.join(timeout=600)
        rss = peak_rss(d.pid) if d.poll() is None else 0
        print(f"F5: {BIG} workloads, 4 readers of {got} bytes; gpuqd peak RSS "
              f"{rss / 2**20:.0f} MiB; {sum(probes)} of {len(probes)} probes answered", flush=True)
        c.check(not errors and len(got) == 4 and all(n >= 24 << 20 for n in got),
                f"F5: four readers each got 24 MiB of the List: {got} {errors}")
        c.check(probes and all(probes), f"F5: /healthz answered while they read: {probes}")
        c.check(0 < rss < RSS_LIMIT, f"F5: gpuqd's peak RSS {rss / 2**20:.0f} MiB < 256 MiB")
        stop(c, d, "big list")


def main():
    c = Checks()
    g = binary()
    with scratch() as tmp:
        check_empty(c, g, tmp)
        check_paging(c, g, tmp)
        check_slowloris(c, g, tmp)
        check_big(c, g, tmp)
    return c.done()


if __name__ == "__main__":
    raise SystemExit(main())
