#!/usr/bin/env bash
# Checks that the real Debian lldb (and lldb-19 when installed) connects with
# gdb-remote to `slsdbg replay REC --server 127.0.0.1:0`, sets a breakpoint,
# continues to it, reads a register and a variable and shows the backtrace through the
# recorded program's functions.
. "$(dirname "$0")/replay_gdb_lib.sh"
clients=()
command -v lldb >/dev/null && clients+=("$(command -v lldb)")
for c in lldb-19 /usr/lib/llvm-19/bin/lldb; do
  if command -v "$c" >/dev/null; then clients+=("$(command -v "$c")"); break; fi
done
[ "${#clients[@]}" -gt 0 ] || die "lldb is not installed (scripts/install-deps.sh installs it)"
prog=$PROGRAMS/travel_steps
rec=$WORK/steps.rec
record "$rec" 10 "$prog"

for lldb in "${clients[@]}"; do
  srv_out=$WORK/server.out
  "$SLSDBG" replay "$rec" --server 127.0.0.1:0 >"$srv_out" 2>"$WORK/server.err" &
  srv=$!
  bg_pids+=("$srv")
  addr=""
  for _ in $(seq 1 600); do
    addr=$(sed -n 's/^listening on //p' "$srv_out")
    [ -n "$addr" ] && break
    kill -0 "$srv" 2>/dev/null || break
    sleep 0.1
  done
  [ -n "$addr" ] || die "server did not start: $(cat "$WORK/server.err")"
  grep -q "^connect with: gdb .*travel_steps -ex 'set remotetimeout 600' -ex 'target remote $addr'" "$srv_out" || die "no connect hint: $(cat "$srv_out")"
  out=$WORK/lldb.out
  timeout 600 "$lldb" -b -x "$prog" \
    -o 'settings set plugin.process.gdb-remote.packet-timeout 300' \
    -o "gdb-remote $addr" \
    -o 'breakpoint set -n travel_leaf' \
    -o 'continue' \
    -o 'register read rip' \
    -o 'frame variable v' \
    -o 'bt' \
    -o 'process kill' >"$out" 2>&1
  rc=$?
  [ "$rc" -eq 0 ] || { cat "$out"; die "$lldb exited $rc"; }
  expect "$out" 'stop reason = breakpoint 1\.1' "$lldb: continue stops at the breakpoint"
  expect "$out" 'frame #0: .*travel_steps`travel_leaf\(v=0\) at travel_steps\.c' "$lldb: frame 0 is travel_leaf(v=0)"
  expect "$out" 'frame #1: .*travel_steps`travel_middle\(v=0\) at travel_steps\.c' "$lldb: frame 1 is travel_middle"
  expect "$out" 'frame #2: .*travel_steps`main at travel_steps\.c' "$lldb: frame 2 is main"
  expect "$out" 'rip = 0x[0-9a-f]+ +travel_steps`travel_leaf' "$lldb: rip in travel_leaf"
  expect "$out" '^\(int\) v = 0$' "$lldb: a parameter read from the replay's stack"
  wait "$srv"; rc=$?
  bg_pids=()
  [ "$rc" -eq 0 ] || die "server exited $rc: $(cat "$WORK/server.err")"
  echo "$lldb: OK"
done
echo "replay_lldb: OK"
