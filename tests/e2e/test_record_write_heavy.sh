#!/usr/bin/env bash
# A write-heavy program that sweeps its memory pass after pass, as sort's
# merge passes do (rec_mergesort: a bottom-up merge sort over two 4 MiB
# arrays, 8 times): consecutive ticks write different pages, but the same
# ones come round within a few ticks (recorder/capture/write_history.h), so
# the interval stretches, and while it is stretched ticks copy in the stop
# instead of deferring copies that would tear (defer_policy.h). `record`
# reports at most one torn deferral (before the interval first stretches;
# main before this took 2-3 per run); output equals native and
# `replay --check` reaches every checkpoint.
source "$(dirname "$0")/record_lib.sh"
PROG="$PROGRAMS/rec_mergesort"
"$PROG" 8 >"$WORK/native.out" || die "native run failed"
# The first tear depends on when the first ticks land: on a quiet machine
# about 1 recording in 3 tears twice (8 of 28 at stop 34, with the build
# before and after its merges alike), more under load. So up to 5
# recordings: one must tear at most once. Main before this change tore 2-3
# times in every run, so all 5 would fail.
counts=""
for try in 1 2 3 4 5; do
  rm -rf "$WORK/rec"
  "$SLSDBG" record -o "$WORK/rec" -- "$PROG" 8 >"$WORK/rec.out" 2>"$WORK/rec.err" ||
    die "record failed: $(tail -3 "$WORK/rec.err")"
  cmp -s "$WORK/native.out" "$WORK/rec.out" || die "output differs from native"
  torn=$(sed -n 's/^slsdbg: \([0-9]*\) of [0-9]* deferred tick checkpoints dropped.*/\1/p' "$WORK/rec.err")
  counts="$counts ${torn:-0}"
  [ "${torn:-0}" -le 1 ] && break
done
[ "${torn:-0}" -le 1 ] || die "torn deferrals per recording:$counts (want one recording with <= 1): $(cat "$WORK/rec.err")"
"$SLSDBG" info "$WORK/rec" --json >"$WORK/rec.json" || die "info --json failed"
"$PY" - "$WORK/rec.json" <<'PYEOF' || die "adaptive interval check failed"
import json, sys
a = json.load(open(sys.argv[1]))["adaptive_interval"]
print("adaptive interval:", a)
assert a["stretched_ticks"] >= 1 and a["longest_interval_ns"] > 10_000_000, a
PYEOF
out=$(timeout 300 "$SLSDBG" replay "$WORK/rec" --check 2>&1); rc=$?
want=$("$PY" "$SLSDBG_SOURCE_DIR/tests/e2e/boundaries.py" "$WORK/rec" --max-forced 0) || die "$want"
[ "$rc" -eq 0 ] && [[ "$out" == OK:*"$want"* ]] || die "replay --check exit $rc: $out (want $want)"
echo "test_record_write_heavy: OK (torn ${torn:-0})"
