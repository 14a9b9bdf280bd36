#!/usr/bin/env bash
# GDB paused by a breakpoint while a threaded segment's last stretch has
# its checkpoint's patched breakpoint in (thread_reach.h: a jump to a
# trampoline over the code at checkpoint k+1's pc) reads the program's own
# bytes there, not the jump (#20). thr_call_loop at 1 ms ticks: a worker's
# loop of 2*10^7 calls with a rare line every 2^20 iterations; a breakpoint
# on the rare line stops inside many segments whose worker checkpoint is
# patched. At each stop `x/8xb` at every checkpoint's pc must show the
# bytes the recording holds there (main showed `e9 ...`, the jump).
# Also with SLSDBG_REPLAY_PATCH=miss (the patch never matches: reruns).
. "$(dirname "$0")/replay_gdb_lib.sh"
src=$FIXTURE_SRC/thr_call_loop.c
rec=$WORK/call.rec
record "$rec" 1 "$PROGRAMS/thr_call_loop" 3000000
expect "$rec.out" '^2999999 4499998500000 3$' "the recorded run's output"
rare=$(line_of rare "$src")

# Each checkpoint's pc (its running thread's) and the bytes recorded there.
declare -A want
for ((k = 1; k < checkpoints; k++)); do
  pc=$("$SLSDBG" replay "$rec" --at "$k" --print-regs 2>/dev/null | awk '$1 == "rip" {print $2}')
  [ -n "$pc" ] || die "no rip at checkpoint $k"
  [ -n "${want[$pc]:-}" ] && continue
  want[$pc]=$("$SLSDBG" replay "$rec" --at "$k" --read "$pc:8" 2>/dev/null | awk -v a="$pc:" '$1 == a {print $2}')
done
[ "${#want[@]}" -gt 2 ] || die "too few checkpoint pcs: ${!want[*]}"

args=(-ex "break thr_call_loop.c:$rare")
for _ in 1 2 3; do
  args+=(-ex continue -ex 'printf "stop %ld\n", rare')
  for pc in "${!want[@]}"; do args+=(-ex "x/8xb $pc"); done
done
for mode in patch miss; do
  out=$WORK/gdb.$mode
  if [ "$mode" = miss ]; then export SLSDBG_REPLAY_PATCH=miss; fi
  replay_gdb "$rec" "$out" "${args[@]}" </dev/null
  unset SLSDBG_REPLAY_PATCH
  expect "$out" '^stop 2$' "$mode: the third stop at the rare line"
  for pc in "${!want[@]}"; do
    # GDB prints "0xADDR <sym+off>:\t0x55\t0x48 ..."; the recording "554889...".
    "$PY" - "$out" "$pc" "${want[$pc]}" "$mode" <<'PYEOF' || exit 1
import re, sys
out, pc, want, mode = sys.argv[1:]
seen = []
for line in open(out):
    m = re.match(r"^(0x[0-9a-f]+)( <[^>]*>)?:\s+((?:0x[0-9a-f]{2}\s*){8})$", line.strip())
    if m and int(m.group(1), 16) == int(pc, 16):
        seen.append("".join(b[2:] for b in m.group(3).split()))
if len(seen) != 3:
    sys.exit("FAIL: %s: %d x/8xb outputs at %s, expected 3" % (mode, len(seen), pc))
for s in seen:
    if s != want:
        sys.exit("FAIL: %s: x/8xb %s showed %s, the recording holds %s" % (mode, pc, s, want))
PYEOF
  done
  echo "$mode: OK"
done
echo "replay_gdb_threads_patch_hidden: OK"
