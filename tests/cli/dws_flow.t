# Issue 2, acceptance check 3: GKE's DWS queues; the sample job waits in
# dws-local-queue; cancel ends it without touching quota; applying the same
# file again changes nothing.
$ gpuq apply -f $DATA/../../examples/gke-dws/dws-queues.yaml
> resourceflavor.kueue.x-k8s.io/default-flavor created
> admissioncheck.kueue.x-k8s.io/dws-prov created
> provisioningrequestconfig.kueue.x-k8s.io/dws-config created
> clusterqueue.kueue.x-k8s.io/dws-cluster-queue created
> localqueue.kueue.x-k8s.io/dws-local-queue created
$ gpuq apply -f $DATA/../../examples/gke-dws/dws-queues.yaml
> resourceflavor.kueue.x-k8s.io/default-flavor unchanged
> admissioncheck.kueue.x-k8s.io/dws-prov unchanged
> provisioningrequestconfig.kueue.x-k8s.io/dws-config unchanged
> clusterqueue.kueue.x-k8s.io/dws-cluster-queue unchanged
> localqueue.kueue.x-k8s.io/dws-local-queue unchanged
$ gpuq submit -f $DATA/../../examples/gke-dws/job.yaml
~ job-sample-job-[0-9a-f]{5}
# The same job again is refused: it exists.
$ gpuq submit -f $DATA/../../examples/gke-dws/job.yaml
!~ error: .*job "default/sample-job" already exists \(workload job-sample-job-[0-9a-f]{5}\)
? 1
$ gpuq list
~ NAME +JOB TYPE +JOB NAME +LOCALQUEUE +CLUSTERQUEUE +STATUS +POSITION IN QUEUE +EXEC TIME +AGE
~ job-sample-job-[0-9a-f]{5} +job +sample-job +dws-local-queue +dws-cluster-queue +PENDING +0 +{AGE}
$ gpuq list -o json | python3 -c 'import json,sys; w=json.load(sys.stdin)["items"][0]; print(w["kind"], w["spec"]["queueName"], w["status"]["gpuq"]["state"], w["spec"]["podSets"][0]["count"])'
> Workload dws-local-queue pending 1
$ gpuq list -A -o wide --no-headers
~ default +job-sample-job-[0-9a-f]{5} +job +sample-job +dws-local-queue +dws-cluster-queue +PENDING +0 +{AGE} +0 +1 +1 +main:1 +0 +waiting for quota
$ gpuq list clusterqueues
~ NAME +COHORT +PENDING WORKLOADS +ADMITTED WORKLOADS +ACTIVE +AGE
~ dws-cluster-queue +1 +0 +True +{AGE}
$ gpuq list localqueues -o name
> localqueue.kueue.x-k8s.io/dws-local-queue
$ gpuq cancel sample-job
~ workload/job-sample-job-[0-9a-f]{5} cancelled
$ gpuq list
! No resources found in default namespace.
$ gpuq list --status cancelled --no-headers
~ job-sample-job-[0-9a-f]{5} +job +sample-job +dws-local-queue +dws-cluster-queue +CANCELLED +{AGE}
$ gpuq list clusterqueues --no-headers
~ dws-cluster-queue +0 +0 +True +{AGE}
# Quota untouched: nothing is reserved or admitted in the queue.
$ gpuq list clusterqueues -o json | python3 -c 'import json,sys; q=json.load(sys.stdin)["items"][0]["status"]; print(q["pendingWorkloads"], q["reservingWorkloads"], q["admittedWorkloads"])'
> 0 0 0
$ gpuq cancel sample-job
! error: workload "sample-job" not found in namespace "default"
? 1
# Its name is free again once cancelled.
$ gpuq submit -f $DATA/../../examples/gke-dws/job.yaml
~ job-sample-job-[0-9a-f]{5}
# Issue 4, check 1 (its first half): quota reserved in dws-cluster-queue, the
# dws-prov check Pending, and the ProvisioningRequest and PodTemplate Kueue
# would create, with maxRunDurationSeconds from the job's annotation.
$ gpuq schedule
~ cycle 1: workload default/job-sample-job-[0-9a-f]{5} reserved in dws-cluster-queue \(cpu=default-flavor,memory=default-flavor,nvidia.com/gpu=default-flavor\)
> 1 cycle: 1 admitted, 0 evicted
$ gpuq list -o wide --no-headers
~ job-sample-job-[0-9a-f]{5} +job +sample-job +dws-local-queue +dws-cluster-queue +QUOTARESERVED +{AGE} +0 +1 +1 +main:1 +waiting for capacity( \({AGE}\))?: ProvisioningRequest job-sample-job-[0-9a-f]{5}-dws-prov-1 \(attempt 1\)
$ gpuq list -o json | python3 -c 'import json,sys; s=json.load(sys.stdin)["items"][0]["status"]; print(s["admissionChecks"][0]["name"], s["admissionChecks"][0]["state"]); [print(o["kind"], o["metadata"]["name"], json.dumps(o.get("spec", {}).get("parameters")), o["metadata"]["labels"]["kueue.x-k8s.io/managed"]) for o in s["gpuq"]["provisioningRequests"]]'
> dws-prov Pending
~ ProvisioningRequest job-sample-job-[0-9a-f]{5}-dws-prov-1 \{"maxRunDurationSeconds": "600"\} true
~ PodTemplate ppt-job-sample-job-[0-9a-f]{5}-dws-prov-1-main null true
# Cancelling releases the quota and deletes the request.
$ gpuq cancel sample-job
~ workload/job-sample-job-[0-9a-f]{5} cancelled
$ gpuq list clusterqueues -o json | python3 -c 'import json,sys; q=json.load(sys.stdin)["items"][0]["status"]; print(q["reservingWorkloads"], q["admittedWorkloads"])'
> 0 0
$ python3 -c 'import os,sqlite3; c=sqlite3.connect(os.environ["GPUQ_DB"]); print(c.execute("SELECT count(*), count(deleted_at) FROM provisioning_requests").fetchone(), c.execute("SELECT count(*) FROM workload_checks").fetchone())'
> (1, 1) (0,)
# Check states follow the request's conditions (kueue-semantics §3.6): the
# provider's Provisioned=False message (GKE's ETA) is mirrored; Provisioned
# makes the check Ready and the workload admitted. The conditions are written
# here as a provider (the simulated cluster, or GKE) would.
$ gpuq submit -f $DATA/../../examples/gke-dws/job.yaml
~ job-sample-job-[0-9a-f]{5}
$ gpuq schedule -q
> 1 cycle: 1 admitted, 0 evicted
$ python3 -c 'import os,sqlite3; c=sqlite3.connect(os.environ["GPUQ_DB"]); c.execute("""UPDATE provisioning_requests SET status = json_object('"'"'conditions'"'"', json_array(json_object('"'"'type'"'"', '"'"'Accepted'"'"', '"'"'status'"'"', '"'"'True'"'"'), json_object('"'"'type'"'"', '"'"'Provisioned'"'"', '"'"'status'"'"', '"'"'False'"'"', '"'"'message'"'"', '"'"'ETA 2h'"'"'))) WHERE deleted_at IS NULL"""); c.commit()'
$ gpuq schedule -q
> 1 cycle: 0 admitted, 0 evicted
$ gpuq list -o wide --no-headers
~ job-sample-job-[0-9a-f]{5} +job +sample-job +dws-local-queue +dws-cluster-queue +QUOTARESERVED +{AGE} +0 +1 +1 +main:1 +waiting for capacity( \({AGE}\))?: ProvisioningRequest job-sample-job-[0-9a-f]{5}-dws-prov-1 \(attempt 1\): ETA 2h
$ python3 -c 'import os,sqlite3; c=sqlite3.connect(os.environ["GPUQ_DB"]); c.execute("""UPDATE provisioning_requests SET status = json_object('"'"'conditions'"'"', json_array(json_object('"'"'type'"'"', '"'"'Provisioned'"'"', '"'"'status'"'"', '"'"'True'"'"', '"'"'message'"'"', '"'"'Provisioned'"'"'))) WHERE deleted_at IS NULL"""); c.commit()'
$ gpuq schedule
~ cycle 1: workload default/job-sample-job-[0-9a-f]{5} admitted: Admitted: every admission check is Ready
> 1 cycle: 0 admitted, 0 evicted
$ gpuq list -o json | python3 -c 'import json,sys; s=json.load(sys.stdin)["items"][0]["status"]; print(s["gpuq"]["state"], s["admissionChecks"][0]["state"], s["admissionChecks"][0]["message"])'
> admitted Ready Provisioned
# Released: suspend false, and the template carries the podSetUpdates
# annotations and the podset label (kueue-semantics §2.11, §3.8).
$ gpuq list -o json | python3 -c 'import json,sys; r=json.load(sys.stdin)["items"][0]["status"]["gpuq"]["release"]; m=r["podSets"][0]["template"]["metadata"]; print(r["suspend"], m["labels"]["kueue.x-k8s.io/podset"], m["annotations"]["autoscaling.x-k8s.io/provisioning-class-name"], m["annotations"]["autoscaling.x-k8s.io/consume-provisioning-request"][-11:])'
> False main queued-provisioning.gke.io -dws-prov-1
