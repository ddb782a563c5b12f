# Issue 17, MultiKueue: MultiKueueCluster and MultiKueueConfig are kinds gpuq
# keeps, in both API versions (v1beta1 spec.kubeConfig, v1beta2
# spec.clusterSource.kubeConfig), listed as kubectl lists them (CONNECTED is
# the Active condition's status, Unknown until a manager gpuqd connected).
# GKE's dws-multi.yaml defines multikueue-dws-worker-asia twice: the second is
# the same object, unchanged.
$ gpuq apply -f $COMPAT/gke-dws/multikueue-dws/dws-multi.yaml
> resourceflavor.kueue.x-k8s.io/default-dws-flavor created
> resourceflavor.kueue.x-k8s.io/gpu-t4-dws created
> admissioncheck.kueue.x-k8s.io/sample-dws-multikueue created
> multikueueconfig.kueue.x-k8s.io/multikueue-dws created
> multikueuecluster.kueue.x-k8s.io/multikueue-dws-worker-asia created
> multikueuecluster.kueue.x-k8s.io/multikueue-dws-worker-eu created
> multikueuecluster.kueue.x-k8s.io/multikueue-dws-worker-us created
> multikueuecluster.kueue.x-k8s.io/multikueue-dws-worker-asia unchanged
> clusterqueue.kueue.x-k8s.io/dws-cluster-queue created
> localqueue.kueue.x-k8s.io/dws-local-queue created
$ gpuq apply -f $COMPAT/integrations/kueue-examples/multikueue/multikueue-setup.yaml
> resourceflavor.kueue.x-k8s.io/default-flavor created
> clusterqueue.kueue.x-k8s.io/cluster-queue created
> localqueue.kueue.x-k8s.io/user-queue created
> admissioncheck.kueue.x-k8s.io/sample-multikueue created
> multikueueconfig.kueue.x-k8s.io/multikueue-test created
> multikueuecluster.kueue.x-k8s.io/multikueue-test-worker1 created
$ gpuq list multikueueclusters
~ NAME +CONNECTED +AGE
~ multikueue-dws-worker-asia +Unknown +{AGE}
~ multikueue-dws-worker-eu +Unknown +{AGE}
~ multikueue-dws-worker-us +Unknown +{AGE}
~ multikueue-test-worker1 +Unknown +{AGE}
$ gpuq list multikueueconfigs
~ NAME +CLUSTERS +AGE
~ multikueue-dws +multikueue-dws-worker-asia,multikueue-dws-worker-us,multikueue-dws-worker-eu +{AGE}
~ multikueue-test +multikueue-test-worker1 +{AGE}
# Stored as v1beta2, whichever version was applied.
$ gpuq get multikueuecluster multikueue-dws-worker-us -o jsonpath='{.apiVersion} {.spec.clusterSource.kubeConfig.locationType} {.spec.clusterSource.kubeConfig.location}'
> kueue.x-k8s.io/v1beta2 Secret worker-us-east4-secret
$ gpuq get multikueueconfig multikueue-dws -o jsonpath='{.spec.clusters[*]}'
> multikueue-dws-worker-asia multikueue-dws-worker-us multikueue-dws-worker-eu
# A path kubeconfig; the location type defaults to Secret, as Kueue's.
$ printf 'apiVersion: kueue.x-k8s.io/v1beta1\nkind: MultiKueueCluster\nmetadata: {name: w2}\nspec:\n  kubeConfig: {locationType: Path, location: /etc/w2.kubeconfig}\n---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: MultiKueueCluster\nmetadata: {name: w3}\nspec:\n  clusterSource: {kubeConfig: {location: w3-secret}}\n' | gpuq apply -f -
> multikueuecluster.kueue.x-k8s.io/w2 created
> multikueuecluster.kueue.x-k8s.io/w3 created
$ gpuq get multikueuecluster -o jsonpath='{range .items[*]}{.metadata.name} {.spec.clusterSource.kubeConfig.locationType}{"\n"}{end}'
> multikueue-dws-worker-asia Secret
> multikueue-dws-worker-eu Secret
> multikueue-dws-worker-us Secret
> multikueue-test-worker1 Secret
> w2 Path
> w3 Secret
# Bad input: one line naming the field, nothing written.
$ printf 'apiVersion: kueue.x-k8s.io/v1beta1\nkind: MultiKueueCluster\nmetadata: {name: w4}\nspec:\n  kubeConfig: {locationType: File, location: x}\n' | gpuq apply -f -
!~ error: .*document 1 \(MultiKueueCluster w4\): spec.kubeConfig.locationType: .*File.*
? 1
$ printf 'apiVersion: kueue.x-k8s.io/v1beta2\nkind: MultiKueueConfig\nmetadata: {name: c2}\nspec: {clusters: []}\n' | gpuq apply -f -
!~ error: .*document 1 \(MultiKueueConfig c2\): spec.clusters: .*
? 1
$ gpuq list multikueueconfigs --no-headers
~ multikueue-dws +.* +{AGE}
~ multikueue-test +.* +{AGE}
