#!/bin/sh
# The main job on the embedded default (no cluster): install what is missing,
# build, then on a fresh local database apply the example queues, submit a
# few jobs (from manifests and from flags), run the admission engine until
# nothing changes, and show where each job stands.
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
"$gpuq" apply -f examples/manifests/queues.yaml
"$gpuq" submit -f examples/manifests/jobs.yaml
"$gpuq" submit --queue gpu-queue -n team-a --name eval-7b --gpus 1 --cpu 4 --memory 16Gi \
    -- python eval.py --checkpoint latest
"$gpuq" submit --queue gpu-queue -n team-b --gpus 2 --count 2
"$gpuq" list -A
"$gpuq" schedule --until-stable
"$gpuq" list -A -o wide
"$gpuq" list clusterqueues
"$gpuq" list localqueues -A
"$gpuq" describe workload eval-7b -n team-a
