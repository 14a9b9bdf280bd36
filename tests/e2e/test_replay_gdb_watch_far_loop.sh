#!/usr/bin/env bash
# A reverse watch on a variable a loop wrote at every iteration, checkpoints
# back (watch_far_loop: `counter = i` 10^8 times, then as many stores into
# `spin` in the same page, so the segments between cannot be skipped by
# their dirty pages). The single-thread Timeline searched the current event
# window's tail only; an earlier segment was scanned with a trap per store
# (over 10 minutes at 10^8 iterations). Now each earlier segment is scanned
# capped at 64 stops first, and when capped, its tail from the hot pc's
# late arrivals in its last event window. Checked: GDB's old and new values
# over three reverse-continues and a continue, the store's line, and fewer
# than 5,000 watchpoint traps (`monitor stats`); also with the patch
# disabled (SLSDBG_REPLAY_PATCH=miss: checkpoints reached by counting
# copies, which ran out of budget in the -O1 loop, counted the tail's
# anchor once too often, and let the tail's last store run past the
# checkpoint unarmed: over 5 minutes before). And no checkpoint reached by a
# #DB per visit of its pc.
. "$(dirname "$0")/replay_gdb_lib.sh"
src=$FIXTURE_SRC/watch_far_loop.c
store_line=$(line_of FAR_STORE "$src"); read_line=$(line_of FAR_READ "$src")
rec=$WORK/far.rec
record "$rec" 10 "$PROGRAMS/watch_far_loop" 100000000
last=$(sed -n 's/^counter \([0-9]*\) spin [0-9]*$/\1/p' "$rec.out")
[ -n "$last" ] || die "the recorded program printed no value"
[ "$checkpoints" -ge 6 ] || die "only $checkpoints checkpoints: the store is not checkpoints back"

for mode in "" miss; do
  out=$WORK/gdb.$mode.out
  SLSDBG_REPLAY_PATCH=$mode SLSDBG_LOG=debug replay_gdb "$rec" "$out" -ex "break watch_far_loop.c:$read_line" -ex 'continue' \
    -ex 'watch counter' -ex 'reverse-continue' -ex 'print counter' -ex 'reverse-continue' -ex 'print counter' \
    -ex 'continue' -ex 'print counter' -ex 'reverse-continue' -ex 'print counter' -ex 'monitor stats'
  check_counter_watch "$out" "$last" "$store_line" FAR_STORE "patch ${mode:-on}"
  grep -q 'reverse-continue: the tail of segment [0-9]* first' "$out" || die "no earlier segment's tail was searched"
  traps=$(sed -n 's/^watchpoint traps: \([0-9]*\)$/\1/p' "$out")
  [ -n "$traps" ] || die "monitor stats printed no watchpoint traps"
  [ "$traps" -lt 5000 ] || die "$traps watchpoint traps"
  # No checkpoint reached by a #DB per visit of its pc: a run from a
  # checkpoint standing at the pc the tail search counts had the patch
  # refused before the Timeline's counter stub was in (12*10^6 #DBs, the
  # session ~2 minutes, in most recordings).
  dbs=$(grep -Eo 'perf breakpoint at [^ ]*: [0-9]+ debug exceptions' "$out" | awk '$5 > m {m = $5} END {print m + 0}')
  [ "$dbs" -lt 10000 ] || die "(patch ${mode:-on}) a checkpoint took $dbs debug exceptions (a #DB per visit)"
  echo "patch ${mode:-on}: OK ($traps watchpoint traps)"
done
echo "replay_gdb_watch_far_loop: OK ($checkpoints checkpoints)"
