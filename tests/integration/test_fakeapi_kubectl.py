#!/usr/bin/env python3
"""The fake API server (tests/kubeapi/fakeapi.py) is faithful enough for kubectl 1.32: CRDs and
custom objects, client-side and server-side apply, get (JSON, YAML, tables), patches of every
type, the status subresource, get -w, delete with garbage collection, the validation gpuq relies
on (extended resources, ProvisioningRequest immutability), 410 after compaction in both forms,
pagination, tokens, and the exact framing of a watch stream with bookmarks.

argv[1] (the gpuq binary, passed by ctest) is not used."""
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "kubeapi"))
from common import COMPAT, Checks  # noqa: E402
from kubeapi import KUBECTL, FakeAPI, wait_for  # noqa: E402

CRD_DIR = os.path.normpath(os.path.join(HERE, "../../examples/deploy/crds"))

WIDGET_CRD = """apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {kind: Widget, listKind: WidgetList, plural: widgets, singular: widget, shortNames: [wd]}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    additionalPrinterColumns:
    - {name: Size, type: integer, jsonPath: .spec.size}
    - {name: Ready, type: string, jsonPath: '.status.conditions[?(@.type=="Ready")].status'}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [size]
            properties:
              size: {type: integer, minimum: 1}
          status:
            type: object
            x-kubernetes-preserve-unknown-fields: true
"""

WIDGET = """apiVersion: example.com/v1
kind: Widget
metadata:
  name: w1
spec:
  size: 3
"""


def kueue_crds():
    """Minimal CRDs for the Kueue kinds, used when examples/deploy/crds is absent."""
    out = []
    for kind, plural, scope in (("ResourceFlavor", "resourceflavors", "Cluster"),
                                ("AdmissionCheck", "admissionchecks", "Cluster"),
                                ("ProvisioningRequestConfig", "provisioningrequestconfigs", "Cluster"),
                                ("ClusterQueue", "clusterqueues", "Cluster"),
                                ("LocalQueue", "localqueues", "Namespaced")):
        out.append(f"""apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {{name: {plural}.kueue.x-k8s.io}}
spec:
  group: kueue.x-k8s.io
  names: {{kind: {kind}, plural: {plural}}}
  scope: {scope}
  versions:
  - name: v1beta2
    served: true
    storage: true
    schema: {{openAPIV3Schema: {{type: object, x-kubernetes-preserve-unknown-fields: true}}}}
  - name: v1beta1
    served: true
    storage: false
    schema: {{openAPIV3Schema: {{type: object, x-kubernetes-preserve-unknown-fields: true}}}}
""")
    return "---\n".join(out)


def job(name, gpu_limit=True, extra=""):
    limits = '\n          limits: {"nvidia.com/gpu": "1"}' if gpu_limit else ""
    return f"""apiVersion: batch/v1
kind: Job
metadata:
  name: {name}
  labels: {{kueue.x-k8s.io/queue-name: dws-local-queue}}
spec:
  suspend: true
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: busybox:1.36
        resources:
          requests: {{cpu: "100m", "nvidia.com/gpu": "1"}}{limits}
{extra}"""


def owned(kind_yaml, job_obj):
    ref = {"apiVersion": "batch/v1", "kind": "Job", "name": job_obj["metadata"]["name"],
           "uid": job_obj["metadata"]["uid"], "controller": True}
    return kind_yaml.replace("OWNER", json.dumps([ref]))


PODTEMPLATE = """apiVersion: v1
kind: PodTemplate
metadata: {name: NAME, ownerReferences: OWNER}
template:
  spec:
    containers: [{name: main, image: busybox}]
"""

PROVREQ = """apiVersion: autoscaling.x-k8s.io/v1
kind: ProvisioningRequest
metadata: {name: pr-1, ownerReferences: OWNER}
spec:
  provisioningClassName: queued-provisioning.gke.io
  podSets: [{count: 1, podTemplateRef: {name: ppt-1}}]
"""


def get(api, resource, name, namespace="default"):
    return next((o for o in api.objects(resource, namespace) if o["metadata"]["name"] == name), None)


def write(tmp, name, text):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def read_chunks(api, path, seconds):
    """Raw HTTP/1.1 over TLS: return (head, [chunk payloads], clean_end) of a chunked answer."""
    sock = api.ssl_context().wrap_socket(socket.create_connection(("127.0.0.1", api.port), timeout=seconds + 60),
                                         server_hostname="127.0.0.1")
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\n"
                 f"Authorization: Bearer {api.token()}\r\n\r\n".encode())
    f = sock.makefile("rb")
    head = b""
    while not head.endswith(b"\r\n\r\n"):
        head += f.readline()
    chunks, clean = [], False
    while True:
        size = f.readline()
        if not size:
            break
        n = int(size.strip(), 16)
        if n == 0:
            clean = f.readline() == b"\r\n"
            break
        chunks.append(f.read(n))
        f.readline()
    sock.close()
    return head.decode(), chunks, clean


def test_crds_and_custom_objects(c, api, tmp):
    p = api.kubectl("apply", "-f", write(tmp, "widget-crd.yaml", WIDGET_CRD))
    c.check(p.returncode == 0 and "widgets.example.com created" in p.stdout, f"apply CRD: {p.stdout}{p.stderr}")
    p = api.kubectl("apply", "-f", write(tmp, "widget.yaml", WIDGET))
    c.check(p.returncode == 0 and "widget.example.com/w1 created" in p.stdout, f"apply widget: {p.stdout}{p.stderr}")
    p = api.kubectl("apply", "-f", os.path.join(tmp, "widget.yaml"))
    c.check("widget.example.com/w1 unchanged" in p.stdout, f"re-apply widget: {p.stdout}{p.stderr}")
    p = api.kubectl("patch", "widget", "w1", "--subresource=status", "--type=merge",
                    "-p", '{"status":{"conditions":[{"type":"Ready","status":"True"}]}}')
    c.check(p.returncode == 0, f"patch widget status: {p.stderr}")
    p = api.kubectl("get", "wd")
    c.check(p.stdout.split()[:3] == ["NAME", "SIZE", "READY"] and "w1     3      True" in p.stdout,
            f"widget table with printer columns: {p.stdout!r}")
    p = api.kubectl("apply", "-f", "-", input=WIDGET.replace("w1", "w2").replace("size: 3", "size: 0"))
    c.check(p.returncode != 0 and "should be greater than or equal to 1" in p.stderr, f"schema minimum: {p.stderr}")
    p = api.kubectl("patch", "widget", "w1", "-p", '{"spec":{"size":4}}')
    c.check(p.returncode != 0 and "unknown format" in p.stderr and
            api.requests(verb="patch", resource="widgets")[-1]["status"] == 415,
            f"strategic merge on a custom resource is 415: {p.stderr}")
    if not os.path.isdir(CRD_DIR):
        p = api.kubectl("apply", "-f", write(tmp, "kueue-crds.yaml", kueue_crds()))
        c.check(p.returncode == 0, f"apply inline kueue CRDs: {p.stderr}")


def test_apply_and_get(c, api, tmp):
    queues = os.path.join(COMPAT, "gke-dws", "dws-queues.yaml")
    p = api.kubectl("apply", "-f", queues)
    c.check(p.returncode == 0 and p.stdout.count(" created") == 5, f"apply dws-queues: {p.stdout}{p.stderr}")
    p = api.kubectl("apply", "-f", queues)
    c.check(p.returncode == 0 and p.stdout.count(" unchanged") == 5, f"re-apply dws-queues: {p.stdout}{p.stderr}")
    p = api.kubectl("get", "localqueues", "dws-local-queue", "-o", "json")
    lq = json.loads(p.stdout) if p.returncode == 0 else {}
    c.check(lq.get("apiVersion") == "kueue.x-k8s.io/v1beta2" and lq["spec"]["clusterQueue"] == "dws-cluster-queue",
            f"v1beta1 object served as the stored v1beta2: {p.stdout[:300]}{p.stderr}")
    dws_job = os.path.join(COMPAT, "gke-dws", "job.yaml")
    p = api.kubectl("apply", "-f", dws_job)
    c.check(p.returncode == 0 and "job.batch/sample-job created" in p.stdout, f"apply job.yaml: {p.stdout}{p.stderr}")
    rv = get(api, "jobs", "sample-job")["metadata"]["resourceVersion"]
    # job.yaml writes `nvidia.com/gpu: 1` (a number); the server stores "1", so kubectl's 3-way diff
    # sends a patch (it says "configured", as against a real server) that changes nothing.
    p = api.kubectl("apply", "-f", dws_job)
    c.check(p.returncode == 0 and get(api, "jobs", "sample-job")["metadata"]["resourceVersion"] == rv,
            f"re-apply job.yaml is a no-op: {p.stdout}{p.stderr}")
    path = write(tmp, "job-a.yaml", job("job-a"))
    api.kubectl("apply", "-f", path)
    p = api.kubectl("apply", "-f", path)
    c.check("job.batch/job-a unchanged" in p.stdout, f"re-apply job-a: {p.stdout}{p.stderr}")
    p = api.kubectl("get", "job", "sample-job", "-o", "json")
    j = json.loads(p.stdout) if p.returncode == 0 else {}
    c.check(j.get("kind") == "Job" and j["spec"]["suspend"] is True and j["spec"]["backoffLimit"] == 6 and
            j["spec"]["selector"]["matchLabels"] == {"batch.kubernetes.io/controller-uid": j["metadata"]["uid"]}
            and j["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] == "1",
            f"get -o json with server defaults: {p.stdout[:400]}{p.stderr}")
    p = api.kubectl("get", "job", "sample-job", "-o", "yaml")
    c.check("kind: Job" in p.stdout and "completionMode: NonIndexed" in p.stdout, f"get -o yaml: {p.stdout[:300]}")
    p = api.kubectl("get", "jobs")
    lines = p.stdout.splitlines()
    c.check(lines and lines[0].split() == ["NAME", "STATUS", "COMPLETIONS", "AGE"] and
            any(line.startswith("sample-job") for line in lines[1:]), f"table: {p.stdout!r} {p.stderr}")
    p = api.kubectl("get", "jobs", "-A", "-l", "kueue.x-k8s.io/queue-name=dws-local-queue", "--no-headers")
    c.check(len(p.stdout.splitlines()) == 2 and p.stdout.startswith("default"), f"get -A -l: {p.stdout!r}")
    p = api.kubectl("apply", "--server-side", "-f", write(tmp, "pt.yaml", PODTEMPLATE.replace(
        "NAME", "ssa").replace("ownerReferences: OWNER", "labels: {a: b}")))
    c.check(p.returncode == 0 and "podtemplate/ssa serverside-applied" in p.stdout, f"SSA: {p.stdout}{p.stderr}")
    p = api.kubectl("apply", "--server-side", "-f", os.path.join(tmp, "pt.yaml"))
    c.check(p.returncode == 0 and "serverside-applied" in p.stdout, f"SSA again: {p.stdout}{p.stderr}")
    c.check(any(r["content_type"] == "application/apply-patch+yaml" and "fieldManager=kubectl" in r["query"]
                for r in api.requests(verb="patch", resource="podtemplates")), "SSA request in the log")


def test_patch_and_watch(c, api):
    w = subprocess.Popen([KUBECTL, "--kubeconfig", api.kubeconfig(), "--cache-dir",
                          os.path.join(api.dir, "kubectl-cache"), "get", "jobs", "-w", "--output-watch-events"],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    out = []
    threading.Thread(target=lambda: out.extend(iter(w.stdout.readline, "")), daemon=True).start()

    def seen(word, name="sample-job"):
        return any(line.split()[:2] == [word, name] for line in list(out))
    c.check(wait_for(lambda: seen("ADDED"), 120), f"get -w shows ADDED: {''.join(out)!r}")
    p = api.kubectl("patch", "job", "sample-job", "--type=merge", "-p", '{"spec":{"suspend":false}}')
    c.check(p.returncode == 0 and "patched" in p.stdout, f"merge patch: {p.stdout}{p.stderr}")
    c.check(wait_for(lambda: seen("MODIFIED"), 120), f"get -w shows MODIFIED: {''.join(out)!r}")
    w.terminate()
    w.wait()
    p = api.kubectl("patch", "job", "sample-job", "--type=json",
                    "-p", '[{"op":"add","path":"/metadata/labels/team","value":"a"}]')
    j = get(api, "jobs", "sample-job")
    c.check(p.returncode == 0 and j["metadata"]["labels"].get("team") == "a" and j["spec"]["suspend"] is False,
            f"json patch: {p.stderr}")
    p = api.kubectl("patch", "job", "sample-job", "--type=json",
                    "-p", '[{"op":"test","path":"/spec/suspend","value":true}]')
    c.check(p.returncode != 0, "json patch test op fails on mismatch")
    gen = j["metadata"]["generation"]
    p = api.kubectl("patch", "job", "sample-job", "--subresource=status", "--type=merge",
                    "-p", '{"status":{"active":1,"startTime":"2025-01-01T00:00:00Z"},"spec":{"parallelism":5}}')
    j = get(api, "jobs", "sample-job")
    c.check(p.returncode == 0 and j["status"].get("active") == 1 and j["spec"]["parallelism"] == 1
            and j["metadata"]["generation"] == gen, f"status subresource patch ignores spec: {p.stderr} {j}")
    p = api.kubectl("patch", "job", "sample-job", "--type=merge",
                    "-p", '{"spec":{"template":{"spec":{"nodeSelector":{"x":"y"}}}}}')
    c.check(p.returncode != 0 and "field is immutable" in p.stderr, f"template immutable once started: {p.stderr}")
    p = api.kubectl("patch", "job", "job-a", "--type=merge",
                    "-p", '{"spec":{"template":{"spec":{"nodeSelector":{"x":"y"}}}}}')
    c.check(p.returncode == 0, f"template scheduling directives mutable while suspended: {p.stderr}")


def test_delete_and_gc(c, api, tmp):
    j = get(api, "jobs", "sample-job")
    p1 = api.kubectl("apply", "-f", write(tmp, "ppt.yaml", owned(PODTEMPLATE.replace("NAME", "ppt-1"), j)))
    p2 = api.kubectl("apply", "-f", write(tmp, "pr.yaml", owned(PROVREQ, j)))
    c.check(p1.returncode == 0 and p2.returncode == 0, f"owned objects: {p1.stderr}{p2.stderr}")
    p = api.kubectl("patch", "provreq", "pr-1", "--type=merge",
                    "-p", '{"spec":{"podSets":[{"count":2,"podTemplateRef":{"name":"ppt-1"}}]}}')
    c.check(p.returncode != 0 and "Value is immutable" in p.stderr, f"ProvisioningRequest spec immutable: {p.stderr}")
    c.check(api.requests(verb="patch", resource="provisioningrequests")[-1]["status"] == 422, "422 in the log")
    p = api.kubectl("patch", "provreq", "pr-1", "--subresource=status", "--type=merge",
                    "-p", '{"status":{"conditions":[{"type":"Provisioned","status":"True"}]}}')
    c.check(p.returncode != 0 and "lastTransitionTime: Required value" in p.stderr, f"condition fields: {p.stderr}")
    p = api.kubectl("delete", "job", "sample-job")
    c.check(p.returncode == 0 and 'job.batch "sample-job" deleted' in p.stdout, f"delete: {p.stdout}{p.stderr}")
    c.check(wait_for(lambda: not get(api, "podtemplates", "ppt-1"), 120) and
            wait_for(lambda: not api.objects("provisioningrequests", "default"), 120),
            "dependents garbage-collected")
    p = api.kubectl("get", "job", "sample-job")
    c.check(p.returncode != 0 and "NotFound" in p.stderr, f"deleted job is NotFound: {p.stderr}")
    p = api.kubectl("apply", "-f", write(tmp, "bad-job.yaml", job("no-limit", gpu_limit=False)))
    c.check(p.returncode != 0 and "Limit must be set for non overcommitable resources" in p.stderr,
            f"GPU request without limit rejected: {p.stderr}")
    c.check(api.requests(verb="create", resource="jobs")[-1]["status"] == 422, "422 for the GPU job in the log")


def test_raw_http(c, api):
    ns = "/api/v1/namespaces/pages/podtemplates"
    c.check(api.kubectl("create", "namespace", "pages").returncode == 0, "create namespace")
    for i in range(5):
        s, _ = api.call("POST", ns, {"metadata": {"name": f"p{i}"},
                                     "template": {"spec": {"containers": [{"name": "c", "image": "x"}]}}})
        c.check(s == 201, f"create p{i}: {s}")
    names, cont, rvs, pages = [], "", set(), 0
    while True:
        s, lst = api.call("GET", f"{ns}?limit=2" + (f"&continue={cont}" if cont else ""))
        pages += 1
        names += [o["metadata"]["name"] for o in lst.get("items", [])]
        rvs.add(lst["metadata"]["resourceVersion"])
        cont = lst["metadata"].get("continue")
        if not cont or pages > 5:
            break
    c.check(names == [f"p{i}" for i in range(5)] and pages == 3 and len(rvs) == 1, f"pagination: {names} {pages}")
    p = api.kubectl("get", "podtemplates", "-n", "pages", "--chunk-size=2", "--no-headers")
    c.check(len(p.stdout.splitlines()) == 5, f"kubectl --chunk-size=2: {p.stdout!r}")
    s, lst = api.call("GET", ns)
    old_rv = lst["metadata"]["resourceVersion"]
    api.call("DELETE", f"{ns}/p0")
    api.compact("event")
    evs = list(api.watch(f"{ns}?watch=1&resourceVersion={old_rv}", timeout=10))
    c.check(len(evs) == 1 and evs[0]["type"] == "ERROR" and evs[0]["object"]["code"] == 410 and
            evs[0]["object"]["reason"] == "Expired", f"410 as an ERROR event: {evs}")
    api.compact("status")
    s, st = api.call("GET", f"{ns}?watch=1&resourceVersion={old_rv}")
    c.check(s == 410 and st.get("reason") == "Expired" and st.get("kind") == "Status", f"410 as HTTP status: {s} {st}")
    s, st = api.call("GET", f"{ns}?limit=2&continue={lst['metadata'].get('continue') or cont or 'x'}")
    c.check(s in (400, 410), f"stale continue token refused: {s}")
    s, st = api.call("GET", ns, token="not-a-token")
    c.check(s == 401 and st.get("reason") == "Unauthorized", f"wrong token: {s} {st}")
    p = api.kubectl("get", "jobs", "--token=not-a-token")
    c.check(p.returncode != 0 and ("Unauthorized" in p.stderr or "logged in" in p.stderr), f"kubectl 401: {p.stderr}")
    p = api.kubectl("get", "jobs", user="bob")
    c.check(p.returncode == 0 and api.requests(user="bob"), f"second user: {p.stderr}")
    old = api.token()
    api.rotate("admin")
    c.check(api.call("GET", ns, token=old)[0] == 401 and api.call("GET", ns)[0] == 200
            and api.kubectl("get", "ns").returncode == 0, "token rotation")


def test_watch_framing(c, api):
    s, lst = api.call("GET", "/api/v1/namespaces/pages/podtemplates")
    path = (f"/api/v1/namespaces/pages/podtemplates?watch=1&allowWatchBookmarks=true&timeoutSeconds=2"
            f"&resourceVersion={lst['metadata']['resourceVersion']}")
    api.call("PATCH", "/api/v1/namespaces/pages/podtemplates/p1", {"metadata": {"labels": {"x": "1"}}},
             content_type="application/merge-patch+json")
    t0 = time.monotonic()
    head, chunks, clean = read_chunks(api, path, 2)
    took = time.monotonic() - t0
    c.check(head.startswith("HTTP/1.1 200") and "transfer-encoding: chunked" in head.lower() and
            "content-type: application/json\r\n" in head.lower(), f"watch headers: {head!r}")
    events = [json.loads(ch) for ch in chunks]
    c.check(all(ch.endswith(b"\n") and ch.count(b"\n") == 1 for ch in chunks), "one event per chunk, newline-ended")
    c.check(events and events[0]["type"] == "MODIFIED" and events[0]["object"]["metadata"]["name"] == "p1",
            f"first event: {events[:1]}")
    bms = [e for e in events if e["type"] == "BOOKMARK"]
    c.check(len(bms) >= 2 and all(set(b["object"]) == {"kind", "apiVersion", "metadata"} and
                                  set(b["object"]["metadata"]) == {"resourceVersion"} and
                                  b["object"]["kind"] == "PodTemplate" for b in bms), f"bookmarks: {bms}")
    # Not before the 2 s, and by the server (a clean last chunk), well before the socket's
    # timeout; the margin above is for a loaded machine (TLS, a busy test server).
    c.check(clean and 1.5 < took < 30, f"timeoutSeconds ends the stream cleanly ({took:.1f}s)")


def main():
    if not os.path.exists(KUBECTL):
        print("SKIP: kubectl not found")
        return 0
    c = Checks()
    with tempfile.TemporaryDirectory(prefix="gpuq-fakeapi-") as tmp:
        crds = [CRD_DIR] if os.path.isdir(CRD_DIR) else \
            [os.path.join(COMPAT, "autoscaler", "provisioningrequests-crd.yaml")]
        with FakeAPI(os.path.join(tmp, "api"), users=["bob"], crds=crds, bookmark_interval=0.5) as api:
            test_crds_and_custom_objects(c, api, tmp)
            test_apply_and_get(c, api, tmp)
            test_patch_and_watch(c, api)
            test_delete_and_gc(c, api, tmp)
            test_raw_http(c, api)
            test_watch_framing(c, api)
    return c.done()


if __name__ == "__main__":
    sys.exit(main())
