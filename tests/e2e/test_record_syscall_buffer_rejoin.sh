#!/usr/bin/env bash
# Checks that the syscall buffer serves the program again once its threads
# are joined (SyscallBuf::on_threads_gone), and turns off again for a
# second thread: rec_sysbuf_rejoin starts and joins a thread, then makes
# ~140 reads and writes, twice. Before, the buffer stayed off from the first
# thread on and buffered none of them (each stopped). stdout equals native
# and the recording without the buffer; `replay --check` says OK.
source "$(dirname "$0")/record_lib.sh"
head -c 8192 "$PROGRAMS/rec_sysbuf_rejoin" >"$WORK/input"
"$PROGRAMS/rec_sysbuf_rejoin" "$WORK/input" >"$WORK/native" || die "native run failed"
timeout 120 "$SLSDBG" record -o "$WORK/on" -- "$PROGRAMS/rec_sysbuf_rejoin" "$WORK/input" >"$WORK/on.out" \
  2>"$WORK/on.err" </dev/null || die "record: $(cat "$WORK/on.err")"
cmp -s "$WORK/native" "$WORK/on.out" || die "stdout differs from native"
grep -q "the program ran [2-9] threads" "$WORK/on.err" || die "ran no thread: $(cat "$WORK/on.err")"
buffered=$(sed -n 's/.*syscall buffer: \([0-9]*\) syscalls buffered.*/\1/p' "$WORK/on.err")
[ "${buffered:-0}" -ge 250 ] || die "only ${buffered:-0} syscalls buffered (want >= 250: the reads and writes after each join)"
timeout 120 "$SLSDBG" record --no-syscall-buffer -o "$WORK/off" -- "$PROGRAMS/rec_sysbuf_rejoin" "$WORK/input" \
  >"$WORK/off.out" 2>"$WORK/off.err" </dev/null || die "record --no-syscall-buffer: $(cat "$WORK/off.err")"
cmp -s "$WORK/on.out" "$WORK/off.out" || die "stdout differs between the buffer on and off"
out=$(timeout 300 "$SLSDBG" replay "$WORK/on" --check 2>&1 </dev/null) || die "replay --check: $out"
[[ "$out" == OK:* ]] || die "replay --check: $out"
echo "$buffered syscalls buffered; $(head -1 <<<"$out")"
echo "test_record_syscall_buffer_rejoin: OK"
