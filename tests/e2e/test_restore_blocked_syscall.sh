#!/usr/bin/env bash
# Checks restoring a checkpoint taken while the program was blocked in a
# system call (nanosleep): the checkpoint holds the state just before the
# syscall, --verify finds the restored process equal to it, and resumed, the
# syscall is re-issued and the program completes as natively (no EINTR).
set -u
work=$(mktemp -d "${TMPDIR:-/tmp}/restore_blocked.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$PROGRAMS/restore_sleeper" 10 > "$work/native.out" || fail "native run failed"
"$SLSDBG" record -o "$work/rec" --interval 250 -- "$PROGRAMS/restore_sleeper" 10 > "$work/record.out" 2>&1 || {
  cat "$work/record.out"; fail "recording failed"; }
for mode in "" --lazy; do
  "$SLSDBG" restore "$work/rec" --at 1 --verify $mode > "$work/restored.out" 2> "$work/restored.err" ||
    { cat "$work/restored.err"; fail "restore $mode failed"; }
  grep -q '^slsdbg: verified: registers, memory map, [0-9]* descriptors and [0-9]* pages equal checkpoint 1$' "$work/restored.err" ||
    { cat "$work/restored.err"; fail "no verification line ($mode)"; }
  cmp -s "$work/native.out" "$work/restored.out" || fail "output differs ($mode): $(cat "$work/restored.out")"
done
echo "restore_blocked_syscall: OK"
