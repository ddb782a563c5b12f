#!/bin/sh
# Install what building and testing gpuq needs on Debian 12, only when it is
# missing: the compiler and build tools, the -dev packages of the dependencies
# (sqlite3, libcurl, json-c, libyaml, libuuid; libmicrohttpd for gpuqd's
# endpoints), and what the tests use: openssl (the fake API server's CA) and
# python3-prometheus-client (the /metrics format check); chromium, test-only
# (the headless check of `gpuq report --html`); clang-14 and its libFuzzer
# runtime (libclang-rt-14-dev), for ctest fuzz_short's clang build of
# tests/fuzz/; g++ (ctest header_cxx: the public header as C++) and tmux
# (it_tty_names: a real 80-column pane); zsh and fish (it_completion: the
# completion scripts load and complete in real shells) and man-db, groff-base
# and bsdextrautils (it_manpages: `man -l` renders every page, col makes it
# plain text); dpkg-dev and file (cpack's .deb: dpkg-shlibdeps computes its
# Depends from the ELF files `file` finds; ctest install_deb); python3-yaml
# (ctest known_fields reads the CRDs the table of known fields is generated
# from). Non-interactive;
# runs apt-get through sudo when not root. Safe to run again: installs nothing
# the second time.
set -eu

need=""
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
for pkg in gcc make cmake ninja-build pkg-config python3 \
           libsqlite3-dev libcurl4-openssl-dev libjson-c-dev libyaml-dev uuid-dev \
           libmicrohttpd-dev openssl python3-prometheus-client \
           chromium clang-14 libclang-rt-14-dev g++ tmux \
           zsh fish man-db groff-base bsdextrautils dpkg-dev file python3-yaml; do
    have_pkg "$pkg" || need="$need $pkg"
done
# The cluster tests drive the fake API server with kubectl (1.32 on the CI image). Where
# there is none, Debian's own (kubernetes-client, 1.20) is the fallback.
command -v kubectl >/dev/null 2>&1 || have_pkg kubernetes-client || need="$need kubernetes-client"
[ -n "$need" ] || exit 0

if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
echo "install-deps: installing:$need" >&2
$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null
# shellcheck disable=SC2086
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $need >/dev/null
