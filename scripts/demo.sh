#!/usr/bin/env bash
# The main job (`make demo`): record the bundled bank example, whose planted
# bug makes one unit of money vanish at transfer BUG_AT; go back in time with
# GDB through every checkpoint (as cores) to the segment where the money
# vanished; rewind under GDB (slsdbg replay) with reverse-continue to the
# moment the lossy line ran, and dump a core of that moment; a backtrace and a
# core from the recording; resume a live process from the middle of history.
# Each step prints the command it runs.
set -euo pipefail
build=${1:-build}
S=$(realpath "$build/cli/slsdbg")
BANK=$(realpath "$build/tests/programs/bank")
# 2 million transfers take ~15 ms natively; 1 ms checkpoints keep each
# segment short, since rewinding re-runs one segment (and after GDB's first
# trap in a segment the rest runs at one debug exception per visit of the
# checkpoint's pc, engine/replay/README.md).
TRANSFERS=${TRANSFERS:-2000000}
BUG_AT=${BUG_AT:-1400000}
INTERVAL=${INTERVAL:-1}

work=$(mktemp -d "${TMPDIR:-/tmp}/slsdbg-demo.XXXXXX")
trap 'rm -rf "$work"' EXIT
rec="$work/bank.rec"

bold=""; plain=""
if [ -t 1 ]; then bold=$'\e[1m'; plain=$'\e[0m'; fi
step() { printf '\n%s== %s%s\n' "$bold" "$*" "$plain"; }
run() { printf '$ %s\n' "$*"; "$@"; }
has_command() { "$S" --help | grep -q "^  $1 "; }

step "1. record the bank (its planted bug loses one unit at transfer $BUG_AT; it exits 1 when the total is wrong)"
set +e
run "$S" record -o "$rec" --interval "$INTERVAL" -- "$BANK" "$TRANSFERS" "$BUG_AT"
rc=$?
set -e
echo "(exit status $rc passed through from the program)"

step "2. what was recorded"
run "$S" info "$rec" | sed -n '1,8p;/^checkpoints/,$p'
last=$("$S" info "$rec" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["checkpoints"][-1]["id"])')

step "3. back in time: every checkpoint opened in GDB, looking for the moment the money vanished"
for k in $(seq 0 "$last"); do "$S" dump "$rec" --at "$k" -o "$work/$k.core" --quiet; done
echo "\$ $S dump $rec --at K -o K.core   (K = 0..$last), then in one GDB session:"
cat >"$work/walk.py" <<'PY'
import gdb, os
work, last = os.environ["DEMO_WORK"], int(os.environ["DEMO_LAST"])
rows = []
for k in range(last + 1):
    gdb.execute("core-file %s/%d.core" % (work, k), to_string=True)
    done = int(gdb.parse_and_eval("transfers_done"))
    total = sum(int(gdb.parse_and_eval("accounts")[i]) for i in range(64))
    expected = int(gdb.parse_and_eval("total_expected"))
    where = gdb.selected_frame().name() or "?"
    # A checkpoint can land between a transfer's debit and its credit: then
    # `amount` is in flight and the accounts hold that much less.
    in_flight = int(gdb.parse_and_eval("amount")) if where == "transfer" else 0
    ok = not expected or total in (expected, expected - in_flight)
    rows.append((k, ok))
    print("  checkpoint %3d: transfers_done = %9d   total money = %6d   in %s()%s"
          % (k, done, total, where, "" if ok else "  <- money missing"))
good = [k for k, ok in rows if ok]
if good and not rows[-1][1]:
    g = good[-1]
    print("  => the money vanished in segment %d, between checkpoints %d and %d" % (g, g, g + 1))
PY
DEMO_WORK=$work DEMO_LAST=$last gdb -nx -batch -q "$BANK" -ex "source $work/walk.py" 2>/dev/null | tee "$work/walk.out"
# GDB starts at the first checkpoint with money missing (the end of history
# if the walk found none): reverse-continue then re-runs one segment.
first_bad=$(sed -n 's/.*between checkpoints [0-9]* and \([0-9]*\)$/\1/p' "$work/walk.out")
first_bad=${first_bad:-$last}

step "4. rewind under GDB: from checkpoint $first_bad, reverse-continue to the last run of the lossy line"
bug_line=$(grep -n 'the planted bug: one' "$(dirname "$0")/../tests/programs/bank.c" | cut -d: -f1)
cat >"$work/rewind.gdb" <<GDB
set pagination off
set confirm off
echo (gdb) break bank.c:$bug_line\n
break bank.c:$bug_line
echo (gdb) reverse-continue\n
reverse-continue
echo (gdb) print transfers_done\n
print transfers_done
echo (gdb) print amount\n
print amount
echo (gdb) print accounts[to]\n
print accounts[to]
echo (gdb) next\n
next
echo (gdb) print accounts[to]     (one unit short of what arrived)\n
print accounts[to]
echo (gdb) reverse-step\n
reverse-step
echo (gdb) backtrace\n
backtrace
echo (gdb) monitor when\n
monitor when
echo (gdb) monitor dump $work/moment.core\n
monitor dump $work/moment.core
GDB
run "$S" replay "$rec" --at "$first_bad" -- -batch -nx -x "$work/rewind.gdb" 2>&1 | grep -v '^warning: '
if [ -f "$work/moment.core" ]; then
  echo "\$ gdb $BANK $work/moment.core -batch -ex 'print transfers_done'"
  gdb -nx -batch -q "$BANK" "$work/moment.core" -ex 'print transfers_done' 2>/dev/null | grep '^\$'
fi

step "5. the call stack at the last checkpoint, straight from the recording"
run "$S" backtrace "$rec" --last

step "6. the core file GDB and readelf can open"
run "$S" dump "$rec" --last -o "$work/last.core"
ls -l "$work/last.core"
echo "notes: $(readelf -n "$work/last.core" | grep -oE 'NT_[A-Z0-9_]+' | sort -u | tr '\n' ' ')"

if has_command restore; then
  mid=$((last / 2))
  step "7. resume a real process from checkpoint $mid: it finishes the run and finds the same loss"
  set +e
  run "$S" restore "$rec" --at "$mid"
  echo "(exit status $?)"
  set -e
fi

step "8. the whole history at a glance: slsdbg-ui, headless (QT_QPA_PLATFORM=offscreen)"
shot="$build/demo-ui.png"  # kept: the recording goes with $work
QT_QPA_PLATFORM=offscreen "$build/ui/slsdbg-ui" "$rec" --at "$first_bad" --screenshot "$shot" 2>/dev/null
ls -l "$shot"
echo "(the window itself: $build/ui/slsdbg-ui REC --at K, on any recording)"
