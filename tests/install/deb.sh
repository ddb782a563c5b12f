#!/bin/sh
# The Debian package (cmake/GpuqPackage.cmake): cpack builds
# gpuq_VERSION_ARCH.deb from the build tree. Its control data is checked (the
# name, Depends computed by dpkg-shlibdeps, the shlibs file), then it is
# unpacked into a scratch root with dpkg -x and used from there as installed:
# gpuq and gpuqd run, each man page renders with `man --warnings -l` and no
# warning (gpuq(1), gpuqd(8) and libgpuqueue(3) must be there), each bash
# completion parses (gpuq's must be there), and examples/submit_and_list.c
# and tests/header_cxx.cpp build against it through pkg-config (PKG_CONFIG_PATH
# into the root, no --define-prefix) and find_package, and run.
# dpkg -x and not dpkg --root -i: the package's maintainer scripts only run
# ldconfig, which would run in a chroot (the scratch root has no shell) or,
# with --force-script-chrootless, on this host. `apt install ./gpuq_*.deb` is
# checked by hand (README.md).
# Usage: deb.sh BUILD_DIR SOURCE_DIR "EXTRA_C_FLAGS" VERSION CPACK
# Exits 77 (ctest's skip) when a host tool it needs is missing.
set -eu
build=$1 src=$2 cflags=${3:-} version=$4 cpack=$5
for t in dpkg dpkg-deb dpkg-shlibdeps file readelf pkg-config cc; do
    if ! command -v $t >/dev/null 2>&1; then
        echo "SKIP: no $t on this host (cmake/install-deps.sh installs it)"
        exit 77
    fi
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$src/tests/install/lib.sh"

"$cpack" -G DEB --config "$build/CPackConfig.cmake" -B "$tmp/pkg" >"$tmp/cpack.log" 2>&1 ||
    fail "cpack: $(tail -5 "$tmp/cpack.log")"
deb=$tmp/pkg/gpuq_${version}_$(dpkg --print-architecture).deb
[ -f "$deb" ] || fail "no $(basename "$deb"); cpack made: $(ls "$tmp/pkg")"

[ "$(dpkg-deb -f "$deb" Package)" = gpuq ] || fail "Package: $(dpkg-deb -f "$deb" Package)"
depends=$(dpkg-deb -f "$deb" Depends)
# libcurl4 too, which the library loads with dlopen: no ELF file names it.
for d in libc6 libcurl4 libmicrohttpd12 libsqlite3-0 libjson-c5 libyaml-0-2 libuuid1; do
    echo "$depends" | tr ',' '\n' | sed 's/^ *//; s/ .*//' | grep -qx "$d" ||
        fail "Depends has no $d: $depends"
done
shlibs=$(dpkg-deb -I "$deb" shlibs)
[ "$shlibs" = "libgpuqueue 0 gpuq (>= $version)" ] || fail "shlibs: $shlibs"

root=$tmp/root
dpkg -x "$deb" "$root"
usr=$root/usr
lib=$(find "$usr/lib" -name libgpuqueue.so.0 | head -1)
[ -n "$lib" ] || fail "no libgpuqueue.so.0 in the package"
libdir=$(dirname "$lib")
soname=$(readelf -d "$lib" | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p')
[ "$soname" = "libgpuqueue.so.0" ] || fail "SONAME is '$soname'"
# Debian policy 10.2: no RPATH to system directories. Under /usr nothing needs one.
for f in "$usr/bin/gpuq" "$usr/bin/gpuqd" "$lib"; do
    ! readelf -d "$f" | grep -q 'R.*PATH' || fail "$f has an RPATH: $(readelf -d "$f" | grep 'R.*PATH')"
done

check_programs "$usr/bin"
out=$("$usr/bin/gpuq" version)
case "$out" in "gpuq version $version "*) ;; *) fail "gpuq version printed: $out" ;; esac

pages=$(find "$usr/share/man" -type f 2>/dev/null || true)
for page in man1/gpuq.1 man8/gpuqd.8 man3/libgpuqueue.3; do
    [ -f "$usr/share/man/$page" ] || fail "the package has no /usr/share/man/$page"
done
if ! command -v man >/dev/null 2>&1; then
    echo "SKIP (man pages only): no man on this host (cmake/install-deps.sh installs man-db)"
else
    for page in $pages; do
        what="man --warnings -l ${page#"$root"}"
        out=$(MANWIDTH=80 man --warnings -l "$page" 2>"$tmp/man.err") || fail "$what: $(cat "$tmp/man.err")"
        [ -n "$out" ] || fail "$what printed nothing"
        [ ! -s "$tmp/man.err" ] || fail "$what warned: $(cat "$tmp/man.err")"
    done
fi
completions=$(find "$usr/share/bash-completion" -type f 2>/dev/null || true)
[ -f "$usr/share/bash-completion/completions/gpuq" ] || fail "the package has no bash completion"
for f in $completions; do
    bash -n "$f" || fail "${f#"$root"} does not parse"
done

pcdir=$libdir/pkgconfig
check_pkgconfig "$pcdir" "$usr" "$libdir" deb
check_cmake "$usr" "$libdir" deb
check_cxx "$pcdir" "$usr" "$libdir" deb
echo "1 passed, 0 failed"
