#!/usr/bin/env bash
# Checks that the syscall buffer serves threads (one buffer: one thread runs
# program code at a time, and its entries are drained, as its calls, at the
# next stop of any thread): rec_sysbuf_threads runs three threads that each
# make 3000 rounds of pread64 + write + lseek (and a clock read every 16th)
# while the others run. With the buffer >= 25000 calls are buffered and the
# program stops fewer than 1000 times; with --no-syscall-buffer it stops
# >= 25000 times (so the counts can fail). stdout equals native both ways,
# and `replay --check` says OK for both: each thread folds what it read into
# its own global, which the check compares at every checkpoint.
source "$(dirname "$0")/record_lib.sh"
P="$PROGRAMS/rec_sysbuf_threads"
head -c 65536 "$SLSDBG" >"$WORK/input"
"$P" "$WORK/input" >"$WORK/native" || die "native run failed: $(cat "$WORK/native")"
stops() { sed -n 's/.* \([0-9]*\) seccomp stops:.*/\1/p' "$1" | head -1; }
SLSDBG_LOG=debug timeout 120 "$SLSDBG" record -o "$WORK/on" -- "$P" "$WORK/input" >"$WORK/on.out" 2>"$WORK/on.err" \
  </dev/null || die "record: $(grep -v debug "$WORK/on.err" | tail -5)"
cmp -s "$WORK/native" "$WORK/on.out" || die "stdout differs from native: $(cat "$WORK/on.out")"
grep -q "the program ran 3 threads" "$WORK/on.err" || die "did not run 3 threads: $(grep -v debug "$WORK/on.err")"
buffered=$(sed -n 's/.*syscall buffer: \([0-9]*\) syscalls buffered.*/\1/p' "$WORK/on.err")
[ "${buffered:-0}" -ge 25000 ] || die "only ${buffered:-0} syscalls buffered (want >= 25000)"
on_stops=$(stops "$WORK/on.err")
[ -n "$on_stops" ] && [ "$on_stops" -lt 1000 ] || die "${on_stops:-no} seccomp stops with the buffer (want < 1000)"
SLSDBG_LOG=debug timeout 120 "$SLSDBG" record --no-syscall-buffer -o "$WORK/off" -- "$P" "$WORK/input" \
  >"$WORK/off.out" 2>"$WORK/off.err" </dev/null || die "record --no-syscall-buffer: $(grep -v debug "$WORK/off.err" | tail -5)"
cmp -s "$WORK/native" "$WORK/off.out" || die "stdout differs from native without the buffer"
off_stops=$(stops "$WORK/off.err")
[ "${off_stops:-0}" -ge 25000 ] || die "${off_stops:-0} seccomp stops without the buffer (want >= 25000)"
replay_check_ok on off
echo "$buffered syscalls buffered, $on_stops stops (without the buffer $off_stops)"
echo "test_record_syscall_buffer_threaded: OK"
