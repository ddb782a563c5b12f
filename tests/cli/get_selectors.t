# Issue 16: kubectl get's selection and printing flags on workloads, which
# kubectl cannot show from the test API server (gpuq's Workloads carry
# status.gpuq): -l, --field-selector (status.state, spec.queueName), -L,
# --show-labels, --sort-by, -o jsonpath and -o custom-columns. The same flags
# on Kueue's own kinds are held to kubectl itself by it_get_kubectl.
$ gpuq apply -f $DATA/../../examples/gke-dws/dws-queues.yaml
> resourceflavor.kueue.x-k8s.io/default-flavor created
> admissioncheck.kueue.x-k8s.io/dws-prov created
> provisioningrequestconfig.kueue.x-k8s.io/dws-config created
> clusterqueue.kueue.x-k8s.io/dws-cluster-queue created
> localqueue.kueue.x-k8s.io/dws-local-queue created
$ gpuq submit --queue dws-local-queue --name one --gpus 1
~ job-one-[0-9a-f]{5}
$ gpuq submit --queue dws-local-queue --name two --gpus 4
~ job-two-[0-9a-f]{5}
$ printf 'apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: three\n  labels: {kueue.x-k8s.io/queue-name: dws-local-queue, team: vision}\nspec:\n  template:\n    spec:\n      containers: [{name: c, image: x, resources: {requests: {nvidia.com/gpu: 2}, limits: {nvidia.com/gpu: 2}}}]\n      restartPolicy: Never\n' | gpuq submit -f -
~ job-three-[0-9a-f]{5}
$ gpuq schedule
~ cycle 1: workload default/job-one-[0-9a-f]{5} reserved in dws-cluster-queue .*
> 1 cycle: 1 admitted, 0 evicted
# Label selectors, equality- and set-based.
$ gpuq get workloads -l team=vision -o name
~ workload.kueue.x-k8s.io/job-three-[0-9a-f]{5}
$ gpuq get workloads -l '!team' -o name
~ workload.kueue.x-k8s.io/job-one-[0-9a-f]{5}
~ workload.kueue.x-k8s.io/job-two-[0-9a-f]{5}
$ gpuq get workloads -l 'team in (nlp, vision),kueue.x-k8s.io/queue-name=dws-local-queue' --no-headers
~ job-three-[0-9a-f]{5} +job +three +dws-local-queue +dws-cluster-queue +PENDING +1 +{AGE}
$ gpuq get workloads -l team=nobody
! No resources found in default namespace.
# Field selectors: gpuq's state, the queue, the name.
$ gpuq get workloads --field-selector status.state=reserved -o name
~ workload.kueue.x-k8s.io/job-one-[0-9a-f]{5}
$ gpuq get workloads --field-selector status.state!=reserved,spec.queueName=dws-local-queue -o name
~ workload.kueue.x-k8s.io/job-two-[0-9a-f]{5}
~ workload.kueue.x-k8s.io/job-three-[0-9a-f]{5}
# --sort-by, and the columns a user names.
$ gpuq get workloads --sort-by=.status.gpuq.gpus -o custom-columns=NAME:.metadata.name,STATE:.status.gpuq.state,GPUS:.status.gpuq.gpus,TEAM:.metadata.labels.team
> NAME              STATE      GPUS   TEAM
~ job-one-[0-9a-f]{5} +reserved +1 +<none>
~ job-three-[0-9a-f]{5} +pending +2 +vision
~ job-two-[0-9a-f]{5} +pending +4 +<none>
$ gpuq get workloads --sort-by='{.status.gpuq.gpus}' -o 'jsonpath={range .items[*]}{.spec.podSets[0].template.spec.containers[0].resources.requests.nvidia\.com/gpu}{" "}{end}'
> 1 2 4 
# The label columns close the usual table.
$ gpuq get workloads -L team --show-labels --sort-by=.metadata.creationTimestamp --no-headers
~ job-one-[0-9a-f]{5} .* +{AGE} +kueue.x-k8s.io/queue-name=dws-local-queue
~ job-two-[0-9a-f]{5} .* +{AGE} +kueue.x-k8s.io/queue-name=dws-local-queue
~ job-three-[0-9a-f]{5} .* +{AGE} +vision +kueue.x-k8s.io/queue-name=dws-local-queue,team=vision
$ gpuq get workloads -L team -o wide -l team | head -1
~ NAME .* REASON +TEAM
# Bad input: one line naming what is wrong, nothing printed, exit status 2.
$ gpuq get workloads -l 'team in vision'
! error: invalid label selector "team in vision": expected a set of values in parentheses, found "vision"
? 2
$ gpuq get workloads -l 'Bad Key=x'
! error: invalid label selector "Bad Key=x": invalid label key "Bad Key"
? 2
$ gpuq get workloads --field-selector spec.priority=1
! error: field label not supported: spec.priority
? 2
$ gpuq get workloads -o 'jsonpath={.items[0'
! error: error parsing jsonpath {.items[0, unterminated array
? 2
$ gpuq get workloads -o 'jsonpath={.items[7]}'
! error: error executing jsonpath {.items[7]}: array index out of bounds: index 7, length 3
? 1
$ gpuq get workloads --sort-by=.spec.nothing
! error: couldn't find any field with path "{.spec.nothing}" in the list of objects
? 1
$ gpuq get workloads -o custom-columns=NAME
! error: unexpected custom-columns spec: NAME, expected <header>:<json-path-expr>
? 2
$ gpuq get workloads -o jsonpath=
! error: template format specified but no template given
? 2
$ gpuq get workloads -o jsonpath-file=$TMP/missing.txt
!~ error: path ".*/missing.txt": no such file or directory
? 1
$ gpuq get workloads -o go-template='{{.items}}'
! error: -o go-template is not supported: gpuq has no Go template engine; use -o jsonpath=TEMPLATE or -o custom-columns=SPEC
? 2
$ gpuq describe workloads -o jsonpath='{.}'
! error: gpuq describe does not print -o jsonpath; gpuq get does
? 2
# A NAME that matches nothing is kubectl's NotFound whatever the printer.
$ gpuq get clusterqueue nosuch -o jsonpath='{.metadata.name}'
! Error from server (NotFound): clusterqueues.kueue.x-k8s.io "nosuch" not found
? 1
$ gpuq get clusterqueue nosuch -o yaml
! Error from server (NotFound): clusterqueues.kueue.x-k8s.io "nosuch" not found
? 1
