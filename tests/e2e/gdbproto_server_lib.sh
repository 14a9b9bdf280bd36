# Shared by test_gdbproto_*.sh: starts gdbproto_test_server (the in-memory
# test target behind the real protocol layer) on a kernel-chosen port and
# cleans it up on exit. Sets $addr and $work.
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
  "$server_bin" "$@" >"$work/server.out" 2>"$work/server.err" &
  server_pid=$!
  addr=""
  for _ in $(seq 1 300); do  # up to 30 s on a busy machine
    addr=$(sed -n 's/^listening on //p' "$work/server.out")
    [ -n "$addr" ] && return 0
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.1
  done
  echo "test server did not start: $(cat "$work/server.err")"
  exit 1
}

expect() {  # expect FILE EXTENDED-REGEX WHAT
  grep -Eq -- "$2" "$1" || { echo "FAIL: $3 (no match for /$2/)"; echo "--- output:"; cat "$1"; exit 1; }
}
