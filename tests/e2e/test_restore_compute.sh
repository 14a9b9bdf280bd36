#!/usr/bin/env bash
# Checks that `slsdbg restore REC --at K` resumes a real process from a
# checkpoint taken mid-computation (and from the one at exec) and that it
# prints the same checksum, TLS/FP/heap state, fd offset, handler and mask
# results and cwd as a native run and exits with the same status; that the
# pipe it held is made again (a byte written to it at the end reads back,
# and no warning names it); and that --repeat 3 reports
# three identical exit statuses; and that --lazy (userfaultfd fill) gives the
# same result.
set -u
work=$(mktemp -d "${TMPDIR:-/tmp}/restore_compute.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

mkdir "$work/run"
printf 'abcdefghijklmnopqrstuvwxyz' > "$work/run/data.txt"
iters=60000000
( cd "$work/run" && "$PROGRAMS/restore_compute" $iters data.txt > "$work/native.out" ); native_rc=$?
[ "$native_rc" -ge 3 ] || fail "native run failed ($native_rc)"

# Checkpoint 0 at exec, then mid-loop checkpoints every 150 ms.
( cd "$work/run" && "$SLSDBG" record -o "$work/rec" --interval 100 -- "$PROGRAMS/restore_compute" $iters data.txt ) \
  > "$work/record.out" 2>&1; rc=$?
[ "$rc" -eq "$native_rc" ] || { cat "$work/record.out"; fail "record: exit $rc, native $native_rc"; }
n=$("$SLSDBG" info "$work/rec" --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["checkpoints"]))')
[ "$n" -ge 4 ] || fail "want checkpoints 0..2 before the one at exit, got $n"
# The first two mid-loop (tick) checkpoints: with the syscall buffer, the
# checkpoint after its first patch comes before them.
set -- $("$SLSDBG" info "$work/rec" --json |
  python3 -c 'import json,sys; print(*[c["id"] for c in json.load(sys.stdin)["checkpoints"] if c["reason"] == "tick"][:2])')
[ $# -eq 2 ] || fail "want two tick checkpoints, got: $*"
t1=$1 t2=$2

for k in 0 $t1 $t2; do
  # From another directory: the restored cwd must be the recorded one.
  ( cd / && "$SLSDBG" restore "$work/rec" --at $k > "$work/restored$k.out" 2> "$work/restored$k.err" ); rc=$?
  [ "$rc" -eq "$native_rc" ] || { cat "$work/restored$k.err"; fail "checkpoint $k: exit $rc, native $native_rc"; }
  cmp -s "$work/native.out" "$work/restored$k.out" || {
    echo "native:   $(cat "$work/native.out")"; echo "restored: $(cat "$work/restored$k.out")"; fail "checkpoint $k: output differs"; }
  # The fixture's pipe (fds 3-4, or 4-5 after the data file) is made again.
  if grep -E "fd [3-5] \(pipe" "$work/restored$k.err"; then fail "checkpoint $k: the pipe was not restored"; fi
  grep -q " pipe p\$" "$work/restored$k.out" || fail "checkpoint $k: the pipe did not carry its byte"
  bad=$(grep -v '^slsdbg: warning: ' "$work/restored$k.err" || true)
  [ -z "$bad" ] || fail "checkpoint $k: unexpected stderr: $bad"
done

( cd / && "$SLSDBG" restore "$work/rec" --at $t2 --repeat 3 > "$work/repeat.out" 2> "$work/repeat.err" ); rc=$?
[ "$rc" -eq "$native_rc" ] || { cat "$work/repeat.err"; fail "--repeat: exit $rc, want $native_rc"; }
[ "$(grep -c '^slsdbg: run [123]/3: exited with status '"$native_rc"'$' "$work/repeat.err")" -eq 3 ] || {
  cat "$work/repeat.err"; fail "--repeat: per-run lines missing"; }
grep -q "^slsdbg: 3 runs from checkpoint $t2: 3 x exited with status $native_rc\$" "$work/repeat.err" || {
  cat "$work/repeat.err"; fail "--repeat: summary missing"; }
[ "$(grep -c checksum "$work/repeat.out")" -eq 3 ] || fail "--repeat: want 3 outputs"
[ "$(sort -u "$work/repeat.out")" = "$(cat "$work/native.out")" ] || fail "--repeat: outputs differ from native"
( cd / && "$SLSDBG" restore "$work/rec" --at $t1 --lazy > "$work/lazy.out" 2> "$work/lazy.err" ); rc=$?
[ "$rc" -eq "$native_rc" ] || { cat "$work/lazy.err"; fail "--lazy: exit $rc, want $native_rc"; }
cmp -s "$work/native.out" "$work/lazy.out" || fail "--lazy: output differs: $(cat "$work/lazy.out")"
echo "restore_compute: OK"
