#!/usr/bin/env bash
# `catch syscall exit_group` with real GDB: the end of history stands where
# the exit call is about to run, so a continue stops there first as the
# call's entry (its status argument in rdi), the next continue shows the end,
# and continuing at the end stays there. A reverse continue from the end
# stops at the entry again, then goes on back. A shell recording (the case a
# user met: `sh -c 'exit 3'`) and a threaded fixture; `catch syscall exit`
# (another call) does not stop there.
. "$(dirname "$0")/replay_gdb_lib.sh"

check_exit_catch() {  # check_exit_catch REC STATUS WHAT
  local rec=$1 status=$2 what=$3 out=$WORK/$3.out
  replay_gdb "$rec" "$out" -ex 'catch syscall exit_group' \
    -ex 'continue' -ex 'print $rdi' \
    -ex 'echo ---end\n' -ex 'continue' -ex 'continue' \
    -ex 'echo ---reverse\n' -ex 'reverse-continue' -ex 'print $rdi' -ex 'reverse-continue'
  sed -n '1,/^---end/p' "$out" >"$WORK/$what.fwd"
  sed -n '/^---end/,/^---reverse/p' "$out" >"$WORK/$what.end"
  sed -n '/^---reverse/,$p' "$out" >"$WORK/$what.rev"
  expect "$WORK/$what.fwd" '^Catchpoint 1 \(call to syscall exit_group\)' "$what: continue stops at exit_group's entry"
  expect "$WORK/$what.fwd" "^\\\$1 = $status\$" "$what: the status argument at the entry"
  expect "$WORK/$what.end" "the program exited with status $status here" "$what: the next continue shows the end"
  [ "$(grep -c '^Catchpoint' "$WORK/$what.end")" -eq 0 ] || { cat "$out"; die "$what: the end was shown as the call again"; }
  [ "$(grep -c 'No more reverse-execution history' "$WORK/$what.end")" -eq 2 ] || { cat "$out"; die "$what: continuing at the end should stay at the end"; }
  expect "$WORK/$what.rev" '^Catchpoint 1 \(call to syscall exit_group\)' "$what: reverse-continue from the end stops at the entry"
  expect "$WORK/$what.rev" "^\\\$2 = $status\$" "$what: the status argument again"
  expect "$WORK/$what.rev" 'No more reverse-execution history' "$what: then back to the start"
}

rec=$WORK/sh.rec
"$SLSDBG" record -o "$rec" -- sh -c 'exit 3' >/dev/null 2>"$WORK/rec.err"
[ $? -eq 3 ] || { cat "$WORK/rec.err"; die "recording sh -c 'exit 3' failed"; }
check_exit_catch "$rec" 3 sh

out=$WORK/other.out
replay_gdb "$rec" "$out" -ex 'catch syscall exit' -ex 'continue'
expect "$out" 'the program exited with status 3 here' "catch syscall exit: the end"
[ "$(grep -c '^Catchpoint 1 (call' "$out")" -eq 0 ] || { cat "$out"; die "catch syscall exit stopped at exit_group"; }

rec=$WORK/thr.rec
"$SLSDBG" record -o "$rec" -- "$PROGRAMS/thr_tight_loop" >/dev/null 2>"$WORK/rec2.err" || { cat "$WORK/rec2.err"; die "recording thr_tight_loop failed"; }
grep -q 'ran 2 threads' "$WORK/rec2.err" || { cat "$WORK/rec2.err"; die "thr_tight_loop did not record as threaded"; }
check_exit_catch "$rec" 0 threads
echo "replay_gdb_catch_exit: OK"
