#!/usr/bin/env bash
# Checks `slsdbg replay REC --check` on a real recording (`slsdbg record`) of
# a fixture with file I/O, /dev/urandom, rdtsc/rdtscp,
# clock_gettime, a SIGALRM and compute between sleeps: replay reaches every
# checkpoint by execution (none by restore), twice, with both breakpoint kinds.
set -u
tmp=$(mktemp -d "${TMPDIR:-/tmp}/replay_check.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
"$SLSDBG" record -o "$tmp/rec" -- "$PROGRAMS/replay_inputs" "$tmp/scratch" >"$tmp/native.out" 2>"$tmp/rec.err" ||
  { echo "recording failed: $(cat "$tmp/rec.err")"; exit 1; }
grep -q 'replay_inputs: digest' "$tmp/native.out" || { echo "fixture did not run: $(cat "$tmp/native.out")"; exit 1; }
cps=$(sed -n 's/^slsdbg: recorded \([0-9]*\) checkpoints.*/\1/p' "$tmp/rec.err")
[ "${cps:-0}" -ge 3 ] || { echo "want >= 3 checkpoints, got '$cps': $(cat "$tmp/rec.err")"; exit 1; }
# Every boundary by execution but the syscall buffer's patches (boundaries.py).
want="OK: $cps checkpoints, $(python3 "$SLSDBG_SOURCE_DIR/tests/e2e/boundaries.py" "$tmp/rec" --max-forced 0)" || exit 1
for mode in bpf bpf ptrace; do
  if [ "$mode" = ptrace ]; then export SLSDBG_REPLAY_BREAKPOINT=ptrace; fi
  out=$(timeout 300 "$SLSDBG" replay "$tmp/rec" --check 2>"$tmp/err"); rc=$?
  [ "$rc" -eq 0 ] || { echo "--check ($mode) exit $rc: $out $(cat "$tmp/err")"; exit 1; }
  [[ "$out" == "$want"* ]] || { echo "--check ($mode) said: $out; want: $want"; exit 1; }
done
echo "replay_check: OK ($out)"
