# Issue 13: input is validated as the API server and a careful CLI would.
# Each step names its row of the adversarial table; each was accepted, or
# misprinted, before. Refusals are one line naming the value, exit status 1,
# and nothing written: the listing saved first is unchanged after them.
$ gpuq apply -f $DATA/../../examples/gke-dws/dws-queues.yaml >/dev/null
$ gpuq list -A -o json
= before
#
# F1: a duration whose end cannot be represented; 100 years is the cap, on
# every path (the flag, the gpuq.dev/duration annotation, manifest fields).
$ gpuq submit --queue dws-local-queue --name huge --gpus 1 --duration 9223372036854775s
! error: --duration: invalid value "9223372036854775s": must be at most 876600h (100 years)
? 1
$ printf '{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"huge","annotations":{"gpuq.dev/duration":"876600h1ms"},"labels":{"kueue.x-k8s.io/queue-name":"dws-local-queue"}},"spec":{"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox"}]}}}}' > huge.json; gpuq submit -f huge.json
! error: huge.json: document 1 (Job default/huge): metadata.annotations.gpuq.dev/duration: invalid value "876600h1ms": must be at most 876600h (100 years)
? 1
$ printf 'apiVersion: sim.gpuq.dev/v1alpha1\nkind: NodePool\nmetadata: {name: slow}\nspec:\n  gpusPerNode: 8\n  maxNodes: 1\n  provisioningTime: 9223372036854775s\n' | gpuq apply -f -
!~ error: .*: document 1 \(NodePool slow\): spec\.provisioningTime: invalid value "9223372036854775s": must be at most 876600h \(100 years\)
? 1
$ gpuq list -A -o json
== before
#
# F9: control characters in an annotation reach the terminal escaped:
# ESC and CR as kubectl writes them, BEL in caret notation, a C1 CSI by code.
$ printf '{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"esc","annotations":{"note":"x\\u001b[31mred\\u0007bel\\rcr\\u009bz"},"labels":{"kueue.x-k8s.io/queue-name":"dws-local-queue"}},"spec":{"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox"}]}}}}' > esc.json; gpuq apply -f esc.json
> job.batch/esc created
$ gpuq describe job esc | grep '^Annotations'
> Annotations:               note: x^[[31mred^Gbel\rcr\u009bz
$ gpuq delete job esc >/dev/null; gpuq list -A -o json
== before
#
# F13: a NUL inside a JSON string was cut off, and the part before it checked.
$ printf '{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"nul\\u0000x","labels":{"kueue.x-k8s.io/queue-name":"dws-local-queue"}},"spec":{"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox"}]}}}}' > nul.json; gpuq apply -f nul.json
! error: nul.json: document 1: metadata.name: invalid value "nul\x00x": must not contain a NUL character
? 1
$ printf '{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"nul","annotations":{"a":"x\\u0000y"},"labels":{"kueue.x-k8s.io/queue-name":"dws-local-queue"}},"spec":{"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox"}]}}}}' > nul2.json; gpuq apply -f nul2.json
! error: nul2.json: document 1 (Job default/nul): metadata.annotations.a: invalid value "x\x00y": must not contain a NUL character
? 1
$ printf 'apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: nul\n  labels: {kueue.x-k8s.io/queue-name: dws-local-queue}\nspec:\n  template:\n    spec:\n      restartPolicy: Never\n      containers:\n      - name: c\n        image: busybox\n        resources: {requests: {cpu: "1\\0junk"}}\n' > nul3.yaml; gpuq apply -f nul3.yaml
! error: nul3.yaml: document 1 (Job default/nul): spec.template.spec.containers[0].resources.requests.cpu: invalid value "1\x00junk": must not contain a NUL character
? 1
$ gpuq list -A -o json
== before
#
# F16 and F24: --count 0 is refused like -3; an out-of-range --gpus names its range.
$ gpuq submit --queue dws-local-queue --count 0
! error: --count: invalid value "0": must be greater than or equal to 1
? 1
$ gpuq submit --queue dws-local-queue --count -3
! error: --count: invalid value "-3": must be greater than or equal to 1
? 1
$ gpuq submit --queue dws-local-queue --gpus 9223372036854775808
! error: --gpus: invalid value "9223372036854775808": must be between 0 and 9223372036854775807
? 1
$ gpuq submit --queue dws-local-queue --gpus 1.5
! error: --gpus: invalid value "1.5": must be an integer
? 1
$ gpuq submit --queue dws-local-queue --cpu 9223372036854775807
! error: --cpu: invalid value "9223372036854775807": must be between 0 and 9223372036854775807m
? 1
#
# F18: a device or a FIFO is read only as far as one document can go (4 MiB).
$ gpuq apply -f /dev/zero
! error: /dev/zero: a document is larger than 4194304 bytes
? 1
$ mkfifo fifo; (yes 'x: 1' > fifo 2>/dev/null &); gpuq apply -f fifo
! error: fifo: a document is larger than 4194304 bytes
? 1
#
# F19: all annotations of an object together at most 256 KiB, keys and values.
$ python3 -c 'import json; print(json.dumps({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "ann", "annotations": {"a": "x" * 262143}, "labels": {"kueue.x-k8s.io/queue-name": "dws-local-queue"}}, "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}}}))' > fits.json; gpuq apply -o name -f fits.json
> job.batch/ann
$ python3 -c 'import json; print(json.dumps({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "ann2", "annotations": {"a": "x" * 262143, "b": ""}, "labels": {"kueue.x-k8s.io/queue-name": "dws-local-queue"}}, "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}}}))' > over.json; gpuq apply -f over.json
! error: over.json: document 1 (Job default/ann2): metadata.annotations: Too long: must have at most 262144 bytes
? 1
$ python3 -c 'import json; print(json.dumps({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "ann3", "annotations": {"a": "x" * 3 * 1024 * 1024}, "labels": {"kueue.x-k8s.io/queue-name": "dws-local-queue"}}, "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}}}))' > huge3.json; gpuq apply -f huge3.json
! error: huge3.json: document 1 (Job default/ann3): metadata.annotations: Too long: must have at most 262144 bytes
? 1
$ gpuq delete job ann >/dev/null; gpuq list -A -o json
== before
#
# F23: nothing to apply is an error, as kubectl says it.
$ printf '# nothing here\n' > empty.yaml; gpuq apply -f empty.yaml
! error: no objects passed to apply
? 1
$ gpuq submit -f empty.yaml
! error: no objects passed to submit
? 1
$ : | gpuq apply -f -
! error: no objects passed to apply
? 1
#
# F10: a token is never sent over http, not even to localhost.
$ printf 'apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "http://127.0.0.1:1"}}]\nusers: [{name: u, user: {token: s3cr3t}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n' > kc.yaml; chmod 600 kc.yaml; gpuq --kubeconfig kc.yaml list
! error: cluster "c": server http://127.0.0.1:1 is http: refusing to send the credentials of user "u" (token) in clear text; use https
? 1
#
# F20: quantities read back in apimachinery's canonical form.
$ gpuq submit --queue dws-local-queue --name canon --cpu 1000m --memory 1.5Gi --gpus 1
~ job-canon-[0-9a-f]{5}
$ gpuq list -o json | python3 -c 'import json, sys; [print(k, v) for i in json.load(sys.stdin)["items"] if i["metadata"]["name"].startswith("job-canon-") for c in i["spec"]["podSets"][0]["template"]["spec"]["containers"] for k, v in sorted(c["resources"]["requests"].items())]'
> cpu 1
> memory 1536Mi
> nvidia.com/gpu 1
$ gpuq submit --queue dws-local-queue --name half --cpu 0.5 -o yaml | grep -A1 'requests:'
>             requests:
>               cpu: 500m
$ gpuq cancel canon half >/dev/null
#
# F15: a quota past int64 milli-units saturated, and so did the request of a
# job asking three times as much, which then fit: both refused at the door.
$ printf 'apiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\nmetadata: {name: big}\nspec:\n  namespaceSelector: {}\n  resourceGroups:\n  - coveredResources: [cpu]\n    flavors:\n    - name: default-flavor\n      resources: [{name: cpu, nominalQuota: "9223372036854775807"}]\n---\napiVersion: kueue.x-k8s.io/v1beta1\nkind: LocalQueue\nmetadata: {name: big, namespace: default}\nspec: {clusterQueue: big}\n' > big.yaml; gpuq apply -f big.yaml
! error: big.yaml: document 1 (ClusterQueue big): spec.resourceGroups[0].flavors[0].resources[0].nominalQuota: invalid value "9223372036854775807": must be at most 9223372036854775807m, the largest cpu amount gpuq accounts
? 1
$ sed 's/"9223372036854775807"/"9223372036854775807m"/' big.yaml > max.yaml; gpuq apply -f max.yaml
> clusterqueue.kueue.x-k8s.io/big created
> localqueue.kueue.x-k8s.io/big created
$ gpuq submit --queue big --name triple --cpu 9223372036854775807m --count 3
! error: gpuq submit: document 1 (Job default/triple): spec: cpu: 3 pods of 9223372036854775807m (pod set "main") take the total over 9223372036854775807m, the largest cpu amount gpuq accounts
? 1
$ gpuq submit --queue big --name third --cpu 3074457345618258602m --count 3
~ job-third-[0-9a-f]{5}
$ gpuq schedule
~ cycle 1: workload default/job-third-[0-9a-f]{5} admitted in big \(cpu=default-flavor\)
> 1 cycle: 1 admitted, 0 evicted
