#!/usr/bin/env bash
# A packed recording moved to another directory, with the original program
# renamed away, replays from the pack's copies: `replay --check` is OK,
# GDB breaks at a function by name and prints a local, `backtrace --last`
# and a core from `dump` name the program's functions. The same recording
# unpacked names the missing program in a warning instead.
. "$(dirname "$0")/replay_gdb_lib.sh"
src=$FIXTURE_SRC/divert_io.c
sum_line=$(line_of SUM "$src")
mkdir -p "$WORK/bin" "$WORK/elsewhere"
prog=$WORK/bin/divert_io
cp "$PROGRAMS/divert_io" "$prog"
for name in packed plain; do
  "$SLSDBG" record -o "$WORK/$name.rec" -- "$prog" >"$WORK/record.out" 2>&1 || { cat "$WORK/record.out"; die "recording"; }
done
"$SLSDBG" pack "$WORK/packed.rec" >"$WORK/pack.out" 2>&1 || { cat "$WORK/pack.out"; die "pack failed"; }
mv "$WORK/packed.rec" "$WORK/elsewhere/moved.rec"
mv "$WORK/plain.rec" "$WORK/elsewhere/plain.rec"
mv "$prog" "$prog.renamed"
rec=$WORK/elsewhere/moved.rec
plain=$WORK/elsewhere/plain.rec
missing="$prog is missing \(recorded build-id [0-9a-f]+\)"

"$SLSDBG" replay "$rec" --check >"$WORK/check.out" 2>&1 || { cat "$WORK/check.out"; die "replay --check of the moved pack"; }
expect "$WORK/check.out" '^OK: ' "replay --check of the moved pack"
expect "$WORK/check.out" "^slsdbg replay: warning: $missing; using the packed copy$" "--check names the packed copy"

out=$WORK/gdb.out
replay_gdb "$rec" "$out" -ex 'break checksum' -ex 'continue' -ex "break divert_io.c:$sum_line" -ex 'continue' \
  -ex 'print total' -ex 'info proc exe'
expect "$out" '^Breakpoint 1, checksum \(rounds=10\) at .*divert_io\.c:' "GDB breaks at a function by name"
expect "$out" '^\$1 = 165$' "GDB prints a local"

"$SLSDBG" backtrace "$rec" --last >"$WORK/bt.out" 2>&1 || { cat "$WORK/bt.out"; die "backtrace --last"; }
# The last moment is the exit: the program's own frame left is _start (in .symtab only).
expect "$WORK/bt.out" " in _start\+0x[0-9a-f]+ \($prog\)$" "backtrace --last names the program's function from the pack"
expect "$WORK/bt.out" "^slsdbg backtrace: warning: $missing; using the packed copy$" "backtrace names the packed copy"

(cd "$WORK" && "$SLSDBG" dump "$rec" --last -o last.core) >"$WORK/dump.out" 2>&1 || { cat "$WORK/dump.out"; die "dump --last"; }
expect "$WORK/dump.out" "^open with: gdb -iex 'set sysroot $rec/pack' $rec/pack$prog last.core$" "dump says how to open the core"
gdb -nx -batch -iex "set sysroot $rec/pack" -ex 'bt' "$rec/pack$prog" "$WORK/last.core" >"$WORK/core.out" 2>&1
expect "$WORK/core.out" " in _start \(\)$" "the core's backtrace names the program's function"
expect "$WORK/core.out" " in __libc_start_call_main \(" "the core's backtrace names libc's functions"

# Unpacked: the missing program is named, and nothing pretends to know its symbols.
"$SLSDBG" backtrace "$plain" --last >"$WORK/plain_bt.out" 2>&1
expect "$WORK/plain_bt.out" "^slsdbg backtrace: warning: $missing; debug info may not match$" "backtrace names the missing program"
if grep -q ' in _start' "$WORK/plain_bt.out"; then cat "$WORK/plain_bt.out"; die "_start resolved without the program"; fi
(cd "$WORK" && "$SLSDBG" dump "$plain" --last -o plain.core) >"$WORK/plain_dump.out" 2>&1 || die "dump of the unpacked recording"
expect "$WORK/plain_dump.out" "^slsdbg dump: warning: $missing; debug info may not match$" "dump names the missing program"
if grep -q '^open with' "$WORK/plain_dump.out"; then die "dump offers a pack that does not exist"; fi
"$SLSDBG" replay "$plain" --check >"$WORK/plain_check.out" 2>&1
expect "$WORK/plain_check.out" "^slsdbg replay: warning: $missing; debug info may not match$" "--check names the missing program"
echo "pack_moved: OK"
