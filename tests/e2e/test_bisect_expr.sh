#!/usr/bin/env bash
# Checks `slsdbg bisect --expr` on a real recording of the bisect_bank fixture
# (planted bug at a random transfer): GDB evaluates the invariant at each
# probed checkpoint; the report names the right segment within ceil(log2 K)
# search probes, refined to the planted bug's line, and --show prints the
# transfer number there; the text report (checkpoint granularity, --no-refine)
# says the same as the JSON.
source "$(dirname "$0")/bisect_lib.sh"
record_bank
EXPR='bank.acct.checking + bank.acct.savings == total_expected'
"$SLSDBG" bisect "$REC" --expr "$EXPR" --show current_transfer --json >"$WORK/r.json" 2>"$WORK/r.err" ||
  { cat "$WORK/r.err"; fail "bisect --expr exit $?"; }
check_found "$WORK/r.json"
shown=$(json "$WORK/r.json" 'j["shown"]["current_transfer"]')
if [ "$REFINED" = done ]; then
  [ "$shown" = "$BUG" ] || fail "--show current_transfer = $shown at the answer, the bug is in transfer $BUG"
else
  [ "$shown" -ge "$BUG" ] || fail "--show current_transfer = $shown at the first bad checkpoint, before transfer $BUG"
fi

"$SLSDBG" bisect "$REC" --expr "$EXPR" --no-refine >"$WORK/r.txt" 2>"$WORK/r.err" || fail "text report exit $?"
bad=$(json "$WORK/r.json" 'j["first_bad"]["checkpoint"]')
grep -q "^first bad checkpoint: $bad " "$WORK/r.txt" || { cat "$WORK/r.txt"; fail "text report disagrees"; }
grep -q "^open GDB there: slsdbg replay $REC --goto " "$WORK/r.txt" || fail "no GDB command in the text report"
grep -q "^#0 " "$WORK/r.txt" || fail "no backtrace in the text report"
[ -s "$WORK/r.err" ] && fail "stderr not empty without a terminal: $(cat "$WORK/r.err")"
# Without spot checks, every probe is a search probe: at most ceil(log2 K) in all.
"$SLSDBG" bisect "$REC" --expr "$EXPR" --spot-checks 0 --no-refine --json >"$WORK/n.json" || fail "--spot-checks 0"
total=$(json "$WORK/n.json" 'j["probes"]["total"]')
bound=$("$PY" -c "import math; print(math.ceil(math.log2($CHECKPOINTS)))")
[ "$total" -le "$bound" ] || fail "$total probes in all for $CHECKPOINTS checkpoints (bound $bound)"
[ "$(json "$WORK/n.json" 'j["first_bad"]["checkpoint"]')" = "$bad" ] || fail "--spot-checks 0 found another checkpoint"
echo "bisect --expr: OK ($(json "$WORK/r.json" 'j["probes"]["total"]') probes, refinement $REFINED)"
