#!/usr/bin/env bash
# Moments and bookmarks on a recording with threads (thr_watch: the writer
# thread stores 2 then 3 into `shared`, the main thread reads it after the
# join):
# - GDB stopped in the writer thread (a breakpoint at its second store, then
#   two single steps) prints a moment naming that thread (`monitor when`),
#   and `monitor bookmark` keeps it in the recording;
# - a second GDB session goes there by the bookmark and by the moment's
#   text: the same thread current, the same pc, shared 3;
# - `replay --goto MOMENT --print-regs --json` names the thread and prints
#   its rip at that moment;
# - a moment the recording does not reach is refused with a message naming
#   it, and GDB stays where it was.
. "$(dirname "$0")/replay_gdb_lib.sh"
src=$FIXTURE_SRC/thr_watch.c
b3=$(line_of WATCH_B3 "$src")
rec=$WORK/moments.rec
"$SLSDBG" record -o "$rec" -- "$PROGRAMS/thr_watch" >"$WORK/record.out" 2>&1 </dev/null ||
  { cat "$WORK/record.out"; die "recording"; }
expect "$WORK/record.out" '^shared 3 seen 3$' "the recorded run's output"

out=$WORK/first.out
replay_gdb "$rec" "$out" -ex "break thr_watch.c:$b3" -ex 'continue' -ex 'stepi' -ex 'stepi' \
  -ex 'print $_thread' -ex 'printf "pc=%#lx\n", $pc' -ex 'print shared' -ex 'monitor when' -ex 'monitor bookmark afterB3'
expect "$out" '^\$1 = 2$' "the breakpoint stops in the writer (GDB thread 2)"
moment=$(sed -n 's/^Moment: //p' "$out" | head -1)
pc=$(sed -n 's/^pc=//p' "$out" | head -1)
shared=$(sed -n 's/^\$2 = //p' "$out" | head -1)
case "$moment" in
  [0-9]*:t=[0-9]*:pc=0x*:n=1:steps=2) ;;
  *) cat "$out"; die "monitor when: moment '$moment' is not an arrival of a thread plus 2 steps" ;;
esac
expect "$out" "^bookmark afterB3 = $moment\$" "the bookmark keeps the moment"
echo "moment: $moment (pc $pc, shared $shared)"

out=$WORK/second.out
replay_gdb "$rec" "$out" -ex 'goto afterB3' -ex 'print $_thread' -ex 'printf "pc=%#lx\n", $pc' \
  -ex 'print shared' -ex "monitor goto 0" -ex "goto $moment" -ex 'printf "pc=%#lx\n", $pc' \
  -ex 'monitor goto 1:t=1:pc=0x10:n=1' -ex 'monitor when' -ex 'monitor bookmarks'
expect "$out" "^now at $moment\$" "goto by the bookmark"
expect "$out" '^\$1 = 2$' "the writer thread is current there"
[ "$(grep -c "^pc=$pc\$" "$out")" -eq 2 ] || { cat "$out"; die "pc after goto is not $pc (twice)"; }
expect "$out" "^\\\$2 = $shared\$" "shared as in the first session"
expect "$out" 'moment 1:t=1:pc=0x10:n=1: position not reached in segment 1' "an unreachable moment is refused by name"
expect "$out" "^Moment: $moment\$" "and GDB stays where it was"
expect "$out" "^  afterB3  $moment\$" "monitor bookmarks lists it"

"$SLSDBG" replay "$rec" --goto "$moment" --print-regs --json >"$WORK/goto.json" 2>"$WORK/goto.err" ||
  { cat "$WORK/goto.err"; die "replay --goto MOMENT on a recording with threads"; }
python3 - "$WORK/goto.json" "$moment" "$pc" <<'PY' || { cat "$WORK/goto.json"; die "--goto --json"; }
import json, sys
d = json.load(open(sys.argv[1]))
assert d["moment"] == sys.argv[2], d["moment"]
tid = int(sys.argv[2].split(":t=")[1].split(":")[0])
assert d["thread"] == tid, d["thread"]
assert int(d["regs"]["rip"], 16) == int(sys.argv[3], 16), (d["regs"]["rip"], sys.argv[3])
PY
if "$SLSDBG" replay "$rec" --goto "1:t=1:resume=x" --print-regs 2>"$WORK/bad.err"; then die "a malformed moment was accepted"; fi
expect "$WORK/bad.err" "position '1:t=1:resume=x': resume is not a number" "a malformed moment names the part"
echo "replay_gdb_threads_moments: OK"
