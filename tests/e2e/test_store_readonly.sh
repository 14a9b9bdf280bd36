#!/usr/bin/env bash
# A recording the user can read but not write opens read-only: as `nobody`,
# on a copy made read-only (chmod -R a-w), info, ls, backtrace --last, dump
# --last, replay --goto and GDB over the replay (reverse-continue included)
# all work and leave the recording's files exactly as they were (no lock
# file, no SQLite -wal/-shm). An unreadable recording is "permission denied"
# naming the path, not "not a recording". Root ignores file modes, hence
# nobody (setpriv).
. "$(dirname "$0")/replay_gdb_lib.sh"
command -v setpriv >/dev/null || die "setpriv (util-linux) is not installed"
[ "$(id -u)" -eq 0 ] || { echo "store_readonly: needs root to become nobody; skipped"; exit 0; }
prog=$PROGRAMS/crash_uaf
src=$FIXTURE_SRC/crash_uaf.c
crash_line=$(line_of CRASH "$src")
rec=$WORK/uaf.rec
"$SLSDBG" record -o "$rec" -- "$prog" >/dev/null 2>"$WORK/rec.err"
[ $? -eq 139 ] || { cat "$WORK/rec.err"; die "recording crash_uaf failed"; }

# Nobody cannot enter $WORK (0700 under $TMPDIR): a world-readable base in /tmp.
base=$(mktemp -d /tmp/slsdbg-ro.XXXXXX)
trap 'chmod -R u+w "$base" 2>/dev/null; rm -rf "$base"; cleanup' EXIT
chmod 755 "$base"
mkdir -m 777 "$base/out"
mkdir "$base/recs"
cp -a "$rec" "$base/recs/uaf"
chmod -R a+rX,a-w "$base/recs"
ro=$base/recs/uaf
snapshot() { find "$base/recs" -printf '%p %s %m\n' | sort; }
snapshot >"$WORK/before.txt"
as_nobody() {
  setpriv --reuid=nobody --regid=nogroup --clear-groups -- env HOME="$base/out" SLSDBG_DIR="$base/recs" TMPDIR="$base/out" "$@"
}
as_nobody true || die "cannot run as nobody"

as_nobody "$SLSDBG" info "$ro" >"$WORK/info.out" 2>&1 || { cat "$WORK/info.out"; die "info on a read-only recording failed"; }
expect "$WORK/info.out" 'killed by SIGSEGV' "info reads the read-only recording"
as_nobody "$SLSDBG" ls "$base/recs" >"$WORK/ls.out" 2>&1 || { cat "$WORK/ls.out"; die "ls failed"; }
expect "$WORK/ls.out" '^uaf .*crashed \(SIGSEGV\)' "ls lists the read-only recording"
as_nobody "$SLSDBG" backtrace "$ro" --last >"$WORK/bt.out" 2>&1 || { cat "$WORK/bt.out"; die "backtrace --last failed"; }
expect "$WORK/bt.out" "^#0  0x[0-9a-f]+ in main\+0x[0-9a-f]+ at .*crash_uaf\.c:$crash_line " "backtrace --last on the read-only recording"
as_nobody "$SLSDBG" dump "$ro" --last -o "$base/out/last.core" >"$WORK/dump.out" 2>&1 || { cat "$WORK/dump.out"; die "dump --last failed"; }
[ -s "$base/out/last.core" ] || die "dump wrote no core"
as_nobody "$SLSDBG" replay "$ro" --at 1 --print-regs >"$WORK/goto.out" 2>&1 || { cat "$WORK/goto.out"; die "replay --at 1 failed"; }
expect "$WORK/goto.out" '^rip +0x[0-9a-f]+$' "replay --at on the read-only recording"
out=$WORK/gdb.out
as_nobody timeout 300 "$SLSDBG" replay "$ro" -- -nx -batch -ex 'set pagination off' -ex 'continue' \
  -ex 'watch -l ptr->next' -ex 'reverse-continue' >"$out" 2>&1 || { cat "$out"; die "GDB over the read-only recording failed"; }
expect "$out" '^Program received signal SIGSEGV' "GDB continues to the crash"
expect "$out" "^$(line_of SMASH "$src")[[:space:]].*SMASH" "and reverse-continues to the smashing line"
snapshot >"$WORK/after.txt"
diff "$WORK/before.txt" "$WORK/after.txt" || die "reading the read-only recording changed its files"

# Unreadable: the directory, then only its catalog.
chmod -R u+w "$base/recs"
chmod 700 "$ro"
as_nobody "$SLSDBG" info "$ro" >"$WORK/denied.out" 2>&1 && die "info on an unreadable recording succeeded"
expect "$WORK/denied.out" "^slsdbg: info: cannot read $ro: permission denied$" "an unreadable recording directory is permission denied"
chmod 755 "$ro"
chmod 600 "$ro/catalog.db"
as_nobody "$SLSDBG" info "$ro" >"$WORK/denied2.out" 2>&1 && die "info on an unreadable catalog succeeded"
expect "$WORK/denied2.out" "^slsdbg: info: cannot read $ro/catalog.db: permission denied$" "an unreadable catalog is permission denied"
as_nobody "$SLSDBG" replay "$ro" --check >"$WORK/denied3.out" 2>&1 && die "replay of an unreadable recording succeeded"
expect "$WORK/denied3.out" "permission denied" "replay says permission denied too"
if grep -q 'not a recording' "$WORK"/denied*.out; then cat "$WORK"/denied*.out; die "a permission error reads as 'not a recording'"; fi
echo "store_readonly: OK"
