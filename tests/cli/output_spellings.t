# Issue 16: kubectl's spellings: -o=FORMAT (as pflag takes a shorthand with
# '='), -oFORMAT and --output=FORMAT; -n with -A lists every namespace, -A
# winning as in kubectl.
$ gpuq apply -f $DATA/../../examples/gke-dws/dws-queues.yaml
> resourceflavor.kueue.x-k8s.io/default-flavor created
> admissioncheck.kueue.x-k8s.io/dws-prov created
> provisioningrequestconfig.kueue.x-k8s.io/dws-config created
> clusterqueue.kueue.x-k8s.io/dws-cluster-queue created
> localqueue.kueue.x-k8s.io/dws-local-queue created
$ printf 'apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: dws-local-queue, namespace: other}\nspec: {clusterQueue: dws-cluster-queue}\n' | gpuq apply -f -
> localqueue.kueue.x-k8s.io/dws-local-queue created
$ gpuq submit --queue dws-local-queue --name one --gpus 1
~ job-one-[0-9a-f]{5}
$ gpuq submit -n other --queue dws-local-queue --name two --gpus 1
~ job-two-[0-9a-f]{5}
$ gpuq list -o=name
~ workload.kueue.x-k8s.io/job-one-[0-9a-f]{5}
$ gpuq list -oname
~ workload.kueue.x-k8s.io/job-one-[0-9a-f]{5}
$ gpuq list --output=name
~ workload.kueue.x-k8s.io/job-one-[0-9a-f]{5}
$ gpuq list -n other -A -o=name
~ workload.kueue.x-k8s.io/job-one-[0-9a-f]{5}
~ workload.kueue.x-k8s.io/job-two-[0-9a-f]{5}
$ gpuq list -o=nmae
! error: unable to match a printer suitable for the output format "nmae", allowed formats are: custom-columns,custom-columns-file,json,jsonpath,jsonpath-file,name,table,wide,yaml
? 2
# A job submitted without --name is named after its command's first word (or
# gpuq-), so that Kueue's workload name does not say "job-job-".
$ gpuq submit --queue dws-local-queue --gpus 1 -- /usr/bin/python3 train.py
~ job-python3-[a-z0-9]{5}-[0-9a-f]{5}
$ gpuq submit --queue dws-local-queue --gpus 1
~ job-gpuq-[a-z0-9]{5}-[0-9a-f]{5}
# TYPE NAME and TYPE/NAME in get and describe; a NAME that matches nothing is
# kubectl's NotFound; describe refuses -o rather than ignore it.
$ gpuq get clusterqueue dws-cluster-queue -o name
> clusterqueue.kueue.x-k8s.io/dws-cluster-queue
$ gpuq get clusterqueue/dws-cluster-queue --no-headers
~ dws-cluster-queue +4 +0 +True +{AGE}
$ gpuq get localqueues dws-local-queue -n other -o name
> localqueue.kueue.x-k8s.io/dws-local-queue
$ gpuq get workload one -o name
~ workload.kueue.x-k8s.io/job-one-[0-9a-f]{5}
$ gpuq get clusterqueue nope
! Error from server (NotFound): clusterqueues.kueue.x-k8s.io "nope" not found
? 1
$ gpuq get workloads/nope
! Error from server (NotFound): workloads.kueue.x-k8s.io "nope" not found
? 1
$ gpuq describe clusterqueue/dws-cluster-queue | head -1
> Name:                dws-cluster-queue
$ gpuq describe cq dws-cluster-queue -o json
! error: describe does not take -o json: use "gpuq get cq dws-cluster-queue -o json"
? 2
# submit -o name prints what list -o name prints for the same workload.
$ gpuq submit --queue dws-local-queue --name three --gpus 1 -o name
~ workload.kueue.x-k8s.io/job-three-[0-9a-f]{5}
$ gpuq get workload three -o name
~ workload.kueue.x-k8s.io/job-three-[0-9a-f]{5}
# delete and cancel take kubectl's TYPE/NAME and TYPE NAME forms too; every
# word is checked before anything is deleted.
$ gpuq delete localqueue/dws-local-queue rf
! error: there is no need to specify a resource type as a separate argument when passing arguments in resource/name form: "rf"
? 2
$ gpuq delete localqueue/dws-local-queue localqueue/dws-local-queue -n other
> localqueue.kueue.x-k8s.io "dws-local-queue" deleted
! error: localqueue "dws-local-queue" not found
? 1
$ gpuq submit --queue dws-local-queue --name five --gpus 1
~ job-five-[0-9a-f]{5}
$ gpuq cancel job/five
~ workload/job-five-[0-9a-f]{5} cancelled
$ gpuq submit --queue dws-local-queue --name six --gpus 1
~ job-six-[0-9a-f]{5}
$ gpuq cancel job six
~ workload/job-six-[0-9a-f]{5} cancelled
$ gpuq cancel pod/four
! error: cancel takes workload/NAME or job/NAME, not "pod/four"
? 2
# A command that prints text refuses -o rather than ignore it.
$ gpuq run --summary -o json
! error: gpuq run does not take -o json: it prints text (gpuq report -o json has the run's figures)
? 2
$ gpuq schedule -o name
! error: gpuq schedule does not take -o name: it prints text
? 2
