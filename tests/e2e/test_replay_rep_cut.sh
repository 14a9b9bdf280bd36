#!/usr/bin/env bash
# Checkpoint ticks that cut long rep string instructions (rep movsb, rep
# stosq, repe cmpsb; fixture rep_cut) between two iterations: replay runs
# exactly the iterations up to the recorded rcx with the CPU (rcx set to
# their count, a breakpoint after the instruction), not toward a data
# watchpoint, which a fast string run reports up to a group of iterations
# late (127 bytes here, more on other CPUs: the run went past the
# checkpoint, e2e_record_write_heavy's one failure in CI). `replay --check`
# must reach every checkpoint, at least one of them inside such a run.
source "$(dirname "$0")/record_lib.sh"
PROG="$PROGRAMS/rep_cut"
"$PROG" 6 >"$WORK/native.out" || die "native run failed"
n=0
for try in 1 2 3; do
  rm -rf "$WORK/rec"
  "$SLSDBG" record --interval 3 -o "$WORK/rec" -- "$PROG" 6 >"$WORK/rec.out" 2>"$WORK/rec.err" ||
    die "record failed: $(tail -3 "$WORK/rec.err")"
  cmp -s "$WORK/native.out" "$WORK/rec.out" || die "output differs from native: $(cat "$WORK/rec.out")"
  SLSDBG_LOG=debug timeout 300 "$SLSDBG" replay "$WORK/rec" --check >"$WORK/check.log" 2>&1
  rc=$?
  out=$(grep -v ' debug ' "$WORK/check.log")
  want=$("$PY" "$SLSDBG_SOURCE_DIR/tests/e2e/boundaries.py" "$WORK/rec" --max-forced 0) || die "$want"
  [ "$rc" -eq 0 ] && [[ "$out" == OK:*"$want"* ]] || die "replay --check exit $rc: $out (want $want)"
  n=$(grep -c "rep string at .* iterations run by the CPU" "$WORK/check.log")
  [ "$n" -ge 1 ] && break
done
[ "$n" -ge 1 ] || die "no checkpoint inside a rep string instruction in 3 recordings"
echo "test_replay_rep_cut: OK ($n checkpoints inside rep string instructions, recording $try)"
