#!/usr/bin/env bash
# Checks that libc's sites are patched while another thread waits in a call
# at one of them, and that this one site is left alone
# (recorder/record/syscallbuf.h, SyscallBuf::maybe_patch): in
# rec_sysbuf_thread_waits a reader thread waits in read() on a pipe when the
# main thread's first write to /dev/null patches libc. The recorder must
# report one site left for the waiting thread (patched over, the read would
# return into the middle of the patch), the reader's byte count and sum must
# equal native's, with and without the buffer, and `replay --check` says OK.
source "$(dirname "$0")/record_lib.sh"
sysbuf_on_off "$PROGRAMS/rec_sysbuf_thread_waits" 500
scan=$(grep "glibc sites patched by the scan" "$WORK/on.err")
[[ "$scan" =~ ([1-9][0-9]*)\ left\ while\ another\ of\ the\ 2\ threads ]] ||
  die "no site left for the waiting reader: ${scan:-libc not patched}"
replay_check_ok on off
echo "test_record_syscall_buffer_thread_waits: OK"
