#!/usr/bin/env bash
# Checks `catch syscall` on a recording made with the syscall buffer, where
# the write that crash_uaf makes first is the call whose exit stop patched
# glibc's sites: it returns past the patch, at the forced checkpoint that
# follows (gdbserver/replay/catch_syscalls.cc; before, GDB got "E01": the
# return was looked for at the site's pc + 2, which never runs again).
# Forward: the entry of write, then its return with the recorded result.
# Reverse: back to that return, then its entry; catching every syscall, the
# return of write comes first, then its entry, then the return before it.
. "$(dirname "$0")/replay_gdb_lib.sh"
prog=$PROGRAMS/crash_uaf
rec=$WORK/uaf.rec
"$SLSDBG" record -o "$rec" --syscall-buffer -- "$prog" >/dev/null 2>"$WORK/rec.err"
[ $? -eq 139 ] || { cat "$WORK/rec.err"; die "recording crash_uaf failed"; }
grep -q "syscall buffer: [0-9]* syscalls buffered, [1-9][0-9]* glibc sites patched" "$WORK/rec.err" ||
  { cat "$WORK/rec.err"; die "no site was patched"; }

out=$WORK/write.out
replay_gdb "$rec" "$out" -ex 'catch syscall write' -ex 'continue' -ex 'continue' -ex 'print $rax' -ex 'continue' \
  -ex 'echo ---reverse\n' \
  -ex 'reverse-continue' -ex 'print $rax' \
  -ex 'reverse-continue' -ex 'print $rdx' \
  -ex 'reverse-continue'
sed -n '/^---reverse/,$p' "$out" >"$WORK/rev.out"
expect "$out" '^Catchpoint [12] \(call to syscall write\)' "forward: the entry of write"
expect "$out" '^Catchpoint [12] \(returned from syscall write\)' "forward: its return"
expect "$out" '^\$1 = 8$' "forward: at the return, the recorded result"
expect "$out" '^Program received signal SIGSEGV' "forward: the crash"
expect "$WORK/rev.out" '^Catchpoint [12] \(returned from syscall write\)' "reverse-continue stops at the return of write"
expect "$WORK/rev.out" '^\$2 = 8$' "at the return, the recorded result"
expect "$WORK/rev.out" '^Catchpoint [12] \(call to syscall write\)' "then at its entry"
expect "$WORK/rev.out" '^\$3 = 8$' "at the entry, the length argument"
expect "$WORK/rev.out" 'No more reverse-execution history' "no earlier write: the start of history"

out=$WORK/all.out
replay_gdb "$rec" "$out" -ex 'break crash_uaf.c:'"$(line_of CRASH "$FIXTURE_SRC/crash_uaf.c")" \
  -ex 'continue' -ex 'delete 1' -ex 'catch syscall' \
  -ex 'echo ---reverse\n' \
  -ex 'reverse-continue' -ex 'reverse-continue' -ex 'reverse-continue'
sed -n '/^---reverse/,$p' "$out" >"$WORK/rev2.out"
expect "$WORK/rev2.out" '^Catchpoint [12] \(returned from syscall write\)' "all syscalls: the return of write first"
expect "$WORK/rev2.out" '^Catchpoint [12] \(call to syscall write\)' "then its entry"
last=$(grep '^Catchpoint [12]' "$WORK/rev2.out" | tail -1)
case "$last" in
  *"returned from syscall write"*) cat "$out"; die "the third stop should be the syscall before write, got: $last" ;;
  *returned*) ;;
  *) cat "$out"; die "the third reverse stop is not a syscall return: $last" ;;
esac
echo "replay_gdb_catch_syscall_buffer: OK"
