#!/usr/bin/env python3
"""Generate lib/manifest/manifest_known.c: every field path the API knows, per kind and version,
for the kinds gpuq reads, so that `gpuq apply` can report unknown fields as kubectl's server-side
field validation does (issue 16).

"Known" means known to the API that defines the kind, not merely modelled by gpuq:

- Kueue's kinds: the CRDs as Kueue generates them (tests/data/kueue-api/crd, copied verbatim
  from kubernetes-sigs/kueue, see its README), every version they serve.
- Kueue's Configuration (not a CRD): the Go types of apis/config/v1beta1 and v1beta2 (the json
  tags), with the few external types they use described below (EXTERNAL).
- The job kinds of the integration table that have a CRD in tests/data/compat/integrations
  (JobSet, RayJob, RayCluster, PyTorchJob, MPIJob, TrainJob, ClusterTrainingRuntime).
- batch/v1 Job: the JobTemplateSpec that the JobSet CRD embeds (replicatedJobs[].template) is
  the Kubernetes JobSpec and PodTemplateSpec as controller-gen renders them; a Job's status is
  not checked (no schema of JobStatus ships here).
- core/v1 Namespace: its three fields, listed here (NAMESPACE); likewise core/v1 LimitRange
  (LIMIT_RANGE) and node.k8s.io/v1 RuntimeClass (RUNTIME_CLASS).

The root metadata of every kind is ObjectMeta (OBJECT_META): a CRD's schema says only `type:
object` there, and the API server applies ObjectMeta's own schema.

The schema walk follows structural-schema pruning: properties are the known keys;
additionalProperties makes a map whose values are checked; arrays are transparent;
x-kubernetes-preserve-unknown-fields (and an external type not expanded) accepts anything below;
an object with neither properties nor additionalProperties knows no key at all.

Usage: gen_known_fields.py [--check] [--out FILE]. --check compares with the committed file and
checks that the kinds and versions of examples/deploy/crds are all in the table; exit 1 if not.
"""
import argparse
import difflib
import glob
import os
import re
import sys

import yaml

LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "../.."))
KUEUE_API = os.path.join(ROOT, "tests/data/kueue-api")
COMPAT = os.path.join(ROOT, "tests/data/compat/integrations")
OUT = os.path.join(ROOT, "lib/manifest/manifest_known.c")
DEPLOY_CRDS = os.path.join(ROOT, "examples/deploy/crds")

# The CRDs read from tests/data/compat/integrations: the job kinds of the integration table
# (core/integration.c) that ship one, and the runtime a TrainJob names.
INTEGRATION_CRDS = [
    "jobset/jobset.x-k8s.io_jobsets.yaml",
    "kuberay/ray.io_rayjobs.yaml",
    "kuberay/ray.io_rayclusters.yaml",
    "kubeflow-training/kubeflow.org_pytorchjobs.yaml",
    "kubeflow-training/kubeflow.org_mpijobs.yaml",
    "kubeflow-training/trainer.kubeflow.org_trainjobs.yaml",
    "kubeflow-training/trainer.kubeflow.org_clustertrainingruntimes.yaml",
]

# A node is ("leaf",), ("open",) or ("obj", {name: node}, closed) or ("map", node).
LEAF = ("leaf",)
OPEN = ("open",)


def obj(fields):
    return ("obj", dict(fields))


def map_of(node):
    return ("map", node)


OWNER_REF = obj({k: LEAF for k in ("apiVersion", "kind", "name", "uid", "controller",
                                    "blockOwnerDeletion")})
# apimachinery's ObjectMeta, as the API server checks the root metadata of every kind.
OBJECT_META = obj({
    "name": LEAF, "generateName": LEAF, "namespace": LEAF, "selfLink": LEAF, "uid": LEAF,
    "resourceVersion": LEAF, "generation": LEAF, "creationTimestamp": LEAF,
    "deletionTimestamp": LEAF, "deletionGracePeriodSeconds": LEAF, "labels": map_of(LEAF),
    "annotations": map_of(LEAF), "ownerReferences": OWNER_REF, "finalizers": LEAF,
    "managedFields": OPEN,
})
NAMESPACE = obj({"apiVersion": LEAF, "kind": LEAF, "metadata": OBJECT_META,
                 "spec": obj({"finalizers": LEAF}),
                 "status": obj({"phase": LEAF, "conditions": OPEN})})

_LIMIT_ITEM = obj({"type": LEAF, "max": map_of(LEAF), "min": map_of(LEAF), "default": map_of(LEAF),
                   "defaultRequest": map_of(LEAF), "maxLimitRequestRatio": map_of(LEAF)})
LIMIT_RANGE = obj({"apiVersion": LEAF, "kind": LEAF, "metadata": OBJECT_META,
                   "spec": obj({"limits": _LIMIT_ITEM})})
_TOLERATION = obj({k: LEAF for k in ("key", "operator", "value", "effect", "tolerationSeconds")})
RUNTIME_CLASS = obj({"apiVersion": LEAF, "kind": LEAF, "metadata": OBJECT_META, "handler": LEAF,
                     "overhead": obj({"podFixed": map_of(LEAF)}),
                     "scheduling": obj({"nodeSelector": map_of(LEAF),
                                        "tolerations": _TOLERATION})})

LABEL_SELECTOR = obj({"matchLabels": map_of(LEAF),
                      "matchExpressions": obj({"key": LEAF, "operator": LEAF, "values": LEAF})})
# The external Go types Configuration uses: expanded when small and stable, else accepted whole.
EXTERNAL = {
    "metav1.TypeMeta": obj({"apiVersion": LEAF, "kind": LEAF}),
    "metav1.LabelSelector": LABEL_SELECTOR,
    "metav1.Duration": LEAF,
    "time.Duration": LEAF,
    "corev1.ResourceName": LEAF,
    "corev1.ResourceList": map_of(LEAF),
    "resourcev1.QualifiedName": LEAF,
    "configv1alpha1.LeaderElectionConfiguration": obj({
        k: LEAF for k in ("leaderElect", "leaseDuration", "renewDeadline", "retryPeriod",
                          "resourceLock", "resourceName", "resourceNamespace")}),
    "clientcmdapi.ExecConfig": OPEN,
    "resourcev1.DeviceSelector": OPEN,
}

# ------------------------------------------------------------------ CRDs


def from_schema(s):
    if not isinstance(s, dict) or s.get("x-kubernetes-preserve-unknown-fields"):
        return OPEN
    if s.get("type") == "array":
        return from_schema(s.get("items"))
    if "properties" in s:
        return obj({k: from_schema(v) for k, v in s["properties"].items()})
    add = s.get("additionalProperties")
    if isinstance(add, dict):
        return map_of(from_schema(add))
    if add is True:
        return map_of(OPEN)
    if s.get("type") == "object":
        return obj({})
    return LEAF


def crd_kinds(path):
    """(group, kind, version, node) for every served version of the CRDs in path."""
    with open(path, encoding="utf-8") as f:
        docs = [d for d in yaml.load_all(f, Loader=LOADER) if d and d.get("kind") == "CustomResourceDefinition"]
    for d in docs:
        spec = d["spec"]
        for v in spec["versions"]:
            if not v.get("served", True):
                continue
            node = from_schema(v["schema"]["openAPIV3Schema"])
            node[1]["metadata"] = OBJECT_META
            yield spec["group"], spec["names"]["kind"], v["name"], node


def job_from_jobset(jobset_node):
    tmpl = jobset_node[1]["spec"][1]["replicatedJobs"][1]["template"]
    return obj({"apiVersion": LEAF, "kind": LEAF, "metadata": OBJECT_META,
                "spec": tmpl[1]["spec"], "status": OPEN})

# ------------------------------------------------------------- Go types

STRUCT_RE = re.compile(r"^type (\w+) struct \{$")
ALIAS_RE = re.compile(r"^type (\w+) =? ?([\w.\[\]*]+)$")
FIELD_RE = re.compile(r"^\s*(?:(\w+)\s+)?([\w.\[\]*]+)\s*`([^`]*)`")


def go_types(paths):
    structs, aliases = {}, {}
    for path in paths:
        cur = None
        for line in open(path, encoding="utf-8"):
            line = line.rstrip()
            m = STRUCT_RE.match(line)
            if m:
                cur = structs.setdefault(m.group(1), [])
                continue
            if cur is not None:
                if line == "}":
                    cur = None
                    continue
                m = FIELD_RE.match(line)
                if m:
                    tag = re.search(r'json:"([^"]*)"', m.group(3))
                    if tag:
                        cur.append((m.group(1), m.group(2), tag.group(1)))
                continue
            m = ALIAS_RE.match(line)
            if m:
                aliases[m.group(1)] = m.group(2)
    return structs, aliases


def go_node(t, structs, aliases, seen=()):
    t = t.lstrip("*")
    if t.startswith("[]"):
        return go_node(t[2:], structs, aliases, seen)
    if t.startswith("map["):
        return map_of(go_node(t[t.index("]") + 1:], structs, aliases, seen))
    if t in EXTERNAL:
        return EXTERNAL[t]
    if "." in t:
        raise SystemExit(f"gen_known_fields: external Go type {t} is not described in EXTERNAL")
    if t in aliases:
        return go_node(aliases[t], structs, aliases, seen)
    if t not in structs:
        return LEAF  # string, bool, int32, a named string type ...
    if t in seen:
        raise SystemExit(f"gen_known_fields: recursive Go type {t}")
    fields = {}
    for _name, ftype, tag in structs[t]:
        key = tag.split(",")[0]
        if key == "-":
            continue
        sub = go_node(ftype, structs, aliases, seen + (t,))
        if key == "" and ",inline" in tag:
            fields.update(sub[1])
        elif key:
            fields[key] = sub
    return obj(fields)


def configuration(version):
    paths = sorted(glob.glob(os.path.join(KUEUE_API, "config", version, "*.go")))
    structs, aliases = go_types(paths)
    node = go_node("Configuration", structs, aliases)
    node[1]["metadata"] = OBJECT_META  # gpuq names a Configuration by metadata.name
    return node

# ----------------------------------------------------------- the table


def all_kinds():
    kinds = []
    for path in sorted(glob.glob(os.path.join(KUEUE_API, "crd", "*.yaml"))):
        kinds.extend(crd_kinds(path))
    jobset = None
    for rel in INTEGRATION_CRDS:
        for k in crd_kinds(os.path.join(COMPAT, rel)):
            kinds.append(k)
            if k[1] == "JobSet":
                jobset = k[3]
    kinds.append(("batch", "Job", "v1", job_from_jobset(jobset)))
    kinds.append(("", "Namespace", "v1", NAMESPACE))
    kinds.append(("", "LimitRange", "v1", LIMIT_RANGE))
    kinds.append(("node.k8s.io", "RuntimeClass", "v1", RUNTIME_CLASS))
    for v in ("v1beta1", "v1beta2"):
        kinds.append(("config.kueue.x-k8s.io", "Configuration", v, configuration(v)))
    return sorted(kinds, key=lambda k: k[:3])


FLAG_MAP, FLAG_CHECK = 1, 2


class Table:
    """Field lists, each sorted by name and stored once however often it recurs."""

    def __init__(self):
        self.rows = []      # (name, flags, first, n)
        self.lists = {}     # tuple of rows -> first index

    def field(self, name, node):
        kind = node[0]
        if kind == "map":
            first, n, check = self.children(node[1])
            return (name, FLAG_MAP | (FLAG_CHECK if check else 0), first, n)
        first, n, check = self.children(node)
        return (name, FLAG_CHECK if check else 0, first, n)

    def children(self, node):
        """(first, n, check) of the list of fields a value must keep to."""
        if node[0] != "obj":
            return 0, 0, False
        rows = tuple(self.field(k, node[1][k]) for k in sorted(node[1]))
        if not rows:
            return 0, 0, True
        if len(rows) >= 1 << 16:
            raise SystemExit(f"gen_known_fields: {len(rows)} fields in one object: n is 16 bits")
        if rows not in self.lists:
            self.lists[rows] = len(self.rows)
            self.rows.extend(rows)
        return self.lists[rows], len(rows), True


def c_string(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def render():
    t = Table()
    roots = []
    for group, kind, version, node in all_kinds():
        first, n, _ = t.children(node)
        roots.append((group, kind, version, first, n))
    out = [
        "/*",
        " * manifest_known.c: GENERATED by tests/tools/gen_known_fields.py; do not edit. Every",
        " * field the API knows, per kind and version (manifest_known.h says how to read it),",
        " * from Kueue's CRDs and Configuration types (tests/data/kueue-api), the integration",
        " * CRDs (tests/data/compat/integrations) and the generator's own lists (ObjectMeta,",
        " * Namespace). The ctest known_fields checks that it is up to date.",
        " */",
        '#include "manifest_known.h"',
        "",
        "const struct gq__mf_known gq__mf_known_fields[] = {",
    ]
    for i, (name, flags, first, n) in enumerate(t.rows):
        out.append(f"    /* {i} */ {{{c_string(name)}, {first}, {n}, {flags}}},")
    out += ["};", "", "const struct gq__mf_known_kind gq__mf_known_kinds[] = {"]
    for group, kind, version, first, n in roots:
        out.append(f"    {{{c_string(group)}, {c_string(kind)}, {c_string(version)}, {first}, {n}}},")
    out += ["};", "",
            "const size_t gq__mf_known_nkinds = sizeof(gq__mf_known_kinds) / "
            "sizeof(gq__mf_known_kinds[0]);", ""]
    return "\n".join(out)


def deploy_versions():
    """(group, kind, version) served by the CRDs gpuq ships in examples/deploy/crds."""
    for path in sorted(glob.glob(os.path.join(DEPLOY_CRDS, "*.yaml"))):
        with open(path, encoding="utf-8") as f:
            for d in yaml.load_all(f, Loader=LOADER):
                if d and d.get("kind") == "CustomResourceDefinition":
                    for v in d["spec"]["versions"]:
                        if v.get("served", True):
                            yield d["spec"]["group"], d["spec"]["names"]["kind"], v["name"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--out", default=OUT)
    args = ap.parse_args()
    text = render()
    if not args.check:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(text)
        return 0
    ok = True
    with open(args.out, encoding="utf-8") as f:
        have = f.read()
    if have != text:
        diff = list(difflib.unified_diff(have.splitlines(), text.splitlines(), args.out,
                                         "generated", lineterm="", n=1))
        print(f"{args.out} is not what {__file__} generates; run it. First lines of the diff:")
        print("\n".join(diff[:40]))
        ok = False
    table = {k[:3] for k in all_kinds()}
    for gkv in deploy_versions():
        # The ProvisioningRequest is gpuq's output, never decoded: not in the table.
        if gkv[0] != "autoscaling.x-k8s.io" and gkv not in table:
            print(f"examples/deploy/crds serves {gkv[1]} {gkv[0]}/{gkv[2]}, which the table lacks")
            ok = False
    print(f"{len(table)} kinds and versions checked" if ok else "known_fields: FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
