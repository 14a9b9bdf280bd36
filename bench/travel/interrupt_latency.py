#!/usr/bin/env python3
"""bench/travel/interrupt_latency.py BUILD [--trials N] [--spins N] [--after S]

Ctrl-C latency deep inside one long CPU-bound segment (#20): records
tests/programs/timeline_counter 1 SPINS with a 1-minute interval (tl_mark(0),
then one spin of seconds of CPU: one segment), then, N times each, GDB under a
real pty (tests/e2e/interrupt_under_pty.py) starts a move, sends \\x03 AFTER
seconds in and times until GDB's prompt is back:

  continue          from tl_mark toward the exit (the move is undone)
  reverse_continue  from the exit checkpoint back to tl_mark (lands at the
                    long segment's checkpoint)

Each case reports p50_ms, max_ms and the latencies; loadavg before and after.
Prints one JSON document.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--trials", type=int, default=10)
    ap.add_argument("--spins", type=int, default=2000000000)
    ap.add_argument("--after", type=float, default=0.5)
    a = ap.parse_args()
    source = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    slsdbg = os.path.join(a.build, "cli", "slsdbg")
    prog = os.path.join(a.build, "tests", "programs", "timeline_counter")
    driver = os.path.join(source, "tests", "e2e", "interrupt_under_pty.py")
    out = {"spins": a.spins, "after_s": a.after, "trials": a.trials, "loadavg_before": loadavg()}
    with tempfile.TemporaryDirectory(prefix="slsdbg-interrupt-") as work:
        env = dict(os.environ, SLSDBG_DIR=os.path.join(work, "root"))
        rec = os.path.join(work, "long.rec")
        subprocess.run([slsdbg, "record", "-o", rec, "--interval", "60000", "--", prog, "1", str(a.spins)],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        info = json.loads(subprocess.run([slsdbg, "info", rec, "--json"], check=True, capture_output=True,
                                         text=True, env=env).stdout)
        last = len(info["checkpoints"]) - 1
        out["checkpoints"] = last + 1
        cases = {
            "continue": ("continue", ["break tl_mark", "continue"]),
            "reverse_continue": ("reverse-continue", ["monitor goto %d" % last, "break tl_mark"]),
        }
        for name, (move, setup) in cases.items():
            lat, misses = [], 0
            for _ in range(a.trials):
                cmd = [sys.executable, driver, slsdbg, rec, "--move", move, "--after", str(a.after)]
                for s in setup:
                    cmd += ["--setup", s]
                p = subprocess.run(cmd, capture_output=True, text=True, env=env)
                try:
                    r = json.loads(p.stdout.strip().splitlines()[-1])
                except (ValueError, IndexError):
                    misses += 1
                    continue
                if r["stopped"] and r["latency_ms"] is not None:
                    lat.append(r["latency_ms"])
                else:
                    misses += 1
            out[name] = {"p50_ms": statistics.median(lat) if lat else None, "max_ms": max(lat) if lat else None,
                         "latencies_ms": lat, "not_stopped_or_failed": misses}
    out["loadavg_after"] = loadavg()
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    sys.exit(main())
