# Sourced by run.sh (a scratch prefix) and deb.sh (the .deb in a scratch root):
# build examples/submit_and_list.c, and tests/header_cxx.cpp, against an
# installed libgpuqueue the ways a tool author would, and run them.
# Needs $src (the source tree), $tmp (a scratch directory) and $cflags set.
# shellcheck disable=SC2154


fail() { echo "FAIL: $*"; echo "0 passed, 1 failed"; exit 1; }

# check_programs BINDIR: gpuq, its kubectl-gpuq link and gpuqd run, with no
# LD_LIBRARY_PATH, and say their version.
check_programs() {
    for p in gpuq kubectl-gpuq gpuqd; do
        [ $p = gpuqd ] && arg=--version || arg=version
        out=$(env -u LD_LIBRARY_PATH "$1/$p" "$arg" 2>&1) || fail "$1/$p $arg: $out"
        echo "$out" | grep -q '^gpuqd\{0,1\} version [0-9]' || fail "$1/$p $arg printed: $out"
    done
}

# run_consumer PROGRAM LIBDIR WHAT: it runs on a fresh database and lists the job it submitted.
run_consumer() {
    db=$(mktemp -u "$tmp/consumer-XXXXXX.db")
    out=$(LD_LIBRARY_PATH="$2" "$1" "$db" 2>&1) || fail "consumer ($3) failed: $out"
    echo "$out" | grep -q '^job-train-[0-9a-f]\{5\} research pending gpus=4 position=0$' ||
        fail "consumer ($3) printed: $out"
}

# pc_flags PCDIR PREFIX [--static]: sets $flags to `pkg-config --cflags --libs
# gpuqueue` with nothing but PKG_CONFIG_PATH; its paths must be under PREFIX
# (the .pc is relocatable: no --define-prefix).
pc_flags() {
    # shellcheck disable=SC2086
    flags=$(PKG_CONFIG_PATH="$1" pkg-config ${3:-} --cflags --libs gpuqueue 2>&1) ||
        fail "pkg-config --cflags --libs gpuqueue: $flags"
    case "$flags" in
    *"-I$2/"*"-L$2/"*) ;;
    *) fail "pkg-config's paths are not under $2: $flags" ;;
    esac
}

# check_pkgconfig PCDIR PREFIX LIBDIR WHAT: build through pkg-config and run.
check_pkgconfig() {
    pc_flags "$1" "$2"
    # shellcheck disable=SC2086
    cc $cflags -o "$tmp/pc-$4" "$src/examples/submit_and_list.c" $flags ||
        fail "pkg-config consumer ($4) did not build"
    run_consumer "$tmp/pc-$4" "$3" "pkg-config, $4"
}

# check_cmake PREFIX LIBDIR WHAT: find_package(gpuqueue) and gpuqueue::gpuqueue.
check_cmake() {
    cmake -S "$src/examples/installed" -B "$tmp/cmake-$3" -G Ninja -DCMAKE_PREFIX_PATH="$1" \
          -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF \
          -DCMAKE_C_FLAGS="$cflags" -DCMAKE_EXE_LINKER_FLAGS="$cflags" >"$tmp/cmake-$3.log" 2>&1 ||
        fail "find_package(gpuqueue) consumer ($3) did not configure: $(tail -5 "$tmp/cmake-$3.log")"
    grep -q "gpuqueue_DIR:PATH=$1/" "$tmp/cmake-$3/CMakeCache.txt" ||
        fail "find_package(gpuqueue) ($3) found $(grep gpuqueue_DIR "$tmp/cmake-$3/CMakeCache.txt")"
    cmake --build "$tmp/cmake-$3" >/dev/null || fail "find_package(gpuqueue) consumer ($3) did not build"
    run_consumer "$tmp/cmake-$3/submit_and_list" "$2" "find_package, $3"
}

# check_cxx PCDIR PREFIX LIBDIR WHAT: a C++ program built and run against the header.
check_cxx() {
    if ! command -v c++ >/dev/null 2>&1; then
        echo "SKIP (C++ part only): no C++ compiler (cmake/install-deps.sh installs g++)"
        return 0
    fi
    pc_flags "$1" "$2"
    # shellcheck disable=SC2086
    c++ -std=c++17 -Wall -Wextra -Werror $cflags -o "$tmp/cxx-$4" "$src/tests/header_cxx.cpp" $flags ||
        fail "C++ program ($4) did not build against the installed header"
    LD_LIBRARY_PATH="$3" "$tmp/cxx-$4" || fail "C++ program ($4) failed"
}
