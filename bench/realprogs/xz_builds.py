#!/usr/bin/env python3
"""bench/realprogs/xz_builds.py: xz recorded by two builds, side by side.

usage: bench/realprogs/xz_builds.py BUILD_A BUILD_B [--runs 3] > result.json

`xz -T1 -6 -c` on run.py's 2 MiB input (same generator and seed), natively
and under each build's `slsdbg record`, alternating, RUNS rounds. Per run:
wall time, CPU time (user + system of the recorder's threads and the
program: steadier than wall on a busy machine), the checkpoint count and
the adaptive interval `info --json` reports (null for a build without it).
"""
import json, os, shutil, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run import make_text  # noqa: E402


def timed(cmd):
    t = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"xz_builds: {' '.join(cmd)} failed")
    return round(time.monotonic() - t, 3), round(ru.ru_utime + ru.ru_stime, 3)


def main():
    args = sys.argv[1:]
    if len(args) < 2:
        sys.exit(__doc__.strip().splitlines()[2])
    builds = {os.path.abspath(b): os.path.join(os.path.abspath(b), "cli", "slsdbg") for b in args[:2]}
    runs = int(args[args.index("--runs") + 1]) if "--runs" in args else 3
    work = tempfile.mkdtemp(prefix="slsdbg-xz-builds.")
    try:
        inp = os.path.join(work, "small.txt")
        make_text(inp, 2 << 20, 19)
        cmd = ["xz", "-T1", "-6", "-c", inp]
        out = {"loadavg_start": os.getloadavg()[0], "native": [], "builds": {b: [] for b in builds}}
        for _ in range(runs):
            out["native"].append(timed(cmd))
            for build, slsdbg in builds.items():
                rec = os.path.join(work, "rec")
                shutil.rmtree(rec, ignore_errors=True)
                wall, cpu = timed([slsdbg, "record", "-o", rec, "--"] + cmd)
                info = json.loads(subprocess.run([slsdbg, "info", "--json", rec], capture_output=True, text=True).stdout)
                out["builds"][build].append({"wall_s": wall, "cpu_s": cpu, "checkpoints": len(info["checkpoints"]),
                                             "adaptive_interval": info.get("adaptive_interval")})
        out["loadavg_end"] = os.getloadavg()[0]
        print(json.dumps(out, indent=1))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
