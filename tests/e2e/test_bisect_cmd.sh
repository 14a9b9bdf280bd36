#!/usr/bin/env bash
# Checks `slsdbg bisect --cmd` on a real recording of bisect_bank: a shell
# command judging each core with GDB (SLSDBG_CORE, SLSDBG_EXE) finds the right
# segment within ceil(log2 K) search probes; its last output line is the
# probe's detail (the transfer number at the first bad checkpoint); the report
# says plainly that a command's answer stays at segment granularity.
source "$(dirname "$0")/bisect_lib.sh"
record_bank
cat >"$WORK/judge.sh" <<'SH'
#!/bin/sh
# Exit 0 when the money adds up in the core $SLSDBG_CORE, 1 when it does not.
out=$(gdb -batch -nx -ex 'set debuginfod enabled off' "$SLSDBG_EXE" "$SLSDBG_CORE" \
      -ex 'print bank.acct.checking + bank.acct.savings == total_expected' -ex 'print current_transfer' 2>/dev/null)
ok=$(printf '%s\n' "$out" | sed -n 's/^\$1 = //p')
transfer=$(printf '%s\n' "$out" | sed -n 's/^\$2 = //p')
echo "transfer $transfer"
[ "$ok" = 1 ]
SH
chmod +x "$WORK/judge.sh"
"$SLSDBG" bisect "$REC" --cmd "$WORK/judge.sh" --json >"$WORK/r.json" 2>"$WORK/r.err" ||
  { cat "$WORK/r.err"; fail "bisect --cmd exit $?"; }
check_found "$WORK/r.json" segment
detail=$(json "$WORK/r.json" 'j["first_bad"]["detail"]')
transfer=${detail#transfer }
[ "$transfer" -ge "$BUG" ] || fail "first bad checkpoint at transfer $transfer, before the bug's $BUG"
"$SLSDBG" bisect "$REC" --cmd "$WORK/judge.sh" >"$WORK/r.txt" 2>&1 || fail "text report"
grep -q "^segment granularity: .*not refined: .*cannot be known" "$WORK/r.txt" || { cat "$WORK/r.txt"; fail "the text report does not say it stayed at segment granularity"; }
echo "bisect --cmd: OK"
