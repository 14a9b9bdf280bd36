#!/usr/bin/env python3
"""GDB under a real pty on `slsdbg replay REC`: runs the setup commands, starts
MOVE, sends Ctrl-C (\\x03, as a terminal does) AFTER seconds later, measures
until GDB's prompt is back, then runs the check commands. Prints one JSON
line: {"stopped": bool, "latency_ms": float, "finished_early": bool,
"output": text after the interrupt}. Used by test_travel_interrupt_long.sh
and bench/travel/interrupt_latency.py.

usage: interrupt_under_pty.py SLSDBG REC --move CMD [--after S] [--setup CMD]... [--check CMD]...
"""
import argparse
import json
import os
import pty
import select
import sys
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("slsdbg")
    ap.add_argument("rec")
    ap.add_argument("--move", required=True)
    ap.add_argument("--after", type=float, default=0.5)
    ap.add_argument("--setup", action="append", default=[])
    ap.add_argument("--check", action="append", default=[])
    ap.add_argument("--timeout", type=float, default=120)
    a = ap.parse_args()

    gdb_args = ["-nx", "-q", "-ex", "set pagination off", "-ex", "set confirm off", "-ex", "set style enabled off",
                "-ex", "set remotetimeout 600"]
    pid, fd = pty.fork()
    if pid == 0:
        os.execv(a.slsdbg, [a.slsdbg, "replay", a.rec, "--"] + gdb_args)
    buf = b""

    def read_until(pat, timeout):
        nonlocal buf
        end = time.time() + timeout
        while time.time() < end:
            r, _, _ = select.select([fd], [], [], 0.01)
            if r:
                try:
                    chunk = os.read(fd, 65536)
                except OSError:
                    return False
                buf += chunk
                if pat in buf:
                    return True
        return False

    def command(cmd, timeout):
        nonlocal buf
        buf = b""
        os.write(fd, cmd.encode() + b"\n")
        return read_until(b"(gdb) ", timeout)

    result = {"stopped": False, "latency_ms": None, "finished_early": False, "output": ""}
    try:
        if not read_until(b"(gdb) ", a.timeout):
            raise SystemExit("no first prompt: " + buf.decode(errors="replace"))
        for cmd in a.setup:
            if not command(cmd, a.timeout):
                raise SystemExit("setup command did not finish: " + cmd + "\n" + buf.decode(errors="replace"))
        buf = b""
        os.write(fd, a.move.encode() + b"\n")
        if read_until(b"(gdb) ", a.after):
            result["finished_early"] = True
        else:
            t0 = time.time()
            os.write(fd, b"\x03")
            result["stopped"] = read_until(b"(gdb) ", a.timeout)
            result["latency_ms"] = round((time.time() - t0) * 1000, 1)
        out = buf
        for cmd in a.check:
            command(cmd, a.timeout)
            out += buf
        result["output"] = out.decode(errors="replace")
        os.write(fd, b"kill\nquit\n")
        read_until(b"\x00", 3)
    finally:
        try:
            os.kill(pid, 9)
        except ProcessLookupError:
            pass
        os.waitpid(pid, 0)
    print(json.dumps(result))


if __name__ == "__main__":
    sys.exit(main())
