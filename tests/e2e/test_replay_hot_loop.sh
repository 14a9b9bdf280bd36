#!/usr/bin/env bash
# Checks that replay reaches checkpoints taken inside a hot loop quickly and
# exactly: rec_sigalrm's alarms stop its compute loop (millions of visits of
# the checkpoint's pc per segment; about 2 minutes per segment with a
# hardware breakpoint alone). `replay --check` must cross every boundary by
# execution through the patched breakpoint, in seconds. Then the recovery
# path: with the recorder's hint scaled down 100x the patched runs overrun
# their CPU budget, the session replays those segments again from their
# checkpoint with larger budgets, and --check still passes; so does a copy
# downgraded to catalog format 1 (no hint). Last, the same
# through gdb (a Timeline run with a breakpoint, where the session goes on
# from a fork kept when the patch went in): `continue` crosses every
# segment to the line after the loop and shows the native values. Finally
# a patch that never matches (SLSDBG_REPLAY_PATCH=miss) on rec_spin, whose
# program runs on to its next syscall past the checkpoint: the divergence
# makes --check replay those segments again with the hardware breakpoint,
# and gdb go on from the rescue fork; both still reach the end. With every
# install refused (SLSDBG_REPLAY_PATCH=refuse) the fallback breakpoint must
# be armed each time: --check and gdb still reach the end.
set -u
work=$(mktemp -d "${TMPDIR:-/tmp}/replay_hot_loop.XXXXXX")
trap 'rm -rf "$work"' EXIT
"$SLSDBG" record -o "$work/rec" -- "$PROGRAMS/rec_sigalrm" >/dev/null 2>"$work/record.err" ||
  { echo "recording failed: $(cat "$work/record.err")"; exit 1; }

# The recorder logged a progress hint for the tick and signal checkpoints,
# the ones inside the loop. (Not for the syscall buffer's patch, crossed by
# restore, nor for one right after buffered calls were drained: their CPU
# time is unknown. Here that is the exit's, after a buffered write.)
hints=$(sqlite3 "$work/rec/catalog.db" "SELECT count(*) FROM checkpoints WHERE reason IN ('tick', 'signal') AND cpu_since_event_ns IS NULL")
ticks=$(sqlite3 "$work/rec/catalog.db" "SELECT count(*) FROM checkpoints WHERE reason IN ('tick', 'signal')")
[ "$ticks" -ge 10 ] || { echo "only $ticks tick and signal checkpoints"; exit 1; }
[ "$hints" = 0 ] || { echo "$hints checkpoints without cpu_since_event_ns"; exit 1; }

check() {  # check LABEL [ENV=VALUE...]: prints the OK line's numbers
  local label=$1; shift
  local out rc start=$SECONDS
  out=$(env "$@" timeout 120 "$SLSDBG" replay "$work/rec" --check 2>&1); rc=$?
  [ "$rc" -eq 0 ] || { echo "$label: --check exit $rc: $out"; exit 1; }
  local cps
  cps=$(sed -n 's/^OK: \([0-9]*\) checkpoints.*/\1/p' <<<"$out")
  local want
  want=$(python3 "$SLSDBG_SOURCE_DIR/tests/e2e/boundaries.py" "$work/rec" --max-forced 0) || { echo "$label: $want"; exit 1; }
  [[ -n "$cps" && "$out" == *"$want"* ]] ||
    { echo "$label: not every boundary by execution: $out"; exit 1; }
  echo "$label ($((SECONDS - start)) s): $(grep '^OK:' <<<"$out")"
  last_out=$out
}

check plain SLSDBG_LOG=info
# A segment replayed again is correct (a branch into the moved bytes, say);
# show why, for whoever reads the log.
grep "patched breakpoint's run" <<<"$last_out" || true
[[ "$last_out" != *" 0 reached by patched breakpoint"* ]] || { echo "plain: the patched breakpoint was never used"; exit 1; }

check "hint/100" SLSDBG_REPLAY_HINT_SCALE=0.01
again=$(sed -n 's/.* \([0-9]*\) segments replayed again.*/\1/p' <<<"$last_out")
[ "${again:-0}" -gt 0 ] || { echo "hint/100: the recovery path did not run: $last_out"; exit 1; }
# A format 1 recording (no hint column) is still read and replayed.
cp -r "$work/rec" "$work/v1"
sqlite3 "$work/v1/catalog.db" "ALTER TABLE checkpoints DROP COLUMN cpu_since_event_ns;
  UPDATE meta SET value = 1 WHERE key = 'format_version'; PRAGMA user_version = 1;"
out=$(timeout 120 "$SLSDBG" replay "$work/v1" --check 2>&1) && [[ "$out" == OK:* ]] ||
  { echo "format 1 copy: $out"; exit 1; }
echo "format 1 copy: $out"

line=$(grep -n 'setitimer(ITIMER_REAL, &off, 0)' "$SLSDBG_SOURCE_DIR/tests/programs/rec_sigalrm.c" | cut -d: -f1)
gdb_check() {  # gdb_check LABEL [ENV=VALUE...]
  local label=$1; shift
  local start=$SECONDS
  env "$@" timeout 120 "$SLSDBG" replay "$work/rec" -- -nx -batch -ex 'set pagination off' \
    -ex "break rec_sigalrm.c:$line" -ex continue -ex 'print reads' -ex 'print eintr' >"$work/gdb.out" 2>&1
  grep -q "^Breakpoint 1, main" "$work/gdb.out" && grep -q '^\$1 = 3$' "$work/gdb.out" && grep -q '^\$2 = 3$' "$work/gdb.out" ||
    { echo "$label: gdb did not stop after the loop with reads = eintr = 3:"; cat "$work/gdb.out"; exit 1; }
  echo "$label ($((SECONDS - start)) s): gdb stopped at line $line with reads = eintr = 3"
}
gdb_check "gdb continue"
gdb_check "gdb continue, hint/100" SLSDBG_REPLAY_HINT_SCALE=0.01
"$SLSDBG" record -o "$work/spin" -- "$PROGRAMS/rec_spin" 50 7 >/dev/null 2>"$work/spin.err" ||
  [ $? -eq 7 ] || { echo "recording rec_spin failed: $(cat "$work/spin.err")"; exit 1; }
spin_want=$(python3 "$SLSDBG_SOURCE_DIR/tests/e2e/boundaries.py" "$work/spin" --max-forced 0) || { echo "spin: $spin_want"; exit 1; }
out=$(SLSDBG_REPLAY_PATCH=miss timeout 120 "$SLSDBG" replay "$work/spin" --check 2>&1)
again=$(sed -n 's/.* \([0-9]*\) segments replayed again.*/\1/p' <<<"$out")
[[ "$out" == OK:*"$spin_want"*" 0 reached by patched breakpoint"* && "${again:-0}" -gt 0 ]] ||
  { echo "miss: $out"; exit 1; }
echo "miss: $out"
spin_line=$(grep -n 'printf("rec_spin done' "$SLSDBG_SOURCE_DIR/tests/programs/rec_spin.c" | cut -d: -f1)
SLSDBG_REPLAY_PATCH=miss timeout 120 "$SLSDBG" replay "$work/spin" -- -nx -batch -ex 'set pagination off' \
  -ex "break rec_spin.c:$spin_line" -ex continue -ex 'print status' >"$work/gdb.out" 2>&1
grep -q '^\$1 = 7$' "$work/gdb.out" || { echo "miss, gdb:"; cat "$work/gdb.out"; exit 1; }
echo "miss, gdb: stopped at line $spin_line with status = 7"
# Every install of the patch refused (SLSDBG_REPLAY_PATCH=refuse): each
# checkpoint must still get its fallback breakpoint, or the run goes past it
# and never ends (timeout 120). Plain replay and gdb's Timeline both.
out=$(SLSDBG_REPLAY_PATCH=refuse timeout 120 "$SLSDBG" replay "$work/spin" --check 2>&1)
[[ "$out" == OK:*"$spin_want"*" 0 reached by patched breakpoint"* ]] || { echo "refuse: $out"; exit 1; }
echo "refuse: $out"
SLSDBG_REPLAY_PATCH=refuse timeout 120 "$SLSDBG" replay "$work/spin" -- -nx -batch -ex 'set pagination off' \
  -ex "break rec_spin.c:$spin_line" -ex continue -ex 'print status' >"$work/gdb.out" 2>&1
grep -q '^\$1 = 7$' "$work/gdb.out" || { echo "refuse, gdb:"; cat "$work/gdb.out"; exit 1; }
echo "refuse, gdb: stopped at line $spin_line with status = 7"
echo "replay_hot_loop: OK"
