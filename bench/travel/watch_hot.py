#!/usr/bin/env python3
"""bench/travel/watch_hot.py BUILD [--iterations N] [--interval MS] [--runs N] [--patch MODE]

Watchpoints on variables a hot loop writes (#20): tests/programs/watch_hot_loop
(-O0) writes `hot` on each of N iterations and `mark` once, at 5/6 of them;
checkpoints every --interval ms land inside the loop. One recording; each
run is one GDB session (`slsdbg replay REC -- -batch`) that times its
commands with GDB's Python:

  forward_watch_s     `watch mark` + continue from main, across the loop's
                      checkpoints with the watchpoint armed
  reverse_watch_s     `watch hot` + reverse-continue from there (the write
                      one iteration back), then a second one
  reverse_after_s     from a breakpoint after the loop, `watch hot` +
                      reverse-continue (the loop's last write)
  native_s            the program's own run time, for scale
  gdb_record_full_s   GDB's `record full` over the same loop from main to
                      `mark`'s write (--peer-timeout seconds at most;
                      null when it did not finish)

--patch miss runs the sessions with SLSDBG_REPLAY_PATCH=miss (the checkpoints'
trampolines never match: every checkpoint is reached from the rescue copy by
a counting copy). Medians over --runs; prints one JSON document.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

TIMER = """python
import time
_t = [time.monotonic()]
def _lap(name):
    now = time.monotonic()
    print("LAP %s %.6f" % (name, now - _t[0]))
    _t[0] = now
end"""


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def gdb_session(slsdbg, rec, cmds, timeout, env=None):
    script = [TIMER] + cmds
    with tempfile.NamedTemporaryFile("w", suffix=".gdb", delete=False) as f:
        f.write("\n".join(script) + "\n")
        path = f.name
    try:
        p = subprocess.run([slsdbg, "replay", rec, "--", "-nx", "-batch", "-ex", "set pagination off", "-x", path],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=timeout, env=env)
    finally:
        os.unlink(path)
    out = {}
    for line in p.stdout.splitlines():
        if line.startswith("LAP "):
            _, name, s = line.split()
            out[name] = out.get(name, 0.0) + float(s)
    return out, p.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("build")
    ap.add_argument("--iterations", type=int, default=100_000_000)
    ap.add_argument("--interval", type=int, default=10)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--peer-timeout", type=int, default=60)
    ap.add_argument("--patch", default="", help="SLSDBG_REPLAY_PATCH for the sessions (miss, off, refuse)")
    a = ap.parse_args()
    env = dict(os.environ)
    if a.patch:
        env["SLSDBG_REPLAY_PATCH"] = a.patch
    build = os.path.abspath(a.build)
    slsdbg = os.path.join(build, "cli", "slsdbg")
    prog = os.path.join(build, "tests", "programs", "watch_hot_loop")
    for f in (slsdbg, prog):
        if not os.access(f, os.X_OK):
            sys.exit(f"watch_hot: {f} not built (make build)")
    at = a.iterations * 5 // 6
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "programs", "watch_hot_loop.c")
    after = next(i for i, l in enumerate(open(src), 1) if "/* AFTER */" in l)
    res = {"command": " ".join(["bench/travel/watch_hot.py"] + sys.argv[1:]), "workload": "tests/programs/watch_hot_loop "
           f"{a.iterations} {at} (-O0), --interval {a.interval}", "patch": a.patch or "on", "loadavg_before": loadavg()}
    with tempfile.TemporaryDirectory(prefix="watch_hot.") as work:
        t0 = time.monotonic()
        subprocess.run([prog, str(a.iterations), str(at)], stdout=subprocess.DEVNULL, check=True)
        res["native_s"] = round(time.monotonic() - t0, 4)
        rec = os.path.join(work, "rec")
        subprocess.run([slsdbg, "record", "-o", rec, "--interval", str(a.interval), "--", prog, str(a.iterations),
                        str(at)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        info = json.loads(subprocess.run([slsdbg, "info", rec, "--json"], stdout=subprocess.PIPE, check=True).stdout)
        res["checkpoints"] = len(info["checkpoints"])
        laps = {"forward_watch_s": [], "reverse_watch_s": [], "reverse_again_s": [], "reverse_after_s": []}
        for _ in range(a.runs):
            got, text = gdb_session(slsdbg, rec, [
                "break main", "continue", "python _lap('start')", "watch mark", "continue", "python _lap('forward_watch_s')",
                "delete", "watch hot", "reverse-continue", "python _lap('reverse_watch_s')", "reverse-continue",
                "python _lap('reverse_again_s')"], timeout=1800, env=env)
            for k in ("forward_watch_s", "reverse_watch_s", "reverse_again_s"):
                if k not in got:
                    sys.exit("watch_hot: the session did not finish:\n" + text[-2000:])
                laps[k].append(got[k])
            got, text = gdb_session(slsdbg, rec, [f"break {src}:{after}", "continue", "python _lap('start')",
                                                  "watch hot", "reverse-continue", "python _lap('reverse_after_s')"],
                                    timeout=1800, env=env)
            if "reverse_after_s" not in got:
                sys.exit("watch_hot: the session did not finish:\n" + text[-2000:])
            laps["reverse_after_s"].append(got["reverse_after_s"])
        for k, v in laps.items():
            res[k] = round(statistics.median(v), 4)
            res[k + "_runs"] = [round(x, 4) for x in v]
        # The peer: GDB's own recording from main to mark's write.
        peer = ["gdb", "-nx", "-batch", "-ex", "set pagination off", "-ex", "break main", "-ex", "run", "-ex",
                "record full", "-ex", "set record full insn-number-max unlimited", "-ex", "watch mark", "-ex",
                "python import time; _t0 = time.monotonic()", "-ex", "continue", "-ex",
                "python print('PEER %.3f' % (time.monotonic() - _t0))", "--args", prog, str(a.iterations), str(at)]
        try:
            p = subprocess.run(peer, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               timeout=a.peer_timeout)
            lines = [l for l in p.stdout.splitlines() if l.startswith("PEER ")]
            res["gdb_record_full_s"] = float(lines[0].split()[1]) if lines else None
        except subprocess.TimeoutExpired:
            res["gdb_record_full_s"] = None
            res["gdb_record_full_note"] = f"did not reach mark's write within {a.peer_timeout} s"
    res["loadavg_after"] = loadavg()
    print(json.dumps(res, indent=2))


if __name__ == "__main__":
    main()
