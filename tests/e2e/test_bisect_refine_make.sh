#!/usr/bin/env bash
# bisect refinement on a real program that spawns children: make's
# `commands_started` (a global of make itself) passing 1. The refinement
# writes a core of each watchpoint stop with the last good checkpoint's
# map, and a mapping posix_spawn unmapped in the segment (its child's
# stack) could not be read back: "not refined: writing the core of
# watchpoint stop 1 ...: pread(/proc/PID/mem) ...: Input/output error". The
# core now takes the moment's own map, and a mapping it cannot read goes in
# without contents; the answer is the instruction in make that counted.
source "$(dirname "$0")/record_lib.sh"
command -v make >/dev/null || die "make is not installed"
gdb -nx -batch -ex 'info address commands_started' /usr/bin/make 2>&1 | grep -q 'is at 0x' \
  || die "/usr/bin/make has no symbol commands_started (Debian's make 4.3 has)"
mkdir -p "$WORK/mk"
printf 'all: a b c\na:\n\t/bin/true a\nb:\n\t/bin/true b\nc:\n\t/bin/true c\n' >"$WORK/mk/Makefile"
rec=$WORK/make.rec
"$SLSDBG" record -o "$rec" -- make -s -j2 -C "$WORK/mk" >"$WORK/make.out" 2>&1 </dev/null || { cat "$WORK/make.out"; die "recording make failed"; }
out=$WORK/bisect.out
timeout 300 "$SLSDBG" bisect "$rec" --expr '*(unsigned int*)&commands_started < 2' >"$out" 2>&1
rc=$?
[ "$rc" -eq 0 ] || { cat "$out"; die "bisect exited $rc"; }
grep -q '^refined: the invariant flips at moment ' "$out" || { cat "$out"; die "bisect did not refine to a moment"; }
grep -q 'not refined' "$out" && { cat "$out"; die "bisect: not refined"; }
grep -Eq '^#[0-9]+ .* in new_job\+0x[0-9a-f]+ \(/usr/bin/make\)' "$out" || { cat "$out"; die "the answer's backtrace does not pass through make's new_job"; }
echo "test_bisect_refine_make: $(grep '^refined:' "$out" | cut -c1-90): OK"
