# Issue 4, check 2: with GKE's dws_and_reservation.yaml, jobs fill the
# reservation flavor without any ProvisioningRequest, and only the overflow
# gets one (the dws-prov check has onFlavors: [dws]).
$ gpuq apply -f $DATA/../../examples/gke-dws/dws_and_reservation.yaml
> resourceflavor.kueue.x-k8s.io/reservation created
> resourceflavor.kueue.x-k8s.io/dws created
> clusterqueue.kueue.x-k8s.io/cluster-queue created
> localqueue.kueue.x-k8s.io/user-queue created
> admissioncheck.kueue.x-k8s.io/dws-prov created
> provisioningrequestconfig.kueue.x-k8s.io/dws-config created
$ for i in 1 2 3; do gpuq submit --queue user-queue --name j$i --gpus 4 --cpu 2 --memory 8Gi; done
~ job-j1-[0-9a-f]{5}
~ job-j2-[0-9a-f]{5}
~ job-j3-[0-9a-f]{5}
$ gpuq schedule --until-stable -q
> 4 cycles: 3 admitted, 0 evicted
$ gpuq list -o json | python3 -c 'import json,sys; [print(w["spec"]["podSets"][0]["template"]["spec"]["containers"][0]["resources"]["requests"]["nvidia.com/gpu"], w["status"]["gpuq"]["state"], w["status"]["admission"]["podSetAssignments"][0]["flavors"]["nvidia.com/gpu"], [o["metadata"]["name"][-10:] for o in w["status"]["gpuq"].get("provisioningRequests", [])]) for w in json.load(sys.stdin)["items"]]'
> 4 admitted reservation []
> 4 admitted reservation []
> 4 reserved dws ['dws-prov-1', 'rov-1-main']
# An admitted job runs on its flavor's nodes: the reservation's node label.
$ gpuq list -o json | python3 -c 'import json,sys; [print(w["status"]["gpuq"].get("release", {}).get("podSets", [{}])[0].get("template", {}).get("spec", {}).get("nodeSelector")) for w in json.load(sys.stdin)["items"]]'
> {'cloud.google.com/gke-nodepool': 'reservation-nodepool'}
> {'cloud.google.com/gke-nodepool': 'reservation-nodepool'}
> None
