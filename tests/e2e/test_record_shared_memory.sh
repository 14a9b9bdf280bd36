#!/usr/bin/env bash
# Checks MAP_SHARED memory between members (recorder/record/shared_turn.h):
# the fixture shared_counter forks a child that shares a page with its
# parent; they ping-pong on an atomic word (spinning) and add to a counter
# under a process-shared mutex. Recorded, its output is the native run's;
# both members replay --check OK; GDB on the child, rewound from a later
# point to the child's read in round 4, prints the value the child printed
# for that round (the parent wrote it: replay has it only from the log).
. "$(dirname "$0")/replay_gdb_lib.sh"

prog="$PROGRAMS/shared_counter"
rec="$WORK/s.rec"
"$prog" 6 3000 >"$WORK/native.out" 2>&1 </dev/null || die "native run failed"
timeout 300 "$SLSDBG" record -o "$rec" -- "$prog" 6 3000 >"$WORK/s.out" 2>"$WORK/s.err" </dev/null ||
  { cat "$WORK/s.err"; die "recording shared_counter failed"; }
cmp -s "$WORK/native.out" "$WORK/s.out" || die "output differs: $(cat "$WORK/s.out") vs native $(cat "$WORK/native.out")"
expect "$WORK/s.out" "^parent: value [0-9]+, counter 6000, child exit 0$" "both members added under the mutex"
expect "$WORK/s.err" "recorded 1 child process" "record reports the child"
expect "$WORK/s.err" "processes that share memory ran one at a time: [1-9][0-9]* turns passed" "record reports the members' turns"
grep -q "child process [0-9]*:" "$WORK/s.err" && die "the child's recording failed: $(cat "$WORK/s.err")"

"$SLSDBG" info "$rec" --json >"$WORK/s.json" || die "info --json failed"
set -- $("$PY" -c 'import json,sys; print(" ".join(str(p["pid"]) for p in json.load(open(sys.argv[1]))["processes"]))' "$WORK/s.json")
[ $# -eq 2 ] || die "want 2 processes, got: $*"
parent=$1 child=$2
for p in "$parent" "$child"; do
  out=$(timeout 60 "$SLSDBG" replay "$rec" -p "$p" --check 2>&1 </dev/null) || die "replay -p $p --check: $out"
  grep -q '^OK' <<<"$out" || die "replay -p $p --check does not say OK: $out"
  echo "member $p: $out"
done

# What the child printed for round 4, and what GDB shows there, reached backwards.
want=$(sed -n 's/^child saw//p' "$WORK/s.out" | awk '{print $5}')
[ -n "$want" ] || die "the child printed no round 4: $(cat "$WORK/s.out")"
timeout 300 "$SLSDBG" replay "$rec" -p "$child" -- -nx -batch -ex 'set pagination off' \
  -ex 'break add' -ex 'continue' -ex 'break child_saw if round == 4' -ex 'reverse-continue' \
  -ex 'print round' -ex 'print v' -ex 'print sh->value' >"$WORK/gdb.out" 2>&1 </dev/null ||
  { cat "$WORK/gdb.out"; die "replay -p $child with GDB failed"; }
expect "$WORK/gdb.out" "Breakpoint 2, child_saw \(round=4, v=$want\)" "GDB stops, reversing, at the child's read of round 4 with the value it printed"
expect "$WORK/gdb.out" "^\\\$2 = $want$" "GDB prints the value the parent wrote and the child read"
expect "$WORK/gdb.out" "^\\\$3 = $want$" "GDB reads the shared page as the child saw it"
echo "record_shared_memory: OK (child saw $want in round 4)"
