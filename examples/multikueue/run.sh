#!/bin/sh
# MultiKueue with DWS on three simulated clusters: GKE's multikueue-dws example
# (tests/data/compat/gke-dws/multikueue-dws, as GKE publishes it) with no
# Kubernetes at all. The manager's database gets dws-multi.yaml (a ClusterQueue
# whose admission check is MultiKueue's, naming three worker clusters); each
# worker is a simulated cluster of its own beside it (gpuq --cluster NAME: the
# database PATH.clusters/NAME.db) with dws-multi-worker.yaml (a ClusterQueue
# with the DWS check) and its node pools (pools-REGION.yaml: no capacity in
# asia, T4s in about 5 minutes in us, in about 10 in eu).
#
# gpuq run on the manager steps every worker on its virtual clock: each job is
# copied to the three workers when it reserves quota on the manager; each
# worker creates its ProvisioningRequest; the first to admit its copy wins, the
# other copies are deleted at once, and the manager's job runs as the
# winner's copy runs. Then gpuq list shows each job's CLUSTER, and
# gpuq --cluster NAME list each worker's side.
#
# Usage: sh examples/multikueue/run.sh
# gpuq is $GPUQ, else the one on PATH, else build-release/ or build/. The
# databases are new ones in a temporary directory ($TMPDIR), kept for a look.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
. examples/walkthrough.sh

ex=tests/data/compat/gke-dws/multikueue-dws
gpuq apply -f $ex/dws-multi.yaml
for region in asia us eu; do
    gpuq --cluster multikueue-dws-worker-$region apply -f $ex/dws-multi-worker.yaml \
        -f examples/multikueue/pools-$region.yaml
done
gpuq create -f $ex/job-multi-dws-autopilot.yaml -f $ex/job-multi-dws-autopilot.yaml
gpuq run --seed 1 --summary
gpuq list -o wide --status all
gpuq list multikueueclusters
gpuq --cluster multikueue-dws-worker-us list --status all
