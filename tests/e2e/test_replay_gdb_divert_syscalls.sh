#!/usr/bin/env bash
# Syscalls in a diversion touch no file: GDB's `print say(5)` writes to
# stdout, which reaches slsdbg's own output (the terminal GDB runs in), and
# `print create_target()` tries to create a file, which fails with ENOSYS
# (-38) and creates nothing. History is untouched afterwards.
. "$(dirname "$0")/replay_gdb_lib.sh"
prog=$PROGRAMS/divert_io
sum_line=$(line_of SUM "$FIXTURE_SRC/divert_io.c")
target=$WORK/created_by_diversion
rec=$WORK/divert.rec
"$SLSDBG" record -o "$rec" -- "$prog" "$target" >"$WORK/record.out" 2>&1 || { cat "$WORK/record.out"; die "recording"; }
[ ! -e "$target" ] || die "the fixture created the file itself"
out=$WORK/gdb.out
replay_gdb "$rec" "$out" \
  -ex "break divert_io.c:$sum_line" \
  -ex 'continue' \
  -ex 'print say(5)' \
  -ex 'print create_target()' \
  -ex 'print total' \
  -ex 'print rounds'
expect "$out" "^Breakpoint 1, checksum \(rounds=10\) at .*divert_io\.c:$sum_line" "continue stops at the breakpoint"
expect "$out" '^diverted 5$' "write(1) in a diversion reaches slsdbg's stdout"
expect "$out" '^\$1 = 11$' "write(1) returns its count"
expect "$out" '^\$2 = -38$' "open in a diversion fails with ENOSYS"
[ ! -e "$target" ] || die "a diversion created a file"
expect "$out" '^\$3 = 165$' "history is untouched (a local after the calls)"
expect "$out" '^\$4 = 10$' "history is untouched (an argument)"
echo "replay_gdb_divert_syscalls: OK"
