# Issue 15, acceptances 4 and 6: a user's row of the integration table for a
# kind gpuq has never seen (example.com/v1 TrainingRun: suspend switch
# spec.paused, pods at spec.workers.{count,template}) is queued, admitted
# (partially: 3 of its 4 pods, down to its minCount), released and evicted
# (preempted by a Job of a higher priority class) with no code change; bad
# rows are refused at load with the field named, and bad jobs of every kind
# are refused with one line, nothing written.
$ gpuq apply -f $DATA/integrations/trainingrun.yaml
! skipped: kind TrainingRun (example.com/v1) is not modelled by gpuq
$ gpuq apply -f $DATA/integrations/trainingrun-integration.yaml
> integration.gpuq.dev/trainingruns.example.com created
$ gpuq apply -f $DATA/integrations/trainingrun-integration.yaml
> integration.gpuq.dev/trainingruns.example.com unchanged
$ gpuq list integrations --no-headers
~ trainingruns.example.com +TrainingRun +{AGE}
$ gpuq apply -f $DATA/integrations/three-gpus.yaml
> resourceflavor.kueue.x-k8s.io/l4 created
> clusterqueue.kueue.x-k8s.io/three-gpus created
> localqueue.kueue.x-k8s.io/dws-local-queue created
> workloadpriorityclass.kueue.x-k8s.io/urgent created
$ gpuq apply -n small -f $DATA/integrations/trainingrun.yaml
> trainingrun.example.com/resnet created
$ gpuq schedule
~ cycle 1: workload small/trainingrun-resnet-[0-9a-f]{5} admitted in three-gpus \(cpu=l4,memory=l4,nvidia.com/gpu=l4\)
~ 1 cycle: 1 admitted, 0 evicted
$ gpuq list -n small -o wide --no-headers
~ trainingrun-resnet-[0-9a-f]{5} +trainingrun +resnet +dws-local-queue +three-gpus +ADMITTED +{AGE} +{AGE} +0 +4 +4 +workers:4 +admitted: released to run
$ gpuq list -n small -o json | python3 -c 'import json,sys; s=json.load(sys.stdin)["items"][0]["status"]; a=s["admission"]["podSetAssignments"][0]; r=s["gpuq"]["release"]; print(a["name"], a["count"], a["flavors"]["nvidia.com/gpu"], r["suspend"], r["podSets"][0]["template"]["spec"]["nodeSelector"])'
> workers 3 l4 False {'cloud.google.com/gke-accelerator': 'nvidia-l4'}
# Evicted: a Job of a higher priority class preempts it; it waits again,
# with Kueue's Evicted and Preempted conditions, no longer released.
$ gpuq apply -f $DATA/integrations/urgent-job.yaml
> job.batch/urgent created
$ gpuq schedule --until-stable
~ cycle 1: workload small/job-urgent-[0-9a-f]{5} pending: Pending: couldn't assign flavors to pod set main: insufficient unused quota for nvidia.com/gpu in flavor l4, 3 more needed\. Pending the preemption of 1 workload\(s\)
~ cycle 1: workload small/trainingrun-resnet-[0-9a-f]{5} evicted: Preempted: Preempted to accommodate a workload \(UID: [0-9a-f-]+\) due to prioritization in the ClusterQueue
~ cycle 2: workload small/job-urgent-[0-9a-f]{5} admitted in three-gpus \(cpu=l4,nvidia.com/gpu=l4\)
~ cycle 3: workload small/trainingrun-resnet-[0-9a-f]{5} pending: Pending: couldn't assign flavors to pod set workers: insufficient quota for nvidia.com/gpu in flavor l4, previously considered podsets requests \(0\) \+ current podset request \(4\) > maximum capacity \(3\)
> 4 cycles: 1 admitted, 1 evicted
$ gpuq list -n small -o json | python3 -c 'import json,sys; w=[x for x in json.load(sys.stdin)["items"] if x["metadata"]["ownerReferences"][0]["kind"]=="TrainingRun"][0]; print(w["status"]["gpuq"]["state"], [(c["type"], c["reason"]) for c in w["status"]["conditions"] if c["status"] == "True"], "release" in w["status"]["gpuq"])'
> pending [('Evicted', 'Preempted'), ('Preempted', 'InClusterQueue')] False
$ gpuq apply -f $DATA/bad/integrations/integration-bad-path.yaml
!~ error: .*/integration-bad-path\.yaml: document 1 \(Integration bad-path\): spec\.podSets\[0\]\.path: invalid value "spec\.\.workers": must be member names of letters, digits, '_' or '-' joined by dots
? 1
$ gpuq apply -f $DATA/bad/integrations/integration-bad-count.yaml
!~ error: .*/integration-bad-count\.yaml: document 1 \(Integration bad-count\): spec\.podSets\[0\]\.count: invalid value "count \* \(2": not a count expression \(expected a number, min\(, max\( or a path at "\(2"\)
? 1
$ gpuq apply -f $DATA/bad/integrations/integration-two-names.yaml
!~ error: .*/integration-two-names\.yaml: document 1 \(Integration two-names\): spec\.podSets\[0\]: must have exactly one of name \(one object\), nameFrom \(a list\) or keys \(a map\)
? 1
$ gpuq apply -f $DATA/bad/integrations/integration-builtin.yaml
!~ error: .*/integration-builtin\.yaml: document 1 \(Integration jobsets\): spec\.kind: invalid value "JobSet": gpuq already has a row for kind JobSet \(jobset\.x-k8s\.io\)
? 1
# A second row for a kind that has one is refused: kinds are unique in the table.
$ gpuq apply -f $DATA/bad/integrations/integration-same-kind.yaml
!~ error: .*/integration-same-kind\.yaml: document 1 \(Integration other-trainingruns\): spec\.kind: invalid value "TrainingRun": Integration trainingruns\.example\.com already has the row for kind TrainingRun
? 1
$ gpuq apply -f $DATA/bad/integrations/trainingrun-no-workers.yaml
!~ error: .*/trainingrun-no-workers\.yaml: document 1 \(TrainingRun default/nothing\): spec\.workers: required
? 1
$ gpuq list integrations --no-headers
~ trainingruns.example.com +TrainingRun +{AGE}
$ gpuq apply -f $DATA/bad/integrations/jobset-no-template.yaml
!~ error: .*/jobset-no-template\.yaml: document 1 \(JobSet default/no-template\): spec\.replicatedJobs\[0\]\.template\.spec\.template: required
? 1
$ gpuq apply -f $DATA/bad/integrations/jobset-negative-replicas.yaml
!~ error: .*/jobset-negative-replicas\.yaml: document 1 \(JobSet default/negative\): spec\.replicatedJobs\[0\]\.replicas: invalid value "-1": must be greater than or equal to 0
? 1
$ gpuq apply -f $DATA/bad/integrations/jobset-unknown-version.yaml
!~ error: .*/jobset-unknown-version\.yaml: document 1: apiVersion: invalid value "jobset\.x-k8s\.io/v1": gpuq reads JobSet as jobset\.x-k8s\.io/v1alpha2
? 1
$ gpuq apply -f $DATA/bad/integrations/pytorchjob-no-replicas.yaml
!~ error: .*/pytorchjob-no-replicas\.yaml: document 1 \(PyTorchJob default/empty\): spec\.pytorchReplicaSpecs: must hold a replica spec of one of the types Master,Worker
? 1
$ gpuq list -A --no-headers
~ small +trainingrun-resnet-[0-9a-f]{5} +trainingrun +resnet +dws-local-queue +three-gpus +PENDING +0 +{AGE}
~ small +job-urgent-[0-9a-f]{5} +job +urgent +dws-local-queue +three-gpus +ADMITTED +{AGE} +{AGE}
