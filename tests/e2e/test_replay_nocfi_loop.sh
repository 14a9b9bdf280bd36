#!/usr/bin/env bash
# Checkpoints on a short branch in code no .eh_frame_hdr covers (Go's
# `-N -l` loops: a 2-byte `jmp` to the next instruction, 3 int3s after the
# function) are reached through the patched breakpoint, relayed by a short
# jump to the int3 padding before the function's aligned start
# (relay_site.h). nocfi_loop recorded with 3 ms checkpoints: `--check`
# OK, no checkpoint refused the patch, no perf
# breakpoint, and one checkpoint on the `jmp` relayed (re-recorded up to 3
# times until one lands there). Main's binary refused the `jmp` and its
# perf breakpoint ran for minutes.
set -u
work=$(mktemp -d "${TMPDIR:-/tmp}/replay_nocfi_loop.XXXXXX")
trap 'rm -rf "$work"' EXIT
n=300000000
want_sum=$(python3 -c "print($n * ($n + 1) // 2)")

check() {  # check LABEL [RECORD_OPTION]: 0 when a checkpoint on the jmp was relayed
  local label=$1; shift
  rm -rf "$work/rec"
  "$SLSDBG" record "$@" -o "$work/rec" --interval 3 -- "$PROGRAMS/nocfi_loop" $n >"$work/rec.out" 2>"$work/rec.err" ||
    { echo "$label: recording failed: $(cat "$work/rec.err")"; exit 1; }
  [ "$(cat "$work/rec.out")" = "$want_sum" ] || { echo "$label: nocfi_loop printed $(cat "$work/rec.out")"; exit 1; }
  local want out rc
  want=$(python3 "$SLSDBG_SOURCE_DIR/tests/e2e/boundaries.py" "$work/rec" --max-forced 0) || { echo "$want"; exit 1; }
  out=$(SLSDBG_LOG=debug timeout 60 "$SLSDBG" replay "$work/rec" --check 2>"$work/check.log")
  rc=$?
  [ "$rc" -eq 0 ] && [[ "$out" == OK:*"$want"* ]] ||
    { echo "$label: --check exit $rc: $out"; grep -m3 "no patched\|perf breakpoint" "$work/check.log"; exit 1; }
  echo "$label: $(head -1 <<<"$out")"
  if grep -m3 "no patched breakpoint\|perf breakpoint at" "$work/check.log"; then
    echo "$label: a checkpoint in the loop was not reached by the patch"
    exit 1
  fi
  grep -q "relayed through" "$work/check.log"
}

for try in 1 2 3; do
  check "try $try" && break
  [ "$try" = 3 ] && { echo "no checkpoint of 3 recordings was relayed"; exit 1; }
done
echo "replay_nocfi_loop: OK"
