# Issue 16: the report counts GPUs by the rule the GPUS column and the
# metrics use (gq__gpu_resource, SQL's gq_gpu_resource): a MIG slice is a GPU.
# A ProvisioningRequest is filed under the flavor of its workload's GPU
# resource; in a MIG-only queue whose cpu is another flavor, that is the MIG
# flavor (a LIKE '%gpu%' match found no GPU and took cpu's flavor).
$ printf 'apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: cpus}\n---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: a100-mig}\n---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: AdmissionCheck\nmetadata: {name: dws-prov}\nspec:\n  controllerName: kueue.x-k8s.io/provisioning-request\n  parameters: {apiGroup: kueue.x-k8s.io, kind: ProvisioningRequestConfig, name: dws-config}\n---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ProvisioningRequestConfig\nmetadata: {name: dws-config}\nspec:\n  provisioningClassName: queued-provisioning.gke.io\n  managedResources: [nvidia.com/mig-1g.5gb]\n---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: mig}\nspec:\n  namespaceSelector: {}\n  resourceGroups:\n  - coveredResources: [cpu]\n    flavors: [{name: cpus, resources: [{name: cpu, nominalQuota: 100}]}]\n  - coveredResources: [nvidia.com/mig-1g.5gb]\n    flavors: [{name: a100-mig, resources: [{name: nvidia.com/mig-1g.5gb, nominalQuota: 14}]}]\n  admissionChecksStrategy:\n    admissionChecks: [{name: dws-prov}]\n---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: q, namespace: default}\nspec: {clusterQueue: mig}\n' | gpuq apply -f -
> resourceflavor.kueue.x-k8s.io/cpus created
> resourceflavor.kueue.x-k8s.io/a100-mig created
> admissioncheck.kueue.x-k8s.io/dws-prov created
> provisioningrequestconfig.kueue.x-k8s.io/dws-config created
> clusterqueue.kueue.x-k8s.io/mig created
> localqueue.kueue.x-k8s.io/q created
$ gpuq submit --queue q --name m1 --gpu-resource nvidia.com/mig-1g.5gb --gpus 2 --cpu 1
~ job-m1-[0-9a-f]{5}
$ gpuq schedule -q
> 1 cycle: 1 admitted, 0 evicted
$ gpuq report -o json | python3 -c 'import json, sys; [print(f["flavor"], f["requests"]) for f in json.load(sys.stdin)["provisioning"]["flavors"]]'
> a100-mig 1
# The simulated cluster's books count a MIG slice as a GPU too: a pod asking
# for two slices takes two of a node's seven (gpusPerNode counts slices),
# and the report's GPU-hours are the slices' hours.
$ printf 'apiVersion: sim.gpuq.dev/v1alpha1\nkind: NodePool\nmetadata: {name: a100-mig}\nspec:\n  nodeLabels: {cloud.google.com/gke-accelerator: nvidia-a100-80gb}\n  gpusPerNode: 7\n  minNodes: 0\n  maxNodes: 1\n  provisioningTime: 1m\n  scaleDownAfter: 1m\n---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: a100-mig}\nspec: {nodeLabels: {cloud.google.com/gke-accelerator: nvidia-a100-80gb}}\n' | gpuq apply -f -
> nodepool.sim.gpuq.dev/a100-mig created
> resourceflavor.kueue.x-k8s.io/a100-mig configured
$ gpuq cancel m1 > /dev/null; gpuq submit --queue q --name m2 --gpu-resource nvidia.com/mig-1g.5gb --gpus 2 --cpu 1 --duration 1h
~ job-m2-[0-9a-f]{5}
$ gpuq run --seed 1 -q > /dev/null; python3 -c 'import os, sqlite3; c = sqlite3.connect(os.environ["GPUQ_DB"]); print(c.execute("SELECT count(*), sum(gpus) FROM sim_pods").fetchone(), c.execute("SELECT gpus FROM sim_nodes").fetchall())'
> (1, 2) [(7,)]
$ gpuq report -o json | python3 -c 'import json, sys; g = json.load(sys.stdin)["cost"]; print(round(g["gpu_hours_used"], 2))'
> 2.0
