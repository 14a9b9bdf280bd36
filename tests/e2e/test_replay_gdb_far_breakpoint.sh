#!/usr/bin/env bash
# Checks reverse-continue across at least 100 checkpoints: from the end of a
# long recording, back to a breakpoint in a function that ran once near the
# start; GDB stops there, before the function's first store.
. "$(dirname "$0")/replay_gdb_lib.sh"
src=$FIXTURE_SRC/travel_corrupt.c
setup_line=$(line_of TRAVEL_SETUP "$src")
end_line=$(line_of TRAVEL_END "$src")
rec=$WORK/far.rec
# Enough iterations for >= 100 checkpoints on this machine, however fast it is.
iterations=4000
for attempt in 1 2 3 4 5; do
  record "$rec" 1 "$PROGRAMS/travel_corrupt" "$iterations"
  [ "$checkpoints" -ge 110 ] && break
  iterations=$(( iterations * 2 * 120 / (checkpoints + 1) + iterations ))
done
[ "$checkpoints" -ge 110 ] || die "only $checkpoints checkpoints after $attempt recordings"
echo "recorded: $checkpoints checkpoints ($iterations iterations)"
out=$WORK/gdb.out
replay_gdb "$rec" "$out" \
  -ex "break travel_corrupt.c:$end_line" \
  -ex 'continue' \
  -ex 'monitor when' \
  -ex 'break travel_setup' \
  -ex 'reverse-continue' \
  -ex 'print travel_setup_calls' \
  -ex 'monitor when'
expect "$out" "Breakpoint 1, main \(.*\) at .*travel_corrupt\.c:$end_line" "continue stops at the end"
expect "$out" "Breakpoint 2, travel_setup \(\) at .*travel_corrupt\.c:$setup_line" "reverse-continue stops in travel_setup"
expect "$out" '^\$1 = 0$' "stopped before travel_setup's store"
mapfile -t ks < <(sed -n 's/^Current moment: .* (checkpoint \([0-9]*\) of .*/\1/p' "$out")
[ "${#ks[@]}" -eq 2 ] || die "monitor when did not answer twice"
crossed=$(( ks[0] - ks[1] ))
[ "$crossed" -ge 100 ] || die "reverse-continue crossed only $crossed checkpoints (${ks[0]} -> ${ks[1]})"
echo "replay_gdb_far_breakpoint: OK (crossed $crossed checkpoints)"
