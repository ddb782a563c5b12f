# Issue 17, waitForPodsReady as users see it: an admitted workload whose
# pods are not ready says so in gpuq list's REASON column and describe's
# "Where it stands" (Kueue's PodsReady False, WaitForStart, "Not all pods
# are ready or succeeded") with when PodsReadyTimeout evicts it; after the
# timeout -o yaml carries Kueue's Requeued condition (False with the
# eviction's reason and message while requeueAt is ahead, True
# BackoffFinished once it has passed) and status.requeueState. stuck.yaml:
# timeout 30 s, backoffBaseSeconds 1. The database's clock stands still
# (speed 0) at T0 + the given seconds, T0 = 2027-01-01T00:00:00Z; gpuq run
# sets it going again, so it is stopped after each run.
$ gpuq apply -f $DATA/pods-ready/stuck.yaml > /dev/null
$ printf '%s\n' 'import os, sqlite3, sys, time' 'c = sqlite3.connect(os.environ["GPUQ_DB"])' 'c.execute("INSERT OR REPLACE INTO clock(id, wall_ms, virtual_ms, speed) VALUES (1, ?, ?, 0)", (int(time.time() * 1000), 1798761600000 + int(sys.argv[1]) * 1000))' 'c.commit()' > $TMP/clock.py
$ python3 $TMP/clock.py 0
$ gpuq submit --queue lq --name stuck --gpus 8 --duration 10m > /dev/null
$ gpuq run -q --for 10s | sed -E 's/in [0-9.]+ s/in N s/'
> 10s simulated in N s: 1 admitted, 0 started, 0 finished, 0 evicted, 0 provisioning requests
$ python3 $TMP/clock.py 10
# Admitted at T0, 10 s ago: the timeout is 20 s away.
$ gpuq list -o wide --no-headers
~ job-stuck-[0-9a-f]{5} +job +stuck +lq +cq +ADMITTED +10s +10s +0 +1 +8 +main:1 +admitted: waiting for its pods to be ready \(PodsReady False, WaitForStart: Not all pods are ready or succeeded\); PodsReadyTimeout at 2027-01-01T00:00:30Z \(in 20s\)
$ gpuq describe workload stuck | grep -E '^(State|Where it stands|Pods Ready):'
> State:            admitted
> Where it stands:  admitted: waiting for its pods to be ready (PodsReady False, WaitForStart: Not all pods are ready or succeeded); PodsReadyTimeout at 2027-01-01T00:00:30Z (in 20s)
> Pods Ready:       False (WaitForStart since 2027-01-01T00:00:00Z)
$ gpuq get workloads -o yaml | sed -n '/^    - type: PodsReady/,/message/p; /^    - type: Requeued/p; /requeueState/p'
>     - type: PodsReady
>       status: "False"
>       lastTransitionTime: "2027-01-01T00:00:00Z"
>       reason: WaitForStart
>       message: Not all pods are ready or succeeded
# 40 s: the timeout is past, and no cycle has run to act on it yet.
$ python3 $TMP/clock.py 40
$ gpuq list -o wide --no-headers | sed -E 's/.*ADMITTED.*main:1 +//'
> admitted: waiting for its pods to be ready (PodsReady False, WaitForStart: Not all pods are ready or succeeded); PodsReadyTimeout due since 2027-01-01T00:00:30Z (10s ago)
# A cycle evicts it (PodsReadyTimeout) and sets requeueAt 1 s on: Requeued
# False with the eviction's reason and message (Kueue's job reconciler).
$ gpuq schedule -q
> 1 cycle: 0 admitted, 1 evicted
$ gpuq get workloads -o yaml | sed -E 's/-[0-9a-f]{5}$/-HASH/' | sed -n '/^    - type: Requeued/,/message/p; /requeueState/,/requeueAt/p'
>     - type: Requeued
>       status: "False"
>       lastTransitionTime: "2027-01-01T00:00:40Z"
>       reason: PodsReadyTimeout
>       message: Exceeded the PodsReady timeout default/job-stuck-HASH
>     requeueState:
>       count: 1
>       requeueAt: "2027-01-01T00:00:41Z"
$ gpuq list -o wide --no-headers | sed -E 's/.*main:1 +0 +//; s/-[0-9a-f]{5}$/-HASH/'
> retrying at 2027-01-01T00:00:41Z (in 1s): Exceeded the PodsReady timeout default/job-stuck-HASH
# 42 s: the backoff is over: Requeued True, BackoffFinished, at requeueAt;
# requeueAt is cleared, the count kept (Kueue's workload reconciler).
$ python3 $TMP/clock.py 42
$ gpuq get workloads -o yaml | sed -n '/^    - type: Requeued/,/message/p; /requeueState/,/count/p; /requeueAt/p'
>     - type: Requeued
>       status: "True"
>       lastTransitionTime: "2027-01-01T00:00:41Z"
>       reason: BackoffFinished
>       message: The workload backoff was finished
>     requeueState:
>       count: 1
# Without waitForPodsReady an admitted workload is released to run, as before.
$ printf 'apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n' | GPUQ_DB=$TMP/off.db gpuq apply -f - > /dev/null
$ sed '/^kind: Configuration/,/^---/d; /^apiVersion: config/d' $DATA/pods-ready/stuck.yaml | GPUQ_DB=$TMP/off.db gpuq apply -f - > /dev/null
$ GPUQ_DB=$TMP/off.db gpuq submit --queue lq --name stuck --gpus 8 --duration 10m > /dev/null
$ GPUQ_DB=$TMP/off.db gpuq schedule -q
> 1 cycle: 1 admitted, 0 evicted
$ GPUQ_DB=$TMP/off.db gpuq describe workload stuck | grep -E '^(Where it stands|Pods Ready):'
> Where it stands:  admitted: released to run
