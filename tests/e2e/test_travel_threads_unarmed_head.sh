#!/usr/bin/env bash
# A threaded reverse scan runs most of each segment's last stretch with
# nothing armed at the checkpoint (thread_check.cc's head, #20/#16), and
# lands where a scan with the patch alone lands. thr_goal_cpu: a worker's
# loop without syscalls over ~25 checkpoints of 10 ms calls thr_goal_once
# at round 0. From the loop's end, `break thr_goal_once` + reverse-continue
# must stop at the same moment (monitor when) without heads
# (SLSDBG_REPLAY_HEAD=0), with them (most segments ran one, second parts
# by the loop's index included), and with second parts made to pass the
# checkpoint (SLSDBG_REPLAY_HEAD_SECOND=1.3): no fork can hold every
# thread, so such a segment runs again without a head.
. "$(dirname "$0")/replay_gdb_lib.sh"
src=$FIXTURE_SRC/thr_goal_cpu.c
end=$(line_of LOOP_END "$src")
rec=$WORK/thead.rec
record "$rec" 10 "$PROGRAMS/thr_goal_cpu" 200000000 0
[ "$checkpoints" -ge 8 ] || die "only $checkpoints checkpoints: no stretch to run unarmed"
script=$WORK/thead.gdb
cat >"$script" <<GDB
tbreak thr_goal_cpu.c:$end
continue
break thr_goal_once
reverse-continue
python print("AT", gdb.selected_frame().name(), gdb.parse_and_eval("round"))
monitor when
GDB
run_case() {  # run_case LABEL ENV...
  local label=$1; shift
  env SLSDBG_LOG=debug "$@" timeout 300 "$SLSDBG" replay "$rec" -- -nx -batch -ex 'set pagination off' \
    -x "$script" >"$WORK/$label.out" 2>&1 || { cat "$WORK/$label.out"; die "$label: slsdbg replay failed"; }
  expect "$WORK/$label.out" "^AT thr_goal_once 0$" "$label: reverse-continue stops in the worker's call"
  when=$(grep "^Moment: " "$WORK/$label.out" | cut -d' ' -f2)
  [ -n "$when" ] || die "$label: monitor when named no moment"
  heads=$(grep -c "us ran unarmed" "$WORK/$label.out")
  seconds=$(grep -c "us more ran unpatched" "$WORK/$label.out")
  again=$(grep -c "the segment again without one" "$WORK/$label.out")
  echo "$label: $when, $heads heads, $seconds second parts, $again segments again"
}
run_case plain SLSDBG_REPLAY_HEAD=0
ref=$when
[ "$heads" -eq 0 ] || die "SLSDBG_REPLAY_HEAD=0 still ran $heads heads"
run_case head
[ "$when" = "$ref" ] || die "with heads: $when, patch alone: $ref"
[ $((heads * 2)) -ge "$checkpoints" ] || die "only $heads of $checkpoints segments ran a head"
[ $((seconds * 2)) -ge "$heads" ] || die "a second part ran after only $seconds of $heads heads"
# Under load a part's rate can change: a few may go too far (a cost, not an error).
[ $((again * 4)) -le "$heads" ] || die "$again of $heads segments ran again by default"
run_case second_past SLSDBG_REPLAY_HEAD_SECOND=1.3
[ "$again" -ge 1 ] || die "no head whose second part was 1.3x the rest ran its segment again"
[ "$when" = "$ref" ] || die "with second parts past the checkpoint: $when, patch alone: $ref"
echo "travel_threads_unarmed_head: OK"
