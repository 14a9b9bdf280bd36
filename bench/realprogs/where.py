#!/usr/bin/env python3
"""bench/realprogs/where.py: where a recording of each real program spends
its stops (issue #18). Records each program of run.py once with
SLSDBG_LOG=debug and sums what the recorder logs: seccomp stops by syscall
(the calls the syscall buffer left traced), checkpoints and their stop
time, pages copied, torn deferrals, the longest tick interval; how many
ticks were armed at each interval; and the medians of the capture's phases
(`[capture] N threads: maps, threads, handlers/fds, dirty set, copy`) over
the checkpoints that copied >= 500 pages and over all, with how many
threads those checkpoints stopped, and how many captures reused the
previous one's maps, handlers, fds and cwd.

usage: bench/realprogs/where.py BUILD_DIR [--quick] [--only NAME,...] > where.json
Counts, not times, are the point: they do not move with the machine's load.
"""
import os, re, statistics, shutil, subprocess, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run  # noqa: E402  (the same programs and inputs)

CKPT = re.compile(r"checkpoint (\d+): (deferred|in stop), stop (\d+) us, (\d+) pages now, (\d+) deferred")
TICK = re.compile(r"next tick in (\d+) ms")
PHASES = re.compile(r"\[capture\]: (\d+) threads: maps (\d+) us, threads (\d+) us, handlers/fds (\d+) us \(\w+\), "
                    r"dirty set (\d+) us, copy (\d+) us \((\d+) pages\)")
PHASE_NAMES = ("maps_us", "threads_us", "handlers_fds_us", "dirty_set_us", "copy_us")


def phase_medians(rows):
    """Median of each phase over `rows` ((threads, maps, ..., copy, pages)), and the copy per page."""
    if not rows:
        return {"n": 0}
    med = lambda i: statistics.median(r[i] for r in rows)
    out = {"n": len(rows), "threads": sorted({r[0] for r in rows})}
    out.update({k: med(i + 1) for i, k in enumerate(PHASE_NAMES)})
    out["pages"] = med(6)
    pages = sum(r[6] for r in rows)
    out["copy_us_per_page"] = round(sum(r[5] for r in rows) / pages, 2) if pages else None
    return out


def where(slsdbg, cmd, work):
    rec = os.path.join(work, "rec")
    env = dict(os.environ, SLSDBG_LOG="debug")
    t = time.monotonic()
    r = subprocess.run([slsdbg, "record", "-o", rec, "--"] + cmd, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True, env=env)
    wall = time.monotonic() - t
    shutil.rmtree(rec, ignore_errors=True)
    out = {"recorded_s": round(wall, 3), "exit": r.returncode, "checkpoints": 0, "stop_ms": 0.0,
           "stop_ms_max": 0.0, "pages_in_stop": 0, "pages_deferred": 0, "torn": 0, "longest_interval_ms": 0}
    phases, intervals, reused = [], {}, 0
    for line in r.stderr.splitlines():
        if m := PHASES.search(line):
            phases.append(tuple(int(x) for x in m.groups()))
            reused += "(reused)" in line
        elif m := CKPT.search(line):
            out["checkpoints"] += 1
            stop = int(m.group(3)) / 1000
            out["stop_ms"] += stop
            out["stop_ms_max"] = max(out["stop_ms_max"], stop)
            out["pages_deferred"] += int(m.group(5))
            out["pages_in_stop"] += int(m.group(4)) - int(m.group(5))
        elif m := TICK.search(line):
            out["longest_interval_ms"] = max(out["longest_interval_ms"], int(m.group(1)))
            intervals[m.group(1)] = intervals.get(m.group(1), 0) + 1
        elif "tick checkpoint dropped" in line:
            out["torn"] += 1
        elif "seccomp stops:" in line:
            n, _, rest = line.split("[record]: ", 1)[1].partition(" seccomp stops: ")
            out["seccomp_stops"] = int(n)
            out["stops_by_syscall"] = rest
        elif "syscall buffer:" in line and "buffered" in line:
            out["buffered"] = int(line.split("syscall buffer: ")[1].split()[0])
        elif "the program ran" in line and "threads" in line:
            out["threads"] = int(line.split("the program ran ")[1].split()[0])
    out["stop_ms"] = round(out["stop_ms"], 1)
    out["ticks_armed_at_ms"] = dict(sorted(intervals.items(), key=lambda kv: int(kv[0])))
    out["captures_reusing_state"] = reused  # maps, handlers, fds, cwd from the previous capture
    out["capture_phases_all"] = phase_medians(phases)
    out["capture_phases_ge_500_pages"] = phase_medians([p for p in phases if p[6] >= 500])
    return out


def main():
    run.each_program(__doc__, "slsdbg-bench-where.", where)


if __name__ == "__main__":
    main()
