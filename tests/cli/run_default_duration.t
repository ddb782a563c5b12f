# A job with no gpuq.dev/duration runs for gpuq run's default (5m), as
# gq_run_options.default_duration_ms says, and then finishes. It never
# finished before: the default reached SQL as text, which compares above
# every integer, so the job's end came out NULL.
$ awk 'BEGIN{RS="---\n"; ORS="---\n"} /name: pretrain-1\n/' "$DATA/../../examples/story/jobs.yaml" | sed '/gpuq.dev\/duration/d' > $TMP/job.yaml
$ grep -c 'gpuq.dev/duration' $TMP/job.yaml || true
> 0
$ "$GPUQ" apply -f "$DATA/../../examples/story/queues.yaml" -f "$DATA/../../examples/story/pools.yaml" >/dev/null
$ "$GPUQ" submit -f $TMP/job.yaml | sed -E 's/-[0-9a-f]{5}$/-HASH/'
> job-pretrain-1-HASH
$ "$GPUQ" run --seed 7 --for 30m | sed -E 's/simulated in [0-9.]+ s/simulated in N s/'
> +0s        job team-a/pretrain-1 admitted (cpu=reservation,memory=reservation,nvidia.com/gpu=reservation)
> +0s        job team-a/pretrain-1 started
> +5m        job team-a/pretrain-1 finished: Job finished after 5m
> 5m simulated in N s: 1 admitted, 1 started, 1 finished, 0 evicted, 0 provisioning requests
