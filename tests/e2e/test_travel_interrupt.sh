#!/usr/bin/env bash
# Interrupt and refused moves. GDB's Ctrl-C (under a real pty) during a long
# reverse-continue stops it, says so in a console note, and leaves the user
# where the scan had reached (a valid moment: after an event or at a
# checkpoint; a half-scanned batch cannot tell the last hit); a
# refused `monitor goto` leaves the user where they were, not at _start.
. "$(dirname "$0")/replay_gdb_lib.sh"
prog=$PROGRAMS/timeline_counter
rec=$WORK/counter.rec
# 1500 iterations, about 65 checkpoints: a reverse-continue from the end to
# tl_start scans them all (about 0.7 s on a quiet machine, seconds under
# load; 300 iterations took 0.14-0.19 s once heads ran a second part, often
# done before the interrupt came).
record "$rec" 10 "$prog" 1500 1000000

# A refused goto stays put (patch on, and never matching).
for patch in on miss; do
  [ $patch = miss ] && export SLSDBG_REPLAY_PATCH=miss
  out=$WORK/goto.$patch.out
  replay_gdb "$rec" "$out" -ex 'break tl_mark' -ex 'continue' -ex 'continue' -ex 'monitor goto 1:99999:0x1234:1' \
    -ex 'info registers rip' -ex 'print i'
  expect "$out" 'not in history' "($patch) the goto is refused"
  expect "$out" '^rip +0x[0-9a-f]+ +0x[0-9a-f]+ <tl_mark(\+[0-9]+)?>$' "($patch) still in tl_mark after the refusal"
  expect "$out" '^\$1 = 1$' "($patch) still at the second hit"
  unset SLSDBG_REPLAY_PATCH
done

# Ctrl-C during a long reverse-continue (to tl_start, hit once at the start).
"$PY" - "$SLSDBG" "$rec" >"$WORK/int.log" 2>&1 <<'PYEOF'
import os, pty, select, sys, time
slsdbg, rec = sys.argv[1:3]
pid, fd = pty.fork()
if pid == 0:
    os.execv(slsdbg, [slsdbg, "replay", rec, "--", "-nx", "-q", "-ex", "set pagination off", "-ex", "set confirm off",
                      "-ex", "set style enabled off", "-ex", "break tl_start", "-ex", "continue"])
buf = b""
def read_until(pat, timeout):
    global buf
    end = time.time() + timeout
    while time.time() < end:
        r, _, _ = select.select([fd], [], [], 0.02)
        if r:
            try:
                c = os.read(fd, 65536)
            except OSError:
                return False
            buf += c
            if pat in buf:
                return True
    return False
assert read_until(b"(gdb) ", 30), "no first prompt"
buf = b""
os.write(fd, b"continue\n")
assert read_until(b"(gdb) ", 30), "continue to the end"
buf = b""
os.write(fd, b"reverse-continue\n")
if read_until(b"(gdb) ", 0.15):
    print("FINISHED before the interrupt")
else:
    t1 = time.time()
    os.write(fd, b"\x03")
    print("stopped" if read_until(b"(gdb) ", 40) else "not stopped")
    print("interrupt took %d ms" % ((time.time() - t1) * 1000))
os.write(fd, b"info registers rip\n")
# GDB 13 often runs the first line typed after a Ctrl-C of a remote
# target only ~10 s later, whatever is typed next (plain gdbserver too).
read_until(b"rip ", 15)
read_until(b"(gdb) ", 10)
os.write(fd, b"kill\nquit\n")
read_until(b"\x00", 3)
os.kill(pid, 9)
os.waitpid(pid, 0)
print(buf.decode(errors="replace"))
PYEOF
log=$WORK/int.log
expect "$log" '^stopped' "Ctrl-C stops the reverse-continue"
expect "$log" 'slsdbg: interrupted: you are where the search had reached' "the interrupt is explained"
expect "$log" 'rip +0x[0-9a-f]+ +0x[0-9a-f]+ <[A-Za-z_]' "a valid moment where the scan reached"
grep -o 'interrupt took [0-9]* ms' "$log"

# Not interrupted: a reverse-continue from the last checkpoint across a few
# long CPU-bound segments reaches tl_start. (A pause left by a plain continue
# once made the session refuse the checkpoint's patch for that resumption
# and arm nothing: the segment ran on forever.)
long=$WORK/long.rec
record "$long" 10 "$prog" 6 20000000
last=$(( checkpoints - 1 ))
out=$WORK/long.out
timeout 120 "$SLSDBG" replay "$long" -- -nx -batch -ex 'set pagination off' -ex "monitor goto $last" -ex 'break tl_start' \
  -ex 'reverse-continue' -ex 'bt 1' >"$out" 2>&1 || { cat "$out"; die "reverse-continue from checkpoint $last did not finish"; }
expect "$out" '^#0 +tl_start \(\)' "reverse-continue from the last checkpoint reaches tl_start"
echo "travel_interrupt: OK"
