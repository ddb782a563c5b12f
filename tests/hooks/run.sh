#!/bin/sh
# Test-only switches never reach a release build (issue 13, F12): every
# library file that reads a GQ_* variable from the environment for tests is
# compiled here as a Release build compiles it (no GQ_TEST_HOOKS) and must not
# contain the variable's name; compiled with GQ_TEST_HOOKS it must (so the
# check can see one). Usage: run.sh CC SOURCE_DIR BUILD_DIR "INCLUDE FLAGS"
set -eu
cc=$1 src=$2 build=$3 incs=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
check() {
    if [ "$1" = ok ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: $2"; fi
}
for name in GQ_SERVICEACCOUNT_DIR GQ_CRASH_AT GQ_KUBE_WATCH_IDLE_MS; do
    files=$(grep -l "\"$name\"" "$src"/lib/*/*.c "$src"/daemon/*.c "$src"/cli/*.c || true)
    [ -n "$files" ] || { check bad "$name: no file reads it any more (update this test)"; continue; }
    for f in $files; do
        o="$tmp/$(basename "$f" .c)"
        # shellcheck disable=SC2086
        "$cc" -c -w -I"$src/lib/include" -I"$build/lib" $incs "$f" -o "$o.rel.o"
        # shellcheck disable=SC2086
        "$cc" -c -w -DGQ_TEST_HOOKS -I"$src/lib/include" -I"$build/lib" $incs "$f" -o "$o.test.o"
        if grep -q "$name" "$o.rel.o"; then check bad "$name is read by a release build of $f"; else check ok; fi
        if grep -q "$name" "$o.test.o"; then check ok; else check bad "$name: not found in a test build of $f"; fi
    done
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
