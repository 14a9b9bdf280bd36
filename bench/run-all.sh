#!/usr/bin/env bash
# `make bench`: every area's benchmark with the command docs/performance.md
# quotes, one JSON document per area into bench-results/AREA.json. Slow
# (minutes); run on a quiet machine, never from ctest.
set -euo pipefail
build=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
out=${BENCH_OUT:-bench-results}
mkdir -p "$out"
run() {  # run AREA COMMAND...
  echo "bench: $1" >&2
  "${@:2}" >"$out/$1.json"
}
run store bash "$root/bench/store/run.sh" "$build"
run capture bash "$root/bench/capture/run.sh" "$build" --checkpoints 300
run record python3 "$root/bench/record/run.py" "$build" --runs 5
run dump bash "$root/bench/dump/run.sh" "$build" 1024 5
run restore bash "$root/bench/restore/run.sh" "$build"
run realprogs python3 "$root/bench/realprogs/run.py" "$build" --runs 3
run threads python3 "$root/bench/threads/run.py" "$build" --runs 3
run syscallbuf python3 "$root/bench/syscallbuf/run.py" "$build" --runs 3
run fixedcost python3 "$root/bench/fixedcost/run.py" "$build" --runs 21
run timeline bash "$root/bench/timeline/run.sh" "$build" 300 5
run travel_gdb python3 "$root/bench/travel/reverse.py" "$build" --history-s 1 --runs 3 --stepi 40
run last_write python3 "$root/bench/travel/last_write.py" "$build" --history-ms 10000 --runs 3
run replay_speed python3 "$root/bench/travel/replay_speed.py" "$build" --runs 3
run bisect python3 "$root/bench/bisect/run.py" "$build"
[ -f "$root/vscode-extension/out/debugAdapter.js" ] && run vscode node "$root/bench/vscode/run.js" "$build" --moves 30
run ui bash "$root/bench/ui/run.sh" "$build"
echo "bench: results in $out/" >&2
