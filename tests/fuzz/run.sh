#!/bin/sh
# run.sh [seconds] [harness...]: fuzz each harness (default: all of them) for
# that many seconds (default 600), two at a time, at the lowest priority.
# Builds the libFuzzer binaries with clang first, in $GQ_FUZZ_BUILD (default
# build-fuzz at the top of the tree). Each harness works on a copy of its
# corpus under $GQ_FUZZ_WORK (default $GQ_FUZZ_BUILD/work); crash inputs land
# in $GQ_FUZZ_WORK/<harness>/artifacts/. Exits non-zero when any harness
# found something. README.md says how a crash becomes a regression case.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
seconds=${1:-600}
[ $# -gt 0 ] && shift
build=${GQ_FUZZ_BUILD:-$top/build-fuzz}
work=${GQ_FUZZ_WORK:-$build/work}
jobs=${GQ_FUZZ_JOBS:-2}

if [ $# -eq 0 ]; then
    set -- $(cd "$here" && ls fuzz_*.c | sed 's/^fuzz_//; s/\.c$//')
fi
cmake -S "$top" -B "$build" -G Ninja -DCMAKE_C_COMPILER="${CC:-clang}" -DCMAKE_BUILD_TYPE=Debug \
      -DGQ_FUZZ=ON -DGQ_BUILD_EXAMPLES=OFF -DGQ_BUILD_BENCH=OFF >/dev/null
cmake --build "$build" --target fuzzers -j "$jobs" >/dev/null
mkdir -p "$work"

# One harness: a fresh copy of its corpus, then -max_total_time; prints one summary line.
fuzz_one() {
    name=$1
    dir=$work/$name
    rm -rf "$dir"
    mkdir -p "$dir/corpus" "$dir/artifacts"
    cp "$here/corpus/$name/"* "$dir/corpus/"
    if nice -n 19 "$build/tests/fuzz/fuzz_${name}_fuzzer" -max_total_time="$seconds" \
        -timeout=25 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$dir/artifacts/" "$dir/corpus" >"$dir/log" 2>&1; then
        echo "fuzz_$name: clean, $(grep -o 'stat::number_of_executed_units: *[0-9]*' "$dir/log" |
            grep -o '[0-9]*$') runs in ${seconds} s"
    else
        echo "fuzz_$name: FAILED, see $dir/log and $dir/artifacts/"
        return 1
    fi
}

status=0
running=0
for name in "$@"; do
    [ -f "$here/fuzz_$name.c" ] || { echo "run.sh: no harness fuzz_$name.c" >&2; exit 2; }
    fuzz_one "$name" >"$work/$name.result" 2>&1 &
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then
        wait
        running=0
    fi
done
wait
for name in "$@"; do
    cat "$work/$name.result"
    grep -q FAILED "$work/$name.result" && status=1
    rm -f "$work/$name.result"
done
exit $status
