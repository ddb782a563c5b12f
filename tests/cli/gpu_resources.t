# Issue 16: MIG slices and shared GPUs count as GPUs, one per unit, in the
# GPUS column (as nvidia.com/gpu and any other ".../gpu" do); other extended
# resources do not.
$ printf 'apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: f}\n---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: cq}\nspec:\n  namespaceSelector: {}\n  resourceGroups:\n  - coveredResources: [cpu, nvidia.com/gpu, nvidia.com/mig-1g.5gb, nvidia.com/gpu.shared, example.com/fpga]\n    flavors:\n    - name: f\n      resources: [{name: cpu, nominalQuota: 100}, {name: nvidia.com/gpu, nominalQuota: 8}, {name: nvidia.com/mig-1g.5gb, nominalQuota: 14}, {name: nvidia.com/gpu.shared, nominalQuota: 8}, {name: example.com/fpga, nominalQuota: 4}]\n---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: q, namespace: default}\nspec: {clusterQueue: cq}\n' | gpuq apply -f -
> resourceflavor.kueue.x-k8s.io/f created
> clusterqueue.kueue.x-k8s.io/cq created
> localqueue.kueue.x-k8s.io/q created
$ gpuq submit --queue q --name whole --gpus 2 --count 2
~ job-whole-[0-9a-f]{5}
$ gpuq submit --queue q --name mig --gpu-resource nvidia.com/mig-1g.5gb --gpus 3
~ job-mig-[0-9a-f]{5}
$ gpuq submit --queue q --name shared --gpu-resource nvidia.com/gpu.shared --gpus 1 --count 2
~ job-shared-[0-9a-f]{5}
$ gpuq submit --queue q --name fpga --gpu-resource example.com/fpga --gpus 1
~ job-fpga-[0-9a-f]{5}
$ gpuq list -o wide --no-headers | awk '{print $3, $11}'
> whole 4
> mig 3
> shared 2
> fpga 0
