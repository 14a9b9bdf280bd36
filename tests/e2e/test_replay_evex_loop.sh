#!/usr/bin/env bash
# Checkpoints inside AVX-512 code that Debian's Capstone 4.0.2 cannot
# decode (kmovd, vpcmpnequb: glibc's *_evex string functions on AVX-512
# CPUs; engine/replay/vex_insn.h) are reached through the patched
# breakpoint: evex_loop's loop, recorded with 3 ms checkpoints, must replay
# with `--check` OK, no checkpoint refused the patch, no perf breakpoint
# (a #DB per visit: main's binary took 2 minutes here and then diverged).
# Skipped on CPUs without AVX-512BW/VL.
set -u
work=$(mktemp -d "${TMPDIR:-/tmp}/replay_evex_loop.XXXXXX")
trap 'rm -rf "$work"' EXIT
"$PROGRAMS/evex_loop" 1 >"$work/native.out"
if [ $? -eq 3 ]; then
  echo "SKIP: $(cat "$work/native.out")"
  exit 0
fi
"$SLSDBG" record -o "$work/rec" --interval 3 -- "$PROGRAMS/evex_loop" 50000000 >"$work/rec.out" 2>"$work/rec.err" ||
  { echo "recording failed: $(cat "$work/rec.err")"; exit 1; }
[ "$(cat "$work/rec.out")" = 50000000 ] || { echo "evex_loop printed $(cat "$work/rec.out")"; exit 1; }
want=$(python3 "$SLSDBG_SOURCE_DIR/tests/e2e/boundaries.py" "$work/rec" --max-forced 0) || { echo "$want"; exit 1; }
out=$(SLSDBG_LOG=debug timeout 60 "$SLSDBG" replay "$work/rec" --check 2>"$work/check.log")
rc=$?
[ "$rc" -eq 0 ] && [[ "$out" == OK:*"$want"* ]] || { echo "--check exit $rc: $out"; grep -m3 "no patched\|perf breakpoint" "$work/check.log"; exit 1; }
echo "$out" | head -1
if grep -m3 "no patched breakpoint\|perf breakpoint at" "$work/check.log"; then
  echo "a checkpoint in the loop was not reached by the patch"
  exit 1
fi
patched=$(sed -n 's/.* \([0-9]*\) reached by patched breakpoint.*/\1/p' <<<"$out")
[ "${patched:-0}" -ge 5 ] || { echo "only ${patched:-0} checkpoints reached by the patch"; exit 1; }
echo "replay_evex_loop: OK ($patched reached by the patched breakpoint)"
