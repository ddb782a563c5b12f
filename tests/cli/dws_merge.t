# Issue 4: podSetMergePolicy (kueue-semantics.md §1.9, §3.4; GKE takes one
# pod set per ProvisioningRequest, §4.4). With
# IdenticalWorkloadSchedulingRequirements, pod sets whose requests,
# nodeSelector, tolerations and affinity agree (Kueue's arePodSetsSimilar)
# are folded into the first one's template, counts summed: leader (1) and
# workers (3) become one pod set of 4; the evaluator asks for other resources
# and keeps its own.
$ gpuq apply -f $DATA/dws-merge.yaml | tail -1
> workload.kueue.x-k8s.io/ray-like created
$ gpuq schedule -q
> 1 cycle: 1 admitted, 0 evicted
$ gpuq get provreq -o json | python3 -c 'import json,sys; [print(p["podTemplateRef"]["name"], p["count"]) for o in json.load(sys.stdin)["items"] for p in o["spec"]["podSets"]]'
> ppt-ray-like-merge-prov-1-leader 4
> ppt-ray-like-merge-prov-1-evaluator 1
$ gpuq get podtemplates -o name
> podtemplate/ppt-ray-like-merge-prov-1-evaluator
> podtemplate/ppt-ray-like-merge-prov-1-leader
# IdenticalPodTemplates wants the whole templates equal: leader and workers
# differ in image and args, so nothing is merged.
$ sed 's/IdenticalWorkloadSchedulingRequirements/IdenticalPodTemplates/' $DATA/dws-merge.yaml | GPUQ_DB=$TMP/b.db gpuq apply -f - | tail -1
> workload.kueue.x-k8s.io/ray-like created
$ GPUQ_DB=$TMP/b.db gpuq schedule -q
> 1 cycle: 1 admitted, 0 evicted
$ GPUQ_DB=$TMP/b.db gpuq get provreq -o json | python3 -c 'import json,sys; [print(p["podTemplateRef"]["name"], p["count"]) for o in json.load(sys.stdin)["items"] for p in o["spec"]["podSets"]]'
> ppt-ray-like-merge-prov-1-leader 1
> ppt-ray-like-merge-prov-1-workers 3
> ppt-ray-like-merge-prov-1-evaluator 1
# Without a policy (Kueue's default) every pod set has its own.
$ sed '/podSetMergePolicy/d' $DATA/dws-merge.yaml | GPUQ_DB=$TMP/c.db gpuq apply -f - | tail -1
> workload.kueue.x-k8s.io/ray-like created
$ GPUQ_DB=$TMP/c.db gpuq schedule -q
> 1 cycle: 1 admitted, 0 evicted
$ GPUQ_DB=$TMP/c.db gpuq get provreq -o json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["items"][0]["spec"]["podSets"]))'
> 3
