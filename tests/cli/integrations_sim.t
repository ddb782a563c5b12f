# Issue 15: a JobSet in the simulated cluster. Both pod sets' pods ask for
# A100s: one ProvisioningRequest finds 8 nodes in the A100 pool, the JobSet is
# admitted once they are provisioned, runs its 10 minutes and finishes, the
# quota going back with it.
$ gpuq apply -f $DATA/../../examples/dws-walkthrough/queues.yaml -f $DATA/integrations/pools-8.yaml
> resourceflavor.kueue.x-k8s.io/default-flavor created
> admissioncheck.kueue.x-k8s.io/dws-prov created
> provisioningrequestconfig.kueue.x-k8s.io/dws-config created
> clusterqueue.kueue.x-k8s.io/dws-cluster-queue created
> localqueue.kueue.x-k8s.io/dws-local-queue created
> nodepool.sim.gpuq.dev/dws-t4-nodepool created
> nodepool.sim.gpuq.dev/dws-a100-nodepool created
> nodepool.sim.gpuq.dev/dws-h100-nodepool created
$ gpuq apply -f $DATA/integrations/jobset-a100.yaml
> jobset.jobset.x-k8s.io/trainer created
$ gpuq run --speed max --for 2h
> +0s        job default/trainer reserved (cpu=default-flavor,memory=default-flavor,nvidia.com/gpu=default-flavor,cpu=default-flavor,memory=default-flavor,nvidia.com/gpu=default-flavor)
~ \+0s        provisioningrequest default/jobset-trainer-[0-9a-f]{5}-dws-prov-1 Accepted: Capacity found in node pool dws-a100-nodepool: 8 nodes, ETA \S+
~ \+5m55s     provisioningrequest default/jobset-trainer-[0-9a-f]{5}-dws-prov-1 Provisioned: Provisioning Request was successfully provisioned\.
> +5m55s     job default/trainer admitted (every admission check is Ready)
> +5m55s     job default/trainer started
> +15m55s    job default/trainer finished: Job finished after 10m
~ 25m55\.165s simulated in [0-9.]+ s: 1 admitted, 1 started, 1 finished, 0 evicted, 1 provisioning requests
$ gpuq list --status all --no-headers
~ jobset-trainer-[0-9a-f]{5} +jobset +trainer +dws-local-queue +dws-cluster-queue +FINISHED +10m +{AGE}
$ gpuq list clusterqueues -o json | python3 -c 'import json,sys; q=json.load(sys.stdin)["items"][0]["status"]; print(q["reservingWorkloads"], q["admittedWorkloads"])'
> 0 0
