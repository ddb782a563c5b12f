# Issue 2, acceptance check 4: bad input to `gpuq submit -f` gives one precise
# line, exit status 1, and leaves the database exactly as it was. Each file
# holds a valid job first, so a half-written input would show.
$ gpuq apply -f $DATA/../../examples/gke-dws/dws-queues.yaml >/dev/null
$ gpuq list -A -o json
= before
$ gpuq submit -f $DATA/bad/unknown-queue.yaml
!~ error: \S*/unknown-queue\.yaml: document 2 \(Job default/other-job\): localqueue "no-such-queue" not found in namespace "default"
? 1
$ gpuq list -A -o json
== before
$ gpuq submit -f $DATA/bad/bad-quantity.yaml
!~ error: \S*/bad-quantity\.yaml: document 2 \(Job default/bad-quantity\): spec\.template\.spec\.containers\[0\]\.resources\.requests\.cpu: .*"1\.1\.M".*
? 1
$ gpuq list -A -o json
== before
$ gpuq submit -f $DATA/bad/bad-name.yaml
!~ error: \S*/bad-name\.yaml: document 2 \(Job default/Bad_Name\): metadata\.name: invalid value "Bad_Name": .*
? 1
$ gpuq list -A -o json
== before
$ gpuq submit -f $DATA/bad/alias-bomb.yaml
!~ error: \S*/alias-bomb\.yaml: .*(anchor|alias).*
? 1
$ gpuq list -A -o json
== before
$ python3 -c 'print("apiVersion: batch/v1\nkind: Job\nmetadata: " + "[" * 100000 + "]" * 100000)' > deep.yaml; gpuq submit -f deep.yaml
!~ error: deep\.yaml: .*(deep|depth|nest).*
? 1
$ gpuq list -A -o json
== before
$ gpuq submit -f $DATA/bad/negative-gpu.yaml
!~ error: \S*/negative-gpu\.yaml: document 2 \(Job default/negative-gpu\): spec\.template\.spec\.containers\[0\]\.resources\.requests\.nvidia\.com/gpu: invalid value "-1": must be greater than or equal to 0
? 1
$ gpuq list -A -o json
== before
$ gpuq submit -f $DATA/bad/truncated.yaml
!~ error: \S*/truncated\.yaml: line \d+, column \d+: .*
? 1
$ gpuq list -A -o json
== before
# A YAML 1.1 boolean where Kubernetes wants a string is refused, naming what was written.
$ gpuq submit -f $DATA/bad/label-on.yaml
!~ error: \S*/label-on\.yaml: document 1 \(Job default/label-on\): metadata\.labels\.preemptible: invalid value "on": must be a string, quote it
? 1
$ gpuq list -A -o json
== before
# The same flags, from the command line.
$ gpuq submit --queue dws-local-queue --gpus -1
! error: --gpus: invalid value "-1": must be greater than or equal to 0
? 1
$ gpuq submit --queue dws-local-queue --cpu 1.1.M
!~ error: --cpu: .*"1\.1\.M".*
? 1
$ gpuq submit --queue dws-local-queue --name Bad_Name
!~ error: --name: invalid value "Bad_Name": .*
? 1
$ gpuq submit --queue no-such-queue
!~ error: .*localqueue "no-such-queue" not found in namespace "default"
? 1
$ gpuq list -A -o json
== before
# apply accepts a Job for a missing queue as pending, as Kueue does.
$ gpuq apply -f $DATA/bad/unknown-queue.yaml
> job.batch/good-job created
> job.batch/other-job created (pending: LocalQueue no-such-queue doesn't exist)
$ gpuq list --no-headers -o wide
~ job-good-job-[0-9a-f]{5} +job +good-job +dws-local-queue +dws-cluster-queue +PENDING +0 +{AGE} +0 +1 +1 +main:1 +0 +waiting for quota
~ job-other-job-[0-9a-f]{5} +job +other-job +no-such-queue +PENDING +0 +{AGE} +0 +1 +1 +main:1 +waiting for quota: LocalQueue no-such-queue doesn't exist
# -n that disagrees with the manifest's namespace is refused, as kubectl refuses it.
$ gpuq apply -n team-a -f $DATA/../../examples/gke-dws/job.yaml
!~ error: \S*/job\.yaml: document 1( \(Job default/sample-job\))?: the namespace from the provided object "default" does not match the namespace "team-a"\. You must pass '--namespace=default' to perform this operation\.
? 1
$ gpuq apply -n default -f $DATA/../../examples/gke-dws/job.yaml
> job.batch/sample-job created
# Usage errors exit 2.
$ gpuq list --status bogus
!~ error: invalid --status "bogus".*
? 2
$ gpuq frobnicate
! error: unknown command "frobnicate" for "gpuq"
! Run 'gpuq --help' for usage.
? 2
$ gpuq list -o xml
!~ error: unable to match a printer suitable for the output format "xml".*
? 2
# Issue 13, F2: an empty --db is refused, not SQLite's temporary database that keeps nothing.
$ gpuq --db "" apply -f $DATA/../../examples/gke-dws/dws-queues.yaml
! error: invalid database path "": it is empty
? 1
# Issue 13, F22: a command that only reads never creates the database it is pointed at.
$ gpuq --db $TMP/typo.db list -A
!~ error: database \S*/typo\.db does not exist
? 1
$ test -e $TMP/typo.db || echo absent
> absent
