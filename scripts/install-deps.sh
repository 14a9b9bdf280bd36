#!/usr/bin/env bash
# Installs the Debian packages slsdbg builds and tests with, only those missing.
# Safe to run repeatedly; needs root (or sudo) when something is missing.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build pkg-config
  libgtest-dev libgmock-dev
  liburing-dev libsqlite3-dev sqlite3
  libxxhash-dev libzstd-dev
  libseccomp-dev
  libcapstone-dev libunwind-dev libelf-dev libdw-dev
  zlib1g-dev liblzma-dev libbz2-dev  # the static archives libdw.a needs (cmake/StaticDeps.cmake)
  nlohmann-json3-dev
  libcli11-dev  # cli/: option parsing, help and usage errors of every command
  gdb lldb binutils python3 util-linux procps  # procps: pgrep in e2e tests
  python3-venv  # scripts/lldb-reverse-venv.sh: a current LLDB (reverse execution) from PyPI
  zstd xz-utils  # real threaded programs recorded by e2e tests
  libc6-dbg  # dump: libc symbols for `slsdbg backtrace` (and gdb) on stripped libc
  qt6-base-dev libgl-dev  # ui: slsdbg-ui (Qt 6 Widgets; QTest tests run offscreen)
  ccache  # rebuilds of many worktrees share one compiler cache (used when present)
)

# The VS Code extension's tests need node and npm (any recent node will do;
# a machine that already has node keeps its own).
command -v node >/dev/null || PACKAGES+=(nodejs npm)

# `install-deps.sh fuzz`: also the clang toolchain for bench/fuzz_gdbproto.sh
# (libFuzzer + sanitizer runtimes). Not needed to build or test, so CI skips it.
if [ "${1:-}" = "fuzz" ]; then
  PACKAGES+=(clang libclang-rt-14-dev)
fi

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ "${#missing[@]}" -eq 0 ]; then
  exit 0
fi

echo "install-deps: installing ${missing[*]}" >&2
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
