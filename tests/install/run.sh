#!/bin/sh
# The install rules, used as a tool author would use them: install the build
# tree into a scratch prefix, check the shared library's SONAME and exported
# symbols, build examples/submit_and_list.c against the installed copy (CMake
# find_package, pkg-config, pkg-config --static) and run it. Then move the
# prefix elsewhere, as one copies or renames an install tree, and check that
# the programs still run without LD_LIBRARY_PATH and that pkg-config (without
# --define-prefix) and find_package still work from the new place.
# Usage: run.sh BUILD_DIR SOURCE_DIR "EXTRA_C_FLAGS"
set -eu
build=$1 src=$2 cflags=${3:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$src/tests/install/lib.sh"

# check_bin PREFIX: the programs run from PREFIX/bin with no LD_LIBRARY_PATH.
# They link libgpuqueue statically (cmake/GpuqStaticDeps.cmake); one that came
# to link the shared library would need an $ORIGIN RUNPATH.
check_bin() {
    for p in gpuq gpuqd; do
        if readelf -d "$1/bin/$p" | grep -q 'NEEDED.*\[libgpuqueue'; then
            # shellcheck disable=SC2016
            readelf -d "$1/bin/$p" | grep -q 'R.*PATH.*\$ORIGIN/' ||
                fail "bin/$p needs libgpuqueue.so and has no \$ORIGIN RUNPATH"
        fi
    done
    check_programs "$1/bin"
}

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
rel=${libdir#"$tmp/prefix/"}
[ -f "$libdir/pkgconfig/gpuqueue.pc" ] || fail "gpuqueue.pc not installed"
[ -f "$libdir/cmake/gpuqueue/gpuqueueConfig.cmake" ] || fail "CMake package not installed"

check_bin "$tmp/prefix"
check_cmake "$tmp/prefix" "$libdir" installed
check_pkgconfig "$libdir/pkgconfig" "$tmp/prefix" "$libdir" installed
# The archive, with the dependencies' flags from Libs.private: a program that
# needs no libgpuqueue.so at run time.
pc_flags "$libdir/pkgconfig" "$tmp/prefix" --static
# shellcheck disable=SC2046,SC2086
cc $cflags -o "$tmp/static" "$src/examples/submit_and_list.c" $(echo "$flags" | sed 's/-lgpuqueue /-l:libgpuqueue.a /') ||
    fail "pkg-config --static consumer did not build: $flags"
! readelf -d "$tmp/static" | grep -q 'NEEDED.*libgpuqueue' || fail "the --static consumer needs libgpuqueue.so"
run_consumer "$tmp/static" "" "pkg-config --static"

mv "$tmp/prefix" "$tmp/moved"
check_bin "$tmp/moved"
check_pkgconfig "$tmp/moved/$rel/pkgconfig" "$tmp/moved" "$tmp/moved/$rel" moved
check_cmake "$tmp/moved" "$tmp/moved/$rel" moved
echo "1 passed, 0 failed"
