#!/usr/bin/env bash
# Checkpoint stop time for a 1 GiB heap dirtying 4 MiB per 10 ms; JSON out.
# usage: bench/capture/run.sh [BUILD_DIR] [extra capture_bench options]
set -euo pipefail
build=${1:-build}
shift || true
exec "$build/bench/capture/capture_bench" "$build/bench/capture/capture_bench_heap" "$@"
