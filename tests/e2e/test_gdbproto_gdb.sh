#!/usr/bin/env bash
# Checks that the real Debian gdb, in batch mode, debugs through the protocol
# layer: registers, memory, breakpoints, a watchpoint with old and new value,
# thread names, monitor commands, rr's qRRCmd, reverse execution sent as
# bc/bs with the start of history reported as "No more reverse-execution
# history.", and Ctrl-C interrupting a running target.
set -u
. "$(dirname "$0")/gdbproto_server_lib.sh"
command -v gdb >/dev/null || { echo "gdb is not installed (scripts/install-deps.sh installs it)"; exit 1; }

start_server
timeout 120 gdb -nx -batch \
  -ex 'set remotetimeout 60' \
  -ex "set remotelogfile $work/remote.log" \
  -ex "target remote $addr" \
  -ex 'info registers rip' \
  -ex 'x/4xb 0x401000' \
  -ex 'monitor help' \
  -ex 'info threads' \
  -ex 'break *0x401010' \
  -ex 'continue' \
  -ex 'reverse-stepi' \
  -ex 'info registers rip' \
  -ex 'reverse-continue' \
  -ex 'info registers rip' \
  -ex 'delete' \
  -ex 'watch *(int *)0x601008' \
  -ex 'continue' \
  -ex 'delete' \
  -ex 'maint packet qRRCmd:when:-1' \
  -ex 'continue' \
  -ex 'detach' >"$work/gdb.out" 2>&1
rc=$?
[ "$rc" -eq 0 ] || { echo "gdb exited $rc"; cat "$work/gdb.out"; exit 1; }
out=$work/gdb.out
expect "$out" '^rip +0x401000 +0x401000$' "info registers rip at connect"
expect "$out" '^0x401000:[[:space:]]+0x55[[:space:]]+0x48[[:space:]]+0x89[[:space:]]+0xe5$' "x/4xb shows the code bytes"
expect "$out" '^test target monitor commands:$' "monitor help prints the target's text"
expect "$out" 'Thread 102 "worker"' "thread names from qXfer:threads"
expect "$out" 'hit Breakpoint 1, 0x0000000000401010 in' "continue stops at the breakpoint"
expect "$out" '^rip +0x40100f +0x40100f$' "reverse-stepi goes back one instruction"
expect "$out" '^No more reverse-execution history\.$' "reverse-continue reports the start of history"
expect "$out" '^Old value = 185207048$' "watchpoint old value"
expect "$out" '^New value = 185207049$' "watchpoint new value"
expect "$out" 'received: "Current event: 2"' "qRRCmd:when answers"
expect "$out" 'Inferior 1 \(Remote target\) detached' "detach"
# Forward to the end of history: replaylog:end, reported the same way, pc at the end.
[ "$(grep -c '^No more reverse-execution history\.$' "$out")" -eq 2 ] || { echo "FAIL: end of history not reported"; cat "$out"; exit 1; }
expect "$out" '^0x0000000000401040 in' "forward execution stops at the end of history"
# After reverse-continue the pc is back at the start of history.
[ "$(grep -cE '^rip +0x401000 +0x401000$' "$out")" -ge 2 ] || { echo "FAIL: pc not at history start"; cat "$out"; exit 1; }
# What went over the wire: reverse execution as bc and bs, breakpoints as Z0, the watchpoint as Z2.
log=$work/remote.log
expect "$log" '\$bc#' "reverse-continue is sent as bc"
expect "$log" '\$bs#' "reverse-stepi is sent as bs"
expect "$log" '\$Z0,401010,1#' "the breakpoint is inserted with Z0"
expect "$log" '\$Z2,601008,4#' "the watchpoint is inserted with Z2"
expect "$log" 'replaylog:begin' "the stop reply names the history edge"
wait "$server_pid"; srv=$?; server_pid=""
[ "$srv" -eq 0 ] || { echo "FAIL: server exited $srv: $(cat "$server_err")"; exit 1; }

# Interrupt: the target runs until stopped; Ctrl-C in gdb (SIGINT) becomes a
# 0x03 on the wire, the server's stop request fires, and gdb reports SIGINT.
start_server --forever
# No `timeout` wrapper here: it would pass the SIGINT on to gdb's whole
# process group, and a second Ctrl-C makes gdb give up on the target.
# ctest's timeout bounds this test instead.
gdb -nx -batch -ex 'set remotetimeout 60' -ex "target remote $addr" -ex 'continue' -ex 'info registers rip' -ex 'detach' \
  >"$work/gdb-int.out" 2>&1 &
gdb_pid=$!
trap 'kill "$gdb_pid" 2>/dev/null; cleanup' EXIT
for _ in $(seq 1 600); do
  grep -q 'running until interrupted' "$server_out" && break
  sleep 0.1
done
grep -q 'running until interrupted' "$server_out" || { echo "FAIL: target never ran"; cat "$work/gdb-int.out"; exit 1; }
kill -INT "$gdb_pid"
wait "$gdb_pid"; rc=$?
[ "$rc" -eq 0 ] || { echo "gdb exited $rc"; cat "$work/gdb-int.out"; exit 1; }
expect "$work/gdb-int.out" 'received signal SIGINT, Interrupt\.' "an interrupt stops the running target"
expect "$work/gdb-int.out" '^rip +0x401000 +0x401000$' "registers readable after the interrupt"
wait "$server_pid"; srv=$?; server_pid=""
[ "$srv" -eq 0 ] || { echo "FAIL: server exited $srv: $(cat "$server_err")"; exit 1; }
echo "gdbproto_gdb: OK"
