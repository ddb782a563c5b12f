"""Start, drive and inspect the fake Kubernetes API server (fakeapi.py) from a test.

    from kubeapi import FakeAPI
    with FakeAPI(tmpdir, users=["bob"], crds=[".../examples/deploy/crds"]) as api:
        api.kubectl("apply", "-f", "job.yaml")
        api.fault(method="PATCH", path="/jobs/", action="status", code=409)
        print(api.requests())

Python 3 standard library only. See README.md for the control API.
"""
import json
import os
import signal
import ssl
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
SERVER = os.path.join(HERE, "fakeapi.py")
KUBECTL = "/usr/bin/kubectl"


class FakeAPI:
    def __init__(self, directory, users=(), crds=(), bookmark_interval=None, history=None, args=()):
        self.dir = os.path.abspath(directory)
        self.argv = [sys.executable, SERVER, "--dir", self.dir]
        if users:
            self.argv += ["--users", ",".join(users)]
        if bookmark_interval is not None:
            self.argv += ["--bookmark-interval", str(bookmark_interval)]
        if history is not None:
            self.argv += ["--history", str(history)]
        for c in crds:
            self.argv += ["--crds", os.path.abspath(c)]
        self.argv += list(args)
        self.proc = None
        self.port = self.control_url = None

    # -- lifecycle

    def start(self, timeout=20):
        os.makedirs(self.dir, exist_ok=True)
        self.stderr = open(os.path.join(self.dir, "fakeapi.log"), "ab")
        self.proc = subprocess.Popen(self.argv, stdout=subprocess.PIPE, stderr=self.stderr, text=True)
        line = []
        reader = threading.Thread(target=lambda: line.append(self.proc.stdout.readline()), daemon=True)
        reader.start()
        reader.join(timeout)
        if not line or line[0].strip() != "ready":
            self.stop()
            log = open(os.path.join(self.dir, "fakeapi.log"), errors="replace").read()[-2000:]
            raise RuntimeError(f"fakeapi did not become ready: {line!r}\n{log}")
        self.port = int(self._read("port"))
        self.control_url = self._read("control")
        return self

    def stop(self):
        dump = os.environ.get("FAKEAPI_REQUEST_LOG")  # keep the request log for debugging a test
        if dump and self.proc and self.proc.poll() is None:
            try:
                with open(f"{dump}.{self.proc.pid}.json", "w") as f:
                    json.dump(self.requests(), f, indent=1)
            except (OSError, RuntimeError, urllib.error.URLError):
                pass
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.proc and self.proc.stdout:
            self.proc.stdout.close()
        self.proc = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    def _read(self, name):
        with open(os.path.join(self.dir, name)) as f:
            return f.read().strip()

    # -- credentials

    def kubeconfig(self, user="admin"):
        return os.path.join(self.dir, "kubeconfig" if user == "admin" else f"kubeconfig-{user}")

    def token(self, user="admin"):
        return self._read(f"token-{user}")

    @property
    def ca(self):
        return os.path.join(self.dir, "ca.crt")

    # -- control API

    def control(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.control_url + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                return json.loads(r.read() or b"null")
        except urllib.error.HTTPError as e:
            raise RuntimeError(f"control {method} {path}: {e.code} {e.read().decode(errors='replace')}") from None

    def fault(self, **rule):
        """Add one fault rule (see README.md), e.g. fault(path="/jobs$", action="status", code=503)."""
        return self.control("POST", "/_faults", rule)

    def faults(self):
        return self.control("GET", "/_faults")

    def clear_faults(self):
        return self.control("POST", "/_faults/clear", {})

    def requests(self, **match):
        """The request log, optionally only entries whose fields equal the given values."""
        return [e for e in self.control("GET", "/_requests") if all(e.get(k) == v for k, v in match.items())]

    def clear_requests(self):
        return self.control("POST", "/_requests/clear", {})

    def compact(self, form="event"):
        return self.control("POST", "/_compact", {"form": form})

    def close_watches(self):
        return self.control("POST", "/_close_watches", {})

    def bookmarks(self, interval):
        return self.control("POST", "/_bookmarks", {"interval": interval})

    def rotate(self, user="admin"):
        return self.control("POST", "/_rotate", {"user": user})["token"]

    def state(self):
        return self.control("GET", "/_state")

    def objects(self, resource, namespace=None, group=None):
        q = f"/_objects?resource={resource}"
        q += f"&namespace={namespace}" if namespace is not None else ""
        q += f"&group={group}" if group is not None else ""
        return self.control("GET", q)

    def set_status(self, resource, namespace, name, status, validate=True):
        return self.control("POST", "/_objects/set_status", {"resource": resource, "namespace": namespace,
                                                              "name": name, "status": status,
                                                              "validate": validate})

    # -- clients

    def kubectl(self, *args, user="admin", input=None, timeout=60):
        return subprocess.run([KUBECTL, "--kubeconfig", self.kubeconfig(user), "--cache-dir",
                               os.path.join(self.dir, "kubectl-cache"), *args],
                              input=input, capture_output=True, text=True, timeout=timeout)

    def ssl_context(self):
        return ssl.create_default_context(cafile=self.ca)

    def open(self, method, path, body=None, user="admin", token=None, content_type="application/json",
             headers=None, timeout=30):
        """One raw HTTPS request to the API; returns the open response (a file-like object with
        .status and .headers), also for error statuses. Bodies that are not bytes/str are JSON-encoded."""
        if body is not None and not isinstance(body, (bytes, str)):
            body = json.dumps(body)
        h = {"Accept": "application/json", "Authorization": f"Bearer {token or self.token(user)}"}
        if body is not None:
            h["Content-Type"] = content_type
        h.update(headers or {})
        req = urllib.request.Request(f"https://127.0.0.1:{self.port}{path}", method=method, headers=h,
                                     data=body.encode() if isinstance(body, str) else body)
        try:
            return urllib.request.urlopen(req, context=self.ssl_context(), timeout=timeout)
        except urllib.error.HTTPError as e:
            return e

    def call(self, method, path, body=None, **kw):
        """One raw request; returns (status, decoded JSON or text)."""
        with self.open(method, path, body, **kw) as r:
            data = r.read()
            try:
                return r.status, json.loads(data)
            except ValueError:
                return r.status, data.decode(errors="replace")

    def watch(self, path, timeout=30, **kw):
        """Yield the events of a watch (path must carry watch=1), decoding the stream as JSON values
        regardless of how they are framed; ends when the server ends the stream."""
        dec = json.JSONDecoder()
        with self.open("GET", path, timeout=timeout, **kw) as r:
            if r.status != 200:
                raise RuntimeError(f"watch {path}: HTTP {r.status}: {r.read()[:500]!r}")
            buf = ""
            while True:
                data = r.read1(65536) if hasattr(r, "read1") else r.read(1)
                if not data:
                    return
                buf += data.decode()
                while True:
                    buf = buf.lstrip()
                    try:
                        ev, end = dec.raw_decode(buf)
                    except ValueError:
                        break
                    buf = buf[end:]
                    yield ev


def wait_for(pred, timeout=10, interval=0.05):
    """Poll pred() until it returns a true value (returned) or timeout (returns the last value)."""
    deadline = time.monotonic() + timeout
    while True:
        v = pred()
        if v or time.monotonic() > deadline:
            return v
        time.sleep(interval)
