#!/usr/bin/env bash
# Reverse stepping with real GDB far from any checkpoint (#20): the fixture's
# 1000th iteration is about 2*10^7 instructions after the recording's only
# checkpoint of that stretch. reverse-stepi xN must retrace exactly the pcs a
# forward single-step trace of the same region visits, and reverse-next must
# land on the right lines and iterations. Runs again with the checkpoint patch
# disabled (SLSDBG_REPLAY_PATCH=miss). Not here: reverse-finish out of the
# inner loop (GDB's reverse-continue to the function's entry, 1000 hits back,
# took minutes).
. "$(dirname "$0")/replay_gdb_lib.sh"
src=$FIXTURE_SRC/revstep_far.c
mark=$(line_of FAR_MARK "$src")
call=$(line_of FAR_CALL "$src")
prog=$PROGRAMS/revstep_far
N=30  # forward steps then back
M=40  # reverse steps before the hit, then forward again
script=$WORK/far.gdb
{
  # The 1000th arrival at the marked line: its moment from the first one's
  # (GDB's own ignore count would stop at every hit).
  echo "break revstep_far.c:$mark"
  echo "continue"
  echo "delete"
  echo 'python m = gdb.execute("monitor when", to_string=True).split()[2].rsplit(":", 1)[0]'
  echo 'python gdb.execute("goto " + m + ":1000")'
  echo 'maint flush dcache'
  echo 'printf "HIT i=%ld\n", i'
  for _ in $(seq $N); do echo 'stepi'; echo 'printf "FWD %#lx\n", $pc'; done
  for _ in $(seq $N); do echo 'reverse-stepi'; echo 'printf "BACK %#lx\n", $pc'; done
  echo 'printf "START %#lx\n", $pc'
  for _ in $(seq $M); do echo 'reverse-stepi'; echo 'printf "RBACK %#lx\n", $pc'; done
  for _ in $(seq $M); do echo 'stepi'; echo 'printf "RFWD %#lx\n", $pc'; done
  # Back at the hit: reverse-next over the call, then into the previous iteration.
  echo 'printf "AGAIN i=%ld line=%d\n", i, $_line_of_pc'
  for _ in 1 2 3; do echo 'reverse-next'; echo 'printf "RNEXT line=%d i=%ld\n", $_line_of_pc, i'; done
} >"$script"
hook=$WORK/hook.gdb
cat >"$hook" <<'GDB'
define hook-stop
  python gdb.set_convenience_variable("_line_of_pc", gdb.find_pc_line(gdb.selected_frame().pc()).line)
  python gdb.set_convenience_variable("_fn", gdb.selected_frame().name() or "?")
end
GDB

rec=$WORK/far.rec
record "$rec" 60000 "$prog"

check() {  # check OUT
  local out=$1
  expect "$out" '^HIT i=999$' "the 1000th hit of the marked line"
  grep '^FWD ' "$out" | cut -d' ' -f2 >"$WORK/fwd"
  grep '^BACK ' "$out" | cut -d' ' -f2 >"$WORK/back"
  [ "$(wc -l <"$WORK/fwd")" -eq $N ] && [ "$(wc -l <"$WORK/back")" -eq $N ] || { cat "$out"; die "steps missing"; }
  # BACK k is the position before FWD (N-k+1): FWD N-1 .. FWD 1, then the hit itself.
  { head -n $((N - 1)) "$WORK/fwd" | tac; grep '^START ' "$out" | cut -d' ' -f2; } >"$WORK/want_back"
  diff "$WORK/want_back" "$WORK/back" || { cat "$out"; die "reverse-stepi does not retrace the forward steps"; }
  [ "$(sort -u "$WORK/fwd" | wc -l)" -ge 10 ] || { cat "$out"; die "the forward steps did not move"; }
  # RBACK: M steps before the hit; stepping forward from there must visit them in reverse order.
  grep '^RBACK ' "$out" | cut -d' ' -f2 >"$WORK/rback"
  grep '^RFWD ' "$out" | cut -d' ' -f2 >"$WORK/rfwd"
  [ "$(wc -l <"$WORK/rback")" -eq $M ] && [ "$(wc -l <"$WORK/rfwd")" -eq $M ] || { cat "$out"; die "reverse steps missing"; }
  { head -n $((M - 1)) "$WORK/rback" | tac; grep '^START ' "$out" | cut -d' ' -f2; } >"$WORK/want_rfwd"
  diff "$WORK/want_rfwd" "$WORK/rfwd" || { cat "$out"; die "stepping forward after reverse-stepi does not retrace it"; }
  expect "$out" "^AGAIN i=999 line=$mark\$" "back at the hit after the forward steps"
  # Over the call (same iteration), to the loop's head (before i++), into the previous iteration.
  grep '^RNEXT ' "$out" >"$WORK/rnext"
  local head_line=$((call - 1))
  printf 'RNEXT line=%s i=999\nRNEXT line=%s i=998\nRNEXT line=%s i=998\n' "$call" "$head_line" "$mark" >"$WORK/want_rnext"
  diff "$WORK/want_rnext" "$WORK/rnext" || { cat "$out"; die "reverse-next lands elsewhere"; }
}

out=$WORK/far.out
t0=$(date +%s%N)
replay_gdb "$rec" "$out" -x "$hook" -x "$script"
t1=$(date +%s%N)
check "$out"
echo "patched: $(((t1 - t0) / 1000000)) ms"
out2=$WORK/far_miss.out
SLSDBG_REPLAY_PATCH=miss replay_gdb "$rec" "$out2" -x "$hook" -x "$script"
t2=$(date +%s%N)
check "$out2"
echo "SLSDBG_REPLAY_PATCH=miss: $(((t2 - t1) / 1000000)) ms"
echo "travel_reverse_far: OK"
