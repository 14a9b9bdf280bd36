#!/usr/bin/env bash
# A reverse watch to a store in a loop whose instructions are all shorter
# than the 5-byte jump of a counter stub, with no padding near
# (thr_watch_short: the worker's store hits `watched` once, at iteration K
# of ~10^8, tens of millions of instructions from its last system call).
# The store's arrivals are counted by a stub that moves several of the
# loop's instructions (thread_counters.h); before, no way in could be
# counted and the moment before the store was searched by single steps
# from the worker's resume ("more than 2000000 instructions"). Checked:
# GDB's old and new values, the store instruction at the pc, the loop's
# counter (rax) equal to K there, the worker thread, a stub of several
# instructions in the replay's log; a second reverse-continue reaches
# history's start; `slsdbg last-write` too.
. "$(dirname "$0")/replay_gdb_lib.sh"
src=$FIXTURE_SRC/thr_watch_short.c
read_line=$(line_of WATCH_SHORT_READ "$src"); asm_line=$(line_of WATCH_SHORT_ASM "$src")
k=$(sed -n 's/^#define K \([0-9]*\)L$/\1/p' "$src")
# Known open case (docs/real-programs.md, #20): when a tick's checkpoint
# lands on the store itself, the run to that checkpoint counts the store
# by int3 and its patched breakpoint gives way to it; the perf breakpoint
# standing in traps per visit and the move fails "checkpoint N not reached
# within 3 s" (about 1 recording in 7). Such a recording is made again, at
# most twice; any other failure fails at once.
out=$WORK/gdb.out
for attempt in 1 2 3; do
  rec=$WORK/short$attempt.rec
  record_threads "$rec" 10 "$PROGRAMS/thr_watch_short"
  expect "$rec.out" "^watched $k dummy [0-9]+\$" "the recorded program stored K"
  SLSDBG_LOG=debug replay_gdb "$rec" "$out" -ex "break thr_watch_short.c:$read_line" -ex 'continue' \
    -ex 'watch watched' -ex 'reverse-continue' -ex 'print $_thread' -ex 'x/i $pc' -ex 'print $rax' -ex 'print watched' \
    -ex 'echo ---again\n' -ex 'reverse-continue' -ex 'print *(long *)&watched'
  grep -Eq '^slsdbg: checkpoint [0-9]+ not reached within' "$out" || break
  echo "recording $attempt: a checkpoint on the store (the known open case); recording again"
done
if grep -Eq 'diverged|Remote failure' "$out"; then grep -v '^slsdbg debug' "$out"; die "the reverse watch failed"; fi
expect "$out" "^Old value = $k\$" "reverse-continue stops at the worker's store (the value after it)"
expect "$out" '^New value = 0$' "and the value before it"
expect "$out" '^\$1 = 2$' "in the worker thread"
expect "$out" '^=> 0x[0-9a-f]+ <loop\+[0-9]+>:[[:space:]]+mov[[:space:]]+%rax,\(%rdi\)' "at the store instruction"
expect "$out" "^\\\$2 = $k\$" "in iteration K"
expect "$out" '^\$3 = 0$' "watched is 0 there"
# On from there: no earlier write, history's start (the collection up to
# the landing counts the loop's store by a stub aimed at it, not an int3
# per iteration).
sed -n '/^---again/,$p' "$out" | grep -v '^slsdbg debug' >"$WORK/again.out"
expect "$WORK/again.out" 'No more reverse-execution history' "a second reverse-continue reaches history's start"
expect "$WORK/again.out" '^\$4 = 0$' "where watched is 0"
expect "$out" 'counter stub at 0x[0-9a-f]+ moves 0x[0-9a-f]+\.\.0x[0-9a-f]+' "a stub over several instructions counted"
expect "$out" 'reverse step: thread [0-9]+.s arrival [0-9]+ at 0x[0-9a-f]+ is the way in' "the moment before the store reached by a way in"
lw=$WORK/lw.out
"$SLSDBG" last-write "$rec" watched >"$lw" 2>&1 || { cat "$lw"; die "slsdbg last-write failed"; }
expect "$lw" "in loop\\+0x[0-9a-f]+ at .*thr_watch_short\\.c:$asm_line\$" "last-write names the loop's line"
echo "replay_gdb_threads_watch_short: OK"
