#!/usr/bin/env bash
# Reverse moves where the jump of the in-process traps cannot go at the pc
# itself (#20, patch_site.h): `pop rbp; ret` and a lone `ret`, watched from
# an anchor instruction before them.
# 1. revstep_far 1 N with 3 ms checkpoints, some of which land on
#    revstep_mix's `pop rbp` or `ret` (re-recorded up to 6 times until one
#    does: 10 recordings in 12 have one at 3 ms; at 10 ms, 5 in 12, and 6
#    tries failed ~4% of runs, once in CI): from the line after the long call, reverse-stepi x3 (onto
#    revstep_inner's `leave`, through its `ret`) and reverse-finish must
#    land on the call's line in main with i = 0, each in seconds. Before,
#    every visit of such a checkpoint's pc cost a #DB (~10^6 per segment):
#    minutes.
# 2. One checkpoint (no boundary in the loop), counted and with
#    SLSDBG_REPLAY_PATCH=miss: the same moves, whose probes sit on `ret`
#    (counted from the anchor) and whose reverse steps name the previous
#    instruction from the decoded code instead of tracing the whole call.
. "$(dirname "$0")/replay_gdb_lib.sh"
src=$FIXTURE_SRC/revstep_far.c
prog=$PROGRAMS/revstep_far
call=$(line_of FAR_CALL "$src")
mark=$(line_of FAR_MARK "$src")
inner=16000000

# Offsets of revstep_mix's `pop %rbp` and `ret`.
offsets=$(gdb -nx -batch -ex 'disassemble revstep_mix' "$prog" | sed -n 's/.*<+\([0-9]*\)>:[[:space:]]*\(pop\|ret\).*/\1/p' | tr '\n' ' ')
[ -n "$offsets" ] || die "no pop/ret in revstep_mix"
lands_unmovable() {  # lands_unmovable REC: some checkpoint's pc is revstep_mix's pop or ret
  local k
  for ((k = 1; k < checkpoints; k++)); do
    for o in $offsets; do
      "$SLSDBG" backtrace "$1" --at "$k" 2>/dev/null | grep -q "#0 .* in revstep_mix+$(printf '0x%x' "$o") " && return 0
    done
  done
  return 1
}

script=$WORK/rf.gdb
cat >"$script" <<GDB
break revstep_far.c:$mark
continue
delete
python import time; t = time.monotonic()
reverse-stepi
reverse-stepi
reverse-stepi
python print("RS_S %.2f" % (time.monotonic() - t))
python print("FN1", gdb.selected_frame().name())
python t = time.monotonic()
reverse-finish
python print("RF_S %.2f" % (time.monotonic() - t))
python print("FN2", gdb.selected_frame().name(), gdb.find_pc_line(gdb.selected_frame().pc()).line)
printf "MAIN i=%ld\n", i
GDB
run_case() {  # run_case LABEL REC LIMIT_S [ENV=VALUE...]
  local label=$1 rec=$2 limit=$3; shift 3
  local out=$WORK/$label.out
  env "$@" timeout 300 "$SLSDBG" replay "$rec" -- -nx -batch -ex 'set pagination off' -ex 'set remotetimeout 600' \
    -x "$script" >"$out" 2>&1 || { tail -30 "$out"; die "$label: slsdbg replay failed"; }
  expect "$out" '^FN1 revstep_inner$' "$label: three reverse-stepi land in revstep_inner"
  expect "$out" "^FN2 main $call\$" "$label: reverse-finish lands on the call's line in main"
  expect "$out" '^MAIN i=0$' "$label: in the 1st iteration of main's loop"
  local s f
  s=$(sed -n 's/^RS_S //p' "$out"); f=$(sed -n 's/^RF_S //p' "$out")
  echo "$label: reverse-stepi x3 ${s} s, reverse-finish ${f} s"
  for v in "$s" "$f"; do
    "$PY" -c "import sys; sys.exit(0 if float('$v') < $limit else 1)" || die "$label: a move took $v s (limit $limit s)"
  done
}

rec=$WORK/ticks.rec
for try in 1 2 3 4 5 6; do
  record "$rec" 3 "$prog" 1 $inner
  lands_unmovable "$rec" && break
  [ "$try" = 6 ] && die "no checkpoint of 6 recordings landed on revstep_mix's pop/ret ($checkpoints checkpoints)"
done
echo "recording: $checkpoints checkpoints, one on revstep_mix's pop/ret"
run_case ticks "$rec" 20 SLSDBG_LOG=debug
grep -q "patched breakpoint at .*(jump at " "$WORK/ticks.out" || die "ticks: no checkpoint was patched from an anchor"

rec1=$WORK/one.rec
record "$rec1" 60000 "$prog" 1 $inner
run_case counted "$rec1" 15
run_case miss "$rec1" 15 SLSDBG_REPLAY_PATCH=miss
echo "travel_unmovable_pcs: OK"
