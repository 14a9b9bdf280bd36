#!/usr/bin/env bash
# bench/hot_loop/tramp_visit.sh: the per-visit cost of the patched
# breakpoint's trampoline and of the counter stub in a tight loop
# (tramp_visit.cc), built from the engine's sources with g++ and capstone.
# Usage: bash bench/hot_loop/tramp_visit.sh [VISITS]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The unused parts of these files (install: ptrace injection) are dropped.
g++ -std=c++20 -O2 -I"$root" -ffunction-sections -Wl,--gc-sections -Wl,--unresolved-symbols=ignore-all \
  -o "$work/tramp_visit" "$root/bench/hot_loop/tramp_visit.cc" "$root/engine/replay/patched_breakpoint.cc" \
  "$root/engine/replay/counting_patch.cc" "$root/engine/replay/trampoline_code.cc" -lcapstone
"$work/tramp_visit" "$@"
