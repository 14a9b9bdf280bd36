#!/usr/bin/env bash
# Checks that reverse-step, reverse-next, reverse-finish and reverse-stepi on
# a replay land exactly where GDB's own `record full` lands on the same
# fixture run natively: the same sequence of pcs (relative to main) and lines.
. "$(dirname "$0")/replay_gdb_lib.sh"
src=$FIXTURE_SRC/travel_steps.c
end_line=$(line_of STEPS_END "$src")
prog=$PROGRAMS/travel_steps
script=$WORK/steps.gdb
{
  echo "break travel_steps.c:$end_line"
  echo "continue"
  for cmd in reverse-step reverse-step reverse-step reverse-step reverse-finish reverse-next reverse-step \
             reverse-stepi reverse-stepi reverse-next reverse-finish reverse-stepi reverse-step; do
    echo "echo MOVE $cmd\\n"
    echo "$cmd"
    echo 'printf "WHERE pc=main%+ld line=%d\n", (long)$pc - (long)&main, $_line_of_pc'
  done
} >"$script"
# $_line_of_pc: a convenience variable set by a hook after every stop.
hook=$WORK/hook.gdb
cat >"$hook" <<'GDB'
define hook-stop
  python gdb.set_convenience_variable("_line_of_pc", gdb.find_pc_line(gdb.selected_frame().pc()).line)
end
GDB

native=$WORK/native.out
timeout 600 gdb -nx -batch -ex 'set pagination off' -x "$hook" -ex 'break main' -ex 'run' -ex 'record full' \
  -x "$script" "$prog" >"$native" 2>&1 || { cat "$native"; die "native gdb with record full failed"; }
rec=$WORK/steps.rec
record "$rec" 10 "$prog"
replayed=$WORK/replay.out
replay_gdb "$rec" "$replayed" -x "$hook" -x "$script"

grep -E '^(MOVE|WHERE)' "$native" >"$WORK/native.where"
grep -E '^(MOVE|WHERE)' "$replayed" >"$WORK/replay.where"
[ "$(grep -c '^WHERE' "$WORK/native.where")" -eq 13 ] || { cat "$native"; die "record full did not complete every move"; }
# The moves must really go somewhere: not all in one place.
[ "$(grep '^WHERE' "$WORK/native.where" | sort -u | wc -l)" -ge 8 ] || { cat "$native"; die "moves did not move"; }
diff "$WORK/native.where" "$WORK/replay.where" || { echo "--- replay output:"; cat "$replayed"; die "replay lands elsewhere than record full"; }
echo "replay_gdb_reverse_steps: OK"
cat "$WORK/replay.where"
