#!/usr/bin/env python3
"""bench/realprogs/patch_cover.py: how each checkpoint of real programs is
reached at replay (issue #20: no #DB per visit of a pc). Records each
program of run.py once with 3 ms checkpoints, runs `replay --check` with
SLSDBG_LOG=debug and counts, from its log: boundaries crossed by execution,
reached by the patched breakpoint (relayed, anchored), the sites the
planner refused by reason (addresses dropped), the perf breakpoints armed
and their #DB exceptions. Each recording is deleted right after its check
(3 ms recordings of compressors take GBs of preallocated extents).

usage: bench/realprogs/patch_cover.py BUILD_DIR [--quick] [--only NAME,...] > cover.json
Counts, not times, are the point (the #DB count of a refused site varies
with where the tick landed, not with load).
"""
import os, re, shutil, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run  # noqa: E402  (the same programs and inputs)

OK = re.compile(r"OK: \d+ checkpoints, (\d+) boundaries crossed by execution.* (\d+) reached by patched breakpoint")
# The session's lines, then the threaded replay's (thread_reach.cc).
PATCHED = re.compile(r"checkpoint \d+: patched breakpoint at 0x[0-9a-f]+( \((jump at|relayed through))?"
                     r"|checkpoint \d+: thread \d+ armed at 0x[0-9a-f]+ \(patched breakpoint\)()")
REFUSED = re.compile(r"(?:checkpoint|thread) \d+: no patched breakpoint at 0x[0-9a-f]+: (.*)")
PERF = re.compile(r"perf breakpoint at 0x[0-9a-f]+: (\d+) debug exceptions")


def cover(slsdbg, cmd, work):
    rec = os.path.join(work, "rec")
    shutil.rmtree(rec, ignore_errors=True)
    r = subprocess.run([slsdbg, "record", "-o", rec, "--interval", "3", "--"] + cmd, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    out = {"record_exit": r.returncode}
    env = dict(os.environ, SLSDBG_LOG="debug")
    c = subprocess.run([slsdbg, "replay", rec, "--check"], capture_output=True, text=True, env=env, timeout=3600)
    shutil.rmtree(rec, ignore_errors=True)
    m = OK.search(c.stdout)
    out["check"] = "OK" if m else (c.stdout.strip().splitlines() or ["exit %d" % c.returncode])[0]
    out["by_execution"] = int(m.group(1)) if m else None
    out["reached_by_patch"] = int(m.group(2)) if m else None
    out.update({"patched": 0, "anchored": 0, "relayed": 0, "refused": {}, "perf_breakpoints": 0, "debug_exceptions": 0})
    for line in c.stderr.splitlines():
        if p := PATCHED.search(line):
            out["patched"] += 1
            out["anchored"] += p.group(2) == "jump at"
            out["relayed"] += p.group(2) == "relayed through"
        elif p := REFUSED.search(line):
            why = re.sub(r"0x[0-9a-f]+", "X", p.group(1))
            out["refused"][why] = out["refused"].get(why, 0) + 1
        elif p := PERF.search(line):
            out["perf_breakpoints"] += 1
            out["debug_exceptions"] += int(p.group(1))
    return out


def main():
    run.each_program(__doc__, "slsdbg-bench-cover.", cover, {"interval_ms": 3})


if __name__ == "__main__":
    main()
