#!/usr/bin/env bash
# Threads where every one waits in a call at a checkpoint, and the segment
# before it holds no event (thr_spin_then_wait: the main thread computes
# across ticks, then blocks reading a pipe a child writes 400 ms later,
# while a worker waits on a condvar). Checkpoint k's running thread must
# run to its read in replay: before, replay left it where checkpoint k
# stood it ("expected thread T's registers at checkpoint k+1", 3 of 3 here;
# thr_sigchld's 1 in 5 was the same, from a write's return to wait4).
# Then thr_churn: 64 thread creations recorded with 1 ms ticks, which often
# land while the main thread is inside clone3: the new thread must not run
# before the clone is logged (before: "switch to thread T: no such thread"
# or "expected N threads", 2 of 5), nor may the syscall buffer patch
# libc's sites under threads waiting at them (before: a waiting thread
# stood at the stub in one run and at libc's `syscall` in the other).
source "$(dirname "$0")/record_lib.sh"
check() {  # check NAME EXPECTED-OUTPUT RECORD-ARGS... -- PROGRAM ARGS...
  local name=$1 expected=$2 rec="$WORK/$1" out
  shift 2
  timeout 120 "$SLSDBG" record -o "$rec" "$@" >"$rec.out" 2>"$rec.err" </dev/null || die "$name: record: $(cat "$rec.err")"
  [ "$(cat "$rec.out")" = "$expected" ] || die "$name: recorded output '$(cat "$rec.out")'"
  out=$(timeout 300 "$SLSDBG" replay "$rec" --check 2>&1 </dev/null) || die "$name: replay --check: $out"
  grep -q "^history ends when the process ends" <<<"$out" || die "$name: $out"
  echo "$name: $(head -1 <<<"$out")"
}
check spin_then_wait "thr_spin_then_wait: read 1 byte 'x', child status 0, sum nonzero" -- "$PROGRAMS/thr_spin_then_wait"
for i in 1 2 3; do
  check churn$i "thr_churn: 64 threads started" --interval 1 -- "$PROGRAMS/thr_churn"
done
echo "replay_threads_all_waiting: OK"
