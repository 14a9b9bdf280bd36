#!/usr/bin/env bash
# A reverse write watch across the checkpoints of a threaded hot loop
# (thr_watch_regloop: the worker stores `watched`, then spins 0.2 s in
# register-only arithmetic): each checkpoint of the loop is reached by the
# patched breakpoint, the watch armed. Before, any armed watch refused the
# patch and the perf breakpoint stood in, which the kernel throttles in a
# hot loop and then runs past the checkpoint (xz -T2's "replay diverged
# ... (the log is consumed)", docs/real-programs.md). The patch stays
# under write watches (a watch firing in its trampoline:
# test_replay_gdb_threads_watch_trampoline.sh). Checked: the reverse-continue lands before the store
# with GDB's old and new values, and the replay's log names checkpoints
# reached by the patch while the watch was armed.
. "$(dirname "$0")/replay_gdb_lib.sh"
src=$FIXTURE_SRC/thr_watch_regloop.c
store_line=$(line_of WATCH_STORE "$src"); read_line=$(line_of WATCH_READ "$src")
rec=$WORK/regloop.rec
record_threads "$rec" 10 "$PROGRAMS/thr_watch_regloop"
[ "$checkpoints" -ge 6 ] || die "only $checkpoints checkpoints: too few ticks inside the loop"
out=$WORK/gdb.out
SLSDBG_LOG=debug replay_gdb "$rec" "$out" -ex "break thr_watch_regloop.c:$read_line" -ex 'continue' \
  -ex 'watch watched' -ex 'echo ---reverse\n' -ex 'reverse-continue' -ex 'print $_thread' -ex 'print watched'
if grep -q 'diverged' "$out"; then grep -v '^slsdbg debug' "$out"; die "the reverse watch diverged"; fi
expect "$out" '^Old value = 1$' "reverse-continue stops at the worker's store (the value after it)"
expect "$out" '^New value = 0$' "and the value before it"
expect "$out" "^$store_line[[:space:]].*WATCH_STORE" "before the store's line"
expect "$out" '^\$1 = 2$' "in the worker thread"
expect "$out" '^\$2 = 0$' "watched is 0 there"
patched=$(sed -n '/^---reverse/,$p' "$out" | grep -c 'armed at 0x[0-9a-f]* (patched breakpoint)')
perf=$(sed -n '/^---reverse/,$p' "$out" | grep -c 'armed at 0x[0-9a-f]* (conditional breakpoint)')
[ "$patched" -ge 1 ] || { grep 'armed at' "$out" | head; die "no checkpoint was reached by the patch with the watch armed ($perf by the perf breakpoint)"; }
echo "replay_gdb_threads_watch_patched: OK ($patched checkpoints reached by the patch, $perf by the perf breakpoint)"
