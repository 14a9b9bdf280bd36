#!/usr/bin/env python3
"""Prints what `replay --check` must say about a recording's checkpoint
boundaries: "E boundaries crossed by execution, R by restore", where R counts
the checkpoints replay cannot reach by execution (reason "forced": after an
unmodelled syscall or the syscall buffer's first patch; "exec") and E the
rest after checkpoint 0. With --max-restores N it fails (exit 1) when R is
larger: a test of the unbuffered path allows 0, one with the buffer 1 (its
patch). Usage: boundaries.py REC [--max-restores N]"""
import json
import os
import subprocess
import sys

rec = sys.argv[1]
limit = int(sys.argv[3]) if len(sys.argv) > 3 and sys.argv[2] == "--max-restores" else None
slsdbg = os.environ["SLSDBG"]
cps = json.loads(subprocess.run([slsdbg, "info", rec, "--json"], check=True, capture_output=True).stdout)["checkpoints"]
restores = sum(1 for c in cps[1:] if c["reason"] in ("forced", "exec"))
if limit is not None and restores > limit:
    sys.exit(f"{restores} checkpoints crossed by restore ({[c['reason'] for c in cps]}), want at most {limit}")
print(f"{len(cps) - 1 - restores} boundaries crossed by execution, {restores} by restore")
