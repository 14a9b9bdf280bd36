#!/usr/bin/env bash
# Replay's own pages (a counter stub's, for a breakpoint in libc) stay out
# of every range the program maps at some moment of its recording
# (program_ranges.h): late_reserve reserves 1 GiB right below the
# libraries in its last segments, where the stub used to go (half a GiB
# below libc). From `exit`, reverse-continue must reach main's breakpoint
# with no divergence at that mmap, single-threaded (the counted scan fell
# back to a trap per visit) and with the work in a thread (GDB got an
# error: "replay diverged ... mmap ... = -17"). Found by zstd -T2.
. "$(dirname "$0")/replay_gdb_lib.sh"
for mode in single thread; do
  rec=$WORK/late_$mode.rec
  if [ "$mode" = thread ]; then record "$rec" 10 "$PROGRAMS/late_reserve" 30000000 thread
  else record "$rec" 10 "$PROGRAMS/late_reserve" 30000000; fi
  out=$WORK/late_$mode.out
  SLSDBG_LOG=debug replay_gdb "$rec" "$out" -ex 'break main' -ex 'continue' -ex 'break exit' -ex 'continue' \
    -ex 'reverse-continue' -ex 'python print("AT", gdb.selected_frame().name())'
  if grep -E "diverged|counted scan failed|Remote failure" "$out"; then die "$mode: replay's page stood in the program's mmap"; fi
  expect "$out" "^AT main$" "$mode: reverse-continue from exit reaches main"
done
echo "replay_gdb_late_reserve: OK"
