# Shared by e2e_record_shared_python and e2e_record_shared_python_shm
# (sourced, not a test): check NAME WANT SCRIPT records `python3 -c SCRIPT`
# (Debian's interpreter: a version manager's shim, a shell script, would add
# a dozen shell processes to the tree), wants output WANT as natively, 3
# processes that took turns, and replay -p PID --check OK to the end for each.
# RECORD_OPTIONs go to `record`.
set -u
tmp=$(mktemp -d "${TMPDIR:-/tmp}/record_shared_python.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
py=/usr/bin/python3
[ -x "$py" ] || py=$(command -v python3) || fail "python3 is not installed (scripts/install-deps.sh installs it)"

check() {  # check NAME WANT SCRIPT [RECORD_OPTION...]: 3 processes, output WANT, each replays --check OK
  local name=$1 want=$2 script=$3 out pids p
  shift 3
  out=$("$py" -c "$script" 2>&1 </dev/null) || fail "$name: native run failed: $out"
  [ "$out" = "$want" ] || fail "$name: native run printed '$out'"
  timeout 300 "$SLSDBG" record "$@" -o "$tmp/$name" -- "$py" -c "$script" >"$tmp/$name.out" 2>"$tmp/$name.err" </dev/null ||
    fail "$name: record: $(cat "$tmp/$name.err")"
  [ "$(cat "$tmp/$name.out")" = "$want" ] || fail "$name: recorded run printed '$(cat "$tmp/$name.out")' ($(cat "$tmp/$name.err"))"
  grep -q "recorded 2 child process" "$tmp/$name.err" || fail "$name: record does not report 2 children: $(cat "$tmp/$name.err")"
  grep -q "child process [0-9]*:" "$tmp/$name.err" && fail "$name: a child's recording failed: $(cat "$tmp/$name.err")"
  grep -q "share memory ran one at a time" "$tmp/$name.err" || fail "$name: the processes took no turns: $(cat "$tmp/$name.err")"
  pids=$("$SLSDBG" info "$tmp/$name" --json | "$py" -c 'import json,sys; print(" ".join(str(p["pid"]) for p in json.load(sys.stdin)["processes"]))') ||
    fail "$name: info --json failed"
  set -- $pids
  [ $# -eq 3 ] || fail "$name: want 3 processes, got: $pids"
  for p in $pids; do
    out=$(timeout 120 "$SLSDBG" replay "$tmp/$name" -p "$p" --check 2>&1 </dev/null) || fail "$name: replay -p $p --check: $out"
    grep -q '^OK' <<<"$out" || fail "$name: replay -p $p --check does not say OK: $out"
    grep -q "^history ends when the process ends" <<<"$out" || fail "$name: replay -p $p: history does not end with the exit: $out"
    echo "$name: member $p: $(head -1 <<<"$out")"
  done
}

