#!/usr/bin/env python3
"""bench/bisect: time to the answer of `slsdbg bisect` on a recording of the
bisect_bank fixture (planted bug at a fixed transfer), per mode, median of
RUNS, refined and at checkpoint level (--no-refine), side by side with the peer: the linear walk the demo does (a core of
every checkpoint, one GDB session evaluating the invariant on each).
Prints one JSON object. Not run by ctest.

    python3 bench/bisect/run.py [BUILD_DIR] [--transfers N] [--bug N] [--interval MS] [--runs R]
                                [--modes expr,plugin,cmd] [--no-peer]

The --cmd judge runs one GDB per probe and prints "transfer N" (its last line
is the probe's detail, so the refined answer names its transfer).
"""
import argparse, json, os, shutil, statistics, subprocess, sys, tempfile, time

p = argparse.ArgumentParser()
p.add_argument("build", nargs="?", default="build")
p.add_argument("--transfers", type=int, default=15_000_000)
p.add_argument("--bug", type=int, default=9_876_543)
p.add_argument("--interval", type=int, default=10)
p.add_argument("--runs", type=int, default=3)
p.add_argument("--modes", default="expr,plugin,cmd")
p.add_argument("--no-peer", action="store_true", help="skip the linear GDB walk")
a = p.parse_args()
build = os.path.abspath(a.build)
slsdbg = f"{build}/cli/slsdbg"
bank = f"{build}/tests/programs/bisect_bank"
plugin = f"{build}/plugins/examples/libslsdbg_bank_invariant.so"
EXPR = "bank.acct.checking + bank.acct.savings == total_expected"
work = tempfile.mkdtemp(prefix="slsdbg-bench-bisect.")
try:
    rec = f"{work}/rec"
    t0 = time.monotonic()
    subprocess.run([slsdbg, "record", "-o", rec, "--interval", str(a.interval), "--", bank, str(a.transfers), str(a.bug)],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    record_s = time.monotonic() - t0
    info = json.loads(subprocess.run([slsdbg, "info", rec, "--json"], capture_output=True, text=True, check=True).stdout)
    cps = info["checkpoints"]
    judge = f"{work}/judge.sh"
    with open(judge, "w") as f:
        f.write('#!/bin/sh\nout=$(gdb -batch -nx -ex "set debuginfod enabled off" "$SLSDBG_EXE" "$SLSDBG_CORE" '
                f'-ex "print {EXPR}" -ex "print current_transfer" 2>/dev/null)\n'
                'echo "transfer $(printf \'%s\\n\' "$out" | sed -n "s/^\\$2 = //p")"\n'
                '[ "$(printf \'%s\\n\' "$out" | sed -n "s/^\\$1 = //p")" = 1 ]\n')
    os.chmod(judge, 0o755)
    modes = {"expr": ["--expr", EXPR], "plugin": ["--plugin", plugin], "cmd": ["--cmd", judge]}
    modes = {m: modes[m] for m in a.modes.split(",")}
    result = {"fixture": "bisect_bank", "transfers": a.transfers, "bug_transfer": a.bug,
              "interval_ms": a.interval, "record_seconds": round(record_s, 3),
              "recording_seconds": cps[-1]["time_ns"] / 1e9, "checkpoints": len(cps), "runs": a.runs, "modes": {}}
    for name, args in modes.items():
        times, report = [], None
        for _ in range(a.runs):
            t = time.monotonic()
            out = subprocess.run([slsdbg, "bisect", rec, *args, "--json"], capture_output=True, text=True)
            times.append(time.monotonic() - t)
            report = json.loads(out.stdout)
        coarse = []
        for _ in range(a.runs):
            t = time.monotonic()
            subprocess.run([slsdbg, "bisect", rec, *args, "--no-refine", "--json"], capture_output=True, text=True)
            coarse.append(time.monotonic() - t)
        refined = report.get("refined", {})
        result["modes"][name] = {
            "seconds_median": round(statistics.median(times), 3), "seconds": [round(x, 3) for x in times],
            "checkpoint_level_seconds_median": round(statistics.median(coarse), 3),
            "probes": report["probes"], "first_bad": report.get("first_bad", {}).get("checkpoint"),
            "refinement": report["refinement"]["state"], "moment": report.get("moment"),
            "refined_line": refined.get("line"), "watch_stops": refined.get("watch_hits"),
            "refinement_evaluations": refined.get("evaluations"), "refined_detail": refined.get("detail")}
        if "discovery" in report:
            d = report["discovery"]
            result["modes"][name]["discovery"] = {"words": d["words"], "changed_words": d["changed_words"],
                                                  "probes": d["probes"], "seconds": round(d["seconds"], 3)}
    # Peer: the linear walk (dump every checkpoint, one GDB over all the cores).
    if not a.no_peer:
        t = time.monotonic()
        for c in cps:
            subprocess.run([slsdbg, "dump", rec, "--at", str(c["id"]), "-o", f"{work}/{c['id']}.core", "--quiet"], check=True)
        script = f"{work}/walk.gdb"
        with open(script, "w") as f:
            for c in cps:
                f.write(f"core-file {work}/{c['id']}.core\nprint {EXPR}\n")
        subprocess.run(["gdb", "-batch", "-nx", "-ex", "set debuginfod enabled off", bank, "-x", script],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        result["peer_linear_gdb_walk_seconds"] = round(time.monotonic() - t, 3)
    result["command"] = " ".join(["python3", "bench/bisect/run.py", a.build, "--transfers", str(a.transfers),
                                  "--bug", str(a.bug), "--interval", str(a.interval), "--runs", str(a.runs),
                                  "--modes", a.modes] + (["--no-peer"] if a.no_peer else []))
    json.dump(result, sys.stdout, indent=1)
    print()
finally:
    shutil.rmtree(work, ignore_errors=True)
