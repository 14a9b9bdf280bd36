#!/usr/bin/env bash
# GDB's reverse moves onto a function called at every iteration of a
# worker thread's hot loop (#20): thr_call_loop, 6*10^6 calls of bump(i),
# whose -O0 entry is a 1-byte `push %rbp`. The threaded timeline counts the
# arrivals at a client's breakpoint there in-process (a counter stub whose
# jump covers the instructions after it, thread_counters.h) beside int3s
# for what no stub can count (GDB's solib breakpoint, a 1-byte `ret`), and
# from a position single-stepped after such an arrival. On main every
# reverse-continue below trapped at each call (no result in 60 s):
# - from the loop's end, `break *bump`, reverse-continue twice: the last
#   two calls (rdi = N-1, then N-2; `last` still the call before's);
# - continue: the last call again;
# - stepi 4 into it, delete, reverse-finish: the call line in hot, i = N-1.
. "$(dirname "$0")/replay_gdb_lib.sh"
n=6000000
src=$FIXTURE_SRC/thr_call_loop.c
rec=$WORK/call.rec
"$SLSDBG" record -o "$rec" -- "$PROGRAMS/thr_call_loop" $n >"$WORK/out" 2>"$WORK/err" </dev/null ||
  { cat "$WORK/err"; die "recording thr_call_loop"; }
expect "$WORK/out" "^$((n - 1)) $((n * (n - 1) / 2)) " "the recorded run's output"
after=$(line_of after "$src")
call=$(line_of call "$src")
out=$WORK/gdb
replay_gdb "$rec" "$out" -ex "break thr_call_loop.c:$after" -ex continue -ex 'printf "end last=%ld\n", last' \
  -ex 'break *bump' -ex reverse-continue -ex 'printf "rc1 rdi=%ld last=%ld\n", $rdi, last' \
  -ex reverse-continue -ex 'printf "rc2 rdi=%ld last=%ld\n", $rdi, last' \
  -ex continue -ex 'printf "c rdi=%ld last=%ld\n", $rdi, last' \
  -ex 'stepi 4' -ex delete -ex reverse-finish -ex 'printf "rf i=%ld last=%ld\n", i, last' </dev/null
expect "$out" "^end last=$((n - 1))$" "the loop's end"
expect "$out" "^rc1 rdi=$((n - 1)) last=$((n - 2))$" "reverse-continue: the last call"
expect "$out" "^rc2 rdi=$((n - 2)) last=$((n - 3))$" "reverse-continue again: the call before"
expect "$out" "^c rdi=$((n - 1)) last=$((n - 2))$" "continue: the last call again"
expect "$out" "^$call[[:space:]]+bump\(i\);" "reverse-finish: the call's line"
expect "$out" "^rf i=$((n - 1)) last=$((n - 2))$" "reverse-finish: before the last call"
echo "replay_gdb_threads_call_loop: OK"
