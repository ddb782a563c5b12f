#!/bin/sh
# The DWS walkthrough (GKE's Dynamic Workload Scheduler with Kueue), on the
# simulated cluster: no cloud account, no Kubernetes. GKE's recipe
# (queues.yaml: one flavor, the dws-prov admission check, "infinite" quota),
# node pools with queued provisioning shaped like the write-up's (pools.yaml:
# T4 and A100, 0..1 nodes each, and an H100 pool with no capacity at all),
# and GKE's job.yaml once per pool (jobs.yaml: sleep 120s on 1 GPU).
#
# On a fresh database, `gpuq run` plays it in virtual time, the same way every
# time (seed 1): each job gets quota at once and a ProvisioningRequest; T4 and
# A100 are provisioned in a few minutes, run their two minutes and finish;
# the H100 request stays accepted and waiting for capacity, as the write-up's
# did for three days. Then `gpuq list -o wide` shows where each one stands.
#
# Usage: sh examples/dws-walkthrough/run.sh
# gpuq is $GPUQ, else the one on PATH, else build-release/ or build/ (which
# `sh ./examples/demo.sh` and `sh ./tests/run.sh` build). The database is a
# new one in a temporary directory ($TMPDIR), kept for a look afterwards.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
. examples/walkthrough.sh

gpuq apply -f examples/dws-walkthrough/queues.yaml -f examples/dws-walkthrough/pools.yaml
gpuq submit -f examples/dws-walkthrough/jobs.yaml
gpuq run --seed 1 --summary
gpuq list -o wide
# Afterwards, with GPUQ_DB set as above: gpuq describe workload dws-h100-job;
# gpuq get provreqs -o wide
