#!/usr/bin/env bash
# A reverse scan runs most of each segment's tail unpatched, sized by the
# recorder's CPU-time hint (#20, checkpoint_arrival_head.cc), and lands
# where a scan with the patch alone lands. goal_cpu: goal_once runs once,
# then a loop without syscalls over ~30 checkpoints of 10 ms. From the end,
# `break goal_once` + reverse-continue must stop in goal_once at the same
# moment (monitor when) with heads (some ran, by the debug log), without
# (SLSDBG_REPLAY_HEAD=0) and with heads of 0.9 of the hint, which often
# pass the checkpoint: the rescue copy then replays the tail. A head's
# second part, sized by the loop's index on the stack (head_progress.h),
# runs in most segments by default; made to pass the checkpoint
# (SLSDBG_REPLAY_HEAD_SECOND=1.3), it is found past its target and the
# head's copy replays the tail.
. "$(dirname "$0")/replay_gdb_lib.sh"
src=$FIXTURE_SRC/goal_cpu.c
call=$(line_of GOAL_CALL "$src")
rec=$WORK/head.rec
record "$rec" 10 "$PROGRAMS/goal_cpu" 300000000
[ "$checkpoints" -ge 8 ] || die "only $checkpoints checkpoints: no tail to run unpatched"
script=$WORK/head.gdb
cat >"$script" <<GDB
break goal_cpu.c:$call
continue
break goal_once
reverse-continue
python print("FN", gdb.selected_frame().name())
python print("WHEN", gdb.execute("monitor when", to_string=True).split()[2])
GDB
run_case() {  # run_case LABEL ENV...
  local label=$1; shift
  env SLSDBG_LOG=debug "$@" timeout 300 "$SLSDBG" replay "$rec" -- -nx -batch -ex 'set pagination off' \
    -x "$script" >"$WORK/$label.out" 2>&1 || { cat "$WORK/$label.out"; die "$label: slsdbg replay failed"; }
  expect "$WORK/$label.out" "^FN goal_once$" "$label: reverse-continue stops in goal_once"
  when=$(grep "^WHEN " "$WORK/$label.out" | cut -d' ' -f2)
  heads=$(grep -c "us of [0-9]* us ran unpatched" "$WORK/$label.out")
  seconds=$(grep -c "us more ran unpatched" "$WORK/$label.out")
  past=$(grep -c "not short of it" "$WORK/$label.out")
  echo "$label: $when, $heads heads, $seconds second parts, $past past their target"
}
run_case plain SLSDBG_REPLAY_HEAD=0
ref=$when
[ "$heads" -eq 0 ] || die "SLSDBG_REPLAY_HEAD=0 still ran $heads heads"
run_case head
[ "$heads" -ge 1 ] || die "no segment ran unpatched"
[ "$when" = "$ref" ] || die "with heads: $when, patch alone: $ref"
[ $((seconds * 2)) -ge "$heads" ] || die "a second part ran after only $seconds of $heads heads"
# Under load a part's rate can change: a few may pass (a cost, not an error).
[ $((past * 4)) -le "$heads" ] || die "$past of $heads second parts passed their target by default"
run_case second_past SLSDBG_REPLAY_HEAD_SECOND=1.3
[ "$past" -ge 1 ] || die "no second part of 1.3x the rest was found past its target"
[ "$when" = "$ref" ] || die "with second parts past the checkpoint: $when, patch alone: $ref"
run_case long SLSDBG_REPLAY_HEAD=0.9
[ "$when" = "$ref" ] || die "with heads of 0.9: $when, patch alone: $ref"
echo "travel_unpatched_head: OK"
