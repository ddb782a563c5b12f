# Issue 17, acceptance check 3: requests adjusted as Kueue adjusts them before
# quota counts them (pkg/workload/resources.go AdjustResources,
# ValidateAdmissibility; workload.go applyResourceTransformations).
$ gpuq apply -f $DATA/limits/queues.yaml
> configuration.config.kueue.x-k8s.io/config created
> resourceflavor.kueue.x-k8s.io/f created
> clusterqueue.kueue.x-k8s.io/cq created
> namespace/team-a created
> localqueue.kueue.x-k8s.io/q created
> localqueue.kueue.x-k8s.io/q created
> limitrange/limits created
> runtimeclass.node.k8s.io/gvisor created
$ gpuq get limitranges -n team-a
> NAME     AGE
~ limits   {AGE}
$ gpuq get runtimeclasses
> NAME     HANDLER   AGE
~ gvisor   runsc     {AGE}
$ gpuq get limitrange limits -n team-a -o jsonpath='{.spec.limits[0].defaultRequest.cpu} {.spec.limits[0].max.cpu}'
> 500m 2

# plain asks for nothing: each of its 2 pods gets the LimitRange's
# defaultRequest (500m, 256Mi). big asks for 3 CPUs, above the LimitRange's
# max of 2: it waits with Kueue's message. gv (limits only, RuntimeClass
# gvisor) gets defaultRequest first, then the class's overhead: 750m, 320Mi.
# lim (namespace default, no LimitRange) counts its limits as requests. mig's
# 2 MIG slices become 10Gi of example.com/gpu-memory (Replace).
$ gpuq submit -n team-a --queue q --name plain --count 2
~ job-plain-[0-9a-f]{5}
$ gpuq submit -n team-a --queue q --name big --cpu 3
~ job-big-[0-9a-f]{5}
$ gpuq apply -f $DATA/limits/jobs.yaml
> job.batch/gv created
> job.batch/lim created
$ gpuq submit --queue q --name mig --gpu-resource nvidia.com/mig-1g.5gb --gpus 2 --cpu 1
~ job-mig-[0-9a-f]{5}
$ gpuq schedule --until-stable
~ cycle 1: workload team-a/job-plain-[0-9a-f]{5} admitted in cq \(cpu=f,memory=f\)
~ cycle 2: workload team-a/job-big-[0-9a-f]{5} pending: Inadmissible: resources didn't satisfy LimitRange constraints: spec\.podSets\[0\]\.template\.spec\.containers\[0\]: Invalid value: \["cpu"\]: requests must not be above the limitRange max
~ cycle 3: workload team-a/job-gv-[0-9a-f]{5} admitted in cq \(cpu=f,memory=f\)
~ cycle 4: workload default/job-lim-[0-9a-f]{5} admitted in cq \(cpu=f,memory=f\)
~ cycle 5: workload default/job-mig-[0-9a-f]{5} admitted in cq \(cpu=f,example.com/gpu-memory=f\)
> 6 cycles: 4 admitted, 0 evicted
$ gpuq list -A -o wide --no-headers | awk '{print $1, $4, $7}'
> default lim ADMITTED
> default mig ADMITTED
> team-a plain ADMITTED
> team-a big PENDING
> team-a gv ADMITTED
$ gpuq describe workload -n team-a big | grep -E '^(State|Reason|Message):'
> State:                     pending
> Reason:                    Inadmissible
> Message:                   resources didn't satisfy LimitRange constraints: spec.podSets[0].template.spec.containers[0]: Invalid value: ["cpu"]: requests must not be above the limitRange max
$ gpuq get workloads -n team-a -o json | python3 -c 'import json,sys; [print(w["spec"]["podSets"][0]["name"], w["status"]["gpuq"]["state"], w["status"]["gpuq"].get("reason"), w["status"]["gpuq"].get("message")) for w in json.load(sys.stdin)["items"] if w["metadata"]["name"].startswith("job-big-")]'
> main pending Inadmissible resources didn't satisfy LimitRange constraints: spec.podSets[0].template.spec.containers[0]: Invalid value: ["cpu"]: requests must not be above the limitRange max
# What quota counts: plain 2 x (500m, 256Mi), gv 750m and 320Mi, lim 1 and
# 1Gi, mig 1 CPU and 2 x 5Gi: 3750m CPU, 1856Mi, 10Gi (in bytes).
$ gpuq get clusterqueue cq -o json | python3 -c 'import json,sys; [print(r["name"], r["total"]) for f in json.load(sys.stdin)["status"]["flavorsReservation"] for r in f["resources"]]'
> cpu 3750m
> memory 1856Mi
> example.com/gpu-memory 10737418240
# The pod sets' requests, as adjusted: the Job's templates stay as written.
$ gpuq describe workload -n team-a gv | sed -n '/^Pod Sets:/,/^Admission:/p' | sed '$d'
> Pod Sets:
>   Name  Count  Resource  Per Pod  Total
>   ----  -----  --------  -------  -----
>   main  1      cpu       750m     750m
>                memory    320Mi    320Mi
$ gpuq get workloads -n team-a -o jsonpath='{range .items[*]}{.spec.podSets[0].template.spec.containers[0].resources}{"\n"}{end}'
> {"requests":{}}
> {"requests":{"cpu":"3"}}
> {"limits":{"cpu":"1"}}

# The LimitRange deleted: Kueue adjusts the namespace's pending workloads
# anew, and big (3 CPUs) is admitted.
$ gpuq delete limitrange limits -n team-a
> limitrange "limits" deleted
$ gpuq schedule --until-stable
~ cycle 1: workload team-a/job-big-[0-9a-f]{5} admitted in cq \(cpu=f\)
> 2 cycles: 1 admitted, 0 evicted

# Bad input: a one-line error naming the value, nothing written.
$ printf 'apiVersion: v1\nkind: LimitRange\nmetadata: {name: x}\nspec:\n  limits:\n  - type: Node\n' | gpuq apply -f -
! error: -: document 1 (LimitRange default/x): spec.limits[0].type: invalid value "Node": supported values: "Container", "Pod", "PersistentVolumeClaim"
? 1
$ printf 'apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nresources:\n  transformations:\n  - input: a\n    strategy: Keep\n' | gpuq apply -f -
! error: -: document 1: resources.transformations[0].strategy: invalid value "Keep": supported values: "Retain", "Replace"
? 1
$ printf 'apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nresources:\n  transformations:\n  - input: a\n  - input: a\n' | gpuq apply -f -
! error: -: document 1: resources.transformations[1].input: Duplicate value: "a"
? 1
$ printf 'apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata: {name: r}\n' | gpuq apply -f -
! error: -: document 1 (RuntimeClass r): handler: required
? 1
$ gpuq get limitranges -A --no-headers
! No resources found
