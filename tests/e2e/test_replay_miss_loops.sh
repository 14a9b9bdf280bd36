#!/usr/bin/env bash
# #20 "every case also with the patch disabled": under SLSDBG_REPLAY_PATCH=miss
# each checkpoint in a hot loop is reached by a counting copy
# (checkpoint_arrival_counted.cc) that predicts the checkpoint's visit from
# values moving by a constant step, not by a #DB per visit. Four loops it
# could not predict before (each over 60 s, a #DB per iteration):
#   - rec_memloop: the counter is a double in memory (`d = d + 1.0`): its
#     bits move linearly only within one power of two; read as a double it
#     moves by 1.0 (also: the pages the segment dirtied are sampled, not
#     only the stack);
#   - nocfi_loop: the checkpoint's `jmp` has no site of its own, only the
#     patch's relay through int3 padding (the count now plans the same site);
#   - rec_switchloop, a bytecode interpreter (mawk's shape): the checkpoint
#     is the dispatch pc, run several times per iteration of the program's
#     loop, so its counter moves at one visit in several (a period);
#   - rec_varstep: a position moving by data-dependent steps (below);
#   - rec_sigalrm: an inner loop whose counter restarts every outer
#     iteration (below);
#   - tight_loop with GDB's breakpoint on the line after the loop and a
#     checkpoint on the loop's jump: the count's site covered the int3, the
#     anchor before pc (as the patch takes) keeps clear of it.
# Checked: replay --check OK / GDB's value, checkpoints reached by count,
# and the perf breakpoints' #DBs (logged as each goes away) under a bound.
. "$(dirname "$0")/replay_gdb_lib.sh"
max_db=2000

db_total() { grep -Eo 'perf breakpoint at [^ ]*: [0-9]+ debug exceptions' "$1" | awk '{s += $5} END {print s + 0}'; }

check_miss() {  # check_miss NAME REC: replay --check under =miss
  local name=$1 rec=$2 log=$WORK/$1.check.log out start=$SECONDS
  out=$(SLSDBG_REPLAY_PATCH=miss SLSDBG_LOG=debug timeout 60 "$SLSDBG" replay "$rec" --check 2>"$log") ||
    { grep -E "not reached by count" "$log" | head -3; die "$name: replay --check under =miss failed or took over 60 s: $out"; }
  [[ "$out" == OK:* ]] || die "$name: replay --check: $out"
  local counted dbs
  counted=$(grep -c 'reached by count at visit' "$log")
  dbs=$(db_total "$log")
  [ "$counted" -ge 3 ] || { grep -E "not reached by count" "$log" | head -3; die "$name: only $counted checkpoints reached by count"; }
  [ "$dbs" -lt "$max_db" ] || die "$name: $dbs checkpoint #DBs (a debug exception per visit again?)"
  echo "$name: OK in $((SECONDS - start)) s ($counted checkpoints by count, $dbs #DBs)"
}

record "$WORK/memloop.rec" 10 "$PROGRAMS/rec_memloop" 3e7
check_miss memloop "$WORK/memloop.rec"

record "$WORK/nocfi.rec" 3 "$PROGRAMS/nocfi_loop" 100000000
check_miss nocfi "$WORK/nocfi.rec"

record "$WORK/switch.rec" 10 "$PROGRAMS/rec_switchloop" 5e7
check_miss switchloop "$WORK/switch.rec"

# rec_varstep: a scan whose position moves by 1 to 8 bytes as its data say
# (gzip's deflate loop): no constant step to predict, over 60 s before. The
# position only grows: the sample that finds it past the checkpoint's value
# brackets the visit, and new copies narrow it. Three recordings: in about
# one in eight the last tick lies so near the loop's end that the copy runs
# on to the next system call first (then the visits so far close the
# bracket; a #DB per visit before).
for try in 1 2 3; do
  record "$WORK/varstep.$try.rec" 10 "$PROGRAMS/rec_varstep" 400000000
  check_miss "varstep.$try" "$WORK/varstep.$try.rec"
done

# rec_sigalrm: each alarm's checkpoint lies in a 200,000-iteration inner
# loop that starts again every outer iteration (a run every ~0.4 ms, ~20
# per segment). Samples an eighth further on each time skipped runs, and
# the gcd of the misses came out two runs long: 1 recording in 5 took over
# 60 s. The runs' phase points now give the loop's length (LoopRuns) and a
# new copy stops once per run. Three recordings, as the checkpoints fall.
for try in 1 2 3; do
  record "$WORK/sigalrm.$try.rec" 10 "$PROGRAMS/rec_sigalrm"
  check_miss "sigalrm.$try" "$WORK/sigalrm.$try.rec"
  grep -Eq "an inner loop of 20000[0-9] visits" "$WORK/sigalrm.$try.check.log" ||
    { grep -E "inner loop|not reached by count" "$WORK/sigalrm.$try.check.log" | head -3; die "sigalrm.$try: the inner loop's length was not learnt"; }
done

# A checkpoint on tight_loop's conditional jump comes in about one recording
# in three at 1 ms ticks; GDB's breakpoint is on the next line.
src=$FIXTURE_SRC/tight_loop.c
after=$(line_of AFTER "$src")
after_addr=$(gdb -nx -batch -ex "info line tight_loop.c:$after" "$PROGRAMS/tight_loop" | sed -n 's/.*starts at address \(0x[0-9a-f]*\).*/\1/p')
[ -n "$after_addr" ] || die "tight_loop: no address for line $after"
pc="0x[0-9a-f]*$(printf '%03x' $(((after_addr - 2) & 0xfff)))"  # the jump before it; PIE: the page offset
for try in $(seq 8); do
  rec=$WORK/tight.$try.rec
  record "$rec" 1 "$PROGRAMS/tight_loop"
  out=$WORK/tight.$try.out
  start=$SECONDS
  SLSDBG_REPLAY_PATCH=miss SLSDBG_LOG=debug timeout 60 "$SLSDBG" replay "$rec" -- -nx -batch \
    -ex "break tight_loop.c:$after" -ex 'continue' -ex 'printf "I %ld\n", i' >"$out" 2>&1 </dev/null ||
    { grep -v '^slsdbg debug' "$out" | tail -5; die "tight_loop: replay under =miss failed or took over 60 s"; }
  expect "$out" '^I 10000000$' "tight_loop: continue to the line after the loop"
  if grep -Eq "at checkpoint [0-9]+'s pc $pc\$" "$out"; then
    grep -Eq "reached by count at visit [0-9]+ of $pc " "$out" ||
      { grep -E "count" "$out" | head -3; die "tight_loop: the checkpoint on the loop's jump was not reached by count"; }
    dbs=$(db_total "$out")
    [ "$dbs" -lt "$max_db" ] || die "tight_loop: $dbs checkpoint #DBs"
    echo "tight_loop: OK in $((SECONDS - start)) s (recording $try, $dbs #DBs)"
    echo "replay_miss_loops: OK"
    exit 0
  fi
done
die "tight_loop: no checkpoint landed on the loop's jump in 8 recordings at 1 ms ticks"
