#!/usr/bin/env python3
"""bench/travel/last_write.py BUILD [--history-ms MS] [--per-check N] [--interval MS] [--runs N] [--noskip-history-ms MS]

"Who last wrote this?" for a variable written once at the start of a long
history: tests/programs/lastwrite_once writes lw_target once, then computes
for --history-ms of CPU time (a cheap syscall every few microseconds) without
touching its page, reading the CPU time (a syscall) every --per-check rounds
of ~7 us. From the end of history:

  last_write_s      `slsdbg last-write REC lw_target --json`, median of N
                    runs: open, replay to the end of history (the last
                    segment), the query, and back
  never_written_s   the same for lw_never (never written: the answer is
                    "never written", after the same skipping scan)
  segments_replayed / segments_skipped   from the JSON answer
  skip_s_short / noskip_s_short   the lw_target query on a shorter history
                    (--noskip-history-ms), with skipping and with
                    SLSDBG_WATCH_SKIP=off (every segment replayed)
  loadavg           /proc/loadavg before and after

Prints one JSON document.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time


def timed(cmd, env=None):
    t0 = time.monotonic()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    return time.monotonic() - t0, p


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def record(slsdbg, prog, rec, ms, interval, per_check):
    s, p = timed([slsdbg, "record", "-o", rec, "--interval", str(interval), "--", prog, str(ms), str(per_check)])
    if p.returncode != 0:
        sys.exit(f"last_write: record failed: {p.stderr.strip()}")
    info = json.loads(subprocess.run([slsdbg, "info", rec, "--json"], stdout=subprocess.PIPE, check=True).stdout)
    return s, len(info["checkpoints"]), info["checkpoints"][-1].get("time_ns", 0)


def query(slsdbg, rec, what, runs, env=None):
    times, answer = [], None
    for _ in range(runs):
        s, p = timed([slsdbg, "last-write", rec, what, "--json"], env=env)
        if p.returncode != 0:
            sys.exit(f"last_write: last-write {what} failed: {p.stderr.strip()}")
        times.append(s)
        answer = json.loads(p.stdout)
    return statistics.median(times), answer


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("build")
    ap.add_argument("--history-ms", type=int, default=10_000, help="CPU time of the compute loop")
    ap.add_argument("--interval", type=int, default=10, help="checkpoint interval (ms)")
    ap.add_argument("--per-check", type=int, default=2, help="rounds between CPU-time syscalls")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--noskip-history-ms", type=int, default=500)
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    slsdbg = os.path.join(build, "cli", "slsdbg")
    prog = os.path.join(build, "tests", "programs", "lastwrite_once")
    for f in (slsdbg, prog):
        if not os.access(f, os.X_OK):
            sys.exit(f"last_write: {f} not built (make build)")
    out = {"command": " ".join(["bench/travel/last_write.py"] + sys.argv[1:]), "loadavg_before": loadavg()}
    with tempfile.TemporaryDirectory(prefix="last_write.") as work:
        rec = os.path.join(work, "rec")
        out["record_s"], out["checkpoints"], out["history_end_ns"] = record(slsdbg, prog, rec, a.history_ms, a.interval, a.per_check)
        out["history_ms"] = a.history_ms
        out["last_write_s"], ans = query(slsdbg, rec, "lw_target", a.runs)
        if not ans.get("found") or ans.get("checkpoint", 99) > 5:
            sys.exit(f"last_write: expected the write in the first segments, got {ans}")
        out["segments_replayed"], out["segments_skipped"] = ans["segments_replayed"], ans["segments_skipped"]
        out["answer"] = f'{ans["moment"]} {ans["instruction"]} at {ans["file"]}:{ans["line"]}'
        out["never_written_s"], never = query(slsdbg, rec, "lw_never", a.runs)
        out["never_written_found"] = never.get("found")
        short = os.path.join(work, "short")
        _, out["noskip_checkpoints"], _ = record(slsdbg, prog, short, a.noskip_history_ms, a.interval, a.per_check)
        out["noskip_history_ms"] = a.noskip_history_ms
        out["skip_s_short"], _ = query(slsdbg, short, "lw_target", a.runs)
        env = dict(os.environ, SLSDBG_WATCH_SKIP="off")
        out["noskip_s_short"], nans = query(slsdbg, short, "lw_target", a.runs, env)
        out["noskip_segments_replayed"] = nans["segments_replayed"]
    out["loadavg_after"] = loadavg()
    json.dump(out, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
