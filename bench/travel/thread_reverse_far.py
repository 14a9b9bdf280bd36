#!/usr/bin/env python3
"""Reverse steps in a threaded recording far from the thread's last resume (#20).

Records tests/programs/thr_revstep_far (a worker's loop of ~3*10^7
instructions, no system call, one segment: --interval 60000) and times, inside
GDB (time.monotonic around each command), from the line after the loop:
reverse-stepi (the first, then 10 more), reverse-next x3 and, in a second
session, reverse-finish out of the worker's function. Prints one JSON object.

  python3 bench/travel/thread_reverse_far.py BUILD [--patch miss]
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile

from reverse import replay_gdb_result

GDB_TIMED = r'''
python
import time, json
def timed(cmd, n=1):
    out = []
    for _ in range(n):
        t0 = time.monotonic()
        gdb.execute(cmd, to_string=True)
        out.append((time.monotonic() - t0) * 1000.0)
    return out
end
'''


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--patch", default="", help="SLSDBG_REPLAY_PATCH value (e.g. miss)")
    a = ap.parse_args()
    slsdbg = os.path.join(a.build, "cli", "slsdbg")
    prog = os.path.join(a.build, "tests", "programs", "thr_revstep_far")
    src = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "programs", "thr_revstep_far.c")
    after = next(i for i, l in enumerate(open(src), 1) if "/* AFTER */" in l)
    env = dict(os.environ)
    if a.patch:
        env["SLSDBG_REPLAY_PATCH"] = a.patch
    with tempfile.TemporaryDirectory(prefix="slsdbg-bench-") as work:
        rec = os.path.join(work, "far.rec")
        subprocess.run([slsdbg, "record", "-o", rec, "--interval", "60000", "--", prog], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        results = {}
        for name, body in (("steps", "rsi_first = timed('reverse-stepi')\n"
                                     "rsi = timed('reverse-stepi', 10)\n"
                                     "rn = timed('reverse-next', 3)\n"
                                     "print('RESULT ' + json.dumps({'reverse_stepi_first_ms': rsi_first[0], "
                                     "'reverse_stepi_ms': rsi, 'reverse_next_ms': rn}))\n"),
                           ("finish", "rf = timed('reverse-finish')\n"
                                      "print('RESULT ' + json.dumps({'reverse_finish_ms': rf[0]}))\n")):
            script = os.path.join(work, name + ".gdb")
            with open(script, "w") as f:
                f.write("set pagination off\n")
                f.write(GDB_TIMED)
                f.write(f"break thr_revstep_far.c:{after}\ncontinue\ndelete\npython\n{body}end\n")
            results.update(replay_gdb_result(slsdbg, rec, script, env))
    rsi = results["reverse_stepi_ms"]
    results["reverse_stepi_p50_ms"] = statistics.median(rsi)
    results["reverse_next_p50_ms"] = statistics.median(results["reverse_next_ms"])
    results["patch"] = a.patch or "on"
    results["load"] = os.getloadavg()[0]
    print(json.dumps(results))


if __name__ == "__main__":
    main()
