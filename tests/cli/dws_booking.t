# The capacity booking of a ProvisioningRequest and what follows it
# (kueue-semantics.md §3.6, §3.8, §3.9, §2.11): BookingExpired before
# admission is a retry, after admission it is ignored; Provisioned releases
# the Job with the podSetUpdates annotations; an eviction restores the
# pristine template, deletes the request and resets the check; CapacityRevoked
# rejects a workload that is not yet admitted too. Queues, flavor and node
# pool: tests/data/dws-booking.yaml. Jobs: GKE's sample job renamed, on the
# DWS node pool, without maxRunDurationSeconds.
$ gpuq apply -f $DATA/dws-booking.yaml
> resourceflavor.kueue.x-k8s.io/dws-flavor created
> admissioncheck.kueue.x-k8s.io/dws-prov created
> admissioncheck.kueue.x-k8s.io/manual-approval created
> provisioningrequestconfig.kueue.x-k8s.io/dws-config created
> clusterqueue.kueue.x-k8s.io/gated-cq created
> clusterqueue.kueue.x-k8s.io/dws-cq created
> localqueue.kueue.x-k8s.io/gated-lq created
> localqueue.kueue.x-k8s.io/dws-lq created
> nodepool.sim.gpuq.dev/dws-pool created
$ printf '%s\n' 'set -e' 'sed -e "s/NODEPOOL_NAME/dws-nodepool/" -e "s/dws-local-queue/$2/" -e "s/sample-job/$1/" -e "s|provreq.kueue.x-k8s.io/maxRunDurationSeconds: \"600\"|gpuq.dev/duration: 5m|" "$DATA/../../examples/gke-dws/job.yaml" > "$TMP/$1.yaml"' '"$GPUQ" submit -f "$TMP/$1.yaml"' > $TMP/submit.sh
# The provider, by hand: conditions TYPE=STATUS:MESSAGE written on JOB's live requests.
$ printf '%s\n' 'import json, os, sqlite3, sys' 'c = sqlite3.connect(os.environ["GPUQ_DB"])' 'conds = [dict(zip(("type", "status", "message"), a.replace("=", ":", 1).split(":", 2))) for a in sys.argv[2:]]' 'for x in conds: x["reason"] = x["type"]' 'c.execute("UPDATE provisioning_requests SET status = ? WHERE deleted_at IS NULL AND workload_id IN (SELECT id FROM workloads WHERE job_name = ?)", (json.dumps({"conditions": conds}), sys.argv[1]))' 'c.commit()' > $TMP/provider.py
# JOB's Workload as gpuq list -o json shows it: state and checks, the release, the pristine template.
$ printf '%s\n' 'import json, sys' 'job, what = sys.argv[1], sys.argv[2]' 'w = [i for i in json.load(sys.stdin)["items"] if i["metadata"]["ownerReferences"][0]["name"] == job][0]' 's, g = w["status"], w["status"]["gpuq"]' 'if what == "state": print(g["state"], " ".join(c["name"] + "=" + c["state"] for c in s.get("admissionChecks", [])) or "-", "release" if "release" in g else "no-release")' 'if what == "checks": [print(c["name"], c["state"], repr(c["message"])) for c in s.get("admissionChecks", [])]' 'if what == "conditions": [print(c["type"], c["status"], c["reason"]) for c in s["conditions"] if c["type"] in sys.argv[3:]]' 'if what == "template": print(json.dumps(w["spec"]["podSets"][0]["template"], sort_keys=True))' 'if what == "release": r = g["release"]; t = r["podSets"][0]["template"]; [print(k, json.dumps(v, sort_keys=True)) for k, v in (("suspend", r["suspend"]), ("podSet", r["podSets"][0]["name"]), ("labels", t["metadata"].get("labels")), ("annotations", t["metadata"].get("annotations")), ("nodeSelector", t["spec"].get("nodeSelector")), ("tolerations", t["spec"].get("tolerations")))]' > $TMP/wl.py
# JOB's checks as stored: state, retryCount, message.
$ printf '%s\n' 'import os, sqlite3, sys' 'c = sqlite3.connect(os.environ["GPUQ_DB"])' '[print(*r) for r in c.execute("SELECT c.name, c.state, c.retry_count, quote(c.message) FROM workload_checks c JOIN workloads w ON w.id = c.workload_id WHERE w.job_name = ? ORDER BY c.name", (sys.argv[1],))]' > $TMP/checks.py
#
# 1. BookingExpired before admission (§3.9; §3.6 rows "BookingExpired,
# workload NOT Admitted"). gated-job's ClusterQueue has dws-prov and
# manual-approval, a check nothing ever sets Ready. On the simulated cluster:
# quota reserved, request attempt 1 created (§3.2-§3.3); the pool has room
# and provisions it (+2m55s): dws-prov is Ready, but manual-approval is still
# Pending, so the workload holds its quota and is not Admitted (§1.7: only
# when every check is Ready): its Job never starts. 10 minutes after
# Provisioned (+12m55s) the provider reports BookingExpired: not Admitted,
# attempt 1 <= backoffLimitCount 3, so the check goes to Retry and the
# workload is evicted (reason AdmissionCheck, §3.6); after the 60 s backoff
# (§3.7) it is reserved again and gets attempt 2, which is provisioned at
# once: the expired booking's node is still up, idle until the pool's
# scaleDownAfter, and the simulated autoscaler reuses it.
$ sh $TMP/submit.sh gated-job gated-lq
~ job-gated-job-[0-9a-f]{5}
$ gpuq run --seed 1 --for 20m
~ \+0s +job default/gated-job reserved \(cpu=dws-flavor,memory=dws-flavor,nvidia.com/gpu=dws-flavor\)
~ \+0s +provisioningrequest default/job-gated-job-[0-9a-f]{5}-dws-prov-1 Accepted: Capacity found in node pool dws-pool: 1 node, ETA \S+
~ \+2m55s +provisioningrequest default/job-gated-job-[0-9a-f]{5}-dws-prov-1 Provisioned: Provisioning Request was successfully provisioned\.
~ \+12m55s +provisioningrequest default/job-gated-job-[0-9a-f]{5}-dws-prov-1 BookingExpired: Capacity booking for the Provisioning Request has expired and the nodes are now candidates for scale down when underutilized\.
~ \+12m55s +job default/gated-job evicted: Evicted due to AdmissionCheck in Retry state: .*
~ \+13m55s +job default/gated-job reserved \(cpu=dws-flavor,memory=dws-flavor,nvidia.com/gpu=dws-flavor\)
~ \+13m55s +provisioningrequest default/job-gated-job-[0-9a-f]{5}-dws-prov-2 Provisioned: Provisioning Request was successfully provisioned.
~ 20m simulated in [0-9.]+ s: 2 admitted, 0 started, 0 finished, 1 evicted, 2 provisioning requests
# The check's path, from the workload's events: Pending (the provider's
# ETA), Ready, then Retry with "Retrying after booking expired: <the
# provider's message>", and the eviction, reason AdmissionCheck; then the
# same again for attempt 2, which stays Ready.
$ python3 -c 'import os,sqlite3; c=sqlite3.connect(os.environ["GPUQ_DB"]); [print(*r) for r in c.execute("SELECT reason, from_state, to_state, message FROM events WHERE kind = '"'"'Workload'"'"' AND name LIKE '"'"'job-gated-job-%'"'"' AND reason IN ('"'"'AdmissionCheckUpdated'"'"', '"'"'AdmissionCheck'"'"') ORDER BY id")]'
~ AdmissionCheckUpdated Pending Pending Capacity found in node pool dws-pool: 1 node, ETA \S+
> AdmissionCheckUpdated Pending Ready Provisioning Request was successfully provisioned.
> AdmissionCheckUpdated Ready Retry Retrying after booking expired: Capacity booking for the Provisioning Request has expired and the nodes are now candidates for scale down when underutilized.
~ AdmissionCheck \S+ pending Evicted due to AdmissionCheck in Retry state: .*
> AdmissionCheckUpdated Pending Ready Provisioning Request was successfully provisioned.
# Now: quota reserved, not Admitted, no release; the eviction reset the
# Retry check with retryCount 1 (§2.9), hence attempt 2 (§3.3, §3.7);
# attempt 1 was deleted (§3.5).
$ gpuq list -o json | python3 $TMP/wl.py gated-job state
> reserved dws-prov=Ready manual-approval=Pending no-release
$ gpuq list -o json | python3 $TMP/wl.py gated-job conditions QuotaReserved Admitted
> QuotaReserved True QuotaReserved
~ Admitted False \S+
$ python3 $TMP/checks.py gated-job
> dws-prov Ready 1 'Provisioning Request was successfully provisioned.'
> manual-approval Pending 0 ''
$ gpuq get provreq
~ NAME +ACCEPTED +PROVISIONED +FAILED +AGE
~ job-gated-job-[0-9a-f]{5}-dws-prov-2 +True +True +\S+
$ gpuq cancel gated-job
~ workload/job-gated-job-[0-9a-f]{5} cancelled
#
# 2 and 3. booked-job, in dws-cq (dws-prov only), with statuses written by
# hand. Its pristine pod template, before any admission:
$ sh $TMP/submit.sh booked-job dws-lq
~ job-booked-job-[0-9a-f]{5}
$ gpuq list -o json | python3 $TMP/wl.py booked-job template
= booked-pristine
$ gpuq schedule
~ cycle 1: workload default/job-booked-job-[0-9a-f]{5} reserved in dws-cq \(cpu=dws-flavor,memory=dws-flavor,nvidia.com/gpu=dws-flavor\)
> 1 cycle: 1 admitted, 0 evicted
$ python3 $TMP/provider.py booked-job Accepted=True 'Provisioned=True:capacity is here'
$ gpuq schedule
~ cycle 1: workload default/job-booked-job-[0-9a-f]{5} admitted: Admitted: every admission check is Ready
> 1 cycle: 0 admitted, 0 evicted
$ gpuq list -o json | python3 $TMP/wl.py booked-job checks
> dws-prov Ready 'capacity is here'
# 3. Provisioned (§3.8, §2.11): the Job is released (suspend false) with the
# flavor's nodeLabels in its nodeSelector and its tolerations, the label
# kueue.x-k8s.io/podset, and the podSetUpdates annotations naming the request
# and its class.
$ gpuq list -o json | python3 $TMP/wl.py booked-job release | sed -E 's/job-booked-job-[0-9a-f]{5}-/job-booked-job-HASH-/'
> suspend false
> podSet "main"
> labels {"kueue.x-k8s.io/podset": "main"}
> annotations {"autoscaling.x-k8s.io/consume-provisioning-request": "job-booked-job-HASH-dws-prov-1", "autoscaling.x-k8s.io/provisioning-class-name": "queued-provisioning.gke.io"}
> nodeSelector {"cloud.google.com/gke-nodepool": "dws-nodepool"}
> tolerations [{"effect": "NoSchedule", "key": "nvidia.com/gpu", "operator": "Exists"}, {"effect": "NoSchedule", "key": "cloud.google.com/gke-queued", "operator": "Equal", "value": "true"}]
# The consume annotation is exactly the live request's name.
$ gpuq list -o json | python3 -c 'import json,sys; g=[i for i in json.load(sys.stdin)["items"] if i["metadata"]["ownerReferences"][0]["name"]=="booked-job"][0]["status"]["gpuq"]; print(g["release"]["podSets"][0]["template"]["metadata"]["annotations"]["autoscaling.x-k8s.io/consume-provisioning-request"] == g["provisioningRequests"][0]["metadata"]["name"])'
> True
# 2. BookingExpired after admission is ignored (§3.6 row "BookingExpired,
# workload Admitted": no change; §3.9): the provider reports Provisioned and
# BookingExpired; the workload stays admitted, its check Ready, its release
# unchanged, nothing is evicted and no new request is made.
$ python3 $TMP/provider.py booked-job Accepted=True 'Provisioned=True:capacity is here' 'BookingExpired=True:booking expired'
$ gpuq schedule
> 1 cycle: 0 admitted, 0 evicted
$ gpuq schedule
> 1 cycle: 0 admitted, 0 evicted
$ gpuq list -o json | python3 $TMP/wl.py booked-job state
> admitted dws-prov=Ready release
$ gpuq list -o json | python3 $TMP/wl.py booked-job checks
> dws-prov Ready 'capacity is here'
$ python3 $TMP/checks.py booked-job
> dws-prov Ready 0 'capacity is here'
$ gpuq list -o json | python3 $TMP/wl.py booked-job release | sed -E 's/job-booked-job-[0-9a-f]{5}-/job-booked-job-HASH-/' | grep annotations
> annotations {"autoscaling.x-k8s.io/consume-provisioning-request": "job-booked-job-HASH-dws-prov-1", "autoscaling.x-k8s.io/provisioning-class-name": "queued-provisioning.gke.io"}
$ gpuq get provreq -o name
~ provisioningrequest\.autoscaling\.x-k8s\.io/job-booked-job-[0-9a-f]{5}-dws-prov-1
$ python3 -c 'import os,sqlite3; c=sqlite3.connect(os.environ["GPUQ_DB"]); print(c.execute("SELECT state, evictions FROM workloads WHERE job_name = '"'"'booked-job'"'"'").fetchone())'
> ('admitted', 0)
# The release as shown is the template the Job runs with; the spec keeps the pristine one.
$ gpuq list -o json | python3 $TMP/wl.py booked-job template
== booked-pristine
$ gpuq cancel booked-job
~ workload/job-booked-job-[0-9a-f]{5} cancelled
#
# 4. An eviction restores the pristine template (§2.11 Stop: suspend true,
# template restored from the Workload's spec.podSets[].template), deletes the
# requests (§3.5) and resets the checks to Pending (§2.9). drained-job first
# fails attempt 1 (Retry, evicted: retryCount 1), then attempt 2 is
# provisioned and the workload admitted.
$ sh $TMP/submit.sh drained-job dws-lq
~ job-drained-job-[0-9a-f]{5}
$ gpuq list -o json | python3 $TMP/wl.py drained-job template
= drained-pristine
$ gpuq schedule -q
> 1 cycle: 1 admitted, 0 evicted
$ python3 $TMP/provider.py drained-job 'Failed=True:out of resources'
$ gpuq schedule
~ cycle 1: workload default/job-drained-job-[0-9a-f]{5} evicted: AdmissionCheck: Evicted due to AdmissionCheck in Retry state: Retrying after failure: out of resources
> 1 cycle: 0 admitted, 1 evicted
$ python3 $DATA/dws_provider.py wake
$ gpuq schedule -q
> 1 cycle: 1 admitted, 0 evicted
$ python3 $TMP/provider.py drained-job Accepted=True 'Provisioned=True:capacity is here'
$ gpuq schedule
~ cycle 1: workload default/job-drained-job-[0-9a-f]{5} admitted: Admitted: every admission check is Ready
> 1 cycle: 0 admitted, 0 evicted
$ python3 $TMP/checks.py drained-job
> dws-prov Ready 1 'capacity is here'
$ gpuq list -o json | python3 $TMP/wl.py drained-job release | sed -E 's/job-drained-job-[0-9a-f]{5}-/job-drained-job-HASH-/' | grep -E '^(suspend|annotations)'
> suspend false
> annotations {"autoscaling.x-k8s.io/consume-provisioning-request": "job-drained-job-HASH-dws-prov-2", "autoscaling.x-k8s.io/provisioning-class-name": "queued-provisioning.gke.io"}
# HoldAndDrain (§2.10): the next cycle evicts it, reason ClusterQueueStopped.
$ gpuq stop clusterqueue dws-cq
> clusterqueue/dws-cq stopped
$ gpuq schedule
~ cycle 1: workload default/job-drained-job-[0-9a-f]{5} evicted: ClusterQueueStopped: The ClusterQueue is stopped
~ cycle 1: workload default/job-drained-job-[0-9a-f]{5} pending: Inadmissible: ClusterQueue dws-cq is inactive
> 1 cycle: 0 admitted, 1 evicted
$ gpuq list -o json | python3 $TMP/wl.py drained-job conditions QuotaReserved Admitted Evicted
~ QuotaReserved False \S+
> Evicted True ClusterQueueStopped
# The release is gone (the Job is suspended again), and the template is,
# byte for byte, the pristine one saved before the first admission.
$ gpuq list -o json | python3 $TMP/wl.py drained-job state
> pending - no-release
$ gpuq list -o json | python3 $TMP/wl.py drained-job template
== drained-pristine
# The request is deleted (CleanupProvisioningRequestsOnEviction, §3.5) ...
$ gpuq get provreq
! No resources found in default namespace.
$ python3 -c 'import os,sqlite3; c=sqlite3.connect(os.environ["GPUQ_DB"]); print(c.execute("SELECT count(*), count(deleted_at) FROM provisioning_requests p JOIN workloads w ON w.id = p.workload_id WHERE w.job_name = '"'"'drained-job'"'"'").fetchone())'
> (2, 2)
# ... and the check is reset to Pending (§2.9, Kueue's resetChecksOnEviction):
# the previous state was Ready, not Retry, so retryCount is cleared.
$ python3 $TMP/checks.py drained-job
> dws-prov Pending 0 'Reset to Pending after eviction. Previously: Ready'
# Resumed: reserved again at once (a queue stop is no check retry: no
# backoff). No request is left, so the attempt is retryCount + 1 = 1 (§3.3;
# Kueue's syncOwnedProvisionRequest after cleanup).
$ gpuq resume clusterqueue dws-cq
> clusterqueue/dws-cq resumed
$ gpuq schedule
~ cycle 1: workload default/job-drained-job-[0-9a-f]{5} reserved in dws-cq \(cpu=dws-flavor,memory=dws-flavor,nvidia.com/gpu=dws-flavor\)
> 1 cycle: 1 admitted, 0 evicted
$ gpuq get provreq -o wide --no-headers
~ job-drained-job-[0-9a-f]{5}-dws-prov-1 +\S+ +queued-provisioning\.gke\.io +job-drained-job-[0-9a-f]{5} +dws-prov +1
$ gpuq list -o json | python3 $TMP/wl.py drained-job state
> reserved dws-prov=Pending no-release
$ gpuq cancel drained-job
~ workload/job-drained-job-[0-9a-f]{5} cancelled
#
# 5. CapacityRevoked before admission (§3.6 row "CapacityRevoked (workload
# active, not finished — admitted or not)", §3.9): revoked-job in gated-cq is
# provisioned (dws-prov Ready) but not admitted (manual-approval Pending);
# then the capacity is revoked: the check is Rejected, the workload is
# deactivated (DeactivatedDueToAdmissionCheck), its quota released.
$ sh $TMP/submit.sh revoked-job gated-lq
~ job-revoked-job-[0-9a-f]{5}
$ gpuq schedule -q
> 1 cycle: 1 admitted, 0 evicted
$ python3 $TMP/provider.py revoked-job Accepted=True 'Provisioned=True:capacity is here'
$ gpuq schedule
> 1 cycle: 0 admitted, 0 evicted
$ gpuq list -o json | python3 $TMP/wl.py revoked-job state
> reserved dws-prov=Ready manual-approval=Pending no-release
$ python3 $TMP/provider.py revoked-job Accepted=True 'Provisioned=True:capacity is here' 'CapacityRevoked=True:Max run duration of 600 s was reached'
$ gpuq schedule
~ cycle 1: workload default/job-revoked-job-[0-9a-f]{5} deactivated: DeactivatedDueToAdmissionCheck: Max run duration of 600 s was reached
> 1 cycle: 0 admitted, 1 evicted
$ python3 -c 'import os,sqlite3; c=sqlite3.connect(os.environ["GPUQ_DB"]); [print(*r) for r in c.execute("SELECT reason, from_state, to_state, message FROM events WHERE name LIKE '"'"'job-revoked-job-%'"'"' AND reason = '"'"'AdmissionCheckUpdated'"'"' ORDER BY id")]'
> AdmissionCheckUpdated Pending Ready capacity is here
> AdmissionCheckUpdated Ready Rejected Max run duration of 600 s was reached
# Deactivated: Kueue sets the Workload's spec.active to false (§1.7, §3.6).
$ gpuq list --status all -o json | python3 -c 'import json,sys; w=[i for i in json.load(sys.stdin)["items"] if i["metadata"]["ownerReferences"][0]["name"]=="revoked-job"][0]; print(w["status"]["gpuq"]["state"], "active:", w["spec"]["active"])'
> deactivated active: False
$ gpuq list --status all -o json | python3 $TMP/wl.py revoked-job conditions QuotaReserved Admitted Evicted
~ QuotaReserved False \S+
> Evicted True DeactivatedDueToAdmissionCheck
$ gpuq list clusterqueues -o json | python3 -c 'import json,sys; [print(q["metadata"]["name"], q["status"]["reservingWorkloads"], q["status"]["admittedWorkloads"]) for q in json.load(sys.stdin)["items"]]'
> dws-cq 0 0
> gated-cq 0 0
$ gpuq get provreq
! No resources found in default namespace.
# The deactivation is an eviction too: every non-Pending check is reset to
# Pending (§2.9; Kueue's workload controller evicts the deactivated workload
# and resetChecksOnEviction runs: "Previously: Rejected", retryCount cleared).
$ python3 $TMP/checks.py revoked-job
> dws-prov Pending 0 'Reset to Pending after eviction. Previously: Rejected'
> manual-approval Pending 0 ''
