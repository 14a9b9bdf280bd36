#!/usr/bin/env bash
# Checks the adaptive interval (recorder/record/interval_policy.h): a program
# rewriting the same 4 MiB in every round records with its tick stretched
# above the 10 ms base and never above the bound (`--max-interval 80`, and
# the default 250 ms); `info` reports the bound, the longest interval and
# the stretched ticks; output equals native and `replay --check` reaches
# every checkpoint by execution. With --interval alone nothing stretches.
# A --max-interval below --interval is a one-line error.
source "$(dirname "$0")/record_lib.sh"
PROG="$PROGRAMS/rec_rewrite"
"$PROG" 20000 >"$WORK/native.out" || die "native run failed"

check() {  # check NAME BOUND_MS MIN_STRETCHED -- RECORD_ARGS...
  local name=$1 bound=$2 min=$3; shift 4
  "$SLSDBG" record -o "$WORK/$name" "$@" -- "$PROG" 20000 >"$WORK/$name.out" 2>"$WORK/$name.err" ||
    die "$name: record failed: $(tail -3 "$WORK/$name.err")"
  cmp -s "$WORK/native.out" "$WORK/$name.out" || die "$name: output differs from native"
  "$SLSDBG" info "$WORK/$name" --json >"$WORK/$name.json" || die "$name: info --json failed"
  "$PY" - "$WORK/$name.json" "$bound" "$min" <<'PYEOF' || die "$name: adaptive interval check failed"
import json, sys
j = json.load(open(sys.argv[1])); bound = int(sys.argv[2]) * 1_000_000; least = int(sys.argv[3])
a = j["adaptive_interval"]
print(f"{sys.argv[1]}: {len(j['checkpoints'])} checkpoints, {a}")
assert j["interval_ns"] == 10_000_000, j["interval_ns"]
assert a["max_interval_ns"] == bound, a
assert a["stretched_ticks"] >= least, a
if least:
    assert 10_000_000 < a["longest_interval_ns"] <= bound, a
else:
    assert a["longest_interval_ns"] <= 10_000_000, a
PYEOF
  out=$(timeout 300 "$SLSDBG" replay "$WORK/$name" --check 2>&1); rc=$?
  local want
  want=$("$PY" "$SLSDBG_SOURCE_DIR/tests/e2e/boundaries.py" "$WORK/$name" --max-forced 0) || die "$name: $want"
  [ "$rc" -eq 0 ] && [[ "$out" == OK:*"$want"* ]] || die "$name: replay --check exit $rc: $out (want $want)"
}
check bounded 80 1 -- --max-interval 80
"$SLSDBG" info "$WORK/bounded" | grep -q "^interval   10.0 ms, adaptive up to 80.0 ms: stretched for" ||
  die "info does not report the stretched interval: $("$SLSDBG" info "$WORK/bounded" | grep '^interval')"
check default 250 1 --
check fixed 10 0 -- --interval 10

err=$("$SLSDBG" record --interval 20 --max-interval 10 -o "$WORK/bad" -- "$PROG" 1 2>&1 >/dev/null); rc=$?
[ "$rc" -eq 2 ] && [ "$(wc -l <<<"$err")" -eq 1 ] && [[ "$err" == *"--max-interval needs"* ]] ||
  die "bad --max-interval: exit $rc, '$err'"
[ -e "$WORK/bad" ] && die "a bad --max-interval created a recording"
echo "test_record_adaptive_interval: OK"
