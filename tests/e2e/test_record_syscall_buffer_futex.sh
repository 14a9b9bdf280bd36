#!/usr/bin/env bash
# Checks that futex wakes run through the syscall buffer and that libc's
# sites are patched while threads live (recorder/record/syscallbuf.h):
# rec_sysbuf_futex starts its consumer thread before any buffered call, then
# makes ~65 sem_post wakes per round, most of them waking nobody. With the
# buffer >= 5000 calls are buffered and fewer than 1000 futex calls stop
# (the waits still do); with --no-syscall-buffer >= 5000 futex calls stop,
# so the counts can fail (main's binary patched no site before the thread
# ended: 1 call buffered, ~20,000 futex stops for 300 rounds). stdout equals
# native both ways, and `replay --check` says OK for both.
source "$(dirname "$0")/record_lib.sh"
sysbuf_on_off "$PROGRAMS/rec_sysbuf_futex" 150
grep -q "the program ran 2 threads" "$WORK/on.err" || die "did not run 2 threads: $(grep -v debug "$WORK/on.err")"
grep -q "glibc sites patched by the scan.* of the 2 threads" "$WORK/on.err" ||
  die "libc was not patched while the consumer lived: $(grep 'syscall buffer' "$WORK/on.err")"
buffered=$(buffered_calls "$WORK/on.err")
[ "${buffered:-0}" -ge 5000 ] || die "only ${buffered:-0} syscalls buffered (want >= 5000)"
on_futex=$(futex_stops "$WORK/on.err") off_futex=$(futex_stops "$WORK/off.err")
[ -n "$on_futex" ] && [ "$on_futex" -lt 1000 ] || die "${on_futex:-no} futex stops with the buffer (want < 1000)"
[ "${off_futex:-0}" -ge 5000 ] || die "${off_futex:-0} futex stops without the buffer (want >= 5000)"
replay_check_ok on off
echo "$buffered syscalls buffered, $on_futex futex stops (without the buffer $off_futex)"
echo "test_record_syscall_buffer_futex: OK"
