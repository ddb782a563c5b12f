# Issue 15, acceptance 1: Kueue's own samples of every kind it integrates
# (site/static/examples/jobs) queue as Kueue would queue them: the pod sets
# Kueue names, in its order, with its counts (JobSet: replicas x min(parallelism,
# completions); Ray: a head, each worker group, the submitter in K8sJobMode;
# Kubeflow: the replica types in Kueue's order, lower-cased), admitted whole
# in Kueue's single ClusterQueue setup while quota lasts.
$ gpuq apply -f $COMPAT/kueue/admin/single-clusterqueue-setup.yaml
> resourceflavor.kueue.x-k8s.io/default-flavor created
> clusterqueue.kueue.x-k8s.io/cluster-queue created
> localqueue.kueue.x-k8s.io/user-queue created
$ gpuq apply -f $COMPAT/integrations/kueue-examples/jobs/sample-jobset.yaml -f $COMPAT/integrations/kueue-examples/jobs/sample-pytorchjob.yaml -f $COMPAT/integrations/kueue-examples/jobs/sample-mpijob.yaml -f $COMPAT/integrations/kueue-examples/jobs/ray-job-sample.yaml -f $COMPAT/integrations/kueue-examples/jobs/ray-cluster-sample.yaml -f $COMPAT/integrations/kueue-examples/jobs/sample-tfjob.yaml -f $COMPAT/integrations/kueue-examples/jobs/sample-paddlejob.yaml -f $COMPAT/integrations/kueue-examples/jobs/sample-xgboostjob.yaml -f $COMPAT/integrations/kueue-examples/jobs/sample-jaxjob.yaml -f $COMPAT/integrations/kueue-examples/jobs/sample-jobset-tas-sliced.yaml
~ jobset.jobset.x-k8s.io/sleep-job-[a-z0-9]{5} created
> pytorchjob.kubeflow.org/pytorch-simple created
> mpijob.kubeflow.org/pi created
> rayjob.ray.io/rayjob-sample created
> raycluster.ray.io/raycluster-complete created
> tfjob.kubeflow.org/tensorflow-dist-mnist created
> paddlejob.kubeflow.org/paddle-simple-cpu created
> xgboostjob.kubeflow.org/xgboost-dist-iris-test-train created
> jaxjob.kubeflow.org/jax-simple created
> jobset.jobset.x-k8s.io/jobset-tas-sliced created
$ gpuq schedule --until-stable
~ cycle 1: workload default/jobset-sleep-job-[a-z0-9]{5}-[0-9a-f]{5} admitted in cluster-queue \(cpu=default-flavor,memory=default-flavor,cpu=default-flavor,memory=default-flavor\)
~ cycle 2: workload default/pytorchjob-pytorch-simple-[0-9a-f]{5} admitted in cluster-queue \(cpu=default-flavor,memory=default-flavor,cpu=default-flavor,memory=default-flavor\)
~ cycle 3: workload default/mpijob-pi-[0-9a-f]{5} admitted in cluster-queue \(cpu=default-flavor,memory=default-flavor,cpu=default-flavor,memory=default-flavor\)
~ cycle 4: workload default/rayjob-rayjob-sample-[0-9a-f]{5} pending: Pending: couldn't assign flavors to pod set small-group: insufficient unused quota for cpu in flavor default-flavor, 1 more needed; couldn't assign flavors to pod set submitter: insufficient unused quota for cpu in flavor default-flavor, 1500m more needed
~ cycle 5: workload default/raycluster-raycluster-complete-[0-9a-f]{5} pending: Pending: couldn't assign flavors to pod set small-group: insufficient unused quota for cpu in flavor default-flavor, 1 more needed
~ cycle 6: workload default/tfjob-tensorflow-dist-mnist-[0-9a-f]{5} pending: Pending: couldn't assign flavors to pod set worker: insufficient unused quota for cpu in flavor default-flavor, 2 more needed
~ cycle 7: workload default/paddlejob-paddle-simple-cpu-[0-9a-f]{5} pending: Pending: couldn't assign flavors to pod set worker: insufficient unused quota for cpu in flavor default-flavor, 1 more needed
~ cycle 8: workload default/xgboostjob-xgboost-dist-iris-test-train-[0-9a-f]{5} pending: Pending: couldn't assign flavors to pod set worker: insufficient unused quota for cpu in flavor default-flavor, 500m more needed
~ cycle 9: workload default/jaxjob-jax-simple-[0-9a-f]{5} pending: Pending: couldn't assign flavors to pod set worker: insufficient unused quota for cpu in flavor default-flavor, 1 more needed
~ cycle 10: workload default/jobset-jobset-tas-sliced-[0-9a-f]{5} pending: Pending: couldn't assign flavors to pod set workers: insufficient unused quota for cpu in flavor default-flavor, 7 more needed
~ 11 cycles: 3 admitted, 0 evicted
$ gpuq list -A -o wide --no-headers
~ default +jobset-sleep-job-[a-z0-9]{5}-[0-9a-f]{5} +jobset +sleep-job-[a-z0-9]{5} +user-queue +cluster-queue +ADMITTED +{AGE} +{AGE} +0 +2 +0 +workers:1,driver:1 +admitted: released to run
~ default +pytorchjob-pytorch-simple-[0-9a-f]{5} +pytorchjob +pytorch-simple +user-queue +cluster-queue +ADMITTED +{AGE} +{AGE} +0 +2 +0 +master:1,worker:1 +admitted: released to run
~ default +mpijob-pi-[0-9a-f]{5} +mpijob +pi +user-queue +cluster-queue +ADMITTED +{AGE} +{AGE} +0 +3 +0 +launcher:1,worker:2 +admitted: released to run
~ default +rayjob-rayjob-sample-[0-9a-f]{5} +rayjob +rayjob-sample +user-queue +cluster-queue +PENDING +0 +{AGE} +0 +3 +0 +head:1,small-group:1,submitter:1 +0 +waiting for quota: couldn't assign flavors to pod set small-group: insufficient unused quota for cpu in flavor default-flavor, 1 more needed; couldn't assign flavors to pod set submitter: insufficient unused quota for cpu in flavor default-flavor, 1500m more needed
~ default +raycluster-raycluster-complete-[0-9a-f]{5} +raycluster +raycluster-complete +user-queue +cluster-queue +PENDING +1 +{AGE} +0 +2 +0 +head:1,small-group:1 +1 +waiting for quota: couldn't assign flavors to pod set small-group: insufficient unused quota for cpu in flavor default-flavor, 1 more needed \(1 ahead in ClusterQueue cluster-queue\)
~ default +tfjob-tensorflow-dist-mnist-[0-9a-f]{5} +tfjob +tensorflow-dist-mnist +user-queue +cluster-queue +PENDING +2 +{AGE} +0 +3 +0 +ps:1,worker:2 +2 +waiting for quota: couldn't assign flavors to pod set worker: insufficient unused quota for cpu in flavor default-flavor, 2 more needed \(2 ahead in ClusterQueue cluster-queue\)
~ default +paddlejob-paddle-simple-cpu-[0-9a-f]{5} +paddlejob +paddle-simple-cpu +user-queue +cluster-queue +PENDING +3 +{AGE} +0 +2 +0 +worker:2 +3 +waiting for quota: couldn't assign flavors to pod set worker: insufficient unused quota for cpu in flavor default-flavor, 1 more needed \(3 ahead in ClusterQueue cluster-queue\)
~ default +xgboostjob-xgboost-dist-iris-test-train-[0-9a-f]{5} +xgboostjob +xgboost-dist-iris-test-train +user-queue +cluster-queue +PENDING +4 +{AGE} +0 +3 +0 +master:1,worker:2 +4 +waiting for quota: couldn't assign flavors to pod set worker: insufficient unused quota for cpu in flavor default-flavor, 500m more needed \(4 ahead in ClusterQueue cluster-queue\)
~ default +jaxjob-jax-simple-[0-9a-f]{5} +jaxjob +jax-simple +user-queue +cluster-queue +PENDING +5 +{AGE} +0 +2 +0 +worker:2 +5 +waiting for quota: couldn't assign flavors to pod set worker: insufficient unused quota for cpu in flavor default-flavor, 1 more needed \(5 ahead in ClusterQueue cluster-queue\)
~ default +jobset-jobset-tas-sliced-[0-9a-f]{5} +jobset +jobset-tas-sliced +user-queue +cluster-queue +PENDING +6 +{AGE} +0 +8 +0 +workers:8 +6 +waiting for quota: couldn't assign flavors to pod set workers: insufficient unused quota for cpu in flavor default-flavor, 7 more needed \(6 ahead in ClusterQueue cluster-queue\)
