#!/usr/bin/env bash
# GDB on a member of a process tree that execs (tree_pipe's second child:
# fork, then execl of /usr/bin/wc): the member's history starts in the
# fixture, in the child right after fork, and a continue stops at its exec
# as under rr ("executing new program: /usr/bin/wc", `catch exec` hits with
# the new program's path, the inferior's executable is wc), and the new
# program runs to its recorded exit (status 0). Going back, reverse-continue stops at the exec again,
# where the old program's `main` is in the backtrace.
. "$(dirname "$0")/replay_gdb_lib.sh"
rec=$WORK/tree.rec
"$SLSDBG" record -o "$rec" -- "$PROGRAMS/tree_pipe" >"$WORK/record.out" 2>"$WORK/record.err" </dev/null ||
  { cat "$WORK/record.err"; die "recording tree_pipe failed"; }
"$SLSDBG" info "$rec" --json >"$WORK/info.json" || die "info --json failed"
wc_pid=$("$PY" -c 'import json,sys; print(*[p["pid"] for p in json.load(open(sys.argv[1]))["processes"] if "wc" in p["program"]])' "$WORK/info.json")
[ -n "$wc_pid" ] || die "no member runs wc: $(cat "$WORK/info.json")"

out=$WORK/gdb.out
timeout 300 "$SLSDBG" replay "$rec" -p "$wc_pid" -- -nx -batch -ex 'set pagination off' \
  -ex 'bt' -ex 'catch exec' -ex 'continue' -ex 'info inferiors' -ex 'continue' \
  >"$out" 2>&1 </dev/null || { cat "$out"; die "replay -p $wc_pid with GDB failed"; }
expect "$out" '^#[0-9]+ +0x[0-9a-f]+ in main \(\) at .*tree_pipe\.c:' "the member starts in the fixture's main, after its fork"
expect "$out" "^process $wc_pid is executing new program: /usr/bin/wc$" "continue stops at the member's exec"
expect "$out" "^Catchpoint 1 \(exec'd /usr/bin/wc\)" "catch exec names the new program"
expect "$out" "^\* 1 +process $wc_pid .* /usr/bin/wc" "GDB's inferior runs /usr/bin/wc after the exec"
expect "$out" "the program exited with status 0 here: the end of the recording" "the new program runs to its exit, status 0"

out2=$WORK/gdb2.out
timeout 300 "$SLSDBG" replay "$rec" -p "$wc_pid" -- -nx -batch -ex 'set pagination off' \
  -ex 'catch exec' -ex 'continue' -ex 'continue' -ex 'reverse-continue' -ex 'bt' \
  >"$out2" 2>&1 </dev/null || { cat "$out2"; die "replay -p $wc_pid with GDB (reverse) failed"; }
expect "$out2" "^process $wc_pid is executing new program: .*tree_pipe$" "reverse-continue stops at the exec, naming the fixture"
expect "$out2" '^#[0-9]+ +0x[0-9a-f]+ in main \(\) at .*tree_pipe\.c:' "the old program's main at its execl"
echo "replay_gdb_member_exec: OK"
