#!/usr/bin/env python3
"""bench/travel/goals.py BUILD [--only a,b] [--quick]

The whole #20 performance table in one run, beside native and GDB
`record full` where the peer can run, as one JSON document whose "table"
lists each goal, the measured value and whether it is met:

  reverse_continue_s  goal_cpu (one call of goal_once, then ~1 s of a
                      syscall-free loop, 10 ms checkpoints): from the end,
                      `break goal_once`, `reverse-continue` (timed in GDB)
  reverse_stepi_ms, reverse_next_ms, reverse_finish_s
                      bench/travel/reverse_far.py (revstep_far, 10 ms
                      checkpoints, random moments; a 0.5 s inner call)
  crash_continue_ms   goal_cpu ... crash: `replay --at K` (K the last tick
                      checkpoint before the crash), `continue` to the SIGSEGV
  bisect_s            `bisect --expr` on bisect_bank 1500000 1234567
                      (10 ms checkpoints, refined to the line)
  last_write_s        bench/travel/last_write.py (lastwrite_once, default
                      --history-ms 2000: about 10 s of recorded history)

Every case records its own recording. Latencies inside GDB exclude GDB's
start-up; bisect and last-write are whole commands. loadavg is recorded at
the start and the end of every case.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from reverse import gdb_script, line_of, parse_times, timed_gdb_lines  # noqa: E402


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def run(cmd, timeout=1800, env=None):
    try:
        return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=timeout,
                              env=env)
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        return subprocess.CompletedProcess(cmd, -1, out + "\nTIMEOUT\n")


def timed_run(cmd, **kw):
    t0 = time.monotonic()
    r = run(cmd, **kw)
    return time.monotonic() - t0, r


class Ctx:
    def __init__(self, build, work, runs):
        self.build, self.work, self.runs = build, work, runs
        self.slsdbg = os.path.join(build, "cli", "slsdbg")

    def prog(self, name):
        return os.path.join(self.build, "tests", "programs", name)

    def record(self, rec, argv, interval=10):
        s, r = timed_run([self.slsdbg, "record", "-o", rec, "--interval", str(interval), "--"] + argv)
        info = json.loads(run([self.slsdbg, "info", rec, "--json"]).stdout)
        return s, r, info


def cpu_run(cmd):
    """The CPU time (user + sys) of a child run: wall time under load is not
    the program's. From wait4's rusage (microseconds; os.times() counts in
    10 ms clock ticks, a third of a 30 ms calibration run)."""
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, ru = os.wait4(p.pid, 0)
    return ru.ru_utime + ru.ru_stime


def calibrate_rounds(ctx, seconds):
    """goal_cpu rounds for about SECONDS of native CPU time: the median of
    three runs of ~0.1 s."""
    n = 60_000_000
    s = statistics.median(cpu_run([ctx.prog("goal_cpu"), str(n)]) for _ in range(3))
    return max(1000, int(n * seconds / max(s, 1e-3))), s / n


def case_reverse_continue(ctx):
    src = os.path.join(ROOT, "tests", "programs", "goal_cpu.c")
    call = line_of("GOAL_CALL", src)
    rounds, per_round = calibrate_rounds(ctx, 1.0)
    rec = os.path.join(ctx.work, "rc.rec")
    rec_s, r, info = ctx.record(rec, [ctx.prog("goal_cpu"), str(rounds)])
    if r.returncode != 0:
        raise SystemExit("record failed: " + r.stdout[-2000:])
    lines = [f"break goal_cpu.c:{call}", "continue", "break goal_once"]
    for _ in range(ctx.runs):
        lines += timed_gdb_lines("RC", "reverse-continue")
        lines += ['python print("FN", gdb.selected_frame().name())', "disable 2"]
        lines += timed_gdb_lines("FC", "continue") + ["enable 2"]
    script = os.path.join(ctx.work, "rc.gdb")
    gdb_script(script, lines)
    r = run([ctx.slsdbg, "replay", rec, "--", "-nx", "-batch", "-x", script])
    rc, fc = parse_times(r.stdout, "RC"), parse_times(r.stdout, "FC")
    if len(rc) != ctx.runs or r.stdout.count("FN goal_once") != ctx.runs:
        raise SystemExit("reverse-continue did not reach goal_once:\n" + r.stdout[-3000:])
    out = {"rounds": rounds, "native_cpu_s": round(rounds * per_round, 3), "record_s": round(rec_s, 3),
           "history_s": round(info["checkpoints"][-1]["time_ns"] / 1e9, 3), "checkpoints": len(info["checkpoints"]),
           "runs_s": [round(x, 3) for x in rc], "s": round(statistics.median(rc), 3),
           "forward_continue_s": round(statistics.median(fc), 3) if fc else None}
    # Peer: GDB record full over 2000 rounds (it records a few thousand
    # instructions a second), then reverse-continue to goal_once.
    peer_rounds = 2000
    lines = ["break goal_once", "run", "record full", "set record full insn-number-max unlimited",
             f"break goal_cpu.c:{call}"] + timed_gdb_lines("PREC", "continue")
    lines += timed_gdb_lines("PRC", "reverse-continue")
    gdb_script(script, lines)
    r = run(["gdb", "-nx", "-batch", "-x", script, "--args", ctx.prog("goal_cpu"), str(peer_rounds)], timeout=300)
    prec, prc = parse_times(r.stdout, "PREC"), parse_times(r.stdout, "PRC")
    out["peer_record_full"] = {"rounds": peer_rounds, "record_s": round(prec[0], 3) if prec else None,
                               "reverse_continue_s": round(prc[0], 3) if prc else None,
                               "record_1s_extrapolated_s": round(prec[0] * rounds / peer_rounds) if prec else None}
    return out


def case_crash(ctx):
    rounds, per_round = calibrate_rounds(ctx, 0.3)
    rec = os.path.join(ctx.work, "crash.rec")
    rec_s, r, info = ctx.record(rec, [ctx.prog("goal_cpu"), str(rounds), "crash"])
    cps = info["checkpoints"]
    ticks = [c for c in cps if c.get("reason") == "tick"]
    if not ticks:
        raise SystemExit("crash: no tick checkpoint in " + json.dumps(cps[-3:]))
    k = ticks[-1]
    times = []
    for _ in range(ctx.runs):
        script = os.path.join(ctx.work, "crash.gdb")
        gdb_script(script, timed_gdb_lines("CC", "continue") + ['python print("FN", gdb.selected_frame().name())'])
        r = run([ctx.slsdbg, "replay", rec, "--at", str(k["id"]), "--", "-nx", "-batch", "-x", script], timeout=600)
        cc = parse_times(r.stdout, "CC")
        if not cc or "SIGSEGV" not in r.stdout or "FN goal_crash" not in r.stdout:
            raise SystemExit("crash: continue did not stop at the SIGSEGV in goal_crash:\n" + r.stdout[-3000:])
        times.append(cc[0])
    s = cpu_run([ctx.prog("goal_cpu"), str(rounds), "crash"])
    return {"rounds": rounds, "checkpoints": len(cps), "from_checkpoint": k["id"],
            "checkpoint_time_ns": k.get("time_ns"), "end_time_ns": cps[-1].get("time_ns"),
            "runs_ms": [round(1000 * x, 1) for x in times], "ms": round(1000 * statistics.median(times), 1),
            "native_whole_run_cpu_s": round(s, 3)}


def case_bisect(ctx):
    rec = os.path.join(ctx.work, "bank.rec")
    rec_s, r, info = ctx.record(rec, [ctx.prog("bisect_bank"), "1500000", "1234567"])
    expr = "bank.acct.checking + bank.acct.savings == total_expected"
    times, rep = [], None
    for _ in range(ctx.runs):
        s, r = timed_run([ctx.slsdbg, "bisect", rec, "--expr", expr, "--json"])
        times.append(s)
        rep = json.loads(r.stdout[r.stdout.index("{"):])
    coarse, _ = timed_run([ctx.slsdbg, "bisect", rec, "--expr", expr, "--no-refine", "--json"])
    native = cpu_run([ctx.prog("bisect_bank"), "1500000", "1234567"])
    return {"checkpoints": len(info["checkpoints"]), "history_s": round(info["checkpoints"][-1]["time_ns"] / 1e9, 3),
            "native_cpu_s": round(native, 3), "runs_s": [round(x, 2) for x in times], "s": round(statistics.median(times), 2),
            "no_refine_s": round(coarse, 2), "moment": rep.get("moment"), "refinement": rep["refinement"]["state"],
            "line": rep.get("refined", {}).get("line"), "evaluations": rep.get("refined", {}).get("evaluations")}


def case_reverse_far(ctx, quick):
    cmd = [sys.executable, os.path.join(HERE, "reverse_far.py"), ctx.build, "--moments", "3" if quick else "6",
           "--peer-timeout", "30", "--finish-timeout", "120"]
    r = run(cmd, timeout=3600)
    try:
        return json.loads(r.stdout[r.stdout.index("{"):]) | {"command": " ".join(cmd[1:])}
    except ValueError:
        raise SystemExit("reverse_far.py failed:\n" + r.stdout[-3000:])


def case_last_write(ctx, quick):
    cmd = [sys.executable, os.path.join(HERE, "last_write.py"), ctx.build, "--history-ms", "1000" if quick else "2000",
           "--per-check", "2", "--runs", str(ctx.runs), "--noskip-history-ms", "100"]
    r = run(cmd, timeout=3600)
    try:
        return json.loads(r.stdout[r.stdout.index("{"):])
    except ValueError:
        raise SystemExit("last_write.py failed:\n" + r.stdout[-3000:])


def table(res):
    rows = []

    def row(what, value, unit, goal, peer=None):
        rows.append({"what": what, "value": value, "unit": unit, "goal": goal,
                     "met": value is not None and value <= goal, "peer_record_full": peer})

    if "reverse_continue" in res:
        rc = res["reverse_continue"]
        row("reverse-continue across ~1 s of history to a line hit once", rc["s"], "s", 1.0,
            rc["peer_record_full"])
    if "reverse_far" in res:
        f = res["reverse_far"].get("slsdbg", {})
        peer = res["reverse_far"].get("peer_record_full")
        if "reverse_stepi_ms" in f:
            row("reverse-stepi at random moments, p50", f["reverse_stepi_ms"]["p50"], "ms", 20.0, peer)
            row("reverse-stepi at random moments, p99", f["reverse_stepi_ms"]["p99"], "ms", 200.0)
            row("reverse-next, p50", f["reverse_next_ms"]["p50"], "ms", 50.0)
        fin = f.get("reverse_finish_s", {})
        row("reverse-finish out of a 0.5 s loop", fin.get("s"), "s", 1.0)
    if "crash" in res:
        row("continue to a crash <= 10 ms after a checkpoint", res["crash"]["ms"], "ms", 50.0)
    if "bisect" in res:
        row("bisect with refinement over ~1 s of history", res["bisect"]["s"], "s", 10.0)
    if "last_write" in res:
        lw = res["last_write"]
        row(f"last write, written once, {lw.get('history_end_ns', 0) / 1e9:.1f} s of history back",
            round(lw["last_write_s"], 3), "s", 1.0)
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("build")
    ap.add_argument("--only", default="reverse_continue,crash,bisect,last_write,reverse_far")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="fewer moments, a shorter last-write history")
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    work = tempfile.mkdtemp(prefix="slsdbg-bench-goals.")
    ctx = Ctx(build, work, a.runs)
    cases = {"reverse_continue": lambda: case_reverse_continue(ctx), "crash": lambda: case_crash(ctx),
             "bisect": lambda: case_bisect(ctx), "last_write": lambda: case_last_write(ctx, a.quick),
             "reverse_far": lambda: case_reverse_far(ctx, a.quick)}
    res = {"command": " ".join(["python3", "bench/travel/goals.py"] + sys.argv[1:])}
    try:
        for name in a.only.split(","):
            before = loadavg()
            t0 = time.monotonic()
            res[name] = cases[name]()
            res[name]["bench_wall_s"] = round(time.monotonic() - t0, 1)
            res[name]["loadavg"] = [before, loadavg()]
            print(f"goals: {name} done in {res[name]['bench_wall_s']} s", file=sys.stderr)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    out = {"bench": "goals_20", "table": table(res)} | res
    json.dump(out, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
