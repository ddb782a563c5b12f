# Issue 16: kueuectl's stop and resume workload (Kueue's spec.active). An
# admitted workload stopped is evicted and gives its quota back; a pending one
# stops waiting; resume queues it again; stopping what is already stopped is
# refused with its state.
$ gpuq apply -f $DATA/integrations/three-gpus.yaml
> resourceflavor.kueue.x-k8s.io/l4 created
> clusterqueue.kueue.x-k8s.io/three-gpus created
> localqueue.kueue.x-k8s.io/dws-local-queue created
> workloadpriorityclass.kueue.x-k8s.io/urgent created
$ gpuq apply -f $DATA/integrations/urgent-job.yaml
> job.batch/urgent created
$ gpuq schedule -q
> 1 cycle: 1 admitted, 0 evicted
$ gpuq stop workload urgent -n small
~ workload/job-urgent-[0-9a-f]{5} stopped
$ gpuq list -n small --status all --no-headers
~ job-urgent-[0-9a-f]{5} +job +urgent +dws-local-queue +three-gpus +DEACTIVATED +{AGE}
$ gpuq list clusterqueues -o json | python3 -c 'import json,sys; q=json.load(sys.stdin)["items"][0]["status"]; print(q["admittedWorkloads"], [(r["name"], r["total"]) for f in q["flavorsUsage"] for r in f["resources"]])'
> 0 [('cpu', '0'), ('memory', '0'), ('nvidia.com/gpu', '0')]
$ gpuq stop workload/urgent -n small
!~ error: workload "job-urgent-[0-9a-f]{5}" is deactivated: only a pending or admitted workload can be stopped
? 1
$ gpuq resume workload urgent -n small
~ workload/job-urgent-[0-9a-f]{5} resumed
$ gpuq list -n small --no-headers
~ job-urgent-[0-9a-f]{5} +job +urgent +dws-local-queue +three-gpus +PENDING +0 +{AGE}
$ gpuq stop workload urgent -n small
~ workload/job-urgent-[0-9a-f]{5} stopped
$ gpuq schedule -q
> 1 cycle: 0 admitted, 0 evicted
$ gpuq stop workload urgent -n small --keep-already-running
! error: --keep-already-running is for queues: a stopped workload gives its quota back
? 2
