#!/usr/bin/env python3
"""reverse-continue across a threaded program's CPU-bound history (#20/#16).

Records tests/programs/thr_goal_cpu (a worker thread runs a CPU-bound loop
without syscalls while main waits in pthread_join, and calls
thr_goal_once once, at its first round) sized for about --seconds of native
CPU, with 10 ms checkpoints, RUNS times; in GDB, from the worker's loop end
(LOOP_END, reached by a forward continue), `break thr_goal_once` and
reverse-continue (timed with time.monotonic around the command). The
native CPU time of the loop is printed beside. One JSON object.

  python3 bench/travel/thread_reverse_continue.py BUILD [--runs 3] [--seconds 1.0]
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile

from goals import cpu_run
from reverse import replay_gdb_result

GDB = r'''set pagination off
python
import time, json
gdb.execute("tbreak thr_goal_cpu.c:%(end_line)d")
gdb.execute("continue", to_string=True)
gdb.execute("break thr_goal_once")
t0 = time.monotonic()
gdb.execute("reverse-continue", to_string=True)
r = {"reverse_continue_s": time.monotonic() - t0, "function": gdb.selected_frame().name(),
     "round": int(gdb.parse_and_eval("round"))}
print("RESULT " + json.dumps(r))
end
'''


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=1.0)
    a = ap.parse_args()
    slsdbg = os.path.join(a.build, "cli", "slsdbg")
    prog = os.path.join(a.build, "tests", "programs", "thr_goal_cpu")
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "programs", "thr_goal_cpu.c")
    end_line = next(i for i, l in enumerate(open(src), 1) if "/* LOOP_END */" in l)
    probe = 100_000_000
    per_round = statistics.median(cpu_run([prog, str(probe)]) for _ in range(3)) / probe
    rounds = int(a.seconds / per_round)
    runs = []
    with tempfile.TemporaryDirectory(prefix="slsdbg-bench-") as work:
        script = os.path.join(work, "rc.gdb")
        with open(script, "w") as f:
            f.write(GDB % {"end_line": end_line})
        for i in range(a.runs):
            rec = os.path.join(work, f"thr{i}.rec")
            subprocess.run([slsdbg, "record", "-o", rec, "--interval", "10", "--", prog, str(rounds), "0"], check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            info = json.loads(subprocess.run([slsdbg, "info", rec, "--json"], capture_output=True, text=True).stdout)
            run = {"checkpoints": len(info["checkpoints"]), "history_s": round(info["checkpoints"][-1]["time_ns"] / 1e9, 3)}
            run.update(replay_gdb_result(slsdbg, rec, script))
            runs.append(run)
    print(json.dumps({
        "bench": "thread_reverse_continue", "rounds": rounds, "native_cpu_s": round(rounds * per_round, 3),
        "runs": runs, "reverse_continue_s_p50": round(statistics.median(r["reverse_continue_s"] for r in runs), 3),
        "right_moment": all(r["function"] == "thr_goal_once" and r["round"] == 0 for r in runs),
        "load": os.getloadavg()[0]}))


if __name__ == "__main__":
    main()
