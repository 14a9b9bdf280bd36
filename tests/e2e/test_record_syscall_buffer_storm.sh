#!/usr/bin/env bash
# Checks that a checkpoint captured while an asynchronous signal arrives
# replays exactly (process/signal_policy.h drop_deliverable_pending):
# each round of rec_sysbuf_storm makes buffered calls (its SIGALRM handler
# too), arms a 100 us one-shot alarm and calls an unmodelled capget, whose
# forced checkpoint the alarm mostly reaches mid-capture. Such a signal used to be stored as
# pending in the checkpoint as well as logged after it, and replay delivered
# it twice. Recorded three times (the overlap is a matter of timing): stdout
# equals native, most calls were buffered, and `replay --check` says OK.
source "$(dirname "$0")/record_lib.sh"
ROUNDS=60
mkdir -p "$WORK/native"
"$PROGRAMS/rec_sysbuf_storm" "$WORK/native" $ROUNDS >"$WORK/native.out" || die "native run failed"
for i in 1 2 3; do
  mkdir -p "$WORK/r$i"
  "$SLSDBG" record -o "$WORK/r$i.rec" --syscall-buffer -- "$PROGRAMS/rec_sysbuf_storm" "$WORK/r$i" $ROUNDS \
    >"$WORK/r$i.out" 2>"$WORK/r$i.err" || die "record $i failed: $(tail -3 "$WORK/r$i.err")"
  cmp "$WORK/native.out" "$WORK/r$i.out" || die "stdout of recording $i differs: $(cat "$WORK/r$i.out")"
  buffered=$(sed -n 's/.*syscall buffer: \([0-9]*\) syscalls buffered.*/\1/p' "$WORK/r$i.err")
  [ -n "$buffered" ] && [ "$buffered" -ge $((ROUNDS * 4)) ] || die "recording $i buffered only ${buffered:-?} calls"
  out=$(timeout 120 "$SLSDBG" replay "$WORK/r$i.rec" --check 2>&1) || die "replay --check of recording $i: $out"
  [[ "$out" == OK:* ]] || die "replay --check of recording $i: $out"
  echo "recording $i: $buffered calls buffered; replay: $out"
done
echo "test_record_syscall_buffer_storm: OK"
