#!/usr/bin/env bash
# A read-only open runs for real in replay (a later mmap needs the file),
# but the filesystem is not the one the recording saw: reopen_changed reads
# back a file it wrote and then deletes (as `as` reads gcc's temporary .s
# file), and finds another missing that the test creates before replaying.
# Before, `replay --check` diverged at the first open ("= -2"); a placeholder
# now stands at the recorded descriptor, and a descriptor the recording did
# not get is closed, so later numbers stay in step.
source "$(dirname "$0")/record_lib.sh"
mkdir -p "$WORK/native" "$WORK/d"
expected=$("$PROGRAMS/reopen_changed" "$WORK/native") || die "native run failed: $expected"
out=$(timeout 60 "$SLSDBG" record -o "$WORK/rec" -- "$PROGRAMS/reopen_changed" "$WORK/d" 2>"$WORK/record.err" </dev/null)
[ "$out" = "$expected" ] || die "recorded output '$out', natively '$expected' ($(tail -3 "$WORK/record.err"))"
[ ! -e "$WORK/d/made" ] || die "the fixture did not delete its file"
touch "$WORK/d/later"
check=$(timeout 120 "$SLSDBG" replay "$WORK/rec" --check 2>&1 </dev/null) || die "replay --check: $check"
[[ "$check" == OK:* ]] || die "replay --check: $check"
# GDB at the end sees what the program read and the numbers it got.
gdb_out=$(timeout 120 "$SLSDBG" replay "$WORK/rec" -- -nx -batch -ex 'break close' -ex 'ignore 1 1' -ex 'continue' -ex 'up' \
  -ex 'print buf' -ex 'print missing' -ex 'print next' 2>&1 </dev/null)
grep -q '^\$1 = "written then read back"' <<<"$gdb_out" || die "GDB did not see the bytes read back: $gdb_out"
grep -q '^\$2 = -1$' <<<"$gdb_out" || die "the open of the file made since recording did not fail in replay: $gdb_out"
want_next=$(sed -n 's/.*next fd \([0-9]*\).*/\1/p' <<<"$expected")
grep -q "^\\\$3 = $want_next\$" <<<"$gdb_out" || die "the next descriptor is not $want_next as recorded: $gdb_out"
echo "$out; $(head -1 <<<"$check")"
echo "test_replay_reopen_changed: OK"
