#!/usr/bin/env bash
# Checks the tick: a program computing for 1 s of wall time gets roughly one
# checkpoint per 10 ms (a loose 40..200 range: the machine is shared), each
# with a stored stop time, and --interval 50 gives about five times fewer.
source "$(dirname "$0")/record_lib.sh"
"$SLSDBG" record -o "$WORK/r10" -- "$PROGRAMS/rec_spin" 1000 >/dev/null 2>"$WORK/err10" || { cat "$WORK/err10"; die "record failed"; }
"$SLSDBG" record -o "$WORK/r50" --interval 50 -- "$PROGRAMS/rec_spin" 1000 >/dev/null 2>"$WORK/err50" || { cat "$WORK/err50"; die "record --interval 50 failed"; }
"$SLSDBG" info "$WORK/r10" --json >"$WORK/r10.json" || die "info failed"
"$SLSDBG" info "$WORK/r50" --json >"$WORK/r50.json" || die "info failed"
"$PY" - "$WORK" <<'PYEOF' || die "checkpoint rate out of range"
import json, sys
w = sys.argv[1]
a = json.load(open(f"{w}/r10.json")); b = json.load(open(f"{w}/r50.json"))
na, nb = len(a["checkpoints"]), len(b["checkpoints"])
print(f"1 s run: {na} checkpoints at 10 ms, {nb} at 50 ms; stop p50 {a['stop_us']['p50']} us")
assert 40 <= na <= 200, na
assert 8 <= nb <= 45, nb
assert nb < na
assert a["interval_ns"] == 10_000_000 and b["interval_ns"] == 50_000_000
assert all(c["stop_us"] > 0 for c in a["checkpoints"]), "a checkpoint without a stop time"
ticks = [c for c in a["checkpoints"] if c["reason"] == "tick"]
assert len(ticks) >= 30, len(ticks)
times = [c["time_ns"] for c in a["checkpoints"]]
assert times == sorted(times), "checkpoint times not increasing"
PYEOF
echo "test_record_rate: OK"
