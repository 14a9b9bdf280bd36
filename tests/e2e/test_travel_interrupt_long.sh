#!/usr/bin/env bash
# Ctrl-C deep inside one long CPU-bound segment (#20): no event or
# checkpoint for seconds, so only the cut of the replay's wait
# (process/wait_cut.h) can stop it. GDB under a real pty; `continue` and
# `reverse-continue` interrupted 0.5 s in must stop well before the segment
# would end, at a valid moment, saying where (engine/replay/timeline_cut.cc).
. "$(dirname "$0")/replay_gdb_lib.sh"
prog=$PROGRAMS/timeline_counter
rec=$WORK/long.rec
# One iteration: tl_mark(0), then a spin of about 5 s of CPU; with a
# 1-minute interval, tl_mark and the spin are in one segment that ends at
# the exit checkpoint.
spins=2000000000
start=$(date +%s%N)
record "$rec" 60000 "$prog" 1 $spins
record_s=$(( ($(date +%s%N) - start) / 1000000000 ))
last=$(( checkpoints - 1 ))
echo "recorded in ${record_s} s: $checkpoints checkpoints"
[ "$last" -ge 1 ] || die "expected a checkpoint at the exit"
# Not interrupted, the moves below replay the whole spin (about 5 s of CPU
# here, more under load); cut, they stop in tens of ms.
bound_ms=3000
interrupt() { interrupt_move "$1" "$rec" "$bound_ms" "${@:2}"; }

# Forward: from tl_mark (before the spin) `continue` toward the exit; cut
# before the next checkpoint, the move is undone: back at tl_mark.
interrupt "$WORK/fwd" continue 'break tl_mark' 'continue'
expect "$WORK/fwd.txt" 'slsdbg: interrupted: you are back where this move started' "the forward interrupt says where"
expect "$WORK/fwd.txt" 'rip +0x[0-9a-f]+ +0x[0-9a-f]+ <tl_mark(\+[0-9]+)?>' "back at tl_mark"
expect "$WORK/fwd.txt" 'Current moment: [0-9]+:[0-9]+:0x[0-9a-f]+:1 ' "monitor when names tl_mark's first arrival"

# Backward: from the exit checkpoint `reverse-continue` to tl_mark scans the
# long segment, on the second CPU while this thread scans the newer one
# (timeline_scan_ahead.cc), or here with the second thread off (then the cut
# lands at the long segment's start). The user is where the scan had reached.
for ahead in on off; do
  [ $ahead = off ] && export SLSDBG_REPLAY_SCAN_AHEAD=off
  interrupt "$WORK/back.$ahead" reverse-continue "monitor goto $last" 'break tl_mark'
  expect "$WORK/back.$ahead.txt" 'slsdbg: interrupted: you are where the search had reached' \
    "($ahead) the backward interrupt says where"
  expect "$WORK/back.$ahead.txt" 'rip +0x[0-9a-f]+ +0x[0-9a-f]+' "($ahead) registers where the scan reached"
  expect "$WORK/back.$ahead.txt" 'Current moment: [0-9]+:[0-9]+:0x[0-9a-f]+:[0-9]+ ' "($ahead) monitor when answers"
  unset SLSDBG_REPLAY_SCAN_AHEAD
done
expect "$WORK/back.off.txt" 'Current moment: [0-9]+:0:0x[0-9a-f]+:1 ' "(off) at a checkpoint's start"
echo "travel_interrupt_long: OK"
