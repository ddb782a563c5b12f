# Issue 16: kueuectl's create localqueue and create resourceflavor. As kubectl
# create: an object that exists is AlreadyExists; a LocalQueue's ClusterQueue
# must exist unless -i; --dry-run changes nothing.
$ gpuq apply -f $DATA/../../examples/gke-dws/dws-queues.yaml -o name
> resourceflavor.kueue.x-k8s.io/default-flavor
> admissioncheck.kueue.x-k8s.io/dws-prov
> provisioningrequestconfig.kueue.x-k8s.io/dws-config
> clusterqueue.kueue.x-k8s.io/dws-cluster-queue
> localqueue.kueue.x-k8s.io/dws-local-queue
$ gpuq create localqueue team-a -c dws-cluster-queue -n research
> localqueue.kueue.x-k8s.io/team-a created
$ gpuq create lq team-a -c dws-cluster-queue -n research
! Error from server (AlreadyExists): localqueues.kueue.x-k8s.io "team-a" already exists
? 1
$ gpuq create localqueue orphan -c nope
! error: clusterqueue "nope" not found (-i creates the LocalQueue anyway)
? 1
$ gpuq create localqueue orphan -c nope -i --dry-run
> localqueue.kueue.x-k8s.io/orphan created (dry run)
$ gpuq create localqueue/orphan -c nope -i -o name
> localqueue.kueue.x-k8s.io/orphan
$ gpuq create localqueue nothing
! error: clusterqueue must be specified (-c NAME)
? 2
# The namespace goes into the manifest too: checked first.
$ gpuq create localqueue q -c dws-cluster-queue -n 'Bad"NS'
!~ error: invalid value "Bad\\"NS": a lowercase RFC 1123 label .*
? 2
$ gpuq create localqueue team-b -c dws-cluster-queue -n research -o yaml | grep -v -e uid: -e Timestamp: | head -8
~ apiVersion: kueue.x-k8s.io/v1beta\d
> kind: LocalQueue
> metadata:
>   name: team-b
>   namespace: research
> spec:
>   clusterQueue: dws-cluster-queue
>   stopPolicy: None
$ gpuq create resourceflavor a100 --node-labels cloud.google.com/gke-accelerator=nvidia-tesla-a100,pool=a
> resourceflavor.kueue.x-k8s.io/a100 created
$ gpuq get resourceflavor a100 -o json | python3 -c 'import json,sys; print(json.load(sys.stdin)["spec"]["nodeLabels"])'
> {'cloud.google.com/gke-accelerator': 'nvidia-tesla-a100', 'pool': 'a'}
$ gpuq create resourceflavor b --node-labels pool
! error: invalid --node-labels "pool": want KEY=VALUE[,KEY=VALUE]
? 2
$ gpuq create workload x
! error: create takes clusterqueue, localqueue or resourceflavor, not "workload"
? 2
$ gpuq list localqueues -A --no-headers
~ default +dws-local-queue +dws-cluster-queue +0 +0 +{AGE}
~ default +orphan +nope +0 +0 +{AGE}
~ research +team-a +dws-cluster-queue +0 +0 +{AGE}
~ research +team-b +dws-cluster-queue +0 +0 +{AGE}
# create -f, as kubectl create -f: every object of the input created new, in
# one transaction; one that exists is an error and nothing is written. GKE's
# examples create their Jobs so (generateName needs create). A database of
# its own.
$ GPUQ_DB=$TMP/c2.db gpuq create -f $COMPAT/gke-dws/multikueue-dws/dws-multi-worker.yaml
> resourceflavor.kueue.x-k8s.io/default-dws-flavor created
> resourceflavor.kueue.x-k8s.io/gpu-t4-dws created
> clusterqueue.kueue.x-k8s.io/dws-cluster-queue created
> localqueue.kueue.x-k8s.io/dws-local-queue created
> provisioningrequestconfig.kueue.x-k8s.io/dws-config created
> admissioncheck.kueue.x-k8s.io/dws-prov created
$ GPUQ_DB=$TMP/c2.db gpuq create -f $COMPAT/gke-dws/multikueue-dws/job-multi-dws-autopilot.yaml -f $COMPAT/gke-dws/multikueue-dws/job-multi-dws-autopilot.yaml
~ job.batch/dws-job-[a-z0-9]{5} created
~ job.batch/dws-job-[a-z0-9]{5} created
$ GPUQ_DB=$TMP/c2.db gpuq create -f $COMPAT/gke-dws/multikueue-dws/dws-multi-worker.yaml
!~ error: .*dws-multi-worker.yaml: document 1 \(ResourceFlavor default-dws-flavor\): resourceflavor "default-dws-flavor" already exists
? 1
$ printf 'apiVersion: kueue.x-k8s.io/v1beta1\nkind: ResourceFlavor\nmetadata: {name: brand-new}\n---\napiVersion: kueue.x-k8s.io/v1beta1\nkind: ResourceFlavor\nmetadata: {name: gpu-t4-dws}\n' | GPUQ_DB=$TMP/c2.db gpuq create -f -
!~ error: .*document 2 \(ResourceFlavor gpu-t4-dws\): resourceflavor "gpu-t4-dws" already exists
? 1
$ GPUQ_DB=$TMP/c2.db gpuq get resourceflavor brand-new
! Error from server (NotFound): resourceflavors.kueue.x-k8s.io "brand-new" not found
? 1
$ GPUQ_DB=$TMP/c2.db gpuq create -f $COMPAT/gke-dws/job.yaml --dry-run -o name
> job.batch/sample-job
$ GPUQ_DB=$TMP/c2.db gpuq create localqueue x -f $COMPAT/gke-dws/job.yaml
! error: unexpected argument "localqueue": create -f takes no NAME
? 2
