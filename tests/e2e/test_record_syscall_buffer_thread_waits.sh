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
P="$PROGRAMS/rec_sysbuf_thread_waits"
"$P" 500 >"$WORK/native" || die "native run failed: $(cat "$WORK/native")"
SLSDBG_LOG=debug timeout 120 "$SLSDBG" record -o "$WORK/on" -- "$P" 500 >"$WORK/on.out" 2>"$WORK/on.err" </dev/null ||
  die "record: $(grep -v debug "$WORK/on.err" | tail -5)"
cmp -s "$WORK/native" "$WORK/on.out" || die "stdout differs from native: $(cat "$WORK/on.out") vs $(cat "$WORK/native")"
scan=$(grep "glibc sites patched by the scan" "$WORK/on.err")
[[ "$scan" =~ ([1-9][0-9]*)\ left\ while\ another\ of\ the\ 2\ threads ]] ||
  die "no site left for the waiting reader: ${scan:-libc not patched}"
timeout 120 "$SLSDBG" record --no-syscall-buffer -o "$WORK/off" -- "$P" 500 >"$WORK/off.out" 2>"$WORK/off.err" </dev/null ||
  die "record --no-syscall-buffer: $(tail -5 "$WORK/off.err")"
cmp -s "$WORK/native" "$WORK/off.out" || die "stdout differs from native without the buffer"
replay_check_ok on off
echo "test_record_syscall_buffer_thread_waits: OK"
