#!/usr/bin/env bash
# Checks `slsdbg bisect --cmd` on a real recording of bisect_bank: a shell
# command judging each core with GDB (SLSDBG_CORE, SLSDBG_EXE) finds the right
# segment within ceil(log2 K) search probes; refinement asks the command which
# of the words that changed in the segment its verdict depends on (patched
# cores), finds `bank`, and refines to the planted bug's line and the moment
# --expr finds for the same invariant, the command's last line there naming
# the bug's transfer. A command whose verdict depends on something else (a
# local of main, on the stack) or on more changed words than the replay can
# watch stays at segment granularity and the report says why, in text and JSON.
source "$(dirname "$0")/bisect_lib.sh"
record_bank
cat >"$WORK/judge.sh" <<'SH'
#!/bin/sh
# Exit 0 when the money adds up in the core $SLSDBG_CORE, 1 when it does not
# (globals only: libc's symbols are not loaded).
out=$(gdb -batch -nx -iex 'set auto-solib-add off' -ex 'set debuginfod enabled off' "$SLSDBG_EXE" "$SLSDBG_CORE" \
      -ex 'print bank.acct.checking + bank.acct.savings == total_expected' -ex 'print current_transfer' 2>/dev/null)
ok=$(printf '%s\n' "$out" | sed -n 's/^\$1 = //p')
transfer=$(printf '%s\n' "$out" | sed -n 's/^\$2 = //p')
echo "transfer $transfer"
[ "$ok" = 1 ]
SH
chmod +x "$WORK/judge.sh"
"$SLSDBG" bisect "$REC" --cmd "$WORK/judge.sh" --json >"$WORK/r.json" 2>"$WORK/r.err" ||
  { cat "$WORK/r.err"; fail "bisect --cmd exit $?"; }
check_found "$WORK/r.json"
detail=$(json "$WORK/r.json" 'j["first_bad"]["detail"]')
transfer=${detail#transfer }
[ "$transfer" -ge "$BUG" ] || fail "first bad checkpoint at transfer $transfer, before the bug's $BUG"
if [ "$REFINED" = done ]; then
  # The command was asked, and its verdict was traced to the ledger alone.
  [ "$(json "$WORK/r.json" 'j["discovery"]["outcome"] == "found" and len(j["discovery"]["words"]) == 1 and j["discovery"]["words"][0].startswith("bank (0x")')" = True ] ||
    fail "discovered words $(json "$WORK/r.json" 'j["discovery"]["words"]'), expected bank alone"
  [ "$(json "$WORK/r.json" 'j["refined"]["watched"][0].startswith("bank (0x")')" = True ] ||
    fail "watched $(json "$WORK/r.json" 'j["refined"]["watched"]')"
  [ "$(json "$WORK/r.json" 'j["discovery"]["changed_words"] >= 1 and j["discovery"]["probes"] >= 1')" = True ] ||
    fail "discovery: $(json "$WORK/r.json" 'j["discovery"]')"
  [ "$(json "$WORK/r.json" 'j["refined"]["detail"]')" = "transfer $BUG" ] ||
    fail "refined detail '$(json "$WORK/r.json" 'j["refined"]["detail"]')', the bug is in transfer $BUG"
  # --expr over the same invariant names the same moment.
  "$SLSDBG" bisect "$REC" --expr 'bank.acct.checking + bank.acct.savings == total_expected' --json >"$WORK/e.json" 2>"$WORK/e.err" ||
    { cat "$WORK/e.err"; fail "bisect --expr exit $?"; }
  [ "$(json "$WORK/e.json" 'j["moment"]')" = "$(json "$WORK/r.json" 'j["moment"]')" ] ||
    fail "--cmd refined to $(json "$WORK/r.json" 'j["moment"]'), --expr to $(json "$WORK/e.json" 'j["moment"]')"
fi

# A verdict read from the stack (main's i): no changed word of the program's
# data flips it, so the answer stays at the segment, saying why. (Without spot
# checks: before and after main, i is not there at all. Bad from transfer
# BUG + 1 on: the planted bug is transfer BUG's last store, so both judges
# flip in the same segment unless a checkpoint falls in the few instructions
# between them.)
cat >"$WORK/judge_stack.sh" <<SH
#!/bin/sh
i=\$(gdb -batch -nx -ex 'set debuginfod enabled off' "\$SLSDBG_EXE" "\$SLSDBG_CORE" -ex 'frame function main' -ex 'print i' 2>/dev/null | sed -n 's/^\\\$1 = //p')
echo "i \$i"
[ -z "\$i" ] || [ "\$i" -le $BUG ]
SH
chmod +x "$WORK/judge_stack.sh"
"$SLSDBG" bisect "$REC" --cmd "$WORK/judge_stack.sh" --spot-checks 0 --json >"$WORK/s.json" 2>"$WORK/s.err" ||
  { cat "$WORK/s.err"; fail "bisect --cmd (stack) exit $?"; }
[ "$(json "$WORK/s.json" 'j["first_bad"]["checkpoint"]')" = "$(json "$WORK/r.json" 'j["first_bad"]["checkpoint"]')" ] ||
  fail "the stack judge found another segment"
check_found "$WORK/s.json" segment
if [ "$REFINED" = unavailable ]; then
  json "$WORK/s.json" 'j["refinement"]["note"]' | grep -q "no subset of the .* carries the command.s verdict .*depends on something else (registers, stack, other memory)" ||
    fail "note: $(json "$WORK/s.json" 'j["refinement"]["note"]')"
  [ "$(json "$WORK/s.json" 'j["discovery"]["outcome"]')" = none ] || fail "discovery: $(json "$WORK/s.json" 'j["discovery"]')"
fi
"$SLSDBG" bisect "$REC" --cmd "$WORK/judge_stack.sh" --spot-checks 0 >"$WORK/s.txt" 2>&1 || fail "text report"
grep -q "^segment granularity: .*not refined: .*depends on something else\|^segment granularity: .*not refined: .*not built" "$WORK/s.txt" ||
  { cat "$WORK/s.txt"; fail "the text report does not say why it stayed at segment granularity"; }
# A verdict that needs three changed words at once (the ledger, the transfer
# number and the random generator's state as the first bad checkpoint has
# it): more than the replay's two watchpoints, said so, with the three words.
if [ "$REFINED" = unavailable ]; then
  good=$(json "$WORK/r.json" 'j["last_good"]["checkpoint"]')
  bad=$(json "$WORK/r.json" 'j["first_bad"]["checkpoint"]')
  rng=$(gdb_at "$bad" rng_state)
  before=$(gdb_at "$good" current_transfer)
  cat >"$WORK/judge3.sh" <<SH
#!/bin/sh
out=\$(gdb -batch -nx -iex 'set auto-solib-add off' -ex 'set debuginfod enabled off' "\$SLSDBG_EXE" "\$SLSDBG_CORE" \\
  -ex 'print bank.acct.checking + bank.acct.savings != total_expected && current_transfer > $before && rng_state == $rng' 2>/dev/null | sed -n 's/^\\\$1 = //p')
echo "all three: \$out"
[ "\$out" = 0 ]
SH
  chmod +x "$WORK/judge3.sh"
  "$SLSDBG" bisect "$REC" --cmd "$WORK/judge3.sh" --good "$good" --bad "$bad" --json >"$WORK/3.json" 2>"$WORK/3.err" ||
    { cat "$WORK/3.err"; fail "bisect --cmd (three words) exit $?"; }
  [ "$(json "$WORK/3.json" 'j["refinement"]["state"]')" = unavailable ] || fail "three words: $(json "$WORK/3.json" 'j["refinement"]')"
  json "$WORK/3.json" 'j["refinement"]["note"]' | grep -q "depends on at least 3 of the .*; the replay watches 2 8-byte words" ||
    fail "three words: note $(json "$WORK/3.json" 'j["refinement"]["note"]')"
  [ "$(json "$WORK/3.json" 'j["discovery"]["outcome"] == "too_many" and sorted(w.split()[0] for w in j["discovery"]["words"]) == ["bank", "current_transfer", "rng_state"]')" = True ] ||
    fail "three words: discovery $(json "$WORK/3.json" 'j["discovery"]')"
  echo "ok: a verdict on three words stays at the segment ($(json "$WORK/3.json" 'j["discovery"]["probes"]') command runs)"
fi
echo "bisect --cmd: OK (refinement $(json "$WORK/r.json" 'j["refinement"]["state"]'), $(json "$WORK/r.json" 'j.get("discovery", {}).get("probes")') command runs to discover what it reads)"
