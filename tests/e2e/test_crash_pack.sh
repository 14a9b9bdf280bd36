#!/usr/bin/env bash
# Build-ids and packs: replay warns by name when a binary the recording mapped
# changed or is missing; `slsdbg pack` copies the mapped files into the
# recording, which then replays in GDB from another directory with the
# original program renamed.
. "$(dirname "$0")/replay_gdb_lib.sh"
src=$FIXTURE_SRC/crash_uaf.c
crash_line=$(line_of CRASH "$src")
mkdir -p "$WORK/bin"
prog=$WORK/bin/uaf
cp "$PROGRAMS/crash_uaf" "$prog"
rec=$WORK/uaf.rec
"$SLSDBG" record -o "$rec" -- "$prog" >/dev/null 2>&1
[ $? -eq 139 ] || die "recording the crashing fixture"

# A changed binary: another program at the same path.
cp "$prog" "$WORK/uaf.orig"
cp "$PROGRAMS/timeline_fault" "$prog"
out=$WORK/changed.out
replay_gdb "$rec" "$out" -ex 'info registers rip'
expect "$out" "^slsdbg: warning: $prog changed since recording \(build-id [0-9a-f]+, recorded [0-9a-f]+\); debug info may not match$" \
  "a changed binary is named"
cp "$WORK/uaf.orig" "$prog"
out=$WORK/same.out
replay_gdb "$rec" "$out" -ex 'info registers rip'
if grep -q 'warning: .*\(changed\|missing\|CPU\)' "$out"; then cat "$out"; die "warnings for an unchanged recording"; fi

"$SLSDBG" pack "$rec" >"$WORK/pack.out" 2>&1 || { cat "$WORK/pack.out"; die "pack failed"; }
expect "$WORK/pack.out" "^packed [0-9]+ files" "pack reports what it copied"
[ -f "$rec/pack$prog" ] || die "the program is not in the pack"
[ -n "$(find "$rec/pack" -name 'libc.so*')" ] || die "libc is not in the pack"
"$SLSDBG" pack "$rec" >"$WORK/pack2.out" 2>&1 || die "pack twice failed"
expect "$WORK/pack2.out" "^packed 0 files .* [0-9]+ were there already$" "pack twice copies nothing"

mkdir -p "$WORK/moved"
mv "$rec" "$WORK/moved/uaf.rec"
mv "$prog" "$prog.renamed"
out=$WORK/moved.out
replay_gdb "$WORK/moved/uaf.rec" "$out" -ex 'continue' -ex 'bt 1' -ex 'print *ptr'
expect "$out" "^slsdbg: warning: $prog is missing \(recorded build-id [0-9a-f]+\); using the packed copy$" \
  "the missing program is named and the packed copy used"
expect "$out" '^Program received signal SIGSEGV, Segmentation fault\.$' "the moved pack replays to the crash"
expect "$out" "^#0  main \(.*\) at .*crash_uaf\.c:$crash_line" "GDB has the symbols from the pack"
expect "$out" '^\$1 = \{value = 7, next = 0x10\}$' "p *ptr from the moved pack"

"$SLSDBG" pack "$WORK/nonexistent.rec" >"$WORK/bad.out" 2>&1
[ $? -eq 1 ] || die "pack of a missing recording should exit 1"
"$SLSDBG" pack >"$WORK/bad.out" 2>&1
[ $? -eq 2 ] || die "pack without a recording is a usage error (2)"
echo "crash_pack: OK"
