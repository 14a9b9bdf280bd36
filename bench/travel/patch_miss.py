#!/usr/bin/env python3
"""bench/travel/patch_miss.py BUILD [--inner N] [--interval-ms MS] [--runs R]

A forward `continue` whose user breakpoint hits inside a CPU-bound segment
(#20, "no debug exception per visit"): tests/programs/revstep_far 2 N
recorded with MS ms checkpoints, then in GDB `break FAR_MARK`, `ignore 1 1`,
`continue` (the 2nd hit, i = 1). Timed side by side, each R times:

  patch        the checkpoint's patched breakpoint (the default)
  miss         SLSDBG_REPLAY_PATCH=miss: a trampoline that never matches, so
               segments whose checkpoint needs it are reached another way
  miss_perf    the same with SLSDBG_REPLAY_COUNT_REACH=off: the perf
               breakpoint alone, a kernel #DB per visit of the pc (as before)

For each: wall seconds, and from SLSDBG_LOG=debug the #DBs the perf
breakpoints took and the checkpoints reached by count. Prints one JSON
document with the load average before and after.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def line_of(tag, path):
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if tag in line:
                return n
    raise SystemExit(f"{tag} not in {path}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--inner", type=int, default=2000000)
    ap.add_argument("--interval-ms", type=int, default=10)
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--modes", default="patch,miss,miss_perf")
    ap.add_argument("--timeout", type=int, default=300)
    args = ap.parse_args()
    slsdbg = os.path.join(args.build, "cli", "slsdbg")
    prog = os.path.join(args.build, "tests", "programs", "revstep_far")
    mark = line_of("FAR_MARK", os.path.join(ROOT, "tests", "programs", "revstep_far.c"))
    envs = {"patch": {}, "miss": {"SLSDBG_REPLAY_PATCH": "miss"},
            "miss_perf": {"SLSDBG_REPLAY_PATCH": "miss", "SLSDBG_REPLAY_COUNT_REACH": "off"}}
    result = {"load_before": os.getloadavg()[0], "inner": args.inner, "interval_ms": args.interval_ms}
    with tempfile.TemporaryDirectory() as tmp:
        rec = os.path.join(tmp, "far.rec")
        r = subprocess.run([slsdbg, "record", "-o", rec, "--interval", str(args.interval_ms), "--", prog, "2",
                            str(args.inner)], capture_output=True, text=True)
        if r.returncode != 0:
            raise SystemExit("record failed: " + r.stderr)
        script = os.path.join(tmp, "ig.gdb")
        with open(script, "w") as f:
            f.write(f"break revstep_far.c:{mark}\nignore 1 1\ncontinue\nprintf \"AT i=%ld\\n\", i\n")
        for mode in args.modes.split(","):
            times, dbs, counted, ok = [], [], [], True
            for _ in range(args.runs):
                env = dict(os.environ, SLSDBG_LOG="debug", **envs[mode])
                start = time.monotonic()
                try:
                    p = subprocess.run([slsdbg, "replay", rec, "--", "-nx", "-batch", "-ex", "set pagination off",
                                        "-ex", "set remotetimeout 600", "-x", script], capture_output=True,
                                       text=True, env=env, timeout=args.timeout)
                    out = p.stdout + p.stderr
                except subprocess.TimeoutExpired:
                    times.append(None)
                    ok = False
                    continue
                times.append(round(time.monotonic() - start, 2))
                ok = ok and "AT i=1" in out
                dbs.append(sum(int(n) for n in re.findall(r"perf breakpoint at \S+: (\d+) debug exceptions", out)))
                counted.append(len(re.findall(r"reached by count at visit|met an int3 at \S+ first", out)))
            done = [t for t in times if t is not None]
            result[mode] = {"wall_s": times, "median_s": statistics.median(done) if done else None,
                            "debug_exceptions": dbs, "counted_reaches": counted, "stopped_at_i_1": ok}
    result["load_after"] = os.getloadavg()[0]
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
