#!/usr/bin/env python3
"""bench/record: recorder overhead, native side by side, median of 5.

usage: bench/record/run.py BUILD_DIR [--runs 5] [--quick] [--only a,b] > result.json

(a) CPU-bound slowdown (and the same 10x longer); (b) 4 MiB dirtied per 10 ms in a 1 GiB heap:
slowdown and checkpoint stop p50/p99 (from `slsdbg info --json`), over all
checkpoints after checkpoint 0 and over the steady state after the program
touched its heap, with the default deferred copy and with `--copy in-stop`;
(c) one million 1-byte writes to /dev/null: slowdown; (d) peers: GDB
`record full` on (a) with a small iteration count (instructions/s), and CRIU
(`criu check` first; Debian's 3.17 does not start on this kernel).
--only runs the listed cases (a: both loops, b: both copies, c, d). (b)
reports the adaptive interval of each run (`info --json`), which it should
never stretch.
"""
import json, os, shutil, statistics, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))


def sh(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def run_timed(cmd):
    t = time.monotonic()
    r = sh(cmd)
    dt = time.monotonic() - t
    if r.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({r.returncode}): {r.stderr.strip()[-500:]}")
    return dt, r


def timed(cmd):
    return run_timed(cmd)[0]


def compile_programs(out):
    bins = {}
    for name in ("cpu_bound", "dirty_heap", "small_writes"):
        b = os.path.join(out, name)
        subprocess.run(["cc", "-O2", "-g", "-o", b, os.path.join(HERE, name + ".c")], check=True)
        bins[name] = b
    return bins


def record_timed(cmd):
    dt, r = run_timed(cmd)
    # "slsdbg: D of M deferred tick checkpoints dropped (...)" when any was.
    dropped, deferred = 0, None
    for line in r.stderr.splitlines():
        if "deferred tick checkpoints dropped" in line:
            words = line.split()
            dropped, deferred = int(words[1]), int(words[3])
    return dt, dropped, deferred


def side_by_side(slsdbg, prog_args, runs, workdir, want_info=False, record_args=()):
    native, recorded, infos, dropped = [], [], [], []
    for i in range(runs):
        native.append(timed(prog_args))
        rec = os.path.join(workdir, f"rec{i}")
        dt, d, _ = record_timed([slsdbg, "record", *record_args, "-o", rec, "--"] + prog_args)
        recorded.append(dt)
        dropped.append(d)
        if want_info:
            infos.append(json.loads(sh([slsdbg, "info", rec, "--json"]).stdout))
        shutil.rmtree(rec, ignore_errors=True)
    n, r = statistics.median(native), statistics.median(recorded)
    out = {"native_s": round(n, 4), "recorded_s": round(r, 4), "slowdown": round(r / n, 3),
           "native_runs_s": [round(x, 4) for x in native], "recorded_runs_s": [round(x, 4) for x in recorded],
           "record_args": list(record_args), "torn_ticks_dropped_per_run": dropped}
    return out, infos


def percentiles(stops):
    stops = sorted(stops)
    if not stops:
        return {}
    pick = lambda p: stops[min(len(stops) - 1, int(p / 100 * (len(stops) - 1) + 0.5))]
    return {"n": len(stops), "p50_us": pick(50), "p90_us": pick(90), "p99_us": pick(99), "max_us": stops[-1]}


def steady_checkpoints(j):
    # After dirty_heap's marker (64 getppid() calls after touching the heap):
    # the checkpoints after the last segment, before the exit's, with >= 20
    # events. Before it the program is touching 1 GiB, not dirtying 4 MiB/10 ms.
    cps = j["checkpoints"]
    marker = max((i for i, c in enumerate(cps[:-1]) if c["segment_events"] >= 20), default=0)
    return cps[marker + 1:-1]


def stop_stats(infos):
    # All stops but checkpoint 0's (the initial copy of the program's memory).
    stops = sorted(c["stop_us"] for j in infos for c in j["checkpoints"][1:])
    if not stops:
        return {}
    pick = lambda p: stops[min(len(stops) - 1, int(p / 100 * (len(stops) - 1) + 0.5))]
    first = [j["checkpoints"][0]["stop_us"] for j in infos]
    dirty = [c["dirty_pages"] for j in infos for c in j["checkpoints"][1:-1]]
    return {"stop_p50_us": pick(50), "stop_p99_us": pick(99), "stop_max_us": stops[-1],
            "steady_state_stops": percentiles([c["stop_us"] for j in infos for c in steady_checkpoints(j)]),
            "checkpoint0_stop_us_median": statistics.median(first),
            "checkpoints_per_run": statistics.median(len(j["checkpoints"]) for j in infos),
            "dirty_pages_per_checkpoint_median": statistics.median(dirty) if dirty else 0,
            "stretched_ticks_median": statistics.median(j["interval_stretch"]["stretched_ticks"] for j in infos),
            "tracker": infos[0]["tracker"]}


def calibrate_spin(cpu_bound):
    # Inner-loop iterations that take ~10 ms natively (same arithmetic as
    # cpu_bound's loop), best of 3 to dodge a busy machine.
    n = 50_000_000
    t = min(timed([cpu_bound, str(n)]) for _ in range(3))
    return int(n * 0.010 / t)


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
        return {"available": False, "reason": "criu not installed",
                "published_figure": "Aurora paper table: CRIU 462 ms stop time for a 500 MB Redis"}
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
    only = set(args[args.index("--only") + 1].split(",")) if "--only" in args else {"a", "b", "c", "d"}
    result_load = os.getloadavg()[0]
    slsdbg = os.path.join(build, "cli", "slsdbg")
    if not os.path.exists(slsdbg):
        slsdbg = os.path.join(build, "slsdbg")
    work = tempfile.mkdtemp(prefix="slsdbg-bench-record.")
    try:
        bins = compile_programs(work)
        result = {"machine": os.uname().release, "nproc": os.cpu_count(), "runs": runs, "loadavg_start": result_load}
        if "a" in only:
            iters = "30000000" if quick else "300000000"
            result["a_cpu_bound"], _ = side_by_side(slsdbg, [bins["cpu_bound"], iters], runs, work)
            result["a_cpu_bound"]["iterations"] = int(iters)
            # The same loop 10x longer: the recorder's fixed cost (~18 ms to start
            # and finish a recording) weighs 10x less, the per-tick cost the same.
            long_iters = str(int(iters) * 10)
            result["a_cpu_bound_10x_longer"], _ = side_by_side(slsdbg, [bins["cpu_bound"], long_iters], runs, work)
            result["a_cpu_bound_10x_longer"]["iterations"] = int(long_iters)
        if "b" in only:
            spin = calibrate_spin(bins["cpu_bound"])
            rounds = "20" if quick else "200"
            b, infos = side_by_side(slsdbg, [bins["dirty_heap"], rounds, str(spin)], runs, work, want_info=True)
            b.update({"rounds": int(rounds), "spin_iterations": spin}, **stop_stats(infos))
            b["adaptive_interval"] = [j.get("adaptive_interval") for j in infos]
            result["b_dirty_4MiB_per_10ms_1GiB"] = b
            # The same with every page copied inside the stop (`--copy in-stop`).
            b2, infos2 = side_by_side(slsdbg, [bins["dirty_heap"], rounds, str(spin)], runs, work, want_info=True,
                                      record_args=("--copy", "in-stop"))
            b2.update({"rounds": int(rounds), "spin_iterations": spin}, **stop_stats(infos2))
            result["b_in_stop_copy"] = b2
        if "c" in only:
            writes = "100000" if quick else "1000000"
            result["c_small_writes"], _ = side_by_side(slsdbg, [bins["small_writes"], writes], runs, work)
            result["c_small_writes"]["writes"] = int(writes)
        if "d" in only:
            result["d_peers"] = {"gdb_record_full": gdb_record_full(bins["cpu_bound"], 2000 if quick else 20000),
                                 "criu": criu_peer()}
        result["loadavg_end"] = os.getloadavg()[0]
        print(json.dumps(result, indent=2))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
