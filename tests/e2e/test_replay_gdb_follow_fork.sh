#!/usr/bin/env bash
# GDB's follow-fork-mode child on a replay: after the fork stop GDB detaches
# the parent and selects the child, and the connection becomes the replay of
# the child's own recording (REC/members/PID) from its fork on: the child's
# values (fork returned 0 in it), its breakpoints forward and in reverse, its
# exit; in a shell pipeline, the child's exec of ls too. What one connection
# cannot serve is refused in one line naming `slsdbg replay -p PID`: a child
# GDB keeps beside its parent (detach-on-fork off, or following a vfork child,
# whose parent GDB holds until the exec).
. "$(dirname "$0")/replay_gdb_lib.sh"
rec=$WORK/fork.rec
record_fork_stops "$rec"

out=$WORK/child.out
replay_gdb "$rec" "$out" -ex 'set follow-fork-mode child' -ex 'break _exit' -ex 'continue' \
  -ex 'print forked' -ex 'print $_inferior' -ex 'continue' -ex 'reverse-continue' -ex 'print forked'
expect "$out" "^\[Detaching after fork from parent process " "GDB detaches the parent"
expect "$out" "^\[Switching to Thread $forked\.$forked\]" "and switches to the fork child"
expect "$out" "hit Breakpoint 1(\.[0-9]+)?, __GI__exit \(status=3\)" "the child's own _exit(3), in the child's replay"
expect "$out" '^\$1 = 0$' "fork returned 0 in the child"
expect "$out" '^\$2 = 2$' "the child is GDB's second inferior"
expect "$out" 'the program exited with status 3 here' "the child's replay runs to its exit"
[ "$(grep -c 'hit Breakpoint 1.*__GI__exit (status=3)' "$out")" -eq 2 ] || { cat "$out"; die "reverse-continue in the child should stop at _exit again"; }
expect "$out" '^\$3 = 0$' "still the child after reverse-continue"
if grep -q "internal-error\|Remote failure\|Cannot insert breakpoint" "$out"; then cat "$out"; die "GDB reported an error"; fi

# Kept beside the parent: refused in one line naming replay -p (GDB's
# continue fails there, so batch GDB exits 1), and the session ends cleanly.
refused() {  # refused OUT CHILD GDB-ARGS...
  local out=$1 child=$2; shift 2
  timeout 600 "$SLSDBG" replay "$rec" -- -nx -batch -ex 'set pagination off' "$@" >"$out" 2>&1
  expect "$out" "the fork child $child is not replayed in this session .*slsdbg replay -p $child debugs it" "refused naming replay -p $child"
  expect "$out" "^\[Inferior 2 \(process $child\) detached\]" "GDB lets the child go at the end"
  if grep -q "internal-error\|Target disconnected\|Broken pipe" "$out"; then cat "$out"; die "the session did not end cleanly"; fi
}
refused "$WORK/keep.out" "$forked" -ex 'set detach-on-fork off' -ex 'break after_fork' -ex 'continue'
refused "$WORK/vfork.out" "$vforked" -ex 'break after_fork' -ex 'continue' -ex 'set follow-fork-mode child' -ex 'continue'

# A shell pipeline in a subshell: follow the subshell, then its first child
# (a grandchild: two switches on one connection) into its exec of ls; and the
# same from the subshell's own replay (-p: children found from a member).
rec2=$WORK/sh.rec
"$SLSDBG" record -o "$rec2" -- /bin/sh -c '( ls / | wc -l ); true' >"$WORK/sh.out" 2>"$WORK/sh.err" ||
  { cat "$WORK/sh.err"; die "recording sh"; }
subshell=$("$SLSDBG" info "$rec2" --json | "$PY" -c 'import json,sys; d=json.load(sys.stdin); print([p["pid"] for p in d["processes"] if p["parent"] == d["pid"]][0])') ||
  die "no subshell in info --json"
for from in root member; do
  out=$WORK/sh_gdb_$from.out
  if [ "$from" = root ]; then pick=(); inferior=3; else pick=(-p "$subshell"); inferior=2; fi
  timeout 600 "$SLSDBG" replay "$rec2" "${pick[@]}" -- -nx -batch -ex 'set pagination off' -ex 'set follow-fork-mode child' \
    -ex 'catch exec' -ex 'continue' -ex 'info inferiors' -ex 'continue' >"$out" 2>&1 || { cat "$out"; die "replay ($from) failed"; }
  [ "$from" = member ] || expect "$out" "^\[Attaching after Thread [0-9.]+ fork to child Thread $subshell\.$subshell\]" "the root's child is the subshell"
  expect "$out" "^\[Detaching after fork from parent process $subshell\]" "the subshell is detached at its fork ($from)"
  expect "$out" "^process [0-9]+ is executing new program: /usr/bin/ls" "the followed grandchild execs ls ($from)"
  expect "$out" "hit Catchpoint 1 \(exec'd /usr/bin/ls\)" "catch exec stops in it ($from)"
  expect "$out" "^\* $inferior +process [0-9]+ .*/usr/bin/ls" "GDB's current inferior is ls ($from)"
  expect "$out" 'the program exited with status 0 here' "ls's replay runs to its exit ($from)"
done
echo "replay_gdb_follow_fork: OK (children $forked, $vforked; subshell $subshell)"
