#!/usr/bin/env bash
# Checks that replay reaches checkpoints taken inside a hot loop quickly and
# exactly: rec_sigalrm's alarms stop its compute loop (millions of visits of
# the checkpoint's pc per segment; about 2 minutes per segment with a
# hardware breakpoint alone). `replay --check` must cross every boundary by
# execution through the patched breakpoint, in seconds. Then the recovery
# path: with the recorder's hint scaled down 100x the patched runs overrun
# their CPU budget, the session replays those segments again from their
# checkpoint with larger budgets, and --check still passes.
set -u
work=$(mktemp -d "${TMPDIR:-/tmp}/replay_hot_loop.XXXXXX")
trap 'rm -rf "$work"' EXIT
"$SLSDBG" record -o "$work/rec" -- "$PROGRAMS/rec_sigalrm" >/dev/null 2>"$work/record.err" ||
  { echo "recording failed: $(cat "$work/record.err")"; exit 1; }

# The recorder logged a progress hint for the checkpoints after the first.
hints=$(sqlite3 "$work/rec/catalog.db" 'SELECT count(*) FROM checkpoints WHERE id > 0 AND cpu_since_event_ns IS NULL')
[ "$hints" = 0 ] || { echo "$hints checkpoints without cpu_since_event_ns"; exit 1; }

check() {  # check LABEL [ENV=VALUE...]: prints the OK line's numbers
  local label=$1; shift
  local out rc start=$SECONDS
  out=$(env "$@" timeout 120 "$SLSDBG" replay "$work/rec" --check 2>&1); rc=$?
  [ "$rc" -eq 0 ] || { echo "$label: --check exit $rc: $out"; exit 1; }
  local cps
  cps=$(sed -n 's/^OK: \([0-9]*\) checkpoints.*/\1/p' <<<"$out")
  [[ -n "$cps" && "$out" == *"$((cps - 1)) boundaries crossed by execution, 0 by restore"* ]] ||
    { echo "$label: not every boundary by execution: $out"; exit 1; }
  echo "$label ($((SECONDS - start)) s): $out"
  last_out=$out
}

check plain
[[ "$last_out" == *" 0 segments replayed again"* ]] || { echo "plain: a segment was replayed again"; exit 1; }
[[ "$last_out" != *" 0 reached by patched breakpoint"* ]] || { echo "plain: the patched breakpoint was never used"; exit 1; }

check "hint/100" SLSDBG_REPLAY_HINT_SCALE=0.01
again=$(sed -n 's/.* \([0-9]*\) segments replayed again.*/\1/p' <<<"$last_out")
[ "${again:-0}" -gt 0 ] || { echo "hint/100: the recovery path did not run: $last_out"; exit 1; }
echo "replay_hot_loop: OK"
