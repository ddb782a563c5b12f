# Issue 4: the whole flow on the simulated cluster (gpuq run). The story of
# examples/story: GKE's two DWS recipes (reservation first, then DWS; DWS
# only), T4, A100 and H100 jobs from three teams, an H100 pool that never has
# capacity. Names carry a random hash and the provider's ETAs the start time;
# both are masked before comparing.
$ printf '%s\n' 'set -e' 'gpuq() { "$GPUQ" "$@"; }' 'gpuq apply -f "$DATA/../../examples/story/queues.yaml" -f "$DATA/../../examples/story/pools.yaml" >/dev/null' 'gpuq submit -f "$DATA/../../examples/story/jobs.yaml" >/dev/null' 'gpuq run --summary "$@" | sed -E "s/-[0-9a-f]{5}(-dws|\$| )/-HASH\\1/g; s/ETA [0-9TZ:-]+/ETA T/; s/simulated in [0-9.]+ s/simulated in N s/"' > $TMP/story.sh
$ sh $TMP/story.sh --seed 7 > $TMP/a.txt
# The same seed on a fresh database tells the same story, line for line.
$ GPUQ_DB=$TMP/b.db sh $TMP/story.sh --seed 7 > $TMP/b.txt
$ cmp $TMP/a.txt $TMP/b.txt && echo same
> same
# Another seed draws other provisioning delays.
$ GPUQ_DB=$TMP/c.db sh $TMP/story.sh --seed 8 > $TMP/c.txt
$ cmp -s $TMP/a.txt $TMP/c.txt || echo different
> different
# Check 2 in the simulation: the reservation takes the first two A100 jobs
# without any request; only the overflow gets one (onFlavors: [dws]).
$ grep -E '^team-a/' $TMP/a.txt
~ team-a/pretrain-1 +reserved-first +finished +0s +0s +1h30m +0
~ team-a/pretrain-2 +reserved-first +finished +0s +0s +1h +0
~ team-a/finetune-1 +reserved-first +finished +0s +\S+ +40m +1
~ team-a/finetune-2 +reserved-first +finished +0s +\S+ +40m +1
~ team-a/finetune-3 +reserved-first +finished +0s +\S+ +30m +1
~ team-a/sweep-1 +reserved-first +finished +0s +\S+ +20m +1
# All or nothing, and nodes reused: finetune-3 waits for a whole node; it
# gets finetune-1's the moment that job finishes (idle until the pool's
# scaleDownAfter), with no provisioning delay.
$ grep -E 'finetune-(1 finished|3-HASH-dws-prov-1 Provisioned)' $TMP/a.txt
~ \+44m57s +job team-a/finetune-1 finished: Job finished after 40m
~ \+44m57s +provisioningrequest team-a/job-finetune-3-HASH-dws-prov-1 Provisioned: Provisioning Request was successfully provisioned.
# CapacityRevoked while running (§3.9): transcode-long runs past its
# maxRunDurationSeconds (1800): the capacity goes, the check rejects, the
# workload is deactivated.
$ grep -E '^\+.*transcode-long' $TMP/a.txt | grep -E 'started|Revoked|deactivated'
~ \+27m51s +job team-b/transcode-long started
~ \+57m51s +provisioningrequest team-b/job-transcode-long-HASH-dws-prov-1 CapacityRevoked: Max run duration of 1800 s was reached
~ \+57m51s +job team-b/transcode-long deactivated: Max run duration of 1800 s was reached
# The H100 pool never has capacity: each request fails after 15 minutes, the
# backoff is 60, 120, 240 s, and attempt 4's failure rejects (§3.7).
$ grep -E 'h100-eval (reserved|evicted|deactivated)' $TMP/a.txt | awk '{print $1, $3, $4}'
> +0s team-c/h100-eval reserved
> +15m team-c/h100-eval evicted:
> +16m team-c/h100-eval reserved
> +31m team-c/h100-eval evicted:
> +33m team-c/h100-eval reserved
> +48m team-c/h100-eval evicted:
> +52m team-c/h100-eval reserved
> +1h7m team-c/h100-eval deactivated:
$ sed -n '/^ClusterQueues:/,$p' $TMP/a.txt
> ClusterQueues:
~ CLUSTERQUEUE +ADMITTED +FINISHED +PENDING +REJECTED
~ dws-only +4 +4 +0 +3
~ reserved-first +6 +6 +0 +0
$ grep -E '^team-c/' $TMP/a.txt
~ team-c/h100-pretrain +dws-only +deactivated +7m +1h +0s +4
~ team-c/h100-eval +dws-only +deactivated +7m +1h +0s +4
# Every transition is in the events table, with its time.
$ python3 -c 'import os,sqlite3; c=sqlite3.connect(os.environ["GPUQ_DB"]); print(c.execute("SELECT count(*) FROM events WHERE reason IN (\"Started\", \"Finished\")").fetchone()[0], c.execute("SELECT count(*) FROM events WHERE kind = \"ProvisioningRequest\" AND reason = \"Failed\"").fetchone()[0])'
> 21 8
# Finished jobs let go of their quota and their requests are deleted.
$ python3 -c 'import os,sqlite3; c=sqlite3.connect(os.environ["GPUQ_DB"]); print(c.execute("SELECT count(*) FROM usage").fetchone()[0], c.execute("SELECT count(*) FROM provisioning_requests WHERE deleted_at IS NULL").fetchone()[0])'
> 0 0
# The clock is handed back, moving at normal speed, owned by nobody.
$ python3 -c 'import os,sqlite3; c=sqlite3.connect(os.environ["GPUQ_DB"]); print(c.execute("SELECT speed, runner_pid FROM clock").fetchone())'
> (1.0, None)
# A second run has nothing left to do (how long it took on the wall clock is
# not compared: it depends on the machine).
$ gpuq run
~ 0s simulated in [0-9.]+ s: 0 admitted, 0 started, 0 finished, 0 evicted, 0 provisioning requests
# Bad flags name the bad value.
$ gpuq run --speed fast
! error: invalid --speed "fast": want a number above 0, or max
? 2
$ gpuq run --for 5x
! error: --for: invalid duration "5x": want e.g. 90s, 45m or 1h30m
? 2
