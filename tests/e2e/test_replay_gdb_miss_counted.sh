#!/usr/bin/env bash
# #20 "no debug exception per visit": with SLSDBG_REPLAY_PATCH=miss the
# checkpoint's trampoline never matches, so after the user breakpoint's hit
# the run goes back to the rescue copy. There a copy of the tracee counts the
# visits of the checkpoint's pc in-process and learns which one is the
# checkpoint (checkpoint_arrival_counted.cc), instead of the perf breakpoint
# taking a kernel #DB at each visit (36 s at load 12 for this recording
# before, 2.5 M #DBs). revstep_far 3 2000000 with 4 ms checkpoints (a
# tick must end the 1st hit's segment; with 2 rounds and 10 ms ticks the
# one tick often came after the loop, test_replay_gdb_patched_user_breakpoint.sh); GDB
# `break FAR_MARK`, `ignore 1 1`, `continue` must stop at the 2nd hit
# (i = 1), and the perf breakpoints' #DBs (logged when each goes away) stay
# under a bound the old path exceeds by orders of magnitude.
. "$(dirname "$0")/replay_gdb_lib.sh"
src=$FIXTURE_SRC/revstep_far.c
prog=$PROGRAMS/revstep_far
mark=$(line_of FAR_MARK "$src")
max_db=20000

script=$WORK/ig.gdb
cat >"$script" <<GDB
break revstep_far.c:$mark
ignore 1 1
continue
printf "AT i=%ld\n", i
GDB

rec=$WORK/far.rec
out=$WORK/miss.out
# The 1st hit must come while a segment is patched (then the rescue copy
# takes over); the ticks land at random pcs, so up to 4 recordings.
for try in 1 2 3 4; do
  record "$rec" 4 "$prog" 3 2000000
  echo "recording $try: $checkpoints checkpoints"
  start=$SECONDS
  env SLSDBG_LOG=debug SLSDBG_REPLAY_PATCH=miss timeout 100 "$SLSDBG" replay "$rec" -- -nx -batch \
    -ex 'set pagination off' -ex 'set remotetimeout 600' -x "$script" >"$out" 2>&1 ||
    { tail -30 "$out"; die "miss: slsdbg replay failed (or over 100 s: a #DB per visit again?)"; }
  echo "miss: $((SECONDS - start)) s"
  grep -q "a trap for the observer while patched; going on from the rescue copy" "$out" && break
  [ "$try" = 4 ] && die "miss: in 4 recordings the 1st hit never came while a segment was patched"
done
expect "$out" "^Breakpoint 1, main .*revstep_far.c:$mark" "miss: stopped at the user breakpoint"
expect "$out" '^AT i=1$' "miss: at its 2nd hit"
if grep -q "the patched run reaches checkpoint" "$out"; then
  die "miss: a proof succeeded with a trampoline that never matches"
fi
grep -Eq "reached by count at visit|met an int3 at [^ ]* first" "$out" ||
  { grep -E "not reached by count|rescue" "$out" | head; die "miss: no checkpoint was reached by the counting copy"; }
dbs=$(grep -Eo 'perf breakpoint at [^ ]*: [0-9]+ debug exceptions' "$out" | awk '{s += $5} END {print s + 0}')
echo "miss: $dbs debug exceptions of perf breakpoints, $(grep -Ec 'reached by count at visit|met an int3' "$out") counted reaches"
[ "$dbs" -lt "$max_db" ] || die "miss: $dbs debug exceptions (bound $max_db): the rest of a segment trapped per visit"
echo "replay_gdb_miss_counted: OK"
