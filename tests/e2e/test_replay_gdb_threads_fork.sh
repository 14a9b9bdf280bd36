#!/usr/bin/env bash
# Fork stops in GDB on a recording with threads (thr_fork: a worker thread
# counts while the main thread forks): `catch fork` stops at the fork's
# return in the forking thread, naming the recorded child; GDB detaches it
# and the replay goes on to the breakpoint after the wait (the child's exit
# status); reverse-continue stops at the fork again, and forward once more.
. "$(dirname "$0")/replay_gdb_lib.sh"
rec=$WORK/thr_fork.rec
"$SLSDBG" record -o "$rec" -- "$PROGRAMS/thr_fork" >"$WORK/record.out" 2>"$WORK/record.err" ||
  { cat "$WORK/record.err"; die "recording thr_fork"; }
child=$(sed -n 's/^thr_fork: child \([0-9]*\), status 4, counted 2000000$/\1/p' "$WORK/record.out")
[ -n "$child" ] || { cat "$WORK/record.out"; die "thr_fork did not print its child"; }

out=$WORK/gdb.out
replay_gdb "$rec" "$out" -ex 'break after_fork' -ex 'catch fork' -ex 'continue' -ex 'continue' -ex 'print status' \
  -ex 'echo ---reverse\n' -ex 'reverse-continue' -ex 'echo ---forward\n' -ex 'continue' -ex 'print status + 1'
sed -n '/^---reverse/,/^---forward/p' "$out" >"$WORK/rev.out"
expect "$out" "hit Catchpoint 2 \(forked process $child\), " "catch fork stops, naming the recorded child"
expect "$out" "^\[Detaching after fork from child process $child\]" "GDB detaches the child"
expect "$out" '^\$1 = 4$' "the replay goes on after the fork: the child's exit status"
expect "$WORK/rev.out" "hit Catchpoint 2 \(forked process $child\), " "reverse-continue stops at the fork"
expect "$out" '^\$2 = 5$' "forward again from the fork: the breakpoint after it"
if grep -q "internal-error\|Remote failure\|Remote communication error" "$out"; then cat "$out"; die "GDB reported an error"; fi
echo "replay_gdb_threads_fork: OK (child $child)"
