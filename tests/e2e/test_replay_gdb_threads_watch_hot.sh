#!/usr/bin/env bash
# A reverse watch that lands on a store a thread's hot loop runs millions
# of times in the segment (thr_watch_hot: v[i & 4095] = i for 5*10^8 i; the
# watch on v[7] fires every 4096th). The segment's tail is searched first
# (the watch armed only from a window's start, the loop's arrivals before it
# counted by a counter stub in the tracee), and the moment before the store
# is reached from the thread's arrival after it. Before, the segment was
# collected from its checkpoint with the watch armed and the landing counted
# the accesses again (stop 39: the ways into the pc after the store counted
# while the watch was armed, fired in the stub's copy of the store and moved
# to the program's pc). Checked: GDB's old and new values, the store's line
# and instruction, that the tail was searched, and the traps bounded.
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
expect "$out" 'reverse-continue: the tail of ' "the segment's tail searched first"
accesses=$(grep -Ec "'s access [0-9]+ to 0x" "$out")
[ "$accesses" -lt 1000 ] || die "watch: $accesses watched accesses trapped"

# The same with an access watch (awatch): before, a read or access watch
# kept both the checkpoint's patch and the counter stubs out, and the ways
# into the store were counted by an int3 at every visit (over 5 minutes).
# Now a watch of any kind fires in a stub's copy of the access and is moved
# to the program's pc; the patch compares no word an access watch covers.
out2=$WORK/gdb_access.out
reverse_watch awatch "$out2" awatch
# The tail's windows count the loop's arrivals after their start by an
# int3 each (up to 8x the 4096 iterations between two stores to v[7]);
# before stop 39, millions.
traps=$(grep -Ec "'s arrival [0-9]+ at 0x" "$out2")
[ "$traps" -lt 40000 ] || die "awatch: $traps arrivals counted by a trap each"
echo "replay_gdb_threads_watch_hot: OK (awatch: $traps arrivals by trap)"
