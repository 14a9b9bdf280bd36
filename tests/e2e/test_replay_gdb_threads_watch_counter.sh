#!/usr/bin/env bash
# A reverse watch on a variable a thread's loop writes at every iteration
# (thr_watch_counter: `counter = i` 5*10^7 times, then the main thread runs
# as long again after the join, so the last store lies checkpoints back).
# Before, a threaded reverse continue collected a segment's hits from its
# checkpoint with the watch armed, a trap per store (millions in the
# segment), and landed by two more such runs: over 5 minutes. Now the tail
# of the segment is collected first, the watch armed only at the window's
# start, and the landing goes by counted arrivals. Checked: GDB's old and new
# values over three reverse-continues and a continue (the forward stop named
# by its arrival, then gone back to from another session), the store's
# line, `slsdbg last-write`, and fewer than 5,000 watched accesses trapped.
. "$(dirname "$0")/replay_gdb_lib.sh"
src=$FIXTURE_SRC/thr_watch_counter.c
store_line=$(line_of COUNTER_STORE "$src"); read_line=$(line_of COUNTER_READ "$src")
rec=$WORK/counter.rec
record_threads "$rec" 10 "$PROGRAMS/thr_watch_counter"
last=$(sed -n 's/^counter \([0-9]*\) spin [0-9]*$/\1/p' "$rec.out")
[ -n "$last" ] || die "the recorded program printed no value"

out=$WORK/gdb.out
SLSDBG_LOG=debug replay_gdb "$rec" "$out" -ex "break thr_watch_counter.c:$read_line" -ex 'continue' \
  -ex 'watch counter' -ex 'reverse-continue' -ex 'print counter' -ex 'reverse-continue' -ex 'print counter' \
  -ex 'continue' -ex 'print counter' -ex 'monitor when' -ex 'reverse-continue' -ex 'print counter'
check_counter_watch "$out" "$last" "$store_line" COUNTER_STORE "threads"
traps=$(grep -Ec "'s access [0-9]+ to 0x" "$out")
[ "$traps" -lt 5000 ] || die "$traps watched accesses trapped"
grep -q 'reverse-continue: the tail of' "$out" || die "the tail of the segment was not searched first"

# The forward stop's name reaches the same moment in another session.
moment=$(sed -n 's/^Moment: //p' "$out" | head -1)
[ -n "$moment" ] || die "monitor when printed no moment"
out2=$WORK/goto.out
replay_gdb "$rec" "$out2" -ex "goto $moment" -ex 'print counter' -ex 'x/i $pc'
expect "$out2" "^\\\$1 = $((last - 1))\$" "goto $moment: counter after the store"

"$SLSDBG" last-write "$rec" counter --json >"$WORK/lw.json" 2>"$WORK/lw.err" || { cat "$WORK/lw.err"; die "last-write"; }
"$PY" - "$WORK/lw.json" "$store_line" <<'PY' || { cat "$WORK/lw.json"; die "last-write --json"; }
import json, sys
d = json.load(open(sys.argv[1]))
assert d["found"], d
assert d["line"] == int(sys.argv[2]), ("line", d["line"])
assert d["function"].startswith("worker"), d["function"]
PY
echo "replay_gdb_threads_watch_counter: OK ($traps accesses trapped)"
