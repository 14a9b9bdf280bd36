#!/usr/bin/env bash
# Checks the monitor commands and rr's dialect on a replay in GDB: help,
# checkpoints, when, bookmark + goto BOOKMARK, goto K (GDB then shows the new
# place), qRRCmd:when, vRun to a checkpoint and to an event, and `monitor dump` writing a
# core of the current moment that GDB reads back with the same variables.
. "$(dirname "$0")/replay_gdb_lib.sh"
src=$FIXTURE_SRC/travel_corrupt.c
end_line=$(line_of TRAVEL_END "$src")
prog=$PROGRAMS/travel_corrupt
rec=$WORK/monitor.rec
record "$rec" 2 "$prog" 2000 1500
out=$WORK/gdb.out
core=$WORK/moment.core
replay_gdb "$rec" "$out" \
  -ex 'monitor help' \
  -ex 'monitor checkpoints' \
  -ex "break travel_corrupt.c:$end_line" \
  -ex 'continue' \
  -ex 'monitor bookmark theend' \
  -ex 'monitor bookmarks' \
  -ex "monitor dump $core" \
  -ex 'maint packet qRRCmd:when:-1' \
  -ex 'goto 0' \
  -ex 'print (int)travel_balance' \
  -ex 'monitor goto 99999' \
  -ex 'goto theend' \
  -ex 'print travel_balance' \
  -ex 'maint packet vRun;;6331' \
  -ex 'maint flush register-cache' \
  -ex 'monitor when' \
  -ex "maint packet vRun;;$(printf 1000 | od -An -tx1 | tr -d ' \n')" \
  -ex 'monitor when'
expect "$out" '^  goto K:E:0xPC:N ' "monitor help lists goto MOMENT"
expect "$out" '^\* 0 ' "monitor checkpoints marks checkpoint 0 as current at the start"
expect "$out" "^  $((checkpoints - 1)) " "monitor checkpoints lists the last checkpoint"
expect "$out" '^bookmark theend = [0-9]+:[0-9]+:0x[0-9a-f]+:[0-9]+$' "bookmark names the moment"
expect "$out" '^  theend  [0-9]+:[0-9]+:0x[0-9a-f]+:[0-9]+$' "bookmarks lists it"
expect "$out" "^wrote $core \\(" "monitor dump writes a core"
expect "$out" 'received: "Current event: [1-9][0-9]*"' "qRRCmd:when answers with an event number"
expect "$out" '^now at 0:0:0x[0-9a-f]+:1$' "goto 0 goes to checkpoint 0"
expect "$out" '^\$1 = 1000$' "at checkpoint 0 the balance is the initial one"
expect "$out" '^\$2 = -7$' "goto theend: the balance is corrupt again"
expect "$out" "^$end_line[[:space:]].*TRAVEL_END" "goto theend: GDB shows the end line"
expect "$out" 'received: "T05' "vRun c1 answers with a stop reply"
expect "$out" '^Current moment: 1:0:0x[0-9a-f]+:1 \(checkpoint 1 of ' "vRun c1 went to checkpoint 1"
expect "$out" '^Current moment: [0-9]+:[0-9]+:0x[0-9a-f]+:1 \(checkpoint [0-9]+ of [0-9]+, event 1000\)$' "vRun to event 1000 lands just after it"
expect "$out" 'no checkpoint 99999: the recording has' "goto a checkpoint that does not exist"
# The bookmark lives in the recording: slsdbg replay --goto NAME starts GDB there.
replay_gdb_at() { timeout 600 "$SLSDBG" replay "$rec" --goto "$1" -- -nx -batch -ex 'print (int)travel_balance' -ex 'monitor when' >"$2" 2>&1 || { cat "$2"; die "replay --goto $1 failed"; }; }
replay_gdb_at theend "$WORK/goto.out"
expect "$WORK/goto.out" "^$end_line[[:space:]].*TRAVEL_END" "--goto BOOKMARK: GDB starts at the end line"
expect "$WORK/goto.out" '^\$1 = -7$' "--goto BOOKMARK: the corrupt balance"
replay_gdb_at 2 "$WORK/goto2.out"
expect "$WORK/goto2.out" '^Current moment: 2:0:0x[0-9a-f]+:1 ' "--goto K starts GDB at checkpoint K"
# The core shows the moment it was taken at.
gdb -nx -batch -ex 'print travel_balance' -ex 'bt' "$prog" "$core" >"$WORK/core.out" 2>&1
expect "$WORK/core.out" '^\$1 = -7$' "the core holds the moment's memory"
expect "$WORK/core.out" "^#0  main \\(.*travel_corrupt\\.c:$end_line" "the core's backtrace is at the end line"
echo "replay_gdb_monitor: OK"
