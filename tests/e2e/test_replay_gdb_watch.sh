#!/usr/bin/env bash
# Checks GDB on a replay deep into a recording with many checkpoints: a loop
# corrupts travel_balance once, at iteration N; at the end of the program a
# watchpoint and reverse-continue stop on the corrupting line, GDB prints the
# right old and new values, and the loop counter there is N.
. "$(dirname "$0")/replay_gdb_lib.sh"
src=$FIXTURE_SRC/travel_corrupt.c
corrupt_line=$(line_of TRAVEL_CORRUPT "$src")
end_line=$(line_of TRAVEL_END "$src")
rec=$WORK/corrupt.rec
record "$rec" 2 "$PROGRAMS/travel_corrupt" 3000 2217
[ "$checkpoints" -ge 10 ] || die "only $checkpoints checkpoints: the run is too short to test travel across them"
echo "recorded: $checkpoints checkpoints"
out=$WORK/gdb.out
replay_gdb "$rec" "$out" \
  -ex "break travel_corrupt.c:$end_line" \
  -ex 'continue' \
  -ex 'print travel_balance' \
  -ex 'monitor when' \
  -ex 'watch travel_balance' \
  -ex 'reverse-continue' \
  -ex 'print i' \
  -ex 'print travel_balance' \
  -ex 'monitor when' \
  -ex 'continue' \
  -ex 'print i'
expect "$out" "Breakpoint 1, main \(.*\) at .*travel_corrupt\.c:$end_line" "continue stops at the end of the program"
expect "$out" '^\$1 = -7$' "the balance is corrupt at the end"
expect "$out" '^Old value = -7$' "the watchpoint's old value (reverse: the value after the write)"
expect "$out" '^New value = 1000$' "the watchpoint's new value (reverse: the value before the write)"
expect "$out" "^$corrupt_line[[:space:]].*TRAVEL_CORRUPT" "reverse-continue stops on the corrupting line"
expect "$out" '^\$2 = 2217$' "the loop counter there is the corrupting iteration"
expect "$out" '^\$3 = 1000$' "before the write the balance is intact"
grep -c '^Current moment:' "$out" | grep -qx 2 || die "monitor when did not answer twice"
# Forward again from there: the same write, seen the other way round.
expect "$out" '^Old value = 1000$' "forward: the old value"
expect "$out" '^New value = -7$' "forward: the new value"
expect "$out" '^\$4 = 2217$' "forward: still the corrupting iteration"
echo "replay_gdb_watch: OK"
