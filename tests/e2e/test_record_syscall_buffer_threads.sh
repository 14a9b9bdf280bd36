#!/usr/bin/env bash
# Checks that the syscall buffer stays correct under `record --threads`:
# the threads share it (test_record_syscall_buffer_threaded.sh counts what
# it serves), and an interrupt steps the interrupted thread, not the leader,
# out of the stub (it failed with "stepping out of the syscall buffer: ...
# No such process"). The thread
# fixtures that `replay --check` passes today (e2e_replay_threads) are
# recorded with the buffer: stdout equals native, `replay --check` says OK.
source "$(dirname "$0")/record_lib.sh"
for name in thr_condvar thr_spin thr_pool; do
  "$PROGRAMS/$name" >"$WORK/$name.native" 2>/dev/null </dev/null || die "$name: native run failed"
  timeout 120 "$SLSDBG" record --threads --syscall-buffer -o "$WORK/$name" -- "$PROGRAMS/$name" >"$WORK/$name.out" \
    2>"$WORK/$name.err" </dev/null || die "$name: record: $(cat "$WORK/$name.err")"
  grep -q "the program ran [2-9] threads" "$WORK/$name.err" || die "$name: ran no thread: $(cat "$WORK/$name.err")"
  grep -q "syscall buffer: [0-9]* syscalls buffered" "$WORK/$name.err" || die "$name: no syscall buffer: $(cat "$WORK/$name.err")"
  cmp -s "$WORK/$name.native" "$WORK/$name.out" || die "$name: stdout differs from native"
  out=$(timeout 300 "$SLSDBG" replay "$WORK/$name" --check 2>&1 </dev/null) || die "$name: replay --check: $out"
  [[ "$out" == OK:* ]] || die "$name: replay --check: $out"
  echo "$name: $(grep "syscall buffer" "$WORK/$name.err"); $(head -1 <<<"$out")"
done
echo "test_record_syscall_buffer_threads: OK"
