#!/bin/sh
# short.sh BUILD_DIR: ctest fuzz_short. A few seconds of real fuzzing per
# harness (run.sh 5), in a clang build made under BUILD_DIR. Skipped (77)
# when clang or libFuzzer's runtime is missing: cmake/install-deps.sh
# installs them on Debian (clang-14, libclang-rt-14-dev).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cc=""
for c in clang clang-14; do
    if command -v "$c" >/dev/null 2>&1; then
        cc=$c
        break
    fi
done
if [ -z "$cc" ]; then
    echo "fuzz_short: skipped: no clang (cmake/install-deps.sh installs clang-14)"
    exit 77
fi
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n)\n{ (void)d; (void)n; return 0; }\n' \
    >"$probe/probe.c"
if ! "$cc" -fsanitize=fuzzer,address,undefined "$probe/probe.c" -o "$probe/probe" 2>/dev/null; then
    echo "fuzz_short: skipped: $cc has no libFuzzer runtime (libclang-rt-14-dev)"
    exit 77
fi
CC=$cc GQ_FUZZ_BUILD=$1 GQ_FUZZ_WORK=$1/work exec sh "$here/run.sh" "${GQ_FUZZ_SHORT_SECONDS:-5}"
