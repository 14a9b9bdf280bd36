#!/usr/bin/env bash
# A threaded reverse continue collects the next older segment on the other
# CPU while it collects the newer one (threaded_timeline_scan_ahead.cc),
# and lands where the search on one CPU lands. thr_goal_cpu's worker calls
# thr_goal_once once, in the middle of ~25 checkpoints of a CPU-bound loop.
# With `break thr_goal_once`, reverse-continue from the end finds segment
# b; then from checkpoints b+1 (this thread collects b), b+2 (the other
# CPU collects b) and the worker's loop end (LOOP_END, reached forward: a
# `monitor goto` to a checkpoint after the worker's exit would leave GDB
# without its selected thread's registers): each must stop there at the moment
# (monitor when) SLSDBG_REPLAY_SCAN_AHEAD=off gives, and on two CPUs the
# debug log shows the other CPU's collection finding it.
. "$(dirname "$0")/replay_gdb_lib.sh"
rec=$WORK/thr_ahead.rec
record "$rec" 10 "$PROGRAMS/thr_goal_cpu" 250000000 100000000
[ "$checkpoints" -ge 8 ] || die "only $checkpoints checkpoints: too short for segments on both CPUs"
moment() { grep "^WHEN " "$1" | cut -d' ' -f2 | tr '\n' ' '; }
replay_script() { replay_script_logged "$rec" "$@"; }  # replay_script LABEL SCRIPT ENV...
end_line=$(line_of LOOP_END "$FIXTURE_SRC/thr_goal_cpu.c")
stop_lines() {  # stop_lines START...: reverse-continue from each checkpoint START (end: LOOP_END), where it stops
  echo "break thr_goal_once"
  for k in "$@"; do
    if [ "$k" = end ]; then
      echo "thread 1"  # the worker GDB stopped in is not at checkpoint 0
      echo "monitor goto 0"
      echo "maint flush register-cache"
      echo "disable 1"
      echo "tbreak thr_goal_cpu.c:$end_line"
      echo "continue"
      echo "enable 1"
    else
      echo "monitor goto $k"
      echo "maint flush register-cache"
    fi
    echo "reverse-continue"
    echo 'python print("AT", gdb.selected_frame().name(), gdb.parse_and_eval("round"))'
    echo 'python print("WHEN", gdb.execute("monitor when", to_string=True).split("Moment: ")[1].split()[0])'
  done
}
stop_lines end >"$WORK/end.gdb"
replay_script end "$WORK/end.gdb" SLSDBG_REPLAY_SCAN_AHEAD=off
expect "$WORK/end.out" "^AT thr_goal_once 100000000$" "from the end: thr_goal_once, round 100000000"
b=$(moment "$WORK/end.out" | cut -d: -f1)
[ -n "$b" ] && [ "$b" -ge 2 ] && [ "$b" -lt $((checkpoints - 5)) ] || die "the call's segment '$b' leaves no room"
stop_lines $((b + 1)) $((b + 2)) end >"$WORK/starts.gdb"
for mode in one two; do
  if [ $mode = one ]; then replay_script $mode "$WORK/starts.gdb" SLSDBG_REPLAY_SCAN_AHEAD=off
  else replay_script $mode "$WORK/starts.gdb"; fi
  [ "$(grep -c "^AT thr_goal_once 100000000$" "$WORK/$mode.out")" -eq 3 ] \
    || { cat "$WORK/$mode.out"; die "$mode: not every reverse-continue stopped in thr_goal_once"; }
  found=$(grep -c "collected on the other CPU: [1-9][0-9]* hits" "$WORK/$mode.out")
  echo "$mode: $(moment "$WORK/$mode.out"); hits found by the other CPU: $found"
done
[ "$(moment "$WORK/two.out")" = "$(moment "$WORK/one.out")" ] || die "on two CPUs another moment than on one"
[ "$(grep -c "collected on CPU" "$WORK/one.out")" -eq 0 ] || die "SLSDBG_REPLAY_SCAN_AHEAD=off still collected on another CPU"
if [ "$(nproc)" -ge 2 ]; then
  [ "$found" -ge 1 ] || die "no hit was found by the other CPU's collection"
fi
echo "travel_threads_scan_ahead: OK"
