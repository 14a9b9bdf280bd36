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
  nlohmann-json3-dev
  gdb lldb binutils python3 util-linux
  clang               # bench/fuzz_gdbproto.sh: libFuzzer build of the gdbserver protocol
  libclang-rt-14-dev  # libFuzzer and sanitizer runtimes for that clang
)

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
