# Issue 4: podSetUpdates (kueue-semantics.md §3.8). On Provisioned, Kueue's
# update for each pod set carries the consume and class annotations and, for
# each PRC.spec.podSetUpdates.nodeSelector entry, key: the request's
# status.provisioningClassDetails[valueFromProvisioningClassDetail] (GKE's
# ResizeRequestName, node label autoscaling.gke.io/provisioning-request);
# an absent detail adds nothing.
$ gpuq apply -f $DATA/../../examples/gke-dws/dws-queues.yaml -f $DATA/dws-podsetupdates.yaml | tail -1
> provisioningrequestconfig.kueue.x-k8s.io/dws-config configured
$ gpuq submit -f $DATA/../../examples/gke-dws/job.yaml
~ job-sample-job-[0-9a-f]{5}
$ gpuq schedule -q
> 1 cycle: 1 admitted, 0 evicted
$ printf '%s\n' 'import os, sqlite3, sys' 'c = sqlite3.connect(os.environ["GPUQ_DB"])' 'd = {"ResizeRequestName": "gke-default-job-sample-job-bf24c-f5a955a81bfd204e"} if sys.argv[1] == "details" else {}' 'import json' 'c.execute("UPDATE provisioning_requests SET status = ? WHERE deleted_at IS NULL", (json.dumps({"conditions": [{"type": "Accepted", "status": "True"}, {"type": "Provisioned", "status": "True"}], "provisioningClassDetails": d}),))' 'c.commit()' > $TMP/provider.py
$ python3 $TMP/provider.py none
$ gpuq schedule -q
> 1 cycle: 0 admitted, 0 evicted
$ gpuq list -o json | python3 -c 'import json,sys; w=json.load(sys.stdin)["items"][0]; print(w["status"]["gpuq"]["state"], json.dumps(w["status"]["gpuq"]["release"]["podSets"][0]["template"]["spec"]["nodeSelector"], sort_keys=True))'
> admitted {"cloud.google.com/gke-nodepool": "NODEPOOL_NAME"}
$ python3 $TMP/provider.py details
$ gpuq list -o json | python3 -c 'import json,sys; w=json.load(sys.stdin)["items"][0]; t=w["status"]["gpuq"]["release"]["podSets"][0]["template"]; print(json.dumps(t["spec"]["nodeSelector"], sort_keys=True)); print(t["metadata"]["annotations"]["autoscaling.x-k8s.io/provisioning-class-name"])'
> {"autoscaling.gke.io/provisioning-request": "gke-default-job-sample-job-bf24c-f5a955a81bfd204e", "cloud.google.com/gke-nodepool": "NODEPOOL_NAME"}
> queued-provisioning.gke.io
