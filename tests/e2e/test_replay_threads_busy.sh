#!/usr/bin/env bash
# Two threads that spin on the CPU, recorded while the machine is busy
# (#16): three busy loops run beside the recorder, for the recordings only.
# Such recordings did not replay: a thread parked at the exit of a
# clock_gettime at a tick took each later identical call of its own as
# done before the checkpoint ("replay did another stop of thread T
# (syscall clock_gettime)"), and the last stretch's patch went at a pc the
# loop's `jmp` enters ("checkpoint N not reached within 3 s of CPU time").
# - thr_spin_busy cpu and clock: output as native, `replay --check` OK;
#   clock recorded with --no-syscall-buffer, where each clock read stops
#   (the case above), and again with the buffer (clockbuf: the reads are
#   buffered, the spinners CPU-bound, so ticks come only as the loaded
#   machine lets the recorder run: at least one is asked for);
# - GDB on the cpu recording: the second spinner half way (a line only it
#   runs, once), then main's end, then reverse-continue back to the second
#   spinner: the same thread, sum and x as forward, progress[2] 200.
. "$(dirname "$0")/replay_gdb_lib.sh"
src=$FIXTURE_SRC/thr_spin_busy.c
half=$(line_of SPIN_HALF2 "$src")
end=$(line_of MAIN_END "$src")
prog=$PROGRAMS/thr_spin_busy

for k in 1 2 3; do
  timeout 60 sh -c 'while :; do :; done' &
  bg_pids+=($!)
done
# Spinners of ~75 ms each natively (cpu 40: 400 rounds; clock 100 ms).
declare -A amount=([cpu]=40 [clock]=100 [clockbuf]=100)
declare -A how=([cpu]=--syscall-buffer [clock]=--no-syscall-buffer [clockbuf]=--syscall-buffer)
for mode in cpu clock clockbuf; do
  "$SLSDBG" record "${how[$mode]}" -o "$WORK/$mode.rec" -- "$prog" "${mode%buf}" "${amount[$mode]}" >"$WORK/$mode.out" \
    2>"$WORK/$mode.err" </dev/null ||
    { cat "$WORK/$mode.err"; die "recording thr_spin_busy $mode"; }
done
for p in "${bg_pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
bg_pids=()

"$prog" cpu 40 >"$WORK/native.out" || die "thr_spin_busy cpu natively"
cmp -s "$WORK/native.out" "$WORK/cpu.out" || { diff "$WORK/native.out" "$WORK/cpu.out"; die "recorded output differs from native"; }
for mode in clock clockbuf; do
  expect "$WORK/$mode.out" '^marker 42 sums [0-9]+ [0-9]+ rounds [1-9][0-9]* [1-9][0-9]*$' "the $mode mode's output"
done
declare -A min_ticks=([cpu]=5 [clock]=5 [clockbuf]=1)
for mode in cpu clock clockbuf; do
  ticks=$("$SLSDBG" info "$WORK/$mode.rec" --json | "$PY" -c 'import json,sys; print(sum(c["reason"] == "tick" for c in json.load(sys.stdin)["checkpoints"]))')
  [ "$ticks" -ge "${min_ticks[$mode]}" ] || die "$mode: only $ticks tick checkpoints (the spinning is not crossed by ticks)"
  "$SLSDBG" replay "$WORK/$mode.rec" --check >"$WORK/$mode.check" 2>&1 ||
    { cat "$WORK/$mode.check"; die "replay --check of thr_spin_busy $mode recorded on a busy machine"; }
  expect "$WORK/$mode.check" 'history ends when the process ends' "$mode: the check reaches the end"
  echo "$mode: $ticks ticks, $(tail -1 "$WORK/$mode.check")"
done

out=$WORK/gdb.out
replay_gdb "$WORK/cpu.rec" "$out" -ex "break thr_spin_busy.c:$half" -ex 'continue' \
  -ex 'print id' -ex 'print sum' -ex 'print x' -ex 'print progress[2]' \
  -ex 'delete' -ex "break thr_spin_busy.c:$end" -ex 'continue' -ex 'print progress[2]' \
  -ex 'delete' -ex "break thr_spin_busy.c:$half" -ex 'reverse-continue' \
  -ex 'print id' -ex 'print sum' -ex 'print x' -ex 'print progress[2]'
values=$(grep -E '^\$[0-9]+ = ' "$out" | sed 's/^\$[0-9]* = //' | tr '\n' ' ')
read -r id1 sum1 x1 p1 pend id2 sum2 x2 p2 <<<"$values"
want=$(sed -n 's/^half [0-9]* //p' "$WORK/native.out")
[ "$id1" = 2 ] && [ "$sum1" = "$want" ] && [ "$p1" = 200 ] && [ "$pend" = 400 ] ||
  { cat "$out"; die "forward: spinner $id1, sum $sum1 (native $want), progress[2] $p1 there and $pend at the end (want 2, 200, 400)"; }
[ "$id2" = 2 ] && [ "$sum2" = "$sum1" ] && [ "$x2" = "$x1" ] && [ "$p2" = 200 ] ||
  { cat "$out"; die "reverse-continue: spinner $id2 sum $sum2 x $x2 progress $p2 (forward: spinner 2 sum $sum1 x $x1 progress 200)"; }
echo "second spinner half way: sum $sum1 as native, reached again in reverse"
echo "replay_threads_busy: OK"
