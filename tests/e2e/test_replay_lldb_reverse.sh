#!/usr/bin/env bash
# LLDB's reverse execution (a current LLDB from PyPI, in the virtual
# environment scripts/lldb-reverse-venv.sh makes) against `slsdbg replay
# --server`: reverse and forward continues to breakpoints with the direction
# kept, history boundaries at both ends, a reverse watchpoint finding the
# writing thread, a reverse continue across a CPU-bound loop checkpoints
# long, and `process interrupt` during a long reverse continue
# (lldb_reverse_checks.py asserts what LLDB shows).
. "$(dirname "$0")/replay_gdb_lib.sh"
venv=$(bash "$SLSDBG_SOURCE_DIR/scripts/lldb-reverse-venv.sh") || die "no LLDB with reverse execution (scripts/lldb-reverse-venv.sh)"
checks() { timeout 600 "$venv/bin/python" "$SLSDBG_SOURCE_DIR/tests/e2e/lldb_reverse_checks.py" "$SLSDBG" "$@" >"$WORK/$1.out" 2>&1 ||
  { cat "$WORK/$1.out"; die "lldb check $1"; }
  grep -E '^(ok|far|interrupt)' "$WORK/$1.out"; }

record "$WORK/steps.rec" 10 "$PROGRAMS/travel_steps"
total=$(sed -n 's/^travel_steps: //p' "$WORK/steps.rec.out")
[ -n "$total" ] || die "travel_steps printed no total"
checks steps "$WORK/steps.rec" "$PROGRAMS/travel_steps" "$total"

n=2000000
record_threads "$WORK/watch.rec" 10 "$PROGRAMS/thr_watch_counter" $n
checks watch-threads "$WORK/watch.rec" "$PROGRAMS/thr_watch_counter" $n

# About 10^9 instructions after goal_once, 10 ms checkpoints.
record "$WORK/far.rec" 10 "$PROGRAMS/goal_cpu" 50000000
[ "$checkpoints" -ge 5 ] || die "goal_cpu: expected several checkpoints, got $checkpoints"
checks far "$WORK/far.rec" "$PROGRAMS/goal_cpu"

# One segment of seconds (a 1-minute interval): tl_mark, then a long spin.
record "$WORK/long.rec" 60000 "$PROGRAMS/timeline_counter" 1 2000000000
checks interrupt "$WORK/long.rec" "$PROGRAMS/timeline_counter" 3
echo "replay_lldb_reverse: OK"
