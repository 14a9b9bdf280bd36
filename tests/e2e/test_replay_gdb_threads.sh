#!/usr/bin/env bash
# GDB on a recording made with `record --threads` (thr_gdb: three workers
# taking turns, each with a thread-local tls_id = 11 * its number):
# - at a checkpoint (`replay --at K`) `info threads` lists as many threads as
#   the checkpoint holds (`slsdbg backtrace --json` counts them), every
#   worker's backtrace shows `worker`, and `print tls_id` in a worker thread
#   prints that worker's value;
# - `continue` to a breakpoint hit by any thread stops in that thread (GDB
#   switches to it): its `worker` argument, its tls_id (11 * worker) and its
#   $rip agree; the next hit is the next worker's turn;
# - `reverse-continue` lands on the earlier hit again (same worker, round);
# - from the end of history, reverse-continue crosses segments back to the
#   last turn; `monitor goto K` restores every thread;
# - LLDB through --server lists the threads and stops in the hitting one;
# - the single-thread target prints errno (qGetTLSAddr) too;
# - a bad Hg thread id is answered with an error, not a crash; an
#   interrupt stops a continue with SIGINT.
. "$(dirname "$0")/replay_gdb_lib.sh"
rec=$WORK/thr.rec
"$SLSDBG" record --threads -o "$rec" -- "$PROGRAMS/thr_gdb" >"$WORK/record.out" 2>&1 </dev/null ||
  { cat "$WORK/record.out"; die "recording"; }
expect "$WORK/record.out" '^turns 600 total 13200$' "the recorded run's output"

# A checkpoint in the middle of those holding all four threads (the first
# ones are the forced checkpoints right after each clone3).
best=$("$SLSDBG" info "$rec" --json | "$PY" -c '
import json, subprocess, sys
n = len(json.load(sys.stdin)["checkpoints"])
full = []
for k in range(n):
    out = subprocess.run([sys.argv[1], "backtrace", sys.argv[2], "--at", str(k), "--json"], capture_output=True, text=True).stdout
    try: t = len(json.loads(out)["threads"])
    except Exception: continue
    if t == 4: full.append(k)
print(full[len(full) // 2] if full else -1, len(full))' "$SLSDBG" "$rec") || die "counting threads per checkpoint"
read -r at most <<<"$best"
[ "$at" -ge 0 ] || die "no checkpoint holds all 4 threads"
echo "checkpoint $at holds 4 threads ($most checkpoints do)"

out=$WORK/at.out
timeout 300 "$SLSDBG" replay "$rec" --at "$at" -- -nx -batch -ex 'set pagination off' \
  -ex 'info threads' -ex 'thread apply all bt' -ex 'thread 2' -ex 'frame function worker' -ex 'print me' -ex 'print $_thread' \
  -ex 'thread 4' -ex 'frame function worker' -ex 'print me' -ex 'print tls_id' -ex 'thread 2' -ex 'print tls_id' \
  -ex 'thread 1' -ex 'print tls_id' >"$out" 2>&1 </dev/null || { cat "$out"; die "replay --at $at"; }
n=$(grep -cE '^\*? +[0-9]+ +Thread ' "$out")
[ "$n" -eq 4 ] || { cat "$out"; die "info threads lists $n threads at checkpoint $at, want 4"; }
for w in 1 2 3; do
  expect "$out" "^#[0-9]+ .*worker \\(arg=0x$w\\) at .*thr_gdb\\.c:" "worker $w's backtrace"
done
expect "$out" '^#[0-9]+ .*main \(\) at .*thr_gdb\.c:' "the main thread's backtrace"
# Threads 2..4 are the workers in creation order: `me` is 1, then 3.
expect "$out" '^\$1 = 1$' "thread 2's me"
expect "$out" '^\$3 = 3$' "thread 4's me"
# qGetTLSAddr: each thread's own copy of the __thread variable.
expect "$out" '^\$4 = 33$' "thread 4's thread-local tls_id"
expect "$out" '^\$5 = 11$' "thread 2's thread-local tls_id"
expect "$out" '^\$6 = 0$' "the main thread's tls_id (never set)"

out=$WORK/bp.out
timeout 300 "$SLSDBG" replay "$rec" -- -nx -batch -ex 'set pagination off' \
  -ex 'break take_turn' -ex 'continue' -ex 'print worker * 1000 + round' -ex 'print tls_id' \
  -ex 'print $pc' -ex 'print $_thread' -ex 'info threads' \
  -ex 'continue' -ex 'print worker * 1000 + round' -ex 'print tls_id' \
  -ex 'continue' -ex 'print worker * 1000 + round' \
  -ex 'reverse-continue' -ex 'print worker * 1000 + round' -ex 'print tls_id' \
  -ex 'reverse-continue' -ex 'print worker * 1000 + round' \
  -ex 'continue' -ex 'print worker * 1000 + round' >"$out" 2>&1 </dev/null || { cat "$out"; die "replay with breakpoints"; }
expect "$out" '^Thread [0-9]+ "thr_gdb" hit Breakpoint 1, take_turn \(worker=1, round=0\) at .*thr_gdb\.c:' \
  "the first hit names worker 1's thread"
expect "$out" '^\$1 = 1000$' "worker 1, round 0"
expect "$out" '^\$2 = 11$' "worker 1's tls_id at its hit"
expect "$out" '^\$3 = .* <take_turn\+[0-9]+>$' "the pc is in take_turn"
expect "$out" '^\$4 = 2$' "GDB switched to thread 2 (worker 1)"
expect "$out" '^\$5 = 2000$' "the next hit: worker 2, round 0"
expect "$out" '^\$6 = 22$' "worker 2's tls_id"
expect "$out" '^\$7 = 3000$' "then worker 3"
expect "$out" '^\$8 = 2000$' "reverse-continue: back to worker 2's hit"
expect "$out" '^\$9 = 22$' "worker 2's tls_id after reverse-continue"
expect "$out" '^\$10 = 1000$' "reverse-continue again: worker 1's hit"
expect "$out" '^\$11 = 2000$' "forward again"
n=$(grep -cE '^\*? +[0-9]+ +Thread ' "$out")
[ "$n" -eq 4 ] || { cat "$out"; die "info threads at the first hit lists $n threads, want 4"; }

# From the end of history back: reverse-continue finds the last turn (worker
# 3, round 199) several segments before the end, then the one before it; a
# forward continue reaches the last hit again; `monitor goto K` brings back
# every thread of checkpoint K.
out=$WORK/end.out
timeout 300 "$SLSDBG" replay "$rec" -- -nx -batch -ex 'set pagination off' \
  -ex 'continue' -ex 'break take_turn' -ex 'reverse-continue' -ex 'print worker * 1000 + round' -ex 'print tls_id' \
  -ex 'reverse-continue' -ex 'print worker * 1000 + round' -ex 'continue' -ex 'print worker * 1000 + round' \
  -ex "monitor goto $at" -ex 'maint flush register-cache' -ex 'info threads' -ex 'monitor when' \
  >"$out" 2>&1 </dev/null || { cat "$out"; die "replay from the end"; }
expect "$out" 'the program exited with status 0 here' "continue reaches the exit"
expect "$out" '^\$1 = 3199$' "reverse-continue from the end: the last turn"
expect "$out" '^\$2 = 33$' "worker 3's tls_id there"
expect "$out" '^\$3 = 2199$' "the turn before it"
expect "$out" '^\$4 = 3199$' "forward again to the last turn"
expect "$out" "^Current position: checkpoint $at, its start" "monitor goto"
n=$(sed -n "/^now at $at\$/,\$p" "$out" | grep -cE '^\*? +[0-9]+ +Thread ')
[ "$n" -eq 4 ] || { cat "$out"; die "info threads after monitor goto $at lists $n threads, want 4"; }

# LLDB through the same server: the thread list, a breakpoint hit by a worker.
command -v lldb >/dev/null || die "lldb is not installed (scripts/install-deps.sh installs it)"
{
  srv=$WORK/lldb_srv.out
  "$SLSDBG" replay "$rec" --server 127.0.0.1:0 >"$srv" 2>&1 </dev/null &
  bg_pids+=($!)
  for _ in $(seq 100); do grep -q '^listening on' "$srv" && break; sleep 0.1; done
  addr=$(sed -n 's/^listening on //p' "$srv")
  [ -n "$addr" ] || { cat "$srv"; die "the server for lldb did not listen"; }
  out=$WORK/lldb.out
  timeout 300 lldb -b -x "$PROGRAMS/thr_gdb" -o 'settings set plugin.process.gdb-remote.packet-timeout 300' \
    -o "gdb-remote $addr" -o 'breakpoint set -n take_turn' -o 'continue' -o 'thread list' \
    -o 'continue' -o 'frame variable worker' -o 'process kill' >"$out" 2>&1 </dev/null || { cat "$out"; die "lldb"; }
  n=$(grep -cE '^[* ] thread #[0-9]+: tid = [0-9]+' "$out")
  [ "$n" -eq 4 ] || { cat "$out"; die "lldb lists $n threads, want 4"; }
  expect "$out" '^\* thread #2: tid = [0-9]+, .*take_turn\(worker=1, round=0\).*stop reason = breakpoint 1\.1' "lldb: worker 1's thread stopped"
  expect "$out" '^\(int\) worker = 2$' "lldb: the next hit is worker 2's"
}

# A breakpoint in libc set before libc is mapped (GDB moves it from the PLT
# to libc at the solib event, inside a segment): every pthread_create is
# hit, and reverse-continue goes back to the one before.
out=$WORK/lib.out
timeout 300 "$SLSDBG" replay "$rec" -- -nx -batch -ex 'set pagination off' -ex 'break pthread_create' \
  -ex 'continue' -ex 'print (long) arg' -ex 'continue' -ex 'print (long) arg' -ex 'continue' -ex 'print (long) arg' \
  -ex 'reverse-continue' -ex 'print (long) arg' >"$out" 2>&1 </dev/null || { cat "$out"; die "replay with a libc breakpoint"; }
expect "$out" '^\$1 = 1$' "the first pthread_create (worker 1)"
expect "$out" '^\$2 = 2$' "the second"
expect "$out" '^\$3 = 3$' "the third"
expect "$out" '^\$4 = 2$' "reverse-continue: the second again"

# stepi twice, then reverse-stepi undoes each step (a replay to the
# position before it); one more goes back over the breakpoint arrival to the
# instruction before it (found by single-stepping the thread from its last
# resume); forward again, then continue.
out=$WORK/steps.out
timeout 300 "$SLSDBG" replay "$rec" -- -nx -batch -ex 'set pagination off' \
  -ex 'break take_turn' -ex 'continue' -ex 'print $pc' -ex 'stepi' -ex 'stepi' -ex 'print $pc' \
  -ex 'reverse-stepi' -ex 'print $pc' -ex 'reverse-stepi' -ex 'print $pc' -ex 'reverse-stepi' -ex 'print $pc' \
  -ex 'print worker' -ex 'stepi' -ex 'print $pc' -ex 'continue' -ex 'print worker' >"$out" 2>&1 </dev/null ||
  { cat "$out"; die "replay with steps"; }
pc_of() { sed -n "s/^\\\$$1 = .* \\(0x[0-9a-f]*\\) <.*/\\1/p" "$out"; }
pc0=$(pc_of 1) pc2=$(pc_of 2) pc1=$(pc_of 3) back0=$(pc_of 4) before=$(pc_of 5) again=$(pc_of 7)
[ -n "$pc0" ] && [ -n "$pc1" ] && [ -n "$pc2" ] && [ "$pc0" != "$pc1" ] && [ "$pc1" != "$pc2" ] ||
  { cat "$out"; die "stepi did not move: $pc0 $pc1 $pc2"; }
[ "$back0" = "$pc0" ] || { cat "$out"; die "two reverse-stepi: $back0, want the breakpoint's $pc0"; }
[ -n "$before" ] && [ $((before)) -lt $((pc0)) ] && [ $((pc0 - before)) -le 15 ] ||
  { cat "$out"; die "reverse-stepi over the arrival: $before, want just before $pc0"; }
expect "$out" '^\$6 = 1$' "still worker 1's thread before its arrival"
[ "$again" = "$pc0" ] || { cat "$out"; die "stepi from there: $again, want $pc0"; }
expect "$out" '^\$8 = 2$' "continue: worker 2's turn"
# From a checkpoint's start, reverse-stepi goes to the last instruction the
# thread that ran into the checkpoint executed in the segment before (its
# last resume there, then single steps; with none, the system call it
# stopped at before that resume), and stepi comes back to the checkpoint's
# registers. Where that thread has not run since the checkpoint before (it
# waits in a call), the step is refused and the position stays. Tried from
# checkpoint $at on until one goes back. At checkpoint 0's start it is
# refused, saying why.
went_back=
for k in $(seq "$at" $((at + 5))); do
  out=$WORK/cpstep.$k.out
  timeout 300 "$SLSDBG" replay "$rec" --at "$k" -- -nx -batch -ex 'print $pc' -ex 'print $_thread' -ex 'reverse-stepi' \
    -ex 'print $pc' -ex 'print $_thread' -ex 'monitor when' -ex 'stepi' -ex 'print $pc' >"$out" 2>&1 </dev/null ||
    { cat "$out"; die "replay --at $k with a reverse step"; }
  pc_at=$(sed -n 's/^\$1 = .* \(0x[0-9a-f]*\).*/\1/p' "$out") pc_back=$(sed -n 's/^\$3 = .* \(0x[0-9a-f]*\).*/\1/p' "$out")
  [ -n "$pc_at" ] && [ -n "$pc_back" ] || { cat "$out"; die "no pc around reverse-stepi at checkpoint $k"; }
  if grep -q "is not supported yet" "$out"; then
    [ "$pc_back" = "$pc_at" ] || { cat "$out"; die "a refused reverse step moved: $pc_back, want $pc_at"; }
    expect "$out" "^Current position: checkpoint $k, its start" "a refused reverse step stays at checkpoint $k"
    continue
  fi
  pc_fwd=$(sed -n 's/^\$5 = .* \(0x[0-9a-f]*\).*/\1/p' "$out")
  [ "$pc_back" != "$pc_at" ] || { cat "$out"; die "reverse-stepi from checkpoint $k did not move"; }
  [ "$pc_fwd" = "$pc_at" ] || { cat "$out"; die "stepi after it: $pc_fwd, want checkpoint $k's $pc_at"; }
  [ "$(sed -n 's/^\$2 = //p' "$out")" = "$(sed -n 's/^\$4 = //p' "$out")" ] || { cat "$out"; die "the reverse step changed threads"; }
  # Named from the thread's last resume, or from an arrival at a pc the
  # reverse step counted on the way (the ways into the pc, ways_in.h):
  # both are positions of the segment before; the pcs above say which
  # instruction it is.
  expect "$out" "^Current position: checkpoint $((k - 1)), thread [0-9]+'s (resume|arrival) [0-9]+" "the position is in the segment before"
  went_back=$k
  break
done
[ -n "$went_back" ] || die "reverse-stepi went back from none of checkpoints $at..$((at + 5))"
echo "reverse-stepi from checkpoint $went_back's start went back"
out=$WORK/refuse.out
timeout 300 "$SLSDBG" replay "$rec" -- -nx -batch -ex 'reverse-stepi' -ex 'print 7' >"$out" 2>&1 </dev/null ||
  { cat "$out"; die "replay at checkpoint 0"; }
expect "$out" "a reverse step from here \\(checkpoint 0's start" "a reverse step at checkpoint 0's start is refused, saying why"
expect "$out" '^\$1 = 7$' "GDB goes on after the refusal"

# The single-thread target answers qGetTLSAddr too: libc's errno.
single=$WORK/single.rec
"$SLSDBG" record -o "$single" -- "$PROGRAMS/travel_steps" >"$WORK/single.out" 2>&1 </dev/null || { cat "$WORK/single.out"; die "recording travel_steps"; }
out=$WORK/single_gdb.out
timeout 300 "$SLSDBG" replay "$single" -- -nx -batch -ex 'break travel_leaf' -ex 'continue' -ex 'print errno' \
  -ex 'print &errno' >"$out" 2>&1 </dev/null || { cat "$out"; die "replay of travel_steps"; }
expect "$out" '^\$1 = 0$' "errno in a single-thread replay"
expect "$out" '^\$2 = \(int \*\) 0x[0-9a-f]{6,}$' "errno's address (qGetTLSAddr)"

# A bad thread id in Hg: an error reply, and the server goes on.
srv=$WORK/srv.out
"$SLSDBG" replay "$rec" --server 127.0.0.1:0 >"$srv" 2>&1 </dev/null &
bg_pids+=($!)
for _ in $(seq 100); do grep -q '^listening on' "$srv" && break; sleep 0.1; done
port=$(sed -n 's/^listening on 127.0.0.1:\([0-9]*\)$/\1/p' "$srv")
[ -n "$port" ] || { cat "$srv"; die "the server did not listen"; }
"$PY" - "$port" >"$WORK/rsp.out" 2>&1 <<'PY' || { cat "$WORK/rsp.out"; die "raw packets"; }
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=60)
def send(p):
    s.sendall(b"$" + p + b"#" + b"%02x" % (sum(p) & 0xff))
    data = b""
    while True:
        data += s.recv(65536)
        if b"#" in data and len(data) >= data.index(b"#") + 3:
            body = data[data.index(b"$") + 1:data.index(b"#")]
            s.sendall(b"+")
            return body
for p in [b"Hgzz", b"Hg7fffffff", b"Hgp1.", b"T-5", b"qfThreadInfo", b"Hg0", b"g"]:
    print(p.decode(), "->", send(p).decode()[:40])
# An interrupt right after a continue to the end: the replay stops at the
# next checkpoint's start with SIGINT instead of running every segment.
s.sendall(b"$vCont;c#a8")
time.sleep(0.2)  # sent with the packet, 0x03 would be read before the continue starts
s.sendall(b"\x03")
data = b""
while data.count(b"#") < 1 or not data.rstrip().endswith(data[data.rindex(b"#"):data.rindex(b"#") + 3]):
    data += s.recv(65536)
    if b"$T" in data and data.index(b"#", data.index(b"$T")) + 3 <= len(data):
        break
body = data[data.index(b"$T") + 1:data.index(b"#", data.index(b"$T"))]
s.sendall(b"+")
print("interrupt ->", body.decode()[:40])
send(b"k")
PY
cat "$WORK/rsp.out"
expect "$WORK/rsp.out" '^Hgzz -> E16$' "a malformed Hg id is an error"
expect "$WORK/rsp.out" '^Hg7fffffff -> E03$' "an unknown thread is an error"
expect "$WORK/rsp.out" '^qfThreadInfo -> m[0-9a-f]+(,[0-9a-f]+)*$' "the thread list after bad packets"
expect "$WORK/rsp.out" '^g -> [0-9a-fx]{40}' "registers after bad packets"
expect "$WORK/rsp.out" '^interrupt -> T02thread:[0-9a-f]+;' "an interrupt stops a continue with SIGINT"
echo "replay_gdb_threads: OK"
