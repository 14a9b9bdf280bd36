#!/usr/bin/env bash
# Checks that the syscall buffer's stub returns what the kernel returns for
# bad pointers (process/syscallbuf_stub.cc): rec_sysbuf_fault
# passes unmapped, read-only and half-valid buffers and paths to read,
# pread, write, stat, fstatat, statx, openat, getdents64 and poll through
# glibc's patched sites. The recorded run prints the same results and
# errnos as a native run (EFAULT, short counts; before, a bad path crashed
# the program with SIGSEGV in the stub), most calls are buffered, and
# `replay --check` says OK.
source "$(dirname "$0")/record_lib.sh"
ROUNDS=3
mkdir -p "$WORK/native" "$WORK/on"
"$PROGRAMS/rec_sysbuf_fault" "$WORK/native" $ROUNDS >"$WORK/native.out" || die "native run failed"
grep -q "stat(bad path) = -1 (Bad address)" "$WORK/native.out" || die "native run did not get EFAULT: $(head -5 "$WORK/native.out")"
"$SLSDBG" record -o "$WORK/on.rec" --syscall-buffer -- "$PROGRAMS/rec_sysbuf_fault" "$WORK/on" $ROUNDS \
  >"$WORK/on.out" 2>"$WORK/on.err" || die "record failed ($?): $(tail -3 "$WORK/on.err")"
diff "$WORK/native.out" "$WORK/on.out" >"$WORK/diff" || { head -10 "$WORK/diff"; die "results differ from native"; }
buffered=$(sed -n 's/.*syscall buffer: \([0-9]*\) syscalls buffered.*/\1/p' "$WORK/on.err")
# 22 calls a round reach a patched site after the first round.
[ -n "$buffered" ] && [ "$buffered" -ge $(((ROUNDS - 1) * 18)) ] || die "only ${buffered:-?} calls buffered: $(cat "$WORK/on.err")"
out=$(timeout 120 "$SLSDBG" replay "$WORK/on.rec" --check 2>&1) || die "replay --check: $out"
[[ "$out" == OK:* ]] || die "replay --check: $out"
echo "$(wc -l <"$WORK/on.out") result lines equal native; $buffered calls buffered; replay: $out"
echo "test_record_syscall_buffer_efault: OK"
