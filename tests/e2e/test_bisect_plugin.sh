#!/usr/bin/env bash
# Checks `slsdbg bisect --plugin` with the example bank_invariant plugin (C
# ABI, memory and symbols through the host's callbacks) on a real recording
# of bisect_bank: the right segment within ceil(log2 K) search probes, refined
# to the planted bug's line, the plugin's message naming the transfer, --core
# keeping the answer's core, `slsdbg replay --goto` reaching the moment; and the
# register_range example plugin (registers, --plugin-arg) runs.
source "$(dirname "$0")/bisect_lib.sh"
record_bank
"$SLSDBG" bisect "$REC" --plugin "$PLUGINS/examples/libslsdbg_bank_invariant.so" --core "$WORK/answer.core" --json >"$WORK/r.json" 2>"$WORK/r.err" ||
  { cat "$WORK/r.err"; fail "bisect --plugin exit $?"; }
check_found "$WORK/r.json"
if [ "$REFINED" = done ]; then
  detail=$(json "$WORK/r.json" 'j["refined"]["detail"]')
  [[ "$detail" == *"in transfer $BUG" ]] || fail "plugin message at the answer: '$detail', want transfer $BUG"
else
  detail=$(json "$WORK/r.json" 'j["first_bad"]["detail"]')
  [[ "$detail" == "total 1999, expected 2000, in transfer "* ]] || fail "plugin message: '$detail'"
fi

# --core: the answer's core, 0600, shows the lost unit (and, refined, the transfer).
[ "$(stat -c %a "$WORK/answer.core")" = 600 ] || fail "--core mode $(stat -c %a "$WORK/answer.core")"
out=$(gdb -batch -nx -ex 'set debuginfod enabled off' "$BANK" "$WORK/answer.core" \
  -ex 'print bank.acct.checking + bank.acct.savings' -ex 'print current_transfer' 2>/dev/null)
printf '%s\n' "$out" | grep -q '^\$1 = 1999$' || fail "--core: $out"
if [ "$REFINED" = done ]; then printf '%s\n' "$out" | grep -q "^\\\$2 = $BUG\$" || fail "--core at the moment: $out"; fi

# The text report of the refined answer.
"$SLSDBG" bisect "$REC" --plugin "$PLUGINS/examples/libslsdbg_bank_invariant.so" >"$WORK/r.txt" 2>&1 || fail "text report"
if [ "$REFINED" = done ]; then
  grep -q "^refined: the invariant flips at moment $(json "$WORK/r.json" 'j["moment"]') .*bisect_bank.c:$BUG_LINE: .*in transfer $BUG\$" "$WORK/r.txt" ||
    { cat "$WORK/r.txt"; fail "text report of the refined answer"; }
  grep -q "^open GDB there: slsdbg replay $REC --goto $(json "$WORK/r.json" 'j["moment"]')\$" "$WORK/r.txt" || fail "goto line"
  # The moment it names is reachable: the replay stands at the same pc, with the unit gone.
  moment=$(json "$WORK/r.json" 'j["moment"]')
  bank_addr=$(gdb -batch -nx -ex 'set debuginfod enabled off' "$BANK" "$WORK/answer.core" -ex 'print/x (unsigned long)&bank' 2>/dev/null | sed -n 's/^\$1 = //p')
  "$SLSDBG" replay "$REC" --goto "$moment" --print-regs --read "$bank_addr:8" --json >"$WORK/goto.json" || fail "replay --goto $moment"
  [ "$(json "$WORK/goto.json" 'j["regs"]["rip"]')" = "$(json "$WORK/r.json" 'j["refined"]["at"]["pc"]')" ] || fail "replay --goto: another pc"
  [ "$(json "$WORK/goto.json" 'sum(int.from_bytes(bytes.fromhex(j["memory"][0]["hex"])[i:i+4], "little", signed=True) for i in (0, 4))')" = 1999 ] ||
    fail "replay --goto: bank there: $(cat "$WORK/goto.json")"
fi

# Registers: rsp stays in the stack's range everywhere -> never bad (exit 4).
"$SLSDBG" bisect "$REC" --plugin "$PLUGINS/examples/libslsdbg_register_range.so" \
  --plugin-arg rsp:0x7f0000000000:0x7fffffffffff --json >"$WORK/reg.json" 2>"$WORK/reg.err"
rc=$?
[ "$rc" -eq 4 ] || { cat "$WORK/reg.err"; fail "register_range: exit $rc, want 4 (never bad)"; }
[ "$(json "$WORK/reg.json" 'j["outcome"]')" = never_bad ] || fail "register_range outcome"
json "$WORK/reg.json" 'j["probe_log"][0]["detail"]' | grep -q '^rsp = 0x7ff' || fail "register_range detail"
echo "bisect --plugin: OK (refinement $REFINED)"
