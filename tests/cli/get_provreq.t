# gpuq get provisioningrequests / podtemplates and describe provisioningrequest:
# the ProvisioningRequests and PodTemplates gpuq creates for the dws-prov
# check (kueue-semantics §3.3-§3.4), with GKE's printer columns ACCEPTED,
# PROVISIONED, FAILED from the provider's conditions (§4.1-§4.2).
$ gpuq apply -f $DATA/../../examples/gke-dws/dws-queues.yaml
> resourceflavor.kueue.x-k8s.io/default-flavor created
> admissioncheck.kueue.x-k8s.io/dws-prov created
> provisioningrequestconfig.kueue.x-k8s.io/dws-config created
> clusterqueue.kueue.x-k8s.io/dws-cluster-queue created
> localqueue.kueue.x-k8s.io/dws-local-queue created
$ gpuq get provisioningrequests
! No resources found in default namespace.
$ gpuq submit -f $DATA/../../examples/gke-dws/job.yaml
~ job-sample-job-[0-9a-f]{5}
$ gpuq schedule -q
> 1 cycle: 1 admitted, 0 evicted
# No provider has written a condition yet: the three columns are empty.
$ gpuq get provisioningrequests
~ NAME +ACCEPTED +PROVISIONED +FAILED +AGE
~ job-sample-job-[0-9a-f]{5}-dws-prov-1 +{AGE}
$ gpuq get provreq -o wide
~ NAME +ACCEPTED +PROVISIONED +FAILED +AGE +CLASS +WORKLOAD +CHECK +ATTEMPT +MESSAGE
~ (job-sample-job-[0-9a-f]{5})-dws-prov-1 +{AGE} +queued-provisioning\.gke\.io +\1 +dws-prov +1
$ gpuq get provreqs -A
~ NAMESPACE +NAME +ACCEPTED +PROVISIONED +FAILED +AGE
~ default +job-sample-job-[0-9a-f]{5}-dws-prov-1 +{AGE}
$ gpuq get provisioningrequest -o name | tee pr
~ provisioningrequest\.autoscaling\.x-k8s\.io/job-sample-job-[0-9a-f]{5}-dws-prov-1
# The object exactly as Kueue writes it (§3.4), with what the API server adds.
$ gpuq get provreq $(cut -d/ -f2 pr) -o yaml
> apiVersion: autoscaling.x-k8s.io/v1
> kind: ProvisioningRequest
> metadata:
~   name: job-sample-job-[0-9a-f]{5}-dws-prov-1
>   namespace: default
>   labels:
>     kueue.x-k8s.io/managed: "true"
>   ownerReferences:
>   - apiVersion: kueue.x-k8s.io/v1beta2
>     kind: Workload
~     name: job-sample-job-[0-9a-f]{5}
~     uid: [0-9a-f-]{36}
>     controller: true
>     blockOwnerDeletion: true
~   uid: [0-9a-f-]{36}
~   creationTimestamp: "\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"
> spec:
>   provisioningClassName: queued-provisioning.gke.io
>   parameters:
>     maxRunDurationSeconds: "600"
>   podSets:
>   - podTemplateRef:
~       name: ppt-job-sample-job-[0-9a-f]{5}-dws-prov-1-main
>     count: 1
# A List of them; the pod set names its PodTemplate; no status before a provider writes one.
$ gpuq get provreq -o yaml | grep -E '^(apiVersion|kind|items|- apiVersion|  status)'
> apiVersion: v1
> items:
> - apiVersion: autoscaling.x-k8s.io/v1
> kind: List
$ gpuq get provreq -o json | python3 -c 'import json,sys; p=json.load(sys.stdin)["items"][0]; print(p["spec"]["podSets"][0]["podTemplateRef"]["name"] == "ppt-" + p["metadata"]["name"] + "-main", "status" in p)'
> True False
$ gpuq get provreq nope
! Error from server (NotFound): provisioningrequests.autoscaling.x-k8s.io "nope" not found
? 1
$ gpuq get provreq $(cut -d/ -f2 pr) -n other
!~ Error from server \(NotFound\): provisioningrequests\.autoscaling\.x-k8s\.io "job-sample-job-[0-9a-f]{5}-dws-prov-1" not found
? 1
$ gpuq get provreq -n other
! No resources found in other namespace.
$ gpuq get provreq $(cut -d/ -f2 pr) -A
! error: a resource cannot be retrieved by name across all namespaces
? 2
# The PodTemplate: kubectl's columns, owned by the request.
$ gpuq get podtemplates
~ NAME +CONTAINERS +IMAGES +POD LABELS +AGE
~ ppt-job-sample-job-[0-9a-f]{5}-dws-prov-1-main +dummy-job +gcr\.io/k8s-staging-perf-tests/sleep:v0\.0\.3 +<none> +{AGE}
$ gpuq get podtemplate -A -o name
~ podtemplate/ppt-job-sample-job-[0-9a-f]{5}-dws-prov-1-main
$ gpuq get podtemplates -o json | python3 -c 'import json,sys; t=json.load(sys.stdin)["items"][0]; m=t["metadata"]; r=m["ownerReferences"][0]; print(t["apiVersion"], t["kind"], m["labels"], r["kind"], r["name"] == open("pr").read().strip().split("/")[1], r["controller"], len(m["uid"]), "creationTimestamp" in m, t["template"]["spec"]["containers"][0]["name"])'
> v1 PodTemplate {'kueue.x-k8s.io/managed': 'true'} ProvisioningRequest True True 36 True dummy-job
# The owner reference carries the request's UID; the template's UID is stable.
$ gpuq get provreq -o json | python3 -c 'import json,sys; print(json.load(sys.stdin)["items"][0]["metadata"]["uid"])' > pruid; gpuq get podtemplates -o json | python3 -c 'import json,sys; m=json.load(sys.stdin)["items"][0]["metadata"]; print(m["ownerReferences"][0]["uid"] == open("pruid").read().strip(), m["uid"])' > a; gpuq get podtemplates -o json | python3 -c 'import json,sys; m=json.load(sys.stdin)["items"][0]["metadata"]; print(m["ownerReferences"][0]["uid"] == open("pruid").read().strip(), m["uid"])' > b; cmp a b && cut -c1-4 a
> True
# A provider writes conditions (as dws_flow.t does): Accepted, and
# Provisioned=False with GKE's ETA, which -o wide shows as the message.
$ python3 -c 'import os,sqlite3; c=sqlite3.connect(os.environ["GPUQ_DB"]); c.execute("""UPDATE provisioning_requests SET status = json_object('"'"'conditions'"'"', json_array(json_object('"'"'type'"'"', '"'"'Accepted'"'"', '"'"'status'"'"', '"'"'True'"'"', '"'"'reason'"'"', '"'"'Accepted'"'"', '"'"'message'"'"', '"'"''"'"'), json_object('"'"'type'"'"', '"'"'Provisioned'"'"', '"'"'status'"'"', '"'"'False'"'"', '"'"'reason'"'"', '"'"'NotProvisioned'"'"', '"'"'message'"'"', '"'"'ETA 2h'"'"'))) WHERE deleted_at IS NULL"""); c.commit()'
$ gpuq get provreq --no-headers
~ job-sample-job-[0-9a-f]{5}-dws-prov-1 +True +False +{AGE}
$ gpuq get provreq -o wide --no-headers
~ job-sample-job-[0-9a-f]{5}-dws-prov-1 +True +False +{AGE} +queued-provisioning\.gke\.io +job-sample-job-[0-9a-f]{5} +dws-prov +1 +ETA 2h
$ gpuq get provreq -o json | python3 -c 'import json,sys; s=json.load(sys.stdin)["items"][0]["status"]; print([(c["type"], c["status"]) for c in s["conditions"]])'
> [('Accepted', 'True'), ('Provisioned', 'False')]
$ gpuq describe provisioningrequest $(cut -d/ -f2 pr)
~ Name: +job-sample-job-[0-9a-f]{5}-dws-prov-1
> Namespace:    default
> Labels:       kueue.x-k8s.io/managed=true
> Annotations:  <none>
~ UID: +[0-9a-f-]{36}
> Class:        queued-provisioning.gke.io
~ Workload: +job-sample-job-[0-9a-f]{5}
> Check:        dws-prov
> Attempt:      1
> Parameters:
>   maxRunDurationSeconds:  600
> Pod Sets:
>   Pod Template                              Count
>   ------------                              -----
~   ppt-job-sample-job-[0-9a-f]{5}-dws-prov-1-main  1
> Conditions:
>   Type         Status  Reason          Message
>   ----         ------  ------          -------
~   Accepted     True    Accepted *
>   Provisioned  False   NotProvisioned  ETA 2h
~ Created: +\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ
~ Events: +<none>
# Failed=True wins the message; the ProvisioningRequest is shown as failed.
$ python3 -c 'import os,sqlite3; c=sqlite3.connect(os.environ["GPUQ_DB"]); c.execute("""UPDATE provisioning_requests SET status = json_object('"'"'conditions'"'"', json_array(json_object('"'"'type'"'"', '"'"'Accepted'"'"', '"'"'status'"'"', '"'"'True'"'"'), json_object('"'"'type'"'"', '"'"'Provisioned'"'"', '"'"'status'"'"', '"'"'False'"'"', '"'"'message'"'"', '"'"'ETA 2h'"'"'), json_object('"'"'type'"'"', '"'"'Failed'"'"', '"'"'status'"'"', '"'"'True'"'"', '"'"'reason'"'"', '"'"'OutOfResources'"'"', '"'"'message'"'"', '"'"'max cluster limit reached'"'"'))) WHERE deleted_at IS NULL"""); c.commit()'
$ gpuq get provreq -o wide --no-headers
~ job-sample-job-[0-9a-f]{5}-dws-prov-1 +True +False +True +{AGE} +queued-provisioning\.gke\.io +job-sample-job-[0-9a-f]{5} +dws-prov +1 +max cluster limit reached
# A status that is not JSON reads as none rather than breaking the listing.
$ python3 -c 'import os,sqlite3; c=sqlite3.connect(os.environ["GPUQ_DB"]); c.execute("UPDATE provisioning_requests SET status = ? WHERE deleted_at IS NULL", ("{oops",)); c.commit()'
$ gpuq get provreq --no-headers
~ job-sample-job-[0-9a-f]{5}-dws-prov-1 +{AGE}
# Cancelling deletes the request: nothing live is left to show.
$ gpuq cancel sample-job
~ workload/job-sample-job-[0-9a-f]{5} cancelled
$ gpuq get provreq
! No resources found in default namespace.
$ gpuq get podtemplates -A
! No resources found
