#!/usr/bin/env bash
# Reverse moves out of long loops with real GDB, counting arrivals in the
# replayed process instead of a #DB per visit (#20, timeline_counting.cc).
# revstep_far 2 700000 with one checkpoint: each call of revstep_inner runs
# 700,000 iterations (about 1.4*10^7 instructions). GDB goes to the
# 1,000,000th call of revstep_mix (the 2nd call of revstep_inner, by
# `goto`: a target probe on a pc visited a million times), then
# reverse-finish twice: out of revstep_mix into the loop, and out of the
# long loop (GDB's reverse-continue to revstep_inner's entry: resolving the
# current moment counts a hot pc) onto the call's line in main, with i = 1.
# Each move must take seconds, not the minutes a #DB per visit costs (about
# 30 us x 10^6); then again with the checkpoint patch disabled
# (SLSDBG_REPLAY_PATCH=miss). Then reverse-next over a call made a million
# times (below).
. "$(dirname "$0")/replay_gdb_lib.sh"
src=$FIXTURE_SRC/revstep_far.c
call=$(line_of FAR_CALL "$src")
prog=$PROGRAMS/revstep_far
inner=700000
rec=$WORK/fin.rec
record "$rec" 60000 "$prog" 2 $inner

script=$WORK/fin.gdb
cat >"$script" <<GDB
break revstep_mix
continue
delete
python m = gdb.execute("monitor when", to_string=True).split()[2].rsplit(":", 1)[0]
python import time; t = time.monotonic()
python gdb.execute("goto " + m + ":1000000")
python print("GOTO_S %.2f" % (time.monotonic() - t))
maint flush dcache
up
printf "AT j=%ld\n", j
down
python t = time.monotonic()
reverse-finish
python print("RF1_S %.2f" % (time.monotonic() - t))
python print("FN1", gdb.selected_frame().name())
python t = time.monotonic()
reverse-finish
python print("RF2_S %.2f" % (time.monotonic() - t))
python print("FN2", gdb.selected_frame().name(), gdb.find_pc_line(gdb.selected_frame().pc()).line)
printf "MAIN i=%ld\n", i
GDB

run_case() {  # run_case LABEL [ENV=VALUE...]
  local label=$1; shift
  local out=$WORK/$label.out t0=$SECONDS
  env "$@" timeout 300 "$SLSDBG" replay "$rec" -- -nx -batch -ex 'set pagination off' -ex 'set remotetimeout 600' \
    -x "$script" >"$out" 2>&1 || { cat "$out"; die "$label: slsdbg replay failed"; }
  expect "$out" "^AT j=$((1000000 - inner - 1))\$" "$label: goto reached the 1,000,000th call of revstep_mix"
  expect "$out" '^FN1 revstep_inner$' "$label: the first reverse-finish lands in revstep_inner"
  expect "$out" "^FN2 main $call\$" "$label: the second reverse-finish lands on the call's line in main"
  expect "$out" '^MAIN i=1$' "$label: in the 2nd iteration of main's loop"
  local g r1 r2
  g=$(sed -n 's/^GOTO_S //p' "$out"); r1=$(sed -n 's/^RF1_S //p' "$out"); r2=$(sed -n 's/^RF2_S //p' "$out")
  echo "$label: goto ${g} s, reverse-finish ${r1} s and ${r2} s (whole run $((SECONDS - t0)) s)"
  # A #DB per visit costs ~30 s per 10^6 visits; the moves must be far below.
  for v in "$g" "$r1" "$r2"; do
    "$PY" -c "import sys; sys.exit(0 if float('$v') < 15 else 1)" || die "$label: a move took $v s"
  done
}
run_case counted
run_case miss SLSDBG_REPLAY_PATCH=miss

# reverse-continue to a breakpoint hit a million times: revstep_far 1000000 1
# calls revstep_inner once per iteration. From the 900,000th arrival at the
# line after the call, reverse-continue to `break revstep_inner` must land
# in that iteration's call: the scan counts the breakpoint's 900,000 hits in
# the tracee (a trap each took minutes), then goes to the last one.
mark=$(line_of FAR_MARK "$src")
rec2=$WORK/next.rec
record "$rec2" 60000 "$prog" 1000000 1
script2=$WORK/next.gdb
cat >"$script2" <<GDB
break revstep_far.c:$mark
continue
delete
python m = gdb.execute("monitor when", to_string=True).split()[2].rsplit(":", 1)[0]
python gdb.execute("goto " + m + ":900000")
maint flush dcache
printf "HIT i=%ld\n", i
break revstep_inner
python import time; t = time.monotonic()
reverse-continue
python print("RC_S %.2f" % (time.monotonic() - t))
python print("RC", gdb.selected_frame().name())
up
printf "RC i=%ld\n", i
GDB
rc_case() {  # rc_case LABEL [ENV=VALUE...]
  local label=$1; shift
  local out=$WORK/next_$label.out
  env "$@" timeout 300 "$SLSDBG" replay "$rec2" -- -nx -batch -ex 'set pagination off' -ex 'set remotetimeout 600' \
    -x "$script2" >"$out" 2>&1 || { cat "$out"; die "$label: slsdbg replay failed"; }
  expect "$out" '^HIT i=899999$' "$label: the 900,000th arrival at the marked line"
  expect "$out" '^RC revstep_inner$' "$label: reverse-continue stops at the breakpoint"
  expect "$out" '^RC i=899999$' "$label: in the same iteration"
  local rc
  rc=$(sed -n 's/^RC_S //p' "$out")
  echo "$label: reverse-continue to the 900,000th hit ${rc} s"
  "$PY" -c "import sys; sys.exit(0 if float('$rc') < 10 else 1)" || die "$label: reverse-continue took $rc s"
}
rc_case counted
rc_case miss SLSDBG_REPLAY_PATCH=miss

# Checkpoints every 5 ms inside the long calls, the patch disabled: the
# segments are reached by counting copies, which hold the Timeline's counter
# stubs (before, a count made before the session's first resumption ran
# without the Timeline's counts of `revstep_inner`'s entry, and
# reverse-finish landed in the 1st call: i = 0, 3 runs in 8 under load).
# reverse-finish from the 2nd call's end lands on the call's line in main
# with i = 1. The segment that crosses from the 1st call into the 2nd is
# counted by sampling three visits again further on (the loop counter starts
# again); its #DBs are printed, not bounded: a tick soon after the 2nd call
# begins is passed by the samples' stride, and that segment then takes a #DB
# per visit (seen once in a CI run: 2.5*10^6).
inner3=20000000
rec3=$WORK/cross.rec
record "$rec3" 5 "$prog" 2 $inner3
[ "$checkpoints" -ge 8 ] || die "cross: only $checkpoints checkpoints"
script3=$WORK/cross.gdb
cat >"$script3" <<GDB
break revstep_far.c:$mark
ignore 1 1
continue
delete
reverse-stepi
reverse-stepi
reverse-stepi
python print("FN0", gdb.selected_frame().name())
reverse-finish
python print("FN3", gdb.selected_frame().name(), gdb.find_pc_line(gdb.selected_frame().pc()).line)
printf "MAIN i=%ld\n", i
monitor stats
GDB
out3=$WORK/cross.out
SLSDBG_REPLAY_PATCH=miss timeout 300 "$SLSDBG" replay "$rec3" -- -nx -batch -ex 'set pagination off' \
  -ex 'set remotetimeout 600' -x "$script3" >"$out3" 2>&1 || { cat "$out3"; die "cross: slsdbg replay failed"; }
expect "$out3" '^FN0 revstep_inner$' "cross: reverse-stepi from main's mark lands in revstep_inner"
expect "$out3" "^FN3 main $call\$" "cross: reverse-finish lands on the call's line in main"
expect "$out3" '^MAIN i=1$' "cross: in the 2nd iteration of main's loop"
dbs=$(sed -n 's/^checkpoint breakpoint debug exceptions: \([0-9]*\)$/\1/p' "$out3")
[ -n "$dbs" ] || { cat "$out3"; die "cross: no monitor stats"; }
echo "cross (5 ms checkpoints, =miss): $checkpoints checkpoints, $dbs checkpoint debug exceptions"
echo "travel_reverse_finish: OK"
