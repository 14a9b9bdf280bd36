#!/usr/bin/env bash
# Every thread waiting in the kernel (thr_nap: one thread in usleep(200 ms),
# the main thread in pthread_join): a tick then is taken when a call
# returns, as with one thread, not by cutting every call. Before, each tick
# cut the sleep, which started again from the full 200 ms: dozens of tick
# checkpoints of nothing and a sleep many times longer than asked. Checked
# by the count of tick checkpoints (at 10 ms ticks) and replay --check.
. "$(dirname "$0")/replay_gdb_lib.sh"
rec=$WORK/nap.rec
"$SLSDBG" record -o "$rec" --interval 10 -- "$PROGRAMS/thr_nap" >"$WORK/out.txt" 2>"$WORK/rec.err" || { cat "$WORK/rec.err"; die "recording thr_nap failed"; }
grep -q 'ran 2 threads' "$WORK/rec.err" || { cat "$WORK/rec.err"; die "thr_nap did not record as threaded"; }
expect "$WORK/out.txt" '^slept [0-9]+ ms$' "the program's own report"
"$SLSDBG" info "$rec" --json >"$WORK/info.json" || die "info --json failed"
ticks=$(python3 -c 'import json,sys; print(sum(1 for c in json.load(open(sys.argv[1]))["checkpoints"] if c["reason"] == "tick"))' "$WORK/info.json")
[ "$ticks" -le 4 ] || { cat "$WORK/out.txt"; die "$ticks tick checkpoints while every thread waited (each tick cut the sleep)"; }
"$SLSDBG" replay "$rec" --check >"$WORK/check.txt" 2>&1 || { cat "$WORK/check.txt"; die "replay --check failed"; }
expect "$WORK/check.txt" '^OK' "replay --check"
echo "record_threads_all_waiting: OK ($ticks tick checkpoints; $(cat "$WORK/out.txt"))"
