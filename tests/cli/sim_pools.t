# NodePools (sim.gpuq.dev/v1alpha1): the simulated cluster's capacity, applied
# beside the queues; and a job's run duration (gpuq.dev/duration, --duration).
$ gpuq apply -f $DATA/../../examples/manifests/sim-pools.yaml
> nodepool.sim.gpuq.dev/t4 created
> nodepool.sim.gpuq.dev/a100 created
> nodepool.sim.gpuq.dev/h100 created
# The same pools again, however the durations are spelt, change nothing.
$ gpuq apply -f $DATA/../../examples/manifests/sim-pools.yaml
> nodepool.sim.gpuq.dev/t4 unchanged
> nodepool.sim.gpuq.dev/a100 unchanged
> nodepool.sim.gpuq.dev/h100 unchanged
$ printf 'apiVersion: sim.gpuq.dev/v1alpha1\nkind: NodePool\nmetadata: {name: a100}\nspec:\n  nodeLabels: {cloud.google.com/gke-accelerator: nvidia-tesla-a100}\n  gpusPerNode: 8\n  minNodes: 0\n  maxNodes: 4\n  provisioningTime: 300s\n  scaleDownAfter: "600"\n' | gpuq apply -f -
> nodepool.sim.gpuq.dev/a100 unchanged
$ printf 'apiVersion: sim.gpuq.dev/v1alpha1\nkind: NodePool\nmetadata: {name: a100}\nspec:\n  nodeLabels: {cloud.google.com/gke-accelerator: nvidia-tesla-a100}\n  gpusPerNode: 8\n  maxNodes: 4\n  provisioningTime: 1h30m\n' | gpuq apply -f -
> nodepool.sim.gpuq.dev/a100 configured
$ gpuq list nodepools
~ NAME +GPUS/NODE +MIN +MAX +PROVISIONING TIME +STOCKOUT +LABELS +AGE
~ a100 +8 +0 +4 +1h30m +false +cloud\.google\.com/gke-accelerator=nvidia-tesla-a100 +{AGE}
~ h100 +8 +0 +8 +10m +true +cloud\.google\.com/gke-accelerator=nvidia-h100-80gb +{AGE}
~ t4 +4 +0 +6 +2m +false +cloud\.google\.com/gke-accelerator=nvidia-tesla-t4 +{AGE}
$ gpuq list np -o name
> nodepool.sim.gpuq.dev/a100
> nodepool.sim.gpuq.dev/h100
> nodepool.sim.gpuq.dev/t4
$ gpuq list nodepool -o json | python3 -c 'import json,sys; [print(p["metadata"]["name"], p["spec"]["provisioningTime"], p["spec"]["scaleDownAfter"], p["spec"].get("failAfter")) for p in json.load(sys.stdin)["items"]]'
> a100 1h30m0s 10m0s None
> h100 10m0s 10m0s 15m0s
> t4 2m0s 10m0s None
$ gpuq describe nodepool h100 | grep -E '^(Name|Kind|  (Provisioning Time|Stockout|Fail After)):'
~ Name: +h100
~ Kind: +NodePool
~   Provisioning Time: +10m0s
~   Stockout: +true
~   Fail After: +15m0s
# Bad values are named with their field; nothing is written.
$ printf 'apiVersion: sim.gpuq.dev/v1alpha1\nkind: NodePool\nmetadata: {name: x}\nspec: {maxNodes: 2, provisioningTime: 5x}\n' | gpuq apply -f -
! error: -: document 1 (NodePool x): spec.provisioningTime: invalid value "5x": must be a duration of h, m, s and ms such as "30m", "1h30m" or "90s", not negative
? 1
$ printf 'apiVersion: sim.gpuq.dev/v1alpha1\nkind: NodePool\nmetadata: {name: x}\nspec: {minNodes: 3, maxNodes: 2}\n' | gpuq apply -f -
! error: -: document 1 (NodePool x): spec.maxNodes: invalid value "2": must be greater than or equal to minNodes (3)
? 1
$ printf 'apiVersion: sim.gpuq.dev/v1alpha1\nkind: NodePool\nmetadata: {name: x}\nspec: {gpusPerNode: -1, maxNodes: 2}\n' | gpuq apply -f -
! error: -: document 1 (NodePool x): spec.gpusPerNode: invalid value "-1": must be greater than or equal to 0
? 1
$ printf 'apiVersion: sim.gpuq.dev/v1alpha1\nkind: NodePool\nmetadata: {name: x}\nspec: {gpusPerNode: 8}\n' | gpuq apply -f -
! error: -: document 1 (NodePool x): spec.maxNodes: required
? 1
$ gpuq delete nodepool t4
> nodepool.sim.gpuq.dev "t4" deleted
$ gpuq delete np t4
! error: nodepool "t4" not found
? 1
$ gpuq list nodepools --no-headers
~ a100 +8 +0 +4 +1h30m +false +\S+ +{AGE}
~ h100 +8 +0 +8 +10m +true +\S+ +{AGE}
# A job's run duration: --duration sets the Job's gpuq.dev/duration annotation.
$ gpuq apply -f $DATA/../../examples/gke-dws/dws-queues.yaml >/dev/null
$ gpuq submit --queue dws-local-queue --name trainer --duration 45m
~ job-trainer-[0-9a-f]{5}
$ gpuq submit --queue dws-local-queue --name bad --duration 5x
! error: --duration: invalid value "5x": must be a duration such as "45m", "1h30m" or "90s"
? 1
$ gpuq describe workload trainer | grep -E '^(Duration|Annotations):'
~ Annotations: +gpuq\.dev/duration: 45m
~ Duration: +45m
$ gpuq list -o json | python3 -c 'import json,sys; [print(w["spec"]["podSets"][0]["name"], w["status"]["gpuq"].get("duration")) for w in json.load(sys.stdin)["items"]]'
> main 45m0s
# From a manifest: a bad value names the annotation and the value.
$ printf 'apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: later\n  labels: {kueue.x-k8s.io/queue-name: dws-local-queue}\n  annotations: {gpuq.dev/duration: 5x}\nspec:\n  template:\n    spec:\n      containers: [{name: c}]\n' | gpuq submit -f -
! error: -: document 1 (Job default/later): metadata.annotations.gpuq.dev/duration: invalid value "5x": must be a duration such as "45m", "1h30m" or "90s"
? 1
$ printf 'apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: later\n  labels: {kueue.x-k8s.io/queue-name: dws-local-queue}\n  annotations: {gpuq.dev/duration: 1h30m}\nspec:\n  template:\n    spec:\n      containers: [{name: c}]\n' | gpuq submit -f -
~ job-later-[0-9a-f]{5}
$ gpuq describe workload later | grep '^Duration:'
~ Duration: +1h30m
# Without one, a job runs until cancelled: no Duration line, nothing in the JSON.
$ gpuq submit --queue dws-local-queue --name forever
~ job-forever-[0-9a-f]{5}
$ gpuq describe workload forever | grep -c '^Duration:'
> 0
? 1
