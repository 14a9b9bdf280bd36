#!/usr/bin/env bash
# Cores of a recording made with `record --threads` (thr_gdb: the main
# thread and three workers): `slsdbg dump --at K` at a checkpoint holding all
# four threads writes one NT_PRSTATUS per thread; GDB on the core lists four
# threads whose LWPs are the recorded tids (`backtrace --json`), each with
# its own backtrace: three in `worker` with their own argument, one in `main`.
# `monitor dump` in a GDB session on the replay writes such a core of the
# position it stopped at.
. "$(dirname "$0")/replay_gdb_lib.sh"
rec=$WORK/thr.rec
"$SLSDBG" record --threads -o "$rec" -- "$PROGRAMS/thr_gdb" >"$WORK/record.out" 2>&1 </dev/null ||
  { cat "$WORK/record.out"; die "recording"; }
# A checkpoint in the middle of those holding four threads (the first ones
# are right after each clone3, where a new thread has no frames yet), and
# their tids.
read -r at tids < <("$SLSDBG" info "$rec" --json | "$PY" -c '
import json, subprocess, sys
n = len(json.load(sys.stdin)["checkpoints"])
full = []
for k in range(n):
    out = subprocess.run([sys.argv[1], "backtrace", sys.argv[2], "--at", str(k), "--json"], capture_output=True, text=True).stdout
    try: t = json.loads(out)["threads"]
    except Exception: continue
    if len(t) == 4: full.append((k, " ".join(sorted(str(x["tid"]) for x in t))))
if full: print(*full[len(full) // 2])' "$SLSDBG" "$rec") || die "finding a checkpoint with 4 threads"
[ -n "${tids:-}" ] || die "no checkpoint holds 4 threads"
echo "checkpoint $at holds threads $tids"

core=$WORK/thr.core
"$SLSDBG" dump "$rec" --at "$at" -o "$core" --quiet || die "dump --at $at"
n=$(readelf -n "$core" | grep -c 'NT_PRSTATUS')
[ "$n" -eq 4 ] || { readelf -n "$core"; die "$n NT_PRSTATUS notes, want 4"; }

out=$WORK/core.out
gdb -batch -nx -ex 'set debuginfod enabled off' -ex 'set pagination off' "$PROGRAMS/thr_gdb" "$core" \
  -ex 'info threads' -ex 'thread apply all bt' >"$out" 2>&1 </dev/null
n=$(grep -cE '^\*? +[0-9]+ +(Thread|LWP) ' "$out")
[ "$n" -eq 4 ] || { cat "$out"; die "gdb lists $n threads in the core, want 4"; }
lwps=$(grep -oE '^\*? +[0-9]+ +(Thread 0x[0-9a-f]+ \(LWP [0-9]+\)|LWP [0-9]+)' "$out" | grep -oE '[0-9]+\)?$' | tr -d ')' |
       sort | tr '\n' ' ')
[ "$lwps" = "$tids " ] || { cat "$out"; die "the core's LWPs '$lwps' are not the recorded tids '$tids '"; }
for w in 1 2 3; do
  expect "$out" "^#[0-9]+ .*worker \\(arg=0x$w\\) at .*thr_gdb\\.c:" "worker $w's backtrace"
done
expect "$out" '^#[0-9]+ .*main \(\) at .*thr_gdb\.c:' "the main thread's backtrace"

# `monitor dump` in the replay: a core of the position GDB stopped at (worker
# 1's first turn) holds every live thread with its registers there.
live=$WORK/live.core
replay_gdb "$rec" "$WORK/replay.out" -ex 'break take_turn' -ex 'continue' -ex "monitor dump $live"
expect "$WORK/replay.out" "^wrote $live \\([0-9]+ KiB, 4 threads, " "monitor dump's summary"
out=$WORK/live.out
gdb -batch -nx -ex 'set debuginfod enabled off' -ex 'set pagination off' "$PROGRAMS/thr_gdb" "$live" \
  -ex 'info threads' -ex 'thread apply all bt' >"$out" 2>&1 </dev/null
n=$(grep -cE '^\*? +[0-9]+ +(Thread|LWP) ' "$out")
[ "$n" -eq 4 ] || { cat "$out"; die "gdb lists $n threads in monitor dump's core, want 4"; }
expect "$out" '^#0 +take_turn \(worker=1, round=0\) at .*thr_gdb\.c:' "worker 1 at its breakpoint in the live core"
expect "$out" '^#[0-9]+ .*main \(\) at .*thr_gdb\.c:' "the main thread's backtrace in the live core"
echo "dump_threads: OK"
