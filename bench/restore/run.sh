#!/usr/bin/env bash
# Restore latency benchmark: prints one JSON object per pattern.
# usage: bench/restore/run.sh [BUILD_DIR] [MIB]
set -eu
build=${1:-build}
mib=${2:-1024}
export SLSDBG_BUILD_DIR=$(cd "$build" && pwd)
for pattern in dense sparse; do
  "$SLSDBG_BUILD_DIR/bench/restore/restore_bench" --mib "$mib" --pattern "$pattern" --runs 5
done
