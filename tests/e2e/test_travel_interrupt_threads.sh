#!/usr/bin/env bash
# Ctrl-C deep inside one long CPU-bound segment of a threaded recording
# (#20; the threaded timeline, ThreadedTimeline::resume): the worker thread
# of thr_hot_loop spins about 5 s of CPU with no event. GDB under a real
# pty; `continue` from the worker's entry and `reverse-continue` from the
# exit, interrupted 0.5 s in, stop well before the segment would end.
. "$(dirname "$0")/replay_gdb_lib.sh"
rec=$WORK/thr.rec
record "$rec" 60000 "$PROGRAMS/thr_hot_loop" 2000000000
last=$(( checkpoints - 1 ))
"$SLSDBG" info "$rec" | grep -q 'thread_switch' || die "expected a threaded recording"
bound_ms=3000

# Forward from `hot`'s entry (the worker's first instructions): undone.
interrupt_move "$WORK/fwd" "$rec" $bound_ms continue 'break hot' 'continue'
expect "$WORK/fwd.txt" 'slsdbg: interrupted: you are back where this move started' "the forward interrupt says where"
expect "$WORK/fwd.txt" 'rip +0x[0-9a-f]+ +0x[0-9a-f]+ <hot(\+[0-9]+)?>' "back in hot"

# Backward from the exit: lands at the start of the long segment.
interrupt_move "$WORK/back" "$rec" $bound_ms reverse-continue "monitor goto $last" 'break hot'
expect "$WORK/back.txt" 'slsdbg: interrupted: you are where the search had reached' "the backward interrupt says where"
expect "$WORK/back.txt" 'Current position: checkpoint [0-9]+, its start' "at a checkpoint's start"
echo "travel_interrupt_threads: OK"
