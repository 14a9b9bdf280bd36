#!/usr/bin/env bash
# A pthread_join racing a thread's end across a checkpoint (#16):
# thr_join_churn creates and joins 300 threads, recorded with 1 ms ticks.
# The recorder logs a thread's `exit` before the kernel runs it; it used to
# run the joiner at once, which could read the thread's tid word still set
# and go to its futex wait, and a tick there cut the join before its wait.
# Replay ran the end at once, the joiner read 0 and returned ("expected
# thread T's registers at checkpoint k+1", about 1 in 4 recordings on
# main; a race, so this test fails before the fix only in some runs). Now
# replay runs such an end once the joiner stands at the next checkpoint
# (engine/replay/exit_join.h). Each recording must pass `replay --check`.
source "$(dirname "$0")/record_lib.sh"
expected=$("$PROGRAMS/thr_join_churn") || die "native run failed: $expected"
for i in 1 2 3; do
  rec="$WORK/churn$i"
  timeout 120 "$SLSDBG" record --interval 1 -o "$rec" -- "$PROGRAMS/thr_join_churn" >"$rec.out" 2>"$rec.err" </dev/null ||
    die "record $i: $(cat "$rec.err")"
  [ "$(cat "$rec.out")" = "$expected" ] || die "record $i: output '$(cat "$rec.out")', natively '$expected'"
  out=$(timeout 300 "$SLSDBG" replay "$rec" --check 2>&1 </dev/null) || die "recording $i: replay --check: $out"
  grep -q "^history ends when the process ends" <<<"$out" || die "recording $i: $out"
  echo "recording $i: $(head -1 <<<"$out")"
  rm -rf "$rec"
done
echo "test_replay_threads_join_race: OK"
