#!/usr/bin/env bash
# Checks the recorder's one-stop path for writes and lseek on regular files,
# /dev/null and /dev/zero (recorder/record/syscalls/fast_write.h): with
# write/pwrite/writev/pwritev/lseek through shared offsets, O_APPEND, fd
# numbers reused by close+open, dup2 and dup3, F_SETFL, and unreadable
# buffers, the file written under `slsdbg record --verify` is byte-identical
# to a native run's, stdout (a regular file too) and exit status are equal,
# most calls took the fast path, `info --json` counts every event, and
# `replay --check` crosses every checkpoint boundary by execution. The
# recorder's path is tested with --no-syscall-buffer; then the same checks
# with the syscall buffer (the default), where most of these calls run in
# the program without a stop: same bytes, and record counts them buffered.
source "$(dirname "$0")/record_lib.sh"
ROUNDS=3000
mkdir -p "$WORK/native" "$WORK/recorded"

"$PROGRAMS/rec_fastwrite" "$WORK/native" $ROUNDS >"$WORK/native.out" 2>"$WORK/native.err"; native_rc=$?
SLSDBG_LOG=debug "$SLSDBG" record -o "$WORK/rec" --verify --no-syscall-buffer -- "$PROGRAMS/rec_fastwrite" "$WORK/recorded" $ROUNDS \
  >"$WORK/recorded.out" 2>"$WORK/recorded.err"; rec_rc=$?
[ "$rec_rc" -eq "$native_rc" ] || { tail -5 "$WORK/recorded.err"; die "exit status $rec_rc recorded, $native_rc native"; }
grep -q "mismatch" "$WORK/recorded.err" && { grep mismatch "$WORK/recorded.err" | head; die "--verify mismatch"; }
cmp "$WORK/native.out" "$WORK/recorded.out" || die "stdout differs: $(cat "$WORK/native.out") vs $(cat "$WORK/recorded.out")"
cmp "$WORK/native/rec_fastwrite.dat" "$WORK/recorded/rec_fastwrite.dat" || die "the written file differs from native"
performed=$(sed -n 's/.* \([0-9]*\) syscalls performed by the recorder.*/\1/p' "$WORK/recorded.err")
# 10 eligible calls per round (the pipe, the EFAULTs and the dup2'ed fds are not).
[ -n "$performed" ] && [ "$performed" -ge $((ROUNDS * 10)) ] || die "fast path taken ${performed:-?} times, expected >= $((ROUNDS * 10))"

"$SLSDBG" info "$WORK/rec" --json >"$WORK/rec.json" || die "info --json failed"
"$PY" - "$WORK/rec.json" $ROUNDS <<'PYEOF' || die "info check failed"
import json, sys
j = json.load(open(sys.argv[1]))
rounds = int(sys.argv[2])
by_kind = j["events_by_kind"]
assert by_kind.get("syscall", 0) >= rounds * 10, by_kind
assert j["events"] == sum(by_kind.values()), (j["events"], by_kind)
assert j["finished"] and j["exit"] is not None, j["exit"]
assert len(j["checkpoints"]) >= 3, len(j["checkpoints"])
print(f"fast_writes: {len(j['checkpoints'])} checkpoints, {j['events']} events, by kind {by_kind}")
PYEOF
echo "fast path: $performed calls"

# Replay: the emulated writes get the logged results; every boundary is
# crossed by execution (with the buffer: but its patch, boundaries.py).
for mode in --no-syscall-buffer --syscall-buffer; do
  rm -rf "$WORK/recorded"/* "$WORK/rec2"
  "$SLSDBG" record -o "$WORK/rec2" --verify $mode -- "$PROGRAMS/rec_fastwrite" "$WORK/recorded" $ROUNDS \
    >"$WORK/rec2.out" 2>"$WORK/rec2.err"; rc=$?
  [ "$rc" -eq "$native_rc" ] || die "$mode: recording for replay exit $rc: $(tail -3 "$WORK/rec2.err")"
  grep -q "mismatch" "$WORK/rec2.err" && die "$mode: --verify mismatch"
  cmp "$WORK/native.out" "$WORK/rec2.out" || die "$mode: stdout differs"
  cmp "$WORK/native/rec_fastwrite.dat" "$WORK/recorded/rec_fastwrite.dat" || die "$mode: the written file differs from native"
  buffered=$(sed -n 's/^slsdbg: syscall buffer: \([0-9]*\) syscalls buffered.*/\1/p' "$WORK/rec2.err")
  if [ $mode = --syscall-buffer ]; then
    [ "${buffered:-0}" -ge $((ROUNDS * 5)) ] || die "buffered ${buffered:-no} calls, expected >= $((ROUNDS * 5))"
  else
    [ -z "$buffered" ] || die "--no-syscall-buffer buffered $buffered calls"
  fi
  out=$(timeout 300 "$SLSDBG" replay "$WORK/rec2" --check 2>&1); rc=$?
  [ "$rc" -eq 0 ] || die "$mode: replay --check exit $rc: $out"
  cps=$(sed -n 's/^OK: \([0-9]*\) checkpoints.*/\1/p' <<<"$out")
  want=$("$PY" "$SLSDBG_SOURCE_DIR/tests/e2e/boundaries.py" "$WORK/rec2" --max-forced 0) ||
    die "$mode: $want"
  [[ -n "$cps" && "$out" == *"$want"* ]] || die "$mode: not every boundary by execution: $out (want $want)"
  echo "replay ($mode, ${buffered:-0} buffered): $out"
done
echo "test_record_fast_writes: OK"
