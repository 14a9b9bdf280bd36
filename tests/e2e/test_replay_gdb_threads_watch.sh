#!/usr/bin/env bash
# Watchpoints on a recording made with `record --threads` (thr_watch: the
# main thread stores 1 into `shared`, a writer thread stores 2 then 3, the
# main thread reads it after pthread_join):
# - forward, `watch shared` stops after each store in the storing thread:
#   1 in thread 1, then 2 and 3 in the writer (GDB switches to it);
# - from the read, reverse-continue finds the writer's stores (3, then 2,
#   the two with no system call between them) stopping before each store in
#   the writer, then the main thread's; forward again is the same store;
# - `rwatch` stops at the main thread's reads (GDB ignores the writer's
#   stores, which change the value), and reverse-continue goes back to the
#   earlier read.
. "$(dirname "$0")/replay_gdb_lib.sh"
src=$FIXTURE_SRC/thr_watch.c
a1=$(line_of WATCH_A1 "$src"); b2=$(line_of WATCH_B2 "$src"); b3=$(line_of WATCH_B3 "$src")
read_line=$(line_of WATCH_READ "$src"); end_line=$(line_of WATCH_END "$src")
rec=$WORK/watch.rec
"$SLSDBG" record --threads -o "$rec" -- "$PROGRAMS/thr_watch" >"$WORK/record.out" 2>&1 </dev/null ||
  { cat "$WORK/record.out"; die "recording"; }
expect "$WORK/record.out" '^shared 3 seen 3$' "the recorded run's output"

out=$WORK/forward.out
replay_gdb "$rec" "$out" -ex 'watch shared' \
  -ex 'continue' -ex 'print $_thread' \
  -ex 'continue' -ex 'print $_thread' -ex 'info threads' \
  -ex 'continue' -ex 'print $_thread' -ex 'print shared'
# GDB prints each hit as "Old value = A" / "New value = B", then the frame.
vals=$(grep -E '^(Old|New) value = ' "$out" | tr '\n' ' ')
[ "$vals" = "Old value = 0 New value = 1 Old value = 1 New value = 2 Old value = 2 New value = 3 " ] ||
  { cat "$out"; die "forward watch values: $vals"; }
expect "$out" "^main \\(\\) at .*thr_watch\\.c:$a1|^$((a1 + 1))[[:space:]]" "the first stop is after main's store"
expect "$out" '^\$1 = 1$' "main's store stops in thread 1"
expect "$out" '^\$2 = 2$' "the writer's first store stops in thread 2"
expect "$out" '^\* +2 +Thread [0-9.]+ .* writer \(' "info threads: the writer thread is current"
expect "$out" '^\$3 = 2$' "the writer's second store stops in thread 2 too"
expect "$out" '^\$4 = 3$' "after it shared is 3"

out=$WORK/reverse.out
replay_gdb "$rec" "$out" -ex "break thr_watch.c:$read_line" -ex 'continue' -ex 'watch shared' \
  -ex 'reverse-continue' -ex 'print shared' -ex 'info threads' \
  -ex 'reverse-continue' -ex 'print shared' -ex 'print $_thread' \
  -ex 'reverse-continue' -ex 'print shared' -ex 'print $_thread' \
  -ex 'continue' -ex 'print shared' -ex 'monitor when'
vals=$(grep -E '^(Old|New) value = ' "$out" | tr '\n' ' ')
[ "$vals" = "Old value = 3 New value = 2 Old value = 2 New value = 1 Old value = 1 New value = 0 Old value = 0 New value = 1 " ] ||
  { cat "$out"; die "reverse watch values: $vals"; }
expect "$out" "^$b3[[:space:]].*WATCH_B3" "reverse-continue stops before the writer's last store"
expect "$out" '^\$1 = 2$' "before that store shared is 2"
expect "$out" '^\* +[0-9]+ +Thread [0-9.]+ .* writer \(' "the writer thread is current there"
expect "$out" "^$b2[[:space:]].*WATCH_B2" "then before its first store (no system call between them)"
expect "$out" '^\$2 = 1$' "before it shared is 1"
[ "$(sed -n 's/^\$3 = //p' "$out")" != 1 ] || { cat "$out"; die "the writer's store was reported in thread 1"; }
expect "$out" "^$a1[[:space:]].*WATCH_A1" "then before main's store"
expect "$out" '^\$4 = 0$' "before it shared is 0"
expect "$out" '^\$5 = 1$' "main's store is in thread 1"
expect "$out" '^\$6 = 1$' "forward again: main's store"
grep -q "Switching to Thread" "$out" || { cat "$out"; die "GDB never switched threads"; }

out=$WORK/rwatch.out
replay_gdb "$rec" "$out" -ex 'rwatch shared' -ex 'continue' -ex 'print $_thread' -ex 'continue' \
  -ex 'reverse-continue' -ex 'print $_thread'
n=$(grep -c '^Value = 3$' "$out")
[ "$n" -eq 3 ] || { cat "$out"; die "rwatch: $n stops with value 3, want 3 (two reads, one back)"; }
expect "$out" "^$read_line[[:space:]].*WATCH_READ" "rwatch stops at main's read"
expect "$out" "^$end_line[[:space:]].*WATCH_END" "then at printf's read"
expect "$out" '^\$1 = 1$' "the read is in thread 1"
expect "$out" '^\$2 = 1$' "reverse-continue: the earlier read, thread 1"
echo "replay_gdb_threads_watch: OK"
