#!/usr/bin/env bash
# #20: a user breakpoint at a checkpoint's own pc. getppid_loop recorded with
# 1 ms checkpoints until one stands at getppid's syscall exit, pc
# __getppid+7 (`slsdbg backtrace --at K`). `break *(__getppid+7)` must stop
# at each of the 40 calls, forward and by reverse-continue from the end,
# with `counter` matching the program's own trace, then reverse-continue
# reaches main's breakpoint. From such a checkpoint (`replay --at K`), a
# continue goes on to the next call and a reverse-continue from the landing
# to the one before it. Default and SLSDBG_REPLAY_PATCH=miss.
# Before: reverse-continue skipped each such checkpoint's landing (its scan
# stepped over it), and with the patch missed, a forward continue lost the
# hit right after a segment's last getppid (the counting copy stepped over
# the int3 the syscall returned onto).
. "$(dirname "$0")/replay_gdb_lib.sh"
prog=$PROGRAMS/getppid_loop
rec=$WORK/rec
bp_checkpoints() {  # the checkpoints that stand at __getppid+7
  local k
  for ((k = 1; k < checkpoints; k++)); do
    "$SLSDBG" backtrace "$rec" --at "$k" 2>/dev/null | grep -q '^#0 .* in __getppid+0x7 ' && echo "$k"
  done
}
for try in 1 2 3 4 5 6; do
  record "$rec" 1 "$prog"
  at_bp=$(bp_checkpoints)
  echo "recording $try: $checkpoints checkpoints, at __getppid+7:" $at_bp
  [ -n "$at_bp" ] && break
  [ "$try" -lt 6 ] || die "no checkpoint at __getppid+7 in 6 recordings"
done
sed -n 's/^call \([0-9]*\)$/HIT counter=\1 at=1/p' "$rec.out" >"$WORK/fwd.want"
[ "$(wc -l <"$WORK/fwd.want")" -eq 40 ] || die "the program's trace has not 40 calls"
tac "$WORK/fwd.want" >"$WORK/rev.want"

# 40 stops each way; a missed hit makes the 40th move run off history's end,
# where $pc's comparison fails and the script stops.
cat >"$WORK/fwd.gdb" <<'GDB'
break main
continue
break *(__getppid+7)
set $hits = 0
while $hits < 40
  continue
  set $hits = $hits + 1
  printf "HIT counter=%d at=%d\n", counter, $pc == (char *)__getppid + 7
end
GDB
cat >"$WORK/rev.gdb" <<'GDB'
break main
continue
break *(__getppid+7)
disable 2
continue
enable 2
set $hits = 0
while $hits < 40
  reverse-continue
  set $hits = $hits + 1
  printf "HIT counter=%d at=%d\n", counter, $pc == (char *)__getppid + 7
end
reverse-continue
printf "LAST at_main=%d\n", $pc == (char *)main || ($pc > (char *)main && $pc < (char *)main + 16)
GDB
run_gdb() {  # MODE NAME: GDB runs NAME.gdb; MODE: SLSDBG_REPLAY_PATCH's value, "-" for unset
  local out=$WORK/$2-$1.out patch=()
  [ "$1" = - ] || patch=("SLSDBG_REPLAY_PATCH=$1")
  env "${patch[@]}" timeout 120 "$SLSDBG" replay "$rec" -- -nx -batch -ex 'set pagination off' \
    -x "$WORK/$2.gdb" >"$out" 2>&1 || { tail -20 "$out"; die "$2 (patch $1): slsdbg replay failed or took over 120 s"; }
  grep '^HIT' "$out" | diff "$WORK/$2.want" - >"$WORK/diff" ||
    { cat "$WORK/diff"; die "$2 (patch $1): the stops at __getppid+7 differ from the program's trace"; }
}
# From such a checkpoint itself (its landing is a hit, counter = c): a
# continue steps over it (c + 1), a reverse-continue from the landing goes
# to the hit before it (c - 1), not to itself.
cat >"$WORK/land.gdb" <<'GDB'
break *(__getppid+7)
printf "AT %d\n", counter
continue
printf "AT %d\n", counter
reverse-continue
printf "AT %d\n", counter
reverse-continue
printf "AT %d\n", counter
continue
printf "AT %d\n", counter
continue
printf "AT %d\n", counter
GDB
land_check() {  # MODE K: 0 checked, 2 K's call is the first or last (no hit on one side)
  local out=$WORK/land-$1-$2.out patch=() a
  [ "$1" = - ] || patch=("SLSDBG_REPLAY_PATCH=$1")
  env "${patch[@]}" timeout 120 "$SLSDBG" replay "$rec" --at "$2" -- -nx -batch -ex 'set pagination off' \
    -x "$WORK/land.gdb" >"$out" 2>&1
  mapfile -t a < <(sed -n 's/^AT \([0-9]*\)$/\1/p' "$out")
  [ "${#a[@]}" -gt 0 ] || { tail -20 "$out"; die "land (patch $1): no counter at checkpoint $2"; }
  ((a[0] > 0 && a[0] < 39)) || return 2
  [ "${a[*]}" = "${a[0]} $((a[0] + 1)) ${a[0]} $((a[0] - 1)) ${a[0]} $((a[0] + 1))" ] ||
    { tail -20 "$out"; die "land (patch $1): from checkpoint $2 (counter ${a[0]}) the stops gave counter ${a[*]}"; }
  echo "patch $1: from checkpoint $2's landing (counter ${a[0]}): on to the next hit, back to it, back to the one before"
}
for mode in - miss; do
  run_gdb "$mode" fwd
  run_gdb "$mode" rev
  grep -q '^LAST at_main=1' "$WORK/rev-$mode.out" ||
    { tail -5 "$WORK/rev-$mode.out"; die "rev (patch $mode): the stop before the first call is not main's breakpoint"; }
  echo "patch $mode: 40 stops forward and backward match the program's trace"
  landed=
  for k in $at_bp; do
    land_check "$mode" "$k" && { landed=$k; break; }
  done
  [ -n "$landed" ] || echo "patch $mode: no landing check (the checkpoints at __getppid+7 hold the first or last call)"
done
echo PASS
