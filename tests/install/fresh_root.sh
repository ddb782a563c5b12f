#!/bin/sh
# Issue 16's acceptance check 6 as written, by hand: from a fresh Debian 12 root
# (debootstrap, minbase), `apt install ./gpuq_*.deb`, then gpuq version, man gpuq
# and man gpuqd, pkg-config --cflags --libs gpuqueue, and
# examples/submit_and_list.c and tests/header_cxx.cpp built and run in the root;
# apt remove takes gpuq away. Not in ctest: debootstrap and apt need a Debian
# mirror, so the network (ctest install_deb checks the package offline).
# Usage, as root: fresh_root.sh PATH/gpuq_VERSION_ARCH.deb SOURCE_DIR [MIRROR]
set -eu
deb=$1 src=$2 mirror=${3:-http://deb.debian.org/debian}
[ "$(id -u)" -eq 0 ] || { echo "fresh_root.sh: debootstrap and chroot need root"; exit 2; }
command -v debootstrap >/dev/null || { echo "fresh_root.sh: no debootstrap (apt-get install debootstrap)"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
root=$tmp/root

debootstrap --variant=minbase bookworm "$root" "$mirror" >"$tmp/debootstrap.log" 2>&1 ||
    { tail -5 "$tmp/debootstrap.log"; echo "FAIL: debootstrap"; exit 1; }
cp /etc/resolv.conf "$root/etc/resolv.conf"
cp "$deb" "$src/examples/submit_and_list.c" "$src/tests/header_cxx.cpp" "$root/tmp/"
# shellcheck disable=SC2016
chroot "$root" /bin/sh -eux -c '
    export DEBIAN_FRONTEND=noninteractive
    cd /tmp
    apt-get update -q >/dev/null
    apt-get install -y -q ./'"$(basename "$deb")"' >/dev/null
    gpuq version | grep "^gpuq version "
    gpuqd --version
    apt-get install -y -q --no-install-recommends man-db pkg-config gcc g++ libc6-dev >/dev/null
    MANPAGER=cat MANWIDTH=80 man --warnings gpuq 2>man.err | grep -q gpuq
    [ ! -s man.err ]
    MANPAGER=cat MANWIDTH=80 man --warnings 8 gpuqd 2>man.err | grep -q gpuqd
    [ ! -s man.err ]
    pkg-config --cflags --libs gpuqueue
    cc -o submit_and_list submit_and_list.c $(pkg-config --cflags --libs gpuqueue)
    ./submit_and_list /tmp/x.db | grep " research pending gpus=4 "
    c++ -std=c++17 -Wall -Wextra -Werror -o header_cxx header_cxx.cpp $(pkg-config --cflags --libs gpuqueue)
    ./header_cxx
    apt-get remove -y -q gpuq >/dev/null
    [ ! -e /usr/bin/gpuq ] && [ ! -e /usr/include/gpuqueue.h ]
' || { echo "FAIL: in the fresh root (the last + line is the command that failed)"; exit 1; }
echo "fresh Debian 12 root: passed"
