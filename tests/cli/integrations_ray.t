# Issue 15: a Ray head counted as Kueue counts it (raycluster/common.go
# BuildPodSets): with in-tree autoscaling, KubeRay's autoscaler sidecar (500m
# CPU and 512Mi unless autoscalerOptions.resources says otherwise) is part of
# the head pod set; the submitter pod set is Kueue's default template (500m,
# 200Mi) when the RayJob gives none.
$ gpuq apply -f $COMPAT/integrations/kueue-examples/jobs/ray-job-autoscaling-sample.yaml
> rayjob.ray.io/rayjob-autoscaling-sample created (pending: LocalQueue user-queue doesn't exist)
$ gpuq describe workload rayjob-autoscaling-sample | sed -n '/^Pod Sets:/,/^Events:/p'
> Pod Sets:
>   Name         Count  Resource  Per Pod  Total
>   ----         -----  --------  -------  -----
>   head         1      cpu       1500m    1500m
>                       memory    512Mi    512Mi
>   small-group  1      cpu       1        1
>   submitter    1      cpu       500m     500m
>                       memory    200Mi    200Mi
> Events:
# SidecarMode: no submitter pod set; the submitter's container (500m, 200Mi)
# counts in the head. GCS fault tolerance raises the Ray container's requests
# to at least 200m and 256Mi. Worker groups: replicas x numOfHosts.
$ gpuq apply -f $DATA/integrations/rayjob-sidecar.yaml
> rayjob.ray.io/sidecar created (pending: the job has no kueue.x-k8s.io/queue-name label)
$ gpuq describe workload sidecar | sed -n '/^Pod Sets:/,/^Events:/p'
> Pod Sets:
>   Name     Count  Resource  Per Pod  Total
>   ----     -----  --------  -------  -----
>   head     1      cpu       700m     700m
>                   memory    1224Mi   1224Mi
>   workers  4      cpu       1        4
>                   memory    1Gi      4Gi
> Events:
