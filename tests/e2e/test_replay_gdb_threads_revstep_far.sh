#!/usr/bin/env bash
# Reverse steps in a threaded recording far from the thread's last resume
# (#20): thr_revstep_far's worker runs ~3*10^7 instructions of a loop with
# no system call, then the line after it. The threaded timeline used to
# single-step from the resume (bounded by 2,000,000 steps: it failed); now
# it counts the ways into the pc (ways_in.h) and lands on the last one.
# Checked against forward single steps:
# - from the line after the loop, reverse-stepi xM: the pcs read backward
#   are a stretch of a forward single-step trace of the loop's first
#   iterations (the last iteration runs the same pcs), and stepi xM from
#   there retraces them; i is N on the loop's exit test, N-1 before it;
# - reverse-next x3 from there: the `for` line, then the body's lines of
#   the last iteration, with its values;
# - reverse-finish from the line after the loop: the call in start_thread
#   (GDB's reverse-continue to the entry, then a reverse step to the call);
# - from a checkpoint's start inside the loop (a second recording with
#   2 ms ticks), reverse-stepi xM and stepi xM retrace each other.
# Each GDB session runs again with SLSDBG_REPLAY_PATCH=miss.
. "$(dirname "$0")/replay_gdb_lib.sh"
src=$FIXTURE_SRC/thr_revstep_far.c
prog=$PROGRAMS/thr_revstep_far
n=3000000
after=$(line_of AFTER "$src")
loop=$(line_of LOOP "$src")
add=$(line_of ADD "$src")
stepl=$(line_of STEP "$src")
M=24    # reverse steps from the line after the loop
K=60    # forward steps of the loop's first iterations (several iterations)
hook=$WORK/hook.gdb
line_hook "$hook"

far=$WORK/far.gdb
{
  echo "break thr_revstep_far.c:$stepl"
  echo "continue"
  for _ in $(seq $K); do echo 'stepi'; echo 'printf "FWD %#lx\n", $pc'; done
  echo "delete"
  echo "break thr_revstep_far.c:$after"
  echo "continue"
  echo 'printf "HIT i=%ld pc=%#lx\n", i, $pc'
  for _ in $(seq $M); do echo 'reverse-stepi'; echo 'printf "RBACK %#lx i=%ld\n", $pc, i'; done
  for _ in $(seq $M); do echo 'stepi'; echo 'printf "RFWD %#lx\n", $pc'; done
  echo 'printf "AGAIN line=%d i=%ld\n", $_line_of_pc, i'
  for _ in 1 2 3; do echo 'reverse-next'; echo 'printf "RNEXT line=%d i=%ld step=%ld total=%ld\n", $_line_of_pc, i, step, total'; done
} >"$far"
# reverse-finish from the line after the loop: GDB's reverse-continue to the
# function's entry, then a reverse step from that arrival to the call.
finish=$WORK/finish.gdb
{
  echo "break thr_revstep_far.c:$after"
  echo "continue"
  echo "delete"
  echo 'reverse-finish'
  echo 'python print("RFIN " + str(gdb.selected_frame().name()) + " " + gdb.execute("x/i $pc", to_string=True).strip())'
} >"$finish"

# gdb_patched PATCH REC OUT GDB-ARGS...: replay_gdb, with SLSDBG_REPLAY_PATCH=miss when PATCH is miss.
gdb_patched() {
  local patch=$1; shift
  if [ "$patch" = miss ]; then SLSDBG_REPLAY_PATCH=miss replay_gdb "$@"; else replay_gdb "$@"; fi
}

# retrace OUT BACK FWD START: the BACK pcs, read backward, then START, are the FWD pcs.
retrace() {
  local out=$1 back=$2 fwd=$3 start=$4 m
  grep "^$back " "$out" | cut -d' ' -f2 >"$WORK/back"
  grep "^$fwd " "$out" | cut -d' ' -f2 >"$WORK/fwd"
  m=$(wc -l <"$WORK/back")
  [ "$m" -eq $M ] && [ "$(wc -l <"$WORK/fwd")" -eq $M ] || { cat "$out"; die "$back/$fwd: steps missing"; }
  { head -n $((M - 1)) "$WORK/back" | tac; echo "$start"; } >"$WORK/want_fwd"
  diff "$WORK/want_fwd" "$WORK/fwd" || { cat "$out"; die "stepi after reverse-stepi does not retrace it ($back)"; }
}

check_far() {  # check_far OUT
  local out=$1 hit_pc
  expect "$out" "^HIT i=$n pc=" "the line after the loop"
  hit_pc=$(grep '^HIT ' "$out" | sed 's/.*pc=//')
  retrace "$out" RBACK RFWD "$hit_pc"
  # The M pcs before the line after the loop, oldest first, are a stretch of the forward trace.
  grep '^RBACK ' "$out" | cut -d' ' -f2 | tac | tr '\n' ' ' >"$WORK/last"
  grep '^FWD ' "$out" | cut -d' ' -f2 | tr '\n' ' ' >"$WORK/first"
  [ "$(grep -c '^FWD ' "$out")" -eq $K ] || { cat "$out"; die "forward steps missing"; }
  grep -qF -- "$(cat "$WORK/last")" "$WORK/first" ||
    { cat "$out"; die "reverse-stepi from the line after the loop: pcs not those of the loop's forward trace"; }
  expect "$out" "^RBACK 0x[0-9a-f]+ i=$n\$" "reverse-stepi: the loop's exit test (i = N)"
  expect "$out" "^RBACK 0x[0-9a-f]+ i=$((n - 1))\$" "reverse-stepi: the last iteration (i = N-1)"
  expect "$out" "^AGAIN line=$after i=$n\$" "back at the line after the loop"
  grep '^RNEXT ' "$out" >"$WORK/rnext"
  local last_total=$((3 * (n - 1) * (n - 2) / 2))
  printf 'RNEXT line=%s i=%s step=%s total=%s\n' \
    "$loop" $((n - 1)) $((n - 1)) $((last_total + 3 * (n - 1))) \
    "$add" $((n - 1)) $((n - 1)) "$last_total" \
    "$stepl" $((n - 1)) $((n - 2)) "$last_total" >"$WORK/want_rnext"
  diff "$WORK/want_rnext" "$WORK/rnext" || { cat "$out"; die "reverse-next from the line after the loop lands elsewhere"; }
}

rec=$WORK/far.rec
record "$rec" 60000 "$prog"
expect "$rec.out" "^$((n - 1)) " "the recorded run's output"
for patch in on miss; do
  out=$WORK/far_$patch.out
  t0=$(date +%s%N)
  gdb_patched $patch "$rec" "$out" -x "$hook" -x "$far"
  t1=$(date +%s%N)
  check_far "$out"
  echo "far ($patch): $(((t1 - t0) / 1000000)) ms"
  out=$WORK/finish_$patch.out
  gdb_patched $patch "$rec" "$out" -x "$finish"
  # Out of the thread's function, past the whole loop: the call that entered it.
  expect "$out" "^RFIN start_thread .*call" "reverse-finish: start_thread's call of the thread's function ($patch)"
done

# A checkpoint's start inside the loop: the worker's last instruction before it.
ticks=$WORK/ticks.rec
record "$ticks" 2 "$prog"
cp_script=$WORK/cp.gdb
{
  echo "break thr_revstep_far.c:$after"
  echo "continue"
  echo "delete"
  echo 'python k = gdb.execute("monitor when", to_string=True).split("Moment: ")[1].split(":")[0]'
  echo 'python gdb.execute("monitor goto " + k)'
  echo 'flushregs'
  echo 'thread 2'
  echo 'printf "START %#lx\n", $pc'
  echo 'python print("FN " + str(gdb.selected_frame().name()))'
  for _ in $(seq $M); do echo 'reverse-stepi'; echo 'printf "CBACK %#lx\n", $pc'; done
  for _ in $(seq $M); do echo 'stepi'; echo 'printf "CFWD %#lx\n", $pc'; done
} >"$cp_script"
for patch in on miss; do
  out=$WORK/cp_$patch.out
  gdb_patched $patch "$ticks" "$out" -x "$hook" -x "$cp_script"
  grep -q '^FN hot$' "$out" || { echo "checkpoint start ($patch): not inside the loop this time, skipped"; continue; }
  retrace "$out" CBACK CFWD "$(grep '^START ' "$out" | cut -d' ' -f2)"
  echo "checkpoint start ($patch): OK"
done
echo "replay_gdb_threads_revstep_far: OK"
