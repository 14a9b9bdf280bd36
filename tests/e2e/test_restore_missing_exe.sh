#!/usr/bin/env bash
# Checks that a checkpoint restores when its executable was deleted after
# recording: the program's mappings come back from the recording as anonymous
# memory with one warning line per mapping, /proc/PID/exe cannot be set (one
# warning), and the restored process still prints what a native run printed.
set -u
work=$(mktemp -d "${TMPDIR:-/tmp}/restore_noexe.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

cp "$PROGRAMS/restore_compute" "$work/prog"
"$work/prog" 40000000 > "$work/native.out"; native_rc=$?
"$SLSDBG" record -o "$work/rec" --interval 80 -- "$work/prog" 40000000 > "$work/record.out" 2>&1
[ $? -eq "$native_rc" ] || { cat "$work/record.out"; fail "record: exit status differs from native $native_rc"; }
rm "$work/prog"
"$SLSDBG" restore "$work/rec" --at 1 > "$work/restored.out" 2> "$work/restored.err"; rc=$?
[ "$rc" -eq "$native_rc" ] || { cat "$work/restored.err"; fail "exit $rc, native $native_rc"; }
cmp -s "$work/native.out" "$work/restored.out" || fail "output differs: $(cat "$work/restored.out")"
n=$(grep -c "^slsdbg: warning: mapping [0-9a-f]*-[0-9a-f]* $work/prog: file missing since recording; restored its recorded pages as anonymous memory\$" "$work/restored.err")
[ "$n" -ge 2 ] || { cat "$work/restored.err"; fail "want a warning per mapping of the deleted program, got $n"; }
grep -q "^slsdbg: warning: /proc/PID/exe names the restorer: cannot open $work/prog: No such file or directory\$" "$work/restored.err" ||
  { cat "$work/restored.err"; fail "no warning about /proc/PID/exe"; }
echo "restore_missing_exe: OK"
