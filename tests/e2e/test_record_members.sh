#!/usr/bin/env bash
# Checks that every process of a recorded tree is in the same recording
# (REC/members/PID): a fork+exec+pipe fixture with a vfork+exec, a shell
# pipeline, and `make -j2`. Each: output and exit status as a native run,
# `info` lists every process with its parent, and `replay -p PID --check` is
# OK for every one. In the fixture, GDB on the forked child stops at a
# breakpoint in its own function and prints a value only it computed; `dump
# -p` writes a core of a child and `restore -p` runs the vfork child again;
# a bad PID is a one-line error naming it. A daemon (setsid, outliving the
# program) is reported as leaving the group, and its recording replays.
. "$(dirname "$0")/replay_gdb_lib.sh"

# rec NAME CMD...: records; native vs recorded output; sets $pids (every
# process of the tree, the root first) from info --json.
rec() {
  local name=$1 rc_native rc
  shift
  "$@" >"$WORK/$name.native" 2>&1 </dev/null; rc_native=$?
  "$SLSDBG" record -o "$WORK/$name.rec" -- "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" </dev/null; rc=$?
  [ "$rc" -eq "$rc_native" ] || { cat "$WORK/$name.err"; die "$name: exit $rc recorded, $rc_native natively"; }
  cmp -s "$WORK/$name.native" "$WORK/$name.out" ||
    die "$name: output differs: $(cat "$WORK/$name.out") vs native $(cat "$WORK/$name.native")"
  grep -q "recorded [0-9]* child process" "$WORK/$name.err" || die "$name: record does not report its children: $(cat "$WORK/$name.err")"
  grep -q "child process [0-9]*:" "$WORK/$name.err" && die "$name: a child's recording failed: $(cat "$WORK/$name.err")"
  "$SLSDBG" info "$WORK/$name.rec" >"$WORK/$name.info" 2>&1 || die "$name: info failed"
  "$SLSDBG" info "$WORK/$name.rec" --json >"$WORK/$name.json" || die "$name: info --json failed"
  pids=$("$PY" - "$WORK/$name.json" <<'PYEOF'
import json, sys
j = json.load(open(sys.argv[1]))
procs = j["processes"]
assert procs[0]["pid"] == j["pid"] and procs[0]["origin"] == "spawn", procs[0]
known = {p["pid"] for p in procs}
for p in procs[1:]:
    assert p["parent"] in known, f"parent of {p} is not in the tree"
    assert p["origin"] in ("fork", "exec", "vfork"), p
    assert p["checkpoints"] >= 1 and p["exit"] is not None and p["error"] is None, p
print(" ".join(str(p["pid"]) for p in procs))
PYEOF
) || die "$name: the process tree in info --json: $(cat "$WORK/$name.json")"
  local p out
  for p in $pids; do
    out=$(timeout 300 "$SLSDBG" replay "$WORK/$name.rec" -p "$p" --check 2>&1 </dev/null) || die "$name: replay -p $p --check: $out"
    grep -q '^OK' <<<"$out" || die "$name: replay -p $p --check does not say OK: $out"
  done
  echo "$name: $(wc -w <<<"$pids") processes, each replay -p PID --check OK"
}

# (a) fork + pipe, fork + exec of wc on a pipe, vfork + exec of echo.
rec tree "$PROGRAMS/tree_pipe"
expect "$WORK/tree.out" "^got 'child value 42'; exits 7 0 0$" "tree: the parent got what its children sent"
set -- $pids
[ $# -eq 4 ] || die "tree: $# processes recorded, want 4: $pids"
root=$1 first=$2 wc_pid=$3 echo_pid=$4
expect "$WORK/tree.info" "^processes +4 recorded" "tree: info counts the processes"
expect "$WORK/tree.info" "^  $root +parent [0-9]+ +spawn .*exited 0" "tree: info shows the root"
expect "$WORK/tree.info" "^    $first +parent $root +fork .*exited 7" "tree: info shows the first child under its parent, with its exit"
expect "$WORK/tree.info" "^    $echo_pid +parent $root +vfork .*exited 0 +/usr/bin/echo \(exec'd; started as" "tree: the vfork child is recorded from its vfork (started as the fixture) to its exec of echo"
expect "$WORK/tree.info" "^    $wc_pid +parent $root +fork .*exited 0 +/usr/bin/wc \(exec'd" "tree: info names the program a child exec'd"
"$SLSDBG" info "$WORK/tree.rec" -p "$first" >"$WORK/first.info" || die "tree: info -p failed"
expect "$WORK/first.info" "^process +$first, child of $root, recorded from its fork" "tree: info -p shows the member"

# GDB on the first child: a breakpoint in its own function, values only it had.
timeout 300 "$SLSDBG" replay "$WORK/tree.rec" -p "$first" -- -nx -batch -ex 'set pagination off' \
  -ex 'break child_compute' -ex 'continue' -ex 'print n' -ex 'finish' -ex 'next' -ex 'print child_result' \
  >"$WORK/first.gdb" 2>&1 </dev/null || { cat "$WORK/first.gdb"; die "tree: replay -p $first with GDB failed"; }
expect "$WORK/first.gdb" "Breakpoint 1, child_compute \(n=6\)" "tree: GDB stops in the child's function"
expect "$WORK/first.gdb" '^\$1 = 6$' "tree: GDB prints the child's argument"
expect "$WORK/first.gdb" 'Value returned is \$2 = 42' "tree: GDB's finish shows what the child's function returned"
expect "$WORK/first.gdb" '^\$3 = 42$' "tree: GDB prints the value the child stored"

# A core of the wc child after its exec, and the vfork child run again.
"$SLSDBG" dump "$WORK/tree.rec" -p "$wc_pid" --last -o "$WORK/wc.core" -q >"$WORK/dump.out" 2>&1 || { cat "$WORK/dump.out"; die "tree: dump -p failed"; }
[ "$(head -c4 "$WORK/wc.core" | od -An -c | tr -d ' ')" = '177ELF' ] || die "tree: dump -p wrote no ELF core"
# (its NT_FILE note names the program mapped after the exec)
grep -qa '/usr/bin/wc' "$WORK/wc.core" || die "tree: the core of the wc child does not map /usr/bin/wc"
out=$(timeout 60 "$SLSDBG" restore "$WORK/tree.rec" -p "$echo_pid" --at 0 2>"$WORK/restore.err") ||
  die "tree: restore -p failed: $out $(cat "$WORK/restore.err")"
[ "$out" = vforked ] || die "tree: restore -p $echo_pid did not print just what echo printed: $out"

# A bad PID: one line naming it, and the pids there are.
out=$("$SLSDBG" replay "$WORK/tree.rec" -p 999999 --check 2>&1); rc=$?
[ "$rc" -eq 1 ] && [ "$(wc -l <<<"$out")" -eq 1 ] || die "bad pid: exit $rc, want 1 and one line: $out"
grep -q "no process 999999 in .*(its processes: $root $first" <<<"$out" || die "bad pid: the message names neither it nor the tree: $out"
out=$("$SLSDBG" dump "$WORK/tree.rec" -p 12x --last 2>&1); rc=$?
[ "$rc" -ne 0 ] && grep -q -- "-p 12x: not a process id" <<<"$out" || die "bad pid text: exit $rc: $out"

# (b) a shell pipeline.
rec pipeline /bin/sh -c 'printf "%s" "seven b" | wc -c'
expect "$WORK/pipeline.out" '^7$' "pipeline: wc counted the bytes printf wrote"
[ "$(wc -w <<<"$pids")" -ge 3 ] || die "pipeline: want sh, printf's and wc's processes: $pids"

# (b2) a child that starts a child of its own: `info -p CHILD` lists the
# grandchild as its child, recorded (it said "unrecorded": a member has no
# tree of its own).
rec nested /bin/sh -c '(/bin/echo x; /bin/echo y); /bin/echo z'
set -- $pids
sub=$("$PY" -c 'import json,sys; j=json.load(open(sys.argv[1])); ps=j["processes"]; print(next(p["pid"] for p in ps if any(q["parent"]==p["pid"] for q in ps) and p["pid"]!=j["pid"]))' "$WORK/nested.json") \
  || die "nested: no member with a child of its own: $(cat "$WORK/nested.json")"
"$SLSDBG" info "$WORK/nested.rec" -p "$sub" >"$WORK/nested.sub.info" || die "nested: info -p $sub failed"
expect "$WORK/nested.sub.info" "^children +1: [0-9]+$" "nested: info -p names the member's child as recorded"

# (c) make -j2 with two recipes.
mkdir -p "$WORK/mk"
printf 'all: a b\na:\n\techo a > a\nb:\n\techo b > b\n' >"$WORK/mk/Makefile"
cd "$WORK" || die "cd $WORK"
rec make make -C mk -B -j2  # not in a subshell: its die must end the test
cd - >/dev/null || die "cd back"
[ "$(cat "$WORK/mk/a" "$WORK/mk/b")" = "$(printf 'a\nb')" ] || die "make: the recipes did not run"
[ "$(wc -w <<<"$pids")" -ge 3 ] || die "make: want make and its two recipes' shells: $pids"

# (c2) the syscall buffer in a forked child: a subshell that does not exec
# runs its parent's patched libc; dash's `read` reads a regular file a byte
# at a time, each read buffered by the child's own session (record counts
# the members' buffered calls too). --no-syscall-buffer buffers none.
seq 1 300 >"$WORK/lines.txt"
SLSDBG_SYSCALL_BUFFER=on rec subshell /bin/sh -c "(n=0; while read l; do n=\$((n+1)); done <'$WORK/lines.txt'; echo \$n)"
expect "$WORK/subshell.out" '^300$' "subshell: the child read every line"
buffered=$(sed -n 's/^slsdbg: syscall buffer: \([0-9]*\) syscalls buffered.*/\1/p' "$WORK/subshell.err")
[ "${buffered:-0}" -ge 1000 ] || die "subshell: ${buffered:-no} calls buffered, want >= 1000 (one per byte read)"
"$SLSDBG" record --no-syscall-buffer -o "$WORK/subshell_off.rec" -- /bin/sh -c "(read l <'$WORK/lines.txt'; echo \$l)" \
  >"$WORK/subshell_off.out" 2>"$WORK/subshell_off.err" </dev/null || die "subshell: --no-syscall-buffer failed"
grep -q "syscall buffer:" "$WORK/subshell_off.err" && die "subshell: --no-syscall-buffer buffered calls: $(cat "$WORK/subshell_off.err")"
expect "$WORK/subshell_off.out" '^1$' "subshell: --no-syscall-buffer output"

# (d) a daemon: a child that calls setsid and outlives the program leaves
# the group. record says so and ends at once (not 30 s later); what was
# recorded of it replays.
start=$(date +%s)
timeout 25 "$SLSDBG" record -o "$WORK/daemon.rec" -- /bin/sh -c 'setsid sleep 30 & echo started' \
  >"$WORK/daemon.out" 2>"$WORK/daemon.err" </dev/null; rc=$?
[ "$rc" -eq 0 ] || { cat "$WORK/daemon.err"; die "daemon: record exited $rc"; }
[ $(( $(date +%s) - start )) -lt 20 ] || die "daemon: record waited for the daemon"
grep -q "^slsdbg: child process [0-9]*: left the group" "$WORK/daemon.err" || die "daemon: no clear message: $(cat "$WORK/daemon.err")"
expect "$WORK/daemon.out" '^started$' "daemon: the program's output"
daemon=$(sed -n 's/^slsdbg: child process \([0-9]*\): left the group.*/\1/p' "$WORK/daemon.err")
out=$(timeout 300 "$SLSDBG" replay "$WORK/daemon.rec" -p "$daemon" --check 2>&1 </dev/null) || die "daemon: replay -p $daemon --check: $out"
grep -q '^OK' <<<"$out" || die "daemon: replay -p $daemon --check does not say OK: $out"

"$SLSDBG" ls "$WORK" >"$WORK/ls.txt" 2>&1 || die "ls failed"
expect "$WORK/ls.txt" '^tree\.rec .*children 3 \(recorded\)' "ls shows the children as recorded"
echo "record_members: OK"
