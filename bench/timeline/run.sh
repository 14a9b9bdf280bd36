#!/usr/bin/env bash
# Timeline navigation latencies: records tests/programs/timeline_counter
# (ITERATIONS iterations of a 1 ms sleep, 2 ms checkpoints) and prints one
# JSON object (bench/timeline/timeline_bench.cc).
# usage: bench/timeline/run.sh [BUILD_DIR] [ITERATIONS] [RUNS]
set -eu
build=$(cd "${1:-build}" && pwd)
iterations=${2:-300}
runs=${3:-5}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/timeline_bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
"$build/cli/slsdbg" record -o "$tmp/rec" --interval 2 -- "$build/tests/programs/timeline_counter" "$iterations" 0 \
  >"$tmp/native.out" 2>/dev/null
start=$(sed -n 's/^addr .* tl_start=\(0x[0-9a-f]*\)$/\1/p' "$tmp/native.out")
"$build/bench/timeline/timeline_bench" "$tmp/rec" "$start" "$runs"
