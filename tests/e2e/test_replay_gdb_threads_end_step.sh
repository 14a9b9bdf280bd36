#!/usr/bin/env bash
# Reverse steps from the end of a threaded recording (thr_catch: three
# threads, the main one exits): reverse-stepi goes to the instruction
# before the exit call and one more before that, each in _exit with its
# frames, and stepi comes forward over the same pcs to the end again;
# reverse-finish from the end lands in the function that called _exit.
# Before, the reverse step was refused as "checkpoint 0's start".
. "$(dirname "$0")/replay_gdb_lib.sh"
rec=$WORK/thr.rec
"$SLSDBG" record -o "$rec" -- "$PROGRAMS/thr_catch" >/dev/null 2>"$WORK/rec.err" || { cat "$WORK/rec.err"; die "recording thr_catch failed"; }
grep -q 'ran 3 threads' "$WORK/rec.err" || { cat "$WORK/rec.err"; die "thr_catch did not record as threaded"; }
out=$WORK/end.out
replay_gdb "$rec" "$out" -ex 'continue' -ex 'echo ---end\n' -ex 'print/x $pc' \
  -ex 'reverse-stepi' -ex 'echo ---one\n' -ex 'print/x $pc' -ex 'bt 1' \
  -ex 'reverse-stepi' -ex 'echo ---two\n' -ex 'print/x $pc' -ex 'bt 1' \
  -ex 'stepi' -ex 'echo ---fwd1\n' -ex 'print/x $pc' \
  -ex 'stepi' -ex 'echo ---fwd2\n' -ex 'print/x $pc' \
  -ex 'reverse-finish' -ex 'echo ---caller\n' -ex 'bt 1'
expect "$out" 'exited with status 0 here: the end of the recording' "the end is the exit"
if grep -q 'not supported\|not possible' "$out"; then cat "$out"; die "a reverse step was refused"; fi
pc_of() { sed -n "/^---$1/,/^---/s/^\\\$[0-9]* = \\(0x[0-9a-f]*\\)\$/\\1/p" "$out" | head -1; }
end=$(pc_of end); one=$(pc_of one); two=$(pc_of two); fwd1=$(pc_of fwd1); fwd2=$(pc_of fwd2)
[ -n "$end" ] && [ -n "$one" ] && [ -n "$two" ] || { cat "$out"; die "pcs missing"; }
[ "$one" != "$end" ] && [ "$two" != "$one" ] || { cat "$out"; die "reverse-stepi did not move ($end $one $two)"; }
sed -n '/^---one/,/^---two/p' "$out" | grep -q '^#0 .*_exit ' || { cat "$out"; die "one step back is not in _exit"; }
sed -n '/^---two/,/^---fwd1/p' "$out" | grep -q '^#0 .*_exit ' || { cat "$out"; die "two steps back is not in _exit"; }
[ "$fwd1" = "$one" ] && [ "$fwd2" = "$end" ] || { cat "$out"; die "stepi forward went $two -> $fwd1 -> $fwd2, not $one -> $end"; }
sed -n '/^---caller/,$p' "$out" | grep -q '^#0 .*exit_handlers' || { cat "$out"; die "reverse-finish did not land in the caller of _exit"; }
echo "replay_gdb_threads_end_step: end $end, back $one, $two; forward again; reverse-finish in the caller"
