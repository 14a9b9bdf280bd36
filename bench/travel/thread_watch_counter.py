#!/usr/bin/env python3
"""bench/travel/thread_watch_counter.py BUILD [--iterations N] [--interval MS] [--runs N] [--patch MODE]

A watch on a variable a thread's hot loop writes (#20/#16), threaded replay:
tests/programs/thr_watch_counter N (-O1): a worker thread stores its loop
counter into `counter` on each of N iterations, then the main thread, after
the join, stores into `spin` N times (the last store to `counter` lies
checkpoints back). One recording (`--interval` ms checkpoints); each run is
one GDB session (`slsdbg replay REC -- -batch`) timing its commands with
GDB's Python, from a breakpoint on the line after the second loop:

  reverse_watch_s   `watch counter` + reverse-continue (the worker's last store)
  reverse_again_s   a second reverse-continue (the store one iteration back)
  forward_s         continue (the store after it, named by its arrival)
  reverse_third_s   reverse-continue again
  last_write_s      `slsdbg last-write REC counter` (its own process)
  native_s          the program's own run time, for scale
  gdb_record_full_s GDB's `record full` from main to the breakpoint
                    (--peer-timeout seconds at most; null when it did not finish)

Medians over --runs; prints one JSON document.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from watch_hot import gdb_session, loadavg  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("build")
    ap.add_argument("--iterations", type=int, default=500_000_000)
    ap.add_argument("--interval", type=int, default=10)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--peer-timeout", type=int, default=60)
    ap.add_argument("--session-timeout", type=int, default=1800)
    ap.add_argument("--patch", default="", help="SLSDBG_REPLAY_PATCH for the sessions (miss, off, refuse)")
    a = ap.parse_args()
    env = dict(os.environ)
    if a.patch:
        env["SLSDBG_REPLAY_PATCH"] = a.patch
    build = os.path.abspath(a.build)
    slsdbg = os.path.join(build, "cli", "slsdbg")
    prog = os.path.join(build, "tests", "programs", "thr_watch_counter")
    for f in (slsdbg, prog):
        if not os.access(f, os.X_OK):
            sys.exit(f"thread_watch_counter: {f} not built (make build)")
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "programs",
                       "thr_watch_counter.c")
    read_line = next(i for i, l in enumerate(open(src), 1) if "/* COUNTER_READ */" in l)
    res = {"command": " ".join(["bench/travel/thread_watch_counter.py"] + sys.argv[1:]),
           "workload": f"tests/programs/thr_watch_counter {a.iterations} (-O1, 2 threads), --interval {a.interval}",
           "patch": a.patch or "on", "loadavg_before": loadavg()}
    with tempfile.TemporaryDirectory(prefix="thread_watch_counter.") as work:
        t0 = time.monotonic()
        subprocess.run([prog, str(a.iterations)], stdout=subprocess.DEVNULL, check=True)
        res["native_s"] = round(time.monotonic() - t0, 4)
        rec = os.path.join(work, "rec")
        subprocess.run([slsdbg, "record", "-o", rec, "--interval", str(a.interval), "--", prog, str(a.iterations)],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        info = json.loads(subprocess.run([slsdbg, "info", rec, "--json"], stdout=subprocess.PIPE, check=True).stdout)
        res["checkpoints"] = len(info["checkpoints"])
        names = ("reverse_watch_s", "reverse_again_s", "forward_s", "reverse_third_s")
        laps = {k: [] for k in names + ("last_write_s",)}
        for _ in range(a.runs):
            try:
                got, text = gdb_session(slsdbg, rec, [
                    f"break {src}:{read_line}", "continue", "python _lap('start')", "watch counter",
                    "reverse-continue", "python _lap('reverse_watch_s')", "reverse-continue",
                    "python _lap('reverse_again_s')", "continue", "python _lap('forward_s')", "reverse-continue",
                    "python _lap('reverse_third_s')", "print counter"], timeout=a.session_timeout, env=env)
            except subprocess.TimeoutExpired:
                res["note"] = f"a session did not finish within {a.session_timeout} s"
                break
            if "Remote failure" in text or "diverged" in text:
                sys.exit("thread_watch_counter: the session failed:\n" + text[-2000:])
            for k in names:
                if k not in got:
                    sys.exit("thread_watch_counter: the session did not finish:\n" + text[-2000:])
                laps[k].append(got[k])
            t0 = time.monotonic()
            subprocess.run([slsdbg, "last-write", rec, "counter"], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, check=True, env=env, timeout=a.session_timeout)
            laps["last_write_s"].append(time.monotonic() - t0)
        for k, v in laps.items():
            res[k] = round(statistics.median(v), 4) if v else None
            res[k + "_runs"] = [round(x, 4) for x in v]
        peer = ["gdb", "-nx", "-batch", "-ex", "set pagination off", "-ex", "break main", "-ex", "run", "-ex",
                "record full", "-ex", "set record full insn-number-max unlimited", "-ex",
                f"break {src}:{read_line}", "-ex", "python import time; _t0 = time.monotonic()", "-ex", "continue",
                "-ex", "python print('PEER %.3f' % (time.monotonic() - _t0))", "--args", prog, str(a.iterations)]
        try:
            p = subprocess.run(peer, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               timeout=a.peer_timeout)
            lines = [l for l in p.stdout.splitlines() if l.startswith("PEER ")]
            reached = "Breakpoint 2, main" in p.stdout
            res["gdb_record_full_s"] = float(lines[0].split()[1]) if lines and reached else None
            if not reached:
                failed = [l for l in p.stdout.splitlines() if l.startswith("Process record")]
                res["gdb_record_full_note"] = "did not reach the breakpoint: " + " / ".join(failed)[:300]
        except subprocess.TimeoutExpired:
            res["gdb_record_full_s"] = None
            res["gdb_record_full_note"] = f"did not reach the breakpoint within {a.peer_timeout} s"
    res["loadavg_after"] = loadavg()
    print(json.dumps(res, indent=2))


if __name__ == "__main__":
    main()
