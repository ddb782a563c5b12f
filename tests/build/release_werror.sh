#!/bin/sh
# The release build, warnings as errors (ctest release_werror). The test suite's
# own build is -O0 with sanitizers, and gcc's -O3 finds format truncations and
# values it thinks may be unset that -O0 does not: the image recipe and the
# benchmarks build this way, so it must stay clean. A second run only relinks.
# Usage: release_werror.sh SOURCE_DIR BUILD_DIR
set -eu
src=$1 dir=$2
cmake -S "$src" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGQ_WERROR=ON \
      -DGQ_BUILD_TESTS=OFF >/dev/null
if ! out=$(cmake --build "$dir" 2>&1); then
    echo "$out" | grep -E "error|warning" | head -20
    echo "FAIL: the release build (-O3 -Werror) does not build"
    exit 1
fi
echo "ok: the release build has no warnings"
