# Issue 17, acceptance check 4 (its first half): GKE's two MultiKueue DWS
# examples end to end on three simulated clusters, with no Kubernetes. The
# manager is the session's database; each worker (gpuq --cluster NAME) is a
# database of its own beside it, with its own queues, DWS check and node
# pools: no T4 capacity in asia, T4s in ~5m in us (4 nodes), in ~10m in eu
# (8 nodes). gpuq run on the manager steps all four on one virtual clock.
$ printf '%s\n' 'set -e' 'ex=$1; shift' 'gpuq apply -f $ex/dws-multi.yaml > /dev/null' 'for r in asia us eu; do gpuq --cluster multikueue-dws-worker-$r apply -f $ex/dws-multi-worker.yaml -f $DATA/../../examples/multikueue/pools-$r.yaml > /dev/null; done' 'for j in "$@"; do gpuq submit -f $ex/$j > /dev/null; done' > $TMP/setup.sh
$ sh $TMP/setup.sh $COMPAT/gke-dws/multikueue-dws job-multi-dws-autopilot.yaml job-multi-dws-autopilot.yaml job-multi-dws-autopilot.yaml
# sql.py DB STATEMENT: its rows, "|" between columns (as the sqlite3 shell prints them).
$ printf '%s\n' 'import sqlite3, sys' 'c = sqlite3.connect(sys.argv[1])' 'for r in c.execute(sys.argv[2]).fetchall():' '    print("|".join(str(v) for v in r))' 'c.commit()' > $TMP/sql.py
# Between runs every clock stands still where the run left it (speed 0), so
# that the second run starts where the first ended, to the millisecond.
$ printf '%s\n' 'import glob, os, sqlite3' 'db = os.environ["GPUQ_DB"]' 'for f in [db] + glob.glob(db + ".clusters/*.db"):' '    c = sqlite3.connect(f); c.execute("UPDATE clock SET speed = 0"); c.commit()' > $TMP/freeze.py
$ gpuq list multikueueclusters
~ NAME +CONNECTED +AGE
~ multikueue-dws-worker-asia +Unknown +{AGE}
~ multikueue-dws-worker-eu +Unknown +{AGE}
~ multikueue-dws-worker-us +Unknown +{AGE}
$ gpuq --cluster multikueue-dws-worker-eu list nodepools --no-headers
~ t4-europe-west4 +.*
# A run stopped at +5m (job 1 admitted on us at +4m32s), then carried on:
# what was dispatched and won is in the databases, so a restart sends no
# second copy.
$ gpuq run --seed 1 --for 5m > $TMP/run1.txt; python3 $TMP/freeze.py; tail -1 $TMP/run1.txt
~ 5m simulated in [0-9.]+ s: 3 admitted, 1 started, 0 finished, 0 evicted, 0 provisioning requests
$ gpuq list --no-headers | awk '{print $2, $6}'
> job ADMITTED
> job QUOTARESERVED
> job QUOTARESERVED
$ gpuq get workloads -o jsonpath='{range .items[*]}{.status.clusterName}|{.status.admissionChecks[0].name} {.status.admissionChecks[0].state} {.status.admissionChecks[0].message}{"\n"}{end}'
> multikueue-dws-worker-us|sample-dws-multikueue Ready The workload was admitted on "multikueue-dws-worker-us"
> |sample-dws-multikueue Pending 
> |sample-dws-multikueue Pending 
$ gpuq list multikueueclusters
~ NAME +CONNECTED +AGE
~ multikueue-dws-worker-asia +True +{AGE}
~ multikueue-dws-worker-eu +True +{AGE}
~ multikueue-dws-worker-us +True +{AGE}
# Each job is dispatched to the three workers when it reserves quota on the
# manager; each worker reserves its copy and asks DWS for capacity.
$ grep -cE '^\+0s +job default/dws-job-[a-z0-9]{5} dispatched: multikueue-dws-worker-asia, multikueue-dws-worker-us, multikueue-dws-worker-eu$' $TMP/run1.txt
> 3
$ grep -cE '^\+0s +\[multikueue-dws-worker-(asia|us|eu)\] job default/dws-job-[a-z0-9]{5} reserved ' $TMP/run1.txt
> 9
# The workers' side: us runs job 1's copy, the others' copies are cancelled;
# the copy carries Kueue's origin label and the manager job's UID.
$ gpuq --cluster multikueue-dws-worker-us list --status all --no-headers | awk '{print $2, $6}'
> job ADMITTED
> job QUOTARESERVED
> job QUOTARESERVED
$ gpuq --cluster multikueue-dws-worker-asia list --status all --no-headers | awk '{print $2, $6}'
> job CANCELLED
> job QUOTARESERVED
> job QUOTARESERVED
$ gpuq --cluster multikueue-dws-worker-us get workloads -o jsonpath='{.items[0].metadata.labels.kueue\.x-k8s\.io/multikueue-origin}'; echo
> multikueue
$ python3 -c 'import os,sqlite3; db=os.environ["GPUQ_DB"]; m=sqlite3.connect(db); w=sqlite3.connect(db + ".clusters/multikueue-dws-worker-us.db"); k="$.metadata.annotations.\"kueue.x-k8s.io/multikueue-origin-uid\""; print(sorted(r[0] for r in m.execute("SELECT uid FROM workloads")) == sorted(r[0] for r in w.execute("SELECT spec ->> ? FROM workloads", (k,))))'
> True
$ gpuq run --seed 1 >> $TMP/run1.txt; tail -1 $TMP/run1.txt
~ [0-9hms.]+ simulated in [0-9.]+ s: 0 admitted, 2 started, 3 finished, 0 evicted, 0 provisioning requests
# The first worker to admit a copy wins: the manager's check is Ready, the
# other copies are deleted at that moment (before any other worker turns), so
# each job starts on exactly one worker; the manager's job runs and finishes
# as the winner's copy does. asia never has capacity: its copies only wait.
$ python3 $DATA/multikueue/story.py $TMP/run1.txt $GPUQ_DB
> job 1: finished on multikueue-dws-worker-us, copy finished
> job 2: finished on multikueue-dws-worker-us, copy finished
> job 3: finished on multikueue-dws-worker-us, copy finished
$ grep -cE '^\+\S+ +\[multikueue-dws-worker-(asia|eu)\] job default/dws-job-[a-z0-9]{5} deleted: multikueue-dws-worker-us admitted it first$' $TMP/run1.txt
> 6
$ grep -c 'asia\].* started' $TMP/run1.txt
> 0
? 1
$ gpuq list --status all -o wide --no-headers | awk '{print $2, $6, $NF}'
> job FINISHED multikueue-dws-worker-us
> job FINISHED multikueue-dws-worker-us
> job FINISHED multikueue-dws-worker-us
# The same seed on fresh databases tells the same story, line for line
# (generated names aside).
$ mkdir $TMP/b && GPUQ_DB=$TMP/b/gpuq.db sh $TMP/setup.sh $COMPAT/gke-dws/multikueue-dws job-multi-dws-autopilot.yaml job-multi-dws-autopilot.yaml job-multi-dws-autopilot.yaml
$ GPUQ_DB=$TMP/b/gpuq.db gpuq run --seed 1 --for 5m > $TMP/run2.txt; GPUQ_DB=$TMP/b/gpuq.db python3 $TMP/freeze.py; GPUQ_DB=$TMP/b/gpuq.db gpuq run --seed 1 >> $TMP/run2.txt; for f in run1 run2; do sed -E 's/dws-job-[a-z0-9]{5}(-[0-9a-f]{5})?/JOB/g; s/ETA [0-9TZ:-]+/ETA T/; s/^[0-9hms.]+ simulated in [0-9.]+ s/simulated/' $TMP/$f.txt > $TMP/$f.masked; done; cmp $TMP/run1.masked $TMP/run2.masked && echo same
> same
# dws-multiclusters-example: three jobs of 3 T4 pods each; a worker's quota
# is 4 GPUs, so each worker admits one at a time. Jobs 1 and 2 run on us one
# after the other; job 3's request on eu is provisioned when job 2's copy
# there is deleted, from the nodes job 1's deleted copy had booted, idle by
# then: the jobs spread over us and eu, each on exactly one worker.
$ mkdir $TMP/c && GPUQ_DB=$TMP/c/gpuq.db sh $TMP/setup.sh $COMPAT/gke-dws/dws-multiclusters-example job-multi-dws-autopilot.yaml job-multi-dws-autopilot.yaml job-multi-dws-autopilot.yaml
$ GPUQ_DB=$TMP/c/gpuq.db gpuq run --seed 1 > $TMP/run3.txt; tail -1 $TMP/run3.txt
~ [0-9hms.]+ simulated in [0-9.]+ s: 3 admitted, 3 started, 3 finished, 0 evicted, 0 provisioning requests
$ python3 $DATA/multikueue/story.py $TMP/run3.txt $TMP/c/gpuq.db
> job 1: finished on multikueue-dws-worker-us, copy finished
> job 2: finished on multikueue-dws-worker-us, copy finished
> job 3: finished on multikueue-dws-worker-eu, copy finished
$ grep -E 'job default/dws-job-[a-z0-9]{5} (started|finished): on' $TMP/run3.txt | sed -E 's/dws-job-[a-z0-9]{5}/JOB/'
> +4m32s     job default/JOB started: on multikueue-dws-worker-us
> +9m32s     job default/JOB finished: on multikueue-dws-worker-us
> +9m32s     job default/JOB started: on multikueue-dws-worker-us
> +9m32s     job default/JOB started: on multikueue-dws-worker-eu
> +14m32s    job default/JOB finished: on multikueue-dws-worker-eu
> +14m32s    job default/JOB finished: on multikueue-dws-worker-us
# A run killed between the two databases' commits (the copy recorded on the
# manager, or submitted to the worker and not yet recorded) sends no second
# copy when run again: the recorded intent finds the worker's copy by its job.
$ mkdir $TMP/d && GPUQ_DB=$TMP/d/gpuq.db sh $TMP/setup.sh $COMPAT/gke-dws/multikueue-dws job-multi-dws-autopilot.yaml
$ GPUQ_DB=$TMP/d/gpuq.db GQ_CRASH_AT=multikueue-sim-submitted gpuq run --seed 1 > /dev/null
! gpuqd: crash point multikueue-sim-submitted
? 137
$ GPUQ_DB=$TMP/d/gpuq.db gpuq run --seed 1 > $TMP/run4.txt; tail -1 $TMP/run4.txt
~ [0-9hms.]+ simulated in [0-9.]+ s: 0 admitted, 1 started, 1 finished, 0 evicted, 0 provisioning requests
$ python3 $DATA/multikueue/story.py $TMP/run4.txt $TMP/d/gpuq.db
> job 1: finished on multikueue-dws-worker-us, copy finished
$ for r in asia us eu; do python3 $TMP/sql.py $TMP/d/gpuq.db.clusters/multikueue-dws-worker-$r.db 'SELECT count(*) FROM workloads'; done
> 1
> 1
> 1
$ mkdir $TMP/e && GPUQ_DB=$TMP/e/gpuq.db sh $TMP/setup.sh $COMPAT/gke-dws/multikueue-dws job-multi-dws-autopilot.yaml
$ GPUQ_DB=$TMP/e/gpuq.db GQ_CRASH_AT=multikueue-sim-intent gpuq run --seed 1 > /dev/null
! gpuqd: crash point multikueue-sim-intent
? 137
$ python3 $TMP/sql.py $TMP/e/gpuq.db 'SELECT cluster, uid IS NULL FROM multikueue_remotes'
> multikueue-dws-worker-asia|1
$ GPUQ_DB=$TMP/e/gpuq.db gpuq run --seed 1 > $TMP/run5.txt; python3 $DATA/multikueue/story.py $TMP/run5.txt $TMP/e/gpuq.db
> job 1: finished on multikueue-dws-worker-us, copy finished
$ for r in asia us eu; do python3 $TMP/sql.py $TMP/e/gpuq.db.clusters/multikueue-dws-worker-$r.db 'SELECT count(*) FROM workloads'; done
> 1
> 1
> 1
# A worker with no database is a cluster that is not Active (Kueue's
# BadConfig): nothing is sent there; one whose LocalQueue is missing refuses
# its copy, said once. The job runs where it can.
$ mkdir $TMP/f && GPUQ_DB=$TMP/f/gpuq.db sh $TMP/setup.sh $COMPAT/gke-dws/multikueue-dws job-multi-dws-autopilot.yaml
$ rm $TMP/f/gpuq.db.clusters/multikueue-dws-worker-eu.db* && GPUQ_DB=$TMP/f/gpuq.db gpuq --cluster multikueue-dws-worker-asia delete localqueue dws-local-queue
> localqueue.kueue.x-k8s.io "dws-local-queue" deleted
$ GPUQ_DB=$TMP/f/gpuq.db gpuq run --seed 1 > $TMP/run6.txt; grep -E 'dispatched|refused' $TMP/run6.txt | sed -E 's/dws-job-[a-z0-9]{5}/JOB/g'
> +0s        job default/JOB refused: by multikueue-dws-worker-asia: localqueue "dws-local-queue" not found in namespace "default"
> +0s        job default/JOB dispatched: multikueue-dws-worker-us
$ GPUQ_DB=$TMP/f/gpuq.db gpuq list multikueueclusters --no-headers
~ multikueue-dws-worker-asia +True +{AGE}
~ multikueue-dws-worker-eu +False +{AGE}
~ multikueue-dws-worker-us +True +{AGE}
$ GPUQ_DB=$TMP/f/gpuq.db gpuq get multikueuecluster multikueue-dws-worker-eu -o jsonpath='{.status.conditions[0].type} {.status.conditions[0].status} {.status.conditions[0].reason}'; echo
> Active False BadConfig
$ python3 $DATA/multikueue/story.py $TMP/run6.txt $TMP/f/gpuq.db
> job 1: finished on multikueue-dws-worker-us, copy finished
# Bad input: one line naming the value, nothing created.
$ gpuq --cluster Bad_Name list
!~ error: invalid cluster name "Bad_Name": .*RFC 1123 subdomain.*
? 1
$ gpuq --cluster nowhere list
!~ error: no simulated cluster "nowhere" \(.*/gpuq\.db\.clusters/nowhere\.db\): gpuq --cluster nowhere apply -f FILE makes one
? 1
$ ls $TMP/gpuq.db.clusters
> multikueue-dws-worker-asia.db
> multikueue-dws-worker-eu.db
> multikueue-dws-worker-us.db
$ gpuq --cluster w1 --kubeconfig /dev/null list
! error: --cluster cannot be used with --kubeconfig: a command reads either a database or a cluster
? 2
# examples/multikueue/run.sh plays the first story as a user would.
$ TMPDIR=$TMP sh $DATA/../../examples/multikueue/run.sh > $TMP/ex.txt; grep -cE '^\+\S+ +job default/dws-job-[a-z0-9]{5} (started|finished): on multikueue-dws-worker-us$' $TMP/ex.txt; sed -n '/^\$ gpuq list multikueueclusters/,/^\$/p' $TMP/ex.txt
> 4
> $ gpuq list multikueueclusters
~ NAME +CONNECTED +AGE
~ multikueue-dws-worker-asia +True +{AGE}
~ multikueue-dws-worker-eu +True +{AGE}
~ multikueue-dws-worker-us +True +{AGE}
> $ gpuq --cluster multikueue-dws-worker-us list --status all
# The winner's copy cancelled on its worker: the manager's check goes Retry,
# the workload is evicted and dispatched again (here it wins on us again).
$ mkdir $TMP/g && GPUQ_DB=$TMP/g/gpuq.db sh $TMP/setup.sh $COMPAT/gke-dws/multikueue-dws job-multi-dws-autopilot.yaml
$ GPUQ_DB=$TMP/g/gpuq.db gpuq run --seed 1 --for 5m > /dev/null; GPUQ_DB=$TMP/g/gpuq.db python3 $TMP/freeze.py; GPUQ_DB=$TMP/g/gpuq.db gpuq --cluster multikueue-dws-worker-us cancel $(GPUQ_DB=$TMP/g/gpuq.db gpuq get workloads -o jsonpath='{.items[0].metadata.ownerReferences[0].name}') | sed -E 's/dws-job-[a-z0-9]{5}-[0-9a-f]{5}/JOB/'
> workload/job-JOB cancelled
$ GPUQ_DB=$TMP/g/gpuq.db gpuq run --seed 1 > $TMP/run7.txt; grep -E '^\+\S+ +job ' $TMP/run7.txt | sed -E 's/dws-job-[a-z0-9]{5}/JOB/'
> +0s        job default/JOB evicted: Evicted due to AdmissionCheck in Retry state: Admitting remote on multikueue-dws-worker-us cancelled
> +0s        job default/JOB reserved (cpu=default-dws-flavor,memory=default-dws-flavor,nvidia.com/gpu=gpu-t4-dws)
> +0s        job default/JOB dispatched: multikueue-dws-worker-asia, multikueue-dws-worker-us, multikueue-dws-worker-eu
> +4m32s     job default/JOB admitted (every admission check is Ready)
> +4m32s     job default/JOB started: on multikueue-dws-worker-us
> +9m32s     job default/JOB finished: on multikueue-dws-worker-us
$ python3 $DATA/multikueue/story.py $TMP/run7.txt $TMP/g/gpuq.db
> job 1: finished on multikueue-dws-worker-us, copy finished
# A worker another process drives (here: pid 1 holds its clock) stops the run
# with one line naming the worker; every clock is handed back.
$ python3 $TMP/sql.py $TMP/f/gpuq.db.clusters/multikueue-dws-worker-us.db 'UPDATE clock SET runner_pid = 1 RETURNING runner_pid'
> 1
$ GPUQ_DB=$TMP/f/gpuq.db gpuq run --for 1m
! error: simulated cluster multikueue-dws-worker-us: another runner (pid 1) is driving this database
? 1
$ python3 $TMP/sql.py $TMP/f/gpuq.db 'SELECT runner_pid FROM clock'; python3 $TMP/sql.py $TMP/f/gpuq.db.clusters/multikueue-dws-worker-asia.db 'SELECT runner_pid FROM clock'
> None
> None
# The Configuration's multiKueue settings, as in cluster mode: the origin
# label's value, and Kueue's Incremental dispatcher (stepSize 1: asia alone
# first, which never has capacity; once that round has lasted 5 minutes of
# virtual time, us too, which admits it).
$ mkdir $TMP/h && GPUQ_DB=$TMP/h/gpuq.db sh $TMP/setup.sh $COMPAT/gke-dws/multikueue-dws job-multi-dws-autopilot.yaml
$ printf 'apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nmultiKueue:\n  origin: lab-manager\n  dispatcherName: kueue.x-k8s.io/multikueue-dispatcher-incremental\n  incrementalDispatcherConfig: {stepSize: 1}\n' | GPUQ_DB=$TMP/h/gpuq.db gpuq apply -f -
> configuration.config.kueue.x-k8s.io/config created
$ GPUQ_DB=$TMP/h/gpuq.db gpuq run --seed 1 > $TMP/run8.txt; grep -E 'dispatched|started$|started: on' $TMP/run8.txt | sed -E 's/dws-job-[a-z0-9]{5}/JOB/'
> +0s        job default/JOB dispatched: multikueue-dws-worker-asia
> +5m        job default/JOB dispatched: multikueue-dws-worker-us
> +9m32s     [multikueue-dws-worker-us] job default/JOB started
> +9m32s     job default/JOB started: on multikueue-dws-worker-us
$ GPUQ_DB=$TMP/h/gpuq.db gpuq --cluster multikueue-dws-worker-us get workloads -o jsonpath='{.items[0].metadata.labels.kueue\.x-k8s\.io/multikueue-origin}'; echo
> lab-manager
# A Configuration in v1beta1 (which has no incrementalDispatcherConfig) takes the default step.
$ printf 'apiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\nmultiKueue:\n  origin: other\n' | GPUQ_DB=$TMP/h/gpuq.db gpuq apply -f -
> configuration.config.kueue.x-k8s.io/config configured
