#!/usr/bin/env bash
# Checks that `slsdbg bisect` says so, with its own exit status, when the
# invariant is already false at the first checkpoint (3), never becomes false
# (4), or flips back and forth (5, found by the spot checks, naming a bad
# checkpoint before a good one); that --good/--bad limit the search; and that
# an invariant over a register is not refined, with the reason in the report.
source "$(dirname "$0")/bisect_lib.sh"
record_bank

expect() {  # expect NAME STATUS OUTCOME ARGS...
  local name=$1 want=$2 outcome=$3; shift 3
  "$SLSDBG" bisect "$REC" "$@" --json >"$WORK/$name.json" 2>"$WORK/$name.err"
  local rc=$?
  [ "$rc" -eq "$want" ] || { cat "$WORK/$name.err"; fail "$name: exit $rc, want $want"; }
  [ "$(json "$WORK/$name.json" 'j["outcome"]')" = "$outcome" ] || fail "$name: outcome $(json "$WORK/$name.json" 'j["outcome"]')"
  "$SLSDBG" bisect "$REC" "$@" >"$WORK/$name.txt" 2>/dev/null
}

expect already 3 already_bad --expr 'total_expected == 1999'
grep -q "already false at checkpoint 0 " "$WORK/already.txt" || { cat "$WORK/already.txt"; fail "already: text"; }

expect never 4 never_bad --expr 'total_expected == 2000'
grep -q "never becomes false" "$WORK/never.txt" || { cat "$WORK/never.txt"; fail "never: text"; }

# Bad from the transfer at the middle checkpoint (the search's first probe)
# to the one a sixth of the checkpoints later, good before and after. Taken
# from the recording, not from the transfer count: under load the program's
# progress per checkpoint is uneven.
mid=$(( (CHECKPOINTS - 1) / 2 ))
t_mid=$(gdb_at "$mid" current_transfer)
t_hi=$(gdb_at $((mid + CHECKPOINTS / 6)) current_transfer)
t_last=$(gdb_at $((CHECKPOINTS - 1)) current_transfer)
[ "$t_mid" -gt 0 ] && [ "$t_last" -gt "$t_hi" ] || fail "uneven progress: transfer $t_mid at checkpoint $mid, $t_hi a sixth later, $t_last at the end"
flip="current_transfer < $t_mid || current_transfer > $t_hi"
expect flip 5 not_monotone --expr "$flip" --no-refine
wb=$(json "$WORK/flip.json" 'j["not_monotone"]["bad"]')
wg=$(json "$WORK/flip.json" 'j["not_monotone"]["good_after"]')
[ "$wb" -lt "$wg" ] || fail "not monotone: bad $wb is not before good $wg"
[ "$(gdb_at "$wg" "$flip")" = 1 ] || fail "witness $wg is not good"
grep -q "^NOT MONOTONE: checkpoint $wb is bad but checkpoint $wg after it is good" "$WORK/flip.txt" || { cat "$WORK/flip.txt"; fail "flip: text"; }

# --spot-checks 0: the same invariant is bisected without the check (a flip is found).
expect flip_unchecked 0 found --expr "$flip" --spot-checks 0 --no-refine

# --good/--bad: the search stays in the range, and an already-bad --good is reported.
last=$((CHECKPOINTS - 1))
expect range 0 found --expr 'bank.acct.checking + bank.acct.savings == total_expected' --good 1 --bad "$last" --no-refine
for k in $(json "$WORK/range.json" '" ".join(str(p["checkpoint"]) for p in j["probe_log"])'); do
  [ "$k" -ge 1 ] && [ "$k" -le "$last" ] || fail "probe of checkpoint $k outside --good 1 --bad $last"
done
bad=$(json "$WORK/range.json" 'j["first_bad"]["checkpoint"]')
expect range_bad_good 3 already_bad --expr 'bank.acct.checking + bank.acct.savings == total_expected' --good "$bad" --no-refine
# A register cannot be watched: found at checkpoint granularity, and the report says why.
expect register 0 found --expr '$rsp != 0 && bank.acct.checking + bank.acct.savings == total_expected'
[ "$(json "$WORK/register.json" 'j["refinement"]["state"]')" = unavailable ] || fail "register: refinement state"
json "$WORK/register.json" 'j["refinement"]["note"]' | grep -q 'reads register \$rsp' || fail "register: note"
grep -q '^segment granularity: .*not refined: the expression reads register \$rsp' "$WORK/register.txt" || { cat "$WORK/register.txt"; fail "register: text"; }
echo "bisect edges: OK"
