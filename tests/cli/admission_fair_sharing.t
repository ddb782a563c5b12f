# Issue 17, acceptance check 2: admission fair sharing (Kueue's
# AdmissionFairSharing) in the simulated cluster, in virtual time. Two
# LocalQueues of one ClusterQueue in UsageBasedAdmissionFairSharing mode;
# heavy has 10 times light's past usage, so light's workloads are admitted
# first although heavy's were submitted first; then the usage halves in one
# half-life. The numbers are Kueue's arithmetic (pkg/util/admissionfairsharing:
# consumed * (1 - a) + admitted * a with a = 1 - 0.5^(elapsed / halfLife), each
# part rounded down to 10^-9; an entry penalty of requests * a(samplingInterval)
# at each admission), worked with exact decimals in the comments below.
$ "$GPUQ" apply -f $DATA/afs/queues.yaml
> configuration.config.kueue.x-k8s.io/config created
> resourceflavor.kueue.x-k8s.io/gpu created
> clusterqueue.kueue.x-k8s.io/shared created
> localqueue.kueue.x-k8s.io/heavy created
> localqueue.kueue.x-k8s.io/light created
# The database's clock stands still (speed 0) at T0 + the given seconds, T0 =
# 2027-01-01T00:00:00Z: after each `gpuq run` it is set back to where the run
# left it, however long the machine takes between two commands.
$ printf '%s\n' 'import os, sqlite3, sys, time' 'c = sqlite3.connect(os.environ["GPUQ_DB"])' 'c.execute("INSERT OR REPLACE INTO clock(id, wall_ms, virtual_ms, speed) VALUES (1, ?, ?, 0)", (int(time.time() * 1000), 1798761600000 + int(sys.argv[1]) * 1000))' 'c.commit()' > $TMP/clock.py
$ python3 $TMP/clock.py 0
$ printf '%s\n' 'import json, sys' 'for q in json.load(sys.stdin)["items"]:' '    s = q["status"]["fairSharing"]["admissionFairSharingStatus"]' '    print(q["metadata"]["name"], s["consumedResources"]["nvidia.com/gpu"], s["lastUpdate"])' > $TMP/usage.py

# The past: heavy's 10 GPUs and light's 1 run for 10 minutes. Each admission
# settles its penalty at once (no admission checks): 10 x a(1m) = 0.669670084
# and 0.066967008; at 10m a sample moves each half way to what it runs:
# heavy 0.669670084 / 2 + 5 = 5.334835042, light 0.533483504. 10 times.
$ "$GPUQ" submit -f $DATA/afs/past.yaml | sed -E 's/-[0-9a-f]{5}$/-HASH/'
> job-past-heavy-HASH
> job-past-light-HASH
$ "$GPUQ" run | sed -E 's/simulated in [0-9.]+ s/simulated in N s/'
> +0s        job default/past-heavy admitted (nvidia.com/gpu=gpu)
> +0s        job default/past-light admitted (nvidia.com/gpu=gpu)
> +0s        job default/past-heavy started
> +0s        job default/past-light started
> +10m       job default/past-heavy finished: Job finished after 10m
> +10m       job default/past-light finished: Job finished after 10m
> 10m simulated in N s: 2 admitted, 2 started, 2 finished, 0 evicted, 0 provisioning requests
$ python3 $TMP/clock.py 600
$ "$GPUQ" get localqueues -o json | python3 $TMP/usage.py
> heavy 5334835042n 2027-01-01T00:10:00Z
> light 533483504n 2027-01-01T00:10:00Z

# Two jobs each, heavy's submitted first, each taking all 11 GPUs for a
# minute. Kueue's order would be heavy-1, heavy-2, light-1, light-2; with
# admission fair sharing the queue with the lower usage goes first:
#   10m light (0.53) < heavy (5.33): light-1; light settles 11 x a(1m): 1.27
#   11m light (1.92) < heavy (4.98): light-2      12m light has none: heavy-1
#   13m heavy-2 (light is the lower, 3.00 < 5.76, but has nothing waiting)
$ "$GPUQ" submit -f $DATA/afs/jobs.yaml | sed -E 's/-[0-9a-f]{5}$/-HASH/'
> job-heavy-1-HASH
> job-heavy-2-HASH
> job-light-1-HASH
> job-light-2-HASH
$ "$GPUQ" run | sed -E 's/simulated in [0-9.]+ s/simulated in N s/'
> +0s        job default/light-1 admitted (nvidia.com/gpu=gpu)
> +0s        job default/light-1 started
> +1m        job default/light-1 finished: Job finished after 1m
> +1m        job default/light-2 admitted (nvidia.com/gpu=gpu)
> +1m        job default/light-2 started
> +2m        job default/light-2 finished: Job finished after 1m
> +2m        job default/heavy-1 admitted (nvidia.com/gpu=gpu)
> +2m        job default/heavy-1 started
> +3m        job default/heavy-1 finished: Job finished after 1m
> +3m        job default/heavy-2 admitted (nvidia.com/gpu=gpu)
> +3m        job default/heavy-2 started
> +4m        job default/heavy-2 finished: Job finished after 1m
> 4m simulated in N s: 4 admitted, 4 started, 4 finished, 0 evicted, 0 provisioning requests
$ python3 $TMP/clock.py 840
# describe shows the status (as of its last sample, at 14m).
$ "$GPUQ" describe localqueue heavy | sed -n '/^  Admission Fair Sharing:/,/Last Update:/p'
>   Admission Fair Sharing:
>     Weight:  1
>     Consumed Resources:
>       nvidia.com/gpu:  6795579275n
>     Last Update:       2027-01-01T00:14:00Z
$ "$GPUQ" get localqueues -o json | python3 $TMP/usage.py
> heavy 6795579275n 2027-01-01T00:14:00Z
> light 2800521738n 2027-01-01T00:14:00Z

# One half-life (10m) later with nothing running, the next sample halves
# each (rounded down): 3.397789637 and 1.400260869.
$ "$GPUQ" run --for 10m --forever | sed -E 's/simulated in [0-9.]+ s/simulated in N s/'
> 10m simulated in N s: 0 admitted, 0 started, 0 finished, 0 evicted, 0 provisioning requests
$ python3 $TMP/clock.py 1440
$ "$GPUQ" get localqueues -o json | python3 $TMP/usage.py
> heavy 3397789637n 2027-01-01T00:24:00Z
> light 1400260869n 2027-01-01T00:24:00Z
$ "$GPUQ" describe localqueue light | sed -n '/^  Admission Fair Sharing:/,/Last Update:/p'
>   Admission Fair Sharing:
>     Weight:  1
>     Consumed Resources:
>       nvidia.com/gpu:  1400260869n
>     Last Update:       2027-01-01T00:24:00Z

# The status is Kueue's LocalQueue status.fairSharing.
$ "$GPUQ" get localqueue light -o json | python3 -c 'import json, sys; print(json.dumps(json.load(sys.stdin)["status"]["fairSharing"], sort_keys=True))'
> {"admissionFairSharingStatus": {"consumedResources": {"nvidia.com/gpu": "1400260869n"}, "lastUpdate": "2027-01-01T00:24:00Z"}, "weightedShare": 0}
