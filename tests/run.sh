#!/bin/sh
# The whole test suite, as CI runs it: installs what is missing, builds in
# build/ with warnings as errors and AddressSanitizer + UndefinedBehaviorSanitizer,
# and runs every test with ctest. A second run reuses the build.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
sh cmake/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Debug -DGQ_WERROR=ON \
      -DGQ_SANITIZE=address,undefined >/dev/null
cmake --build build
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1
ctest --test-dir build --output-on-failure -j2 "$@"
