# Issue 12: gpuq simulate, a day in a second. User story 1's day (the built-in
# profile rapids-day, 70 stages of Dask clusters) on its cluster (2 x T4
# nodes, 1..20, 5 minutes to scale up), in virtual time: the same seed gives
# the same report, byte for byte, whatever the machine.
$ gpuq simulate --profile rapids-day --seed 1 -q -o json > $TMP/a.json
$ gpuq simulate --profile rapids-day --seed 1 -q -o json > $TMP/b.json
$ cmp $TMP/a.json $TMP/b.json && echo same
> same
# The built-in profile and cluster are the shipped files.
$ gpuq simulate --profile $DATA/../../examples/simulate/rapids-day.yaml -f $DATA/../../examples/simulate/rapids-cluster.yaml --seed 1 -q -o json > $TMP/c.json
$ cmp $TMP/a.json $TMP/c.json && echo same
> same
# Another seed, another day.
$ gpuq simulate --profile rapids-day --seed 2 -q -o json > $TMP/d.json
$ cmp -s $TMP/a.json $TMP/d.json || echo different
> different
# The run's line (stderr) and the figures of seed 1, from the model: 169
# clusters of 1 scheduler and 2 one-GPU workers.
$ gpuq --db $TMP/day.db simulate --profile rapids-day --seed 1 -o json > /dev/null
! 169 jobs in 70 stages, 48m23.961s simulated: 169 admitted, 169 finished, 0 evicted
$ python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); w={x["wait"]: x for x in r["waits"]}; print(r["jobs"]["submitted"], w["pod"]["n"], w["pod"]["p50"], w["pod"]["p99"])' $TMP/a.json
> 169 507 0 29.879
# The database stays for gpuq report; a new --db is built aside and renamed.
$ ls $TMP | grep day.db
> day.db
$ gpuq --db $TMP/day.db report -o csv --table pools
> pool,nodes,gpu_hours_provisioned,gpu_hours_used,utilization_pct,overhead_pct
> gpu-pool,10,6.241,2.349,37.6,62.4
# The trade-off user story 1 could only guess at: nodes scaled down after 2
# minutes idle instead of 10. Overhead falls from 62% to 34%; the waits do not
# move, because every rise in width in this day (arrivals, the after-lunch
# rush) comes after a quiet phase longer than 10 minutes: both settings have
# already scaled down, so both wait for the same scale-ups.
$ cd $DATA/../../examples && gpuq simulate --profile rapids-day -f simulate/rapids-cluster.yaml --compare simulate/rapids-cluster-2m.yaml -q
> FIGURE                  simulate/rapids-cluster.yaml     simulate/rapids-cluster-2m.yaml
> jobs submitted          169                              169
> wait to admission p50   0.0s                             0.0s
> wait to admission mean  0.0s                             0.0s
> wait to admission p99   0.0s                             0.0s
> wait to running p50     0.0s                             0.0s
> wait to running mean    4.6s                             4.6s
> wait to running p99     34.1s                            34.1s
> pod pending p50         0.0s                             0.0s
> pod pending mean        3.0s                             3.0s
> pod pending p99         29.9s                            29.9s
> pods pending <= 5s      88.2%                            88.2%
> pods pending <= 60s     100.0%                           100.0%
> GPU-hours used          2.35                             2.35
> GPU-hours provisioned   6.24                             3.57
> utilization             37.6%                            65.7%
> overhead                62.4%                            34.3%
> nodes created           10                               10
# A trace: a week of two teams' jobs on the cluster they share.
$ gpuq simulate --trace $DATA/../../examples/simulate/trace.csv -f $DATA/../../examples/simulate/trace-cluster.yaml -q -o json | python3 -c 'import json,sys; r=json.load(sys.stdin); print(r["jobs"])'
> {'submitted': 21, 'admitted': 21, 'started': 21, 'not_admitted': 0}
$ gpuq simulate --trace $DATA/../../examples/simulate/trace.jsonl -f $DATA/../../examples/simulate/trace-cluster.yaml -q -o json | python3 -c 'import json,sys; r=json.load(sys.stdin); print(r["jobs"])'
> {'submitted': 12, 'admitted': 12, 'started': 12, 'not_admitted': 0}
# Bad input: one line naming the value, a non-zero status, nothing written.
$ gpuq --db $TMP/bad.db simulate --trace $DATA/simulate/bad-time.csv
!~ error: .*bad-time.csv:3: arrival: invalid value "soon": must be a duration .*
? 1
$ gpuq --db $TMP/bad.db simulate --trace $DATA/simulate/negative-run.csv
!~ error: .*negative-run.csv:2: run_time: invalid value "-5m": must be positive
? 1
$ gpuq --db $TMP/bad.db simulate --trace $DATA/simulate/unknown-queue.csv -f $DATA/../../examples/simulate/rapids-cluster.yaml
! error: job default/job-3: LocalQueue "no-such-queue" not found in namespace "default"
? 1
$ gpuq --db $TMP/bad.db simulate --profile $DATA/simulate/min-above-max.yaml
!~ error: .*min-above-max.yaml: spec.phases\[0\].minWidth: invalid value "5": must not be greater than maxWidth \(2\)
? 1
$ gpuq --db $TMP/bad.db simulate --profile rapids-night
! error: profile "rapids-night": no such file, and not a built-in profile (rapids-day)
? 1
$ gpuq --db $TMP/day.db report --under 5s,soon
! error: --under: invalid duration "soon": want e.g. 90s, 45m or 1h30m
? 2
$ ls $TMP | grep -c bad.db
> 0
? 1
