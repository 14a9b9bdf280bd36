#!/usr/bin/env bash
# Checks that a forced checkpoint (after capget, a syscall the recorder has no
# model for) is crossed by restore and everything else by execution:
# `slsdbg replay --check` says so (boundaries.py) and exits 0;
# in GDB, reverse-stepi from it lands on the unmodelled call.
set -u
tmp=$(mktemp -d "${TMPDIR:-/tmp}/replay_forced.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
"$SLSDBG" record -o "$tmp/rec" -- "$PROGRAMS/replay_forced" >"$tmp/native.out" 2>"$tmp/rec.err" ||
  { echo "recording failed: $(cat "$tmp/rec.err")"; exit 1; }
grep -q 'replay_forced: capget 0' "$tmp/native.out" || { echo "fixture output: $(cat "$tmp/native.out")"; exit 1; }
out=$(timeout 300 "$SLSDBG" replay "$tmp/rec" --check 2>&1); rc=$?
[ "$rc" -eq 0 ] || { echo "--check exit $rc: $out"; exit 1; }
cps=$(sed -n 's/^OK: \([0-9]*\) checkpoints.*/\1/p' <<<"$out")
# One forced checkpoint (capget); the syscall buffer's "patch" ones are
# crossed by restore too (boundaries.py).
want=$(python3 "$SLSDBG_SOURCE_DIR/tests/e2e/boundaries.py" "$tmp/rec" --max-forced 1) || exit 1
[[ -n "$cps" && "$out" == *"$want"* ]] ||
  { echo "want every boundary by execution but the forced one and the patches ($want): $out"; exit 1; }
echo "replay_forced: --check OK ($out)"

# Reverse-stepi from the forced checkpoint lands on the unmodelled call's own
# `syscall` instruction (rax = SYS_capget, called from main).
forced=$("$SLSDBG" info "$tmp/rec" --json | python3 -c '
import json, sys
print(next(c["id"] for c in json.load(sys.stdin)["checkpoints"] if c["reason"] == "forced"))') ||
  { echo "no forced checkpoint in: $("$SLSDBG" info "$tmp/rec")"; exit 1; }
timeout 300 "$SLSDBG" replay "$tmp/rec" -- -nx -batch -ex 'set pagination off' -ex "goto $forced" -ex 'reverse-stepi' \
  -ex 'x/i $pc' -ex 'print $rax' -ex 'bt 2' >"$tmp/gdb.out" 2>&1
grep -Eq '^=> 0x[0-9a-f]+.*:[[:space:]]+syscall' "$tmp/gdb.out" && grep -q '^\$1 = 125$' "$tmp/gdb.out" &&
  grep -Eq '^#1 .* in main \(\) at .*replay_forced\.c:' "$tmp/gdb.out" ||
  { echo "reverse-stepi from the forced checkpoint:"; cat "$tmp/gdb.out"; exit 1; }
echo "replay_forced: reverse-stepi onto capget OK"
