#!/usr/bin/env bash
# Hot loops in replay (docs/performance.md, ### hot loops): what a trapped
# visit costs (trap_cost.c), then `slsdbg replay --check` on a recording of
# tests/programs/rec_sigalrm with the patched breakpoint and, if OFF_S > 0,
# with the hardware breakpoint alone (SLSDBG_REPLAY_PATCH=off) for at most
# OFF_S seconds.
# Usage: bench/hot_loop/run.sh BUILD_DIR [OFF_S]
set -eu
build=$(cd "${1:?usage: run.sh BUILD_DIR [OFF_S]}" && pwd)
off_s=${2:-0}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/hot_loop_bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
cc -O2 -o "$work/trap_cost" "$here/trap_cost.c"
"$work/trap_cost"
"$build/cli/slsdbg" record -o "$work/rec" -- "$build/tests/programs/rec_sigalrm" >/dev/null
echo "recording: $(sqlite3 "$work/rec/catalog.db" 'SELECT count(*) FROM checkpoints') checkpoints," \
  "CPU since the last event (ms, per checkpoint): $(sqlite3 "$work/rec/catalog.db" \
  "SELECT group_concat(printf('%.1f', cpu_since_event_ns / 1e6), ' ') FROM checkpoints WHERE id > 0")"
for i in 1 2 3; do
  /usr/bin/time -f "patched: %e s" "$build/cli/slsdbg" replay "$work/rec" --check
done
if [ "$off_s" -gt 0 ]; then
  SLSDBG_REPLAY_PATCH=off /usr/bin/time -f "hardware breakpoint only: %e s" \
    timeout "$off_s" "$build/cli/slsdbg" replay "$work/rec" --check || echo "hardware breakpoint only: stopped after $off_s s"
fi
