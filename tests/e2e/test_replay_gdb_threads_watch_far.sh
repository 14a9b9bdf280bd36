#!/usr/bin/env bash
# A reverse watch that lands deep inside a thread's CPU-bound stretch
# (thr_watch_far: the worker computes ~0.05 s in registers, stores `watched`
# once, computes as long again). The access is found by a reverse scan; the
# moment before it is reached through the ways into the pc after it
# (ways_in.h: the store's arrivals counted in one run), not by single steps
# from the worker's last resume, which stood millions of instructions back
# and failed ("not reached within 3 s of CPU time" or "more than 2000000
# instructions"). Checked: GDB's old and new values, the store's line, the
# store instruction at the pc, the worker thread; `slsdbg last-write` too.
. "$(dirname "$0")/replay_gdb_lib.sh"
src=$FIXTURE_SRC/thr_watch_far.c
far_line=$(line_of WATCH_FAR "$src"); read_line=$(line_of WATCH_READ "$src")
rec=$WORK/far.rec
record_threads "$rec" 10 "$PROGRAMS/thr_watch_far"
value=$(sed -n 's/^watched \([0-9]*\) .*/\1/p' "$rec.out")
[ -n "$value" ] || die "the recorded program printed no value"
out=$WORK/gdb.out
SLSDBG_LOG=debug replay_gdb "$rec" "$out" -ex "break thr_watch_far.c:$read_line" -ex 'continue' \
  -ex 'watch watched' -ex 'reverse-continue' -ex 'print $_thread' -ex 'x/i $pc' -ex 'print watched'
if grep -Eq 'diverged|Remote failure' "$out"; then grep -v '^slsdbg debug' "$out"; die "the reverse watch failed"; fi
expect "$out" "^Old value = $value\$" "reverse-continue stops at the worker's store (the value after it)"
expect "$out" '^New value = 0$' "and the value before it"
expect "$out" "^$far_line[[:space:]].*WATCH_FAR" "before the store's line"
expect "$out" '^\$1 = 2$' "in the worker thread"
expect "$out" '^=> 0x[0-9a-f]+ <worker\+[0-9]+>:[[:space:]]+mov[[:space:]]+%[a-z0-9]+,0x[0-9a-f]+\(%rip\)[[:space:]]+# 0x[0-9a-f]+ <watched>' "at the store instruction"
expect "$out" '^\$2 = 0$' "watched is 0 there"
expect "$out" 'reverse step: thread [0-9]+.s arrival [0-9]+ at 0x[0-9a-f]+ is the way in' "the moment before the store reached by a way in"
# The same search from the command line: `slsdbg last-write`.
lw=$WORK/lw.out
"$SLSDBG" last-write "$rec" watched >"$lw" 2>&1 || { cat "$lw"; die "slsdbg last-write failed"; }
expect "$lw" "in worker\\+0x[0-9a-f]+ at .*thr_watch_far\\.c:$far_line\$" "last-write names the store's line"
echo "replay_gdb_threads_watch_far: OK"
