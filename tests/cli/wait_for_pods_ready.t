# Issue 17, acceptance check 1, in the simulated cluster: Kueue's
# waitForPodsReady (kueue-semantics.md §1.10, §2.9; Kueue's
# reconcileNotReadyTimeout and UpdateRequeueState). stuck.yaml's pool never
# gets its pods ready: timeout 30 s, backoffBaseSeconds 1, backoffLimitCount 3.
$ gpuq apply -f $DATA/pods-ready/stuck.yaml
> configuration.config.kueue.x-k8s.io/config created
> nodepool.sim.gpuq.dev/broken created
> resourceflavor.kueue.x-k8s.io/broken created
> clusterqueue.kueue.x-k8s.io/cq created
> localqueue.kueue.x-k8s.io/lq created
$ gpuq submit --queue lq --name stuck --gpus 8 --duration 10m
~ job-stuck-[0-9a-f]{5}
# Admitted at 0; 30 s later its pods are still not ready: evicted
# (PodsReadyTimeout, Kueue's message naming the Workload), requeued after
# 1 s (count 1), 2 s (count 2), 4 s (count 3): base x 2^(count-1), with no
# jitter. The fourth timeout would be requeue 4 > backoffLimitCount 3:
# deactivated instead. Nothing ever starts.
$ gpuq run --for 5m | sed -E 's/-[0-9a-f]{5}$/-HASH/; s/in [0-9.]+ s/in N s/'
> +0s        job default/stuck admitted (nvidia.com/gpu=broken)
> +30s       job default/stuck evicted: Exceeded the PodsReady timeout default/job-stuck-HASH
> +31s       job default/stuck admitted (nvidia.com/gpu=broken)
> +1m1s      job default/stuck evicted: Exceeded the PodsReady timeout default/job-stuck-HASH
> +1m3s      job default/stuck admitted (nvidia.com/gpu=broken)
> +1m33s     job default/stuck evicted: Exceeded the PodsReady timeout default/job-stuck-HASH
> +1m37s     job default/stuck admitted (nvidia.com/gpu=broken)
> +2m7s      job default/stuck deactivated: The workload is deactivated due to exceeding the maximum number of re-queuing retries
> 2m7s simulated in N s: 4 admitted, 0 started, 0 finished, 4 evicted, 0 provisioning requests
# Deactivated: spec.active false, Evicted with the limit's reason, PodsReady
# back to WaitForStart, and requeueState cleared (as Kueue's deactivation does);
# Requeued False with the deactivation's reason (the job reconciler's).
$ printf '%s\n' 'import json, sys' 'w = json.load(sys.stdin)["items"][0]' 'print("active", w["spec"].get("active"), "requeueState", w["status"].get("requeueState"))' 'for c in w["status"]["conditions"]: print(c["type"], c["status"], c["reason"], c["message"])' > $TMP/conds.py
$ gpuq get workloads -o json | python3 $TMP/conds.py
> active False requeueState None
> QuotaReserved False Pending 
> Evicted True DeactivatedDueToRequeuingLimitExceeded The workload is deactivated due to exceeding the maximum number of re-queuing retries
> PodsReady False WaitForStart Not all pods are ready or succeeded
> Requeued False DeactivatedDueToRequeuingLimitExceeded The workload is deactivated due to exceeding the maximum number of re-queuing retries
$ gpuq describe workload stuck | grep -E '^(State|Reason|Last Eviction|Pods Ready):'
> State:             deactivated
> Reason:            DeactivatedDueToRequeuingLimitExceeded
> Last Eviction:     DeactivatedDueToRequeuingLimitExceeded (4 in all)
~ Pods Ready: +False \(WaitForStart since \S+\)
$ python3 -c 'import os,sqlite3; c=sqlite3.connect(os.environ["GPUQ_DB"]); print([r for r in c.execute("SELECT reason, count(*) FROM events WHERE kind = \"Workload\" AND reason <> \"Submitted\" GROUP BY reason ORDER BY reason")])'
> [('DeactivatedDueToRequeuingLimitExceeded', 1), ('PodsReadyTimeout', 3), ('QuotaReserved', 4)]
# Mid-way, on a fresh database: after the first timeout and requeue the
# workload is admitted again, PodsReady False, requeueState.count 1, and
# Requeued True BackoffFinished (set when the backoff ended, kept since).
$ GPUQ_DB=$TMP/mid.db gpuq apply -f $DATA/pods-ready/stuck.yaml > /dev/null
$ GPUQ_DB=$TMP/mid.db gpuq submit --queue lq --name stuck --gpus 8 --duration 10m > /dev/null
$ GPUQ_DB=$TMP/mid.db gpuq run -q --for 45s | sed -E 's/in [0-9.]+ s/in N s/'
> 45s simulated in N s: 2 admitted, 0 started, 0 finished, 1 evicted, 0 provisioning requests
$ GPUQ_DB=$TMP/mid.db gpuq get workloads -o json | python3 $TMP/conds.py
> active True requeueState {'count': 1}
> QuotaReserved True QuotaReserved Quota reserved in ClusterQueue cq
> Admitted True Admitted The workload is admitted
> PodsReady False WaitForStart Not all pods are ready or succeeded
> Requeued True BackoffFinished The workload backoff was finished
$ GPUQ_DB=$TMP/mid.db gpuq describe workload stuck | grep -E '^(State|Last Eviction|Eviction Message|Requeue Count):' | sed -E 's/-[0-9a-f]{5}$/-HASH/'
> State:             admitted
> Last Eviction:     PodsReadyTimeout (1 in all)
> Eviction Message:  Exceeded the PodsReady timeout default/job-stuck-HASH
> Requeue Count:     1 (PodsReady timeouts)
# gpuq resume workload queues a deactivated workload again, from a count of 0.
$ gpuq resume workload stuck
~ workload/job-stuck-[0-9a-f]{5} resumed
$ gpuq run -q --for 40s | sed -E 's/in [0-9.]+ s/in N s/'
> 40s simulated in N s: 2 admitted, 0 started, 0 finished, 1 evicted, 0 provisioning requests

# blockAdmission (slow.yaml: v1beta1, blockAdmission defaulting to enable;
# pods ready 20 s after they start): while "first" waits for its pods,
# "second", in another ClusterQueue with quota to spare, waits too, with
# Kueue's reason; it is admitted the moment first's pods are ready. Each
# job's duration counts from its pods being ready.
$ GPUQ_DB=$TMP/block.db gpuq apply -f $DATA/pods-ready/slow.yaml > /dev/null
$ GPUQ_DB=$TMP/block.db gpuq submit --queue a --name first --gpus 8 --duration 1m > /dev/null
$ GPUQ_DB=$TMP/block.db gpuq submit --queue b --name second --gpus 8 --duration 1m > /dev/null
$ GPUQ_DB=$TMP/block.db gpuq run --for 1s | sed -E 's/in [0-9.]+ s/in N s/'
> +0s        job default/first admitted (nvidia.com/gpu=slow)
> 1s simulated in N s: 1 admitted, 0 started, 0 finished, 0 evicted, 0 provisioning requests
$ GPUQ_DB=$TMP/block.db gpuq get workloads -o json | python3 -c 'import json,sys; [print(w["metadata"]["ownerReferences"][0]["name"], w["status"]["gpuq"]["state"], w["status"]["gpuq"].get("reason"), w["status"]["gpuq"].get("message")) for w in json.load(sys.stdin)["items"]]'
> first admitted None None
> second pending WaitingForPodsReady waiting for all admitted workloads to be in PodsReady condition
$ GPUQ_DB=$TMP/block2.db gpuq apply -f $DATA/pods-ready/slow.yaml > /dev/null
$ GPUQ_DB=$TMP/block2.db gpuq submit --queue a --name first --gpus 8 --duration 1m > /dev/null
$ GPUQ_DB=$TMP/block2.db gpuq submit --queue b --name second --gpus 8 --duration 1m > /dev/null
$ GPUQ_DB=$TMP/block2.db gpuq run | sed -E 's/in [0-9.]+ s/in N s/'
> +0s        job default/first admitted (nvidia.com/gpu=slow)
> +20s       job default/first started
> +20s       job default/second admitted (nvidia.com/gpu=slow)
> +40s       job default/second started
> +1m20s     job default/first finished: Job finished after 1m
> +1m40s     job default/second finished: Job finished after 1m
> 1m40s simulated in N s: 2 admitted, 2 started, 2 finished, 0 evicted, 0 provisioning requests
$ GPUQ_DB=$TMP/block2.db gpuq get workloads -o json | python3 $TMP/conds.py | grep PodsReady
> PodsReady True Started All pods reached readiness and the workload is running

# Without waitForPodsReady, nothing of it: no PodsReady condition, and a
# stuck pod's workload stays admitted (nothing is due: the run stops at once).
$ printf 'apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n' | GPUQ_DB=$TMP/off.db gpuq apply -f - > /dev/null
$ sed '/^kind: Configuration/,/^---/d; /^apiVersion: config/d' $DATA/pods-ready/stuck.yaml | GPUQ_DB=$TMP/off.db gpuq apply -f - > /dev/null
$ GPUQ_DB=$TMP/off.db gpuq submit --queue lq --name stuck --gpus 8 --duration 10m > /dev/null
$ GPUQ_DB=$TMP/off.db gpuq run -q --for 1h | sed -E 's/in [0-9.]+ s/in N s/'
> 0s simulated in N s: 1 admitted, 0 started, 0 finished, 0 evicted, 0 provisioning requests
$ GPUQ_DB=$TMP/off.db gpuq get workloads -o json | python3 $TMP/conds.py
> active True requeueState None
> QuotaReserved True QuotaReserved Quota reserved in ClusterQueue cq
> Admitted True Admitted The workload is admitted

# NodePool's new fields are checked.
$ printf 'apiVersion: sim.gpuq.dev/v1alpha1\nkind: NodePool\nmetadata: {name: x}\nspec: {maxNodes: 2, stuckPodPercent: 101}\n' | gpuq apply -f -
! error: -: document 1 (NodePool x): spec.stuckPodPercent: invalid value "101": must be between 0 and 100
? 1
$ printf 'apiVersion: sim.gpuq.dev/v1alpha1\nkind: NodePool\nmetadata: {name: x}\nspec: {maxNodes: 2, podStartupTime: soon}\n' | gpuq apply -f -
!~ error: -: document 1 \(NodePool x\): spec.podStartupTime: invalid value "soon": must be a duration .*
? 1

# requeuingStrategy.timestamp (Kueue's GetQueueOrderTimestamp): a, b and c
# share 8 GPUs; a times out at 30 s and b takes its place; at 60 s b times
# out. With Eviction (the default) a queues by its eviction time (30 s),
# behind c (created at 0): c goes next. With Creation a keeps its creation
# time, ahead of c: a goes next.
$ printf '%s\n' 'for j in a b c; do gpuq submit --queue lq --name $j --gpus 8 --duration 10m > /dev/null; done' 'gpuq run --for 61s | grep -E "^[+].*(admitted|evicted)" | cut -c12- | cut -d: -f1' > $TMP/order.sh
$ GPUQ_DB=$TMP/order.db gpuq apply -f $DATA/pods-ready/stuck.yaml > /dev/null
$ GPUQ_DB=$TMP/order.db sh $TMP/order.sh
> job default/a admitted (nvidia.com/gpu=broken)
> job default/a evicted
> job default/b admitted (nvidia.com/gpu=broken)
> job default/b evicted
> job default/c admitted (nvidia.com/gpu=broken)
$ sed 's/^  requeuingStrategy:/  requeuingStrategy:\n    timestamp: Creation/' $DATA/pods-ready/stuck.yaml | GPUQ_DB=$TMP/creation.db gpuq apply -f - > /dev/null
$ GPUQ_DB=$TMP/creation.db sh $TMP/order.sh
> job default/a admitted (nvidia.com/gpu=broken)
> job default/a evicted
> job default/b admitted (nvidia.com/gpu=broken)
> job default/b evicted
> job default/a admitted (nvidia.com/gpu=broken)
