#!/usr/bin/env bash
# Watchpoints in a hot loop far from a checkpoint (#20). watch_hot_loop
# writes `hot` on each of N iterations and `mark` once, at iteration AT;
# checkpoints land inside the loop, among its stack stores (-O0).
#  - `watch mark` + continue from main crosses the loop's checkpoints with
#    the watchpoint armed: the checkpoints are reached by the patched
#    breakpoint, not by a perf breakpoint taking a debug exception at every
#    visit of their pc (before: one per iteration, minutes);
#  - `watch hot` + reverse-continue from there finds the write one
#    iteration back, twice, and continue comes forward to the next write;
#    only the tail of the window is scanned (before: one trap per write
#    since the checkpoint, 10^7 of them);
#  - from after the loop (the stop's pc runs once), reverse-continue finds
#    the loop's last write the same way, through the pc the first stops
#    came back at.
# `monitor stats` counts the traps; the values are GDB's.
# Both sessions run twice: as they are, and with SLSDBG_REPLAY_PATCH=miss
# (the checkpoints' trampolines never match): the checkpoints are then
# reached from the rescue copy by a counting copy, which carries the
# watchpoints and hands over the trap of a watch it meets first (before: a
# perf breakpoint's #DB at every visit, 5.6*10^5 of them at N = 2*10^6), and
# the rescue copy holds the Timeline's counter stubs (before: a probe trap
# per iteration, 1.6*10^6 at N = 2*10^6, 89 s).
# A third session does the same with `awatch mark` forward and `rwatch hot`
# backward: those refuse the patch, and the checkpoints were reached by a
# #DB per visit (3.5*10^6 per 10 ms segment; 53 s and 32 s at N = 10^8).
. "$(dirname "$0")/replay_gdb_lib.sh"
N=${WATCH_HOT_N:-20000000}
AT=$((N * 4 / 5))
MAX_TRAPS=1000
rec=$WORK/hot.rec
record "$rec" 5 "$PROGRAMS/watch_hot_loop" "$N" "$AT"
[ "$checkpoints" -ge 4 ] || die "only $checkpoints checkpoints"
src=$FIXTURE_SRC/watch_hot_loop.c
after=$(line_of AFTER "$src")

traps() {  # traps OUT SECTION KEY: a number from the section's `monitor stats`
  sed -n "/^---$2/,/^---/p" "$1" | sed -n "s/^$3: \([0-9]*\)\$/\1/p" | head -1
}
value() {  # value OUT SECTION: the first $N = V printed after ---SECTION
  sed -n "/^---$2/,/^---/s/^\\\$[0-9]* = \\(-\\?[0-9]*\\)\$/\\1/p" "$1" | head -1
}

sessions() {  # sessions MODE: both GDB sessions and their checks; MODE is SLSDBG_REPLAY_PATCH
  local mode=$1
  if [ -n "$mode" ]; then export SLSDBG_REPLAY_PATCH=$mode; else unset SLSDBG_REPLAY_PATCH; fi
  out=$WORK/loop$mode.out
  replay_gdb "$rec" "$out" -ex 'break main' -ex 'continue' -ex 'watch mark' -ex 'continue' \
    -ex 'echo ---fwd\n' -ex 'print i' -ex 'monitor stats' -ex 'delete' -ex 'watch hot' \
    -ex 'reverse-continue' -ex 'echo ---back1\n' -ex 'print hot' -ex 'print i' \
    -ex 'reverse-continue' -ex 'echo ---back2\n' -ex 'print hot' -ex 'print i' \
    -ex 'continue' -ex 'echo ---again\n' -ex 'print hot' -ex 'monitor stats' -ex 'echo ---end\n'
  [ "$(value "$out" fwd)" = "$AT" ] || { cat "$out"; die "[${mode:-patched}] watch mark did not stop in iteration $AT"; }
  exc=$(traps "$out" fwd 'checkpoint breakpoint debug exceptions')
  [ -n "$exc" ] && [ "$exc" -lt "$MAX_TRAPS" ] ||
    { cat "$out"; die "[${mode:-patched}] continue with a watchpoint took ${exc:-?} debug exceptions at checkpoint pcs (a trap per visit)"; }
  [ "$(value "$out" back1)" = "$((AT - 1))" ] || { cat "$out"; die "[${mode:-patched}] reverse-continue: hot is not $((AT - 1)) before its last write"; }
  [ "$(sed -n '/^---back1/,/^---/p' "$out" | sed -n 's/^\$[0-9]* = //p' | sed -n 2p)" = "$AT" ] ||
    { cat "$out"; die "[${mode:-patched}] reverse-continue: not in iteration $AT"; }
  [ "$(value "$out" back2)" = "$((AT - 2))" ] || { cat "$out"; die "[${mode:-patched}] second reverse-continue: hot is not $((AT - 2))"; }
  [ "$(value "$out" again)" = "$((AT - 1))" ] || { cat "$out"; die "[${mode:-patched}] continue: hot is not $((AT - 1)) after the write"; }
  wt=$(traps "$out" again 'watchpoint traps')
  [ -n "$wt" ] && [ "$wt" -lt "$MAX_TRAPS" ] || { cat "$out"; die "[${mode:-patched}] the reverse-continues took ${wt:-?} watchpoint traps"; }
  pt=$(traps "$out" again 'probe traps')
  [ -n "$pt" ] && [ "$pt" -lt "$MAX_TRAPS" ] || { cat "$out"; die "[${mode:-patched}] the reverse-continues took ${pt:-?} probe traps (a trap per visit)"; }

  out2=$WORK/after$mode.out
  replay_gdb "$rec" "$out2" -ex "break $src:$after" -ex 'continue' -ex 'watch hot' -ex 'reverse-continue' \
    -ex 'echo ---last\n' -ex 'print hot' -ex 'print i' -ex 'monitor stats' -ex 'echo ---end\n'
  [ "$(value "$out2" last)" = "$((N - 2))" ] || { cat "$out2"; die "[${mode:-patched}] from after the loop: hot is not $((N - 2)) before the last write"; }
  wt2=$(traps "$out2" last 'watchpoint traps')
  [ -n "$wt2" ] && [ "$wt2" -lt "$MAX_TRAPS" ] || { cat "$out2"; die "[${mode:-patched}] from after the loop: ${wt2:-?} watchpoint traps"; }

  # Access and read watchpoints keep the patch out (the trampoline reads the
  # program's memory); the counting copy reads none of it.
  out3=$WORK/access$mode.out
  replay_gdb "$rec" "$out3" -ex 'break main' -ex 'continue' -ex 'awatch mark' -ex 'continue' \
    -ex 'echo ---afwd\n' -ex 'print i' -ex 'monitor stats' -ex 'delete' -ex 'rwatch hot' -ex 'reverse-continue' \
    -ex 'echo ---aback\n' -ex 'print i' -ex 'monitor stats' -ex 'echo ---end\n'
  [ "$(value "$out3" afwd)" = "$AT" ] || { cat "$out3"; die "[${mode:-patched}] awatch mark did not stop in iteration $AT"; }
  [ "$(value "$out3" aback)" = "$AT" ] || { cat "$out3"; die "[${mode:-patched}] rwatch hot + reverse-continue: not in iteration $AT"; }
  aexc=$(traps "$out3" aback 'checkpoint breakpoint debug exceptions')
  [ -n "$aexc" ] && [ "$aexc" -lt "$MAX_TRAPS" ] ||
    { cat "$out3"; die "[${mode:-patched}] awatch/rwatch took ${aexc:-?} debug exceptions at checkpoint pcs (a trap per visit)"; }
  echo "replay_gdb_watch_hot [${mode:-patched}]: $checkpoints checkpoints; forward $exc checkpoint debug exceptions; back to iteration $AT and $((AT - 1)) in $wt watchpoint traps; from after the loop $wt2; awatch/rwatch $aexc"
}

sessions ""
sessions miss
