# Issue 16: kueuectl's create clusterqueue. The object is what gpuq apply of
# the equivalent manifest gives: `get -o json` after each is compared, in
# this session's database and in a second one ($TMP/apply.db), with the
# fields that are new on every write (uid, timestamps) taken out.
$ printf '%s\n' 'import json, sys' 'def clean(o):' '    if isinstance(o, dict):' '        return {k: clean(v) for k, v in o.items() if k not in ("uid", "creationTimestamp", "lastTransitionTime")}' '    return [clean(v) for v in o] if isinstance(o, list) else o' 'print(json.dumps(clean(json.load(sys.stdin)), indent=1))' > $TMP/clean.py
$ gpuq create rf alpha && gpuq create rf beta
> resourceflavor.kueue.x-k8s.io/alpha created
> resourceflavor.kueue.x-k8s.io/beta created
$ printf '%s\n---\n' '{apiVersion: kueue.x-k8s.io/v1beta2, kind: ResourceFlavor, metadata: {name: alpha}}' '{apiVersion: kueue.x-k8s.io/v1beta2, kind: ResourceFlavor, metadata: {name: beta}}' | GPUQ_DB=$TMP/apply.db gpuq apply -f - -o name
> resourceflavor.kueue.x-k8s.io/alpha
> resourceflavor.kueue.x-k8s.io/beta

# Defaults, as kueuectl's: BestEffortFIFO, Never, Never, and an empty
# namespaceSelector, which admits from every namespace.
$ gpuq create clusterqueue plain
> clusterqueue.kueue.x-k8s.io/plain created
$ gpuq get clusterqueue plain -o json | python3 $TMP/clean.py
= plain
$ echo '{apiVersion: kueue.x-k8s.io/v1beta2, kind: ClusterQueue, metadata: {name: plain}, spec: {namespaceSelector: {}}}' | GPUQ_DB=$TMP/apply.db gpuq apply -f - -o name
> clusterqueue.kueue.x-k8s.io/plain
$ GPUQ_DB=$TMP/apply.db gpuq get clusterqueue plain -o json | python3 $TMP/clean.py
== plain
$ gpuq get clusterqueue plain -o jsonpath='{.spec.namespaceSelector} {.spec.queueingStrategy} {.spec.preemption.reclaimWithinCohort} {.spec.preemption.withinClusterQueue}'
> {} BestEffortFIFO Never Never

# Every flag, kueuectl's own example: listings merge by flavor, and flavors
# covering the same resources share a group.
$ gpuq create cq gpu --cohort research --queuing-strategy StrictFIFO --namespace-selector team=ml,env=prod --reclaim-within-cohort Any --preemption-within-cluster-queue LowerPriority --nominal-quota "alpha:cpu=9;memory=36Gi;nvidia.com/gpu=10,beta:cpu=18;memory=72Gi;nvidia.com/gpu=20" --borrowing-limit "alpha:cpu=1;memory=1Gi;nvidia.com/gpu=1,beta:cpu=2;memory=2Gi;nvidia.com/gpu=2" --lending-limit "alpha:cpu=1;memory=1Gi;nvidia.com/gpu=1" --lending-limit "beta:cpu=2;memory=2Gi;nvidia.com/gpu=2"
> clusterqueue.kueue.x-k8s.io/gpu created
$ gpuq get clusterqueue gpu -o json | python3 $TMP/clean.py
= gpu
$ echo '{apiVersion: kueue.x-k8s.io/v1beta2, kind: ClusterQueue, metadata: {name: gpu}, spec: {cohortName: research, queueingStrategy: StrictFIFO, namespaceSelector: {matchLabels: {team: ml, env: prod}}, preemption: {reclaimWithinCohort: Any, withinClusterQueue: LowerPriority}, resourceGroups: [{coveredResources: [cpu, memory, nvidia.com/gpu], flavors: [{name: alpha, resources: [{name: cpu, nominalQuota: 9, borrowingLimit: 1, lendingLimit: 1}, {name: memory, nominalQuota: 36Gi, borrowingLimit: 1Gi, lendingLimit: 1Gi}, {name: nvidia.com/gpu, nominalQuota: 10, borrowingLimit: 1, lendingLimit: 1}]}, {name: beta, resources: [{name: cpu, nominalQuota: 18, borrowingLimit: 2, lendingLimit: 2}, {name: memory, nominalQuota: 72Gi, borrowingLimit: 2Gi, lendingLimit: 2Gi}, {name: nvidia.com/gpu, nominalQuota: 20, borrowingLimit: 2, lendingLimit: 2}]}]}]}}' | GPUQ_DB=$TMP/apply.db gpuq apply -f - -o name
> clusterqueue.kueue.x-k8s.io/gpu
$ GPUQ_DB=$TMP/apply.db gpuq get clusterqueue gpu -o json | python3 $TMP/clean.py
== gpu
$ gpuq get cq gpu -o jsonpath='{.spec.namespaceSelector.matchLabels} {.spec.cohortName} {.spec.resourceGroups[0].flavors[1].resources[2]}'
> {"env":"prod","team":"ml"} research {"borrowingLimit":"2","lendingLimit":"2","name":"nvidia.com/gpu","nominalQuota":"20"}

# Two groups; a flavor that lists its group's resources in another order is
# written in the group's order (Kueue's webhook wants it so); a limit alone
# leaves the nominal quota 0; MIG resources and fractions are quantities.
$ gpuq create cq groups --cohort research --nominal-quota "alpha:cpu=1;memory=1Gi,beta:nvidia.com/mig-1g.5gb=7" --nominal-quota "gamma:memory=2Gi;cpu=1.5" --borrowing-limit "beta:nvidia.com/mig-1g.5gb=2"
> clusterqueue.kueue.x-k8s.io/groups created
$ gpuq get cq groups -o jsonpath='{range .spec.resourceGroups[*]}{.coveredResources}:{range .flavors[*]} {.name}={.resources[*].nominalQuota}{end}{"\n"}{end}'
> ["cpu","memory"]: alpha=1 1Gi gamma=1500m 2Gi
> ["nvidia.com/mig-1g.5gb"]: beta=7
$ gpuq get cq groups -o jsonpath='{.spec.resourceGroups[1].flavors[0].resources[0]}'
> {"borrowingLimit":"2","name":"nvidia.com/mig-1g.5gb","nominalQuota":"7"}
$ gpuq create cq limits --cohort research --borrowing-limit "alpha:cpu=1" -o json | python3 -c 'import json,sys; print(json.load(sys.stdin)["spec"]["resourceGroups"])'
> [{'coveredResources': ['cpu'], 'flavors': [{'name': 'alpha', 'resources': [{'name': 'cpu', 'nominalQuota': '0', 'borrowingLimit': '1'}]}]}]

# A trailing ';' is allowed, as kueuectl's pattern allows it; an empty
# list is none.
$ gpuq create cq trailing --nominal-quota "alpha:cpu=1;" --lending-limit "" -o name
> clusterqueue.kueue.x-k8s.io/trailing

# --dry-run changes nothing and prints the object as built; -o name.
$ gpuq create cq dry --cohort research --nominal-quota "alpha:cpu=2" --dry-run -o yaml
> apiVersion: kueue.x-k8s.io/v1beta2
> kind: ClusterQueue
> metadata:
>   name: dry
> spec:
>   namespaceSelector: {}
>   cohortName: research
>   queueingStrategy: BestEffortFIFO
>   preemption:
>     reclaimWithinCohort: Never
>     withinClusterQueue: Never
>   resourceGroups:
>   - coveredResources:
>     - cpu
>     flavors:
>     - name: alpha
>       resources:
>       - name: cpu
>         nominalQuota: "2"
$ gpuq create cq dry --dry-run
> clusterqueue.kueue.x-k8s.io/dry created (dry run)
$ gpuq get cq dry
! Error from server (NotFound): clusterqueues.kueue.x-k8s.io "dry" not found
? 1
$ gpuq create cq/gpu
! Error from server (AlreadyExists): clusterqueues.kueue.x-k8s.io "gpu" already exists
? 1

# kueuectl's errors, each naming the value: invalid resources specification,
# invalid resource quota, invalid flavor (resource quota not found), invalid
# resource group.
$ gpuq create cq bad --nominal-quota alpha
! error: invalid resources specification "alpha" in --nominal-quota: want FLAVOR:RESOURCE=QUANTITY[;RESOURCE=QUANTITY...]
? 2
$ gpuq create cq bad --nominal-quota "alpha=cpu=0;memory=1"
! error: invalid resources specification "alpha=cpu=0;memory=1" in --nominal-quota: want FLAVOR:RESOURCE=QUANTITY[;RESOURCE=QUANTITY...]
? 2
$ gpuq create cq bad --borrowing-limit "alpha:cpu=;memory=1"
! error: invalid resources specification "alpha:cpu=;memory=1" in --borrowing-limit: want FLAVOR:RESOURCE=QUANTITY[;RESOURCE=QUANTITY...]
? 2
$ gpuq create cq bad --nominal-quota "alpha:cpu=0,memory=1"
! error: invalid resources specification "memory=1" in --nominal-quota: want FLAVOR:RESOURCE=QUANTITY[;RESOURCE=QUANTITY...]
? 2
$ gpuq create cq bad --nominal-quota "alpha:cpu=1;;memory=1"
! error: invalid resources specification "alpha:cpu=1;;memory=1" in --nominal-quota: an empty resource between ';'
? 2
$ gpuq create cq bad --nominal-quota "alpha:cpu=1;cpu=2"
! error: invalid resources specification "alpha:cpu=1;cpu=2" in --nominal-quota: resource "cpu" is given twice
? 2
$ gpuq create cq bad --lending-limit "Alpha:cpu=1"
!~ error: invalid resources specification "Alpha:cpu=1" in --lending-limit: invalid value "Alpha": a lowercase RFC 1123 subdomain .*
? 2
$ gpuq create cq bad --nominal-quota "alpha:nvidia.com/=1"
!~ error: invalid resources specification "alpha:nvidia.com/=1" in --nominal-quota: invalid value "nvidia.com/": .*
? 2
$ gpuq create cq bad --nominal-quota "alpha:cpu=a;memory=1"
!~ error: invalid resource quota "cpu=a" in --nominal-quota: quantities must match the regular expression .*: "a"
? 2
$ gpuq create cq bad --nominal-quota "alpha:cpu=-1"
! error: invalid resource quota "cpu=-1" in --nominal-quota: must not be negative
? 2
$ gpuq create cq bad --nominal-quota "alpha:cpu=1;memory=1" --nominal-quota "alpha:example.com/gpu=2"
! error: invalid flavor "alpha": resource quota not found: "cpu" of --nominal-quota "alpha:cpu=1;memory=1" is not in --nominal-quota "alpha:example.com/gpu=2"
? 2
$ gpuq create cq bad --nominal-quota "alpha:cpu=1;memory=1" --borrowing-limit "alpha:example.com/gpu=2"
! error: invalid flavor "alpha": resource quota not found: "cpu" of --nominal-quota "alpha:cpu=1;memory=1" is not in --borrowing-limit "alpha:example.com/gpu=2"
? 2
# kueuectl checks one way only and would drop the memory limit: refused.
$ gpuq create cq bad --cohort research --nominal-quota "alpha:cpu=1" --borrowing-limit "alpha:cpu=1;memory=2"
! error: invalid flavor "alpha": resource quota not found: "memory" of --borrowing-limit "alpha:cpu=1;memory=2" is not in --nominal-quota "alpha:cpu=1"
? 2
$ gpuq create cq bad --nominal-quota "alpha:cpu=1,alpha:cpu=2"
! error: invalid flavor "alpha": --nominal-quota gives it twice ("alpha:cpu=1", "alpha:cpu=2")
? 2
$ gpuq create cq bad --nominal-quota "alpha:cpu=1;memory=1,beta:cpu=1"
! error: invalid resource group: flavor "beta" covers "cpu" as flavor "alpha" does, with other resources (a resource is in one group, whose flavors list the same ones)
? 2
# In this order kueuectl's substring test lets it through; Kueue would refuse it.
$ gpuq create cq bad --nominal-quota "alpha:cpu=1,beta:cpu=1;memory=1"
! error: invalid resource group: flavor "beta" covers "cpu" as flavor "alpha" does, with other resources (a resource is in one group, whose flavors list the same ones)
? 2

# The other flags' values, checked before anything is written.
$ gpuq create cq bad --queuing-strategy FIFO
! error: invalid --queuing-strategy "FIFO": want BestEffortFIFO or StrictFIFO
? 2
$ gpuq create cq bad --reclaim-within-cohort Always
! error: invalid --reclaim-within-cohort "Always": want Never, LowerPriority or Any
? 2
$ gpuq create cq bad --preemption-within-cluster-queue Any
! error: invalid --preemption-within-cluster-queue "Any": want Never, LowerPriority or LowerOrNewerEqualPriority
? 2
$ gpuq create cq bad --cohort Research
!~ error: --cohort: invalid value "Research": a lowercase RFC 1123 subdomain .*
? 2
$ gpuq create cq bad --namespace-selector team
! error: invalid --namespace-selector "team": want KEY=VALUE[,KEY=VALUE]
? 2
$ gpuq create cq bad --namespace-selector 'team=a"b'
!~ error: --namespace-selector: invalid value "a\\"b": a valid label .*
? 2
$ gpuq create cq 'bad"name'
!~ error: invalid value "bad\\"name": a lowercase RFC 1123 subdomain .*
? 2
$ gpuq create cq bad --node-labels a=b
! error: --node-labels is for resourceflavor
? 2
$ gpuq create lq bad -c gpu --cohort research
! error: --cohort is for clusterqueue
? 2
$ gpuq create cq bad -o wide
! error: gpuq create prints -o json, yaml or name, not "wide"
? 2
# What only the whole object can tell, the decoder apply uses says.
$ gpuq create cq bad --borrowing-limit "alpha:cpu=1"
! error: gpuq create: document 1 (ClusterQueue bad): spec.resourceGroups[0].flavors[0].resources[0].borrowingLimit: invalid value "1": must be absent when the cluster queue has no cohort
? 1
$ gpuq get cq --no-headers -o name
> clusterqueue.kueue.x-k8s.io/gpu
> clusterqueue.kueue.x-k8s.io/groups
> clusterqueue.kueue.x-k8s.io/limits
> clusterqueue.kueue.x-k8s.io/plain
> clusterqueue.kueue.x-k8s.io/trailing
# kubectl's --dry-run=client|server|none spellings.
$ gpuq create clusterqueue spelled --dry-run=client
> clusterqueue.kueue.x-k8s.io/spelled created (dry run)
$ gpuq create clusterqueue spelled --dry-run=server -o name
> clusterqueue.kueue.x-k8s.io/spelled
$ gpuq create clusterqueue spelled --dry-run=sometimes
! error: invalid argument "sometimes" for --dry-run: want client, server or none
? 2
$ gpuq get clusterqueue spelled -o name
! Error from server (NotFound): clusterqueues.kueue.x-k8s.io "spelled" not found
? 1
$ gpuq create clusterqueue spelled --dry-run=none
> clusterqueue.kueue.x-k8s.io/spelled created
