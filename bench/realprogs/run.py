#!/usr/bin/env python3
"""bench/realprogs: real programs from Debian's packages, native vs recorded.

usage: bench/realprogs/run.py BUILD_DIR [--runs 3] [--quick] [--only NAME,...] > result.json

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
"""
import json, math, os, random, shutil, statistics, subprocess, sys, tempfile, time

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


def run(cmd):
    t = time.monotonic()
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    return time.monotonic() - t, r


def torn(stderr):
    # "slsdbg: D of M deferred tick checkpoints dropped (...)" when any was.
    for line in stderr.splitlines():
        if "deferred tick checkpoints dropped" in line:
            w = line.split()
            return int(w[1]), int(w[3])
    return 0, None


def alternate(slsdbg, cmd, runs, work, modes):
    """Runs `cmd` RUNS times in each of `modes` ({name: None for native, or
    the arguments of `slsdbg record`}), the modes in turn, and yields (name,
    seconds, completed process) as each run ends. Also bench/syscallbuf's."""
    for _ in range(runs):
        for mode, record_args in modes.items():
            rec = os.path.join(work, "rec")
            full = cmd if record_args is None else [slsdbg, "record", *record_args, "-o", rec, "--"] + cmd
            dt, r = run(full)
            shutil.rmtree(rec, ignore_errors=True)
            yield mode, dt, r


def bench(slsdbg, name, cmd, runs, work, record_args):
    native, recorded, torn_runs = [], [], []
    native_rc = None
    for mode, dt, r in alternate(slsdbg, cmd, runs, work, {"native": None, "recorded": record_args}):
        if mode == "native":
            if r.returncode not in (0, 1):  # grep -c exits 1 on no match
                return {"error": f"native exit {r.returncode}: {r.stderr.strip()[-300:]}"}
            native.append(dt)
            native_rc = r.returncode
            continue
        if r.returncode != native_rc or "refus" in r.stderr or "not supported" in r.stderr:
            return {"refused": r.stderr.strip()[-300:], "native_s": round(statistics.median(native), 4)}
        recorded.append(dt)
        torn_runs.append(torn(r.stderr)[0])
    n, rc = statistics.median(native), statistics.median(recorded)
    return {"native_s": round(n, 4), "recorded_s": round(rc, 4), "slowdown": round(rc / n, 3),
            "native_runs_s": [round(x, 4) for x in native], "recorded_runs_s": [round(x, 4) for x in recorded],
            "torn_ticks_per_run": torn_runs}


def main():
    args = sys.argv[1:]
    if not args or args[0].startswith("-"):
        raise SystemExit(__doc__)
    build = args[0]
    runs = int(args[args.index("--runs") + 1]) if "--runs" in args else 3
    only = args[args.index("--only") + 1].split(",") if "--only" in args else None
    record_args = args[args.index("--record-args") + 1].split() if "--record-args" in args else []
    quick = "--quick" in args
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
                                            **bench(slsdbg, name, cmd, runs, work, record_args))
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
