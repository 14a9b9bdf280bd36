#!/usr/bin/env bash
# `replay --inferiors`: every process of a recorded tree is an inferior of
# one GDB (cli/replay_inferiors.h). On tree_pipe: `info inferiors` lists the
# four processes by pid; in inferior 2 (the first child) a breakpoint in its
# own function prints its argument and the value it stored; inferior 3 (the
# wc child) stops at its exec; inferior 1 (the root) prints the first child's
# pid from its fork. With --cut N on group_pipe every inferior starts at its
# checkpoint of group cut N: the child's `got` is at most the parent's
# `sent`, and both equal the values of that cut's cores. Bad input: an
# unknown cut, --cut without --inferiors, --inferiors with -p.
. "$(dirname "$0")/replay_gdb_lib.sh"

rec=$WORK/tree.rec
"$SLSDBG" record -o "$rec" -- "$PROGRAMS/tree_pipe" >"$WORK/tree.out" 2>"$WORK/tree.err" </dev/null ||
  { cat "$WORK/tree.err"; die "recording tree_pipe failed"; }
"$SLSDBG" info "$rec" --json >"$WORK/tree.json" || die "info --json failed"
set -- $("$PY" -c 'import json,sys; print(*[p["pid"] for p in json.load(open(sys.argv[1]))["processes"]])' "$WORK/tree.json")
[ $# -eq 4 ] || die "tree_pipe: want 4 processes: $*"
root=$1 first=$2 wc_pid=$3 echo_pid=$4
out=$WORK/gdb.out
timeout 300 "$SLSDBG" replay "$rec" --inferiors -- -nx -batch -ex 'set pagination off' -ex 'info inferiors' \
  -ex 'inferior 2' -ex 'break child_compute' -ex 'continue' -ex 'print n' -ex 'finish' -ex 'next' -ex 'print child_result' \
  -ex 'inferior 3' -ex 'catch exec' -ex 'continue' \
  -ex 'inferior 1' -ex 'break 58' -ex 'continue' -ex 'print a' \
  >"$out" 2>&1 </dev/null || { cat "$out"; die "replay --inferiors with GDB failed"; }
expect "$out" "^\* 1 +process $root " "inferior 1 is the root"
expect "$out" "^  2 +process $first " "inferior 2 is the first child"
expect "$out" "^  3 +process $wc_pid " "inferior 3 is the wc child"
expect "$out" "^  4 +process $echo_pid .*tree_pipe" "inferior 4 is the vfork child, at its vfork in tree_pipe"
expect "$out" 'Thread 2\.1 "tree_pipe" hit Breakpoint 1\.[0-9]+, child_compute \(n=6\)' "inferior 2 stops in its own function"
expect "$out" '^\$1 = 6$' "inferior 2's argument"
expect "$out" '^\$3 = 42$' "inferior 2's stored value"
expect "$out" "^process $wc_pid is executing new program: /usr/bin/wc$" "inferior 3 stops at its exec"
expect "$out" 'Thread 1\.1 "tree_pipe" hit Breakpoint 3\.[0-9]+, main \(\) at .*tree_pipe\.c:58' "inferior 1 stops in the root"
expect "$out" "^\\\$4 = $first$" "the root's fork returned the first child's pid"
expect "$out" "^\[Inferior 4 \(process $echo_pid\) detached\]" "GDB detaches from every inferior at its end"

# --cut N: one moment of the whole tree.
grec=$WORK/g.rec
"$SLSDBG" record -o "$grec" --interval 5 -- "$PROGRAMS/group_pipe" 3000 >"$WORK/g.out" 2>"$WORK/g.err" </dev/null ||
  { cat "$WORK/g.err"; die "recording group_pipe failed"; }
"$SLSDBG" info "$grec" --json >"$WORK/g.json" || die "info --json of group_pipe failed"
read -r n parent kp child kc < <("$PY" - "$WORK/g.json" <<'PYEOF'
import json, sys
j = json.load(open(sys.argv[1]))
cuts = j["group_cuts"]
assert len(cuts) >= 2, cuts
c = cuts[len(cuts) // 2]
ms = {m["pid"]: m["checkpoint"] for m in c["members"]}
parent, child = j["processes"][0]["pid"], j["processes"][1]["pid"]
print(c["id"], parent, ms[parent], child, ms[child])
PYEOF
) || die "group cuts of group_pipe: $(cat "$WORK/g.json")"
timeout 300 "$SLSDBG" replay "$grec" --inferiors --cut "$n" -- -nx -batch -ex 'printf "sent %lu\n", sent' \
  -ex 'inferior 2' -ex 'printf "got %lu\n", got' >"$WORK/cut.out" 2>&1 </dev/null ||
  { cat "$WORK/cut.out"; die "replay --inferiors --cut $n failed"; }
sent=$(sed -n 's/^sent \([0-9]*\)$/\1/p' "$WORK/cut.out")
got=$(sed -n 's/^got \([0-9]*\)$/\1/p' "$WORK/cut.out")
[ -n "$sent" ] && [ -n "$got" ] || { cat "$WORK/cut.out"; die "--cut $n: GDB printed no sent/got"; }
[ "$got" -le "$sent" ] && [ "$sent" -gt 0 ] || die "--cut $n: got $got, sent $sent: not one moment"
for m in p c; do
  if [ $m = p ]; then pid=$parent k=$kp; else pid=$child k=$kc; fi
  "$SLSDBG" dump "$grec" -p "$pid" --at "$k" -o "$WORK/$m.core" -q >/dev/null 2>&1 || die "dump -p $pid --at $k failed"
done
core_sent=$(gdb -nx -batch "$PROGRAMS/group_pipe" -c "$WORK/p.core" -ex 'printf "%lu\n", sent' 2>/dev/null | tail -1)
core_got=$(gdb -nx -batch "$PROGRAMS/group_pipe" -c "$WORK/c.core" -ex 'printf "%lu\n", got' 2>/dev/null | tail -1)
[ "$core_sent" = "$sent" ] && [ "$core_got" = "$got" ] ||
  die "--cut $n: GDB shows sent $sent got $got, the cut's cores $core_sent $core_got"
echo "cut $n: sent $sent, got $got in GDB's two inferiors, as in the cut's cores"

# Bad input: one line each, nonzero exit.
check_bad() {  # check_bad PATTERN ARGS...
  local pat=$1 out rc
  shift
  out=$("$SLSDBG" replay "$@" 2>&1 </dev/null); rc=$?
  [ "$rc" -ne 0 ] && [ "$(wc -l <<<"$out")" -eq 1 ] && grep -q -- "$pat" <<<"$out" ||
    die "replay $*: exit $rc, want nonzero and one line matching '$pat': $out"
}
check_bad "--cut 999: no such cut (it has cuts 1\.\.[0-9]*)" "$grec" --inferiors --cut 999
check_bad "--cut goes with --inferiors" "$grec" --cut 1
check_bad "--cut 'x': not a group cut number" "$grec" --inferiors --cut x
check_bad "does not go with -p" "$grec" --inferiors -p "$parent"
"$SLSDBG" record -o "$WORK/one.rec" -- "$PROGRAMS/rec_exit0" >/dev/null 2>&1 </dev/null || die "recording rec_exit0 failed"
check_bad "has no group cuts" "$WORK/one.rec" --inferiors --cut 1
echo "replay_gdb_inferiors: OK"
