#!/usr/bin/env bash
# Checks that a recording whose log has one syscall event altered (first
# argument changed) makes `slsdbg replay --check` report the divergence at
# exactly that segment and event, with expected vs actual, and exit 1.
set -u
tmp=$(mktemp -d "${TMPDIR:-/tmp}/replay_div.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
tools="$SLSDBG_BUILD_DIR/engine/replay"
"$SLSDBG" record -o "$tmp/rec" -- "$PROGRAMS/replay_inputs" "$tmp/scratch" >/dev/null 2>"$tmp/rec.err" ||
  { echo "recording failed: $(cat "$tmp/rec.err")"; exit 1; }
# Segment 1's first syscall event (segment 0 is the loader and setup).
for seg in 1 0; do
  for idx in 0 1 2 3 4 5 6 7 8 9; do
    rm -rf "$tmp/copy"; cp -a "$tmp/rec" "$tmp/copy"
    if "$tools/replay_alter_event" "$tmp/copy" "$seg" "$idx" 2>/dev/null; then break 2; fi
  done
done
[ -d "$tmp/copy" ] || { echo "no syscall event to alter"; exit 1; }
out=$(timeout 300 "$SLSDBG" replay "$tmp/copy" --check 2>"$tmp/err"); rc=$?
[ "$rc" -eq 1 ] || { echo "altered recording: exit $rc, want 1: $out $(cat "$tmp/err")"; exit 1; }
[[ "$out" == *"divergence in segment $seg at event $idx: expected syscall"*"replay did syscall"*"(pc 0x"* ]] ||
  { echo "wrong report for segment $seg event $idx: $out"; exit 1; }
# The unaltered recording still passes.
out2=$(timeout 300 "$SLSDBG" replay "$tmp/rec" --check 2>&1) || { echo "original fails: $out2"; exit 1; }
echo "replay_divergence: OK ($out)"
