#!/usr/bin/env python3
"""bench/travel/reverse_far.py BUILD [--moments N] [--interval-ms MS] [--seed S]

Reverse stepping in GDB far from checkpoints (#20) on tests/programs/revstep_far
(a CPU-bound loop without syscalls), recorded with MS ms checkpoints:

  reverse_stepi_ms     at N random moments (a random hit of the outer loop's
                       marked line, then 0..40 forward stepi): the first
                       reverse-stepi there and 4 more, p50/p99 (goal p50 <= 20 ms,
                       p99 <= 200 ms)
  reverse_next_ms      reverse-next x3 at each of those moments, p50 (goal <= 50 ms)
  reverse_finish_s     out of one call of the inner loop that runs about 0.5 s
                       (reverse-finish from near its end; goal <= 1 s)
  peer_record_full     GDB `record full` on the same program: reverse-stepi and
                       reverse-finish on a tiny run, and whether it can record
                       the 0.5 s loop at all (it is stopped after a time limit)

Latencies are measured inside GDB (Python time.monotonic around the one
command). Prints one JSON document.
"""
import argparse
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run(cmd, timeout=3600, **kw):
    try:
        return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=timeout, **kw)
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        return subprocess.CompletedProcess(cmd, -1, out + "\nTIMEOUT\n")


# GDB scripting helpers shared with bench/travel/reverse.py.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reverse import gdb_script, line_of  # noqa: E402
from reverse import parse_times as times  # noqa: E402
from reverse import timed_gdb_lines as timed  # noqa: E402


def pct(v, p):
    s = sorted(v)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))] if s else None


def ms(v):
    return round(1000 * v, 2) if v is not None else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--moments", type=int, default=10)
    ap.add_argument("--interval-ms", type=int, default=10)
    ap.add_argument("--outer", type=int, default=4000)
    ap.add_argument("--inner", type=int, default=300)
    ap.add_argument("--finish-inner", type=int, default=0, help="inner iterations of the 0.5 s call (0: calibrate)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--peer-timeout", type=int, default=120)
    ap.add_argument("--finish-timeout", type=int, default=300)
    args = ap.parse_args()
    build = os.path.abspath(args.build)
    slsdbg = os.path.join(build, "cli", "slsdbg")
    prog = os.path.join(build, "tests", "programs", "revstep_far")
    src = os.path.join(ROOT, "tests", "programs", "revstep_far.c")
    mark, call = line_of("FAR_MARK", src), line_of("FAR_CALL", src)
    rng = random.Random(args.seed)
    work = tempfile.mkdtemp(prefix="slsdbg-bench-revfar.")
    result = {"bench": "reverse_far", "fixture": "tests/programs/revstep_far", "interval_ms": args.interval_ms,
              "loadavg": os.getloadavg()[0]}
    try:
        rec = os.path.join(work, "far.rec")
        r = run([slsdbg, "record", "-o", rec, "--interval", str(args.interval_ms), "--", prog, str(args.outer),
                 str(args.inner)])
        if r.returncode != 0:
            raise SystemExit("record failed: " + r.stdout)
        info = json.loads(run([slsdbg, "info", rec, "--json"]).stdout)
        result["recording"] = {"outer": args.outer, "inner": args.inner, "checkpoints": len(info["checkpoints"]),
                               "instructions_per_outer_iteration_approx": 20 * args.inner}
        # Random moments: a later hit of the marked line (reverse-next left us
        # about one iteration before the previous moment), then s forward steps.
        lines = [f"break revstep_far.c:{mark}", f"ignore 1 {args.outer // 4}", "continue", "disable 1"]
        room = (args.outer - args.outer // 4 - 10) // max(args.moments, 1)
        moments = []
        for _ in range(args.moments):
            lines += ["enable 1", f"ignore 1 {rng.randrange(1, max(room, 2))}", "continue", "disable 1",
                      'printf "AT i=%ld\\n", i']
            s = rng.randrange(0, 41)
            moments.append(s)
            if s:
                lines.append(f"stepi {s}")
            lines += timed("RS1", "reverse-stepi")
            for _ in range(4):
                lines += timed("RS", "reverse-stepi")
            for _ in range(3):
                lines += timed("RN", "reverse-next")
        script = os.path.join(work, "steps.gdb")
        gdb_script(script, lines)
        t0 = time.monotonic()
        r = run([slsdbg, "replay", rec, "--", "-nx", "-batch", "-x", script])
        wall = time.monotonic() - t0
        rs1, rs, rn = times(r.stdout, "RS1"), times(r.stdout, "RS"), times(r.stdout, "RN")
        if len(rs1) != len(moments) or len(rn) != 3 * len(moments):
            raise SystemExit("slsdbg replay did not complete the script:\n" + r.stdout[-4000:])
        every = rs1 + rs
        result["slsdbg"] = {
            "reverse_stepi_ms": {"count": len(every), "p50": ms(statistics.median(every)), "p99": ms(pct(every, 99)),
                                 "max": ms(max(every)), "first_at_moment_p50": ms(statistics.median(rs1)),
                                 "first_at_moment_max": ms(max(rs1)), "goal_p50": 20.0, "goal_p99": 200.0},
            "reverse_next_ms": {"count": len(rn), "p50": ms(statistics.median(rn)), "max": ms(max(rn)), "goal_p50": 50.0},
            "script_wall_s": round(wall, 2),
        }
        # reverse-finish out of a ~0.5 s call of the inner loop.
        fin = args.finish_inner
        if fin == 0:
            t0 = time.monotonic()
            run([prog, "1", "10000000"])
            per_iter = (time.monotonic() - t0) / 1e7
            fin = int(0.5 / max(per_iter, 1e-9))
        frec = os.path.join(work, "fin.rec")
        t0 = time.monotonic()
        run([prog, "2", str(fin)])
        native_s = time.monotonic() - t0
        r = run([slsdbg, "record", "-o", frec, "--interval", str(args.interval_ms), "--", prog, "2", str(fin)])
        if r.returncode != 0:
            raise SystemExit("record failed: " + r.stdout)
        lines = [f"break revstep_far.c:{mark}", "ignore 1 1", "continue", "delete", "reverse-stepi", "reverse-stepi",
                 "reverse-stepi", 'python print("FN", gdb.selected_frame().name())']
        lines += timed("RF", "reverse-finish")
        lines += ['python print("FN", gdb.selected_frame().name(), gdb.find_pc_line(gdb.selected_frame().pc()).line)']
        gdb_script(script, lines)
        t0 = time.monotonic()
        r = run([slsdbg, "replay", frec, "--", "-nx", "-batch", "-x", script], timeout=args.finish_timeout)
        rf = times(r.stdout, "RF")
        finish = {"inner_iterations": fin, "native_call_s": round(native_s / 2, 3), "goal": 1.0}
        if rf and f"FN main {call}" in r.stdout:
            finish["s"] = round(rf[0], 3)
        elif "TIMEOUT" in r.stdout:
            finish["finished"] = False
            finish["stopped_after_s"] = round(time.monotonic() - t0, 1)
        else:
            raise SystemExit("reverse-finish did not complete:\n" + r.stdout[-4000:])
        result["slsdbg"]["reverse_finish_s"] = finish
        # Peer: GDB record full.
        peer = {}
        lines = ["break main", "run", "record full", f"break revstep_far.c:{mark}", "ignore 2 1", "continue",
                 "delete 2"]
        for _ in range(20):
            lines += timed("PRS", "reverse-stepi")
        lines += ["stepi 20", "reverse-stepi", "reverse-stepi", "reverse-stepi"] + timed("PRF", "reverse-finish")
        gdb_script(script, lines)
        r = run(["gdb", "-nx", "-batch", "-x", script, "--args", prog, "3", "300"], timeout=args.peer_timeout)
        prs, prf = times(r.stdout, "PRS"), times(r.stdout, "PRF")
        peer["tiny_run"] = {"outer": 3, "inner": 300, "reverse_stepi_ms_p50": ms(statistics.median(prs)) if prs else None,
                            "reverse_finish_s": round(prf[0], 3) if prf else None}
        lines = ["break main", "run", "record full", "set record full insn-number-max unlimited",
                 f"break revstep_far.c:{mark}"] + timed("PREC", "continue")
        gdb_script(script, lines)
        t0 = time.monotonic()
        r = run(["gdb", "-nx", "-batch", "-x", script, "--args", prog, "2", str(fin)], timeout=args.peer_timeout)
        prec = times(r.stdout, "PREC")
        peer["record_0_5s_call"] = ({"recorded_s": round(prec[0], 2)} if prec else
                                    {"finished": False, "stopped_after_s": round(time.monotonic() - t0, 1)})
        result["peer_record_full"] = peer
    finally:
        shutil.rmtree(work, ignore_errors=True)
    json.dump(result, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
