#!/bin/sh
# gpuq's benchmarks: a Release build in build-bench/, then tests/bench/bench.py,
# which prints the median of several runs of each measurement. Not part of
# the test suite (timings are not assertions); the README quotes its output.
# Usage: sh tests/bench/run.sh [--quick]
#        [--only core|admission|jobsets|cluster|multikueue|simulate]
#        [--baseline PREVIOUS_GPUQ] (admission: a previous binary timed beside this build)
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
sh cmake/install-deps.sh
cmake -S . -B build-bench -G Ninja -DCMAKE_BUILD_TYPE=Release -DGQ_BUILD_TESTS=ON >/dev/null
cmake --build build-bench >/dev/null
exec python3 tests/bench/bench.py build-bench "$@"
