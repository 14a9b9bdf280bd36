#!/usr/bin/env bash
# GDB on a Go program (#20): a hot loop in main while goroutines spin on
# other threads (go_hot.go). The threaded timeline counts breakpoint
# arrivals with counter stubs in the process (thread_counters.h) and steps
# back from a loop's previous iteration, so moves deep inside the loop
# finish in seconds (main: a reverse-continue from the loop's end to its
# body trapped at each of ~10^7 iterations and did not finish in 10 min).
# At each stop the loop's package variables (step = i, then total +=
# 3 * i) are those of that moment:
# - break in the loop, continue x3 (i = 0, 1, 2), reverse-continue (i = 1),
#   reverse-step (the line before: step not yet set to 1);
# - from the loop's end (all 30,000,000 iterations), reverse-continue to
#   the loop's body: its last iteration; reverse-step twice (the previous
#   iteration's `for` line), continue: the last iteration again.
# Where Go is not installed (CI's Debian) the test prints "skipped".
. "$(dirname "$0")/replay_gdb_lib.sh"
go=$(command -v go || echo /usr/local/go/bin/go)
if [ ! -x "$go" ]; then
  echo "replay_gdb_threads_go: skipped (no Go toolchain)"
  exit 0
fi
src=$FIXTURE_SRC/go_hot.go
mkdir -p "$WORK/gosrc"
cp "$src" "$WORK/gosrc/main.go"
printf 'module go_hot\ngo 1.21\n' >"$WORK/gosrc/go.mod"
(cd "$WORK/gosrc" && GOCACHE=${GOCACHE:-$SLSDBG_BUILD_DIR/gocache} GOFLAGS=-buildvcs=false "$go" build -o go_hot .) ||
  die "go build of go_hot.go"
prog=$WORK/gosrc/go_hot
n=30000000
last_total=$((3 * (n - 1) * (n - 2) / 2))
end_total=$((3 * n * (n - 1) / 2))

rec=$WORK/go.rec
"$SLSDBG" record -o "$rec" -- "$prog" >"$WORK/record.out" 2>"$WORK/record.err" </dev/null ||
  { cat "$WORK/record.err"; die "recording go_hot"; }
expect "$WORK/record.out" "^$((n - 1)) $end_total " "the recorded run's output"
grep -q "the program ran [2-9] threads" "$WORK/record.err" || die "go_hot ran no thread: $(cat "$WORK/record.err")"

add=$(line_of add "$src")
step=$(line_of step "$src")
loop=$(line_of loop "$src")
after=$(line_of after "$src")
args=()
ex() { args+=(-ex "$1"); }
show() { ex "printf \"$1 step=%ld total=%ld\\n\", main.step, main.total"; }
ex "break main.go:$add"
ex continue; show c1; ex continue; ex continue; show c3
ex reverse-continue; show rc; ex reverse-step; show rs
ex delete; ex "break main.go:$after"; ex continue; show end
ex "break main.go:$add"; ex reverse-continue; show rc_last
ex reverse-step; show rs_last1; ex reverse-step; show rs_last2
ex continue; show c_last
out=$WORK/gdb.out
replay_gdb "$rec" "$out" "${args[@]}" </dev/null || { cat "$out"; die "gdb on the Go recording"; }
expect "$out" '^c1 step=0 total=0$' "the first hit: i = 0"
expect "$out" '^c3 step=2 total=3$' "the third hit: i = 2"
expect "$out" '^rc step=1 total=0$' "reverse-continue: back to i = 1"
expect "$out" "^$step[[:space:]]+step = i" "reverse-step: the line before"
expect "$out" '^rs step=0 total=0$' "reverse-step: before step = 1"
expect "$out" "^end step=$((n - 1)) total=$end_total$" "the loop's end"
expect "$out" "^rc_last step=$((n - 1)) total=$last_total$" "reverse-continue from the end: the last iteration"
expect "$out" "^rs_last1 step=$((n - 2)) total=$last_total$" "reverse-step: before step = n - 1"
expect "$out" "^$loop[[:space:]]+for i := 0" "reverse-step again: the previous iteration's for line"
expect "$out" "^rs_last2 step=$((n - 2)) total=$last_total$" "the previous iteration's end"
expect "$out" "^c_last step=$((n - 1)) total=$last_total$" "continue: the last iteration again"
echo "replay_gdb_threads_go: OK"
