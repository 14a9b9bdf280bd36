# Shared by test_replay_gdb_*.sh and test_replay_lldb.sh (sourced, not a test):
# a work directory, recording a fixture, line numbers of marker comments, and
# output checks.
set -u
WORK=$(mktemp -d "${TMPDIR:-/tmp}/slsdbg-travel.XXXXXX")
export SLSDBG_DIR="$WORK/default-root"
bg_pids=()
cleanup() {
  for p in "${bg_pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
  rm -rf "$WORK"
}
trap cleanup EXIT
PY=$(command -v python3)
FIXTURE_SRC=$SLSDBG_SOURCE_DIR/tests/programs
command -v gdb >/dev/null || { echo "gdb is not installed (scripts/install-deps.sh installs it)"; exit 1; }

die() { echo "FAIL: $*"; exit 1; }

expect() {  # expect FILE EXTENDED-REGEX WHAT
  grep -Eq -- "$2" "$1" || { echo "FAIL: $3 (no match for /$2/)"; echo "--- output:"; cat "$1"; exit 1; }
}

# line_of MARKER FILE: the line number of the line holding /* MARKER */.
line_of() { grep -n "/\* $1 \*/" "$2" | head -1 | cut -d: -f1; }

# record REC INTERVAL_MS PROGRAM ARGS...: records quietly; sets $checkpoints.
record() {
  local rec=$1 interval=$2; shift 2
  rm -rf "$rec"
  "$SLSDBG" record -o "$rec" --interval "$interval" -- "$@" >"$rec.out" 2>"$rec.err" \
    || { cat "$rec.err"; die "recording $* failed"; }
  checkpoints=$("$SLSDBG" info "$rec" --json | "$PY" -c 'import json,sys; print(len(json.load(sys.stdin)["checkpoints"]))') \
    || die "info --json on $rec failed"
}

# record_threads REC INTERVAL_MS PROGRAM ARGS...: record, and the program
# must have run 2 threads.
record_threads() {
  record "$@"
  grep -q 'ran 2 threads' "$1.err" || { cat "$1.err"; die "$(basename "$3") did not record as threaded"; }
}

# replay_gdb REC OUT GDB-ARGS...: slsdbg replay REC -- -nx -batch GDB-ARGS, output to OUT.
replay_gdb() {
  local rec=$1 out=$2; shift 2
  timeout 600 "$SLSDBG" replay "$rec" -- -nx -batch -ex 'set pagination off' -ex 'set remotetimeout 600' "$@" \
    >"$out" 2>&1
  local rc=$?
  [ "$rc" -eq 0 ] || { echo "--- output:"; cat "$out"; die "slsdbg replay exited $rc"; }
}

# line_hook FILE: a GDB script whose hook-stop keeps the stop's source line
# in $_line_of_pc (printf cannot call Python).
line_hook() {
  cat >"$1" <<'GDB'
define hook-stop
  python gdb.set_convenience_variable("_line_of_pc", gdb.find_pc_line(gdb.selected_frame().pc()).line)
end
GDB
}

# interrupt_move OUT REC BOUND_MS MOVE SETUP...: GDB under a pty on REC runs
# SETUP, then MOVE, and gets Ctrl-C 0.5 s into it; fails unless GDB's prompt
# is back within BOUND_MS. Then `info registers rip` and `monitor when`;
# their output goes to OUT.txt, the latency to stdout.
interrupt_move() {
  local out=$1 rec=$2 bound=$3 move=$4; shift 4
  local setup=()
  for c in "$@"; do setup+=(--setup "$c"); done
  "$PY" "$SLSDBG_SOURCE_DIR/tests/e2e/interrupt_under_pty.py" "$SLSDBG" "$rec" --move "$move" "${setup[@]}" \
    --check 'info registers rip' --check 'monitor when' >"$out" 2>&1 \
    || { cat "$out"; die "the GDB driver failed"; }
  "$PY" - "$out" "$bound" <<'PYEOF' || exit 1
import json, sys
r = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
open(sys.argv[1] + ".txt", "w").write(r["output"])
if r["finished_early"]: sys.exit("FAIL: the move finished before the interrupt (segment too short?)")
if not r["stopped"]: sys.exit("FAIL: no stop after the interrupt\n" + r["output"])
print("interrupt took %d ms" % r["latency_ms"])
if r["latency_ms"] >= float(sys.argv[2]):
    sys.exit("FAIL: the interrupt took %d ms (bound %s ms): it waited for the segment's end" % (r["latency_ms"], sys.argv[2]))
PYEOF
}

# record_fork_stops REC: records the fork_stops fixture into REC and sets
# $forked and $vforked to the two children it printed.
record_fork_stops() {
  "$SLSDBG" record -o "$1" -- "$PROGRAMS/fork_stops" >"$WORK/record.out" 2>"$WORK/record.err" ||
    { cat "$WORK/record.err"; die "recording fork_stops"; }
  read -r forked vforked < <(sed -n 's/^fork_stops: children \([0-9]*\) and \([0-9]*\), statuses 31$/\1 \2/p' "$WORK/record.out")
  [ -n "${vforked:-}" ] || { cat "$WORK/record.out"; die "fork_stops did not print its children"; }
}

# check_counter_watch OUT LAST STORE_LINE MARKER WHAT: OUT is a GDB session
# on a loop storing `counter = i` (LAST the last value) that ran `watch
# counter`, then reverse-continue, continue and reverse-continue each
# followed by `print counter` (reverse-continue twice first): the first
# stop shows the last store's old and new values on the store's line
# (MARKER), and the values printed are last-1, last-2, last-1, last-2.
check_counter_watch() {
  local out=$1 last=$2 line=$3 marker=$4 what=$5 values
  if grep -Eq 'diverged|Remote failure|internal' "$out"; then grep -v '^slsdbg debug' "$out"; die "$what: the reverse watch failed"; fi
  expect "$out" "^Old value = $last\$" "$what: the first reverse-continue stops at the last store"
  expect "$out" "^New value = $((last - 1))\$" "$what: counter before it"
  expect "$out" "^$line[[:space:]].*$marker" "$what: on the store's line"
  values=$(sed -n 's/^\$[0-9]* = //p' "$out" | tr '\n' ' ')
  [ "$values" = "$((last - 1)) $((last - 2)) $((last - 1)) $((last - 2)) " ] ||
    { grep -v '^slsdbg debug' "$out"; die "$what: counter after reverse, reverse, continue, reverse: $values"; }
}
