#!/usr/bin/env bash
# A threaded move that fails after running replays (here a reverse-continue
# whose scan of the segment before diverges: one logged call of that segment
# is altered) leaves GDB where it was: the same moment, the same registers,
# every thread, and says so. Before, GDB was left in the failed replay's
# wreck ("PC register is not available", threads gone: xz -T2's watch +
# reverse-continue, docs/real-programs.md).
. "$(dirname "$0")/replay_gdb_lib.sh"
alter=$SLSDBG_BUILD_DIR/engine/replay/replay_alter_event
[ -x "$alter" ] || die "missing $alter"
rec=$WORK/cv.rec
record "$rec" 2 "$PROGRAMS/thr_condvar"
grep -q 'ran 3 threads' "$rec.err" || { cat "$rec.err"; die "thr_condvar did not record as threaded"; }
[ "$checkpoints" -ge 10 ] || die "only $checkpoints checkpoints"
k=$(( checkpoints / 2 ))
altered=
for i in $(seq 0 20); do  # its first syscall event
  if "$alter" "$rec" $(( k - 1 )) "$i" >/dev/null 2>&1; then altered=$i; break; fi
done
[ -n "$altered" ] || die "could not alter a syscall among segment $((k - 1))'s first events"
out=$WORK/gdb.out
replay_gdb "$rec" "$out" -ex "monitor goto $k" -ex 'maint flush register-cache' \
  -ex 'echo ---before\n' -ex 'monitor when' -ex 'info registers rip' -ex 'info threads' \
  -ex 'break consumer' -ex 'reverse-continue' \
  -ex 'echo ---after\n' -ex 'monitor when' -ex 'info registers rip' -ex 'info threads'
sed -n '/^---before/,/^---after/p' "$out" | grep -v '^---after' >"$WORK/before.out"
sed -n '/^---after/,$p' "$out" >"$WORK/after.out"
expect "$WORK/before.out" "^Moment: $k\$" "at checkpoint $k before the move"
expect "$WORK/after.out" "^Moment: $k\$" "still at checkpoint $k after the failed move"
rip_before=$(sed -n 's/^rip *\(0x[0-9a-f]*\) .*/\1/p' "$WORK/before.out")
[ -n "$rip_before" ] || { cat "$out"; die "no rip before the move"; }
expect "$WORK/after.out" "^rip +$rip_before " "the same rip after the failed move"
if grep -q 'not available' "$WORK/after.out"; then cat "$out"; die "registers unavailable after the failed move"; fi
threads_before=$(grep -c '^[* ] *[0-9]\+ *Thread ' "$WORK/before.out")
threads_after=$(grep -c '^[* ] *[0-9]\+ *Thread ' "$WORK/after.out")
[ "$threads_before" -ge 2 ] && [ "$threads_after" -eq "$threads_before" ] ||
  { cat "$out"; die "threads before the move: $threads_before, after: $threads_after"; }
expect "$out" "replay diverged in segment $(( k - 1 )).*\(you are back where this move started\)" "the failure says where the user is"
echo "replay_gdb_threads_failed_move: OK ($threads_after threads at checkpoint $k)"
