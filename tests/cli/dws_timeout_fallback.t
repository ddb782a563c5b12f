# gpuq's two extensions of the ProvisioningRequest check (kueue-semantics.md
# section 6: #3245, a timeout for a request that stays Accepted but never
# Provisioned; #2560, fallback to the next flavor after repeated failures).
# Both are off unless the ProvisioningRequestConfig is annotated
# (gpuq.dev/provisioning-timeout, gpuq.dev/flavor-fallback-after), so the
# same YAML still applies to a real Kueue. The provider's conditions are
# written by tests/data/dws_provider.py; it also moves the database's clock
# forward (table clock) and cuts backoffs short (requeue_at in the past).
$ gpuq apply -f $DATA/../../examples/gke-dws/dws-queues.yaml >/dev/null
# The clock stands still between the provider's moves (speed 0): "not yet at
# 29 minutes" holds however long the machine takes between two commands.
$ printf '%s\n' 'import os, sqlite3, time' 'c = sqlite3.connect(os.environ["GPUQ_DB"])' 't = int(time.time() * 1000)' 'r = c.execute("SELECT wall_ms, virtual_ms, speed FROM clock WHERE id = 1").fetchone()' 'v = t if r is None else r[1] + max(0, int((t - r[0]) * r[2]))' 'c.execute("INSERT OR REPLACE INTO clock(id, wall_ms, virtual_ms, speed) VALUES (1, ?, ?, 0)", (t, v))' 'c.commit()' > $TMP/freeze.py
$ python3 $TMP/freeze.py
$ gpuq apply -f $DATA/dws-extensions.yaml >/dev/null
# A bad annotation is refused at apply, naming the annotation and the value.
$ printf 'apiVersion: kueue.x-k8s.io/v1beta1\nkind: ProvisioningRequestConfig\nmetadata:\n  name: bad\n  annotations:\n    gpuq.dev/provisioning-timeout: soon\nspec:\n  provisioningClassName: queued-provisioning.gke.io\n' > $TMP/bad.yaml; gpuq apply -f $TMP/bad.yaml
!~ error: \S*/bad\.yaml: document 1 \(ProvisioningRequestConfig bad\): metadata\.annotations\.gpuq\.dev/provisioning-timeout: invalid value "soon": must be a positive duration such as "30m" or "1h30m"
? 1
$ sed 's/provisioning-timeout: soon/flavor-fallback-after: "0"/' $TMP/bad.yaml > $TMP/bad2.yaml; gpuq apply -f $TMP/bad2.yaml
!~ error: \S*/bad2\.yaml: document 1 \(ProvisioningRequestConfig bad\): metadata\.annotations\.gpuq\.dev/flavor-fallback-after: invalid value "0": must be an integer of at least 1
? 1
#
# (a) Timeout. sample-job waits in Kueue's own queue (no annotation), slow-job
# in timeout-queue (30m). Both requests stay Accepted, Provisioned=False.
$ sed 's/dws-local-queue/timeout-queue/; s/sample-job/slow-job/' $DATA/../../examples/gke-dws/job.yaml > $TMP/slow.yaml
$ gpuq submit -f $DATA/../../examples/gke-dws/job.yaml
~ job-sample-job-[0-9a-f]{5}
$ gpuq submit -f $TMP/slow.yaml
~ job-slow-job-[0-9a-f]{5}
$ gpuq schedule -q
> 1 cycle: 2 admitted, 0 evicted
$ python3 $DATA/dws_provider.py accept sample-job; python3 $DATA/dws_provider.py accept slow-job
$ gpuq schedule -q
> 1 cycle: 0 admitted, 0 evicted
# 29 minutes later: not yet.
$ python3 $DATA/dws_provider.py forward 29 && python3 $TMP/freeze.py
$ gpuq schedule -q
> 1 cycle: 0 admitted, 0 evicted
# 31 minutes: slow-job's attempt 1 has failed, as if Failed: Retry, evicted, backoff.
$ python3 $DATA/dws_provider.py forward 2 && python3 $TMP/freeze.py
$ gpuq schedule
~ cycle 1: workload default/job-slow-job-[0-9a-f]{5} evicted: AdmissionCheck: Evicted due to AdmissionCheck in Retry state: Retrying after timeout: ProvisioningRequest job-slow-job-[0-9a-f]{5}-timeout-prov-1 not provisioned within 30m
> 1 cycle: 0 admitted, 1 evicted
$ python3 $DATA/dws_provider.py show slow-job
> pending timeout-prov=Pending/1 live= failed=-
# (c) Without the annotation nothing changes: sample-job still waits on attempt 1.
$ python3 $DATA/dws_provider.py show sample-job
> reserved dws-prov=Pending/0 live=1 failed=-
$ python3 $DATA/dws_provider.py wake
$ gpuq schedule -q
> 1 cycle: 1 admitted, 0 evicted
$ gpuq list -o wide --no-headers
~ job-sample-job-[0-9a-f]{5} .* QUOTARESERVED .*waiting for capacity \(31m([0-9]+s)?\): ProvisioningRequest job-sample-job-[0-9a-f]{5}-dws-prov-1 \(attempt 1\): waiting for capacity, ETA unknown
~ job-slow-job-[0-9a-f]{5} .* QUOTARESERVED .*waiting for capacity: ProvisioningRequest job-slow-job-[0-9a-f]{5}-timeout-prov-2 \(attempt 2\)
$ gpuq cancel sample-job slow-job >/dev/null
#
# (b) Flavor fallback after 2 failed attempts: flaky-job (1 GPU) in fallback-cq,
# whose flavors dws-a and dws-b have 8 GPUs each; hog-job (8 GPUs) fills dws-b.
$ sed 's/dws-local-queue/fallback-queue/; s/sample-job/flaky-job/' $DATA/../../examples/gke-dws/job.yaml > $TMP/flaky.yaml
$ sed 's/dws-local-queue/fallback-queue/; s/sample-job/hog-job/; s/nvidia.com\/gpu: 1/nvidia.com\/gpu: 8/' $DATA/../../examples/gke-dws/job.yaml > $TMP/hog.yaml
$ gpuq submit -f $TMP/flaky.yaml
~ job-flaky-job-[0-9a-f]{5}
$ gpuq schedule
~ cycle 1: workload default/job-flaky-job-[0-9a-f]{5} reserved in fallback-cq \(cpu=dws-a,memory=dws-a,nvidia.com/gpu=dws-a\)
> 1 cycle: 1 admitted, 0 evicted
$ gpuq submit -f $TMP/hog.yaml
~ job-hog-job-[0-9a-f]{5}
$ gpuq schedule
~ cycle 1: workload default/job-hog-job-[0-9a-f]{5} reserved in fallback-cq \(cpu=dws-b,memory=dws-b,nvidia.com/gpu=dws-b\)
> 1 cycle: 1 admitted, 0 evicted
$ python3 $DATA/dws_provider.py provision hog-job
$ gpuq schedule -q
> 1 cycle: 0 admitted, 0 evicted
# Attempt 1 fails in dws-a.
$ python3 $DATA/dws_provider.py fail flaky-job
$ gpuq schedule -q
> 1 cycle: 0 admitted, 1 evicted
$ python3 $DATA/dws_provider.py show flaky-job
> pending fallback-prov=Pending/1 live= failed={"dws-a":1}
$ python3 $DATA/dws_provider.py wake
$ gpuq schedule
~ cycle 1: workload default/job-flaky-job-[0-9a-f]{5} reserved in fallback-cq \(cpu=dws-a,memory=dws-a,nvidia.com/gpu=dws-a\)
> 1 cycle: 1 admitted, 0 evicted
# Attempt 2 in dws-a times out (this config sets 30m too): that counts as well.
$ python3 $DATA/dws_provider.py forward 31 && python3 $TMP/freeze.py
$ gpuq schedule
~ cycle 1: workload default/job-flaky-job-[0-9a-f]{5} evicted: AdmissionCheck: Evicted due to AdmissionCheck in Retry state: Retrying after timeout: ProvisioningRequest job-flaky-job-[0-9a-f]{5}-fallback-prov-2 not provisioned within 30m
> 1 cycle: 0 admitted, 1 evicted
$ python3 $DATA/dws_provider.py show flaky-job
> pending fallback-prov=Pending/2 live= failed={"dws-a":2}
# dws-a is skipped now, and dws-b is full: it says so, as for any other flavor.
$ python3 $DATA/dws_provider.py wake
$ gpuq schedule
~ cycle 1: workload default/job-flaky-job-[0-9a-f]{5} pending: Pending: couldn't assign flavors to pod set main: flavor dws-a skipped: 2 failed provisioning attempts, insufficient unused quota for nvidia.com/gpu in flavor dws-b, 1 more needed
> 1 cycle: 0 admitted, 0 evicted
# Once dws-b has room, attempt 3 is reserved there.
$ gpuq cancel hog-job >/dev/null
$ gpuq schedule
~ cycle 1: workload default/job-flaky-job-[0-9a-f]{5} reserved in fallback-cq \(cpu=dws-b,memory=dws-b,nvidia.com/gpu=dws-b\)
> 1 cycle: 1 admitted, 0 evicted
$ gpuq list -o wide --no-headers
~ job-flaky-job-[0-9a-f]{5} .* QUOTARESERVED .*waiting for capacity: ProvisioningRequest job-flaky-job-[0-9a-f]{5}-fallback-prov-3 \(attempt 3\)
# Attempts 3 and 4 fail in dws-b: every flavor is used up, so the counts are
# forgotten and attempt 5 starts again at dws-a (it wraps around).
$ python3 $DATA/dws_provider.py fail flaky-job
$ gpuq schedule -q
> 1 cycle: 0 admitted, 1 evicted
$ python3 $DATA/dws_provider.py show flaky-job
> pending fallback-prov=Pending/3 live= failed={"dws-a":2,"dws-b":1}
$ python3 $DATA/dws_provider.py wake
$ gpuq schedule
~ cycle 1: workload default/job-flaky-job-[0-9a-f]{5} reserved in fallback-cq \(cpu=dws-b,memory=dws-b,nvidia.com/gpu=dws-b\)
> 1 cycle: 1 admitted, 0 evicted
$ python3 $DATA/dws_provider.py fail flaky-job
$ gpuq schedule -q
> 1 cycle: 0 admitted, 1 evicted
$ python3 $DATA/dws_provider.py show flaky-job
> pending fallback-prov=Pending/4 live= failed=-
$ python3 $DATA/dws_provider.py wake
$ gpuq schedule
~ cycle 1: workload default/job-flaky-job-[0-9a-f]{5} reserved in fallback-cq \(cpu=dws-a,memory=dws-a,nvidia.com/gpu=dws-a\)
> 1 cycle: 1 admitted, 0 evicted
# backoffLimitCount (5) still counts every attempt, whatever the flavor:
# attempt 5 may retry, a failure of attempt 6 rejects.
$ python3 $DATA/dws_provider.py fail flaky-job
$ gpuq schedule -q
> 1 cycle: 0 admitted, 1 evicted
$ python3 $DATA/dws_provider.py wake
$ gpuq schedule -q
> 1 cycle: 1 admitted, 0 evicted
$ python3 $DATA/dws_provider.py fail flaky-job
$ gpuq schedule
~ cycle 1: workload default/job-flaky-job-[0-9a-f]{5} deactivated: DeactivatedDueToAdmissionCheck: out of resources
> 1 cycle: 0 admitted, 1 evicted
$ python3 $DATA/dws_provider.py show flaky-job
# (the deactivation resets the check to Pending, as Kueue's eviction does)
> deactivated fallback-prov=Pending/0 live= failed={"dws-a":2}
