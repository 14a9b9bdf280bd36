#!/usr/bin/env python3
"""bench/travel/replay_speed.py BUILD [--iterations N] [--runs N]

Replay speed against native for a CPU-bound program: bench/record/cpu_bound.c
(a multiply-add loop with no syscalls, so every checkpoint falls inside the
hot loop), side by side in one run:

  native_s        the program alone, median of N runs
  record_s        `slsdbg record` of it (one recording, reused below)
  replay_check_s  `slsdbg replay REC --check`: checkpoint 0 restored, then
                  every segment re-executed and every checkpoint compared
                  (registers + dirty pages), median of N runs
  slowdown        replay_check_s / native_s

Prints one JSON document.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def timed(cmd, **kw):
    t0 = time.monotonic()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)
    return time.monotonic() - t0, p


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("build")
    ap.add_argument("--iterations", type=int, default=200_000_000)
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    slsdbg = os.path.join(os.path.abspath(a.build), "cli", "slsdbg")
    if not os.access(slsdbg, os.X_OK):
        sys.exit(f"replay_speed: {slsdbg} not built (make build)")
    with tempfile.TemporaryDirectory(prefix="replay_speed.") as work:
        exe = os.path.join(work, "cpu_bound")
        subprocess.run(["cc", "-O2", "-g", "-o", exe, os.path.join(ROOT, "bench", "record", "cpu_bound.c")], check=True)
        args = [exe, str(a.iterations)]
        native = [timed(args)[0] for _ in range(a.runs)]
        rec = os.path.join(work, "rec")
        record_s, p = timed([slsdbg, "record", "-o", rec, "--"] + args)
        if p.returncode != 0:
            sys.exit(f"replay_speed: record failed: {p.stderr.strip()}")
        info = json.loads(subprocess.run([slsdbg, "info", rec, "--json"], stdout=subprocess.PIPE, check=True).stdout)
        replays, last = [], ""
        for _ in range(a.runs):
            s, p = timed([slsdbg, "replay", rec, "--check"])
            last = p.stdout.strip() or p.stderr.strip()
            if p.returncode != 0 or not last.startswith("OK"):
                sys.exit(f"replay_speed: replay --check failed: {last}")
            replays.append(s)
        m = re.match(r"OK: (\d+) checkpoints, (\d+) boundaries crossed by execution, (\d+) by restore", last)
        native_s = statistics.median(native)
        replay_s = statistics.median(replays)
        print(json.dumps({
            "bench": "replay_speed",
            "fixture": "bench/record/cpu_bound.c",
            "iterations": a.iterations,
            "native_s": {"median": round(native_s, 4), "runs": [round(x, 4) for x in native]},
            "record_s": round(record_s, 4),
            "checkpoints": len(info["checkpoints"]),
            "replay_check_s": {"median": round(replay_s, 4), "runs": [round(x, 4) for x in replays]},
            "crossed_by_execution": int(m.group(2)) if m else None,
            "crossed_by_restore": int(m.group(3)) if m else None,
            "slowdown": round(replay_s / native_s, 2),
            "check": last,
        }, indent=2))


if __name__ == "__main__":
    main()
