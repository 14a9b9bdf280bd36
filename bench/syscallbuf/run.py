#!/usr/bin/env python3
"""bench/syscallbuf: `record` with the syscall buffer (the default) side by
side with native and with `--no-syscall-buffer`.

usage: bench/syscallbuf/run.py BUILD_DIR [--runs 3] [--only NAME,...] > result.json

Cases: one million one-byte writes to /dev/null (bench/record/small_writes.c),
python3 reading the clock 200,000 times (time.time(), the vDSO's
clock_gettime, which the buffer's stub serves since stub version 3),
and Debian programs on a 4 MiB generated text (bench/realprogs's generator,
fixed seed): base64, mawk, sort, and find over /usr/include. Each run is
native, recorded with --no-syscall-buffer, recorded with --syscall-buffer, in turn; medians and
ratios are printed as JSON with the load average at start and end, and the
`syscall buffer: N syscalls buffered, M glibc sites patched` line of the
last run with the flag.
"""
import json, os, shutil, statistics, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "realprogs"))
from run import PYTHON3, alternate, make_text  # noqa: E402  (bench/realprogs/run.py)


def bench(slsdbg, cmd, runs, work):
    times = {"native": [], "off": [], "on": []}
    buffered = None
    for mode, dt, r in alternate(slsdbg, cmd, runs, work, {"native": None, "off": ["--no-syscall-buffer"], "on": ["--syscall-buffer"]}):
        if r.returncode != 0:
            return {"error": f"{mode}: exit {r.returncode}: {r.stderr.strip()[-300:]}"}
        times[mode].append(dt)
        for line in r.stderr.splitlines():
            if "syscall buffer:" in line:
                buffered = line.split("syscall buffer:", 1)[1].strip()
    med = {k: statistics.median(v) for k, v in times.items()}
    return {"native_s": round(med["native"], 4), "off_s": round(med["off"], 4), "on_s": round(med["on"], 4),
            "off_slowdown": round(med["off"] / med["native"], 2), "on_slowdown": round(med["on"] / med["native"], 2),
            "runs_s": {k: [round(x, 4) for x in v] for k, v in times.items()}, "buffer": buffered}


def main():
    args = sys.argv[1:]
    if not args or args[0].startswith("-"):
        raise SystemExit(__doc__)
    build = args[0]
    runs = int(args[args.index("--runs") + 1]) if "--runs" in args else 3
    only = args[args.index("--only") + 1].split(",") if "--only" in args else None
    slsdbg = os.path.join(build, "cli", "slsdbg")
    if not os.path.exists(slsdbg):
        slsdbg = os.path.join(build, "slsdbg")
    work = tempfile.mkdtemp(prefix="slsdbg-bench-syscallbuf.")
    try:
        writes = os.path.join(work, "small_writes")
        subprocess.run(["cc", "-O2", "-o", writes, os.path.join(HERE, "..", "record", "small_writes.c")], check=True)
        text = os.path.join(work, "text.txt")
        make_text(text, 4 << 20, 18)
        cases = [
            ("1M one-byte writes to /dev/null", [writes, "1000000"]),
            ("python3 clock reads", [PYTHON3, "-c", "import time\nfor _ in range(200000): time.time()"]),
            ("base64", ["base64", text]),
            ("mawk", ["mawk", "{ s += length($0); n[$2]++ } END { for (k in n) c++; print s, c }", text]),
            ("sort", ["sort", text]),
            ("find /usr/include", ["find", "/usr/include", "-name", "*.h"]),
        ]
        result = {"machine": os.uname().release, "nproc": os.cpu_count(), "runs": runs,
                  "loadavg_start": os.getloadavg(), "cases": {}}
        for name, cmd in cases:
            if only and name.split()[0] not in only:
                continue
            if not shutil.which(cmd[0]):
                result["cases"][name] = {"error": f"{cmd[0]} not installed"}
                continue
            result["cases"][name] = bench(slsdbg, cmd, runs, work)
            print(name, result["cases"][name].get("on_slowdown"), file=sys.stderr)
        result["loadavg_end"] = os.getloadavg()
        print(json.dumps(result, indent=2))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
