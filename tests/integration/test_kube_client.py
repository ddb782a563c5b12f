#!/usr/bin/env python3
"""The Kubernetes client (lib/kube/) against the fake API server
(tests/kubeapi/fakeapi.py), driven through tests/kube/kube_probe: one case
per fault of reference §6 A1-A17, A26, D53 and D55. What the client did is
read from the fake server's request log (method, query, status, time), what
it delivered from the probe's output (one line per callback).

argv[1] is the gpuq binary (<build>/cli/gpuq); the probe is
<build>/tests/kube/kube_probe."""
import base64
import http.client
import json
import os
import subprocess
import sys
import tempfile
import time
from urllib.parse import parse_qs

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "kubeapi"))
from common import Checks, has_test_hooks  # noqa: E402
from kubeapi import FakeAPI, wait_for  # noqa: E402

BUILD = os.path.dirname(os.path.dirname(os.path.abspath(sys.argv[1])))
PROBE = os.path.join(BUILD, "tests", "kube", "kube_probe")
PT = "/api/v1/namespaces/{ns}/podtemplates"

c = Checks()
outputs = []  # every probe's stdout and stderr, searched for tokens at the end


def sane(what, stderr):
    c.check(not any(s in stderr for s in ("AddressSanitizer", "LeakSanitizer", "runtime error")),
            f"{what}: sanitizer report:\n{stderr[-3000:]}")


def call(kc, method, path, body=None, ctype=None):
    argv = [PROBE, "--kubeconfig", kc, "call", method, path]
    argv += [body] if body is not None else []
    argv += [ctype] if ctype else []
    r = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    outputs.append(r.stdout + r.stderr)
    sane(f"call {method} {path}", r.stderr)
    status = int(r.stdout.split("\n", 1)[0]) if r.returncode == 0 else None
    return r, status


class Watch:
    """A kube_probe watch running in the background for `secs` seconds."""

    def __init__(self, kc, path, secs, selector=None, env=None):
        argv = [PROBE, "--kubeconfig", kc, "watch", path] + ([selector] if selector else [])
        self.p = subprocess.Popen(argv + ["--for", str(secs)], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True,
                                  env=dict(os.environ, **(env or {})))

    def finish(self, what):
        out, err = self.p.communicate(timeout=120)
        outputs.append(out + err)
        sane(what, err)
        c.check(self.p.returncode == 0, f"{what}: probe exit {self.p.returncode}: {err.strip()}")
        lines = out.splitlines()
        end = [line.split() for line in lines if line.startswith("LISTS ")]
        self.summary = dict(zip(end[-1][0::2], end[-1][1::2])) if end else {}
        self.replaces = [line.split()[1:] for line in lines if line.startswith("REPLACE ")]
        self.events = [line for line in lines if line.split()[0] in ("ADDED", "MODIFIED", "DELETED")]
        self.problems = [line for line in lines if line.startswith("PROBLEM ")]
        self.lines = lines
        return self


def log(api, ns, verb=None, since=0, path=None):
    """The request log for the podtemplates of namespace ns (or for path), after seq since.
    Cases filter by path rather than clearing the log, because the long ones run beside them."""
    return [e for e in api.requests() if e["seq"] > since
            and (e["path"] == path if path else e["path"].startswith(PT.format(ns=ns)))
            and (verb is None or e["verb"] == verb)]


def mark(api):
    return max((e["seq"] for e in api.requests()), default=0)


def query(e):
    return {k: v[0] for k, v in parse_qs(e["query"], keep_blank_values=True).items()}


def watching(api, ns, n=1):
    """Wait until n watches of ns have been answered 200."""
    return wait_for(lambda: len([e for e in log(api, ns, "watch") if e["status"] == 200]) >= n, 120)


QUEUE = "kueue.x-k8s.io/queue-name"


def template(name, labels=None):
    return {"metadata": {"name": name, "labels": labels or {QUEUE: "q"}},
            "template": {"spec": {"containers": [{"name": "c", "image": "busybox"}]}}}


def namespace(api, ns):
    api.call("POST", "/api/v1/namespaces", {"metadata": {"name": ns}})


def create(api, ns, *names):
    rvs = []
    for n in names:
        st, obj = api.call("POST", PT.format(ns=ns), template(n))
        c.check(st == 201, f"create {ns}/{n}: {st} {obj}")
        rvs.append(obj["metadata"]["resourceVersion"] if st == 201 else None)
    return rvs


def create_many(api, ns, n):
    """n podtemplates over one keep-alive connection (a second, not a minute)."""
    conn = http.client.HTTPSConnection("127.0.0.1", api.port, context=api.ssl_context())
    hdr = {"Authorization": f"Bearer {api.token()}", "Content-Type": "application/json"}
    for i in range(n):
        conn.request("POST", PT.format(ns=ns), json.dumps(template(f"p{i:04d}")), hdr)
        r = conn.getresponse()
        r.read()
        if r.status != 201:
            c.check(False, f"create p{i}: {r.status}")
            break
    conn.close()


def gaps(entries):
    return [b["time"] - a["time"] for a, b in zip(entries, entries[1:])]


# ------------------------------------------------------------- watch cases


def a1_clean_close(api, kc):
    """A1: the server ends the watch cleanly: re-watch from the last RV, no list. With a label
    selector, escaped, which keeps out the object without the label."""
    ns = "a1"
    namespace(api, ns)
    create(api, ns, "a", "b")
    api.call("POST", PT.format(ns=ns), template("unlabelled", {"other": "x"}))
    w = Watch(kc, PT.format(ns=ns), 4, selector=QUEUE)
    watching(api, ns)
    rv_c = create(api, ns, "c")[0]
    time.sleep(0.4)
    api.close_watches()
    watching(api, ns, 2)
    create(api, ns, "d")
    w.finish("A1")
    watches = log(api, ns, "watch")
    c.check(len(log(api, ns, "list")) == 1, f"A1: one list: {log(api, ns, 'list')}")
    c.check(len(watches) == 2 and query(watches[1])["resourceVersion"] == rv_c,
            f"A1: re-watch from rv {rv_c}: {[query(e) for e in watches]}")
    c.check(w.replaces == [["2", "a1/a", "a1/b"]], f"A1: replace: {w.replaces}")
    c.check([e.split()[:2] for e in w.events] == [["ADDED", "a1/c"], ["ADDED", "a1/d"]],
            f"A1: each event once: {w.events}")
    c.check(w.summary.get("LISTS") == "1" and w.summary.get("WATCHES") == "2", f"A1: {w.summary}")
    c.check(all(query(e)["labelSelector"] == QUEUE and "labelSelector=kueue.x-k8s.io%2Fqueue-name"
                in e["query"] for e in log(api, ns, "list") + watches), "A1: the selector, escaped")


def a15_missing_crd(api, kc):
    """A15: 404 on the collection: the informer says why and retries at the cap, not in a loop."""
    path = "/apis/autoscaling.x-k8s.io/v1beta1/provisioningrequests"
    m = mark(api)
    w = Watch(kc, path, 2).finish("A15")
    e = log(api, None, since=m, path=path)
    c.check(len(e) == 1 and e[0]["status"] == 404, f"A15: one request: {e}")
    c.check(any("404" in p and "CustomResourceDefinition" in p for p in w.problems),
            f"A15: {w.problems}")


def a2_watch_410(api, kc):
    """A2: HTTP 410 on the watch request: list again with resourceVersion="", watch from it."""
    ns = "a2"
    namespace(api, ns)
    create(api, ns, "x")
    api.fault(method="GET", path=f"/namespaces/{ns}/podtemplates$", query="watch=1",
              action="status", code=410, reason="Expired", times=1)
    w = Watch(kc, PT.format(ns=ns), 2.5).finish("A2")
    lists, watches = log(api, ns, "list"), log(api, ns, "watch")
    c.check(len(lists) == 2 and all(query(e).get("resourceVersion") == "" for e in lists),
            f"A2: two lists with resourceVersion=: {[e['query'] for e in lists]}")
    c.check(len(watches) >= 2 and watches[0]["status"] == 410 and watches[1]["status"] == 200
            and watches[1]["seq"] > lists[1]["seq"], f"A2: watch after the relist: {watches}")
    c.check(len(w.replaces) == 2 and w.summary.get("LISTS") == "2", f"A2: {w.replaces} {w.summary}")


def a3_error_event_410(api, kc):
    """A3: an ERROR event 410 Expired, then one with reason Gone: both relist."""
    ns = "a3"
    namespace(api, ns)
    create(api, ns, "x")
    for reason in ("Expired", "Gone"):
        api.fault(method="GET", path=f"/namespaces/{ns}/podtemplates$", action="watch_error",
                  code=410, reason=reason, times=1)
    w = Watch(kc, PT.format(ns=ns), 3.5).finish("A3")
    lists = log(api, ns, "list")
    c.check(len(lists) == 3 and all(query(e).get("resourceVersion") == "" for e in lists),
            f"A3: three lists: {[e['query'] for e in lists]}")
    c.check(len(w.replaces) == 3 and w.summary.get("LISTS") == "3" and not w.events,
            f"A3: {w.lines}")


def a5_framing(api, kc):
    """A5: events split byte by byte, or batched in one chunk without newlines: each once, in order."""
    for action, ns in (("watch_split", "a5s"), ("watch_batch", "a5b")):
        namespace(api, ns)
        api.fault(method="GET", path=f"/namespaces/{ns}/podtemplates$", action=action, events=5,
                  times=1)
        w = Watch(kc, PT.format(ns=ns), 2.5)
        watching(api, ns)
        names = [f"e{i}" for i in range(5)]
        rvs = create(api, ns, *names)
        w.finish(f"A5 {action}")
        want = [f"ADDED {ns}/{n} rv={rv}" for n, rv in zip(names, rvs)]
        c.check(w.events == want, f"A5 {action}: {w.events} != {want}")
        c.check([e["fault"] for e in log(api, ns, "watch")][:1] == [action], f"A5 {action}: fault used")


def a6_bookmark(api, kc):
    """A6: a bookmark moves the stored RV and reaches no callback."""
    ns = "a6"
    namespace(api, ns)
    namespace(api, "a6-other")
    create(api, ns, "x")
    w = Watch(kc, PT.format(ns=ns), 3)
    watching(api, ns)
    rv = create(api, "a6-other", "y")[0]
    w.finish("A6")
    c.check(w.summary.get("RV") == rv and not w.events,
            f"A6: rv {w.summary.get('RV')} want {rv}, events {w.events}")


def a8_silent(api, kc):
    """A8: a watch that goes silent is given up after GQ_KUBE_WATCH_IDLE_MS and re-made."""
    ns = "a8"
    namespace(api, ns)
    create(api, ns, "x")
    api.fault(method="GET", path=f"/namespaces/{ns}/podtemplates$", action="watch_silent", times=1)
    w = Watch(kc, PT.format(ns=ns), 5, env={"GQ_KUBE_WATCH_IDLE_MS": "2000"}).finish("A8")
    watches = log(api, ns, "watch")
    g = gaps(watches)
    c.check(len(watches) >= 2 and g[0] >= 2.0 + 0.8,
            f"A8: reconnect after idle 2 s + backoff: gaps {g}")
    c.check(len(watches) >= 2 and query(watches[0])["resourceVersion"] ==
            query(watches[1])["resourceVersion"], "A8: same RV")
    c.check(w.summary.get("LISTS") == "1" and any("no bytes" in p for p in w.problems),
            f"A8: {w.summary} {w.problems}")


def a9_short_watches(api, kc):
    """A9: watches that end at once with no events back off 800 ms, doubling."""
    ns = "a9"
    namespace(api, ns)
    create(api, ns, "x")
    api.fault(method="GET", path=f"/namespaces/{ns}/podtemplates$", action="watch_close",
              events=0, times=3)
    return ns, Watch(kc, PT.format(ns=ns), 13)


def a9_check(api, ns, w):
    w.finish("A9")
    g = gaps(log(api, ns, "watch")[:4])
    c.check(len(g) == 3 and g[0] >= 0.8 and g[1] >= 1.6 and g[2] >= 3.2,
            f"A9: growing delays: {g}")
    c.check(w.summary.get("LISTS") == "1", f"A9: {w.summary}")


def a10_error_500(api, kc):
    """A10: an ERROR event 500 backs off and re-watches from the last RV, no relist."""
    ns = "a10"
    namespace(api, ns)
    rv = create(api, ns, "x")[-1]
    api.fault(method="GET", path=f"/namespaces/{ns}/podtemplates$", action="watch_error",
              code=500, reason="InternalError", message="etcd is unwell", times=1)
    w = Watch(kc, PT.format(ns=ns), 3).finish("A10")
    watches = log(api, ns, "watch")
    c.check(len(log(api, ns, "list")) == 1 and w.summary.get("LISTS") == "1", "A10: no relist")
    c.check(len(watches) >= 2 and all(query(e)["resourceVersion"] == rv for e in watches[:2])
            and gaps(watches)[0] >= 0.8, f"A10: re-watch from {rv} after backoff: {watches[:2]}")
    c.check(any("etcd is unwell" in p for p in w.problems), f"A10: problem: {w.problems}")


def a26_continue_expired(api, kc):
    """A26: the continue token expires mid-list: the list starts over; no partial replace."""
    ns = "a26"
    namespace(api, ns)
    create_many(api, ns, 520)
    api.fault(method="GET", path=f"/namespaces/{ns}/podtemplates$", query="continue=",
              action="status", code=410, reason="Expired", times=1)
    w = Watch(kc, PT.format(ns=ns), 3).finish("A26")
    lists = [(("continue" in query(e)), query(e).get("resourceVersion"), e["status"])
             for e in log(api, ns, "list")]
    c.check(lists == [(False, "", 200), (True, None, 410), (False, "", 200), (True, None, 200)],
            f"A26: pages: {lists}")
    c.check(len(w.replaces) == 1 and w.replaces[0][0] == "520" and len(w.replaces[0]) == 521,
            f"A26: one full replace: {[r[:3] for r in w.replaces]}")


def d53_bad_list(api, kc):
    """D53 (watch side): an HTML page instead of the list, and a cut watch stream, then recovery."""
    ns = "d53"
    namespace(api, ns)
    create(api, ns, "x")
    api.fault(method="GET", path=f"/namespaces/{ns}/podtemplates$", query="limit=",
              action="html", times=1)
    api.fault(method="GET", path=f"/namespaces/{ns}/podtemplates$", query="watch=1",
              action="truncate", times=1)
    # Two failures in a row: the second backoff is 1.6 to 3.2 s.
    w = Watch(kc, PT.format(ns=ns), 5.5)
    watching(api, ns)
    rv = create(api, ns, "y")[0]
    w.finish("D53 watch")
    c.check(any("not a list" in p for p in w.problems) and len(w.replaces) == 1,
            f"D53: html list retried: {w.problems} {w.replaces}")
    c.check(w.events == [f"ADDED {ns}/y rv={rv}"], f"D53: cut event delivered once: {w.events}")


def d55_odd_events(api, kc):
    """D55: unknown types, no object, no RV: skipped; the stream goes on."""
    ns = "d55"
    namespace(api, ns)
    rv = create(api, ns, "x")[0]
    meta = {"name": "ghost", "namespace": ns, "resourceVersion": rv}
    events = [{"type": "SOMETHING", "object": {"metadata": meta}},
              {"type": "ADDED"},
              {"type": "ADDED", "object": {"metadata": {"name": "norv", "namespace": ns}}},
              {"type": "MODIFIED", "object": {"metadata": meta}}]
    body = "".join(json.dumps(e) + "\n" for e in events)
    api.fault(method="GET", path=f"/namespaces/{ns}/podtemplates$", query="watch=1",
              action="status", code=200, body=body, content_type="application/json", times=1)
    w = Watch(kc, PT.format(ns=ns), 2).finish("D55")
    c.check(w.events == [f"MODIFIED {ns}/ghost rv={rv}"], f"D55: {w.lines}")
    c.check(w.summary.get("LISTS") == "1", f"D55: {w.summary}")


# -------------------------------------------------------------- call cases


def a13_throttling(api, kc):
    """A13: 429 waits Retry-After; 503 backs off; 403, 404, 422 are answered at once."""
    ns = "a13"
    namespace(api, ns)
    create(api, ns, "p")
    path = PT.format(ns=ns) + "/p"
    m = mark(api)
    api.fault(method="GET", path=path + "$", action="status", code=429, retry_after=2, times=1)
    r, st = call(kc, "GET", path)
    e = log(api, ns, since=m)
    c.check(st == 200 and len(e) == 2 and gaps(e)[0] >= 2.0, f"A13 429: {st} {gaps(e)}")
    m = mark(api)
    api.fault(method="GET", path=path + "$", action="status", code=503, times=2)
    r, st = call(kc, "GET", path)
    g = gaps(log(api, ns, since=m))
    c.check(st == 200 and len(g) == 2 and g[0] >= 0.2 and g[1] >= 0.4, f"A13 503: {st} {g}")
    for code in (403, 404, 422):
        # A path of its own, and a second fault in store that a retry would meet (not cleared
        # afterwards: clearing would also drop the rules of the cases running beside this one).
        m, p = mark(api), f"{path}{code}"
        api.fault(method="GET", path=p + "$", action="status", code=code, times=2)
        r, st = call(kc, "GET", p)
        e = log(api, ns, since=m)
        c.check(st == code and len(e) == 1, f"A13 {code}: {st} {e}")


def a14_unauthorized(api, kc, tmp):
    """A14: a 401 refreshes the credential once; a rotated token file is read again."""
    ns = "a14"
    namespace(api, ns)
    create(api, ns, "p")
    path = PT.format(ns=ns) + "/p"
    m = mark(api)
    api.fault(method="GET", path=path + "$", action="status", code=401, times=1)
    r, st = call(kc, "GET", path)
    e = log(api, ns, since=m)
    c.check(st == 200 and [x["status"] for x in e] == [401, 200], f"A14 401 once: {st} {e}")
    # The same with a token file that rotates under a running watch.
    kc_tf = os.path.join(tmp, "kubeconfig-tokenfile")
    text = open(kc).read()
    text = text.replace(f"token: {api.token()}", f"tokenFile: {os.path.join(api.dir, 'token-admin')}")
    with open(os.open(kc_tf, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as f:
        f.write(text)
    old = api.token()
    w = Watch(kc_tf, PT.format(ns=ns), 4)
    watching(api, ns)
    new = api.rotate("admin")
    api.close_watches()
    w.finish("A14 rotation")
    st = [(e["status"], e["user"]) for e in log(api, ns, "watch")]
    c.check(st[:3] == [(200, "admin"), (401, None), (200, "admin")], f"A14 rotation: {st}")
    c.check(w.summary.get("LISTS") == "1", f"A14: {w.summary}")
    return [old, new]


def a16_unknown_ca(api, kc, tmp):
    """A16: a server certificate from another CA: no request reaches the server, no token leaves."""
    key, crt = os.path.join(tmp, "other.key"), os.path.join(tmp, "other.crt")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                    "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key, "-out", crt, "-days",
                    "2", "-subj", "/CN=other-ca"], check=True, capture_output=True)
    other = base64.b64encode(open(crt, "rb").read()).decode()
    text = open(kc).read()
    mine = base64.b64encode(open(api.ca, "rb").read()).decode()
    bad = os.path.join(tmp, "kubeconfig-other-ca")
    with open(os.open(bad, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as f:
        f.write(text.replace(mine, other))
    m = mark(api)
    r, st = call(bad, "GET", "/api/v1/namespaces")
    c.check(r.returncode == 1 and "certificate" in r.stderr, f"A16: {r.returncode} {r.stderr}")
    e = log(api, None, since=m, path="/api/v1/namespaces")
    c.check(e == [], f"A16: the server saw requests: {e}")


def a17_redirect(api, kc):
    """A17: a 302 is returned, not followed."""
    m = mark(api)
    api.fault(method="GET", path="^/api/v1/namespaces/default$", action="redirect",
              location="https://127.0.0.1:1/steal", times=1)
    r, st = call(kc, "GET", "/api/v1/namespaces/default")
    e = log(api, None, since=m, path="/api/v1/namespaces/default")
    c.check(st == 302 and len(e) == 1, f"A17: {st} {e}")


def d53_bad_bodies(api, kc):
    """D53 (call side): a truncated JSON body and an HTML page with 200: clean answers, no crash."""
    for action in ("truncate", "html"):
        api.fault(method="GET", path="^/api/v1/namespaces$", action=action, times=1)
        r, st = call(kc, "GET", "/api/v1/namespaces")
        c.check(r.returncode in (0, 1) and (st == 200 or r.returncode == 1),
                f"D53 {action}: {r.returncode} {r.stdout[:200]} {r.stderr}")


def main():
    with tempfile.TemporaryDirectory(prefix="gpuq-kube-") as tmp:
        with FakeAPI(os.path.join(tmp, "api")) as api:
            kc = api.kubeconfig()
            t0 = time.monotonic()
            # The long waits run beside the rest: they touch their own namespaces only.
            a9 = a9_short_watches(api, kc)
            a13_throttling(api, kc)
            a16_unknown_ca(api, kc, tmp)
            a17_redirect(api, kc)
            a15_missing_crd(api, kc)
            d53_bad_bodies(api, kc)
            a1_clean_close(api, kc)
            a2_watch_410(api, kc)
            a3_error_event_410(api, kc)
            a5_framing(api, kc)
            a6_bookmark(api, kc)
            a10_error_500(api, kc)
            d55_odd_events(api, kc)
            a26_continue_expired(api, kc)
            d53_bad_list(api, kc)
            if has_test_hooks(os.path.abspath(sys.argv[1])):
                a8_silent(api, kc)
            else:
                print("SKIP: A8: the watch's idle limit is a test hook (Debug builds only)")
            a9_check(api, *a9)
            tokens = a14_unauthorized(api, kc, tmp)
            tokens.append(api.token())
            for t in tokens:
                c.check(not any(t in o for o in outputs), "a token appears in the client's output")
            print(f"kube client cases took {time.monotonic() - t0:.1f} s")
    return c.done()


if __name__ == "__main__":
    sys.exit(main())
