# Issue 16, acceptance check 7: honest about what gpuq does not do. A field
# the kind's API does not know (Kueue's CRDs and Configuration types, the job
# kind's CRD, Kubernetes' Job) is a warning in kubectl's words, before the
# object's line; with --strict it is an error as kubectl's --validate=strict
# makes it (one line naming every such field) and nothing is written. A field
# gpuq accepts but does not enforce is a warning, also under --strict, and
# describe lists it under "Not enforced:".
$ gpuq apply -f $DATA/fields/cq-bogus.yaml
! Warning: unknown field "spec.bogusField"
> clusterqueue.kueue.x-k8s.io/cq created
$ gpuq get clusterqueues -o name
> clusterqueue.kueue.x-k8s.io/cq
# Applied again: still warned of, and nothing changes (the field is not kept).
$ gpuq apply -f $DATA/fields/cq-bogus.yaml
! Warning: unknown field "spec.bogusField"
> clusterqueue.kueue.x-k8s.io/cq unchanged

# --strict: an error naming the fields with their whole path, and the whole
# file is refused: the LocalQueue before it is not written either.
$ cd $DATA/fields && gpuq apply --strict -f nested.yaml
! error: nested.yaml: document 2 (ClusterQueue cq-nested): strict decoding error: unknown field "spec.resourceGroups[0].flavors[0].bogus", unknown field "spec.resourceGroups[0].flavors[0].resources[0].nominalquota"
? 1
$ gpuq get clusterqueues -o name
> clusterqueue.kueue.x-k8s.io/cq
$ gpuq get localqueues -A -o name
! No resources found
$ gpuq apply -f $DATA/fields/nested.yaml
! Warning: unknown field "spec.resourceGroups[0].flavors[0].bogus"
! Warning: unknown field "spec.resourceGroups[0].flavors[0].resources[0].nominalquota"
> localqueue.kueue.x-k8s.io/lq created
> clusterqueue.kueue.x-k8s.io/cq-nested created

# Several kinds: a flavor's metadata and spec, a priority class's root, a
# Job's spec, pod template metadata and spec and a container's resources, a
# JobSet's container, gpuq's own NodePool.
$ gpuq apply -f $DATA/fields/kinds.yaml
! Warning: unknown field "metadata.labelz"
! Warning: unknown field "spec.nodeTaint"
> resourceflavor.kueue.x-k8s.io/gpu created
! Warning: unknown field "descripton"
> workloadpriorityclass.kueue.x-k8s.io/high created
! Warning: unknown field "spec.backoffLimitt"
! Warning: unknown field "spec.template.metadata.annotation"
! Warning: unknown field "spec.template.spec.nodeSelectorr"
! Warning: unknown field "spec.template.spec.containers[0].resources.limitz"
> job.batch/train created
! Warning: unknown field "spec.replicatedJobs[0].template.spec.template.spec.containers[0].commandd"
> jobset.jobset.x-k8s.io/js created
! Warning: unknown field "spec.gpusPerNod"
> nodepool.sim.gpuq.dev/pool created
# -o name and --dry-run warn the same.
$ gpuq apply --dry-run -o name -f $DATA/fields/cq-bogus.yaml
! Warning: unknown field "spec.bogusField"
> clusterqueue.kueue.x-k8s.io/cq

# A Configuration: retention policies are Kueue's and valid, so even --strict
# accepts them, but gpuq does not enforce them; fairSharing, waitForPodsReady,
# admissionFairSharing and resource transformations it does (issue 17), and
# metrics (Kueue's process settings) mean nothing to gpuq.
$ gpuq apply --strict -f $DATA/fields/config.yaml
! Warning: field "objectRetentionPolicies" is accepted but not enforced by gpuq
> configuration.config.kueue.x-k8s.io/config created
$ gpuq describe configuration config | grep -E '^(Not enforced|Wait For Pods Ready|Fair Sharing|Object Retention Policies):'
> Wait For Pods Ready:
> Fair Sharing:
> Object Retention Policies:
~ Not enforced: +objectRetentionPolicies
# A ClusterQueue's admissionScope (admission fair sharing) and a LocalQueue's
# fairSharing weight are enforced (issue 17): no warning, and describe lists
# nothing as not enforced.
$ printf '%s\n' 'apiVersion: kueue.x-k8s.io/v1beta2' 'kind: ClusterQueue' 'metadata: {name: afs}' 'spec:' '  admissionScope: {admissionMode: UsageBasedAdmissionFairSharing}' '---' 'apiVersion: kueue.x-k8s.io/v1beta2' 'kind: LocalQueue' 'metadata: {name: afs, namespace: default}' 'spec:' '  clusterQueue: afs' '  fairSharing: {weight: "2"}' > $TMP/afs.yaml
$ gpuq apply -f $TMP/afs.yaml
> clusterqueue.kueue.x-k8s.io/afs created
> localqueue.kueue.x-k8s.io/afs created
$ gpuq describe clusterqueue afs | grep -c '^Not enforced:'
> 0
? 1
$ gpuq describe localqueue afs | grep -c '^Not enforced:'
> 0
? 1
$ gpuq describe clusterqueue cq | grep -c '^Not enforced:'
> 0
? 1
# A Configuration's multiKueue: origin, gcInterval, workerLostTimeout and
# dispatcherName (with the incremental dispatcher's stepSize) are enforced by a
# manager gpuqd (issue 17), defaults shown as Kueue's; only externalFrameworks
# (and v1beta2's clusterProfile) are kept without being enforced.
$ printf '%s\n' 'apiVersion: config.kueue.x-k8s.io/v1beta2' 'kind: Configuration' 'multiKueue:' '  origin: mgr-a' '  gcInterval: 30s' '  dispatcherName: kueue.x-k8s.io/multikueue-dispatcher-incremental' > $TMP/mk.yaml
$ gpuq apply --strict -f $TMP/mk.yaml
> configuration.config.kueue.x-k8s.io/config configured
$ gpuq describe configuration config | grep -c '^Not enforced:'
> 0
? 1
$ gpuq get configuration config -o jsonpath='{.multiKueue}'
> {"dispatcherName":"kueue.x-k8s.io/multikueue-dispatcher-incremental","gcInterval":"30s","incrementalDispatcherConfig":{"stepSize":3},"origin":"mgr-a","workerLostTimeout":"15m0s"}
$ printf '%s\n' 'apiVersion: config.kueue.x-k8s.io/v1beta2' 'kind: Configuration' 'multiKueue:' '  externalFrameworks: [{name: Foo.v1.example.com}]' > $TMP/mk2.yaml
$ gpuq apply --strict -f $TMP/mk2.yaml
! Warning: field "multiKueue.externalFrameworks" is accepted but not enforced by gpuq
> configuration.config.kueue.x-k8s.io/config configured
$ printf '%s\n' 'apiVersion: config.kueue.x-k8s.io/v1beta2' 'kind: Configuration' 'multiKueue: {dispatcherName: Incremental}' | gpuq apply -f -
! error: -: document 1: multiKueue.dispatcherName: invalid value "Incremental": must be one of "kueue.x-k8s.io/multikueue-dispatcher-all-at-once", "kueue.x-k8s.io/multikueue-dispatcher-incremental"
? 1
