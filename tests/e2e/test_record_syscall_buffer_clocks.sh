#!/usr/bin/env bash
# Checks that the vDSO's clock reads go through the syscall buffer's stub
# (process/vdso_patch.h): rec_sysbuf_clocks makes 6000 clock_gettime, 750
# gettimeofday and 1500 time calls. With the buffer they are logged without
# a stop (the stop census names no clock_gettime; >= 8000 calls buffered);
# with --no-syscall-buffer each one stops (>= 6000 clock_gettime stops), so
# the count can fail. stdout equals native in both, and `replay --check`
# says OK for both: replay serves every reading from the log (the fixture
# folds them into memory that the check compares).
source "$(dirname "$0")/record_lib.sh"
P="$PROGRAMS/rec_sysbuf_clocks"
"$P" >"$WORK/native" || die "native run failed: $(cat "$WORK/native")"
stops_of() { sed -n "s/.*seccomp stops:.* $1 \([0-9]*\).*/\1/p" "$2" | head -1; }
SLSDBG_LOG=debug timeout 120 "$SLSDBG" record -o "$WORK/on" -- "$P" >"$WORK/on.out" 2>"$WORK/on.err" </dev/null ||
  die "record: $(tail -5 "$WORK/on.err")"
cmp -s "$WORK/native" "$WORK/on.out" || die "stdout differs from native: $(cat "$WORK/on.out")"
buffered=$(sed -n 's/.*syscall buffer: \([0-9]*\) syscalls buffered.*/\1/p' "$WORK/on.err")
[ "${buffered:-0}" -ge 8000 ] || die "only ${buffered:-0} syscalls buffered (want >= 8000: the clock reads)"
on_stops=$(stops_of clock_gettime "$WORK/on.err")
[ "${on_stops:-0}" -lt 10 ] || die "$on_stops clock_gettime stops with the buffer (want < 10)"
SLSDBG_LOG=debug timeout 120 "$SLSDBG" record --no-syscall-buffer -o "$WORK/off" -- "$P" >"$WORK/off.out" \
  2>"$WORK/off.err" </dev/null || die "record --no-syscall-buffer: $(tail -5 "$WORK/off.err")"
cmp -s "$WORK/native" "$WORK/off.out" || die "stdout differs from native without the buffer"
off_stops=$(stops_of clock_gettime "$WORK/off.err")
[ "${off_stops:-0}" -ge 6000 ] || die "${off_stops:-0} clock_gettime stops without the buffer (want >= 6000)"
replay_check_ok on off
echo "$buffered syscalls buffered, clock_gettime stops ${on_stops:-0} (without the buffer $off_stops)"
echo "test_record_syscall_buffer_clocks: OK"
