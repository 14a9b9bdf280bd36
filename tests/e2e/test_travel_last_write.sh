#!/usr/bin/env bash
# Watchpoints skip what cannot matter (#20). lastwrite_once writes lw_target
# once, early, then computes for many checkpoints without touching its page.
# From the end of the program:
#  - `monitor last-write ADDR LEN` (and GDB's `last-write EXPR`) name the
#    writing moment, instruction and file:line, replaying only the segments
#    whose dirty pages or log can hold the write (the count is in the answer);
#  - a never-written variable gets the "never written" answer;
#  - `watch lw_target` + `reverse-continue` stops on the writing line, and
#    `monitor stats` shows that most segments were skipped (GDB's own
#    breakpoint on the loader's debug hook does not prevent it);
#  - forward again, `continue` with the watchpoint skips segments too and
#    reaches the end of the program;
#  - bad input gets a one-line error;
#  - `slsdbg last-write REC SYMBOL --json` gives the same answer.
# Runs with the patched breakpoint on and with SLSDBG_REPLAY_PATCH=miss.
. "$(dirname "$0")/replay_gdb_lib.sh"
src=$FIXTURE_SRC/lastwrite_once.c
write_line=$(line_of LW_WRITE "$src")
end_line=$(line_of LW_END "$src")
rec=$WORK/lw.rec
record "$rec" 2 "$PROGRAMS/lastwrite_once" 120
[ "$checkpoints" -ge 20 ] || die "only $checkpoints checkpoints: too few to show skipping"
echo "recorded: $checkpoints checkpoints"
few=$(( checkpoints / 4 ))
start_at=$(( checkpoints - 4 ))

for patch in on miss; do
  [ $patch = miss ] && export SLSDBG_REPLAY_PATCH=miss
  out=$WORK/gdb.$patch.out
  t0=$(date +%s.%N)
  # GDB starts a few checkpoints before the exit (the loop's end): the queries
  # below run from LW_END without a forward replay of the whole history.
  replay_gdb "$rec" "$out" \
    -ex "monitor goto $start_at" -ex 'maint flush register-cache' \
    -ex "break lastwrite_once.c:$end_line" \
    -ex 'continue' \
    -ex 'delete' \
    -ex 'eval "monitor last-write %p 4", &lw_target' \
    -ex 'last-write lw_never' \
    -ex 'monitor last-write zzz' \
    -ex 'monitor last-write 0x1001 64' \
    -ex 'monitor when' \
    -ex 'watch lw_target' \
    -ex 'reverse-continue' \
    -ex 'print lw_target' \
    -ex 'monitor stats' \
    -ex 'continue' \
    -ex 'continue' \
    -ex 'monitor stats'
  t1=$(date +%s.%N)
  echo "($patch) gdb session: $(echo "$t1 - $t0" | bc) s"
  expect "$out" "Breakpoint 1, main \(.*\) at .*lastwrite_once\.c:$end_line" "($patch) continue stops at the end"
  expect "$out" "^Last write to 0x[0-9a-f]+ \(4 bytes\): moment [0-9]+:[0-9]+:0x[0-9a-f]+:1$" "($patch) last-write names a moment"
  expect "$out" "^  by 0x[0-9a-f]+: mov .* in main\+0x[0-9a-f]+ at .*lastwrite_once\.c:$write_line$" \
    "($patch) last-write names the instruction and the writing line"
  expect "$out" "^No write to 0x[0-9a-f]+ \(4 bytes\) before this moment: never written since the recording began \(value from checkpoint 0\)$" \
    "($patch) a never-written variable says so"
  expect "$out" "last-write: address 'zzz' is not a number" "($patch) a bad address is a clear error"
  expect "$out" "need 11 debug registers; at most 2 are free" "($patch) a too-long range is refused"
  # Each query replays the first and the last segment only (and maybe a few
  # that touched the page for another reason).
  # Each query replays the first and the last segment only (and maybe a few
  # that touched the page for another reason).
  mapfile -t q < <(grep -E '^Segments replayed: [0-9]+, skipped: [0-9]+' "$out" | tr -dc '0-9 \n' | tr -s ' ')
  [ "${#q[@]}" -eq 2 ] || { cat "$out"; die "($patch) two last-write answers expected"; }
  query_skipped=0
  for line in "${q[@]}"; do
    read -r replayed skipped <<<"$line"
    echo "($patch) last-write: replayed $replayed, skipped $skipped of $checkpoints segments"
    [ "$replayed" -le "$few" ] || die "($patch) last-write replayed $replayed of $checkpoints segments"
    [ "$skipped" -ge $(( checkpoints - few )) ] || die "($patch) last-write skipped only $skipped of $checkpoints segments"
    query_skipped=$(( query_skipped + skipped ))
  done
  grep -c '^Current moment:' "$out" | grep -qx 1 || die "($patch) monitor when did not answer"
  expect "$out" "^$write_line[[:space:]].*LW_WRITE" "($patch) reverse-continue stops on the writing line"
  expect "$out" '^\$1 = 7$' "($patch) before the write the value is the initial one"
  expect "$out" '^Old value = 7$' "($patch) forward: the old value"
  expect "$out" '^New value = 42$' "($patch) forward: the new value"
  expect "$out" "the program exited with status 0" "($patch) forward continue with the watchpoint reaches the end"
  # Cumulative counts after reverse-continue (the queries' included) and
  # after the forward run: both moves skipped most segments, GDB's
  # breakpoint on the loader's debug hook notwithstanding.
  mapfile -t st < <(grep -E '^watchpoint scans: segments replayed' "$out" | tr -dc '0-9 \n' | tr -s ' ')
  [ "${#st[@]}" -eq 2 ] || die "($patch) monitor stats did not answer twice"
  read -r r1 s1 <<<"${st[0]}"
  read -r r2 s2 <<<"${st[1]}"
  echo "($patch) reverse-continue skipped $(( s1 - query_skipped )) segments; the forward continue replayed $(( r2 - r1 )), skipped $(( s2 - s1 ))"
  [ $(( s1 - query_skipped )) -ge $(( checkpoints - few )) ] || die "($patch) reverse-continue skipped too few segments"
  [ $(( s2 - s1 )) -ge $(( checkpoints - few )) ] || die "($patch) the forward continue skipped too few segments"
  [ $(( r2 - r1 )) -le "$few" ] || die "($patch) the forward continue replayed $(( r2 - r1 )) segments"
  unset SLSDBG_REPLAY_PATCH
done
# The CLI form: symbol names, --json, --at, and bad input (exit 2, one line).
"$SLSDBG" last-write "$rec" lw_target --json >"$WORK/cli.json" || die "slsdbg last-write failed"
"$PY" - "$WORK/cli.json" "$write_line" <<'PYEOF' || die "slsdbg last-write --json: wrong answer"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["found"] and d["len"] == 4 and d["line"] == int(sys.argv[2]) and d["file"].endswith("lastwrite_once.c"), d
assert d["segments_skipped"] > 4 * d["segments_replayed"], d
print("cli:", d["moment"], d["instruction"], "replayed", d["segments_replayed"], "skipped", d["segments_skipped"])
PYEOF
"$SLSDBG" last-write "$rec" lw_target --at 0 --json | grep -q '"found":false' || die "--at 0: a write found before the first moment"
cli_err() {  # cli_err WHAT EXPECTED-TEXT ARGS...
  local what=$1 text=$2; shift 2
  "$SLSDBG" last-write "$@" >/dev/null 2>"$WORK/cli.err"
  local rc=$?
  [ "$rc" -eq 2 ] && [ "$(wc -l <"$WORK/cli.err")" -eq 1 ] && grep -q -- "$text" "$WORK/cli.err" \
    || die "$what: exit $rc, '$(cat "$WORK/cli.err")'"
}
cli_err "no address" "missing ADDR" "$rec"
cli_err "an unknown symbol" "neither an address nor a symbol" "$rec" no_such_symbol
cli_err "a bad length" "is not a number" "$rec" 0x1000:abc
cli_err "a bad --at" "--at" "$rec" lw_target --at x:y
echo "travel_last_write: OK"
