#!/usr/bin/env bash
# Checks that `slsdbg restore --repeat N` surfaces nondeterminism: a fixture
# that draws a random number after its checkpoint, restored 10 times from the
# same image, ends with different exit statuses; each run is reported on its
# own line, the summary says NONDETERMINISTIC, and slsdbg exits with the first
# nonzero status.
set -u
work=$(mktemp -d "${TMPDIR:-/tmp}/restore_repeat.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$SLSDBG" record -o "$work/rec" --interval 100 -- "$PROGRAMS/restore_coinflip" 150000000 > "$work/record.out" 2>&1
[ $? -ge 10 ] || { cat "$work/record.out"; fail "recording failed"; }  # the fixture exits 10 + a random 0..3
"$SLSDBG" restore "$work/rec" --at 1 --repeat 10 > /dev/null 2> "$work/err"; rc=$?
[ "$(grep -c '^slsdbg: run [0-9]*/10: exited with status 1[0-3]$' "$work/err")" -eq 10 ] || { cat "$work/err"; fail "want 10 run lines"; }
distinct=$(sed -n 's/^slsdbg: run [0-9]*\/10: exited with status //p' "$work/err" | sort -u | wc -l)
[ "$distinct" -ge 2 ] || { cat "$work/err"; fail "10 runs all ended alike"; }
grep -q '^slsdbg: 10 runs from checkpoint 1: .*(NONDETERMINISTIC)$' "$work/err" || { cat "$work/err"; fail "no NONDETERMINISTIC summary"; }
first=$(sed -n 's/^slsdbg: run 1\/10: exited with status //p' "$work/err")
[ "$rc" -eq "$first" ] || fail "exit $rc, want the first nonzero status $first"
echo "restore_repeat: OK"
