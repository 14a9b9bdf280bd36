# Shared by test_gdbproto_*.sh: starts gdbproto_test_server (the in-memory
# test target behind the real protocol layer) on a kernel-chosen port and
# cleans it up on exit. Sets $addr, $work, $server_out and $server_err.
server_bin=$SLSDBG_BUILD_DIR/gdbserver/protocol/gdbproto_test_server
[ -x "$server_bin" ] || { echo "missing $server_bin"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/gdbproto_e2e.XXXXXX")
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null; wait "$server_pid" 2>/dev/null; fi
  rm -rf "$work"
}
trap cleanup EXIT

start_server() {  # start_server [server args...]
  # A fresh file per server: reading a previous server's "listening on"
  # before the new one truncates the file would connect to a dead port.
  server_count=$(( ${server_count:-0} + 1 ))
  server_out=$work/server$server_count.out
  server_err=$work/server$server_count.err
  "$server_bin" "$@" >"$server_out" 2>"$server_err" &
  server_pid=$!
  addr=""
  for _ in $(seq 1 300); do  # up to 30 s on a busy machine
    addr=$(sed -n 's/^listening on //p' "$server_out" 2>/dev/null)
    [ -n "$addr" ] && return 0
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.1
  done
  echo "test server did not start: $(cat "$server_err")"
  exit 1
}

expect() {  # expect FILE EXTENDED-REGEX WHAT
  grep -Eq -- "$2" "$1" || { echo "FAIL: $3 (no match for /$2/)"; echo "--- output:"; cat "$1"; exit 1; }
}
