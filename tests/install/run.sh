#!/bin/sh
# The install rules, used as a tool author would use them: install the build
# tree into a scratch prefix, check the shared library's SONAME and exported
# symbols, then build examples/submit_and_list.c against the installed copy
# twice (CMake find_package, and pkg-config) and run both.
# Usage: run.sh BUILD_DIR SOURCE_DIR "EXTRA_C_FLAGS"
set -eu
build=$1 src=$2 cflags=${3:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; echo "0 passed, 1 failed"; exit 1; }

cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
lib=$(find "$tmp/prefix" -name 'libgpuqueue.so.*.*' | head -1)
[ -n "$lib" ] || fail "libgpuqueue.so not installed"
soname=$(readelf -d "$lib" | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p')
[ "$soname" = "libgpuqueue.so.0" ] || fail "SONAME is '$soname'"
leaked=$(nm -D --defined-only "$lib" | awk '$2 ~ /[TDB]/ {print $3}' | grep -v '^gq_' | head -3)
[ -z "$leaked" ] || fail "symbols outside gq_ exported: $leaked"
for f in include/gpuqueue.h include/gpuqueue/tool.h bin/gpuq bin/gpuqd bin/kubectl-gpuq; do
    [ -e "$tmp/prefix/$f" ] || fail "$f not installed"
done
# gpuq as a kubectl plugin: kubectl finds kubectl-gpuq on PATH (issue 16).
if command -v kubectl >/dev/null 2>&1; then
    out=$(PATH="$tmp/prefix/bin:$PATH" kubectl gpuq version 2>&1) ||
        fail "kubectl gpuq version: $out"
    echo "$out" | grep -q '^gpuq version ' || fail "kubectl gpuq version printed: $out"
    out=$(PATH="$tmp/prefix/bin:$PATH" kubectl plugin list 2>&1 || true)
    echo "$out" | grep -q 'kubectl-gpuq' || fail "kubectl plugin list: $out"
fi
libdir=$(dirname "$lib")
[ -f "$libdir/pkgconfig/gpuqueue.pc" ] || fail "gpuqueue.pc not installed"
[ -f "$libdir/cmake/gpuqueue/gpuqueueConfig.cmake" ] || fail "CMake package not installed"

# 1. find_package(gpuqueue)
cmake -S "$src/examples/installed" -B "$tmp/consumer" -G Ninja -DCMAKE_PREFIX_PATH="$tmp/prefix" \
      -DCMAKE_C_FLAGS="$cflags" -DCMAKE_EXE_LINKER_FLAGS="$cflags" >/dev/null ||
    fail "find_package(gpuqueue) consumer did not configure"
cmake --build "$tmp/consumer" >/dev/null || fail "find_package(gpuqueue) consumer did not build"
out=$(LD_LIBRARY_PATH="$libdir" "$tmp/consumer/submit_and_list" "$tmp/a.db") ||
    fail "consumer (find_package) failed: $out"
echo "$out" | grep -q '^job-train-[0-9a-f]\{5\} research pending gpus=4 position=0$' ||
    fail "consumer (find_package) printed: $out"

# 2. pkg-config (--define-prefix: the prefix is where the .pc file was installed)
export PKG_CONFIG_PATH="$libdir/pkgconfig"
# shellcheck disable=SC2046,SC2086
cc $cflags -o "$tmp/pc" "$src/examples/submit_and_list.c" $(pkg-config --define-prefix --cflags --libs gpuqueue) ||
    fail "pkg-config consumer did not build"
out=$(LD_LIBRARY_PATH="$libdir" "$tmp/pc" "$tmp/b.db") || fail "consumer (pkg-config) failed: $out"
echo "$out" | grep -q 'research pending gpus=4' || fail "consumer (pkg-config) printed: $out"
echo "1 passed, 0 failed"
