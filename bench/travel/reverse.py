#!/usr/bin/env python3
"""bench/travel/reverse.py BUILD [--history-s S] [--runs N] [--stepi N] [--peer-iterations N]

Time travel in GDB on a slsdbg replay, with GDB's own `record full` as the
peer, on tests/programs/travel_corrupt (a loop of small arithmetic + one
getppid per iteration, travel_setup called once at the start):

  reverse_continue_s   from the program's end back to travel_setup, across
                       about S seconds of recorded history (goal <= 1 s)
  reverse_stepi_ms     one reverse-stepi at the end of the program, p50/p90
                       over N steps (goal p50 <= 20 ms)
  record               slsdbg record time vs native for the same run
  peer_record_full     GDB `record full` over a few iterations: slowdown vs
                       native and reverse-continue time back to travel_setup

Every latency is measured inside GDB (Python time.monotonic around the one
command), so GDB's start-up and the replay's first restore are not in it.
Prints one JSON document.
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)


def line_of(marker, path):
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if f"/* {marker} */" in line:
                return n
    raise SystemExit(f"marker {marker} not in {path}")


def timed_gdb_lines(label, command):
    return [f"python _t0 = time.monotonic()", command,
            f'python print("{label} %.6f" % (time.monotonic() - _t0))']


def gdb_script(path, lines):
    with open(path, "w") as f:
        f.write("set pagination off\nset confirm off\npython import time\n")
        f.write("\n".join(lines) + "\n")


def replay_gdb_result(slsdbg, rec, script, env=None, timeout=900):
    """GDB runs `script` on a replay of `rec`; the JSON object it printed
    on a line `RESULT {...}`."""
    out = subprocess.run([slsdbg, "replay", rec, "--", "-nx", "-batch", "-x", script], env=env,
                         capture_output=True, text=True, timeout=timeout).stdout
    m = re.search(r"^RESULT (.*)$", out, re.M)
    if not m:
        raise SystemExit("no result from gdb:\n" + out[-3000:])
    return json.loads(m.group(1))


def parse_times(out, label):
    return [float(m) for m in re.findall(rf"^{label} ([0-9.]+)$", out, re.M)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--history-s", type=float, default=1.0)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--stepi", type=int, default=40)
    ap.add_argument("--peer-iterations", type=int, default=20)
    args = ap.parse_args()
    build = os.path.abspath(args.build)
    slsdbg = os.path.join(build, "cli", "slsdbg")
    prog = os.path.join(build, "tests", "programs", "travel_corrupt")
    src = os.path.join(ROOT, "tests", "programs", "travel_corrupt.c")
    end_line, setup_line = line_of("TRAVEL_END", src), line_of("TRAVEL_SETUP", src)
    work = tempfile.mkdtemp(prefix="slsdbg-bench-travel.")
    result = {"bench": "travel", "fixture": "tests/programs/travel_corrupt"}
    try:
        # Iterations for about S seconds of recorded history: start small, scale.
        iterations = 3000
        rec = os.path.join(work, "travel.rec")
        for _ in range(6):
            shutil.rmtree(rec, ignore_errors=True)
            recorded_iterations = iterations
            t0 = time.monotonic()
            r = run([slsdbg, "record", "-o", rec, "--", prog, str(iterations)])
            record_s = time.monotonic() - t0
            if r.returncode != 0:
                raise SystemExit("record failed: " + r.stdout)
            info = json.loads(run([slsdbg, "info", rec, "--json"]).stdout)
            history_s = info["checkpoints"][-1]["time_ns"] / 1e9
            if args.history_s * 0.9 <= history_s <= args.history_s * 1.3:
                break
            iterations = int(iterations * args.history_s / max(history_s, 0.01) * 1.1) + 1
        iterations = recorded_iterations
        native_runs = []
        for _ in range(5):
            t0 = time.monotonic()
            run([prog, str(iterations)])
            native_runs.append(time.monotonic() - t0)
        native_s = statistics.median(native_runs)
        result["recording"] = {"iterations": iterations, "history_s": round(history_s, 3),
                               "checkpoints": len(info["checkpoints"]), "events": info["events"],
                               "native_s": round(native_s, 4), "record_s": round(record_s, 4),
                               "record_slowdown": round(record_s / native_s, 2)}

        # slsdbg: reverse-continue from the end to travel_setup, forward again, repeated.
        lines = [f"break travel_corrupt.c:{end_line}", "continue", "break travel_setup"]
        for _ in range(args.runs):
            lines += timed_gdb_lines("RC", "reverse-continue")
            lines += ["disable 2"] + timed_gdb_lines("FC", "continue") + ["enable 2"]
        lines += ["delete 2"]
        for _ in range(args.stepi):
            lines += timed_gdb_lines("RS", "reverse-stepi")
        script = os.path.join(work, "slsdbg.gdb")
        gdb_script(script, lines)
        r = run([slsdbg, "replay", rec, "--", "-nx", "-batch", "-x", script], timeout=3600)
        rc, fc, rs = parse_times(r.stdout, "RC"), parse_times(r.stdout, "FC"), parse_times(r.stdout, "RS")
        if len(rc) != args.runs or len(rs) != args.stepi or f"travel_setup () at" not in r.stdout:
            raise SystemExit("slsdbg replay did not complete the script:\n" + r.stdout[-4000:])
        rs_sorted = sorted(rs)
        result["slsdbg"] = {
            "reverse_continue_s": {"runs": [round(x, 3) for x in rc], "median": round(statistics.median(rc), 3),
                                   "goal": 1.0},
            "forward_continue_s": {"runs": [round(x, 3) for x in fc], "median": round(statistics.median(fc), 3)},
            "reverse_stepi_ms": {"count": len(rs), "p50": round(1000 * statistics.median(rs), 2),
                                 "p90": round(1000 * rs_sorted[int(0.9 * (len(rs) - 1))], 2),
                                 "max": round(1000 * rs_sorted[-1], 2), "goal_p50": 20.0},
        }

        # Peer: GDB record full on a few iterations of the same program.
        n = args.peer_iterations
        t0 = time.monotonic()
        run([prog, str(n)])
        peer_native_s = time.monotonic() - t0
        lines = ["break main", "run", "record full", "set record full insn-number-max unlimited",
                 f"break travel_corrupt.c:{end_line}"]
        lines += timed_gdb_lines("RECORD", "continue")
        lines += ["info record", "break travel_setup"] + timed_gdb_lines("RC", "reverse-continue")
        script = os.path.join(work, "peer.gdb")
        gdb_script(script, lines)
        r = run(["gdb", "-nx", "-batch", "-x", script, "--args", prog, str(n)], timeout=3600)
        rec_t, rc_t = parse_times(r.stdout, "RECORD"), parse_times(r.stdout, "RC")
        insns = re.search(r"Log contains (\d+) instructions", r.stdout)
        if not rec_t or not rc_t:
            raise SystemExit("gdb record full did not complete:\n" + r.stdout[-4000:])
        # The same number of iterations under GDB without recording: the peer's baseline.
        lines = ["break main", "run", f"break travel_corrupt.c:{end_line}"] + timed_gdb_lines("PLAIN", "continue")
        gdb_script(script, lines)
        r = run(["gdb", "-nx", "-batch", "-x", script, "--args", prog, str(n)], timeout=600)
        plain = parse_times(r.stdout, "PLAIN")
        result["peer_record_full"] = {
            "iterations": n, "instructions": int(insns.group(1)) if insns else None,
            "record_s": round(rec_t[0], 3), "native_under_gdb_s": round(plain[0], 5) if plain else None,
            "native_process_s": round(peer_native_s, 5),
            "record_slowdown_vs_gdb": round(rec_t[0] / plain[0], 1) if plain and plain[0] > 0 else None,
            "reverse_continue_s": round(rc_t[0], 3),
        }
    finally:
        shutil.rmtree(work, ignore_errors=True)
    json.dump(result, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
