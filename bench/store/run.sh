#!/usr/bin/env bash
# Store benchmark: ingest GB/s of 4 KiB pages (new/repeated/zero mix) and random
# page-read latency at 10 and 10,000 checkpoints. Prints JSON on stdout.
#   bench/store/run.sh [BUILD_DIR] [extra store_bench options]
set -euo pipefail
BUILD=${1:-build}
shift || true
BIN="$BUILD/bench/store/store_bench"
[ -x "$BIN" ] || { echo "run.sh: $BIN not built (make build)" >&2; exit 1; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/slsdbg-store-bench-XXXXXX")
trap 'rm -rf "$WORK"' EXIT
"$BIN" "$WORK" "$@"
