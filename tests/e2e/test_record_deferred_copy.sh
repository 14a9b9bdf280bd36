#!/usr/bin/env bash
# Checks deferred copies (`record --copy deferred`, the default): a program
# scattering writes over a 64 MiB heap records with most tick checkpoints
# copying their cold pages after the program resumed; output equals a native
# run; `replay --check` reaches every stored checkpoint by execution and
# compares its pages, so a deferred copy that took a page after the program
# changed it fails here (with --max-interval 10: the adaptive interval
# stretched over the program's rewrites and left 2-4 deferred ticks, below
# the test's 3 in 1 of 9 runs). `--copy in-stop` defers nothing; a bad --copy value
# is a one-line error.
source "$(dirname "$0")/record_lib.sh"
PROG="$PROGRAMS/rec_scatter"
# One line per burst, a few ms apart: the program waits in read() between.
slow_lines() { for ((i = 0; i < $1; i++)); do echo "$i"; sleep 0.004; done; }
seq 0 79 | "$PROG" >"$WORK/native.out" || die "native run failed"

slow_lines 80 | SLSDBG_LOG=debug "$SLSDBG" record --max-interval 10 -o "$WORK/rec" -- "$PROG" >"$WORK/rec.out" 2>"$WORK/rec.err" ||
  die "record failed: $(grep -v debug "$WORK/rec.err" | tail -3)"
cmp -s "$WORK/native.out" "$WORK/rec.out" || die "output differs: $(cat "$WORK/native.out") vs $(cat "$WORK/rec.out")"
deferred=$(grep -c 'record\]: checkpoint [0-9]*: deferred' "$WORK/rec.err")
dropped=$(grep -c 'tick checkpoint dropped' "$WORK/rec.err")
stored=$((deferred - dropped))
[ "$stored" -ge 3 ] || die "want >= 3 stored deferred checkpoints, got $deferred deferred, $dropped dropped"
summary=$(grep '^slsdbg: recorded' "$WORK/rec.err")
cps=$(sed -n 's/^slsdbg: recorded \([0-9]*\) checkpoints.*/\1/p' <<<"$summary")
"$SLSDBG" info "$WORK/rec" --json >"$WORK/rec.json" || die "info --json failed"
"$PY" -c "import json,sys; j=json.load(open('$WORK/rec.json')); assert len(j['checkpoints']) == $cps, (len(j['checkpoints']), $cps)" ||
  die "info lists a different number of checkpoints than record reported ($cps)"

out=$(timeout 300 "$SLSDBG" replay "$WORK/rec" --check 2>&1); rc=$?
[ "$rc" -eq 0 ] || die "replay --check exit $rc: $out"
want=$("$PY" "$SLSDBG_SOURCE_DIR/tests/e2e/boundaries.py" "$WORK/rec" --max-forced 0) || die "$want"
[[ "$out" == "OK: $cps checkpoints, $want"* ]] || die "replay --check: $out (want $want)"
echo "deferred: $deferred tick checkpoints deferred, $dropped dropped (torn); replay: $out"

slow_lines 20 | SLSDBG_LOG=debug "$SLSDBG" record --copy in-stop -o "$WORK/rec2" -- "$PROG" >"$WORK/rec2.out" 2>"$WORK/rec2.err" ||
  die "record --copy in-stop failed"
grep -q 'record\]: checkpoint [0-9]*: deferred' "$WORK/rec2.err" && die "--copy in-stop deferred a copy"
grep -q 'record\]: checkpoint [0-9]*: in stop' "$WORK/rec2.err" || die "--copy in-stop took no checkpoint"

err=$("$SLSDBG" record --copy sometimes -o "$WORK/rec3" -- "$PROG" </dev/null 2>&1 >/dev/null); rc=$?
[ "$rc" -eq 2 ] && [ "$(wc -l <<<"$err")" -eq 1 ] && [[ "$err" == *"--copy needs 'deferred' or 'in-stop'"* ]] ||
  die "bad --copy: exit $rc, '$err'"
[ -e "$WORK/rec3" ] && die "a bad --copy created a recording"
echo "test_record_deferred_copy: OK"
