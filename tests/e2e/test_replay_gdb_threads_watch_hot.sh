#!/usr/bin/env bash
# A reverse watch that lands on a store a thread's hot loop runs millions
# of times in the segment (thr_watch_hot: v[i & 4095] = i for 5*10^8 i; the
# watch on v[7] fires every 4096th). The moment before the last write is
# reached through the ways into the pc after the store, whose arrivals a
# counter stub counts in the tracee while the write watch is armed: the
# watch fires in the stub's copy of the store and is moved to the program's
# pc. Before, with a watch armed the ways were counted by an int3 per visit,
# and the run's last window of counts was lost at a watch stop (the way
# then missed by one access and single steps from the resume took over:
# minutes). Checked: GDB's old and new values, the store's line and
# instruction, and that a way in was taken.
. "$(dirname "$0")/replay_gdb_lib.sh"
src=$FIXTURE_SRC/thr_watch_hot.c
store_line=$(line_of HOT_STORE "$src"); read_line=$(line_of HOT_READ "$src")
rec=$WORK/hot.rec
record_threads "$rec" 10 "$PROGRAMS/thr_watch_hot"
last=$(sed -n 's/^v\[7\] \([0-9]*\)$/\1/p' "$rec.out")
[ -n "$last" ] || die "the recorded program printed no value"
# reverse_watch CMD OUT LABEL: GDB's CMD (watch, awatch) on v[7] from the
# line after the join, reverse-continue: the last store and its values.
reverse_watch() {
  local cmd=$1 out=$2 label=$3
  SLSDBG_LOG=debug replay_gdb "$rec" "$out" -ex "break thr_watch_hot.c:$read_line" -ex 'continue' \
    -ex "$cmd slots->v[7]" -ex 'reverse-continue' -ex 'x/i $pc' -ex 'print slots->v[7]'
  if grep -Eq 'diverged|Remote failure' "$out"; then grep -v '^slsdbg debug' "$out"; die "$label: the reverse watch failed"; fi
  expect "$out" "^Old value = $last\$" "$label: reverse-continue stops at the last store to v[7]"
  expect "$out" "^New value = $((last - 4096))\$" "$label: v[7] holds the store 4096 iterations before there"
  expect "$out" '^=> 0x[0-9a-f]+ <fill[+0-9]*>:[[:space:]]+mov[[:space:]]+%rax,0x200\(' "$label: at the store instruction"
}

out=$WORK/gdb.out
reverse_watch watch "$out" watch
expect "$out" "^$store_line[[:space:]].*HOT_STORE" "on the store's line"
expect "$out" "^\\\$1 = $((last - 4096))\$" "v[7] before the store"
expect "$out" 'reverse step: thread [0-9]+.s arrival [0-9]+ at 0x[0-9a-f]+ is the way in' "the moment before the store reached by a way in"

# The same with an access watch (awatch): before, a read or access watch
# kept both the checkpoint's patch and the counter stubs out, and the ways
# into the store were counted by an int3 at every visit (over 5 minutes).
# Now a watch of any kind fires in a stub's copy of the access and is moved
# to the program's pc; the patch compares no word an access watch covers.
out2=$WORK/gdb_access.out
reverse_watch awatch "$out2" awatch
traps=$(grep -Ec "'s arrival [0-9]+ at 0x" "$out2")
[ "$traps" -lt 1000 ] || die "awatch: $traps arrivals counted by a trap each"
echo "replay_gdb_threads_watch_hot: OK (awatch: $traps arrivals by trap)"
