#!/usr/bin/env bash
# Checks that a signal storm cannot starve the program: rec_sigalrm with a
# 1 ms itimer recorded with --verify, whose checkpoints each take longer than
# the timer's period. Before signal pacing every alarm was a checkpoint and
# the next alarm was pending again when the program resumed, so it only ever
# ran its handler (a livelock; 8-14 minutes under load with a 10 ms timer).
# Now an alarm that comes before the program had as much CPU time as the last
# stop took waits, merged, for the next checkpoint taken anyway. The record
# must end within 60 s with the native output, signals logged, and
# `replay --check` OK.
source "$(dirname "$0")/record_lib.sh"
expected=$("$PROGRAMS/rec_sigalrm" 1000) || die "native run failed"
start=$(date +%s)
out=$(timeout 60 "$SLSDBG" record -o "$WORK/storm" --verify -- "$PROGRAMS/rec_sigalrm" 1000 2>"$WORK/record.err" </dev/null)
rc=$?
took=$(($(date +%s) - start))
[ $rc -eq 124 ] && die "record --verify of a 1 ms itimer did not end within 60 s (a livelock?)"
[ $rc -eq 0 ] || die "record failed ($rc): $(cat "$WORK/record.err")"
[ "$out" = "$expected" ] || die "output '$out', natively '$expected'"
"$SLSDBG" info "$WORK/storm" --json >"$WORK/storm.json" || die "info --json failed"
"$PY" - "$WORK/storm.json" <<'PYEOF' || die "recording check failed"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["events_by_kind"].get("signal", 0) >= 30, j["events_by_kind"]
assert j["checkpoints"][-1]["reason"] == "exit", j["checkpoints"][-1]
PYEOF
check=$(timeout 120 "$SLSDBG" replay "$WORK/storm" --check 2>&1 </dev/null) || die "replay --check: $check"
grep -q "^OK" <<<"$check" || die "replay --check: $check"
echo "record_signal_storm: recorded in ${took} s; $(head -1 <<<"$check")"
