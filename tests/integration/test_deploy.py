#!/usr/bin/env python3
"""The deployment manifests under examples/deploy/:
1. `kubectl kustomize examples/deploy` renders offline, with the expected
   objects, namespaces, labels and Deployment settings (and the "cluster with
   Kueue" overlay from the README renders without the CRDs);
2. RBAC is exactly what README.md lists: any change to a rule is a change here;
   and so is the optional multikueue/ kustomization (a MultiKueue manager's RBAC:
   Secrets get in gpuq-system only, by a Role; MultiKueueClusters' status);
3. every CRD is structurally valid (one storage version, a type: object schema
   for every served version, a type on every field) and has Kueue's names and scope;
4. `gpuq apply -f` still loads every GKE DWS manifest under tests/data/compat/gke-dws/;
5. against the fake API server (tests/kubeapi/kubeapi.py), when that module
   exists: the CRDs apply and so does gke-dws/dws-queues.yaml."""
import collections
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

from common import COMPAT, Checks, binary, gpuq, scratch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "../.."))
DEPLOY = os.path.join(ROOT, "examples/deploy")
CRDS = os.path.join(DEPLOY, "crds")
KUBEAPI = os.path.join(ROOT, "tests/kubeapi/kubeapi.py")
NS = "gpuq-system"

try:
    import yaml
except ImportError:  # parse through kubectl instead (see load_all)
    yaml = None

KUBECTL = shutil.which("kubectl")
_home = tempfile.mkdtemp(prefix="gpuq-it-kubehome-")


def kubectl(*args, timeout=120):
    """kubectl with no kubeconfig and every proxy pointing at a closed port,
    so nothing here can reach a cluster or the network."""
    env = {k: v for k, v in os.environ.items() if k.upper() not in
           ("KUBECONFIG", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY")}
    env.update(HOME=_home, HTTP_PROXY="http://127.0.0.1:9", HTTPS_PROXY="http://127.0.0.1:9")
    return subprocess.run([KUBECTL, *args], capture_output=True, text=True, timeout=timeout,
                          env=env)


def load_all(text):
    """The objects of a YAML stream: with PyYAML when it is there, else with
    `kubectl annotate --local -o json` (which needs every object named)."""
    if yaml is not None:
        return [d for d in yaml.safe_load_all(text) if d is not None]
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
        f.write(text)
    try:
        p = kubectl("annotate", "--local", "-f", f.name, "-o", "json", "gpuq-test/parse=1")
    finally:
        os.unlink(f.name)
    if p.returncode != 0:
        raise ValueError(p.stderr.strip())
    out, dec, i = [], json.JSONDecoder(), 0
    while True:
        while i < len(p.stdout) and p.stdout[i].isspace():
            i += 1
        if i >= len(p.stdout):
            return out
        obj, i = dec.raw_decode(p.stdout, i)
        ann = obj["metadata"]["annotations"]
        del ann["gpuq-test/parse"]
        if not ann:
            del obj["metadata"]["annotations"]
        out.append(obj)


def dig(obj, *path, default=None):
    for p in path:
        if isinstance(obj, dict) and p in obj:
            obj = obj[p]
        elif isinstance(obj, list) and isinstance(p, int) and -len(obj) <= p < len(obj):
            obj = obj[p]
        else:
            return default
    return obj


def one(objs, kind, name):
    found = [o for o in objs if o.get("kind") == kind and dig(o, "metadata", "name") == name]
    return found[0] if len(found) == 1 else None


# -- 1. rendering ---------------------------------------------------------------------------

EXPECTED_KINDS = {"Namespace": 1, "CustomResourceDefinition": 10, "ServiceAccount": 1,
                  "ClusterRole": 2, "ClusterRoleBinding": 1, "Role": 2, "RoleBinding": 1,
                  "Service": 1, "Deployment": 1}
CLUSTER_SCOPED = {"Namespace", "CustomResourceDefinition", "ClusterRole", "ClusterRoleBinding"}
ARGS = ["--leader-elect", "--lease-namespace=gpuq-system", "--lease-name=gpuqd-leader",
        "--listen=:8080", "--db=/var/lib/gpuq/gpuq.db"]


def check_render(c):
    p = kubectl("kustomize", DEPLOY)
    if not c.check(p.returncode == 0, f"kubectl kustomize examples/deploy: {p.stderr.strip()}"):
        return None
    objs = load_all(p.stdout)
    kinds = collections.Counter(o.get("kind") for o in objs)
    c.check(kinds == collections.Counter(EXPECTED_KINDS), f"rendered kinds {dict(kinds)}")
    for o in objs:
        what = f"{o.get('kind')}/{dig(o, 'metadata', 'name')}"
        ns = dig(o, "metadata", "namespace")
        if o.get("kind") in CLUSTER_SCOPED:
            c.check(ns is None, f"{what}: cluster-scoped but has namespace {ns}")
        else:
            c.check(ns == NS, f"{what}: namespace {ns}, not {NS}")
        labels = dig(o, "metadata", "labels", default={})
        c.check(labels.get("app.kubernetes.io/name") == "gpuq" and
                labels.get("app.kubernetes.io/part-of") == "gpuq", f"{what}: labels {labels}")
    crb = one(objs, "ClusterRoleBinding", "gpuqd")
    c.check(dig(crb, "subjects") == [{"kind": "ServiceAccount", "name": "gpuqd", "namespace": NS}]
            and dig(crb, "roleRef", "name") == "gpuqd", f"ClusterRoleBinding gpuqd: {crb}")
    rb = one(objs, "RoleBinding", "gpuqd-leader-election")
    c.check(dig(rb, "subjects") == [{"kind": "ServiceAccount", "name": "gpuqd", "namespace": NS}]
            and dig(rb, "roleRef", "kind") == "Role"
            and dig(rb, "roleRef", "name") == "gpuqd-leader-election", f"RoleBinding: {rb}")
    sa = one(objs, "ServiceAccount", "gpuqd")
    c.check(dig(sa, "automountServiceAccountToken") is True, "ServiceAccount mounts its token")

    d = one(objs, "Deployment", "gpuqd")
    if c.check(d is not None, "Deployment gpuqd rendered"):
        check_deployment(c, d, one(objs, "Service", "gpuqd"),
                         one(objs, "Role", "gpuqd-leader-election"))
    return objs


def check_deployment(c, d, svc, lease_role):
    spec, pod = d["spec"], dig(d, "spec", "template", "spec", default={})
    ctrs = pod.get("containers", [])
    c.check(spec.get("replicas") == 2, "Deployment: 2 replicas")
    c.check(len(ctrs) == 1, f"Deployment: {len(ctrs)} containers")
    ctr = ctrs[0] if ctrs else {}
    pod_labels = dig(d, "spec", "template", "metadata", "labels", default={})
    sel = dig(spec, "selector", "matchLabels", default={})
    c.check(sel and all(pod_labels.get(k) == v for k, v in sel.items()),
            f"Deployment selector {sel} matches pod labels {pod_labels}")
    c.check(ctr.get("image") == "gpuq/gpuqd:0.1.0", f"image {ctr.get('image')}")
    c.check(ctr.get("args") == ARGS, f"args {ctr.get('args')}")
    c.check(pod.get("serviceAccountName") == "gpuqd" and
            pod.get("automountServiceAccountToken") is True, "pod runs as gpuqd with its token")
    env = {e["name"]: dig(e, "valueFrom", "fieldRef", "fieldPath") for e in ctr.get("env", [])}
    c.check(env.get("POD_NAME") == "metadata.name" and
            env.get("POD_NAMESPACE") == "metadata.namespace", f"downward API env {env}")
    port = {p.get("name"): p.get("containerPort") for p in ctr.get("ports", [])}
    c.check(port == {"http": 8080}, f"container ports {port}")
    for probe, path in (("livenessProbe", "/healthz"), ("readinessProbe", "/readyz")):
        g = dig(ctr, probe, "httpGet", default={})
        c.check(g.get("path") == path and g.get("port") in ("http", 8080), f"{probe}: {g}")
    c.check(ctr.get("resources") == {"requests": {"cpu": "100m", "memory": "64Mi"},
                                     "limits": {"cpu": "1", "memory": "256Mi"}},
            f"resources {ctr.get('resources')}")
    sc, psc = ctr.get("securityContext", {}), pod.get("securityContext", {})
    c.check(sc.get("readOnlyRootFilesystem") is True and sc.get("allowPrivilegeEscalation") is False
            and dig(sc, "capabilities", "drop") == ["ALL"] and not dig(sc, "capabilities", "add")
            and sc.get("privileged") in (None, False), f"container securityContext {sc}")
    c.check(True in (sc.get("runAsNonRoot"), psc.get("runAsNonRoot")), "runAsNonRoot")
    c.check("RuntimeDefault" in (dig(sc, "seccompProfile", "type"),
                                 dig(psc, "seccompProfile", "type")), "seccomp RuntimeDefault")
    vols = {v["name"]: v for v in pod.get("volumes", [])}
    mounts = {m["mountPath"]: m["name"] for m in ctr.get("volumeMounts", [])}
    c.check("/var/lib/gpuq" in mounts and "emptyDir" in vols.get(mounts["/var/lib/gpuq"], {}),
            f"/var/lib/gpuq is an emptyDir: {mounts}")
    c.check(all("emptyDir" in v for v in vols.values()), f"only emptyDir volumes: {list(vols)}")
    c.check(not pod.get("hostNetwork") and not pod.get("hostPID"), "no host namespaces")
    # The lease flags and the Role that allows them name the same Lease.
    names = [n for r in dig(lease_role, "rules", default=[]) for n in r.get("resourceNames", [])]
    c.check(names == ["gpuqd-leader"] and dig(lease_role, "metadata", "namespace") == NS,
            f"leader Role names {names}, the Deployment's --lease-name is gpuqd-leader")
    if c.check(svc is not None, "Service gpuqd rendered"):
        s = svc["spec"]
        c.check(s.get("type", "ClusterIP") == "ClusterIP", f"Service type {s.get('type')}")
        c.check([(p.get("name"), p.get("port")) for p in s.get("ports", [])] == [("http", 8080)],
                f"Service ports {s.get('ports')}")
        c.check(s.get("selector") and all(pod_labels.get(k) == v
                                          for k, v in s["selector"].items()),
                f"Service selector {s.get('selector')} selects gpuqd's pods")


def check_overlays(c):
    """crds/ alone, and the README's overlay for a cluster with Kueue."""
    p = kubectl("kustomize", CRDS)
    if c.check(p.returncode == 0, f"kubectl kustomize crds: {p.stderr.strip()}"):
        objs = load_all(p.stdout)
        c.check([o["kind"] for o in objs] == ["CustomResourceDefinition"] * 10,
                f"crds/ renders 10 CRDs, got {[o['kind'] for o in objs]}")
        c.check(all(dig(o, "metadata", "labels", "app.kubernetes.io/component") == "crd"
                    for o in objs), "every CRD labelled app.kubernetes.io/component=crd")
    readme = open(os.path.join(DEPLOY, "README.md"), encoding="utf-8").read()
    start = readme.find("```yaml\napiVersion: kustomize.config.k8s.io/v1beta1")
    end = readme.find("```", start + 7)
    if not c.check(start >= 0 and end > start, "README.md has the with-Kueue overlay"):
        return
    overlay = readme[start + len("```yaml\n"):end]
    with scratch() as tmp:
        rel = os.path.relpath(DEPLOY, tmp)
        with open(os.path.join(tmp, "kustomization.yaml"), "w", encoding="utf-8") as f:
            f.write(overlay.replace("../gpuq/examples/deploy", rel))
        p = kubectl("kustomize", tmp)
        if c.check(p.returncode == 0, f"with-Kueue overlay: {p.stderr.strip()}"):
            kinds = collections.Counter(o["kind"] for o in load_all(p.stdout))
            want = collections.Counter({k: n for k, n in EXPECTED_KINDS.items()
                                        if k != "CustomResourceDefinition"})
            c.check(kinds == want, f"with-Kueue overlay kinds {dict(kinds)}")


# -- 2. RBAC --------------------------------------------------------------------------------

def rule(groups, resources, verbs, names=()):
    return (frozenset(groups), frozenset(resources), frozenset(names), frozenset(verbs))


KUEUE_KINDS = ["resourceflavors", "clusterqueues", "localqueues", "cohorts",
               "workloadpriorityclasses", "admissionchecks", "provisioningrequestconfigs",
               "multikueueclusters", "multikueueconfigs"]
READ = ["get", "list", "watch"]
KUBEFLOW_KINDS = ["pytorchjobs", "tfjobs", "paddlejobs", "xgboostjobs", "jaxjobs", "mpijobs"]
RBAC = {
    ("ClusterRole", "gpuqd"): {
        rule(["batch"], ["jobs"], ["get", "list", "watch", "patch"]),
        rule(["batch"], ["jobs/finalizers"], ["update"]),
        rule(["batch"], ["jobs/status"], ["patch"]),
        rule(["jobset.x-k8s.io"], ["jobsets"], READ + ["patch"]),
        rule(["ray.io"], ["rayjobs", "rayclusters"], READ + ["patch"]),
        rule(["kubeflow.org"], KUBEFLOW_KINDS, READ + ["patch"]),
        rule(["jobset.x-k8s.io"], ["jobsets/finalizers"], ["update"]),
        rule(["ray.io"], ["rayjobs/finalizers", "rayclusters/finalizers"], ["update"]),
        rule(["kubeflow.org"], [k + "/finalizers" for k in KUBEFLOW_KINDS], ["update"]),
        rule([""], ["podtemplates"], READ + ["create", "delete"]),
        rule(["autoscaling.x-k8s.io"], ["provisioningrequests"], READ + ["create", "delete"]),
        rule(["autoscaling.x-k8s.io"], ["provisioningrequests/status"], ["get"]),
        rule([""], ["namespaces"], READ),
        rule([""], ["limitranges"], READ),
        rule(["node.k8s.io"], ["runtimeclasses"], READ),
        rule(["kueue.x-k8s.io"], KUEUE_KINDS, READ),
        rule(["apiextensions.k8s.io"], ["customresourcedefinitions"], READ),
        rule(["events.k8s.io"], ["events"], ["create", "patch"]),
        rule([""], ["events"], ["create", "patch"]),
    },
    ("Role", "gpuqd-leader-election"): {
        rule(["coordination.k8s.io"], ["leases"], ["create"]),
        rule(["coordination.k8s.io"], ["leases"], ["get", "update"], ["gpuqd-leader"]),
    },
    ("ClusterRole", "gpuq-user"): {
        rule(["batch"], ["jobs"], READ + ["create", "delete"]),
        rule(["autoscaling.x-k8s.io"], ["provisioningrequests"], READ),
    },
    ("Role", "gpuq-user"): {
        rule([""], ["services/proxy"], ["get"],
             ["gpuqd", "gpuqd:http", "http:gpuqd:http", "gpuqd:8080", "http:gpuqd:8080"]),
    },
}


def check_rbac(c, objs):
    roles = [o for o in objs if o.get("kind") in ("ClusterRole", "Role")]
    c.check(sorted((o["kind"], o["metadata"]["name"]) for o in roles) == sorted(RBAC),
            f"roles {[(o['kind'], o['metadata']['name']) for o in roles]}")
    for o in roles:
        key, rules = (o["kind"], o["metadata"]["name"]), o.get("rules", [])
        c.check("aggregationRule" not in o, f"{key}: aggregated")
        got = [rule(r.get("apiGroups", []), r.get("resources", []), r.get("verbs", []),
                    r.get("resourceNames", [])) for r in rules]
        c.check(len(got) == len(set(got)), f"{key}: duplicate rules")
        for r in rules:
            c.check("nonResourceURLs" not in r, f"{key}: nonResourceURLs {r}")
            flat = [*r.get("apiGroups", []), *r.get("resources", []), *r.get("verbs", [])]
            c.check(not any("*" in x for x in flat), f"{key}: wildcard in {r}")
            c.check(not {"secrets", "pods", "pods/exec", "nodes"} & set(r.get("resources", [])),
                    f"{key}: grants {r.get('resources')}")
            c.check(not {"escalate", "bind", "impersonate", "deletecollection"}
                    & set(r.get("verbs", [])), f"{key}: verbs {r.get('verbs')}")
        want = RBAC.get(key, set())
        for r in set(got) - want:
            c.check(False, f"{key}: unexpected rule {sorted(r[0])} {sorted(r[1])} "
                    f"{sorted(r[2])} {sorted(r[3])}")
        for r in want - set(got):
            c.check(False, f"{key}: missing rule {sorted(r[0])} {sorted(r[1])} "
                    f"{sorted(r[2])} {sorted(r[3])}")
    # Spelled out, since these are the ones that matter most.
    gpuqd = one(objs, "ClusterRole", "gpuqd")
    job_verbs = {v for r in dig(gpuqd, "rules", default=[]) if "jobs" in r.get("resources", [])
                 and "batch" in r.get("apiGroups", []) for v in r.get("verbs", [])}
    c.check(job_verbs == {"get", "list", "watch", "patch"},
            f"gpuqd's verbs on jobs {sorted(job_verbs)}: no update, create or delete")


MULTIKUEUE = os.path.join(DEPLOY, "multikueue")
MK_RBAC = {
    ("Role", "gpuqd-multikueue"): {rule([""], ["secrets"], ["get"])},
    ("ClusterRole", "gpuqd-multikueue"): {
        rule(["kueue.x-k8s.io"], ["multikueueclusters/status"], ["get", "patch"]),
        rule(["jobset.x-k8s.io"], ["jobsets/status"], ["patch"]),
        rule(["ray.io"], ["rayjobs/status", "rayclusters/status"], ["patch"]),
        rule(["kubeflow.org"], [k + "/status" for k in KUBEFLOW_KINDS], ["patch"]),
    },
}


def check_multikueue_rbac(c):
    """examples/deploy/multikueue: optional, not in the default install; exactly MK_RBAC,
    Secrets by a Role in gpuq-system (never cluster-wide), bound to gpuqd's ServiceAccount."""
    p = kubectl("kustomize", MULTIKUEUE)
    if not c.check(p.returncode == 0, f"kubectl kustomize multikueue: {p.stderr.strip()}"):
        return
    objs = load_all(p.stdout)
    roles = {(o["kind"], o["metadata"]["name"]): o for o in objs
             if o["kind"] in ("Role", "ClusterRole")}
    c.check(sorted(roles) == sorted(MK_RBAC), f"multikueue roles {sorted(roles)}")
    for key, o in roles.items():
        got = {rule(r.get("apiGroups", []), r.get("resources", []), r.get("verbs", []),
                    r.get("resourceNames", [])) for r in o.get("rules", [])}
        c.check(got == MK_RBAC.get(key), f"multikueue {key}: rules {got}")
        secrets = any("secrets" in r.get("resources", []) for r in o.get("rules", []))
        c.check(not secrets or (o["kind"] == "Role" and o["metadata"].get("namespace") == NS),
                f"multikueue {key}: Secrets only through a Role in {NS}")
    sa = [{"kind": "ServiceAccount", "name": "gpuqd", "namespace": NS}]
    for kind, role in (("RoleBinding", "Role"), ("ClusterRoleBinding", "ClusterRole")):
        b = one(objs, kind, "gpuqd-multikueue")
        c.check(dig(b, "subjects") == sa and dig(b, "roleRef", "kind") == role and
                dig(b, "roleRef", "name") == "gpuqd-multikueue", f"multikueue {kind}: {b}")
    c.check(dig(one(objs, "RoleBinding", "gpuqd-multikueue"), "metadata", "namespace") == NS,
            "the Secrets' RoleBinding is in gpuq-system")
    default = kubectl("kustomize", DEPLOY)
    c.check(default.returncode == 0 and "gpuqd-multikueue" not in default.stdout,
            "the default install grants none of it")


# -- 3. CRDs --------------------------------------------------------------------------------

# kind -> (group, plural, scope, shortNames, status subresource, versions {name: storage})
KUEUE_VERSIONS = {"v1beta2": True, "v1beta1": False}
CRD_TABLE = {
    "ResourceFlavor": ("kueue.x-k8s.io", "resourceflavors", "Cluster",
                       ["flavor", "flavors", "rf"], False, KUEUE_VERSIONS),
    "ClusterQueue": ("kueue.x-k8s.io", "clusterqueues", "Cluster", ["cq"], True, KUEUE_VERSIONS),
    "LocalQueue": ("kueue.x-k8s.io", "localqueues", "Namespaced", ["queue", "queues", "lq"],
                   True, KUEUE_VERSIONS),
    "Cohort": ("kueue.x-k8s.io", "cohorts", "Cluster", [], True, KUEUE_VERSIONS),
    "WorkloadPriorityClass": ("kueue.x-k8s.io", "workloadpriorityclasses", "Cluster", [], False,
                              KUEUE_VERSIONS),
    "AdmissionCheck": ("kueue.x-k8s.io", "admissionchecks", "Cluster", [], True, KUEUE_VERSIONS),
    "ProvisioningRequestConfig": ("kueue.x-k8s.io", "provisioningrequestconfigs", "Cluster", [],
                                  False, KUEUE_VERSIONS),
    "MultiKueueCluster": ("kueue.x-k8s.io", "multikueueclusters", "Cluster", [], True,
                          KUEUE_VERSIONS),
    "MultiKueueConfig": ("kueue.x-k8s.io", "multikueueconfigs", "Cluster", [], True,
                         KUEUE_VERSIONS),
    "ProvisioningRequest": ("autoscaling.x-k8s.io", "provisioningrequests", "Namespaced",
                            ["provreq", "provreqs"], True, {"v1": True, "v1beta1": False}),
}


def untyped(node, path="openAPIV3Schema"):
    """Paths of schema nodes without a type, which makes a schema non-structural
    (unless the node is int-or-string or keeps unknown fields)."""
    bad = []
    if not isinstance(node, dict):
        return [path]
    if "type" not in node and not node.get("x-kubernetes-int-or-string") and \
            not node.get("x-kubernetes-preserve-unknown-fields"):
        bad.append(path)
    for k, sub in node.get("properties", {}).items():
        bad += untyped(sub, f"{path}.{k}")
    if isinstance(node.get("items"), dict):
        bad += untyped(node["items"], f"{path}[]")
    if isinstance(node.get("additionalProperties"), dict):
        bad += untyped(node["additionalProperties"], f"{path}{{}}")
    return bad


def check_crds(c):
    files = sorted(f for f in glob.glob(os.path.join(CRDS, "*.yaml"))
                   if os.path.basename(f) != "kustomization.yaml")
    kust = load_all(open(os.path.join(CRDS, "kustomization.yaml"), encoding="utf-8").read())
    listed = sorted(dig(kust, 0, "resources", default=[]))
    c.check(listed == sorted(os.path.basename(f) for f in files),
            f"crds/kustomization.yaml lists {listed}")
    seen = set()
    for f in files:
        name = os.path.basename(f)
        docs = load_all(open(f, encoding="utf-8").read())
        if not c.check(len(docs) == 1, f"{name}: {len(docs)} documents, want one CRD per file"):
            continue
        crd = docs[0]
        spec, names = crd.get("spec", {}), dig(crd, "spec", "names", default={})
        kind = names.get("kind")
        seen.add(kind)
        c.check(crd.get("apiVersion") == "apiextensions.k8s.io/v1" and
                crd.get("kind") == "CustomResourceDefinition", f"{name}: apiVersion/kind")
        c.check(all(names.get(k) for k in ("plural", "singular", "kind", "listKind")),
                f"{name}: names {names}")
        c.check(names.get("plural", "").islower() and names.get("singular") == str(kind).lower()
                and names.get("listKind") == f"{kind}List", f"{name}: names {names}")
        c.check(dig(crd, "metadata", "name") == f"{names.get('plural')}.{spec.get('group')}",
                f"{name}: metadata.name {dig(crd, 'metadata', 'name')}")
        c.check(name == f"{spec.get('group')}_{names.get('plural')}.yaml", f"{name}: file name")
        vers = spec.get("versions", [])
        c.check(len({v.get("name") for v in vers}) == len(vers), f"{name}: duplicate versions")
        c.check(sum(1 for v in vers if v.get("storage")) == 1, f"{name}: one storage version")
        c.check(all(v.get("served") for v in vers if v.get("storage")),
                f"{name}: storage version served")
        for v in vers:
            s = dig(v, "schema", "openAPIV3Schema")
            if not v.get("served"):
                continue
            if not c.check(dig(s, "type") == "object", f"{name} {v.get('name')}: schema type"):
                continue
            c.check(not untyped(s), f"{name} {v.get('name')}: untyped {untyped(s)[:5]}")
            c.check(dig(s, "properties", "metadata") == {"type": "object"},
                    f"{name} {v.get('name')}: metadata schema {dig(s, 'properties', 'metadata')}")
            for p in ("spec", "status"):
                sub = dig(s, "properties", p)
                c.check(sub is None or sub.get("type") == "object",
                        f"{name} {v.get('name')}: {p} type")
            for col in v.get("additionalPrinterColumns", []):
                c.check(col.get("type") in ("integer", "number", "string", "boolean", "date")
                        and str(col.get("jsonPath", "")).startswith(".") and col.get("name"),
                        f"{name} {v.get('name')}: printer column {col}")
        want = CRD_TABLE.get(kind)
        if not c.check(want is not None, f"{name}: unexpected kind {kind}"):
            continue
        group, plural, scope, short, status, versions = want
        c.check((spec.get("group"), names.get("plural"), spec.get("scope")) ==
                (group, plural, scope), f"{name}: group/plural/scope")
        c.check(sorted(names.get("shortNames", [])) == sorted(short),
                f"{name}: shortNames {names.get('shortNames')}")
        c.check({v.get("name"): bool(v.get("storage")) for v in vers} == versions and
                all(v.get("served") for v in vers), f"{name}: versions")
        c.check(all(("status" in (v.get("subresources") or {})) == status for v in vers),
                f"{name}: status subresource")
        if kind == "ProvisioningRequest":
            check_provreq_crd(c, name, f, vers)
        elif kind == "WorkloadPriorityClass":
            c.check(all(dig(v, "schema", "openAPIV3Schema", "required") == ["value"] and
                        dig(v, "schema", "openAPIV3Schema", "properties", "value", "type")
                        == "integer" for v in vers), f"{name}: top-level value")
        else:
            c.check(all(dig(v, "schema", "openAPIV3Schema", "properties", "spec",
                            "x-kubernetes-preserve-unknown-fields") is True for v in vers),
                    f"{name}: spec keeps unknown fields")
    c.check(seen == set(CRD_TABLE), f"CRDs for {sorted(seen)}")


def check_provreq_crd(c, name, path, vers):
    for v in vers:
        props = dig(v, "schema", "openAPIV3Schema", "properties", "spec", "properties",
                    default={})
        for field in ("podSets", "provisioningClassName"):
            rules = [r.get("rule") for r in dig(props, field, "x-kubernetes-validations",
                                                default=[])]
            c.check("self == oldSelf" in rules, f"{name} {v.get('name')}: {field} immutable")
    upstream = os.path.join(COMPAT, "autoscaler/provisioningrequests-crd.yaml")
    if os.path.exists(upstream):
        strip = lambda t: [l for l in t.splitlines() if l and not l.startswith("#") and l != "---"]
        c.check(strip(open(path, encoding="utf-8").read()) ==
                strip(open(upstream, encoding="utf-8").read()),
                f"{name}: not a verbatim copy of compat/autoscaler")


# -- 4. compat manifests still load -----------------------------------------------------------

def check_compat(c, exe):
    files = sorted(glob.glob(os.path.join(COMPAT, "gke-dws", "**", "*.yaml"), recursive=True))
    c.check(len(files) >= 10, f"found {len(files)} GKE DWS manifests")
    for f in files:
        with scratch() as tmp:
            p = gpuq(exe, os.path.join(tmp, "x.db"), "apply", "-f", f)
            c.check(p.returncode == 0, f"gpuq apply -f {os.path.relpath(f, COMPAT)}: exit "
                    f"{p.returncode}: {p.stderr.strip()}")


# -- 5. against the fake API server -----------------------------------------------------------

def check_fake_api(c):
    if not os.path.exists(KUBEAPI):
        print(f"SKIP: {os.path.relpath(KUBEAPI, ROOT)} is not there yet; the apply-to-a-server "
              "check did not run", flush=True)
        return
    sys.path.insert(0, os.path.dirname(KUBEAPI))
    try:
        from kubeapi import FakeAPI
    except Exception as e:  # the module exists, so this is a failure
        c.check(False, f"import kubeapi: {e!r}")
        return
    crds = sorted(f for f in glob.glob(os.path.join(CRDS, "*.yaml"))
                  if os.path.basename(f) != "kustomization.yaml")
    queues = os.path.join(COMPAT, "gke-dws/dws-queues.yaml")
    with scratch() as tmp:
        try:
            with FakeAPI(tmp, crds=crds) as api:
                # -f per file: `-f crds/` would also send kustomization.yaml.
                args = ["apply"] + [a for f in crds for a in ("-f", f)]
                p = api.kubectl(*args)
                c.check(p.returncode == 0, f"fake API: kubectl apply the CRDs: exit "
                        f"{p.returncode}: {p.stderr.strip()}")
                p = api.kubectl("apply", "-f", queues)
                c.check(p.returncode == 0, f"fake API: kubectl apply dws-queues.yaml: exit "
                        f"{p.returncode}: {p.stderr.strip()}")
                p = api.kubectl("get", "clusterqueues.kueue.x-k8s.io", "-o", "name")
                c.check(p.returncode == 0 and "dws-cluster-queue" in p.stdout,
                        f"fake API: ClusterQueue stored: {p.stdout!r} {p.stderr.strip()}")
        except Exception as e:
            c.check(False, f"fake API server: {e!r}")


def main():
    c, exe = Checks(), binary()
    try:
        if c.check(KUBECTL is not None, "kubectl is on PATH (it renders the kustomizations)"):
            objs = check_render(c)
            if objs is not None:
                check_rbac(c, objs)
            check_overlays(c)
            check_multikueue_rbac(c)
        if c.check(yaml is not None or KUBECTL is not None, "PyYAML or kubectl to read YAML"):
            check_crds(c)
        check_compat(c, exe)
        check_fake_api(c)
    finally:
        shutil.rmtree(_home, ignore_errors=True)
    return c.done()


if __name__ == "__main__":
    raise SystemExit(main())
