#!/usr/bin/env bash
# A user breakpoint hit while the checkpoint's patched breakpoint is in
# (#20, checkpoint_arrival_proof.cc). revstep_far 3 N with 4 ms
# checkpoints in its hot loop: a tick must end the segment of the 1st hit
# (i = 0), so a third round of ~5 ms follows the 2nd (with 2 rounds and
# 10 ms ticks the one tick came after the loop in most recordings once the
# store began before the spawn and the program ran ~12 ms); GDB `break FAR_MARK`, `ignore 1 1`,
# `continue` must stop at the 2nd hit (i = 1). The 1st hit comes in a
# patched segment: a copy of the tracee proves that the patched run still
# reaches the checkpoint after it, so the patch only steps aside. Before,
# the run went back to the rescue copy and finished the segment with a
# trap per visit of the checkpoint's pc (12.5 s at load 16 against 2.3 s
# with the proof); the log names which way was taken.
# With SLSDBG_REPLAY_PATCH=miss the trampoline never matches: no proof may
# succeed, the rescue copy takes over, and the stop must be the same (on a
# smaller recording: that path still traps per visit, 63 s on the larger
# one at load 16).
. "$(dirname "$0")/replay_gdb_lib.sh"
src=$FIXTURE_SRC/revstep_far.c
prog=$PROGRAMS/revstep_far
mark=$(line_of FAR_MARK "$src")

script=$WORK/ig.gdb
cat >"$script" <<GDB
break revstep_far.c:$mark
ignore 1 1
continue
printf "AT i=%ld\n", i
GDB
run_case() {  # run_case LABEL REC [ENV=VALUE...]
  local label=$1 rec=$2; shift 2
  local out=$WORK/$label.out start=$SECONDS
  env SLSDBG_LOG=debug "$@" timeout 120 "$SLSDBG" replay "$rec" -- -nx -batch -ex 'set pagination off' \
    -ex 'set remotetimeout 600' -x "$script" >"$out" 2>&1 || { tail -30 "$out"; die "$label: slsdbg replay failed"; }
  expect "$out" "^Breakpoint 1, main .*revstep_far.c:$mark" "$label: stopped at the user breakpoint"
  expect "$out" '^AT i=1$' "$label: at its 2nd hit"
  echo "$label: $((SECONDS - start)) s"
}

# The 1st hit must come while a segment is patched; the ticks land at
# random pcs, so up to 3 recordings.
rec=$WORK/far.rec
out=$WORK/patched.out
for try in 1 2 3; do
  record "$rec" 4 "$prog" 3 2000000
  echo "recording $try: $checkpoints checkpoints"
  run_case patched "$rec"
  grep -Eq "after the observer's trap|a trap for the observer while patched" "$out" && break
  [ "$try" = 3 ] && die "patched: in 3 recordings the 1st hit never came while a segment was patched"
done
grep -q "the patched run reaches checkpoint [0-9]* after the observer's trap" "$out" ||
  die "patched: the hit while patched was not proven to come before the checkpoint"
grep -q "the observer's trap, before the checkpoint; patch taken away" "$out" || die "patched: the patch did not step aside"
if grep -q "a trap for the observer while patched; going on from the rescue copy" "$out"; then
  die "patched: a user breakpoint hit still sent the run back to the rescue copy (a trap per visit after it)"
fi

small=$WORK/small.rec
record "$small" 10 "$prog" 2 400000
run_case miss "$small" SLSDBG_REPLAY_PATCH=miss
# A trampoline that never matches must never prove a trap to come first.
if grep -q "the patched run reaches checkpoint" "$WORK/miss.out"; then
  die "miss: a proof succeeded with a trampoline that never matches"
fi
echo "replay_gdb_patched_user_breakpoint: OK"
