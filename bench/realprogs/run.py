#!/usr/bin/env python3
"""bench/realprogs: real programs from Debian's packages, native vs recorded.

usage: bench/realprogs/run.py BUILD_DIR [--runs 3] [--quick] [--only NAME,...] [--one-cpu] > result.json

Each program runs natively and under `slsdbg record` (default mode: the
syscall buffer on; --record-args "--no-syscall-buffer" for the stops per
syscall), alternating (native,
recorded, native, ...), RUNS times; the median of each and their ratio are
printed as JSON, with the torn deferred ticks `record` reported. Inputs are
generated here from a fixed seed, so every run sees the same bytes; they are
sized so that most natives run >= 0.1 s (`find` over /usr/include and `grep`
cannot be made that long and are reported apart). --quick shrinks inputs 8x.
A program the recorder refuses (e.g. one that starts a thread: zstd, even
with -T1, calls clone3) or whose exit status differs is reported with the
recorder's last words, not timed.

The recorder pins the program to one CPU (one thread runs at a time), so a
program that uses both CPUs natively (GNU sort's merge, a compressor's
worker) starts behind. Each native's user+sys (`native_cpu_s`) says how
much it overlapped; --one-cpu also times the native under `taskset -c 0`
(`native_1cpu_s`, `slowdown_vs_1cpu`): the recorder's own cost apart from
the lost parallelism. The goals (#18) are against the plain native.
"""
import json, math, os, resource, random, shutil, statistics, subprocess, sys, tempfile, time

WORDS = ("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho "
         "sigma tau upsilon phi chi psi omega record replay checkpoint segment tick page dirty").split()


def make_text(path, size, seed):
    # Word salad with numbers: compressible like source text, not trivially.
    rng = random.Random(seed)
    with open(path, "w") as f:
        n = 0
        while n < size:
            line = " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 12)))
            line = f"{rng.randint(0, 99999)} {line} {rng.random():.6f}\n"
            f.write(line)
            n += len(line)


# Debian's interpreter, not whatever `python3` is first on PATH: on a machine
# with pyenv that is a bash shim which runs pyenv (a dozen bash and readlink
# processes) before python3, and the bench then times the shim.
PYTHON3 = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else "python3"


def make_inputs(work, quick):
    """The programs' input files in WORK (an eighth of the size with --quick)."""
    s = 8 if quick else 1
    inp = {"text": os.path.join(work, "text.txt"), "small": os.path.join(work, "small.txt")}
    make_text(inp["text"], (16 << 20) // s, 18)
    make_text(inp["small"], (2 << 20) // s, 19)
    return inp


def cases(inp, quick):
    s = 8 if quick else 1
    t = inp["text"]
    py = ("import hashlib,json\n"
          "d={}\n"
          f"for i in range({400000 // s}):\n"
          " k=str(i*7919%100003); d[k]=hashlib.sha1(k.encode()).hexdigest()\n"
          "print(len(json.dumps(sorted(d.items()))))")
    return [
        ("xz -T1", ["xz", "-T1", "-6", "-c", inp["small"]]),
        ("gzip -9", ["gzip", "-9", "-c", t]),
        ("bzip2", ["bzip2", "-9", "-c", t]),
        ("zstd -T1", ["zstd", "-T1", "-19", "-q", "-c", inp["small"]]),
        ("sort", ["sort", t]),
        ("find /usr/include", ["find", "/usr/include", "-name", "*.h"]),
        ("mawk", ["mawk", "{ s += length($0); n[$2]++ } END { for (k in n) c++; print s, c }", t]),
        ("base64", ["base64", t]),
        ("grep", ["grep", "-c", "-E", "ta[uo] (pi|rho) [a-z]+a ", t]),
        ("python3 -c", [PYTHON3, "-c", py]),
        ("sed", ["sed", "-E", "s/([a-z]+) ([0-9]+)/\\2:\\1/g", t]),
    ]


def children_cpu():
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def run(cmd):
    c, t = children_cpu(), time.monotonic()
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    dt = time.monotonic() - t
    r.cpu_s = children_cpu() - c  # user+sys of the command and its descendants
    return dt, r


def torn(stderr):
    # "slsdbg: D of M deferred tick checkpoints dropped (...)" when any was.
    for line in stderr.splitlines():
        if "deferred tick checkpoints dropped" in line:
            w = line.split()
            return int(w[1]), int(w[3])
    return 0, None


def alternate(slsdbg, cmd, runs, work, modes, prefixes=None):
    """Runs `cmd` RUNS times in each of `modes` ({name: None for native, or
    the arguments of `slsdbg record`}), the modes in turn, and yields (name,
    seconds, completed process) as each run ends; `prefixes` ({name: argv})
    go before a native's command (taskset). Also bench/syscallbuf's."""
    for _ in range(runs):
        for mode, record_args in modes.items():
            rec = os.path.join(work, "rec")
            native = (prefixes or {}).get(mode, []) + cmd
            full = native if record_args is None else [slsdbg, "record", *record_args, "-o", rec, "--"] + cmd
            dt, r = run(full)
            shutil.rmtree(rec, ignore_errors=True)
            yield mode, dt, r


def bench(slsdbg, name, cmd, runs, work, record_args, one_cpu=False):
    native, native_cpu, native_1cpu, recorded, recorded_cpu, torn_runs = [], [], [], [], [], []
    native_rc = None
    modes = {"native": None, "recorded": record_args}
    if one_cpu:
        modes["native_1cpu"] = None
    for mode, dt, r in alternate(slsdbg, cmd, runs, work, modes, {"native_1cpu": ["taskset", "-c", "0"]}):
        if mode == "native_1cpu":
            native_1cpu.append(dt)
            continue
        if mode == "native":
            if r.returncode not in (0, 1):  # grep -c exits 1 on no match
                return {"error": f"native exit {r.returncode}: {r.stderr.strip()[-300:]}"}
            native.append(dt)
            native_cpu.append(r.cpu_s)
            native_rc = r.returncode
            continue
        if r.returncode != native_rc or "refus" in r.stderr or "not supported" in r.stderr:
            return {"refused": r.stderr.strip()[-300:], "native_s": round(statistics.median(native), 4)}
        recorded.append(dt)
        recorded_cpu.append(r.cpu_s)
        torn_runs.append(torn(r.stderr)[0])
    n, rc = statistics.median(native), statistics.median(recorded)
    return {"native_s": round(n, 4), "recorded_s": round(rc, 4), "slowdown": round(rc / n, 3),
            "native_runs_s": [round(x, 4) for x in native], "recorded_runs_s": [round(x, 4) for x in recorded],
            "torn_ticks_per_run": torn_runs, "native_cpu_s": round(statistics.median(native_cpu), 4),
            "recorded_cpu_s": round(statistics.median(recorded_cpu), 4),
            **({"native_1cpu_s": round(statistics.median(native_1cpu), 4),
                "slowdown_vs_1cpu": round(rc / statistics.median(native_1cpu), 3)} if native_1cpu else {})}


def each_program(doc, prefix, measure, extra=None):
    """The shared main of the per-program probes (where.py, patch_cover.py):
    BUILD_DIR [--quick] [--only NAME,...]; measure(slsdbg, cmd, work) for
    each of this bench's programs that is installed; JSON on stdout."""
    args = sys.argv[1:]
    if not args or args[0].startswith("-"):
        raise SystemExit(doc)
    build = args[0]
    only = args[args.index("--only") + 1].split(",") if "--only" in args else None
    quick = "--quick" in args
    slsdbg = os.path.join(build, "cli", "slsdbg")
    if not os.path.exists(slsdbg):
        slsdbg = os.path.join(build, "slsdbg")
    work = tempfile.mkdtemp(prefix=prefix)
    try:
        inp = make_inputs(work, quick)
        result = {"loadavg_start": os.getloadavg()[0], **(extra or {}), "programs": {}}
        for name, cmd in cases(inp, quick):
            if only and name.split()[0] not in only:
                continue
            if not shutil.which(cmd[0]):
                continue
            result["programs"][name] = measure(slsdbg, cmd, work)
            print(name, result["programs"][name], file=sys.stderr)
        result["loadavg_end"] = os.getloadavg()[0]
        print(json.dumps(result, indent=2))
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main():
    args = sys.argv[1:]
    if not args or args[0].startswith("-"):
        raise SystemExit(__doc__)
    build = args[0]
    runs = int(args[args.index("--runs") + 1]) if "--runs" in args else 3
    only = args[args.index("--only") + 1].split(",") if "--only" in args else None
    record_args = args[args.index("--record-args") + 1].split() if "--record-args" in args else []
    quick = "--quick" in args
    one_cpu = "--one-cpu" in args
    slsdbg = os.path.join(build, "cli", "slsdbg")
    if not os.path.exists(slsdbg):
        slsdbg = os.path.join(build, "slsdbg")
    work = tempfile.mkdtemp(prefix="slsdbg-bench-realprogs.")
    try:
        inp = make_inputs(work, quick)
        result = {"machine": os.uname().release, "nproc": os.cpu_count(), "runs": runs, "quick": quick,
                  "record_args": record_args, "loadavg_start": os.getloadavg()[0], "programs": {}}
        for name, cmd in cases(inp, quick):
            if only and name.split()[0] not in only:
                continue
            if not shutil.which(cmd[0]):
                result["programs"][name] = {"error": f"{cmd[0]} not installed"}
                continue
            result["programs"][name] = dict(command=cmd[:1] + [a.replace(work, "$WORK") for a in cmd[1:]],
                                            **bench(slsdbg, name, cmd, runs, work, record_args, one_cpu))
            print(name, result["programs"][name].get("slowdown"), file=sys.stderr)
        timed = [p for p in result["programs"].values() if "slowdown" in p]
        long = [p["slowdown"] for p in timed if p["native_s"] >= 0.1]
        if long:
            result["natives_ge_0.1s"] = {"n": len(long), "geomean": round(math.exp(sum(map(math.log, long)) / len(long)), 3),
                                         "worst": max(long)}
        result["loadavg_end"] = os.getloadavg()[0]
        print(json.dumps(result, indent=2))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
