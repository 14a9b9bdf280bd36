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
# - from the loop's end (all 30,000,000 iterations), reverse-continue to
#   the loop's body: its last iteration; reverse-step twice (the previous
#   iteration's `for` line), continue: the last iteration again. In the C
#   fixture (-O0) the breakpoint's line starts with a 4-byte load and no
#   padding is near: its counter stub moves several instructions, and GDB's
#   1-byte breakpoints in ld.so and libc stay int3s beside it (before, the
#   reverse-continue trapped at each of the 3*10^7 visits, ~45 s, the
#   reverse-step over a minute). A checkpoint whose worker stands among the
#   instructions that stub moves (about one recording in 8) has the worker
#   resume at their copy in the stub (before, the reverse step there
#   single-stepped from the resume: minutes).
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

check thr_hot_loop "$PROGRAMS/thr_hot_loop" "$FIXTURE_SRC/thr_hot_loop.c" "" deep

# Breakpoints by stub and by int3 in one collection (C): from two `next`s
# past the loop's end (a moment named by steps), breakpoints on the loop's
# `total +=` line (a counter stub over several instructions) and on the
# function's closing line (`pop %rbp` before `ret`: no stub fits, an int3).
# reverse-continue stops at the closing line, which ran after the loop's
# last iteration, then at that iteration. (Before: the collection went back
# to int3s for both, ~20 s of traps for each reverse-continue.)
src=$FIXTURE_SRC/thr_hot_loop.c
close=$(( $(line_of after "$src") + 1 ))
out=$WORK/mixed.gdb
replay_gdb "$WORK/thr_hot_loop.rec" "$out" -ex "break thr_hot_loop.c:$(line_of after "$src")" -ex continue -ex delete \
  -ex next -ex next -ex "break thr_hot_loop.c:$(line_of add "$src")" -ex "break thr_hot_loop.c:$close" \
  -ex reverse-continue -ex 'python print("m1 line", gdb.selected_frame().find_sal().line)' \
  -ex 'printf "m1 step=%ld\n", step' \
  -ex reverse-continue -ex 'python print("m2 line", gdb.selected_frame().find_sal().line)' \
  -ex 'printf "m2 step=%ld total=%ld\n", step, total' </dev/null || { cat "$out"; die "mixed: gdb on the recording"; }
expect "$out" "^m1 line $close$" "mixed: reverse-continue: the closing line, after the loop"
expect "$out" "^m1 step=$((n - 1))$" "mixed: the loop had ended"
expect "$out" "^m2 line $(line_of add "$src")$" "mixed: reverse-continue again: the loop's line"
expect "$out" "^m2 step=$((n - 1)) total=$last_total$" "mixed: its last iteration"
echo "thr_hot_loop mixed: OK"

. "$(dirname "$0")/go_fixture_lib.sh"
go_fixture go_hot "$WORK"
case $? in
  0) check go_hot "$WORK/gosrc/go_hot" "$WORK/gosrc/main.go" "main." deep ;;
  2) echo "go_hot: skipped (no Go toolchain)" ;;
  *) die "go build of go_hot.go" ;;
esac
echo "replay_gdb_threads_hot_loop: OK"
