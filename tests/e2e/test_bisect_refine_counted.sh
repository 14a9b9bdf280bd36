#!/usr/bin/env bash
# Bisect refinement at counting speed (#20). bisect_bank writes the watched
# ledger once per transfer, thousands of times per segment. Refinement first
# counts, in the tracee, the arrivals at the pc after the first watched
# write and binary-searches them (refine_narrow.h), so the stop-at-every-
# write pass starts a few writes before the flip:
#  - --expr and --plugin refine to the planted bug's line in transfer BUG;
#  - both name the same moment, with or without the checkpoint patch
#    (SLSDBG_REPLAY_PATCH=miss);
#  - each stops at a handful of watched writes (the refined watch_hits),
#    where watching the whole segment stopped at thousands.
TRANSFERS=${TRANSFERS:-1000000}
source "$(dirname "$0")/bisect_lib.sh"
record_bank
EXPR='bank.acct.checking + bank.acct.savings == total_expected'
MAX_STOPS=64
few_stops() {  # few_stops REPORT WHAT
  local hits
  hits=$(json "$1" 'j["refined"]["watch_hits"]')
  echo "$2: moment $(json "$1" 'j["moment"]'), $hits watchpoint stops, $(json "$1" 'j["refined"]["evaluations"]') evaluations"
  [ "$hits" -le "$MAX_STOPS" ] || fail "$2: $hits watchpoint stops (narrowing should leave at most $MAX_STOPS)"
}
t0=$(date +%s)
"$SLSDBG" bisect "$REC" --expr "$EXPR" --show current_transfer --json >"$WORK/expr.json" 2>"$WORK/expr.err" ||
  { cat "$WORK/expr.err"; fail "bisect --expr exit $?"; }
echo "bisect --expr: $(( $(date +%s) - t0 )) s"
# check_found's checks of the checkpoints are in e2e_bisect_expr; here the refined answer.
[ "$(json "$WORK/expr.json" 'j["refinement"]["state"]')" = done ] || fail "refinement: $(json "$WORK/expr.json" 'j["refinement"]')"
[ "$(json "$WORK/expr.json" 'j["refined"]["line"]')" = "$BUG_LINE" ] || fail "refined to line $(json "$WORK/expr.json" 'j["refined"]["line"]'), the bug is on $BUG_LINE"
good=$(json "$WORK/expr.json" 'j["last_good"]["checkpoint"]')
[[ "$(json "$WORK/expr.json" 'j["moment"]')" == "$good:"* ]] || fail "moment not in segment $good"
[ "$(json "$WORK/expr.json" 'j["shown"]["current_transfer"]')" = "$BUG" ] || fail "--show current_transfer at the answer is not $BUG"
few_stops "$WORK/expr.json" "--expr"
moment=$(json "$WORK/expr.json" 'j["moment"]')

SLSDBG_REPLAY_PATCH=miss "$SLSDBG" bisect "$REC" --expr "$EXPR" --json >"$WORK/miss.json" 2>"$WORK/miss.err" ||
  { cat "$WORK/miss.err"; fail "bisect --expr with SLSDBG_REPLAY_PATCH=miss exit $?"; }
few_stops "$WORK/miss.json" "--expr, patch missing"
[ "$(json "$WORK/miss.json" 'j["moment"]')" = "$moment" ] || fail "with the patch missing: another moment"

"$SLSDBG" bisect "$REC" --plugin "$PLUGINS/examples/libslsdbg_bank_invariant.so" --json >"$WORK/plugin.json" 2>"$WORK/plugin.err" ||
  { cat "$WORK/plugin.err"; fail "bisect --plugin exit $?"; }
few_stops "$WORK/plugin.json" "--plugin"
[ "$(json "$WORK/plugin.json" 'j["moment"]')" = "$moment" ] || fail "--plugin: another moment"
[[ "$(json "$WORK/plugin.json" 'j["refined"]["detail"]')" == *"in transfer $BUG" ]] || fail "--plugin: not transfer $BUG"
echo "bisect_refine_counted: OK"
