#!/usr/bin/env bash
# Checks that a contended mutex's unlock wakes without a stop: glibc's
# __lll_lock_wake is `mov $202, %eax; syscall; ret`, which the syscall
# buffer patches at its first trap (recorder/record/syscallbuf.h). In
# rec_sysbuf_mutex_wakes two threads take turns on one mutex (yielding while
# they hold it), so most unlocks wake the other thread. With the buffer the
# recorder reports that site patched and >= ROUNDS calls buffered, and at
# least ROUNDS/2 fewer futex calls stop than with --no-syscall-buffer
# (main's binary: 1 call buffered, futex stops unchanged). stdout equals
# native both ways; `replay --check` says OK for both.
source "$(dirname "$0")/record_lib.sh"
ROUNDS=500
sysbuf_on_off "$PROGRAMS/rec_sysbuf_mutex_wakes" $ROUNDS
grep -q "a futex wake's \`syscall; ret\` site patched" "$WORK/on.err" ||
  die "__lll_lock_wake was not patched: $(grep 'syscall buffer' "$WORK/on.err")"
buffered=$(buffered_calls "$WORK/on.err")
[ "${buffered:-0}" -ge $ROUNDS ] || die "only ${buffered:-0} syscalls buffered (want >= $ROUNDS)"
on_futex=$(futex_stops "$WORK/on.err") off_futex=$(futex_stops "$WORK/off.err")
[ -n "$on_futex" ] && [ -n "$off_futex" ] && [ $((off_futex - on_futex)) -ge $((ROUNDS / 2)) ] ||
  die "futex stops: ${on_futex:-?} with the buffer, ${off_futex:-?} without (want >= $((ROUNDS / 2)) fewer)"
replay_check_ok on off
echo "$buffered syscalls buffered; futex stops $on_futex with the buffer, $off_futex without"
echo "test_record_syscall_buffer_mutex_wakes: OK"
