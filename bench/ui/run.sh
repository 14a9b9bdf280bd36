#!/usr/bin/env bash
# bench/ui: opening a 10,000-checkpoint recording (goal <= 1 s to a usable
# window) and moving between checkpoints (goal <= 50 ms to refresh every pane).
# Usage: bench/ui/run.sh [BUILD_DIR] [N]; prints one JSON line.
set -euo pipefail
B=${1:-build}
N=${2:-10000}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/slsdbg-uibench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
"$B/cli/slsdbg" record -o "$WORK/src" --interval 10 -- "$B/tests/programs/dump_chain" spin 30000000 >/dev/null 2>&1
"$B/bench/ui/ui_bench" make "$WORK/src" "$WORK/big" "$N"
QT_QPA_PLATFORM=offscreen "$B/bench/ui/ui_bench" time "$WORK/big" 2>/dev/null |
  sed "s/}\$/,\"loadavg\":\"$(cut -d' ' -f1-3 /proc/loadavg)\"}/"
