#!/usr/bin/env bash
# History ends where recording stopped. A recorder killed by kill -9 leaves a
# log cut anywhere after its last checkpoint: replay ends exactly at that
# checkpoint, `replay --check` says OK and where history ends, and GDB shows
# the end like an exit (then reverse execution works). Ctrl-C (under a real
# pty: the terminal signals the recorder and the program) and SIGTERM end a
# recording with a final checkpoint, exit 128+signo, and replay to it.
. "$(dirname "$0")/replay_gdb_lib.sh"
prog=$PROGRAMS/timeline_counter

count_checkpoints() {
  "$SLSDBG" info "$1" --json 2>/dev/null | "$PY" -c 'import json,sys; print(len(json.load(sys.stdin)["checkpoints"]))' 2>/dev/null
}

# check REC WHAT: --check (patch on, and never matching) says OK and that
# history ends at the last checkpoint.
check() {
  local rec=$1 n last out want
  n=$(count_checkpoints "$rec")
  [ "${n:-0}" -ge 3 ] || die "$2: want >= 3 checkpoints, got '${n:-none}'"
  last=$((n - 1))
  want=$("$PY" "$SLSDBG_SOURCE_DIR/tests/e2e/boundaries.py" "$rec" --max-forced 0) || die "$2: $want"
  for patch in on miss; do
    if [ $patch = miss ]; then export SLSDBG_REPLAY_PATCH=miss; fi
    out=$(timeout 60 "$SLSDBG" replay "$rec" --check 2>&1) || die "$2 ($patch): --check failed: $out"
    [[ "$out" == "OK: $n checkpoints, $want"* ]] || die "$2 ($patch): $out (want $want)"
    [[ "$out" == *"history ends at checkpoint $last: the recording stops there"* ]] || die "$2 ($patch): $out"
    unset SLSDBG_REPLAY_PATCH
  done
}

# 1. kill -9 of the recorder once it has 4 checkpoints.
rec=$WORK/killed.rec
"$SLSDBG" record -o "$rec" --interval 5 -- "$prog" 1000000 0 >/dev/null 2>&1 &
pid=$!
bg_pids+=("$pid")
for _ in $(seq 300); do
  sleep 0.05
  [ "$(count_checkpoints "$rec")" -ge 4 ] 2>/dev/null && break
done
kill -9 "$pid"
wait "$pid" 2>/dev/null
check "$rec" "kill -9"
out=$WORK/killed.out
replay_gdb "$rec" "$out" -ex 'continue' -ex 'reverse-stepi' -ex 'info registers rip' -ex 'monitor when'
expect "$out" '^Current moment: [0-9]+:[0-9]+:0x' "monitor when at the end"
expect "$out" '^slsdbg: the recording stops here \(no exit was recorded\): the end of the recording' "the end is announced"
expect "$out" '^No more reverse-execution history\.$' "reported as the end of history"
expect "$out" '^rip +0x[0-9a-f]+ +0x[0-9a-f]+ <' "reverse-stepi from the end"
grep -Eq 'not supported|Protocol error' "$out" && { cat "$out"; die "reverse-stepi/monitor when at the end failed"; }

# 2. Ctrl-C under a real pty, and 3. SIGTERM: a final checkpoint.
for how in ctrl-c term; do
  rec=$WORK/$how.rec
  "$PY" - "$SLSDBG" "$rec" "$prog" "$how" >"$WORK/$how.log" 2>&1 <<'EOF'
import json, os, pty, signal, subprocess, sys, time
slsdbg, rec, prog, how = sys.argv[1:]
pid, fd = pty.fork()
if pid == 0:
    os.execv(slsdbg, [slsdbg, "record", "-o", rec, "--interval", "5", "--", prog, "1000000", "0"])
def count():
    try:
        out = subprocess.run([slsdbg, "info", rec, "--json"], capture_output=True, text=True).stdout
        return len(json.loads(out)["checkpoints"])
    except Exception:
        return 0
output = b""
deadline = time.time() + 20
while time.time() < deadline and count() < 4:
    time.sleep(0.05)
if how == "ctrl-c":
    os.write(fd, b"\x03")
else:
    os.kill(pid, signal.SIGTERM)
while True:
    try:
        chunk = os.read(fd, 65536)
    except OSError:
        break
    if not chunk:
        break
    output += chunk
_, status = os.waitpid(pid, 0)
print("status", os.waitstatus_to_exitcode(status))
print(output.decode(errors="replace")[-400:])
EOF
  want=$([ $how = ctrl-c ] && echo 130 || echo 143)
  grep -q "^status $want\$" "$WORK/$how.log" || { cat "$WORK/$how.log"; die "$how: the recorder should exit $want"; }
  sig=$([ $how = ctrl-c ] && echo INT || echo TERM)
  grep -q "recording stopped by SIG$sig; history ends at its final checkpoint" "$WORK/$how.log" ||
    { cat "$WORK/$how.log"; die "$how: no note of the stop"; }
  check "$rec" "$how"
done
echo "travel_history_end: OK"
