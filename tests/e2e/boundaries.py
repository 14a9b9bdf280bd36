#!/usr/bin/env python3
"""Prints what `replay --check` must say about a recording's checkpoint
boundaries: "E boundaries crossed by execution, R by restore", where R counts
the checkpoints replay cannot reach by execution (reason "patch": the
syscall buffer patched libc's sites; "forced": after an unmodelled syscall;
"exec") and E the rest after checkpoint 0. With --max-forced N it fails
(exit 1, the reasons on stderr) when more than N are "forced" or "exec": a
test of a program without unmodelled calls passes 0, whether the buffer
patched or not. Usage: boundaries.py REC [--max-forced N]"""
import json
import os
import subprocess
import sys

rec = sys.argv[1]
limit = int(sys.argv[3]) if len(sys.argv) > 3 and sys.argv[2] == "--max-forced" else None
out = subprocess.run([os.environ["SLSDBG"], "info", rec, "--json"], check=True, capture_output=True).stdout
reasons = [c["reason"] for c in json.loads(out)["checkpoints"]]
forced = sum(1 for r in reasons[1:] if r in ("forced", "exec"))
restores = forced + sum(1 for r in reasons[1:] if r == "patch")
if limit is not None and forced > limit:
    sys.exit(f"{forced} forced or exec checkpoints ({reasons}), want at most {limit}")
print(f"{len(reasons) - 1 - restores} boundaries crossed by execution, {restores} by restore")
