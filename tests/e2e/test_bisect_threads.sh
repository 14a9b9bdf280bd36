#!/usr/bin/env bash
# `slsdbg bisect` on a recording made with `record --threads` (thr_watch: the
# main thread stores 1 into `shared`, a writer thread stores 2 then 3 with no
# system call between them): the search finds the segment, and refinement
# (the threaded replay with write watchpoints on `shared` in every thread)
# stops at the writer's store that makes the invariant false, reports its
# line and the writer's frame, and --show/--core see that state.
. "$(dirname "$0")/replay_gdb_lib.sh"
src=$FIXTURE_SRC/thr_watch.c
b2=$(line_of WATCH_B2 "$src"); b3=$(line_of WATCH_B3 "$src")
rec=$WORK/watch.rec
"$SLSDBG" record --threads -o "$rec" -- "$PROGRAMS/thr_watch" >"$WORK/record.out" 2>&1 </dev/null ||
  { cat "$WORK/record.out"; die "recording"; }
json() { "$PY" -c "import json,sys; j=json.load(open(sys.argv[1])); print($2)" "$1"; }

# shared < 3 first fails at the writer's second store.
"$SLSDBG" bisect "$rec" --expr 'shared < 3' --show shared --core "$WORK/answer.core" --json >"$WORK/r3.json" 2>"$WORK/r3.err" ||
  { cat "$WORK/r3.err" "$WORK/r3.json"; die "bisect shared < 3"; }
state=$(json "$WORK/r3.json" 'j["refinement"]["state"]')
[ "$state" = done ] || { cat "$WORK/r3.json"; die "refinement: $state"; }
[ "$(json "$WORK/r3.json" 'j["refined"]["line"]')" = "$b3" ] || { cat "$WORK/r3.json"; die "refined to the wrong line (want $b3)"; }
[ "$(json "$WORK/r3.json" 'j["refined"]["function"]')" = writer ] || { cat "$WORK/r3.json"; die "the write is not in writer"; }
[ "$(json "$WORK/r3.json" 'j["refined"]["at"]["function"]')" = writer ] || { cat "$WORK/r3.json"; die "the answer's thread is not the writer"; }
[ "$(json "$WORK/r3.json" 'j["refined"]["watch_hits"]')" = 2 ] || { cat "$WORK/r3.json"; die "want 2 watched writes (2 then 3)"; }
[ "$(json "$WORK/r3.json" 'j["shown"]["shared"]')" = 3 ] || { cat "$WORK/r3.json"; die "--show shared at the answer"; }
json "$WORK/r3.json" 'j["goto"]' | grep -q -- "--at $(json "$WORK/r3.json" 'j["last_good"]["checkpoint"]')$" ||
  { cat "$WORK/r3.json"; die "the goto command names the segment's checkpoint"; }
gdb -batch -nx -ex 'set debuginfod enabled off' "$PROGRAMS/thr_watch" "$WORK/answer.core" -ex 'bt 1' -ex 'info threads' \
  >"$WORK/core.out" 2>&1 </dev/null
expect "$WORK/core.out" '^#0 +writer \(arg=0x0\) at .*thr_watch\.c:' "the answer's core: the writer is its current thread"
n=$(grep -cE '^\*? +[0-9]+ +(Thread|LWP) ' "$WORK/core.out")
[ "$n" -eq 2 ] || { cat "$WORK/core.out"; die "the answer's core lists $n threads, want 2"; }

# shared < 2 first fails at its first store.
"$SLSDBG" bisect "$rec" --expr 'shared < 2' --json >"$WORK/r2.json" 2>"$WORK/r2.err" ||
  { cat "$WORK/r2.err" "$WORK/r2.json"; die "bisect shared < 2"; }
[ "$(json "$WORK/r2.json" 'j["refined"]["line"]')" = "$b2" ] || { cat "$WORK/r2.json"; die "shared < 2: refined to the wrong line (want $b2)"; }
echo "bisect_threads: OK"
