# The DWS walkthrough (reference user story 2) as examples/dws-walkthrough/run.sh
# plays it: GKE's recipe (one flavor, the dws-prov check, "infinite" quota),
# node pools dws-t4-nodepool and dws-a100-nodepool (0..1 nodes, 1 GPU each)
# and a stocked-out H100 pool, GKE's job.yaml once per pool (sleep 120s,
# 1 GPU). In virtual time, seed 1: T4 done 5m25s after submit, A100 4m31s,
# H100 still waiting for capacity, its request accepted, never failed.
# Masked: workload names (a random hash), the provider's ETAs (absolute
# times), the run's wall time, and what grows with the clock after the run
# (AGE, how long the H100 has waited).
$ TMPDIR=$TMP sh $DATA/../../examples/dws-walkthrough/run.sh
~ == database: .*/gpuq\.db
> $ gpuq apply -f examples/dws-walkthrough/queues.yaml -f examples/dws-walkthrough/pools.yaml
> resourceflavor.kueue.x-k8s.io/default-flavor created
> admissioncheck.kueue.x-k8s.io/dws-prov created
> provisioningrequestconfig.kueue.x-k8s.io/dws-config created
> clusterqueue.kueue.x-k8s.io/dws-cluster-queue created
> localqueue.kueue.x-k8s.io/dws-local-queue created
> nodepool.sim.gpuq.dev/dws-t4-nodepool created
> nodepool.sim.gpuq.dev/dws-a100-nodepool created
> nodepool.sim.gpuq.dev/dws-h100-nodepool created
> $ gpuq submit -f examples/dws-walkthrough/jobs.yaml
~ job-dws-t4-job-[0-9a-f]{5}
~ job-dws-a100-job-[0-9a-f]{5}
~ job-dws-h100-job-[0-9a-f]{5}
> $ gpuq run --seed 1 --summary
> +0s        job default/dws-t4-job reserved (cpu=default-flavor,memory=default-flavor,nvidia.com/gpu=default-flavor)
> +0s        job default/dws-a100-job reserved (cpu=default-flavor,memory=default-flavor,nvidia.com/gpu=default-flavor)
> +0s        job default/dws-h100-job reserved (cpu=default-flavor,memory=default-flavor,nvidia.com/gpu=default-flavor)
~ \+0s        provisioningrequest default/job-dws-t4-job-[0-9a-f]{5}-dws-prov-1 Accepted: Capacity found in node pool dws-t4-nodepool: 1 node, ETA [0-9TZ:-]+
~ \+0s        provisioningrequest default/job-dws-a100-job-[0-9a-f]{5}-dws-prov-1 Accepted: Capacity found in node pool dws-a100-nodepool: 1 node, ETA [0-9TZ:-]+
~ \+0s        provisioningrequest default/job-dws-h100-job-[0-9a-f]{5}-dws-prov-1 Accepted: Waiting for resources\. Currently there are not enough resources available to fulfill the request\.
~ \+2m31s     provisioningrequest default/job-dws-a100-job-[0-9a-f]{5}-dws-prov-1 Provisioned: Provisioning Request was successfully provisioned\.
> +2m31s     job default/dws-a100-job admitted (every admission check is Ready)
> +2m31s     job default/dws-a100-job started
~ \+3m25s     provisioningrequest default/job-dws-t4-job-[0-9a-f]{5}-dws-prov-1 Provisioned: Provisioning Request was successfully provisioned\.
> +3m25s     job default/dws-t4-job admitted (every admission check is Ready)
> +3m25s     job default/dws-t4-job started
> +4m31s     job default/dws-a100-job finished: Job finished after 2m
> +5m25s     job default/dws-t4-job finished: Job finished after 2m
# The run stops when nothing is due: the idle nodes have been scaled down
# (scaleDownAfter: 10m) and the H100 request only waits.
~ 15m25\.165s simulated.*: 3 admitted, 2 started, 2 finished, 0 evicted, 3 provisioning requests
>
> Jobs:
> JOB                    CLUSTERQUEUE        STATE      WAITED FOR QUOTA   WAITED FOR CAPACITY   RAN   REQUESTS
> default/dws-t4-job     dws-cluster-queue   finished   0s                 3m25s                 2m    1
> default/dws-a100-job   dws-cluster-queue   finished   0s                 2m31s                 2m    1
> default/dws-h100-job   dws-cluster-queue   reserved   0s                 15m25s                0s    1
>
> ClusterQueues:
> CLUSTERQUEUE        ADMITTED   FINISHED   PENDING   REJECTED
> dws-cluster-queue   2          2          1         0
> $ gpuq list -o wide
> NAME                     JOB TYPE   JOB NAME       LOCALQUEUE        CLUSTERQUEUE        STATUS          POSITION IN QUEUE   EXEC TIME   AGE   PRIORITY   PODS   GPUS   POD SETS   POSITION IN CLUSTERQUEUE   REASON
~ job-dws-t4-job-[0-9a-f]{5}     job        dws-t4-job     dws-local-queue   dws-cluster-queue   FINISHED                            2m          \S+ +0 +1 +1 +main:1
~ job-dws-a100-job-[0-9a-f]{5}   job        dws-a100-job   dws-local-queue   dws-cluster-queue   FINISHED                            2m          \S+ +0 +1 +1 +main:1
~ job-dws-h100-job-[0-9a-f]{5}   job        dws-h100-job   dws-local-queue   dws-cluster-queue   QUOTARESERVED                                   \S+ +0 +1 +1 +main:1 +waiting for capacity \([0-9hms]+\): ProvisioningRequest job-dws-h100-job-[0-9a-f]{5}-dws-prov-1 \(attempt 1\): Waiting for resources\. Currently there are not enough resources available to fulfill the request\.
