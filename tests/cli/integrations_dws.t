# Issue 15, acceptance 2 (the simulated side; cluster mode patches the JobSet
# itself): a JobSet of two replicated jobs, 4 pods of 1 GPU each, queued
# through GKE's DWS queues, reserves quota for both pod sets at once, gets one
# ProvisioningRequest with one PodTemplate per pod set, and once provisioned
# is released with both templates carrying the podset label and the consume
# annotation (the workers keep their own nodeSelector).
$ gpuq apply -f $DATA/../../examples/gke-dws/dws-queues.yaml
> resourceflavor.kueue.x-k8s.io/default-flavor created
> admissioncheck.kueue.x-k8s.io/dws-prov created
> provisioningrequestconfig.kueue.x-k8s.io/dws-config created
> clusterqueue.kueue.x-k8s.io/dws-cluster-queue created
> localqueue.kueue.x-k8s.io/dws-local-queue created
$ gpuq apply -f $DATA/integrations/jobset-dws.yaml
> jobset.jobset.x-k8s.io/trainer created
$ gpuq schedule
~ cycle 1: workload default/jobset-trainer-[0-9a-f]{5} reserved in dws-cluster-queue \(cpu=default-flavor,memory=default-flavor,nvidia.com/gpu=default-flavor,cpu=default-flavor,memory=default-flavor,nvidia.com/gpu=default-flavor\)
~ 1 cycle: 1 admitted, 0 evicted
$ gpuq list -o wide --no-headers
~ jobset-trainer-[0-9a-f]{5} +jobset +trainer +dws-local-queue +dws-cluster-queue +QUOTARESERVED +{AGE} +0 +8 +8 +leader:4,workers:4 +waiting for capacity( \({AGE}\))?: ProvisioningRequest jobset-trainer-[0-9a-f]{5}-dws-prov-1 \(attempt 1\)
$ gpuq list podtemplates --no-headers
~ ppt-jobset-trainer-[0-9a-f]{5}-dws-prov-1-leader +train +registry.k8s.io/e2e-test-images/agnhost:2.53 +<none> +{AGE}
~ ppt-jobset-trainer-[0-9a-f]{5}-dws-prov-1-workers +train +registry.k8s.io/e2e-test-images/agnhost:2.53 +<none> +{AGE}
$ python3 -c 'import os,sqlite3,json; c=sqlite3.connect(os.environ["GPUQ_DB"]); c.execute("UPDATE provisioning_requests SET status = ? WHERE deleted_at IS NULL", (json.dumps({"conditions": [{"type": "Provisioned", "status": "True", "message": "Provisioned"}]}),)); c.commit()'
$ gpuq schedule
~ cycle 1: workload default/jobset-trainer-[0-9a-f]{5} admitted: Admitted: every admission check is Ready
~ 1 cycle: 0 admitted, 0 evicted
$ gpuq list -o json | python3 -c 'import json,sys; r=json.load(sys.stdin)["items"][0]["status"]["gpuq"]["release"]; print(r["suspend"]); [print(p["name"], p["template"]["metadata"]["labels"]["kueue.x-k8s.io/podset"], p["template"]["metadata"]["annotations"]["autoscaling.x-k8s.io/consume-provisioning-request"][-11:], json.dumps(p["template"]["spec"].get("nodeSelector"))) for p in r["podSets"]]'
> False
> leader leader -dws-prov-1 null
> workers workers -dws-prov-1 {"cloud.google.com/gke-accelerator": "nvidia-l4"}
