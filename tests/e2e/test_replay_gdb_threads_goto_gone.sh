#!/usr/bin/env bash
# `goto` to a place where the thread GDB had selected does not exist (a
# threaded program's exit checkpoint, checkpoint 0) selects a live thread:
# stopped in thr_goal_cpu's worker, `goto` the last checkpoint (the worker
# has exited), reverse-continue finds the worker's call again; `goto 0`
# then shows _start. GDB kept the worker selected before: "PC register is
# not available" at the next command.
. "$(dirname "$0")/replay_gdb_lib.sh"
rec=$WORK/gone.rec
record "$rec" 10 "$PROGRAMS/thr_goal_cpu" 60000000 20000000
last=$((checkpoints - 1))
out=$WORK/gone.out
replay_gdb "$rec" "$out" -ex 'break thr_goal_once' -ex 'continue' -ex "goto $last" -ex 'info threads' \
  -ex 'reverse-continue' -ex 'python print("AT", gdb.selected_frame().name(), gdb.parse_and_eval("round"))' \
  -ex 'goto 0' -ex 'python print("AT0", gdb.selected_frame().name())'
if grep -q "PC register is not available" "$out"; then cat "$out"; die "a command found no registers after goto"; fi
expect "$out" "^AT thr_goal_once 20000000$" "reverse-continue from the exit finds the worker's call"
expect "$out" "^AT0 _start$" "goto 0 shows _start"
echo "replay_gdb_threads_goto_gone: OK"
