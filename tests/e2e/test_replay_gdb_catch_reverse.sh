#!/usr/bin/env bash
# `catch syscall` in reverse, with real GDB on a recording of crash_uaf: from
# the crash, reverse-continue stops at the return of the recorded write (rax
# holds its result), then at its entry (rdx its length), then, with no
# earlier write, at the start of history. Catching every syscall, the step
# back from write's entry is the return of the syscall before it.
. "$(dirname "$0")/replay_gdb_lib.sh"
prog=$PROGRAMS/crash_uaf
rec=$WORK/uaf.rec
"$SLSDBG" record -o "$rec" -- "$prog" >/dev/null 2>"$WORK/rec.err"
[ $? -eq 139 ] || { cat "$WORK/rec.err"; die "recording crash_uaf failed"; }

out=$WORK/write.out
replay_gdb "$rec" "$out" -ex 'catch syscall write' -ex 'continue' -ex 'continue' -ex 'continue' \
  -ex 'echo ---reverse\n' \
  -ex 'reverse-continue' -ex 'print $rax' \
  -ex 'reverse-continue' -ex 'print $rdx' \
  -ex 'reverse-continue'
sed -n '/^---reverse/,$p' "$out" >"$WORK/rev.out"
expect "$out" '^Program received signal SIGSEGV' "forward: the crash"
expect "$WORK/rev.out" '^Catchpoint [12] \(returned from syscall write\)' "reverse-continue stops at the return of write"
expect "$WORK/rev.out" '^\$1 = 8$' "at the return, the recorded result"
expect "$WORK/rev.out" '^Catchpoint [12] \(call to syscall write\)' "then at its entry"
expect "$WORK/rev.out" '^\$2 = 8$' "at the entry, the length argument"
expect "$WORK/rev.out" 'No more reverse-execution history' "no earlier write: the start of history"
[ "$(grep -c '^Catchpoint [12]' "$WORK/rev.out")" -eq 2 ] || { cat "$out"; die "expected exactly two catchpoint stops in reverse"; }

# Every syscall: back from write's entry is the return of the one before it.
out=$WORK/all.out
replay_gdb "$rec" "$out" -ex 'break crash_uaf.c:'"$(line_of CRASH "$FIXTURE_SRC/crash_uaf.c")" \
  -ex 'continue' -ex 'delete 1' -ex 'catch syscall' \
  -ex 'echo ---reverse\n' \
  -ex 'reverse-continue' -ex 'reverse-continue' -ex 'reverse-continue' -ex 'print $pc'
sed -n '/^---reverse/,$p' "$out" >"$WORK/rev2.out"
expect "$WORK/rev2.out" '^Catchpoint [12] \(returned from syscall write\)' "all syscalls: the return of write first"
expect "$WORK/rev2.out" '^Catchpoint [12] \(call to syscall write\)' "then its entry"
expect "$WORK/rev2.out" '^Catchpoint [12] \(returned from syscall [a-z_0-9]+\)' "then a return"
last=$(grep '^Catchpoint [12]' "$WORK/rev2.out" | tail -1)
case "$last" in
  *"returned from syscall write"*) cat "$out"; die "the third stop should be the syscall before write, got: $last" ;;
  *returned*) ;;
  *) cat "$out"; die "the third reverse stop is not a syscall return: $last" ;;
esac
echo "replay_gdb_catch_reverse: OK"
