# Issue 15, acceptance 1: the upstream projects' own samples (JobSet, KubeRay,
# the Kubeflow training operator, MPI operator and trainer) apply as jobs, with
# pod sets, counts and GPUs as Kueue counts them (a TrainJob's from the
# ClusterTrainingRuntime it names: before it is applied, the TrainJob is
# skipped saying so); kinds that cannot be held until admission (no suspend
# switch) are named with the reason, not applied.
$ gpuq apply -f $COMPAT/integrations/jobset/paralleljobs.yaml -f $COMPAT/integrations/jobset/mnist.yaml -f $COMPAT/integrations/jobset/v6e-jax-workload.yaml -f $COMPAT/integrations/jobset/success-policy.yaml
> jobset.jobset.x-k8s.io/paralleljobs created (pending: the job has no kueue.x-k8s.io/queue-name label)
> jobset.jobset.x-k8s.io/pytorch created (pending: the job has no kueue.x-k8s.io/queue-name label)
> jobset.jobset.x-k8s.io/v6e-multislice created (pending: LocalQueue multislice-queue doesn't exist)
> jobset.jobset.x-k8s.io/success-policy created (pending: the job has no kueue.x-k8s.io/queue-name label)
$ gpuq apply -f $COMPAT/integrations/kuberay/ray-job.sample.yaml -f $COMPAT/integrations/kuberay/ray-job.kueue-toy-sample.yaml -f $COMPAT/integrations/kuberay/ray-cluster.sample.yaml -f $COMPAT/integrations/kuberay/ray-cluster.tpu-v6e-16-multihost.yaml
> rayjob.ray.io/rayjob-sample created (pending: the job has no kueue.x-k8s.io/queue-name label)
~ rayjob.ray.io/rayjob-sample-[a-z0-9]{5} created \(pending: the job has no kueue.x-k8s.io/queue-name label\)
> raycluster.ray.io/raycluster-kuberay created (pending: the job has no kueue.x-k8s.io/queue-name label)
> raycluster.ray.io/raycluster-tpu-v6e-multihost created (pending: the job has no kueue.x-k8s.io/queue-name label)
! skipped: kind ConfigMap (v1) is not modelled by gpuq
$ gpuq apply -f $COMPAT/integrations/kubeflow-training/simple.yaml -f $COMPAT/integrations/kubeflow-training/echo.yaml -f $COMPAT/integrations/kubeflow-training/pytorch_job_mnist_gloo.yaml -f $COMPAT/integrations/kubeflow-training/pi.yaml -f $COMPAT/integrations/kubeflow-training/tensorflow-benchmarks.yaml
> pytorchjob.kubeflow.org/pytorch-simple created (pending: the job has no kueue.x-k8s.io/queue-name label)
> pytorchjob.kubeflow.org/elastic-example-echo created (pending: the job has no kueue.x-k8s.io/queue-name label)
> pytorchjob.kubeflow.org/pytorch-dist-mnist-gloo created (pending: the job has no kueue.x-k8s.io/queue-name label)
> mpijob.kubeflow.org/pi created (pending: the job has no kueue.x-k8s.io/queue-name label)
> mpijob.kubeflow.org/tensorflow-benchmarks created (pending: the job has no kueue.x-k8s.io/queue-name label)
$ gpuq apply -f $COMPAT/integrations/kubeflow-training/01-multi-node.yaml
! skipped: kind TrainJob (trainer.kubeflow.org/v1alpha1) is not queued by gpuq: its ClusterTrainingRuntime "torch-distributed" is not known; apply the runtime first
$ gpuq apply -f $COMPAT/integrations/kubeflow-training/torch_distributed.yaml
> clustertrainingruntime.trainer.kubeflow.org/torch-distributed created
$ gpuq apply -f $COMPAT/integrations/kubeflow-training/01-multi-node.yaml -f $COMPAT/integrations/kubeflow-training/03-kueue-integration.yaml
> trainjob.trainer.kubeflow.org/multi-node-example created (pending: the job has no kueue.x-k8s.io/queue-name label)
> trainjob.trainer.kubeflow.org/kueue-example created (pending: LocalQueue training-queue doesn't exist)
$ gpuq apply -f $COMPAT/integrations/dask/simplecluster.yaml -f $COMPAT/integrations/dask/simplejob.yaml -f $COMPAT/integrations/kueue-examples/pods-kueue/kueue-pod.yaml
! skipped: kind DaskCluster (kubernetes.dask.org/v1) is not queued by gpuq: it has no suspend switch (the Dask operator's CRDs have none), so nothing can hold it until admission; Kueue does not integrate it either
! skipped: kind DaskJob (kubernetes.dask.org/v1) is not queued by gpuq: it has no suspend switch (the Dask operator's CRDs have none), so nothing can hold it until admission; Kueue does not integrate it either
! skipped: kind Pod (v1) is not queued by gpuq: a Pod has no suspend switch: Kueue holds pods with a scheduling gate set by its admission webhook, which gpuq does not do yet
$ gpuq list -A -o wide --no-headers
~ default +jobset-paralleljobs-[0-9a-f]{5} +jobset +paralleljobs +PENDING +0 +{AGE} +0 +5 +0 +workers:4,driver:1 +waiting for quota: the job has no kueue.x-k8s.io/queue-name label
~ default +jobset-pytorch-[0-9a-f]{5} +jobset +pytorch +PENDING +1 +{AGE} +0 +4 +0 +workers:4 +waiting for quota: the job has no kueue.x-k8s.io/queue-name label
~ default +jobset-v6e-multislice-[0-9a-f]{5} +jobset +v6e-multislice +multislice-queue +PENDING +0 +{AGE} +0 +8 +0 +slice:8 +waiting for quota: LocalQueue multislice-queue doesn't exist
~ default +jobset-success-policy-[0-9a-f]{5} +jobset +success-policy +PENDING +2 +{AGE} +0 +3 +0 +leader:1,workers:2 +waiting for quota: the job has no kueue.x-k8s.io/queue-name label
~ default +rayjob-rayjob-sample-[0-9a-f]{5} +rayjob +rayjob-sample +PENDING +3 +{AGE} +0 +3 +0 +head:1,small-group:1,submitter:1 +waiting for quota: the job has no kueue.x-k8s.io/queue-name label
~ default +rayjob-rayjob-sample-[a-z0-9]{5}-[0-9a-f]{5} +rayjob +rayjob-sample-[a-z0-9]{5} +PENDING +4 +{AGE} +0 +3 +0 +head:1,small-group:1,submitter:1 +waiting for quota: the job has no kueue.x-k8s.io/queue-name label
~ default +raycluster-raycluster-kuberay-[0-9a-f]{5} +raycluster +raycluster-kuberay +PENDING +5 +{AGE} +0 +2 +0 +head:1,workergroup:1 +waiting for quota: the job has no kueue.x-k8s.io/queue-name label
~ default +raycluster-raycluster-tpu-v6e-multihost-[0-9a-f]{5} +raycluster +raycluster-tpu-v6e-multihost +PENDING +6 +{AGE} +0 +5 +0 +head:1,tpu-group:4 +waiting for quota: the job has no kueue.x-k8s.io/queue-name label
~ default +pytorchjob-elastic-example-echo-[0-9a-f]{5} +pytorchjob +elastic-example-echo +PENDING +7 +{AGE} +0 +2 +0 +worker:2 +waiting for quota: the job has no kueue.x-k8s.io/queue-name label
~ default +pytorchjob-pytorch-dist-mnist-gloo-[0-9a-f]{5} +pytorchjob +pytorch-dist-mnist-gloo +PENDING +8 +{AGE} +0 +2 +2 +master:1,worker:1 +waiting for quota: the job has no kueue.x-k8s.io/queue-name label
~ default +mpijob-pi-[0-9a-f]{5} +mpijob +pi +PENDING +9 +{AGE} +0 +3 +0 +launcher:1,worker:2 +waiting for quota: the job has no kueue.x-k8s.io/queue-name label
~ default +mpijob-tensorflow-benchmarks-[0-9a-f]{5} +mpijob +tensorflow-benchmarks +PENDING +10 +{AGE} +0 +3 +2 +launcher:1,worker:2 +waiting for quota: the job has no kueue.x-k8s.io/queue-name label
~ default +trainjob-multi-node-example-[0-9a-f]{5} +trainjob +multi-node-example +PENDING +11 +{AGE} +0 +3 +0 +node:3 +waiting for quota: the job has no kueue.x-k8s.io/queue-name label
~ default +trainjob-kueue-example-[0-9a-f]{5} +trainjob +kueue-example +training-queue +PENDING +0 +{AGE} +0 +3 +0 +node:3 +waiting for quota: LocalQueue training-queue doesn't exist
~ kubeflow +pytorchjob-pytorch-simple-[0-9a-f]{5} +pytorchjob +pytorch-simple +PENDING +0 +{AGE} +0 +2 +0 +master:1,worker:1 +waiting for quota: the job has no kueue.x-k8s.io/queue-name label
