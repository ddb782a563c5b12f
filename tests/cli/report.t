# Issue 12 part 5: gpuq report on records whose figures were computed by
# hand. Five jobs (times in seconds from 2026-01-01T00:00:00Z; submitted,
# quota reserved, admitted, running): j1 0/0/1/2, j2 10/10/14/15,
# j3 20/30/80/81, j4 30/30/330/331 (team-a's cq-a holds j1-j3, team-b's
# cq-b j4 and j5), j5 40, still waiting. Waits to admission 1, 4, 60, 300 s:
# p50 32 s (linear interpolation, numpy's default), mean 91.25 s, p90 228 s,
# p99 292.8 s, max 300 s; 25 % within 2 s, 50 % within 5 s, 75 % within 60 s.
# Two nodes of pool p1 (flavor t4, 2 GPUs): 0-400 s and 100-200 s, 1000
# GPU-seconds; four 1-GPU pods ran 100 + 100 + 90 + 60 s: 35 % used, 65 %
# overhead. Pod pending 1, 1, 30, 1 s. Three ProvisioningRequests: j3's
# attempt 1 failed, its attempt 2 provisioned after 19 s, j4's after 290 s.
# The records are the ones tests/integration/test_report_html.py renders in
# a browser (its fill()); no wall-clock time appears anywhere.
$ "$GPUQ" apply -f "$DATA/../../examples/story/queues.yaml" >/dev/null && python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); from test_report_html import fill; fill(sys.argv[2])' "$DATA/../integration" "$GPUQ_DB"
# The terminal page, ASCII when the locale's codeset is not UTF-8.
$ LC_ALL=C "$GPUQ" report
> Report 2026-01-01T00:00:00Z to 2026-01-01T00:06:40Z (6m40s)
> Jobs: 5 submitted, 4 admitted, 4 started, 1 not admitted yet
> 
> Waits (jobs submitted in the window; pods created in it)
> WAIT                  N  WAITING    P50   MEAN    P90    P99    MAX   <=2s   <=5s    <=1m
> submit to admitted    4        1  32.0s  1m31s  3m48s  4m53s     5m  25.0%  50.0%   75.0%
> submit to running     4        1  33.0s  1m32s  3m49s  4m54s   5m1s  25.0%  50.0%   50.0%
> waiting for quota     4        1   0.0s   2.5s   7.0s   9.7s  10.0s  75.0%  75.0%  100.0%
> waiting for capacity  4        0  27.0s  1m29s  3m45s  4m53s     5m  25.0%  50.0%   75.0%
> pod pending           4        0   1.0s   8.2s  21.3s  29.1s  30.0s  75.0%  75.0%  100.0%
> 
> Histogram, submit to admitted (Prometheus buckets)
>   <= 1s        ############################## 1
>   <= 2.5s                                     0
>   <= 5s        ############################## 1
>   <= 10s                                      0
>   <= 20s                                      0
>   <= 40s                                      0
>   <= 1m20s     ############################## 1
>   <= 2m40s                                    0
>   <= 5m20s     ############################## 1
>   <= 10m40s                                   0
>   <= 21m20s                                   0
>   <= 42m40s                                   0
>   <= 1h25m20s                                 0
>   <= 2h50m40s                                 0
>   <= +Inf                                     0
>   30s bins over 0-10m: #_-_______-_________ (0 above 10m)
> 
> Histogram, pod pending (Prometheus buckets)
>   <= 1s        ############################## 3
>   <= 2.5s                                     0
>   <= 5s                                       0
>   <= 10s                                      0
>   <= 20s                                      0
>   <= 40s       ##########                     1
>   <= 1m20s                                    0
>   <= 2m40s                                    0
>   <= 5m20s                                    0
>   <= 10m40s                                   0
>   <= 21m20s                                   0
>   <= 42m40s                                   0
>   <= 1h25m20s                                 0
>   <= 2h50m40s                                 0
>   <= +Inf                                     0
>   30s bins over 0-10m: #.__________________ (0 above 10m)
> 
> By queue: submit to admitted
> KIND                NAME  JOBS  ADMITTED   P50   MEAN    P90    P99  MAX
> ClusterQueue        cq-a     3         3  4.0s  21.7s  48.8s  58.9s   1m
> ClusterQueue        cq-b     2         1    5m     5m     5m     5m   5m
> LocalQueue    team-a/a-q     3         3  4.0s  21.7s  48.8s  58.9s   1m
> LocalQueue    team-b/b-q     2         1    5m     5m     5m     5m   5m
> Namespace         team-a     3         3  4.0s  21.7s  48.8s  58.9s   1m
> Namespace         team-b     2         1    5m     5m     5m     5m   5m
> 
> GPU cost
> POOL   NODES  GPU-H PROVISIONED  GPU-H USED  UTILIZATION  OVERHEAD
> p1         2               0.28        0.10        35.0%     65.0%
> total      2               0.28        0.10        35.0%     65.0%
> 
> FLAVOR  NODES  GPU-H PROVISIONED  GPU-H USED  UTILIZATION  OVERHEAD
> t4          2               0.28        0.10        35.0%     65.0%
> 
> Over time (8s per mark, mean of each)
>   GPUs available  ------------=############-------------------------_ max 4.0
>   GPUs used       --###########==----------________________.-------__ max 2.0
>   jobs waiting    _..-=#####===============================-......... max 3.0
> 
> Provisioning requests
> FLAVOR  ATTEMPT  REQUESTS  PROVISIONED  FAILED  EXPIRED  REVOKED  P50 TO PROVISIONED    MAX
> t4          all         3            2       1        0        0               2m35s  4m50s
> all           1         2            1       1        0        0               4m50s  4m50s
> all           2         1            1       0        0        0               19.0s  19.0s
# In a UTF-8 locale the sparklines and bars are Unicode blocks.
$ LC_ALL=C.UTF-8 "$GPUQ" report | sed -n "/^Histogram, submit/,/^  <= 5s/p; /^Over time/,/jobs waiting/p"
> Histogram, submit to admitted (Prometheus buckets)
>   <= 1s        ██████████████████████████████ 1
>   <= 2.5s                                     0
>   <= 5s        ██████████████████████████████ 1
> Over time (8s per mark, mean of each)
>   GPUs available  ▅▅▅▅▅▅▅▅▅▅▅▅▆████████████▅▅▅▅▅▅▅▅▅▅▅▅▅▅▅▅▅▅▅▅▅▅▅▅▅▁ max 4.0
>   GPUs used       ▄▅██████████▇▅▆▅▅▅▅▅▅▅▅▅▅▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▃▅▅▅▅▅▅▄▁▁ max 2.0
>   jobs waiting    ▁▂▂▄▆█████▆▆▆▆▆▆▆▆▆▆▆▆▆▆▆▆▆▆▆▆▆▆▆▆▆▆▆▆▆▆▆▄▃▃▃▃▃▃▃▃▃ max 3.0
# CSV: the waits (the default table), then the others.
$ "$GPUQ" report -o csv
> wait,n,waiting,p50_s,mean_s,p90_s,p99_s,max_s,under_2s,under_5s,under_60s
> admission,4,1,32,91.25,228,292.8,300,0.2500,0.5000,0.7500
> running,4,1,33,92.25,229,293.8,301,0.2500,0.5000,0.5000
> quota,4,1,0,2.5,7,9.7,10,0.7500,0.7500,1.0000
> capacity,4,0,27,88.75,225,292.5,300,0.2500,0.5000,0.7500
> pod,4,0,1,8.25,21.3,29.13,30,0.7500,0.7500,1.0000
$ "$GPUQ" report -o csv --table queues
> kind,name,jobs,admitted,p50_s,mean_s,p90_s,p99_s,max_s
> ClusterQueue,cq-a,3,3,4,21.667,48.8,58.88,60
> ClusterQueue,cq-b,2,1,300,300,300,300,300
> LocalQueue,team-a/a-q,3,3,4,21.667,48.8,58.88,60
> LocalQueue,team-b/b-q,2,1,300,300,300,300,300
> Namespace,team-a,3,3,4,21.667,48.8,58.88,60
> Namespace,team-b,2,1,300,300,300,300,300
$ "$GPUQ" report -o csv --table pools
> pool,nodes,gpu_hours_provisioned,gpu_hours_used,utilization_pct,overhead_pct
> p1,2,0.278,0.097,35.0,65.0
$ "$GPUQ" report -o tsv --table flavors
> flavor	nodes	gpu_hours_provisioned	gpu_hours_used	utilization_pct	overhead_pct
> t4	2	0.278	0.097	35.0	65.0
$ "$GPUQ" report -o csv --table provisioning
> flavor,attempt,requests,retries,provisioned,failed,booking_expired,capacity_revoked,p50_s,mean_s,max_s
> t4,all,3,1,2,1,0,0,154.5,154.5,290
> all,1,2,0,1,1,0,0,290,290,290
> all,2,1,1,1,0,0,0,19,19,19
$ "$GPUQ" report -o csv --table series | sed -n "1,3p;100,\$p"
> offset_s,gpus_available,gpus_used,jobs_waiting
> 0,2.000,0.500,0.250
> 4,2.000,1.000,0.000
> 392,2.000,0.000,1.000
> 396,2.000,0.000,1.000
> 400,0.000,0.000,1.000
# 2-second bins over the first minute (and beyond: the rest go above).
$ "$GPUQ" report -o csv --table histogram --bins 2s --under 1s,30s | grep -E "^admission,bin,(0|2|4|58),|^admission,bin,600|^admission,bucket,(0|1|2.5),"
> admission,bucket,0,1,1
> admission,bucket,1,2.5,0
> admission,bucket,2.5,5,1
> admission,bin,0,2,1
> admission,bin,2,4,0
> admission,bin,4,6,1
> admission,bin,58,60,0
> admission,bin,600,+Inf,0
# JSON: every figure, stable key order; the same database gives the same bytes.
$ "$GPUQ" report -o json > "$TMP/a.json" && "$GPUQ" report -o json | cmp - "$TMP/a.json" && echo same
> same
$ sed -n "1,5p" "$TMP/a.json"
> {
>   "apiVersion": "gpuq.dev/v1alpha1",
>   "kind": "Report",
>   "window": {"since": "2026-01-01T00:00:00Z", "until": "2026-01-01T00:06:40Z", "seconds": 400.001},
>   "jobs": {"submitted": 5, "admitted": 4, "started": 4, "not_admitted": 1},
$ python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); [print(w["wait"], w["n"], w["waiting"], w["p50"], w["mean"], w["p90"], w["p99"], w["max"], [u["share"] for u in w["under"]]) for w in d["waits"]]; c=d["cost"]; print(c["gpu_hours_provisioned"], c["gpu_hours_used"], c["utilization"], c["overhead"]); print(list(d))' "$TMP/a.json"
> admission 4 1 32 91.25 228 292.8 300 [0.25, 0.5, 0.75]
> running 4 1 33 92.25 229 293.8 301 [0.25, 0.5, 0.5]
> quota 4 1 0 2.5 7 9.7 10 [0.75, 0.75, 1.0]
> capacity 4 0 27 88.75 225 292.5 300 [0.25, 0.5, 0.75]
> pod 4 0 1 8.25 21.3 29.13 30 [0.75, 0.75, 1.0]
> 0.278 0.097 35.0 65.0
> ['apiVersion', 'kind', 'window', 'jobs', 'waits', 'queues', 'cost', 'series', 'provisioning']
# A window: --since and --until take RFC 3339 times or durations back from now.
$ "$GPUQ" report --since 2026-01-01T00:00:25Z -o csv
> wait,n,waiting,p50_s,mean_s,p90_s,p99_s,max_s,under_2s,under_5s,under_60s
> admission,1,1,300,300,300,300,300,0.0000,0.0000,0.0000
> running,1,1,301,301,301,301,301,0.0000,0.0000,0.0000
> quota,1,1,0,0,0,0,0,1.0000,1.0000,1.0000
> capacity,1,0,300,300,300,300,300,0.0000,0.0000,0.0000
> pod,2,0,15.5,15.5,27.1,29.71,30,0.5000,0.5000,1.0000
$ "$GPUQ" report --since 2026-01-01T00:00:00Z --until 2026-01-01T00:01:40Z -o csv --table pools
> pool,nodes,gpu_hours_provisioned,gpu_hours_used,utilization_pct,overhead_pct
> p1,1,0.056,0.051,91.5,8.5
# Bad input: one line naming the bad value, exit 2, nothing written.
$ "$GPUQ" report --under 5x
! error: --under: invalid duration "5x": want e.g. 90s, 45m or 1h30m
? 2
$ "$GPUQ" report --under 5s,2s
! error: --under: "2s" is not above the threshold before it
? 2
$ "$GPUQ" report --bins 0s
! error: invalid --bins "0s": want a width from 1s to 10m
? 2
$ "$GPUQ" report -o csv --table nope
! error: unknown --table "nope": want waits, queues, pools, flavors, series, histogram or provisioning
? 2
$ "$GPUQ" report --table pools
! error: --table "pools" needs -o csv or -o tsv
? 2
$ "$GPUQ" report --since yesterday
! error: --since: invalid time "yesterday": want RFC 3339 (2026-01-02T15:04:05Z), now, or a duration back from now (90m)
? 2
$ "$GPUQ" report -o xml
! error: invalid -o "xml": want json, csv, tsv or table
? 2
$ "$GPUQ" report --since 2026-01-01T00:00:25Z --until 2026-01-01T00:00:20Z
! error: --until "2026-01-01T00:00:20Z" is not after --since "2026-01-01T00:00:25Z"
? 2
$ "$GPUQ" report --html "$TMP/r.html" --bins 1h; test -e "$TMP/r.html" || echo "no file"
> no file
! error: invalid --bins "1h": want a width from 1s to 10m
