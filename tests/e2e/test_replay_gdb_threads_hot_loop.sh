#!/usr/bin/env bash
# GDB on a hot loop in a threaded program (#20): go_hot.go (main's loop
# while goroutines spin on other threads, where Go is installed) and
# thr_hot_loop.c (a worker thread's loop while main waits in pthread_join).
# The threaded timeline counts breakpoint arrivals with counter stubs in
# the process (thread_counters.h) and steps back from a loop's previous
# iteration, so moves deep inside the loop finish in seconds (main's binary
# fails the Go case at its first reverse-step; a reverse-continue from the
# loop's end to its body trapped at each of ~10^7 iterations).
# At each stop the loop's variables (step = i, then total += 3 * i) are
# those of that moment:
# - break in the loop, continue x3 (i = 0, 1, 2), reverse-continue (i = 1),
#   reverse-step (the line before: step not yet set to 1);
# - from the loop's end (Go only, see below) (all 30,000,000 iterations), reverse-continue to
#   the loop's body: its last iteration; reverse-step twice (the previous
#   iteration's `for` line), continue: the last iteration again.
. "$(dirname "$0")/replay_gdb_lib.sh"
n=30000000
last_total=$((3 * (n - 1) * (n - 2) / 2))
end_total=$((3 * n * (n - 1) / 2))

# check NAME PROGRAM SOURCE VARIABLE-PREFIX DEEP: DEEP "deep" adds the moves
# from the loop's end.
check() {
  local name=$1 prog=$2 src=$3 var=$4 deep=$5 file rec out add step loop after args=()
  file=$(basename "$src")
  rec=$WORK/$name.rec
  "$SLSDBG" record -o "$rec" -- "$prog" >"$WORK/$name.out" 2>"$WORK/$name.err" </dev/null ||
    { cat "$WORK/$name.err"; die "recording $name"; }
  expect "$WORK/$name.out" "^$((n - 1)) $end_total" "$name: the recorded run's output"
  grep -q "the program ran [2-9] threads" "$WORK/$name.err" || die "$name ran no thread: $(cat "$WORK/$name.err")"
  add=$(line_of add "$src")
  step=$(line_of step "$src")
  loop=$(line_of loop "$src")
  after=$(line_of after "$src")
  ex() { args+=(-ex "$1"); }
  show() { ex "printf \"$1 step=%ld total=%ld\\n\", ${var}step, ${var}total"; }
  ex "break $file:$add"
  ex continue; show c1; ex continue; ex continue; show c3
  ex reverse-continue; show rc; ex reverse-step; show rs
  if [ "$deep" = deep ]; then
    ex delete; ex "break $file:$after"; ex continue; show end
    ex "break $file:$add"; ex reverse-continue; show rc_last
    ex reverse-step; show rs_last1; ex reverse-step; show rs_last2
    ex continue; show c_last
  fi
  out=$WORK/$name.gdb
  replay_gdb "$rec" "$out" "${args[@]}" </dev/null || { cat "$out"; die "$name: gdb on the recording"; }
  expect "$out" '^c1 step=0 total=0$' "$name: the first hit: i = 0"
  expect "$out" '^c3 step=2 total=3$' "$name: the third hit: i = 2"
  expect "$out" '^rc step=1 total=0$' "$name: reverse-continue: back to i = 1"
  expect "$out" "^$step[[:space:]]+step = i" "$name: reverse-step: the line before"
  expect "$out" '^rs step=0 total=0$' "$name: reverse-step: before step = 1"
  if [ "$deep" != deep ]; then echo "$name: OK"; return; fi
  expect "$out" "^end step=$((n - 1)) total=$end_total$" "$name: the loop's end"
  expect "$out" "^rc_last step=$((n - 1)) total=$last_total$" "$name: reverse-continue from the end: the last iteration"
  expect "$out" "^rs_last1 step=$((n - 2)) total=$last_total$" "$name: reverse-step: before step = n - 1"
  expect "$out" "^$loop[[:space:]]+for " "$name: reverse-step again: the previous iteration's for line"
  expect "$out" "^rs_last2 step=$((n - 2)) total=$last_total$" "$name: the previous iteration's end"
  expect "$out" "^c_last step=$((n - 1)) total=$last_total$" "$name: continue: the last iteration again"
  echo "$name: OK"
}

# Not deep in C: a forward continue through the -O0 loop can stop at a
# checkpoint whose patch would cover the breakpoint's int3 (then the perf
# breakpoint, throttled, misses it); see engine/replay/README.md.
check thr_hot_loop "$PROGRAMS/thr_hot_loop" "$FIXTURE_SRC/thr_hot_loop.c" "" shallow

. "$(dirname "$0")/go_fixture_lib.sh"
go_fixture go_hot "$WORK"
case $? in
  0) check go_hot "$WORK/gosrc/go_hot" "$WORK/gosrc/main.go" "main." deep ;;
  2) echo "go_hot: skipped (no Go toolchain)" ;;
  *) die "go build of go_hot.go" ;;
esac
echo "replay_gdb_threads_hot_loop: OK"
