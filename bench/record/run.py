#!/usr/bin/env python3
"""bench/record: recorder overhead, native side by side, median of 5.

usage: bench/record/run.py BUILD_DIR [--runs 5] [--quick] > result.json

(a) CPU-bound slowdown; (b) 4 MiB dirtied per 10 ms in a 1 GiB heap:
slowdown and checkpoint stop p50/p99 (from `slsdbg info --json`);
(c) one million 1-byte writes to /dev/null: slowdown; (d) peers: GDB
`record full` on (a) with a small iteration count (instructions/s), and CRIU
(`criu check` first; Debian's 3.17 does not start on this kernel).
"""
import json, os, shutil, statistics, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))


def sh(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def timed(cmd):
    t = time.monotonic()
    r = sh(cmd)
    dt = time.monotonic() - t
    if r.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({r.returncode}): {r.stderr.strip()[-500:]}")
    return dt


def compile_programs(out):
    bins = {}
    for name in ("cpu_bound", "dirty_heap", "small_writes"):
        b = os.path.join(out, name)
        subprocess.run(["cc", "-O2", "-g", "-o", b, os.path.join(HERE, name + ".c")], check=True)
        bins[name] = b
    return bins


def side_by_side(slsdbg, prog_args, runs, workdir, want_info=False):
    native, recorded, infos = [], [], []
    for i in range(runs):
        native.append(timed(prog_args))
        rec = os.path.join(workdir, f"rec{i}")
        recorded.append(timed([slsdbg, "record", "-o", rec, "--"] + prog_args))
        if want_info:
            infos.append(json.loads(sh([slsdbg, "info", rec, "--json"]).stdout))
        shutil.rmtree(rec, ignore_errors=True)
    n, r = statistics.median(native), statistics.median(recorded)
    out = {"native_s": round(n, 4), "recorded_s": round(r, 4), "slowdown": round(r / n, 3),
           "native_runs_s": [round(x, 4) for x in native], "recorded_runs_s": [round(x, 4) for x in recorded]}
    return out, infos


def stop_stats(infos):
    # Steady-state stops: skip checkpoint 0 (the initial full copy of 1 GiB).
    stops = sorted(c["stop_us"] for j in infos for c in j["checkpoints"][1:])
    if not stops:
        return {}
    pick = lambda p: stops[min(len(stops) - 1, int(p / 100 * (len(stops) - 1) + 0.5))]
    first = [j["checkpoints"][0]["stop_us"] for j in infos]
    dirty = [c["dirty_pages"] for j in infos for c in j["checkpoints"][1:-1]]
    return {"stop_p50_us": pick(50), "stop_p99_us": pick(99), "stop_max_us": stops[-1],
            "checkpoint0_stop_us_median": statistics.median(first),
            "checkpoints_per_run": statistics.median(len(j["checkpoints"]) for j in infos),
            "dirty_pages_per_checkpoint_median": statistics.median(dirty) if dirty else 0,
            "stretched_ticks_median": statistics.median(j["interval_stretch"]["stretched_ticks"] for j in infos),
            "tracker": infos[0]["tracker"]}


def calibrate_spin(dirty_heap):
    # Iterations of the inner compute loop that take ~10 ms natively.
    rounds, spin = 20, 2_000_000
    base = timed([dirty_heap, "0", "0"])
    t = timed([dirty_heap, str(rounds), str(spin)]) - base
    per_round = max(t / rounds, 1e-4)
    return int(spin * 0.010 / per_round)


def gdb_record_full(cpu_bound, iters):
    script = ["-batch", "-ex", "break main", "-ex", "run", "-ex", "record full",
              "-ex", "set record full insn-number-max unlimited", "-ex", "next 3",
              "-ex", "break printf", "-ex", "continue", "-ex", "info record"]
    t = time.monotonic()
    r = sh(["gdb", "-nx"] + script + ["--args", cpu_bound, str(iters)])
    dt = time.monotonic() - t
    insns = None
    for line in r.stdout.splitlines():
        if "Log contains" in line:
            insns = int(line.split("Log contains")[1].split()[0])
    return {"iterations": iters, "seconds": round(dt, 3), "instructions": insns,
            "instructions_per_s": round(insns / dt) if insns else None}


def criu_peer():
    if not shutil.which("criu"):
        return {"available": False, "reason": "criu not installed"}
    r = sh(["criu", "check"])
    if r.returncode != 0:
        return {"available": False, "reason": "criu check failed: " + (r.stderr or r.stdout).strip().splitlines()[-1],
                "published_figure": "Aurora paper table: CRIU 462 ms stop time for a 500 MB Redis"}
    return {"available": True, "note": "criu check passed; dump not measured by this script"}


def main():
    args = sys.argv[1:]
    if not args:
        raise SystemExit(__doc__)
    build = args[0]
    runs = int(args[args.index("--runs") + 1]) if "--runs" in args else 5
    quick = "--quick" in args
    slsdbg = os.path.join(build, "cli", "slsdbg")
    if not os.path.exists(slsdbg):
        slsdbg = os.path.join(build, "slsdbg")
    work = tempfile.mkdtemp(prefix="slsdbg-bench-record.")
    try:
        bins = compile_programs(work)
        result = {"machine": os.uname().release, "nproc": os.cpu_count(), "runs": runs}
        iters = "30000000" if quick else "300000000"
        result["a_cpu_bound"], _ = side_by_side(slsdbg, [bins["cpu_bound"], iters], runs, work)
        result["a_cpu_bound"]["iterations"] = int(iters)
        spin = calibrate_spin(bins["dirty_heap"])
        rounds = "20" if quick else "200"
        b, infos = side_by_side(slsdbg, [bins["dirty_heap"], rounds, str(spin)], runs, work, want_info=True)
        b.update({"rounds": int(rounds), "spin_iterations": spin}, **stop_stats(infos))
        result["b_dirty_4MiB_per_10ms_1GiB"] = b
        writes = "100000" if quick else "1000000"
        result["c_small_writes"], _ = side_by_side(slsdbg, [bins["small_writes"], writes], runs, work)
        result["c_small_writes"]["writes"] = int(writes)
        result["d_peers"] = {"gdb_record_full": gdb_record_full(bins["cpu_bound"], 2000 if quick else 20000),
                             "criu": criu_peer()}
        print(json.dumps(result, indent=2))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
