#!/usr/bin/env python3
"""A breakpoint in a threaded program's -O0 hot loop, reached backward (#20).

Records tests/programs/thr_hot_loop (a worker thread runs 3*10^7 iterations
of `step = i; total += i * 3;` at -O0 while main waits in pthread_join; the
breakpoint's line starts with a 4-byte load and no padding is near, so its
counter stub moves several instructions) RUNS times, and in GDB (times from
time.monotonic around each command): from the line after the loop,
`break` on the loop's `total +=` line, reverse-continue to its last
iteration, reverse-step twice, continue (the last iteration again). The
native run's wall time is printed beside for scale. One JSON object.

  python3 bench/travel/thread_hot_breakpoint.py BUILD [--runs 3] [--patch miss]
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time

from reverse import replay_gdb_result

GDB = r'''set pagination off
python
import time, json
def timed(cmd):
    t0 = time.monotonic()
    gdb.execute(cmd, to_string=True)
    return (time.monotonic() - t0) * 1000.0
gdb.execute("break thr_hot_loop.c:%(after)d")
gdb.execute("continue", to_string=True)
gdb.execute("delete")
gdb.execute("break thr_hot_loop.c:%(add)d")
r = {"reverse_continue_ms": timed("reverse-continue")}
r["step_at_rc"] = int(gdb.parse_and_eval("step"))
r["reverse_step_ms"] = [timed("reverse-step"), timed("reverse-step")]
r["continue_ms"] = timed("continue")
r["step_at_continue"] = int(gdb.parse_and_eval("step"))
print("RESULT " + json.dumps(r))
end
'''


def line_of(src, marker):
    return next(i for i, l in enumerate(open(src), 1) if marker in l)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--patch", default="", help="SLSDBG_REPLAY_PATCH value (e.g. miss)")
    a = ap.parse_args()
    slsdbg = os.path.join(a.build, "cli", "slsdbg")
    prog = os.path.join(a.build, "tests", "programs", "thr_hot_loop")
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "programs", "thr_hot_loop.c")
    env = dict(os.environ)
    if a.patch:
        env["SLSDBG_REPLAY_PATCH"] = a.patch
    runs = []
    native = []
    with tempfile.TemporaryDirectory(prefix="slsdbg-bench-") as work:
        script = os.path.join(work, "hot.gdb")
        with open(script, "w") as f:
            f.write(GDB % {"after": line_of(src, "/* after */"), "add": line_of(src, "/* add */")})
        for i in range(a.runs):
            t0 = time.monotonic()
            subprocess.run([prog], check=True, stdout=subprocess.DEVNULL)
            native.append(time.monotonic() - t0)
            rec = os.path.join(work, f"hot{i}.rec")
            subprocess.run([slsdbg, "record", "-o", rec, "--", prog], check=True, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
            runs.append(replay_gdb_result(slsdbg, rec, script, env))
    med = lambda key: round(statistics.median(r[key] for r in runs), 1)
    print(json.dumps({
        "bench": "thread_hot_breakpoint", "patch": a.patch or "on", "runs": runs,
        "native_s": round(statistics.median(native), 3),
        "reverse_continue_ms_p50": med("reverse_continue_ms"),
        "reverse_step_ms_p50": round(statistics.median(x for r in runs for x in r["reverse_step_ms"]), 1),
        "continue_ms_p50": med("continue_ms"),
        "right_iteration": all(r["step_at_rc"] == 29999999 and r["step_at_continue"] == 29999999 for r in runs),
        "load": os.getloadavg()[0]}))


if __name__ == "__main__":
    main()
