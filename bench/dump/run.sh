#!/usr/bin/env bash
# bench/dump: time and size of an ELF core of a 1 GiB process, side by side:
#   slsdbg_dump_store  `slsdbg dump REC --last` reading a recording made with
#                      `slsdbg record`
#   slsdbg_core_writer_live  the same writer reading the live stopped process
#   gdb_gcore          GDB's gcore of the live stopped process
# Prints one JSON object. Not run by ctest.
#
#   bash bench/dump/run.sh [BUILD_DIR] [MIB] [RUNS]
set -euo pipefail
BUILD=${1:-build}
MIB=${2:-1024}
RUNS=${3:-5}
BUILD=$(cd "$BUILD" && pwd)
SLSDBG="$BUILD/cli/slsdbg"
FIXTURE="$BUILD/tests/programs/dump_bigheap"
T=$(mktemp -d "${TMPDIR:-/tmp}/slsdbg-bench-dump.XXXXXX")
trap 'rm -rf "$T"' EXIT

# A recording whose last checkpoint holds the whole heap.
source="slsdbg record"
"$SLSDBG" record -o "$T/rec" -- "$FIXTURE" "$MIB" sleep 300 >/dev/null 2>&1
sync

times=()
for _ in $(seq "$RUNS"); do
  rm -f "$T/core"; sync
  s=$(date +%s%N)
  "$SLSDBG" dump "$T/rec" --last -o "$T/core" --quiet
  e=$(date +%s%N)
  ns=$(( e - s ))
  times+=("$(printf '%d.%09d' $(( ns / 1000000000 )) $(( ns % 1000000000 )))")
done
size=$(stat -c %s "$T/core")
alloc=$(( $(stat -c %b "$T/core") * $(stat -c %B "$T/core") ))
rm -f "$T/core"; sync
median=$(printf '%s\n' "${times[@]}" | sort -g | sed -n "$(( (RUNS + 1) / 2 ))p")
store_json=$(printf '{"recording_made_with": "%s", "runs": %d, "median_s": %.4f, "seconds": [%s], "file_bytes": %d, "allocated_bytes": %d}' \
  "$source" "$RUNS" "$median" "$(IFS=,; echo "${times[*]}")" "$size" "$alloc")

live_json=$("$BUILD/bench/dump/dump_bench" "$FIXTURE" --mib "$MIB" --runs "$RUNS" --gcore-runs 3 --dir "$T")
python3 - "$store_json" "$live_json" <<'PY'
import json, sys
store = json.loads(sys.argv[1])
live = json.loads(sys.argv[2])
out = {"bench": "dump", "image_mib": live["image_mib"], "mappings": live["mappings"],
       "slsdbg_dump_store": store,
       "slsdbg_core_writer_live": live["slsdbg_core_writer_live"],
       "gdb_gcore": live["gdb_gcore"]}
print(json.dumps(out, indent=2))
PY
