#!/usr/bin/env python3
"""bench/shared: processes that share MAP_SHARED memory, recorded vs native.

usage: bench/shared/run.py BUILD_DIR [--runs 5] > result.json

The fixture tests/programs/shared_counter (a parent and its forked child on
one shared page) in two shapes, median wall time of --runs alternating
native/recorded pairs:
- "mutex": ADDS increments each under a process-shared mutex (1 ping-pong
  round): the members give their turn up at each futex wait;
- "spin": ROUNDS ping-pong rounds on an atomic word, each side spinning
  until the other wrote: a spinning member waits for its tick to give its
  turn up, so each round costs about two ticks (recorder/record/shared_turn.h).
Load average is printed beside the numbers: the machine may be shared.
"""
import json, os, statistics, subprocess, sys, tempfile, time


def arg(name, default):
    return type(default)(sys.argv[sys.argv.index(name) + 1]) if name in sys.argv else default


def wall(cmd):
    t = time.monotonic()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.monotonic() - t


def main():
    build = sys.argv[1]
    runs = arg("--runs", 5)
    slsdbg = os.path.join(build, "cli", "slsdbg")
    prog = os.path.join(build, "tests", "programs", "shared_counter")
    cases = {"mutex": [prog, "1", "20000"], "spin": [prog, "20", "0"]}
    out = {"runs": runs, "load_before": os.getloadavg()[0], "cases": {}}
    with tempfile.TemporaryDirectory() as tmp:
        for name, cmd in cases.items():
            nat, rec = [], []
            for i in range(runs):
                nat.append(wall(cmd))
                d = os.path.join(tmp, f"{name}{i}")
                rec.append(wall([slsdbg, "record", "-o", d, "--"] + cmd))
                subprocess.run(["rm", "-rf", d], check=True)
            n, r = statistics.median(nat), statistics.median(rec)
            out["cases"][name] = {"cmd": " ".join(os.path.basename(c) if c == prog else c for c in cmd),
                                  "native_s": round(n, 4), "recorded_s": round(r, 4), "ratio": round(r / n, 2)}
    out["load_after"] = os.getloadavg()[0]
    json.dump(out, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
