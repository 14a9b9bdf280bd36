#!/usr/bin/env bash
# A reverse continue counts the next older batch of segments on the other
# CPU while it scans the newer one (#20, timeline_scan_ahead.cc), and lands
# where the scan on one CPU lands. bisect_bank runs its planted bug's line
# once, in the middle of ~30 checkpoints of CPU-bound transfers. With
# `break` on that line, reverse-continue from the end finds segment b; then
# from checkpoint b+1 (b is the first older batch, the other CPU's) and from
# b+2 (b lies in this thread's second batch): each must stop on that line at
# the moment (monitor when) SLSDBG_REPLAY_SCAN_AHEAD=off gives, and on two
# CPUs the debug log shows the other CPU's count finding it.
. "$(dirname "$0")/replay_gdb_lib.sh"
src=$FIXTURE_SRC/bisect_bank.c
bug=$(grep -n "planted bug" "$src" | tail -1 | cut -d: -f1)
rec=$WORK/ahead.rec
# It exits 1 (the invariant broke): record it by hand.
"$SLSDBG" record -o "$rec" --interval 10 -- "$PROGRAMS/bisect_bank" 400000 250000 >"$rec.out" 2>&1
grep -q "transfers 400000 bug at 250000" "$rec.out" || { cat "$rec.out"; die "recording bisect_bank failed"; }
checkpoints=$("$SLSDBG" info "$rec" --json | "$PY" -c 'import json,sys; print(len(json.load(sys.stdin)["checkpoints"]))')
[ "$checkpoints" -ge 8 ] || die "only $checkpoints checkpoints: too short for batches on both CPUs"
moment() { grep "^WHEN " "$1" | cut -d' ' -f2 | tr '\n' ' '; }
replay_script() {  # replay_script LABEL SCRIPT ENV...
  local label=$1 script=$2; shift 2
  env SLSDBG_LOG=debug "$@" timeout 300 "$SLSDBG" replay "$rec" -- -nx -batch -ex 'set pagination off' \
    -x "$script" >"$WORK/$label.out" 2>&1 || { cat "$WORK/$label.out"; die "$label: slsdbg replay failed"; }
}
stop_lines() {  # stop_lines START...: reverse-continue from each checkpoint START, where it stops
  echo "break bisect_bank.c:$bug"
  for k in "$@"; do
    echo "monitor goto $k"
    echo "maint flush register-cache"
    echo "reverse-continue"
    echo 'python print("AT", gdb.selected_frame().find_sal().line, gdb.parse_and_eval("current_transfer"))'
    echo 'python print("WHEN", gdb.execute("monitor when", to_string=True).split()[2])'
  done
}
stop_lines $((checkpoints - 1)) >"$WORK/end.gdb"
replay_script end "$WORK/end.gdb" SLSDBG_REPLAY_SCAN_AHEAD=off
expect "$WORK/end.out" "^AT $bug 250000$" "from the end: the planted bug's line, transfer 250000"
b=$(moment "$WORK/end.out" | cut -d: -f1)
[ -n "$b" ] && [ "$b" -ge 1 ] && [ "$b" -lt $((checkpoints - 3)) ] || die "the bug's segment '$b' leaves no room"
stop_lines $((b + 1)) $((b + 2)) $((checkpoints - 1)) >"$WORK/starts.gdb"
for mode in one two; do
  if [ $mode = one ]; then replay_script $mode "$WORK/starts.gdb" SLSDBG_REPLAY_SCAN_AHEAD=off
  else replay_script $mode "$WORK/starts.gdb"; fi
  [ "$(grep -c "^AT $bug 250000$" "$WORK/$mode.out")" -eq 3 ] \
    || { cat "$WORK/$mode.out"; die "$mode: not every reverse-continue stopped at the planted bug"; }
  found=$(grep -c "counted on the other CPU: last hit [0-9]" "$WORK/$mode.out")
  echo "$mode: $(moment "$WORK/$mode.out"); hits found by the other CPU: $found"
done
[ "$(moment "$WORK/two.out")" = "$(moment "$WORK/one.out")" ] || die "on two CPUs another moment than on one"
[ "$(grep -c "counted on the other CPU" "$WORK/one.out")" -eq 0 ] || die "SLSDBG_REPLAY_SCAN_AHEAD=off still counted on another CPU"
if [ "$(nproc)" -ge 2 ]; then
  [ "$found" -ge 1 ] || die "no hit was found by the other CPU's count"
fi
echo "travel_scan_ahead: OK"
