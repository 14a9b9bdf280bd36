#!/usr/bin/env bash
# Checks that bad input to `slsdbg replay` in GDB and --server mode is a
# one-line error naming the problem with a nonzero exit: a missing recording,
# malformed --server addresses, a non-loopback address without
# --allow-remote, a busy port, --allow-remote without --server, --at with a
# non-number, goto a checkpoint that does not exist, no gdb to start; and that writing a
# register of a replay is no error: it goes to a diversion (e2e_crash_diversion
# checks that history stays exact after it).
. "$(dirname "$0")/replay_gdb_lib.sh"
expect_error() {  # expect_error WANT_SUBSTRING ARGS...
  local want=$1; shift
  local err rc
  err=$(timeout 120 "$SLSDBG" replay "$@" 2>&1 >/dev/null </dev/null); rc=$?
  [ "$rc" -ne 0 ] || die "replay $*: exit 0"
  [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || die "replay $*: not one line: $err"
  [[ "$err" == *"$want"* ]] || die "replay $*: '$err' does not say '$want'"
  echo "ok: replay $* -> $err"
}
expect_error "no such recording" "$WORK/missing.rec"
expect_error "no such recording" "$WORK/missing.rec" --server 127.0.0.1:0
expect_error "port must be a number" "$WORK/missing.rec" --server 127.0.0.1:99999
expect_error "port must be a number" "$WORK/missing.rec" --server localhost:http
expect_error "has no path" "$WORK/missing.rec" --server unix:
expect_error "--server needs an address" "$WORK/missing.rec" --server
expect_error "--allow-remote only applies to --server" "$WORK/missing.rec" --allow-remote
expect_error "not a checkpoint number" "$WORK/missing.rec" --at x1

rec=$WORK/steps.rec
record "$rec" 10 "$PROGRAMS/travel_steps"
expect_error "--allow-remote" "$rec" --server 0.0.0.0:0
expect_error "no checkpoint 999" "$rec" --at 999 --server 127.0.0.1:0
# No gdb to start.
SLSDBG_GDB=$WORK/no-such-gdb expect_error "could not start $WORK/no-such-gdb" "$rec"
# A busy port: a server of our own holds it.
"$PY" -c '
import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)
print(s.getsockname()[1], flush=True); time.sleep(300)' >"$WORK/port" &
bg_pids+=("$!")
for _ in $(seq 1 100); do [ -s "$WORK/port" ] && break; sleep 0.1; done
port=$(cat "$WORK/port")
expect_error "Address already in use" "$rec" --server "127.0.0.1:$port"

# A register write goes to a diversion: GDB sees the new value, no refusal.
out=$WORK/write.out
replay_gdb "$rec" "$out" -ex 'set var $rax = 5' -ex 'print/d $rax'
expect "$out" '^\$1 = 5$' "a register write shows in the diversion"
echo "replay_gdb_bad_input: OK"
