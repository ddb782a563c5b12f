"""gpuq get's selection and printing flags held to kubectl 1.32 itself: the
same Kueue objects are applied to a local database (gpuq apply) and to the
test API server (kubectl apply, with Kueue's CRDs), and every pair of
commands below must print the same thing, byte for byte: -o jsonpath (lists,
ranges, filters, slices, maps as JSON, a template file), -o custom-columns
(and its file), --sort-by (natural order of names, numbers, quantities),
-l (equality- and set-based), --field-selector, -o name, and the label
columns -L and --show-labels (compared column by column, as the tables'
other columns are gpuq's own). Errors must fail in both."""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import Checks, binary  # noqa: E402
from cluster import CRDS, FakeAPI  # noqa: E402

OBJECTS = """apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata:
  name: spot-a100
  labels: {tier: spot, gpu: a100, rank: "10"}
spec:
  nodeLabels: {cloud.google.com/gke-spot: "true"}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata:
  name: ondemand-h100
  labels: {tier: ondemand, gpu: h100, rank: "9"}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata:
  name: reserved-l4
  labels: {gpu: l4, rank: "100"}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata:
  name: plain
"""

QUEUES = """apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata:
  name: {name}
  labels: {{team: {team}}}
spec:
  cohort: {cohort}
  namespaceSelector: {{}}
  resourceGroups:
  - coveredResources: ["cpu", "nvidia.com/gpu"]
    flavors:
    - name: spot-a100
      resources:
      - name: cpu
        nominalQuota: "{cpu}"
      - name: nvidia.com/gpu
        nominalQuota: {gpus}
---
"""

LOCALQUEUE = """apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata:
  name: {name}
  namespace: {ns}
  labels: {{app: {app}}}
spec:
  clusterQueue: {cq}
---
"""

COLUMNS_FILE = "NAME          TIER             GPU\nmetadata.name metadata.labels.tier {.metadata.labels.gpu}\n"
TEMPLATE_FILE = '{range .items[*]}{.metadata.name}={.metadata.labels.gpu}{"\\n"}{end}'

# (what, args): each run as `gpuq get ARGS` and `kubectl get ARGS`.
CASES = [
    ("jsonpath list", ["resourceflavors", "-o", "jsonpath={.items[*].metadata.name}"]),
    ("jsonpath range", ["clusterqueues", "-o",
                        'jsonpath={range .items[*]}{.metadata.name}{"\\t"}{.metadata.labels.team}{"\\n"}{end}']),
    ("jsonpath filter", ["clusterqueues", "-o",
                         "jsonpath={.items[*].spec.resourceGroups[0].flavors[0]"
                         ".resources[?(@.name==\"nvidia.com/gpu\")].nominalQuota}"]),
    ("jsonpath slice", ["clusterqueues", "-o", "jsonpath={.items[-1:].metadata.name}"]),
    ("jsonpath step", ["clusterqueues", "-o", "jsonpath={.items[0:3:2].metadata.name}"]),
    ("jsonpath map", ["clusterqueue", "cq-2", "-o", "jsonpath={.metadata.labels}"]),
    ("jsonpath list value", ["clusterqueue", "cq-2", "-o",
                             "jsonpath={.spec.resourceGroups[0].coveredResources}"]),
    ("jsonpath one object", ["resourceflavor", "spot-a100", "-o",
                             "jsonpath={.metadata.name} {.spec.nodeLabels}"]),
    ("jsonpath escaped dot", ["resourceflavor", "spot-a100", "-o",
                              "jsonpath={.spec.nodeLabels.cloud\\.google\\.com/gke-spot}"]),
    ("jsonpath union", ["resourceflavors", "-o", "jsonpath={.items[0,2].metadata.name}"]),
    ("jsonpath recursive", ["clusterqueue", "cq-1", "-o", "jsonpath={..nominalQuota}"]),
    # kubectl walks a map in Go's random order: compared as a set below (gpuq: key order).
    ("jsonpath wildcard (unordered)", ["resourceflavor", "ondemand-h100", "-o",
                                       "jsonpath={.metadata.labels.*}"]),
    ("jsonpath text only", ["resourceflavors", "-o", "jsonpath=plain text"]),
    ("jsonpath missing key", ["resourceflavors", "-o",
                              "jsonpath={.items[*].metadata.labels.tier}"]),
    ("custom-columns", ["localqueues", "-A", "-o",
                        "custom-columns=NAME:.metadata.name,NAMESPACE:.metadata.namespace,"
                        "CQ:{.spec.clusterQueue},APP:metadata.labels.app,NONE:.spec.nothing"]),
    ("custom-columns no headers", ["resourceflavors", "--no-headers", "-o",
                                   "custom-columns=N:.metadata.name,L:.metadata.labels"]),
    ("custom-columns list cell", ["clusterqueues", "-o",
                                  "custom-columns=NAME:.metadata.name,"
                                  "RES:.spec.resourceGroups[*].coveredResources[*]"]),
    ("sort-by name (bytes)", ["clusterqueues", "--sort-by=.metadata.name", "-o", "name"]),
    ("sort-by braces", ["clusterqueues", "--sort-by={.metadata.name}", "-o", "name"]),
    ("sort-by quantity", ["clusterqueues", "--sort-by",
                          ".spec.resourceGroups[0].flavors[0].resources[0].nominalQuota",
                          "-o", "name"]),
    # One object without the field: kubectl's comparator is only consistent with one.
    ("sort-by missing field first", ["resourceflavors", "--sort-by=.metadata.labels.gpu",
                                     "-o", "name"]),
    ("sort-by label numbers", ["resourceflavors", "--sort-by=.metadata.labels.rank",
                               "-o", "jsonpath={.items[*].metadata.name}"]),
    ("sort-by cluster queue", ["localqueues", "-A", "--sort-by=.spec.clusterQueue", "-o",
                               "custom-columns=NAME:.metadata.name,CQ:.spec.clusterQueue"]),
    ("label equality", ["resourceflavors", "-l", "tier=spot", "-o", "name"]),
    ("label ==", ["resourceflavors", "-l", "tier==ondemand", "-o", "name"]),
    ("label inequality", ["resourceflavors", "-l", "tier!=spot", "-o", "name"]),
    ("label set", ["resourceflavors", "-l", "gpu in (a100, l4)", "-o", "name"]),
    ("label notin", ["resourceflavors", "-l", "gpu notin (a100)", "-o", "name"]),
    ("label exists", ["resourceflavors", "-l", "tier", "-o", "name"]),
    ("label not exists", ["resourceflavors", "-l", "!tier", "-o", "name"]),
    ("label and", ["resourceflavors", "-l", "gpu,tier!=spot", "-o", "name"]),
    ("label namespaced", ["localqueues", "-A", "-l", "app=train", "-o", "name"]),
    ("field name", ["clusterqueues", "--field-selector", "metadata.name=cq-2", "-o", "name"]),
    ("field name !=", ["clusterqueues", "--field-selector=metadata.name!=cq-2", "-o", "name"]),
    ("field namespace", ["localqueues", "-A", "--field-selector",
                         "metadata.namespace=team-b", "-o", "name"]),
    ("field and label", ["localqueues", "-A", "--field-selector", "metadata.namespace!=team-b",
                         "-l", "app", "-o", "name"]),
    ("name", ["localqueues", "-n", "team-b", "-o", "name"]),
]

# Commands both must refuse (non-zero exit status).
FAILS = [
    ("index out of range", ["resourceflavors", "-o", "jsonpath={.items[9]}"]),
    ("unclosed action", ["resourceflavors", "-o", "jsonpath={.items"]),
    ("bad selector", ["resourceflavors", "-l", "gpu in a100"]),
    ("bad field", ["clusterqueues", "--field-selector", "spec.bogus=1"]),
    ("sort-by nowhere", ["resourceflavors", "--sort-by=.spec.nothing", "-o", "name"]),
]


def objects():
    text = OBJECTS + "---\n"
    for name, team, cohort, cpu, gpus in (("cq-2", "a", "all", "96", 8), ("cq-10", "b", "all", "1k", 16),
                                          ("cq-1", "a", "solo", "200m", 4)):
        text += QUEUES.format(name=name, team=team, cohort=cohort, cpu=cpu, gpus=gpus)
    for name, ns, app, cq in (("train", "default", "train", "cq-2"), ("serve", "default", "serve", "cq-10"),
                              ("train", "team-b", "train", "cq-1"), ("batch", "team-b", "batch", "cq-2")):
        text += LOCALQUEUE.format(name=name, ns=ns, app=app, cq=cq)
    return text


def label_tables(c, gq, kc):
    """-L and --show-labels: the label columns are the last ones in both tables and sized
    by the same values, so from the first label header on each row must read the same."""
    for what, args, first in (("-L", ["resourceflavors", "-L", "tier", "-L", "gpu,rank"], "TIER"),
                              ("--show-labels", ["resourceflavors", "--show-labels"], "LABELS")):
        g, k = gq(*args), kc(*args)
        if not c.check(g.returncode == 0 and k.returncode == 0, f"{what}: {g.stderr}{k.stderr}"):
            continue
        gl, kl = g.stdout.splitlines(), k.stdout.splitlines()
        gat, kat = gl[0].rfind(first), kl[0].rfind(first)
        c.check(gat > 0 and kat > 0, f"{what}: no {first} column: {gl[0]!r} / {kl[0]!r}")
        # gpuq's tables never end a line with blanks; kubectl's tabwriter pads empty cells.
        gmap = {ln.split()[0]: ln[gat:].rstrip() for ln in gl}
        kmap = {ln.split()[0]: ln[kat:].rstrip() for ln in kl}
        c.check(gmap == kmap, f"{what}: gpuq's label columns {gmap} != kubectl's {kmap}")


def main():
    gpuq = binary()
    c = Checks()
    with tempfile.TemporaryDirectory(prefix="gpuq-get-") as tmp, FakeAPI(tmp, crds=CRDS) as api:
        path = os.path.join(tmp, "objects.yaml")
        with open(path, "w") as f:
            f.write(objects())
        for name, text in (("cols.txt", COLUMNS_FILE), ("tmpl.txt", TEMPLATE_FILE)):
            with open(os.path.join(tmp, name), "w") as f:
                f.write(text)
        db = os.path.join(tmp, "gpuq.db")
        env = {k: v for k, v in os.environ.items() if k not in ("KUBECONFIG", "GPUQ_DB")}
        env["NO_COLOR"] = "1"

        def gq(*args):
            return subprocess.run([gpuq, "--db", db, "get", *args], capture_output=True,
                                  text=True, timeout=120, env=env, cwd=tmp)

        def kc(*args):
            return subprocess.run(["kubectl", "--kubeconfig", api.kubeconfig("admin"),
                                   "--cache-dir", os.path.join(tmp, "kc-cache"), "get", *args],
                                  capture_output=True, text=True, timeout=120, cwd=tmp)

        r = api.kubectl("create", "namespace", "team-b")
        c.check(r.returncode == 0, f"kubectl create namespace: {r.stderr}")
        r = api.kubectl("apply", "-f", path)
        c.check(r.returncode == 0, f"kubectl apply: {r.stderr}")
        r = subprocess.run([gpuq, "--db", db, "apply", "-f", path], capture_output=True,
                           text=True, timeout=120, env=env)
        c.check(r.returncode == 0, f"gpuq apply: {r.stderr}")

        cases = CASES + [
            ("custom-columns-file", ["resourceflavors", "-o", "custom-columns-file=cols.txt"]),
            ("jsonpath-file", ["resourceflavors", "-o", "jsonpath-file=tmpl.txt"]),
        ]
        for what, args in cases:
            g, k = gq(*args), kc(*args)
            c.check(k.returncode == 0, f"{what}: kubectl failed: {k.stderr.strip()}")
            c.check(g.returncode == 0, f"{what}: gpuq failed: {g.stderr.strip()}")
            same = sorted(g.stdout.split()) == sorted(k.stdout.split()) if "unordered" in what \
                else g.stdout == k.stdout
            c.check(same, f"{what}: gpuq get {' '.join(args)}\n  gpuq:    {g.stdout!r}\n"
                          f"  kubectl: {k.stdout!r}")
        for what, args in FAILS:
            g, k = gq(*args), kc(*args)
            c.check(k.returncode != 0, f"{what}: kubectl did not fail: {k.stdout!r}")
            c.check(g.returncode != 0, f"{what}: gpuq did not fail: {g.stdout!r}")
            c.check(g.stdout == "" and g.stderr.startswith("error: ") and
                    len(g.stderr.strip().splitlines()) == 1,
                    f"{what}: gpuq's error is not one line: {g.stdout!r} {g.stderr!r}")
        label_tables(c, gq, kc)
        g = gq("resourceflavors", "-o", "go-template={{.}}")
        c.check(g.returncode == 2 and "no Go template engine" in g.stderr and not g.stdout,
                f"go-template is refused by name: {g.returncode} {g.stderr!r}")
    return c.done()


if __name__ == "__main__":
    sys.exit(main())
