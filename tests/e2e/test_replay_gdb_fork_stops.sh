#!/usr/bin/env bash
# Fork and vfork stops in GDB (fork-events+, vfork-events+) on a recording of
# fork_stops: `catch fork` / `catch vfork` stop at each call's return naming
# the recorded child, GDB detaches the child (detach-on-fork on) and the
# replay of the parent goes on (its breakpoint after each call is hit, with
# the recorded argument); reverse-continue stops at the same two calls, in
# the opposite order, and forward again after them. The children stay
# replayable on their own (replay -p PID --check). A shell pipeline too.
. "$(dirname "$0")/replay_gdb_lib.sh"
rec=$WORK/fork.rec
record_fork_stops "$rec"

out=$WORK/gdb.out
replay_gdb "$rec" "$out" -ex 'break after_fork' -ex 'catch fork' -ex 'catch vfork' \
  -ex 'continue' -ex 'continue' -ex 'print which' \
  -ex 'continue' -ex 'continue' -ex 'print which' \
  -ex 'echo ---reverse\n' -ex 'reverse-continue' -ex 'reverse-continue' -ex 'print which' -ex 'reverse-continue' \
  -ex 'echo ---forward\n' -ex 'continue' -ex 'print which' -ex 'continue' -ex 'continue' -ex 'print which'
sed -n '/^---reverse/,/^---forward/p' "$out" >"$WORK/rev.out"
sed -n '/^---forward/,$p' "$out" >"$WORK/fwd.out"
expect "$out" "^Catchpoint 2 \(forked process $forked\), " "catch fork stops, naming the recorded child"
expect "$out" "^\[Detaching after fork from child process $forked\]" "GDB detaches the fork child"
expect "$out" '^\$1 = 1$' "the parent's replay goes on after the fork"
expect "$out" "^Catchpoint 3 \(vforked process $vforked\), " "catch vfork stops, naming the recorded child"
expect "$out" "^\[Detaching after vfork from child process $vforked\]" "GDB detaches the vfork child"
expect "$out" '^\$2 = 30$' "after the vfork: the fork child's exit status through the parent's wait"
expect "$WORK/rev.out" "^Catchpoint 3 \(vforked process $vforked\), " "reverse-continue stops at the vfork"
expect "$WORK/rev.out" '^\$3 = 1$' "then at the breakpoint before it"
expect "$WORK/rev.out" "^Catchpoint 2 \(forked process $forked\), " "then at the fork"
expect "$WORK/fwd.out" '^\$4 = 1$' "forward from the fork: the breakpoint after it"
expect "$WORK/fwd.out" "^Catchpoint 3 \(vforked process $vforked\), " "and the vfork again"
expect "$WORK/fwd.out" '^\$5 = 30$' "and the breakpoint after it"
if grep -q "internal-error\|Remote failure" "$out"; then cat "$out"; die "GDB reported an error"; fi

# Without catchpoints GDB follows each fork by itself: only the breakpoints stop.
out=$WORK/plain.out
replay_gdb "$rec" "$out" -ex 'break after_fork' -ex 'continue' -ex 'continue' -ex 'reverse-continue' -ex 'print which'
[ "$(grep -c '^Breakpoint 1, after_fork' "$out")" -eq 3 ] || { cat "$out"; die "expected three breakpoint stops"; }
expect "$out" '^\$1 = 1$' "reverse-continue across the vfork finds the breakpoint before it"

# A shell pipeline: two forks, and the shell's recorded SIGCHLD on the way
# (a continue that looks for the next fork from a signal stop delivered it
# first; before, it reported the same signal for ever).
rec2=$WORK/sh.rec
"$SLSDBG" record -o "$rec2" -- /bin/sh -c 'ls / | wc -l' >"$WORK/sh.out" 2>"$WORK/sh.err" || { cat "$WORK/sh.err"; die "recording sh"; }
out=$WORK/sh_gdb.out
replay_gdb "$rec2" "$out" -ex 'catch fork' -ex 'continue' -ex 'continue' -ex 'continue' -ex 'reverse-continue'
[ "$(grep -c '^Catchpoint 1 (forked process [0-9]*)' "$out")" -eq 3 ] || { cat "$out"; die "expected the pipeline's two forks, then the last again in reverse"; }
expect "$out" 'the program exited with status 0 here' "the third continue runs to the shell's exit"

# At 1 ms ticks a tick is often due at the fork's exit stop: the next
# checkpoint then stands at the fork's return, the segment's last event.
# reverse-continue must still stop at the fork (it used to run to the
# start of history), in each of three recordings.
for i in 1 2 3; do
  r=$WORK/tick$i.rec
  "$SLSDBG" record --interval 1 -o "$r" -- "$PROGRAMS/fork_stops" >/dev/null 2>"$WORK/tick.err" || { cat "$WORK/tick.err"; die "recording fork_stops at 1 ms"; }
  out=$WORK/tick$i.out
  replay_gdb "$r" "$out" -ex 'break after_fork' -ex 'catch fork' -ex 'catch vfork' -ex 'continue' -ex 'continue' \
    -ex 'continue' -ex 'continue' -ex 'echo ---reverse\n' -ex 'reverse-continue' -ex 'reverse-continue' -ex 'reverse-continue'
  sed -n '/^---reverse/,$p' "$out" >"$WORK/tick_rev.out"
  expect "$WORK/tick_rev.out" "^Catchpoint 2 \(forked process [0-9]*\), " "recording $i at 1 ms ticks: reverse-continue stops at the fork"
done

for child in "$forked" "$vforked"; do
  "$SLSDBG" replay "$rec" -p "$child" --check >"$WORK/check.out" 2>&1 || { cat "$WORK/check.out"; die "replay -p $child --check"; }
done
echo "replay_gdb_fork_stops: OK (children $forked, $vforked)"
