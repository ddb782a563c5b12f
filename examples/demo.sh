#!/bin/sh
# The main job on the embedded default (no cluster): install what is missing,
# build, then on a fresh local database play the DWS story of examples/story
# on the simulated cluster: queues (reservation first, then DWS; DWS only),
# node pools (A100 and T4 with room, H100 never), T4, A100 and H100 jobs from
# three teams; `gpuq run` admits them, answers their ProvisioningRequests,
# releases them when capacity arrives, runs them for their duration, and ends
# with where each job's time went.
# Usage: sh examples/demo.sh [DATABASE]   (default: a new temporary file)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
sh cmake/install-deps.sh
cmake -S . -B build-release -G Ninja -DCMAKE_BUILD_TYPE=Release -DGQ_BUILD_TESTS=OFF >/dev/null
cmake --build build-release >/dev/null
gpuq="$top/build-release/cli/gpuq"

if [ $# -gt 0 ]; then db=$1; else db=$(mktemp -d)/gpuq.db; fi
export GPUQ_DB="$db"
echo "== database: $GPUQ_DB"
set -x
"$gpuq" apply -f examples/story/queues.yaml -f examples/story/pools.yaml
"$gpuq" submit -f examples/story/jobs.yaml
"$gpuq" list -A
# Afterwards, for instance: gpuq list -A --status all -o wide;
# gpuq describe workload h100-eval -n team-c; gpuq get provreqs -A
"$gpuq" run --seed 7 --summary
