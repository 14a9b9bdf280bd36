#!/usr/bin/env bash
# Checks that a replay leaving its recording is never silent in GDB: one
# logged syscall of a middle segment is altered, `continue` stops there, GDB
# reports the end of the history it can show, and the divergence (segment and
# event) is printed to the user; the session still answers afterwards.
. "$(dirname "$0")/replay_gdb_lib.sh"
alter=$SLSDBG_BUILD_DIR/engine/replay/replay_alter_event
[ -x "$alter" ] || die "missing $alter"
rec=$WORK/div.rec
record "$rec" 2 "$PROGRAMS/travel_corrupt" 1500
[ "$checkpoints" -ge 6 ] || die "only $checkpoints checkpoints"
seg=$(( checkpoints / 2 ))
"$alter" "$rec" "$seg" 0 >/dev/null || die "could not alter segment $seg's first event"
out=$WORK/gdb.out
replay_gdb "$rec" "$out" -ex 'continue' -ex 'monitor when' -ex 'info registers rip'
expect "$out" "^slsdbg: replay diverged from the recording here; history cannot go further forward\.$" \
  "the divergence is announced"
expect "$out" "^slsdbg: .*segment $seg.*event 0" "the divergence names the segment and event"
expect "$out" '^No more reverse-execution history\.$' "GDB sees the end of the history it can show"
expect "$out" "^Current moment: none \(replay diverged in segment $seg at event 0, pc 0x[0-9a-f]+" "monitor when names the divergence"
expect "$out" '^rip +0x[0-9a-f]+ ' "registers are still readable"
echo "replay_gdb_divergence: OK"
