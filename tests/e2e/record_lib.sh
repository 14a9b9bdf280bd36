# Shared helpers for the recorder's end-to-end tests (sourced, not a test).
set -u
WORK=$(mktemp -d "${TMPDIR:-/tmp}/slsdbg-rec.XXXXXX")
cleanup() { rm -rf "$WORK"; }
trap cleanup EXIT
export SLSDBG_DIR="$WORK/default-root"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3)

die() { echo "FAIL: $*"; exit 1; }

# replay_check_ok NAME...: `replay --check` of each $WORK/NAME says OK.
replay_check_ok() {
  local rec out
  for rec in "$@"; do
    out=$(timeout 300 "$SLSDBG" replay "$WORK/$rec" --check 2>&1 </dev/null) || die "replay --check ($rec): $out"
    [[ "$out" == OK:* ]] || die "replay --check ($rec): $out"
  done
}

# record_and_compare NAME STDIN_FILE -- PROGRAM ARGS...: runs PROGRAM natively
# and under `slsdbg record --verify`; stdout and exit status must be equal,
# the recording must have >= 2 checkpoints and end with an exit event.
record_and_compare() {
  local name=$1 input=$2; shift 3
  local rec="$WORK/$name.rec"
  "$@" <"$input" >"$WORK/$name.native" 2>"$WORK/$name.native.err"; local native_rc=$?
  "$SLSDBG" record -o "$rec" --verify -- "$@" <"$input" >"$WORK/$name.recorded" 2>"$WORK/$name.recorded.err"
  local rec_rc=$?
  if [ "$rec_rc" -ne "$native_rc" ]; then
    cat "$WORK/$name.recorded.err"
    die "$name: exit status $rec_rc under the recorder, $native_rc natively"
  fi
  grep -q "mismatch" "$WORK/$name.recorded.err" && { cat "$WORK/$name.recorded.err"; die "$name: --verify mismatch"; }
  cmp -s "$WORK/$name.native" "$WORK/$name.recorded" || {
    diff "$WORK/$name.native" "$WORK/$name.recorded" | head; die "$name: output differs from native"; }
  "$SLSDBG" info "$rec" --json >"$WORK/$name.json" || die "$name: info --json failed"
  "$PY" - "$WORK/$name.json" "$name" <<'PYEOF' || die "$name: recording check failed"
import json, sys
j = json.load(open(sys.argv[1]))
name = sys.argv[2]
cps = j["checkpoints"]
assert len(cps) >= 2, f"{name}: only {len(cps)} checkpoints"
assert cps[0]["reason"] == "start", cps[0]
assert j["finished"], f"{name}: recording not finished"
assert j["exit"] is not None, f"{name}: no exit event"
assert j["events"] >= 1
for c in cps:
    for k in ("id", "time_ns", "dirty_pages", "stop_us"):
        assert k in c, (k, c)
print(f"{name}: {len(cps)} checkpoints, {j['events']} events, by kind {j['events_by_kind']}")
PYEOF
}
