# Issue 4: the retry and rejection path (kueue-semantics §3.6, §3.7). Each
# time the provider reports Failed, the check goes to Retry, the workload is
# evicted and waits 60, 120, 240 s (min(base x 2^(n-1), max)) before it may
# compete for quota again, then gets request attempt n+1; a failure of
# attempt 4 (backoffLimitCount 3) rejects it: deactivated, quota released.
# The provider's conditions are written here by hand, and the backoff is cut
# short by moving requeue_at to the past. "show" prints the backoff the
# eviction set (requeue_at - updated_at), not what is left of it now, which
# would depend on how fast the machine ran the commands in between.
$ gpuq apply -f $DATA/../../examples/gke-dws/dws-queues.yaml
> resourceflavor.kueue.x-k8s.io/default-flavor created
> admissioncheck.kueue.x-k8s.io/dws-prov created
> provisioningrequestconfig.kueue.x-k8s.io/dws-config created
> clusterqueue.kueue.x-k8s.io/dws-cluster-queue created
> localqueue.kueue.x-k8s.io/dws-local-queue created
# The database's clock stands still (speed 0): a backoff ends only when
# "wake" says so, however long the machine takes between two commands.
$ python3 -c 'import os,sqlite3,time; c=sqlite3.connect(os.environ["GPUQ_DB"]); t=int(time.time()*1000); c.execute("INSERT OR REPLACE INTO clock(id, wall_ms, virtual_ms, speed) VALUES (1, ?, ?, 0)", (t, t)); c.commit()'
$ gpuq submit -f $DATA/../../examples/gke-dws/job.yaml
~ job-sample-job-[0-9a-f]{5}
$ gpuq schedule -q
> 1 cycle: 1 admitted, 0 evicted
$ printf '%s\n' 'import os, sqlite3, sys' 'c = sqlite3.connect(os.environ["GPUQ_DB"])' 'if sys.argv[1] == "fail": c.execute("""UPDATE provisioning_requests SET status = json_object('"'"'conditions'"'"', json_array(json_object('"'"'type'"'"', '"'"'Failed'"'"', '"'"'status'"'"', '"'"'True'"'"', '"'"'message'"'"', '"'"'out of resources'"'"'))) WHERE deleted_at IS NULL""")' 'if sys.argv[1] == "show": print(c.execute("SELECT state, (requeue_at - updated_at + 500) / 1000 FROM workloads").fetchone(), c.execute("SELECT state, retry_count FROM workload_checks").fetchone(), c.execute("SELECT count(*) FROM provisioning_requests WHERE deleted_at IS NULL").fetchone()[0])' 'if sys.argv[1] == "wake": c.execute("UPDATE workloads SET requeue_at = 1 WHERE requeue_at IS NOT NULL")' 'c.commit()' > $TMP/provider.py
$ python3 $TMP/provider.py fail
$ gpuq schedule
~ cycle 1: workload default/job-sample-job-[0-9a-f]{5} evicted: AdmissionCheck: Evicted due to AdmissionCheck in Retry state: Retrying after failure: out of resources
> 1 cycle: 0 admitted, 1 evicted
$ python3 $TMP/provider.py show
> ('pending', 60) ('Pending', 1) 0
# Still backing off: nothing happens.
$ gpuq schedule -q
> 1 cycle: 0 admitted, 0 evicted
$ python3 $TMP/provider.py wake
$ gpuq schedule -q
> 1 cycle: 1 admitted, 0 evicted
$ gpuq list -o wide --no-headers
~ .* +QUOTARESERVED .*waiting for capacity: ProvisioningRequest job-sample-job-[0-9a-f]{5}-dws-prov-2 \(attempt 2\)
$ python3 $TMP/provider.py fail
$ gpuq schedule -q
> 1 cycle: 0 admitted, 1 evicted
$ python3 $TMP/provider.py show
> ('pending', 120) ('Pending', 2) 0
$ python3 $TMP/provider.py wake
$ gpuq schedule -q
> 1 cycle: 1 admitted, 0 evicted
$ python3 $TMP/provider.py fail
$ gpuq schedule -q
> 1 cycle: 0 admitted, 1 evicted
$ python3 $TMP/provider.py show
> ('pending', 240) ('Pending', 3) 0
$ python3 $TMP/provider.py wake
$ gpuq schedule -q
> 1 cycle: 1 admitted, 0 evicted
$ python3 $TMP/provider.py fail
$ gpuq schedule
~ cycle 1: workload default/job-sample-job-[0-9a-f]{5} deactivated: DeactivatedDueToAdmissionCheck: out of resources
> 1 cycle: 0 admitted, 1 evicted
# Deactivation evicts it as Kueue does (resetChecksOnEviction): the check is
# reset to Pending ("Previously: Rejected") and its retry count forgotten; the
# rejection stays in the eviction's reason and message.
$ python3 $TMP/provider.py show
> ('deactivated', None) ('Pending', 0) 0
$ gpuq list clusterqueues -o json | python3 -c 'import json,sys; q=json.load(sys.stdin)["items"][0]["status"]; print(q["reservingWorkloads"], q["admittedWorkloads"])'
> 0 0
# gpuq resume workload (kueuectl's resume workload) queues it again from scratch.
$ gpuq resume workload sample-job
~ workload/job-sample-job-[0-9a-f]{5} resumed
$ gpuq resume workload sample-job
!~ error: workload "job-sample-job-[0-9a-f]{5}" is pending, not deactivated
? 1
$ gpuq schedule -q
> 1 cycle: 1 admitted, 0 evicted
$ gpuq list -o wide --no-headers
~ .* +QUOTARESERVED .*waiting for capacity: ProvisioningRequest job-sample-job-[0-9a-f]{5}-dws-prov-1 \(attempt 1\)
