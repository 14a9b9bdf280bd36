# Shared helpers for the bisect end-to-end tests (sourced, not a test).
# Records the bisect_bank fixture once per test: TRANSFERS transfers with the
# planted bug at a random transfer BUG in the middle half.
set -u
WORK=$(mktemp -d "${TMPDIR:-/tmp}/slsdbg-bisect.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
PY=$(command -v python3)
BANK="$PROGRAMS/bisect_bank"
SRC="$SLSDBG_SOURCE_DIR/tests/programs/bisect_bank.c"
PLUGINS="$SLSDBG_BUILD_DIR/plugins"
# 1,000,000 transfers (~0.7 s of CPU, ~130 checkpoints of 5 ms): enough for a
# search of >= 20 checkpoints with the bug in its middle half; refinement
# works inside one 5 ms segment whatever the length. 6,000,000 made
# e2e_bisect_cmd take up to 246 s in a loaded suite.
TRANSFERS=${TRANSFERS:-1000000}
REC="$WORK/bank.rec"

fail() { echo "FAIL: $*"; exit 1; }

# The line of the planted bug in the fixture's source.
BUG_LINE=$(grep -n 'planted bug' "$SRC" | grep -v '^[0-9]*:/' | head -1 | cut -d: -f1)

# record_bank [BUG]: records the fixture into $REC (5 ms checkpoints), sets BUG.
record_bank() {
  BUG=${1:-$(( TRANSFERS / 4 + (RANDOM * 32768 + RANDOM) % (TRANSFERS / 2) ))}
  "$SLSDBG" record -o "$REC" --interval 5 -- "$BANK" "$TRANSFERS" "$BUG" >"$WORK/bank.out" 2>"$WORK/bank.err"
  local rc=$?
  [ "$rc" -eq 1 ] || { cat "$WORK/bank.err"; fail "the fixture should exit 1 (money lost), exit $rc"; }
  grep -q "bug at $BUG total 1999 expected 2000" "$WORK/bank.out" || fail "fixture output: $(cat "$WORK/bank.out")"
  CHECKPOINTS=$("$SLSDBG" info "$REC" --json | "$PY" -c 'import json,sys; print(len(json.load(sys.stdin)["checkpoints"]))')
  [ "$CHECKPOINTS" -ge "${MIN_CHECKPOINTS:-20}" ] || fail "only $CHECKPOINTS checkpoints"
  echo "recorded $CHECKPOINTS checkpoints, bug at transfer $BUG (line $BUG_LINE)"
}

# json FILE EXPR: a value from a JSON file (python expression over `j`).
json() { "$PY" -c "import json,sys; j=json.load(open(sys.argv[1])); print($2)" "$1"; }

# gdb_at CHECKPOINT EXPR: EXPR (over the program's globals) printed by gdb
# over a core of CHECKPOINT. Without libc's symbols: reading its debug info
# was a third of each GDB run.
gdb_at() {
  "$SLSDBG" dump "$REC" --at "$1" -o "$WORK/at.core" --quiet || fail "dump --at $1"
  gdb -batch -nx -iex 'set auto-solib-add off' -ex 'set debuginfod enabled off' "$BANK" "$WORK/at.core" -ex "print $2" 2>/dev/null |
    sed -n 's/^\$1 = //p'
}

# check_found REPORT.json: the common checks of a successful bisect of the
# bank: the search stayed within ceil(log2 K) probes; the last good checkpoint
# holds the money and has not finished transfer BUG, the first bad one lost it;
# refined (when this build refines) to the planted bug's line in transfer BUG.
# EXPECT=segment: refinement must say it cannot run (--cmd), not pretend.
check_found() {
  local r=$1 expect=${2:-refined}
  [ "$(json "$r" 'j["outcome"]')" = found ] || fail "outcome: $(json "$r" 'j["outcome"]')"
  local searched bound
  searched=$(json "$r" 'j["probes"]["search"]')
  bound=$("$PY" -c "import math; print(math.ceil(math.log2($CHECKPOINTS)))")
  # The bug is in the middle half, so no edge probe is needed either.
  searched=$((searched + $(json "$r" 'j["probes"]["edge"]')))
  [ "$searched" -le "$bound" ] || fail "$searched search and edge probes for $CHECKPOINTS checkpoints (bound $bound)"
  local good bad
  good=$(json "$r" 'j["last_good"]["checkpoint"]')
  bad=$(json "$r" 'j["first_bad"]["checkpoint"]')
  [ "$bad" -eq $((good + 1)) ] || fail "last good $good, first bad $bad: not adjacent"
  [ "$(gdb_at "$good" 'bank.acct.checking + bank.acct.savings')" = 2000 ] || fail "money already lost at $good"
  [ "$(gdb_at "$bad" 'bank.acct.checking + bank.acct.savings')" = 1999 ] || fail "money not lost at $bad"
  [ "$(gdb_at "$good" 'current_transfer')" -le "$BUG" ] || fail "transfer $BUG done before checkpoint $good"
  [ "$(gdb_at "$bad" 'current_transfer')" -ge "$BUG" ] || fail "transfer $BUG not reached at checkpoint $bad"
  json "$r" 'j["goto"]' | grep -q -- "--goto" || fail "no goto command"
  local state
  state=$(json "$r" 'j["refinement"]["state"]')
  if [ "$expect" = segment ]; then
    [ "$state" = unavailable ] || [ "$state" = not_built ] || fail "refinement $state, expected unavailable"
    REFINED=$state
    return
  fi
  case "$state" in
    done)
      [ "$(json "$r" 'j["refined"]["line"]')" = "$BUG_LINE" ] || fail "refined to line $(json "$r" 'j["refined"]["line"]'), the bug is on $BUG_LINE"
      [[ "$(json "$r" 'j["refined"]["file"]')" == *bisect_bank.c ]] || fail "refined file $(json "$r" 'j["refined"]["file"]')"
      [[ "$(json "$r" 'j["moment"]')" == "$good:"* ]] || fail "moment $(json "$r" 'j["moment"]') not in segment $good"
      ;;
    not_built) echo "note: this build does not refine; checked at checkpoint granularity" ;;
    *) fail "refinement $state: $(json "$r" 'j["refinement"]["note"]')" ;;
  esac
  REFINED=$state
}

# one_line_error WHAT EXPECTED-SUBSTRING CMD...: nonzero exit, one line on stderr naming the problem.
one_line_error() {
  local what=$1 want=$2; shift 2
  local err rc
  err=$("$@" 2>&1 >/dev/null); rc=$?
  [ "$rc" -ne 0 ] || fail "$what: exit status 0"
  [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || fail "$what: error is not one line: $err"
  [[ "$err" == *"$want"* ]] || fail "$what: error does not say '$want': $err"
  echo "ok: $what -> $err"
}
