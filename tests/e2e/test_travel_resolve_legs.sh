#!/usr/bin/env bash
# The first reverse step after GDB's ignore count (#20): a breakpoint enabled
# again inside an event window counts nothing until the next event, so each
# of its 200 stops is a Continue leg of the position's path (GDB steps over
# the breakpoint between them: 400 legs in all). The reverse step names the
# current moment by one counted run instead of replaying the legs
# (SLSDBG_LOG=debug says so), and lands where the replay of the
# legs does (SLSDBG_REPLAY_COUNT=trap, the old way): the same moment, pcs and
# iteration (the step lands on revstep_inner's `ret`).
. "$(dirname "$0")/replay_gdb_lib.sh"
src=$FIXTURE_SRC/revstep_far.c
mark=$(line_of FAR_MARK "$src")
rec=$WORK/legs.rec
# One checkpoint before main, no syscalls in the loop: one event window.
record "$rec" 60000 "$PROGRAMS/revstep_far" 400 300
script=$WORK/legs.gdb
cat >"$script" <<GDB
break revstep_far.c:$mark
continue
disable 1
stepi
enable 1
ignore 1 199
continue
printf "HIT i=%ld\n", i
python import time; t0 = time.monotonic()
reverse-stepi
python print("RS1 %.3f" % (time.monotonic() - t0))
printf "BACK pc=%#lx\n", \$pc
monitor when
reverse-stepi
printf "BACK2 pc=%#lx\n", \$pc
up
printf "BACK3 i=%ld\n", i
GDB

out=$WORK/counted.out
SLSDBG_LOG=debug replay_gdb "$rec" "$out" -x "$script"
expect "$out" '^HIT i=200$' "the 201st hit of the marked line"
expect "$out" 'by one counted run instead of 400 legs \(200 Continue\)' "the moment named by one counted run"
out2=$WORK/trap.out
SLSDBG_REPLAY_COUNT=trap replay_gdb "$rec" "$out2" -x "$script"
expect "$out2" '^HIT i=200$' "the 201st hit (trap mode)"
for what in BACK BACK2 BACK3 'Current moment'; do
  a=$(grep "^$what" "$out" | head -1)
  b=$(grep "^$what" "$out2" | head -1)
  [ -n "$a" ] && [ "$a" = "$b" ] || { cat "$out"; die "'$what' differs: counted '$a', legs replayed '$b'"; }
done
echo "ok: $(grep '^BACK ' "$out"), first reverse-stepi $(grep '^RS1' "$out" | cut -d' ' -f2) s counted, $(grep '^RS1' "$out2" | cut -d' ' -f2) s replaying the legs"
