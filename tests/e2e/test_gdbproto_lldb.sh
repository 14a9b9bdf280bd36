#!/usr/bin/env bash
# Checks that the real Debian lldb (and lldb-19 when it is installed) connects
# with gdb-remote to the protocol layer serving the in-memory test target,
# learns the registers from target.xml, reads a register and memory, stops at
# a breakpoint after continue, lists both threads, runs a monitor command and
# an rr-dialect query, and kills the session.
set -u
. "$(dirname "$0")/gdbproto_server_lib.sh"

clients=()
command -v lldb >/dev/null && clients+=("$(command -v lldb)")
for c in lldb-19 /usr/lib/llvm-19/bin/lldb; do
  if command -v "$c" >/dev/null; then clients+=("$(command -v "$c")"); break; fi
done
[ "${#clients[@]}" -gt 0 ] || { echo "lldb is not installed (scripts/install-deps.sh installs it)"; exit 1; }

for lldb in "${clients[@]}"; do
  start_server
  out=$work/lldb.out
  timeout 120 "$lldb" -b -x \
    -o 'settings set plugin.process.gdb-remote.packet-timeout 60' \
    -o "gdb-remote $addr" \
    -o 'register read rip' \
    -o 'register read rax' \
    -o 'memory read -c 4 0x401000' \
    -o 'breakpoint set -a 0x401010' \
    -o 'continue' \
    -o 'register read rip' \
    -o 'thread list' \
    -o 'process plugin packet monitor help' \
    -o 'process plugin packet send qRRCmd:when:-1' \
    -o 'process kill' >"$out" 2>&1
  rc=$?
  [ "$rc" -eq 0 ] || { echo "$lldb exited $rc"; cat "$out"; exit 1; }
  expect "$out" 'rip = 0x0000000000401000' "$lldb: rip at connect"
  expect "$out" 'rax = 0x1122334455667788' "$lldb: rax from the static register file"
  expect "$out" '0x00401000: 55 48 89 e5' "$lldb: memory read"
  expect "$out" 'stop reason = breakpoint 1\.1' "$lldb: continue stops at the breakpoint"
  expect "$out" 'rip = 0x0000000000401010' "$lldb: rip at the breakpoint"
  expect "$out" 'tid = 0x0066' "$lldb: second thread listed"
  expect "$out" '^test target monitor commands:$' "$lldb: monitor output (qRcmd, O packets)"
  expect "$out" 'response: Current event: 16' "$lldb: rr dialect qRRCmd:when"
  expect "$out" 'exited with status = 9' "$lldb: kill is answered"
  wait "$server_pid"; srv=$?; server_pid=""
  [ "$srv" -eq 0 ] || { echo "FAIL: server exited $srv: $(cat "$server_err")"; exit 1; }
  echo "$lldb: OK"
done
echo "gdbproto_lldb: OK"
