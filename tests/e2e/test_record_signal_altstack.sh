#!/usr/bin/env bash
# Checks signals whose handler runs on an alternate stack (SA_ONSTACK, as
# every Go handler does): sig_altstack spins on a 512-byte stack with a
# canary below it while a 1 ms itimer's SIGALRM runs its handler on a
# sigaltstack. Before, the recorder zeroed the frame's FPU area below the
# spinning stack pointer, not where the kernel puts an SA_ONSTACK frame:
# the canary (in Go: a neighbouring goroutine's stack) was overwritten and
# Go programs crashed under recording. And a restored checkpoint had no
# alternate stack, so the handler ran on the tiny stack in replay.
# The recorded output equals native; `replay --check` says OK; GDB, at a
# checkpoint reached by restore in the middle, sees the alternate stack
# (the handler's local lies in it).
source "$(dirname "$0")/record_lib.sh"
expected=$("$PROGRAMS/sig_altstack" 60) || die "native run failed: $expected"
out=$(timeout 60 "$SLSDBG" record -o "$WORK/rec" -- "$PROGRAMS/sig_altstack" 60 2>"$WORK/record.err" </dev/null)
[ "$out" = "$expected" ] || die "recorded output '$out', natively '$expected' ($(tail -3 "$WORK/record.err"))"
check=$(timeout 120 "$SLSDBG" replay "$WORK/rec" --check 2>&1 </dev/null) || die "replay --check: $check"
[[ "$check" == OK:* ]] || die "replay --check: $check"
# From a checkpoint in the middle, reached by restore, to the end: every
# handler after it ran on the restored alternate stack.
mid=$("$SLSDBG" info "$WORK/rec" --json | "$PY" -c 'import json,sys; print(len(json.load(sys.stdin)["checkpoints"]) // 2)')
[ "${mid:-0}" -ge 2 ] || die "too few checkpoints to restore in the middle ($mid)"
gdb_out=$(timeout 120 "$SLSDBG" replay "$WORK/rec" --at "$mid" -- -nx -batch -ex 'print alarms' -ex 'continue' \
  -ex 'print off_alt' -ex 'print on_alt' 2>&1 </dev/null)
before=$(sed -n 's/^\$1 = //p' <<<"$gdb_out")
[ "$(sed -n 's/^\$2 = //p' <<<"$gdb_out")" = 0 ] || die "a handler ran off the alternate stack after restoring checkpoint $mid: $gdb_out"
[ "$(sed -n 's/^\$3 = //p' <<<"$gdb_out")" -ge 60 ] || die "fewer than 60 handler runs on the alternate stack at the end: $gdb_out"
[ "${before:-60}" -lt 60 ] || die "checkpoint $mid is after the last alarm ($before), nothing to check: $gdb_out"
echo "recorded and replayed: $(head -1 <<<"$check"); from checkpoint $mid ($before alarms) to the end on the alternate stack"
echo "test_record_signal_altstack: OK"
