#!/usr/bin/env python3
"""bench/fixedcost/ab.py: several recorders (or settings) on one program, in turn.

usage: bench/fixedcost/ab.py RUNS VARIANT... -- PROGRAM [ARGS...]
VARIANT is LABEL:ENV:SLSDBG, ENV a comma-separated list of NAME=VALUE (may be
empty), SLSDBG the slsdbg binary or `native` (PROGRAM run as is). Example:

  bench/fixedcost/ab.py 25 native::native main::../main/build/cli/slsdbg \\
      new::build/cli/slsdbg nocache:SLSDBG_CACHE_DIR=off:build/cli/slsdbg -- /bin/true

Each round runs every variant once, in order (a drifting machine load hits
them alike), recording into a fresh directory; the first round is dropped.
Prints the load average and, per variant, the median and minimum of CPU
(user + system of slsdbg's threads and the program) and of wall time.
"""
import os, shutil, statistics, subprocess, sys, tempfile, time


def main():
    if "--" not in sys.argv or len(sys.argv) < 4:
        sys.exit(__doc__.strip().splitlines()[2])
    runs = int(sys.argv[1])
    cut = sys.argv.index("--")
    variants, prog = sys.argv[2:cut], sys.argv[cut + 1:]
    work = tempfile.mkdtemp(prefix="slsdbg-ab-")
    res = {v: ([], []) for v in variants}
    try:
        for r in range(runs + 1):
            for v in variants:
                _, envs, exe = v.split(":", 2)
                env = dict(os.environ)
                for kv in filter(None, envs.split(",")):
                    k, val = kv.split("=", 1)
                    env[k] = val
                rec = os.path.join(work, "r.rec")
                shutil.rmtree(rec, ignore_errors=True)
                cmd = prog if exe == "native" else [exe, "record", "-o", rec, "--"] + prog
                t = time.monotonic()
                p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
                _, _, ru = os.wait4(p.pid, 0)
                wall = time.monotonic() - t
                if r:
                    res[v][0].append(ru.ru_utime + ru.ru_stime)
                    res[v][1].append(wall)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("load", " ".join(f"{x:.2f}" for x in os.getloadavg()))
    for v, (cpu, wall) in res.items():
        print(f"{v.split(':')[0]:14s} cpu median {statistics.median(cpu)*1e3:7.2f} min {min(cpu)*1e3:7.2f}"
              f"  wall median {statistics.median(wall)*1e3:8.2f} min {min(wall)*1e3:7.2f} ms")


if __name__ == "__main__":
    main()
